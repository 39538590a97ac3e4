"""An upstream context-overflow error: the proxy compacts the request by force and retries
once (all three dialects, bodies and streams), against a fake upstream that refuses
prompts over ``max_prompt_tokens``."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold.cli import main
from contextfold.dialects import dialect_for
from contextfold.formats import from_anthropic, from_openai, from_responses
from contextfold.proxy._overflow import overflowed, reported_sizes
from contextfold.validation import validate_history
from contextfold_harness import fake_upstream
from tests._proxy_upstream import (
    ProxyApps,
    Upstream,
    anthropic_history,
    openai_history,
    responses_history,
)

KEY = "sk-test-DISTINCTIVE-0a1b2c3d4e5f6a7b"
MODEL = "test-model"
TURNS = 8  # ~4,000 tokens: under the proxy's limit (8,192), so forwarded as it is
DIALECTS = ["openai", "anthropic", "responses"]
PATHS = {
    "openai": "/v1/chat/completions",
    "anthropic": "/v1/messages",
    "responses": "/v1/responses",
}


def request_body(dialect: str, extra: int = 0, stream: bool = False) -> dict[str, Any]:
    """A ``TURNS``-round history in ``dialect``, ``extra`` exchanges longer."""
    more: list[dict[str, Any]] = []
    for i in range(extra):
        more += [{"role": "assistant", "content": f"ok {i}"}, {"role": "user", "content": "more"}]
    if dialect == "openai":
        body: dict[str, Any] = {"model": MODEL, "messages": [*openai_history(TURNS), *more]}
    elif dialect == "anthropic":
        history = [*anthropic_history(TURNS), *more]
        body = {"model": MODEL, "max_tokens": 100, "system": "Be careful.", "messages": history}
    else:
        body = {"model": MODEL, "instructions": "Be careful.", "input": responses_history(TURNS)}
        body["input"] += more
    if stream:
        body["stream"] = True
    return body


def history_size(dialect: str) -> int:
    """About what the fake upstream counts for ``request_body(dialect)``."""
    body = request_body(dialect)
    return len(json.dumps(body.get("messages", body.get("input")))) // 4


def parse_sent(dialect: str, body: dict[str, Any]) -> None:
    if dialect == "openai":
        messages = from_openai(body["messages"])
    elif dialect == "anthropic":
        messages = from_anthropic(body["messages"], body.get("system"))
    else:
        messages = from_responses(body["input"], body.get("instructions"))
    validate_history(messages, "openai" if dialect == "responses" else "any")


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def app(upstream: Upstream, tmp_path: Path) -> AsyncIterator[Starlette]:
    apps = ProxyApps(upstream)
    yield await apps.make(
        upstream_openai="http://upstream.test/v1",
        upstream_anthropic="http://upstream.test",
        db=tmp_path / "proxy.db",
        context_window=32_768,
        threshold=0.25,
        summary_max_retries=0,
    )
    await apps.close()


async def send(
    app: Starlette, dialect: str, body: dict[str, Any], credentials: bool = True
) -> httpx2.Response:
    headers = {"content-type": "application/json"}
    if dialect == "anthropic":
        headers["anthropic-version"] = "2023-06-01"
    if credentials:
        headers["x-api-key" if dialect == "anthropic" else "authorization"] = (
            KEY if dialect == "anthropic" else f"Bearer {KEY}"
        )
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://proxy.test") as client:
        return await client.post(PATHS[dialect], content=json.dumps(body), headers=headers)


async def prepared(app: Starlette) -> int:
    """How many summaries were prepared in the background, once none is in flight: a
    request spliced under a low learnt limit may be past its prepare point (0.8 of it)
    at once, and its preparation races the test's count of the summaries made."""
    preparer = app.state.forwarder.planner.preparer
    await asyncio.gather(*preparer._running.values(), return_exceptions=True)
    count: int = preparer.prepared
    return count


def limit_of(app: Starlette) -> int:
    """The limit of ``MODEL`` for the tenant of ``KEY`` (as :func:`send` sends it)."""
    forwarder = app.state.forwarder
    tenant = forwarder.tenant({"authorization": f"Bearer {KEY}"})
    limit: int = forwarder.planner.limit(MODEL, tenant)
    return limit


def reply_text(dialect: str, reply: httpx2.Response) -> str:
    if reply.headers["content-type"].startswith("text/event-stream"):
        return reply.text
    payload = reply.json()
    if dialect == "openai":
        return str(payload["choices"][0]["message"]["content"])
    if dialect == "anthropic":
        return str(payload["content"][0]["text"])
    return str(payload["output"][0]["content"][0]["text"])


@pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_overflow_is_compacted_and_retried_once(
    app: Starlette, upstream: Upstream, dialect: str, stream: bool
) -> None:
    upstream.max_prompt_tokens = int(history_size(dialect) * 0.6)
    reply = await send(app, dialect, request_body(dialect, stream=stream))
    assert reply.status_code == 200, reply.text
    assert reply.headers["x-contextfold-retried"] == "context-overflow"
    assert reply.headers["x-contextfold-compacted"] == "true"
    assert reply.headers["x-contextfold-summary"] == "created"
    assert "x-contextfold-error" not in reply.headers
    assert "from" in reply_text(dialect, reply)  # "Hello from upstream", whole or in events
    assert stream == reply.headers["content-type"].startswith("text/event-stream")
    rejected, retried = upstream.chats
    assert rejected.json == request_body(dialect, stream=stream)
    parse_sent(dialect, retried.json)
    assert len(upstream.summaries) == 1
    # the next request of the conversation is compacted before it is sent, with the
    # summary the forced compaction made (a summary prepared in the background after it,
    # for the turns to come, is counted apart)
    reply = await send(app, dialect, request_body(dialect, extra=1, stream=stream))
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "true"
    assert reply.headers["x-contextfold-summary"] == "cached"
    assert "x-contextfold-retried" not in reply.headers
    assert len(upstream.chats) == 3
    ahead = await prepared(app)
    assert len(upstream.summaries) == 1 + ahead


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_a_failed_forced_compaction_is_relieved_and_retried(
    app: Starlette, upstream: Upstream, dialect: str
) -> None:
    # Before relief without a model (issue 25), the original 400 was relayed: the
    # request could not succeed while the summarizer was down.
    upstream.max_prompt_tokens = int(history_size(dialect) * 0.6)
    upstream.fail_summary = (500, {"error": {"message": "summarizer down", "type": "server_error"}})
    reply = await send(app, dialect, request_body(dialect))
    assert reply.status_code == 200
    assert len(upstream.chats) == 2  # the request, and its relieved retry
    assert upstream._prompt_tokens(upstream.chats[1].json) <= upstream.max_prompt_tokens
    assert reply.headers["x-contextfold-retried"] == "context-overflow"
    assert "relieved without a model" in reply.headers["x-contextfold-error"]


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_a_failed_forced_compaction_relays_the_original_error_when_relief_cannot_help(
    app: Starlette, upstream: Upstream, dialect: str
) -> None:
    upstream.max_prompt_tokens = 50  # nothing fits, relieved or not
    upstream.fail_summary = (500, {"error": {"message": "summarizer down", "type": "server_error"}})
    reply = await send(app, dialect, request_body(dialect))
    assert reply.status_code == 400
    assert reply.json() == rejected_body(dialect, upstream)
    assert len(upstream.chats) == 2  # the request and one relieved retry, no more
    assert "retry" in reply.headers["x-contextfold-error"]


def rejected_body(dialect: str, upstream: Upstream) -> Any:
    """What the fake upstream answered the first request (it is deterministic)."""
    first = upstream.chats[0].json
    tokens = upstream._prompt_tokens(first)
    assert upstream.max_prompt_tokens is not None
    return dialect_for(dialect).overflow_body(tokens, upstream.max_prompt_tokens)


@pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_failed_retry_relays_the_first_error_after_one_retry(
    app: Starlette, upstream: Upstream, dialect: str, stream: bool
) -> None:
    upstream.max_prompt_tokens = 50  # nothing fits, compacted or not
    reply = await send(app, dialect, request_body(dialect, stream=stream))
    assert reply.status_code == 400
    assert reply.json() == rejected_body(dialect, upstream)
    assert len(upstream.chats) == 2  # the request and one retry
    assert len(upstream.summaries) == 1
    assert (
        "retry after a forced compaction was answered 400" in reply.headers["x-contextfold-error"]
    )


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_other_errors_are_relayed_without_retry(
    app: Starlette, upstream: Upstream, dialect: str
) -> None:
    error = {"error": {"message": "bad temperature", "type": "invalid_request_error"}}
    upstream.fail_chat = (400, error, {})
    reply = await send(app, dialect, request_body(dialect))
    assert reply.status_code == 400
    assert reply.json() == error
    assert len(upstream.chats) == 1
    assert not upstream.summaries
    assert "x-contextfold-error" not in reply.headers


async def test_overflow_without_credentials_relays_the_error(
    app: Starlette, upstream: Upstream
) -> None:
    upstream.max_prompt_tokens = 100  # nothing fits, relieved or not
    reply = await send(app, "openai", request_body("openai"), credentials=False)
    assert reply.status_code == 400
    assert reply.json()["error"]["code"] == "context_length_exceeded"
    assert len(upstream.chats) == 2  # relief needs no key: one relieved retry
    assert not upstream.summaries


async def test_overflow_without_credentials_is_relieved_without_a_model(
    app: Starlette, upstream: Upstream
) -> None:
    # No key to pay for a summary; before relief the upstream's 400 was relayed.
    upstream.max_prompt_tokens = int(history_size("openai") * 0.6)
    reply = await send(app, "openai", request_body("openai"), credentials=False)
    assert reply.status_code == 200
    assert "no API key" in reply.headers["x-contextfold-error"]
    assert "relieved without a model" in reply.headers["x-contextfold-error"]
    assert not upstream.summaries


async def test_server_held_state_is_not_retried(app: Starlette, upstream: Upstream) -> None:
    upstream.max_prompt_tokens = 100
    body = {**request_body("responses"), "previous_response_id": "resp_1"}
    reply = await send(app, "responses", body)
    assert reply.status_code == 400
    assert len(upstream.chats) == 1
    assert "previous_response_id" in reply.headers["x-contextfold-error"]


VLLM_MESSAGE = (
    "You passed 33015 input tokens and requested 100 output tokens. However, the model's "
    "context length is only 32768 tokens, resulting in a maximum input length of 32668 "
    "tokens. Please reduce the length of the input prompt. (parameter=input_tokens, "
    "value=33015)"
)
OLD_VLLM_MESSAGE = (
    "This model's maximum context length is 32768 tokens. However, you requested 33115 "
    "tokens (33015 in the messages, 100 in the completion). Please reduce the length of "
    "the messages or completion."
)


@pytest.mark.parametrize(
    ("dialect", "status", "payload", "expected"),
    [
        ("openai", 400, {"error": {"code": "context_length_exceeded", "message": "x"}}, True),
        ("openai", 400, {"error": {"message": "This model's maximum context length is 8"}}, True),
        ("responses", 400, {"error": {"message": "Your input exceeds the context window"}}, True),
        ("anthropic", 400, {"type": "error", "error": {"message": "prompt is too long: 9"}}, True),
        ("anthropic", 413, {"error": {"message": "Prompt is too long"}}, True),
        # vLLM since 0.16 (its "maximum input length" wording), and before its errors
        # moved under "error" (the message at the top level)
        ("openai", 400, {"error": {"message": VLLM_MESSAGE, "code": 400}}, True),
        ("openai", 400, {"object": "error", "message": OLD_VLLM_MESSAGE, "code": 400}, True),
        ("responses", 400, {"error": OLD_VLLM_MESSAGE}, True),
        ("anthropic", 400, {"type": "error", "error": "Prompt is too long"}, True),
        ("openai", 400, {"object": "error", "message": "bad temperature", "code": 400}, False),
        ("openai", 400, {"error": "bad context: temperature"}, False),
        ("openai", 400, {"error": {"message": "bad temperature"}}, False),
        ("openai", 500, {"error": {"code": "context_length_exceeded"}}, False),
        ("anthropic", 400, {"error": {"code": "context_length_exceeded"}}, False),
        ("openai", 400, ["context_length_exceeded"], False),
    ],
)
def test_overflow_recognition(dialect: str, status: int, payload: Any, expected: bool) -> None:
    wire = dialect_for(dialect)
    assert overflowed(wire, status, json.dumps(payload).encode()) is expected
    assert overflowed(wire, status, b"maximum context length, not JSON") is False


@pytest.mark.parametrize(
    ("dialect", "message", "expected"),
    [
        (
            "openai",
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 130,512 tokens. Please reduce the length of the messages.",
            (128_000, 130_512),
        ),
        (
            "openai",
            "This model's maximum context length is 4096 tokens. However, you requested 5000 "
            "tokens (4000 in the messages, 1000 in the completion).",
            (4_096, 4_000),
        ),
        ("anthropic", "prompt is too long: 210345 tokens > 200000 maximum", (200_000, 210_345)),
        (
            "responses",
            "This model's maximum context length is 32768 tokens. However, you requested "
            "40000 tokens.",
            (32_768, 40_000),
        ),
        ("anthropic", "prompt is too long", None),
        (
            "openai",
            "maximum context length is 0 tokens. However, your messages resulted in 5 tokens",
            None,
        ),
    ],
)
def test_the_sizes_an_overflow_error_reports_are_read(
    dialect: str, message: str, expected: tuple[int, int] | None
) -> None:
    content = json.dumps({"error": {"message": message}}).encode()
    assert reported_sizes(dialect_for(dialect), content) == expected


def test_the_fake_upstream_command_refuses_large_prompts_when_told(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: dict[str, Any] = {}
    monkeypatch.setattr(fake_upstream, "serve", lambda **fields: served.update(fields))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["fake-upstream", "--port", str(port), "--max-prompt-tokens", "500"]) == 0
    assert served["max_prompt_tokens"] == 500
    assert "fake upstream on" in capsys.readouterr().out


async def test_the_limit_learnt_from_an_overflow_compacts_later_turns_before_sending(
    app: Starlette, upstream: Upstream
) -> None:
    upstream.max_prompt_tokens = limit = int(history_size("openai") * 0.6)
    history = openai_history(TURNS)
    refused: list[int] = []
    refused_sizes: list[int] = []
    for turn in range(12):
        before = len(upstream.chats)
        reply = await send(app, "openai", {"model": MODEL, "messages": history})
        assert reply.status_code == 200, reply.text
        sent = upstream.chats[before:]
        refused += [turn for s in sent if upstream._prompt_tokens(s.json) > limit]
        refused_sizes += [n for s in sent if (n := upstream._prompt_tokens(s.json)) > limit]
        # Summaries prepared in the background finish before the next turn, as they
        # do when the agent's model takes longer than the summarizer: which summary a
        # turn splices depends on the clock otherwise, and so does its size.
        preparer = app.state.forwarder.planner.preparer
        await asyncio.gather(*preparer._running.values(), return_exceptions=True)
        history += [
            {"role": "assistant", "content": f"done {turn}: " + "a" * 800},
            {"role": "user", "content": f"next {turn}: " + "u" * 800},
        ]
    # each refusal lowers the model's limit to 90 % of the refused prompt's estimate
    # (which undercounts what the upstream counts at first): it converges, and then
    # every turn is compacted before it is sent
    assert refused[0] == 0
    # the fake's error reports both sizes (OpenAI's wording), so the learnt limit is in
    # the estimate's units; a spliced summary can still be estimated a little under
    # what the upstream counts, so a second refusal may follow, never more
    assert len(refused) <= 2
    assert refused[-1] < 6
    # the learnt limit is below the last refused prompt (90 % of its estimate); whether
    # that lands under the upstream's own limit depends on how far over it the refused
    # prompt was, so convergence is what the refusals above show
    assert limit_of(app) < refused_sizes[-1]
    assert len(upstream.summaries) >= 3


async def test_concurrent_overflows_of_one_conversation_share_one_summary(
    app: Starlette, upstream: Upstream
) -> None:
    upstream.max_prompt_tokens = int(history_size("openai") * 0.6)
    upstream.summary_delay = 0.2
    replies = await asyncio.gather(*[send(app, "openai", request_body("openai")) for _ in range(4)])
    assert [r.status_code for r in replies] == [200] * 4
    assert all(r.headers["x-contextfold-compacted"] == "true" for r in replies)
    # the first is refused and retried; the others are retried too, or compacted
    # before they are sent when they arrive after the refusal marked the history over
    retried = [r for r in replies if r.headers.get("x-contextfold-retried") == "context-overflow"]
    assert retried
    assert len(upstream.chats) == 4 + len(retried)
    # one summary for the refused history; the lowered limit may have a summary of the
    # compacted one prepared in the background, for the turns to come
    ahead = await prepared(app)
    assert len(upstream.summaries) == 1 + ahead
    # every reply reports the estimate of what its client sent, none the limit
    assert all(int(r.headers["x-contextfold-tokens-before"]) < 8_193 for r in replies)


async def test_an_overflow_compaction_cannot_cure_teaches_no_limit(
    app: Starlette, upstream: Upstream
) -> None:
    # A short prompt asking for more output than the window holds: the upstream calls it
    # a context overflow, but the prompt is not what overflowed and there is nothing to
    # summarize. The model's limit must not drop for every other conversation.
    message = (
        "This model's maximum context length is 32768 tokens. However, you requested "
        "40020 tokens (20 in the messages, 40000 in the completion). Please reduce the "
        "length of the messages or completion."
    )
    error = {"error": {"message": message, "code": "context_length_exceeded"}}
    limit = limit_of(app)
    upstream.fail_chat = (400, error, {})
    short = {"model": MODEL, "messages": openai_history(1), "max_tokens": 40_000}
    reply = await send(app, "openai", short)
    assert reply.status_code == 400
    assert reply.json() == error
    assert "nothing to summarize" in reply.headers["x-contextfold-error"]
    assert limit_of(app) == limit
    # another client's conversation, well under the limit, is forwarded as it is
    upstream.fail_chat = None
    reply = await send(app, "openai", request_body("openai"))
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert not upstream.summaries


async def test_a_retry_refused_again_teaches_no_limit(app: Starlette, upstream: Upstream) -> None:
    # Halving the prompt did not help either: the rejection is not the prompt's size
    # (the output budget, a server-side cap), so nothing is learnt from it.
    limit = limit_of(app)
    upstream.max_prompt_tokens = 50
    reply = await send(app, "openai", request_body("openai"))
    assert reply.status_code == 400
    assert len(upstream.chats) == 2
    assert limit_of(app) == limit


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_tokens_before_after_an_overflow_is_the_estimate_of_what_was_sent(
    app: Starlette, upstream: Upstream, dialect: str
) -> None:
    # Today's main reported the anchor it sets on a rejected history, the limit + 1
    # (8,193 here; 16,385 in the run), instead of the estimate of what was sent.
    upstream.max_prompt_tokens = int(history_size(dialect) * 0.6)
    reply = await send(app, dialect, request_body(dialect))
    assert reply.headers["x-contextfold-retried"] == "context-overflow"
    before = int(reply.headers["x-contextfold-tokens-before"])
    assert before != 8_193
    assert abs(before - history_size(dialect)) < history_size(dialect) * 0.25
    assert int(reply.headers["x-contextfold-tokens-after"]) < before
