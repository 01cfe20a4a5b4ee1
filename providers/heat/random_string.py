"""OS::Heat::RandomString's value: the character classes and sequences Heat's reference defines."""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

CHARACTER_CLASSES: Mapping[str, str] = {
    "lettersdigits": string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "ABCDEF",
    "octdigits": string.octdigits,
}


class RandomSource(Protocol):
    """What the generator needs of a random source (`random.SystemRandom` in production)."""

    def choice(self, seq: Sequence[str]) -> str: ...

    def shuffle(self, x: list[str]) -> None: ...


class RandomStringError(ValueError):
    """The properties cannot produce a string (a minimum longer than the length, an unknown class)."""


def _pools(properties: Mapping[str, Any]) -> list[tuple[str, int]]:
    """(characters, minimum count) for every class and sequence the properties ask for."""
    pools: list[tuple[str, int]] = []
    for entry in properties.get("character_classes") or []:
        name = entry.get("class", "lettersdigits")
        if name not in CHARACTER_CLASSES:
            raise RandomStringError(f"unknown character class {name!r}")
        pools.append((CHARACTER_CLASSES[name], int(entry.get("min", 1))))
    for entry in properties.get("character_sequences") or []:
        pools.append((str(entry["sequence"]), int(entry.get("min", 1))))
    if not pools:
        legacy = properties.get("sequence")
        pools.append((CHARACTER_CLASSES.get(str(legacy), CHARACTER_CLASSES["lettersdigits"]), 0))
    return pools


MIN_LENGTH, MAX_LENGTH, DEFAULT_LENGTH = 1, 512, 32


def requested_length(properties: Mapping[str, Any]) -> int:
    """The `length` asked for, held to Heat's schema (an integer from 1 to 512), with its messages."""
    value = properties.get("length")
    if value is None:
        return DEFAULT_LENGTH
    try:
        length = int(str(value).strip()) if not isinstance(value, bool) else None
    except ValueError:
        length = None
    if length is None:
        raise RandomStringError(f"length: Value '{value}' is not an integer")
    if not MIN_LENGTH <= length <= MAX_LENGTH:
        raise RandomStringError(f"length: {length} is out of range (min: {MIN_LENGTH}, max: {MAX_LENGTH})")
    return length


def generate_random_string(properties: Mapping[str, Any], random: RandomSource) -> str:
    """A string of `length` characters holding at least `min` of every requested class and sequence."""
    length = requested_length(properties)
    try:
        pools = _pools(properties)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise RandomStringError(f"character classes or sequences are malformed: {error}") from error
    minimum = sum(count for _, count in pools)
    if minimum > length:
        raise RandomStringError(f"length {length} is shorter than the {minimum} characters the minimums need")
    characters = [random.choice(pool) for pool, count in pools for _ in range(count)]
    everything = "".join(sorted({character for pool, _ in pools for character in pool}))
    characters += [random.choice(everything) for _ in range(length - minimum)]
    random.shuffle(characters)
    return "".join(characters)
