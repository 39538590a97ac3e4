"""The proxy's memory on PostgreSQL, shared by every replica pointed at one database.

``create_app(db="postgresql://...")`` (``contextfold serve --db postgresql://...``)
keeps four things here, so that N replicas behind a load balancer pay for one
summary per threshold crossing of a conversation, not N:

* ``contextfold_proxy_summaries`` - the summary cache, the same rows as the SQLite
  cache (:class:`~contextfold.proxy._cache.SummaryCache`), except that a NUL
  character (which PostgreSQL text cannot hold) is stored as U+FFFD;
* ``contextfold_proxy_anchors`` - the prompt sizes the upstream reported, by the
  chain hash of the forwarded history. Each replica still keeps its own in-memory
  anchors; it writes every new one here in the background and, before estimating a
  history, reads the anchors other replicas recorded for its last
  :data:`~contextfold.proxy._cache.ANCHOR_TAIL` prefixes (one indexed query).
  Rows untouched for a week are deleted when a replica starts, and after every
  1,000 anchors it writes;
* ``contextfold_proxy_leases`` - one row per compaction in flight: the hash of the
  history it compacts, the conversation (root hash), a random holder id and an
  expiry in milliseconds *by the database server's clock* (replicas on machines
  whose clocks differ agree on it). Claiming is one transaction under an advisory
  lock on the conversation: if a live lease covers the history or a prefix of it,
  the claim fails and the replica waits (polling every 20-250 ms) until that lease
  is released or expires, then looks in the cache again. The holder renews its
  lease every quarter of :attr:`PostgresSummaryCache.lease_seconds` while it
  summarizes and deletes it when done; a holder that dies stops renewing, so its
  lease expires and blocks nobody longer than that;
* ``contextfold_proxy_secrets`` - the secret tenant keys are made with
  (:mod:`._tenant`), made by the first replica to open the database: every replica
  computes the same tenant key for a credential, and every hash above is one
  tenant's.

The lease only saves money; correctness never depends on it. A summary is stored
under the hash of the prefix it replaces, and any summary of a prefix is a valid
one, so two replicas that both summarize (a lease that expired under a stalled
holder) only pay twice.

Connections come from a psycopg ``AsyncConnectionPool`` (autocommit). Every use of
the database (taking a connection included) gets :attr:`PostgresSummaryCache.query_timeout`
seconds, then fails with an ``OperationalError``: a database that stops answering
delays a request by that much, never holds it (an abandoned query is cancelled, and
its connection closed, in the background). The URL is
checked, and the tables created, by :meth:`PostgresSummaryCache.open` with one
direct connection first, so a bad URL is a one-line error at start-up, never a pool
that retries in the background. Requires the ``postgres`` extra.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import unquote

from contextfold._cancel import finish
from contextfold._extras import requires_extra
from contextfold.compaction._cache import CachedSummary

with requires_extra("postgres", "contextfold.proxy (--db postgresql://...)"):
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo
    from psycopg_pool import AsyncConnectionPool

from contextfold.proxy._cache import CacheBackend, Lease, UsageAnchors
from contextfold.proxy._tenant import SECRET_BYTES

__all__ = ["PostgresSummaryCache", "is_postgres_url", "open_error", "redacted_url"]

logger = logging.getLogger("contextfold.proxy")

_T = TypeVar("_T")

_ANCHOR_TTL_MS = 7 * 24 * 3600 * 1000
_PRUNE_EVERY = 1000  # anchors written between two prunings of the week-old ones
_SCHEMA_LOCK_KEY = 0x63667072_6F787931  # "cfproxy1": serialises table creation
_NOW_MS = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS contextfold_proxy_summaries (
        prefix_hash   TEXT PRIMARY KEY,
        root_hash     TEXT NOT NULL,
        message_count BIGINT NOT NULL,
        summary       TEXT NOT NULL,
        created_at    TEXT NOT NULL)""",
    """CREATE INDEX IF NOT EXISTS contextfold_proxy_summaries_root
        ON contextfold_proxy_summaries (root_hash, message_count DESC)""",
    """CREATE TABLE IF NOT EXISTS contextfold_proxy_anchors (
        usage_key  TEXT PRIMARY KEY,
        tokens     BIGINT NOT NULL,
        updated_at BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS contextfold_proxy_leases (
        history_hash TEXT PRIMARY KEY,
        root_hash    TEXT NOT NULL,
        holder       TEXT NOT NULL,
        expires_at   BIGINT NOT NULL)""",
    """CREATE INDEX IF NOT EXISTS contextfold_proxy_leases_root
        ON contextfold_proxy_leases (root_hash)""",
    """CREATE TABLE IF NOT EXISTS contextfold_proxy_secrets (
        name  TEXT PRIMARY KEY,
        value BYTEA NOT NULL)""",
)


def is_postgres_url(db: object) -> bool:
    """Whether ``db`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


def redacted_url(url: str) -> str:
    """``url`` without its password, to be shown in an error."""
    try:
        params = conninfo_to_dict(url)
    except psycopg.Error:
        return "postgresql://..."
    params.pop("password", None)
    user = f"{params['user']}@" if params.get("user") else ""
    port = f":{params['port']}" if params.get("port") else ""
    return f"postgresql://{user}{params.get('host', '')}{port}/{params.get('dbname', '')}"


def open_error(url: str, exc: BaseException) -> str:
    """One line saying why the database at ``url`` cannot be used, password-free."""
    return f"{redacted_url(url)}: cannot be used as the summary cache: {_reason(url, exc)}"


def _reason(url: str, exc: BaseException) -> str:
    reason = " ".join(str(exc).split()) or type(exc).__name__
    for password in _passwords(url):
        reason = reason.replace(password, "[redacted]")
    return reason


def _passwords(url: str) -> list[str]:
    """The password ``url`` holds, as parsed and as written: libpq quotes the text of
    a URL it cannot parse in its error, password included."""
    found = []
    with contextlib.suppress(psycopg.Error):
        found.append(str(conninfo_to_dict(url).get("password") or ""))
    userinfo = re.match(r"[^:/?#]+://([^?#]*)@", url)
    if userinfo is not None and ":" in userinfo[1]:
        written = userinfo[1].split(":", 1)[1]
        found += [written, unquote(written)]
    return sorted({p for p in found if p}, key=len, reverse=True)


def _advisory_key(root: str) -> int:
    digest = hashlib.blake2b(f"contextfold:proxy:{root}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class _PgLease(Lease):
    """A lease row this replica holds, renewed until released."""

    def __init__(self, cache: PostgresSummaryCache, key: str, holder: str) -> None:
        self._cache = cache
        self._key = key
        self._holder = holder
        self._keeper = asyncio.create_task(self._keep())

    async def _keep(self) -> None:
        seconds = self._cache.lease_seconds
        while True:
            await asyncio.sleep(seconds / 4)
            try:
                rowcount = await self._cache._run(
                    lambda conn: _rowcount(
                        conn.execute(
                            "UPDATE contextfold_proxy_leases SET expires_at = "
                            f"{_NOW_MS} + %s WHERE history_hash = %s AND holder = %s",
                            (int(seconds * 1000), self._key, self._holder),
                        )
                    )
                )
                if rowcount == 0:
                    logger.warning("lost a compaction lease (held past its expiry)")
                    return
            except psycopg.Error as exc:  # try again at the next quarter
                logger.debug("could not renew a compaction lease: %s", type(exc).__name__)

    async def release(self) -> None:
        # Finished whatever cancels the caller meanwhile: a release cut short left the
        # row to block every replica's compaction of the conversation for a lease.
        await finish(self._release())

    async def _release(self) -> None:
        self._keeper.cancel()
        await asyncio.wait([self._keeper])
        try:
            await self._cache._run(
                lambda conn: conn.execute(
                    "DELETE FROM contextfold_proxy_leases WHERE history_hash = %s AND holder = %s",
                    (self._key, self._holder),
                )
            )
        except psycopg.Error as exc:
            logger.warning(
                "could not release a compaction lease (%s); it expires on its own",
                type(exc).__name__,
            )


class PostgresSummaryCache(CacheBackend):
    """Summary cache, usage anchors and compaction leases in PostgreSQL (module doc).

    ``url`` is a ``postgresql://`` URL (libpq's; ``?options=-csearch_path%3Dname``
    picks a schema). ``lease_seconds`` is how long a dead replica's lease blocks
    the others; ``pool_size`` bounds the connections this replica opens;
    ``query_timeout`` bounds each use of the database (module doc).
    """

    def __init__(
        self,
        url: str,
        *,
        lease_seconds: float = 30.0,
        pool_size: int = 10,
        query_timeout: float = 5.0,
    ) -> None:
        if lease_seconds <= 0:
            raise ValueError(f"lease_seconds must be positive, got {lease_seconds}")
        if query_timeout <= 0:
            raise ValueError(f"query_timeout must be positive, got {query_timeout}")
        self.query_timeout = query_timeout
        self._abandoned: set[asyncio.Task[Any]] = set()
        self.url = url
        self.lease_seconds = lease_seconds
        self.pool_size = pool_size
        self._db: AsyncConnectionPool[Any] | None = None
        self._writes: set[asyncio.Task[None]] = set()
        self._pushed = 0

    async def open(self) -> None:
        """Check the URL, create the tables, open the pool. Raises
        :class:`psycopg.Error` (an ``OperationalError`` for an unreachable server)."""
        if self._db is not None:
            return
        failure = None
        try:
            await self._create()
        except psycopg.Error as exc:  # its text (and its cause's) may quote the password
            failure = _reason(self.url, exc)
        if failure is not None:  # raised here, out of the handler: no context kept
            raise psycopg.OperationalError(failure)
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            make_conninfo(self.url),
            min_size=1,
            max_size=self.pool_size,
            kwargs={"autocommit": True},
            open=False,
        )
        await pool.open(wait=True, timeout=10)
        self._db = pool

    async def _create(self) -> None:
        """Create the tables (one replica at a time), read the tenant secret (made
        by the first replica) and drop week-old anchors."""
        async with await psycopg.AsyncConnection.connect(
            self.url, autocommit=True, connect_timeout=10
        ) as conn:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK_KEY,))
                for statement in _SCHEMA:
                    await conn.execute(statement)
                # The first replica's secret wins; every other one reads it back.
                await conn.execute(
                    "INSERT INTO contextfold_proxy_secrets (name, value) VALUES ('tenant', %s) "
                    "ON CONFLICT (name) DO NOTHING",
                    (secrets.token_bytes(SECRET_BYTES),),
                )
                cursor = await conn.execute(
                    "SELECT value FROM contextfold_proxy_secrets WHERE name = 'tenant'"
                )
                found = await cursor.fetchone()
                assert found is not None  # inserted above, or before
                self._secret = bytes(found[0])
            await conn.execute(
                f"DELETE FROM contextfold_proxy_anchors WHERE updated_at < {_NOW_MS} - %s",
                (_ANCHOR_TTL_MS,),
            )

    async def close(self) -> None:
        """Wait for the writes under way, then close the pool: each within
        :attr:`query_timeout` (a silent database holds a shutdown twice that)."""
        if self._writes:
            await asyncio.wait(list(self._writes), timeout=self.query_timeout)
        if self._db is not None:
            pool, self._db = self._db, None
            await pool.close(timeout=self.query_timeout)

    def _pool(self) -> AsyncConnectionPool[Any]:
        if self._db is None:
            raise RuntimeError("the summary cache is not open")
        return self._db

    async def _run(self, work: Callable[[psycopg.AsyncConnection[Any]], Awaitable[_T]]) -> _T:
        """``work`` on a pooled connection, within :attr:`query_timeout` seconds."""
        pool = self._pool()

        async def use() -> _T:
            async with pool.connection(timeout=self.query_timeout) as conn:
                try:
                    return await work(conn)
                except psycopg.OperationalError:
                    if not conn.broken:
                        raise
            # The server closed that connection while it idled (a restart, a
            # failover, an administrator): once more, on a fresh one.
            async with pool.connection(timeout=self.query_timeout) as conn:
                return await work(conn)

        task = asyncio.ensure_future(use())
        try:
            await asyncio.wait([task], timeout=self.query_timeout)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if task.done():
            return task.result()
        # Not awaited: psycopg's cancellation of a query the server does not answer
        # takes seconds more (then it closes the connection).
        task.cancel()
        self._abandoned.add(task)
        task.add_done_callback(_forget(self._abandoned))
        raise psycopg.OperationalError(
            f"the database did not answer within {self.query_timeout:g} s"
        )

    async def _fetch(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        async def fetch(conn: psycopg.AsyncConnection[Any]) -> list[tuple[Any, ...]]:
            cursor = await conn.execute(sql, params)
            return list(await cursor.fetchall())

        return await self._run(fetch)

    # -- summaries -----------------------------------------------------------------

    async def longest(self, root: str, chain: Sequence[str]) -> CachedSummary[str] | None:
        # Hashes first: a conversation's rows hold the summaries of every branch it
        # left, and only the one spliced is worth transferring.
        rows = await self._fetch(
            "SELECT prefix_hash, message_count FROM contextfold_proxy_summaries "
            "WHERE root_hash = %s AND message_count < %s ORDER BY message_count DESC",
            (root, len(chain) - 1),
        )
        for prefix_hash, count in rows:
            if chain[count] == prefix_hash:
                found = await self._fetch(
                    "SELECT summary FROM contextfold_proxy_summaries "
                    "WHERE prefix_hash = %s AND message_count = %s",
                    (prefix_hash, count),
                )
                if found:  # (else replaced or gone since: look further)
                    return CachedSummary(prefix_hash, int(count), found[0][0])
        return None

    async def store(self, root: str, summary: CachedSummary[str]) -> None:
        await self._run(
            lambda conn: conn.execute(
                "INSERT INTO contextfold_proxy_summaries "
                "(prefix_hash, root_hash, message_count, summary, created_at) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (prefix_hash) DO UPDATE SET "
                "root_hash = excluded.root_hash, message_count = excluded.message_count, "
                "summary = excluded.summary, created_at = excluded.created_at",
                (
                    summary.prefix_hash,
                    root,
                    summary.message_count,
                    # PostgreSQL text cannot hold NUL (JSON can, and summaries quote)
                    summary.summary.replace("\x00", "\ufffd"),
                    datetime.now(UTC).isoformat(),
                ),
            )
        )

    async def count(self) -> int:
        rows = await self._fetch("SELECT COUNT(*) FROM contextfold_proxy_summaries", ())
        return int(rows[0][0])

    # -- anchors -------------------------------------------------------------------

    async def pull_anchors(self, anchors: UsageAnchors, keys: Sequence[str]) -> None:
        wanted = [k for k in dict.fromkeys(keys) if anchors.get(k) is None]
        if not wanted:
            return
        try:
            rows = await self._fetch(
                "SELECT usage_key, tokens FROM contextfold_proxy_anchors WHERE usage_key = ANY(%s)",
                (wanted,),
            )
        except psycopg.Error as exc:  # anchors are hints: estimate without them
            logger.debug("could not read shared usage anchors: %s", type(exc).__name__)
            return
        for key, tokens in rows:
            anchors.record(key, int(tokens))

    def push_anchor(self, key: str, input_tokens: int) -> None:
        self._background(self._push(key, input_tokens))
        self._pushed += 1
        if self._pushed % _PRUNE_EVERY == 0:
            self._background(self._prune())

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _prune(self) -> None:
        try:
            await self._run(
                lambda conn: conn.execute(
                    f"DELETE FROM contextfold_proxy_anchors WHERE updated_at < {_NOW_MS} - %s",
                    (_ANCHOR_TTL_MS,),
                )
            )
        except (psycopg.Error, RuntimeError) as exc:  # the next pruning tries again
            logger.debug("could not prune old usage anchors: %s", type(exc).__name__)

    async def _push(self, key: str, input_tokens: int) -> None:
        try:
            await self._run(
                lambda conn: conn.execute(
                    "INSERT INTO contextfold_proxy_anchors (usage_key, tokens, updated_at) "
                    f"VALUES (%s, %s, {_NOW_MS}) ON CONFLICT (usage_key) DO UPDATE SET "
                    "tokens = excluded.tokens, updated_at = excluded.updated_at",
                    (key, input_tokens),
                )
            )
        except (psycopg.Error, RuntimeError) as exc:  # an anchor is a hint: losing one is fine
            logger.debug("could not share a usage anchor: %s", type(exc).__name__)

    # -- single-flight -------------------------------------------------------------

    async def claim(self, root: str, key: str, chain: Sequence[str]) -> Lease | None:
        """See :meth:`CacheBackend.claim`. When the database cannot be asked, the
        claim succeeds without a lease: summarizing twice beats not summarizing."""
        try:
            return await self._claim(root, key, chain)
        except psycopg.Error as exc:
            logger.warning(
                "could not take a compaction lease (%s); summarizing without one",
                type(exc).__name__,
            )
            return Lease()

    async def _claim(self, root: str, key: str, chain: Sequence[str]) -> Lease | None:
        holder = uuid.uuid4().hex

        async def undo(taken: bool) -> None:  # taken as the caller was cancelled
            if taken:
                await self._run(
                    lambda conn: conn.execute(
                        "DELETE FROM contextfold_proxy_leases "
                        "WHERE history_hash = %s AND holder = %s",
                        (key, holder),
                    )
                )

        # Finished: a claim cancelled while its transaction commits took the lease all
        # the same, and nobody would have released it.
        take = self._run(lambda conn: self._take(conn, root, key, set(chain), holder))
        if await finish(take, undo=undo):
            return _PgLease(self, key, holder)
        return None

    async def _take(
        self,
        conn: psycopg.AsyncConnection[Any],
        root: str,
        key: str,
        prefixes: set[str],
        holder: str,
    ) -> bool:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_advisory_key(root),))
            await conn.execute(
                f"DELETE FROM contextfold_proxy_leases WHERE root_hash = %s "
                f"AND expires_at <= {_NOW_MS}",
                (root,),
            )
            cursor = await conn.execute(
                "SELECT history_hash FROM contextfold_proxy_leases WHERE root_hash = %s",
                (root,),
            )
            if any(row[0] in prefixes for row in await cursor.fetchall()):
                return False
            # Any row left for ``key`` is live and was matched above: this inserts.
            await conn.execute(
                "INSERT INTO contextfold_proxy_leases (history_hash, root_hash, holder, "
                f"expires_at) VALUES (%s, %s, %s, {_NOW_MS} + %s)",
                (key, root, holder, int(self.lease_seconds * 1000)),
            )
        return True

    async def wait(self, root: str, chain: Sequence[str], within: float) -> bool:
        prefixes = set(chain)
        deadline = time.monotonic() + within
        delay = 0.02
        while True:
            try:
                rows = await self._fetch(
                    "SELECT history_hash FROM contextfold_proxy_leases "
                    f"WHERE root_hash = %s AND expires_at > {_NOW_MS}",
                    (root,),
                )
            except psycopg.Error as exc:  # look in the cache again rather than hang
                logger.warning("could not read compaction leases (%s)", type(exc).__name__)
                return True
            if not any(row[0] in prefixes for row in rows):
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            await asyncio.sleep(min(delay, left))
            delay = min(delay * 1.5, 0.25)


async def _rowcount(pending: Awaitable[psycopg.AsyncCursor[Any]]) -> int:
    return (await pending).rowcount


def _forget(tasks: set[asyncio.Task[Any]]) -> Callable[[asyncio.Task[Any]], None]:
    """A done-callback dropping an abandoned task from ``tasks`` (its error read)."""

    def done(task: asyncio.Task[Any]) -> None:
        tasks.discard(task)
        if not task.cancelled():
            task.exception()

    return done
