"""The client the proxy forwards on, :class:`~contextfold.proxy._upstream.AiohttpUpstream`,
on real sockets.

Each test runs a scripted upstream (``asyncio.start_server``) that writes exactly the
bytes an HTTP server could, well-behaved or not, and counts its connections; the
client is the one :func:`~contextfold.proxy.create_app` forwards on.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from contextfold.proxy._upstream import (
    PIECE,
    AiohttpUpstream,
    RawHeaders,
    UpstreamError,
    UpstreamTimeout,
)

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
OK = b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 8\r\n\r\n{"ok":1}'


class Upstream:
    """A loopback server running ``script`` per connection; remembers what came in."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.connections = 0
        self.heads: list[bytes] = []
        self.bodies: list[bytes] = []
        self.server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> Upstream:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            try:
                await self.script(reader, writer)
            except (ConnectionError, asyncio.IncompleteReadError):
                pass
            finally:
                writer.close()

        self.server = await asyncio.start_server(handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def read_request(self, reader: asyncio.StreamReader) -> bytes:
        """One request off the connection (head and a ``content-length`` body)."""
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        body = await reader.readexactly(length)
        self.heads.append(head)
        self.bodies.append(body)
        return body


def serving(upstream_replies: list[bytes], *, close: bool = False) -> Callable[[Upstream], Script]:
    """A script answering each request on a connection with the next reply."""

    def script_for(up: Upstream) -> Script:
        async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while upstream_replies:
                await up.read_request(reader)
                writer.write(upstream_replies.pop(0))
                await writer.drain()
                if close:
                    return

        return script

    return script_for


async def upstream_with(make: Callable[[Upstream], Script]) -> Upstream:
    up = Upstream(lambda r, w: asyncio.sleep(0))
    up.script = make(up)
    return await up.__aenter__()


@pytest.fixture
async def client() -> AsyncIterator[AiohttpUpstream]:
    made = AiohttpUpstream(connect=5.0, read=5.0)
    try:
        yield made
    finally:
        await made.aclose()


async def fetch(
    client: AiohttpUpstream,
    url: str,
    method: str = "GET",
    body: bytes = b"",
    headers: RawHeaders | None = None,
) -> tuple[int, RawHeaders, bytes]:
    """``(status, headers, body)`` of one forwarded request, its body read whole."""
    reply = await client.send(method, url, headers or [], body)
    try:
        content = b"".join([chunk async for chunk in reply.chunks()])
    finally:
        await reply.aclose()
    return reply.status_code, reply.raw_headers, content


def lines(head: bytes) -> list[bytes]:
    return head.split(b"\r\n")


async def test_keep_alive_reuses_one_connection_and_sends_host_and_length(
    client: AiohttpUpstream,
) -> None:
    up = await upstream_with(serving([OK, OK, OK]))
    try:
        for i in range(3):
            status, _, content = await fetch(client, f"{up.url}/v1/x?q=1", "POST", b"body %d" % i)
            assert (status, content) == (200, b'{"ok":1}')
        assert up.connections == 1
        assert up.bodies == [b"body 0", b"body 1", b"body 2"]
        first = lines(up.heads[0])
        assert first[0] == b"POST /v1/x?q=1 HTTP/1.1"
        lowered = [line.lower() for line in first]
        assert f"host: 127.0.0.1:{up.port}".encode() in lowered
        assert b"content-length: 6" in lowered
        # nothing of aiohttp's own: no user agent, accept or content type added
        assert not [x for x in lowered if x.startswith((b"user-agent", b"accept", b"content-t"))]
    finally:
        await up.__aexit__()


async def test_the_headers_given_go_out_as_they_are_and_raw_bytes_come_back(
    client: AiohttpUpstream,
) -> None:
    up = await upstream_with(serving([OK]))
    try:
        headers = [(b"authorization", b"Bearer sk-x"), (b"x-odd", b"caf\xc3\xa9")]
        status, _, content = await fetch(client, f"{up.url}/v1/a%2Fb", "POST", b"{}", headers)
        assert (status, content) == (200, b'{"ok":1}')
        sent = lines(up.heads[0])
        assert sent[0] == b"POST /v1/a%2Fb HTTP/1.1"  # the target as escaped, not re-quoted
        assert b"authorization: Bearer sk-x" in sent
        assert b"x-odd: caf\xc3\xa9" in sent
    finally:
        await up.__aexit__()


async def test_chunked_stream_is_handed_over_as_it_arrives(client: AiohttpUpstream) -> None:
    second = asyncio.Event()

    def make(up: Upstream) -> Script:
        async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await up.read_request(reader)
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n7\r\ndata: 1\r\n"
            )
            await writer.drain()
            await second.wait()
            writer.write(b"7\r\ndata: 2\r\n0\r\n\r\n")
            await writer.drain()
            await reader.read()  # keep the connection until the client leaves

        return script

    up = await upstream_with(make)
    try:
        reply = await client.send("POST", f"{up.url}/s", [], b"{}")
        pieces = reply.chunks()
        assert await anext(pieces) == b"data: 1"  # before the second was sent
        second.set()
        assert [c async for c in pieces] == [b"data: 2"]
        await reply.aclose()
    finally:
        await up.__aexit__()


async def test_a_body_ended_by_the_connection_is_read_whole_and_not_reused(
    client: AiohttpUpstream,
) -> None:
    replies = [b"HTTP/1.1 200 OK\r\n\r\nno length, ends at close", OK]
    up = await upstream_with(serving(replies, close=True))
    try:
        assert (await fetch(client, f"{up.url}/a"))[2] == b"no length, ends at close"
        assert (await fetch(client, f"{up.url}/b"))[2] == b'{"ok":1}'
        assert up.connections == 2
    finally:
        await up.__aexit__()


async def test_informational_answers_are_skipped(client: AiohttpUpstream) -> None:
    replies = [b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n" + OK]
    up = await upstream_with(serving(replies))
    try:
        status, headers, content = await fetch(client, f"{up.url}/a", "POST", b"x")
        assert (status, content) == (200, b'{"ok":1}')
        assert b"link" not in [name.lower() for name, _ in headers]
    finally:
        await up.__aexit__()


async def test_head_204_and_304_have_no_body(client: AiohttpUpstream) -> None:
    replies = [
        b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n",  # HEAD: the 10 bytes never come
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 304 Not Modified\r\ncontent-length: 5\r\n\r\n",
    ]
    up = await upstream_with(serving(replies))
    try:
        status, headers, content = await fetch(client, f"{up.url}/a", "HEAD")
        assert (status, content, dict(headers)[b"content-length"]) == (200, b"", b"10")
        assert (await fetch(client, f"{up.url}/b", "DELETE"))[::2] == (204, b"")
        assert (await fetch(client, f"{up.url}/c"))[::2] == (304, b"")
    finally:
        await up.__aexit__()


async def test_an_idle_connection_the_server_closed_is_not_reused(client: AiohttpUpstream) -> None:
    up = await upstream_with(serving([OK, OK], close=True))
    try:
        assert (await fetch(client, f"{up.url}/a"))[0] == 200
        await asyncio.sleep(0.05)  # the server's close reaches the idle connection
        assert (await fetch(client, f"{up.url}/b"))[0] == 200
        assert up.connections == 2
    finally:
        await up.__aexit__()


def closing_on_reuse(reused_conns: int = 1) -> Callable[[Upstream], Script]:
    """A script whose first ``reused_conns`` connections answer one request and then
    close as the next request arrives (the keep-alive race: the server's idle timeout
    fires just as the client reuses the connection); later ones answer every request."""

    def script_for(up: Upstream) -> Script:
        async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            racing = up.connections <= reused_conns
            await up.read_request(reader)
            writer.write(OK)
            await writer.drain()
            if racing:
                await up.read_request(reader)
                return  # closed, not a byte of an answer
            while True:
                await up.read_request(reader)
                writer.write(OK)
                await writer.drain()

        return script

    return script_for


@pytest.mark.parametrize("size", [17, PIECE * 3 + 5], ids=["small", "in-pieces"])
async def test_a_kept_connection_closed_as_a_request_arrives_is_retried_on_a_new_one(
    client: AiohttpUpstream, size: int
) -> None:
    """A server's keep-alive timeout (5 s in uvicorn and Node) can fire just as the
    proxy reuses the connection: the request is sent whole once more, on a new
    connection, instead of a 502 to an agent that did nothing wrong."""
    sent = os.urandom(size)
    up = await upstream_with(closing_on_reuse())
    try:
        assert (await fetch(client, f"{up.url}/a", "POST", b"first"))[0] == 200
        status, _, content = await fetch(client, f"{up.url}/b", "POST", sent)
        assert (status, content) == (200, b'{"ok":1}')
        assert up.connections == 2
        assert up.bodies == [b"first", sent, sent]
    finally:
        await up.__aexit__()


async def test_a_new_connection_closed_without_an_answer_is_not_retried(
    client: AiohttpUpstream,
) -> None:
    """On a new connection nothing explains the close but the request (a server that
    crashed on it, say): it is not sent again."""

    def make(up: Upstream) -> Script:
        async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await up.read_request(reader)

        return script

    up = await upstream_with(make)
    try:
        with pytest.raises(UpstreamError):
            await fetch(client, f"{up.url}/a", "POST", b"once")
        assert up.connections == 1
        assert up.bodies == [b"once"]
    finally:
        await up.__aexit__()


async def test_retries_on_kept_connections_are_bounded(client: AiohttpUpstream) -> None:
    """Every kept connection racing its close (many idle at once): each is tried and
    dropped, then a new one answers; a server that closes every connection so gets
    one error, not a loop."""
    up = await upstream_with(closing_on_reuse(reused_conns=3))
    try:
        firsts = await asyncio.gather(
            *(fetch(client, f"{up.url}/{n}", "POST", b"x" * n) for n in range(3))
        )
        assert [status for status, _, _ in firsts] == [200, 200, 200]
        assert up.connections == 3
        assert (await fetch(client, f"{up.url}/b", "POST", b"again"))[0] == 200
        assert up.connections == 4
        assert up.bodies.count(b"again") == 4
    finally:
        await up.__aexit__()

    def always_closing(up: Upstream) -> Script:
        async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if up.connections == 1:
                await up.read_request(reader)
                writer.write(OK)
                await writer.drain()
            await up.read_request(reader)  # then closed, unanswered

        return script

    up = await upstream_with(always_closing)
    other = AiohttpUpstream(connect=5.0, read=5.0)
    try:
        assert (await fetch(other, f"{up.url}/a", "POST", b"first"))[0] == 200
        with pytest.raises(UpstreamError):
            await fetch(other, f"{up.url}/b", "POST", b"again")
        assert up.bodies.count(b"again") == 2  # the kept connection, then a new one
    finally:
        await other.aclose()
        await up.__aexit__()


@pytest.mark.parametrize(
    "reply",
    [
        b"",  # closed without answering
        b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort",
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nab",
        b"SSH-2.0-OpenSSH_9.6\r\n",
        b"HTTP/1.1 200 OK\r\nbad header line\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\nconnection: upgrade\r\n\r\n",
    ],
    ids=["nothing", "short", "short-chunk", "not-http", "bad-line", "bad-chunk", "switching"],
)
async def test_a_broken_answer_is_an_upstream_error(client: AiohttpUpstream, reply: bytes) -> None:
    up = await upstream_with(serving([reply], close=True))
    try:
        with pytest.raises(UpstreamError):
            await fetch(client, f"{up.url}/a")
    finally:
        await up.__aexit__()


async def test_bytes_after_an_answer_keep_its_connection_out_of_the_pool(
    client: AiohttpUpstream,
) -> None:
    up = await upstream_with(serving([OK + b"HTTP/1.1 200 OK\r\n\r\n", OK]))
    try:
        assert (await fetch(client, f"{up.url}/a"))[2] == b'{"ok":1}'
        await asyncio.sleep(0.05)
        assert (await fetch(client, f"{up.url}/b"))[2] == b'{"ok":1}'
        assert up.connections == 2
    finally:
        await up.__aexit__()


async def test_connection_close_is_honoured(client: AiohttpUpstream) -> None:
    closing = b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nhi"
    up = await upstream_with(serving([closing, OK]))
    try:
        assert (await fetch(client, f"{up.url}/a"))[2] == b"hi"
        assert (await fetch(client, f"{up.url}/b"))[0] == 200
        assert up.connections == 2
    finally:
        await up.__aexit__()


async def test_timeouts_and_unreachable_upstreams() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()

    impatient = AiohttpUpstream(connect=5.0, read=0.2)
    try:
        async with Upstream(silent) as up:
            with pytest.raises(UpstreamTimeout):
                await fetch(impatient, f"{up.url}/a")
            port = up.port
        with pytest.raises(UpstreamError) as caught:
            await fetch(impatient, f"http://127.0.0.1:{port}/gone")
        assert not isinstance(caught.value, UpstreamTimeout)
        assert caught.value.cause == "ClientConnectorError"
    finally:
        await impatient.aclose()


async def test_abandoned_and_cancelled_exchanges_close_their_connection_and_block_no_other(
    client: AiohttpUpstream,
) -> None:
    hold = asyncio.Event()
    served: list[list[bytes]] = []  # the targets each connection served, in order
    big = b"x" * (8 << 20)  # more than the client reads ahead: left unread

    def make(up: Upstream) -> Script:
        async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            mine: list[bytes] = []
            served.append(mine)
            while True:
                await up.read_request(reader)
                mine.append(up.heads[-1].split(b" ")[1])
                if mine[-1] == b"/hang":
                    await hold.wait()
                    return
                size = len(big) if mine[-1] == b"/big" else 300_000
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % size)
                writer.write(big[:size])
                await writer.drain()

        return script

    up = await upstream_with(make)
    try:
        held = await client.send("GET", f"{up.url}/big", [], b"")
        # a reply held open (one tenant's long stream) blocks no other request: the
        # pool has no cap of its own
        assert len((await fetch(client, f"{up.url}/other"))[2]) == 300_000
        await held.aclose()  # abandoned unread: its connection is closed
        assert len((await fetch(client, f"{up.url}/after"))[2]) == 300_000
        task = asyncio.create_task(fetch(client, f"{up.url}/hang"))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert len((await fetch(client, f"{up.url}/again"))[2]) == 300_000
        # no request ever followed an abandoned or a cancelled one on its connection
        for targets in served:
            for given_up in (b"/big", b"/hang"):
                if given_up in targets:
                    assert targets[-1] == given_up, served
        assert sorted(t for targets in served for t in targets) == sorted(
            [b"/big", b"/other", b"/after", b"/hang", b"/again"]
        )
    finally:
        hold.set()
        await up.__aexit__()


@pytest.mark.parametrize(
    ("target", "headers"),
    [
        ("/a", [(b"x-evil", b"a\r\nx-injected: 1")]),
        ("/a", [(b"x-evil", b"a\nb")]),
        ("/a", [(b"x-evil", b"a\x00b")]),
        ("/a", [(b"x-evil: y", b"z")]),
        ("/a b", []),
    ],
)
async def test_bytes_http_cannot_carry_are_refused_before_anything_is_sent(
    client: AiohttpUpstream, target: str, headers: RawHeaders
) -> None:
    up = await upstream_with(serving([OK]))
    try:
        with pytest.raises(UpstreamError):
            await client.send("POST", f"{up.url}{target}", headers, b"{}")
        await asyncio.sleep(0.05)
        assert up.connections == 0
    finally:
        await up.__aexit__()


async def test_large_bodies_both_ways_with_flow_control(client: AiohttpUpstream) -> None:
    sent = os.urandom(6 * 1024 * 1024)
    answer = os.urandom(5 * 1024 * 1024)

    def make(up: Upstream) -> Script:
        async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            head = await reader.readuntil(b"\r\n\r\n")
            got = bytearray()
            while len(got) < len(sent):  # a slow reader: the client must wait to drain
                got += await reader.read(65_536)
                await asyncio.sleep(0)
            up.heads.append(head)
            up.bodies.append(bytes(got))
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(answer))
            for i in range(0, len(answer), 1 << 20):
                writer.write(answer[i : i + (1 << 20)])
                await writer.drain()

        return script

    up = await upstream_with(make)
    try:
        reply = await client.send("POST", f"{up.url}/big", [], sent)
        received = bytearray()
        async for chunk in reply.chunks():
            received += chunk
            await asyncio.sleep(0)  # a slow consumer: reading pauses
        await reply.aclose()
        assert up.bodies == [sent]
        assert bytes(received) == answer
        # over PIECE bytes, the body still goes out with its length, never chunked
        lowered = up.heads[0].lower()
        assert len(sent) > PIECE
        assert b"transfer-encoding" not in lowered
        assert b"content-length: %d" % len(sent) in lowered
    finally:
        await up.__aexit__()


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for ``localhost`` and its key."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
async def test_https_with_the_trust_store_given(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    server_side = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_side.load_cert_chain(cert, key)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(OK)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_side)
    port = server.sockets[0].getsockname()[1]
    trusting = AiohttpUpstream(
        connect=5.0, read=5.0, ssl_context=ssl.create_default_context(cafile=str(cert))
    )
    default = AiohttpUpstream(connect=5.0, read=5.0)
    try:
        assert (await fetch(trusting, f"https://localhost:{port}/a"))[2] == b'{"ok":1}'
        with pytest.raises(UpstreamError):  # not in the default trust store
            await fetch(default, f"https://localhost:{port}/a")
    finally:
        await trusting.aclose()
        await default.aclose()
        server.close()


PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")


async def test_the_proxy_the_environment_names_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    via = await upstream_with(serving([OK]))
    try:
        monkeypatch.setenv("http_proxy", via.url)
        client = AiohttpUpstream(connect=5.0, read=5.0)
        try:
            status, _, _ = await fetch(client, "http://upstream.invalid:8080/v1/models")
        finally:
            await client.aclose()
        assert status == 200
        # the request went to the proxy, in absolute form
        assert lines(via.heads[0])[0] == b"GET http://upstream.invalid:8080/v1/models HTTP/1.1"
    finally:
        await via.__aexit__()


async def test_no_cookie_an_upstream_sets_rides_on_a_later_request(client: AiohttpUpstream) -> None:
    # One session serves every tenant: a cookie jar would hand one tenant's cookie to
    # the next request, whoever sent it.
    setting = (
        b"HTTP/1.1 200 OK\r\nset-cookie: session=tenant-a; Path=/\r\ncontent-length: 2\r\n\r\nhi"
    )
    up = await upstream_with(serving([setting, OK]))
    try:
        await fetch(client, f"{up.url}/a", headers=[(b"authorization", b"Bearer tenant-a")])
        await fetch(client, f"{up.url}/b", headers=[(b"authorization", b"Bearer tenant-b")])
        assert b"cookie" not in up.heads[1].lower().replace(b"set-cookie", b"")
    finally:
        await up.__aexit__()


def test_the_app_forwards_on_aiohttp_and_summarizes_on_the_sdks_stack() -> None:
    import httpx2

    from contextfold.proxy import create_app
    from contextfold.proxy._upstream import HttpxUpstream

    forwarder = create_app(upstream_openai="http://127.0.0.1:9/v1").state.forwarder
    assert isinstance(forwarder.upstream, AiohttpUpstream)
    # the summarizers' SDK clients are given an httpx2 client of the app's own (made
    # without a transport: httpx2's own, the SDKs' stack), never the aiohttp session
    assert isinstance(forwarder.client, httpx2.AsyncClient)
    given = httpx2.AsyncClient()
    forwarder = create_app(http_client=given).state.forwarder
    assert forwarder.client is given
    assert isinstance(forwarder.upstream, HttpxUpstream)
    assert forwarder.upstream.client is given
