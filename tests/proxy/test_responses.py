"""``POST /v1/responses`` through the proxy: stock ``openai`` SDK and the Agents SDK ->
proxy -> fake upstream (ASGI both hops)."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from openai.types.responses import ResponseInputParam
from pydantic import TypeAdapter
from starlette.applications import Starlette

from contextfold.blocks import ThinkingBlock
from contextfold.dialects import RESPONSES
from contextfold.formats import from_responses
from contextfold.proxy._cache import chain_hashes
from contextfold.proxy._memo import HistoryMemo
from contextfold.validation import validate_history
from tests._proxy_upstream import ProxyApps, Upstream, responses_history

KEY = "sk-test-DISTINCTIVE-5e6f7a8b9c0d1e2f"
MODEL = "test-model"
# context_window 32,768 x threshold 0.25: compaction above ~8,192 estimated tokens.
SETTINGS: dict[str, Any] = {"context_window": 32_768, "threshold": 0.25, "summary_max_retries": 0}
TOOLS = [
    {
        "type": "function",
        "name": "read_file",
        "description": "Read a file",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
            "additionalProperties": False,
        },
        "strict": True,
    }
]

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


def sdk(app: Starlette) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key=KEY, base_url="http://proxy.test/v1", http_client=local(app), max_retries=0
    )


async def post(app: Starlette, body: dict[str, Any] | bytes) -> httpx2.Response:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    async with local(app) as client:
        return await client.post(
            "/v1/responses",
            content=raw,
            headers={"authorization": f"Bearer {KEY}", "content-type": "application/json"},
        )


def assert_valid_input(body: dict[str, Any]) -> None:
    """Every call has its output right after its turn, and the history is valid."""
    items = body["input"]
    calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
    assert calls == outputs
    validate_history(from_responses(items, body.get("instructions")), "openai", allow_pending=True)


# -- pass-through ---------------------------------------------------------------------


async def test_short_history_and_string_input_are_forwarded_byte_identical(
    app: Starlette, upstream: Upstream
) -> None:
    for body in (
        {"model": MODEL, "input": responses_history(1), "instructions": "Be careful."},
        {"model": MODEL, "input": "Say hello"},
    ):
        raw = json.dumps(body).encode()
        reply = await post(app, raw)
        assert reply.status_code == 200
        assert upstream.seen[-1].raw == raw
        assert upstream.seen[-1].path == "/v1/responses"
        assert reply.headers["x-contextfold-compacted"] == "false"
        assert "x-contextfold-error" not in reply.headers
        assert reply.json()["output"][0]["content"][0]["text"] == "Hello from upstream"
    assert not upstream.summaries


# -- compaction -----------------------------------------------------------------------


async def test_long_history_is_compacted_keeping_recent_items_verbatim(
    app: Starlette, upstream: Upstream
) -> None:
    history = responses_history(24)
    body = {"model": MODEL, "input": history, "instructions": "Be careful.", "tools": TOOLS}
    reply = await post(app, body)
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "true"
    assert reply.headers["x-contextfold-summary"] == "created"
    assert int(reply.headers["x-contextfold-tokens-after"]) < int(
        reply.headers["x-contextfold-tokens-before"]
    )
    # summarized through the OpenAI upstream's chat endpoint
    assert [s.path for s in upstream.summaries] == ["/v1/chat/completions"]
    sent = upstream.chats[-1].json
    assert sent["instructions"] == "Be careful."
    assert sent["tools"] == TOOLS
    items = sent["input"]
    assert len(items) < len(history)
    assert items[0] == history[0]  # the task, word for word
    assert "SUMMARY-1" in json.dumps(items[1])
    # the kept part is the original items, verbatim (ids, statuses, reasoning)
    kept = next(i for i, item in enumerate(items) if item == history[len(history) - len(items) + i])
    assert items[kept:] == history[len(history) - len(items) + kept :]
    # reasoning only in the kept part, each still right before its call
    reasoning = [i for i, item in enumerate(items) if item.get("type") == "reasoning"]
    assert reasoning
    assert all(i >= kept for i in reasoning)
    assert all(items[i + 1]["type"] == "function_call" for i in reasoning)
    assert_valid_input(sent)


async def test_written_items_fit_the_request_schema(make_app: MakeApp, upstream: Upstream) -> None:
    # The kept part starts with a user turn, so the task and the summary are followed
    # by the proxy's acknowledgement. What the proxy writes must fit the request schema the SDK
    # declares: servers that validate input against it refuse an assistant message
    # with output parts but no id or status.
    app = await make_app(keep_recent=5)
    history: list[dict[str, Any]] = []
    for i in range(30):
        history.append({"role": "user", "content": f"question {i}: " + "u" * 1200})
        history.append({"role": "assistant", "content": f"answer {i}: " + "a" * 400})
    history.append({"role": "user", "content": "what next?"})
    reply = await post(app, {"model": MODEL, "input": history})
    assert reply.headers["x-contextfold-compacted"] == "true"
    items = upstream.chats[-1].json["input"]
    assert [item.get("role") for item in items[:4]] == ["user", "user", "assistant", "user"]
    TypeAdapter(ResponseInputParam).validate_python(items)
    assert items[0] == history[0]
    assert items[3:] == history[-len(items) + 3 :]


async def test_recall_is_not_offered_on_responses_requests(
    make_app: MakeApp, upstream: Upstream
) -> None:
    """``recall=True`` answers recall calls in the chat dialects only: a compacted
    Responses request is forwarded with the client's own tools, untouched, and its
    summary names no recall tool (today's main listed handles of a tool not offered)."""
    app = await make_app(recall=True)
    # tool outputs large enough (2,000 characters) for the summary to list their handles
    body = {"model": MODEL, "input": responses_history(12, chars=2_000), "tools": TOOLS}
    reply = await post(app, body)
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "true"
    summary = json.dumps(upstream.chats[-1].json["input"][1])
    assert "SUMMARY-" in summary
    assert "out-" not in summary
    assert "recall tool" not in summary
    assert upstream.chats[-1].json["tools"] == TOOLS
    assert "x-contextfold-recalls" not in reply.headers


async def test_resent_history_splices_the_cached_summary(
    app: Starlette, upstream: Upstream
) -> None:
    history = responses_history(24)
    await post(app, {"model": MODEL, "input": history})
    answer = {"role": "assistant", "content": "Let me see."}
    reply = await post(
        app, {"model": MODEL, "input": [*history, answer, {"role": "user", "content": "ok"}]}
    )
    assert reply.headers["x-contextfold-summary"] == "cached"
    assert len(upstream.summaries) == 1
    assert_valid_input(upstream.chats[-1].json)


async def test_a_call_is_never_split_from_its_reasoning_or_output() -> None:
    items = responses_history(2)
    messages = from_responses(items)
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"] * 2 + ["user"]
    turn = messages[1]
    assert isinstance(turn.content[0], ThinkingBlock)
    assert turn.content[0].thinking == "enc-0"
    assert [b.id for b in turn.tool_uses] == ["call_0"]


# -- stock openai SDK ---------------------------------------------------------------


async def test_sdk_create_with_tool_call_through_compaction(
    app: Starlette, upstream: Upstream
) -> None:
    upstream.tool_call, upstream.tool_arguments = "read_file", {"n": 7}
    client = sdk(app)
    history = responses_history(24)
    response = await client.responses.create(
        model=MODEL, input=history, instructions="Be careful.", tools=TOOLS
    )
    call = response.output[0]
    assert call.type == "function_call"
    assert call.name == "read_file"
    assert json.loads(call.arguments) == {"n": 7}
    assert response.usage is not None
    # the call's output goes back with the next request: the pair must arrive intact
    follow = [
        *history,
        call.model_dump(exclude_none=True),
        {"type": "function_call_output", "call_id": call.call_id, "output": "contents"},
    ]
    answer = await client.responses.create(
        model=MODEL, input=follow, instructions="Be careful.", tools=TOOLS
    )
    assert answer.output_text == "Hello from upstream"
    sent = upstream.chats[-1].json
    assert sent["input"][-2]["call_id"] == sent["input"][-1]["call_id"] == call.call_id
    assert_valid_input(sent)
    assert len(upstream.summaries) == 1


async def test_sdk_stream_relays_events_and_reads_usage(app: Starlette, upstream: Upstream) -> None:
    upstream.tool_call, upstream.tool_arguments = "read_file", {"n": 3}
    upstream.reasoning = True
    client = sdk(app)
    history = responses_history(24)
    kinds: list[str] = []
    async with client.responses.stream(model=MODEL, input=history, tools=TOOLS) as stream:
        async for event in stream:
            kinds.append(event.type)
        final = await stream.get_final_response()
    assert kinds[0] == "response.created"
    assert "response.function_call_arguments.delta" in kinds
    assert kinds[-1] == "response.completed"
    assert [item.type for item in final.output] == ["reasoning", "function_call"]
    assert upstream.chats[-1].json["stream"] is True
    assert_valid_input(upstream.chats[-1].json)
    # usage from response.completed anchors the compacted history's size
    anchors = app.state.forwarder.planner.anchors
    assert len(anchors) == 1
    assert final.usage is not None
    assert final.usage.input_tokens in anchors._tokens.values()
    # a text answer streams delta by delta
    upstream.tool_call = None
    follow = [
        *history,
        *[item.model_dump(exclude_none=True) for item in final.output],
        {"type": "function_call_output", "call_id": "call_x", "output": "x"},
    ]
    follow[-1]["call_id"] = final.output[1].call_id  # type: ignore[union-attr]
    async with client.responses.stream(model=MODEL, input=follow, tools=TOOLS) as stream:
        deltas = [e.delta async for e in stream if e.type == "response.output_text.delta"]
    assert "".join(deltas) == "Hello from upstream"
    assert len(deltas) == 3
    sent = upstream.chats[-1].json["input"]
    assert sent[-3]["type"] == "reasoning"  # the fresh reasoning stays with its call
    assert sent[-3]["encrypted_content"] == final.output[0].encrypted_content  # type: ignore[union-attr]


# -- forwarded unchanged ----------------------------------------------------------------


async def test_a_request_far_under_the_limit_is_forwarded_unparsed(
    app: Starlette, upstream: Upstream
) -> None:
    raw = json.dumps({"model": MODEL, "input": responses_history(2)}).encode()
    reply = await post(app, raw)
    assert upstream.seen[-1].raw == raw
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert app.state.forwarder.planner.memo.parses == 0  # the byte-size bound sufficed
    assert int(reply.headers["x-contextfold-tokens-before"]) >= len(raw) // 4


@pytest.mark.parametrize("turns", [1, 24])
@pytest.mark.parametrize(
    ("field", "value"),
    [("previous_response_id", "resp_123"), ("conversation", "conv_123")],
)
async def test_server_held_state_is_forwarded_unchanged(
    app: Starlette, upstream: Upstream, field: str, value: str, turns: int
) -> None:
    raw = json.dumps({"model": MODEL, "input": responses_history(turns), field: value}).encode()
    reply = await post(app, raw)
    assert reply.status_code == 200
    assert upstream.seen[-1].raw == raw
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert field in reply.headers["x-contextfold-error"]
    assert not upstream.summaries
    # its usage (which counts history the proxy never saw) teaches the size bound nothing
    tenant = app.state.forwarder.tenant({"authorization": f"Bearer {KEY}"})
    assert app.state.forwarder.bound.tokens_per_byte(tenant) == 0.25


@pytest.mark.parametrize(
    "item",
    [
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "mcp_call", "id": "mcp_1", "name": "x", "server_label": "s", "arguments": "{}"},
        {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": "y"},
        {"role": "user", "content": [{"type": "input_file", "file_id": "file_1"}]},
        {"role": "user", "content": [{"type": "input_image", "image_url": "https://x/y.png"}]},
    ],
)
async def test_unmodelled_items_are_compacted_and_carried(
    app: Starlette, upstream: Upstream, item: dict[str, Any]
) -> None:
    # On today's main these requests were forwarded uncompacted ("does not model").
    history = responses_history(24)
    old, recent = {**item, "x_seen": "long ago"}, dict(item)
    if item.get("type") == "custom_tool_call":  # a call, answered
        old = [old, {"type": "custom_tool_call_output", "call_id": "c1", "output": "done"}]
        recent = [{**item, "call_id": "c2"}]
        recent.append({"type": "custom_tool_call_output", "call_id": "c2", "output": "ok"})
    old_items = old if isinstance(old, list) else [old]
    recent_items = recent if isinstance(recent, list) else [recent]
    user = {"role": "user", "content": "next"}
    items = [*history[:5], *old_items, user, *history[5:-1], *recent_items, history[-1]]
    reply = await post(app, {"model": MODEL, "input": items})
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "true", reply.headers.get(
        "x-contextfold-error"
    )
    sent = upstream.chats[-1].json["input"]
    assert sent[-1 - len(recent_items) : -1] == recent_items  # kept, byte for byte
    assert old_items[0] not in sent
    kind = item.get("type") or item["content"][0]["type"]
    assert f"[{kind}" in json.dumps(upstream.summaries[0].json)
    assert_valid_input(upstream.chats[-1].json)


async def test_item_references_are_server_state_forwarded_unchanged(
    app: Starlette, upstream: Upstream
) -> None:
    history = responses_history(24)
    item = {"type": "item_reference", "id": "msg_9"}
    raw = json.dumps({"model": MODEL, "input": [*history[:5], item, *history[5:]]}).encode()
    reply = await post(app, raw)
    assert reply.status_code == 200
    assert upstream.seen[-1].raw == raw
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert "item_reference" in reply.headers["x-contextfold-error"]
    assert not upstream.summaries


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"input": "hi"}', "'model'"),
        (b'{"model": "m", "input": 42}', "'input'"),
        (b'{"model": "m", "input": {"role": "user"}}', "'input'"),
    ],
)
async def test_malformed_bodies_get_openai_shaped_400(
    app: Starlette, upstream: Upstream, raw: bytes, says: str
) -> None:
    reply = await post(app, raw)
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    assert says in error["message"]
    assert not upstream.seen


async def test_malformed_items_are_left_to_the_upstream(app: Starlette, upstream: Upstream) -> None:
    history = responses_history(24)
    for bad in (
        [*history, 42],
        [*history, {"role": ["user"], "content": "x"}],
    ):
        raw = json.dumps({"model": MODEL, "input": bad, "instructions": "Be careful."}).encode()
        reply = await post(app, raw)
        assert reply.status_code == 200
        assert upstream.seen[-1].raw == raw
        assert "x-contextfold-error" in reply.headers
    reply = await post(app, {"model": MODEL, "input": history, "instructions": ["x"]})
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert not upstream.summaries
    # A call whose arguments are no JSON object is carried as it came, not refused.
    call = {"type": "function_call", "call_id": "c", "name": "f", "arguments": "[1]"}
    reply = await post(
        app, {"model": MODEL, "input": [*history, call], "instructions": "Be careful."}
    )
    assert reply.status_code == 200
    assert "x-contextfold-error" not in reply.headers
    assert upstream.seen[-1].json["input"][-1] == call


# -- hostile input ----------------------------------------------------------------------

HOSTILE: list[Any] = [
    None,
    True,
    -1,
    1e308,
    "",
    "x" * 50,
    [],
    [None],
    {},
    {"type": ["message"]},
    [[[[[[]]]]]],
]


def hostile_body(rng: random.Random) -> bytes:
    """A Responses request with one to four fields, anywhere, replaced by hostile values."""
    body: dict[str, Any] = {
        "model": MODEL,
        "instructions": "Be careful.",
        "input": responses_history(rng.choice([1, 24])),
        "tools": TOOLS,
    }
    if rng.random() < 0.3:
        body["stream"] = True
    for _ in range(rng.randint(1, 4)):
        items = body["input"] if isinstance(body["input"], list) else []
        where = rng.random()
        if where < 0.15 or not items:
            body[
                rng.choice(["model", "instructions", "input", "tools", "stream", "conversation"])
            ] = copy.deepcopy(rng.choice(HOSTILE))
        elif where < 0.35:
            items.insert(rng.randrange(len(items) + 1), copy.deepcopy(rng.choice(HOSTILE)))
        else:
            item = rng.choice(items)
            if isinstance(item, dict):
                field = rng.choice([*item, "type", "role", "content", "call_id", "summary"])
                item[field] = copy.deepcopy(rng.choice(HOSTILE))
    return json.dumps(body).encode()


async def test_hostile_requests_get_no_500(
    app: Starlette, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(15)
    statuses: dict[int, int] = {}
    async with local(app) as client:
        for _ in range(300):
            reply = await client.post(
                "/v1/responses",
                content=hostile_body(rng),
                headers={"authorization": f"Bearer {KEY}", "content-type": "application/json"},
            )
            statuses[reply.status_code] = statuses.get(reply.status_code, 0) + 1
            assert reply.status_code < 500, reply.text
            if reply.status_code >= 400 and "x-contextfold-compacted" not in reply.headers:
                assert set(reply.json()["error"]) == {"message", "type", "param", "code"}
            compacted = reply.headers.get("x-contextfold-compacted") == "true"
            if compacted:
                assert_valid_input(upstream.seen[-1].json)
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    assert statuses.get(200, 0) > 100
    assert upstream.summaries  # compaction was reached, not only refusals


def test_history_memo_matches_formats_for_responses_histories() -> None:
    memo = HistoryMemo()
    items: list[Any] = []
    for turn, extra in enumerate(responses_history(6)):
        items = [*items, extra]
        got = memo.parse(RESPONSES, "m", items, "sys")
        assert got.messages == from_responses(items, "sys"), turn
        assert got.chain == chain_hashes("m", from_responses(items, "sys"))
    # parsing resumes only before user, system and developer messages
    assert memo.parses < len(items) * 3
    other = memo.parse(RESPONSES, "m", items, "another system")
    assert other.messages[0].text == "another system"
    with pytest.raises(ValueError, match="'type' must be a string"):
        memo.parse(RESPONSES, "m", [*items, {"type": 5}], "sys")


async def test_other_responses_routes_pass_through_to_openai(
    app: Starlette, upstream: Upstream
) -> None:
    async with local(app) as client:
        got = await client.get("/v1/responses/resp_1?include=x")
        gone = await client.delete("/v1/responses/resp_1")
        counted = await client.post("/v1/responses/input_tokens", json={"model": MODEL})
    assert got.json() == {"path": "/v1/responses/resp_1", "query": "include=x", "bytes": 0}
    assert gone.json()["path"] == "/v1/responses/resp_1"
    assert counted.json()["path"] == "/v1/responses/input_tokens"
    assert "x-contextfold-compacted" not in got.headers
