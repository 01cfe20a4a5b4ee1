"""Providers: the resource provider interface and its backends (OpenStack, simulated, native Heat).

Backends import only `providers.interface` and their own SDKs; never state or the engine.
"""
