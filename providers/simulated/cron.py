"""Five-field cron patterns (minute hour day-of-month month day-of-week), as Mistral's cron triggers
take them: `*`, numbers, ranges `a-b`, steps `*/n` and `a-b/n`, and comma lists; day of week 0-7
with 0 and 7 both Sunday. Named months and days and the `@hourly` shorthands are not taken."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

FIELDS = (
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 7),
)
SEARCH_DAYS = 366 * 5  # a pattern that names no real date (30 February) is refused after this


def field_values(text: str, name: str, low: int, high: int) -> frozenset[int]:
    values: set[int] = set()
    for part in text.split(","):
        spread, _, step_text = part.partition("/")
        step = int(step_text) if step_text.isdigit() else 1
        if (step_text and not step_text.isdigit()) or step < 1:
            raise ValueError(f"bad step in {name} field {text!r}")
        if spread == "*":
            start, end = low, high
        else:
            first, _, last = spread.partition("-")
            if not first.isdigit() or (last and not last.isdigit()):
                raise ValueError(f"bad {name} field {text!r}")
            start, end = int(first), int(last) if last else (high if step_text else int(first))
        if not low <= start <= end <= high:
            raise ValueError(f"{name} field {text!r} is outside {low}-{high}")
        values.update(range(start, end + 1, step))
    return frozenset(values)


@dataclass(frozen=True)
class CronPattern:
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 Sunday .. 6 Saturday
    any_day: bool
    any_weekday: bool

    @classmethod
    def parse(cls, text: str) -> CronPattern:
        parts = text.split()
        if len(parts) != len(FIELDS):
            raise ValueError(f"expected 5 fields, found {len(parts)}")
        values = [field_values(part, *spec) for part, spec in zip(parts, FIELDS, strict=True)]
        weekdays = frozenset(day % 7 for day in values[4])
        return cls(values[0], values[1], values[2], values[3], weekdays, parts[2] == "*", parts[4] == "*")

    def matches_day(self, moment: datetime) -> bool:
        if moment.month not in self.months:
            return False
        day = moment.day in self.days
        weekday = (moment.isoweekday() % 7) in self.weekdays
        if self.any_day or self.any_weekday:  # cron's rule: both restricted means either may match
            return day and weekday
        return day or weekday

    def next_after(self, moment: datetime) -> datetime:
        """The first time strictly after `moment` (to the minute) that the pattern names."""
        start = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
        day = start.replace(hour=0, minute=0)
        for _ in range(SEARCH_DAYS):
            if self.matches_day(day):
                for hour in sorted(self.hours):
                    for minute in sorted(self.minutes):
                        candidate = day.replace(hour=hour, minute=minute)
                        if candidate >= start:
                            return candidate
            day += timedelta(days=1)
        raise ValueError("the pattern names no time in the next five years")
