"""OpenAITransport through the real openai SDK, answered by respx."""

from __future__ import annotations

import json
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
)
from contextfold.messages import Message
from contextfold.transports import Completion, OpenAITransport, RetryPolicy, ToolSpec, Usage
from tests.transports.conftest import (
    FAKE_OPENAI_KEY,
    RecordingSleep,
    body,
    broken_stream,
    drain,
    sse,
    streamed,
)
from tests.transports.conftest import OPENAI_USAGE as USAGE
from tests.transports.conftest import openai_completion as completion_json
from tests.transports.conftest import openai_error as error
from tests.transports.conftest import openai_text as text_json

MODEL = "gpt-4o"
WEATHER = ToolSpec("get_weather", "Weather for a city.", {"type": "object", "properties": {}})


def tool_call_json(call_id: str, arguments: str) -> dict[str, Any]:
    """A reply that only calls ``get_weather`` with ``arguments`` (raw JSON text)."""
    function = {"name": "get_weather", "arguments": arguments}
    call = {"id": call_id, "type": "function", "function": function}
    return completion_json({"content": None, "tool_calls": [call]}, "tool_calls", USAGE)


@pytest.fixture
def transport(policy: RetryPolicy) -> OpenAITransport:
    return OpenAITransport(MODEL, api_key=FAKE_OPENAI_KEY, retry=policy)


async def test_text_reply_usage_and_request_basics(
    openai_api: respx.MockRouter, transport: OpenAITransport
) -> None:
    route = openai_api.post("/chat/completions").respond(json=text_json())
    completion = await transport.complete([Message.user("Hi")], system="Be brief.")
    assert completion == Completion(
        [TextBlock("Hello!")],
        "end_turn",
        Usage(1200, 30, cache_read_tokens=1024),
        "gpt-4o-2024-08-06",
    )
    sent = body(route)
    assert sent == {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
        ],
        "max_tokens": 16_384,
    }
    assert route.calls[0].request.headers["authorization"] == f"Bearer {FAKE_OPENAI_KEY}"


async def test_tools_results_and_images_on_the_wire(
    openai_api: respx.MockRouter, transport: OpenAITransport
) -> None:
    route = openai_api.post("/chat/completions").respond(json=text_json("sunny"))
    history = [
        Message("user", [TextBlock("Weather?"), ImageBlock("image/jpeg", b"\xff\xd8")]),
        Message(
            "assistant",
            [
                ThinkingBlock("private", "sig"),
                TextBlock("Checking."),
                ToolUseBlock("call_1", "get_weather", {"city": "Paris"}),
            ],
        ),
        Message(
            "user",
            [ToolResultBlock("call_1", "boom", is_error=True)],
        ),
    ]
    await transport.complete(history, [WEATHER])
    sent = body(route)
    assert sent["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city.",
                "parameters": WEATHER.input_schema,
            },
        }
    ]
    assert sent["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Weather?"},
                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9g="}},
            ],
        },
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Error: boom"},
    ]


async def test_image_only_tool_result_is_sent_with_text(
    openai_api: respx.MockRouter, transport: OpenAITransport
) -> None:
    route = openai_api.post("/chat/completions").respond(json=text_json("a cat"))
    shot = ImageBlock("image/png", b"\x89PNG")
    history = [
        Message.user("What is on screen?"),
        Message("assistant", [ToolUseBlock("call_1", "screenshot", {})]),
        Message("user", [ToolResultBlock("call_1", [shot], is_error=True)]),
    ]
    await transport.complete(history)
    sent = body(route)["messages"]
    assert sent[2] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": [
            {"type": "text", "text": "Error: [the tool returned only images; they follow]"}
        ],
    }
    assert sent[3]["role"] == "user"
    assert sent[3]["content"][0] == {
        "type": "text",
        "text": "[images returned by tool call call_1]",
    }
    assert all(m["content"] != [] for m in sent)


async def test_mid_history_system_message_is_sent_after_the_tool_messages(
    openai_api: respx.MockRouter, transport: OpenAITransport
) -> None:
    route = openai_api.post("/chat/completions").respond(json=text_json("ok"))
    history = [
        Message.user("List files."),
        Message("assistant", [ToolUseBlock("call_1", "ls", {})]),
        Message.system("Budget: 10% left."),
        Message("user", [ToolResultBlock("call_1", "a.txt")]),
    ]
    await transport.complete(history, system="Be brief.")
    assert body(route)["messages"][1:] == [
        {"role": "user", "content": "List files."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
        {"role": "system", "content": "Budget: 10% left."},
    ]


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("o3-mini", "max_completion_tokens"),
        ("gpt-5", "max_completion_tokens"),
        ("gpt-4.1", "max_tokens"),
    ],
)
async def test_output_limit_parameter_depends_on_the_model(
    openai_api: respx.MockRouter, policy: RetryPolicy, model: str, key: str
) -> None:
    route = openai_api.post("/chat/completions").respond(json=text_json())
    transport = OpenAITransport(model, api_key="k", retry=policy)
    await transport.complete([Message.user("Hi")])
    sent = body(route)
    assert sent[key] == transport.model.max_output_tokens
    other = {"max_tokens", "max_completion_tokens"} - {key}
    assert not other & set(sent)


async def test_tool_call_reply_and_finish_reasons(
    openai_api: respx.MockRouter, transport: OpenAITransport
) -> None:
    openai_api.post("/chat/completions").respond(json=tool_call_json("call_9", '{"city": "Oslo"}'))
    completion = await transport.complete([Message.user("Oslo?")], [WEATHER])
    assert completion.content == [ToolUseBlock("call_9", "get_weather", {"city": "Oslo"})]
    assert completion.stop_reason == "tool_use"


@pytest.mark.parametrize(
    ("finish", "stop"),
    [("stop", "end_turn"), ("length", "max_tokens"), ("content_filter", "refusal")],
)
async def test_finish_reason_mapping(
    openai_api: respx.MockRouter, transport: OpenAITransport, finish: str, stop: str
) -> None:
    openai_api.post("/chat/completions").respond(
        json=completion_json({"content": "x"}, finish, USAGE)
    )
    assert (await transport.complete([Message.user("Hi")])).stop_reason == stop


async def test_compatible_server_without_key_or_usage(policy: RetryPolicy) -> None:
    base = "http://localhost:11434/v1"
    with respx.mock(base_url=base) as local:
        reply = completion_json(
            {"content": "hi there", "reasoning_content": "thinking..."}, usage=None
        )
        route = local.post("/chat/completions").respond(json=reply)
        transport = OpenAITransport("qwen3:8b", base_url=base, retry=policy)
        completion = await transport.complete([Message.user("Hello " * 50)], [WEATHER])
    assert completion.content == [ThinkingBlock("thinking..."), TextBlock("hi there")]
    assert completion.usage.estimated
    assert completion.usage.input_tokens > 75  # 300 characters of prompt plus the tool
    assert completion.usage.output_tokens > 0
    sent = body(route)
    assert "max_tokens" not in sent  # unknown local model: the server's own default
    assert "max_completion_tokens" not in sent
    with respx.mock(base_url=base) as local:
        route = local.post("/chat/completions").respond(json=text_json())
        explicit = OpenAITransport("qwen3:8b", base_url=base, max_output_tokens=2048, retry=policy)
        await explicit.complete([Message.user("Hi")])
        assert body(route)["max_tokens"] == 2048


def stream_chunks() -> bytes:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-s",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o-2024-08-06",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    args = json.dumps({"city": "Rome"})
    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Let me "}),
        chunk({"content": "look."}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_s",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[:6]}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[6:]}}]}),
        chunk({}, "tool_calls"),
        {
            "id": "chatcmpl-s",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o-2024-08-06",
            "choices": [],
            "usage": USAGE,
        },
    ]
    return sse([(None, e) for e in events] + [(None, "[DONE]")])


async def test_stream_text_tool_call_and_usage_chunk(
    openai_api: respx.MockRouter, transport: OpenAITransport
) -> None:
    route = openai_api.post("/chat/completions").mock(return_value=streamed(stream_chunks()))
    items = [item async for item in transport.stream([Message.user("Rome?")], [WEATHER])]
    assert items[:2] == ["Let me ", "look."]
    final = items[2]
    assert isinstance(final, Completion)
    assert final.content == [
        TextBlock("Let me look."),
        ToolUseBlock("call_s", "get_weather", {"city": "Rome"}),
    ]
    assert final.stop_reason == "tool_use"
    assert final.usage == Usage(1200, 30, cache_read_tokens=1024)
    sent = body(route)
    assert sent["stream"] is True
    assert sent["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize(
    "failure",
    [
        httpx.Response(
            429,
            json={
                "error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}
            },
        ),
        httpx.Response(500, json={"error": {"message": "oops", "type": "server_error"}}),
        httpx.Response(502, text="<html>bad gateway</html>"),
        httpx.Response(503, json={"error": {"message": "busy", "type": "server_error"}}),
        httpx.ConnectError("refused"),
        httpx.ReadTimeout("slow"),
    ],
    ids=["429", "500", "502", "503", "connect", "timeout"],
)
async def test_transient_failures_are_retried_then_succeed(
    openai_api: respx.MockRouter,
    transport: OpenAITransport,
    sleeps: RecordingSleep,
    failure: httpx.Response | Exception,
) -> None:
    route = openai_api.post("/chat/completions")
    route.side_effect = [failure, httpx.Response(200, json=text_json("done"))]
    assert (await transport.complete([Message.user("Hi")])).text == "done"
    assert route.call_count == 2
    assert sleeps.delays == [0.5]


async def test_retry_after_http_date_is_honoured(
    openai_api: respx.MockRouter, transport: OpenAITransport, sleeps: RecordingSleep
) -> None:
    limited = httpx.Response(
        503,
        headers={"retry-after": "Wed, 21 Oct 2099 07:28:00 GMT"},
        json={"error": {"message": "x"}},
    )
    openai_api.post("/chat/completions").side_effect = [limited]
    # A hint beyond max_retry_after (120s) is not waited out: the error surfaces.
    with pytest.raises(ProviderUnavailableError) as caught:
        await transport.complete([Message.user("Hi")])
    assert caught.value.retry_after is not None
    assert caught.value.retry_after > 120
    assert sleeps.delays == []


@pytest.mark.parametrize(
    ("status", "raised"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, AuthenticationError),
        (404, BadRequestError),
    ],
)
async def test_client_errors_are_not_retried(
    openai_api: respx.MockRouter,
    transport: OpenAITransport,
    sleeps: RecordingSleep,
    status: int,
    raised: type[TransportError],
) -> None:
    route = openai_api.post("/chat/completions").mock(return_value=error(status, "nope"))
    with pytest.raises(raised) as caught:
        await transport.complete([Message.user("Hi")])
    assert type(caught.value) is raised
    assert route.call_count == 1
    assert sleeps.delays == []
    if raised is AuthenticationError:
        assert "OPENAI_API_KEY" in str(caught.value)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (
            "This model's maximum context length is 128000 tokens. "
            "However, your messages resulted in 130512 tokens.",
            "context_length_exceeded",
        ),
        (
            "This model's maximum context length is 4096 tokens. "
            "However, you requested 5000 tokens.",
            None,
        ),
    ],
)
async def test_overflow_errors_map_to_context_overflow(
    openai_api: respx.MockRouter, transport: OpenAITransport, message: str, code: str | None
) -> None:
    openai_api.post("/chat/completions").mock(return_value=error(400, message, code))
    with pytest.raises(ContextOverflowError) as caught:
        await transport.complete([Message.user("Hi")])
    assert caught.value.status == 400


async def test_stream_is_not_retried_after_output(
    openai_api: respx.MockRouter, transport: OpenAITransport
) -> None:
    partial = stream_chunks().split(b"\n\n")[:3]  # role chunk and two text chunks
    broken = (
        b"\n\n".join(partial)
        + b"\n\n"
        + sse([("error", {"error": {"message": "upstream died", "type": "server_error"}})])
    )
    route = openai_api.post("/chat/completions")
    route.side_effect = [streamed(broken), streamed(stream_chunks())]
    seen: list[object] = []
    with pytest.raises(ProviderUnavailableError):
        await drain(transport.stream([Message.user("Hi")]), seen)
    assert seen == ["Let me ", "look."]
    assert route.call_count == 1


def stream_head(chunks: int) -> bytes:
    """The first ``chunks`` events of ``stream_chunks()`` (role chunk, "Let me ", "look.")."""
    return b"".join(event + b"\n\n" for event in stream_chunks().split(b"\n\n")[:chunks])


async def test_connection_reset_mid_stream_before_text_is_retried(
    openai_api: respx.MockRouter, transport: OpenAITransport, sleeps: RecordingSleep
) -> None:
    route = openai_api.post("/chat/completions")
    route.side_effect = [broken_stream(stream_head(1)), streamed(stream_chunks())]
    items = [item async for item in transport.stream([Message.user("Hi")])]
    assert items[:2] == ["Let me ", "look."]
    assert isinstance(items[-1], Completion)
    assert route.call_count == 2
    assert sleeps.delays == [0.5]


async def test_connection_reset_mid_stream_after_text_is_raised_translated(
    openai_api: respx.MockRouter, transport: OpenAITransport, sleeps: RecordingSleep
) -> None:
    route = openai_api.post("/chat/completions")
    route.side_effect = [broken_stream(stream_head(3)), streamed(stream_chunks())]
    seen: list[object] = []
    with pytest.raises(TransportConnectionError) as caught:
        await drain(transport.stream([Message.user("Hi")]), seen)
    assert seen == ["Let me ", "look."]
    assert route.call_count == 1
    assert sleeps.delays == []
    assert caught.value.provider == "openai"


async def test_invalid_tool_arguments_are_a_response_format_error(
    openai_api: respx.MockRouter, transport: OpenAITransport
) -> None:
    openai_api.post("/chat/completions").respond(json=tool_call_json("c", "{not json"))
    with pytest.raises(ResponseFormatError, match="not valid JSON"):
        await transport.complete([Message.user("Hi")], [WEATHER])


def test_missing_key_names_the_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    import openai

    with pytest.raises(AuthenticationError, match="OPENAI_API_KEY"):
        OpenAITransport(MODEL)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_OPENAI_KEY)
    OpenAITransport(MODEL)
    client = openai.AsyncOpenAI(api_key="k", max_retries=7)
    transport = OpenAITransport(MODEL, client=client)
    assert transport._client.max_retries == 0
    assert client.max_retries == 7


# --- the output cap (issue 13, item 2) -------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "key", "expected"),
    [
        ("gpt-4.1", "max_tokens", 700),
        ("gpt-4o", "max_tokens", 700),
        ("o3-mini", "max_completion_tokens", 700 + 25_000),  # OpenAI: reserve ~25k to reason
        ("o1-mini", "max_completion_tokens", 65_536),  # never above the model's own limit
    ],
)
async def test_a_call_cap_is_sent_in_the_models_parameter(
    openai_api: respx.MockRouter, policy: RetryPolicy, model: str, key: str, expected: int
) -> None:
    route = openai_api.post("/chat/completions").respond(json=text_json())
    transport = OpenAITransport(model, api_key="k", retry=policy)
    if model == "o1-mini":
        await transport.complete([Message.user("Hi")], max_output_tokens=60_000)
    else:
        await transport.complete([Message.user("Hi")], max_output_tokens=700)
    sent = body(route)
    assert sent[key] == expected
    assert not ({"max_tokens", "max_completion_tokens"} - {key}) & set(sent)


async def test_a_streamed_reply_takes_the_cap_too(
    openai_api: respx.MockRouter, transport: OpenAITransport
) -> None:
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}],
    }
    route = openai_api.post("/chat/completions").mock(
        return_value=streamed(sse([(None, chunk), (None, "[DONE]")]))
    )
    items = [i async for i in transport.stream([Message.user("Hi")], max_output_tokens=321)]
    assert isinstance(items[-1], Completion)
    assert body(route)["max_tokens"] == 321
