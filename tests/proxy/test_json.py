"""The proxy's JSON reader and writers: orjson, and the stdlib for the bodies orjson
refuses or could read differently (``loads``' fallback, reported as not strict)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from contextfold.dialects import CHAT
from contextfold.proxy import _json
from contextfold.proxy._dialects import conversation, read_body
from contextfold.proxy._memo import HistoryMemo


def test_orjson_is_what_the_proxy_extra_installs() -> None:
    """orjson is required, not optional: without it the proxy names the extra to install."""
    code = "import sys; sys.modules['orjson'] = None\nimport contextfold.proxy"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1, result.stdout + result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: "), last  # not ModuleNotFoundError
    assert "pip install 'contextfold[proxy]'" in last
    assert "missing module 'orjson'" in last


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": [1, 2.5, -0.0, true, null, "\\u00e9\\u2028"], "b": {"c": "d"}}',
        b'{"seed": 123456789012345678901234567890}',  # orjson alone reads a float
        b'{"n": 18446744073709551616, "m": -12345678901234567890}',
        b'{"n": 9999999999999999999, "m": -999999999999999999}',  # 19 digits: 64 bits
        b'{"a": 1, "a": 2}',
    ],
)
def test_loads_reads_what_the_stdlib_reads(raw: bytes) -> None:
    value, strict = _json.loads(raw)
    assert value == json.loads(raw)
    assert [type(v) for v in value.values()] == [type(v) for v in json.loads(raw).values()]
    # orjson cannot write integers past 64 bits: such a body is read leniently
    assert strict is (b"5678901234567890" not in raw)


@pytest.mark.parametrize("number", ["-9223372036854775809", "-9999999999999999999"])
def test_a_negative_integer_past_64_bits_stays_an_integer(number: str) -> None:
    """19 digits, below -2**63: orjson alone reads a float (and writes it back rounded)."""
    value, strict = _json.loads(f'{{"seed": {number}}}'.encode())
    assert value == {"seed": int(number)}
    assert _json.dumps(value, strict=strict) == f'{{"seed":{number}}}'.encode()


@pytest.mark.parametrize(
    "raw",
    [b'{"t": NaN}', b'{"t": 1e999}', b'{"t": Infinity}', b'{"s": "\\ud800"}'],
)
def test_lenient_json_is_read_but_not_strict_with_orjson(raw: bytes) -> None:
    value, strict = _json.loads(raw)
    assert json.dumps(value) == json.dumps(json.loads(raw))
    assert strict is False


def test_loads_raises_the_stdlib_errors() -> None:
    with pytest.raises(json.JSONDecodeError):
        _json.loads(b'{"a": ')
    with pytest.raises(RecursionError):
        _json.loads(b"[" * 100_000 + b"]" * 100_000)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (1, 1.0),
        (1, True),
        (0.0, -0.0),
        (None, False),
        ("1", 1),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
    ],
)
def test_text_tells_different_values_apart(a: Any, b: Any) -> None:
    assert _json.text(a) != _json.text(b)
    assert _json.text([a, b]) == b"[" + _json.text(a) + _json.SEPARATOR + _json.text(b) + b"]"


def test_dumps_refuses_nan_and_infinity() -> None:
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="JSON compliant"):
            _json.dumps({"x": bad}, strict=False)
    assert json.loads(_json.dumps({"x": "\ud800 lone"})) == {"x": "\ud800 lone"}


def test_a_lenient_body_is_parsed_without_the_memo() -> None:
    """``NaN`` and ``null`` write alike with orjson: the memo must not take such a body."""
    raw = b'{"model": "m", "messages": [{"role": "user", "content": "x"}], "t": NaN}'
    body, model, strict = read_body(raw)
    memo = HistoryMemo()
    conv = conversation(CHAT, body, model, memo if strict else None)
    assert conv.messages[0].text == "x"
    assert memo.parses == 0


def test_the_memo_checks_nesting_of_new_items_only() -> None:
    deep: Any = "x"
    for _ in range(120):
        deep = [deep]
    wire = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    body = {"model": "m", "messages": wire}
    memo = HistoryMemo()
    conversation(CHAT, body, "m", memo)
    grown = {"model": "m", "messages": [*wire, {"role": "user", "content": "x", "extra": deep}]}
    with pytest.raises(ValueError, match="deeper than 100"):
        conversation(CHAT, grown, "m", memo)
    with pytest.raises(ValueError, match="deeper than 100"):
        conversation(CHAT, {**body, "tools": deep}, "m", memo)
