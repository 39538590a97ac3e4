"""A compaction lease kept in the database: single-flight across connections and processes.

The ``contextfold_leases`` table holds at most one row per session: who holds the
session's compaction (a random id per acquisition) and until when (milliseconds since
the epoch, by the clock of the machine that wrote it; the processes sharing an SQLite
file share that clock). Claiming is one write transaction: an upsert that takes the
row only when it is free, expired or already ours, then a read of who holds it. The
holder renews the lease while it works (:func:`hold_lease`), deletes it when done, and
a holder that dies stops renewing, so its lease expires and the next claim takes it.

The lease makes compaction single-flight; it is not what keeps the history correct. A
holder that stalls past its lease can lose it to another compactor, so the commit is a
compare-and-swap on the snapshot (:func:`contextfold.stores._sql.rewrite.holds_snapshot`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

from contextfold._cancel import finish
from contextfold.stores._sql.schema import SQLSession

__all__ = ["LEASE_TABLE", "hold_lease"]

logger = logging.getLogger("contextfold.compaction")

LEASE_TABLE = """CREATE TABLE IF NOT EXISTS contextfold_leases (
    session_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at INTEGER NOT NULL)"""
"""The lease table (SQLite only: PostgreSQL uses advisory locks, which end with the
connection). Creating it does not change the schema version: older versions ignore it."""

_CLAIM = """
    INSERT INTO contextfold_leases (session_id, holder, expires_at) VALUES (?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder,
        expires_at = excluded.expires_at
    WHERE contextfold_leases.holder = excluded.holder OR contextfold_leases.expires_at <= ?"""

Transaction = Callable[[], AbstractAsyncContextManager[SQLSession]]
"""Opens one write transaction on the store's database."""


def _now_ms() -> int:
    return int(time.time() * 1000)


async def _claim(transaction: Transaction, session_id: str, holder: str, seconds: float) -> bool:
    """Take or renew the lease for ``seconds``; whether ``holder`` holds it afterwards."""
    now = _now_ms()
    async with transaction() as db:
        await db.execute(_CLAIM, (session_id, holder, now + int(seconds * 1000), now))
        rows = await db.fetch(
            "SELECT holder FROM contextfold_leases WHERE session_id = ?", (session_id,)
        )
    return bool(rows) and rows[0][0] == holder


async def _release(transaction: Transaction, session_id: str, holder: str) -> None:
    async with transaction() as db:
        await db.execute(
            "DELETE FROM contextfold_leases WHERE session_id = ? AND holder = ?",
            (session_id, holder),
        )


async def _keep(
    transaction: Transaction, session_id: str, holder: str, seconds: float, stop: asyncio.Event
) -> None:
    """Renew the lease every quarter of its length until ``stop`` is set or the lease is lost.

    It is stopped by ``stop``, never cancelled: a renewal under way finishes first.
    """
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), seconds / 4)
        if stop.is_set():
            return
        try:
            if not await _claim(transaction, session_id, holder, seconds):
                logger.warning(
                    "lost the compaction lease of session %s (held past its expiry); the "
                    "commit's compare-and-swap keeps the history correct",
                    session_id,
                )
                return
        except Exception as exc:  # a busy or closing database: try again next time
            logger.debug("could not renew the compaction lease of session %s: %s", session_id, exc)


async def _let_go(
    transaction: Transaction,
    session_id: str,
    holder: str,
    keeper: asyncio.Task[None],
    stop: asyncio.Event,
) -> None:
    """Stop renewing (after the renewal under way, if any) and delete the lease."""
    stop.set()
    await asyncio.wait([keeper])
    try:
        await _release(transaction, session_id, holder)
    except Exception as exc:
        logger.warning(
            "could not release the compaction lease of session %s (%s); it expires on its own",
            session_id,
            exc,
        )


@contextlib.asynccontextmanager
async def hold_lease(
    transaction: Transaction, session_id: str, seconds: float
) -> AsyncIterator[bool]:
    """Try once to take ``session_id``'s compaction lease; yield whether it was taken.

    A claim that fails with an error (the database locked past its busy timeout, say)
    is logged and yields ``False``, like a lease held by someone else. While the block
    runs, a task renews the lease; on exit (normal, error or cancellation) the renewal
    under way, if any, finishes, renewing stops and the lease is deleted. If deleting
    fails, the lease simply expires ``seconds`` after its last renewal.

    A cancellation never cuts a claim, a renewal or the release in two
    (:func:`~contextfold._cancel.finish`): each is one write transaction awaited to its
    end, and a claim that succeeded just as its caller was cancelled is released before
    the cancellation goes on. (The transaction helper is cancellation-safe as well, so
    no step can leave a transaction open on the connection.)
    """
    holder = uuid.uuid4().hex

    async def unclaim(claimed: bool) -> None:
        if claimed:
            await _release(transaction, session_id, holder)

    try:
        claimed = await finish(_claim(transaction, session_id, holder, seconds), undo=unclaim)
    except Exception as exc:  # e.g. the database stayed locked past the busy timeout
        logger.warning(
            "could not claim the compaction lease of session %s (%s); skipping", session_id, exc
        )
        claimed = False
    if not claimed:
        yield False
        return
    stop = asyncio.Event()
    keeper = asyncio.create_task(_keep(transaction, session_id, holder, seconds, stop))
    try:
        yield True
    finally:
        await finish(_let_go(transaction, session_id, holder, keeper, stop))
