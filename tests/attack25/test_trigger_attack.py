"""Attack 25: the ``should_compact`` hook, given answers and shapes its tests did not.

``True`` compacts now, ``False`` holds back (a history past the relief point is still
relieved), ``None`` leaves it to the limit; a hook that raises or answers something
else is logged and the limit decides: "a hook never breaks a request".
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold import AutoCompactStore, MemoryContextStore, Message
from contextfold.compaction import CompactionSettings, TriggerCheck
from contextfold.manager import CompactingContextManager
from tests._proxy_upstream import ProxyApps, Upstream, openai_history
from tests.compaction.test_trigger import conversation, summarizer

OPENAI_KEY = "sk-test-ATTACK25-TRIGGER-5c6d7e"
LIMIT = 8_192
RELIEF_POINT = 16_384
BUDGET = 24_576

Hook = Callable[[TriggerCheck], Any]
MakeApp = Callable[..., Awaitable[Starlette]]


@pytest.fixture
def upstream() -> Upstream:
    return Upstream(reply_text="ok")


@pytest.fixture
async def make_app(upstream: Upstream, tmp_path: Path) -> AsyncIterator[MakeApp]:
    apps = ProxyApps(upstream)

    async def make(hook: Hook, **settings: Any) -> Starlette:
        return await apps.make(
            upstream_openai="http://upstream.test/v1",
            db=tmp_path / "proxy.db",
            settings=CompactionSettings(prepare_threshold=None, should_compact=hook, **settings),
            context_window=32_768,
            threshold=0.25,  # the limit: 8,192; the relief point 16,384
            summary_max_retries=0,
        )

    yield make
    await apps.close()


async def post(app: Starlette, history: list[dict[str, Any]]) -> httpx2.Response:
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://proxy.test") as client:
        return await client.post(
            "/v1/chat/completions",
            json={"model": "test-model", "messages": history},
            headers={"authorization": f"Bearer {OPENAI_KEY}"},
        )


def grown(history: list[dict[str, Any]], rounds: int, chars: int) -> list[dict[str, Any]]:
    out = list(history)
    for i in range(rounds):
        out.append({"role": "assistant", "content": f"more {i}: " + "b" * chars})
        out.append({"role": "user", "content": f"go on {i}"})
    return out


class Switch:
    """A hook whose answer the test sets, recording what it was asked."""

    def __init__(self, answer: bool | None = None) -> None:
        self.answer = answer
        self.seen: list[TriggerCheck] = []

    def __call__(self, check: TriggerCheck) -> bool | None:
        self.seen.append(check)
        return self.answer


# -- the proxy: defects -------------------------------------------------------------------


async def test_a_hook_answering_true_never_unsplices_a_cached_summary(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Impact: should_compact=lambda check: True (or any hook saying True after a
    # summary) makes every later request go out whole - ~68k estimated tokens to a
    # 24,576-token budget - with "forwarded unchanged, under the window" in the header.
    app = await make_app(lambda check: True)
    history = openai_history(20, chars=6_000)
    first = await post(app, history)
    assert first.headers["x-contextfold-summary"] == "created"
    history = grown(history, 1, 10)
    reply = await post(app, history)
    sent = upstream.chats[-1].json["messages"]
    assert reply.headers["x-contextfold-compacted"] == "true"
    assert len(sent) < len(history)
    assert int(reply.headers["x-contextfold-tokens-after"]) <= LIMIT


async def test_a_held_request_with_a_cached_summary_is_still_relieved_past_the_point(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Impact: docs/library.md: "False means not now, and a history past the relief
    # point is still relieved without a model, so no request overflows". With a summary
    # in the cache, a held conversation grows over the window and is refused.
    switch = Switch()
    app = await make_app(switch)
    history = openai_history(20, chars=6_000)
    first = await post(app, history)
    assert first.headers["x-contextfold-summary"] == "created"
    switch.answer = False
    history = grown(history, 20, 6_000)  # the spliced view alone: ~32k estimated tokens
    reply = await post(app, history)
    assert reply.status_code == 200
    assert int(reply.headers["x-contextfold-tokens-after"]) <= BUDGET
    assert "relieved without a model" in reply.headers.get("x-contextfold-error", "")


async def test_a_hook_that_never_answers_does_not_hold_the_request_forever(
    make_app: MakeApp, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Impact: an async hook awaiting a remote service that hangs stalls every chat
    # request of the proxy (and every AutoCompactStore read) with no timeout at all.
    from contextfold.compaction import _trigger

    monkeypatch.setattr(_trigger, "HOOK_TIMEOUT", 0.2)  # 5 s by default

    async def hangs(check: TriggerCheck) -> bool:
        await asyncio.Event().wait()
        return True

    app = await make_app(hangs, summary_timeout=0.5)
    history = openai_history(14)
    reply = await asyncio.wait_for(post(app, history), 10)
    assert reply.status_code == 200


async def test_a_hook_raising_cancelled_error_does_not_break_the_request(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Impact: "a hook never breaks a request"; here the ASGI app raises (uvicorn
    # answers 500), for every request, though nobody cancelled them.
    async def cancelled(check: TriggerCheck) -> bool:
        raise asyncio.CancelledError

    app = await make_app(cancelled)
    history = openai_history(14)
    reply = await post(app, history)
    assert reply.status_code == 200
    assert upstream.chats[-1].json["messages"] == history


async def test_the_proxy_asks_the_hook_for_each_chat_request(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Impact (low): a hook that counts requests, or wants to know of each one (docs:
    # "the proxy for each chat request"), never hears of those under half the limit.
    switch = Switch()
    app = await make_app(switch)
    reply = await post(app, openai_history(2))
    assert reply.status_code == 200
    assert len(switch.seen) == 1


# -- the proxy: what held -----------------------------------------------------------------


class CallableHook:
    def __init__(self) -> None:
        self.asked = 0

    def __call__(self, check: TriggerCheck) -> bool:
        self.asked += 1
        return check.tokens > 4_000


class Owner:
    def __init__(self) -> None:
        self.asked = 0

    async def decide(self, check: TriggerCheck, *, above: int) -> bool:
        self.asked += 1
        return check.tokens > above


@pytest.mark.parametrize("kind", ["instance", "bound-method-partial"])
async def test_callable_objects_and_partials_of_bound_methods_are_hooks(
    make_app: MakeApp, upstream: Upstream, kind: str
) -> None:
    hook: Hook
    if kind == "instance":
        instance = CallableHook()
        hook, asked = instance, lambda: instance.asked
    else:
        owner = Owner()
        hook, asked = functools.partial(owner.decide, above=4_000), lambda: owner.asked
    app = await make_app(hook)
    reply = await post(app, openai_history(14))  # ~6,700 tokens: under the limit
    assert reply.headers["x-contextfold-summary"] == "created"
    assert asked() >= 1


class Truthy:
    """A numpy-like answer: truthy, not a bool."""

    def __bool__(self) -> bool:
        return True


async def test_a_truthy_non_bool_answer_leaves_it_to_the_limit(
    make_app: MakeApp, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    app = await make_app(lambda check: Truthy())
    with caplog.at_level(logging.WARNING, logger="contextfold.compaction"):
        reply = await post(app, openai_history(14))  # under the limit
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert not upstream.summaries
    assert "should_compact answered 'Truthy'" in caplog.text


# -- the manager --------------------------------------------------------------------------


def make_manager(hook: Hook) -> tuple[CompactingContextManager, Any]:
    transport = summarizer()
    settings = CompactionSettings(
        threshold=0.75, keep_recent=2, prepare_threshold=None, should_compact=hook
    )
    return CompactingContextManager(max_tokens=8_000, transport=transport, settings=settings), (
        transport
    )


def has_summary(view: list[dict[str, Any]]) -> bool:
    return any("<summary>" in str(wire.get("content")) for wire in view)


async def test_a_held_manager_keeps_the_summary_it_already_made() -> None:
    # Impact: a hook that holds back for one tool loop makes the manager forget the
    # conversation's summary (old messages are dropped instead), though holding back
    # only means "no new summary now"; the proxy splices its cached one when held.
    switch = Switch()
    manager, transport = make_manager(switch)
    wires = conversation(60, chars=550)
    for wire in wires[:47]:  # ~6,400 tokens: over the 6,000 threshold
        await manager.add_message(wire)
    view = await manager.get_messages_for_request()
    assert has_summary(view)
    made = len(transport.requests)
    for wire in wires[47:]:  # ~17k tokens in all: past the relief point (7,000)
        await manager.add_message(wire)
    switch.answer = False
    view = await manager.get_messages_for_request()
    assert len(transport.requests) == made  # held: no model call
    assert has_summary(view)


async def test_a_manager_hook_answering_true_compacts_after_a_first_summary() -> None:
    # Impact (low): docs: "True compacts now, over the limit or not"; once the manager
    # holds a summary, True from the hook (a task ended) does nothing until the
    # condensed view itself crosses the threshold.
    switch = Switch()
    manager, transport = make_manager(switch)
    for wire in conversation(30, chars=550):
        await manager.add_message(wire)
    await manager.get_messages_for_request()
    made = len(transport.requests)
    assert made >= 1
    for i in range(4):
        await manager.add_message({"role": "assistant", "content": f"more {i} " + "a" * 550})
        await manager.add_message({"role": "user", "content": f"next {i} " + "u" * 550})
    switch.answer = True
    await manager.get_messages_for_request()
    assert len(transport.requests) > made


# -- the store: what held -----------------------------------------------------------------


async def test_a_store_hook_always_true_makes_at_most_one_summary_per_check() -> None:
    transport = summarizer()
    switch = Switch(True)
    settings = CompactionSettings(keep_recent=2, prepare_threshold=None, should_compact=switch)
    store = AutoCompactStore(
        MemoryContextStore(), summarizer(), settings=settings, summary_transport=transport
    )
    await store.append(Message.user("Build the parser. " + "t" * 400))
    for i in range(6):
        await store.append(Message.assistant(f"step {i} " + "a" * 400))
        await store.append(Message.user(f"next {i} " + "u" * 400))
    await store.get_history()  # appends pending: asked, compacts
    assert len(transport.requests) == 1
    await store.get_history()  # nothing appended since: not asked again
    assert len(transport.requests) == 1
    assert len(switch.seen) == 1
    await store.add_context_tokens(500, 10)
    assert len(transport.requests) <= 2  # no loop: one report, at most one summary
