"""Whole histories to and from the wire dialects: OpenAI chat and Responses, Anthropic Messages.

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
    * An assistant's ``content`` of ``""`` next to ``tool_calls`` (what many SDKs
      send) is read as no content, like ``null``. A tool call of a type other than
      ``function`` (a custom tool's) is an opaque block paired by its id, answered by
      its ``tool`` message like any call, and written back into ``tool_calls``.
    * Thinking blocks are dropped (OpenAI never produced them); an
      incoming ``reasoning_content`` field becomes a :class:`ThinkingBlock`.
    * Assistant text comes before its tool calls.

Anthropic Messages
    * ``system`` and the system messages that open the history form the top-level
      ``system`` parameter (joined by a blank line).
    * A ``system`` message inside ``messages`` (Claude Code sends one) is read as a
      system message. A later system message is written as a user turn whose one
      text block reads ``"<system>\\n...\\n</system>"``, or, when it sits between a
      tool call and its result, as that text block after the tool results.
      :func:`from_anthropic` turns such blocks back into system messages.

OpenAI Responses (``input`` item lists)
    * Consecutive assistant-side items (``reasoning``, ``function_call``, assistant
      ``message``) form one assistant message; consecutive ``function_call_output``
      items one user message of tool results; ``developer`` messages are system
      messages. A string ``input`` is one user message; ``instructions`` a leading
      system message.
    * Reasoning items are read as :class:`~contextfold.blocks.ThinkingBlock` s and
      never written: replay them only from the items the client sent.
    * Tool errors carry :data:`TOOL_ERROR_PREFIX` as in OpenAI chat; text or images
      next to tool results in one user message follow them as a user message of
      their own. Item types
      beyond messages, function calls and their outputs, and reasoning (hosted tool
      calls, MCP items, custom tool calls, ``item_reference``), files and images by
      URL or file id raise :class:`ValueError`.

Content nobody models here (a block, part or item type, an image by URL or file id,
a message of an unknown role) is never refused: it is read as an
:class:`~contextfold.blocks.OpaqueBlock` holding the JSON object as it came (a whole
message of an unknown role as a system message holding one opaque block of kind
``"message"``). Writers for the same dialect put it back unchanged; writers for
another dialect write its :meth:`~contextfold.blocks.OpaqueBlock.placeholder` as
text. Only malformed JSON of a modelled type (a ``text`` block without ``text``, a
role that is not a string) raises :class:`ValueError`.

The room: :mod:`._chat` (OpenAI Chat Completions), :mod:`._responses` (OpenAI
Responses) and :mod:`._messages` (Anthropic Messages); this package is the public
face and keeps the documented losses. Only ``formats`` and the provider transports
know a provider's JSON. It imports only the ground (``blocks``, ``messages``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from contextfold.blocks import OpaqueBlock, TextBlock, ToolResultBlock
from contextfold.formats._chat import DIALECT as OPENAI
from contextfold.formats._chat import (
    TOOL_ERROR_PREFIX,
    assistant_from_openai,
    assistant_to_openai,
    fold_tool_images,
    only_results,
    openai_parts,
    tool_from_openai,
    user_to_openai,
)

# Not in __all__: the OpenAI transport parses streamed tool calls with it.
from contextfold.formats._chat import parse_openai_tool_call as parse_openai_tool_call
from contextfold.formats._messages import DIALECT as ANTHROPIC
from contextfold.formats._messages import (
    block_to_anthropic,
    blocks_from_anthropic,
    split_notes,
    system_note,
)
from contextfold.formats._responses import from_responses, to_responses
from contextfold.messages import Message

__all__ = [
    "TOOL_ERROR_PREFIX",
    "from_anthropic",
    "from_openai",
    "from_responses",
    "split_system",
    "to_anthropic",
    "to_openai",
    "to_responses",
]


def _plain_text(message: Message) -> str:
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
    return "\n\n".join(_plain_text(m) for m in messages[:lead]), list(messages[lead:])


# ---------------------------------------------------------------- OpenAI chat


def to_openai(messages: Sequence[Message], system: str | None = None) -> list[dict[str, Any]]:
    """``messages`` (with ``system`` first, when given) as OpenAI chat message dicts."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    deferred: list[dict[str, Any]] = []  # system messages waiting for pending tool results
    for message in messages:
        whole = whole_message(message, OPENAI)
        if whole is not None:
            out.append(whole)
            continue
        match message.role:
            case "system":
                wire = {"role": "system", "content": _plain_text(message)}
                awaiting = bool(out) and out[-1]["role"] == "assistant" and "tool_calls" in out[-1]
                if deferred or awaiting:
                    deferred.append(wire)
                else:
                    out.append(wire)
            case "assistant":
                out += deferred
                deferred = []
                out.append(assistant_to_openai(message))
            case "user":
                results, rest = user_to_openai(message)
                out += results + deferred + rest
                deferred = []
    return out + deferred


def from_openai(messages: Sequence[Mapping[str, Any]]) -> list[Message]:
    """Parse OpenAI chat message dicts into messages (see the module doc for the mapping).

    Parts of unknown types, images by URL and messages of unknown roles are carried as
    :class:`~contextfold.blocks.OpaqueBlock` s (see the module doc).
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
                out.append(Message("system", openai_parts(wire.get("content"), index)))
            case "assistant":
                out.append(assistant_from_openai(wire, index))
            case "tool":
                result = tool_from_openai(wire, index)
                if out and out[-1].role == "user" and only_results(out[-1]):
                    out[-1].content.append(result)
                else:
                    out.append(Message("user", [result]))
            case "user":
                blocks = openai_parts(wire.get("content"), index)
                if out and only_results(out[-1]) and fold_tool_images(out[-1], blocks):
                    continue
                out.append(Message("user", blocks))
            case None:
                raise ValueError(f"message {index} is missing field 'role'")
            case str():
                out.append(unknown_role(wire, OPENAI))
            case _:
                raise ValueError(f"message {index} field 'role' must be a string")
    return out


# ---------------------------------------------------------- Anthropic Messages


def to_anthropic(
    messages: Sequence[Message], system: str | None = None, *, lift: bool = True
) -> tuple[str | None, list[dict[str, Any]]]:
    """``(system, messages)`` for the Messages API (see the module doc for system messages).

    Thinking blocks are included with their signatures (``redacted_thinking`` for
    redacted ones): only send them back to Anthropic. ``lift=False`` writes the
    system messages that open ``messages`` as notes too, for a part of a history
    placed after others.
    """
    lead, rest = split_system(messages) if lift else (None, list(messages))
    top = "\n\n".join(s for s in (system, lead) if s) or None
    out: list[dict[str, Any]] = []
    deferred: list[dict[str, Any]] = []  # system notes waiting for pending tool results
    for message in rest:
        whole = whole_message(message, ANTHROPIC)
        if whole is not None:
            out.append(whole)
            continue
        if message.role == "system":
            note = system_note(_plain_text(message))
            awaiting = bool(out) and any(b["type"] == "tool_use" for b in out[-1]["content"])
            if awaiting and out[-1]["role"] == "assistant":
                deferred.append(note)
            else:
                out.append({"role": "user", "content": [note]})
            continue
        blocks = [block_to_anthropic(b) for b in message.content]
        if deferred:
            cut = sum(1 for b in blocks if b["type"] == "tool_result")
            blocks[cut:cut] = deferred
            deferred = []
        out.append({"role": message.role, "content": blocks})
    if deferred:
        out.append({"role": "user", "content": deferred})
    return top, out


def from_anthropic(
    messages: Sequence[Mapping[str, Any]], system: str | Sequence[Mapping[str, Any]] | None = None
) -> list[Message]:
    """Parse Messages API dicts (and the top-level ``system``) into messages.

    A non-empty ``system`` (a string or a list of text blocks) becomes the first,
    system message; ``<system>`` notes written by :func:`to_anthropic` and messages of
    role ``system`` become system messages. Blocks of unknown types and messages of
    unknown roles are carried as :class:`~contextfold.blocks.OpaqueBlock` s (see the
    module doc); malformed ones raise :class:`ValueError`.
    """
    out: list[Message] = []
    if isinstance(system, str) and system:
        out.append(Message.system(system))
    elif system:
        blocks = blocks_from_anthropic(system, "system")
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
        if not isinstance(role, str):
            raise ValueError(f"message {index} field 'role' must be a string")
        if role not in ("user", "assistant", "system"):
            out.append(unknown_role(wire, ANTHROPIC))
            continue
        blocks = blocks_from_anthropic(wire.get("content"), f"message {index}")
        if role == "system":
            out.append(Message("system", blocks))
            continue
        if role == "user":
            notes, others = split_notes(blocks)
            # Only two shapes are notes: a message of notes alone, or tool results
            # followed by the notes that waited for them.
            if notes and (not others or all(isinstance(b, ToolResultBlock) for b in others)):
                out += [Message.system(note) for note in notes]
                if others:
                    out.append(Message("user", others))
                continue
        out.append(Message("user" if role == "user" else "assistant", blocks))
    return out


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
