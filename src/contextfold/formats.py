"""Whole histories to and from the two wire dialects: OpenAI chat and Anthropic Messages.

Only this module and the provider transports know a provider's JSON. Every ``from_*``
function accepts what real clients send (string content or content-part lists,
``name`` fields, ``null`` content next to ``tool_calls``, the ``developer`` role) and
raises :class:`ValueError` naming the message index and the defect for anything else.

Where a dialect cannot express something, the mapping is fixed and documented:

OpenAI chat
    * Tool results become ``role: "tool"`` messages. OpenAI has no error flag, so an
      error result is sent with the :data:`TOOL_ERROR_PREFIX` (``"Error: "``) in front
      of its text (added only when missing); a tool message whose text starts with it
      is read back with ``is_error=True``. Histories made by the agent (whose error
      results start with ``"Error: "``) therefore round-trip exactly.
    * Images inside tool results cannot travel in a tool message; they follow the
      tool messages in one user message, each group introduced by the text
      ``"[images returned by tool call <id>]"``, and are folded back on the way in
      (after the result's text). A result of images only is sent with the text
      ``"[the tool returned only images; they follow]"`` (``"Error: "`` in front for
      an error result), never with empty content; that text is dropped on the way
      in, so such results round-trip exactly, ``is_error`` included. A result whose
      content is an empty list is sent, and read back, as an empty string.
    * Text or images next to tool results in one user message follow as a separate
      user message.
    * A system message between a tool call and its results is sent after the tool
      messages (and their images), because OpenAI wants the tool messages right after
      the call; :func:`from_openai` reads it back there, after the results.
    * Thinking blocks are dropped (OpenAI never produced them); an
      incoming ``reasoning_content`` field becomes a :class:`ThinkingBlock`.
    * Assistant text comes before its tool calls.

Anthropic Messages
    * ``system`` and the system messages that open the history form the top-level
      ``system`` parameter (joined by a blank line).
    * A later system message has no Anthropic equivalent: it is sent as a user turn
      whose one text block reads ``"<system>\\n...\\n</system>"``, or, when it sits
      between a tool call and its result, as that text block after the tool results.
      :func:`from_anthropic` turns such blocks back into system messages.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from contextfold.blocks import (
    IMAGE_MEDIA_TYPES,
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.messages import Message

__all__ = [
    "TOOL_ERROR_PREFIX",
    "from_anthropic",
    "from_openai",
    "split_system",
    "to_anthropic",
    "to_openai",
]

TOOL_ERROR_PREFIX: Final = "Error: "
# The text of a tool message whose result is images only (OpenAI wants some content).
_IMAGES_ONLY: Final = "[the tool returned only images; they follow]"
_TOOL_IMAGES = re.compile(r"\[images returned by tool call (?P<id>.+)\]\Z")
_SYSTEM_MARK = re.compile(r"<system>\n(?P<text>.*)\n</system>\Z", re.DOTALL)
_DATA_URL = re.compile(r"data:(?P<type>[\w/+.-]+);base64,(?P<data>.*)\Z", re.DOTALL)


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
    return "\n\n".join(m.text for m in messages[:lead]), list(messages[lead:])


# ---------------------------------------------------------------- OpenAI chat


def to_openai(messages: Sequence[Message], system: str | None = None) -> list[dict[str, Any]]:
    """``messages`` (with ``system`` first, when given) as OpenAI chat message dicts."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    deferred: list[dict[str, Any]] = []  # system messages waiting for pending tool results
    for message in messages:
        match message.role:
            case "system":
                wire = {"role": "system", "content": message.text}
                awaiting = bool(out) and out[-1]["role"] == "assistant" and "tool_calls" in out[-1]
                if deferred or awaiting:
                    deferred.append(wire)
                else:
                    out.append(wire)
            case "assistant":
                out += deferred
                deferred = []
                out.append(_openai_assistant(message))
            case "user":
                results, rest = _openai_user(message)
                out += results + deferred + rest
                deferred = []
    return out + deferred


def _openai_assistant(message: Message) -> dict[str, Any]:
    texts = [b.text for b in message.content if isinstance(b, TextBlock)]
    calls = [
        {
            "id": b.id,
            "type": "function",
            "function": {"name": b.name, "arguments": json.dumps(b.input, ensure_ascii=False)},
        }
        for b in message.content
        if isinstance(b, ToolUseBlock)
    ]
    content: str | list[dict[str, Any]] | None
    if len(texts) > 1:
        content = [{"type": "text", "text": t} for t in texts]
    else:
        content = texts[0] if texts else (None if calls else "")
    wire: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        wire["tool_calls"] = calls
    return wire


def _image_url(block: ImageBlock) -> dict[str, Any]:
    data = base64.b64encode(block.data).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{block.media_type};base64,{data}"}}


def _openai_user(message: Message) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
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
                texts = [b.text for b in content if isinstance(b, TextBlock)] or [_IMAGES_ONLY]
                if is_error:
                    texts = [_mark_error(texts[0]), *texts[1:]]
                wire = [{"type": "text", "text": t} for t in texts]
                out.append({"role": "tool", "tool_call_id": call_id, "content": wire})
                images = [_image_url(b) for b in content if isinstance(b, ImageBlock)]
                if images:
                    marker = f"[images returned by tool call {call_id}]"
                    tool_images += [{"type": "text", "text": marker}, *images]
            case TextBlock(text=text):
                parts.append({"type": "text", "text": text})
            case ImageBlock():
                parts.append(_image_url(block))
    if tool_images:
        out.append({"role": "user", "content": tool_images})
    if not parts and out:
        return out, []
    simple = len(parts) == 1 and parts[0]["type"] == "text"
    return out, [{"role": "user", "content": parts[0]["text"] if simple else parts}]


def _mark_error(text: str) -> str:
    return text if text.startswith(TOOL_ERROR_PREFIX) else TOOL_ERROR_PREFIX + text


def from_openai(messages: Sequence[Mapping[str, Any]]) -> list[Message]:
    """Parse OpenAI chat message dicts into messages (see the module doc for the mapping).

    ``system`` and ``developer`` messages become system messages in place (use
    :func:`split_system` to lift the leading ones out); consecutive ``tool`` messages
    become one user message of :class:`ToolResultBlock` s.
    """
    out: list[Message] = []
    for index, wire in enumerate(messages):
        if not isinstance(wire, Mapping):
            raise ValueError(f"message {index} must be a dict, got {type(wire).__name__}")
        role = wire.get("role")
        match role:
            case "system" | "developer":
                out.append(Message("system", [TextBlock(_openai_text(wire, index))]))
            case "assistant":
                out.append(_from_openai_assistant(wire, index))
            case "tool":
                result = _from_openai_tool(wire, index)
                if out and out[-1].role == "user" and _only_results(out[-1]):
                    out[-1].content.append(result)
                else:
                    out.append(Message("user", [result]))
            case "user":
                blocks = _openai_parts(wire.get("content"), index)
                if out and _only_results(out[-1]) and _fold_tool_images(out[-1], blocks):
                    continue
                out.append(Message("user", blocks))
            case None:
                raise ValueError(f"message {index} is missing field 'role'")
            case _:
                raise ValueError(
                    f"message {index} has unsupported role {role!r} "
                    "(expected system, developer, user, assistant or tool)"
                )
    return out


def _only_results(message: Message) -> bool:
    return bool(message.content) and all(isinstance(b, ToolResultBlock) for b in message.content)


def _openai_text(wire: Mapping[str, Any], index: int) -> str:
    blocks = _openai_parts(wire.get("content"), index)
    if not all(isinstance(b, TextBlock) for b in blocks):
        raise ValueError(f"message {index} ({wire.get('role')}) may hold only text")
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock))


def _openai_parts(content: Any, index: int) -> list[ContentBlock]:
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
            blocks.append(_parse_data_url(part.get("image_url"), index))
        elif kind == "refusal" and isinstance(part.get("refusal"), str):
            blocks.append(TextBlock(part["refusal"]))
        else:
            raise ValueError(f"message {index} has an unsupported content part: {kind!r}")
    return blocks


def _parse_data_url(image_url: Any, index: int) -> ImageBlock:
    url = image_url.get("url") if isinstance(image_url, Mapping) else image_url
    match = _DATA_URL.match(url) if isinstance(url, str) else None
    if match is None:
        raise ValueError(
            f"message {index}: only base64 data URLs are supported for images "
            "(download remote images first)"
        )
    return _image(match["type"], match["data"], f"message {index}")


def _image(media_type: str, data: str, where: str) -> ImageBlock:
    if media_type not in IMAGE_MEDIA_TYPES:
        raise ValueError(f"{where}: unsupported image media type {media_type!r}")
    try:
        return ImageBlock(media_type, base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{where}: image data is not valid base64") from exc


def _from_openai_assistant(wire: Mapping[str, Any], index: int) -> Message:
    blocks: list[ContentBlock] = []
    reasoning = wire.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        blocks.append(ThinkingBlock(reasoning))
    blocks += _openai_parts(wire.get("content"), index)
    calls = wire.get("tool_calls") or []
    if not isinstance(calls, list):
        raise ValueError(f"message {index} field 'tool_calls' must be a list")
    for call in calls:
        blocks.append(parse_openai_tool_call(call, index))
    return Message("assistant", blocks)


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


def _from_openai_tool(wire: Mapping[str, Any], index: int) -> ToolResultBlock:
    call_id = wire.get("tool_call_id")
    if not isinstance(call_id, str):
        raise ValueError(f"message {index} (tool) is missing field 'tool_call_id'")
    content = wire.get("content")
    if content is None or isinstance(content, str):
        text = content or ""
        return ToolResultBlock(call_id, text, text.startswith(TOOL_ERROR_PREFIX))
    blocks = [b for b in _openai_parts(content, index) if isinstance(b, TextBlock | ImageBlock)]
    texts = [b for b in blocks if isinstance(b, TextBlock)]
    is_error = bool(texts) and texts[0].text.startswith(TOOL_ERROR_PREFIX)
    if [b.text for b in texts] in ([_IMAGES_ONLY], [TOOL_ERROR_PREFIX + _IMAGES_ONLY]):
        blocks = [b for b in blocks if not isinstance(b, TextBlock)]
    return ToolResultBlock(call_id, blocks, is_error)


def _fold_tool_images(results: Message, blocks: list[ContentBlock]) -> bool:
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
            parts: list[TextBlock | ImageBlock] = (
                [TextBlock(old)] if isinstance(old, str) else [*old]
            )
            new = ToolResultBlock(
                block.tool_use_id, parts + groups[block.tool_use_id], block.is_error
            )
            results.content[i] = new
    return True


# ---------------------------------------------------------- Anthropic Messages


def to_anthropic(
    messages: Sequence[Message], system: str | None = None
) -> tuple[str | None, list[dict[str, Any]]]:
    """``(system, messages)`` for the Messages API (see the module doc for system messages).

    Thinking blocks are included with their signatures (``redacted_thinking`` for
    redacted ones): only send them back to Anthropic.
    """
    lead, rest = split_system(messages)
    top = "\n\n".join(s for s in (system, lead) if s) or None
    out: list[dict[str, Any]] = []
    deferred: list[dict[str, Any]] = []  # system notes waiting for pending tool results
    for message in rest:
        if message.role == "system":
            note = {"type": "text", "text": f"<system>\n{message.text}\n</system>"}
            awaiting = bool(out) and any(b["type"] == "tool_use" for b in out[-1]["content"])
            if awaiting and out[-1]["role"] == "assistant":
                deferred.append(note)
            else:
                out.append({"role": "user", "content": [note]})
            continue
        blocks = [_anthropic_block(b) for b in message.content]
        if deferred:
            cut = sum(1 for b in blocks if b["type"] == "tool_result")
            blocks[cut:cut] = deferred
            deferred = []
        out.append({"role": message.role, "content": blocks})
    if deferred:
        out.append({"role": "user", "content": deferred})
    return top, out


def _anthropic_block(block: ContentBlock) -> dict[str, Any]:
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
                else [_anthropic_block(b) for b in content],
            }
            if is_error:
                wire["is_error"] = True
            return wire
        case ThinkingBlock(thinking=thinking, signature=signature, redacted=True):
            return {"type": "redacted_thinking", "data": thinking}
        case ThinkingBlock(thinking=thinking, signature=signature):
            return {"type": "thinking", "thinking": thinking, "signature": signature}
    raise TypeError(f"not a content block: {block!r}")


def from_anthropic(
    messages: Sequence[Mapping[str, Any]], system: str | Sequence[Mapping[str, Any]] | None = None
) -> list[Message]:
    """Parse Messages API dicts (and the top-level ``system``) into messages.

    A non-empty ``system`` (a string or a list of text blocks) becomes the first,
    system message; ``<system>`` notes written by :func:`to_anthropic` become system
    messages again. Unknown block types raise :class:`ValueError`.
    """
    out: list[Message] = []
    if isinstance(system, str) and system:
        out.append(Message.system(system))
    elif system:
        blocks = _anthropic_blocks(system, "system")
        texts = [b.text for b in blocks if isinstance(b, TextBlock)]
        if len(texts) != len(blocks):
            raise ValueError("system may hold only text blocks")
        out.append(Message.system("\n\n".join(texts)))
    for index, wire in enumerate(messages):
        if not isinstance(wire, Mapping):
            raise ValueError(f"message {index} must be a dict, got {type(wire).__name__}")
        role = wire.get("role")
        if role is None:
            raise ValueError(f"message {index} is missing field 'role'")
        if role not in ("user", "assistant"):
            raise ValueError(f"message {index} has unsupported role {role!r} (user or assistant)")
        blocks = _anthropic_blocks(wire.get("content"), f"message {index}")
        if role == "user":
            notes, others = _split_notes(blocks)
            # Only two shapes are notes: a message of notes alone, or tool results
            # followed by the notes that waited for them.
            if notes and (not others or all(isinstance(b, ToolResultBlock) for b in others)):
                out += [Message.system(note) for note in notes]
                if others:
                    out.append(Message("user", others))
                continue
        out.append(Message(role, blocks))
    return out


def _split_notes(blocks: list[ContentBlock]) -> tuple[list[str], list[ContentBlock]]:
    notes: list[str] = []
    others: list[ContentBlock] = []
    for block in blocks:
        mark = _SYSTEM_MARK.match(block.text) if isinstance(block, TextBlock) else None
        if mark is None:
            others.append(block)
        else:
            notes.append(mark["text"])
    return notes, others


def _anthropic_blocks(content: Any, where: str) -> list[ContentBlock]:
    if isinstance(content, str):
        return [TextBlock(content)]
    if not isinstance(content, Sequence):
        raise ValueError(
            f"{where} field 'content' must be a string or a list of blocks, "
            f"got {type(content).__name__}"
        )
    return [_parse_anthropic_block(block, where) for block in content]


def _parse_anthropic_block(block: Any, where: str) -> ContentBlock:
    if not isinstance(block, Mapping):
        raise ValueError(f"{where}: a content block must be a dict, got {type(block).__name__}")
    kind = block.get("type")
    try:
        match kind:
            case "text":
                return TextBlock(_str(block, "text"))
            case "image":
                source = block.get("source")
                if not isinstance(source, Mapping) or source.get("type") != "base64":
                    raise ValueError("only base64 image sources are supported")
                return _image(_str(source, "media_type"), _str(source, "data"), where)
            case "tool_use":
                input_ = block.get("input", {})
                if not isinstance(input_, dict):
                    raise ValueError("tool_use field 'input' must be an object")
                return ToolUseBlock(_str(block, "id"), _str(block, "name"), input_)
            case "tool_result":
                content = block.get("content", "")
                parsed: str | list[TextBlock | ImageBlock] = ""
                if isinstance(content, str):
                    parsed = content
                else:
                    parts = _anthropic_blocks(content, where)
                    if not all(isinstance(p, TextBlock | ImageBlock) for p in parts):
                        raise ValueError("tool_result content may hold only text and images")
                    parsed = [p for p in parts if isinstance(p, TextBlock | ImageBlock)]
                is_error = block.get("is_error") is True
                return ToolResultBlock(_str(block, "tool_use_id"), parsed, is_error)
            case "thinking":
                return ThinkingBlock(_str(block, "thinking"), block.get("signature") or "")
            case "redacted_thinking":
                return ThinkingBlock(_str(block, "data"), redacted=True)
            case None:
                raise ValueError("content block is missing field 'type'")
            case _:
                raise ValueError(f"unsupported content block type {kind!r}")
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _str(d: Mapping[str, Any], name: str) -> str:
    value = d.get(name)
    if not isinstance(value, str):
        raise ValueError(f"{d.get('type', 'block')} field {name!r} must be a string")
    return value
