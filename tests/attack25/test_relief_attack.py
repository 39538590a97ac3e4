"""Attack 25: the proxy's relief without a model, on inputs its tests did not choose.

A chat request past the relief point (or refused by the upstream) for which no summary
can be made is to be cut under the limit without a model, the prompt, the task and a
moved tail kept as sent, instead of being forwarded over the window.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold.compaction import CompactionSettings
from contextfold.formats import from_anthropic, from_openai, from_responses
from contextfold.tokens import approx_token_counter, count_tokens
from contextfold.validation import validate_history
from tests._proxy_upstream import ProxyApps, Upstream, openai_history, responses_history
from tests.clients.test_bodies import TASK, _aider_grown, body

OPENAI_KEY = "sk-test-ATTACK25-RELIEF-9f8e7d"
ANTHROPIC_KEY = "sk-ant-ATTACK25-RELIEF-7d8e9f"
MODEL = "test-model"
# window 32,768 - 8,192 for the reply: a budget of 24,576 input tokens; the limit is
# 0.25 x 32,768 = 8,192 and the relief point halfway between them, 16,384.
LIMIT = 8_192
RELIEF_POINT = 16_384
BUDGET = 24_576
DOWN = (500, {"error": {"message": "summarizer down", "type": "server_error"}})

MakeApp = Callable[..., Awaitable[Starlette]]


@pytest.fixture
def upstream() -> Upstream:
    return Upstream(reply_text="ok")


@pytest.fixture
async def make_app(upstream: Upstream, tmp_path: Path) -> AsyncIterator[MakeApp]:
    apps = ProxyApps(upstream)

    async def make(**overrides: Any) -> Starlette:
        settings = overrides.pop("settings", CompactionSettings(prepare_threshold=None))
        config: dict[str, Any] = {
            "context_window": 32_768,
            "threshold": 0.25,
            "summary_max_retries": 0,
            **overrides,
        }
        return await apps.make(
            upstream_openai="http://upstream.test/v1",
            upstream_anthropic="http://upstream.test",
            db=tmp_path / "proxy.db",
            settings=settings,
            **config,
        )

    yield make
    await apps.close()


def local(app: Starlette) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test")


async def post(
    app: Starlette, path: str, payload: dict[str, Any], *, anthropic: bool = False
) -> httpx2.Response:
    headers = (
        {"x-api-key": ANTHROPIC_KEY, "anthropic-version": "2023-06-01"}
        if anthropic
        else {"authorization": f"Bearer {OPENAI_KEY}"}
    )
    async with local(app) as client:
        return await client.post(path, json=payload, headers=headers)


def chat(history: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": history, **extra}


def grown(history: list[dict[str, Any]], rounds: int, chars: int) -> list[dict[str, Any]]:
    out = list(history)
    for i in range(rounds):
        out.append({"role": "assistant", "content": f"more {i}: " + "b" * chars})
        out.append({"role": "user", "content": f"go on {i}"})
    return out


# -- defects ------------------------------------------------------------------------------


async def test_a_failed_resummary_never_forwards_the_whole_history_over_the_window(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Impact: once a conversation has a cached summary, the first summarizer outage
    # sends its whole history (here ~77k estimated tokens to a 24,576-token budget):
    # the upstream refuses it, where the cached summary alone would have fitted.
    app = await make_app()
    history = openai_history(20, chars=6_000)
    first = await post(app, "/v1/chat/completions", chat(history))
    assert first.headers["x-contextfold-summary"] == "created"
    history = grown(history, 6, 6_000)  # the spliced view: over the limit, under the point
    upstream.fail_summary = DOWN
    reply = await post(app, "/v1/chat/completions", chat(history))
    assert reply.status_code == 200
    sent = upstream.chats[-1].json["messages"]
    assert len(sent) < len(history)
    assert reply.headers["x-contextfold-compacted"] == "true"
    assert int(reply.headers["x-contextfold-tokens-after"]) <= BUDGET


async def test_codex_past_the_relief_point_is_relieved_keeping_its_head(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Impact: every Codex request past the relief point with no summary available is
    # forwarded whole (15,919 estimated tokens to a 12,000-token budget here).
    upstream.fail_summary = DOWN
    app = await make_app(context_window=24_000, threshold=0.5)  # limit = budget = 12,000
    original = body("codex-2")
    items = original["input"]
    reply = await post(app, "/v1/responses", {**original, "stream": False})
    assert reply.status_code == 200
    assert int(reply.headers["x-contextfold-tokens-before"]) > 12_000
    assert reply.headers["x-contextfold-compacted"] == "true", reply.headers.get(
        "x-contextfold-error"
    )
    assert "relieved without a model" in reply.headers["x-contextfold-error"]
    sent = upstream.chats[-1].json["input"]
    assert sent[:4] == items[:4]  # the developer messages, the environment, the task
    assert TASK in json.dumps(sent[3])
    assert sent[-1]["call_id"] == items[-1]["call_id"]
    assert int(reply.headers["x-contextfold-tokens-after"]) <= 12_000


async def test_aider_past_the_relief_point_is_relieved_keeping_head_and_files(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Impact: a long aider session past the relief point with no summary available is
    # forwarded whole (12,035 estimated tokens to a 7,808-token budget here).
    app = await make_app(context_window=16_000, threshold=0.75)  # limit = budget = 7,808
    first, second, third = (body(f"aider-{n}") for n in (1, 2, 3))
    for request in (first, second, third):  # the proxy sees the session from its opening
        await post(app, "/v1/chat/completions", {**request, "stream": False})
    upstream.fail_summary = DOWN
    payload = _aider_grown(third, 30)
    messages = payload["messages"]
    reply = await post(app, "/v1/chat/completions", {**payload, "stream": False})
    assert reply.status_code == 200
    assert int(reply.headers["x-contextfold-tokens-before"]) > 7_808
    assert reply.headers["x-contextfold-compacted"] == "true", reply.headers.get(
        "x-contextfold-error"
    )
    sent = upstream.chats[-1].json["messages"]
    task = next(i for i, m in enumerate(messages) if m["content"] == TASK)
    assert sent[: task + 1] == messages[: task + 1]  # system, examples, repo map, task
    assert sent[-3:] == messages[-3:]  # the chat files, as aider sent them
    assert len(sent) < len(messages)


async def test_a_large_tools_block_is_not_left_out_of_the_relief(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Impact: an agent with many tools (Claude Code sends ~10k+ tokens of them) has its
    # relieved request sent over the window, while the headers claim it was cut under
    # the limit.
    upstream.fail_summary = DOWN
    app = await make_app()
    history = openai_history(20, chars=8_000)
    tools = [
        {
            "type": "function",
            "function": {
                "name": f"tool_{i}",
                "description": "d" * 4_000,
                "parameters": {"type": "object"},
            },
        }
        for i in range(20)
    ]
    reply = await post(app, "/v1/chat/completions", chat(history, tools=tools))
    assert "relieved without a model" in reply.headers["x-contextfold-error"]
    sent = upstream.chats[-1].json
    # the proxy's own estimate of what it sent: its messages and its tool definitions
    size = count_tokens(from_openai(sent["messages"]), approx_token_counter)
    size += approx_token_counter(str(sent["tools"]))
    after = int(reply.headers["x-contextfold-tokens-after"])
    assert size <= BUDGET
    assert after >= 0.9 * size  # the header tells what was sent


async def test_a_relieved_request_refused_by_the_upstream_is_cut_further_on_retry(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Impact: with the summarizer down and a model whose real window is smaller than
    # the estimate allows for (a counter that undercounts, a misconfigured window),
    # every request costs two upstream calls and ends in a 400; a forced summary aims
    # at half the refused size, the forced relief does not.
    upstream.fail_summary = DOWN
    upstream.max_prompt_tokens = 6_000
    app = await make_app()
    history = openai_history(20, chars=6_000)
    reply = await post(app, "/v1/chat/completions", chat(history))
    bodies = [s.json for s in upstream.chats]
    assert len(bodies) == 2  # the relieved request, and the retry after its overflow
    assert bodies[1] != bodies[0]  # today: the same messages, resent
    assert reply.status_code == 200


def with_last_read(size: int) -> list[dict[str, Any]]:
    """20 big old rounds, then a tool call whose ``size``-character result the model has
    not seen yet (the request that carries it is the one being relieved)."""
    history = openai_history(20, chars=6_000)[:-1]
    function = {"name": "read_file", "arguments": "{}"}
    call = {"id": "call_last", "type": "function", "function": function}
    history.append({"role": "user", "content": "read main.py"})
    history.append({"role": "assistant", "content": None, "tool_calls": [call]})
    history.append({"role": "tool", "tool_call_id": "call_last", "content": "L" * size})
    return history


async def test_the_newest_tool_result_stays_whole_when_dropping_old_rounds_suffices(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Impact: during a summarizer outage past the relief point, every tool result an
    # agent asks for reaches the model cut to 2,000 characters (head and tail), though
    # it fits: the agent re-reads, and is cut again, until a summary can be made.
    upstream.fail_summary = DOWN
    app = await make_app()
    history = with_last_read(5_000)  # ~1,250 tokens: whole, the relieved view still fits
    reply = await post(app, "/v1/chat/completions", chat(history))
    assert "relieved without a model" in reply.headers["x-contextfold-error"]
    sent = upstream.chats[-1].json["messages"]
    assert len(sent) < len(history)
    assert int(reply.headers["x-contextfold-tokens-after"]) <= LIMIT  # whole, and it fits
    assert sent[-1] == history[-1]


# -- what held ----------------------------------------------------------------------------


async def test_a_responses_relief_keeps_reasoning_with_its_call_and_the_task(
    make_app: MakeApp, upstream: Upstream
) -> None:
    upstream.fail_summary = DOWN
    app = await make_app()
    items = responses_history(20, chars=6_000)
    payload = {"model": MODEL, "input": items, "instructions": "Be careful."}
    reply = await post(app, "/v1/responses", payload)
    assert reply.status_code == 200
    assert "relieved without a model" in reply.headers["x-contextfold-error"]
    sent = upstream.chats[-1].json
    assert sent["instructions"] == "Be careful."
    assert sent["input"][0] == items[0]  # the task
    assert sent["input"][-1] == items[-1]
    assert len(sent["input"]) < len(items)
    kept = sent["input"]
    for index, item in enumerate(kept):
        if item.get("type") == "function_call":
            assert kept[index - 1]["type"] == "reasoning"  # its reasoning item stays with it
            outputs = [o for o in kept if o.get("call_id") == item["call_id"]]
            assert [o["type"] for o in outputs] == ["function_call", "function_call_output"]
    validate_history(from_responses(sent["input"], sent["instructions"]))
    assert int(reply.headers["x-contextfold-tokens-after"]) <= LIMIT


def thinking_history(turns: int, chars: int) -> list[dict[str, Any]]:
    """A Claude tool loop with thinking, images in the tool results, cache_control."""
    task = {"type": "text", "text": "TASK: fix it", "cache_control": {"type": "ephemeral"}}
    out: list[dict[str, Any]] = [{"role": "user", "content": [task]}]
    image = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo" + "A" * 4_001}
    for i in range(turns):
        think = {"type": "thinking", "thinking": "hmm " * 50, "signature": f"sig-{i}"}
        use = {"type": "tool_use", "id": f"toolu_{i}", "name": "read", "input": {"n": i}}
        out.append({"role": "assistant", "content": [think, use]})
        parts = [{"type": "text", "text": "r" * chars}, {"type": "image", "source": image}]
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": parts}
        out.append({"role": "user", "content": [result]})
    return out


async def test_an_anthropic_tool_loop_with_thinking_and_images_is_relieved_validly(
    make_app: MakeApp, upstream: Upstream
) -> None:
    upstream.fail_summary = DOWN
    app = await make_app()
    messages = thinking_history(20, 6_000)
    system = [{"type": "text", "text": "Be careful.", "cache_control": {"type": "ephemeral"}}]
    payload = {
        "model": MODEL,
        "max_tokens": 100,
        "thinking": {"type": "enabled", "budget_tokens": 1_024},
        "system": system,
        "messages": messages,
    }
    reply = await post(app, "/v1/messages", payload, anthropic=True)
    assert reply.status_code == 200
    assert "relieved without a model" in reply.headers["x-contextfold-error"]
    sent = upstream.chats[-1].json
    assert sent["system"] == system  # cache_control and all
    assert sent["thinking"] == payload["thinking"]
    assert sent["messages"][0] == messages[0]
    assert sent["messages"][-2] == messages[-2]  # the latest call, its thinking whole
    assert len(sent["messages"]) < len(messages)
    for message in sent["messages"]:
        if message["role"] == "assistant":
            assert message["content"][0]["type"] == "thinking"
    validate_history(from_anthropic(sent["messages"], system=sent["system"]))


async def test_a_newest_tool_result_too_big_for_the_window_is_cut_with_its_call_kept(
    make_app: MakeApp, upstream: Upstream
) -> None:
    upstream.fail_summary = DOWN
    app = await make_app()
    history = with_last_read(100_000)  # ~25k tokens: over the window on its own
    reply = await post(app, "/v1/chat/completions", chat(history))
    assert reply.status_code == 200
    assert int(reply.headers["x-contextfold-tokens-after"]) <= LIMIT
    sent = upstream.chats[-1].json["messages"]
    assert sent[:2] == history[:2]
    assert sent[-2] == history[-2]  # the call, with its result after it
    assert sent[-1]["tool_call_id"] == "call_last"
    assert len(sent[-1]["content"]) < 100_000
    validate_history(from_openai(sent))


async def test_a_streamed_request_is_relieved_and_the_summary_resumes_after_recovery(
    make_app: MakeApp, upstream: Upstream
) -> None:
    upstream.fail_summary = DOWN
    app = await make_app()
    history = openai_history(20, chars=6_000)
    reply = await post(app, "/v1/chat/completions", chat(history, stream=True))
    assert reply.status_code == 200
    assert "relieved without a model" in reply.headers["x-contextfold-error"]
    assert len(upstream.chats[-1].json["messages"]) < len(history)
    upstream.fail_summary = None  # the summarizer is back
    created = None
    for _ in range(4):  # the back-off skips a request or two, relieved meanwhile
        history = grown(history, 1, 100)
        reply = await post(app, "/v1/chat/completions", chat(history))
        before = int(reply.headers["x-contextfold-tokens-before"])
        after = int(reply.headers["x-contextfold-tokens-after"])
        assert 0 < after <= LIMIT < before  # never a runaway or negative estimate
        if reply.headers["x-contextfold-summary"] == "created":
            created = reply
            break
        assert "relieved without a model" in reply.headers["x-contextfold-error"]
    assert created is not None
    history = grown(history, 1, 100)
    reply = await post(app, "/v1/chat/completions", chat(history))
    assert reply.headers["x-contextfold-summary"] == "cached"
    assert "x-contextfold-error" not in reply.headers
