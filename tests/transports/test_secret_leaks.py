"""An upstream that echoes the credential back: it must reach no error, chain, log or event.

Each case is a transport as a user builds it, with a credential of one kind (an
``sk-`` key, a bearer ``auth_token`` that looks like nothing in particular, a JWT, a
UUID, a gateway key in a custom header the user marks secret). The fake API (respx,
behind the real SDK) answers with an error that repeats every credential it received:
as is, wrapped over two lines, URL-encoded, nested in the JSON body, in a response
header and in the request id. The credential must then be absent from the raised
error, from every exception in its ``__cause__``/``__context__`` chain and everything
those hold, from the formatted traceback, from every log record at DEBUG (the SDKs log
response headers there), and, one level up, from what the Agent raises and from
AutoCompactStore's ``failed`` event and its warning.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anthropic
import httpx
import openai
import pytest
import respx

from contextfold.agent import Agent
from contextfold.compaction import AutoCompactStore, CompactionEvent
from contextfold.context import MemoryContextStore
from contextfold.errors import (
    AuthenticationError,
    ProviderUnavailableError,
    TransportError,
)
from contextfold.messages import Message
from contextfold.sqlite import SQLiteContextStore, connect
from contextfold.transports import AnthropicTransport, OpenAITransport, RetryPolicy
from tests._leaks import (
    ANTHROPIC_KEY,
    BEARER,
    JWT,
    OPENAI_KEY,
    UUID,
    assert_exception_clean,
    assert_logs_clean,
    debug_logging,
)
from tests.transports.conftest import ANTHROPIC_URL, OPENAI_URL, RecordingSleep

GATEWAY_HEADER = "X-Gateway-Key"
GATEWAY_KEY = "gw-7f3a1c-LEAKTEST-pass"
Transport = AnthropicTransport | OpenAITransport


@dataclass(frozen=True)
class Case:
    """A transport with one credential, and the API it talks to."""

    id: str
    provider: str  # "anthropic" / "openai"
    secrets: tuple[str, ...]
    make: Callable[[RetryPolicy], Transport]

    @property
    def url(self) -> tuple[str, str]:
        if self.provider == "anthropic":
            return ANTHROPIC_URL, "/v1/messages"
        return OPENAI_URL, "/chat/completions"


def _anthropic(policy: RetryPolicy, **kw: Any) -> Transport:
    return AnthropicTransport("claude-haiku-4-5", max_output_tokens=1024, retry=policy, **kw)


def _openai(policy: RetryPolicy, **kw: Any) -> Transport:
    return OpenAITransport("gpt-4o", retry=policy, **kw)


def _gateway_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(headers={GATEWAY_HEADER: GATEWAY_KEY})


CASES = [
    Case(
        "anthropic-api-key",
        "anthropic",
        (ANTHROPIC_KEY,),
        lambda p: _anthropic(p, api_key=ANTHROPIC_KEY),
    ),
    Case(
        "anthropic-auth-token",
        "anthropic",
        (BEARER,),
        lambda p: _anthropic(p, client=anthropic.AsyncAnthropic(auth_token=BEARER)),
    ),
    Case(
        "anthropic-jwt",
        "anthropic",
        (JWT,),
        lambda p: _anthropic(p, client=anthropic.AsyncAnthropic(auth_token=JWT)),
    ),
    Case(
        "anthropic-gateway-header",
        "anthropic",
        (UUID, GATEWAY_KEY),
        lambda p: _anthropic(
            p, api_key=UUID, http_client=_gateway_client(), secret_headers=[GATEWAY_HEADER]
        ),
    ),
    Case("openai-api-key", "openai", (OPENAI_KEY,), lambda p: _openai(p, api_key=OPENAI_KEY)),
    Case("openai-uuid", "openai", (UUID,), lambda p: _openai(p, api_key=UUID)),
    Case(
        "openai-client-with-gateway-header",
        "openai",
        (BEARER, GATEWAY_KEY),
        lambda p: _openai(
            p,
            client=openai.AsyncOpenAI(
                api_key=BEARER, default_headers={GATEWAY_HEADER: GATEWAY_KEY}
            ),
            secret_headers=[GATEWAY_HEADER.lower()],
        ),
    ),
]


def echoing(provider: str, status: int) -> Callable[[httpx.Request], httpx.Response]:
    """An API error that repeats every credential of the request, in many shapes."""

    def reply(request: httpx.Request) -> httpx.Response:
        sent = [
            value.split(" ", 1)[-1]
            for name, value in request.headers.items()
            if name.lower() in ("authorization", "x-api-key", GATEWAY_HEADER.lower())
        ]
        wrapped = [f"{s[: len(s) // 2]}\n  {s[len(s) // 2 :]}" for s in sent]
        message = (
            f"credentials {', '.join(sent)} rejected; wrapped: {' / '.join(wrapped)}; "
            f"encoded: {', '.join(quote(s, safe='') for s in sent)}"
        )
        echo = {"headers": dict(request.headers), "seen": sent}
        if provider == "anthropic":
            kind = "authentication_error" if status == 401 else "overloaded_error"
            payload: dict[str, Any] = {
                "type": "error",
                "error": {"type": kind, "message": message},
                "echo": echo,
            }
        else:
            payload = {
                "error": {"message": message, "type": "invalid_request_error", "code": None},
                "echo": echo,
            }
        first = sent[0] if sent else ""
        headers = {"x-echo": ", ".join(sent), "request-id": first, "x-request-id": first}
        return httpx.Response(status, content=json.dumps(payload).encode(), headers=headers)

    return reply


@pytest.fixture
def policy(sleeps: RecordingSleep) -> RetryPolicy:
    """Two attempts, so a transient failure is retried (and logged) once."""
    return RetryPolicy(max_attempts=2, initial_delay=0.0, sleep=sleeps)


def mocked(case: Case, status: int) -> tuple[respx.MockRouter, respx.Route]:
    base, path = case.url
    router = respx.mock(base_url=base, assert_all_called=True)
    route = router.post(path).mock(side_effect=echoing(case.provider, status))
    return router, route


async def call_model(transport: Transport, call: str) -> None:
    if call == "complete":
        await transport.complete([Message.user("Hi")])
        return
    async for _ in transport.stream([Message.user("Hi")]):
        pass


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
@pytest.mark.parametrize(
    ("status", "error"), [(401, AuthenticationError), (503, ProviderUnavailableError)]
)
@pytest.mark.parametrize("call", ["complete", "stream"])
async def test_an_echoed_credential_reaches_no_error_chain_or_log(
    case: Case,
    status: int,
    error: type[TransportError],
    call: str,
    policy: RetryPolicy,
    caplog: pytest.LogCaptureFixture,
) -> None:
    debug_logging(caplog)
    transport = case.make(policy)
    router, route = mocked(case, status)
    with router:
        with pytest.raises(error) as caught:
            await call_model(transport, call)
        assert route.call_count == (2 if status == 503 else 1)
    exc = caught.value
    assert_exception_clean(exc, case.secrets)
    assert_logs_clean(caplog, case.secrets)
    assert "[REDACTED]" in str(exc)  # the echo did come back, scrubbed
    assert exc.status == status
    assert exc.request_id == "[REDACTED]"  # echoed too (a real one is kept: see below)
    if status == 503:
        assert "retry 1 of 1" in caplog.text


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_the_agent_raises_the_scrubbed_error(
    case: Case, policy: RetryPolicy, caplog: pytest.LogCaptureFixture
) -> None:
    debug_logging(caplog)
    agent = Agent("You help.", case.make(policy))
    with mocked(case, 503)[0], pytest.raises(ProviderUnavailableError) as caught:
        await agent.run("Hi", MemoryContextStore())
    assert_exception_clean(caught.value, case.secrets)
    assert_logs_clean(caplog, case.secrets)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_a_failed_compaction_reports_no_credential(
    case: Case, policy: RetryPolicy, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    debug_logging(caplog)
    events: list[CompactionEvent] = []
    conn = await connect(tmp_path / "session.db")
    inner = SQLiteContextStore(conn, session_id="leak")
    transport = case.make(policy)
    store = AutoCompactStore(
        inner, transport, keep_recent=2, max_tokens=2_000, on_event=events.append
    )
    for i in range(6):
        await store.append(Message.user(f"question {i} " + "q" * 400))
        await store.append(Message.assistant(f"answer {i} " + "a" * 400))
    with mocked(case, 401)[0]:
        assert await store.compact(force=True) is False
    (failed,) = [e for e in events if e.phase == "after"]
    assert failed.outcome == "failed"
    assert failed.error is not None
    assert "[REDACTED]" in failed.error
    for secret in case.secrets:
        assert secret not in repr(failed)
    assert_logs_clean(caplog, case.secrets)
    assert "history left untouched" in caplog.text
    await conn.close()
    for name, data in stored_files(tmp_path).items():
        for secret in case.secrets:
            assert secret.encode() not in data, name


def stored_files(folder: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in folder.iterdir()}


@pytest.mark.parametrize("case", [CASES[1], CASES[5]], ids=[CASES[1].id, CASES[5].id])
async def test_an_error_keeps_the_providers_request_id(case: Case, policy: RetryPolicy) -> None:
    # The SDK's exception is no longer chained: its request id travels on ours.
    base, path = case.url
    payload = {"error": {"type": "invalid_request_error", "message": "max_tokens: too large"}}
    headers = {"request-id": "req_011CUa7x", "x-request-id": "req_011CUa7x"}
    with respx.mock(base_url=base) as router:
        router.post(path).respond(400, json=payload, headers=headers)
        with pytest.raises(TransportError) as caught:
            await case.make(policy).complete([Message.user("Hi")])
    assert caught.value.request_id == "req_011CUa7x"
    assert caught.value.status == 400
    assert caught.value.body in (payload, payload["error"])  # the OpenAI SDK unwraps it
    assert "max_tokens: too large" in str(caught.value)


def _error_event(provider: str, secret: str) -> bytes:
    """A 200 event stream that starts a reply, then fails with an error event echoing ``secret``."""
    message = f"overloaded while serving {secret}"
    if provider == "anthropic":
        start = {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-haiku-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 5, "output_tokens": 0},
            },
        }
        error = {"type": "error", "error": {"type": "overloaded_error", "message": message}}
        return (
            f"event: message_start\ndata: {json.dumps(start)}\n\n"
            f"event: error\ndata: {json.dumps(error)}\n\n"
        ).encode()
    return (
        f"data: {json.dumps({'error': {'message': message, 'type': 'server_error'}})}\n\n".encode()
    )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_an_error_event_inside_a_stream_is_scrubbed(
    case: Case, caplog: pytest.LogCaptureFixture
) -> None:
    debug_logging(caplog)
    base, path = case.url
    secret = case.secrets[0]
    reply = httpx.Response(
        200,
        content=_error_event(case.provider, secret),
        headers={"content-type": "text/event-stream"},
    )
    with respx.mock(base_url=base) as router:
        router.post(path).mock(return_value=reply)
        with pytest.raises(TransportError) as caught:
            await call_model(case.make(RetryPolicy(max_attempts=1)), "stream")
    assert_exception_clean(caught.value, case.secrets)
    assert_logs_clean(caplog, case.secrets)
    assert "[REDACTED]" in str(caught.value)
