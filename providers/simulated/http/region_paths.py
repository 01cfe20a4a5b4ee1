"""Where each region of a served simulated cloud answers: the home region at the server's root, every
other region under `/regions/<name>`, as another host of the same cloud would.

Keystone (identity) is one for the whole cloud and answers at the root only; the catalog it hands
out lists every other service once per region, at that region's prefix.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from providers.simulated.settings import REGION

PREFIX = "/regions/"


def region_prefix(region: str) -> str:
    """The path every endpoint of `region` starts with ("" for the home region)."""
    return "" if region == REGION else f"{PREFIX}{quote(region, safe='')}"


def split_region(path: str) -> tuple[str, str]:
    """(region, the path within it) of a request's path."""
    if not path.startswith(PREFIX):
        return REGION, path
    name, _, rest = path[len(PREFIX) :].partition("/")
    return unquote(name), f"/{rest}"
