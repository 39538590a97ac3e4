"""Amplifier's message shapes: parsed for counting and summarizing, written for fresh messages.

Amplifier's orchestrators (loop-basic, loop-streaming) store messages that OpenAI's
chat format does not describe, and rebuild every dict the context returns with
``amplifier_core.Message(**d)``:

* ``tool_calls`` entries are ``{"id", "tool", "arguments"}`` (``arguments`` a dict);
* ``content`` may be a list of Amplifier content blocks: ``text``, ``thinking``
  (``thinking``, ``signature``), ``redacted_thinking`` (``data``), ``reasoning``,
  ``tool_call`` (``id``, ``name``, ``input``), ``tool_result`` (``tool_call_id``,
  ``output``) and ``image`` (``source``: ``{"type": "base64", "media_type", "data"}``
  or a URL); every block may carry ``visibility`` and other extras;
* tool results are ``{"role": "tool", "tool_call_id", "content": str}`` (plus ``name``);
* any dict may carry extra keys (``metadata``, ``name``, ``thinking_block``, ...).

:func:`is_native` tells such a dict from an OpenAI one, :func:`parse_native` turns it
into the :class:`~contextfold.messages.Message` that is counted and summarized (the
stored dict itself is never changed), and :func:`to_amplifier` writes fresh messages
(a summary, a truncated tool result) in the shape ``Message(**d)`` accepts: never
``content=None``, only Amplifier block types. Parts that have no block here (a URL
image, an image of another media type, an unknown block) are counted through the
placeholders of :mod:`contextfold.manager._parts`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from typing import Any

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
from contextfold.formats import TOOL_ERROR_PREFIX, parse_openai_tool_call
from contextfold.manager._parts import placeholder
from contextfold.messages import Message

__all__ = [
    "block_from_native",
    "is_native",
    "parse_native",
    "to_amplifier",
    "with_system_prompt",
]

NATIVE_BLOCK_TYPES = frozenset(
    {"thinking", "redacted_thinking", "reasoning", "tool_call", "tool_result", "image"}
)


def is_native(wire: Mapping[str, Any]) -> bool:
    """Whether ``wire`` uses a shape only Amplifier writes (native tool calls or blocks)."""
    calls = wire.get("tool_calls")
    if isinstance(calls, list) and any(
        isinstance(call, Mapping) and "function" not in call and "tool" in call for call in calls
    ):
        return True
    content = wire.get("content")
    return isinstance(content, list) and any(
        isinstance(part, Mapping) and part.get("type") in NATIVE_BLOCK_TYPES for part in content
    )


def _string(block: Mapping[str, Any], key: str, where: str) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{where}: a {block.get('type')!r} block needs a string {key!r}")
    return value


def _output_text(output: Any) -> str:
    """A tool output as text: strings as they are, other values as JSON (as Amplifier does)."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    return json.dumps(output, ensure_ascii=False, default=str)


def _image(block: Mapping[str, Any], where: str) -> ContentBlock:
    source = block.get("source")
    if not isinstance(source, Mapping):
        raise ValueError(f"{where}: an 'image' block needs an object in field 'source'")
    media_type, data = source.get("media_type"), source.get("data")
    if source.get("type") == "base64" and isinstance(data, str):
        if media_type in IMAGE_MEDIA_TYPES:
            try:
                return ImageBlock(str(media_type), base64.b64decode(data, validate=True))
            except (binascii.Error, ValueError) as exc:
                raise ValueError(f"{where}: image data is not valid base64") from exc
        return TextBlock(f"[image: {media_type}]")
    url = source.get("url")
    label = placeholder({"type": "image_url", "image_url": {"url": url}}) if url else None
    return TextBlock(label or "[image]")


def block_from_native(block: object, where: str) -> ContentBlock:
    """One Amplifier content block as a contextfold block (see the module docstring).

    Raises :class:`ValueError` starting with ``where`` for a block that is not a dict,
    has no string ``type`` or lacks a field its type needs.
    """
    if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
        raise ValueError(f"{where}: every content block needs a string 'type'")
    match block["type"]:
        case "text":
            return TextBlock(_string(block, "text", where))
        case "thinking":
            signature = block.get("signature")
            return ThinkingBlock(
                _string(block, "thinking", where), signature if isinstance(signature, str) else ""
            )
        case "redacted_thinking":
            return ThinkingBlock(_string(block, "data", where), redacted=True)
        case "reasoning":
            summary = block.get("summary")
            texts = [
                item if isinstance(item, str) else str(item.get("text", ""))
                for item in (summary if isinstance(summary, list) else [])
                if isinstance(item, str | Mapping)
            ]
            return ThinkingBlock("\n".join(t for t in texts if t))
        case "tool_call":
            call_input = block.get("input")
            if call_input is not None and not isinstance(call_input, Mapping):
                raise ValueError(f"{where}: the input of a 'tool_call' block must be an object")
            return ToolUseBlock(
                _string(block, "id", where), _string(block, "name", where), dict(call_input or {})
            )
        case "tool_result":
            text = _output_text(block.get("output"))
            call_id = _string(block, "tool_call_id", where)
            return ToolResultBlock(call_id, text, text.startswith(TOOL_ERROR_PREFIX))
        case "image":
            return _image(block, where)
        case kind:
            return TextBlock(f"[content part: {kind}]")


def _native_call(call: object, where: str, index: int) -> ToolUseBlock:
    if isinstance(call, Mapping) and "function" in call:
        return parse_openai_tool_call(call, index)
    if not isinstance(call, Mapping):
        raise ValueError(f"{where}: a tool call must be a dict")
    call_id, name, arguments = call.get("id"), call.get("tool"), call.get("arguments")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise ValueError(
            f"{where}: a tool call needs a string 'id' and a string 'tool' (Amplifier) "
            "or 'function' (OpenAI)"
        )
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: arguments of tool call {call_id} are not JSON") from exc
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise ValueError(f"{where}: arguments of tool call {call_id} must be an object")
    return ToolUseBlock(call_id, name, dict(arguments))


def _blocks(content: Any, where: str) -> list[ContentBlock]:
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)]  # as formats reads it, "" included
    if not isinstance(content, list):
        raise ValueError(f"{where}: field 'content' must be a string or a list of blocks")
    return [block_from_native(block, where) for block in content]


def _result(call_id: str, blocks: Sequence[ContentBlock]) -> ToolResultBlock:
    """The result of a ``tool`` message whose content is ``blocks`` (text and images)."""
    parts: list[TextBlock | ImageBlock | OpaqueBlock] = [
        b for b in blocks if isinstance(b, TextBlock | ImageBlock)
    ]
    texts = [b.text for b in parts if isinstance(b, TextBlock)]
    error = bool(texts) and texts[0].startswith(TOOL_ERROR_PREFIX)
    if all(isinstance(b, TextBlock) for b in parts):
        return ToolResultBlock(call_id, "\n".join(texts), error)
    return ToolResultBlock(call_id, parts, error)


def _placed(block: ContentBlock, allowed: tuple[type[ContentBlock], ...]) -> ContentBlock:
    """``block``, or a text placeholder when it cannot stand in a message of this role."""
    if isinstance(block, allowed):
        return block
    return TextBlock(f"[content part: {type(block).__name__}]")


def parse_native(wire: Mapping[str, Any], index: int) -> Message:
    """An Amplifier message dict as a :class:`Message` (see the module docstring).

    Tool results (``tool`` messages, ``tool_result`` blocks) become a user message of
    :class:`ToolResultBlock` s first; a block that cannot stand in its role's message
    (a thinking block in a user message) is counted as a placeholder. Raises
    :class:`ValueError` naming message ``index`` for a missing or unknown role,
    malformed blocks or malformed ``tool_calls``.
    """
    where = f"message {index}"
    role = wire.get("role")
    blocks = _blocks(wire.get("content"), where)
    match role:
        case "system" | "developer":
            return Message("system", [_placed(b, (TextBlock,)) for b in blocks])
        case "assistant":
            allowed = (TextBlock, ThinkingBlock, ToolUseBlock)
            content = [_placed(b, allowed) for b in blocks]
            seen = {b.id for b in content if isinstance(b, ToolUseBlock)}
            calls = wire.get("tool_calls") or []
            if not isinstance(calls, list):
                raise ValueError(f"{where}: field 'tool_calls' must be a list")
            for call in calls:
                use = _native_call(call, where, index)
                if use.id not in seen:
                    seen.add(use.id)
                    content.append(use)
            return Message("assistant", content)
        case "user" | "tool":
            results = [b for b in blocks if isinstance(b, ToolResultBlock)]
            others = [
                _placed(b, (TextBlock, ImageBlock))
                for b in blocks
                if not isinstance(b, ToolResultBlock)
            ]
            if role == "tool":
                call_id = wire.get("tool_call_id")
                if not isinstance(call_id, str):
                    if not results or others:
                        raise ValueError(f"{where} (tool) is missing field 'tool_call_id'")
                elif call_id not in {r.tool_use_id for r in results}:
                    results.append(_result(call_id, others))
                    others = []
            return Message("user", [*results, *others])
        case None:
            raise ValueError(f"{where} is missing field 'role'")
        case _:
            raise ValueError(
                f"{where} has unsupported role {role!r} "
                "(expected system, developer, user, assistant or tool)"
            )


# ------------------------------------------------------------------ writing


def _block_dict(block: ContentBlock) -> dict[str, Any]:
    match block:
        case TextBlock(text=text):
            return {"type": "text", "text": text}
        case ThinkingBlock(thinking=data, redacted=True):
            return {"type": "redacted_thinking", "data": data}
        case ThinkingBlock(thinking=thinking, signature=signature):
            return {"type": "thinking", "thinking": thinking, "signature": signature or None}
        case ToolUseBlock(id=call_id, name=name, input=call_input):
            return {"type": "tool_call", "id": call_id, "name": name, "input": dict(call_input)}
        case ImageBlock(media_type=media_type, data=data):
            encoded = base64.b64encode(data).decode("ascii")
            source = {"type": "base64", "media_type": media_type, "data": encoded}
            return {"type": "image", "source": source}
    raise TypeError(f"no Amplifier block for {block!r}")


def _content(blocks: Sequence[ContentBlock]) -> str | list[dict[str, Any]]:
    """One text block as a string (as Amplifier's orchestrators write user text), else blocks."""
    if not blocks:
        return ""
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock):
        return blocks[0].text
    return [_block_dict(b) for b in blocks]


def _tool_dict(result: ToolResultBlock) -> dict[str, Any]:
    content = result.content
    if isinstance(content, str):
        text = content
        if result.is_error and not text.startswith(TOOL_ERROR_PREFIX):
            text = TOOL_ERROR_PREFIX + text
        body: str | list[dict[str, Any]] = text
    else:
        body = _content(content) if content else ""
    return {"role": "tool", "tool_call_id": result.tool_use_id, "content": body}


def to_amplifier(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """``messages`` as dicts that ``amplifier_core.Message(**d)`` accepts.

    Assistant messages carry their blocks (thinking with its signature, text, then
    ``tool_call`` blocks) and ``tool_calls`` as ``{"id", "tool", "arguments"}``, as
    loop-basic writes them; tool results become ``tool`` messages (an error result
    starts with ``"Error: "``), followed by the user message of the rest. A system
    message that falls between a tool call and its results follows the results.
    """
    out: list[dict[str, Any]] = []
    deferred: list[dict[str, Any]] = []
    pending = False  # the last assistant message made calls whose results did not come yet
    for message in messages:
        match message.role:
            case "system":
                note: dict[str, Any] = {"role": "system", "content": message.text}
                (deferred if pending or deferred else out).append(note)
            case "assistant":
                out += deferred
                deferred = []
                wire: dict[str, Any] = {"role": "assistant", "content": _content(message.content)}
                uses = message.tool_uses
                if uses:
                    wire["tool_calls"] = [
                        {"id": u.id, "tool": u.name, "arguments": dict(u.input)} for u in uses
                    ]
                out.append(wire)
                pending = bool(uses)
            case "user":
                out += [_tool_dict(r) for r in message.tool_results]
                out += deferred
                deferred = []
                rest = [b for b in message.content if not isinstance(b, ToolResultBlock)]
                if rest:
                    out.append({"role": "user", "content": _content(rest)})
                pending = False
    return out + deferred


def with_system_prompt(wires: Sequence[dict[str, Any]], prompt: str) -> list[dict[str, Any]]:
    """``wires`` as a system-prompt factory shapes a request (context-simple's rule).

    The factory's ``prompt`` comes first; stored system (and developer) messages are
    left out, except those a hook injected (``metadata["source"] == "hook"``).
    """
    kept = [
        wire
        for wire in wires
        if wire.get("role") not in ("system", "developer")
        or (isinstance(meta := wire.get("metadata"), Mapping) and meta.get("source") == "hook")
    ]
    return [{"role": "system", "content": prompt}, *kept]
