"""The proxy's upstream client, :class:`~contextfold.proxy._wire.WireTransport`, on real sockets.

Each test runs a scripted upstream (``asyncio.start_server``) that writes exactly the
bytes an HTTP server could, well-behaved or not, and counts its connections; the
client is the ``httpx2.AsyncClient`` the proxy makes, on the transport, or the
transport's own :meth:`~contextfold.proxy._wire.WireTransport.forward`.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx2
import pytest

from contextfold.proxy import create_app
from contextfold.proxy._wire import WireTransport, proxy_client

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
async def client() -> AsyncIterator[httpx2.AsyncClient]:
    made, wire = proxy_client(httpx2.Timeout(5.0), httpx2.Limits(max_connections=4))
    assert isinstance(wire, WireTransport)
    async with made:
        yield made


async def test_keep_alive_reuses_one_connection_and_sends_host_and_length(
    client: httpx2.AsyncClient,
) -> None:
    up = await upstream_with(serving([OK, OK, OK]))
    try:
        for i in range(3):
            reply = await client.post(f"{up.url}/v1/x?q=1", content=b"body %d" % i)
            assert (reply.status_code, reply.json()) == (200, {"ok": 1})
        assert up.connections == 1
        assert up.bodies == [b"body 0", b"body 1", b"body 2"]
        first = up.heads[0].split(b"\r\n")
        assert first[0] == b"POST /v1/x?q=1 HTTP/1.1"
        assert f"host: 127.0.0.1:{up.port}".encode() in [line.lower() for line in first]
        assert b"content-length: 6" in [line.lower() for line in first]
    finally:
        await up.__aexit__()


async def test_forward_writes_the_headers_given_and_relays_raw_bytes() -> None:
    up = await upstream_with(serving([OK]))
    wire = WireTransport()
    try:
        headers = [(b"authorization", b"Bearer sk-x"), (b"x-odd", b"caf\xc3\xa9")]
        reply = await wire.forward("POST", f"{up.url}/v1/a%2Fb", headers, b"{}", {"read": 5})
        assert reply.status_code == 200
        assert b"".join([c async for c in reply.aiter_raw()]) == b'{"ok":1}'
        await reply.aclose()
        lines = up.heads[0].split(b"\r\n")
        assert lines[0] == b"POST /v1/a%2Fb HTTP/1.1"
        assert lines[1:5] == [
            f"Host: 127.0.0.1:{up.port}".encode(),
            b"Content-Length: 2",
            b"authorization: Bearer sk-x",
            b"x-odd: caf\xc3\xa9",
        ]
    finally:
        await wire.aclose()
        await up.__aexit__()


async def test_chunked_stream_is_handed_over_as_it_arrives(client: httpx2.AsyncClient) -> None:
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
        async with client.stream("POST", f"{up.url}/s", content=b"{}") as reply:
            pieces = reply.aiter_raw()
            assert await pieces.__anext__() == b"data: 1"  # before the second was sent
            second.set()
            assert [c async for c in pieces] == [b"data: 2"]
    finally:
        await up.__aexit__()


async def test_a_body_ended_by_the_connection_is_read_whole_and_not_reused(
    client: httpx2.AsyncClient,
) -> None:
    replies = [b"HTTP/1.1 200 OK\r\n\r\nno length, ends at close", OK]
    up = await upstream_with(serving(replies, close=True))
    try:
        first = await client.get(f"{up.url}/a")
        assert first.content == b"no length, ends at close"
        second = await client.get(f"{up.url}/b")
        assert second.json() == {"ok": 1}
        assert up.connections == 2
    finally:
        await up.__aexit__()


async def test_informational_answers_are_skipped(client: httpx2.AsyncClient) -> None:
    replies = [b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n" + OK]
    up = await upstream_with(serving(replies))
    try:
        reply = await client.post(f"{up.url}/a", content=b"x")
        assert (reply.status_code, reply.json()) == (200, {"ok": 1})
        assert "link" not in reply.headers
    finally:
        await up.__aexit__()


async def test_head_204_and_304_have_no_body(client: httpx2.AsyncClient) -> None:
    replies = [
        b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n",  # HEAD: the 10 bytes never come
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 304 Not Modified\r\ncontent-length: 5\r\n\r\n",
    ]
    up = await upstream_with(serving(replies))
    try:
        head = await client.head(f"{up.url}/a")
        assert (head.status_code, head.content, head.headers["content-length"]) == (200, b"", "10")
        empty = await client.delete(f"{up.url}/b")
        assert (empty.status_code, empty.content) == (204, b"")
        unchanged = await client.get(f"{up.url}/c")
        assert (unchanged.status_code, unchanged.content) == (304, b"")
        assert up.connections == 2  # HEAD's connection is not reused
    finally:
        await up.__aexit__()


async def test_an_idle_connection_the_server_closed_is_not_reused(
    client: httpx2.AsyncClient,
) -> None:
    up = await upstream_with(serving([OK, OK], close=True))
    try:
        assert (await client.get(f"{up.url}/a")).status_code == 200
        await asyncio.sleep(0.05)  # the server's close reaches the idle connection
        assert (await client.get(f"{up.url}/b")).status_code == 200
        assert up.connections == 2
    finally:
        await up.__aexit__()


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (b"", httpx2.RemoteProtocolError),  # closed without answering
        (b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort", httpx2.RemoteProtocolError),
        (
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nab",
            httpx2.RemoteProtocolError,
        ),
        (b"SSH-2.0-OpenSSH_9.6\r\n", httpx2.RemoteProtocolError),
        (b"HTTP/1.1 200 OK\r\nbad header line\r\n\r\n", httpx2.RemoteProtocolError),
        (
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
            httpx2.RemoteProtocolError,
        ),
        (
            b"HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\nconnection: upgrade\r\n\r\n",
            httpx2.RemoteProtocolError,
        ),
    ],
)
async def test_a_broken_answer_is_a_protocol_error(
    client: httpx2.AsyncClient, reply: bytes, error: type[Exception]
) -> None:
    up = await upstream_with(serving([reply], close=True))
    try:
        with pytest.raises(error):
            await client.get(f"{up.url}/a")
    finally:
        await up.__aexit__()


async def test_bytes_after_an_answer_keep_its_connection_out_of_the_pool(
    client: httpx2.AsyncClient,
) -> None:
    up = await upstream_with(serving([OK + b"HTTP/1.1 200 OK\r\n\r\n", OK]))
    try:
        assert (await client.get(f"{up.url}/a")).json() == {"ok": 1}
        await asyncio.sleep(0.05)
        assert (await client.get(f"{up.url}/b")).json() == {"ok": 1}
        assert up.connections == 2
    finally:
        await up.__aexit__()


async def test_connection_close_is_honoured(client: httpx2.AsyncClient) -> None:
    closing = b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nhi"
    up = await upstream_with(serving([closing, OK]))
    try:
        assert (await client.get(f"{up.url}/a")).content == b"hi"
        assert (await client.get(f"{up.url}/b")).status_code == 200
        assert up.connections == 2
    finally:
        await up.__aexit__()


async def test_timeouts_and_unreachable_upstreams() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()

    async with Upstream(silent) as up, httpx2.AsyncClient(transport=WireTransport()) as c:
        with pytest.raises(httpx2.ReadTimeout):
            await c.get(f"{up.url}/a", timeout=httpx2.Timeout(5.0, read=0.2))
        port = up.port
    with pytest.raises(httpx2.ConnectError):
        async with httpx2.AsyncClient(transport=WireTransport()) as c:
            await c.get(f"http://127.0.0.1:{port}/gone")


async def test_pool_limit_abandoned_and_cancelled_exchanges_free_their_slot() -> None:
    hold = asyncio.Event()

    def make(up: Upstream) -> Script:
        async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while True:
                await up.read_request(reader)
                if up.heads[-1].startswith(b"GET /hang"):
                    await hold.wait()
                    return
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 300000\r\n\r\n" + b"x" * 300_000)
                await writer.drain()

        return script

    up = await upstream_with(make)
    wire = WireTransport(max_connections=1)
    try:
        async with httpx2.AsyncClient(transport=wire) as c:
            held = await c.send(c.build_request("GET", f"{up.url}/big"), stream=True)
            with pytest.raises(httpx2.PoolTimeout):
                await c.get(f"{up.url}/other", timeout=httpx2.Timeout(5.0, pool=0.1))
            await held.aclose()  # abandoned unread: its connection is closed, its slot freed
            assert len((await c.get(f"{up.url}/after")).content) == 300_000
            task = asyncio.create_task(c.get(f"{up.url}/hang"))
            await asyncio.sleep(0.1)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert len((await c.get(f"{up.url}/again")).content) == 300_000
        # /big; /after on a new one (/big's was closed); /hang reuses it and is
        # cancelled, which closes it; /again on a third
        assert up.connections == 3
    finally:
        hold.set()
        await up.__aexit__()


@pytest.mark.parametrize(
    "headers",
    [
        [(b"x-evil", b"a\r\nx-injected: 1")],
        [(b"x-evil", b"a\nb")],
        [(b"x-evil", b"a\x00b")],
        [(b"x-evil: y", b"z")],
    ],
)
async def test_bytes_http_cannot_carry_are_refused_before_anything_is_sent(
    headers: list[tuple[bytes, bytes]],
) -> None:
    up = await upstream_with(serving([OK]))
    wire = WireTransport()
    try:
        with pytest.raises(httpx2.LocalProtocolError):
            await wire.forward("POST", f"{up.url}/a", headers, b"{}", {})
        with pytest.raises(httpx2.LocalProtocolError):
            await wire.forward("POST", f"{up.url}/a b", [], b"{}", {})
        await asyncio.sleep(0.05)
        assert up.connections == 0
    finally:
        await wire.aclose()
        await up.__aexit__()


async def test_large_bodies_both_ways_with_flow_control(client: httpx2.AsyncClient) -> None:
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
        async with client.stream("POST", f"{up.url}/big", content=sent) as reply:
            received = bytearray()
            async for chunk in reply.aiter_raw():
                received += chunk
                await asyncio.sleep(0)  # a slow consumer: reading pauses at 1 MiB
        assert up.bodies == [sent]
        assert bytes(received) == answer
    finally:
        await up.__aexit__()


async def test_a_streamed_request_body_goes_out_with_its_length(client: httpx2.AsyncClient) -> None:
    async def pieces() -> AsyncIterator[bytes]:
        yield b"part one, "
        yield b"part two"

    up = await upstream_with(serving([OK]))
    try:
        assert (await client.post(f"{up.url}/a", content=pieces())).status_code == 200
        assert up.bodies == [b"part one, part two"]
        lowered = up.heads[0].lower()
        assert b"transfer-encoding" not in lowered
        assert b"content-length: 18" in lowered
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
    try:
        trusting = ssl.create_default_context(cafile=str(cert))
        async with httpx2.AsyncClient(transport=WireTransport(ssl_context=trusting)) as c:
            reply = await c.get(f"https://localhost:{port}/a")
            assert reply.json() == {"ok": 1}
        async with httpx2.AsyncClient(transport=WireTransport()) as c:
            with pytest.raises(httpx2.ConnectError):  # not in the default trust store
                await c.get(f"https://localhost:{port}/a")
    finally:
        server.close()


def test_the_proxy_forwards_on_the_wire_unless_the_environment_names_a_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in (
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "ALL_PROXY",
        "https_proxy",
        "http_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    app = create_app(upstream_openai="http://127.0.0.1:9/v1")
    assert isinstance(app.state.forwarder.wire, WireTransport)
    monkeypatch.setenv("https_proxy", "http://corporate-proxy:3128")
    app = create_app(upstream_openai="http://127.0.0.1:9/v1")
    assert app.state.forwarder.wire is None
    given = httpx2.AsyncClient()
    assert create_app(http_client=given).state.forwarder.client is given
