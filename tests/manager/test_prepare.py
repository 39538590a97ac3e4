"""CompactingContextManager prepares its summaries in the background (issue 14).

Budget 3,000 tokens: views compact past 2,400 (0.8), summaries are prepared past 1,800
(prepare_threshold 0.6).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from contextfold.compaction import CompactionSettings
from contextfold.formats import from_openai
from contextfold.manager import CompactingContextManager
from contextfold.manager._config import read_config
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from contextfold.validation import validate_history
from tests._faces import manager_arguments
from tests.manager.test_manager import SUMMARY, Recorder, Wire, conversation, tokens_of, tool_round

PREPARE_AT, THRESHOLD = 1_800, 2_400


class GatedSummarizer(FunctionTransport):
    """Answers summary requests only once ``release`` is set (or fails, if told to)."""

    def __init__(self, *, fail: bool = False, cancelled_error: bool = False) -> None:
        self.started, self.release = asyncio.Event(), asyncio.Event()
        self.fail = fail
        self.cancelled_error = cancelled_error
        super().__init__(self._reply)

    async def _reply(self, request: StubRequest) -> StubResponse:
        self.started.set()
        await self.release.wait()
        if self.cancelled_error:  # raised on its own: nothing cancelled the preparation
            raise asyncio.CancelledError
        if self.fail:
            return make_text_response("")  # rejected: an empty summary
        return make_text_response(SUMMARY)


async def grow(manager: CompactingContextManager, history: list[Wire], past: int) -> None:
    """Add rounds to ``history`` (and the manager) until it is past ``past`` tokens."""
    while tokens_of(history) <= past:
        for wire in tool_round(len(history)):
            history.append(wire)
            await manager.add_message(wire)


def outcomes(hooks: Recorder, event: str, key: str) -> list[Any]:
    return [data[key] for name, data in hooks.events if name == event]


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def crossed(
    summary: FunctionTransport, **options: Any
) -> tuple[CompactingContextManager, Recorder, list[Wire]]:
    """A manager whose history just crossed the prepare point (and got its whole view)."""
    hooks = Recorder()
    manager = CompactingContextManager(
        **manager_arguments(
            max_tokens=3_000, transport=summary, hooks=hooks, keep_recent=4, **options
        )
    )
    history = conversation(2)
    for wire in history:
        await manager.add_message(wire)
    await grow(manager, history, PREPARE_AT)
    assert tokens_of(history) <= THRESHOLD
    view = await asyncio.wait_for(manager.get_messages_for_request(), 1)
    assert view == history  # under the threshold: the stored dicts, unchanged
    return manager, hooks, history


async def test_a_prepare_share_over_a_low_threshold_prepares_at_80_percent_of_it() -> None:
    """compaction_threshold 0.5 of 3,000 is 1,500, under the default 0.6 share: the
    summary is prepared past 0.8 x 1,500 = 1,200 instead of never."""
    summary = GatedSummarizer()
    hooks = Recorder()
    manager = CompactingContextManager(
        max_tokens=3_000,
        compaction_threshold=0.5,
        transport=summary,
        hooks=hooks,
        keep_recent=4,
    )
    history = conversation(2)
    for wire in history:
        await manager.add_message(wire)
    await grow(manager, history, 1_200)
    assert tokens_of(history) <= 1_500
    assert await asyncio.wait_for(manager.get_messages_for_request(), 1) == history
    await asyncio.wait_for(summary.started.wait(), 5)
    summary.release.set()
    await settle()
    assert outcomes(hooks, "context:prepared", "outcome") == ["prepared"]


async def test_the_crossing_request_gets_its_view_at_once_and_a_summary_is_prepared() -> None:
    summary = GatedSummarizer()
    _, hooks, _ = await crossed(summary)
    await asyncio.wait_for(summary.started.wait(), 5)  # being prepared, in the background
    assert outcomes(hooks, "context:prepared", "outcome") == []
    summary.release.set()
    await settle()
    assert outcomes(hooks, "context:prepared", "outcome") == ["prepared"]
    prepared = hooks.events[-1][1]
    assert prepared["summarizer_requests"] == 1
    assert prepared["threshold_tokens"] == THRESHOLD
    assert outcomes(hooks, "context:post_compact", "summary") == []  # nothing compacted yet


async def test_the_first_view_over_the_threshold_uses_the_prepared_summary() -> None:
    summary = GatedSummarizer()
    summary.release.set()
    manager, hooks, history = await crossed(summary)
    await settle()
    assert len(summary.requests) == 1
    # Still under the threshold: whole, the prepared summary is not used early.
    assert await manager.get_messages_for_request() == history
    await grow(manager, history, THRESHOLD)
    view = await manager.get_messages_for_request()
    assert len(summary.requests) == 1  # no model call at the threshold
    assert outcomes(hooks, "context:post_compact", "summary") == ["prepared"]
    messages = from_openai(view)
    validate_history(messages)
    assert SUMMARY in messages[1].text  # after the system prompt
    assert view[-4:] == history[-4:]
    assert tokens_of(view) <= THRESHOLD
    assert await manager.get_messages() == history  # the stored history is whole
    # Later views reuse it from the cache.
    await manager.get_messages_for_request()
    assert outcomes(hooks, "context:post_compact", "summary")[-1] == "cached"
    assert len(summary.requests) == 1


async def test_a_view_over_the_threshold_does_not_wait_for_the_preparation() -> None:
    summary = GatedSummarizer()
    manager, hooks, history = await crossed(summary)
    await asyncio.wait_for(summary.started.wait(), 5)
    await grow(manager, history, THRESHOLD)
    view = await asyncio.wait_for(manager.get_messages_for_request(), 1)
    assert outcomes(hooks, "context:post_compact", "summary") == ["preparing"]
    assert tokens_of(view) <= THRESHOLD  # the strategies fit it meanwhile
    validate_history(from_openai(view))
    assert len(summary.requests) == 1  # no second summary
    summary.release.set()
    await settle()
    await manager.get_messages_for_request()
    assert outcomes(hooks, "context:post_compact", "summary")[-1] == "prepared"
    assert len(summary.requests) == 1


async def test_a_failed_preparation_falls_back_to_a_summary_at_the_threshold() -> None:
    summary = GatedSummarizer(fail=True)
    summary.release.set()
    manager, hooks, history = await crossed(summary)
    await settle()
    assert outcomes(hooks, "context:prepared", "outcome") == ["failed"]
    assert "SummaryRejectedError" in hooks.events[-1][1]["error"]
    await manager.get_messages_for_request()
    await settle()
    assert len(summary.requests) == 1  # not prepared again
    summary.fail = False
    await grow(manager, history, THRESHOLD)
    await manager.get_messages_for_request()
    assert outcomes(hooks, "context:post_compact", "summary") == ["new"]


async def test_a_preparation_whose_summarizer_raises_cancelled_error_is_a_failed_one() -> None:
    summary = GatedSummarizer(cancelled_error=True)
    summary.release.set()
    manager, hooks, history = await crossed(summary)
    await settle()
    assert outcomes(hooks, "context:prepared", "outcome") == ["failed"]
    assert "CancelledError" in hooks.events[-1][1]["error"]
    await manager.get_messages_for_request()
    await settle()
    assert len(summary.requests) == 1  # not prepared again
    summary.cancelled_error = False
    await grow(manager, history, THRESHOLD)
    await manager.get_messages_for_request()
    assert outcomes(hooks, "context:post_compact", "summary") == ["new"]


@pytest.mark.parametrize(
    "options",
    [
        {"prepare_threshold": None},
        {"settings": CompactionSettings(threshold=0.8, prepare_threshold=None)},
        {"prepare_threshold": 0.9},  # at or above the threshold: never
        read_config({"prepare_threshold": None}).options,
    ],
    ids=["keyword", "settings", "above", "mount-config"],
)
async def test_preparation_off(options: dict[str, Any]) -> None:
    summary = GatedSummarizer()
    summary.release.set()
    _, hooks, _ = await crossed(summary, **options)
    await settle()
    assert summary.requests == []
    assert outcomes(hooks, "context:prepared", "outcome") == []


async def test_prepare_threshold_comes_from_settings_and_mount_config() -> None:
    assert CompactingContextManager().prepare_threshold == 0.6
    settings = CompactionSettings(threshold=0.8, prepare_threshold=0.5)
    assert CompactingContextManager(settings=settings).prepare_threshold == 0.5
    options = read_config({"prepare_threshold": 0.4}).options
    assert CompactingContextManager(**manager_arguments(**options)).prepare_threshold == 0.4


async def test_closing_cancels_a_preparation_in_flight() -> None:
    summary = GatedSummarizer()
    manager, hooks, _ = await crossed(summary)
    await asyncio.wait_for(summary.started.wait(), 5)
    await asyncio.wait_for(manager.aclose(), 5)
    assert outcomes(hooks, "context:prepared", "outcome") == []


async def test_clearing_forgets_the_prepared_summary() -> None:
    summary = GatedSummarizer()
    summary.release.set()
    manager, hooks, history = await crossed(summary)
    await settle()
    assert outcomes(hooks, "context:prepared", "outcome") == ["prepared"]
    await manager.clear()
    for wire in history:
        await manager.add_message(wire)
    await grow(manager, history, THRESHOLD)
    await manager.get_messages_for_request()
    assert outcomes(hooks, "context:post_compact", "summary") == ["new"]  # made afresh
    assert len(summary.requests) == 2
