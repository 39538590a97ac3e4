"""Head + tail truncation of long text and tool outputs.

The result of cutting is always exactly ``max_chars`` characters of text: the first
``(max_chars - len(marker)) // 2`` characters, ``marker``, then the last characters.
Text already within ``max_chars`` is returned unchanged (the same object), which makes
cutting idempotent: a cut output is exactly at the limit and is never cut again.
"""

from __future__ import annotations

from contextfold.blocks import ImageBlock, TextBlock, ToolResultBlock

__all__ = ["truncate_result", "truncate_text"]


def _budgets(total: int, max_chars: int, marker: str) -> tuple[int, int]:
    """Head and tail lengths to keep from ``total`` characters."""
    keep = max_chars - len(marker)
    if keep < 0:
        raise ValueError(f"max_chars ({max_chars}) is shorter than the marker ({len(marker)})")
    head = keep // 2
    return head, keep - head


def truncate_text(text: str, max_chars: int, marker: str) -> str:
    """``text`` cut to head + ``marker`` + tail if longer than ``max_chars``, else ``text``."""
    if len(text) <= max_chars:
        return text
    head, tail = _budgets(len(text), max_chars, marker)
    return text[:head] + marker + text[len(text) - tail :]


def truncate_result(block: ToolResultBlock, max_chars: int, marker: str) -> ToolResultBlock:
    """``block`` with its text cut to ``max_chars`` characters in all, or ``block`` itself.

    For list content the text of every :class:`TextBlock` counts together: the head is
    taken from the first blocks, the tail from the last ones, the marker joins them
    inside the block where the head ends, and blocks wholly inside the cut middle are
    dropped. Images are kept in place. ``tool_use_id`` and ``is_error`` are unchanged.
    """
    content = block.content
    if isinstance(content, str):
        cut = truncate_text(content, max_chars, marker)
        if cut is content:
            return block
        return ToolResultBlock(block.tool_use_id, cut, block.is_error)

    total = sum(len(part.text) for part in content if isinstance(part, TextBlock))
    if total <= max_chars:
        return block
    head, tail = _budgets(total, max_chars, marker)
    tail_from = total - tail  # text offsets [head, tail_from) are dropped
    parts: list[TextBlock | ImageBlock] = []
    offset = 0
    marked = False
    for part in content:
        if isinstance(part, ImageBlock):
            parts.append(part)
            continue
        start, end = offset, offset + len(part.text)
        offset = end
        kept = part.text[: max(0, min(end, head) - start)]
        if not marked and end > head:
            kept += marker
            marked = True
        kept += part.text[max(0, tail_from - start) :] if end > tail_from else ""
        if kept:
            parts.append(TextBlock(kept))
    return ToolResultBlock(block.tool_use_id, parts, block.is_error)
