"""docs/drift.md keeps up with the providers: every type a provider serves has a row in that
provider's table, and no row names a type the provider does not serve.

The types come from the providers' own registries (the OpenStack provider's handlers, the simulated
cloud's `resource_types()`, the native Heat types), so a type added to a provider fails here until
the documentation says what its observation reads and compares.
"""

from __future__ import annotations

import re
from collections.abc import Set
from pathlib import Path

import pytest

from providers.catalog import CATALOG
from providers.heat import NATIVE_TYPES
from providers.openstack.load_balancing import TYPE_NAMES as LOAD_BALANCING_TYPES
from providers.openstack.provider import HANDLERS
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider

DRIFT_DOC = Path(__file__).resolve().parents[2] / "docs" / "drift.md"
# A table row whose first cell is a type name in backquotes: "| `OS::Nova::Server` | ...".
ROW = re.compile(r"^\|\s*`(?P<type>(?:OS|AWS)::[A-Za-z0-9:]+)`\s*\|", re.MULTILINE)


def rows_by_section(text: str) -> dict[str, frozenset[str]]:
    """The type names of the table rows under each `## ` heading, by heading."""
    sections: dict[str, frozenset[str]] = {}
    for section in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        heading, _, body = section.partition("\n")
        sections[heading.strip()] = frozenset(match["type"] for match in ROW.finditer(body))
    return sections


def section_rows(heading_start: str) -> frozenset[str]:
    found = {
        heading: rows
        for heading, rows in rows_by_section(DRIFT_DOC.read_text(encoding="utf-8")).items()
        if heading.startswith(heading_start)
    }
    assert len(found) == 1, f"docs/drift.md needs one section headed {heading_start!r}"
    return next(iter(found.values()))


def served(heading: str) -> Set[str]:
    """The types the provider documented under `heading` serves, from its own registry."""
    if heading == "OpenStack provider":
        return HANDLERS.keys() | LOAD_BALANCING_TYPES
    if heading == "Simulated cloud":
        return SimulatedProvider(SimulatedCloud()).resource_types().keys()
    assert heading == "Native Heat types"
    return NATIVE_TYPES.keys()


PROVIDER_SECTIONS = ("OpenStack provider", "Simulated cloud", "Native Heat types")


@pytest.mark.parametrize("heading", PROVIDER_SECTIONS)
def test_every_served_type_has_a_row_in_its_providers_table(heading: str) -> None:
    missing = sorted(served(heading) - section_rows(heading))
    assert not missing, f"docs/drift.md, section {heading!r}: no row for {missing}"


@pytest.mark.parametrize("heading", PROVIDER_SECTIONS)
def test_no_row_names_a_type_its_provider_does_not_serve(heading: str) -> None:
    stale = sorted(section_rows(heading) - served(heading))
    assert not stale, f"docs/drift.md, section {heading!r}: rows for types not served: {stale}"


def test_every_catalog_type_is_served_by_a_documented_provider() -> None:
    documented = {name for heading in PROVIDER_SECTIONS for name in served(heading)}
    assert CATALOG.keys() <= documented
