"""How the simulated cloud behaves: latency, time to ACTIVE, quotas and its concurrency limit.

Settings are not part of the saved state: whoever opens a cloud says how it behaves this time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

REGION = "RegionOne"  # the region every simulated cloud has (its home: Keystone answers there)


@dataclass(frozen=True)
class Latency:
    """Seconds each call takes: `default`, or per operation ("create", "list", ...)."""

    default: float = 0.0
    per_operation: Mapping[str, float] = field(default_factory=dict)

    def of(self, operation: str) -> float:
        return self.per_operation.get(operation, self.default)

    @classmethod
    def parse(cls, text: str) -> Latency:
        """`0.05` (every call) or `0.05,create=0.2,list=0.01`, in seconds; ValueError when malformed."""
        default = 0.0
        per_operation: dict[str, float] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, sep, value = item.partition("=")
            if sep:
                per_operation[key.strip()] = float(value)
            else:
                default = float(key)
        return cls(default, MappingProxyType(per_operation))


@dataclass(frozen=True)
class CloudSettings:
    """The behaviour of one simulated cloud."""

    latency: Latency = field(default_factory=Latency)
    time_to_active: float = 0.0  # seconds a server or volume stays in BUILD / creating
    # collection name (or "gigabytes", the sum of volume sizes) -> limit; absent = unlimited
    quotas: Mapping[str, int] = field(default_factory=dict)
    max_concurrent: int | None = None  # calls in flight at once; None = no limit
    reject_over_limit: bool = False  # over the limit: 429 (True) or wait for a free slot (False)
    retry_after: float = 1.0  # the Retry-After of a 429 from the concurrency limit
    project_id: str = "5f0d5d9b3c0a4c5e9f1b2a3c4d5e6f70"
    user_id: str = "0b6c1f0e1a2d4c3b8e7f6a5d4c3b2a10"
    regions: tuple[str, ...] = ()  # regions served besides REGION, each holding its own resources
    # where volumes, snapshots and backups keep their data (`volume_data`); None: they hold none
    volume_data: Path | None = None

    @property
    def region_names(self) -> tuple[str, ...]:
        """Every region the cloud serves, REGION first."""
        return (REGION, *(name for name in dict.fromkeys(self.regions) if name != REGION))

    @staticmethod
    def parse_regions(text: str) -> tuple[str, ...]:
        """`RegionTwo,RegionThree`: the regions served besides REGION."""
        return tuple(name for name in (part.strip() for part in text.split(",")) if name)
