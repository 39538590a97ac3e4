"""Fixtures for transport tests: respx routers on the real provider endpoints.

Every request goes through the official SDK's real HTTP path; respx answers it.
``sleeps`` records the retry waits instead of sleeping. The reply and error bodies
each provider sends live here, ``broken_stream`` is a connection that drops in the
middle of a reply, and ``sdk`` runs a test once per provider for what both SDK
transports must do alike.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import respx

from contextfold.transports import AnthropicTransport, OpenAITransport, RetryPolicy

FAKE_ANTHROPIC_KEY = "sk-ant-api03-FAKEKEY-zebra-quokka-771"
FAKE_OPENAI_KEY = "sk-proj-FAKEKEY-walrus-narwhal-332"
ANTHROPIC_URL = "https://api.anthropic.com"
OPENAI_URL = "https://api.openai.com/v1"


class RecordingSleep:
    """An injected sleep: records each delay, waits for nothing."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def sleeps() -> RecordingSleep:
    return RecordingSleep()


@pytest.fixture
def policy(sleeps: RecordingSleep) -> RetryPolicy:
    """Four attempts, 1s/2s/4s ceilings, jitter pinned at half the ceiling."""
    return RetryPolicy(max_attempts=4, initial_delay=1.0, sleep=sleeps, rng=lambda: 0.5)


@pytest.fixture
def anthropic_api() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url=ANTHROPIC_URL, assert_all_called=False) as router:
        yield router


@pytest.fixture
def openai_api() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url=OPENAI_URL, assert_all_called=False) as router:
        yield router


def sse(events: list[tuple[str | None, Any]]) -> bytes:
    """A server-sent event stream: ``(event name or None, data)`` pairs."""
    out = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
    return "".join(out).encode()


def body(route: respx.Route, call: int = -1) -> Any:
    """The JSON body of one request a route received."""
    return json.loads(route.calls[call].request.content)


def streamed(content: bytes) -> httpx.Response:
    """A 200 answer carrying a server-sent event stream."""
    return httpx.Response(200, content=content, headers={"content-type": "text/event-stream"})


class _DropsAfter(httpx.AsyncByteStream):
    """A response body that sends ``head``, then fails as a reset connection does."""

    def __init__(self, head: bytes) -> None:
        self.head = head

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self.head:
            yield self.head
        raise httpx.ReadError("connection reset by peer")

    async def aclose(self) -> None:
        pass


def broken_stream(head: bytes) -> httpx.Response:
    """A 200 event stream whose connection is reset after ``head`` was sent."""
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, stream=_DropsAfter(head)
    )


async def drain(stream: AsyncIterator[object], seen: list[object]) -> None:
    """Consume ``stream`` into ``seen``, so a test sees what came before a failure."""
    async for item in stream:
        seen.append(item)


def anthropic_message(
    content: list[dict[str, Any]], stop: str = "end_turn", **usage: int
) -> dict[str, Any]:
    """A Messages API reply body (12 input and 7 output tokens, plus ``usage``)."""
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5-20251001",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 7, **usage},
    }


def anthropic_text(text: str = "Hello!") -> dict[str, Any]:
    return anthropic_message([{"type": "text", "text": text}])


def anthropic_error(status: int, kind: str, message: str) -> httpx.Response:
    payload = {"type": "error", "error": {"type": kind, "message": message}}
    return httpx.Response(status, json=payload)


OPENAI_USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 30,
    "total_tokens": 1230,
    "prompt_tokens_details": {"cached_tokens": 1024},
}


def openai_completion(
    message: dict[str, Any], finish: str = "stop", usage: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A Chat Completions reply body with one choice (and ``usage`` when given)."""
    data: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-2024-08-06",
        "choices": [
            {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}
        ],
    }
    if usage is not None:
        data["usage"] = usage
    return data


def openai_text(text: str = "Hello!") -> dict[str, Any]:
    return openai_completion({"content": text}, usage=OPENAI_USAGE)


def openai_error(status: int, message: str, code: str | None = None) -> httpx.Response:
    payload = {
        "error": {"message": message, "type": "invalid_request_error", "code": code, "param": None}
    }
    return httpx.Response(status, json=payload)


Transport = AnthropicTransport | OpenAITransport


@dataclass(frozen=True)
class SDKCase:
    """One provider, as the tests of the machinery both SDK transports share see it."""

    name: str
    key: str
    path: str  # the endpoint, relative to ``api``'s base URL
    api: respx.MockRouter
    make: Callable[..., Transport]  # the transport for a small model; keywords go through
    ok: Callable[[], dict[str, Any]]  # a successful reply body
    key_rejected: Callable[[str], httpx.Response]  # a 401 whose message echoes the key


@pytest.fixture(params=["anthropic", "openai"])
def sdk(request: pytest.FixtureRequest) -> SDKCase:
    """Each provider in turn, its respx router active."""
    api: respx.MockRouter = request.getfixturevalue(f"{request.param}_api")
    if request.param == "anthropic":
        return SDKCase(
            "anthropic",
            FAKE_ANTHROPIC_KEY,
            "/v1/messages",
            api,
            lambda **kw: AnthropicTransport("claude-haiku-4-5", max_output_tokens=8192, **kw),
            anthropic_text,
            lambda key: anthropic_error(401, "authentication_error", f"invalid x-api-key: {key}"),
        )
    return SDKCase(
        "openai",
        FAKE_OPENAI_KEY,
        "/chat/completions",
        api,
        lambda **kw: OpenAITransport("gpt-4o", **kw),
        openai_text,
        lambda key: openai_error(
            401,
            f"Incorrect API key provided: {key}. You can find your API key at ...",
            "invalid_api_key",
        ),
    )
