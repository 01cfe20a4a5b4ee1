"""`--database` values: any SQLAlchemy URL, with `postgresql://` meaning psycopg 3."""

from __future__ import annotations

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from state.errors import InvalidDatabaseUrl

SUPPORTED_BACKENDS = ("sqlite", "postgresql")


def database_url(raw: str | URL) -> URL:
    """Parse a database URL, pick psycopg 3 for PostgreSQL, and refuse backends the store does not speak."""
    try:
        url = raw if isinstance(raw, URL) else make_url(raw)
    except ArgumentError as error:
        raise InvalidDatabaseUrl(
            "not a database URL (expected e.g. sqlite:///path/state.sqlite or "
            f"postgresql+psycopg://user@host/db): {error.__class__.__name__}"
        ) from None
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    if url.get_backend_name() not in SUPPORTED_BACKENDS:
        raise InvalidDatabaseUrl(
            f"unsupported database backend {url.get_backend_name()!r} in {display_url(url)}; "
            "use sqlite:// or postgresql://"
        )
    if url.get_backend_name() == "postgresql" and url.get_driver_name() != "psycopg":
        raise InvalidDatabaseUrl(
            f"PostgreSQL is reached through psycopg 3: use postgresql+psycopg:// ({display_url(url)})"
        )
    return url


def display_url(url: str | URL) -> str:
    """The URL with any password masked, safe for logs and error messages."""
    try:
        parsed = url if isinstance(url, URL) else make_url(url)
    except ArgumentError:
        return "<unparseable database URL>"
    return parsed.render_as_string(hide_password=True)
