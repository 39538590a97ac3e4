"""CompactionSettings: one set of settings shared by AutoCompactStore, the manager and the proxy."""

from __future__ import annotations

import dataclasses

import pytest

from contextfold import (
    AutoCompactStore,
    CompactingContextManager,
    CompactionSettings,
    MemoryContextStore,
    ModelInfo,
)
from contextfold.testing import StubTransport
from tests.compaction.test_compaction import SUMMARY, alternating, summarizer


def test_settings_are_frozen_and_checked() -> None:
    settings = CompactionSettings(keep_recent=4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.keep_recent = 5  # type: ignore[misc]
    for bad in (
        {"threshold": 0},
        {"threshold": 1.5},
        {"threshold": "0.5"},
        {"keep_recent": 0},
        {"keep_recent": True},
        {"target_ratio": 1},
        {"max_tokens": 0},
        {"max_backoff": -1},
        {"max_summary_tokens": 10},
        {"kept_tool_chars": 63},
        {"counter": "tiktoken"},
        {"proactive": "false"},
        {"cache_friendly": 0},
    ):
        with pytest.raises(ValueError, match=next(iter(bad))):
            CompactionSettings(**bad)  # type: ignore[arg-type]


def test_settings_copy_what_they_are_given() -> None:
    variables: dict[str, object] = {"project": "x"}
    settings = CompactionSettings(prompt_vars=variables)
    variables["project"] = "y"
    assert settings.prompt_vars == {"project": "x"}


def test_replace_skips_keywords_that_were_not_given() -> None:
    base = CompactionSettings(keep_recent=3, threshold=0.6)
    assert base.replace(keep_recent=None, threshold=None) is base
    changed = base.replace(keep_recent=8, threshold=None)
    assert (changed.keep_recent, changed.threshold) == (8, 0.6)


async def test_store_takes_settings_and_keywords_win() -> None:
    transport = StubTransport(model=ModelInfo("m", 10_000, 1_000))
    settings = CompactionSettings(keep_recent=4, threshold=0.5, max_backoff=3)
    store = AutoCompactStore(MemoryContextStore(), transport, settings=settings, keep_recent=2)
    assert store.settings == dataclasses.replace(settings, keep_recent=2)
    assert store.keep_recent == 2
    assert store.limit == 5_000  # threshold 0.5 of the window, from settings


async def test_fork_keeps_settings_summarizer_and_hooks() -> None:
    events: list[object] = []
    summary = summarizer()
    store = AutoCompactStore(
        MemoryContextStore(alternating(12)),
        StubTransport(model=ModelInfo("m", 10_000, 1_000)),
        settings=CompactionSettings(keep_recent=4),
        summary_transport=summary,
        on_event=events.append,
    )
    forked = await store.fork()
    assert forked.settings == store.settings
    assert forked.summary_transport is summary
    assert await forked.compact()
    history = await forked.get_history()
    assert SUMMARY in history[0].text
    assert len(history) <= 6
    assert events  # the fork reports through the same hooks
    assert len(await store.get_history()) == 12  # the original is untouched


async def test_the_manager_takes_the_same_settings() -> None:
    settings = CompactionSettings(keep_recent=3, threshold=0.5, target_ratio=0.25)
    manager = CompactingContextManager(settings=settings, max_tokens=2_000)
    assert (manager.keep_recent, manager.compaction_threshold, manager.target_ratio) == (
        3,
        0.5,
        0.25,
    )
    assert CompactingContextManager(settings=settings, keep_recent=5).keep_recent == 5
    assert CompactingContextManager().compaction_threshold == 0.8  # its own default


def test_the_proxy_takes_the_same_settings() -> None:
    from contextfold.proxy import create_app

    create_app(settings=CompactionSettings(keep_recent=2, threshold=0.5))
    with pytest.raises(ValueError, match="threshold"):
        create_app(settings=(CompactionSettings()).replace(threshold=2.0))
