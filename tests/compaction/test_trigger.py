"""``should_compact``: the user's hook every face asks before its limit rule (issue 25).

Each face is driven the same way: a history well under the limit that the hook asks to
compact is compacted; one over it that the hook holds back is not summarized (and past
the relief point still reaches the model relieved); ``None``, a raising hook or a wrong
answer leave the limit in charge.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold import AutoCompactStore, MemoryContextStore, Message, ModelInfo
from contextfold.compaction import CompactionSettings, TriggerCheck
from contextfold.manager import CompactingContextManager
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from tests._proxy_upstream import ProxyApps, Upstream, openai_history

SUMMARY = "<summary>## User requests and intent\nThe user ran many steps.</summary>"
WINDOW = ModelInfo("small-model", 8_000, 1_000)  # limit 6,000 at threshold 0.75


def summarizer() -> FunctionTransport:
    def reply(request: StubRequest) -> StubResponse:
        return make_text_response(SUMMARY)

    return FunctionTransport(reply, model=WINDOW)


async def filled_store(
    hook: Callable[[TriggerCheck], Any] | None, rounds: int, chars: int = 400
) -> tuple[AutoCompactStore, FunctionTransport, list[TriggerCheck]]:
    seen: list[TriggerCheck] = []

    def asked(check: TriggerCheck) -> Any:
        seen.append(check)
        return None if hook is None else hook(check)

    summary = summarizer()
    settings = CompactionSettings(keep_recent=2, prepare_threshold=None, should_compact=asked)
    store = AutoCompactStore(
        MemoryContextStore(), summarizer(), settings=settings, summary_transport=summary
    )
    await store.append(Message.user("Build the parser. " + "t" * chars))
    for i in range(rounds):
        await store.append(Message.assistant(f"step {i} " + "a" * chars))
        await store.append(Message.user(f"next {i} " + "u" * chars))
    return store, summary, seen


# -- AutoCompactStore ---------------------------------------------------------------------


async def test_the_store_compacts_under_the_limit_when_the_hook_says_so() -> None:
    store, summary, seen = await filled_store(lambda check: check.tokens > 1_000, 6)
    await store.add_context_tokens(1_500, 50)  # far under the 6,000 limit
    assert store.compactions == 1
    assert len(summary.requests) == 1
    check = seen[-1]
    assert (check.face, check.model, check.limit, check.window) == (
        "store",
        "small-model",
        6_000,
        8_000,
    )
    assert check.tokens == 1_500
    assert not check.over
    assert check.session == store.session_id


async def test_the_store_holds_back_over_the_limit_when_the_hook_says_not_now() -> None:
    store, summary, _ = await filled_store(lambda check: False, 12, chars=1_000)
    await store.add_context_tokens(6_500, 50)  # over the limit, under the relief point
    assert store.compactions == 0
    assert not summary.requests
    assert len(await store.get_history()) == 25  # the whole history, no relief needed


async def test_a_held_back_history_past_the_relief_point_is_still_relieved() -> None:
    store, summary, _ = await filled_store(lambda check: False, 12, chars=1_000)
    await store.add_context_tokens(7_900, 50)  # past the relief point (6,500)
    assert not summary.requests
    view = await store.get_history()
    assert len(view) < 25  # relieved without a model
    assert len(await store.inner.get_history()) == 25  # the store keeps everything


@pytest.mark.parametrize(
    ("hook", "warned"),
    [(lambda check: None, False), (lambda check: 1 / 0, True), (lambda check: "yes", True)],
    ids=["none", "raises", "not-a-bool"],
)
async def test_the_limit_decides_when_the_hook_does_not(
    hook: Callable[[TriggerCheck], Any], warned: bool, caplog: pytest.LogCaptureFixture
) -> None:
    store, _, seen = await filled_store(hook, 12)
    with caplog.at_level(logging.WARNING, logger="contextfold.compaction"):
        await store.add_context_tokens(1_500, 50)
        assert store.compactions == 0
        await store.add_context_tokens(6_500, 50)
    assert store.compactions == 1
    assert len(seen) == 2
    assert ("should_compact" in caplog.text) is warned


async def test_an_async_hook_is_awaited() -> None:
    async def hook(check: TriggerCheck) -> bool:
        await asyncio.sleep(0)
        return check.tokens > 1_000

    store, _, _ = await filled_store(hook, 6)
    await store.add_context_tokens(1_500, 50)
    assert store.compactions == 1


async def test_an_explicit_compaction_does_not_ask_the_hook() -> None:
    store, _, seen = await filled_store(lambda check: False, 6)
    assert await store.compact()
    assert not seen


def test_replace_can_remove_a_hook() -> None:
    settings = CompactionSettings(should_compact=lambda check: True)
    assert settings.replace(should_compact=None).should_compact is None
    assert settings.replace(keep_recent=3).should_compact is settings.should_compact


def test_a_hook_that_is_not_callable_is_refused() -> None:
    with pytest.raises(ValueError, match="should_compact"):
        CompactionSettings(should_compact="always")  # type: ignore[arg-type]


# -- the context manager --------------------------------------------------------------


def conversation(rounds: int, chars: int = 400) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = [{"role": "user", "content": "Build the parser."}]
    for i in range(rounds):
        wire.append({"role": "assistant", "content": f"step {i} " + "a" * chars})
        wire.append({"role": "user", "content": f"next {i} " + "u" * chars})
    return wire


async def manager_view(
    hook: Callable[[TriggerCheck], Any], rounds: int, chars: int = 400
) -> tuple[list[dict[str, Any]], FunctionTransport, list[TriggerCheck]]:
    seen: list[TriggerCheck] = []

    def asked(check: TriggerCheck) -> Any:
        seen.append(check)
        return hook(check)

    transport = summarizer()
    settings = CompactionSettings(
        threshold=0.75, keep_recent=2, prepare_threshold=None, should_compact=asked
    )
    manager = CompactingContextManager(max_tokens=8_000, transport=transport, settings=settings)
    for wire in conversation(rounds, chars):
        await manager.add_message(wire)
    return await manager.get_messages_for_request(), transport, seen


async def test_the_manager_compacts_under_the_limit_when_the_hook_says_so() -> None:
    view, transport, seen = await manager_view(lambda check: True, 8)
    assert len(transport.requests) == 1
    assert any("<summary>" in str(w.get("content")) for w in view)
    check = seen[-1]
    assert check.face == "manager"
    assert not check.over
    assert (check.limit, check.window, check.messages) == (6_000, 8_000, 17)


async def test_the_manager_holds_back_and_relieves_only_past_the_relief_point() -> None:
    whole, transport, _ = await manager_view(lambda check: False, 22, chars=550)
    assert not transport.requests
    assert whole == conversation(22, chars=550)  # over 6,000, under the relief point (7,000)
    fitted, transport, seen = await manager_view(lambda check: False, 40, chars=550)
    assert not transport.requests
    assert seen[-1].over
    assert len(fitted) < len(conversation(40, chars=550))  # fitted without a summary
    assert fitted[0] == {"role": "user", "content": "Build the parser."}


# -- the proxy ----------------------------------------------------------------------------

OPENAI_KEY = "sk-test-TRIGGER-1a2b3c4d"
MakeApp = Callable[..., Awaitable[Starlette]]


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def make_app(upstream: Upstream, tmp_path: Path) -> AsyncIterator[MakeApp]:
    apps = ProxyApps(upstream)

    async def make(hook: Callable[[TriggerCheck], Any]) -> Starlette:
        settings = CompactionSettings(prepare_threshold=None, should_compact=hook)
        return await apps.make(
            upstream_openai="http://upstream.test/v1",
            db=tmp_path / "proxy.db",
            settings=settings,
            context_window=32_768,
            threshold=0.25,  # the limit: 8,192
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


async def test_the_proxy_compacts_under_the_limit_when_the_hook_says_so(
    make_app: MakeApp, upstream: Upstream
) -> None:
    seen: list[TriggerCheck] = []

    def hook(check: TriggerCheck) -> bool:
        seen.append(check)
        return check.tokens > 4_000

    app = await make_app(hook)
    # ~6,700 tokens: under the 8,192 limit, and a summary frees a fifth of it (the
    # proxy's churn gate holds for a compaction the hook asks for too)
    history = openai_history(14)
    reply = await post(app, history)
    assert reply.headers["x-contextfold-compacted"] == "true"
    assert reply.headers["x-contextfold-summary"] == "created"
    assert len(upstream.summaries) == 1
    check = seen[0]
    assert (check.face, check.model, check.limit, check.window) == (
        "proxy",
        "test-model",
        8_192,
        32_768,
    )
    assert not check.over
    assert check.messages == len(history)


async def test_the_proxy_holds_back_over_the_limit_and_relieves_past_the_relief_point(
    make_app: MakeApp, upstream: Upstream
) -> None:
    app = await make_app(lambda check: False)
    history = openai_history(12, chars=1_700)  # over 8,192, under the relief point
    reply = await post(app, history)
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert "should_compact" in reply.headers["x-contextfold-error"]
    assert upstream.chats[-1].json["messages"] == history
    history = openai_history(20, chars=6_000)  # far past the window
    reply = await post(app, history)
    assert reply.headers["x-contextfold-compacted"] == "true"
    assert reply.headers["x-contextfold-summary"] == "none"
    assert len(upstream.chats[-1].json["messages"]) < len(history)
    assert not upstream.summaries
