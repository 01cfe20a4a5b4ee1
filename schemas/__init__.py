"""JSON Schemas for templates, environment files and reconciler.yaml, and their loader.

Imports nothing of the project; every other layer may read it.
"""
