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
from collections.abc import AsyncIterator
from typing import Any

import httpx2

from contextfold.proxy._wireconn import BODY_HEADERS, Connection

__all__ = ["WireTransport", "proxy_client"]

_PROXY_VARIABLES = ("https_proxy", "http_proxy", "all_proxy")
_DEFAULT_PORTS = {b"http": 80, b"https": 443}
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


class _Body(httpx2.AsyncByteStream):
    """A response body read off its connection; the connection goes back to the
    pool once the body ended, or is closed if the body is abandoned."""

    def __init__(self, pool: WireTransport, connection: Connection, read: float | None) -> None:
        self._pool = pool
        self._connection: Connection | None = connection
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
        self._idle: dict[tuple[bytes, str, int], list[Connection]] = {}
        self._idle_count = 0
        self._closed = False
        # (scheme, netloc) as written in a forwarded URL -> (pool key, Host header)
        self._origins: dict[tuple[str, str], tuple[tuple[bytes, str, int], bytes]] = {}

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = httpx2.create_ssl_context()
        return self._ssl

    # -- the pool ------------------------------------------------------------------

    async def _acquire(self, key: tuple[bytes, str, int], timeouts: dict[str, Any]) -> Connection:
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

    async def _connect(self, key: tuple[bytes, str, int], seconds: float | None) -> Connection:
        scheme, host, port = key
        secure = scheme == b"https"
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(seconds):
                _, protocol = await loop.create_connection(
                    lambda: Connection(key),
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

    def _release(self, connection: Connection, *, reuse: bool) -> None:
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
        headers = [(n, v) for n, v in headers if n.lower() not in BODY_HEADERS]
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
