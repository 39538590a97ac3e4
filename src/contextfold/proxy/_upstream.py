"""How the proxy reaches its upstreams: each forwarded request sent, its reply handed back.

:class:`Upstream` sends a request whose body is whole and hands back a :class:`Reply`
as soon as the answer's head arrived; its body follows piece by piece as it comes
(:meth:`Reply.chunks`), so an event stream is relayed as the upstream writes it.
Two kinds:

* :class:`AiohttpUpstream`, what :func:`~contextfold.proxy.create_app` forwards on:
  one ``aiohttp.ClientSession`` per app (made in the app's event loop, closed with its
  lifespan). aiohttp's C parser (llhttp) reads the answers; its bounds hold: a head
  line or field of at most 64 KiB, at most 128 fields, trailers never turned into
  headers, a transfer coding other than ``chunked`` refused, a ``Content-Length`` said
  twice refused; its reading pauses while 128 KiB wait unread. Nothing is decoded
  (``auto_decompress=False``: a compressed answer is relayed as it came), no redirect
  is followed, no cookie is kept (one tenant's ``Set-Cookie`` never rides on another's
  request), and nothing is read from ``~/.netrc``. An ``HTTPS_PROXY`` / ``HTTP_PROXY``
  / ``ALL_PROXY`` the environment names (and ``NO_PROXY`` does not exempt) is used.
* :class:`HttpxUpstream`, on an ``httpx2.AsyncClient`` the caller gave
  (``create_app(http_client=...)``: a ``MockTransport`` in tests, say).

Tenants share the keep-alive connections: HTTP/1.1 exchanges on a connection are
sequential and independent, credentials travel with each request, and a connection
whose exchange went wrong (an answer cut short, bytes after an answer, a request
given up) is closed, never handed to the next request. What one tenant could use up
is not shared: the pool has no cap of its own (a cap shared by all would let one
tenant's long streams hold every slot and time the others out); the number of
upstream connections follows the number of requests the server is handling, which
is where to bound it (``limit_concurrency`` in front, or the process's descriptors).

Timeouts: ``connect`` bounds the TCP (and TLS) handshake, ``read`` each wait for bytes
of the answer (any byte restarts it), so an answer that keeps coming is never cut off,
and each wait for a piece of a large request body to be taken (aiohttp itself times no
write: an upstream that stopped reading would hold the request for ever).
A request body over :data:`PIECE` bytes goes out a piece at a time, each once the
socket took the one before: a request given up (its client left, its answer timed out)
leaves at most about one piece unsent-but-queued, never the whole body.

A kept connection the upstream closed before a byte of the answer came, within
:data:`_RACE` seconds of the request's last byte (its idle timeout fired as the request
went out: 5 s in uvicorn and Node), is the server's word on the connection, not on the
request: the request goes out again on another connection (up to :data:`_KEPT_TRIES`
tries, while each is on a kept one; aiohttp's own retry of an idempotent request counts
as a try on a new one). A new connection closed without an answer, a close after part of
an answer, or one that came later (the server worked on the request) is an
:class:`UpstreamError`: the request is not sent twice.

Header values go out as aiohttp writes them, in UTF-8: a value that is UTF-8 goes out
byte for byte; one that is not (obs-text) goes out as its Latin-1 reading in UTF-8.

Errors are :class:`UpstreamError` (unreachable, a malformed answer, a body that broke
off) and :class:`UpstreamTimeout`, each carrying what failed below (``cause``).
"""

from __future__ import annotations

import asyncio
import re
import ssl
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import httpx2
from yarl import URL

__all__ = [
    "PIECE",
    "AiohttpUpstream",
    "HttpxUpstream",
    "RawHeaders",
    "Reply",
    "Upstream",
    "UpstreamError",
    "UpstreamTimeout",
]

RawHeaders = list[tuple[bytes, bytes]]

PIECE = 256 * 1024
"""Bytes of a request body written at once (see the module doc)."""

_HEAD_BYTES = 64 * 1024
# the method and the header names, each a token (RFC 9110 section 5.6.2), one a line
_TOKENS = re.compile(rb"[-!#$%&'*+.^_`|~0-9A-Za-z]+(?:\n[-!#$%&'*+.^_`|~0-9A-Za-z]+)*")
# what no header value may hold (RFC 9110 section 5.5), nor a target any whitespace
_NOT_IN_VALUE = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
_NOT_IN_TARGET = re.compile(r"[\x00-\x20\x7f]")
# aiohttp adds these when a request lacks them; a forwarded request carries the client's
_NOT_ADDED = frozenset({"User-Agent", "Accept", "Accept-Encoding", "Content-Type"})
_NO_ANSWER = "the upstream did not answer in time"
_KEPT_TRIES = 32
"""Tries of one request, at most, each on a kept connection that closed (each such
connection is dropped: past a burst's worth of them the pool has a new one)."""
_RACE = 0.25
"""Seconds after the request's last byte went out within which a kept connection's close
is the idle timeout racing the request; later, the server took the request up."""


class _Attempt:
    """What the tracing learned of one try: whether its (last) connection was a kept one,
    and when the request's last bytes went out."""

    __slots__ = ("kept", "written")

    def __init__(self) -> None:
        self.kept = False
        self.written = 0.0

    def raced(self, exc: aiohttp.ClientError) -> bool:
        """Whether the close ``exc`` tells is a kept connection's idle timeout racing
        the request: a kept connection, no byte of an answer (aiohttp hands a partial
        head over as the message), and the close right after the request went out."""
        partial = isinstance(exc, aiohttp.ServerDisconnectedError) and not isinstance(
            exc.message, str
        )
        late = asyncio.get_running_loop().time() - self.written > _RACE
        return self.kept and not partial and not late


async def _on_reuse(_session: object, context: Any, _params: object) -> None:
    attempt = context.trace_request_ctx
    if isinstance(attempt, _Attempt):
        attempt.kept = True


async def _on_new(_session: object, context: Any, _params: object) -> None:
    attempt = context.trace_request_ctx  # aiohttp's own retry of GET, PUT...: a new one
    if isinstance(attempt, _Attempt):
        attempt.kept = False


async def _on_sent(_session: object, context: Any, _params: object) -> None:
    attempt = context.trace_request_ctx
    if isinstance(attempt, _Attempt):
        attempt.written = asyncio.get_running_loop().time()


def _tracing() -> aiohttp.TraceConfig:
    tracing = aiohttp.TraceConfig()
    tracing.on_connection_reuseconn.append(_on_reuse)
    tracing.on_connection_create_end.append(_on_new)
    tracing.on_request_headers_sent.append(_on_sent)
    tracing.on_request_chunk_sent.append(_on_sent)
    return tracing


class UpstreamError(Exception):
    """The upstream could not be reached, or its answer could not be read.

    ``cause`` names what failed below (an exception type of the HTTP client)."""

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause


class UpstreamTimeout(UpstreamError):
    """The upstream did not answer (or go on answering) in time."""


class Reply(ABC):
    """An upstream's answer, its head read, its body still to come."""

    status_code: int
    raw_headers: RawHeaders

    def header(self, name: bytes) -> str:
        """The first value of the header ``name`` (lower case), or ``""``."""
        for key, value in self.raw_headers:
            if key.lower() == name:
                return value.decode("latin-1")
        return ""

    def has(self, name: bytes) -> bool:
        return any(key.lower() == name for key, _ in self.raw_headers)

    @abstractmethod
    def chunks(self) -> AsyncIterator[bytes]:
        """The body as it arrives, nothing decoded; :class:`UpstreamError` if it breaks
        off. Read to its end, the connection is kept for another request."""

    @abstractmethod
    async def aclose(self) -> None:
        """Done with the reply; a body not read to its end closes its connection."""


class Upstream(ABC):
    """Sends forwarded requests (see the module doc)."""

    @abstractmethod
    async def send(self, method: str, url: str, headers: RawHeaders, body: bytes) -> Reply:
        """``body`` sent with ``headers`` (no ``Host``, ``Content-Length`` or hop-by-hop
        ones: they are the sender's) to ``url`` (absolute, its path and query escaped
        already: they go out as they are). :class:`UpstreamError` or
        :class:`UpstreamTimeout` when no answer came."""

    @abstractmethod
    async def aclose(self) -> None:
        """Close the connections kept."""


class _AiohttpReply(Reply):
    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self.status_code = response.status
        self.raw_headers = list(response.raw_headers)
        self._response = response

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.content.iter_any():
                yield chunk
        except TimeoutError as exc:
            raise UpstreamTimeout("the upstream stopped answering", type(exc).__name__) from exc
        except aiohttp.ClientError as exc:
            raise UpstreamError("the upstream reply broke off", type(exc).__name__) from exc
        self._response.release()

    async def aclose(self) -> None:
        response = self._response
        if response.content.is_eof():
            response.release()
        else:
            response.close()


class _TimedResponse(aiohttp.ClientResponse):
    """aiohttp (3.14) stops timing the socket after an answer without a body, a 1xx
    answer too: an upstream that sent "100 Continue" and went quiet held the request
    until it closed the connection (for ever if it never did). After each 1xx answer,
    the wait for the next one is timed again (``sock_read``)."""

    async def start(self, connection: aiohttp.connector.Connection) -> aiohttp.ClientResponse:
        protocol = connection.protocol
        if protocol is None:
            return await super().start(connection)
        read = protocol.read

        async def timed() -> Any:
            message, payload = await read()
            if 100 <= message.code < 200 and message.code != 101:
                protocol.start_timeout()  # what comes next is waited for again
            return message, payload

        setattr(protocol, "read", timed)  # noqa: B010 (a method of this one object)
        try:
            return await super().start(connection)
        finally:
            delattr(protocol, "read")


class AiohttpUpstream(Upstream):
    """Forwards on one ``aiohttp.ClientSession``, opened on the first request."""

    def __init__(
        self,
        *,
        connect: float | None,
        read: float | None,
        ssl_context: ssl.SSLContext | None = None,
        keepalive: float = 15.0,
    ) -> None:
        self._timeout = aiohttp.ClientTimeout(total=None, connect=connect, sock_read=read)
        self._read = read
        self._ssl = ssl_context
        self._keepalive = keepalive
        self._session: aiohttp.ClientSession | None = None
        self._proxies: dict[tuple[str, str], URL | None] = {}

    def _open(self) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(
            limit=0,
            keepalive_timeout=self._keepalive,
            # the SDKs' trust store (httpx2's), so forwarding and summaries trust alike
            ssl=self._ssl if self._ssl is not None else httpx2.create_ssl_context(),
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=self._timeout,
            auto_decompress=False,
            cookie_jar=aiohttp.DummyCookieJar(),
            skip_auto_headers=_NOT_ADDED,
            trust_env=False,  # no ~/.netrc credentials; proxies are chosen below
            max_line_size=_HEAD_BYTES,
            max_field_size=_HEAD_BYTES,
            trace_configs=[_tracing()],
            response_class=_TimedResponse,
        )
        return self._session

    def _proxy(self, target: URL) -> URL | None:
        """The proxy the environment names for ``target``'s origin (read once per origin)."""
        key = (target.scheme, target.raw_host or "")
        if key not in self._proxies:
            proxies = urllib.request.getproxies()
            chosen = proxies.get(target.scheme) or proxies.get("all")
            bypass = chosen is None or urllib.request.proxy_bypass(key[1])
            self._proxies[key] = None if chosen is None or bypass else URL(chosen)
        return self._proxies[key]

    async def send(self, method: str, url: str, headers: RawHeaders, body: bytes) -> Reply:
        _check_head(method, url, headers)
        session = self._session or self._open()
        # escaped already, as the client sent it; a base URL configured with bytes
        # outside ASCII (a path "/café") is escaped as httpx2 escapes it
        target = URL(url, encoded=True) if url.isascii() else URL(url)
        sent: list[tuple[str, str]] = [(k.decode("ascii"), _text(v)) for k, v in headers]
        if len(body) > PIECE:
            sent.append(("Content-Length", str(len(body))))
        for tried in range(1, _KEPT_TRIES + 1):
            attempt = _Attempt()
            try:
                response = await self._request(session, method, target, sent, body, attempt)
                break
            except TimeoutError as exc:
                raise UpstreamTimeout(_NO_ANSWER, type(exc).__name__) from exc
            except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as exc:
                # a kept connection closed before a byte of the answer came, right as
                # the request went out: the server's idle timeout fired, so the server
                # never took the request up (the close is what it said of the
                # connection, not of the request); the request goes out again, on
                # another connection (RFC 9112 section 9.3.1: a closed kept connection)
                if attempt.raced(exc) and tried < _KEPT_TRIES:
                    continue
                raise UpstreamError(
                    "the upstream could not be reached", type(exc).__name__
                ) from exc
            except (aiohttp.ClientError, ValueError) as exc:
                raise UpstreamError(
                    "the upstream could not be reached", type(exc).__name__
                ) from exc
        refused = _refusal(response)
        if refused is not None:
            response.close()
            raise UpstreamError(refused, "RemoteProtocolError")
        return _AiohttpReply(response)

    async def _request(
        self,
        session: aiohttp.ClientSession,
        method: str,
        target: URL,
        headers: list[tuple[str, str]],
        body: bytes,
        attempt: _Attempt,
    ) -> aiohttp.ClientResponse:
        # aiohttp times no write (its read timeout starts once the body is all
        # sent): each piece of a large body gets ``read`` seconds to go out
        async with asyncio.timeout(None) as writing:
            data: Any = _pieces(body, writing, self._read) if len(body) > PIECE else body
            return await session.request(
                method,
                target,
                headers=headers,
                data=data,
                allow_redirects=False,
                proxy=self._proxy(target),
                trace_request_ctx=attempt,
            )

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()


class _HttpxReply(Reply):
    def __init__(self, response: httpx2.Response) -> None:
        self.status_code = response.status_code
        self.raw_headers = list(response.headers.raw)
        self._response = response

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.aiter_raw():
                yield chunk
        except httpx2.StreamConsumed:  # a client whose transport hands over read replies
            yield self._response.content
        except httpx2.TimeoutException as exc:
            raise UpstreamTimeout("the upstream stopped answering", type(exc).__name__) from exc
        except httpx2.HTTPError as exc:
            raise UpstreamError("the upstream reply broke off", type(exc).__name__) from exc

    async def aclose(self) -> None:
        await self._response.aclose()


class HttpxUpstream(Upstream):
    """Forwards on an ``httpx2.AsyncClient`` (its transport, timeouts and limits)."""

    def __init__(self, client: httpx2.AsyncClient) -> None:
        self.client = client

    async def send(self, method: str, url: str, headers: RawHeaders, body: bytes) -> Reply:
        try:
            request = self.client.build_request(method, url, headers=headers, content=body)
            return _HttpxReply(await self.client.send(request, stream=True))
        except httpx2.TimeoutException as exc:
            raise UpstreamTimeout(_NO_ANSWER, type(exc).__name__) from exc
        except httpx2.HTTPError as exc:
            raise UpstreamError("the upstream could not be reached", type(exc).__name__) from exc

    async def aclose(self) -> None:
        """The client is the caller's to close."""


def _check_head(method: str, url: str, headers: RawHeaders) -> None:
    """:class:`UpstreamError`, before anything is sent, for a method or header name that
    is no token, a header value with a control character (CR, LF, NUL...) or a target
    with whitespace: written as they are, an upstream could read a request line or a
    header some other way."""
    names = b"\n".join([method.encode("latin-1"), *(name for name, _ in headers)])
    if (
        not _TOKENS.fullmatch(names)
        or _NOT_IN_VALUE.search(b"\t".join([value for _, value in headers]))
        or _NOT_IN_TARGET.search(url)
    ):
        raise UpstreamError("a request head HTTP cannot carry", "LocalProtocolError")


def _refusal(response: aiohttp.ClientResponse) -> str | None:
    """Why an answer aiohttp read is not relayed, if it is not: a switch of protocols,
    or a transfer coding other than ``chunked`` alone (llhttp reads "gzip, chunked" as
    chunked and hands over bytes still gzip-coded; h11 refuses it, and so does this)."""
    if response.status == 101:
        return "the upstream switched protocols, which the proxy does not relay"
    codings = [
        coding.strip(b" \t").lower()
        for name, value in response.raw_headers
        if name.lower() == b"transfer-encoding"
        for coding in value.split(b",")
    ]
    if codings and codings != [b"chunked"]:
        return f"the upstream used a transfer coding other than chunked ({codings!r})"
    return None


def _text(value: bytes) -> str:
    """A header value as aiohttp writes it back (UTF-8): UTF-8 bytes go out as they came;
    other bytes (obs-text that is no UTF-8) as their Latin-1 reading, in UTF-8."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")


async def _pieces(
    body: bytes, writing: asyncio.Timeout, seconds: float | None
) -> AsyncIterator[bytes]:
    """``body`` a piece at a time, each given ``seconds`` to be taken (``writing`` is
    rescheduled as each is asked for; off once the last one was taken)."""
    loop = asyncio.get_running_loop()
    view = memoryview(body)
    for start in range(0, len(body), PIECE):
        if seconds is not None:
            writing.reschedule(loop.time() + seconds)
        yield bytes(view[start : start + PIECE])
    writing.reschedule(None)
