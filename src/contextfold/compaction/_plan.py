"""What one compaction attempt would commit, decided on a snapshot of the history.

:func:`plan_compaction` summarizes (or, when there is nothing left to summarize, cuts
kept tool outputs) without touching any store; the caller commits the plan with a
splice. A plan made ahead of the limit (background preparation) is committed the same
way, later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from contextfold._history import omit_tool_images, truncate_tool_outputs
from contextfold.compaction._engine import CompactionResult, Options, compact_history
from contextfold.compaction._summarizer import KEPT_TRUNCATION_MARKER, Summarizer
from contextfold.messages import Message
from contextfold.tokens import count_tokens
from contextfold.transports.base import CompletionTransport

__all__ = ["Plan", "PromptEstimate", "count_scale", "plan_compaction"]


def count_scale(tokens: int, counted: int) -> float:
    """How many real (or estimated) tokens one counted token stands for: ``tokens``
    over ``counted``, held between 0.5 and 4 (1 when nothing was counted)."""
    return min(max(tokens / counted, 0.5), 4.0) if counted else 1.0


@dataclass(frozen=True, slots=True)
class PromptEstimate:
    """Prompt sizes of message lists, anchored on one real (or estimated) prompt size.

    The real prompt is its messages plus a fixed part (system prompt, tools) that a
    count of the messages cannot see: :meth:`scaled` scales the count to the real
    size (what compaction controls); :meth:`__call__` keeps the fixed part instead of
    scaling it away (the conservative estimate a new anchor needs).
    """

    opts: Options
    fixed: int
    scale: float

    @classmethod
    def anchored(cls, snapshot: Sequence[Message], tokens: int, opts: Options) -> PromptEstimate:
        counted = count_tokens(snapshot, opts.counter)
        scale = count_scale(tokens, counted) if tokens else 1.0
        return cls(opts, max(tokens - counted, 0), scale)

    def scaled(self, messages: Sequence[Message]) -> int:
        return int(count_tokens(messages, self.opts.counter) * self.scale)

    def __call__(self, messages: Sequence[Message]) -> int:
        n = count_tokens(messages, self.opts.counter)
        return max(int(n * self.scale), self.fixed + n)


@dataclass(frozen=True, slots=True)
class Plan:
    """The messages to splice in place of the snapshot, and how they were made."""

    messages: list[Message]
    outcome: Literal["compacted", "truncated", "masked"]
    result: CompactionResult | None
    estimate: PromptEstimate


async def plan_compaction(
    snapshot: list[Message],
    estimate: PromptEstimate,
    *,
    target: int,
    transport: CompletionTransport,
    opts: Options,
    summarizer: Summarizer,
    require_smaller: bool = True,
    answered: Callable[[], object] | None = None,
) -> Plan | None:
    """Summarize ``snapshot`` (sized by ``estimate``) toward ``target`` tokens.

    ``estimate`` is anchored on the real prompt of the history ``snapshot`` was made
    from (:meth:`PromptEstimate.anchored`); ``snapshot`` may be a masked copy of it.

    Returns ``None`` when nothing can be freed: nothing new to summarize and no kept
    tool output to cut (text, or images beyond what fits), or the history already under
    ``target``. The caller bounds the run in time (the scheduler's ``summary_timeout``).
    A summary that does not make the history smaller is rejected unless
    ``require_smaller`` is false; ``answered`` is called when the summary came back
    and its fact ledger goes to a thread (see :func:`~._engine.compact_history`).
    """
    result = await compact_history(
        snapshot,
        transport,
        opts,
        target_tokens=target,
        scale=estimate.scale,
        summarizer=summarizer,
        system_budget=min(opts.max_summary_tokens // 2, target // 8),
        words_fixed=estimate.fixed,
        require_smaller=require_smaller,
        answered=answered,
    )
    if result is not None:
        return Plan(result.messages, "compacted", result, estimate)
    # Nothing to summarize; if the history is still over the target, cutting its tool
    # outputs (their text, then the oldest of their images) is the only room left.
    cut = truncate_tool_outputs(snapshot, opts.kept_tool_chars, KEPT_TRUNCATION_MARKER)
    cut = omit_tool_images(cut, lambda view: estimate.scaled(view) <= target)
    if estimate.scaled(snapshot) <= target or cut == snapshot:
        return None
    return Plan(cut, "truncated", None, estimate)
