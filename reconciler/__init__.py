"""reconciler: a GitOps daemon that converges OpenStack clouds to Heat templates kept in git.

The subpackages are layered (see docs/architecture.md); `.importlinter` enforces the layers.
"""

__version__ = "0.1.0"
