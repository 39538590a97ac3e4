"""Where a history may be cut in two without breaking it.

A cut at index ``i`` splits ``messages[:i]`` (to be summarized) from ``messages[i:]``
(kept). It is *safe* when no tool call made before ``i`` is still waiting for its
result at ``i``: the kept part then never starts with an orphan tool result, and a
pending tool call at the end of the history always stays in the kept part.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from contextfold.blocks import ContentBlock, ImageBlock, TextBlock, ToolResultBlock
from contextfold.messages import Message

__all__ = ["choose_cut", "head_tail", "safe_cut_points", "shrink_cut", "truncate_tool_outputs"]


def safe_cut_points(messages: Sequence[Message]) -> list[int]:
    """Every index ``1 <= i`` up to the last non-system message where a cut orphans no
    tool pair."""
    points: list[int] = []
    open_ids: set[str] = set()
    # Never cut past the last non-system message: the kept part must hold the turn the
    # model is answering, not only trailing system notes.
    last = max((i for i, m in enumerate(messages) if m.role != "system"), default=-1)
    for i, message in enumerate(messages):
        if 0 < i <= last and not open_ids:
            points.append(i)
        if message.role == "user":
            for result in message.tool_results:
                open_ids.discard(result.tool_use_id)
        elif message.role == "assistant":
            if message.content and not message.tool_uses:
                # A plain reply closes any call that was never answered (invalid input);
                # keep going rather than refusing to cut forever.
                open_ids.clear()
            open_ids.update(use.id for use in message.tool_uses)
    return points


def choose_cut(messages: Sequence[Message], keep_recent: int) -> int | None:
    """The cut that keeps about ``keep_recent`` messages, or ``None`` if there is none.

    Prefers keeping more (the latest safe cut at or before ``len - keep_recent``);
    when every such cut would summarize nothing, takes the earliest later safe cut.
    The part before the cut must hold at least one non-system message.
    """
    target = len(messages) - keep_recent
    if target <= 0:
        return None
    first_content = next((i for i, m in enumerate(messages) if m.role != "system"), None)
    if first_content is None:
        return None
    candidates = [p for p in safe_cut_points(messages) if p > first_content]
    if not candidates:
        return None
    earlier = [p for p in candidates if p <= target]
    return earlier[-1] if earlier else candidates[0]


def shrink_cut(messages: Sequence[Message], cut: int, fits: Callable[[int], bool]) -> int:
    """Move ``cut`` later (keeping fewer messages) until ``fits(cut)`` or no later safe cut."""
    for point in safe_cut_points(messages):
        if point <= cut:
            continue
        if fits(cut):
            break
        cut = point
    return cut


def head_tail(text: str, max_chars: int, marker: str) -> str:
    """``text`` cut to its head and tail around ``marker`` when longer than ``max_chars``."""
    if len(text) <= max_chars:
        return text
    keep = max(max_chars - len(marker), 0)
    head = keep // 2
    tail = keep - head
    return text[:head] + marker + (text[-tail:] if tail else "")


def truncate_tool_outputs(
    messages: Sequence[Message], max_chars: int, marker: str
) -> list[Message]:
    """Copies of ``messages`` whose tool-result texts are cut to ``max_chars`` (head + tail)."""
    out: list[Message] = []
    for message in messages:
        if not message.tool_results:
            out.append(message)
            continue
        blocks: list[ContentBlock] = []
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                if isinstance(block.content, str):
                    content: str | list[TextBlock | ImageBlock] = head_tail(
                        block.content, max_chars, marker
                    )
                else:
                    content = [
                        TextBlock(head_tail(p.text, max_chars, marker))
                        if isinstance(p, TextBlock)
                        else p
                        for p in block.content
                    ]
                block = ToolResultBlock(block.tool_use_id, content, block.is_error)
            blocks.append(block)
        out.append(Message(message.role, blocks))
    return out
