"""One upstream connection of :class:`~contextfold.proxy._wire.WireTransport`.

A :class:`Connection` is the asyncio protocol of one HTTP/1.1 connection: it writes a
request whole, feeds what comes back to llhttp (``httptools``) and hands the answer
over as it arrives: its head once complete, then its body piece by piece, pausing
the socket while more than 1 MiB waits unread. It reads what llhttp refuses but h11
(and so ``httpx2``'s own transport) reads: folded header lines, bare line feeds, a
``Content-Length`` said twice alike, answers framed both ways (see :func:`_repaired`);
a head is bounded at 128 KiB. Bytes after a complete answer, or while idle, end the
connection. The pool (which connection serves which request, reuse, limits) is
:class:`~contextfold.proxy._wire.WireTransport`'s.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from typing import Any, cast

import httptools
import httpx2

__all__ = ["BODY_HEADERS", "Connection"]

_HIGH_WATER = 1 << 20  # unread body bytes at which reading pauses
_LOW_WATER = 1 << 18
_MAX_HEAD = 1 << 17  # bytes an answer may take before its head ends (h11's: 100 KiB)
BODY_HEADERS = frozenset({b"content-length", b"transfer-encoding"})
_OWS = (b" ", b"\t")
# what llhttp refuses that h11 reads (see _repaired)
_REPAIRABLE = re.compile(r"whitespace after header value|Content-Length")
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_INFORMATIONAL = re.compile(rb"HTTP/1\.[01] 1(?!01)\d\d")  # 1xx but 101, which ends all
_FOLD = re.compile(rb"\r?\n[ \t]+")


def _parser(connection: Connection) -> httptools.HttpResponseParser:
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


class Connection(asyncio.Protocol):
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
        self.until_close = not bodiless and not names & BODY_HEADERS
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
