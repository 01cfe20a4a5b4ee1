"""Software orchestration's rows: configs, deployments, agent tokens and handle signals.

Written by the software provider (through the entry layer's adapter) when the engine creates,
updates or deletes a config, a deployment or a wait condition, and by the agent API of any daemon
when a VM polls or signals. Signals are facts, not a lease holder's act: they are written unfenced,
and the holder of the resource's shard reads them at its next readiness poll.

A server's `modified_at` moves forward by at least a second at every change of its deployments,
because agents compare `Last-Modified` at one-second resolution: two changes within one second
must still be two different times.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import sqlalchemy as sa

from state.agent_changes import move_counters, read_counters
from state.batched_writes import BatchedItems, BatchedWrites
from state.deployment_signals import Judge, Signal, keep_in_transaction, keep_standalone
from state.metadata_index import MetadataIndex, MetadataVersion
from state.poll_reads import PooledQuery, QueryFailed
from state.signal_notices import announce_resource_signals
from state.software_statements import (
    DEPLOYMENT_COLUMNS,
    DEPLOYMENT_SERVERS,
    SERVER_INSERT,
    SERVER_MODIFIED,
    SERVER_MOVE,
    SERVERS_MODIFIED,
    TOKEN_INSERT,
    TOKENS_OF_SUBJECT_DELETE,
    deployment_upsert,
)
from state.software_tables import (
    AGENT_SERVERS,
    AGENT_TOKENS,
    HANDLE_SIGNALS,
    SOFTWARE_DEPLOYMENTS,
    SOFTWARE_OBJECTS,
)
from state.transactions import Transactor
from state.upserts import dialect_insert
from timekeeping import Clock

T = TypeVar("T")

# Batches of deployment signals written at once on PostgreSQL: one batch's statements run while
# another's commit waits for the disk (SQLite has one write lock, so more would only queue for it)
SIGNAL_WRITERS = 4

__all__ = ["MetadataVersion"]  # importers of this module name it beside the rows


@dataclass(frozen=True)
class ObjectRow:
    id: str
    kind: str
    stack: str
    body: Mapping[str, Any]
    created_at: float = 0.0


@dataclass(frozen=True)
class DeploymentRow:
    id: str
    server_id: str
    stack: str
    resource: str
    action: str
    status: str
    config_hash: str
    entry: Mapping[str, Any]
    status_reason: str = ""
    outputs: Mapping[str, Any] = field(default_factory=dict)
    deadline: float | None = None
    group_id: str | None = None
    updated_at: float = 0.0
    actions: Sequence[str] = ()
    published: bool = True


@dataclass(frozen=True)
class SignalRow:
    signal_id: str
    status: str
    reason: str
    data: Any = None


@dataclass(frozen=True)
class TokenGrant:
    """What a presented token allows: its kind, its subject, and for a server token the server."""

    kind: str
    subject: str
    server_id: str | None


@dataclass(frozen=True)
class ServerMetadata:
    """A server's deployments metadata and when it last changed (None: nothing was ever deployed)."""

    entries: list[dict[str, Any]]
    modified_at: float | None


# The statements every poll and signal runs, built once: building one costs as much as running it.
_METADATA_VERSION = (
    sa.select(AGENT_TOKENS.c.kind, AGENT_TOKENS.c.server_id, AGENT_SERVERS.c.modified_at)
    .select_from(AGENT_TOKENS.outerjoin(AGENT_SERVERS, AGENT_SERVERS.c.server_id == AGENT_TOKENS.c.server_id))
    .where(AGENT_TOKENS.c.digest == sa.bindparam("digest"))
)
_GRANT = sa.select(AGENT_TOKENS).where(AGENT_TOKENS.c.digest == sa.bindparam("digest"))
_PUBLISHED_ENTRIES = (
    sa.select(SOFTWARE_DEPLOYMENTS.c.entry)
    .where(
        SOFTWARE_DEPLOYMENTS.c.server_id == sa.bindparam("server_id"),
        SOFTWARE_DEPLOYMENTS.c.published.is_(True),
    )
    .order_by(SOFTWARE_DEPLOYMENTS.c.id)
)


def _deployment(row: sa.Row[Any]) -> DeploymentRow:
    return DeploymentRow(**{name: getattr(row, name) for name in DEPLOYMENT_COLUMNS})


class SoftwareStore:
    """Every operation one transaction, retried through the store's `Transactor`."""

    def __init__(
        self,
        transactor: Transactor,
        clock: Clock,
        index: MetadataIndex | None = None,
        signal_transactor: Transactor | None = None,
    ) -> None:
        """`signal_transactor`: where deployment signals' batches run (default: `transactor`)."""
        self._tx = transactor
        self._clock = clock
        # shared by every SoftwareStore of a Store, so a change made through one is seen by all
        self._index = MetadataIndex(clock) if index is None else index
        # Signals arriving together on the agent API's threads are committed together, by one
        # writer: a commit per signal would cost an fsync each (and on SQLite a turn at its one
        # write lock, whose waiters sleep in steps of up to 100 ms). So are the configs and tokens
        # the cloud-call threads write, hundreds at once when a group is built.
        self._signals = BatchedWrites(transactor, "signals")
        # Deployments put together are written by one statement per table, not seven each: a batch
        # of hundreds one by one held SQLite's write lock for seconds, every put waiting for it.
        self._deployment_puts: BatchedItems[DeploymentPut, Mapping[int, int]] = BatchedItems(
            transactor, "put deployments", self._put_deployments
        )
        postgres = transactor.engine.dialect.name == "postgresql"
        self._deployment_signals: BatchedItems[Signal, str | None] = BatchedItems(
            signal_transactor or transactor,
            "deployment signals",
            self._keep_deployment_signals,
            writers=SIGNAL_WRITERS if postgres else 1,
            standalone=postgres,
            urgent=True,
        )
        self._version_query: PooledQuery | None = None

    def _write(self, operation: str, work: Callable[[sa.Connection], T]) -> T:
        return cast(T, self._signals.write(work))

    def _change_servers(self, operation: str, work: Callable[[sa.Connection], Collection[str]]) -> None:
        """Run `work`, which changes what the servers it returns answer to a metadata poll, and
        move their change counters in the same transaction; this process's index learns at once."""

        def changing(connection: sa.Connection) -> Mapping[int, int]:
            return move_counters(connection, work(connection))

        self._index.advance(self._write(operation, changing))

    # Configs, wait conditions, groups
    def put_object(self, item: ObjectRow) -> None:
        def work(connection: sa.Connection) -> None:
            values = {"kind": item.kind, "stack": item.stack, "body": dict(item.body)}
            insert = dialect_insert(connection, SOFTWARE_OBJECTS).values(
                id=item.id, created_at=self._clock.now(), **values
            )
            connection.execute(insert.on_conflict_do_update(index_elements=["id"], set_=values))

        self._write("put software object", work)

    def objects(self, ids: Collection[str]) -> Mapping[str, ObjectRow]:
        def work(connection: sa.Connection) -> Mapping[str, ObjectRow]:
            rows = connection.execute(sa.select(SOFTWARE_OBJECTS).where(SOFTWARE_OBJECTS.c.id.in_(list(ids))))
            return {row.id: ObjectRow(row.id, row.kind, row.stack, row.body, row.created_at) for row in rows}

        return self._tx.read("software objects", work) if ids else {}

    def delete_object(self, object_id: str) -> None:
        self._tx.run(
            "delete software object",
            lambda c: c.execute(sa.delete(SOFTWARE_OBJECTS).where(SOFTWARE_OBJECTS.c.id == object_id)),
        )

    # Deployments
    def put_deployment(self, deployment: DeploymentRow, token_digest: str | None) -> None:
        """Write the deployment (its token, when given, the only one of it from now on), and move
        the change counters of its server and of the one it was on."""
        self.submit_deployment(deployment, token_digest).result()

    def submit_deployment(self, deployment: DeploymentRow, token_digest: str | None) -> Future[None]:
        """`put_deployment`, its outcome (None, or the write's error) once the batch it joined
        committed and the counters it moved are known here: the caller need not wait for it."""
        written: Future[None] = Future()

        def committed(put: Future[Mapping[int, int]]) -> None:
            try:
                self._index.advance(put.result())
            except Exception as error:
                written.set_exception(error)
            else:
                written.set_result(None)

        self._deployment_puts.submit(DeploymentPut(deployment, token_digest)).add_done_callback(committed)
        return written

    def _put_deployments(
        self, connection: sa.Connection, puts: list[DeploymentPut]
    ) -> list[Mapping[int, int]]:
        """`put_deployment` of every put, in one transaction; the counters moved, for each."""
        if len({put.deployment.id for put in puts}) < len(puts):  # one twice: each after the one before
            return [moved for put in puts for moved in self._put_deployments(connection, [put])]
        now = self._clock.now()
        puts = sorted(puts, key=lambda put: put.deployment.id)  # rows locked in one order by every writer
        ids = [put.deployment.id for put in puts]
        previous = {row.id: row.server_id for row in connection.execute(DEPLOYMENT_SERVERS, {"ids": ids})}
        connection.execute(
            deployment_upsert(connection.dialect.name),
            [_deployment_values(put.deployment, now) for put in puts],
        )
        tokens = [put for put in puts if put.token_digest is not None]
        if tokens:
            connection.execute(TOKENS_OF_SUBJECT_DELETE, [{"subject": put.deployment.id} for put in tokens])
            issued = [_deployment_token(put.deployment.id, str(put.token_digest), now) for put in tokens]
            connection.execute(TOKEN_INSERT, issued)
        changed = {
            str(server_id)
            for put in puts
            for server_id in (put.deployment.server_id, previous.get(put.deployment.id))
            if server_id is not None
        }
        _touch_servers(connection, sorted(changed), now)
        moved = move_counters(connection, changed)
        return [moved] * len(puts)

    def deployments(self, ids: Collection[str]) -> Mapping[str, DeploymentRow]:
        def work(connection: sa.Connection) -> Mapping[str, DeploymentRow]:
            table = SOFTWARE_DEPLOYMENTS
            rows = connection.execute(sa.select(table).where(table.c.id.in_(list(ids))))
            return {row.id: _deployment(row) for row in rows}

        return self._tx.read("deployments", work) if ids else {}

    def group_deployments(self, group_id: str) -> Sequence[DeploymentRow]:
        def work(connection: sa.Connection) -> Sequence[DeploymentRow]:
            table = SOFTWARE_DEPLOYMENTS
            rows = connection.execute(
                sa.select(table).where(table.c.group_id == group_id).order_by(table.c.id)
            )
            return [_deployment(row) for row in rows]

        return self._tx.read("group deployments", work)

    def delete_deployment(self, deployment_id: str) -> None:
        def work(connection: sa.Connection) -> list[str]:
            table = SOFTWARE_DEPLOYMENTS
            server_id = connection.execute(
                sa.delete(table).where(table.c.id == deployment_id).returning(table.c.server_id)
            ).scalar()
            connection.execute(sa.delete(AGENT_TOKENS).where(AGENT_TOKENS.c.subject == deployment_id))
            if server_id is None:
                return []
            _touch_server(connection, server_id, self._clock.now())
            return [server_id]

        self._change_servers("delete deployment", work)

    def judge_deployment_signal(self, digest: str, judge: Judge) -> str | None:
        """For a deployment token's digest: read its deployment's metadata entry, let `judge`
        decide the signal's (status, reason, outputs) from it, and keep them, committed with the
        deployment signals beside it. The physical id of the resource waiting for the signal (the
        deployment's group, or the deployment); None for any other or unknown token, or a
        deployment gone."""
        return self.submit_deployment_signal(digest, judge).result()

    def submit_deployment_signal(self, digest: str, judge: Judge) -> Future[str | None]:
        """`judge_deployment_signal` without waiting: its answer, once the batch is committed."""
        return self._deployment_signals.submit((digest, judge))

    def _keep_deployment_signals(self, connection: sa.Connection, signals: list[Signal]) -> list[str | None]:
        now = self._clock.now()
        if connection.dialect.name == "postgresql":
            kept = keep_standalone(connection, signals, now)
            waiters = {waiter for waiter in kept if waiter is not None}
            if waiters:
                announce_resource_signals(connection, waiters)  # autocommitted: after the verdicts are
            return kept
        return keep_in_transaction(connection, signals, now)

    def record_deployment_signal(
        self, deployment_id: str, *, status: str, reason: str, outputs: Mapping[str, Any]
    ) -> bool:
        """A deployment's result as its agent signalled it; False when the deployment is gone."""

        def work(connection: sa.Connection) -> bool:
            table = SOFTWARE_DEPLOYMENTS
            now = self._clock.now()
            server_id = connection.execute(
                sa.update(table)
                .where(table.c.id == deployment_id)
                .values(status=status, status_reason=reason, outputs=dict(outputs), updated_at=now)
                .returning(table.c.server_id)
            ).scalar()
            return server_id is not None

        return self._write("deployment signal", work)

    # Tokens
    def issue_token(self, digest: str, kind: str, subject: str) -> None:
        def work(connection: sa.Connection) -> None:
            insert = dialect_insert(connection, AGENT_TOKENS).values(
                digest=digest, kind=kind, subject=subject, server_id=None, created_at=self._clock.now()
            )
            connection.execute(insert.on_conflict_do_nothing(index_elements=["digest"]))

        self._write("issue token", work)

    def bind_server(self, subject: str, server_id: str) -> None:
        def work(connection: sa.Connection) -> set[str]:
            tokens = AGENT_TOKENS
            of_subject = tokens.c.subject == subject
            bound_before = connection.execute(
                sa.select(tokens.c.server_id).where(of_subject, tokens.c.server_id.is_not(None))
            ).scalars()
            changed = {server_id, *bound_before}
            connection.execute(sa.update(tokens).where(of_subject).values(server_id=server_id))
            _touch_server(connection, server_id, self._clock.now(), only_new=True)
            return changed

        self._change_servers("bind server", work)

    def revoke_server(self, server_id: str) -> None:
        def work(connection: sa.Connection) -> list[str]:
            connection.execute(sa.delete(AGENT_TOKENS).where(AGENT_TOKENS.c.server_id == server_id))
            connection.execute(sa.delete(AGENT_SERVERS).where(AGENT_SERVERS.c.server_id == server_id))
            return [server_id]

        self._change_servers("revoke server", work)

    def revoke_tokens(self, subject: str) -> None:
        def work(connection: sa.Connection) -> set[str]:
            tokens = AGENT_TOKENS
            deleted = connection.execute(
                sa.delete(tokens).where(tokens.c.subject == subject).returning(tokens.c.server_id)
            ).scalars()
            return {server_id for server_id in deleted if server_id is not None}

        self._change_servers("revoke tokens", work)

    def grant(self, digest: str) -> TokenGrant | None:
        """What the token with this digest allows, if it is (still) valid."""

        def work(connection: sa.Connection) -> TokenGrant | None:
            row = connection.execute(_GRANT, {"digest": digest}).first()
            return None if row is None else TokenGrant(row.kind, row.subject, row.server_id)

        return self._tx.read("token grant", work)

    def remembered_metadata_version(self, digest: str) -> MetadataVersion | None:
        """For a server token's digest, its version as this process remembers it, if known to be
        current (no I/O: a poll holding it is answered 304 without a read); None: ask
        `metadata_version`."""
        return self._index.remembered(digest)

    def metadata_version(self, digest: str, *, afresh: bool = False) -> MetadataVersion | None:
        """For a server token's digest: its server and when that server's metadata last changed;
        None for any other or unknown token. Remembered (`MetadataIndex`) unless `afresh`; else
        one query, on a pooled connection of its own (`PooledQuery`), a connection failure tried
        again the way every transaction is."""
        self._index.refresh(self._change_counters)
        if not afresh:
            remembered = self._index.remembered(digest)
            if remembered is not None:
                return remembered
        before = self._index.counters
        found = self._read_metadata_version(digest)
        if found is None:
            self._index.forget(digest)
        else:
            self._index.remember(digest, found, before)
        return found

    def _change_counters(self) -> tuple[int, ...]:
        return self._tx.read("agent change counters", read_counters)

    def _read_metadata_version(self, digest: str) -> MetadataVersion | None:
        if self._version_query is None:
            self._version_query = PooledQuery(self._tx.engine, _METADATA_VERSION)
        try:
            row = self._version_query.first({"digest": digest})
        except QueryFailed:
            row = self._tx.read(
                "metadata version", lambda c: c.execute(_METADATA_VERSION, {"digest": digest}).first()
            )
        return _version_of(row)

    def server_metadata(self, server_id: str) -> ServerMetadata:
        """The `deployments` entries of a server, by resource name, and when they last changed."""

        def work(connection: sa.Connection) -> ServerMetadata:
            modified_at = connection.execute(SERVER_MODIFIED, {"server_id": server_id}).scalar()
            return _server_metadata(connection, server_id, modified_at)

        return self._tx.read("server metadata", work)

    def metadata_document(self, digest: str) -> tuple[MetadataVersion, ServerMetadata] | None:
        """For a server token's digest: its version and its server's metadata, both read afresh in
        one transaction (one pooled connection per document a poll fetches); None for any other or
        unknown token."""
        self._index.refresh(self._change_counters)
        before = self._index.counters

        def work(connection: sa.Connection) -> tuple[MetadataVersion, ServerMetadata] | None:
            version = _version_of(connection.execute(_METADATA_VERSION, {"digest": digest}).first())
            if version is None:
                return None
            return version, _server_metadata(connection, version.server_id, version.modified_at)

        found = self._tx.read("metadata document", work)
        if found is None:
            self._index.forget(digest)
        else:
            self._index.remember(digest, found[0], before)
        return found

    # Wait condition handles
    def record_handle_signal(self, handle_id: str, signal: SignalRow) -> bool:
        """Keep a handle's signal; False when a signal with that id was already kept (idempotent)."""

        def work(connection: sa.Connection) -> bool:
            insert = dialect_insert(connection, HANDLE_SIGNALS).values(
                handle_id=handle_id,
                signal_id=signal.signal_id,
                status=signal.status,
                reason=signal.reason,
                data=signal.data,
                received_at=self._clock.now(),
            )
            result = connection.execute(
                insert.on_conflict_do_nothing(index_elements=["handle_id", "signal_id"])
            )
            announce_resource_signals(connection)
            return bool(result.rowcount)

        return self._write("handle signal", work)

    def handle_signals(self, handle_ids: Collection[str]) -> Mapping[str, Sequence[SignalRow]]:
        def work(connection: sa.Connection) -> Mapping[str, Sequence[SignalRow]]:
            table = HANDLE_SIGNALS
            rows = connection.execute(
                sa.select(table).where(table.c.handle_id.in_(list(handle_ids))).order_by(table.c.id)
            )
            signals: dict[str, list[SignalRow]] = {handle: [] for handle in handle_ids}
            for row in rows:
                signals[row.handle_id].append(SignalRow(row.signal_id, row.status, row.reason, row.data))
            return signals

        return self._tx.read("handle signals", work) if handle_ids else {}

    def delete_handle_signals(self, handle_id: str) -> None:
        self._tx.run(
            "delete handle signals",
            lambda c: c.execute(sa.delete(HANDLE_SIGNALS).where(HANDLE_SIGNALS.c.handle_id == handle_id)),
        )


def _version_of(row: sa.Row[Any] | tuple[Any, ...] | None) -> MetadataVersion | None:
    """The version a `_METADATA_VERSION` row names, if its token is a server's."""
    if row is None:
        return None
    kind, server_id, modified_at = row
    if kind != "server" or server_id is None:
        return None
    return MetadataVersion(server_id, modified_at)


def _server_metadata(connection: sa.Connection, server_id: str, modified_at: float | None) -> ServerMetadata:
    """The server's published entries, read after `modified_at` was: a change between the two
    reads leaves the time older than the entries, never newer, so no poll keeps stale entries."""
    # Heat lists a server's deployments in the order of their names, which applies them so; a
    # deployment not run for any action yet has no entry
    entries = sorted(
        (
            dict(row.entry)
            for row in connection.execute(_PUBLISHED_ENTRIES, {"server_id": server_id})
            if row.entry
        ),
        key=lambda entry: str(entry.get("name", "")),
    )
    return ServerMetadata(entries, modified_at)


@dataclass(frozen=True)
class DeploymentPut:
    """One `put_deployment`: the row, and the digest of the token that becomes its only one."""

    deployment: DeploymentRow
    token_digest: str | None


def _deployment_values(deployment: DeploymentRow, now: float) -> dict[str, Any]:
    values = {name: getattr(deployment, name) for name in DEPLOYMENT_COLUMNS}
    values.update(
        entry=dict(deployment.entry),
        outputs=dict(deployment.outputs),
        actions=list(deployment.actions),
        updated_at=now,
    )
    return values


def _deployment_token(subject: str, digest: str, now: float) -> dict[str, Any]:
    return {"digest": digest, "kind": "deployment", "subject": subject, "server_id": None, "created_at": now}


def _touch_servers(connection: sa.Connection, server_ids: list[str], now: float) -> None:
    """`_touch_server` of each server (each once), with a statement per kind, not per server."""
    if not server_ids:
        return
    found = {
        row.server_id: row.modified_at
        for row in connection.execute(SERVERS_MODIFIED, {"server_ids": server_ids})
    }
    fresh = [
        {"server_id": server_id, "modified_at": math.floor(now)}
        for server_id in server_ids
        if server_id not in found
    ]
    if fresh:
        connection.execute(SERVER_INSERT, fresh)
    moves = [
        {"moved_server": server_id, "moved_to": max(math.floor(now), math.floor(found[server_id]) + 1)}
        for server_id in server_ids
        if server_id in found
    ]
    if moves:
        connection.execute(SERVER_MOVE, moves)


def _touch_server(connection: sa.Connection, server_id: str, now: float, *, only_new: bool = False) -> None:
    """Move the server's `modified_at` to a later whole second than before (see module doc)."""
    previous = connection.execute(SERVER_MODIFIED, {"server_id": server_id}).scalar()
    if previous is None:
        connection.execute(SERVER_INSERT, {"server_id": server_id, "modified_at": math.floor(now)})
    elif not only_new:
        later = max(math.floor(now), math.floor(previous) + 1)
        connection.execute(SERVER_MOVE, {"moved_server": server_id, "moved_to": later})
