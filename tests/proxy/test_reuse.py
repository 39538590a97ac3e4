"""What the planner reuses between requests equals what it would compute afresh."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold.blocks import TextBlock, ToolUseBlock
from contextfold.compaction._cache import CachedSummary
from contextfold.dialects import CHAT, MESSAGES, RESPONSES
from contextfold.formats import from_openai
from contextfold.messages import Message
from contextfold.proxy._cache import chain_hashes
from contextfold.proxy._dialects import conversation
from contextfold.proxy._layout import Layouts, item_prefixes, shape
from contextfold.proxy._memo import HistoryMemo
from contextfold.proxy._reuse import SplicedChains, TokenCounts
from contextfold.tokens import approx_token_counter, count_tokens
from tests._proxy_upstream import openai_history


def test_token_counts_equal_a_fresh_count_as_a_history_grows() -> None:
    counts = TokenCounts(approx_token_counter, max_bytes=50_000)
    memo = HistoryMemo()
    wire = openai_history(3)
    for turn in range(12):
        messages = memo.parse(CHAT, "m", wire).messages
        assert counts.count(messages) == count_tokens(messages)
        assert counts.count(messages[5:]) == count_tokens(messages[5:])
        wire = [*wire, {"role": "assistant", "content": f"a{turn}" * 7}]
        wire.append({"role": "user", "content": "more " * turn})
    # equal but distinct objects: counted by value, never confused by id
    assert counts.count([Message.user("x" * 400)]) == count_tokens([Message.user("x" * 400)])


def test_prefix_totals_equal_a_fresh_count_growing_diverging_and_evicted() -> None:
    counts = TokenCounts(approx_token_counter, max_bytes=40_000)  # emptied along the way
    memo = HistoryMemo()
    wire = openai_history(3)
    for turn in range(90):  # grows past LOOKBACK messages between recorded totals
        messages = memo.parse(CHAT, "m", wire).messages
        chain = chain_hashes("m", messages)
        assert counts.through(messages, chain) == count_tokens(messages)
        for end in (0, 1, len(messages) // 2, len(messages) - 1):
            assert counts.through(messages, chain, end) == count_tokens(messages[:end])
        if turn % 10 == 9:  # an edit early on: every later prefix differs
            wire = [*wire[:2], {"role": "user", "content": f"edited {turn}"}, *wire[3:]]
        wire = [*wire, {"role": "assistant", "content": f"a{turn} " * (turn % 7)}]
        wire.append({"role": "user", "content": "more " * turn})


def test_spliced_chains_equal_fresh_hashes_and_continue_the_last_one() -> None:
    spliced = SplicedChains(max_bytes=12_000)  # about two chains
    wire = openai_history(6)
    head = [Message.system("sys"), Message.user("<summary>S</summary>"), Message.assistant("ok")]
    for grow in range(4):
        history = from_openai(wire)
        chain = chain_hashes("m", history)
        for cut in (5, 9):
            hit = CachedSummary(chain[cut], cut, "S")
            got = spliced.chain("m", head, history, chain, hit)
            assert got == chain_hashes("m", [*head, *history[cut:]])
        wire = [*wire, {"role": "assistant", "content": f"turn {grow}"}]
        wire.append({"role": "user", "content": "go on"})
    # a history that diverged before the end of the remembered one starts afresh
    other = from_openai([*openai_history(6)[:-1], {"role": "user", "content": "else"}])
    chain = chain_hashes("m", other)
    hit = CachedSummary(chain[5], 5, "S")
    assert spliced.chain("m", head, other, chain, hit) == chain_hashes("m", [*head, *other[5:]])


def test_memo_cuts_give_the_segments_a_parse_would_find() -> None:
    from tests._proxy_upstream import anthropic_history, responses_history

    for dialect, wire, system in (
        (CHAT, openai_history(5), None),
        (MESSAGES, anthropic_history(5), "sys"),
        (RESPONSES, responses_history(5), None),
    ):
        body: dict[str, object] = {"model": "m", dialect.history_key: wire}
        if system:
            body["system"] = system
        remembered = conversation(dialect, body, "m", HistoryMemo())
        fresh = conversation(dialect, body, "m")
        assert remembered.cuts == fresh.cuts
        assert len(remembered.cuts) > len(wire) // 2  # segments, not one piece
        for (w0, m0), (w1, m1) in zip(remembered.cuts, remembered.cuts[1:], strict=False):
            assert dialect.read(wire[w0:w1]) == remembered.messages[m0:m1]


_POOL = [Message.user("x" * n) for n in (0, 3, 40, 401)] + [
    Message("assistant", [TextBlock("\u4e2d" * 9)]),
    Message("assistant", [ToolUseBlock("t1", "f", {"a": [1, 2]})]),
]


@settings(max_examples=150, deadline=None)
@given(
    histories=st.lists(
        st.tuples(
            st.lists(st.integers(0, len(_POOL) - 1), max_size=150),
            st.lists(st.integers(0, 160), max_size=4),
            st.booleans(),
        ),
        min_size=1,
        max_size=8,
    ),
    max_bytes=st.integers(1, 300_000),
)
def test_prefix_totals_equal_a_fresh_count_for_any_sequence_of_histories(
    histories: list[tuple[list[int], list[int], bool]], max_bytes: int
) -> None:
    # repeats, shrinking, diverging and unrelated histories, shared or fresh objects,
    # tables evicted at any size
    counts = TokenCounts(approx_token_counter, max_bytes=max_bytes)
    for picks, ends, fresh in histories:
        messages = [
            Message(_POOL[i].role, list(_POOL[i].content)) if fresh else _POOL[i] for i in picks
        ]
        chain = chain_hashes("m", messages)
        for end in [*ends, len(messages)]:
            end = min(end, len(messages))
            assert counts.through(messages, chain, end) == count_tokens(messages[:end])
        assert counts.through(messages, chain) == count_tokens(messages)


_WIRE_POOL: list[dict[str, object]] = [
    {"role": "user", "content": "hi"},
    {"role": "user", "content": "hi there, a longer one"},
    {"role": "assistant", "content": "ok"},
    {"role": "system", "content": "rules"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "done"},
    {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(0, len(_WIRE_POOL) - 1), min_size=1, max_size=40),
        min_size=1,
        max_size=6,
    )
)
def test_the_memo_parses_any_sequence_of_histories_as_a_fresh_parse(
    picks: list[list[int]],
) -> None:
    # resends, extensions, shrinks, repeats and divergences (the memo's whole-history
    # try and its binary search): messages and hashes equal a fresh parse's
    memo = HistoryMemo()
    for i, chosen in enumerate(picks):
        base = [_WIRE_POOL[j] for j in chosen]
        wire = [*base, *base] if i % 3 == 2 else base  # the same messages twice
        try:
            fresh = HistoryMemo().parse(CHAT, "m", wire, seed=b"s")
        except ValueError as exc:
            with pytest.raises(ValueError, match=re.escape(str(exc))):
                memo.parse(CHAT, "m", wire, seed=b"s")
            continue
        parsed = memo.parse(CHAT, "m", wire, seed=b"s")
        assert parsed.messages == fresh.messages
        assert parsed.chain == fresh.chain == chain_hashes("m", fresh.messages)
        assert parsed.items == fresh.items == item_prefixes(wire, b"s")


def test_item_digests_from_the_memo_equal_a_fresh_shapes_as_histories_change() -> None:
    # grown, resent, edited early, edited late, shortened, branched back, another
    # tenant, model and system prompt: the digests the layout rules read, taken from the
    # memo's remembered prefix, are those of the request's own items hashed afresh
    from tests._proxy_upstream import anthropic_history, responses_history

    for dialect, start, outside in (
        (CHAT, openai_history(6), None),
        (MESSAGES, anthropic_history(6), "sys"),
        (RESPONSES, responses_history(6), "be brief"),
    ):
        memo = HistoryMemo()
        grown = [*start, *start[1:3]]
        edited_early = [start[0], {**start[1], "content": "edited"}, *start[2:]]
        edited_late = [*start[:-1], {**start[-1], "content": "edited"}]
        histories = [start, grown, grown, edited_early, edited_late, start[:3], start, grown]
        for wire, model, tenant, system in [
            *((h, "m", "t", outside) for h in histories),
            (grown, "m", "other", outside),
            (grown, "m2", "t", outside),
            (grown, "m", "t", None if outside else "sys"),
        ]:
            body: dict[str, object] = {"model": model, dialect.history_key: wire}
            if system is not None and dialect.outside_key is not None:
                body[dialect.outside_key] = system
            conv = conversation(dialect, body, model, memo, tenant)
            fresh = shape(dialect, wire, model, dialect.outside(body), tenant)
            assert conv.items == list(fresh.chain)


def test_a_layout_decided_on_the_memos_digests_is_the_one_decided_afresh() -> None:
    # the same requests, one planner's layouts fed the memo's digests and the other's
    # hashed afresh, decide alike: an opening, its appends, a rewritten tail, a resend
    wire = openai_history(4)
    requests = [
        wire,
        [*wire, {"role": "assistant", "content": "a"}, {"role": "user", "content": "b"}],
        [*wire[:-1], {"role": "user", "content": "moved"}, {"role": "user", "content": "c"}],
        wire,
    ]
    memo, remembered, afresh = HistoryMemo(), Layouts(), Layouts()
    for items in requests:
        conv = conversation(CHAT, {"model": "m", "messages": items}, "m", memo, "t")
        ours = remembered.decide(shape(CHAT, items, "m", None, "t", conv.items))
        assert ours == afresh.decide(shape(CHAT, items, "m", None, "t"))
