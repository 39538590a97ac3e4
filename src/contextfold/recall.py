"""Recall: nothing is lost for good.

:class:`~contextfold.strategies.MaskToolOutputs` and compaction take content out of
the live history; the stores keep it in their archive
(:class:`~contextfold.stores.base.Archiving`). This module gives it back, by *handle*:

* ``out-…`` names one tool output (a masked placeholder shows it; a summary lists the
  large outputs it replaced);
* ``msgs-…`` names the whole run of messages a summary replaced (the summary lists it).

:func:`recall` reads one page of an original; :func:`recall_tool` wraps it in an
:class:`~contextfold.agent.Tool` named ``recall`` the model calls itself::

    agent = Agent(system, transport, tools=[*my_tools, recall_tool(store)])

A page holds at most ``max_chars`` characters (:data:`DEFAULT_MAX_CHARS` by default);
a longer original ends its page with a line giving the ``offset`` that continues it.
Handles are derived from content (see :mod:`contextfold._masking` for the format), so
they keep working after a restart on the SQLite, PostgreSQL and Redis stores. A lookup
reads the session's archive (cost grows with the archive, paid only when the model
recalls).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from contextfold._masking import find_output, find_range, output_text
from contextfold.agent import Tool, ToolOutput
from contextfold.blocks import ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.errors import RecallError
from contextfold.messages import Message
from contextfold.stores.base import ArchivedMessage, Archiving, ContextStore

__all__ = [
    "DEFAULT_MAX_CHARS",
    "RECALL_DESCRIPTION",
    "RECALL_SCHEMA",
    "RECALL_TOOL_NAME",
    "Recalled",
    "recall",
    "recall_archived",
    "recall_tool",
]

DEFAULT_MAX_CHARS = 8_000
"""The most characters one recall answer holds (a page of the original)."""

RECALL_TOOL_NAME = "recall"
"""The name of the tool :func:`recall_tool` makes (and the proxy adds with ``recall=True``)."""

RECALL_DESCRIPTION = (
    "Fetch the original content of something earlier in this conversation that was "
    "shortened to save room: a masked tool output (handle out-...) or a range of "
    "messages a summary replaced (handle msgs-...). Long originals come in pages: "
    "call again with the offset the answer gives to read on."
)

RECALL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "handle": {"type": "string", "description": "the handle, e.g. out-3f9a2b7c41d0"},
        "offset": {
            "type": "integer",
            "description": "character offset to read from (default 0)",
        },
    },
    "required": ["handle"],
}
"""The recall tool's input schema (JSON Schema)."""


@dataclass(frozen=True, slots=True)
class Recalled:
    """One page of an archived original.

    ``text`` is ``original[offset : offset + max_chars]``; ``next_offset`` is where the
    next page starts, ``None`` on the last page. ``images`` holds the images of a tool
    output, on its first page only.
    """

    handle: str
    text: str
    offset: int
    total_chars: int
    next_offset: int | None
    images: tuple[ImageBlock, ...] = ()

    def render(self) -> ToolOutput:
        """The page as a tool output: the text, a continuation line, then any images."""
        text = self.text
        if self.next_offset is not None:
            text += (
                f"\n[recall: {self.next_offset - self.offset} of {self.total_chars} chars "
                f"shown; call recall with handle {self.handle} and offset {self.next_offset} "
                "to read on]"
            )
        if not self.images:
            return text
        return [TextBlock(text), *self.images]


def render_range(messages: list[Message]) -> str:
    """A readable transcript of archived messages (the text form recall returns)."""
    lines: list[str] = []
    for message in messages:
        parts: list[str] = []
        for block in message.content:
            match block:
                case TextBlock(text=text):
                    parts.append(text)
                case ToolUseBlock(id=id_, name=name, input=input_):
                    parts.append(f"[tool call {name} {dict(input_)} id={id_}]")
                case ToolResultBlock() as result:
                    parts.append(f"[tool result id={result.tool_use_id}]\n{output_text(result)}")
                case ImageBlock(media_type=media_type):
                    parts.append(f"[image {media_type}]")
                case _:
                    continue  # thinking is never replayed out of its turn
        lines.append(f"{message.role}: " + "\n".join(parts))
    return "\n\n".join(lines)


def _check_page(offset: object, max_chars: object) -> None:
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise ValueError(f"offset must be a non-negative integer, got {offset!r}")
    if not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 1:
        raise ValueError(f"max_chars must be a positive integer, got {max_chars!r}")


async def recall(
    store: ContextStore, handle: str, *, offset: int = 0, max_chars: int = DEFAULT_MAX_CHARS
) -> Recalled:
    """One page of the original named by ``handle``, read from ``store``'s archive.

    Raises :class:`~contextfold.errors.RecallError` when the archive holds nothing
    under that handle or the store keeps no archive, and :class:`ValueError` for a
    negative ``offset`` or a ``max_chars`` below 1. An ``offset`` past the end gives an
    empty last page.
    """
    _check_page(offset, max_chars)
    handle = str(handle).strip()
    try:
        archive = await store.get_archive() if isinstance(store, Archiving) else None
    except TypeError:  # a wrapper around a store that keeps no archive
        archive = None
    if archive is None:
        raise RecallError(
            f"{type(store).__name__} keeps no archive, so {handle!r} cannot be recalled",
            handle=handle,
        )
    return recall_archived(archive, handle, offset=offset, max_chars=max_chars)


def recall_archived(
    archive: Sequence[ArchivedMessage],
    handle: str,
    *,
    offset: int = 0,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Recalled:
    """:func:`recall` over an archive already read (the proxy reads the client's own
    history as one). Raises :class:`~contextfold.errors.RecallError` for a handle the
    archive does not hold."""
    _check_page(offset, max_chars)
    handle = str(handle).strip()
    images: tuple[ImageBlock, ...] = ()
    output = find_output(archive, handle)
    if output is not None:
        original = output_text(output)
        if not isinstance(output.content, str):
            images = tuple(p for p in output.content if isinstance(p, ImageBlock))
    else:
        messages = find_range(archive, handle)
        if messages is None:
            raise RecallError(
                f"no archived original has the handle {handle!r}; use a handle exactly as a "
                "masked tool output or a summary's recallable list shows it",
                handle=handle,
            )
        original = render_range(messages)
    end = min(offset + max_chars, len(original))
    start = min(offset, len(original))
    return Recalled(
        handle=handle,
        text=original[start:end],
        offset=start,
        total_chars=len(original),
        next_offset=end if end < len(original) else None,
        images=images if start == 0 else (),
    )


def recall_tool(store: ContextStore, *, max_chars: int = DEFAULT_MAX_CHARS) -> Tool:
    """The ``recall`` tool over ``store``'s archive, for an :class:`~contextfold.agent.Agent`.

    The model passes ``handle`` (and ``offset`` to read on); the answer is one page of
    at most ``max_chars`` characters (see :class:`Recalled`). An unknown handle, or a
    store that keeps no archive, comes back as an error result
    (``ToolResultBlock(is_error=True)``) the model reads; the turn goes on.
    """
    if not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 1:
        raise ValueError(f"max_chars must be a positive integer, got {max_chars!r}")

    async def handler(input: dict[str, Any]) -> ToolOutput:
        offset = input.get("offset") or 0
        page = await recall(store, str(input["handle"]), offset=offset, max_chars=max_chars)
        return page.render()

    return Tool(RECALL_TOOL_NAME, RECALL_DESCRIPTION, RECALL_SCHEMA, handler)
