"""The proxy's memory budget: every cache it keeps between requests stays within its bytes.

Each cache is pushed past its bound with distinct, large entries, and what it holds is
counted from the outside (its entries' own texts and hashes), not only as it accounts
for itself; the estimates are checked against what CPython allocates (``tracemalloc``);
and a proxy app sent many distinct large conversations keeps all of them together
under its ``memory_budget``.
"""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import httpx2
import pytest

from contextfold.blocks import ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.compaction._cache import CachedSummary
from contextfold.dialects import CHAT
from contextfold.formats import from_anthropic, from_openai
from contextfold.messages import Message
from contextfold.proxy import DEFAULT_MEMORY_BUDGET
from contextfold.proxy._budget import (
    HASH_BYTES,
    SHARES,
    MemoryBudget,
    SizedLRU,
    message_bytes,
)
from contextfold.proxy._cache import SummaryCache, UsageAnchors, chain_hashes
from contextfold.proxy._config import ModelTable
from contextfold.proxy._layout import Layouts, shape
from contextfold.proxy._memo import HistoryMemo
from contextfold.proxy._reuse import SplicedChains, TokenCounts
from contextfold.tokens import approx_token_counter
from tests._proxy_upstream import ProxyApps, Upstream

KEY = "sk-test-BUDGET-0c0c0c0c0c0c0c0c"
MIB = 1024 * 1024


def distinct_wire(number: int, messages: int = 10, chars: int = 5_000) -> list[dict[str, Any]]:
    """A chat history of ``messages`` messages of ``chars`` characters, all its own."""
    out: list[dict[str, Any]] = [
        {"role": "system", "content": f"conversation {number} " + "s" * chars}
    ]
    for i in range(messages - 1):
        role = "user" if i % 2 == 0 else "assistant"
        out.append({"role": role, "content": f"{number}-{i} " + "x" * chars})
    out[-1]["role"] = "user"
    return out


def test_the_default_budget_is_128_mib_split_into_shares_that_add_up_to_it() -> None:
    assert DEFAULT_MEMORY_BUDGET == 128 * MIB
    assert sum(SHARES.values()) == pytest.approx(1.0)
    budget = MemoryBudget()
    assert sum(budget.share(cache) for cache in SHARES) <= DEFAULT_MEMORY_BUDGET
    assert budget.share("memo") == int(0.4 * 128 * MIB)
    with pytest.raises(ValueError, match="memory_budget"):
        MemoryBudget(1000)


def test_a_sized_lru_keeps_its_bytes_dropping_the_least_recently_used() -> None:
    table: SizedLRU[str, int] = SizedLRU(1_000)
    for i in range(50):
        table.put(f"k{i}", i, 100)
        assert table.nbytes <= 1_000
        assert len(table) * 100 == table.nbytes
    assert list(table) == [f"k{i}" for i in range(40, 50)]
    table.touch("k40")  # used again: the last to go
    table.put("new", 0, 300)
    assert "k40" in table
    assert not any(f"k{i}" in table for i in (41, 42, 43))
    table.put("huge", 1, 1_001)  # larger than the bound alone: not kept
    assert "huge" not in table
    assert table.nbytes <= 1_000
    assert table.pop("new") == 0
    assert table.pop("new") is None


def _built(messages: list[Message]) -> int:
    """Bytes CPython allocated for ``messages`` built afresh (a JSON round trip)."""
    gc.collect()
    tracemalloc.start()
    try:
        copies = [from_anthropic(json.loads(json.dumps(_wire(messages))))]
        gc.collect()
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert copies
    return size


def _wire(messages: list[Message]) -> list[dict[str, Any]]:
    from contextfold.formats import to_anthropic

    return to_anthropic(messages, lift=False)[1]


@pytest.mark.parametrize(
    "message",
    [
        Message.user("x" * 20_000),
        Message.user("中文" * 5_000),
        Message.user("😀" * 2_000),
        Message("user", [TextBlock(f"part {i}") for i in range(300)]),
        Message(
            "assistant", [ToolUseBlock("t1", "f", {f"k{i}": [i, {"v": "w"}] for i in range(500)})]
        ),
        Message("user", [ToolResultBlock("t1", [TextBlock("out " * 500), TextBlock("more")])]),
        Message("user", [ImageBlock("image/png", b"\x89PNG" + bytes(30_000))]),
    ],
    ids=["ascii", "cjk", "emoji", "many-blocks", "tool-input", "tool-result", "image"],
)
def test_message_bytes_bound_what_a_message_holds(message: Message) -> None:
    copies = 20
    messages = [message] * copies
    held = _built(messages)
    assert held <= copies * message_bytes(message)


def test_the_memo_keeps_its_bytes_texts_and_messages_included() -> None:
    memo = HistoryMemo(max_bytes=2 * MIB)
    for number in range(60):  # 60 x 50 KB of JSON, 60 x 50 KB of parsed messages
        wire = distinct_wire(number)
        assert memo.parse(CHAT, "t:m", wire).messages == from_openai(wire)
        assert memo.nbytes <= memo.max_bytes
        entries = [e for group in memo._groups.values() for e in group]
        held = sum(len(e.text) for e in entries)
        held += sum(sys.getsizeof(m.text) for e in entries for m in e.parsed.messages)
        held += sum(HASH_BYTES * len(e.parsed.chain) for e in entries)
        assert 0 < held <= memo.max_bytes


def test_what_the_memo_accounts_for_bounds_what_it_allocates() -> None:
    # orjson's output keeps the buffer it grew (64 KiB for a few bytes of JSON): a
    # memo holding it would hold far more than the text it counts.
    wires = [
        [{"role": "user", "content": f"short {i}"}, {"role": "assistant", "content": "ok"}]
        for i in range(200)
    ] + [distinct_wire(i, chars=3_000) for i in range(20)]
    wires = json.loads(json.dumps(wires))  # their strings made before tracing
    memo = HistoryMemo(max_bytes=10**12)
    gc.collect()
    tracemalloc.start()
    try:
        for wire in wires:
            memo.parse(CHAT, "t:m", wire)
        gc.collect()
        allocated, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert allocated <= memo.nbytes


def test_token_counts_hold_no_more_than_their_share_of_the_default_budget() -> None:
    counts = TokenCounts(approx_token_counter)
    bound = MemoryBudget().share("token_counts")
    for i in range(1_000):  # 25 MB of distinct messages
        counts.count([Message.user(f"{i} " + "y" * 25_000)])
        held = sum(sys.getsizeof(m.text) for m, _ in counts._sizes.values())
        assert held <= counts.nbytes <= bound


def test_token_counts_keep_their_bytes_and_stay_exact() -> None:
    counts = TokenCounts(approx_token_counter, max_bytes=200_000)
    for number in range(40):
        messages = from_openai(distinct_wire(number))
        chain = chain_hashes("m", messages)
        assert counts.through(messages, chain) == sum(counts.count([m]) for m in messages)
        assert counts.nbytes <= counts.max_bytes
        held = sum(sys.getsizeof(m.text) for m, _ in counts._sizes.values())
        assert held + HASH_BYTES * len(counts._totals) <= counts.max_bytes


def test_spliced_chains_keep_their_bytes() -> None:
    spliced = SplicedChains(max_bytes=100_000)
    head = [Message.user("<summary>S</summary>"), Message.assistant("ok")]
    for number in range(50):  # histories of 200 messages: 200 prefix hashes each
        history = [Message.user(f"{number}-{i}") for i in range(200)]
        chain = chain_hashes("m", history)
        got = spliced.chain("m", head, history, chain, CachedSummary(chain[10], 10, "S"))
        assert got == chain_hashes("m", [*head, *history[10:]])
        assert spliced.nbytes <= 100_000
        held = sum(HASH_BYTES * len(kept[3]) for kept in spliced._last.values())
        assert 0 < held <= 100_000


def test_usage_anchors_keep_their_bytes() -> None:
    anchors = UsageAnchors(max_bytes=20_000)
    chain = chain_hashes("m", [Message.user(str(i)) for i in range(1_000)])
    for i, key in enumerate(chain):
        anchors.record(key, i)
        assert anchors.nbytes <= 20_000
        assert len(anchors) * HASH_BYTES <= 20_000
    assert anchors.latest(chain) == (len(chain) - 1, len(chain) - 1)


async def test_summary_rows_read_from_sqlite_hold_no_more_than_their_share(
    tmp_path: Path,
) -> None:
    cache = SummaryCache(tmp_path / "cache.db")  # the default share: 19.2 MiB
    await cache.open()
    try:
        for root in range(240):  # 24 MB of summaries, each conversation read once
            chain = [f"h{root}-{i}" for i in range(10)]
            await cache.store(f"r{root}", CachedSummary(chain[4], 4, f"{root} " + "z" * 100_000))
        for root in range(240):
            chain = [f"h{root}-{i}" for i in range(10)]
            assert await cache.longest(f"r{root}", chain) is not None
            held = sum(sys.getsizeof(row.summary) for rows in cache._front.values() for row in rows)
            assert held <= cache.memory() <= MemoryBudget().share("summary_rows")
    finally:
        await cache.close()


def test_layout_records_keep_their_bytes() -> None:
    layouts = Layouts(max_bytes=100_000)
    for number in range(2_000):
        items = [{"role": "user", "content": f"{number}-{i}"} for i in range(12)]
        layouts.decide(shape(CHAT, items, "m", None, "tenant"))
        assert layouts.nbytes <= 100_000
        assert len(layouts._ends) * 65 <= 100_000  # 32-byte digests, as bytes objects


def test_learned_limits_keep_their_bytes_whatever_the_model_names() -> None:
    from contextfold.compaction import CompactionSettings
    from contextfold.proxy._cache import SummaryCache as Cache
    from contextfold.proxy._compact import Planner

    budget = MemoryBudget(2 * MIB)  # learned limits: 26 KiB
    planner = Planner(
        Cache(None),
        UsageAnchors(),
        CompactionSettings().options(),
        threshold=0.75,
        target_ratio=0.5,
        context_window=None,
        budget=budget,
    )
    for i in range(500):  # model names are the client's: 1 KB each
        planner.learn_overflow(f"model-{i}-" + "n" * 1_000, 50_000, tenant=f"t{i}")
        held = sum(sys.getsizeof(model) for _, model in planner._learned)
        assert held <= planner._learned.nbytes <= budget.share("learned")


def test_the_model_table_does_not_keep_long_names() -> None:
    table = ModelTable(threshold=0.75, keep_recent=6)
    for i in range(2_000):
        table.resolve(f"model-{i}-" + "n" * 10_000)
    assert sum(len(name) for name in table._memo) <= 1024 * 256


async def test_a_proxy_sent_many_distinct_large_conversations_stays_within_its_budget(
    tmp_path: Path,
) -> None:
    upstream = Upstream()
    apps = ProxyApps(upstream)
    budget = 4 * MIB
    app = await apps.make(
        upstream_openai="http://upstream.test/v1",
        db=str(tmp_path / "proxy.db"),
        context_window=32_768,
        threshold=0.5,
        memory_budget=budget,
    )
    forwarder = app.state.forwarder
    shares = MemoryBudget(budget)
    peak: dict[str, int] = {}
    try:
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://proxy.test") as client:
            for number in range(120):  # ~12 MB of distinct histories, every 4th compacted
                long = number % 4 == 0
                wire = distinct_wire(number, 30 if long else 10)
                # a compacted one is resent longer: its summary is read back and spliced
                for sent in (wire, [*wire, *distinct_wire(-number, 2)[1:]])[: 1 + long]:
                    reply = await client.post(
                        "/v1/chat/completions",
                        content=json.dumps({"model": "test-model", "messages": sent}),
                        headers={"authorization": f"Bearer {KEY}"},
                    )
                    assert reply.status_code == 200
                    if sent is not wire:
                        assert reply.headers["x-contextfold-summary"] == "cached"
                held = forwarder.memory()
                assert sum(held.values()) <= budget, held
                assert all(size <= shares.share(cache) for cache, size in held.items()), held
                for cache, size in held.items():
                    peak[cache] = max(peak.get(cache, 0), size)
    finally:
        await apps.close()
    assert len(upstream.summaries) >= 20  # the compacted ones were summarized
    used = ("memo", "token_counts", "anchors", "summary_rows", "layouts", "spliced_chains")
    assert all(peak[cache] > 0 for cache in used), peak
