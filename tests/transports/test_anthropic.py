"""AnthropicTransport through the real anthropic SDK, answered by respx."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
import respx

from contextfold.blocks import ImageBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from contextfold.errors import (
    AuthenticationError,
    BadRequestError,
    ContextOverflowError,
    ProviderUnavailableError,
    ResponseFormatError,
    TransportConnectionError,
    TransportError,
    TransportTimeoutError,
)
from contextfold.messages import Message
from contextfold.transports import AnthropicTransport, Completion, RetryPolicy, ToolSpec, Usage
from tests.transports.conftest import (
    FAKE_ANTHROPIC_KEY,
    RecordingSleep,
    body,
    broken_stream,
    drain,
    sse,
    streamed,
)
from tests.transports.conftest import anthropic_error as error
from tests.transports.conftest import anthropic_message as reply
from tests.transports.conftest import anthropic_text as text_reply

MODEL = "claude-haiku-4-5"
WEATHER = ToolSpec("get_weather", "Weather for a city.", {"type": "object", "properties": {}})
CLOCK = ToolSpec("get_time", "The time.", {"type": "object", "properties": {}})


@pytest.fixture
def transport(policy: RetryPolicy) -> AnthropicTransport:
    return AnthropicTransport(
        MODEL, api_key=FAKE_ANTHROPIC_KEY, max_output_tokens=8192, retry=policy
    )


async def test_text_reply_and_request_basics(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport
) -> None:
    route = anthropic_api.post("/v1/messages").respond(json=text_reply())
    completion = await transport.complete([Message.user("Hi")], system="Be brief.")
    assert completion == Completion(
        [TextBlock("Hello!")], "end_turn", Usage(12, 7), "claude-haiku-4-5-20251001"
    )
    sent = body(route)
    assert sent["model"] == MODEL
    assert sent["max_tokens"] == 8192
    assert "stream" not in sent
    assert sent["system"] == [
        {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
    ]
    assert sent["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}],
        }
    ]
    request = route.calls[0].request
    sent_key = request.headers.get("x-api-key") or request.headers["authorization"]
    assert sent_key.endswith(FAKE_ANTHROPIC_KEY)
    assert "thinking" not in sent
    assert "tools" not in sent
    assert transport.model.context_window == 200_000


async def test_tools_images_results_thinking_and_cache_breakpoints(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport
) -> None:
    route = anthropic_api.post("/v1/messages").respond(json=text_reply("It is sunny."))
    history = [
        Message("user", [TextBlock("Weather here?"), ImageBlock("image/png", b"\x89PNG")]),
        Message(
            "assistant",
            [
                ThinkingBlock("need the tool", signature="sig-abc"),
                ThinkingBlock("opaque", redacted=True),
                ToolUseBlock("toolu_1", "get_weather", {"city": "Paris"}),
                ToolUseBlock("toolu_2", "get_time", {}),
            ],
        ),
        Message(
            "user",
            [
                ToolResultBlock("toolu_1", "sunny, 24C"),
                ToolResultBlock("toolu_2", [TextBlock("clock broke")], is_error=True),
            ],
        ),
    ]
    await transport.complete(history, [WEATHER, CLOCK], system="sys")
    sent = body(route)
    assert sent["tools"] == [
        {
            "name": "get_weather",
            "description": "Weather for a city.",
            "input_schema": WEATHER.input_schema,
        },
        {
            "name": "get_time",
            "description": "The time.",
            "input_schema": CLOCK.input_schema,
            "cache_control": {"type": "ephemeral"},
        },
    ]
    first, second, third = sent["messages"]
    assert first["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="},
    }
    assert second["content"][:3] == [
        {"type": "thinking", "thinking": "need the tool", "signature": "sig-abc"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    ]
    assert third["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny, 24C"},
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": [{"type": "text", "text": "clock broke"}],
            "is_error": True,
            "cache_control": {"type": "ephemeral"},
        },
    ]
    marks = str(sent).count("cache_control")
    assert marks == 3  # system, last tool, last block; Anthropic allows 4


async def test_cache_off_and_thinking_budget(
    anthropic_api: respx.MockRouter, policy: RetryPolicy
) -> None:
    transport = AnthropicTransport(
        MODEL,
        api_key=FAKE_ANTHROPIC_KEY,
        cache=False,
        thinking=2048,
        max_output_tokens=4096,
        retry=policy,
    )
    route = anthropic_api.post("/v1/messages").respond(json=text_reply())
    await transport.complete([Message.user("Hi")], [WEATHER], system="sys")
    sent = body(route)
    assert "cache_control" not in str(sent)
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert sent["max_tokens"] == 4096
    with pytest.raises(ValueError, match="thinking budget"):
        AnthropicTransport(MODEL, api_key="k", thinking=8192, max_output_tokens=4096)


async def test_mid_history_system_message_is_a_marked_user_turn(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport
) -> None:
    route = anthropic_api.post("/v1/messages").respond(json=text_reply())
    history = [
        Message.system("lead"),
        Message.user("a"),
        Message.assistant("b"),
        Message.system("note"),
        Message.user("c"),
    ]
    await transport.complete(history, system="top")
    sent = body(route)
    assert sent["system"][0]["text"] == "top\n\nlead"
    assert sent["messages"][2] == {
        "role": "user",
        "content": [{"type": "text", "text": "<system>\nnote\n</system>"}],
    }


async def test_reply_with_tool_use_thinking_and_cache_usage(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport
) -> None:
    content: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": "let me check", "signature": "EqQB"},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_9", "name": "get_weather", "input": {"city": "Oslo"}},
    ]
    anthropic_api.post("/v1/messages").respond(
        json=reply(
            content, "tool_use", cache_creation_input_tokens=300, cache_read_input_tokens=5000
        )
    )
    completion = await transport.complete([Message.user("Oslo?")], [WEATHER])
    assert completion.content == [
        ThinkingBlock("let me check", signature="EqQB"),
        TextBlock("Checking."),
        ToolUseBlock("toolu_9", "get_weather", {"city": "Oslo"}),
    ]
    assert completion.stop_reason == "tool_use"
    assert completion.usage == Usage(
        12 + 300 + 5000, 7, cache_read_tokens=5000, cache_write_tokens=300
    )


def stream_events(*, with_tool: bool = True) -> bytes:
    events: list[tuple[str | None, Any]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_s",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-haiku-4-5-20251001",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": 20,
                        "output_tokens": 1,
                        "cache_creation_input_tokens": 0,
                        "cache_read_input_tokens": 900,
                    },
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "hmm"},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "signature_delta", "signature": "sig-s"},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        ("ping", {"type": "ping"}),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "text_delta", "text": "Let me "},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "text_delta", "text": "look."},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
    ]
    if with_tool:
        events += [
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 2,
                    "content_block": {
                        "type": "tool_use",
                        "id": "toolu_s",
                        "name": "get_weather",
                        "input": {},
                    },
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 2,
                    "delta": {"type": "input_json_delta", "partial_json": '{"city": '},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 2,
                    "delta": {"type": "input_json_delta", "partial_json": '"Rome"}'},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 2}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": "tool_use" if with_tool else "end_turn",
                    "stop_sequence": None,
                },
                "usage": {"output_tokens": 33},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return sse(events)


async def test_stream_yields_text_then_full_completion(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport
) -> None:
    route = anthropic_api.post("/v1/messages").mock(return_value=streamed(stream_events()))
    items = [item async for item in transport.stream([Message.user("Rome?")], [WEATHER])]
    assert items[:2] == ["Let me ", "look."]
    final = items[-1]
    assert isinstance(final, Completion)
    assert len(items) == 3
    assert final.content == [
        ThinkingBlock("hmm", signature="sig-s"),
        TextBlock("Let me look."),
        ToolUseBlock("toolu_s", "get_weather", {"city": "Rome"}),
    ]
    assert final.stop_reason == "tool_use"
    assert final.usage == Usage(920, 33, cache_read_tokens=900)
    assert body(route)["stream"] is True


async def test_long_replies_go_through_the_streaming_api(
    anthropic_api: respx.MockRouter, policy: RetryPolicy
) -> None:
    transport = AnthropicTransport(MODEL, api_key="k", retry=policy)
    assert transport.model.max_output_tokens == 64_000  # registry limit of claude-haiku-4-5
    route = anthropic_api.post("/v1/messages").mock(return_value=streamed(stream_events()))
    completion = await transport.complete([Message.user("Rome?")], [WEATHER])
    assert completion.text == "Let me look."
    assert completion.tool_uses == [ToolUseBlock("toolu_s", "get_weather", {"city": "Rome"})]
    sent = body(route)
    assert sent["stream"] is True
    assert sent["max_tokens"] == 64_000


@pytest.mark.parametrize(
    "failure",
    [
        error(429, "rate_limit_error", "slow down"),
        error(500, "api_error", "internal"),
        error(502, "api_error", "bad gateway"),
        error(503, "api_error", "unavailable"),
        error(529, "overloaded_error", "Overloaded"),
        httpx.ConnectError("connection refused"),
        httpx.ReadTimeout("timed out"),
    ],
    ids=["429", "500", "502", "503", "529", "connect", "timeout"],
)
async def test_transient_failures_are_retried_then_succeed(
    anthropic_api: respx.MockRouter,
    transport: AnthropicTransport,
    sleeps: RecordingSleep,
    failure: httpx.Response | Exception,
) -> None:
    route = anthropic_api.post("/v1/messages")
    route.side_effect = [failure, failure, httpx.Response(200, json=text_reply("finally"))]
    completion = await transport.complete([Message.user("Hi")])
    assert completion.text == "finally"
    assert route.call_count == 3
    assert sleeps.delays == [0.5, 1.0]  # 1s then 2s ceilings, jitter pinned at 0.5


async def test_retries_are_bounded(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport, sleeps: RecordingSleep
) -> None:
    route = anthropic_api.post("/v1/messages").mock(
        return_value=error(529, "overloaded_error", "Overloaded")
    )
    with pytest.raises(ProviderUnavailableError) as caught:
        await transport.complete([Message.user("Hi")])
    assert route.call_count == 4
    assert len(sleeps.delays) == 3
    assert caught.value.status == 529
    assert caught.value.provider == "anthropic"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [({"retry-after": "7"}, 7.0), ({"retry-after-ms": "1500"}, 1.5)],
)
async def test_retry_after_is_honoured(
    anthropic_api: respx.MockRouter,
    transport: AnthropicTransport,
    sleeps: RecordingSleep,
    headers: dict[str, str],
    expected: float,
) -> None:
    limited = httpx.Response(
        429,
        headers=headers,
        json={"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}},
    )
    anthropic_api.post("/v1/messages").side_effect = [
        limited,
        httpx.Response(200, json=text_reply()),
    ]
    await transport.complete([Message.user("Hi")])
    assert sleeps.delays == [expected]


@pytest.mark.parametrize(
    ("status", "kind", "raised"),
    [
        (400, "invalid_request_error", BadRequestError),
        (401, "authentication_error", AuthenticationError),
        (403, "permission_error", AuthenticationError),
        (404, "not_found_error", BadRequestError),
    ],
)
async def test_client_errors_are_not_retried(
    anthropic_api: respx.MockRouter,
    transport: AnthropicTransport,
    sleeps: RecordingSleep,
    status: int,
    kind: str,
    raised: type[TransportError],
) -> None:
    route = anthropic_api.post("/v1/messages").mock(return_value=error(status, kind, "nope"))
    with pytest.raises(raised) as caught:
        await transport.complete([Message.user("Hi")])
    assert type(caught.value) is raised
    assert route.call_count == 1
    assert sleeps.delays == []
    assert caught.value.status == status
    if raised is AuthenticationError:
        assert "ANTHROPIC_API_KEY" in str(caught.value)


@pytest.mark.parametrize(
    "message",
    [
        "prompt is too long: 215000 tokens > 200000 maximum",
        "input length and `max_tokens` exceed context limit: 198000 + 64000 > 200000",
    ],
)
async def test_overflow_errors_map_to_context_overflow(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport, message: str
) -> None:
    anthropic_api.post("/v1/messages").mock(
        return_value=error(400, "invalid_request_error", message)
    )
    with pytest.raises(ContextOverflowError, match="context window") as caught:
        await transport.complete([Message.user("Hi")])
    assert caught.value.status == 400
    assert caught.value.model == MODEL


async def test_timeout_and_connection_errors_after_retries(
    anthropic_api: respx.MockRouter, policy: RetryPolicy
) -> None:
    transport = AnthropicTransport(MODEL, api_key="k", max_output_tokens=8192, max_retries=0)
    assert transport.retry.max_attempts == 1
    route = anthropic_api.post("/v1/messages")
    route.side_effect = httpx.ReadTimeout("slow")
    with pytest.raises(TransportTimeoutError):
        await transport.complete([Message.user("Hi")])
    route.side_effect = httpx.ConnectError("refused")
    with pytest.raises(TransportConnectionError):
        await transport.complete([Message.user("Hi")])


async def test_stream_retries_before_output_but_not_after(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport, sleeps: RecordingSleep
) -> None:
    ok = streamed(stream_events(with_tool=False))
    route = anthropic_api.post("/v1/messages")
    route.side_effect = [error(529, "overloaded_error", "Overloaded"), ok]
    items = [item async for item in transport.stream([Message.user("Hi")])]
    assert items[-1].text == "Let me look."  # type: ignore[union-attr]
    assert route.call_count == 2
    assert len(sleeps.delays) == 1

    # The stream breaks (an SSE error event) after text was yielded: no retry.
    cut = stream_events(with_tool=False).index(b"event: content_block_stop", 1000)
    broken = stream_events(with_tool=False)[:cut] + sse(
        [
            (
                "error",
                {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            )
        ]
    )
    route.side_effect = [streamed(broken), ok]
    calls_before = route.call_count
    seen: list[object] = []
    with pytest.raises(ProviderUnavailableError):
        await drain(transport.stream([Message.user("Hi")]), seen)
    assert seen == ["Let me ", "look."]
    assert route.call_count == calls_before + 1


def before_text() -> bytes:
    """The opening of ``stream_events()``: the message has started, no text yet."""
    return stream_events().split(b"\n\n")[0] + b"\n\n"


def after_text() -> bytes:
    """``stream_events()`` up to just after both text deltas."""
    events = stream_events()
    return events[: events.index(b"event: content_block_stop", events.index(b"look."))]


async def test_connection_reset_mid_stream_before_text_is_retried(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport, sleeps: RecordingSleep
) -> None:
    route = anthropic_api.post("/v1/messages")
    route.side_effect = [broken_stream(before_text()), streamed(stream_events())]
    items = [item async for item in transport.stream([Message.user("Hi")])]
    assert items[:2] == ["Let me ", "look."]
    assert route.call_count == 2
    assert sleeps.delays == [0.5]


async def test_connection_reset_mid_stream_after_text_is_raised_translated(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport, sleeps: RecordingSleep
) -> None:
    route = anthropic_api.post("/v1/messages")
    route.side_effect = [broken_stream(after_text()), streamed(stream_events())]
    seen: list[object] = []
    with pytest.raises(TransportConnectionError, match="ReadError") as caught:
        await drain(transport.stream([Message.user("Hi")]), seen)
    assert seen == ["Let me ", "look."]
    assert route.call_count == 1
    assert sleeps.delays == []
    assert caught.value.provider == "anthropic"
    # The httpx error holds the request and its credential headers: it is named, not chained.
    assert caught.value.__cause__ is None
    assert caught.value.__context__ is None


@pytest.mark.parametrize("head", [before_text, after_text], ids=["before-text", "after-text"])
async def test_long_reply_survives_a_connection_reset(
    anthropic_api: respx.MockRouter,
    policy: RetryPolicy,
    sleeps: RecordingSleep,
    head: Callable[[], bytes],
) -> None:
    # complete() streams by default for current models and shows no text, so it retries.
    transport = AnthropicTransport(MODEL, api_key="k", retry=policy)
    route = anthropic_api.post("/v1/messages")
    route.side_effect = [broken_stream(head()), streamed(stream_events())]
    completion = await transport.complete([Message.user("Hi")])
    assert completion.text == "Let me look."
    assert route.call_count == 2
    assert body(route)["stream"] is True


async def test_stream_that_ends_without_message_stop_is_a_connection_error(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport, sleeps: RecordingSleep
) -> None:
    route = anthropic_api.post("/v1/messages")
    route.side_effect = [streamed(before_text()), streamed(stream_events())]
    items = [item async for item in transport.stream([Message.user("Hi")])]
    assert isinstance(items[-1], Completion)
    assert route.call_count == 2  # cut short before any text: retried

    route.side_effect = [streamed(after_text())]
    with pytest.raises(TransportConnectionError, match="ended before the reply was complete"):
        await drain(transport.stream([Message.user("Hi")]), [])


async def test_json_of_another_shape_is_a_response_format_error(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport, sleeps: RecordingSleep
) -> None:
    route = anthropic_api.post("/v1/messages").respond(json={"status": "ok"})
    with pytest.raises(ResponseFormatError, match="content"):
        await transport.complete([Message.user("Hi")])
    assert route.call_count == 1


def test_missing_key_names_the_env_var() -> None:
    with pytest.raises(AuthenticationError, match="ANTHROPIC_API_KEY"):
        AnthropicTransport(MODEL)


def test_env_key_and_injected_clients(monkeypatch: pytest.MonkeyPatch) -> None:
    import anthropic

    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_ANTHROPIC_KEY)
    AnthropicTransport(MODEL)  # reads the env var
    client = anthropic.AsyncAnthropic(api_key="k", max_retries=5)
    transport = AnthropicTransport(MODEL, client=client)
    assert transport._client.max_retries == 0
    assert client.max_retries == 5
    with pytest.raises(TypeError, match=r"httpx2\.AsyncClient"):
        AnthropicTransport(MODEL, api_key="k", http_client=object())  # type: ignore[arg-type]


# --- the output cap (issue 13, item 2) -------------------------------------------------------


async def test_a_call_cap_lowers_max_tokens_and_keeps_the_reply_non_streaming(
    anthropic_api: respx.MockRouter, policy: RetryPolicy
) -> None:
    transport = AnthropicTransport(MODEL, api_key="k", retry=policy)  # 64,000 by default
    route = anthropic_api.post("/v1/messages").respond(json=text_reply())
    await transport.complete([Message.user("Hi")], max_output_tokens=500)
    sent = body(route)
    assert sent["max_tokens"] == 500
    assert "stream" not in sent  # a short cap needs no streaming
    route = anthropic_api.post("/v1/messages").mock(return_value=streamed(stream_events()))
    items = [i async for i in transport.stream([Message.user("Rome?")], max_output_tokens=700)]
    assert isinstance(items[-1], Completion)
    assert body(route)["max_tokens"] == 700


async def test_a_cap_above_the_model_limit_is_the_model_limit(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport
) -> None:
    route = anthropic_api.post("/v1/messages").respond(json=text_reply())
    await transport.complete([Message.user("Hi")], max_output_tokens=1_000_000)
    assert body(route)["max_tokens"] == 8192


@pytest.mark.parametrize("cap", [0, -5, 2.5, True, "100"])
async def test_an_invalid_cap_is_a_value_error_before_any_request(
    anthropic_api: respx.MockRouter, transport: AnthropicTransport, cap: object
) -> None:
    route = anthropic_api.post("/v1/messages").respond(json=text_reply())
    with pytest.raises(ValueError, match="max_output_tokens"):
        await transport.complete([Message.user("Hi")], max_output_tokens=cap)  # type: ignore[arg-type]
    assert not route.called
