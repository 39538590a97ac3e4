"""Relief without a model in the proxy: an over-window request no summary can shrink.

Issue 25 (one policy, three faces): the library relieves a history past its relief
point without a model when no summary can be committed; today's main proxy forwarded
such a request whole, over the model's window, for the upstream to refuse.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold.compaction import CompactionSettings
from contextfold.formats import from_anthropic, from_openai
from contextfold.validation import validate_history
from tests._proxy_upstream import ProxyApps, Upstream, anthropic_history, openai_history

OPENAI_KEY = "sk-test-RELIEF-0a1b2c3d4e5f"
ANTHROPIC_KEY = "sk-ant-RELIEF-5f4e3d2c1b0a"
MODEL = "test-model"
# window 32,768 - 8,192 for the reply: a budget of 24,576 input tokens; the limit is
# 0.25 x 32,768 = 8,192 and the relief point halfway between them, 16,384.
WINDOW = 32_768
LIMIT = 8_192
RELIEF_POINT = 16_384
BUDGET = 24_576
SETTINGS: dict[str, Any] = {
    "context_window": WINDOW,
    "threshold": 0.25,
    "summary_max_retries": 0,
}
DOWN = (500, {"error": {"message": "summarizer down", "type": "server_error"}})

MakeApp = Callable[..., Awaitable[Starlette]]


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def make_app(upstream: Upstream, tmp_path: Path) -> AsyncIterator[MakeApp]:
    apps = ProxyApps(upstream)

    async def make(**overrides: Any) -> Starlette:
        settings = overrides.pop("settings", CompactionSettings(prepare_threshold=None))
        return await apps.make(
            upstream_openai="http://upstream.test/v1",
            upstream_anthropic="http://upstream.test",
            db=tmp_path / "proxy.db",
            settings=settings,
            **{**SETTINGS, **overrides},
        )

    yield make
    await apps.close()


def local(app: Starlette) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test")


async def post_openai(
    app: Starlette, history: list[dict[str, Any]], *, key: str | None = OPENAI_KEY
) -> httpx2.Response:
    headers = {} if key is None else {"authorization": f"Bearer {key}"}
    async with local(app) as client:
        return await client.post(
            "/v1/chat/completions", json={"model": MODEL, "messages": history}, headers=headers
        )


def assert_relieved(reply: httpx2.Response, sent: list[Any], history: list[Any]) -> None:
    """The request was cut under the window: prompt, task and the newest turn whole,
    no tool call without its result, the limit's size as estimated."""
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "true"
    assert reply.headers["x-contextfold-summary"] == "none"
    assert "relieved without a model" in reply.headers["x-contextfold-error"]
    before = int(reply.headers["x-contextfold-tokens-before"])
    after = int(reply.headers["x-contextfold-tokens-after"])
    assert before > RELIEF_POINT
    assert after <= LIMIT < before
    assert len(sent) < len(history)
    assert sent[0] == history[0]  # the system prompt (or the task, for Anthropic)
    assert sent[-1] == history[-1]  # the newest turn


@pytest.mark.parametrize("cause", ["summary_failed", "no_credentials", "summary_timeout"])
async def test_an_over_window_chat_request_is_relieved_when_no_summary_can_be_made(
    make_app: MakeApp, upstream: Upstream, cause: str
) -> None:
    # Today's main forwarded all ~37k estimated tokens to a 24,576-token budget.
    if cause == "summary_failed":
        upstream.fail_summary = DOWN
    if cause == "summary_timeout":
        upstream.summary_gate = asyncio.Event()  # never set
        app = await make_app(
            settings=CompactionSettings(prepare_threshold=None, summary_timeout=0.3)
        )
    else:
        app = await make_app()
    history = openai_history(20, chars=6_000)
    reply = await post_openai(app, history, key=None if cause == "no_credentials" else OPENAI_KEY)
    sent = upstream.chats[-1].json["messages"]
    assert_relieved(reply, sent, history)
    assert sent[1] == history[1]  # the user's task, word for word
    validate_history(from_openai(sent))


async def test_an_over_window_messages_request_is_relieved_too(
    make_app: MakeApp, upstream: Upstream
) -> None:
    upstream.fail_summary = DOWN
    app = await make_app()
    history = anthropic_history(20, chars=6_000)
    async with local(app) as client:
        reply = await client.post(
            "/v1/messages",
            json={"model": MODEL, "max_tokens": 100, "system": "Be careful.", "messages": history},
            headers={"x-api-key": ANTHROPIC_KEY, "anthropic-version": "2023-06-01"},
        )
    sent = upstream.chats[-1].json
    assert sent["system"] == "Be careful."
    assert_relieved(reply, sent["messages"], history)
    validate_history(from_anthropic(sent["messages"], system=sent["system"]))


async def test_back_off_relieves_the_skipped_requests_past_the_relief_point(
    make_app: MakeApp, upstream: Upstream
) -> None:
    upstream.fail_summary = DOWN
    app = await make_app()
    history = openai_history(20, chars=6_000)
    first = await post_openai(app, history)
    history = [*history, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "go"}]
    second = await post_openai(app, history)  # skipped: the failure backs off
    assert len(upstream.summaries) == 1
    assert "skipped after 1 failed attempt" in second.headers["x-contextfold-error"]
    for reply in (first, second):
        assert reply.headers["x-contextfold-compacted"] == "true"
    assert_relieved(second, upstream.chats[-1].json["messages"], history)


async def test_under_the_relief_point_a_failed_summary_forwards_the_request_as_sent(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Over the limit (8,192) but under the relief point (16,384): the window has room,
    # so the client's own bytes go (as before).
    upstream.fail_summary = DOWN
    app = await make_app()
    history = openai_history(12, chars=1_700)
    reply = await post_openai(app, history)
    before = int(reply.headers["x-contextfold-tokens-before"])
    assert LIMIT < before <= RELIEF_POINT
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert upstream.chats[-1].json["messages"] == history


async def test_relieved_requests_are_counted_in_the_metrics(
    make_app: MakeApp, upstream: Upstream
) -> None:
    upstream.fail_summary = DOWN
    app = await make_app()
    await post_openai(app, openai_history(20, chars=6_000))
    async with local(app) as client:
        text = (await client.get("/metrics")).text
    assert 'contextfold_proxy_compactions_total{outcome="relieved"} 1' in text
    assert 'contextfold_proxy_not_compacted_total{reason="summary_failed"} 1' in text
