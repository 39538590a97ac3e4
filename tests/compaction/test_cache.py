"""The summary cache's entry (:mod:`contextfold.compaction._cache`), shared by the proxy
and the context manager."""

from __future__ import annotations

import dataclasses

import pytest

from contextfold.blocks import TextBlock
from contextfold.compaction._cache import CachedSummary
from contextfold.manager._persist import decode_record, encode_summary
from contextfold.messages import Message

SYSTEM = Message("system", [TextBlock("be brief")])
SUMMARY = Message("user", [TextBlock("[summary] the first ten messages")])


def test_a_proxy_entry_holds_the_prefix_the_count_and_the_text() -> None:
    entry = CachedSummary("h10", 10, "the first ten messages")
    assert (entry.prefix_hash, entry.message_count, entry.summary) == (
        "h10",
        10,
        "the first ten messages",
    )
    assert (entry.head, entry.floor, entry.refs) == ((), None, ())


def test_entries_are_equal_by_value_and_frozen() -> None:
    entry = CachedSummary(b"\x01" * 32, 4, "s")
    assert entry == CachedSummary(b"\x01" * 32, 4, "s")
    assert entry != CachedSummary(b"\x01" * 32, 4, "s", floor=100)
    assert hash(entry) == hash(CachedSummary(b"\x01" * 32, 4, "s"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.summary = "other"  # type: ignore[misc]


def test_head_in_without_refs_is_the_head() -> None:
    entry = CachedSummary(b"d", 3, "s", (SYSTEM, SUMMARY))
    assert entry.head_in([], 0) == (SYSTEM, SUMMARY)


def test_head_in_takes_referenced_messages_from_the_history() -> None:
    reloaded = Message("system", [TextBlock("be brief")])  # equal, but the history's own
    entry = CachedSummary(b"d", 3, "s", (SYSTEM, SUMMARY), refs=(0, None))
    head = entry.head_in([reloaded, SUMMARY, SUMMARY], 2)
    assert head == (SYSTEM, SUMMARY)
    assert head[0] is reloaded
    assert head[1] is SUMMARY


def test_head_in_ignores_refs_past_the_summarized_prefix() -> None:
    entry = CachedSummary(b"d", 3, "s", (SYSTEM, SUMMARY), refs=(2, None))
    later = Message("system", [TextBlock("not before the cut")])
    assert entry.head_in([SUMMARY, SUMMARY, later], 2)[0] is SYSTEM


def test_the_manager_persists_an_entry_and_reads_it_back() -> None:
    entry = CachedSummary(bytes(range(32)), 7, "s", (SYSTEM, SUMMARY), floor=900, refs=(0, None))
    assert decode_record(encode_summary(entry), "session", 0) == entry
