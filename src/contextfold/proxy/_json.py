"""The proxy's JSON: orjson when it is installed (the ``proxy`` extra), else the stdlib.

Both paths read and write the same values; they are tested alike
(``tests/proxy/test_json.py`` runs with each). orjson is strict where the stdlib is
lenient, so :func:`loads` falls back to :mod:`json` whenever orjson refuses a body
(``NaN``, ``Infinity``, numbers too large for a double, lone surrogates, nesting
past 1,024) or could read it differently (an integer of 20 digits or more, or a
negative one of 19: orjson reads one past 64 bits as a float, and -2**63 - 1 has 19
digits). A body that took the fallback is not *strict*: it may hold values (``NaN``)
that compact JSON writers turn into something else, so the proxy neither remembers
its text (:mod:`._memo`) nor writes it with orjson.

:func:`dumps` writes compact JSON (``,`` and ``:`` without spaces, non-ASCII as
UTF-8 with orjson, escaped with the stdlib) and refuses ``NaN`` and infinities with
:class:`ValueError`, like ``json.dumps(allow_nan=False)``.
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - exercised by the stdlib run of the tests
    orjson = None  # type: ignore[assignment]

__all__ = ["SEPARATOR", "dumps", "loads", "text"]

SEPARATOR = b","
"""What :func:`text` puts between the items of a list (and nothing else)."""

# Digits to "0", "-" kept, every other byte to "x": an integer past 64 bits is then
# a substring search (C speed), where a regular expression would try every position.
_DIGITS = bytes(0x30 if 0x30 <= b <= 0x39 else b if b == 0x2D else 0x78 for b in range(256))
_LONG_RUNS = (b"0" * 20, b"-" + b"0" * 19)  # past 2**64 - 1; below -2**63


def _long_integer(raw: bytes) -> bool:
    """Whether ``raw`` holds a run of 20 digits, or ``-`` and 19 (maybe an integer
    past 64 bits)."""
    mapped = raw.translate(_DIGITS)
    return any(run in mapped for run in _LONG_RUNS)


use_orjson = orjson is not None
"""Whether orjson is used; tests turn it off to run the stdlib path."""


def loads(raw: bytes) -> tuple[Any, bool]:
    """``(value, strict)``: ``raw`` parsed, and whether orjson read it (see the module doc).

    Raises what :func:`json.loads` raises for text it cannot read.
    """
    if use_orjson and not _long_integer(raw):
        try:
            return orjson.loads(raw), True
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw), not use_orjson


def text(value: Any) -> bytes:
    """Compact JSON of a strictly parsed value: equal values, and only they, write alike.

    Raises :class:`TypeError` or :class:`ValueError` for what JSON cannot write.
    """
    if use_orjson:
        return orjson.dumps(value)
    return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()


def dumps(value: Any, *, strict: bool = True) -> bytes:
    """``value`` as compact JSON; :class:`ValueError` for ``NaN`` or an infinity.

    ``strict``: ``value`` came from a strict parse (plus strings and plain numbers
    of the proxy's own), so orjson may write it.
    """
    if use_orjson and strict:
        try:
            return orjson.dumps(value)
        except TypeError:  # a lone surrogate in a string of ours: the stdlib escapes it
            pass
    return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()
