"""The chaos suite: several `reconciler run` daemons on one PostgreSQL and one simulated cloud
served over HTTP, disturbed while they converge a real git repository, then audited for duplicates,
orphans, missing resources, stalls and takeover times. `python -m bench.chaos --help`; see
docs/chaos.md.
"""
