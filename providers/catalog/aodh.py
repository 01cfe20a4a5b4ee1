"""Alarm types served by the cloud providers (Aodh): threshold (Ceilometer's, deprecated but still in
templates), the three Gnocchi threshold alarms, event and composite alarms.

Their schemas are data (`schemas/resource_types/aodh.yaml`); how their properties become Aodh's
alarm body is `alarm_bodies`.
"""

from __future__ import annotations

from providers.catalog.alarm_bodies import ALARM_KINDS
from providers.catalog.declaring import from_schema

TYPES = tuple(from_schema(name) for name in ALARM_KINDS)
