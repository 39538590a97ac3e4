"""Background preparation: a summary made ahead of the limit, committed when it is reached.

Where preparation starts (:func:`prepare_point`) is the same rule in every face. In
:class:`~contextfold.compaction.AutoCompactStore`, when the prompt crosses it, one
background task plans a compaction of a snapshot
(:func:`~contextfold.compaction._plan.plan_compaction`); the call that noticed returns
at once. When the prompt then crosses the limit, the ready plan (:class:`Prepared`) is
spliced in without a model call: everything appended after the snapshot stays after
it. A plan whose snapshot is no longer a prefix of the history (a clear, a rewrite by
another process) is discarded, never committed. The task and the ready plan are kept
in the scheduler's table (:class:`~contextfold.compaction._scheduler.Preparations`),
as every face's are.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from contextfold.compaction._plan import Plan
from contextfold.messages import Message
from contextfold.transports.base import Usage

__all__ = ["FALLBACK_SHARE", "Prepared", "prepare_point"]

FALLBACK_SHARE = 0.8
"""Where preparation starts, as a share of the limit, when ``prepare_threshold`` is not
below the limit (a low ``threshold``, a small ``max_tokens``)."""


def prepare_point(share: float | None, scale: int, limit: int) -> int | None:
    """The prompt size past which a summary is prepared: ``share × scale`` (``scale`` is
    the context window, or the manager's budget), or :data:`FALLBACK_SHARE` of ``limit``
    when that is not below it, so that a low compaction threshold does not silently
    switch preparation off; ``None`` when ``share`` is ``None`` (off)."""
    if share is None:
        return None
    value = int(share * scale)
    return value if value < limit else int(limit * FALLBACK_SHARE)


@dataclass(frozen=True, slots=True)
class Prepared:
    """A plan ready to commit: the snapshot it replaces and what it cost."""

    snapshot: list[Message]
    plan: Plan
    usage: Usage
    requests: int
    made_at: float = field(default_factory=time.monotonic)
