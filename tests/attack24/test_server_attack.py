"""Attack 24: a chunked body whose framing never ends (served proxy, real sockets)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from contextfold.proxy import ProxyOptions, create_app
from tests._proxy_upstream import Upstream, openai_history
from tests._raw_http import Served, read_reply
from tests.proxy.test_fuzz import shape_problem
from tests.proxy.test_server import responses

KEY = "sk-test-ATTACK24-SERVER-5c3b"
PROTOCOLS = ["httptools", "h11"]


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture(params=PROTOCOLS)
async def proxy(
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
        async with Served(app, http=request.param, header_timeout=1.0, body_timeout=1.0) as served:
            yield served


HEAD = (
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nauthorization: Bearer %s\r\n"
    b"content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
) % KEY.encode()


@pytest.mark.parametrize("framing", ["trailer-fields", "one-trailer", "chunk-extension"])
async def test_chunk_framing_that_never_ends_is_refused_not_buffered(
    proxy: Served, upstream: Upstream, framing: str
) -> None:
    # Impact: under httptools (the default) trailer fields after the last chunk were
    # buffered without bound (uvicorn keeps each one, llhttp a field's unfinished
    # value) and every byte restarted the body's clock: one client sent 136 MB of
    # trailers in 12 s and the proxy's RSS grew by 456 MB, never cut off.
    start = {
        "trailer-fields": b'5\r\n{"a":\r\n0\r\n',
        "one-trailer": b'5\r\n{"a":\r\n0\r\nx-t: ',
        "chunk-extension": b'5\r\n{"a":\r\n5;e=',
    }[framing]
    piece = b"x-t: " + b"t" * 1017 + b"\r\n" if framing == "trailer-fields" else b"t" * 1024
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    writer.write(HEAD + start)
    await writer.drain()
    began = time.monotonic()

    async def dribble() -> None:  # 8 KiB every 10 ms: never a second without bytes
        while time.monotonic() - began < 4:
            writer.write(piece * 8)
            await writer.drain()
            await asyncio.sleep(0.01)

    sender = asyncio.create_task(dribble())
    try:
        async with asyncio.timeout(15):
            answer = await reader.read()
    except ConnectionError:
        answer = b""
    answered = time.monotonic() - began
    sender.cancel()
    await asyncio.gather(sender, return_exceptions=True)
    writer.close()
    [(status, headers, body)] = responses(answer)
    assert status in (400, 431), body  # h11 counts framing as an incomplete head: 431
    assert answered < 3.5  # while the bytes kept coming, not once they stopped
    assert shape_problem("openai", body) is None
    assert headers[b"connection"] == b"close"
    assert not [s for s in upstream.seen if s.path != "/v1/models"]


async def test_a_chunked_body_with_extensions_and_trailers_is_served(
    proxy: Served, upstream: Upstream
) -> None:
    raw = json.dumps({"model": "test-model", "messages": openai_history(1)}).encode()
    chunks = b"".join(
        b"%x;ext=%s\r\n%s\r\n" % (len(part), b"e" * 100, part)
        for part in (raw[i : i + 300] for i in range(0, len(raw), 300))
    )
    trailers = b"".join(b"x-trailer-%d: %s\r\n" % (i, b"v" * 100) for i in range(20))
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    writer.write(HEAD + chunks + b"0\r\n" + trailers + b"\r\n")
    await writer.drain()
    async with asyncio.timeout(15):
        reply = await read_reply(reader)
    writer.close()
    assert reply.status == 200, reply.body
    assert [s.raw for s in upstream.seen if s.path != "/v1/models"] == [raw]
