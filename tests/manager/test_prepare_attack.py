"""CompactingContextManager preparation under schedules its first tests did not choose.

The setup is tests/manager/test_prepare.py's: budget 3,000, threshold 2,400, prepare
point 1,800.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from contextfold.testing import FunctionTransport, StubRequest, StubResponse
from tests.manager.test_manager import conversation
from tests.manager.test_prepare import (
    PREPARE_AT,
    THRESHOLD,
    GatedSummarizer,
    crossed,
    grow,
    outcomes,
    settle,
)


async def test_set_messages_during_a_preparation_never_uses_the_old_summary() -> None:
    summary = GatedSummarizer()
    manager, hooks, _ = await crossed(summary)
    await asyncio.wait_for(summary.started.wait(), 5)
    other = conversation(3)
    other[1] = {**other[1], "content": "a different first request"}
    await manager.set_messages(other)
    summary.release.set()
    await settle()
    await grow(manager, other, THRESHOLD)
    await manager.get_messages_for_request()
    assert "prepared" not in outcomes(hooks, "context:post_compact", "summary")


async def test_clear_during_a_preparation_cancels_it() -> None:
    summary = GatedSummarizer()
    manager, hooks, _ = await crossed(summary)
    await asyncio.wait_for(summary.started.wait(), 5)
    await manager.clear()
    summary.release.set()
    await settle()
    assert outcomes(hooks, "context:prepared", "outcome") == []
    fresh = conversation(2)
    for wire in fresh:
        await manager.add_message(wire)
    await grow(manager, fresh, PREPARE_AT)
    await manager.get_messages_for_request()
    await settle()
    assert outcomes(hooks, "context:prepared", "outcome") == ["prepared"]
    await manager.aclose()


class Broken(FunctionTransport):
    """A summarizer whose transport has a defect: it raises something unexpected."""

    def __init__(self) -> None:
        super().__init__(self._reply)
        self.calls = 0

    async def _reply(self, request: StubRequest) -> StubResponse:
        self.calls += 1
        raise RuntimeError("a defect in the transport")


async def test_a_preparation_that_raises_unexpectedly_is_reported_and_not_retried_per_request(
    caplog: pytest.LogCaptureFixture,
) -> None:
    summary = Broken()
    with caplog.at_level(logging.WARNING, "contextfold"):
        manager, hooks, _ = await crossed(summary)
        await settle()
        for _ in range(5):  # more requests past the prepare point, under the threshold
            await manager.get_messages_for_request()
            await settle()
    assert summary.calls == 1  # not a paid call per request
    assert outcomes(hooks, "context:prepared", "outcome") == ["failed"]
    assert "RuntimeError: a defect in the transport" in caplog.text  # logged, as a warning
    assert "never retrieved" not in caplog.text
    await manager.aclose()
