"""Engine layer: coordinator, executor and observer that converge stacks to their desired generation.

May import plan, templates, state and the provider interface; must never import the OpenStack SDK.
"""
