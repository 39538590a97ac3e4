"""The proxy's HTTP/1.1 server: uvicorn, with every answer it makes itself in JSON.

uvicorn answers what it cannot hand to the app itself: a request it cannot parse
(a malformed request line or header, a bad ``Content-Length``, broken chunked
framing, bytes that are not HTTP at all) gets a plain-text ``400 Invalid HTTP
request received.``, and an app that raises before starting its response a
plain-text 500. The proxy promises JSON in the dialect's shape for every error it
makes, so :func:`server_config` runs uvicorn with the protocols below, which
answer those in :func:`~contextfold.proxy._dialects.error_body`'s shape (with a
``Content-Length`` and ``Connection: close``):

* **400** for a request that is not HTTP/1.1, **431** for a request line and
  headers longer than :data:`HEAD_LIMIT` (both parsers are held to it), a 400 for a
  chunked body whose framing (chunk extensions, trailer fields) runs past that many
  bytes without a byte of body (h11 holds them to it as incomplete events), and a 400
  for a request that offers a protocol upgrade while carrying a body under
  httptools (whose parser skips such a body: the app would read an empty one).
* **500** when the app raises, or returns, before starting its response.
* **408** for a request that stalls (see below).

Slow clients: a connection holds a descriptor, and a server that waits forever for
the rest of a request is shut out by a few hundred clients that never finish one
(uvicorn times out only idle kept-alive connections, ``timeout_keep_alive``). So:

* a request's line and headers must all arrive within ``header_timeout`` seconds
  (:data:`HEADER_TIMEOUT` by default) of the connection's opening or, on a kept-alive
  connection, of the request's first byte: a total, so a head dripped a byte at a time
  is cut off too. A connection that sent nothing at all is closed without an answer;
  one that sent part of a head is answered a JSON **408**;
* each wait for more of a request's body may last at most ``body_timeout`` seconds
  (:data:`BODY_TIMEOUT`): an idle gap, not a total, so a large body that keeps coming
  is never cut off (nor is a trickle of a byte per gap: bound the connections a client
  may open in front of the proxy for that). A stalled body is answered a JSON **408**
  when the app has not started its response (the app sees the client gone and never
  forwards the request), else the connection is closed once that response ends.

The clock stops while the server itself holds the client back: while reading is
paused (a body the app has not consumed yet, a pipelined request queued) or, for a
pipelined head, while the response before it is under way.

An error is in the dialect the app would answer the request in
(:func:`~contextfold.proxy._routing.answer_dialect`: Anthropic's for a path
``/v1/messages…`` or an ``anthropic-version`` header, a chat route's own), judged by
what the parser read of the request, else by a lenient reading of the bytes
received for a request line and that header; bytes that name no request at all are
answered in the dialect of the connection's previous request, else OpenAI's.

An error is never written into a response already under way (nor before the
answers to pipelined requests queued behind it): the connection is closed once
those responses end, and the bytes that could not be read get no answer. After an
error answer the server stops reading requests, shuts its sending side and
discards what the client still sends for up to :data:`LINGER_SECONDS` before
closing: a socket closed with unread bytes is reset, and a reset can destroy the
answer before the client reads it.

Both of uvicorn's HTTP/1.1 protocols are covered: httptools' (the fast C parser,
chosen when httptools imports) and h11's (pure Python). Nothing here is needed by
the app itself: :func:`~contextfold.proxy.create_app` under another server keeps
its routes' guarantees, and that server's own answers.
"""

from __future__ import annotations

import asyncio
import http
import json
import math
import re
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Literal, Protocol, cast
from urllib.parse import unquote

import h11
import uvicorn
from uvicorn.protocols.http import h11_impl
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.server import ServerState

from contextfold.dialects import CHAT, MESSAGES
from contextfold.proxy import DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT
from contextfold.proxy._dialects import Dialect, error_body
from contextfold.proxy._routing import answer_dialect

try:
    from uvicorn.protocols.http import httptools_impl
except ImportError:  # pragma: no cover - httptools is not installed
    httptools_impl = None  # type: ignore[assignment]

__all__ = [
    "BODY_TIMEOUT",
    "HEADER_TIMEOUT",
    "HEAD_LIMIT",
    "LINGER_SECONDS",
    "HttpProtocol",
    "JsonH11Protocol",
    "JsonHttpToolsProtocol",
    "guess_dialect",
    "http_protocol",
    "server_config",
]

HttpProtocol = Literal["httptools", "h11"]

HEAD_LIMIT = 64 * 1024
"""The most bytes a request line and its headers may take (a 431 beyond it).

A head still incomplete is refused once the chunks received after the one it began
in pass the limit, so one that never ends cannot grow without bound. A complete head
is measured under httptools; h11 measures only heads still incomplete, so it lets
one through that arrived whole in a single read (at most 256 KiB)."""

LINGER_SECONDS = 2.0
"""How long a connection answered with an error still reads (and drops) what comes."""

HEADER_TIMEOUT = DEFAULT_HEADER_TIMEOUT
"""Seconds a request's line and headers may take to arrive, all of them (a 408 after)."""

BODY_TIMEOUT = DEFAULT_BODY_TIMEOUT
"""Seconds a request's body may go without a byte arriving (a 408 after)."""

NOT_HTTP = (
    "the proxy could not read this request as HTTP/1.1 "
    "(a malformed request line, header or body framing)"
)
HEAD_TOO_LONG = f"the request line and headers are longer than {HEAD_LIMIT // 1024} KiB"
UPGRADE_WITH_BODY = (
    "a request offering a protocol upgrade (Connection: upgrade) cannot carry a body "
    "here; send it without the Upgrade header"
)
FRAMING_TOO_LONG = (
    f"the request body's chunked framing (chunk extensions, trailer fields) ran past "
    f"{HEAD_LIMIT // 1024} KiB without a byte of body"
)
APP_FAILED = "the proxy failed on this request"
HEAD_TIMED_OUT = "the request line and headers did not arrive within {:g} seconds"
BODY_TIMED_OUT = "the request body stalled: no bytes of it for {:g} seconds"

_REQUEST_LINE = re.compile(rb"(?:\A|\n)([!-~]+)[ \t]+([^ \t\r\n]+)[ \t]+HTTP/")
_ANTHROPIC_HEADER = re.compile(rb"\nanthropic-version[ \t]*:", re.IGNORECASE)
_ABSOLUTE = re.compile(rb"\A[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")


def guess_dialect(
    target: bytes,
    headers: Iterable[tuple[bytes, bytes]],
    received: bytes,
    earlier: Mapping[str, Any] | None,
) -> Dialect:
    """The dialect to answer a request the server could not parse in.

    ``target`` and ``headers`` are what the parser read of it (maybe nothing),
    ``received`` the bytes that failed (read leniently for a request line and an
    ``anthropic-version`` header), ``earlier`` the scope of the connection's
    previous request, used only when nothing names a request. The request is
    answered as the app would answer it (:func:`~._routing.answer_dialect`).
    """
    names = {name.lower() for name, _ in headers}
    method = b""
    line = _REQUEST_LINE.search(received)
    if line is not None:
        end = received.find(b"\r\n\r\n", line.start())
        if _ANTHROPIC_HEADER.search(received, line.start(), len(received) if end < 0 else end):
            names.add(b"anthropic-version")
        if not target or target == line[2]:
            target, method = line[2], line[1]
    if target:
        raw_path = _ABSOLUTE.sub(b"", target).split(b"?", 1)[0].split(b"#", 1)[0]
        scope = {
            "method": method.decode("latin-1"),
            "path": unquote(raw_path.decode("latin-1")),
            "headers": [(name, b"") for name in names],
        }
        return answer_dialect(scope)
    if b"anthropic-version" in names:
        return MESSAGES
    return answer_dialect(dict(earlier)) if earlier is not None else CHAT


def error_response(
    status: int, dialect: Dialect, message: str, default_headers: Iterable[tuple[bytes, bytes]]
) -> bytes:
    """A whole ``Connection: close`` HTTP/1.1 response with a JSON error body."""
    body = json.dumps(error_body(dialect, status, message)).encode()
    head = [b"HTTP/1.1 %d %s\r\n" % (status, http.HTTPStatus(status).phrase.encode())]
    head += [name + b": " + value + b"\r\n" for name, value in default_headers]
    head.append(b"content-type: application/json\r\ncontent-length: %d\r\n" % len(body))
    head.append(b"connection: close\r\n\r\n")
    return b"".join(head) + body


async def _send_500(send: Callable[[Any], Awaitable[None]], scope: Mapping[str, Any]) -> None:
    """A JSON 500 through a response cycle's ``send``, in place of uvicorn's text."""
    body = json.dumps(error_body(answer_dialect(dict(scope)), 500, APP_FAILED)).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 500, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


Phase = Literal["head", "body"]


class _Cycle(Protocol):
    """What the timeouts read and set of a uvicorn request/response cycle (both kinds)."""

    scope: Any
    response_started: bool
    response_complete: bool
    disconnected: bool
    keep_alive: bool
    message_event: asyncio.Event


class _Answers(asyncio.Protocol):
    """What both protocols share: writing an error answer, closing softly, and the
    head and body timeouts (see the module doc)."""

    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    server_state: ServerState
    flow: FlowControl
    header_timeout = HEADER_TIMEOUT
    body_timeout = BODY_TIMEOUT
    _discarding = False  # an error was answered: what the client sends is dropped
    _linger: asyncio.TimerHandle | None = None
    _received = b""  # the last bytes received, read for a dialect on an error
    _deadline: asyncio.TimerHandle | None = None
    _awaited: tuple[Phase, _Cycle | None] | None = None  # the wait timed, and its cycle
    _since = 0.0  # when that head began, or that body's last bytes came

    # -- per protocol --------------------------------------------------------------

    def _current(self) -> _Cycle | None:
        """The cycle of the request read last (``None`` before the first)."""
        raise NotImplementedError

    def _reading(self) -> Phase | None:
        """What the server waits for now: a head begun (or the first one), a body, or
        neither (the app has the request, or a kept-alive connection idles)."""
        raise NotImplementedError

    def _head_dialect(self) -> Dialect:
        """The dialect to answer the head being read in."""
        raise NotImplementedError

    # -- shared --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._watch()

    def _watch(self) -> None:
        """Start, keep or stop the clock after bytes came (or the connection opened)."""
        phase = None if self._discarding else self._reading()
        if phase is None:
            self._awaited = None
            self._stop_deadline()
            return
        cycle = self._current()
        awaited = self._awaited
        if awaited is not None and awaited[0] == phase and awaited[1] is cycle:
            if phase == "body":  # a body's clock counts the gap since its last bytes
                self._since = self.loop.time()
            return
        self._awaited = (phase, cycle)
        self._since = self.loop.time()
        self._stop_deadline()
        self._deadline = self.loop.call_later(self._limit(phase), self._expire)

    def _limit(self, phase: Phase) -> float:
        return self.header_timeout if phase == "head" else self.body_timeout

    def _expire(self) -> None:
        self._deadline = None
        awaited = self._awaited
        if awaited is None or self._discarding or self.transport.is_closing():
            return
        phase, cycle = awaited
        now = self.loop.time()
        if self.flow.read_paused or (
            phase == "head" and cycle is not None and not cycle.response_complete
        ):
            self._since = now  # the server holds the client back: not the client's time
        left = self._since + self._limit(phase) - now
        if left > 0:
            self._deadline = self.loop.call_later(left, self._expire)
            return
        self._awaited = None
        if phase == "head":
            if cycle is None and not self._received:  # not a byte: nothing to answer
                self._discarding = True
                self.transport.close()
                return
            self._answer(408, HEAD_TIMED_OUT.format(self.header_timeout), self._head_dialect())
            return
        if cycle is None or cycle.response_complete:  # answered already (an early error)
            self._discarding = True
            self.transport.close()
        elif cycle.response_started:
            cycle.keep_alive = False  # the response goes on; the connection ends with it
        else:
            cycle.disconnected = True  # the app sees the client gone, and forwards nothing
            cycle.message_event.set()
            dialect = answer_dialect(dict(cycle.scope))
            self._answer(408, BODY_TIMED_OUT.format(self.body_timeout), dialect)

    def _stop_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _answer(self, status: int, message: str, dialect: Dialect) -> None:
        if not self.transport.is_closing():
            headers = getattr(self.server_state, "default_headers", [])
            self.transport.write(error_response(status, dialect, message, headers))
        self._close_softly()

    def _close_softly(self) -> None:
        """Send FIN, then drop what comes until the client closes or time is up."""
        self._discarding = True
        transport = self.transport
        if transport.is_closing():
            return
        if not transport.can_write_eof():
            transport.close()
            return
        transport.write_eof()
        if self.flow is not None:
            self.flow.resume_reading()
        self._linger = self.loop.call_later(LINGER_SECONDS, transport.close)

    def _stop_timers(self) -> None:
        self._stop_deadline()
        if self._linger is not None:
            self._linger.cancel()
            self._linger = None


class JsonH11Protocol(_Answers, h11_impl.H11Protocol):
    """uvicorn's h11 protocol with JSON error answers (see the module doc)."""

    def data_received(self, data: bytes) -> None:
        if self._discarding:
            return
        self._received = data
        super().data_received(data)

    def handle_events(self) -> None:
        super().handle_events()
        cycle = self.cycle
        if type(cycle) is h11_impl.RequestResponseCycle:
            cycle.__class__ = _JsonH11Cycle  # its 500 in JSON; no other change
        if not self.transport.is_closing():
            self._watch()

    def _current(self) -> _Cycle | None:
        return self.cycle

    def _reading(self) -> Phase | None:
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            return "body"
        if state is h11.IDLE and (self.cycle is None or self.conn.trailing_data[0]):
            return "head"
        return None

    def _head_dialect(self) -> Dialect:
        return guess_dialect(b"", (), self._received, self.scope)

    def send_400_response(self, msg: str) -> None:
        error = sys.exc_info()[1]
        too_long = getattr(error, "error_status_hint", 400) == 431  # h11's buffer limit
        cycle = self.cycle
        if cycle is not None and cycle.response_started and not cycle.response_complete:
            cycle.keep_alive = False  # the response goes on; the connection ends with it
            self._discarding = True
            return
        if self.conn.our_state is h11.DONE:  # the body of a request answered already
            self._close_softly()
            return
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the app's answer to it is never sent
            cycle.message_event.set()
        dialect = guess_dialect(b"", (), self._received, self.scope)
        self._answer(431 if too_long else 400, HEAD_TOO_LONG if too_long else NOT_HTTP, dialect)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timers()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        if self._discarding and (self.cycle is None or self.cycle.response_complete):
            self.transport.close()
            return
        super().shutdown()


class _JsonH11Cycle(h11_impl.RequestResponseCycle):
    async def send_500_response(self) -> None:
        await _send_500(self.send, cast("Mapping[str, Any]", self.scope))


JsonHttpToolsProtocol: type[asyncio.Protocol] | None = None
"""uvicorn's httptools protocol with JSON error answers; ``None`` without httptools."""

if httptools_impl is not None:

    class _JsonToolsCycle(httptools_impl.RequestResponseCycle):
        async def send_500_response(self) -> None:
            await _send_500(self.send, cast("Mapping[str, Any]", self.scope))

    class _Refused(Exception):
        """Raised in a parser callback to answer the request with ``_refusal``."""

    class _JsonHttpToolsProtocol(_Answers, httptools_impl.HttpToolsProtocol):
        """uvicorn's httptools protocol with JSON error answers (see the module doc)."""

        _head_open = False  # between a request's first byte and its headers' end
        _head_seen = 0  # bytes of the chunks received since the request began
        _head_first = 0  # the size of the chunk it began in
        _refusal: tuple[int, str] | None = None
        _framing = 0  # bytes received in a body since its last byte of body
        _bodied = False  # the chunk being parsed held body bytes

        def data_received(self, data: bytes) -> None:
            if self._discarding:
                return
            self._received = data
            in_body = self._reading() == "body"
            self._bodied = False
            super().data_received(data)
            if self._head_open and not self._discarding:
                # a head still open after this chunk: count it, but for the part of
                # the chunk where the request began (unknown: it may follow a body)
                self._head_seen += len(data)
                if self._head_seen - self._head_first > HEAD_LIMIT:
                    self._refusal = (431, HEAD_TOO_LONG)
                    self.send_400_response(HEAD_TOO_LONG)
            elif in_body and not self._discarding and self._reading() == "body":
                # Chunk extensions and trailer fields are no body: llhttp buffers a
                # trailer and uvicorn keeps every one, and each byte of them restarts
                # the body's clock. Bounded like a head.
                self._framing = 0 if self._bodied else self._framing + len(data)
                if self._framing > HEAD_LIMIT:
                    self._refusal = (400, FRAMING_TOO_LONG)
                    self.send_400_response(FRAMING_TOO_LONG)
            if not self.transport.is_closing():
                self._watch()

        def on_body(self, body: bytes) -> None:
            self._bodied = True
            super().on_body(body)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._head_open = True
            self._head_seen = 0
            self._head_first = len(self._received)

        def on_headers_complete(self) -> None:
            # the bytes received while the head was open bound its size; when they
            # exceed the limit, the parsed head is measured
            seen = self._head_seen + len(self._received)
            if seen > HEAD_LIMIT and _head_size(self.url, self.headers) > HEAD_LIMIT:
                self._refusal = (431, HEAD_TOO_LONG)
                raise _Refused
            upgrade = self.parser.should_upgrade() and not self._upgrades()
            if upgrade and _has_body(self.headers):
                self._refusal = (400, UPGRADE_WITH_BODY)
                raise _Refused  # httptools would skip the body: the app read an empty one
            self._head_open = False
            super().on_headers_complete()
            cycle = self.cycle
            if type(cycle) is httptools_impl.RequestResponseCycle:
                cycle.__class__ = _JsonToolsCycle  # its 500 in JSON; no other change
                if upgrade:  # the parser reads nothing after an upgrade: close after it
                    cycle.keep_alive = False

        def _current(self) -> _Cycle | None:
            return self.cycle

        def _reading(self) -> Phase | None:
            cycle = self.cycle
            if self._head_open or cycle is None:
                return "head"
            return "body" if cycle.more_body else None

        def _head_dialect(self) -> Dialect:
            target = self.url if self._head_open else b""
            headers = (self.headers or []) if self._head_open else []
            earlier = self.cycle.scope if self.cycle is not None else None
            return guess_dialect(
                target, headers, self._received, cast("Mapping[str, Any] | None", earlier)
            )

        def _upgrades(self) -> bool:
            """Whether uvicorn hands this upgrade to a WebSocket protocol."""
            should_upgrade = getattr(self, "_should_upgrade", None)
            return bool(should_upgrade()) if should_upgrade is not None else False

        def send_400_response(self, msg: str) -> None:
            status, message = self._refusal or (400, NOT_HTTP)
            self._refusal = None
            cycle = self.cycle
            queued = [c for c, _ in getattr(self, "pipeline", ())]  # behind one under way
            if queued or (
                cycle is not None and cycle.response_started and not cycle.response_complete
            ):
                for waiting in [*queued, cycle]:
                    if waiting is not None:  # the responses go on; the connection ends after
                        waiting.keep_alive = False
                self._discarding = True
                return
            if cycle is not None and cycle.response_complete and not self._head_open:
                self._close_softly()  # the body of a request answered already
                return
            if cycle is not None and not cycle.response_complete:
                cycle.disconnected = True  # the app's answer to it is never sent
                cycle.message_event.set()
            target = getattr(self, "url", b"") if self._head_open else b""
            headers = (self.headers or []) if self._head_open else []
            earlier = cycle.scope if cycle is not None else None
            dialect = guess_dialect(
                target, headers, self._received, cast("Mapping[str, Any] | None", earlier)
            )
            self._answer(status, message, dialect)

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timers()
            super().connection_lost(exc)

        def shutdown(self) -> None:
            if self._discarding and (self.cycle is None or self.cycle.response_complete):
                self.transport.close()
                return
            super().shutdown()

    JsonHttpToolsProtocol = _JsonHttpToolsProtocol


def _head_size(url: bytes, headers: Iterable[tuple[bytes, bytes]]) -> int:
    """About how many bytes a parsed request line and headers took on the wire."""
    return len(url) + 20 + sum(len(name) + len(value) + 4 for name, value in headers)


def _has_body(headers: Iterable[tuple[bytes, bytes]] | None) -> bool:
    for name, value in headers or ():
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip() != b"0"):
            return True
    return False


def http_protocol(
    name: HttpProtocol | None = None,
    *,
    header_timeout: float = HEADER_TIMEOUT,
    body_timeout: float = BODY_TIMEOUT,
) -> type[asyncio.Protocol]:
    """The protocol class :func:`server_config` runs: httptools' when it imports
    (``name=None``), else h11's, holding requests to ``header_timeout`` and
    ``body_timeout`` seconds (see the module doc). :class:`ValueError` for
    ``"httptools"`` without it, or a timeout that is not a positive number."""
    for option, value in (("header_timeout", header_timeout), ("body_timeout", body_timeout)):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 0 < value < math.inf
        ):
            raise ValueError(f"{option} must be a positive number of seconds, got {value!r}")
    if name is None:
        name = "h11" if JsonHttpToolsProtocol is None else "httptools"
    if name == "h11":
        protocol: type[asyncio.Protocol] = JsonH11Protocol
    elif name != "httptools":
        raise ValueError(f"http must be 'httptools' or 'h11', got {name!r}")
    elif JsonHttpToolsProtocol is None:
        raise ValueError("http='httptools' needs the httptools package")
    else:
        protocol = JsonHttpToolsProtocol
    if (header_timeout, body_timeout) == (HEADER_TIMEOUT, BODY_TIMEOUT):
        return protocol
    timeouts = {"header_timeout": float(header_timeout), "body_timeout": float(body_timeout)}
    return type(protocol.__name__, (protocol,), timeouts)


def server_config(
    app: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 8787,
    log_level: str = "info",
    http: HttpProtocol | None = None,
    header_timeout: float = HEADER_TIMEOUT,
    body_timeout: float = BODY_TIMEOUT,
    **options: Any,
) -> uvicorn.Config:
    """The uvicorn configuration the proxy is served with.

    The protocol is :func:`http_protocol` ``(http, header_timeout=...,
    body_timeout=...)``; WebSockets are off (the proxy has no WebSocket route: an
    upgrade is answered as plain HTTP); the h11 parser is held to :data:`HEAD_LIMIT`
    like httptools'. ``options`` go to :class:`uvicorn.Config` as they are
    (``lifespan``, ``access_log``...).
    """
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        http=http_protocol(http, header_timeout=header_timeout, body_timeout=body_timeout),
        ws="none",
        h11_max_incomplete_event_size=HEAD_LIMIT,
        **options,
    )
