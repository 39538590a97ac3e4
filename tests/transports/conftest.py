"""Fixtures for transport tests: respx routers on the real provider endpoints.

Every request goes through the official SDK's real HTTP path; respx answers it.
``sleeps`` records the retry waits instead of sleeping.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import respx

from contextfold.transports import RetryPolicy

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
