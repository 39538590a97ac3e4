"""The proxy as a real uvicorn server on a loopback port, in front of a real fake upstream."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
import uvicorn

from contextfold.compaction import CompactionSettings
from contextfold.formats import from_openai
from contextfold.proxy import ProxyOptions, create_app, serve
from contextfold.proxy._server import HEAD_LIMIT, http_protocol
from contextfold.validation import validate_history
from tests._proxy_upstream import Seen, Upstream, anthropic_history, openai_history
from tests._raw_http import Connection, Served, read_reply
from tests.cli.test_cli import CLI
from tests.proxy.test_fuzz import shape_problem

KEY = "sk-test-SERVER-DISTINCTIVE-77aa88bb"
MODEL = "test-model"


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def proxy_url(upstream: Upstream, tmp_path: Any) -> AsyncIterator[str]:
    async with Served(upstream.app()) as up:
        app = create_app(
            upstream_openai=f"{up.url}/v1",
            upstream_anthropic=up.url,
            db=tmp_path / "proxy.db",
            context_window=32_768,
            settings=CompactionSettings(threshold=0.25),
            options=ProxyOptions(summary_max_retries=0),
        )
        async with Served(app) as proxy:
            yield proxy.url


async def test_stock_clients_over_real_sockets(proxy_url: str, upstream: Upstream) -> None:
    oai = openai.AsyncOpenAI(api_key=KEY, base_url=f"{proxy_url}/v1", max_retries=0)
    reply = await oai.chat.completions.create(model=MODEL, messages=openai_history(1))
    assert reply.choices[0].message.content == "Hello from upstream"
    stream = await oai.chat.completions.create(model=MODEL, messages=openai_history(1), stream=True)
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert text == "Hello from upstream"
    models = await oai.models.list()
    assert [m.id for m in models.data] == ["test-model"]

    ant = anthropic.AsyncAnthropic(api_key=KEY, base_url=proxy_url, max_retries=0)
    message = await ant.messages.create(model=MODEL, max_tokens=50, messages=anthropic_history(1))
    assert message.content[0].type == "text"
    async with ant.messages.stream(
        model=MODEL, max_tokens=50, messages=anthropic_history(1)
    ) as events:
        assert "".join([t async for t in events.text_stream]) == "Hello from upstream"
    await oai.close()
    await ant.close()


async def test_compaction_and_cache_over_real_sockets(proxy_url: str, upstream: Upstream) -> None:
    oai = openai.AsyncOpenAI(api_key=KEY, base_url=f"{proxy_url}/v1", max_retries=0)
    history = openai_history(24)
    raw = await oai.chat.completions.with_raw_response.create(model=MODEL, messages=history)
    assert raw.headers["x-contextfold-compacted"] == "true"
    validate_history(from_openai(upstream.chats[-1].json["messages"]))
    history += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "go on"}]
    stream = await oai.chat.completions.create(model=MODEL, messages=history, stream=True)
    assert stream.response.headers["x-contextfold-summary"] == "cached"
    async for _ in stream:
        pass
    assert len(upstream.summaries) == 1
    await oai.close()


@pytest.mark.parametrize("route", ["/v1/chat/completions", "/v1/messages"])
async def test_streams_are_relayed_chunk_by_chunk(
    proxy_url: str, upstream: Upstream, route: str
) -> None:
    # The upstream holds its last event back until the client has seen the first
    # ones: a proxy that buffered the stream would never deliver them.
    upstream.stream_gate = asyncio.Event()
    messages = openai_history(1) if route.endswith("completions") else anthropic_history(1)
    body = {"model": MODEL, "max_tokens": 10, "stream": True, "messages": messages}
    async with (
        httpx2.AsyncClient(base_url=proxy_url) as client,
        client.stream("POST", route, json=body, headers={"authorization": f"Bearer {KEY}"}) as r,
    ):
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.headers["x-contextfold-compacted"] == "false"
        received = b""
        chunks = r.aiter_raw()
        async with asyncio.timeout(10):
            while b"Hello" not in received:
                received += await anext(chunks)
        # the final events are still held upstream
        assert b'"finish_reason": "stop"' not in received
        assert b"message_stop" not in received
        upstream.stream_gate.set()
        async with asyncio.timeout(10):
            async for chunk in chunks:
                received += chunk
    assert b"Hello" in received
    assert b"[DONE]" in received or b"message_stop" in received


async def test_upstream_status_passes_through_over_real_sockets(
    proxy_url: str, upstream: Upstream
) -> None:
    upstream.fail_chat = (429, {"error": {"message": "slow down"}}, {"retry-after": "3"})
    async with httpx2.AsyncClient(base_url=proxy_url) as client:
        reply = await client.post(
            "/v1/chat/completions", json={"model": MODEL, "messages": openai_history(1)}
        )
    assert reply.status_code == 429
    assert reply.json() == {"error": {"message": "slow down"}}
    assert reply.headers["retry-after"] == "3"


async def test_a_long_failure_reason_never_breaks_the_response(
    proxy_url: str, upstream: Upstream
) -> None:
    # The x-contextfold-error header is cut to 300 characters; cut on a space, it
    # was a value HTTP forbids, and uvicorn dropped the connection.
    part = {"type": [" " * 400 + "x"]}  # a malformed part: its error names the type
    history = [*openai_history(1), {"role": "user", "content": [part]}]
    body = {"model": MODEL, "messages": history, "metadata": {"pad": "p" * 20_000}}
    async with httpx2.AsyncClient(base_url=proxy_url) as client:
        reply = await client.post("/v1/chat/completions", json=body)
    assert reply.status_code == 200
    error = reply.headers["x-contextfold-error"]
    assert error.startswith("not compacted")
    assert "malformed content part" in error
    assert error == error.strip()


def record_runs(monkeypatch: pytest.MonkeyPatch) -> list[uvicorn.Config]:
    """The configurations uvicorn servers are run with from now on (none really runs)."""
    configs: list[uvicorn.Config] = []

    def run(server: uvicorn.Server, sockets: Any = None) -> None:
        configs.append(server.config)
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    return configs


def test_serve_binds_loopback_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record_runs(monkeypatch)
    serve()
    serve(host="0.0.0.0", port=9000, log_level="warning")
    assert (calls[0].host, calls[0].port, calls[0].log_level) == ("127.0.0.1", 8787, "info")
    assert (calls[1].host, calls[1].port, calls[1].log_level) == ("0.0.0.0", 9000, "warning")
    # the protocol the tests' servers run (httptools' when it imports), WebSockets off
    assert all(c.http is http_protocol() and c.ws == "none" for c in calls)
    assert http_protocol() is http_protocol("httptools")


def test_serve_holds_requests_to_its_head_and_body_timeouts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = record_runs(monkeypatch)
    serve()
    serve(header_timeout=5, body_timeout=7.5)
    assert (calls[0].http.header_timeout, calls[0].http.body_timeout) == (20.0, 20.0)
    assert (calls[1].http.header_timeout, calls[1].http.body_timeout) == (5.0, 7.5)
    for bad in (0, -1, float("nan"), float("inf"), True, "10"):
        with pytest.raises(ValueError, match="header_timeout must be a positive number"):
            serve(header_timeout=bad)
        with pytest.raises(ValueError, match="body_timeout must be a positive number"):
            serve(body_timeout=bad)
    assert len(calls) == 2


def test_serve_exits_when_the_server_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    # as uvicorn.run did: a taken port is logged by uvicorn and ends the process with 3
    monkeypatch.setattr(uvicorn.Server, "run", lambda server, sockets=None: None)
    with pytest.raises(SystemExit) as exit_:
        serve()
    assert exit_.value.code == 3


QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "proxy_quickstart.md"


def quickstart_section(number: int) -> str:
    """The text of the quickstart's section ``## N. ...``."""
    [section] = [
        part for part in QUICKSTART.read_text().split("\n## ") if part.startswith(f"{number}. ")
    ]
    return section


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


async def test_the_quickstart_python_snippets_run_against_the_proxy(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippets = blocks(quickstart_section(1) + quickstart_section(2), "python")
    assert len(snippets) == 3
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    served = record_runs(monkeypatch)
    async with Served(upstream.app()) as up:
        # 1: serve(...) and create_app(...) with the documented keywords
        exec(compile(snippets[0], "quickstart-1", "exec"), {})
        assert served[0].host == "127.0.0.1"
        app = create_app(upstream_openai=f"{up.url}/v1", upstream_anthropic=up.url, db="proxy.db")
        async with Served(app) as proxy:
            # 2, 3: the stock clients, pointed at the proxy's real port, as scripts define them
            history = openai_history(2)
            for snippet, messages in ((snippets[1], history), (snippets[2], history[1:])):
                code = snippet.replace("http://127.0.0.1:8787", proxy.url)
                namespace: dict[str, Any] = {}
                exec(compile(code, "quickstart", "exec", dont_inherit=True), namespace)
                await namespace["ask"](messages)
                await namespace["client"].close()
    chats = upstream.chats
    assert [c.path for c in chats] == ["/v1/chat/completions", "/v1/messages"]
    assert chats[0].headers["authorization"] == f"Bearer {KEY}"
    assert (tmp_path / "proxy.db").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_listening(process: subprocess.Popen[str], port: int) -> None:
    for _ in range(600):  # startup imports take seconds on a loaded machine
        assert process.poll() is None, process.communicate()[0]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port}")


def test_the_offline_walkthrough_runs_as_written(tmp_path: Path) -> None:
    """Section 0 of the quickstart, run for real: its shell commands start the fake
    upstream and the proxy (the console script, in subprocesses), then its script, a
    stock ``openai`` client without a real key, prints exactly the output shown."""
    section = quickstart_section(0)
    [shell], [script], [shown] = (
        blocks(section, "bash"),
        blocks(section, "python"),
        blocks(section, "text"),
    )
    ports = {"8765": str(_free_port()), "8787": str(_free_port())}

    def local(text: str) -> str:
        for documented, free in ports.items():
            text = text.replace(documented, free)
        return text

    commands = [
        shlex.split(local(line).removesuffix("&"))
        for line in shell.replace("\\\n", " ").splitlines()
        if line.startswith("contextfold ")
    ]
    assert [c[1] for c in commands] == ["fake-upstream", "serve"]
    assert CLI
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    started: list[subprocess.Popen[str]] = []
    try:
        for command, port in zip(commands, ports.values(), strict=True):
            started.append(
                subprocess.Popen(
                    [CLI, *command[1:]],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    cwd=tmp_path,
                    env=env,
                )
            )
            _wait_listening(started[-1], int(port))
        result = subprocess.run(
            [sys.executable, "-c", local(script)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=300,
        )
    finally:
        logs = []
        for process in started:
            process.send_signal(signal.SIGINT)  # Ctrl-C, as the page says
            logs.append(process.communicate(timeout=60)[0])
    assert result.returncode == 0, result.stderr
    assert result.stdout == shown
    upstream_log = logs[0].splitlines()
    assert upstream_log[0].startswith("fake upstream on http://127.0.0.1:")
    assert sum("summary request" in line for line in upstream_log) >= 2
    assert [process.returncode for process in started] == [0, 0]


@pytest.mark.parametrize(
    "body",
    [
        b"[1, 2]",
        b"not json",
        b'{"model": "m", "system": "s", "messages": 5}',
        b'{"model": "m", "messages": "abc"}',
        b'{"model": 7, "messages": [{"role": "user", "content": "hi"}]}',
        b'{"messages": []}',
    ],
)
@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages", "/v1/responses"])
async def test_the_fake_upstream_answers_hostile_bodies_without_a_500(
    upstream: Upstream, path: str, body: bytes
) -> None:
    upstream.reply_text = None  # the describing mode the command line uses
    async with Served(upstream.app()) as up, httpx2.AsyncClient() as client:
        reply = await client.post(f"{up.url}{path}", content=body)
    assert reply.status_code in (200, 400), reply.text
    assert reply.headers["content-type"].startswith("application/json")


# -- what the server answers itself: JSON, in the dialect's shape -----------------------

PROTOCOLS = ["httptools", "h11"]
MALFORMED = [
    # (name, raw request, the dialect of the answer, the statuses it may have)
    ("request-line", b"GET /v1/models HTTP/1.1 extra\r\nHost: x\r\n\r\n", "openai", {400}),
    (
        "request-line-messages",
        b"GET /v1/messages/count_tokens HTTP/1.1 x\r\nHost: x\r\n\r\n",
        "anthropic",
        {400},
    ),
    # h11 passes unknown methods to the app (which refuses them with a 405)
    (
        "method",
        b"get /v1/messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "anthropic",
        {400, 405},
    ),
    (
        "header-nul",
        b"GET /v1/models HTTP/1.1\r\nHost: x\r\nanthropic-version: \x00\r\n\r\n",
        "anthropic",
        {400},
    ),
    (  # a chat route answers in its own dialect, whatever the headers say
        "header-nul-chat",
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nanthropic-version: \x00\r\n"
        b"content-length: 2\r\n\r\n{}",
        "openai",
        {400},
    ),
    (
        "header-name",
        b"GET /v1/models HTTP/1.1\r\nHost: x\r\nbad header: 1\r\n\r\n",
        "openai",
        {400},
    ),
    (
        "header-too-long",
        # longer than one read (h11 measures only heads it has not seen whole)
        b"GET /v1/messages HTTP/1.1\r\nHost: x\r\nx-big: " + b"a" * 5 * HEAD_LIMIT + b"\r\n\r\n",
        "anthropic",
        {431},
    ),
    (
        "head-never-ends",
        b"GET /v1/models HTTP/1.1\r\nHost: x\r\n" + b"x-more: aaaaaaaaaaaaaaaa\r\n" * 20_000,
        "openai",
        {431},
    ),
    (
        "chunked",
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n",
        "anthropic",
        {400},
    ),
    (
        "content-length",
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1e3\r\n\r\n{}",
        "openai",
        {400},
    ),
    (
        "two-lengths",
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
        b"Content-Length: 3\r\n\r\n{}x",
        "anthropic",
        {400},
    ),
    # h11 reads the preface's first lines as a request ("PRI *": no such route)
    ("http2-preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "openai", {400, 404}),
    (
        "tls-hello",
        b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + bytes(range(64)),
        "openai",
        {400},
    ),
    ("garbage", b"hello\r\n\r\n", "openai", {400}),
]


@pytest.fixture(params=PROTOCOLS)
async def served_proxy(
    request: pytest.FixtureRequest, upstream: Upstream, tmp_path: Path
) -> AsyncIterator[Served]:
    async with Served(upstream.app(), http=request.param) as up:
        app = create_app(
            upstream_openai=f"{up.url}/v1",
            upstream_anthropic=up.url,
            db=tmp_path / "proxy.db",
            options=ProxyOptions(summary_max_retries=0),
        )
        async with Served(app, http=request.param) as proxy:
            yield proxy


async def read_until_closed(port: int, raw: bytes) -> bytes:
    """Everything the server sends back for ``raw`` until it closes the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(raw)
        await writer.drain()
        async with asyncio.timeout(10):
            return await reader.read()
    finally:
        writer.close()


def responses(stream: bytes) -> list[tuple[int, dict[bytes, bytes], bytes]]:
    """The ``Content-Length`` framed responses ``stream`` holds, which must be all of it."""
    found = []
    while stream:
        head, _, rest = stream.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        headers = {
            n.strip().lower(): v.strip() for n, _, v in (x.partition(b":") for x in lines[1:])
        }
        length = int(headers[b"content-length"])
        assert len(rest) >= length, f"a body cut short: {stream!r:.200}"
        found.append((int(lines[0].split(b" ")[1]), headers, rest[:length]))
        stream = rest[length:]
    return found


@pytest.mark.parametrize(
    ("raw", "dialect", "statuses"), [pytest.param(*case[1:], id=case[0]) for case in MALFORMED]
)
async def test_requests_the_server_cannot_parse_get_json_errors(
    served_proxy: Served, upstream: Upstream, raw: bytes, dialect: str, statuses: set[int]
) -> None:
    # uvicorn answered these itself, in plain text; the proxy promises JSON in the
    # dialect's shape for every error of its own.
    answers = responses(await read_until_closed(served_proxy.port, raw))
    assert answers, "the connection was closed without an answer"
    for status, headers, body in answers:
        assert status in statuses
        assert headers[b"content-type"] == b"application/json"
        assert shape_problem(dialect, body) is None
        if status in (400, 431):  # the server's own answer: the connection ends with it
            assert headers[b"connection"] == b"close"
            assert headers[b"content-length"] == str(len(body)).encode()
    assert not upstream.seen


def raising_app(how: str) -> Any:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if how == "raises":
            raise RuntimeError("a defect before the response started")

    return app


@pytest.mark.parametrize("http", PROTOCOLS)
@pytest.mark.parametrize("how", ["raises", "returns"])
@pytest.mark.parametrize(
    ("head", "dialect"),
    [
        (b"GET /v1/messages/batches HTTP/1.1\r\nHost: x\r\n", "anthropic"),
        (b"GET /v1/models HTTP/1.1\r\nHost: x\r\nanthropic-version: 1\r\n", "anthropic"),
        (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\ncontent-length: 0\r\n", "openai"),
    ],
    ids=["messages-path", "anthropic-version", "chat"],
)
async def test_an_app_that_never_starts_its_response_gets_a_json_500(
    http: str, how: str, head: bytes, dialect: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with Served(raising_app(how), http=http) as served:  # type: ignore[arg-type]
        [(status, headers, body)] = responses(await read_until_closed(served.port, head + b"\r\n"))
    assert status == 500
    assert headers[b"content-type"] == b"application/json"
    assert headers[b"connection"] == b"close"
    assert shape_problem(dialect, body) is None


@pytest.mark.parametrize("http", PROTOCOLS)
async def test_an_upgrade_offer_never_costs_a_request_its_body(
    http: str, upstream: Upstream, tmp_path: Path
) -> None:
    # httptools skips the body of a request offering an upgrade (curl --http2 offers
    # h2c on http:// URLs): under uvicorn's protocol the app read an empty body. h11
    # ignores the offer; under httptools such a request is refused.
    body = json.dumps({"model": MODEL, "messages": openai_history(1)}).encode()
    raw = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
        b"Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\ncontent-type: application/json\r\n"
        b"content-length: %d\r\n\r\n" % len(body)
    ) + body
    async with Served(upstream.app(), http=http) as up:
        app = create_app(upstream_openai=f"{up.url}/v1", db=tmp_path / "proxy.db")
        async with Served(app, http=http) as proxy:
            reply = await Connection(proxy.port).send(raw)
            # without a body, the offer is ignored under both
            get = (
                b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n"
            )
            models = await Connection(proxy.port).send(get)
    assert models.status == 200
    if http == "h11":
        assert reply.status == 200
        assert [c.raw for c in upstream.chats if c.path.endswith("completions")] == [body]
    else:
        assert reply.status == 400
        assert shape_problem("openai", reply.body) is None
        assert b"Upgrade" in reply.body
        assert [c.path for c in upstream.seen] == ["/v1/models"]


@pytest.mark.parametrize("http", PROTOCOLS)
async def test_bytes_that_are_no_http_never_break_into_a_streamed_response(
    http: str, upstream: Upstream, tmp_path: Path
) -> None:
    # uvicorn's httptools protocol wrote its 400 into the middle of a relayed stream.
    upstream.stream_gate = asyncio.Event()
    body = json.dumps({"model": MODEL, "stream": True, "messages": openai_history(1)}).encode()
    raw = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
        b"content-length: %d\r\n\r\n" % len(body)
    ) + body
    async with Served(upstream.app(), http=http) as up:
        app = create_app(upstream_openai=f"{up.url}/v1", db=tmp_path / "proxy.db")
        async with Served(app, http=http) as proxy:
            reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
            writer.write(raw)
            received = b""
            async with asyncio.timeout(10):
                while b"Hello" not in received:
                    received += await reader.read(65536)
                writer.write(b"\x16\x03\x01 no HTTP at all\r\n\r\n")
                await writer.drain()
                await asyncio.sleep(0.1)
                upstream.stream_gate.set()
                received += await reader.read()
            writer.close()
    head, _, rest = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    stream = b""
    while size := int(rest.split(b"\r\n", 1)[0], 16):  # the chunked body, chunk by chunk
        rest = rest.partition(b"\r\n")[2]
        stream, rest = stream + rest[:size], rest[size + 2 :]
    rest = rest.partition(b"\r\n\r\n")[2]
    assert b"[DONE]" in stream
    assert b"HTTP/1.1" not in stream
    for status, _, error in responses(rest):  # h11 reads the bytes after the stream
        assert status == 400
        assert shape_problem("openai", error) is None


@pytest.mark.parametrize("http", PROTOCOLS)
async def test_the_head_limit_counts_the_head_not_the_body(
    http: str, upstream: Upstream, tmp_path: Path
) -> None:
    # A head just under the limit, with a body 5 times its size in the same write, is
    # forwarded; under httptools a whole head just over it is refused with a 431.
    pad = b"p" * (HEAD_LIMIT - 2_000)
    body = json.dumps({"model": MODEL, "messages": openai_history(1), "pad": "x" * 5 * HEAD_LIMIT})
    raw = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nx-pad: %s\r\n"
        b"content-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
    ) % (pad, len(body), body.encode())
    async with Served(upstream.app(), http=http) as up:
        app = create_app(upstream_openai=f"{up.url}/v1", db=tmp_path / "proxy.db")
        async with Served(app, http=http) as proxy:
            reply = await Connection(proxy.port).send(raw)
            # (closing after it: h11 answers it and would keep the connection open)
            over = (
                b"GET /v1/models HTTP/1.1\r\nHost: x\r\nconnection: close\r\nx-pad: %s\r\n\r\n"
                % (pad * 2)
            )
            refused = responses(await read_until_closed(proxy.port, over))
    assert reply.status == 200
    assert [len(c.raw) for c in upstream.chats if c.path == "/v1/chat/completions"] == [len(body)]
    if http == "httptools":
        [(status, _, error)] = refused
        assert status == 431
        assert shape_problem("openai", error) is None


# -- slow clients (issue 24.1): heads and bodies that never end are cut off ---------------

STALLED_HEAD = b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nanthropic-version: 2023-06-01\r\nconte"


def stalled_body(route: bytes = b"/v1/messages") -> bytes:
    """A whole head announcing 1,000 bytes of body, and the first 100 of them."""
    return (
        (
            b"POST %s HTTP/1.1\r\nHost: x\r\nanthropic-version: 2023-06-01\r\n"
            b"content-type: application/json\r\ncontent-length: 1000\r\n\r\n" % route
        )
        + b'{"model": "'
        + b"m" * 89
    )


@pytest.fixture(params=PROTOCOLS)
async def impatient_proxy(
    request: pytest.FixtureRequest, upstream: Upstream, tmp_path: Path
) -> AsyncIterator[Served]:
    """The proxy served with one-second head and body timeouts."""
    async with Served(upstream.app()) as up:
        app = create_app(
            upstream_openai=f"{up.url}/v1",
            upstream_anthropic=up.url,
            db=tmp_path / "proxy.db",
            options=ProxyOptions(summary_max_retries=0),
        )
        async with Served(app, http=request.param, header_timeout=1.0, body_timeout=1.0) as proxy:
            yield proxy


async def stall(port: int, raw: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection that sent ``raw`` and then nothing more."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(raw)
    await writer.drain()
    return reader, writer


async def until_closed(reader: asyncio.StreamReader) -> bytes:
    """What the server sends until it closes; the wait is bounded (a test of a timeout)."""
    async with asyncio.timeout(15):
        try:
            return await reader.read()
        except ConnectionError:
            return b""


def forwarded(upstream: Upstream) -> list[Seen]:
    """What clients' requests reached the upstream (not the proxy's own look at its
    model list for a model it does not know: see ``proxy._windows``)."""
    return [s for s in upstream.seen if s.path != "/v1/models"]


async def served_meanwhile(proxy: Served) -> None:
    """A well-behaved client's request, answered while the stalled ones wait."""
    body = {"model": MODEL, "max_tokens": 5, "messages": anthropic_history(1)}
    async with httpx2.AsyncClient(base_url=proxy.url) as client:
        reply = await client.post("/v1/messages", json=body, headers={"x-api-key": KEY})
    assert reply.status_code == 200


async def test_a_stalled_request_head_is_answered_408_and_closed(
    impatient_proxy: Served, upstream: Upstream
) -> None:
    reader, writer = await stall(impatient_proxy.port, STALLED_HEAD)
    await served_meanwhile(impatient_proxy)
    [(status, headers, body)] = responses(await until_closed(reader))
    writer.close()
    assert status == 408
    assert headers[b"connection"] == b"close"
    assert shape_problem("anthropic", body) is None
    assert b"1 seconds" in body
    assert len(forwarded(upstream)) == 1  # the well-behaved request only


async def test_a_stalled_request_body_is_answered_408_and_never_forwarded(
    impatient_proxy: Served, upstream: Upstream
) -> None:
    reader, writer = await stall(impatient_proxy.port, stalled_body())
    await served_meanwhile(impatient_proxy)
    [(status, _, body)] = responses(await until_closed(reader))
    writer.close()
    assert status == 408
    assert shape_problem("anthropic", body) is None
    assert len(forwarded(upstream)) == 1


async def test_a_connection_that_sends_nothing_is_closed_without_an_answer(
    impatient_proxy: Served,
) -> None:
    reader, writer = await stall(impatient_proxy.port, b"")
    assert await until_closed(reader) == b""
    writer.close()


async def test_a_body_that_keeps_coming_is_not_cut_off(
    impatient_proxy: Served, upstream: Upstream
) -> None:
    # The body timeout bounds each wait for bytes, not the whole body: one sent in
    # pieces for longer than the timeout, never pausing as long, is served.
    raw = json.dumps({"model": MODEL, "max_tokens": 5, "messages": anthropic_history(1)}).encode()
    head = (
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nanthropic-version: 2023-06-01\r\n"
        b"x-api-key: %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n"
    ) % (KEY.encode(), len(raw))
    reader, writer = await stall(impatient_proxy.port, head)
    pieces = [raw[i : i + len(raw) // 8 + 1] for i in range(0, len(raw), len(raw) // 8 + 1)]
    for piece in pieces:  # about 1.8 s in all, 0.2 s apart
        await asyncio.sleep(0.2)
        writer.write(piece)
        await writer.drain()
    async with asyncio.timeout(15):
        reply = await read_reply(reader)
    writer.close()
    assert reply.status == 200
    assert [s.raw for s in forwarded(upstream)] == [raw]


async def test_many_stalled_connections_are_reaped(
    impatient_proxy: Served, upstream: Upstream
) -> None:
    # 50 connections that each stop (before a byte, mid-head, mid-body, or dripping a
    # head a byte at a time) are all closed by the server, and a well-behaved client is
    # served meanwhile; then the server holds no connection.
    kinds = [b"", STALLED_HEAD, stalled_body(), stalled_body(b"/v1/chat/completions")]
    stalled = [await stall(impatient_proxy.port, kinds[i % 4]) for i in range(48)]
    dripping = [await stall(impatient_proxy.port, b"G") for _ in range(2)]

    async def drip(writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            for byte in b"ET /v1/models HTTP/1.1\r\nHost: x\r\n" * 10:
                await asyncio.sleep(0.1)
                writer.write(bytes([byte]))

    drips = [asyncio.create_task(drip(writer)) for _, writer in dripping]
    await served_meanwhile(impatient_proxy)
    answers = await asyncio.gather(*(until_closed(reader) for reader, _ in stalled + dripping))
    for task in drips:
        task.cancel()
    for _, writer in stalled + dripping:
        writer.close()
    statuses = [[s for s, _, _ in responses(a)] for a in answers]
    assert statuses == [[] if i % 4 == 0 else [408] for i in range(48)] + [[408], [408]]
    async with asyncio.timeout(15):
        while impatient_proxy.server.server_state.connections:  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    assert len(forwarded(upstream)) == 1


# -- large upstream answers (issue 24.5): relayed as they arrive, never held whole ----------

LARGE = 64 * 1024 * 1024
PIECE = 64 * 1024


def large_upstream(*, length: bool, status: int = 200, pieces: int = LARGE // PIECE) -> Any:
    """An upstream answering every request with ``LARGE`` bytes of JSON-ish text,
    made a piece at a time (with its ``Content-Length`` or chunked); it breaks off
    after ``pieces`` of them when that is fewer."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        more = True
        while more:
            more = (await receive()).get("more_body", False)
        headers = [(b"content-type", b"application/json")]
        if length:
            headers.append((b"content-length", b"%d" % LARGE))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        for i in range(pieces):
            piece = (b"%08d" % i) * (PIECE // 8)
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        if pieces < LARGE // PIECE:
            raise RuntimeError("the upstream dies mid-answer")
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


@pytest.mark.parametrize(
    ("route", "length", "status"),
    [
        ("/v1/chat/completions", True, 200),
        ("/v1/chat/completions", False, 200),
        ("/v1/chat/completions", True, 400),  # an error is read for an overflow first
        ("/v1/files/f", True, 200),
    ],
)
async def test_a_large_upstream_answer_is_streamed_not_held(
    tmp_path: Path, route: str, length: bool, status: int
) -> None:
    import hashlib
    import tracemalloc

    expected = hashlib.sha256()
    for i in range(LARGE // PIECE):
        expected.update((b"%08d" % i) * (PIECE // 8))
    body = {"model": MODEL, "messages": openai_history(1)}
    async with Served(large_upstream(length=length, status=status)) as up:
        app = create_app(upstream_openai=f"{up.url}/v1", db=tmp_path / "proxy.db")
        async with Served(app) as proxy, httpx2.AsyncClient(base_url=proxy.url) as client:
            tracemalloc.start()
            try:
                got = hashlib.sha256()
                received = 0
                method = "POST" if route.endswith("completions") else "GET"
                async with client.stream(
                    method, route, json=body if method == "POST" else None
                ) as reply:
                    assert reply.status_code == status
                    async for chunk in reply.aiter_raw():
                        got.update(chunk)
                        received += len(chunk)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
    assert (received, got.hexdigest()) == (LARGE, expected.hexdigest())
    if length:
        assert reply.headers["content-length"] == str(LARGE)
    # everything this process allocated at once (the upstream, the proxy and the client
    # together) stays far under the body's size: the proxy holds at most its look-ahead
    assert peak < LARGE // 3, f"peak {peak / 2**20:.1f} MiB"


async def test_a_large_answer_that_breaks_off_is_cut_short_not_ended(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Past the look-ahead the answer has started: an upstream that dies then leaves the
    # client a body shorter than its Content-Length (an error), never one that looks whole.
    caplog.set_level(logging.WARNING, logger="contextfold")
    async with Served(large_upstream(length=True, pieces=200)) as up:
        app = create_app(upstream_openai=f"{up.url}/v1", db=tmp_path / "proxy.db")
        async with Served(app) as proxy, httpx2.AsyncClient(base_url=proxy.url) as client:
            received: list[int] = []

            async def download() -> None:
                async with client.stream("GET", "/v1/files/f") as reply:
                    async for chunk in reply.aiter_raw():
                        received.append(len(chunk))

            with pytest.raises(httpx2.RemoteProtocolError):
                await download()
    assert sum(received) == 200 * PIECE
    [warning] = [r for r in caplog.records if r.name.startswith("contextfold")]
    assert warning.levelno == logging.WARNING
    assert "upstream reply broke off after 13107200 bytes relayed" in warning.getMessage()
