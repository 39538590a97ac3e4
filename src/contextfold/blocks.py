"""Content blocks: the typed pieces a message is made of.

Every block is a frozen, slotted dataclass deriving from :class:`ContentBlock`.
:func:`to_dict` and :func:`from_dict` round-trip exactly; image bytes travel as
base64 in the dict form. Any malformed dict raises :class:`ValueError` naming the
offending field, so bad input never turns into a half-built block.

This module is the ground floor of the package: it imports nothing of ours.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "IMAGE_MEDIA_TYPES",
    "ContentBlock",
    "ImageBlock",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolUseBlock",
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
class ToolResultBlock(ContentBlock):
    """The result of the tool call whose id is ``tool_use_id``."""

    tool_use_id: str
    content: str | list[TextBlock | ImageBlock]
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
            parsed: str | list[TextBlock | ImageBlock]
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


def _result_part(part: Any) -> TextBlock | ImageBlock:
    block = from_dict(part)
    if not isinstance(block, TextBlock | ImageBlock):
        raise ValueError(
            f"tool_result content may hold only text and image blocks, got {part.get('type')!r}"
        )
    return block
