"""The compaction proxy in-process: stock SDK clients -> proxy -> fake upstream (ASGI both hops)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from starlette.applications import Starlette

from contextfold.compaction import CompactionSettings
from contextfold.dialects import CHAT, MESSAGES
from contextfold.formats import from_anthropic, from_openai
from contextfold.proxy import ProxyOptions, create_app
from contextfold.validation import validate_history
from tests._proxy_upstream import ProxyApps, Seen, Upstream, anthropic_history, openai_history

OPENAI_KEY = "sk-test-DISTINCTIVE-9f8e7d6c5b4a3921"
ANTHROPIC_KEY = "sk-ant-DISTINCTIVE-1a2b3c4d5e6f7a8b"
MODEL = "test-model"
# context_window 32,768 x threshold 0.25: compaction above ~8,192 estimated tokens.
SETTINGS: dict[str, Any] = {"context_window": 32_768, "threshold": 0.25, "summary_max_retries": 0}

MakeApp = Callable[..., Awaitable[Starlette]]


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def make_app(upstream: Upstream, tmp_path: Path) -> AsyncIterator[MakeApp]:
    apps = ProxyApps(upstream)

    async def make(**overrides: Any) -> Starlette:
        return await apps.make(
            **{
                "upstream_openai": "http://upstream.test/v1",
                "upstream_anthropic": "http://upstream.test",
                "db": tmp_path / "proxy.db",
                **SETTINGS,
                **overrides,
            }
        )

    yield make
    await apps.close()


@pytest.fixture
async def app(make_app: MakeApp) -> Starlette:
    return await make_app()


def local(app: Starlette) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test")


def openai_client(app: Starlette) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key=OPENAI_KEY, base_url="http://proxy.test/v1", http_client=local(app), max_retries=0
    )


def anthropic_client(app: Starlette) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        api_key=ANTHROPIC_KEY, base_url="http://proxy.test", http_client=local(app), max_retries=0
    )


def stored_files(folder: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in folder.iterdir()}


def summary_texts(messages: list[Any]) -> list[str]:
    return [m.text for m in messages if "<summary>" in m.text]


# -- pass-through ---------------------------------------------------------------------


async def test_short_request_is_forwarded_byte_identical(
    app: Starlette, upstream: Upstream
) -> None:
    raw = json.dumps({"model": MODEL, "messages": openai_history(1), "temperature": 0.1}).encode()
    async with local(app) as client:
        reply = await client.post(
            "/v1/chat/completions",
            content=raw,
            headers={"authorization": f"Bearer {OPENAI_KEY}", "content-type": "application/json"},
        )
    assert reply.status_code == 200
    assert upstream.seen[-1].raw == raw
    assert upstream.seen[-1].headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert reply.headers["x-contextfold-summary"] == "none"
    assert int(reply.headers["x-contextfold-tokens-before"]) > 0
    assert reply.json()["choices"][0]["message"]["content"] == "Hello from upstream"
    assert not upstream.summaries


async def test_stock_openai_client_gets_replies_and_streams(app: Starlette) -> None:
    client = openai_client(app)
    history = openai_history(1)
    reply = await client.chat.completions.create(model=MODEL, messages=history)
    assert reply.choices[0].message.content == "Hello from upstream"
    assert reply.usage is not None
    assert reply.usage.prompt_tokens > 0
    stream = await client.chat.completions.create(
        model=MODEL, messages=history, stream=True, stream_options={"include_usage": True}
    )
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert text == "Hello from upstream"


async def test_stock_anthropic_client_gets_replies_and_streams(app: Starlette) -> None:
    client = anthropic_client(app)
    history = anthropic_history(1)
    reply = await client.messages.create(
        model=MODEL, max_tokens=100, system="Be careful.", messages=history
    )
    assert reply.content[0].type == "text"
    assert reply.content[0].text == "Hello from upstream"
    async with client.messages.stream(
        model=MODEL, max_tokens=100, system="Be careful.", messages=history
    ) as stream:
        text = "".join([t async for t in stream.text_stream])
        final = await stream.get_final_message()
    assert text == "Hello from upstream"
    assert final.usage.input_tokens > 0


# -- compaction -----------------------------------------------------------------------


async def test_the_proxy_builds_the_fact_ledger_off_its_event_loop(
    app: Starlette, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its CPU (0.2-0.4 s for a long conversation, bench/loop_lag.py) held every other
    # request on the proxy's event loop.
    import threading

    from contextfold.compaction import _ledger

    threads: list[threading.Thread] = []
    build = _ledger.build_ledger

    def recorded(*args: Any, **kwargs: Any) -> _ledger.Ledger:
        threads.append(threading.current_thread())
        return build(*args, **kwargs)

    monkeypatch.setattr(_ledger, "build_ledger", recorded)
    raw = await openai_client(app).chat.completions.with_raw_response.create(
        model=MODEL, messages=openai_history(24)
    )
    assert raw.headers["x-contextfold-summary"] == "created"
    assert len(threads) == 1
    assert threads[0] is not threading.main_thread()


async def test_long_openai_conversation_arrives_compacted_and_valid(
    app: Starlette, upstream: Upstream
) -> None:
    client = openai_client(app)
    history = openai_history(24)
    raw = await client.chat.completions.with_raw_response.create(model=MODEL, messages=history)
    assert raw.parse().choices[0].message.content == "Hello from upstream"
    assert raw.headers["x-contextfold-compacted"] == "true"
    assert raw.headers["x-contextfold-summary"] == "created"
    before = int(raw.headers["x-contextfold-tokens-before"])
    after = int(raw.headers["x-contextfold-tokens-after"])
    assert before > 8_192 > after

    assert len(upstream.summaries) == 1
    summary_request = upstream.summaries[0]
    assert summary_request.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert summary_request.json["model"] == MODEL
    sent = upstream.chats[-1].json
    assert sent["messages"][0] == history[0]  # system prompt kept verbatim
    assert sent["messages"][-6:] == history[-6:]  # recent part kept verbatim
    messages = from_openai(sent["messages"])
    validate_history(messages)
    assert len(messages) < len(from_openai(history))
    assert "SUMMARY-1 (fresh)" in summary_texts(messages)[0]


async def test_next_request_reuses_the_cached_summary(app: Starlette, upstream: Upstream) -> None:
    client = openai_client(app)
    history = openai_history(24)
    await client.chat.completions.create(model=MODEL, messages=history)
    assert len(upstream.summaries) == 1
    history += [
        {"role": "assistant", "content": "Hello from upstream"},
        {"role": "user", "content": "and then?"},
    ]
    raw = await client.chat.completions.with_raw_response.create(model=MODEL, messages=history)
    assert raw.headers["x-contextfold-compacted"] == "true"
    assert raw.headers["x-contextfold-summary"] == "cached"
    assert len(upstream.summaries) == 1  # no second summarization
    sent = from_openai(upstream.chats[-1].json["messages"])
    validate_history(sent)
    assert "SUMMARY-1 (fresh)" in summary_texts(sent)[0]
    assert upstream.chats[-1].json["messages"][-8:] == history[-8:]


async def test_a_later_crossing_extends_the_summary_incrementally(
    app: Starlette, upstream: Upstream
) -> None:
    client = openai_client(app)
    preparer = app.state.forwarder.planner.preparer
    history = openai_history(24)

    async def turn() -> None:
        await client.chat.completions.create(model=MODEL, messages=history)
        # A summary prepared in the background finishes before the next turn, as it
        # does when the agent's model takes longer than the summarizer (otherwise the
        # clock decides which turn gets it).
        await asyncio.gather(*preparer._running.values(), return_exceptions=True)

    def grow(step: int) -> None:
        history.extend(
            [
                {"role": "assistant", "content": "done: " + "d" * 4_000},
                {"role": "user", "content": f"next step {step}: " + "n" * 4_000},
            ]
        )

    await turn()
    rounds = 0
    while len(upstream.summaries) == 1:
        grow(rounds)
        await turn()
        rounds += 1
        assert rounds < 20
    assert rounds > 1  # the first requests after the crossing reused the cache
    update = upstream.summaries[1]
    transcript = json.dumps(update.json["messages"])
    assert "summarized before" in update.json["messages"][0]["content"]
    assert "SUMMARY-1 (fresh)" in transcript  # the previous summary is the anchor
    # prepared ahead of the limit, the update is spliced once a turn reaches it
    for _ in range(10):
        sent = from_openai(upstream.chats[-1].json["messages"])
        validate_history(sent)
        if "SUMMARY-2 (update)" in summary_texts(sent)[0]:
            break
        grow(rounds)
        await turn()
        rounds += 1
    assert "SUMMARY-2 (update)" in summary_texts(sent)[0]
    assert len(upstream.summaries) == 2


async def test_long_anthropic_conversation_arrives_compacted_and_valid(
    app: Starlette, upstream: Upstream
) -> None:
    client = anthropic_client(app)
    history = anthropic_history(24)
    system = [{"type": "text", "text": "Be careful.", "cache_control": {"type": "ephemeral"}}]
    raw = await client.messages.with_raw_response.create(
        model=MODEL,
        max_tokens=100,
        system=system,
        messages=history,  # type: ignore[arg-type]
    )
    assert raw.headers["x-contextfold-compacted"] == "true"
    assert len(upstream.summaries) == 1
    # The SDK sends its key as a bearer token; the summary request carries the same one.
    assert anthropic_key_sent(upstream.summaries[0]) == ANTHROPIC_KEY
    sent = upstream.chats[-1].json
    assert sent["system"] == system  # kept verbatim, cache_control included
    assert sent["max_tokens"] == 100
    assert sent["messages"][-5:] == history[-5:]
    messages = from_anthropic(sent["messages"], sent["system"])
    validate_history(messages, "anthropic")
    assert "SUMMARY-1" in summary_texts(messages)[0]
    assert sent["messages"][0] == history[0]  # the task, kept word for word

    history += [
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "more"},
    ]
    async with client.messages.stream(
        model=MODEL,
        max_tokens=100,
        system=system,  # type: ignore[arg-type]
        messages=history,  # type: ignore[arg-type]
    ) as stream:
        text = "".join([t async for t in stream.text_stream])
    assert text == "Hello from upstream"
    assert len(upstream.summaries) == 1
    assert upstream.chats[-1].json["messages"][0] == history[0]
    assert "SUMMARY-1" in json.dumps(upstream.chats[-1].json["messages"][1])


async def test_concurrent_requests_share_one_summarization(
    app: Starlette, upstream: Upstream
) -> None:
    upstream.summary_delay = 0.05
    client = openai_client(app)
    history = openai_history(24)
    replies = await asyncio.gather(
        *[
            client.chat.completions.with_raw_response.create(model=MODEL, messages=history)
            for _ in range(4)
        ]
    )
    assert len(upstream.summaries) == 1
    assert {r.headers["x-contextfold-compacted"] for r in replies} == {"true"}
    assert len(upstream.chats) == 4


def diverging(history: list[dict[str, Any]], tag: str) -> list[dict[str, Any]]:
    """``history`` with the same system prompt and first request, different after that."""
    out = [dict(m) for m in history]
    for message in out[2:]:
        if message["role"] == "assistant" and isinstance(message.get("content"), str):
            message["content"] += tag
    return out


async def test_diverging_conversations_with_one_opening_compact_concurrently(
    app: Starlette, upstream: Upstream
) -> None:
    # N rollouts of one task: same system prompt and first message, then different.
    upstream.summary_delay = 0.05
    base = openai_history(24)
    histories = {tag: diverging(base, tag) for tag in "ABC"}
    twice = [*histories.values(), histories["A"]]  # and one identical request

    async def post(history: list[dict[str, Any]]) -> httpx2.Response:
        async with local(app) as client:
            return await client.post(
                "/v1/chat/completions",
                json={"model": MODEL, "messages": history},
                headers={"authorization": f"Bearer {OPENAI_KEY}"},
            )

    replies = await asyncio.gather(*[post(h) for h in twice])
    assert [r.status_code for r in replies] == [200] * 4
    assert {r.headers["x-contextfold-compacted"] for r in replies} == {"true"}
    assert len(upstream.summaries) == 3  # one per conversation, shared by the duplicate
    for seen in upstream.chats:
        sent = seen.json["messages"]
        tags = {m["content"][-1] for m in sent[1:] if m["role"] == "assistant" and m["content"]}
        assert len(tags) == 1  # a conversation never gets another one's tail
        validate_history(from_openai(sent))


async def test_a_failed_compaction_does_not_hold_back_a_diverging_conversation(
    app: Starlette, upstream: Upstream
) -> None:
    upstream.fail_summary = (500, {"error": {"message": "down", "type": "server_error"}})
    base = openai_history(24)
    client = openai_client(app)
    raw = await client.chat.completions.with_raw_response.create(
        model=MODEL, messages=diverging(base, "A")
    )
    assert "ProviderUnavailableError" in raw.headers["x-contextfold-error"]
    upstream.fail_summary = None
    raw = await client.chat.completions.with_raw_response.create(
        model=MODEL, messages=diverging(base, "B")
    )
    assert raw.headers["x-contextfold-compacted"] == "true"
    # the failed conversation itself backs off on its next request
    grown = [*diverging(base, "A"), {"role": "assistant", "content": "ok"}]
    grown.append({"role": "user", "content": "again"})
    raw = await client.chat.completions.with_raw_response.create(model=MODEL, messages=grown)
    assert "skipped after 1 failed attempt" in raw.headers["x-contextfold-error"]
    assert len(upstream.summaries) == 2


async def test_estimate_is_anchored_on_the_usage_the_upstream_reported(
    app: Starlette, upstream: Upstream
) -> None:
    client = openai_client(app)
    history = openai_history(8)  # counted: well under the limit
    upstream.usage_scale = 10.0  # but the upstream says the prompt is ten times bigger
    raw = await client.chat.completions.with_raw_response.create(model=MODEL, messages=history)
    assert raw.headers["x-contextfold-compacted"] == "false"
    history += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "go on"}]
    raw = await client.chat.completions.with_raw_response.create(model=MODEL, messages=history)
    assert raw.headers["x-contextfold-compacted"] == "true"
    assert int(raw.headers["x-contextfold-tokens-before"]) > 8_192
    assert len(upstream.summaries) == 1


async def test_streamed_usage_anchors_the_next_estimate(app: Starlette, upstream: Upstream) -> None:
    client = openai_client(app)
    history = openai_history(8)
    upstream.usage_scale = 10.0
    stream = await client.chat.completions.create(
        model=MODEL, messages=history, stream=True, stream_options={"include_usage": True}
    )
    async for _ in stream:
        pass
    history += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "go on"}]
    raw = await client.chat.completions.with_raw_response.create(model=MODEL, messages=history)
    assert raw.headers["x-contextfold-compacted"] == "true"


async def test_cached_summaries_survive_a_restart(make_app: MakeApp, upstream: Upstream) -> None:
    history = openai_history(24)
    await openai_client(await make_app()).chat.completions.create(model=MODEL, messages=history)
    assert len(upstream.summaries) == 1
    history += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "go on"}]
    raw = await openai_client(await make_app()).chat.completions.with_raw_response.create(
        model=MODEL, messages=history
    )
    assert raw.headers["x-contextfold-summary"] == "cached"
    assert len(upstream.summaries) == 1


@pytest.mark.parametrize(
    "changed",
    [
        {"instructions": "Keep every order id."},
        {"user_message_budget": 0},
        {"max_summary_tokens": 3_000},
    ],
)
async def test_a_restart_with_other_summary_settings_does_not_splice_old_summaries(
    make_app: MakeApp, upstream: Upstream, changed: dict[str, Any]
) -> None:
    """The cache outlives the process; a summary made under other prompts, instructions,
    verbatim or summary budget is not what the operator now asks for: not spliced."""
    history = openai_history(24)
    await openai_client(await make_app()).chat.completions.create(model=MODEL, messages=history)
    assert len(upstream.summaries) == 1
    history += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "go on"}]
    raw = await openai_client(await make_app(**changed)).chat.completions.with_raw_response.create(
        model=MODEL, messages=history
    )
    assert raw.headers["x-contextfold-summary"] == "created"
    assert len(upstream.summaries) == 2


async def test_summary_model_is_used_for_summaries(make_app: MakeApp, upstream: Upstream) -> None:
    app = await make_app(summary_model="cheap-model")
    await openai_client(app).chat.completions.create(model=MODEL, messages=openai_history(24))
    assert upstream.summaries[0].json["model"] == "cheap-model"
    assert upstream.chats[-1].json["model"] == MODEL


# -- failures -------------------------------------------------------------------------


async def test_summarization_failure_forwards_the_original(
    app: Starlette, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    upstream.fail_summary = (500, {"error": {"message": "summarizer down", "type": "server_error"}})
    raw = json.dumps({"model": MODEL, "messages": openai_history(24)}).encode()
    async with local(app) as client:
        reply = await client.post(
            "/v1/chat/completions",
            content=raw,
            headers={"authorization": f"Bearer {OPENAI_KEY}"},
        )
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert "ProviderUnavailableError" in reply.headers["x-contextfold-error"]
    assert upstream.chats[-1].raw == raw
    assert len(upstream.summaries) == 1
    assert "summarization failed" in caplog.text


def summaries_raise_cancelled_error(upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on the summarizer's HTTP stack raises CancelledError on its own (as some
    libraries do on their internal timeouts): nothing cancelled the proxy's request."""

    async def cancelled_on_its_own(seen: Seen) -> Any:
        upstream.summaries.append(seen)
        raise asyncio.CancelledError

    monkeypatch.setattr(upstream, "_summary_reply", cancelled_on_its_own)


async def test_a_summarizer_raising_cancelled_error_forwards_the_original(
    app: Starlette, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    summaries_raise_cancelled_error(upstream, monkeypatch)
    raw = json.dumps({"model": MODEL, "messages": openai_history(24)}).encode()
    async with local(app) as client:
        reply = await client.post(
            "/v1/chat/completions",
            content=raw,
            headers={"authorization": f"Bearer {OPENAI_KEY}"},
        )
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert "CancelledError" in reply.headers["x-contextfold-error"]
    assert upstream.chats[-1].raw == raw
    assert len(upstream.summaries) == 1


async def test_upstream_errors_pass_through(app: Starlette, upstream: Upstream) -> None:
    client = openai_client(app)
    for status, kind in ((429, openai.RateLimitError), (500, openai.InternalServerError)):
        body = {"error": {"message": f"status {status}", "type": "x", "code": None}}
        upstream.fail_chat = (status, body, {"retry-after": "7"})
        with pytest.raises(kind) as caught:
            await client.chat.completions.create(model=MODEL, messages=openai_history(1))
        assert caught.value.status_code == status
        assert caught.value.body == body["error"]
        assert caught.value.response.headers["retry-after"] == "7"

    upstream.fail_chat = (429, {"type": "error", "error": {"type": "rate_limit_error"}}, {})
    with pytest.raises(anthropic.RateLimitError):
        await anthropic_client(app).messages.create(
            model=MODEL, max_tokens=10, messages=anthropic_history(1)
        )


@pytest.mark.parametrize(
    ("path", "body", "needle"),
    [
        ("/v1/chat/completions", b"{not json", "not valid JSON"),
        ("/v1/chat/completions", b"[1, 2]", "JSON object"),
        ("/v1/chat/completions", b'{"model": "m", "messages": "hi"}', "'messages'"),
        ("/v1/chat/completions", b'{"messages": []}', "'model'"),
        ("/v1/messages", b'{"model": 5, "messages": []}', "'model'"),
        ("/v1/messages", b'{"model": "m"}', "'messages'"),
        ("/v1/chat/completions", b'{"model": "m", "x": ' + b"[" * 100_000, "nested too deeply"),
        ("/v1/messages", b'{"model": "m", "n": ' + b"9" * 5_000 + b"}", "not valid JSON"),
    ],
)
async def test_malformed_requests_get_400(
    app: Starlette, upstream: Upstream, path: str, body: bytes, needle: str
) -> None:
    async with local(app) as client:
        reply = await client.post(path, content=body)
    assert reply.status_code == 400
    error = reply.json()
    if path == "/v1/messages":
        assert error["type"] == "error"
        assert error["error"]["type"] == "invalid_request_error"
    else:
        assert error["error"]["type"] == "invalid_request_error"
    assert needle in error["error"]["message"]
    assert not upstream.seen


_USER_TEXT = {"type": "text", "text": "what is in here?"}


def near_limit(body: dict[str, Any]) -> bytes:
    """``body``, padded so its size in bytes no longer shows it far under the limit.

    (A body whose bytes show that is forwarded without being parsed at all.)
    """
    return json.dumps({**body, "metadata": {"pad": "p" * 20_000}}).encode()


UNMODELED: list[tuple[str, dict[str, Any]]] = [
    # Valid requests whose content contextfold.formats does not model.
    ("/v1/chat/completions", {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}),
    ("/v1/chat/completions", {"type": "file", "file": {"file_id": "file-abc"}}),
    (
        "/v1/chat/completions",
        {"type": "input_audio", "input_audio": {"data": "AA", "format": "wav"}},
    ),
    ("/v1/messages", {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}}),
    ("/v1/messages", {"type": "image", "source": {"type": "file", "file_id": "file_1"}}),
    (
        "/v1/messages",
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="},
        },
    ),
]


@pytest.mark.parametrize(("path", "part"), UNMODELED)
async def test_requests_with_content_the_proxy_does_not_model_are_compacted_carrying_it(
    app: Starlette, upstream: Upstream, path: str, part: dict[str, Any]
) -> None:
    # Model what you need, carry the rest: on today's main these were forwarded
    # uncompacted ("the proxy does not model this request's content").
    history = openai_history(24) if path == "/v1/chat/completions" else anthropic_history(24)
    old = {"role": "user", "content": [dict(part), {"type": "text", "text": "an old one"}]}
    recent = {"role": "user", "content": [dict(part), {"type": "text", "text": "look at this"}]}
    at = 5 if path == "/v1/chat/completions" else 4  # after the first round (the task's)
    history = [*history[:at], old, {"role": "assistant", "content": "seen"}, *history[at:]]
    history.append(recent)
    body = {"model": MODEL, "max_tokens": 10, "messages": history}
    async with local(app) as client:
        reply = await client.post(
            path, json=body, headers={"authorization": f"Bearer {OPENAI_KEY}", "x-api-key": "k"}
        )
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "true", reply.headers.get(
        "x-contextfold-error"
    )
    sent = upstream.chats[-1].json["messages"]
    assert sent[-1] == recent  # kept: carried byte for byte
    assert old not in sent  # summarized: the summarizer saw a placeholder naming it
    (summary_request,) = upstream.summaries
    assert f"[{part['type']}" in json.dumps(summary_request.json)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        # Not well formed inside: the upstream, not the proxy, says what is wrong.
        ("/v1/chat/completions", {"model": MODEL, "messages": [{"role": ["robot"]}]}),
        ("/v1/messages", {"model": MODEL, "messages": [{"role": "user", "content": 5}]}),
        ("/v1/messages", {"model": MODEL, "system": 3, "messages": []}),
    ],
)
async def test_histories_the_proxy_cannot_read_reach_the_upstream_byte_identical(
    app: Starlette, upstream: Upstream, path: str, body: dict[str, Any]
) -> None:
    raw = near_limit(body)
    async with local(app) as client:
        reply = await client.post(path, content=raw)
    assert reply.status_code == 200
    assert upstream.seen[-1].raw == raw
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert reply.headers["x-contextfold-error"].startswith("not compacted")


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
@pytest.mark.parametrize("role", [["user"], {"role": "user"}, 7, None, True])
@pytest.mark.parametrize("parsed", [False, True], ids=["fast-path", "parsed"])
async def test_a_role_of_the_wrong_type_reaches_the_upstream_unchanged(
    app: Starlette, upstream: Upstream, path: str, role: Any, parsed: bool
) -> None:
    # Issue 12.4: a role that is a list or an object made the OpenAI route answer a
    # plain-text 500, but only for bodies big enough to be parsed (over ~190 KB under
    # ``contextfold serve``'s defaults; over ~16 KB with these settings).
    history = [*openai_history(1), {"role": role, "content": "x"}]
    if path == "/v1/messages":
        history = [*anthropic_history(1), {"role": role, "content": "x"}]
    body = {"model": MODEL, "max_tokens": 10, "messages": history}
    raw = near_limit(body) if parsed else json.dumps(body).encode()
    async with local(app) as client:
        reply = await client.post(path, content=raw, headers={"x-api-key": ANTHROPIC_KEY})
    assert reply.status_code == 200
    assert upstream.seen[-1].raw == raw
    assert reply.headers["x-contextfold-compacted"] == "false"
    if parsed:
        assert reply.headers["x-contextfold-error"].startswith("not compacted")


def nested_results(depth: int) -> list[Any]:
    content: list[Any] = [{"type": "text", "text": "leaf"}]
    for i in range(depth):
        content = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": content}]
    return content


@pytest.mark.parametrize("depth", [60, 400])
async def test_deeply_nested_histories_reach_the_upstream_unchanged(
    app: Starlette, upstream: Upstream, caplog: pytest.LogCaptureFixture, depth: int
) -> None:
    # 400 tool results in tool results (800 JSON levels: json reads them) made the
    # parser recurse past Python's limit: a RecursionError, a 500.
    history = anthropic_history(20)
    history[0]["content"] = nested_results(depth)
    raw = json.dumps({"model": MODEL, "max_tokens": 10, "messages": history}).encode()
    async with local(app) as client:
        reply = await client.post("/v1/messages", content=raw, headers={"x-api-key": "k-1"})
    assert reply.status_code == 200
    assert upstream.seen[-1].raw == raw
    assert reply.headers["x-contextfold-error"].startswith("not compacted")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize(
    ("sent", "forwarded"),
    [
        ("/v1/models%00/x", b"/v1/models%00/x"),  # issue 12.4: was a plain-text 500
        ("/v1/files/a%2Fb", b"/v1/files/a%2Fb"),  # an encoded slash is no separator
        ("/v1/models%2F..%2Fadmin", b"/v1/models%2F..%2Fadmin"),
        ("/v1/files/%C3%A9t%C3%A9%20x", b"/v1/files/%C3%A9t%C3%A9%20x"),
        ("/v1/files/%ff%fe", b"/v1/files/%ff%fe"),  # not UTF-8: relayed, not replaced
        ("/v1/files/%7Ea", b"/v1/files/~a"),  # an unreserved character, decoded
    ],
)
async def test_paths_reach_the_upstream_as_the_client_encoded_them(
    app: Starlette, upstream: Upstream, sent: str, forwarded: bytes
) -> None:
    async with local(app) as client:
        reply = await client.get(sent + "?q=a%00b%26c&r=%2F")
    assert reply.status_code == 200
    assert upstream.seen[-1].raw_path == forwarded
    assert upstream.seen[-1].query == "q=a%00b%26c&r=%2F"


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
@pytest.mark.parametrize(
    "raw",
    [
        b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800 lone"}]}',
        b'{"model": "\\ud800", "messages": [{"role": "user", "content": "x"}]}',
        b'{"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": NaN}',
        b'{"model": "m", "messages": [{"role": "user", "content": "x"}], "top_p": 1e999}',
    ],
)
async def test_odd_but_readable_json_is_forwarded_byte_identical(
    app: Starlette, upstream: Upstream, path: str, raw: bytes
) -> None:
    async with local(app) as client:
        reply = await client.post(path, content=raw)
    assert reply.status_code == 200
    assert upstream.seen[-1].raw == raw
    assert reply.headers["x-contextfold-compacted"] == "false"


async def test_a_rewrite_json_cannot_carry_falls_back_to_the_original_bytes(
    app: Starlette, upstream: Upstream
) -> None:
    body = json.dumps({"model": MODEL, "messages": openai_history(24)})
    raw = (body[:-1] + ', "temperature": NaN}').encode()
    async with local(app) as client:
        reply = await client.post(
            "/v1/chat/completions",
            content=raw,
            headers={"authorization": f"Bearer {OPENAI_KEY}"},
        )
    assert reply.status_code == 200
    assert len(upstream.summaries) == 1  # the history was over the limit
    assert upstream.chats[-1].raw == raw
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert "NaN or infinity" in reply.headers["x-contextfold-error"]


async def test_requests_far_under_the_limit_are_forwarded_without_parsing(
    app: Starlette, upstream: Upstream
) -> None:
    text = {"type": "text", "text": "t" * 1_000}
    message = {"role": "user", "content": [{"type": ["malformed"]}, text]}
    small = json.dumps({"model": MODEL, "messages": [message]}).encode()
    async with local(app) as client:
        reply = await client.post("/v1/chat/completions", content=small)
        assert upstream.seen[-1].raw == small
        assert reply.headers["x-contextfold-compacted"] == "false"
        assert int(reply.headers["x-contextfold-tokens-before"]) > 0
        assert "x-contextfold-error" not in reply.headers  # never parsed: nothing to say

        # The upstream reports prompts far denser in tokens than their bytes: from
        # then on, bodies of that size are parsed (and may be anchored, compacted).
        upstream.usage_scale = 16.0
        await client.post(
            "/v1/chat/completions",
            json={"model": MODEL, "messages": [{"role": "user", "content": "x" * 2_000}]},
        )
        reply = await client.post("/v1/chat/completions", content=small)
        assert "does not model" in reply.headers["x-contextfold-error"]


async def test_oversized_bodies_get_413(make_app: MakeApp, upstream: Upstream) -> None:
    app = await make_app(max_body_bytes=1_000)
    big = json.dumps({"model": MODEL, "messages": openai_history(2)}).encode()
    async with local(app) as client:
        reply = await client.post("/v1/chat/completions", content=big)
        assert reply.status_code == 413
        assert "1000 bytes" in reply.json()["error"]["message"]
        reply = await client.post("/v1/messages", content=big)
        assert reply.status_code == 413
        assert reply.json()["error"]["type"] == "request_too_large"
        reply = await client.post("/v1/embeddings", content=big)
        assert reply.status_code == 413
    assert not upstream.seen


async def test_unreachable_upstream_is_a_502(make_app: MakeApp) -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    dead = httpx2.AsyncClient(transport=httpx2.MockTransport(refuse))
    app = await make_app(http_client=dead)
    with pytest.raises(openai.APIStatusError) as caught:
        await openai_client(app).chat.completions.create(model=MODEL, messages=openai_history(1))
    assert caught.value.status_code == 502
    assert "could not be reached" in str(caught.value.body)


# -- secrets, headers, other routes ---------------------------------------------------


async def test_api_keys_never_reach_logs_or_the_database(
    make_app: MakeApp, upstream: Upstream, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    app = await make_app()
    await openai_client(app).chat.completions.create(model=MODEL, messages=openai_history(24))
    await anthropic_client(app).messages.create(
        model=MODEL, max_tokens=10, messages=anthropic_history(24)
    )
    upstream.fail_summary = (401, {"error": {"message": f"bad key {OPENAI_KEY}"}})
    history = openai_history(30)
    history[1]["content"] = "a different conversation"
    await openai_client(app).chat.completions.create(model=MODEL, messages=history)
    assert len(upstream.summaries) == 3
    assert "compacted a test-model request" in caplog.text
    files = stored_files(tmp_path)
    assert "proxy.db" in files
    for key in (OPENAI_KEY, ANTHROPIC_KEY):
        assert key not in caplog.text
        for name, data in files.items():
            assert key.encode() not in data, name


async def test_failure_header_never_carries_the_key(app: Starlette, upstream: Upstream) -> None:
    upstream.fail_summary = (400, {"error": {"message": f"key {OPENAI_KEY} is invalid"}})
    raw = await openai_client(app).chat.completions.with_raw_response.create(
        model=MODEL, messages=openai_history(24)
    )
    assert "x-contextfold-error" in raw.headers
    assert OPENAI_KEY not in raw.headers["x-contextfold-error"]


OPERATOR_ENV = {
    "OPENAI_API_KEY": "sk-OPERATOR-ENV-openai",
    "OPENAI_ORG_ID": "org-OPERATOR-ENV",
    "OPENAI_PROJECT_ID": "proj-OPERATOR-ENV",
    "ANTHROPIC_API_KEY": "sk-ant-OPERATOR-ENV-key",
    "ANTHROPIC_AUTH_TOKEN": "OPERATOR-ENV-token",
}


@pytest.fixture
def operator_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in OPERATOR_ENV.items():
        monkeypatch.setenv(name, value)


def anthropic_key_sent(seen: Any) -> str | None:
    """The Anthropic API key a request carried: anthropic 1.x sends it as ``x-api-key``,
    later releases as a bearer token; either is the caller's own key."""
    bearer = seen.headers.get("authorization", "").removeprefix("Bearer ")
    return seen.headers.get("x-api-key") or bearer or None


def carries_operator_env(seen: Any) -> bool:
    return any(value in str(seen.headers) for value in OPERATOR_ENV.values())


@pytest.mark.usefixtures("operator_env")
@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/v1/chat/completions", {}),
        ("/v1/chat/completions", {"api-key": "azure-style-key"}),  # not a credential we use
        ("/v1/messages", {}),
        ("/v1/messages", {"authorization": "Basic dXNlcjpwYXNz"}),
    ],
)
async def test_no_summary_without_the_callers_credentials(
    app: Starlette, upstream: Upstream, path: str, headers: dict[str, str]
) -> None:
    # The proxy's own environment holds keys; a caller without one must not spend them.
    history = openai_history(24) if path.endswith("completions") else anthropic_history(24)
    raw = json.dumps({"model": MODEL, "max_tokens": 10, "messages": history}).encode()
    async with local(app) as client:
        reply = await client.post(path, content=raw, headers=headers)
    assert reply.status_code == 200
    assert not upstream.summaries
    assert upstream.chats[-1].raw == raw
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert "no API key" in reply.headers["x-contextfold-error"]
    assert not carries_operator_env(upstream.chats[-1])


@pytest.mark.usefixtures("operator_env")
async def test_summaries_use_only_the_callers_credentials(
    app: Starlette, upstream: Upstream
) -> None:
    # (raw requests: a stock SDK client would itself send the environment's ids)
    requests = [
        ("/v1/chat/completions", openai_history(24), {"authorization": f"Bearer {OPENAI_KEY}"}),
        ("/v1/messages", anthropic_history(24), {"x-api-key": ANTHROPIC_KEY}),
        (  # an Anthropic OAuth bearer token
            "/v1/messages",
            diverging(anthropic_history(24), "O"),
            {"authorization": "Bearer client-oauth-token"},
        ),
    ]
    async with local(app) as client:
        for path, history, headers in requests:
            body = {"model": MODEL, "max_tokens": 10, "messages": history}
            reply = await client.post(path, json=body, headers=headers)
            assert reply.headers["x-contextfold-summary"] == "created"
    openai_summary, anthropic_summary, oauth_summary = upstream.summaries
    assert openai_summary.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert anthropic_key_sent(anthropic_summary) == ANTHROPIC_KEY
    assert oauth_summary.headers["authorization"] == "Bearer client-oauth-token"
    for seen in upstream.summaries:
        assert not carries_operator_env(seen), seen.headers
    assert "x-api-key" not in openai_summary.headers
    assert "x-api-key" not in oauth_summary.headers


async def test_the_proxy_scrubs_the_callers_bearer_token(
    app: Starlette, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    # An OAuth bearer token is no SDK api_key and does not look like a key: it is
    # known as the caller's credential, by value (tests/test_secret_leaks.py goes further).
    token = "client-oauth-SECRET-4d3c2b1a"
    upstream.fail_summary = (401, {"error": {"message": f"token {token} has expired"}})
    async with local(app) as client:
        reply = await client.post(
            "/v1/messages",
            json={"model": MODEL, "max_tokens": 10, "messages": anthropic_history(24)},
            headers={"authorization": f"Bearer {token}"},
        )
    error = reply.headers["x-contextfold-error"]
    assert "token [REDACTED] has expired" in error
    assert token not in error
    assert token not in caplog.text
    assert "summarization failed" in caplog.text


async def test_hop_by_hop_headers_are_not_forwarded(app: Starlette, upstream: Upstream) -> None:
    async with local(app) as client:
        reply = await client.get(
            "/v1/models?limit=5",
            headers={
                "authorization": f"Bearer {OPENAI_KEY}",
                "connection": "keep-alive, x-private-hop",
                "x-private-hop": "secret-route",
                "proxy-authorization": "Basic abc",
                "x-custom": "kept",
            },
        )
    assert reply.status_code == 200
    assert reply.json()["data"][0]["id"] == "test-model"
    seen = upstream.seen[-1]
    assert (seen.path, seen.query) == ("/v1/models", "limit=5")
    assert seen.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert seen.headers["x-custom"] == "kept"
    assert seen.headers["host"] == "upstream.test"
    for name in ("x-private-hop", "proxy-authorization"):
        assert name not in seen.headers
    assert reply.headers["x-upstream"] == "yes"
    assert "x-upstream-hop" not in reply.headers
    assert "x-contextfold-compacted" not in reply.headers  # only chat routes report


NOTE = "modèle ✓ 模型".encode()  # obs-text: legal header bytes outside ASCII


@pytest.mark.parametrize(
    ("method", "path"), [("POST", "/v1/chat/completions"), ("GET", "/v1/models")]
)
async def test_header_bytes_outside_ascii_are_relayed_both_ways(
    make_app: MakeApp, method: str, path: str
) -> None:
    received: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        received.append(request)
        return httpx2.Response(200, json={"ok": True}, headers=[(b"x-upstream-note", NOTE)])

    app = await make_app(http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(answer)))
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
    async with local(app) as client:
        reply = await client.request(
            method,
            path,
            json=body if method == "POST" else None,
            headers=[(b"x-user-name", "José".encode())],
        )
    assert reply.status_code == 200
    assert reply.json() == {"ok": True}
    assert (b"x-upstream-note", NOTE) in reply.headers.raw
    assert (b"x-user-name", "José".encode()) in [
        (n.lower(), v) for n, v in received[-1].headers.raw
    ]


async def test_other_routes_go_to_the_upstream_of_their_dialect(
    make_app: MakeApp, upstream: Upstream
) -> None:
    app = await make_app(
        upstream_openai="http://upstream.test/v1/openai-side",
        upstream_anthropic="http://upstream.test/v1/anthropic-side",
    )
    async with local(app) as client:
        await client.post("/v1/embeddings", json={"input": "x"})
        await client.post("/v1/messages/count_tokens", json={"messages": []})
        await client.get("/v1/models", headers={"anthropic-version": "2023-06-01"})
        await client.delete("/v1/files/abc")
    paths = [s.path for s in upstream.seen]
    assert paths == [
        "/v1/openai-side/embeddings",
        "/v1/anthropic-side/v1/messages/count_tokens",
        "/v1/anthropic-side/v1/models",
        "/v1/openai-side/files/abc",
    ]


def test_bad_settings_raise_value_error() -> None:
    with pytest.raises(ValueError, match="threshold"):
        create_app(settings=CompactionSettings(threshold=1.5))
    with pytest.raises(ValueError, match="upstream_openai"):
        create_app(upstream_openai="ftp://x")
    with pytest.raises(ValueError, match="max_body_bytes"):
        create_app(options=ProxyOptions(max_body_bytes=0))
    with pytest.raises(ValueError, match="keep_recent"):
        create_app(settings=CompactionSettings(keep_recent=0))


async def test_kept_messages_are_forwarded_with_fields_formats_does_not_model(
    app: Starlette, upstream: Upstream
) -> None:
    history = openai_history(24)
    history[-1] = {"role": "user", "content": "what next?", "name": "alice"}
    await openai_client(app).chat.completions.create(model=MODEL, messages=history)
    sent = upstream.chats[-1].json["messages"]
    assert sent[-1] == {"role": "user", "content": "what next?", "name": "alice"}


def test_prefix_hashes_identify_exactly_their_prefix() -> None:
    from contextfold.blocks import TextBlock
    from contextfold.messages import Message
    from contextfold.proxy._cache import chain_hashes

    base = [Message.system("s"), Message.user("hello"), Message.assistant("hi"), Message.user("q")]
    chain = chain_hashes("m", base)
    assert len(chain) == 5
    assert len(set(chain)) == 5
    assert chain_hashes("m", base[:2]) == chain[:3]
    changed = chain_hashes("m", [*base[:2], Message.assistant("hi!"), base[3]])
    assert changed[:3] == chain[:3]
    assert changed[3] != chain[3]
    assert chain_hashes("other", base)[0] != chain[0]
    split = Message("user", [TextBlock("hel"), TextBlock("lo")])
    assert chain_hashes("m", [split]) != chain_hashes("m", [Message.user("hello")])


async def test_any_httpx2_transport_can_be_the_upstream(make_app: MakeApp) -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"usage": {"prompt_tokens": 8}, "seen": request.url.path})

    app = await make_app(http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(answer)))
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
    async with local(app) as client:
        reply = await client.post("/v1/chat/completions", json=body)
    assert reply.json()["seen"] == "/v1/chat/completions"
    assert reply.headers["x-contextfold-compacted"] == "false"


def test_history_memo_parses_and_hashes_only_what_a_growing_history_adds() -> None:
    from contextfold.proxy._cache import chain_hashes
    from contextfold.proxy._memo import HistoryMemo

    memo = HistoryMemo()
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    wire: list[dict[str, Any]] = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
    ]
    first = memo.parse(CHAT, "m", wire)
    assert (memo.parses, memo.hashed) == (4, 4)
    # a second tool result merges into the message before it: parsing and hashing
    # resume at the first tool message
    grown = [*wire, {"role": "tool", "tool_call_id": "c1", "content": "two"}]
    grown += [{"role": "assistant", "content": "done"}, {"role": "user", "content": "next"}]
    second = memo.parse(CHAT, "m", grown)
    assert second.messages == from_openai(grown)
    assert second.chain == chain_hashes("m", from_openai(grown))
    assert first.messages == from_openai(wire)
    assert (memo.parses, memo.hashed) == (4 + 4, 4 + 3)
    again = memo.parse(CHAT, "m", grown)  # a retry parses nothing
    assert again.chain == second.chain
    assert (memo.parses, memo.hashed) == (8, 7)
    # a diverging branch reuses the common part; a bad message raises formats' error
    branch = [*grown[:5], {"role": "assistant", "content": "other"}]
    assert memo.parse(CHAT, "m", branch).chain == chain_hashes("m", from_openai(branch))
    assert memo.parses == 9
    with pytest.raises(ValueError, match="message 7 field 'role' must be a string"):
        memo.parse(CHAT, "m", [*grown, {"role": ["robot"]}])


def test_history_memo_matches_formats_for_anthropic_histories() -> None:
    from contextfold.proxy._cache import chain_hashes
    from contextfold.proxy._memo import HistoryMemo

    memo = HistoryMemo()
    wire: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    for turn in range(5):
        wire = [*wire, {"role": "assistant", "content": f"a{turn}"}]
        wire = [*wire, {"role": "user", "content": [{"type": "text", "text": f"u{turn}"}]}]
        got = memo.parse(MESSAGES, "m", wire, "sys")
        assert got.messages == from_anthropic(wire, "sys")
        assert got.chain == chain_hashes("m", from_anthropic(wire, "sys"))
    assert memo.parses == len(wire)
    other = memo.parse(MESSAGES, "m", wire, "another system")
    assert other.messages[0].text == "another system"
    assert memo.parses == 2 * len(wire)


async def test_instructions_reach_the_summarizer_and_cached_summaries_keep_the_users_words(
    make_app: MakeApp, upstream: Upstream
) -> None:
    app = await make_app(instructions="Keep every request number.", user_message_budget=1_000)
    client = openai_client(app)
    history = openai_history(24, chars=300)
    history[1]["content"] = "request 0: when you summarize, keep the request numbers."
    history += openai_history(24, chars=300)[1:]
    await client.chat.completions.create(model=MODEL, messages=history)
    [summary_request] = upstream.summaries
    body = json.dumps(summary_request.json)
    assert "Keep every request number." in body
    assert "when you summarize, keep the request numbers." in body
    created = summary_texts(from_openai(upstream.chats[-1].json["messages"]))[0]
    assert "<user-messages>" in created  # the user's newest words, verbatim
    history += [
        {"role": "assistant", "content": "Hello from upstream"},
        {"role": "user", "content": "and then?"},
    ]
    raw = await client.chat.completions.with_raw_response.create(model=MODEL, messages=history)
    assert raw.headers["x-contextfold-summary"] == "cached"
    assert summary_texts(from_openai(upstream.chats[-1].json["messages"]))[0] == created


# -- what a summary says ---------------------------------------------------------------


@pytest.mark.parametrize("recall", [False, True])
async def test_a_summary_names_the_recall_tool_only_where_it_is_offered(
    make_app: MakeApp, upstream: Upstream, recall: bool
) -> None:
    # Today's main ended every spliced summary with "Recallable originals (the recall
    # tool returns them by handle)", also without --recall: a tool nobody offered.
    app = await make_app(recall=recall)
    history = openai_history(24, chars=2_500)  # outputs long enough to be listed
    async with local(app) as client:
        reply = await client.post(
            "/v1/chat/completions",
            json={"model": MODEL, "messages": history},
            headers={"authorization": f"Bearer {OPENAI_KEY}"},
        )
    assert reply.headers["x-contextfold-compacted"] == "true"
    sent = upstream.chats[-1].json
    summary = next(m["content"] for m in sent["messages"] if "SUMMARY-" in str(m["content"]))
    assert ("recall tool" in summary) == recall
    assert ("out-" in summary) == recall
    offered = any(t["function"]["name"] == "recall" for t in sent.get("tools", []))
    assert offered == recall


# -- one meaning per setting (issue 25, item 1: the proxy drifted from the library) ---------


async def test_summary_timeout_bounds_the_proxys_summaries(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # Today's main accepted settings=CompactionSettings(summary_timeout=...) and ignored
    # it: a summarizer that never answers held the request (40.8 s in the run).
    from contextfold.compaction import CompactionSettings

    upstream.summary_gate = asyncio.Event()  # never set: the summarizer never answers
    app = await make_app(settings=CompactionSettings(summary_timeout=0.5))
    async with local(app) as client:
        reply = await asyncio.wait_for(
            client.post(
                "/v1/chat/completions",
                json={"model": MODEL, "messages": openai_history(24)},
                headers={"authorization": f"Bearer {OPENAI_KEY}"},
            ),
            timeout=30,
        )
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert "summary_timeout=0.5s" in reply.headers["x-contextfold-error"]
    assert upstream.chats[-1].json["messages"] == openai_history(24)  # forwarded as sent


@pytest.mark.parametrize(("max_backoff", "attempts"), [(1, 6), (2, 5), (32, 4)])
async def test_max_backoff_bounds_the_skipped_requests(
    make_app: MakeApp, upstream: Upstream, max_backoff: int, attempts: int
) -> None:
    # Today's main hard-coded 32: max_backoff=1 and max_backoff=16 both made 4 attempts
    # in 12 over-limit requests. Failures skip 1, 2, 4 ... at most max_backoff requests.
    from contextfold.compaction import CompactionSettings

    upstream.fail_summary = (500, {"error": {"message": "down", "type": "server_error"}})
    settings = CompactionSettings(max_backoff=max_backoff, prepare_threshold=None)
    app = await make_app(settings=settings)
    history = openai_history(24)
    async with local(app) as client:
        for turn in range(12):
            await client.post(
                "/v1/chat/completions",
                json={"model": MODEL, "messages": history},
                headers={"authorization": f"Bearer {OPENAI_KEY}"},
            )
            history = [*history, {"role": "assistant", "content": f"ok {turn}"}]
            history.append({"role": "user", "content": "more"})
    assert len(upstream.summaries) == attempts
