"""The proxy's memory: prefix hashes, the SQLite summary cache and the usage anchors.

A conversation is identified by hashes of its prefixes: ``chain[i]`` is the SHA-256
of the model name and the canonical encoding of ``messages[:i]`` (a length-prefixed
form of every block's fields, tool inputs as sorted-key JSON), computed as one
running hash so a whole history costs one pass. Nothing here ever sees a request header:
the cache stores summaries, hashes and message counts only.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

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
from contextfold.messages import Message
from contextfold.sqlite import connect

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


def chain_hashes(model: str, messages: Sequence[Message]) -> list[str]:
    """``[h0, h1, ..., hn]`` where ``hi`` identifies ``model`` + ``messages[:i]``.

    Each message is length-prefixed, so no two different prefixes share a hash.
    """
    running = hashlib.sha256(model.encode(errors="surrogatepass"))
    out = [running.hexdigest()]
    for message in messages:
        data = canonical(message)
        running.update(len(data).to_bytes(8, "big"))
        running.update(data)
        out.append(running.hexdigest())
    return out


@dataclass(frozen=True, slots=True)
class CachedSummary:
    """A summary of the first ``message_count`` messages of a conversation."""

    prefix_hash: str
    message_count: int
    summary: str


class SummaryCache:
    """Summaries keyed by the hash of the prefix they replace, in SQLite.

    ``path`` ``None`` keeps the cache in memory (lost on restart). Rows are written
    with one ``INSERT OR REPLACE`` each, so several proxy processes may share a file.
    """

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.path = ":memory:" if path is None else os.fspath(path)
        self._conn: aiosqlite.Connection | None = None

    async def open(self) -> None:
        """Open the database and create the table; a file that cannot be opened raises."""
        if self._conn is not None:
            return
        conn = await connect(self.path)
        try:
            for statement in _SCHEMA:
                await conn.execute(statement)
        except BaseException:
            await conn.close()
            raise
        self._conn = conn

    async def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.close()

    def _db(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise RuntimeError("the summary cache is not open")
        return self._conn

    async def longest(self, root: str, chain: Sequence[str]) -> CachedSummary | None:
        """The cached summary of the longest prefix of the history hashed by ``chain``.

        ``root`` narrows the search to one conversation (one indexed query); a row
        counts only when its hash equals ``chain[message_count]``, so a history that
        diverged from the summarized one never gets a summary that is not its own.
        A prefix covering the whole history is ignored (nothing would remain after it).
        """
        rows = await self._db().execute_fetchall(
            "SELECT prefix_hash, message_count, summary FROM contextfold_proxy_summaries "
            "WHERE root_hash = ? AND message_count < ? ORDER BY message_count DESC",
            (root, len(chain) - 1),
        )
        for prefix_hash, count, summary in rows:
            if chain[count] == prefix_hash:
                return CachedSummary(prefix_hash, count, summary)
        return None

    async def store(self, root: str, summary: CachedSummary) -> None:
        """Remember ``summary``; a summary of the same prefix is replaced."""
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
        """How many summaries are stored."""
        rows = await self._db().execute_fetchall("SELECT COUNT(*) FROM contextfold_proxy_summaries")
        return int(next(iter(rows))[0])


class UsageAnchors:
    """The prompt size the upstream reported for a forwarded history, by its chain hash.

    In memory, least recently used entries dropped past ``max_entries``; an anchor is
    a hint for the next estimate, so losing one only costs accuracy.
    """

    def __init__(self, max_entries: int = 4096) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, got {max_entries}")
        self.max_entries = max_entries
        self._tokens: OrderedDict[str, int] = OrderedDict()

    def record(self, key: str, input_tokens: int) -> None:
        self._tokens[key] = input_tokens
        self._tokens.move_to_end(key)
        while len(self._tokens) > self.max_entries:
            self._tokens.popitem(last=False)

    def latest(self, chain: Sequence[str]) -> tuple[int, int] | None:
        """``(i, tokens)`` for the longest prefix ``chain[i]`` with a recorded size."""
        for i in range(len(chain) - 1, 0, -1):
            tokens = self._tokens.get(chain[i])
            if tokens is not None:
                self._tokens.move_to_end(chain[i])
                return i, tokens
        return None

    def __len__(self) -> int:
        return len(self._tokens)
