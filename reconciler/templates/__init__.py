"""Templates layer: HOT and environment loading, validation, intrinsic functions, stack definitions.

Pure: may import schemas only; no state, providers, engine, clock or I/O beyond reading a given repo tree.
"""
