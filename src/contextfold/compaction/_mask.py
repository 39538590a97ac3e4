"""Masking first: free room without a model call before summarizing.

With ``mask_tool_outputs`` set (:class:`~contextfold.strategies.MaskToolOutputs`), a
compaction attempt first masks old, large tool outputs in its snapshot. When that
alone brings the prompt under the target, the masked history is the plan (outcome
``masked``, no summarizer request). Otherwise the masked history is summarized (the
summarizer reads placeholders instead of the outputs, which makes it cheaper, and the
summary lists their handles). Either way the plan is committed in place of the
original snapshot, so the store's archive keeps the unmasked originals for recall.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from contextfold.compaction._engine import Options
from contextfold.compaction._plan import Plan, PromptEstimate
from contextfold.messages import Message
from contextfold.strategies import MaskToolOutputs

__all__ = ["plan_masking_first"]

Summarize = Callable[[list[Message], PromptEstimate], Awaitable[Plan | None]]
"""Plans a summary of a history sized by the given estimate (``_plan`` of the compactor)."""


async def plan_masking_first(
    mask: MaskToolOutputs | None,
    snapshot: list[Message],
    tokens: int,
    *,
    target: int,
    opts: Options,
    summarize: Summarize,
) -> Plan | None:
    """The plan for ``snapshot`` (whose prompt was ``tokens``): masked when that reaches
    ``target``, else ``summarize`` of the masked (or, with nothing to mask, the original)
    history; a masked plan still when the summary finds nothing to fold.

    Every plan is sized by the estimate anchored on ``snapshot`` and ``tokens``, the
    real prompt: anchoring anew on the masked history and its *estimated* size would
    fold the prompt outside the messages (system prompt, tools) into the scale, and a
    commit that appends more than the masked history holds would count that part again
    in proportion (the excess is re-anchored at every commit and grows)."""
    estimate = PromptEstimate.anchored(snapshot, tokens, opts)
    if mask is None:
        return await summarize(snapshot, estimate)
    masked = await mask.compact(snapshot)
    if masked is snapshot:
        return await summarize(snapshot, estimate)
    if estimate.scaled(masked) <= target:
        return Plan(masked, "masked", None, estimate)
    plan = await summarize(masked, estimate)
    return plan if plan is not None else Plan(masked, "masked", None, estimate)
