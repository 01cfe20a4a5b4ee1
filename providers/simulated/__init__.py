"""Simulated cloud: an in-process cloud model and its OpenStack-compatible HTTP face.

May import `providers.interface`; never state, the engine or the OpenStack SDK.
"""
