"""The proxy's memory: prefix hashes, the summary cache and the usage anchors.

A conversation is identified by hashes of its prefixes: ``chain[i]`` is the SHA-256
of its scope (the tenant key and the model name, :func:`~._tenant.scope`) and the
canonical encoding of ``messages[:i]`` (a length-prefixed form of every block's
fields, tool inputs as sorted-key JSON), computed as one running hash so a whole
history costs one pass. Whatever is keyed by these hashes (summaries, anchors,
leases) is therefore one tenant's. Nothing here ever sees a request header: the cache
stores summaries, hashes and message counts, and the secret tenant keys are made
with (``contextfold_proxy_secrets``, see :mod:`._tenant`).

:class:`CacheBackend` is what the planner needs from a cache: summaries by prefix,
and, for a fleet of replicas, shared usage anchors and a cross-replica lease on a
compaction. :class:`SummaryCache` keeps summaries in SQLite (or in memory) and
leaves anchors and single-flight to the process;
:class:`contextfold.proxy._pgcache.PostgresSummaryCache` shares all three.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import secrets
import sqlite3
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import aiosqlite

from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    to_dict,
)
from contextfold.compaction._cache import CachedSummary
from contextfold.messages import Message
from contextfold.proxy._budget import ENTRY_BYTES, MemoryBudget, SizedLRU
from contextfold.proxy._tenant import SECRET_BYTES
from contextfold.sqlite import connect

ANCHOR_TAIL = 64
"""How many of a history's last prefixes are looked up among shared usage anchors."""

_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS contextfold_proxy_summaries (
        prefix_hash   TEXT PRIMARY KEY,
        root_hash     TEXT NOT NULL,
        message_count INTEGER NOT NULL,
        summary       TEXT NOT NULL,
        created_at    TEXT NOT NULL
    )
    """,
    """
    CREATE INDEX IF NOT EXISTS contextfold_proxy_summaries_root
        ON contextfold_proxy_summaries (root_hash, message_count DESC)
    """,
    """
    CREATE TABLE IF NOT EXISTS contextfold_proxy_secrets (
        name  TEXT PRIMARY KEY,
        value BLOB NOT NULL
    )
    """,
)


def _field(text: str) -> str:
    return f"{len(text)}:{text}"


def _block(block: ContentBlock) -> str:
    # Every variable part is length-prefixed behind a fixed tag, so two different
    # blocks never encode alike; this is several times faster than canonical JSON.
    if type(block) is TextBlock:
        return "T" + _field(block.text)
    if type(block) is ToolUseBlock:
        arguments = json.dumps(block.input, sort_keys=True, ensure_ascii=False)
        return "U" + _field(block.id) + _field(block.name) + _field(arguments)
    if type(block) is ToolResultBlock:
        head = "R" + _field(block.tool_use_id) + ("E" if block.is_error else "O")
        if isinstance(block.content, str):
            return head + "S" + _field(block.content)
        return head + f"L{len(block.content)}:" + "".join(_block(b) for b in block.content)
    if type(block) is ImageBlock:
        return "I" + _field(block.media_type) + hashlib.sha256(block.data).hexdigest()
    if type(block) is ThinkingBlock:
        flag = "1" if block.redacted else "0"
        return "K" + _field(block.thinking) + _field(block.signature) + flag
    return "J" + _field(json.dumps(to_dict(block), sort_keys=True, ensure_ascii=False))


def canonical(message: Message) -> bytes:
    """An unambiguous encoding of ``message``: equal messages, and only they, encode alike."""
    blocks = "".join(_block(b) for b in message.content)
    # surrogatepass: a lone surrogate (legal in a JSON string) still encodes, uniquely
    return f"{_field(message.role)}{len(message.content)}:{blocks}".encode(errors="surrogatepass")


def chain_hashes(scope: str, messages: Sequence[Message]) -> list[str]:
    """``[h0, h1, ..., hn]`` where ``hi`` identifies ``scope`` + ``messages[:i]``;
    ``scope`` is the model name under the tenant key (:func:`~._tenant.scope`).

    Each message is length-prefixed, so no two different prefixes share a hash.
    """
    running = hashlib.sha256(scope.encode(errors="surrogatepass"))
    out = [running.hexdigest()]
    extend_chain(running, messages, out)
    return out


def extend_chain(running: Any, messages: Iterable[Message], out: list[str]) -> None:
    """Feed ``messages`` to the ``running`` hash (``hashlib``), appending each new
    prefix hash to ``out``: :func:`chain_hashes` continued."""
    for message in messages:
        data = canonical(message)
        running.update(len(data).to_bytes(8, "big"))
        running.update(data)
        out.append(running.hexdigest())


class Lease:
    """A compaction this replica holds; :meth:`release` when the summary is stored."""

    async def release(self) -> None:
        """Let waiting replicas look again (the in-process default has none)."""


class CacheBackend(ABC):
    """Where the planner keeps summaries, and what replicas sharing it coordinate on.

    The defaults suit a cache only one process uses: anchors stay in that process's
    memory and the planner's in-process single-flight is the only one, so
    :meth:`claim` always succeeds.
    """

    _secret: bytes | None = None

    def tenant_secret(self) -> bytes:
        """The secret tenant keys are made with (:mod:`._tenant`), once :meth:`open`
        returned. A cache that persists keeps it in its database, made on the first
        open, so tenants stay the same after a restart and for every process sharing
        it; this default, for a cache in one process's memory, is random, made once."""
        if self._secret is None:
            self._secret = secrets.token_bytes(SECRET_BYTES)
        return self._secret

    @abstractmethod
    async def open(self) -> None:
        """Connect and create the tables; a cache that cannot be opened raises."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def longest(self, root: str, chain: Sequence[str]) -> CachedSummary[str] | None:
        """The cached summary of the longest prefix of the history hashed by ``chain``.

        ``root`` narrows the search to one conversation; a row counts only when its
        hash equals ``chain[message_count]``, so a history that diverged from the
        summarized one never gets a summary that is not its own. A prefix covering
        the whole history is ignored (nothing would remain after it).
        """

    @abstractmethod
    async def store(self, root: str, summary: CachedSummary[str]) -> None:
        """Remember ``summary``; a summary of the same prefix is replaced."""

    @abstractmethod
    async def count(self) -> int:
        """How many summaries are stored."""

    def memory(self) -> int:
        """Bytes of rows this process keeps between requests (as estimated; see
        :mod:`._budget`): none by default."""
        return 0

    async def pull_anchors(self, anchors: UsageAnchors, keys: Sequence[str]) -> None:
        """Copy into ``anchors`` what other replicas recorded for ``keys``."""

    def push_anchor(self, key: str, input_tokens: int) -> None:
        """Share an anchor just recorded locally (in the background; never raises)."""

    async def claim(self, root: str, key: str, chain: Sequence[str]) -> Lease | None:
        """Take the compaction of the history hashed ``key`` (``chain`` its prefixes).

        ``None`` when another replica holds a live lease on it or on a prefix of it:
        its summary will likely serve this history too (see :meth:`wait`).
        """
        return Lease()

    async def wait(self, root: str, chain: Sequence[str], within: float) -> bool:
        """Wait until no other replica holds a live lease on a prefix in ``chain``;
        ``False`` when ``within`` seconds pass first."""
        return True


class SummaryCache(CacheBackend):
    """Summaries keyed by the hash of the prefix they replace, in SQLite.

    ``path`` ``None`` keeps the cache in memory (lost on restart). Rows are written
    with one ``INSERT OR REPLACE`` each, so several proxy processes may share a file
    (each then summarizes on its own: the cross-replica single-flight needs
    PostgreSQL); the tenant secret is kept in the file (made by whichever opens it
    first), so they agree on tenants.
    """

    def __init__(self, path: str | os.PathLike[str] | None, max_bytes: int | None = None) -> None:
        self.path = ":memory:" if path is None else os.fspath(path)
        self._conn: aiosqlite.Connection | None = None
        # A conversation's rows, read once and kept while the file is unchanged: the
        # lookup of every request of a conversation then costs two ``stat`` calls,
        # not a query on the database's thread (see :meth:`_fresh_front`). At most
        # ``max_bytes`` of them (summaries are long), least recently used dropped.
        self.max_bytes = MemoryBudget().share("summary_rows") if max_bytes is None else max_bytes
        self._front: SizedLRU[str, list[CachedSummary[str]]] = SizedLRU(self.max_bytes)
        self._stamp: tuple[object, ...] | None = None
        self._watched: tuple[str, ...] = ()  # the files behind the stamp (see open)
        # A second connection, only ever asked ``PRAGMA data_version`` (see _fresh_front)
        self._watcher: sqlite3.Connection | None = None

    async def open(self) -> None:
        """Open the database and create the table; a file that cannot be opened raises."""
        if self._conn is not None:
            return
        conn = await connect(self.path)
        try:
            for statement in _SCHEMA:
                await conn.execute(statement)
            # The first opener's secret wins; every later one (a restart, another
            # process on the file) reads it back.
            await conn.execute(
                "INSERT OR IGNORE INTO contextfold_proxy_secrets (name, value) "
                "VALUES ('tenant', ?)",
                (secrets.token_bytes(SECRET_BYTES),),
            )
            found = await conn.execute_fetchall(
                "SELECT value FROM contextfold_proxy_secrets WHERE name = 'tenant'"
            )
            self._secret = bytes(next(iter(found))[0])
            if self.path not in (":memory:", ""):  # "": a private temporary database
                # The files SQLite opened: resolved now, as SQLite resolved them (against
                # this working directory, through symlinks: its log is ``<real file>-wal``).
                real = await asyncio.to_thread(os.path.realpath, self.path)
                self._watched = (real, real + "-wal")
                self._watcher = await asyncio.to_thread(_watcher, real)
        except BaseException:
            await conn.close()
            raise
        self._conn = conn

    async def close(self) -> None:
        if self._watcher is not None:
            watcher, self._watcher = self._watcher, None
            watcher.close()
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.close()

    def _db(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise RuntimeError("the summary cache is not open")
        return self._conn

    async def longest(self, root: str, chain: Sequence[str]) -> CachedSummary[str] | None:
        front = self._fresh_front()
        rows = front.get(root)
        if rows is None:
            fetched = await self._db().execute_fetchall(
                "SELECT prefix_hash, message_count, summary FROM contextfold_proxy_summaries "
                "WHERE root_hash = ? ORDER BY message_count DESC",
                (root,),
            )
            rows = [CachedSummary(prefix, count, summary) for prefix, count, summary in fetched]
            if front is self._front:  # not emptied by a write while the query ran
                front.put(root, rows, _rows_bytes(root, rows))
        else:
            front.touch(root)
        for row in rows:
            if row.message_count < len(chain) - 1 and chain[row.message_count] == row.prefix_hash:
                return row
        return None

    def _fresh_front(self) -> SizedLRU[str, list[CachedSummary[str]]]:
        """The rows read so far, emptied first if the database changed since.

        A change is seen in SQLite's ``PRAGMA data_version``, asked of a second
        connection: it differs after every commit another connection (this cache's own
        included, or another process's) made visible, and only once it is visible. A
        commit's log frames are written before that (the ``-wal`` size and time change
        first), so a stamp of file sizes alone let a lookup between the two keep the old
        rows under the new stamp. The sizes, times and inodes of the database and its
        log are in the stamp too (a file replaced or deleted). The stamp is taken before
        the rows are read, so rows kept under it are never older than it. The files are
        never opened here: closing a descriptor of a database file drops every POSIX
        lock this process holds on it, SQLite's included. An in-memory database has no
        other writer.
        """
        watcher = self._watcher
        if watcher is not None:
            stamp: tuple[object, ...] = ()
            for name in self._watched:
                try:
                    info = os.stat(name)
                    stamp += (info.st_size, info.st_mtime_ns, info.st_ino)
                except OSError:
                    stamp += (-1,)
            try:
                # fetchall: stepped to its end, so no read transaction stays open
                stamp += tuple(watcher.execute("PRAGMA data_version").fetchall()[0])
            except sqlite3.Error:  # busy (recovery under way): read the rows again
                self._stamp = None
                self._forget_front()
                return self._front
            if stamp != self._stamp:
                self._stamp = stamp
                self._forget_front()
        return self._front

    def _forget_front(self) -> None:
        self._front = SizedLRU(self.max_bytes)

    def memory(self) -> int:
        return self._front.nbytes

    async def store(self, root: str, summary: CachedSummary[str]) -> None:
        self._forget_front()  # read again after the write (and any other process's)
        self._stamp = None
        db = self._db()
        await db.execute(
            "INSERT OR REPLACE INTO contextfold_proxy_summaries "
            "(prefix_hash, root_hash, message_count, summary, created_at) VALUES (?, ?, ?, ?, ?)",
            (
                summary.prefix_hash,
                root,
                summary.message_count,
                summary.summary,
                datetime.now(UTC).isoformat(),
            ),
        )

    async def count(self) -> int:
        rows = await self._db().execute_fetchall("SELECT COUNT(*) FROM contextfold_proxy_summaries")
        return int(next(iter(rows))[0])


def _rows_bytes(root: str, rows: list[CachedSummary[str]]) -> int:
    """What the rows of a conversation hold in memory, as estimated (:mod:`._budget`)."""
    held = sys.getsizeof(root) + ENTRY_BYTES + 56 + 8 * len(rows)
    for row in rows:
        held += 64 + sys.getsizeof(row.prefix_hash) + sys.getsizeof(row.summary)
    return held


def _watcher(path: str) -> sqlite3.Connection:
    """A connection to ``path`` for ``PRAGMA data_version`` only: on the event loop,
    so it never waits long for a lock (50 ms, then the rows are read again)."""
    return sqlite3.connect(path, timeout=0.05, isolation_level=None, check_same_thread=False)


class UsageAnchors:
    """The prompt size the upstream reported for a forwarded history, by its chain hash.

    In memory, least recently used entries dropped past ``max_bytes`` (by default the
    anchors' share of :class:`~._budget.MemoryBudget`: 6.4 MiB, some 20,000 anchors);
    an anchor is a hint for the next estimate, so losing one only costs accuracy.
    """

    def __init__(self, max_bytes: int | None = None) -> None:
        self._tokens: SizedLRU[str, int] = SizedLRU(
            MemoryBudget().share("anchors") if max_bytes is None else max_bytes
        )

    @property
    def nbytes(self) -> int:
        """What the anchors hold, as estimated."""
        return self._tokens.nbytes

    def record(self, key: str, input_tokens: int) -> None:
        self._tokens.put(key, input_tokens, sys.getsizeof(key) + ENTRY_BYTES + 32)

    def get(self, key: str) -> int | None:
        """The size recorded under ``key``, if any (without refreshing it)."""
        return self._tokens.get(key)

    def latest(self, chain: Sequence[str]) -> tuple[int, int] | None:
        """``(i, tokens)`` for the longest prefix ``chain[i]`` with a recorded size."""
        i = self._tokens.last_kept(chain)
        if i < 1:
            return None
        self._tokens.touch(chain[i])
        return i, self._tokens[chain[i]]

    def __len__(self) -> int:
        return len(self._tokens)
