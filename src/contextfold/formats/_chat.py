"""OpenAI chat messages, both ways: the machinery behind :mod:`contextfold.formats`.

:func:`~contextfold.formats.to_openai` and :func:`~contextfold.formats.from_openai`
walk the history; this module turns single messages into wire dicts and back,
including the tool-result workarounds (the error prefix, tool images carried in a
user message after the tool messages). The mapping and its losses are documented in
:mod:`contextfold.formats`.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from typing import Any, Final

from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.formats._messages import decode_image
from contextfold.messages import Message

__all__ = [
    "DIALECT",
    "TOOL_ERROR_PREFIX",
    "assistant_from_openai",
    "assistant_to_openai",
    "fold_tool_images",
    "only_results",
    "openai_parts",
    "parse_openai_tool_call",
    "tool_from_openai",
    "user_to_openai",
]

DIALECT: Final = "openai"
"""The :attr:`~contextfold.blocks.OpaqueBlock.dialect` of parts read from chat dicts."""

TOOL_ERROR_PREFIX: Final = "Error: "
# The text of a tool message whose result is images only (OpenAI wants some content).
_IMAGES_ONLY: Final = "[the tool returned only images; they follow]"
_TOOL_IMAGES: Final = re.compile(r"\[images returned by tool call (?P<id>.+)\]\Z")
_DATA_URL: Final = re.compile(r"data:(?P<type>[\w/+.-]+);base64,(?P<data>.*)\Z", re.DOTALL)

# ------------------------------------------------------------------ to OpenAI


def assistant_to_openai(message: Message) -> dict[str, Any]:
    """An assistant message as one dict: its texts, then its tool calls; thinking dropped."""
    parts = [
        _part(b)
        for b in message.content
        if isinstance(b, TextBlock) or (isinstance(b, OpaqueBlock) and not _is_call(b))
    ]
    calls = [
        {
            "id": b.id,
            "type": "function",
            "function": {"name": b.name, "arguments": json.dumps(b.input, ensure_ascii=False)},
        }
        if isinstance(b, ToolUseBlock)
        else dict(b.data)
        for b in message.content
        if isinstance(b, ToolUseBlock) or (isinstance(b, OpaqueBlock) and _is_call(b))
    ]
    content: str | list[dict[str, Any]] | None
    if len(parts) > 1 or (parts and parts[0].get("type") != "text"):
        content = parts
    else:
        content = parts[0]["text"] if parts else (None if calls else "")
    wire: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        wire["tool_calls"] = calls
    return wire


def _is_call(block: OpaqueBlock) -> bool:
    """Whether ``block`` is a tool call of this dialect nobody models (a custom tool's)."""
    return block.dialect == DIALECT and bool(block.call_id) and not block.is_result


def user_to_openai(message: Message) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(results, rest)``: the tool messages (and the user message of their images),
    then the user message of everything else (if any)."""
    out: list[dict[str, Any]] = []
    tool_images: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for block in message.content:
        match block:
            case ToolResultBlock(tool_use_id=call_id, content=content, is_error=is_error):
                if isinstance(content, str) or not content:
                    text = content if isinstance(content, str) else ""
                    text = _mark_error(text) if is_error else text
                    out.append({"role": "tool", "tool_call_id": call_id, "content": text})
                    continue
                wire = [_part(b) for b in content if isinstance(b, TextBlock | OpaqueBlock)]
                if not any(w.get("type") == "text" for w in wire) and (is_error or not wire):
                    wire.insert(0, {"type": "text", "text": _IMAGES_ONLY})
                if is_error:
                    first = next(w for w in wire if w.get("type") == "text")
                    first["text"] = _mark_error(first["text"])
                out.append({"role": "tool", "tool_call_id": call_id, "content": wire})
                images = [_image_url(b) for b in content if isinstance(b, ImageBlock)]
                if images:
                    marker = f"[images returned by tool call {call_id}]"
                    tool_images += [{"type": "text", "text": marker}, *images]
            case TextBlock() | OpaqueBlock():
                parts.append(_part(block))
            case ImageBlock():
                parts.append(_image_url(block))
    if tool_images:
        out.append({"role": "user", "content": tool_images})
    if not parts and out:
        return out, []
    simple = len(parts) == 1 and parts[0]["type"] == "text"
    return out, [{"role": "user", "content": parts[0]["text"] if simple else parts}]


def _part(block: TextBlock | OpaqueBlock) -> dict[str, Any]:
    """A content part: text, or an opaque part as it came (its placeholder as text when
    it came from another dialect)."""
    if isinstance(block, OpaqueBlock):
        if block.dialect == DIALECT and block.kind != "message":
            return dict(block.data)
        return {"type": "text", "text": block.placeholder()}
    return {"type": "text", "text": block.text}


def _image_url(block: ImageBlock) -> dict[str, Any]:
    data = base64.b64encode(block.data).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{block.media_type};base64,{data}"}}


def _mark_error(text: str) -> str:
    return text if text.startswith(TOOL_ERROR_PREFIX) else TOOL_ERROR_PREFIX + text


# ---------------------------------------------------------------- from OpenAI


def only_results(message: Message) -> bool:
    """Whether ``message`` holds tool results and nothing else."""
    return bool(message.content) and all(isinstance(b, ToolResultBlock) for b in message.content)


def openai_parts(content: Any, index: int) -> list[ContentBlock]:
    """A message's ``content`` (``None``, a string or a list of parts) as content blocks.

    A part of an unknown type, or an image by URL, is an :class:`OpaqueBlock` holding
    the part as it came. Raises :class:`ValueError` naming message ``index`` for
    content of the wrong type and malformed parts.
    """
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)]
    if not isinstance(content, list):
        raise ValueError(
            f"message {index} field 'content' must be a string, a list of parts or null, "
            f"got {type(content).__name__}"
        )
    blocks: list[ContentBlock] = []
    for part in content:
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "text" and isinstance(part.get("text"), str):
            blocks.append(TextBlock(part["text"]))
        elif kind == "image_url":
            blocks.append(_parse_image(part, index))
        elif kind == "refusal" and isinstance(part.get("refusal"), str):
            blocks.append(TextBlock(part["refusal"]))
        elif isinstance(kind, str) and kind not in ("text", "refusal"):
            blocks.append(OpaqueBlock(kind, dict(part), DIALECT))
        else:
            raise ValueError(f"message {index} has a malformed content part: {kind!r}")
    return blocks


def _parse_image(part: Mapping[str, Any], index: int) -> ImageBlock | OpaqueBlock:
    """An ``image_url`` part: a base64 data URL as an image, any other URL carried."""
    image_url = part.get("image_url")
    url = image_url.get("url") if isinstance(image_url, Mapping) else image_url
    if not isinstance(url, str):
        raise ValueError(f"message {index}: an image_url part needs a string url")
    match = _DATA_URL.match(url)
    if match is None:  # a remote image: carried as it came
        return OpaqueBlock("image_url", dict(part), DIALECT)
    return decode_image(match["type"], match["data"], f"message {index}")


def assistant_from_openai(wire: Mapping[str, Any], index: int) -> Message:
    """An assistant dict as a message: reasoning, then content, then tool calls (an
    empty string content next to tool calls is read as no content; a call of a type
    other than ``function`` is an :class:`OpaqueBlock` paired by its id)."""
    blocks: list[ContentBlock] = []
    reasoning = wire.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        blocks.append(ThinkingBlock(reasoning))
    calls = wire.get("tool_calls") or []
    if not isinstance(calls, list):
        raise ValueError(f"message {index} field 'tool_calls' must be a list")
    content = wire.get("content")
    # "" next to tool calls (what many SDKs send) is no text, as null is
    blocks += openai_parts(None if content == "" and calls else content, index)
    for call in calls:
        kind = call.get("type") if isinstance(call, Mapping) else None
        if isinstance(kind, str) and kind != "function" and isinstance(call.get("id"), str):
            # a call of a type nobody models (a custom tool's): carried, paired by its id
            blocks.append(OpaqueBlock(kind, dict(call), DIALECT, call["id"]))
        elif _broken_arguments(call):
            # arguments that are not a JSON object (a model's broken or cut JSON, which
            # the API takes back in a history): carried as they came, paired by the id
            blocks.append(OpaqueBlock("function", dict(call), DIALECT, call["id"]))
        else:
            blocks.append(parse_openai_tool_call(call, index))
    return Message("assistant", blocks)


def _broken_arguments(call: Any) -> bool:
    """Whether ``call`` is a well-formed function call (a string id and name) whose
    ``arguments`` are not a JSON object."""
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping) or not isinstance(call.get("id"), str):
        return False
    if not isinstance(function.get("name"), str):
        return False
    arguments = function.get("arguments") or "{}"
    if isinstance(arguments, dict):
        return False
    return not isinstance(arguments, str) or not holds_json_object(arguments)


def holds_json_object(text: str) -> bool:
    """Whether ``text`` is the JSON text of an object (a tool call's arguments)."""
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def parse_openai_tool_call(call: Any, index: int) -> ToolUseBlock:
    """One ``tool_calls`` entry as a :class:`ToolUseBlock`; ``ValueError`` when malformed."""
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping):
        raise ValueError(f"message {index}: a tool call is missing field 'function'")
    call_id, name = call.get("id"), function.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise ValueError(f"message {index}: a tool call needs a string 'id' and 'function.name'")
    arguments = function.get("arguments") or "{}"
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"message {index}: arguments of tool call {call_id} ({name}) are not valid JSON"
        ) from exc
    if not isinstance(parsed, dict):
        raise ValueError(f"message {index}: arguments of tool call {call_id} must be an object")
    return ToolUseBlock(call_id, name, parsed)


def tool_from_openai(wire: Mapping[str, Any], index: int) -> ToolResultBlock:
    """A ``tool`` message as a result: ``is_error`` from the prefix, placeholder dropped."""
    call_id = wire.get("tool_call_id")
    if not isinstance(call_id, str):
        raise ValueError(f"message {index} (tool) is missing field 'tool_call_id'")
    content = wire.get("content")
    if content is None or isinstance(content, str):
        text = content or ""
        return ToolResultBlock(call_id, text, text.startswith(TOOL_ERROR_PREFIX))
    kinds = TextBlock | ImageBlock | OpaqueBlock
    blocks = [b for b in openai_parts(content, index) if isinstance(b, kinds)]
    texts = [b for b in blocks if isinstance(b, TextBlock)]
    is_error = bool(texts) and texts[0].text.startswith(TOOL_ERROR_PREFIX)
    if [b.text for b in texts] in ([_IMAGES_ONLY], [TOOL_ERROR_PREFIX + _IMAGES_ONLY]):
        blocks = [b for b in blocks if not isinstance(b, TextBlock)]
    return ToolResultBlock(call_id, blocks, is_error)


def fold_tool_images(results: Message, blocks: list[ContentBlock]) -> bool:
    """Fold a user message of tool-image groups back into ``results``; False if it is not one."""
    groups: dict[str, list[TextBlock | ImageBlock]] = {}
    current: list[TextBlock | ImageBlock] | None = None
    for block in blocks:
        marker = _TOOL_IMAGES.match(block.text) if isinstance(block, TextBlock) else None
        if marker is not None:
            current = groups.setdefault(marker["id"], [])
        elif isinstance(block, ImageBlock) and current is not None:
            current.append(block)
        else:
            return False
    ids = {b.tool_use_id for b in results.tool_results}
    if not groups or not set(groups) <= ids:
        return False
    for i, block in enumerate(results.content):
        if isinstance(block, ToolResultBlock) and block.tool_use_id in groups:
            old = block.content
            parts: list[TextBlock | ImageBlock | OpaqueBlock] = (
                [TextBlock(old)] if isinstance(old, str) else [*old]
            )
            new = ToolResultBlock(
                block.tool_use_id, [*parts, *groups[block.tool_use_id]], block.is_error
            )
            results.content[i] = new
    return True
