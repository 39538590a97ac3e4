"""Transcript files for ``contextfold compact``: read, detect the dialect, write back.

A transcript is JSON or JSONL in one of three dialects:

* ``openai``: a list of Chat Completions message dicts;
* ``anthropic``: a list of Messages API dicts, or ``{"system": ..., "messages": [...]}``;
* ``contextfold``: a list of :meth:`~contextfold.messages.Message.to_dict` dicts.

A JSON object with a ``messages`` list (a saved request body) is accepted too; its
other keys are written back unchanged. JSONL holds one message per line. Detection
looks for features only one dialect has (``tool_calls``, a ``tool`` role, an
``image_url`` part → OpenAI; a top-level ``system``, ``source`` or
``redacted_thinking`` blocks → Anthropic; contextfold's own image and flag fields →
contextfold) and otherwise picks the first dialect that parses, in the order OpenAI
(string contents), Anthropic, contextfold. Every failure raises :class:`ValueError`
with one line that names the file and, for JSON, the line and column.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from contextfold.formats import from_anthropic, from_openai, to_anthropic, to_openai
from contextfold.messages import Message

__all__ = ["FORMATS", "Format", "Transcript", "dump_transcript", "read_transcript"]

MAX_DEPTH = 100
"""The deepest nesting of JSON arrays and objects a transcript may have."""

Format = Literal["openai", "anthropic", "contextfold"]
FORMATS: tuple[Format, ...] = get_args(Format)

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
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a directory, not a transcript file") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a UTF-8 text file") from None
    if not text.strip():
        raise ValueError(f"{path}: the file is empty")
    try:
        return json.loads(text), False
    except RecursionError:
        raise ValueError(f"{path}: the JSON is nested too deeply") from None
    except json.JSONDecodeError as whole:
        lines = [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if ln.strip()]
        if len(lines) < 2 or (
            path.suffix not in (".jsonl", ".ndjson") and not _parses(lines[0][1])
        ):
            raise ValueError(
                f"{path}: invalid JSON at line {whole.lineno} column {whole.colno}: {whole.msg}"
            ) from None
    items: list[Any] = []
    for number, line in lines:
        try:
            items.append(json.loads(line))
        except RecursionError:
            raise ValueError(f"{path}: the JSON on line {number} is nested too deeply") from None
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{path}: invalid JSON on line {number} column {exc.colno}: {exc.msg}"
            ) from None
    return items, True


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
    except json.JSONDecodeError:
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
    if any(
        ("media_type" in b and b.get("type") == "image")
        or (b.get("type") == "thinking" and "redacted" in b)
        or (b.get("type") == "tool_result" and b.get("is_error") is False)
        for b in blocks
    ) or any(m.get("role") == "system" and isinstance(m.get("content"), list) for m in messages):
        return ["contextfold", "anthropic", "openai"]
    if any(isinstance(m.get("content"), str) for m in messages):
        return ["openai", "anthropic", "contextfold"]
    return ["anthropic", "contextfold", "openai"]


def _parse(items: Sequence[Any], fmt: Format, system: Any) -> list[Message]:
    if fmt == "openai":
        return from_openai(items)
    if fmt == "anthropic":
        return from_anthropic(items, system)
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


def dump_transcript(
    messages: Sequence[Message],
    fmt: Format,
    *,
    jsonl: bool = False,
    wrapped: bool = False,
    extra: Mapping[str, Any] | None = None,
) -> str:
    """The text of a transcript file (ends with a newline).

    Anthropic output with system text becomes ``{"system": ..., "messages": [...]}``
    (JSON, even when ``jsonl`` was asked for: JSONL cannot carry a top-level system).
    """
    system: str | None = None
    if fmt == "openai":
        items: list[Any] = to_openai(messages)
    elif fmt == "anthropic":
        system, items = to_anthropic(messages)
    else:
        items = [m.to_dict() for m in messages]
    if wrapped or system is not None:
        body: dict[str, Any] = dict(extra or {})
        if system is not None:
            body["system"] = system
        body["messages"] = items
        return json.dumps(body, ensure_ascii=False, indent=2) + "\n"
    if jsonl:
        return "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items)
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


def transcript_json(messages: Sequence[Message], fmt: Format) -> Any:
    """The transcript as a JSON value (for ``--json`` output)."""
    return json.loads(dump_transcript(messages, fmt))
