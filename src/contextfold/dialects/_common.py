"""What every dialect's readers and writers share: images, system text, content
nobody models, and small pieces of answers (usage sums, server-sent events).

Content nobody models (a block, part or item type, an image by URL or file id, a
message of an unknown role) is never refused: it is read as an
:class:`~contextfold.blocks.OpaqueBlock` holding the JSON object as it came (a whole
message of an unknown role as a system message holding one opaque block of kind
``"message"``). Writers for the same dialect put it back unchanged; writers for
another dialect write its :meth:`~contextfold.blocks.OpaqueBlock.placeholder` as
text. Only malformed JSON of a modelled type (a ``text`` block without ``text``, a
role that is not a string) raises :class:`ValueError`.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from contextfold.blocks import IMAGE_MEDIA_TYPES, ImageBlock, OpaqueBlock, TextBlock
from contextfold.messages import Message

__all__ = [
    "DATA_URL",
    "decode_image",
    "plain_text",
    "sizes_of",
    "split_system",
    "sse",
    "texts_of",
    "unknown_role",
    "usage_total",
    "whole_message",
]

DATA_URL: Final = re.compile(r"data:(?P<type>[\w/+.-]+);base64,(?P<data>.*)\Z", re.DOTALL)
"""A base64 ``data:`` URL (OpenAI's images), its media type and data."""


def decode_image(media_type: str, data: str, where: str) -> ImageBlock:
    """A base64 image as an :class:`ImageBlock`.

    Raises :class:`ValueError` starting with ``where`` for a media type outside
    :data:`~contextfold.blocks.IMAGE_MEDIA_TYPES` or data that is not valid base64.
    """
    if media_type not in IMAGE_MEDIA_TYPES:
        raise ValueError(f"{where}: unsupported image media type {media_type!r}")
    try:
        return ImageBlock(media_type, base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{where}: image data is not valid base64") from exc


def plain_text(message: Message) -> str:
    """The text of a system message, opaque blocks written as their placeholders."""
    return "\n".join(
        b.text if isinstance(b, TextBlock) else b.placeholder()
        for b in message.content
        if isinstance(b, TextBlock | OpaqueBlock)
    )


def split_system(messages: Sequence[Message]) -> tuple[str | None, list[Message]]:
    """Pull the system messages that open ``messages`` out as one system prompt.

    Returns ``(system, rest)``; ``system`` is ``None`` when the history does not open
    with a system message, else their texts joined by a blank line. Later system
    messages stay in ``rest``.
    """
    lead = 0
    while lead < len(messages) and messages[lead].role == "system":
        lead += 1
    if not lead:
        return None, list(messages)
    return "\n\n".join(plain_text(m) for m in messages[:lead]), list(messages[lead:])


def unknown_role(wire: Mapping[str, Any], dialect: str) -> Message:
    """A message of a role no one models: a system message carrying it whole (system
    messages are never summarized away, and writers of ``dialect`` put it back)."""
    return Message("system", [OpaqueBlock("message", dict(wire), dialect)])


def whole_message(message: Message, dialect: str) -> dict[str, Any] | None:
    """The wire dict of a message :func:`unknown_role` made for ``dialect``, if it is one."""
    if message.role == "system" and len(message.content) == 1:
        block = message.content[0]
        if isinstance(block, OpaqueBlock) and block.kind == "message" and block.dialect == dialect:
            return dict(block.data)
    return None


def texts_of(content: Any) -> tuple[str, ...] | None:
    """The texts of a message's content (``None`` when it is neither text nor a list)."""
    if isinstance(content, str):
        return (content,)
    if not isinstance(content, list):
        return None
    return tuple(
        p["text"]
        for p in content
        if isinstance(p, dict | Mapping) and isinstance(p.get("text"), str)
    )


def usage_total(usage: Any, keys: Sequence[str]) -> int | None:
    """The sum of the integer ``keys`` of a ``usage`` object, when its first one is an
    integer; ``None`` otherwise, and for a zero total."""
    if not isinstance(usage, dict):
        return None
    values = [usage.get(k) for k in keys]
    if not isinstance(values[0], int) or isinstance(values[0], bool):
        return None
    total = sum(v for v in values if isinstance(v, int) and not isinstance(v, bool))
    return total or None


def sse(data: Any, event: str | None = None) -> str:
    """One server-sent event carrying ``data`` as JSON (named ``event``, if given)."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def sizes_of(window: re.Match[str], prompt: re.Match[str]) -> tuple[int, int] | None:
    """``(window, prompt)``: the numbers two matches of an overflow error caught (the
    first group that matched of each, thousands separators dropped), when both are
    positive."""
    sizes = [int(next(g for g in m.groups() if g).replace(",", "")) for m in (window, prompt)]
    return (sizes[0], sizes[1]) if sizes[0] > 0 and sizes[1] > 0 else None
