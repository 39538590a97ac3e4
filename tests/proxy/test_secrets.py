"""The proxy in front of an upstream that echoes the caller's credentials back.

The fake upstream repeats the ``Authorization`` / ``x-api-key`` / gateway-key values it
receives in every response header, in a summary it is asked to write and, when told
to fail, in its error. Whatever the proxy itself produces - its ``x-contextfold-*``
headers, its log records at DEBUG (the proxy's, the summarizing transport's, the
SDKs' and ``httpcore``'s), its SQLite summary cache - must not hold the credential.
What the upstream answers the caller is relayed as it is: the echo goes back only to
whoever sent the credential (checked below, so that the boundary is stated).
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from contextfold.proxy import ProxyOptions, create_app
from tests._faces import app_arguments
from tests._leaks import (
    ANTHROPIC_KEY,
    BEARER,
    JWT,
    UUID,
    assert_logs_clean,
    debug_logging,
    leaks_in_text,
)
from tests._proxy_upstream import ProxyApps, Seen, Upstream, anthropic_history, openai_history
from tests._raw_http import Served

MODEL = "test-model"
GATEWAY_HEADER = "x-portkey-api-key"
GATEWAY_KEY = "pk-live-LEAKTEST-77c1e9-heron"
SETTINGS: dict[str, Any] = {"context_window": 32_768, "threshold": 0.25}
_CREDENTIAL_HEADERS = ("authorization", "x-api-key", "cookie", GATEWAY_HEADER)

MakeApp = Callable[..., Awaitable[Starlette]]


def _credentials(headers: dict[str, str]) -> list[str]:
    return [
        value.split(" ", 1)[-1] for name, value in headers.items() if name in _CREDENTIAL_HEADERS
    ]


class EchoingUpstream(Upstream):
    """:class:`Upstream` that repeats the request's credentials wherever it can."""

    async def _summary_reply(self, seen: Seen) -> tuple[int, dict[str, Any]] | str:
        reply = await super()._summary_reply(seen)
        if isinstance(reply, str):  # a summary that quotes the caller's key
            quoted = f" The user's key is {' '.join(_credentials(seen.headers))}."
            return reply.replace("</summary>", quoted + "</summary>")
        return reply

    def app(self) -> Starlette:
        app = super().app()
        app.add_middleware(_EchoHeaders)
        return app


class _EchoHeaders:
    """ASGI middleware: every response carries the request's credentials in two headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        echoed = ", ".join(_credentials(headers)).encode()

        async def send_echo(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [(b"x-echo", echoed), (b"request-id", echoed)]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_echo)


def failing_with_echo(secret: str) -> tuple[int, dict[str, Any]]:
    """A 503 whose message repeats ``secret``: as is, wrapped, URL-encoded."""
    half = len(secret) // 2
    message = (
        f"upstream overloaded for {secret}; wrapped {secret[:half]}\n{secret[half:]}; "
        f"encoded {secret.replace('-', '%2D')}"
    )
    return 503, {"type": "error", "error": {"type": "overloaded_error", "message": message}}


@pytest.fixture
def upstream() -> EchoingUpstream:
    return EchoingUpstream()


@pytest.fixture
async def make_app(upstream: EchoingUpstream, tmp_path: Path) -> AsyncIterator[MakeApp]:
    apps = ProxyApps(upstream)

    async def make(**overrides: Any) -> Starlette:
        return await apps.make(
            upstream_openai="http://upstream.test/v1",
            upstream_anthropic="http://upstream.test",
            db=tmp_path / "proxy.db",
            **{**SETTINGS, **overrides},
        )

    yield make
    await apps.close()


def local(app: ASGIApp) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test")


def stored(folder: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in folder.iterdir()}


def assert_nothing_stored(folder: Path, secrets: list[str]) -> None:
    files = stored(folder)
    assert "proxy.db" in files
    for name, data in files.items():
        for secret in secrets:
            assert secret.encode() not in data, name


def request_for(path: str) -> dict[str, Any]:
    if path == "/v1/messages":
        return {"model": MODEL, "max_tokens": 10, "messages": anthropic_history(24)}
    return {"model": MODEL, "messages": openai_history(24)}


CALLERS = [
    pytest.param(
        "/v1/messages", {"authorization": f"Bearer {BEARER}"}, BEARER, id="anthropic-oauth"
    ),
    pytest.param("/v1/messages", {"authorization": f"Bearer {JWT}"}, JWT, id="anthropic-jwt"),
    pytest.param("/v1/messages", {"x-api-key": ANTHROPIC_KEY}, ANTHROPIC_KEY, id="anthropic-key"),
    pytest.param(
        "/v1/chat/completions", {"authorization": f"Bearer {UUID}"}, UUID, id="openai-uuid"
    ),
]


@pytest.mark.parametrize(("path", "headers", "secret"), CALLERS)
async def test_a_failed_summary_reports_no_credential(
    make_app: MakeApp,
    upstream: EchoingUpstream,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    path: str,
    headers: dict[str, str],
    secret: str,
) -> None:
    debug_logging(caplog)
    # One retry: the transport's "retry 1 of 1" warning quotes the error too.
    app = await make_app(summary_max_retries=1)
    upstream.fail_summary = failing_with_echo(secret)
    async with local(app) as client:
        reply = await client.post(path, json=request_for(path), headers=headers)
    assert reply.status_code == 200
    assert len(upstream.summaries) == 2
    for name, value in reply.headers.items():
        if name.startswith("x-contextfold-"):
            assert leaks_in_text(value, [secret]) == [], (name, value)
    assert_logs_clean(caplog, [secret])
    assert_nothing_stored(tmp_path, [secret])
    assert "[REDACTED]" in reply.headers["x-contextfold-error"]
    assert "retry 1 of 1" in caplog.text
    assert "summarization failed" in caplog.text


@pytest.mark.parametrize(("path", "headers", "secret"), CALLERS)
async def test_a_summary_that_quotes_the_key_is_stored_without_it(
    make_app: MakeApp,
    upstream: EchoingUpstream,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    path: str,
    headers: dict[str, str],
    secret: str,
) -> None:
    debug_logging(caplog)
    # One tenant (a gateway's user id), two keys: the second caller is served the
    # summary the first one's request made (another tenant never is: test_tenants.py).
    app = await make_app(tenant_header="x-user-id")
    async with local(app) as client:
        mine = {**headers, "x-user-id": "user-7"}
        first = await client.post(path, json=request_for(path), headers=mine)
        assert first.headers["x-contextfold-summary"] == "created"
        # Another caller of that tenant, same conversation: served the cached summary.
        other = {"authorization": "Bearer someone-else-entirely-000", "x-user-id": "user-7"}
        second = await client.post(path, json=request_for(path), headers=other)
    assert second.headers["x-contextfold-summary"] == "cached"
    forwarded = [seen.raw.decode() for seen in upstream.chats]
    assert "The user's key is [REDACTED]." in forwarded[-1]
    for raw in forwarded:
        assert secret not in raw
    assert_logs_clean(caplog, [secret])
    assert_nothing_stored(tmp_path, [secret])


async def test_the_upstreams_own_answer_is_relayed_as_it_is(
    make_app: MakeApp, upstream: EchoingUpstream
) -> None:
    # The boundary: the proxy adds no credential, and hides none from their owner.
    app = await make_app()
    upstream.fail_chat = (401, {"error": {"message": f"bad token {BEARER}"}}, {})
    async with local(app) as client:
        reply = await client.post(
            "/v1/chat/completions",
            json={"model": MODEL, "messages": openai_history(1)},
            headers={"authorization": f"Bearer {BEARER}"},
        )
    assert reply.status_code == 401
    assert reply.json() == {"error": {"message": f"bad token {BEARER}"}}
    assert reply.headers["x-echo"] == BEARER
    assert BEARER not in json.dumps(
        {k: v for k, v in reply.headers.items() if k.startswith("x-contextfold-")}
    )


async def test_secret_headers_named_by_the_operator_stay_out_of_debug_logs(
    upstream: EchoingUpstream, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The upstream on a real socket: the summarizer's SDK logs the response headers
    # (with the echo) at DEBUG. The caller reaches the proxy in-process, so that only
    # the proxy's own records are captured (a caller's client logs what it receives).
    debug_logging(caplog)
    secrets = [GATEWAY_KEY, BEARER, "session-cookie-LEAKTEST-4242"]
    headers = {
        GATEWAY_HEADER: GATEWAY_KEY,
        "authorization": f"Bearer {BEARER}",
        "cookie": f"sid={secrets[2]}",
    }
    async with Served(upstream.app()) as up:
        app = create_app(
            **app_arguments(
                upstream_openai=f"{up.url}/v1",
                upstream_anthropic=up.url,
                db=tmp_path / "proxy.db",
                **SETTINGS,
                options=ProxyOptions(secret_headers=[GATEWAY_HEADER.upper()]),
            )
        )
        async with app.router.lifespan_context(app), local(app) as client:
            models = await client.get("/v1/models", headers=headers)
            chat = await client.post(
                "/v1/chat/completions", json=request_for("/v1/chat/completions"), headers=headers
            )
    assert models.status_code == chat.status_code == 200
    assert chat.headers["x-contextfold-summary"] == "created"
    assert upstream.seen[0].headers[GATEWAY_HEADER] == GATEWAY_KEY  # forwarded untouched
    assert "HTTP Response:" in caplog.text  # the SDK's DEBUG trace of headers was on
    assert_logs_clean(caplog, secrets)
    assert_nothing_stored(tmp_path, secrets)


GEMINI_KEY = "AIzaSyLEAKTEST-gemini-osprey-0042"


async def test_query_credentials_never_reach_a_served_proxys_access_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The access log at INFO, through uvicorn's own formatter, on a real server.
    from uvicorn.logging import AccessFormatter

    debug_logging(caplog)
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(AccessFormatter('"%(request_line)s" %(status_code)s', use_colors=False))
    access = logging.getLogger("uvicorn.access")
    names = ["key", "api_key", "API-KEY", "access_token", "Token"]
    async with Served(Upstream().app()) as up:
        app = create_app(upstream_openai=f"{up.url}/v1", db=tmp_path / "proxy.db")
        async with Served(app) as proxy:
            level = access.level
            access.addHandler(handler)
            access.setLevel(logging.INFO)
            try:
                async with httpx2.AsyncClient(base_url=proxy.url) as client:
                    for name in names:
                        reply = await client.get(f"/v1/models?alt=json&{name}={GEMINI_KEY}")
                        assert reply.status_code == 200
            finally:
                access.removeHandler(handler)
                access.setLevel(level)
    # each request twice: the fake upstream (served alike) logs it after the proxy sent it
    lines = out.getvalue().splitlines()
    line = '"GET /v1/models?alt=json&{}=[REDACTED] HTTP/1.1" 200 OK'
    assert lines == [line.format(name) for name in names for _ in range(2)]
    assert_logs_clean(caplog, [GEMINI_KEY])


async def test_an_upstream_error_is_logged_on_bounded_lines_of_its_own(
    make_app: MakeApp, upstream: EchoingUpstream, caplog: pytest.LogCaptureFixture
) -> None:
    # A summarizer's upstream answers an error body holding CR/LF (a forged log line)
    # and 200 KB: each record that quotes it stays one line, cut to a bound.
    debug_logging(caplog)
    app = await make_app(summary_max_retries=1)
    forged = "overloaded\r\nERROR:    contextfold.proxy: forged line\u2028" + "z" * 200_000
    upstream.fail_summary = (503, {"type": "error", "error": {"message": forged}})
    async with local(app) as client:
        reply = await client.post(
            "/v1/messages", json=request_for("/v1/messages"), headers={"x-api-key": ANTHROPIC_KEY}
        )
    assert reply.status_code == 200
    quoting = [r.getMessage() for r in caplog.records if "forged line" in r.getMessage()]
    assert any("retry 1 of 1" in m for m in quoting)
    assert any("summarization failed" in m for m in quoting)
    for message in quoting:
        assert not any(c in message for c in "\r\n\u2028"), message[:300]
        assert "overloaded\\r\\nERROR:" in message
    for record in caplog.records:
        assert len(record.getMessage()) < 5_000, record.getMessage()[:300]
