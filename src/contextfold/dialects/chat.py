"""OpenAI's Chat Completions (``POST /v1/chat/completions``): :data:`CHAT`.

Histories, both ways (:func:`to_openai`, :func:`from_openai`), accepting what real
clients send (string content or content-part lists, ``name`` fields, ``null``
content next to ``tool_calls``, the ``developer`` role):

* Tool results become ``role: "tool"`` messages. OpenAI has no error flag, so an
  error result is sent with the :data:`TOOL_ERROR_PREFIX` (``"Error: "``) in front of
  its text (added only when missing); a tool message whose text starts with it is
  read back with ``is_error=True``. Histories made by the agent (whose error results
  start with ``"Error: "``) therefore round-trip exactly.
* Images inside tool results cannot travel in a tool message; they follow the tool
  messages in one user message, each group introduced by the text ``"[images
  returned by tool call <id>]"``, and are folded back on the way in (after the
  result's text). A result of images only is sent with the text ``"[the tool
  returned only images; they follow]"`` (``"Error: "`` in front for an error
  result), never with empty content; that text is dropped on the way in, so such
  results round-trip exactly, ``is_error`` included. A result whose content is an
  empty list is sent, and read back, as an empty string.
* Text or images next to tool results in one user message follow as a separate user
  message.
* A system message between a tool call and its results is sent after the tool
  messages (and their images), because OpenAI wants the tool messages right after
  the call; :func:`from_openai` reads it back there, after the results.
* An assistant's ``content`` of ``""`` next to ``tool_calls`` (what many SDKs send)
  is read as no content, like ``null``. A tool call of a type other than
  ``function`` (a custom tool's), or whose arguments are not a JSON object, is an
  opaque block paired by its id, answered by its ``tool`` message like any call, and
  written back into ``tool_calls``.
* Thinking blocks are dropped (OpenAI never produced them); an incoming
  ``reasoning_content`` field becomes a :class:`~contextfold.blocks.ThinkingBlock`.
* Assistant text comes before its tool calls.

A ``tool`` message merges into the results message before it, and a user message of
tool images folds into it: a history may be cut only where neither happens
(:meth:`ChatCompletions.fresh`). Answers report the prompt as ``prompt_tokens``;
errors are ``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator, Mapping, Sequence
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
from contextfold.dialects import _openai
from contextfold.dialects._common import (
    DATA_URL,
    decode_image,
    plain_text,
    sse,
    texts_of,
    unknown_role,
    usage_total,
    whole_message,
)
from contextfold.dialects._openai import TOOL_ERROR_PREFIX, holds_json_object, mark_error
from contextfold.dialects.base import Dialect, ItemRole
from contextfold.messages import Message

__all__ = [
    "CHAT",
    "DIALECT",
    "TOOL_ERROR_PREFIX",
    "ChatCompletions",
    "from_openai",
    "parse_openai_tool_call",
    "to_openai",
]

DIALECT: Final = "openai"
"""The :attr:`~contextfold.blocks.OpaqueBlock.dialect` of parts read from chat dicts."""

# The text of a tool message whose result is images only (OpenAI wants some content).
_IMAGES_ONLY: Final = "[the tool returned only images; they follow]"
_TOOL_IMAGES: Final = re.compile(r"\[images returned by tool call (?P<id>.+)\]\Z")
# How a user message of tool images opens.
_FOLD_MARK: Final = "[images returned by tool call "

# ---------------------------------------------------------------- to OpenAI


def to_openai(messages: Sequence[Message], system: str | None = None) -> list[dict[str, Any]]:
    """``messages`` (with ``system`` first, when given) as OpenAI chat message dicts."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    deferred: list[dict[str, Any]] = []  # system messages waiting for pending tool results
    for message in messages:
        whole = whole_message(message, DIALECT)
        if whole is not None:
            out.append(whole)
            continue
        match message.role:
            case "system":
                wire = {"role": "system", "content": plain_text(message)}
                awaiting = bool(out) and out[-1]["role"] == "assistant" and "tool_calls" in out[-1]
                if deferred or awaiting:
                    deferred.append(wire)
                else:
                    out.append(wire)
            case "assistant":
                out += deferred
                deferred = []
                out.append(_assistant_to_openai(message))
            case "user":
                results, rest = _user_to_openai(message)
                out += results + deferred + rest
                deferred = []
    return out + deferred


def _assistant_to_openai(message: Message) -> dict[str, Any]:
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


def _user_to_openai(message: Message) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
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
                    text = mark_error(text) if is_error else text
                    out.append({"role": "tool", "tool_call_id": call_id, "content": text})
                    continue
                wire = [_part(b) for b in content if isinstance(b, TextBlock | OpaqueBlock)]
                if not any(w.get("type") == "text" for w in wire) and (is_error or not wire):
                    wire.insert(0, {"type": "text", "text": _IMAGES_ONLY})
                if is_error:
                    first = next(w for w in wire if w.get("type") == "text")
                    first["text"] = mark_error(first["text"])
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


# ---------------------------------------------------------------- from OpenAI


def from_openai(messages: Sequence[Mapping[str, Any]]) -> list[Message]:
    """Parse OpenAI chat message dicts into messages (see the module doc for the mapping).

    Parts of unknown types, images by URL and messages of unknown roles are carried as
    :class:`~contextfold.blocks.OpaqueBlock` s. ``system`` and ``developer`` messages
    become system messages in place (use :func:`~contextfold.formats.split_system` to
    lift the leading ones out); consecutive ``tool`` messages become one user message
    of :class:`~contextfold.blocks.ToolResultBlock` s.
    """
    out: list[Message] = []
    for index, wire in enumerate(messages):
        if not isinstance(wire, Mapping):
            raise ValueError(f"message {index} must be a dict, got {type(wire).__name__}")
        role = wire.get("role")
        match role:
            case "system" | "developer":
                out.append(Message("system", _openai_parts(wire.get("content"), index)))
            case "assistant":
                out.append(_assistant_from_openai(wire, index))
            case "tool":
                result = _tool_from_openai(wire, index)
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
            case str():
                out.append(unknown_role(wire, DIALECT))
            case _:
                raise ValueError(f"message {index} field 'role' must be a string")
    return out


def _only_results(message: Message) -> bool:
    """Whether ``message`` holds tool results and nothing else."""
    return bool(message.content) and all(isinstance(b, ToolResultBlock) for b in message.content)


def _openai_parts(content: Any, index: int) -> list[ContentBlock]:
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
    match = DATA_URL.match(url)
    if match is None:  # a remote image: carried as it came
        return OpaqueBlock("image_url", dict(part), DIALECT)
    return decode_image(match["type"], match["data"], f"message {index}")


def _assistant_from_openai(wire: Mapping[str, Any], index: int) -> Message:
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
    blocks += _openai_parts(None if content == "" and calls else content, index)
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


def _tool_from_openai(wire: Mapping[str, Any], index: int) -> ToolResultBlock:
    """A ``tool`` message as a result: ``is_error`` from the prefix, placeholder dropped."""
    call_id = wire.get("tool_call_id")
    if not isinstance(call_id, str):
        raise ValueError(f"message {index} (tool) is missing field 'tool_call_id'")
    content = wire.get("content")
    if content is None or isinstance(content, str):
        text = content or ""
        return ToolResultBlock(call_id, text, text.startswith(TOOL_ERROR_PREFIX))
    kinds = TextBlock | ImageBlock | OpaqueBlock
    blocks = [b for b in _openai_parts(content, index) if isinstance(b, kinds)]
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
            parts: list[TextBlock | ImageBlock | OpaqueBlock] = (
                [TextBlock(old)] if isinstance(old, str) else [*old]
            )
            new = ToolResultBlock(
                block.tool_use_id, [*parts, *groups[block.tool_use_id]], block.is_error
            )
            results.content[i] = new
    return True


# ---------------------------------------------------------------- wire items


# The roles of items other than user turns (one object each: nothing varies).
_RESULTS = ItemRole("results", True)
_CALLS = ItemRole("assistant", True)
_ASSISTANT = ItemRole("assistant", False)
_OTHER = ItemRole("other")


def _role(item: Any) -> str | None:
    # A parsed item is a dict: checked first, the ABC check costs several times more.
    role = item.get("role") if isinstance(item, dict | Mapping) else None
    return role if isinstance(role, str) else None


def _may_fold(item: Mapping[str, Any]) -> bool:
    """Whether a user message may be tool images that :func:`from_openai` folds back
    into the tool results before it: its first text opens with the marker."""
    content = item.get("content")
    if isinstance(content, list) and content and isinstance(content[0], Mapping):
        content = content[0].get("text")
    return isinstance(content, str) and content.startswith(_FOLD_MARK)


def _reply_message(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """The message of a completion's first choice."""
    choices = payload.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        return message if isinstance(message, dict) else None
    return None


# ---------------------------------------------------------------- the dialect


class ChatCompletions(Dialect):
    """OpenAI's Chat Completions: ``messages``, system messages among them.

    Its rewrites pass the union of Anthropic's and OpenAI's rules (``"any"``):
    gateways serve Anthropic's models behind this format too.
    """

    name = DIALECT
    path = "/v1/chat/completions"
    provider = "openai"
    history_key = "messages"
    outside_key = None
    rules = "any"
    history_marker = re.compile(rb'"messages"\s*:\s*\[')
    supports_recall = True

    def read(self, items: Sequence[Any], outside: Any = None) -> list[Message]:
        return from_openai(items)

    def write(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        return to_openai(messages)

    def write_split(self, messages: Sequence[Message]) -> tuple[str | None, list[dict[str, Any]]]:
        return None, to_openai(messages)

    def place_outside(self, body: dict[str, Any], messages: Sequence[Message]) -> bool:
        return False  # system messages are messages here

    def history(self, body: Mapping[str, Any]) -> tuple[str | list[Any], Any]:
        return body["messages"], None

    def fresh(self, items: Sequence[Any], index: int) -> bool:
        """A ``tool`` message merges into a results message before it, and a ``user``
        message after tool messages may be their images, folded back: those two roles
        start afresh only when no ``tool`` message came since the last message of
        another role (a ``user`` message that does not open with the images' marker
        always does)."""
        if index == 0:
            return True
        item = items[index]
        role = _role(item)
        if role not in ("user", "tool"):
            return role is not None  # assistant, system, developer, a role carried whole
        if role == "user" and not _may_fold(item):
            return True  # a user message of its own, even right after tool messages
        for before in range(index - 1, -1, -1):
            earlier = _role(items[before])
            if earlier == "tool":
                return False
            if earlier != "user":
                return True
        return True

    def classify(self, item: Any) -> ItemRole:
        role = _role(item)
        if role == "tool":
            return _RESULTS
        if role == "assistant":
            return _CALLS if item.get("tool_calls") else _ASSISTANT
        if role != "user":
            return _OTHER
        return ItemRole("turn", False, texts_of(item.get("content")))

    def input_tokens(self, payload: Any) -> int | None:
        if not isinstance(payload, dict):
            return None
        return usage_total(payload.get("usage"), ("prompt_tokens",))

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return _openai.error_body(status, message)

    def is_overflow(self, status: int | None, error: Any, fallback: str = "") -> bool:
        return _openai.is_overflow(status, error, fallback)

    def reported_sizes(self, text: str) -> tuple[int, int] | None:
        return _openai.reported_sizes(text)

    def overflow_body(self, prompt_tokens: int, window: int) -> dict[str, Any]:
        message = (
            f"This model's maximum context length is {window} tokens. However, your "
            f"messages resulted in {prompt_tokens} tokens. Please reduce the length of the "
            "messages."
        )
        error = {
            "message": message,
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
        return {"error": error}

    # -- recall ---------------------------------------------------------------------

    def tool_definition(
        self, name: str, description: str, schema: Mapping[str, Any]
    ) -> dict[str, Any]:
        function = {"name": name, "description": description, "parameters": schema}
        return {"type": "function", "function": function}

    def tool_spec(self, tool: Any) -> Mapping[str, Any] | None:
        """A function's ``function`` object, a custom tool's ``custom`` one."""
        if not isinstance(tool, dict):
            return None
        spec = tool.get("function") or tool.get("custom") or tool
        return spec if isinstance(spec, dict) else None

    def tool_uses(self, payload: Any) -> Iterator[tuple[Any, str, Any]]:
        if not isinstance(payload, dict):
            return
        calls = (_reply_message(payload) or {}).get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and call.get("type", "function") == "function":
                yield function.get("name"), str(call.get("id")), function.get("arguments")
            elif isinstance(call, dict):  # a custom tool's call (or a kind unknown)
                yield None, str(call.get("id")), None

    def answer_tools(
        self,
        body: Mapping[str, Any],
        payload: Mapping[str, Any],
        answers: Sequence[tuple[str, str, bool]],
    ) -> dict[str, Any]:
        message = _reply_message(payload) or {}
        kept = {k: message[k] for k in ("role", "content", "tool_calls") if k in message}
        results = [
            {"role": "tool", "tool_call_id": call_id, "content": text}
            for call_id, text, _ in answers
        ]
        return {**body, "messages": [*body["messages"], kept, *results]}

    def without_tool(self, payload: Mapping[str, Any], name: str, note: str) -> dict[str, Any]:
        message = _reply_message(payload)
        if message is None:
            return dict(payload)
        calls = [
            c
            for c in message.get("tool_calls") or []
            if not (isinstance(c, dict) and (c.get("function") or {}).get("name") == name)
        ]
        message = {k: v for k, v in message.items() if k != "tool_calls"}
        if calls:
            message["tool_calls"] = calls
        elif not message.get("content"):
            message["content"] = note
        choice = {**payload["choices"][0], "message": message}
        if not calls and choice.get("finish_reason") == "tool_calls":
            choice["finish_reason"] = "stop"
        return {**payload, "choices": [choice, *payload["choices"][1:]]}

    def opening_thinking(self, payload: Mapping[str, Any]) -> list[Any]:
        return []  # replies carry no thinking blocks to replay

    def replay(self, payload: Mapping[str, Any], request: Mapping[str, Any]) -> Iterator[str]:
        """Chunks of the reply, its usage last when the request asked for it
        (``stream_options.include_usage``)."""
        include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        base = {k: payload.get(k) for k in ("id", "created", "model", "system_fingerprint")}
        base["object"] = "chat.completion.chunk"
        message = _reply_message(payload) or {}
        choice = payload["choices"][0] if payload.get("choices") else {}
        delta: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
        yield sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        calls = [{"index": i, **call} for i, call in enumerate(message.get("tool_calls") or [])]
        if calls:
            delta = {"tool_calls": calls}
            yield sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        done = {"index": 0, "delta": {}, "finish_reason": choice.get("finish_reason", "stop")}
        yield sse({**base, "choices": [done]})
        if include_usage and payload.get("usage") is not None:
            yield sse({**base, "choices": [], "usage": payload["usage"]})
        yield "data: [DONE]\n\n"


CHAT: Final = ChatCompletions()
"""OpenAI's Chat Completions."""
