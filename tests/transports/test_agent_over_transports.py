"""An Agent with a tool, run end to end over each real transport (respx-scripted)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import respx

from contextfold.agent import Agent, tool
from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.context import MemoryContextStore
from contextfold.messages import Message
from contextfold.transports import AnthropicTransport, OpenAITransport, RetryPolicy
from tests.transports.conftest import body


@tool
async def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"{city}: sunny, 24C"


EXPECTED = [
    Message.user("Weather in Paris?"),
    Message(
        "assistant",
        [TextBlock("Checking."), ToolUseBlock("call_1", "get_weather", {"city": "Paris"})],
    ),
    Message("user", [ToolResultBlock("call_1", "Paris: sunny, 24C")]),
    Message.assistant("It is sunny in Paris."),
]


def anthropic_reply(content: list[dict[str, Any]], stop: str, tokens: int) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "id": "msg",
            "type": "message",
            "role": "assistant",
            "model": "claude-haiku-4-5",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": tokens, "output_tokens": 9, "cache_read_input_tokens": 100},
        },
    )


async def test_agent_over_anthropic(anthropic_api: respx.MockRouter, policy: RetryPolicy) -> None:
    route = anthropic_api.post("/v1/messages")
    route.side_effect = [
        anthropic_reply(
            [
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "call_1",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                },
            ],
            "tool_use",
            50,
        ),
        anthropic_reply([{"type": "text", "text": "It is sunny in Paris."}], "end_turn", 80),
    ]
    transport = AnthropicTransport(
        "claude-haiku-4-5", api_key="k", max_output_tokens=4096, retry=policy
    )
    store = MemoryContextStore()
    answer = await Agent("You report weather.", transport, [get_weather]).run(
        "Weather in Paris?", store
    )
    assert answer == "It is sunny in Paris."
    assert await store.get_history() == EXPECTED
    assert await store.get_context_tokens() == (150 + 180, 18)
    second = body(route, 1)
    assert second["messages"][2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "call_1",
            "content": "Paris: sunny, 24C",
            "cache_control": {"type": "ephemeral"},
        }
    ]
    assert second["tools"][0]["name"] == "get_weather"


def openai_reply(message: dict[str, Any], finish: str, tokens: int) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o",
            "choices": [
                {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}
            ],
            "usage": {"prompt_tokens": tokens, "completion_tokens": 9, "total_tokens": tokens + 9},
        },
    )


async def test_agent_over_openai(openai_api: respx.MockRouter, policy: RetryPolicy) -> None:
    route = openai_api.post("/chat/completions")
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    route.side_effect = [
        openai_reply({"content": "Checking.", "tool_calls": [call]}, "tool_calls", 50),
        openai_reply({"content": "It is sunny in Paris."}, "stop", 80),
    ]
    transport = OpenAITransport("gpt-4o", api_key="k", retry=policy)
    store = MemoryContextStore()
    answer = await Agent("You report weather.", transport, [get_weather]).run(
        "Weather in Paris?", store
    )
    assert answer == "It is sunny in Paris."
    assert await store.get_history() == EXPECTED
    assert await store.get_context_tokens() == (130, 18)
    second = body(route, 1)
    assert second["messages"][0] == {"role": "system", "content": "You report weather."}
    assert second["messages"][3] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "Paris: sunny, 24C",
    }


async def test_agent_streams_over_openai(openai_api: respx.MockRouter, policy: RetryPolicy) -> None:
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": {"content": "Hi there"}, "finish_reason": "stop"}],
    }
    stream = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
    openai_api.post("/chat/completions").respond(
        content=stream, headers={"content-type": "text/event-stream"}
    )
    transport = OpenAITransport("gpt-4o", api_key="k", retry=policy)
    store = MemoryContextStore()
    deltas = [d async for d in Agent(None, transport).run_stream("Hello", store)]
    assert deltas == ["Hi there"]
    history = await store.get_history()
    assert history == [Message.user("Hello"), Message.assistant("Hi there")]
    input_tokens, _ = await store.get_context_tokens()
    assert input_tokens > 0  # no usage chunk: a local estimate is recorded
