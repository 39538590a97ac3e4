"""The proxy's JSON: orjson (part of the ``proxy`` extra), with the stdlib where it must.

orjson is strict where the stdlib is lenient, so :func:`loads` falls back to
:mod:`json` whenever orjson refuses a body (``NaN``, ``Infinity``, numbers too large
for a double, lone surrogates, nesting past 1,024) or could read it differently (an
integer of 20 digits or more, or a negative one of 19: orjson reads one past 64 bits
as a float, and -2**63 - 1 has 19 digits). A body that took the fallback is not
*strict*: it may hold values (``NaN``) that compact JSON writers turn into something
else, so the proxy neither remembers its text (:mod:`._memo`) nor writes it with
orjson (:func:`dumps` writes it with the stdlib).

:func:`text` and :func:`dumps` write compact JSON (``,`` and ``:`` without spaces;
non-ASCII as UTF-8 with orjson, escaped with the stdlib). :func:`dumps` refuses
``NaN`` and infinities with :class:`ValueError`, like ``json.dumps(allow_nan=False)``.
"""

from __future__ import annotations

import json
from typing import Any

from contextfold._extras import requires_extra

with requires_extra("proxy", "contextfold.proxy"):
    import orjson

__all__ = ["SEPARATOR", "dumps", "loads", "text"]

SEPARATOR = b","
"""What :func:`text` puts between the items of a list (and nothing else)."""

# Digits to "0", "-" kept, every other byte to "x": an integer past 64 bits is then
# a substring search (C speed), where a regular expression would try every position.
_DIGITS = bytes(0x30 if 0x30 <= b <= 0x39 else b if b == 0x2D else 0x78 for b in range(256))
_RUN = b"0" * 19  # in both of these, and rare: one search clears most bodies
_LONG_RUNS = (b"0" * 20, b"-" + b"0" * 19)  # past 2**64 - 1; below -2**63


def _long_integer(raw: bytes) -> bool:
    """Whether ``raw`` holds a run of 20 digits, or ``-`` and 19 (maybe an integer
    past 64 bits)."""
    mapped = raw.translate(_DIGITS)
    return _RUN in mapped and any(run in mapped for run in _LONG_RUNS)


def loads(raw: bytes) -> tuple[Any, bool]:
    """``(value, strict)``: ``raw`` parsed, and whether orjson read it (see the module doc).

    Raises what :func:`json.loads` raises for text it cannot read.
    """
    if not _long_integer(raw):
        try:
            return orjson.loads(raw), True
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw), False


def text(value: Any) -> bytes:
    """Compact JSON of a strictly parsed value: equal values, and only they, write alike.

    Raises :class:`TypeError` for what orjson cannot write (a lone surrogate, an
    integer past 64 bits: values a strict parse never gives).
    """
    return orjson.dumps(value)


def dumps(value: Any, *, strict: bool = True) -> bytes:
    """``value`` as compact JSON; :class:`ValueError` for ``NaN`` or an infinity.

    ``strict``: ``value`` came from a strict parse (plus strings and plain numbers
    of the proxy's own), so orjson may write it.
    """
    if strict:
        try:
            return orjson.dumps(value)
        except TypeError:  # a lone surrogate in a string of ours: the stdlib escapes it
            pass
    return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()
