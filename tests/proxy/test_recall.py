"""The proxy's recall loop: the tool is added to compacted requests, answered by the proxy,
bounded, and never seen by the client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from starlette.applications import Starlette

from contextfold.proxy import ProxyOptions, create_app
from contextfold.proxy._recall import LIMIT_NOTE, MAX_ROUNDS
from tests._proxy_upstream import ProxyApps, Upstream, anthropic_history, openai_history

KEY = "sk-test-recall-0123456789"
MODEL = "test-model"
FACT = "the staging database password rotates on Tuesdays"
# context_window 32,768 x threshold 0.25: compaction above ~8,192 estimated tokens.
SETTINGS: dict[str, Any] = {"context_window": 32_768, "threshold": 0.25, "summary_max_retries": 0}


def with_fact(history: list[dict[str, Any]], dialect: str) -> list[dict[str, Any]]:
    """``history`` whose first tool output is a long file holding :data:`FACT` at its top."""
    output = f"# {FACT}\n" + "\n".join(f"setting_{i} = {i}" for i in range(250))
    for message in history:
        if dialect == "openai" and message.get("role") == "tool":
            message["content"] = output
            return history
        content = message.get("content")
        if (
            dialect == "anthropic"
            and isinstance(content, list)
            and content[0]["type"] == "tool_result"
        ):
            content[0]["content"] = output
            return history
    raise AssertionError("no tool output")


@pytest.fixture
async def proxy(tmp_path: Path) -> AsyncIterator[tuple[Upstream, Any]]:
    upstream = Upstream(recall="once")
    apps = ProxyApps(upstream)

    async def make(**overrides: Any) -> Starlette:
        return await apps.make(
            upstream_openai="http://upstream.test/v1",
            upstream_anthropic="http://upstream.test",
            db=tmp_path / f"proxy{len(apps)}.db",
            **{**SETTINGS, "recall": True, **overrides},
        )

    yield upstream, make
    await apps.close()


def local(app: Starlette) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test")


def tool_names(seen_json: dict[str, Any]) -> list[str]:
    return [(t.get("function") or t)["name"] for t in seen_json.get("tools") or []]


async def test_openai_the_proxy_answers_the_recall_call_and_returns_only_the_final_answer(
    proxy: tuple[Upstream, Any],
) -> None:
    upstream, make = proxy
    app = await make()
    client = openai.AsyncOpenAI(
        api_key=KEY, base_url="http://proxy.test/v1", http_client=local(app), max_retries=0
    )
    history = with_fact(openai_history(20), "openai")
    raw = await client.chat.completions.with_raw_response.create(model=MODEL, messages=history)
    reply = raw.parse()
    assert raw.headers["x-contextfold-compacted"] == "true"
    assert raw.headers["x-contextfold-recalls"] == "1"
    message = reply.choices[0].message
    assert message.tool_calls is None
    assert reply.choices[0].finish_reason == "stop"
    assert message.content is not None
    assert message.content.startswith(f"Recalled: # {FACT}")
    first, second = upstream.chats
    assert tool_names(first.json) == ["recall"]
    assert FACT not in json.dumps(first.json)  # the summary replaced it upstream
    assert second.json["messages"][-1]["role"] == "tool"
    assert FACT in second.json["messages"][-1]["content"]


async def test_anthropic_streaming_is_buffered_and_replayed_without_the_tool(
    proxy: tuple[Upstream, Any],
) -> None:
    upstream, make = proxy
    app = await make()
    client = anthropic.AsyncAnthropic(
        api_key=KEY, base_url="http://proxy.test", http_client=local(app), max_retries=0
    )
    history = with_fact(anthropic_history(20), "anthropic")
    tools = [{"name": "read_file", "description": "read", "input_schema": {"type": "object"}}]
    async with client.messages.stream(
        model=MODEL, max_tokens=100, system="Be careful.", messages=history, tools=tools
    ) as stream:
        text = "".join([t async for t in stream.text_stream])
        final = await stream.get_final_message()
    assert text.startswith(f"Recalled: # {FACT}")
    assert [b.type for b in final.content] == ["text"]
    assert final.stop_reason == "end_turn"
    first, second = upstream.chats
    assert tool_names(first.json) == ["read_file", "recall"]
    assert first.json["stream"] is False
    assert second.json["messages"][-1]["content"][0]["type"] == "tool_result"


async def test_the_loop_ends_after_max_rounds_and_the_tool_never_reaches_the_client(
    proxy: tuple[Upstream, Any],
) -> None:
    upstream, make = proxy
    upstream.recall = "always"
    app = await make()
    body = {"model": MODEL, "messages": with_fact(openai_history(20), "openai")}
    async with local(app) as client:
        reply = await client.post(
            "/v1/chat/completions", json=body, headers={"authorization": f"Bearer {KEY}"}
        )
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-recalls"] == str(MAX_ROUNDS)
    assert len(upstream.chats) == MAX_ROUNDS + 1
    choice = reply.json()["choices"][0]
    assert choice["message"] == {"role": "assistant", "content": LIMIT_NOTE}
    assert choice["finish_reason"] == "stop"
    assert "tool_calls" not in reply.text
    assert "call_recall" not in reply.text


async def test_streaming_openai_replay_is_well_formed(proxy: tuple[Upstream, Any]) -> None:
    upstream, make = proxy
    app = await make()
    client = openai.AsyncOpenAI(
        api_key=KEY, base_url="http://proxy.test/v1", http_client=local(app), max_retries=0
    )
    stream = await client.chat.completions.create(
        model=MODEL,
        messages=with_fact(openai_history(20), "openai"),
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [c async for c in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.startswith(f"Recalled: # {FACT}")
    assert chunks[-1].usage is not None
    assert not any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
    assert "stream_options" not in upstream.chats[0].json


async def test_recall_is_off_by_default_and_yields_to_a_client_tool_of_that_name(
    proxy: tuple[Upstream, Any],
) -> None:
    upstream, make = proxy
    history = with_fact(openai_history(20), "openai")
    async with local(await make(recall=False)) as client:
        plain = await client.post(
            "/v1/chat/completions",
            json={"model": MODEL, "messages": history},
            headers={"authorization": f"Bearer {KEY}"},
        )
    assert plain.headers["x-contextfold-compacted"] == "true"
    assert "x-contextfold-recalls" not in plain.headers
    assert "tools" not in upstream.chats[-1].json
    mine = {"type": "function", "function": {"name": "recall", "parameters": {}}}
    async with local(await make()) as client:
        theirs = await client.post(
            "/v1/chat/completions",
            json={"model": MODEL, "messages": history, "tools": [mine]},
            headers={"authorization": f"Bearer {KEY}"},
        )
    assert "x-contextfold-recalls" not in theirs.headers
    assert upstream.chats[-1].json["tools"] == [mine]
    # the fake model called the client's own tool: the client gets the call
    assert theirs.json()["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "recall"


def test_create_app_checks_recall() -> None:
    with pytest.raises(ValueError, match="recall"):
        create_app(options=ProxyOptions(recall="yes"))  # type: ignore[arg-type]


async def test_a_cached_summary_still_lists_its_handles(proxy: tuple[Upstream, Any]) -> None:
    upstream, make = proxy
    app = await make()
    history = with_fact(openai_history(20), "openai")
    headers = {"authorization": f"Bearer {KEY}"}
    async with local(app) as client:
        first = await client.post(
            "/v1/chat/completions", json={"model": MODEL, "messages": history}, headers=headers
        )
        later = [*history, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "?"}]
        second = await client.post(
            "/v1/chat/completions", json={"model": MODEL, "messages": later}, headers=headers
        )
    assert first.headers["x-contextfold-summary"] == "created"
    assert second.headers["x-contextfold-summary"] == "cached"
    assert second.headers["x-contextfold-recalls"] == "1"
    assert second.json()["choices"][0]["message"]["content"].startswith(f"Recalled: # {FACT}")
    assert len(upstream.summaries) == 1


ODD_REPLIES: list[Any] = [
    [1, 2],
    {"choices": "x"},
    {"choices": [5]},
    {"choices": [{"message": {"tool_calls": [{"id": 1, "function": {"name": "recall"}}]}}]},
    {
        "choices": [
            {
                "message": {
                    "tool_calls": [
                        {"id": "c", "function": {"name": "recall", "arguments": "{not json"}}
                    ]
                }
            }
        ]
    },
    {"choices": [{"message": {"tool_calls": 5}}]},
    {"choices": [{"message": {"tool_calls": [{"id": "c", "function": "recall"}, 3]}}]},
]


@pytest.mark.parametrize("odd", ODD_REPLIES, ids=range(len(ODD_REPLIES)))
@pytest.mark.parametrize("stream", [False, True])
async def test_an_odd_upstream_reply_is_relayed_never_a_500(
    proxy: tuple[Upstream, Any], monkeypatch: pytest.MonkeyPatch, odd: Any, stream: bool
) -> None:
    import contextfold_harness.fake_upstream as fake

    upstream, make = proxy
    monkeypatch.setattr(fake, "_openai_call", lambda *args: odd)
    app = await make()
    body = {"model": MODEL, "messages": with_fact(openai_history(20), "openai"), "stream": stream}
    async with local(app) as client:
        reply = await client.post(
            "/v1/chat/completions", json=body, headers={"authorization": f"Bearer {KEY}"}
        )
    assert reply.status_code == 200
    assert len(upstream.chats) <= MAX_ROUNDS + 1


ODD_ANTHROPIC_REPLIES: list[Any] = [
    {"content": 5},
    {"content": [{"type": "tool_use", "name": "recall", "id": "x", "input": 5}]},
    {"content": [{"type": "tool_use", "name": "recall", "id": "x", "input": {"handle": []}}]},
]


@pytest.mark.parametrize("odd", ODD_ANTHROPIC_REPLIES, ids=range(len(ODD_ANTHROPIC_REPLIES)))
@pytest.mark.parametrize("stream", [False, True])
async def test_an_odd_anthropic_upstream_reply_is_relayed_never_a_500(
    proxy: tuple[Upstream, Any], monkeypatch: pytest.MonkeyPatch, odd: Any, stream: bool
) -> None:
    import contextfold_harness.fake_upstream as fake

    upstream, make = proxy
    monkeypatch.setattr(fake, "_anthropic_call", lambda *args: odd)
    app = await make()
    history = with_fact(anthropic_history(20), "anthropic")
    body = {"model": MODEL, "messages": history, "max_tokens": 100, "stream": stream}
    async with local(app) as client:
        reply = await client.post("/v1/messages", json=body, headers={"x-api-key": KEY})
    assert reply.status_code == 200
    assert len(upstream.chats) <= MAX_ROUNDS + 1


@pytest.mark.parametrize("dialect", ["openai", "anthropic"])
async def test_a_recall_round_answered_with_deeply_nested_json_is_relayed_never_a_500(
    proxy: tuple[Upstream, Any], monkeypatch: pytest.MonkeyPatch, dialect: str
) -> None:
    from starlette.responses import Response

    import contextfold_harness.fake_upstream as fake

    upstream, make = proxy
    upstream.recall = "always"
    deep = "[" * 100_000 + "]" * 100_000
    real = fake.json_reply

    def reply_deep(payload: Any, *args: Any, **kwargs: Any) -> Response:
        if payload == "deep":
            return Response(deep, media_type="application/json")
        return real(payload, *args, **kwargs)

    monkeypatch.setattr(fake, "json_reply", reply_deep)
    monkeypatch.setattr(fake, f"_{dialect}_call", lambda *args: "deep")
    app = await make()
    history = openai_history(20) if dialect == "openai" else anthropic_history(20)
    body = {"model": MODEL, "messages": with_fact(history, dialect), "max_tokens": 100}
    path = "/v1/chat/completions" if dialect == "openai" else "/v1/messages"
    headers = {"authorization": f"Bearer {KEY}", "x-api-key": KEY}
    async with local(app) as client:
        reply = await client.post(path, json=body, headers=headers)
    assert reply.status_code == 200
    assert reply.text == deep  # relayed as it is


def _client_call(dialect: str, n: int) -> dict[str, Any]:
    if dialect == "openai":
        arguments = json.dumps({"path": "a.py"})
        function = {"name": "read_file", "arguments": arguments}
        return {"id": f"call_mine_{n}", "type": "function", "function": function}
    return {"type": "tool_use", "id": f"toolu_mine_{n}", "name": "read_file", "input": {"p": 1}}


@pytest.mark.parametrize("dialect", ["openai", "anthropic"])
@pytest.mark.parametrize("stream", [False, True])
async def test_a_reply_calling_recall_and_a_client_tool_gives_the_client_its_own_call(
    proxy: tuple[Upstream, Any], monkeypatch: pytest.MonkeyPatch, dialect: str, stream: bool
) -> None:
    import contextfold_harness.fake_upstream as fake

    upstream, make = proxy
    real = getattr(fake, f"_{dialect}_call")

    def both(model: str, args: dict[str, Any], tokens: int, n: int) -> dict[str, Any]:
        reply = real(model, args, tokens, n)
        if dialect == "openai":
            reply["choices"][0]["message"]["tool_calls"].insert(0, _client_call(dialect, n))
        else:
            reply["content"].append(_client_call(dialect, n))
        return reply

    monkeypatch.setattr(fake, f"_{dialect}_call", both)
    app = await make()
    history = openai_history(20) if dialect == "openai" else anthropic_history(20)
    mine = {"name": "read_file", "description": "read", "input_schema": {"type": "object"}}
    tools = [{"type": "function", "function": mine}] if dialect == "openai" else [mine]
    body = {
        "model": MODEL,
        "messages": with_fact(history, dialect),
        "max_tokens": 100,
        "tools": tools,
        "stream": stream,
    }
    path = "/v1/chat/completions" if dialect == "openai" else "/v1/messages"
    headers = {"authorization": f"Bearer {KEY}", "x-api-key": KEY}
    async with local(app) as client:
        reply = await client.post(path, json=body, headers=headers)
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-recalls"] == "0"
    assert len(upstream.chats) == 1
    assert '"recall"' not in reply.text
    assert "_mine_" in reply.text  # the client's own call reached it
    if not stream and dialect == "openai":
        choice = reply.json()["choices"][0]
        assert choice["finish_reason"] == "tool_calls"
        assert [c["function"]["name"] for c in choice["message"]["tool_calls"]] == ["read_file"]
    elif not stream:
        assert reply.json()["stop_reason"] == "tool_use"
        assert [b["name"] for b in reply.json()["content"] if b["type"] == "tool_use"] == [
            "read_file"
        ]


@pytest.mark.parametrize("stream", [False, True])
async def test_with_thinking_a_client_call_after_recall_rounds_keeps_the_turns_thinking(
    proxy: tuple[Upstream, Any], monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    import contextfold_harness.fake_upstream as fake
    from contextfold.formats import from_anthropic
    from contextfold.validation import validate_history

    upstream, make = proxy
    thought = {"type": "thinking", "thinking": "I need the file.", "signature": "sig-1"}
    recall_call, message = fake._anthropic_call, fake._anthropic_message

    def thinking_then_recall(*args: Any) -> dict[str, Any]:
        reply = recall_call(*args)
        reply["content"].insert(0, thought)
        return reply

    def then_my_tool(model: str, text: str, tokens: int) -> dict[str, Any]:
        reply = message(model, text, tokens)
        if text.startswith("Recalled:"):  # the round after the recall: the client's tool
            reply["content"], reply["stop_reason"] = [_client_call("anthropic", 9)], "tool_use"
        return reply

    monkeypatch.setattr(fake, "_anthropic_call", thinking_then_recall)
    monkeypatch.setattr(fake, "_anthropic_message", then_my_tool)
    app = await make()
    history = with_fact(anthropic_history(20), "anthropic")
    tools = [{"name": "read_file", "description": "read", "input_schema": {"type": "object"}}]
    client = anthropic.AsyncAnthropic(
        api_key=KEY, base_url="http://proxy.test", http_client=local(app), max_retries=0
    )
    request: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 2_000,
        "messages": history,
        "tools": tools,
        "thinking": {"type": "enabled", "budget_tokens": 1_024},
    }
    if stream:
        async with client.messages.stream(**request) as events:
            final = await events.get_final_message()
    else:
        final = await client.messages.create(**request)
    assert len(upstream.chats) == 2
    assert [b.type for b in final.content] == ["thinking", "tool_use"]
    assert final.content[1].name == "read_file"
    # the client's next request (its tool's result appended) is a valid thinking history
    content = [b.model_dump(exclude_none=True) for b in final.content]
    result = {"type": "tool_result", "tool_use_id": final.content[1].id, "content": "ok"}
    later = [
        *history,
        {"role": "assistant", "content": content},
        {"role": "user", "content": [result]},
    ]
    validate_history(from_anthropic(later), "anthropic", thinking=True)


async def test_openai_custom_tools_count_as_the_clients_own(
    proxy: tuple[Upstream, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import contextfold_harness.fake_upstream as fake

    upstream, make = proxy
    real = fake._openai_call
    custom_call = {"id": "call_mine", "type": "custom", "custom": {"name": "sh", "input": "ls"}}

    def with_custom_call(*args: Any) -> dict[str, Any]:
        reply = real(*args)
        reply["choices"][0]["message"]["tool_calls"].append(custom_call)
        return reply

    monkeypatch.setattr(fake, "_openai_call", with_custom_call)
    app = await make()
    history = with_fact(openai_history(20), "openai")
    headers = {"authorization": f"Bearer {KEY}"}
    sh = {"type": "custom", "custom": {"name": "sh", "description": "run a command"}}
    async with local(app) as client:
        reply = await client.post(
            "/v1/chat/completions",
            json={"model": MODEL, "messages": history, "tools": [sh]},
            headers=headers,
        )
        # the model's custom call reaches the client, unanswered by the proxy
        assert reply.status_code == 200
        assert reply.headers["x-contextfold-recalls"] == "0"
        assert reply.json()["choices"][0]["message"]["tool_calls"] == [custom_call]
        assert len(upstream.chats) == 1
        # a custom tool named recall is the client's: the proxy adds none
        mine = {"type": "custom", "custom": {"name": "recall"}}
        await client.post(
            "/v1/chat/completions",
            json={"model": MODEL, "messages": history, "tools": [mine]},
            headers=headers,
        )
    assert upstream.chats[-1].json["tools"] == [mine]


async def test_with_thinking_the_round_limit_still_says_so_in_text(
    proxy: tuple[Upstream, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import contextfold_harness.fake_upstream as fake

    upstream, make = proxy
    upstream.recall = "always"
    thought = {"type": "thinking", "thinking": "Once more.", "signature": "sig-1"}
    recall_call = fake._anthropic_call

    def thinking_then_recall(*args: Any) -> dict[str, Any]:
        reply = recall_call(*args)
        reply["content"].insert(0, thought)
        return reply

    monkeypatch.setattr(fake, "_anthropic_call", thinking_then_recall)
    app = await make()
    body = {
        "model": MODEL,
        "max_tokens": 2_000,
        "messages": with_fact(anthropic_history(20), "anthropic"),
        "thinking": {"type": "enabled", "budget_tokens": 1_024},
    }
    async with local(app) as client:
        reply = await client.post("/v1/messages", json=body, headers={"x-api-key": KEY})
    assert reply.headers["x-contextfold-recalls"] == str(MAX_ROUNDS)
    final = reply.json()
    assert final["content"] == [thought, {"type": "text", "text": LIMIT_NOTE}]
    assert final["stop_reason"] == "end_turn"


async def test_a_request_for_several_choices_is_not_offered_the_recall_tool(
    proxy: tuple[Upstream, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import contextfold_harness.fake_upstream as fake

    upstream, make = proxy
    real = fake._openai_call

    def two(model: str, args: dict[str, Any], tokens: int, n: int) -> dict[str, Any]:
        reply = real(model, args, tokens, n)  # the second choice calls recall
        text = {"role": "assistant", "content": "An answer."}
        first = {"index": 0, "message": text, "finish_reason": "stop"}
        reply["choices"] = [first, {**reply["choices"][0], "index": 1}]
        return reply

    monkeypatch.setattr(fake, "_openai_call", two)
    app = await make()
    body = {"model": MODEL, "messages": with_fact(openai_history(20), "openai"), "n": 2}
    async with local(app) as client:
        reply = await client.post(
            "/v1/chat/completions", json=body, headers={"authorization": f"Bearer {KEY}"}
        )
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "true"
    assert '"recall"' not in reply.text  # no choice calls a tool the client does not know
    assert "recall" not in tool_names(upstream.chats[0].json)


# -- masking first in the proxy ----------------------------------------------------------


def big_outputs(dialect: str, turns: int = 8) -> list[dict[str, Any]]:
    """Short requests and answers, long tool outputs; the first holds :data:`FACT`."""
    history = openai_history(turns, chars=200) if dialect == "openai" else None
    history = history or anthropic_history(turns, chars=200)
    n = 0
    for message in history:
        block = message.get("content")
        if dialect == "anthropic" and isinstance(block, list) and block[0]["type"] == "tool_result":
            target: dict[str, Any] = block[0]
        elif dialect == "openai" and message.get("role") == "tool":
            target = message
        else:
            continue
        lines = "\n".join(f"file {n} line {i}: value" for i in range(250))
        target["content"] = lines + (f"\n# {FACT}" if n == 0 else "")
        n += 1
    return history


@pytest.mark.parametrize("dialect", ["openai", "anthropic"])
async def test_the_proxy_masks_first_and_makes_no_summary_when_that_is_enough(
    proxy: tuple[Upstream, Any], dialect: str
) -> None:
    from contextfold.compaction import CompactionSettings
    from contextfold.formats import from_anthropic, from_openai
    from contextfold.validation import validate_history

    upstream, make = proxy
    upstream.recall = "off"
    app = await make(settings=CompactionSettings(mask_tool_outputs=True), recall=False)
    history = big_outputs(dialect)
    path = "/v1/chat/completions" if dialect == "openai" else "/v1/messages"
    headers = {"authorization": f"Bearer {KEY}", "x-api-key": KEY}
    body = {"model": MODEL, "messages": history, "max_tokens": 100}
    async with local(app) as client:
        reply = await client.post(path, json=body, headers=headers)
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "true"
    assert reply.headers["x-contextfold-summary"] == "none"
    assert int(reply.headers["x-contextfold-tokens-after"]) <= 8_192
    assert upstream.summaries == []
    sent = upstream.chats[-1].json
    assert "[masked tool output: handle=out-" in json.dumps(sent)
    assert FACT not in json.dumps(sent)
    assert sent["messages"][-3:] == history[-3:]  # the latest rounds verbatim
    parsed = (
        from_openai(sent["messages"])
        if dialect == "openai"
        else from_anthropic(sent["messages"], sent.get("system"))
    )
    validate_history(parsed, allow_pending=True)
    original = from_openai(history) if dialect == "openai" else from_anthropic(history)
    assert len(parsed) == len(original)


@pytest.mark.parametrize("dialect", ["openai", "anthropic"])
async def test_a_masked_output_is_recalled_through_the_proxy(
    proxy: tuple[Upstream, Any], dialect: str
) -> None:
    from contextfold.compaction import CompactionSettings

    upstream, make = proxy
    app = await make(settings=CompactionSettings(mask_tool_outputs=True))
    path = "/v1/chat/completions" if dialect == "openai" else "/v1/messages"
    headers = {"authorization": f"Bearer {KEY}", "x-api-key": KEY}
    body = {"model": MODEL, "messages": big_outputs(dialect), "max_tokens": 100}
    async with local(app) as client:
        reply = await client.post(path, json=body, headers=headers)
    assert reply.headers["x-contextfold-recalls"] == "1"
    assert upstream.summaries == []
    text = json.dumps(reply.json())
    assert "tool_calls" not in text
    assert "tool_use" not in text
    first, second = upstream.chats
    assert FACT not in json.dumps(first.json)
    assert FACT in json.dumps(second.json["messages"][-1])  # the recalled page (its end)
