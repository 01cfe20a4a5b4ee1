"""Source layer: git repositories, watching refs, revisions per stack and git notes.

May import templates and state; must not import engine internals or any provider.
"""
