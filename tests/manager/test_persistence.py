"""CompactingContextManager(store=...): history and summaries persist and resume (issue 18, item 3).

Every test that restarts runs against each store kind (memory, SQLite, PostgreSQL,
Redis); a restart is a new manager over a new store object for the same session id.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from contextfold.compaction import AutoCompactStore
from contextfold.context import ContextStore, MemoryContextStore
from contextfold.errors import CorruptRecordError, StoreError
from contextfold.manager import CompactingContextManager
from contextfold.messages import Message
from contextfold.testing import FunctionTransport, StubTransport, make_text_response
from tests._stores import (
    STORE_KINDS,
    drop_prefix,
    pg_connection_or_skip,
    redis_client_or_skip,
    redis_prefix,
)
from tests.conftest import require_service
from tests.manager._loop_basic import Wire, turn, unusual_blocks

SUMMARY = "## User requests and intent\nMany tasks.\n## Current state\nStill going."
BUDGET = 2_500
FIRST: Wire = {"role": "user", "content": "a"}

Opener = Callable[[str], ContextStore]


@pytest.fixture(params=STORE_KINDS)
async def opener(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Opener]:
    """``opener(session_id)``: a new store object on that session, as after a restart."""
    kind = request.param
    if kind == "memory":
        kept: dict[str, MemoryContextStore] = {}

        def memory(session_id: str) -> ContextStore:
            store = kept.setdefault(session_id, MemoryContextStore())
            store.session_id = session_id
            return store

        yield memory
    elif kind == "sqlite":
        from contextfold.sqlite import SQLiteContextStore, connect

        conn = await connect(tmp_path / "manager.db")
        yield lambda session_id: SQLiteContextStore(conn, session_id)
        await conn.close()
    elif kind == "postgres":
        from contextfold.postgres import PostgresContextStore

        pg = await pg_connection_or_skip(require_service)
        used: list[str] = []

        def postgres(session_id: str) -> ContextStore:
            used.append(session_id)
            return PostgresContextStore(pg, session_id)

        yield postgres
        for session_id in set(used):
            await pg.execute("DELETE FROM contextfold_archive WHERE session_id = %s", (session_id,))
            await pg.execute(
                "DELETE FROM contextfold_sessions WHERE session_id = %s", (session_id,)
            )
        await pg.close()
    else:
        from contextfold.redis import RedisContextStore

        client = await redis_client_or_skip(require_service)
        prefix = redis_prefix()
        yield lambda session_id: RedisContextStore(client, session_id, prefix=prefix)
        await drop_prefix(client, prefix)
        await client.aclose()


def counting_summarizer() -> FunctionTransport:
    return FunctionTransport(lambda request: make_text_response(SUMMARY))


class Events:
    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def emit(self, event: str, data: dict[str, Any]) -> None:
        self.seen.append((event, data))

    def summaries(self) -> list[str]:
        return [data["summary"] for event, data in self.seen if event == "context:post_compact"]


def odd_dicts() -> list[Wire]:
    """Dicts whose exact form matters: key order, unicode, nested metadata, null values."""
    return [
        {"content": "clé order first", "role": "user", "metadata": {"b": 1, "a": [None, 2.5]}},
        {"role": "assistant", "content": "emoji 🧪 and \u0000 nul and 漢字", "name": None},
        *unusual_blocks(),
    ]


def history(turns: int) -> list[Wire]:
    return [{"role": "system", "content": "agent"}, *odd_dicts()] + [
        m for i in range(turns) for m in turn(i)
    ]


async def filled(manager: CompactingContextManager, wires: list[Wire]) -> CompactingContextManager:
    for wire in wires:
        await manager.add_message(copy.deepcopy(wire))
    return manager


def exact(wires: list[Wire]) -> str:
    return json.dumps(wires, ensure_ascii=False)  # key order included


async def test_history_and_summaries_resume_after_a_restart(opener: Opener) -> None:
    session = uuid.uuid4().hex
    wires = history(10)
    first = await filled(
        CompactingContextManager(
            store=opener(session), transport=counting_summarizer(), keep_recent=4
        ),
        wires,
    )
    view = await first.get_messages_for_request(token_budget=BUDGET)
    assert first.summarizer_requests >= 1

    events = Events()
    never = StubTransport([])  # raises if the resumed manager asks for a summary
    resumed = CompactingContextManager(
        store=opener(session), transport=never, keep_recent=4, hooks=events
    )
    assert exact(await resumed.get_messages()) == exact(wires)
    assert await resumed.get_messages_for_request(token_budget=BUDGET) == view
    assert events.summaries() == ["cached"]
    assert never.requests == []
    without = CompactingContextManager(store=opener(session), keep_recent=4)
    assert await without.get_messages_for_request(token_budget=BUDGET) == view

    # The resumed session goes on: the cached summary is extended, not redone.
    more = [m for i in range(10, 16) for m in turn(i)]
    extender = counting_summarizer()
    later = await filled(
        CompactingContextManager(
            store=opener(session), transport=extender, keep_recent=4, hooks=events
        ),
        more,
    )
    await later.get_messages_for_request(token_budget=BUDGET)
    assert events.summaries()[-1] == "extended"
    assert any(
        "<previous-summary>" in str(r.messages) or SUMMARY in str(r.messages)
        for r in extender.requests
    )
    assert exact(await CompactingContextManager(store=opener(session)).get_messages()) == exact(
        wires + more
    )


async def test_after_a_resume_the_store_is_authoritative_over_set_messages(opener: Opener) -> None:
    session = uuid.uuid4().hex
    wires = history(2)
    await filled(CompactingContextManager(store=opener(session)), wires)
    resumed = CompactingContextManager(store=opener(session))
    filtered = [w for w in wires if w["role"] == "user" and isinstance(w["content"], str)]
    await resumed.set_messages(filtered)  # what a host's filtered transcript looks like
    assert await resumed.get_messages() == wires
    await resumed.add_message({"role": "user", "content": "next"})
    await resumed.set_messages(filtered)  # after the session moved on, it replaces
    assert await resumed.get_messages() == filtered
    assert await CompactingContextManager(store=opener(session)).get_messages() == filtered


async def test_a_fresh_session_takes_set_messages_and_clear_empties_the_store(
    opener: Opener,
) -> None:
    session = uuid.uuid4().hex
    wires = history(1)
    manager = CompactingContextManager(store=opener(session))
    await manager.set_messages(copy.deepcopy(wires))
    assert await CompactingContextManager(store=opener(session)).get_messages() == wires
    await manager.clear()
    assert await opener(session).get_history() == []
    assert await CompactingContextManager(store=opener(session)).get_messages() == []


@pytest.mark.parametrize(
    "bad",
    [
        {"role": "user", "content": "x", "metadata": {"when": datetime(2026, 1, 1, tzinfo=UTC)}},
        {"role": "user", "content": "x", "metadata": {1: "an int key"}},
        {"role": "user", "content": "x", "metadata": {"pair": (1, 2)}},
        {"role": "user", "content": "x", "metadata": {"score": math.nan}},
    ],
    ids=["datetime", "int-key", "tuple", "nan"],
)
async def test_a_dict_json_cannot_hold_exactly_is_refused_before_anything_is_written(
    bad: Wire,
) -> None:
    store = MemoryContextStore()
    manager = await filled(
        CompactingContextManager(store=store), [{"role": "user", "content": "a"}]
    )
    with pytest.raises(ValueError, match="message 1 cannot be persisted"):
        await manager.add_message(bad)
    assert len(await store.get_history()) == 1
    assert await manager.get_messages() == [{"role": "user", "content": "a"}]
    await manager.add_message({"role": "assistant", "content": "b"})  # still usable


class FlakyStore(MemoryContextStore):
    """Fails its next append when told to; can hold an append until released."""

    def __init__(self) -> None:
        super().__init__()
        self.fail = False
        self.gate: asyncio.Event | None = None
        self.entered = asyncio.Event()

    async def append(self, message: Message) -> None:
        if self.fail:
            self.fail = False
            raise StoreError("disk full")
        if self.gate is not None:
            self.entered.set()
            await self.gate.wait()
        await super().append(message)


async def test_a_failed_write_raises_and_leaves_the_manager_as_it_was() -> None:
    store = FlakyStore()
    manager = await filled(
        CompactingContextManager(store=store), [{"role": "user", "content": "a"}]
    )
    store.fail = True
    with pytest.raises(StoreError, match="disk full"):
        await manager.add_message({"role": "assistant", "content": "lost"})
    assert await manager.get_messages() == [{"role": "user", "content": "a"}]
    await manager.add_message({"role": "assistant", "content": "b"})
    resumed = CompactingContextManager(store=store)
    assert await resumed.get_messages() == await manager.get_messages()


async def test_a_cancelled_add_finishes_its_write_so_memory_and_store_agree() -> None:
    store = FlakyStore()
    manager = await filled(
        CompactingContextManager(store=store), [{"role": "user", "content": "a"}]
    )
    store.gate = asyncio.Event()
    task = asyncio.create_task(manager.add_message({"role": "assistant", "content": "b"}))
    await store.entered.wait()
    task.cancel()
    await asyncio.sleep(0)
    store.gate.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    stored = await CompactingContextManager(store=store).get_messages()
    assert (
        await manager.get_messages()
        == stored
        == [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
        ]
    )


async def test_a_session_the_manager_did_not_write_is_a_corrupt_record_error() -> None:
    store = MemoryContextStore([Message.user("written by an agent")])
    store.session_id = "agent-session"
    manager = CompactingContextManager(store=store)
    with pytest.raises(CorruptRecordError, match=r"'agent-session'.*message 0"):
        await manager.get_messages()
    with pytest.raises(CorruptRecordError):  # not half-loaded: the next call tries again
        await manager.add_message({"role": "user", "content": "x"})


def test_an_autocompact_store_is_refused() -> None:
    inner = MemoryContextStore()
    wrapped = AutoCompactStore(inner, StubTransport([]))
    with pytest.raises(ValueError, match="plain ContextStore"):
        CompactingContextManager(store=wrapped)
    with pytest.raises(ValueError, match="plain ContextStore"):
        CompactingContextManager(store=object())  # type: ignore[arg-type]


async def test_concurrent_writes_and_requests_keep_store_and_memory_in_step(
    opener: Opener,
) -> None:
    session = uuid.uuid4().hex
    summarizer = counting_summarizer()
    manager = await filled(
        CompactingContextManager(store=opener(session), transport=summarizer, keep_recent=4),
        history(8),
    )
    more = [m for i in range(8, 12) for m in turn(i)]

    async def writer() -> None:
        for wire in copy.deepcopy(more):
            await manager.add_message(wire)
            await asyncio.sleep(0)

    async def reader() -> list[Wire]:
        return await manager.get_messages_for_request(token_budget=BUDGET)

    results = await asyncio.gather(writer(), *(reader() for _ in range(6)))
    assert all(view for view in results[1:])
    assert await manager.get_messages() == history(8) + more
    resumed = CompactingContextManager(store=opener(session), keep_recent=4)
    assert exact(await resumed.get_messages()) == exact(history(8) + more)
    assert await resumed.get_messages_for_request(token_budget=BUDGET)
