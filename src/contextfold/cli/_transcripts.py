"""Transcript files for ``contextfold compact``: read, detect the dialect, write back.

A transcript is JSON or JSONL in one of three dialects:

* ``openai``: a list of Chat Completions message dicts;
* ``anthropic``: a list of Messages API dicts, or ``{"system": ..., "messages": [...]}``;
* ``contextfold``: a list of :meth:`~contextfold.messages.Message.to_dict` dicts.

A JSON object with a ``messages`` list (a saved request body) is accepted too; its
other keys are written back unchanged. JSONL holds one message per line: a
``.jsonl``/``.ndjson`` file is read line by line (a single line is a one-message
transcript unless it is such a request body; a whole JSON document under that name
is read as JSON), and another file is when it is not one JSON document but its
first line is. The
text must be UTF-8; a leading byte-order mark is ignored. Nesting deeper than
:data:`MAX_DEPTH` is refused.

Detection looks for features only one dialect has (``tool_calls``, a ``tool`` role,
an ``image_url`` part → OpenAI; a top-level ``system``, ``source`` or
``redacted_thinking`` blocks → Anthropic; an image with ``media_type``/``data``, a
``redacted`` flag on thinking, a system message with block content → contextfold)
and otherwise picks the first dialect that parses, in the order OpenAI (string
contents), Anthropic, contextfold. Every failure raises :class:`ValueError` with one
line that names the file and, for JSON, the line and column.

:func:`check_transcript` judges what was read before it is compacted: broken tool
pairs (a result that answers no call, a call never answered, a call answered twice, a
reused id) are refused, since the compacted transcript would carry them (a kept tool
result whose call was summarized away is an orphan that providers reject); any other
rule providers enforce (see :mod:`contextfold.validation`) only earns a warning.

Strings may hold lone UTF-16 surrogates (``"\\ud800"`` in JSON); they are kept, and
written back as the same escapes, so output is always valid UTF-8.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from contextfold.dialects import CHAT, MESSAGES
from contextfold.dialects import Dialect as WireFormat
from contextfold.messages import Message
from contextfold.validation import Dialect, history_problems

__all__ = [
    "FORMATS",
    "Format",
    "Transcript",
    "check_transcript",
    "dump_transcript",
    "dumps",
    "read_transcript",
    "transcript_items",
]

MAX_DEPTH = 100
"""The deepest nesting of JSON arrays and objects a transcript may have."""

Format = Literal["openai", "anthropic", "contextfold"]
FORMATS: tuple[Format, ...] = get_args(Format)
# The formats that are a provider's wire format, and its dialect (contextfold's own
# dicts are not one).
_WIRE: dict[Format, WireFormat] = {"openai": CHAT, "anthropic": MESSAGES}

_JSONL_SUFFIXES = (".jsonl", ".ndjson")
_OPENAI_KEYS = frozenset({"tool_calls", "tool_call_id", "function_call", "reasoning_content"})
_OPENAI_PARTS = frozenset({"image_url", "input_audio", "refusal", "file"})
_ANTHROPIC_BLOCKS = frozenset({"redacted_thinking", "document", "server_tool_use", "search_result"})


@dataclass
class Transcript:
    """Messages read from a file and how to write them back the same way."""

    messages: list[Message]
    format: Format
    jsonl: bool = False
    wrapped: bool = False  # the messages came inside a JSON object
    extra: dict[str, Any] = field(default_factory=dict)  # that object's other keys


def _load(path: Path) -> tuple[Any, bool]:
    """The file's JSON value and whether it was read as JSONL (then: a list of lines)."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a leading byte-order mark is dropped
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a directory, not a transcript file") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a UTF-8 text file") from None
    if not text.strip():
        raise ValueError(f"{path}: the file is empty")
    lines = [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if path.suffix.lower() in _JSONL_SUFFIXES:
        try:
            items = _load_lines(path, lines)
        except ValueError as by_line:
            try:  # a whole JSON document saved under a JSONL name
                return _decode(path, text, ""), False
            except ValueError:
                raise by_line from None
        if len(items) == 1 and isinstance(items[0], Mapping) and "messages" in items[0]:
            return items[0], False  # one request body on one line
        return items, True
    try:
        return _decode(path, text, ""), False
    except json.JSONDecodeError as whole:
        # JSONL under another name: the first line is a whole value, more lines follow.
        if len(lines) < 2 or not _parses(lines[0][1]):
            raise ValueError(
                f"{path}: invalid JSON at line {whole.lineno} column {whole.colno}: {whole.msg}"
            ) from None
    return _load_lines(path, lines), True


def _load_lines(path: Path, lines: Sequence[tuple[int, str]]) -> list[Any]:
    items: list[Any] = []
    for number, line in lines:
        try:
            items.append(_decode(path, line, f" on line {number}"))
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{path}: invalid JSON on line {number} column {exc.colno}: {exc.msg}"
            ) from None
    return items


def _decode(path: Path, text: str, where: str) -> Any:
    """``json.loads``; its other failures become one-line :class:`ValueError` naming
    ``path``, and :class:`json.JSONDecodeError` is left to the caller."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{path}: the JSON{where} is nested too deeply") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # an integer longer than Python's digit limit
        reason = str(exc).split(";")[0]
        raise ValueError(f"{path}: cannot read the JSON{where}: {reason}") from None


def _check_depth(path: Path, data: Any) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` (checked without recursion).

    ``json`` reads nesting up to Python's recursion limit, but copying, counting and
    writing such values recurses again, deeper; a transcript never needs that much.
    """
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        elif not isinstance(value, list):
            continue
        if depth > MAX_DEPTH:
            raise ValueError(f"{path}: the JSON is nested deeper than {MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in value)


def _parses(line: str) -> bool:
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def _blocks(item: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = item.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, Mapping)]


def _detect(items: Sequence[Any], system: Any) -> list[Format]:
    """Dialects to try, most likely first."""
    if system is not None:
        return ["anthropic"]
    messages = [i for i in items if isinstance(i, Mapping)]
    blocks = [b for m in messages for b in _blocks(m)]
    types = {b.get("type") for b in blocks}
    if (
        any(m.get("role") in ("tool", "developer") or _OPENAI_KEYS & m.keys() for m in messages)
        or types & _OPENAI_PARTS
    ):
        return ["openai"]
    if types & _ANTHROPIC_BLOCKS or any("source" in b or "cache_control" in b for b in blocks):
        return ["anthropic"]
    # Only contextfold puts media_type/data on an image block, a redacted flag on a
    # thinking block, or a system message (with block content) in the list. An explicit
    # is_error on tool results is not a sign: Anthropic accepts it as well.
    if any(
        ("media_type" in b and b.get("type") == "image")
        or (b.get("type") == "thinking" and "redacted" in b)
        for b in blocks
    ) or any(m.get("role") == "system" and isinstance(m.get("content"), list) for m in messages):
        return ["contextfold", "anthropic", "openai"]
    if any(isinstance(m.get("content"), str) for m in messages):
        return ["openai", "anthropic", "contextfold"]
    return ["anthropic", "contextfold", "openai"]


def _parse(items: Sequence[Any], fmt: Format, system: Any) -> list[Message]:
    wire = _WIRE.get(fmt)
    if wire is not None:
        return wire.read(items, system)
    out: list[Message] = []
    for index, item in enumerate(items):
        try:
            out.append(Message.from_dict(item))
        except ValueError as exc:
            raise ValueError(f"message {index}: {exc}") from None
    return out


def read_transcript(path: Path, forced: Format | None = None) -> Transcript:
    """Read ``path``; ``forced`` skips detection. Raises :class:`ValueError` (one line)."""
    data, jsonl = _load(path)
    _check_depth(path, data)
    wrapped, extra, system = False, {}, None
    if isinstance(data, Mapping):
        if not isinstance(data.get("messages"), list):
            raise ValueError(f"{path}: a JSON object must hold a 'messages' list")
        wrapped = True
        extra = {k: v for k, v in data.items() if k not in ("messages", "system")}
        system = data.get("system")
        data = data["messages"]
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of messages, got {type(data).__name__}")
    if jsonl and any(isinstance(i, Mapping) and "messages" in i for i in data):
        raise ValueError(f"{path}: JSONL must hold one message per line")
    candidates = [forced] if forced else _detect(data, system)
    errors: list[str] = []
    for fmt in candidates:
        try:
            messages = _parse(data, fmt, system)
        except (ValueError, TypeError) as exc:
            errors.append(f"not {fmt} ({exc})")
            continue
        if not messages:
            raise ValueError(f"{path}: the transcript holds no messages")
        return Transcript(messages, fmt, jsonl, wrapped, extra)
    raise ValueError(
        f"{path}: {errors[0]}"
        if forced
        else f"{path}: unrecognised transcript: " + "; ".join(errors)
    )


_DIALECTS: dict[Format, Dialect] = {"openai": "openai", "anthropic": "anthropic"}
# The problems of :func:`~contextfold.validation.history_problems` that are about tool
# pairing (its messages name a "tool result", "tool call(s)" or "tool use id").
_PAIRING = re.compile(r"\btool (?:results?|calls?(?:\(s\))?|use id)\b")


def check_transcript(path: Path, transcript: Transcript) -> str | None:
    """Raise :class:`ValueError` (one line) if ``transcript`` breaks tool pairing; else
    return a one-line warning for any other rule it breaks, or ``None`` when it is valid.

    Messages are numbered as contextfold reads them (OpenAI's consecutive ``tool``
    messages are one message), so each problem also names the tool ids involved.
    """
    problems = history_problems(
        transcript.messages, _DIALECTS.get(transcript.format, "any"), allow_pending=True
    )
    if not problems:
        return None
    more = f"; and {len(problems) - 1} more" if len(problems) > 1 else ""
    pairing = [p for p in problems if _PAIRING.search(p)]
    if not pairing:
        return f"the input breaks a rule providers enforce ({problems[0]}{more}); compacting anyway"
    raise ValueError(
        f"{path}: cannot compact: {pairing[0]}{more}; the compacted transcript would keep "
        "it. Fix the transcript first (contextfold.validate_history lists every problem)"
    )


def transcript_items(messages: Sequence[Message], fmt: Format) -> tuple[str | None, list[Any]]:
    """``(system, items)``: the messages as JSON values in ``fmt``.

    ``system`` is not ``None`` only for Anthropic, whose system text lives outside the
    message list; the other dialects keep system messages among the items.
    """
    wire = _WIRE.get(fmt)
    if wire is not None:
        return wire.write_split(messages)
    return None, [m.to_dict() for m in messages]


def dump_transcript(
    messages: Sequence[Message],
    fmt: Format,
    *,
    jsonl: bool = False,
    wrapped: bool = False,
    extra: Mapping[str, Any] | None = None,
) -> str:
    """The text of a transcript file (ends with a newline; always encodable as UTF-8).

    Anthropic output with system text becomes ``{"system": ..., "messages": [...]}``
    (JSON, even when ``jsonl`` was asked for: JSONL cannot carry a top-level system).
    """
    system, items = transcript_items(messages, fmt)
    if wrapped or system is not None:
        body: dict[str, Any] = dict(extra or {})
        if system is not None:
            body["system"] = system
        body["messages"] = items
        return dumps(body, indent=2) + "\n"
    if jsonl:
        return "".join(dumps(i) + "\n" for i in items)
    return dumps(items, indent=2) + "\n"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(value: Any, *, indent: int | None = None) -> str:
    """JSON text that keeps non-ASCII characters as they are but escapes lone UTF-16
    surrogates (which JSON input may hold as ``\\ud800``), so the text is valid
    UTF-8 and reads back to the same value."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
