"""Anthropic Messages content blocks, both ways: the machinery behind :mod:`contextfold.formats`.

:func:`~contextfold.formats.to_anthropic` and :func:`~contextfold.formats.from_anthropic`
walk the history; this module turns single blocks into wire dicts and back, and owns
the ``<system>`` note that stands in for a system message Anthropic cannot place. The
mapping and its losses are documented in :mod:`contextfold.formats`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from contextfold.blocks import (
    IMAGE_MEDIA_TYPES,
    ContentBlock,
    ImageBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)

__all__ = [
    "DIALECT",
    "block_to_anthropic",
    "blocks_from_anthropic",
    "decode_image",
    "split_notes",
    "system_note",
]

DIALECT: Final = "anthropic"
"""The :attr:`~contextfold.blocks.OpaqueBlock.dialect` of blocks read from Messages dicts."""

_SYSTEM_MARK: Final = re.compile(r"<system>\n(?P<text>.*)\n</system>\Z", re.DOTALL)


def system_note(text: str) -> dict[str, Any]:
    """The text block that carries a system message inside a user turn."""
    return {"type": "text", "text": f"<system>\n{text}\n</system>"}


def split_notes(blocks: list[ContentBlock]) -> tuple[list[str], list[ContentBlock]]:
    """``(notes, others)``: the texts of the :func:`system_note` blocks, and the rest."""
    notes: list[str] = []
    others: list[ContentBlock] = []
    for block in blocks:
        mark = _SYSTEM_MARK.match(block.text) if isinstance(block, TextBlock) else None
        if mark is None:
            others.append(block)
        else:
            notes.append(mark["text"])
    return notes, others


def block_to_anthropic(block: ContentBlock) -> dict[str, Any]:
    """``block`` as a Messages API content block dict; ``TypeError`` if it is not a block."""
    match block:
        case TextBlock(text=text):
            return {"type": "text", "text": text}
        case ImageBlock(media_type=media_type, data=data):
            source = {
                "type": "base64",
                "media_type": media_type,
                "data": base64.b64encode(data).decode("ascii"),
            }
            return {"type": "image", "source": source}
        case ToolUseBlock(id=id_, name=name, input=input_):
            return {"type": "tool_use", "id": id_, "name": name, "input": dict(input_)}
        case ToolResultBlock(tool_use_id=tool_use_id, content=content, is_error=is_error):
            wire: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": tool_use_id,
                "content": content
                if isinstance(content, str)
                else [block_to_anthropic(b) for b in content],
            }
            if is_error:
                wire["is_error"] = True
            return wire
        case ThinkingBlock(thinking=thinking, signature=signature, redacted=True):
            return {"type": "redacted_thinking", "data": thinking}
        case ThinkingBlock(thinking=thinking, signature=signature):
            return {"type": "thinking", "thinking": thinking, "signature": signature}
        case OpaqueBlock(dialect="anthropic", data=data):
            return dict(data)
        case OpaqueBlock():
            return {"type": "text", "text": block.placeholder()}
    raise TypeError(f"not a content block: {block!r}")


def blocks_from_anthropic(content: Any, where: str) -> list[ContentBlock]:
    """A message's ``content`` (a string or a list of block dicts) as content blocks.

    A block of a type not modelled here (``document``, ``search_result``, server tool
    blocks, an image by URL or file id...) becomes an :class:`OpaqueBlock` holding the
    dict as it came. Raises :class:`ValueError` starting with ``where``
    (``"message 3"``, ``"system"``) for content of the wrong type and malformed
    blocks of the modelled types.
    """
    if isinstance(content, str):
        return [TextBlock(content)]
    if not isinstance(content, Sequence):
        raise ValueError(
            f"{where} field 'content' must be a string or a list of blocks, "
            f"got {type(content).__name__}"
        )
    return [_parse_block(block, where) for block in content]


def decode_image(media_type: str, data: str, where: str) -> ImageBlock:
    """A base64 image as an :class:`ImageBlock` (shared with the OpenAI data URL parser).

    Raises :class:`ValueError` starting with ``where`` for a media type outside
    :data:`~contextfold.blocks.IMAGE_MEDIA_TYPES` or data that is not valid base64.
    """
    if media_type not in IMAGE_MEDIA_TYPES:
        raise ValueError(f"{where}: unsupported image media type {media_type!r}")
    try:
        return ImageBlock(media_type, base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{where}: image data is not valid base64") from exc


def _parse_block(block: Any, where: str) -> ContentBlock:
    if not isinstance(block, Mapping):
        raise ValueError(f"{where}: a content block must be a dict, got {type(block).__name__}")
    kind = block.get("type")
    try:
        match kind:
            case "text":
                return TextBlock(_str(block, "text"))
            case "image":
                source = block.get("source")
                if not isinstance(source, Mapping):
                    raise ValueError("image field 'source' must be an object")
                if source.get("type") != "base64":  # by URL or file id: carried as it came
                    return OpaqueBlock("image", dict(block), DIALECT)
                return decode_image(_str(source, "media_type"), _str(source, "data"), where)
            case "tool_use":
                input_ = block.get("input", {})
                if not isinstance(input_, dict):
                    raise ValueError("tool_use field 'input' must be an object")
                return ToolUseBlock(_str(block, "id"), _str(block, "name"), input_)
            case "tool_result":
                content = block.get("content", "")
                parsed: str | list[TextBlock | ImageBlock | OpaqueBlock] = ""
                if isinstance(content, str):
                    parsed = content
                else:
                    parts = blocks_from_anthropic(content, where)
                    kinds = TextBlock | ImageBlock | OpaqueBlock
                    if not all(isinstance(p, kinds) for p in parts):
                        raise ValueError("tool_result content may not hold tool calls or thinking")
                    parsed = [p for p in parts if isinstance(p, kinds)]
                is_error = block.get("is_error") is True
                return ToolResultBlock(_str(block, "tool_use_id"), parsed, is_error)
            case "thinking":
                signature = block.get("signature")
                if signature is not None and not isinstance(signature, str):
                    raise ValueError("thinking field 'signature' must be a string")
                return ThinkingBlock(_str(block, "thinking"), signature or "")
            case "redacted_thinking":
                return ThinkingBlock(_str(block, "data"), redacted=True)
            case None:
                raise ValueError("content block is missing field 'type'")
            case str():
                return OpaqueBlock(kind, dict(block), DIALECT)
            case _:
                raise ValueError(f"content block field 'type' must be a string, got {kind!r}")
    except ValueError as exc:
        reason = str(exc)  # nested parts already say where they are
        raise ValueError(
            reason if reason.startswith(f"{where}:") else f"{where}: {reason}"
        ) from None


def _str(d: Mapping[str, Any], name: str) -> str:
    value = d.get(name)
    if not isinstance(value, str):
        raise ValueError(f"{d.get('type', 'block')} field {name!r} must be a string")
    return value
