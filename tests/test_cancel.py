"""``finish``: a step awaited to its end through cancellation, undone, then cancelled."""

from __future__ import annotations

import asyncio

import pytest

from contextfold._cancel import finish


class Step:
    """A step that ends when told to, and records whether it was undone."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.ended = False
        self.undone = 0

    async def run(self, fail: bool = False) -> str:
        self.started.set()
        await self.release.wait()
        self.ended = True
        if fail:
            raise RuntimeError("the step failed")
        return "done"

    async def undo(self, result: str) -> None:
        assert result == "done"
        await asyncio.sleep(0)
        self.undone += 1


async def test_without_cancellation_it_is_the_step() -> None:
    step = Step()
    step.release.set()
    assert await finish(step.run(), undo=step.undo) == "done"
    assert step.undone == 0
    with pytest.raises(RuntimeError, match="the step failed"):
        await finish(step.run(fail=True), undo=step.undo)


async def test_a_cancelled_caller_waits_for_the_step_undoes_it_then_is_cancelled() -> None:
    step = Step()
    task = asyncio.create_task(finish(step.run(), undo=step.undo))
    await step.started.wait()
    task.cancel()
    await asyncio.sleep(0.05)
    assert not task.done()  # still waiting for the step
    task.cancel()  # a second cancellation changes nothing
    await asyncio.sleep(0.05)
    assert not task.done()
    step.release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert step.ended
    assert step.undone == 1


async def test_a_failed_step_is_not_undone_and_the_cancellation_wins() -> None:
    step = Step()
    task = asyncio.create_task(finish(step.run(fail=True), undo=step.undo))
    await step.started.wait()
    task.cancel()
    step.release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert step.ended
    assert step.undone == 0


async def test_a_step_that_ends_as_the_caller_is_cancelled_is_undone() -> None:
    # The step's result is in (its callbacks not yet run) when the cancellation comes.
    done: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    step = Step()
    task = asyncio.create_task(finish(done, undo=step.undo))
    await asyncio.sleep(0)  # the caller now awaits the step
    done.set_result("done")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert step.undone == 1


async def test_a_step_cancelled_by_itself_is_raised_as_is() -> None:
    step = Step()

    async def cancels_itself() -> None:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await finish(cancels_itself(), undo=step.undo)
    assert step.undone == 0


async def test_a_timeout_above_still_tells_its_expiry_from_another_cancellation() -> None:
    step = Step()

    async def under_a_timeout() -> None:
        async with asyncio.timeout(0.05):
            await finish(step.run(), undo=step.undo)

    asyncio.get_running_loop().call_later(0.15, step.release.set)
    with pytest.raises(TimeoutError):  # only the timeout cancelled it
        await under_a_timeout()
    assert step.undone == 1
    step = Step()
    task = asyncio.create_task(under_a_timeout())
    await asyncio.sleep(0.1)  # the timeout has fired; now someone else cancels too
    task.cancel()
    step.release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
