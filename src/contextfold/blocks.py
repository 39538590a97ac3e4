"""Content blocks: the typed pieces a message is made of.

Every block is a frozen, slotted dataclass deriving from :class:`ContentBlock`.
:func:`to_dict` and :func:`from_dict` round-trip exactly; image bytes travel as
base64 in the dict form. Any malformed dict raises :class:`ValueError` naming the
offending field, so bad input never turns into a half-built block. Blocks do not
check their fields when built; :func:`check_block` does, for the stores, which must
never write a block they could not read back.

This module is the ground floor of the package: it imports nothing of ours.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "IMAGE_MEDIA_TYPES",
    "ContentBlock",
    "ImageBlock",
    "OpaqueBlock",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "check_block",
    "from_dict",
    "to_dict",
]

IMAGE_MEDIA_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


@dataclass(frozen=True, slots=True)
class ContentBlock:
    """Base class of every content block."""


@dataclass(frozen=True, slots=True)
class TextBlock(ContentBlock):
    """Plain text."""

    text: str


@dataclass(frozen=True, slots=True)
class ImageBlock(ContentBlock):
    """An inline image; ``media_type`` is one of :data:`IMAGE_MEDIA_TYPES`."""

    media_type: str
    data: bytes

    def __post_init__(self) -> None:
        if self.media_type not in IMAGE_MEDIA_TYPES:
            allowed = ", ".join(sorted(IMAGE_MEDIA_TYPES))
            raise ValueError(f"image media_type {self.media_type!r} is not one of: {allowed}")


@dataclass(frozen=True, slots=True)
class ToolUseBlock(ContentBlock):
    """A model's request to run tool ``name`` with ``input``; ``id`` pairs it with its result."""

    id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True, slots=True)
class OpaqueBlock(ContentBlock):
    """Content contextfold does not model, carried exactly as it came.

    ``data`` is the JSON object a wire format sent (an Anthropic block, an OpenAI
    content part, a Responses item or a whole message of a role nobody models), in
    the wire format ``dialect`` names (``"anthropic"``, ``"openai"`` for Chat
    Completions, ``"responses"``; empty when unknown). ``kind`` names what it is
    (the wire ``type``, or ``"message"`` for a whole message). Writers for the same
    dialect put ``data`` back unchanged; every other reader sees
    :meth:`placeholder`: a summarizer never reads the payload, only a short line
    naming its kind.

    ``call_id`` pairs an unmodelled tool call with its output across messages (a
    Responses ``custom_tool_call`` and its ``custom_tool_call_output``, say): the
    call (``is_result=False``) sits in an assistant message, its output
    (``is_result=True``) in the next user message, and no split ever separates them,
    exactly as for :class:`ToolUseBlock` and :class:`ToolResultBlock`.
    """

    kind: str
    data: dict[str, Any]
    dialect: str = ""
    call_id: str = ""
    is_result: bool = False

    def placeholder(self, max_chars: int = 300) -> str:
        """A one-line stand-in: ``[kind: the first strings of its payload]``.

        Strings that look like encoded payloads (long runs without spaces: base64,
        signatures, encrypted content) are left out; the excerpt is cut to
        ``max_chars`` characters.
        """
        words: list[str] = []
        size = 0
        for text in _strings(self.data):
            if size >= max_chars:
                break
            words.append(text)
            size += len(text) + 1
        excerpt = " ".join(words)
        if len(excerpt) > max_chars:
            excerpt = excerpt[: max(max_chars - 1, 0)] + "…"
        label = self.kind or "content"
        return f"[{label}: {excerpt}]" if excerpt else f"[{label}]"


_SKIPPED_KEYS: Final = frozenset(
    {"type", "id", "call_id", "status", "signature", "encrypted_content", "data", "cache_control"}
)


def _strings(value: object, key: str = "") -> list[str]:
    """The readable strings of a JSON value, depth first (encoded payloads left out)."""
    if key in _SKIPPED_KEYS:
        return []
    if isinstance(value, str):
        text = " ".join(value.split())
        if not text or (len(text) > 80 and " " not in text):  # an encoded payload
            return []
        return [text]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(v, str(k))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@dataclass(frozen=True, slots=True)
class ToolResultBlock(ContentBlock):
    """The result of the tool call whose id is ``tool_use_id``.

    A list ``content`` holds text and images, and :class:`OpaqueBlock` s for parts no
    one models (an Anthropic ``document`` or ``search_result``, say).
    """

    tool_use_id: str
    content: str | list[TextBlock | ImageBlock | OpaqueBlock]
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class ThinkingBlock(ContentBlock):
    """Provider reasoning.

    Replayed only to the provider that produced it (the ``signature`` proves its
    origin) and never shown to a summarizer. ``redacted`` marks encrypted reasoning
    whose opaque payload is kept in ``thinking``.
    """

    thinking: str
    signature: str = ""
    redacted: bool = False


def to_dict(block: ContentBlock) -> dict[str, Any]:
    """Return the JSON-ready dict form of ``block``."""
    match block:
        case TextBlock(text=text):
            return {"type": "text", "text": text}
        case ImageBlock(media_type=media_type, data=data):
            return {
                "type": "image",
                "media_type": media_type,
                "data": base64.b64encode(data).decode("ascii"),
            }
        case ToolUseBlock(id=id_, name=name, input=input_):
            return {"type": "tool_use", "id": id_, "name": name, "input": dict(input_)}
        case ToolResultBlock(tool_use_id=tool_use_id, content=content, is_error=is_error):
            return {
                "type": "tool_result",
                "tool_use_id": tool_use_id,
                "content": content if isinstance(content, str) else [to_dict(b) for b in content],
                "is_error": is_error,
            }
        case ThinkingBlock(thinking=thinking, signature=signature, redacted=redacted):
            return {
                "type": "thinking",
                "thinking": thinking,
                "signature": signature,
                "redacted": redacted,
            }
        case OpaqueBlock(
            kind=kind, data=data, dialect=dialect, call_id=call_id, is_result=is_result
        ):
            return {
                "type": "opaque",
                "kind": kind,
                "data": data,
                "dialect": dialect,
                "call_id": call_id,
                "is_result": is_result,
            }
    raise TypeError(f"not a content block: {block!r}")


def from_dict(d: Mapping[str, Any]) -> ContentBlock:
    """Build a block from its dict form, raising :class:`ValueError` on any defect."""
    if not isinstance(d, Mapping):
        raise ValueError(f"content block must be a dict, got {type(d).__name__}")
    kind = d.get("type")
    match kind:
        case "text":
            return TextBlock(text=_field(d, "text", str))
        case "image":
            media_type = _field(d, "media_type", str)
            raw = _field(d, "data", str)
            try:
                data = base64.b64decode(raw, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise ValueError(f"image block field 'data' is not valid base64: {exc}") from exc
            return ImageBlock(media_type=media_type, data=data)
        case "tool_use":
            return ToolUseBlock(
                id=_field(d, "id", str),
                name=_field(d, "name", str),
                input=dict(_field(d, "input", dict)),
            )
        case "tool_result":
            content = d.get("content", _MISSING)
            if content is _MISSING:
                raise ValueError("tool_result block is missing field 'content'")
            parsed: str | list[TextBlock | ImageBlock | OpaqueBlock]
            if isinstance(content, str):
                parsed = content
            elif isinstance(content, list):
                parsed = [_result_part(part) for part in content]
            else:
                raise ValueError(
                    "tool_result block field 'content' must be a string or a list of "
                    f"text/image blocks, got {type(content).__name__}"
                )
            return ToolResultBlock(
                tool_use_id=_field(d, "tool_use_id", str),
                content=parsed,
                is_error=_field(d, "is_error", bool, default=False),
            )
        case "thinking":
            return ThinkingBlock(
                thinking=_field(d, "thinking", str),
                signature=_field(d, "signature", str, default=""),
                redacted=_field(d, "redacted", bool, default=False),
            )
        case "opaque":
            return OpaqueBlock(
                kind=_field(d, "kind", str),
                data=dict(_field(d, "data", dict)),
                dialect=_field(d, "dialect", str, default=""),
                call_id=_field(d, "call_id", str, default=""),
                is_result=_field(d, "is_result", bool, default=False),
            )
        case None:
            raise ValueError("content block is missing field 'type'")
        case _:
            raise ValueError(f"unknown content block type {kind!r}")


_MISSING: Final = object()


def _field(d: Mapping[str, Any], name: str, kind: type, default: Any = _MISSING) -> Any:
    value = d.get(name, _MISSING)
    if value is _MISSING:
        if default is _MISSING:
            raise ValueError(f"{d.get('type')} block is missing field {name!r}")
        return default
    # bool is an int subclass; a flag must be a real bool and a string a real str.
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ValueError(
            f"{d.get('type')} block field {name!r} must be {kind.__name__}, "
            f"got {type(value).__name__}"
        )
    return value


def _result_part(part: Any) -> TextBlock | ImageBlock | OpaqueBlock:
    block = from_dict(part)
    if not isinstance(block, TextBlock | ImageBlock | OpaqueBlock):
        raise ValueError(
            "tool_result content may hold only text, image and opaque blocks, "
            f"got {part.get('type')!r}"
        )
    return block


def check_block(block: object) -> None:
    """Raise :class:`ValueError` unless ``block`` survives :func:`to_dict` / :func:`from_dict`.

    Checks the field types of the six block kinds (a ``str`` where the dataclass says
    ``str``, a real ``bool`` for flags, ``bytes`` for image data, a tool result's
    content a string or a list of text, image and opaque blocks), the image media
    type, and that a tool call's ``input`` (an opaque block's ``data``) is JSON data:
    objects with string keys, lists, strings, ``bool``, ``None``, integers JSON can
    spell and finite floats (no sets, tuples, arbitrary objects, NaN or infinity),
    nested at most 200 levels deep. The
    message names the field, e.g. ``ToolResultBlock field 'tool_use_id' must be str,
    got NoneType``. Any other object is refused, subclasses of the six included (they
    would read back as their base class). The cost is a few type checks, plus one walk
    over a tool call's ``input``.
    """
    check = _CHECKS.get(type(block))
    if check is None:
        raise ValueError(
            f"{type(block).__name__} is not a content block contextfold can store "
            "(TextBlock, ImageBlock, ToolUseBlock, ToolResultBlock, ThinkingBlock or "
            "OpaqueBlock; "
            "a subclass would read back as its base class)"
        )
    check(block)


def _wrong_type(block: object, name: str, kind: type) -> ValueError:
    value = getattr(block, name)
    return ValueError(
        f"{type(block).__name__} field {name!r} must be {kind.__name__}, got {type(value).__name__}"
    )


# One function per kind, checking fields inline: append is a hot path.


def _check_text(block: Any) -> None:
    if not isinstance(block.text, str):
        raise _wrong_type(block, "text", str)


def _check_image(block: Any) -> None:
    if not isinstance(block.media_type, str):
        raise _wrong_type(block, "media_type", str)
    if block.media_type not in IMAGE_MEDIA_TYPES:
        raise ValueError(
            f"ImageBlock field 'media_type' is {block.media_type!r}, not one of: "
            + ", ".join(sorted(IMAGE_MEDIA_TYPES))
        )
    if not isinstance(block.data, bytes):
        raise _wrong_type(block, "data", bytes)


def _check_tool_use(block: Any) -> None:
    if not isinstance(block.id, str):
        raise _wrong_type(block, "id", str)
    if not isinstance(block.name, str):
        raise _wrong_type(block, "name", str)
    if not isinstance(block.input, dict):
        raise _wrong_type(block, "input", dict)
    _check_json(block, "input")


def _check_json(block: Any, name: str) -> None:
    problem = _json_problem(getattr(block, name), _MAX_DEPTH)
    if problem is not None:
        path, reason = problem
        path.reverse()
        where = "".join(f"[{part!r}]" for part in path[:8]) + ("[…]" if len(path) > 8 else "")
        raise ValueError(f"{type(block).__name__} field {name!r}{where} {reason}")


def _check_tool_result(block: Any) -> None:
    if not isinstance(block.tool_use_id, str):
        raise _wrong_type(block, "tool_use_id", str)
    if block.is_error is not True and block.is_error is not False:
        raise _wrong_type(block, "is_error", bool)
    content = block.content
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise ValueError(
            "ToolResultBlock field 'content' must be str or a list of TextBlock/ImageBlock, "
            f"got {type(content).__name__}"
        )
    for i, part in enumerate(content):
        if not isinstance(part, TextBlock | ImageBlock | OpaqueBlock):
            raise ValueError(
                f"ToolResultBlock field 'content'[{i}] must be a TextBlock, ImageBlock or "
                f"OpaqueBlock, got {type(part).__name__}"
            )
        try:
            check_block(part)
        except ValueError as exc:
            raise ValueError(f"ToolResultBlock field 'content'[{i}]: {exc}") from None


def _check_thinking(block: Any) -> None:
    if not isinstance(block.thinking, str):
        raise _wrong_type(block, "thinking", str)
    if not isinstance(block.signature, str):
        raise _wrong_type(block, "signature", str)
    if block.redacted is not True and block.redacted is not False:
        raise _wrong_type(block, "redacted", bool)


def _check_opaque(block: Any) -> None:
    for name in ("kind", "dialect", "call_id"):
        if not isinstance(getattr(block, name), str):
            raise _wrong_type(block, name, str)
    if block.is_result is not True and block.is_result is not False:
        raise _wrong_type(block, "is_result", bool)
    if not isinstance(block.data, dict):
        raise _wrong_type(block, "data", dict)
    _check_json(block, "data")


_CHECKS: Final[dict[type, Any]] = {
    OpaqueBlock: _check_opaque,
    TextBlock: _check_text,
    ToolUseBlock: _check_tool_use,
    ToolResultBlock: _check_tool_result,
    ThinkingBlock: _check_thinking,
    ImageBlock: _check_image,
}

# json.loads refuses integers longer than this many digits (sys.int_info default).
_MAX_INT_BITS: Final = 14_000
# Reading JSON back recurses once per level; past ~950 levels a read from a deep stack
# fails even where the write succeeded, so a bound well inside that is enforced here.
_MAX_DEPTH: Final = 200


_PLAIN: Final = frozenset({str, bool, type(None)})


def _json_problem(value: object, depth: int) -> tuple[list[object], str] | None:
    """``None`` when ``value`` is JSON data that reads back equal, else (path, reason).

    ``depth`` is how many more levels of dicts and lists may follow. Exact types are
    tried first (the common case, kept cheap); subclasses of the JSON types pass too,
    since they read back equal. The path is built innermost first, only on failure.
    """
    if type(value) in _PLAIN:
        return None
    if depth <= 0 and isinstance(value, dict | list):
        return [], f"is nested more than {_MAX_DEPTH} levels deep"
    if type(value) is dict or isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return [], (
                    f"is not JSON data: its key {key!r} is {type(key).__name__}, "
                    "and JSON keys are strings"
                )
            if type(item) not in _PLAIN and (problem := _json_problem(item, depth - 1)) is not None:
                problem[0].append(key)
                return problem
        return None
    if type(value) is list or isinstance(value, list):
        for i, item in enumerate(value):
            if type(item) not in _PLAIN and (problem := _json_problem(item, depth - 1)) is not None:
                problem[0].append(i)
                return problem
        return None
    if isinstance(value, int):
        if value.bit_length() > _MAX_INT_BITS:
            return [], "is not JSON data that reads back: an integer of over 4,000 digits"
        return None
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        return [], f"is not JSON data: {value!r} (JSON has no NaN or infinity)"
    if isinstance(value, str):
        return None
    return [], (
        f"is not JSON data: {type(value).__name__} (use dicts with string keys, lists, "
        "strings, numbers, booleans and None)"
    )
