"""Cancellation and interruption across awaits and tasks.

* Steps that a cancellation must not cut in two. A coroutine awaiting work done
  elsewhere — a call on aiosqlite's worker thread, a command already sent to a server —
  can be cancelled while that work goes on: the work still happens, only its outcome is
  lost. For a step that takes or gives back a lock, or opens or closes a transaction, a
  lost outcome is a lock nobody releases or a transaction nobody closes. :func:`finish`
  awaits such a step to its end whatever cancels the caller meanwhile, lets the caller
  undo it, and only then passes the cancellation on.
* A :class:`asyncio.CancelledError` nobody asked for. Some libraries raise it on their
  own (an internal timeout that leaks it): :func:`cancelled` tells a cancellation of
  the running task (``Task.cancelling()``, Python 3.11+) from such an error, which the
  caller then handles as a failure like any other.
* A :class:`KeyboardInterrupt` or :class:`SystemExit` raised inside a task of ours
  stops the event loop, and the coroutine awaiting that task sees only a
  :class:`~asyncio.CancelledError`. :func:`carry` runs such work so that the task ends
  with the interruption wrapped in an ordinary exception (the loop goes on), and
  :func:`joined` re-raises it, as itself, in the awaiting coroutine (with nobody left
  awaiting, :func:`carried_interrupt` gives it back to be raised where it stops the
  loop, as it would have).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["cancelled", "carried_interrupt", "carry", "finish", "joined"]

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


def cancelled() -> bool:
    """Whether the running task is being cancelled (a cancellation request not yet
    withdrawn by ``uncancel()``, as ``asyncio.timeout`` does when it expires).

    A :class:`asyncio.CancelledError` caught while this is ``False`` was raised by the
    code awaited, not by a cancellation of this task.
    """
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class _Interrupted(Exception):
    """A :class:`KeyboardInterrupt` or :class:`SystemExit` on its way out of a task."""

    def __init__(self, interrupt: BaseException) -> None:
        super().__init__(f"{type(interrupt).__name__} in a task")
        self.interrupt = interrupt


async def carry(work: Awaitable[T]) -> T:
    """Await ``work``, turning a :class:`KeyboardInterrupt` or :class:`SystemExit` it
    raises into an ordinary exception, so that a task running this ends with it (the
    event loop goes on) and :func:`joined` can re-raise it to whoever awaits the task."""
    try:
        return await work
    except (KeyboardInterrupt, SystemExit) as exc:
        raise _Interrupted(exc) from None


async def joined(task: asyncio.Future[T]) -> T:
    """Await ``task`` shielded (cancelling the caller does not cancel it), re-raising a
    :class:`KeyboardInterrupt` or :class:`SystemExit` it carried (:func:`carry`) as itself."""
    try:
        return await asyncio.shield(task)
    except _Interrupted as carried:
        interrupt = carried.interrupt
    raise interrupt


def carried_interrupt(task: asyncio.Future[Any]) -> BaseException | None:
    """The :class:`KeyboardInterrupt` or :class:`SystemExit` that ``task`` (done) ended
    with through :func:`carry`, or ``None``."""
    if task.cancelled():
        return None
    exc = task.exception()
    return exc.interrupt if isinstance(exc, _Interrupted) else None
