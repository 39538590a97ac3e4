"""Answers the authors of the proxy's forwarding client did not choose.

Each test scripts an upstream on a real socket. The client is
:class:`~contextfold.proxy._upstream.AiohttpUpstream`, what the proxy forwards on:
where ``httpx2``'s default transport (``httpcore2`` over ``h11``, the SDKs' stack)
refuses an answer, it must refuse it too, without buffering without bound; where
httpx2 reads one, it reads it the same way, or (listed) refuses it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx2
import pytest

from contextfold.proxy import create_app
from contextfold.proxy._upstream import AiohttpUpstream, UpstreamError
from tests._raw_http import Served

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Scripted:
    """A loopback upstream running ``handler`` per connection."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> str:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            try:
                await self.handler(reader, writer)
            except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
                pass  # cancelled: the test is over (3.11's start_server logs it otherwise)
            finally:
                writer.close()

        self.server = await asyncio.start_server(handle, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()


def answering(reply: bytes, *, trickle: float | None = None) -> Handler:
    """Each request on a connection gets ``reply`` (byte by byte with ``trickle``)."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await reader.readuntil(b"\r\n\r\n")
            if trickle is None:
                writer.write(reply)
            else:
                for i in range(len(reply)):
                    writer.write(reply[i : i + 1])
                    await writer.drain()
                    await asyncio.sleep(trickle)
            await writer.drain()

    return handler


REFUSED = ("refused",)


async def outcome(url: str, limits: httpx2.Timeout) -> tuple[object, ...]:
    """``(status, headers, body)`` of a GET through ``httpx2``'s default transport, or
    the error's type."""
    async with httpx2.AsyncClient(timeout=limits) as made:
        try:
            reply = await made.get(url)
        except httpx2.HTTPError as exc:
            return (type(exc),)
        return reply.status_code, list(reply.headers.raw), reply.content


async def ours(url: str, seconds: float) -> tuple[object, ...]:
    """``(status, headers, body)`` of a GET forwarded as the proxy forwards, or
    :data:`REFUSED` (any :class:`UpstreamError`)."""
    client = AiohttpUpstream(connect=seconds, read=seconds)
    try:
        reply = await client.send("GET", url, [], b"")
        try:
            body = b"".join([chunk async for chunk in reply.chunks()])
        finally:
            await reply.aclose()
    except UpstreamError:
        return REFUSED
    finally:
        await client.aclose()
    headers = [(name.lower(), value) for name, value in reply.raw_headers]
    return reply.status_code, headers, body


async def both(
    reply: bytes, seconds: float = 5.0, trickle: float | None = None
) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """The same answer read by ``httpx2``'s default transport and by ours."""
    async with Scripted(answering(reply, trickle=trickle)) as url:
        default = await outcome(url, httpx2.Timeout(seconds))
    async with Scripted(answering(reply, trickle=trickle)) as url:
        return default, await ours(url, seconds)


# What httpx2 reads but ours refuses (llhttp is stricter, and refusing is safe): both
# framings at once, a Content-Length said twice (even alike).
REFUSED_HERE = {"length-and-chunked", "length-twice", "length-list"}


def agree(default: tuple[object, ...], got: tuple[object, ...], case: str) -> bool:
    """Refused where httpx2 refuses; read the same where it reads (an unfolded line's
    whitespace aside: h11 turns a tab into a space), or refused if listed above."""
    if len(default) == 1:
        return got == REFUSED
    if case in REFUSED_HERE and got == REFUSED:
        return True
    return _spaced(got) == _spaced(default)


def _spaced(result: tuple[object, ...]) -> tuple[object, ...]:
    if len(result) != 3:
        return result
    status, headers, body = result
    assert isinstance(headers, list)
    return status, [(n, v.replace(b"\t", b" ")) for n, v in headers], body


async def test_trailers_never_become_response_headers() -> None:
    # Head, body and trailers in one read: llhttp reports the trailers through the
    # same header callback before the response object is made.
    reply = (
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: text/plain\r\n\r\n"
        b"2\r\nhi\r\n0\r\ncontent-type: text/html\r\nx-injected: 1\r\n\r\n"
    )
    default, got = await both(reply)
    assert got == default
    assert got == (
        200,
        [(b"transfer-encoding", b"chunked"), (b"content-type", b"text/plain")],
        b"hi",
    )


def endless(start: bytes, piece: bytes, size: int = 16 << 20) -> Handler:
    """Answers with ``start``, then ``piece`` over and over (``size`` bytes), then holds on."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(start)
        block = piece * (65_536 // len(piece) + 1)
        for _ in range(size // len(block)):
            writer.write(block)
            await writer.drain()
        await asyncio.sleep(30)

    return handler


@pytest.mark.parametrize(
    ("start", "piece", "default", "sent"),
    [
        (
            b"HTTP/1.1 200 OK\r\n",
            b"x-pad: 0123456789abcdef\r\n",
            httpx2.RemoteProtocolError,
            16 << 20,
        ),
        (b"HTTP/1.1 200 OK\r\nx-long: ", b"0123456789abcdef", httpx2.RemoteProtocolError, 16 << 20),
        (b"HTTP/1.1 200 ", b"reason ", httpx2.RemoteProtocolError, 16 << 20),
        # h11 reads 1xx answers one by one for ever (until the upstream pauses); so
        # does aiohttp (4 MiB of them: each is parsed, and under tracemalloc 16 MiB
        # took 19 s)
        (
            b"",
            b"HTTP/1.1 100 Continue\r\nx-pad: 0123456789abcdef\r\n\r\n",
            httpx2.ReadTimeout,
            4 << 20,
        ),
    ],
    ids=["many-fields", "long-field", "status-line", "informational"],
)
async def test_a_head_that_never_ends_is_refused_before_it_fills_memory(
    start: bytes, piece: bytes, default: type[httpx2.HTTPError], sent: int
) -> None:
    # h11 refuses a head over 100 KiB; ours is bounded too (aiohttp's line, field and
    # field-count limits), and each 1xx answer is dropped once read: what the proxy
    # holds does not grow with what the upstream sends.
    import tracemalloc

    async with Scripted(endless(start, piece, 1 << 20)) as url:
        assert await outcome(url, httpx2.Timeout(1.0)) == (default,)
    peaks = []
    for size in (sent // 4, sent):
        async with Scripted(endless(start, piece, size)) as url:
            tracemalloc.start()
            try:
                assert await ours(url, 1.0) == REFUSED
                peaks.append(tracemalloc.get_traced_memory()[1])
            finally:
                tracemalloc.stop()
    small, large = peaks
    assert large < 8 << 20, f"peak {large / 2**20:.1f} MiB"
    assert large - small < sent // 8, f"{small / 2**20:.1f} -> {large / 2**20:.1f} MiB"


def informational_then_silence(count: int) -> Handler:
    """Answers ``count`` 1xx answers, then says nothing for 8 s, then closes."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n" * count)
        await writer.drain()
        await asyncio.sleep(8)
        writer.close()

    return handler


@pytest.mark.parametrize("count", [1, 3])
async def test_the_read_timeout_bounds_the_wait_after_an_informational_answer(
    count: int,
) -> None:
    # aiohttp stops timing the socket after any answer without a body, a 1xx too:
    # an upstream that sent "100 Continue" and went quiet held the request until it
    # closed (16 s here: 8 s, then aiohttp's own retry of the GET), for ever if never
    loop = asyncio.get_running_loop()
    async with Scripted(informational_then_silence(count)) as url:
        started = loop.time()
        assert await ours(url, 0.5) == REFUSED
        waited = loop.time() - started
    assert waited < 4.0, f"held {waited:.1f} s"


async def test_the_read_timeout_bounds_each_wait_for_bytes_not_the_whole_head() -> None:
    # A slow upstream trickles its answer a byte at a time, each byte well within
    # the read timeout: httpcore reads it, and so must ours.
    reply = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
    expected = (200, [(b"transfer-encoding", b"chunked")], b"hello")
    async with Scripted(answering(reply, trickle=0.02)) as url:
        assert await outcome(url, httpx2.Timeout(0.4)) == expected
    async with Scripted(answering(reply, trickle=0.02)) as url:
        assert await ours(url, 0.4) == expected


HI = b"content-length: 2\r\n\r\nhi"


@pytest.mark.parametrize(
    "reply",
    [
        b"HTTP/1.1 200 OK\nx-a: 1\n" + HI.replace(b"\r", b""),  # bare LF line ends
        b"HTTP/1.1 200 OK\r\nx-a: \ta b \t\r\n" + HI,  # whitespace around a value
        b"HTTP/1.1 200 OK\r\ncontent-length: 2 \r\n\r\nhi",
        # codings other than chunked: h11 refuses them; llhttp read "gzip, chunked"
        # as chunked and the proxy relayed the still gzip-coded bytes as plain
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\ntransfer-encoding: chunked\r\n\r\n"
        b"2\r\nhi\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: identity\r\n\r\nhi",
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked, chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
        # both framings: the chunked one wins (RFC 9112 section 6.3), as in h11
        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n"
        b"2\r\nhi\r\n0\r\n\r\n",
    ],
    ids=[
        "bare-lf",
        "ows",
        "ows-length",
        "gzip-chunked",
        "gzip-then-chunked",
        "identity",
        "chunked-twice",
        "length-and-chunked",
    ],
)
async def test_heads_are_read_as_httpcore_reads_them(
    reply: bytes, request: pytest.FixtureRequest
) -> None:
    default, got = await both(reply)
    assert agree(default, got, request.node.callspec.id), (default, got)


async def test_an_answer_with_both_framings_does_not_keep_its_connection() -> None:
    # A message framed twice may be a response-splitting attempt: what follows it
    # on the connection is not trusted with a next request.
    reply = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n"
    upstream = Scripted(answering(reply + b"2\r\nhi\r\n0\r\n\r\n"))
    client = AiohttpUpstream(connect=5.0, read=5.0)
    try:
        async with upstream as url:
            for _ in range(2):
                try:
                    got = await client.send("GET", url, [], b"")
                except UpstreamError:
                    continue  # refused outright: never reused either
                assert b"".join([c async for c in got.chunks()]) == b"hi"
                await got.aclose()
    finally:
        await client.aclose()
    assert upstream.connections == 2


@pytest.mark.parametrize("how", ["read-timeout", "cancelled"])
async def test_an_abandoned_request_is_not_sent_on_after_it_was_given_up(how: str) -> None:
    # Closing a connection flushes its write buffer first: a request given up
    # mid-body (timed out, cancelled) could still reach the upstream whole, which
    # could act on it (and bill it). A large body goes out a piece at a time, so at
    # most about one piece is still queued when the request is given up.
    body = b"x" * (64 << 20)
    received: list[int] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await asyncio.sleep(1.0)  # not reading: the client gives up meanwhile
        total = 0
        with contextlib.suppress(ConnectionError):
            while piece := await reader.read(1 << 20):
                total += len(piece)
        received.append(total)

    async with Scripted(handler) as url:
        client = AiohttpUpstream(connect=5.0, read=0.2 if how == "read-timeout" else 5.0)
        try:
            send = client.send("POST", url, [], body)
            if how == "read-timeout":
                with pytest.raises(UpstreamError):
                    await send
            else:
                task = asyncio.ensure_future(send)
                await asyncio.sleep(0.2)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
        finally:
            await client.aclose()
        for _ in range(100):
            if received:
                break
            await asyncio.sleep(0.05)
    assert received
    assert received[0] < len(body)


@pytest.mark.parametrize("then", ["hold", "half-close"])
async def test_an_answer_before_the_request_body_is_taken_is_relayed(then: str) -> None:
    # An upstream refusing a large body answers after its head (413) and reads no
    # more. A client that waits for the body to drain turns the upstream's answer
    # into a timeout (a 504 from the proxy) or a write error (502).
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 413 Too Large\r\ncontent-length: 9\r\n\r\ntoo large")
        if then == "half-close":
            writer.write_eof()
        await asyncio.sleep(5)

    upstream = Scripted(handler)
    client = AiohttpUpstream(connect=5.0, read=1.0)
    try:
        async with upstream as url:
            for _ in range(2):
                reply = await client.send("POST", url, [], b"x" * (32 << 20))
                content = b"".join([c async for c in reply.chunks()])
                await reply.aclose()
                assert (reply.status_code, content) == (413, b"too large")
    finally:
        await client.aclose()
    assert upstream.connections == 2  # the request was not all sent: never reused


@pytest.mark.parametrize(
    ("method", "headers"),
    [
        ("GET /admin HTTP/1.1\tX", []),  # a second request line in the method
        ("GE T", []),
        ("", []),
        ("G(ET", []),
        ("GET", [(b"x a", b"1")]),  # a space in a header name
        ("GET", [(b"x\ta", b"1")]),
        ("GET", [(b"x-\x7f", b"1")]),
        ("GET", [(b"x-(a)", b"1")]),
    ],
)
async def test_a_method_or_header_name_that_is_no_token_is_refused(
    method: str, headers: list[tuple[bytes, bytes]]
) -> None:
    # h11 refuses them (LocalProtocolError); written as they were, they are a request
    # line or header line that the upstream reads some other way.
    upstream = Scripted(answering(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"))
    client = AiohttpUpstream(connect=5.0, read=5.0)
    try:
        async with upstream as url:
            with pytest.raises(UpstreamError):
                await client.send(method, url, headers, b"")
            # ... and a well-formed request goes through, on the only connection
            reply = await client.send("GET", url, [], b"")
            assert reply.status_code == 200
            await reply.aclose()
    finally:
        await client.aclose()
    assert upstream.connections == 1


@pytest.mark.parametrize("status", [600, 999])
async def test_the_proxy_answers_an_invalid_upstream_status_with_a_502(
    status: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # RFC 9110 section 15: a status outside 100..599 is invalid, to be taken as a
    # server error. Relayed as it was, uvicorn could not write its status line and
    # dropped the client's connection without an answer.
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    reply = b"HTTP/1.1 %d Odd\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
    async with Scripted(answering(reply % status)) as url:
        app = create_app(upstream_openai=f"{url}v1", db=tmp_path / "proxy.db")
        async with Served(app) as proxy, httpx2.AsyncClient() as made:
            answer = await made.post(
                f"{proxy.url}/v1/chat/completions",
                json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]},
            )
    assert answer.status_code == 502
    assert str(status) in answer.json()["error"]["message"]


async def test_an_upstream_base_path_outside_ascii_is_escaped_as_httpx2_escapes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # forward() encoded the target as ASCII: an upstream base URL configured with
    # a path outside ASCII raised UnicodeEncodeError, which the proxy answered 500.
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    lines: list[bytes] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            lines.append((await reader.readuntil(b"\r\n\r\n")).split(b"\r\n")[0])
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n")
            writer.write(b"content-length: 2\r\n\r\n{}")

    async with Scripted(handler) as url:
        async with httpx2.AsyncClient() as made:
            await made.get(f"{url}caf\u00e9/v1/models")
        client = AiohttpUpstream(connect=5.0, read=5.0)
        reply = await client.send("GET", f"{url}caf\u00e9/v1/models", [], b"")
        await reply.aclose()
        await client.aclose()
        app = create_app(upstream_openai=f"{url}caf\u00e9/v1", db=tmp_path / "proxy.db")
        async with Served(app) as proxy, httpx2.AsyncClient() as made:
            assert (await made.get(f"{proxy.url}/v1/models")).status_code == 200
    assert lines == [b"GET /caf%C3%A9/v1/models HTTP/1.1"] * 3


@pytest.mark.parametrize("trickle", [None, 0.0], ids=["whole", "byte-by-byte"])
@pytest.mark.parametrize(
    "reply",
    [
        # obs-fold: RFC 9112 section 5.2 has a client unfold it; llhttp refuses it
        b"HTTP/1.1 200 OK\r\nx-a: 1\r\n 2\r\n\t3\r\n" + HI,
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\nx-a: 1\n 2\n" + HI.replace(b"\r", b""),
        b"HTTP/1.1 103 Hints\r\nlink: </a>\r\n ; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\n" + HI,
        # one length said twice (RFC 9110 section 8.6 lets a recipient take it)
        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n" + HI,
        b"HTTP/1.1 200 OK\r\ncontent-length: 2, 2\r\n\r\nhi",
        b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n" + HI,  # two lengths: refused
    ],
    ids=[
        "obs-fold",
        "obs-fold-after-1xx",
        "obs-fold-in-1xx",
        "length-twice",
        "length-list",
        "two-lengths",
    ],
)
async def test_heads_llhttp_refuses_but_h11_reads(
    reply: bytes, trickle: float | None, request: pytest.FixtureRequest
) -> None:
    default, got = await both(reply, trickle=trickle)
    assert agree(default, got, request.node.callspec.id.split("-whole")[0].split("-byte")[0])


async def test_a_repaired_head_that_switches_protocols_is_refused_cleanly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reply = b"HTTP/1.1 101 Switching\r\nupgrade: x\r\nconnection: upgrade\r\nx-a: 1\r\n 2\r\n\r\n"
    default, got = await both(reply)
    assert default == (httpx2.RemoteProtocolError,)
    assert got == REFUSED
    assert not [r for r in caplog.records if r.levelname == "ERROR"]  # no escaped exception
