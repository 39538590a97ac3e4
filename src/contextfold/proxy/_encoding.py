"""Chat request bodies sent in a content coding: ``gzip`` and ``deflate`` are decoded.

A client may compress its request body (``Content-Encoding: gzip``). A chat route
must read the JSON to plan a compaction, so :func:`decode_body` undoes the codings
the standard library knows, in the reverse of the order the header lists them:

* ``gzip`` (also ``x-gzip``; several members one after the other are read as one
  body), ``deflate`` (the zlib format RFC 9110 names, or the raw deflate stream some
  clients send instead) and ``identity``;
* each step's output is held to ``limit`` bytes (the proxy's ``max_body_bytes``)
  while it is made, with :meth:`zlib.Decompress.decompress`'s ``max_length``: a small
  body that inflates without end (a decompression bomb) costs at most ``limit`` bytes
  of memory and raises :class:`DecodedTooLarge`;
* a stream that is corrupt, cut short or followed by other bytes raises
  :class:`BadEncoding` (a :class:`ValueError`) saying which coding failed, and so
  does a body in more than :data:`MAX_CODINGS` codings (each layer is a pass over
  up to ``limit`` bytes: ten thousand of them fit in a head);
* the work is linear in the body: a body of many tiny gzip members costs no more
  than one stream of its size.

``br`` and ``zstd`` need decoders the proxy does not depend on: a body in any coding
but those above is left as it is (:func:`decode_body` returns ``None``) and forwarded
unchanged, uncompacted. The decoded body is forwarded uncompressed, without the
``Content-Encoding`` header (see :mod:`._forward`).
"""

from __future__ import annotations

import re
import zlib

__all__ = ["MAX_CODINGS", "BadEncoding", "DecodedTooLarge", "codings", "decode_body"]

_DECODED = frozenset({"gzip", "x-gzip", "deflate", "identity"})
_GZIP_WBITS = 16 + zlib.MAX_WBITS  # a gzip header and trailer around the stream
_ZLIB_WBITS = zlib.MAX_WBITS  # a zlib header and trailer around the stream
_RAW_WBITS = -zlib.MAX_WBITS  # no header at all
_STEP = 4096  # bytes of input zlib is given at once (see _inflate)
_NOT_ZERO = re.compile(rb"[^\x00]")
MAX_CODINGS = 5
"""The most codings (``identity`` aside) one body may be in: each layer costs a pass
over up to the limit's bytes, and a head of 64 KiB could list ten thousand."""


class DecodedTooLarge(Exception):
    """The decoded body would be larger than the limit."""


class BadEncoding(ValueError):
    """The body is not valid data in the coding its header names."""


def codings(header: str) -> list[str]:
    """The content codings a ``Content-Encoding`` value lists, lower-cased, in order."""
    return [token.strip().lower() for token in header.split(",") if token.strip()]


def decode_body(raw: bytes, header: str, limit: int) -> bytes | None:
    """``raw`` with the codings of ``header`` (a ``Content-Encoding`` value) undone.

    ``None`` when ``header`` names a coding this module does not decode (the body is
    then forwarded as it is). Raises :class:`DecodedTooLarge` when a step would make
    more than ``limit`` bytes, :class:`BadEncoding` for a corrupt stream.
    """
    listed = codings(header)
    if any(coding not in _DECODED for coding in listed):
        return None
    layers = sum(coding != "identity" for coding in listed)
    if layers > MAX_CODINGS:
        raise BadEncoding(
            f"the request body is in {layers} content codings; the proxy decodes at most "
            f"{MAX_CODINGS}"
        )
    body = raw
    for coding in reversed(listed):  # the last coding listed was applied last
        if coding == "identity":
            continue
        if coding == "deflate":
            try:
                body = _inflate(body, _ZLIB_WBITS, limit)
            except BadEncoding:  # a raw deflate stream, as some clients send it
                body = _inflate(body, _RAW_WBITS, limit, coding="deflate")
        else:
            body = _inflate(body, _GZIP_WBITS, limit, coding="gzip", members=True)
    return body


def _inflate(
    data: bytes, wbits: int, limit: int, *, coding: str = "deflate", members: bool = False
) -> bytes:
    """``data`` decompressed (``members``: gzip members one after another), at most
    ``limit`` bytes of output ever held.

    ``data`` is handed to zlib :data:`_STEP` bytes at a time: where a stream (a member)
    ends, zlib copies what follows it into ``unused_data``, and a copy of the whole rest
    made at each of a body's many tiny members would cost time quadratic in its size."""
    out = bytearray()
    view = memoryview(data)
    at = 0  # how much of ``data`` the streams so far have consumed
    while True:
        stream = zlib.decompressobj(wbits)
        try:
            while at < len(data) and not stream.eof:
                piece = view[at : at + _STEP]
                out += stream.decompress(piece, limit + 1 - len(out))
                if len(out) > limit:
                    raise DecodedTooLarge
                at += len(piece) - len(stream.unconsumed_tail) - len(stream.unused_data)
        except zlib.error as exc:
            raise BadEncoding(f"the request body is not valid {coding} data ({exc})") from None
        if not stream.eof:
            raise BadEncoding(f"the request body's {coding} data ends before its stream does")
        if members and _NOT_ZERO.search(data, at) is not None:
            continue  # another member (zero padding ends it)
        if at < len(data) and not members:
            raise BadEncoding(f"the request body has bytes after its {coding} stream")
        return bytes(out)
