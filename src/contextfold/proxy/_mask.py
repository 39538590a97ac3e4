"""Masking first in the proxy (``CompactionSettings(mask_tool_outputs=...)``).

A request over its model's limit is first masked: old, large tool outputs of the
history the proxy would forward (with a cached summary spliced in, if any) become
placeholders with a recall handle (:class:`~contextfold.strategies.MaskToolOutputs`).
When that alone brings the estimate under the limit, the masked history is forwarded
and no summary is made; otherwise the request is summarized as without masking.
Nothing is stored: the client resends the originals with every request, and masking
is deterministic, so the next request masks the same outputs the same way (the
provider's prompt cache stays valid up to the newest masked output). Such a response
says ``x-contextfold-compacted: true`` with ``x-contextfold-summary: none`` (or
``cached``); with ``recall=True`` the model can read the originals back
(:mod:`._recall`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from contextfold.messages import Message
from contextfold.proxy._dialects import Conversation, Rebuilt, rebuild
from contextfold.strategies import MaskToolOutputs

__all__ = ["masked_body"]


async def masked_body(
    mask: MaskToolOutputs,
    conv: Conversation,
    effective: list[Message],
    base: int,
    limit: int,
    estimate: Callable[[Sequence[Message]], int],
) -> tuple[Rebuilt, list[Message], int] | None:
    """``(body, masked history, its estimate)`` to forward instead of summarizing, or
    ``None`` when masking changes nothing or does not get ``effective`` under ``limit``.

    ``effective`` is ``conv.messages`` with the first ``base`` of them replaced by a
    summary head (``base`` is 0 when no summary is spliced in).
    """
    masked = await mask.compact(effective)
    if masked is effective:
        return None
    tokens = estimate(masked)
    if tokens > limit:
        return None
    return rebuild(conv, masked), masked, tokens
