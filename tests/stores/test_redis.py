"""Redis store beyond the shared contract: archive, fork, the lease lock, compare-and-swap
rewrites, corrupt data, and several processes compacting one session.

Runs against the Redis at ``CONTEXTFOLD_TEST_REDIS_URL`` (default 127.0.0.1:6379), each
test under a key prefix of its own that is deleted afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from redis.asyncio import Redis

from contextfold import AutoCompactStore, CompactionEvent, Message, ModelInfo
from contextfold.blocks import ToolUseBlock
from contextfold.compaction import CompactionSettings
from contextfold.errors import CorruptRecordError, HistoryConflictError, StoreError
from contextfold.stores.memory import MemoryContextStore
from contextfold.stores.redis import RedisContextStore
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from contextfold.validation import validate_history
from tests._stores import REDIS_URL, drop_prefix, redis_client_or_skip, redis_prefix
from tests.conftest import require_service
from tests.stores._redis_worker import round_messages

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=[False, True], ids=["bytes", "decoded"])
async def client(request: pytest.FixtureRequest) -> AsyncIterator[Redis]:
    """A client to the test server, with and without ``decode_responses``."""
    c = await redis_client_or_skip(require_service, decode_responses=request.param)
    yield c
    await c.aclose()


@pytest.fixture
async def prefix(client: Redis) -> AsyncIterator[str]:
    p = redis_prefix()
    yield p
    await drop_prefix(client, p)


@pytest.fixture
def make(client: Redis, prefix: str) -> Callable[..., RedisContextStore]:
    def factory(session_id: str | None = None, **kwargs: Any) -> RedisContextStore:
        return RedisContextStore(client, session_id, prefix=prefix, **kwargs)

    return factory


def _turns(n: int, start: int = 0, *, size: int = 0) -> list[Message]:
    """Alternating turns; ``size`` pads each so a summary is smaller than what it replaces."""
    pad = " " + "x" * size if size else ""
    return [
        Message.user(f"q{i}{pad}") if i % 2 == 0 else Message.assistant(f"a{i}{pad}")
        for i in range(start, start + n)
    ]


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.stores._redis_worker", REDIS_URL, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        },
    )


# --- packaging --------------------------------------------------------------------


def test_import_without_redis_says_how_to_install_it() -> None:
    code = "import sys; sys.modules['redis'] = None; import contextfold.redis"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    assert "ImportError: contextfold.redis needs the 'redis' extra" in out.stderr
    assert "pip install 'contextfold[redis]'" in out.stderr


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"session_id": ""}, "session_id"),
        ({"session_id": "a\x00b"}, "session_id"),
        ({"session_id": "\ud800"}, "session_id"),
        ({"prefix": ""}, "prefix"),
        ({"lease": 0}, "lease"),
        ({"lease": float("nan")}, "lease"),
    ],
)
def test_invalid_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        RedisContextStore(Redis(), **kwargs)


# --- persistence and layout ---------------------------------------------------------


async def test_session_survives_a_new_client(make: Callable[..., RedisContextStore]) -> None:
    store = make("agent-1")
    call = Message("assistant", [ToolUseBlock("t1", "read", {"path": "a.py"})])
    await store.append(Message.user("read a.py"))
    await store.append(call)
    await store.add_context_tokens(1234, 56)
    other = await redis_client_or_skip(require_service)
    try:
        again = RedisContextStore(other, "agent-1", prefix=store.prefix)
        assert await again.get_history() == [Message.user("read a.py"), call]
        assert await again.get_context_tokens() == (1234, 56)
    finally:
        await other.aclose()


async def test_keys_are_under_the_prefix_with_the_session_as_hash_tag(
    client: Redis, make: Callable[..., RedisContextStore], prefix: str
) -> None:
    store = make("s{1}")
    await store.append(Message.user("hello"))
    await store.replace_history([Message.user("summary")])
    async with store.compaction_lock():
        found = [k async for k in client.scan_iter(match=f"{prefix}:*")]
    keys = sorted(k.decode() if isinstance(k, bytes) else k for k in found)
    assert keys == sorted(
        [f"{prefix}:sessions"]
        + [f"{prefix}:{{s{{1}}}}:{n}" for n in ("archive", "compactions", "lock", "log", "meta")]
    )


async def test_unused_store_writes_nothing(
    client: Redis, make: Callable[..., RedisContextStore], prefix: str
) -> None:
    store = make()
    assert await store.get_history() == []
    assert await store.get_context_tokens() == (0, 0)
    await store.fork()
    assert [k async for k in client.scan_iter(match=f"{prefix}:*")] == []


async def test_many_sessions_listed_newest_first_and_prefixes_isolated(
    client: Redis, make: Callable[..., RedisContextStore]
) -> None:
    first, second = make("first"), make("second")
    await first.append(Message.user("first session question"))
    await asyncio.sleep(0.002)  # distinct creation timestamps
    for m in _turns(3):
        await second.append(m)
    await second.add_context_tokens(10, 2)
    tokens_only = make("tokens-only")
    await asyncio.sleep(0.002)
    await tokens_only.set_context_tokens(7, 1)
    infos = await first.list_sessions()
    assert [i.session_id for i in infos] == ["tokens-only", "second", "first"]
    assert (infos[1].message_count, infos[1].preview, infos[1].input_tokens) == (3, "q0", 10)
    assert (infos[0].message_count, infos[0].input_tokens) == (0, 7)
    elsewhere = redis_prefix()
    try:
        assert await RedisContextStore(client, "first", prefix=elsewhere).list_sessions() == []
    finally:
        await drop_prefix(client, elsewhere)


# --- the archive ----------------------------------------------------------------------


async def test_replace_history_archives_instead_of_deleting(
    make: Callable[..., RedisContextStore],
) -> None:
    store = make()
    for m in _turns(10):
        await store.append(m)
    await store.replace_history([Message.user("summary"), Message.assistant("ok"), *_turns(2, 8)])
    assert [m.text for m in await store.get_history()] == ["summary", "ok", "q8", "a9"]
    archive = await store.get_archive()
    assert [(a.seq, a.compaction, a.synthetic, a.message.text) for a in archive] == [
        (i + 1, 1, False, m.text) for i, m in enumerate(_turns(8))
    ]
    assert await store.get_full_transcript() == _turns(10)
    [record] = await store.get_compactions()
    assert (record.number, record.messages_before, record.messages_after, record.archived) == (
        1,
        10,
        4,
        8,
    )
    assert record.tokens_after < record.tokens_before
    # a second rewrite archives the first summary, flagged synthetic
    await store.replace_history([Message.user("summary 2"), Message.assistant("ok")])
    second = [a for a in await store.get_archive() if a.compaction == 2]
    assert [(a.synthetic, a.message.text) for a in second] == [
        (True, "summary"),
        (True, "ok"),
        (False, "q8"),
        (False, "a9"),
    ]
    assert await store.get_full_transcript() == _turns(10)
    assert [r.number for r in await store.get_compactions()] == [1, 2]


async def test_replace_prefix_keeps_messages_appended_meanwhile(
    make: Callable[..., RedisContextStore],
) -> None:
    store, other = make("shared"), make("shared")
    for m in _turns(8):
        await store.append(m)
    snapshot = await store.get_history()
    await other.append(Message.user("late"))  # another client, after the snapshot
    record = await store.replace_prefix(
        6, [Message.user("summary"), Message.assistant("ok")], expected=snapshot[:6]
    )
    assert record is not None
    assert record.archived == 6
    assert [m.text for m in await store.get_history()] == ["summary", "ok", "q6", "a7", "late"]
    assert [m.text for m in await store.get_full_transcript()] == [
        *(m.text for m in _turns(8)),
        "late",
    ]
    with pytest.raises(ValueError, match="cannot replace the first 99"):
        await store.replace_prefix(99, [])


async def test_unchanged_rewrites_change_nothing_and_extensions_are_appends(
    make: Callable[..., RedisContextStore],
) -> None:
    store = make()
    for m in _turns(4):
        await store.append(m)
    assert await store.replace_prefix(2, _turns(2)) is None
    await store.replace_history([*_turns(4), Message.user("more")])
    assert await store.get_compactions() == []
    assert await store.get_archive() == []
    assert await store.get_full_transcript() == [*_turns(4), Message.user("more")]


async def test_random_rewrites_match_a_memory_model(make: Callable[..., RedisContextStore]) -> None:
    """Appends, prefix and whole rewrites in random order: Redis and memory agree, and the
    transcript is every appended message in order."""
    rng = random.Random(1234)
    store, model = make(), MemoryContextStore()
    appended: list[Message] = []
    for step in range(120):
        live = await model.get_history()
        action = rng.random()
        if action < 0.5 or not live:
            message = _turns(1, step)[0]
            appended.append(message)
            await store.append(message)
            await model.append(message)
            continue
        count = rng.randint(0, len(live))
        reuse = live[: rng.randint(0, count)]  # sometimes the new prefix starts like the old
        keep = live[count - rng.randint(0, count - len(reuse)) : count]  # and ends like it
        new = [*reuse, *(Message.user(f"s{step}-{k}") for k in range(rng.randint(0, 2))), *keep]
        if action < 0.8:
            await store.replace_prefix(count, new, expected=live[:count])
            await model.replace_prefix(count, new)
        else:
            await store.replace_history(new)
            await model.replace_history(new)
        assert await store.get_history() == await model.get_history()
    assert await store.get_full_transcript() == appended
    live_texts = [m.text for m in await store.get_history()]
    for record in await store.get_compactions():
        # a record archives rows, or moves them by writing before live ones
        assert record.archived > 0 or (record.inserted > 0 and record.kept_before is not None)
    archived = [a.message.text for a in await store.get_archive() if not a.synthetic]
    originals = [m.text for m in appended]
    assert sorted(archived + [t for t in live_texts if t in originals]) == sorted(originals)


# --- compare-and-swap -----------------------------------------------------------------


async def test_replace_prefix_refuses_a_rewritten_prefix_and_writes_nothing(
    make: Callable[..., RedisContextStore],
) -> None:
    store, other = make("s"), make("s")
    for m in _turns(6):
        await store.append(m)
    snapshot = await store.get_history()
    await other.replace_history([Message.user("their summary"), *_turns(2, 4)])
    before = (await store.get_history(), await store.get_archive(), await store.get_compactions())
    with pytest.raises(HistoryConflictError, match="changed since they were read"):
        await store.replace_prefix(4, [Message.user("my summary")], expected=snapshot[:4])
    after = (await store.get_history(), await store.get_archive(), await store.get_compactions())
    assert after == before
    await other.clear()
    with pytest.raises(HistoryConflictError):  # shorter than the snapshot: a conflict too
        await store.replace_prefix(4, [Message.user("my summary")], expected=snapshot[:4])
    assert await store.get_history() == []


async def test_of_concurrent_swaps_from_one_snapshot_exactly_one_wins(
    make: Callable[..., RedisContextStore],
) -> None:
    writers = [make("s") for _ in range(8)]
    for m in _turns(10):
        await writers[0].append(m)
    snapshot = await writers[0].get_history()

    async def swap(k: int) -> bool:
        try:
            await writers[k].replace_prefix(
                8, [Message.user(f"summary {k}"), Message.assistant("ok")], expected=snapshot[:8]
            )
        except HistoryConflictError:
            return False
        return True

    results = await asyncio.gather(
        *(swap(k) for k in range(8)), *(writers[0].append(m) for m in _turns(4, 10))
    )
    [winner] = [k for k in range(8) if results[k]]
    history = await writers[0].get_history()
    assert [m.text for m in history[:4]] == [f"summary {winner}", "ok", "q8", "a9"]
    assert sorted(m.text for m in history[4:]) == sorted(m.text for m in _turns(4, 10))
    assert len(await writers[0].get_compactions()) == 1
    assert await writers[0].get_full_transcript() == [*_turns(10), *history[4:]]


async def test_text_round_trips_on_either_client(make: Callable[..., RedisContextStore]) -> None:
    store = make()
    odd = Message.user("nul \x00, lone \ud800, emoji 🦜, colons a:b:c, newline\n")
    await store.append(odd)
    await store.replace_prefix(0, [Message.user("\udfff summary")])
    assert await store.get_history() == [Message.user("\udfff summary"), odd]
    [info] = await store.list_sessions()
    assert info.preview == "nul \ufffd, lone ?, emoji 🦜, colons a:b:c, newline"  # storable


class _RewrittenAfterRead(RedisContextStore):
    """A store whose history another client rewrites right after a read, once armed:
    the race between compaction's last read and its commit, made to happen."""

    armed = False
    rival: RedisContextStore

    async def get_history(self) -> list[Message]:
        history = await super().get_history()
        if self.armed:
            self.armed = False
            await self.rival.replace_history([Message.user("rival edit"), *history[1:]])
        return history


async def test_compaction_reports_a_conflict_when_another_process_rewrote_meanwhile(
    client: Redis, prefix: str
) -> None:
    store = _RewrittenAfterRead(client, "s", prefix=prefix)
    store.rival = RedisContextStore(client, "s", prefix=prefix)

    async def summarize(request: StubRequest) -> StubResponse:
        store.armed = True  # the next read is the commit's: the rival rewrites after it
        return make_text_response("## Current state\nmy summary")

    events: list[CompactionEvent] = []
    auto = AutoCompactStore(
        store,
        FunctionTransport(summarize, model=ModelInfo("m", 4_000, 500)),
        keep_recent=2,
        on_event=events.append,
        settings=CompactionSettings(proactive=False),
    )
    for m in _turns(12, size=200):
        await auto.append(m)
    assert not await auto.compact(force=True)
    assert [e.outcome for e in events if e.phase == "after"] == ["conflict"]
    # the rival's edit survives (without the compare-and-swap the compaction would have
    # archived it silently, as if it were part of what was summarized)
    assert await store.get_history() == [Message.user("rival edit"), *_turns(11, 1, size=200)]
    assert await store.get_full_transcript() == _turns(12, size=200)


# --- the lease lock -----------------------------------------------------------------


async def test_compaction_lock_is_single_flight_across_clients(
    client: Redis, make: Callable[..., RedisContextStore], prefix: str
) -> None:
    other = await redis_client_or_skip(require_service)
    try:
        elsewhere = RedisContextStore(other, "s", prefix=prefix)
        async with make("s").compaction_lock() as held:
            assert held
            async with make("s").compaction_lock() as same_client:
                assert not same_client
            async with elsewhere.compaction_lock() as other_client:
                assert not other_client
            async with make("another session").compaction_lock() as unrelated:
                assert unrelated
        async with elsewhere.compaction_lock() as after_release:
            assert after_release
    finally:
        await other.aclose()


async def test_the_lease_is_renewed_while_held(
    client: Redis, make: Callable[..., RedisContextStore]
) -> None:
    async with make("s", lease=0.6).compaction_lock() as held:
        assert held
        await asyncio.sleep(1.5)  # more than two leases
        async with make("s", lease=0.6).compaction_lock() as other:
            assert not other
        assert await client.pttl(make("s").prefix + ":{s}:lock") > 0


async def test_release_leaves_a_lock_taken_over_after_expiry_alone(
    client: Redis, make: Callable[..., RedisContextStore], prefix: str
) -> None:
    key = f"{prefix}:{{s}}:lock"
    other = await redis_client_or_skip(require_service)
    try:
        async with make("s").compaction_lock() as held:
            assert held
            await client.delete(key)  # as if the lease ran out while this holder stalled
            async with RedisContextStore(other, "s", prefix=prefix).compaction_lock() as taken:
                assert taken
                token = await client.get(key)
        # the first holder's exit did not delete the second holder's lock... which the
        # second holder released when its own block ended
        assert token is not None
        assert await client.get(key) is None
        async with make("s").compaction_lock() as again:
            assert again
            await client.set(key, "someone else")
        assert await client.get(key) in (b"someone else", "someone else")
    finally:
        await other.aclose()


class _SlowLink:
    """A TCP relay to the test Redis that holds what clients send until :meth:`open`.

    Like a slow network: bytes a client wrote before closing still reach the server.
    """

    def __init__(self) -> None:
        self.opened = asyncio.Event()
        self.opened.set()
        self.port = 0
        self._server: asyncio.Server | None = None
        self._pumps: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> _SlowLink:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.opened.set()
        assert self._server is not None
        self._server.close()
        for pump in list(self._pumps):
            pump.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)

    def hold(self) -> None:
        self.opened.clear()

    def open(self) -> None:
        self.opened.set()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        url = urlparse(REDIS_URL)
        up_reader, up_writer = await asyncio.open_connection(url.hostname, url.port or 6379)

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, gated: bool) -> None:
            try:
                while data := await src.read(65536):
                    if gated:
                        await self.opened.wait()
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        for task in (pump(reader, up_writer, True), pump(up_reader, writer, False)):
            self._pumps.add(asyncio.create_task(task))


async def test_a_claim_cancelled_while_on_a_slow_link_leaves_no_lock(
    client: Redis, prefix: str
) -> None:
    # SET NX is sent; the caller is cancelled before the reply comes; the server then
    # sets the key. The lock must be deleted, not left held for a whole lease.
    key = f"{prefix}:{{s}}:lock"
    async with _SlowLink() as link:
        gated = Redis(host="127.0.0.1", port=link.port)
        try:
            store = RedisContextStore(gated, "s", prefix=prefix, lease=30)
            await gated.ping()
            entered = asyncio.Event()

            async def compact() -> None:
                async with store.compaction_lock():
                    entered.set()

            link.hold()
            task = asyncio.create_task(compact())
            await asyncio.sleep(0.1)  # SET NX is on its way
            task.cancel()
            asyncio.get_running_loop().call_later(0.1, link.open)
            with pytest.raises(asyncio.CancelledError):
                await task
            assert not entered.is_set()
            await asyncio.sleep(0.1)
            assert await client.exists(key) == 0
        finally:
            await gated.aclose()


@pytest.mark.parametrize("cancels", [1, 2])
async def test_a_compaction_cancelled_at_any_step_leaves_no_lock(
    client: Redis, make: Callable[..., RedisContextStore], prefix: str, cancels: int
) -> None:
    # Cancelled after 0, 1, 2, ... turns of the event loop: while SET NX is on the wire
    # (the server may set the key though the reply never arrives), inside the block,
    # while the renewal stops and while the lock is deleted; with ``cancels=2`` a second
    # cancellation follows a few turns later, as when a timeout and a shutdown coincide.
    key = f"{prefix}:{{s}}:lock"
    store = make("s", lease=30)
    for turns in range(40):

        async def compact() -> None:
            async with store.compaction_lock():
                await asyncio.sleep(0)

        task = asyncio.create_task(compact())
        for _ in range(turns):
            await asyncio.sleep(0)
        task.cancel()
        for _ in range(cancels - 1):
            for _ in range(turns % 7):
                await asyncio.sleep(0)
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.01)  # a release left to run in the background has run
        assert await client.exists(key) == 0, f"the lock was left held after {turns} turns"
    async with store.compaction_lock() as held:
        assert held


async def test_a_dead_holders_lease_expires(
    make: Callable[..., RedisContextStore], client: Redis, prefix: str
) -> None:
    child = _spawn(prefix, "s", "hold", "2.0")
    try:
        assert child.stdout is not None
        assert await asyncio.to_thread(child.stdout.readline) == "held\n"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert await client.pttl(f"{prefix}:{{s}}:lock") > 0  # still held: it has a lease left
    store = make("s")
    for _ in range(400):  # the lease runs out within two seconds of the last renewal
        async with store.compaction_lock() as acquired:
            if acquired:
                break
        await asyncio.sleep(0.05)
    else:
        pytest.fail("the dead holder's compaction lease never expired")


# --- bad data and failures ----------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "read"),
    [
        ("log", "not a row", "get_history"),
        ("log", "1:0:5:user:{not json", "get_history"),
        ("log", '1:0:5:wizard:[{"type":"text","text":"x"}]', "get_history"),
        ("log", "1:2:5:user:[]", "get_full_transcript"),
        ("log", b"1:0:5:user:\xff\xfe", "get_history"),
        ("archive", "x:1:0:5:user:[]", "get_archive"),
        ("compactions", "1 now 2 3", "get_compactions"),
    ],
)
async def test_corrupt_rows_are_corrupt_records(
    client: Redis, make: Callable[..., RedisContextStore], key: str, value: Any, read: str
) -> None:
    store = make("s")
    await store.append(Message.user("fine"))
    await client.rpush(f"{store.prefix}:{{s}}:{key}", value)
    with pytest.raises(CorruptRecordError, match="session 's'"):
        await getattr(store, read)()


@pytest.mark.parametrize("read", ["get_history", "get_context_tokens", "append", "replace"])
async def test_keys_of_the_wrong_type_or_bad_counters_are_corrupt_records(
    client: Redis, make: Callable[..., RedisContextStore], read: str
) -> None:
    store = make("s")
    await store.append(Message.user("fine"))
    if read == "get_history":
        await client.delete(f"{store.prefix}:{{s}}:log")
        await client.set(f"{store.prefix}:{{s}}:log", "a string")
    else:
        field = {"append": "last_seq", "replace": "version"}.get(read, "input_tokens")
        await client.hset(f"{store.prefix}:{{s}}:meta", field, "many")
    call = {
        "get_history": store.get_history,
        "get_context_tokens": store.get_context_tokens,
        "append": lambda: store.append(Message.user("more")),
        "replace": lambda: store.replace_history([]),
    }[read]
    with pytest.raises(CorruptRecordError, match="session 's'"):
        await call()


async def test_token_counter_overflow_is_refused_and_changes_nothing(
    make: Callable[..., RedisContextStore],
) -> None:
    store = make()
    await store.set_context_tokens(5, 2**63 - 1)
    with pytest.raises(ValueError, match="64-bit"):
        await store.add_context_tokens(1, 1)
    assert await store.get_context_tokens() == (5, 2**63 - 1)


async def test_an_unreachable_server_is_a_store_error_without_credentials() -> None:
    client = Redis.from_url("redis://agent:hunter2-secret@127.0.0.1:1/0", socket_connect_timeout=1)
    store = RedisContextStore(client, "s")
    try:
        with pytest.raises(StoreError) as info:
            await store.append(Message.user("x"))
    finally:
        await client.aclose()
    error: BaseException | None = info.value
    while error is not None:
        assert "hunter2" not in str(error)
        assert "hunter2" not in repr(error.args)
        error = error.__cause__ or error.__context__


# --- fork ---------------------------------------------------------------------------


async def test_fork_copies_everything_on_the_server(make: Callable[..., RedisContextStore]) -> None:
    store = make()
    for m in _turns(6):
        await store.append(m)
    await store.replace_prefix(4, [Message.user("summary"), Message.assistant("ok")])
    await store.add_context_tokens(100, 10)
    forked = await store.fork()
    assert forked.session_id != store.session_id
    assert forked.prefix == store.prefix
    assert await forked.get_history() == await store.get_history()
    assert await forked.get_archive() == await store.get_archive()
    assert await forked.get_full_transcript() == _turns(6)
    assert [r.number for r in await forked.get_compactions()] == [1]
    assert await forked.get_context_tokens() == (100, 10)
    await forked.append(Message.user("only in fork"))
    await forked.replace_history([Message.user("fork summary")])
    assert [m.text for m in await store.get_history()] == ["summary", "ok", "q4", "a5"]
    assert len(await store.get_compactions()) == 1
    ids = [s.session_id for s in await store.list_sessions()]
    assert ids == [forked.session_id, store.session_id]


async def test_fork_under_concurrent_appends_is_a_consistent_prefix(
    make: Callable[..., RedisContextStore],
) -> None:
    store = make("s")
    for m in _turns(10):
        await store.append(m)
    writer = make("s")

    async def append_more() -> None:
        for i in range(40):
            await writer.append(Message.user(f"late {i}"))

    task = asyncio.create_task(append_more())
    forks = []
    for _ in range(5):
        forks.append(await store.fork())
        await asyncio.sleep(0)
    await task
    full = await store.get_history()
    for forked in forks:
        copied = await forked.get_history()
        assert copied == full[: len(copied)]
        await forked.append(Message.assistant("fork's own"))
        assert await forked.get_full_transcript() == [*copied, Message.assistant("fork's own")]


# --- several processes ------------------------------------------------------------------


def _key(message: Message) -> str:
    if message.text:
        return message.text
    return "result:" + message.tool_results[0].tool_use_id


async def test_three_processes_appending_and_compacting_one_session_lose_nothing(
    client: Redis, prefix: str
) -> None:
    sid, rounds = f"test-{uuid.uuid4().hex}", 24
    workers = [_spawn(prefix, sid, "compact", str(w), str(rounds)) for w in range(3)]
    outputs = await asyncio.gather(*(asyncio.to_thread(w.communicate) for w in workers))
    assert [w.returncode for w in workers] == [0, 0, 0]
    outcomes: Counter[str] = Counter()
    for out, _ in outputs:
        outcomes.update(json.loads(out))
    assert outcomes["compacted"] >= 2, outcomes
    assert "failed" not in outcomes, outcomes

    store = RedisContextStore(client, sid, prefix=prefix)
    history = await store.get_history()
    validate_history(history, "anthropic")
    validate_history(history, "openai")
    assert "summary by w" in history[0].text
    expected = [_key(m) for w in range(3) for i in range(rounds) for m in round_messages(w, i)]
    transcript = [_key(m) for m in await store.get_full_transcript()]
    assert sorted(transcript) == sorted(expected)  # every message exactly once
    for w in range(3):  # and each process's in its own order
        mine = [k for k in transcript if k.startswith((f"w{w}-", f"result:w{w}-"))]
        assert mine == [_key(m) for i in range(rounds) for m in round_messages(w, i)]
    live = [_key(m) for m in history if _key(m) in set(expected)]
    archived = [_key(a.message) for a in await store.get_archive() if not a.synthetic]
    assert len(live) == len(set(live))
    assert set(archived).isdisjoint(live)
    assert sorted(archived + live) == sorted(expected)  # live once or archived once
    assert len(await store.get_compactions()) == outcomes["compacted"] + outcomes["truncated"]
