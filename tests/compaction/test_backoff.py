"""One back-off rule for every face (issue 25): after the n-th failure in a row the
next ``min(2**(n-1), max_backoff)`` triggers are skipped.

The proxy's numbers for 12 over-limit requests (1 -> 6 attempts, 2 -> 5, 32 -> 4) are in
``tests/proxy/test_proxy.py::test_max_backoff_bounds_the_skipped_requests``; the store
and the manager must make the same attempts for the same triggers.
"""

from __future__ import annotations

import pytest

from contextfold import AutoCompactStore, MemoryContextStore, Message, ModelInfo
from contextfold.compaction import CompactionSettings
from contextfold.compaction._backoff import BackOff
from contextfold.errors import ProviderUnavailableError
from contextfold.manager import CompactingContextManager
from contextfold.testing import FunctionTransport, StubRequest, StubResponse

WINDOW = ModelInfo("small-model", 8_000, 1_000)
ATTEMPTS = [(1, 6), (2, 5), (32, 4)]  # (max_backoff, attempts in 12 triggers)


def failing() -> FunctionTransport:
    def reply(request: StubRequest) -> StubResponse:
        raise ProviderUnavailableError("down", provider="stub", status=503)

    return FunctionTransport(reply, model=WINDOW)


def test_the_rule() -> None:
    backoff = BackOff()
    assert not backoff.holding
    skips = []
    for _ in range(6):
        backoff = backoff.failed(8)
        skips.append(backoff.skips)
    assert skips == [1, 2, 4, 8, 8, 8]
    assert backoff.skipped() == BackOff(6, 7)
    assert BackOff(1, 0).skipped() == BackOff(1, 0)  # never below zero


@pytest.mark.parametrize(("max_backoff", "attempts"), ATTEMPTS)
async def test_the_store_backs_off_like_the_proxy(max_backoff: int, attempts: int) -> None:
    summarizer = failing()
    settings = CompactionSettings(max_backoff=max_backoff, prepare_threshold=None, keep_recent=2)
    store = AutoCompactStore(
        MemoryContextStore(), failing(), settings=settings, summary_transport=summarizer
    )
    await store.append(Message.user("Build the parser."))
    for i in range(12):
        await store.append(Message.assistant(f"step {i} " + "a" * 2_000))
        await store.append(Message.user(f"next {i} " + "u" * 2_000))
    for i in range(12):
        await store.add_context_tokens(6_500 + 600 * i, 10)  # over the 6,000 limit, growing
    assert len(summarizer.requests) == attempts


@pytest.mark.parametrize(("max_backoff", "attempts"), ATTEMPTS)
async def test_the_manager_backs_off_like_the_proxy(max_backoff: int, attempts: int) -> None:
    summarizer = failing()
    settings = CompactionSettings(max_backoff=max_backoff, prepare_threshold=None, keep_recent=2)
    manager = CompactingContextManager(max_tokens=8_000, transport=summarizer, settings=settings)
    await manager.add_message({"role": "user", "content": "Build the parser."})
    for i in range(24):  # over the 6,000-token threshold from the 11th round on
        await manager.add_message({"role": "assistant", "content": f"step {i} " + "a" * 1_200})
        await manager.add_message({"role": "user", "content": f"next {i} " + "u" * 1_200})
        if i >= 12:
            await manager.get_messages_for_request()
    assert len(summarizer.requests) == attempts
