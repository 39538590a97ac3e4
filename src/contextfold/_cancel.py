"""Steps that a cancellation must not cut in two.

A coroutine awaiting work done elsewhere — a call on aiosqlite's worker thread, a
command already sent to a server — can be cancelled while that work goes on: the
work still happens, only its outcome is lost. For a step that takes or gives back a
lock, or opens or closes a transaction, a lost outcome is a lock nobody releases or
a transaction nobody closes. :func:`finish` awaits such a step to its end whatever
cancels the caller meanwhile, lets the caller undo it, and only then passes the
cancellation on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["finish"]

logger = logging.getLogger("contextfold")

T = TypeVar("T")


async def finish(step: Awaitable[T], *, undo: Callable[[T], Awaitable[object]] | None = None) -> T:
    """Await ``step`` to its end even if the caller is cancelled meanwhile.

    ``step`` runs as a task of its own, which the caller's cancellation does not reach.
    Without a cancellation, this returns ``step``'s result or raises its error. When the
    caller is cancelled (once or more) while ``step`` runs, this keeps waiting until it
    ends; then, if it succeeded and ``undo`` is given, runs ``undo(result)`` to its end
    the same way (a failure of ``undo`` is logged); and then raises the caller's
    :class:`asyncio.CancelledError`. The caller therefore never sees a cancellation
    while the step's effect is half known. If ``step`` itself ends cancelled, that
    cancellation is raised as is.
    """
    task = asyncio.ensure_future(step)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        if task.cancelled():  # the step itself was cancelled: nothing to wait for or undo
            raise
        # The caller was cancelled, while the step ran or just as it ended (its result
        # may already be in): either way the step's effect has to be settled here.
        await _wait_out(task)
        if undo is not None and not task.cancelled() and task.exception() is None:
            undoing = asyncio.ensure_future(undo(task.result()))
            await _wait_out(undoing)
            if not undoing.cancelled() and (exc := undoing.exception()) is not None:
                logger.warning("could not undo a step cut short by cancellation: %r", exc)
        elif not task.cancelled():
            task.exception()  # retrieved: the cancellation outranks the step's own error
        raise


async def _wait_out(task: asyncio.Future[Any]) -> None:
    """Wait until ``task`` is done, riding out any cancellation of the caller meanwhile.

    The caller re-raises the cancellation it is handling once this returns; further
    cancellation requests stay counted on the task (``cancelling()``), so a timeout
    above it still tells its own expiry from someone else's cancellation.
    """
    while not task.done():
        try:
            await asyncio.wait([task])
        except asyncio.CancelledError:
            continue
