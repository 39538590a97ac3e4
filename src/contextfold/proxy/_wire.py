"""The proxy's upstream HTTP/1.1 client: an ``httpx2`` transport on asyncio and llhttp.

``httpx2``'s own transport (``httpcore2`` over ``h11``, pure Python) costs about
0.5 ms of CPU per forwarded request, more than everything else the proxy does to a
request far under its limit. :class:`WireTransport` plugs into the same
``httpx2.AsyncClient`` (so the forwarding code, the SDK summarizers and their tests
see the usual requests and responses) and does the wire work itself: one asyncio
protocol per connection, responses parsed by ``httptools`` (llhttp, the parser of
Node.js), request heads written in one buffer. It costs about a tenth of that.

What it does, and does not:

* HTTP/1.1 over TCP, or TLS for ``https`` (the ``ssl.SSLContext`` given, else
  ``httpx2.create_ssl_context()``: the same trust store as ``httpx2``'s default).
* Keep-alive pool per scheme, host and port: at most ``max_connections`` open, at
  most ``max_keepalive_connections`` idle, each idle at most ``keepalive_expiry``
  seconds; a connection the server closed while idle is noticed (the protocol sees
  its end) and never reused. A connection is reused only after its whole response
  was read and neither side asked to close it.
* Timeouts from the request's ``timeout`` extension (``httpx2.Timeout``): ``pool``
  (waiting for a free connection), ``connect`` (TCP and TLS handshake), ``write``
  (each wait to drain a large body) and ``read`` (each wait for bytes of the
  response: any byte restarts it, as in ``httpcore``), raised as ``httpx2``'s own
  timeout exceptions.
* Response bodies framed by ``Content-Length``, chunked transfer coding or the end
  of the connection; informational (1xx) answers are skipped; ``HEAD`` answers, 204
  and 304 have no body. Bodies stream: each chunk is handed over as it arrives, and
  reading pauses while more than 1 MiB waits unread. Heads are read as ``h11``
  reads them (bare LF line ends, folded lines, a length said twice; trailers
  dropped; transfer codings other than chunked refused) and may take 128 KiB.
* An answer that comes while the request body is still going out (an early 413)
  is handed over; a connection given up drops its unsent bytes.
* Not HTTP/2, not ``Upgrade``/``CONNECT``, not proxies: :func:`proxy_client`
  builds the ``httpx2`` default client instead when the environment names a proxy
  (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``).
* Errors are ``httpx2``'s: ``ConnectError``, ``ConnectTimeout``, ``ReadError``,
  ``ReadTimeout``, ``WriteError``, ``WriteTimeout``, ``PoolTimeout``,
  ``RemoteProtocolError`` (a malformed answer, or a server that closed before its
  answer ended) and ``LocalProtocolError`` (a header or target that HTTP cannot
  carry: CR, LF or NUL; a method or header name that is no token). A request
  whose response is abandoned (closed unread, cancelled) closes its connection.
"""

from __future__ import annotations

import asyncio
import os
import re
import ssl
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import Any, cast

import httptools
import httpx2

__all__ = ["WireTransport", "proxy_client"]

_HIGH_WATER = 1 << 20  # unread body bytes at which reading pauses
_LOW_WATER = 1 << 18
_MAX_HEAD = 1 << 17  # bytes an answer may take before its head ends (h11's: 100 KiB)
_PROXY_VARIABLES = ("https_proxy", "http_proxy", "all_proxy")
_DEFAULT_PORTS = {b"http": 80, b"https": 443}
_BODY_HEADERS = frozenset({b"content-length", b"transfer-encoding"})
_OWS = (b" ", b"\t")
# what llhttp refuses that h11 reads (see _repaired)
_REPAIRABLE = re.compile(r"whitespace after header value|Content-Length")
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_INFORMATIONAL = re.compile(rb"HTTP/1\.[01] 1(?!01)\d\d")  # 1xx but 101, which ends all
_FOLD = re.compile(rb"\r?\n[ \t]+")
# the method and the header names, each a token (RFC 9110 section 5.6.2), one a line
_TOKENS = re.compile(rb"[-!#$%&'*+.^_`|~0-9A-Za-z]+(?:\n[-!#$%&'*+.^_`|~0-9A-Za-z]+)*")


def env_names_a_proxy() -> bool:
    """Whether the environment asks HTTP clients to go through a proxy."""
    return any(os.environ.get(name) or os.environ.get(name.upper()) for name in _PROXY_VARIABLES)


def proxy_client(
    timeout: httpx2.Timeout, limits: httpx2.Limits
) -> tuple[httpx2.AsyncClient, WireTransport | None]:
    """The client the proxy forwards and summarizes with, and its transport: a
    :class:`WireTransport`, unless the environment names a proxy (then ``httpx2``'s
    default transport, which honours it, and ``None``)."""
    if env_names_a_proxy():
        return httpx2.AsyncClient(timeout=timeout, limits=limits), None
    transport = WireTransport(
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
    )
    return httpx2.AsyncClient(timeout=timeout, limits=limits, transport=transport), transport


def _parser(connection: _Connection) -> httptools.HttpResponseParser:
    parser = httptools.HttpResponseParser(connection)
    # Read what h11 reads: bare LF line ends, and both framings (the chunked one
    # wins, RFC 9112 section 6.3; the connection is not kept after it).
    parser.set_dangerous_leniencies(lenient_optional_cr_before_lf=True, lenient_chunked_length=True)
    return parser


def _repaired(data: bytes) -> bytes | None:
    """``data`` (an answer from its first byte) with its heads as h11 reads them,
    where llhttp refuses them: folded lines (obs-fold) unfolded, which RFC 9112
    section 5.2 asks of a client, and a ``Content-Length`` repeated with one value
    (RFC 9110 section 8.6) said once. ``None`` while the last head has not ended;
    ``b""`` when there is nothing to repair, or it cannot be."""
    heads: list[bytes] = []
    start = 0
    while match := _HEAD_END.search(data, start):
        head = data[start : match.start()]
        fixed: list[bytes] = []
        length = b""
        for line in _FOLD.sub(b" ", head).split(b"\n"):
            name, colon, value = line.rstrip(b"\r").partition(b":")
            if colon and name.lower() == b"content-length":
                values = {v.strip(b" \t") for v in value.split(b",")}
                if len(values) > 1 or (length and values != {length}):
                    return b""  # two lengths: refused
                if length:
                    continue
                length = values.pop()
                line = name + b": " + length
            fixed.append(line.rstrip(b"\r"))
        heads.append(b"\r\n".join(fixed) + b"\r\n\r\n")
        start = match.end()
        if not _INFORMATIONAL.match(head):  # the last head: what follows is its body
            repaired = b"".join(heads) + data[start:]
            return b"" if repaired == data else repaired
    return None


class _Refused(Exception):
    """Raised in a parser callback to stop parsing an answer refused already."""


class _Connection(asyncio.Protocol):
    """One upstream connection, one exchange at a time; parser callbacks fill it."""

    def __init__(self, key: tuple[bytes, str, int]) -> None:
        self.key = key
        self.transport: asyncio.Transport | None = None
        self.parser = _parser(self)
        self.lost = False  # the connection ended (either side), or must not be reused
        self.idle_since = 0.0
        self.received_at = 0.0  # loop time of the last bytes received
        self._clock = time.monotonic
        self._drain: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._reset(head=False, busy=True)

    def _reset(self, *, head: bool, busy: bool) -> None:
        self.busy = busy  # an exchange is on (else idle in the pool: no bytes expected)
        self.head = head  # the request was HEAD: its answer has no body whatever it says
        self.status = 0
        self.reason = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.headers_done = False
        self.head_bytes = 0  # bytes received while the head was not over
        self.head_data: list[bytes] = []  # and those bytes (for _repaired)
        self.refused: str | None = None  # why llhttp refused a head being repaired
        self.until_close = False  # body framed by the end of the connection
        self.complete = False
        self.error: Exception | None = None
        self.chunks: deque[bytes] = deque()
        self.unread = 0
        self.paused = False
        self._waiter: asyncio.Future[None] | None = None

    # -- asyncio.Protocol ----------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but have its methods
        self.transport = cast("asyncio.Transport", transport)
        self._clock = asyncio.get_running_loop().time

    def data_received(self, data: bytes) -> None:
        self.received_at = self._clock()
        if not self.busy or self.complete or self.error is not None:
            # Bytes after an answer (or while idle) are no answer to anything asked.
            self._fail("the upstream sent bytes no request asked for")
            return
        if not self.headers_done:
            self.head_bytes += len(data)
            self.head_data.append(data)
        try:
            if self.refused is not None:
                self._reparse()
            else:
                self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail("the upstream switched protocols, which the proxy does not relay")
        except httptools.HttpParserError as exc:  # (the first of _fail's reasons stays)
            why = f"the upstream sent a malformed HTTP answer ({exc})"
            if self.headers_done or self.error is not None or not _REPAIRABLE.search(str(exc)):
                self._fail(why)
            else:
                self.refused = why
                self._reparse()
        if not self.headers_done and self.head_bytes > _MAX_HEAD:
            # llhttp sets no bound: an endless head (or endless 1xx answers) would
            # be held whole, so it is refused as h11 refuses it.
            self._fail(f"the upstream's answer head exceeds {_MAX_HEAD} bytes")

    def _reparse(self) -> None:
        """Parse again from its first byte a head llhttp refused, once it is all
        here and repaired as h11 reads it (see :func:`_repaired`)."""
        data = _repaired(b"".join(self.head_data))
        if data is None:  # the head goes on: wait for the rest
            return
        if not data:
            self._fail(self.refused or "the upstream sent a malformed HTTP answer")
            return
        self.refused = None
        self.parser = _parser(self)
        self.reason = b""
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail("the upstream switched protocols, which the proxy does not relay")
        except httptools.HttpParserError as exc:
            self._fail(f"the upstream sent a malformed HTTP answer ({exc})")

    def eof_received(self) -> bool:
        self._ended()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._ended()
        if self._drain is not None and not self._drain.done():
            if self.headers_done:  # answered first: its reading tells how it ended
                self._drain.set_result(None)
            else:
                self._drain.set_exception(httpx2.WriteError("the upstream closed the connection"))
        self._drain = None

    def pause_writing(self) -> None:
        if self._drain is None or self._drain.done():
            self._drain = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)
        self._drain = None

    def _ended(self) -> None:
        first = not self.lost
        self.lost = True
        if not first or self.complete or self.error is not None:
            self._wake()
            return
        if self.headers_done and self.until_close:
            self.complete = True
            self._wake()
        elif self.busy:
            self._fail("the upstream closed the connection before its answer ended")

    def _fail(self, why: str) -> None:
        self.lost = True
        if self.error is None and not self.complete:
            self.error = httpx2.RemoteProtocolError(why)
        self._drop()
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # -- llhttp callbacks ----------------------------------------------------------

    # Once the answer is complete, what follows in the same read is no answer to
    # anything asked: the callbacks leave the answer alone, and the connection goes.
    # Header fields after the head are a chunked body's trailers: dropped, like
    # ``h11`` drops them (the head may not be handed over yet when they arrive).

    def on_message_begin(self) -> None:
        if self.complete:
            self.lost = True
            return
        self.headers = []

    def on_status(self, status: bytes) -> None:
        if not self.headers_done:
            self.reason += status

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self.headers_done:
            if value[-1:] in _OWS:  # llhttp drops the whitespace before a value only
                value = value.rstrip(b" \t")
            self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        if self.complete:
            return
        status = self.parser.get_status_code()
        if 100 <= status < 200:  # informational: the real answer follows
            self.reason = b""
            return
        self.status = status
        names = {name.lower() for name, _ in self.headers}
        bodiless = self.head or status in (204, 304)
        self.until_close = not bodiless and not names & _BODY_HEADERS
        if b"transfer-encoding" in names and not bodiless:
            codings = b",".join(v for n, v in self.headers if n.lower() == b"transfer-encoding")
            if [c.strip(b" \t").lower() for c in codings.split(b",")] != [b"chunked"]:
                # llhttp reads "gzip, chunked" as chunked and hands over bytes still
                # coded; anything else but "chunked" it reads to the end of the
                # connection. h11 refuses both, and so does the proxy.
                self._fail(f"the upstream used a transfer coding other than chunked ({codings!r})")
                raise _Refused
            if b"content-length" in names:
                self.lost = True
        self.headers_done = True
        if self.head:
            # llhttp cannot know the request was HEAD: the answer ends here, and the
            # connection with it (any body bytes it declared never come).
            self.complete = True
            self.lost = True
        drain = self._drain
        if drain is not None and not drain.done():
            # Answered while the request body was still going out (an early 413):
            # the answer is handed over, and the body stops where it is.
            self.lost = True
            drain.set_result(None)
        self._wake()

    def on_body(self, body: bytes) -> None:
        if self.head or self.complete:
            return
        self.chunks.append(body)
        self.unread += len(body)
        if self.unread > _HIGH_WATER and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def on_message_complete(self) -> None:
        if not self.headers_done or self.complete:  # an informational answer's end
            return
        self.complete = True
        if not self.parser.should_keep_alive():
            self.lost = True
        self._wake()

    # -- the exchange --------------------------------------------------------------

    async def _wait(self, seconds: float | None) -> None:
        """Until a callback wakes this exchange; ``ReadTimeout`` once ``seconds``
        pass with no bytes received (each read waits at most that long, like
        ``httpcore``'s: an answer trickled in byte by byte, a head or chunk framing
        wakes nobody, but each of its bytes restarts the clock)."""
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        if seconds is not None:
            self._timer = loop.call_later(seconds, self._expire, waiter, seconds)
        try:
            await waiter
        finally:
            self._waiter = None
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def _expire(self, waiter: asyncio.Future[None], seconds: float) -> None:
        if waiter.done():
            return
        loop = waiter.get_loop()
        deadline = self.received_at + seconds
        if deadline > loop.time():  # bytes came meanwhile: wait on from the last ones
            self._timer = loop.call_at(deadline, self._expire, waiter, seconds)
            return
        self._timer = None
        waiter.set_exception(httpx2.ReadTimeout("the upstream did not answer in time"))

    async def send(self, head: bytes, body: bytes, timeouts: dict[str, Any]) -> None:
        transport = self.transport
        assert transport is not None
        if len(body) < 65_536:
            transport.write(head + body)
        else:
            transport.write(head)
            transport.write(body)
        if self._drain is not None:
            try:
                async with asyncio.timeout(timeouts.get("write")):
                    await self._drain
            except TimeoutError:
                raise httpx2.WriteTimeout("the upstream did not take the request in time") from None

    async def response_head(self, read_timeout: float | None) -> None:
        while not self.headers_done and self.error is None:
            if self.lost:
                raise httpx2.RemoteProtocolError("the upstream closed without answering")
            await self._wait(read_timeout)
        if self.error is not None:
            raise self.error

    async def next_chunk(self, read_timeout: float | None) -> bytes:
        """The next piece of the body; ``b""`` once it ended."""
        while not self.chunks:
            if self.error is not None:
                raise self.error
            if self.complete:
                return b""
            await self._wait(read_timeout)
        chunk = self.chunks.popleft()
        self.unread -= len(chunk)
        if self.paused and self.unread < _LOW_WATER and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()
        return chunk

    def reusable(self, now: float, expiry: float | None) -> bool:
        if self.lost or self.transport is None or self.transport.is_closing():
            return False
        return expiry is None or now - self.idle_since < expiry

    def close(self) -> None:
        self.lost = True
        self._drop()

    def _drop(self) -> None:
        """Close the connection; what was not written yet is dropped, not sent on
        (``close`` would flush it first: a request given up mid-body would reach
        the upstream whole, and the socket stay open while the upstream reads not)."""
        transport = self.transport
        if transport is not None:
            if transport.get_write_buffer_size():
                transport.abort()
            else:
                transport.close()


class _Body(httpx2.AsyncByteStream):
    """A response body read off its connection; the connection goes back to the
    pool once the body ended, or is closed if the body is abandoned."""

    def __init__(self, pool: WireTransport, connection: _Connection, read: float | None) -> None:
        self._pool = pool
        self._connection: _Connection | None = connection
        self._read = read

    async def __aiter__(self) -> AsyncIterator[bytes]:
        connection = self._connection
        if connection is None:
            raise httpx2.StreamClosed()
        try:
            while chunk := await connection.next_chunk(self._read):
                yield chunk
        except BaseException:
            await self.aclose()
            raise
        self._release()

    def _release(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            self._pool._release(connection, reuse=connection.complete)

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            self._pool._release(connection, reuse=False)


class WireTransport(httpx2.AsyncBaseTransport):
    """HTTP/1.1 with a keep-alive pool, on asyncio protocols and ``httptools``."""

    def __init__(
        self,
        *,
        ssl_context: ssl.SSLContext | None = None,
        max_connections: int | None = 256,
        max_keepalive_connections: int | None = 64,
        keepalive_expiry: float | None = 5.0,
    ) -> None:
        self._ssl = ssl_context
        self._slots = asyncio.Semaphore(max_connections) if max_connections else None
        self._max_idle = max_keepalive_connections
        self._expiry = keepalive_expiry
        self._idle: dict[tuple[bytes, str, int], list[_Connection]] = {}
        self._idle_count = 0
        self._closed = False
        # (scheme, netloc) as written in a forwarded URL -> (pool key, Host header)
        self._origins: dict[tuple[str, str], tuple[tuple[bytes, str, int], bytes]] = {}

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = httpx2.create_ssl_context()
        return self._ssl

    # -- the pool ------------------------------------------------------------------

    async def _acquire(self, key: tuple[bytes, str, int], timeouts: dict[str, Any]) -> _Connection:
        if self._slots is not None:
            try:
                async with asyncio.timeout(timeouts.get("pool")):
                    await self._slots.acquire()
            except TimeoutError:
                raise httpx2.PoolTimeout("no upstream connection came free in time") from None
        try:
            idle = self._idle.get(key)
            now = time.monotonic()
            while idle:
                connection = idle.pop()
                self._idle_count -= 1
                if connection.reusable(now, self._expiry):
                    return connection
                connection.close()
            return await self._connect(key, timeouts.get("connect"))
        except BaseException:
            if self._slots is not None:
                self._slots.release()
            raise

    async def _connect(self, key: tuple[bytes, str, int], seconds: float | None) -> _Connection:
        scheme, host, port = key
        secure = scheme == b"https"
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(seconds):
                _, protocol = await loop.create_connection(
                    lambda: _Connection(key),
                    host,
                    port,
                    ssl=self._ssl_context() if secure else None,
                    server_hostname=host if secure else None,
                )
        except TimeoutError:
            raise httpx2.ConnectTimeout(f"connecting to {host}:{port} timed out") from None
        except (OSError, ssl.SSLError) as exc:
            raise httpx2.ConnectError(f"{type(exc).__name__}: {exc}") from None
        return protocol

    def _release(self, connection: _Connection, *, reuse: bool) -> None:
        if self._slots is not None:
            self._slots.release()
        limit = self._max_idle
        if (
            not reuse
            or self._closed
            or not connection.reusable(time.monotonic(), None)
            or (limit is not None and self._idle_count >= limit)
        ):
            connection.close()
            return
        connection._reset(head=False, busy=False)
        connection.idle_since = time.monotonic()
        self._idle.setdefault(connection.key, []).append(connection)
        self._idle_count += 1

    # -- httpx2 ----------------------------------------------------------------------

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        url = request.url
        scheme = url.raw_scheme
        if scheme not in _DEFAULT_PORTS:
            raise httpx2.UnsupportedProtocol(f"the proxy forwards only http and https, not {url}")
        body = await request.aread()
        head = _head(request.method, url.raw_path, request.headers.raw, body)
        key = (scheme, url.raw_host.decode("ascii"), url.port or _DEFAULT_PORTS[scheme])
        timeouts: dict[str, Any] = request.extensions.get("timeout", {})
        return await self._exchange(key, request.method, head, body, timeouts)

    async def forward(
        self,
        method: str,
        url: str,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
        timeouts: dict[str, Any],
    ) -> httpx2.Response:
        """What ``httpx2.AsyncClient.send(build_request(...), stream=True)`` returns,
        without the client's per-request work (URL parsing, header models, auth,
        cookies, redirects): the proxy forwards to a fixed upstream, with the
        client's own headers, and follows nothing.

        ``url`` is absolute and already escaped (the target goes out as it is);
        ``Host`` and ``Content-Length`` are added like ``httpx2`` adds them.
        """
        scheme, _, rest = url.partition("://")
        netloc, _, path = rest.partition("/")
        origin = self._origins.get((scheme, netloc))
        if origin is None:
            parsed = httpx2.URL(f"{scheme}://{netloc}/")
            if parsed.userinfo:  # httpx2 turns it into an Authorization header
                raise httpx2.UnsupportedProtocol("forward() takes no credentials in the URL")
            if parsed.raw_scheme not in _DEFAULT_PORTS:
                raise httpx2.UnsupportedProtocol(
                    f"the proxy forwards only http and https, not {url}"
                )
            port = parsed.port or _DEFAULT_PORTS[parsed.raw_scheme]
            key = (parsed.raw_scheme, parsed.raw_host.decode("ascii"), port)
            origin = self._origins[(scheme, netloc)] = (key, parsed.netloc)
        key, host = origin
        auto = [(b"Host", host)]
        if body or method in ("POST", "PUT", "PATCH"):
            auto.append((b"Content-Length", b"%d" % len(body)))
        try:
            target = ("/" + path).encode("ascii")
        except UnicodeEncodeError:  # (a base URL configured so) escaped as httpx2 does
            target = httpx2.URL(url).raw_path
        head = _head(method, target, auto + headers, body)
        return await self._exchange(key, method, head, body, timeouts)

    async def _exchange(
        self,
        key: tuple[bytes, str, int],
        method: str,
        head: bytes,
        body: bytes,
        timeouts: dict[str, Any],
    ) -> httpx2.Response:
        connection = await self._acquire(key, timeouts)
        connection._reset(head=method == "HEAD", busy=True)
        try:
            await connection.send(head, body, timeouts)
            await connection.response_head(timeouts.get("read"))
        except BaseException:
            self._release(connection, reuse=False)
            raise
        return httpx2.Response(
            connection.status,
            headers=connection.headers,
            stream=_Body(self, connection, timeouts.get("read")),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": connection.reason},
        )

    async def aclose(self) -> None:
        self._closed = True
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()
        self._idle_count = 0


def _head(method: str, target: bytes, headers: list[tuple[bytes, bytes]], body: bytes) -> bytes:
    """The request line and headers, ready for the wire.

    ``httpx2`` frames a streamed body as chunked; the body is whole here, so it is
    sent with its length instead. Raises ``LocalProtocolError`` for bytes HTTP
    cannot carry in a head (CR, LF, NUL; a space in the target; a method or
    header name that is not a token).
    """
    if any(name.lower() == b"transfer-encoding" for name, _ in headers):
        headers = [(n, v) for n, v in headers if n.lower() not in _BODY_HEADERS]
        headers.append((b"Content-Length", b"%d" % len(body)))
    verb = method.encode("ascii", "replace")
    lines = [b"%s %s HTTP/1.1" % (verb, target)]
    lines += [name + b": " + value for name, value in headers]
    head = b"\r\n".join(lines) + b"\r\n\r\n"
    breaks = len(lines) + 1
    if (
        head.count(b"\n") != breaks
        or head.count(b"\r") != breaks
        or b"\0" in head
        or b" " in target
        or not _TOKENS.fullmatch(b"\n".join([verb, *(name for name, _ in headers)]))
    ):
        raise httpx2.LocalProtocolError("a header or the target holds bytes HTTP cannot carry")
    return head
