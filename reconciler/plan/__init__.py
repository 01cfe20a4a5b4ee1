"""Plan layer: the pure diff between a desired stack definition and its recorded state.

May import templates only; no state, no providers, no I/O, no clock.
"""
