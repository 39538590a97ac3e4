"""Background preparation: a summary made ahead of the limit, committed when it is reached.

When the prompt crosses ``prepare_threshold`` of the window,
:class:`~contextfold.compaction.AutoCompactStore` starts one background task that plans
a compaction of a snapshot (:func:`~contextfold.compaction._plan.plan_compaction`); the
call that noticed returns at once. When the prompt then crosses the limit, the ready
plan is spliced in without a model call: everything appended after the snapshot stays
after it. A plan whose snapshot is no longer a prefix of the history (a clear, a
rewrite by another process) is discarded, never committed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from contextfold.compaction._plan import Plan
from contextfold.messages import Message
from contextfold.transports.base import Usage

__all__ = ["FALLBACK_SHARE", "Preparation", "Prepared", "prepare_point"]

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


class Preparation:
    """At most one preparation in flight per session, and at most one plan ready."""

    def __init__(self) -> None:
        self.ready: Prepared | None = None
        self.closed = False
        self._task: asyncio.Task[None] | None = None
        # Every preparation not ended yet, including one that finished preparing and
        # goes on to commit: close() ends them all.
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self, work: Callable[[], Awaitable[None]]) -> bool:
        """Run ``work()`` in the background unless a preparation runs or a plan is ready."""
        if self.closed or self.running or self.ready is not None:
            return False
        self._task = asyncio.ensure_future(work())
        self._tasks.add(self._task)
        self._task.add_done_callback(self._tasks.discard)
        return True

    async def wait(self, seconds: float | None) -> None:
        """Wait up to ``seconds`` for the preparation in flight (if any) to finish."""
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait([task], timeout=seconds)

    def finish(self) -> None:
        """Called by the preparation itself when its work is done (it may go on to
        commit, which must not wait for it)."""
        self._task = None

    def take(self) -> Prepared | None:
        """The ready plan, handed over once."""
        prepared, self.ready = self.ready, None
        return prepared

    async def cancel(self) -> None:
        """Cancel the preparation in flight, if any (the history it reads is gone)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait([task])

    async def close(self) -> None:
        """Cancel the preparations in flight and start none again (the store is closing)."""
        self.closed = True
        self._task = None
        tasks = [task for task in self._tasks if not task.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
