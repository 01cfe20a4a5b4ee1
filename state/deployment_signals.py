"""Deployment signals kept in batches: each signal's verdict judged from its deployment's entry.

A verdict needs the entry (the outputs the config declares), so a batch reads the entries of all
its tokens' deployments in one query, judges each signal, and writes every verdict in one statement.

On SQLite both run in the batch's one transaction, whose write lock no other writer can take
between them. On PostgreSQL they run as two standalone statements (two round trips, no BEGIN,
COMMIT or transaction id): the write is one `UPDATE ... FROM unnest(...) ... RETURNING` that keeps
a verdict only where the token is still the deployment's and the deployment's config hash is still
the one judged, and says which it kept. A verdict it did not keep (the token revoked, or the
deployment changed, meanwhile) is judged again from a fresh read, so a revoked token is never
answered as kept. The write is idempotent: run again after a lost answer, it writes the same verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from state.software_tables import AGENT_TOKENS, SOFTWARE_DEPLOYMENTS

# What a deployment's signal comes to, decided from its metadata entry: (status, reason, outputs).
Judge = Callable[[Mapping[str, Any]], tuple[str, str, Mapping[str, Any]]]
Signal = tuple[str, Judge]  # a deployment token's digest and the judge of what its bearer sent

# Reads of a batch whose verdicts were not all kept (each time a deployment changed or a token went
# between the read and the write) before the batch fails and its signals are tried one by one.
MOST_JUDGING_ROUNDS = 5


class DeploymentsKeptChanging(RuntimeError):
    """A deployment changed between every read of its entry and the write of its verdict."""


@dataclass(frozen=True)
class _Verdict:
    digest: str
    deployment_id: str
    waiter: str  # the physical id of the resource waiting for the signal: its group's, or its own
    config_hash: str
    status: str
    reason: str
    outputs: Mapping[str, Any]


_DEPLOYMENT_COLUMNS = (
    AGENT_TOKENS.c.digest,
    SOFTWARE_DEPLOYMENTS.c.id,
    SOFTWARE_DEPLOYMENTS.c.group_id,
    SOFTWARE_DEPLOYMENTS.c.config_hash,
    SOFTWARE_DEPLOYMENTS.c.entry,
)
_TOKEN_DEPLOYMENTS = AGENT_TOKENS.join(
    SOFTWARE_DEPLOYMENTS, SOFTWARE_DEPLOYMENTS.c.id == AGENT_TOKENS.c.subject
)
_DEPLOYMENTS_BY_TOKENS = (
    sa.select(*_DEPLOYMENT_COLUMNS)
    .select_from(_TOKEN_DEPLOYMENTS)
    .where(
        AGENT_TOKENS.c.digest.in_(sa.bindparam("digests", expanding=True)),
        AGENT_TOKENS.c.kind == "deployment",
    )
)
_KEEP_VERDICT = (
    sa.update(SOFTWARE_DEPLOYMENTS)
    .where(SOFTWARE_DEPLOYMENTS.c.id == sa.bindparam("deployment_id"))
    .values(
        status=sa.bindparam("new_status"),
        status_reason=sa.bindparam("new_reason"),
        outputs=sa.bindparam("new_outputs", type_=SOFTWARE_DEPLOYMENTS.c.outputs.type),
        updated_at=sa.bindparam("now"),
    )
)

# PostgreSQL: arrays, not lists of as many parameters, so each statement has one text for every
# batch size and the server prepares and plans it once
_DEPLOYMENTS_BY_TOKEN_ARRAY = (
    sa.select(*_DEPLOYMENT_COLUMNS)
    .select_from(_TOKEN_DEPLOYMENTS)
    .where(
        AGENT_TOKENS.c.digest == sa.any_(sa.bindparam("digests", type_=postgresql.ARRAY(sa.String))),
        AGENT_TOKENS.c.kind == "deployment",
    )
)
_JUDGED = (
    sa.func.unnest(
        sa.bindparam("digests", type_=postgresql.ARRAY(sa.String)),
        sa.bindparam("config_hashes", type_=postgresql.ARRAY(sa.String)),
        sa.bindparam("statuses", type_=postgresql.ARRAY(sa.String)),
        sa.bindparam("reasons", type_=postgresql.ARRAY(sa.Text)),
        sa.bindparam("outputs", type_=postgresql.ARRAY(sa.Text)),
    )
    .table_valued("digest", "config_hash", "status", "reason", "outputs")
    .render_derived(name="judged")
)
_KEEP_VERDICTS_IF_CURRENT = (
    sa.update(SOFTWARE_DEPLOYMENTS)
    .where(
        AGENT_TOKENS.c.digest == _JUDGED.c.digest,
        AGENT_TOKENS.c.kind == "deployment",
        SOFTWARE_DEPLOYMENTS.c.id == AGENT_TOKENS.c.subject,
        SOFTWARE_DEPLOYMENTS.c.config_hash == _JUDGED.c.config_hash,
    )
    .values(
        status=_JUDGED.c.status,
        status_reason=_JUDGED.c.reason,
        outputs=sa.cast(_JUDGED.c.outputs, postgresql.JSONB),
        updated_at=sa.bindparam("now"),
    )
    .returning(_JUDGED.c.digest)
)


def keep_in_transaction(connection: sa.Connection, signals: list[Signal], now: float) -> list[str | None]:
    """Judge and keep `signals` inside the caller's transaction: for each, the physical id of the
    resource waiting for it (its deployment's group, or the deployment), None when it was no live
    deployment's."""
    verdicts = _judge(connection.execute(_DEPLOYMENTS_BY_TOKENS, {"digests": _digests(signals)}), signals)
    if verdicts:
        # rows locked in one order by every batch, so concurrent batches never deadlock
        connection.execute(
            _KEEP_VERDICT,
            [
                {
                    "deployment_id": verdict.deployment_id,
                    "now": now,
                    "new_status": verdict.status,
                    "new_reason": verdict.reason,
                    "new_outputs": dict(verdict.outputs),
                }
                for verdict in _in_row_order(verdicts)
            ],
        )
    return _waiters(signals, verdicts, verdicts.keys())


def keep_standalone(connection: sa.Connection, signals: list[Signal], now: float) -> list[str | None]:
    """PostgreSQL: judge and keep `signals` in standalone statements (autocommit): for each, as
    `keep_in_transaction` says, once its verdict committed."""
    kept: set[str] = set()
    judged: dict[str, _Verdict] = {}
    pending = signals
    for _ in range(MOST_JUDGING_ROUNDS):
        found = connection.execute(_DEPLOYMENTS_BY_TOKEN_ARRAY, {"digests": _digests(pending)})
        verdicts = _judge(found, pending)
        judged.update(verdicts)
        written = _write_if_current(connection, _in_row_order(verdicts), now) if verdicts else set()
        kept |= written
        pending = [signal for signal in pending if signal[0] in verdicts and signal[0] not in written]
        if not pending:
            return _waiters(signals, judged, kept)
    raise DeploymentsKeptChanging(f"{len(pending)} deployments changed while their signals were judged")


def _write_if_current(connection: sa.Connection, verdicts: list[_Verdict], now: float) -> set[str]:
    columns: dict[str, list[str]] = {
        "digests": [],
        "config_hashes": [],
        "statuses": [],
        "reasons": [],
        "outputs": [],
    }
    for verdict in verdicts:
        columns["digests"].append(verdict.digest)
        columns["config_hashes"].append(verdict.config_hash)
        columns["statuses"].append(verdict.status)
        columns["reasons"].append(verdict.reason)
        columns["outputs"].append(json.dumps(dict(verdict.outputs)))
    return set(connection.execute(_KEEP_VERDICTS_IF_CURRENT, {"now": now, **columns}).scalars())


def _waiters(
    signals: list[Signal], verdicts: Mapping[str, _Verdict], kept: Collection[str]
) -> list[str | None]:
    return [verdicts[digest].waiter if digest in kept else None for digest, _ in signals]


def _digests(signals: list[Signal]) -> list[str]:
    return sorted({digest for digest, _ in signals})


def _judge(found: sa.CursorResult[Any], signals: list[Signal]) -> dict[str, _Verdict]:
    """Each signal's verdict by its token's digest, for the tokens of deployments with an entry;
    of two signals with one token, the later one's."""
    rows = {row.digest: row for row in found if row.entry is not None}
    verdicts: dict[str, _Verdict] = {}
    for digest, judge in signals:
        row = rows.get(digest)
        if row is not None:
            status, reason, outputs = judge(row.entry)
            waiter = row.group_id or row.id
            verdicts[digest] = _Verdict(digest, row.id, waiter, row.config_hash, status, reason, outputs)
    return verdicts


def _in_row_order(verdicts: Mapping[str, _Verdict]) -> list[_Verdict]:
    return sorted(verdicts.values(), key=lambda verdict: verdict.deployment_id)
