"""``finish``: a step awaited to its end through cancellation, undone, then cancelled."""

from __future__ import annotations

import asyncio

import pytest

from contextfold._cancel import cancelled, carried_interrupt, carry, finish, joined


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


async def test_cancelled_tells_a_cancellation_of_this_task_from_a_raised_error() -> None:
    seen: list[bool] = []

    async def body(own: bool) -> None:
        try:
            if own:
                await asyncio.Event().wait()
            raise asyncio.CancelledError  # raised by the code awaited, nobody cancelled
        except asyncio.CancelledError:
            seen.append(cancelled())
            raise

    task = asyncio.create_task(body(own=True))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with pytest.raises(asyncio.CancelledError):
        await asyncio.create_task(body(own=False))
    assert seen == [True, False]
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.01):
            await asyncio.Event().wait()
    assert not cancelled()  # an expired timeout withdrew its cancellation


@pytest.mark.parametrize("kind", [KeyboardInterrupt, SystemExit])
def test_an_interrupt_carried_out_of_a_task_is_raised_as_itself_by_who_joins_it(
    kind: type[BaseException],
) -> None:
    seen: list[str] = []

    async def interrupted() -> None:
        await asyncio.sleep(0)
        raise kind()

    async def main() -> None:
        task = asyncio.ensure_future(carry(interrupted()))
        try:
            await joined(task)
        except BaseException as exc:
            seen.append(type(exc).__name__)
        assert carried_interrupt(task).__class__ is kind
        await asyncio.sleep(0.01)  # the loop goes on
        seen.append("loop still running")

    try:
        asyncio.run(main())
    except BaseException as exc:
        seen.append(f"escaped the loop: {type(exc).__name__}")
    assert seen == [kind.__name__, "loop still running"]


async def test_joined_is_the_task_otherwise() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    async def fail() -> None:
        await asyncio.sleep(0)
        raise ValueError("an ordinary error")

    task = asyncio.ensure_future(carry(answer()))
    assert await joined(task) == 42
    assert carried_interrupt(task) is None
    failing = asyncio.ensure_future(carry(fail()))
    with pytest.raises(ValueError, match="an ordinary error"):
        await joined(failing)
    assert carried_interrupt(failing) is None
