"""One place where transactions begin, commit and survive dropped connections.

Every store operation is a function of a Connection run inside `Transactor.run`. When the
connection drops or the database refuses it (restart, failover, SQLite busy, deadlock), the whole transaction
is rolled back and run again after an exponential, jittered pause, within a time budget read from
the injected clock; past the budget the caller gets `DatabaseUnavailable` and pauses its work.

A drop during COMMIT itself leaves the outcome unknown, and running the transaction again blindly
could apply it twice (new records inserted twice). On PostgreSQL a writing transaction reads its own
transaction id before committing; after a lost COMMIT the transactor asks the server, on a new
connection, what became of that id (`txid_status`, made for this): committed, the result computed
before the commit stands; aborted, the transaction runs again like any other that failed. Only
when the server cannot say within the budget (unreachable, or the id too old) does the caller get
`CommitOutcomeUnknown`, and re-reads. A read-only transaction whose COMMIT was lost simply runs again.

On SQLite, writing transactions of one process take turns (`state.write_turns`) before they begin;
an urgent one (somebody waits on its answer) goes before the others waiting.

`run_standalone` is for work whose statements each stand alone and may all run again whole (an
idempotent conditional UPDATE, say): each statement commits as it runs, with no BEGIN, COMMIT or
transaction id around them, so a connection lost anywhere, even before a write's answer came back,
is retried like any transient failure.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar, cast

import sqlalchemy as sa

from state.database import READ_ONLY_OPTION, SQLITE_BUSY_TIMEOUT_MS
from state.errors import CommitOutcomeUnknown, DatabaseUnavailable
from state.write_turns import WriteTurns
from timekeeping import Clock, Sleeper

T = TypeVar("T")

# PostgreSQL error codes after which the whole transaction may simply run again: connection
# exceptions (08), transaction rollback such as deadlock or serialization failure (40), operator
# intervention such as a server shutting down (57), and a session ended for idling in a transaction.
TRANSIENT_SQLSTATE_CLASSES = ("08", "40", "57")
TRANSIENT_SQLSTATES = frozenset({"25P03"})


@dataclass(frozen=True)
class RetryPolicy:
    """How long and how often to retry a transaction whose connection failed."""

    budget_seconds: float = 10.0
    first_pause: float = 0.05
    max_pause: float = 2.0


def is_transient_failure(error: sa.exc.DBAPIError) -> bool:
    """A dropped connection or a transient refusal (server restarting, SQLite busy, a deadlock or
    serialization failure the server resolved by aborting us), as opposed to a wrong statement or a
    constraint violation: running the whole transaction again is the documented remedy for each."""
    if error.connection_invalidated or isinstance(error, sa.exc.OperationalError | sa.exc.InterfaceError):
        return True
    sqlstate = getattr(error.orig, "sqlstate", None) or ""
    return sqlstate.startswith(TRANSIENT_SQLSTATE_CLASSES) or sqlstate in TRANSIENT_SQLSTATES


class Transactor:
    """Runs units of work in transactions, retrying those that fail for connection reasons."""

    def __init__(
        self,
        engine: sa.Engine,
        *,
        clock: Clock,
        sleeper: Sleeper,
        policy: RetryPolicy | None = None,
        jitter: random.Random | None = None,
        write_turns: WriteTurns | None = None,
    ) -> None:
        """`write_turns`: shared with the other transactors of this process on the same SQLite
        database, so that all their writers take turns together (one of its own otherwise)."""
        self.engine = engine
        self._clock = clock
        self._sleeper = sleeper
        self._policy = policy or RetryPolicy()
        self._jitter = jitter or random.Random()
        self._write_turns = write_turns or (WriteTurns() if engine.dialect.name == "sqlite" else None)

    def on_engine(self, engine: sa.Engine) -> Transactor:
        """A transactor with this one's clock, pauses, retry policy and turns to write, on another
        engine (another pool of connections to the same database)."""
        return Transactor(
            engine,
            clock=self._clock,
            sleeper=self._sleeper,
            policy=self._policy,
            jitter=self._jitter,
            write_turns=self._write_turns,
        )

    def read(self, operation: str, work: Callable[[sa.Connection], T]) -> T:
        """Like `run`, for work that only reads: on SQLite it does not take the write lock."""
        return self.run(operation, work, read_only=True)

    def run(
        self,
        operation: str,
        work: Callable[[sa.Connection], T],
        *,
        read_only: bool = False,
        urgent: bool = False,
    ) -> T:
        """Run `work` in one transaction and commit it; retry the whole of it on connection failure.
        `urgent`: on SQLite, its turn to write comes before those of this process' other writers."""
        return self._retrying(operation, lambda: self._once(operation, work, read_only, urgent))

    def run_standalone(self, operation: str, work: Callable[[sa.Connection], T]) -> T:
        """Run `work` with each of its statements committed on its own; retry the whole of it on
        connection failure. Only for work that is right to run again whole, whatever of it committed."""
        return self._retrying(operation, lambda: self._standalone(work))

    def _retrying(self, operation: str, attempt_once: Callable[[], T]) -> T:
        deadline = self._clock.now() + self._policy.budget_seconds
        pause = self._policy.first_pause
        attempt = 0
        while True:
            attempt += 1
            try:
                return attempt_once()
            except _LostCommit as lost:
                if self._committed(operation, lost):
                    return cast(T, lost.result)
                error = lost.error  # it was rolled back: run it again like any failed transaction
            except sa.exc.DBAPIError as failure:
                if not is_transient_failure(failure):
                    raise
                error = failure
            if self._clock.now() + pause > deadline:
                raise DatabaseUnavailable(operation, attempt, error.__class__.__name__) from error
            self._pause(pause)
            pause = min(pause * 2, self._policy.max_pause)

    def _pause(self, pause: float) -> None:
        self._sleeper.sleep(pause * (0.5 + self._jitter.random() / 2))

    def _once(self, operation: str, work: Callable[[sa.Connection], T], read_only: bool, urgent: bool) -> T:
        with self._turn(read_only, urgent), self.engine.connect() as connection:
            connection.execution_options(**{READ_ONLY_OPTION: read_only})
            transaction = connection.begin()
            try:
                result = work(connection)
                xid = None if read_only else _transaction_id(connection)
            except BaseException:
                if transaction.is_active:
                    transaction.rollback()
                raise
            try:
                transaction.commit()
            except sa.exc.DBAPIError as error:
                if read_only or not (is_transient_failure(error) and error.connection_invalidated):
                    raise
                if xid is None:
                    raise CommitOutcomeUnknown(operation, error.__class__.__name__) from error
                raise _LostCommit(xid, result, error) from error
            return result

    @contextmanager
    def _turn(self, read_only: bool, urgent: bool) -> Iterator[None]:
        """SQLite: this writer's turn among the process' writers, waited for no longer than SQLite
        itself would wait (past that, SQLite's own lock decides)."""
        if read_only or self._write_turns is None:
            yield
            return
        with self._write_turns.turn(urgent=urgent, patience=SQLITE_BUSY_TIMEOUT_MS / 1000):
            yield

    def _standalone(self, work: Callable[[sa.Connection], T]) -> T:
        with self.engine.connect() as connection:
            return work(connection.execution_options(isolation_level="AUTOCOMMIT"))

    def _committed(self, operation: str, lost: _LostCommit) -> bool:
        """Whether the transaction whose COMMIT was lost committed (False: it was rolled back).

        Asks the server on new connections until it answers within the budget; `CommitOutcomeUnknown`
        when it cannot.
        """
        deadline = self._clock.now() + self._policy.budget_seconds
        pause = self._policy.first_pause
        cause = lost.error.__class__.__name__
        while True:
            try:
                with self.engine.connect() as connection:
                    status = connection.execute(_XID_STATUS, {"xid": lost.xid}).scalar()
            except sa.exc.DBAPIError as error:
                if not is_transient_failure(error):
                    raise CommitOutcomeUnknown(operation, cause) from error
                status = "unreachable"
            if status == "committed":
                return True
            if status == "aborted":
                return False
            if status is None or self._clock.now() + pause > deadline:  # None: the id is too old
                raise CommitOutcomeUnknown(operation, cause) from lost.error
            self._pause(pause)  # "in progress" (the server still finishing it) or unreachable
            pause = min(pause * 2, self._policy.max_pause)


_XID_STATUS = sa.text("SELECT txid_status(:xid)")


class _LostCommit(Exception):
    """The connection dropped during COMMIT of transaction `xid`, which had computed `result`."""

    def __init__(self, xid: int, result: object, error: sa.exc.DBAPIError) -> None:
        super().__init__(f"commit of transaction {xid} lost")
        self.xid = xid
        self.result = result
        self.error = error


def _transaction_id(connection: sa.Connection) -> int | None:
    """PostgreSQL: this transaction's id, which outlives the connection (None elsewhere: a SQLite
    commit is local, never lost on the way)."""
    if connection.dialect.name != "postgresql":
        return None
    return int(connection.execute(sa.text("SELECT txid_current()")).scalar_one())
