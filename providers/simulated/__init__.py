"""Simulated cloud: an in-process cloud model and its OpenStack-compatible HTTP face.

Entry points:
- `cloud.SimulatedCloud` - the model (Nova, Neutron, Cinder, Glance, Aodh, Keystone collections) with
  injected clock, sleep and random source, latency, failure injection (`faults.FaultPlan`), quotas,
  a concurrency limit, out-of-band changes, and a JSON state file (`SimulatedCloud.open(path)` /
  `save()`). Its limits are written in `cloud`'s module docstring.
- `provider.SimulatedProvider` - the provider interface directly on the model (no HTTP).
- `alarm_evaluator.AlarmEvaluator` - evaluates the alarms from measures and events a test sets
  (`SimulatedCloud.telemetry`) and POSTs their notifications to the alarms' action URLs.
- `http.embedded.serve_in_thread` - the HTTP face on 127.0.0.1, a free port, with a clouds.yaml;
  `reconciler sim serve` runs the same server as a process. `http.admin` lists the admin API.

May import `providers.interface` and `providers.catalog`; never state, the engine or the OpenStack SDK.
"""
