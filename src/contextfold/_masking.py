"""Masked tool outputs and recall handles: the one implementation behind recall.

A *handle* names something a history rewrite took out of the live history, so the
model can ask for it back (:mod:`contextfold.recall`). Handles are derived from
content alone, so the same original gets the same handle in every run and process,
and no table maps handles to anything: the originals are found by recomputing handles
over the store's archive (:meth:`~contextfold.stores.base.Archiving.get_archive`).

* ``out-`` + 12 hex digits names one tool output: the first 12 hex digits of the
  SHA-256 of the JSON array ``[tool_use_id, content, is_error]`` (content as in
  :func:`contextfold.blocks.to_dict`, compact separators, UTF-8 with lone surrogates
  passed through).
* ``msgs-`` + 8 + 8 hex digits names a summarized range: the first 8 hex digits of the
  SHA-256 of its first message's JSON (:meth:`Message.to_dict`, each tool result's
  content replaced by its ``out-`` handle, so a masked message and its original
  agree) followed by those of its last message. The range found is the archived run
  from the first archived copy of the first message to the last copy of the last,
  inside one rewrite (the latest that archived both).

A masked tool output keeps its ``tool_use_id`` and ``is_error``; its content becomes
one string::

    [masked tool output: handle=out-3f9a2b7c41d0 read_file {"path":"a.py"}, 48213 chars, 1020 lines]
    <the first head_chars characters of the output>
    [... 47913 more chars: call the recall tool with handle out-3f9a2b7c41d0 for the original]

Only a string of that whole shape (the same handle twice, the head and the chars
left out adding up to at most the size given) counts as a placeholder: a tool
output that merely starts like one is masked, and listed, under its own handle.

Imports only the ground and the contracts.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from contextfold._history import split_rounds
from contextfold.blocks import ContentBlock, ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.blocks import to_dict as block_to_dict
from contextfold.messages import Message
from contextfold.stores.base import ArchivedMessage

__all__ = [
    "RECALLABLE_CHARS",
    "RECALLABLE_HEADER",
    "Recallable",
    "find_output",
    "find_range",
    "mask_outputs",
    "mask_result",
    "masked_handle",
    "output_handle",
    "output_text",
    "range_handle",
    "recallable_section",
    "without_recallable",
]

RECALLABLE_CHARS = 1_000
"""Tool outputs of at least this many characters are listed as recallable in summaries."""

RECALLABLE_HEADER = "Recallable originals (the recall tool returns them by handle):"
"""The line that opens the recallable list appended to a summary."""

MAX_LISTED = 24
"""A summary lists at most this many recallable outputs (the newest)."""

_PLACEHOLDER = re.compile(
    r"\[masked tool output: handle=(out-[0-9a-f]{12}) ([^\n]*, ([0-9]+) chars, [0-9]+ lines"
    r"(?:, [0-9]+ image\(s\))?(?:, an error)?)\]\n(.*)\n\[\.\.\. ([0-9]+) more chars: call the "
    r"recall tool with handle \1 for the original\]",
    re.DOTALL,
)
_OUTPUT = re.compile(r"out-[0-9a-f]{12}")
_RANGE = re.compile(r"msgs-([0-9a-f]{8})([0-9a-f]{8})")
_ARGS_CHARS = 80


def _digest(payload: object) -> str:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def output_handle(block: ToolResultBlock) -> str:
    """The stable handle of a tool output (see the module docstring)."""
    content = block_to_dict(block)["content"]
    return "out-" + _digest([block.tool_use_id, content, block.is_error])[:12]


def _message_digest(message: Message) -> str:
    """The digest a range handle is made of: a tool output counts by its handle, so a
    message and its masked form (archived and summarized copies) digest alike."""
    if any(isinstance(block, ToolResultBlock) for block in message.content):
        message = Message(
            message.role,
            [
                ToolResultBlock(block.tool_use_id, masked_handle(block) or output_handle(block))
                if isinstance(block, ToolResultBlock)
                else block
                for block in message.content
            ],
        )
    return _digest(message.to_dict())[:8]


def range_handle(messages: Sequence[Message]) -> str:
    """The stable handle of a run of messages (see the module docstring); non-empty."""
    return f"msgs-{_message_digest(messages[0])}{_message_digest(messages[-1])}"


def output_text(block: ToolResultBlock) -> str:
    """The text of a tool output (the text blocks of list content joined by newlines)."""
    content = block.content
    if isinstance(content, str):
        return content
    return "\n".join(part.text for part in content if isinstance(part, TextBlock))


def masked_handle(block: ToolResultBlock) -> str | None:
    """The handle a masked placeholder names, or ``None`` when ``block`` is not one."""
    found = _placeholder(block)
    return found.group(1) if found else None


def _placeholder(block: ToolResultBlock) -> re.Match[str] | None:
    """The parts of ``block`` when it is a whole placeholder (its head cut further,
    e.g. by :class:`~contextfold.strategies.TruncateToolOutputs`, still is one): an
    output that only starts like one (a forged or quoted first line) is not."""
    content = block.content
    found = _PLACEHOLDER.fullmatch(content) if isinstance(content, str) else None
    if found is None or len(found.group(4)) + int(found.group(5)) > int(found.group(3)):
        return None
    return found


def _brief_call(call: ToolUseBlock | None) -> str:
    if call is None:
        return "tool output"
    args = json.dumps(dict(call.input), ensure_ascii=False, separators=(",", ":"), default=str)
    if len(args) > _ARGS_CHARS:
        args = args[: _ARGS_CHARS - 3] + "..."
    return f"{call.name} {args}"


def describe(block: ToolResultBlock, call: ToolUseBlock | None) -> str:
    """One line: the call in brief (tool name, arguments cut to 80 chars) and the size."""
    text = output_text(block)
    images = sum(isinstance(p, ImageBlock) for p in block.content) if block.content else 0
    size = f"{len(text)} chars, {text.count(chr(10)) + 1 if text else 0} lines"
    if images:
        size += f", {images} image(s)"
    if block.is_error:
        size += ", an error"
    return " ".join(f"{_brief_call(call)}, {size}".split())


def mask_result(
    block: ToolResultBlock, call: ToolUseBlock | None, head_chars: int
) -> ToolResultBlock:
    """The placeholder of ``block`` (see the module docstring); ``block`` itself when the
    placeholder would not be shorter, or when it already is one."""
    if masked_handle(block) is not None:
        return block
    text = output_text(block)
    handle = output_handle(block)
    head = text[:head_chars]
    placeholder = (
        f"[masked tool output: handle={handle} {describe(block, call)}]\n"
        f"{head}\n[... {len(text) - len(head)} more chars: call the recall tool with handle "
        f"{handle} for the original]"
    )
    if len(placeholder) >= len(text):
        return block
    return ToolResultBlock(block.tool_use_id, placeholder, block.is_error)


def _calls(messages: Sequence[Message]) -> dict[str, ToolUseBlock]:
    return {
        block.id: block
        for message in messages
        if message.role == "assistant"
        for block in message.content
        if isinstance(block, ToolUseBlock)
    }


def mask_outputs(
    messages: list[Message], *, keep_rounds: int, min_chars: int, head_chars: int
) -> list[Message]:
    """``messages`` with tool outputs of at least ``min_chars`` characters outside the
    last ``keep_rounds`` rounds masked; the same list object when nothing changed."""
    split = split_rounds(messages)
    if len(split) <= keep_rounds:
        return messages
    stop = split.starts[len(split) - keep_rounds]
    calls: dict[str, ToolUseBlock] | None = None
    result: list[Message] | None = None
    for index in range(stop):
        message = messages[index]
        if message.role != "user":
            continue
        content: list[ContentBlock] | None = None
        for position, block in enumerate(message.content):
            if not isinstance(block, ToolResultBlock) or len(output_text(block)) < min_chars:
                continue
            if calls is None:
                calls = _calls(messages)
            masked = mask_result(block, calls.get(block.tool_use_id), head_chars)
            if masked is not block:
                content = content if content is not None else list(message.content)
                content[position] = masked
        if content is not None:
            result = result if result is not None else list(messages)
            result[index] = Message(message.role, content)
    return messages if result is None else result


@dataclass(frozen=True, slots=True)
class Recallable:
    """One line of a summary's recallable list."""

    handle: str
    description: str

    def render(self) -> str:
        return f"- {self.handle}: {self.description}"


def _listed(body: Sequence[Message]) -> list[Recallable]:
    calls = _calls(body)
    found: list[Recallable] = []
    for message in body:
        for block in message.content:
            if not isinstance(block, ToolResultBlock):
                continue
            placeholder = _placeholder(block)
            if placeholder is not None:
                found.append(Recallable(placeholder.group(1), placeholder.group(2)))
            elif len(output_text(block)) >= RECALLABLE_CHARS:
                call = calls.get(block.tool_use_id)
                found.append(Recallable(output_handle(block), describe(block, call)))
    return found


def _previous_entries(previous: str | None) -> list[Recallable]:
    if not previous or RECALLABLE_HEADER not in previous:
        return []
    section = previous.rsplit(RECALLABLE_HEADER, 1)[1]
    entries = []
    for line in section.splitlines():
        handle, _, description = line.removeprefix("- ").partition(": ")
        if line.startswith("- ") and (_OUTPUT.fullmatch(handle) or _RANGE.fullmatch(handle)):
            entries.append(Recallable(handle, description))
    return entries


def recallable_section(summary: str, body: Sequence[Message], previous: str | None = None) -> str:
    """``summary`` followed by the list of what the summarized ``body`` replaced.

    The list names the whole range (a ``msgs-`` handle), every masked output and every
    tool output of at least :data:`RECALLABLE_CHARS` characters in ``body``, after the
    entries listed by the ``previous`` summary (at most :data:`MAX_LISTED` outputs, the
    newest). ``summary`` is returned unchanged when ``body`` holds no such output and
    ``previous`` listed nothing; a list the summarizer copied into ``summary`` is
    replaced, never repeated (what it wrote before and after that list stays).
    """
    entries = _previous_entries(previous)
    outputs = _listed(body)
    if not outputs and not entries:
        return summary
    conversation = [m for m in body if m.role != "system"]
    if conversation:
        count = len(conversation)
        entries.append(
            Recallable(range_handle(conversation), f"the {count} messages this summary replaced")
        )
    entries.extend(outputs)
    by_handle: dict[str, Recallable] = {}
    for entry in entries:
        by_handle.setdefault(entry.handle, entry)
    unique = list(by_handle.values())
    ranges = [e for e in unique if e.handle.startswith("msgs-")][-MAX_LISTED // 3 :]
    listed = [e for e in unique if e.handle.startswith("out-")][-MAX_LISTED:]
    lines = [RECALLABLE_HEADER, *(e.render() for e in [*ranges, *listed])]
    return without_recallable(summary) + "\n\n" + "\n".join(lines)


def without_recallable(summary: str) -> str:
    """``summary`` without any recallable list copied into it (the header and its
    entries); whatever the summarizer wrote around such a list stays. For a summary
    shown where no recall tool is offered."""
    kept: list[str] = []
    listing = False
    for line in summary.splitlines():
        if line.strip() == RECALLABLE_HEADER:
            listing = True
            continue
        handle = line.removeprefix("- ").partition(": ")[0]
        if (
            listing
            and line.startswith("- ")
            and (_OUTPUT.fullmatch(handle) or _RANGE.fullmatch(handle))
        ):
            continue
        if listing and not line.strip() and (not kept or not kept[-1].strip()):
            continue  # the blank line that set the list apart
        listing = False
        kept.append(line)
    return "\n".join(kept).rstrip()


def find_output(archive: Sequence[ArchivedMessage], handle: str) -> ToolResultBlock | None:
    """The archived tool output whose handle is ``handle`` (the latest copy), or ``None``."""
    if not _OUTPUT.fullmatch(handle):
        return None
    for entry in reversed(archive):
        for block in entry.message.content:
            if isinstance(block, ToolResultBlock) and output_handle(block) == handle:
                return block
    return None


def find_range(archive: Sequence[ArchivedMessage], handle: str) -> list[Message] | None:
    """The archived run of messages named by a ``msgs-`` ``handle``, or ``None``: in the
    latest rewrite that archived both, from the first copy of its first message to the
    last copy of its last (messages repeat: a range that ends with a prompt given
    every round ends with its last copy, not the first)."""
    found = _RANGE.fullmatch(handle)
    if found is None:
        return None
    first, last = found.groups()
    digests = [_message_digest(entry.message) for entry in archive]
    rewrites = {a.compaction for a, d in zip(archive, digests, strict=True) if d == first}
    for rewrite in sorted(rewrites, reverse=True):
        run = [i for i, entry in enumerate(archive) if entry.compaction == rewrite]
        start = next(i for i in run if digests[i] == first)
        stops = [i for i in run if i >= start and digests[i] == last]
        if stops:
            return [archive[i].message for i in run if start <= i <= stops[-1]]
    return None
