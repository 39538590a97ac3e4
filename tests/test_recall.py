"""Recall: masked outputs and summarized ranges come back from every store's archive."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from contextfold import Agent, AutoCompactStore, Message
from contextfold.blocks import ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.compaction import CompactionSettings
from contextfold.context import Archiving, ContextStore, MemoryContextStore
from contextfold.errors import RecallError
from contextfold.recall import recall, recall_tool
from contextfold.strategies import MaskToolOutputs
from contextfold.testing import (
    FunctionTransport,
    StubRequest,
    StubResponse,
    StubTransport,
    make_text_response,
    make_tool_use_response,
)
from tests._histories import PNG
from tests._stores import pg_connection_or_skip, redis_client_or_skip
from tests.conftest import require_service

FACT = "the deploy key rotates every 17 days"
FILLER = "\n".join(f"config line {i}: value {i * 7}" for i in range(300))
HANDLE = re.compile(r"handle=(out-[0-9a-f]{12})")


def coding_session(rounds: int = 5) -> list[Message]:
    """A task, ``rounds`` large file reads (the first hides :data:`FACT`), an answer."""
    history = [Message.user("Why does the deploy fail every few weeks?")]
    for r in range(rounds):
        output = f"{FILLER}\n# note: {FACT}\n{FILLER}" if r == 0 else f"{r}\n{FILLER}"
        history.append(
            Message("assistant", [ToolUseBlock(f"read{r}", "read_file", {"path": f"f{r}.cfg"})])
        )
        history.append(Message("user", [ToolResultBlock(f"read{r}", output)]))
    history.append(Message.assistant("I read the configuration files."))
    return history


async def masked_store(store: ContextStore) -> str:
    """Fill ``store`` with :func:`coding_session`, mask it through the store, and return
    the handle of the output holding :data:`FACT`."""
    for message in coding_session():
        await store.append(message)
    masked = await MaskToolOutputs(keep_rounds=2).compact(await store.get_history())
    await store.replace_history(masked)
    live = await store.get_history()
    assert FACT not in "".join(m.text + str(m.tool_results) for m in live)
    found = HANDLE.search(str(live[2].tool_results[0].content))
    assert found is not None
    return found.group(1)


def recalling_model() -> FunctionTransport:
    """A scripted model: asks ``recall`` for the first handle it sees, reads on page by
    page until it finds a note, then answers from it."""

    def answer(request: StubRequest) -> StubResponse:
        last = request.messages[-1]
        if last.tool_results:
            content = last.tool_results[0].content
            text = content if isinstance(content, str) else str(content)
            fact = re.search(r"note: (.*)", text)
            more = re.search(r"with handle (\S+) and offset (\d+) to read on", text)
            if fact is None and more is not None:
                page = {"handle": more.group(1), "offset": int(more.group(2))}
                return make_tool_use_response("recall", page)
            return make_text_response(f"Found it: {fact.group(1) if fact else 'nothing'}")
        assert any(t.name == "recall" for t in request.tools)
        handle = HANDLE.search(str(request.messages))
        assert handle is not None
        return make_tool_use_response("recall", {"handle": handle.group(1)})

    return FunctionTransport(answer)


# -- the archive contract, on every store -----------------------------------------------


async def test_every_store_archives_what_masking_replaced(store: ContextStore) -> None:
    assert isinstance(store, Archiving)
    handle = await masked_store(store)
    archive = await store.get_archive()
    originals = [a.message for a in archive if a.message.tool_results]
    assert any(FACT in str(m.tool_results[0].content) for m in originals)
    page = await recall(store, handle, max_chars=100_000)
    assert FACT in page.text
    assert page.offset == 0
    assert page.next_offset is None
    assert page.total_chars == len(page.text)


async def test_a_scripted_agent_recovers_a_fact_only_a_masked_output_held(
    store: ContextStore,
) -> None:
    await masked_store(store)
    agent = Agent("You debug deployments.", recalling_model(), tools=[recall_tool(store)])
    reply = await agent.run("What did the first file say about keys?", store)
    assert reply == f"Found it: {FACT}"
    history = await store.get_history()
    recalled = history[-2].tool_results[0]
    assert not recalled.is_error
    assert FACT in str(recalled.content)


async def test_a_summarized_range_is_recalled_by_the_handle_its_summary_lists(
    store: ContextStore,
) -> None:
    summarizer = StubTransport([make_text_response("<summary>The user debugs deploys.</summary>")])
    wrapped = AutoCompactStore(
        store, summarizer, keep_recent=2, settings=CompactionSettings(prepare_threshold=None)
    )
    for message in coding_session():
        await wrapped.append(message)
    assert await wrapped.compact(force=True)
    summary = (await wrapped.get_history())[0].text
    listed = re.search(r"(msgs-[0-9a-f]{16}): the (\d+) messages", summary)
    assert listed is not None, summary
    outputs = re.findall(r"- (out-[0-9a-f]{12}): read_file", summary)
    assert len(outputs) >= 4
    page = await recall(wrapped, listed.group(1), max_chars=200_000)
    assert page.text.startswith("user: Why does the deploy fail every few weeks?")
    assert FACT in page.text
    whole = await recall(wrapped, outputs[0], max_chars=200_000)
    assert FACT in whole.text


async def test_a_summarized_range_ending_with_a_repeated_message_is_recalled_whole(
    store: ContextStore,
) -> None:
    summarizer = StubTransport([make_text_response("<summary>Files were read.</summary>")])
    wrapped = AutoCompactStore(
        store, summarizer, keep_recent=3, settings=CompactionSettings(prepare_threshold=None)
    )
    for r in range(6):  # every round opens with the same prompt, and ends the same way
        await wrapped.append(Message.user("Read the next file." if r else "Read the files."))
        await wrapped.append(Message("assistant", [ToolUseBlock(f"r{r}", "read_file", {})]))
        await wrapped.append(Message("user", [ToolResultBlock(f"r{r}", f"file {r}\n{FILLER}")]))
        await wrapped.append(Message.assistant("Done."))
    await wrapped.append(Message.user("Read the next file."))
    assert await wrapped.compact(force=True)
    summary = (await wrapped.get_history())[0].text
    listed = re.search(r"(msgs-[0-9a-f]{16}): the (\d+) messages", summary)
    assert listed is not None, summary
    page = await recall(wrapped, listed.group(1), max_chars=200_000)
    assert page.text.startswith("user: Read the files.")
    assert page.text.count("\n\n") + 1 == int(listed.group(2))  # every message, not a prefix


async def test_pages_continue_from_the_offset_the_answer_gives(store: ContextStore) -> None:
    handle = await masked_store(store)
    pages: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = await recall(store, handle, offset=offset, max_chars=1_000)
        assert len(page.text) <= 1_000
        pages.append(page.text)
        offset = page.next_offset
    whole = "".join(pages)
    assert FACT in whole
    assert len(pages) == -(-len(whole) // 1_000)
    rendered = (await recall(store, handle, max_chars=1_000)).render()
    assert isinstance(rendered, str)
    assert f"handle {handle} and offset 1000" in rendered


async def test_an_unknown_handle_is_an_error_result_and_the_turn_goes_on(
    store: ContextStore,
) -> None:
    with pytest.raises(RecallError, match="out-000000000000") as caught:
        await recall(store, "out-000000000000")
    assert caught.value.handle == "out-000000000000"
    model = StubTransport(
        [
            make_tool_use_response("recall", {"handle": "out-000000000000"}),
            make_text_response("I could not recall it."),
        ]
    )
    reply = await Agent(None, model, tools=[recall_tool(store)]).run("recall it", store)
    assert reply == "I could not recall it."
    result = (await store.get_history())[-2].tool_results[0]
    assert result.is_error
    assert "no archived original has the handle 'out-000000000000'" in str(result.content)


# -- restarts ---------------------------------------------------------------------------


async def reopen(
    store: ContextStore, tmp_path: Path, session_id: str | None = None
) -> tuple[ContextStore, Callable[[], Any]]:
    """A new store object on a new connection to the same session (or to
    ``session_id`` in the same database), and its closer."""
    sid = session_id or store.session_id
    match type(store).__name__:
        case "SQLiteContextStore":
            from contextfold.sqlite import SQLiteContextStore, connect

            conn = await connect(tmp_path / "contract.db")
            return SQLiteContextStore(conn, sid), conn.close
        case "PostgresContextStore":
            from contextfold.postgres import PostgresContextStore

            pg = await pg_connection_or_skip(require_service)
            return PostgresContextStore(pg, sid), pg.close
        case "RedisContextStore":
            from contextfold.redis import RedisContextStore

            client = await redis_client_or_skip(require_service)
            prefix: str = store.prefix  # type: ignore[attr-defined]
            return RedisContextStore(client, sid, prefix=prefix), client.aclose
    raise AssertionError(type(store).__name__)


async def test_handles_survive_a_restart_on_the_persistent_stores(
    store: ContextStore, tmp_path: Path
) -> None:
    if isinstance(store, MemoryContextStore):
        pytest.skip("the memory store's archive lives as long as the object")
    handle = await masked_store(store)
    again, close = await reopen(store, tmp_path)
    try:
        page = await recall(again, handle, max_chars=100_000)
        assert FACT in page.text
        agent = Agent(None, recalling_model(), tools=[recall_tool(again)])
        assert await agent.run("What about keys?", again) == f"Found it: {FACT}"
    finally:
        await close()


async def test_another_sessions_handle_is_not_recalled_from_the_same_database(
    store: ContextStore, tmp_path: Path
) -> None:
    if isinstance(store, MemoryContextStore):
        pytest.skip("a memory store holds one session")
    handle = await masked_store(store)
    other, close = await reopen(store, tmp_path, f"other-{store.session_id}")
    try:
        await other.append(Message.user("What is the deploy key schedule?"))
        with pytest.raises(RecallError, match="no archived original"):
            await recall(other, handle)
        assert FACT in (await recall(store, handle, max_chars=100_000)).text
    finally:
        await other.clear()
        await close()


# -- the memory store and the wrappers --------------------------------------------------


async def test_the_memory_archive_is_copied_by_fork_and_dropped_by_clear() -> None:
    store = MemoryContextStore()
    handle = await masked_store(store)
    forked = await store.fork()
    assert FACT in (await recall(forked, handle, max_chars=100_000)).text
    await store.clear()
    assert await store.get_archive() == []
    with pytest.raises(RecallError):
        await recall(store, handle)
    assert FACT in (await recall(forked, handle, max_chars=100_000)).text


async def test_images_of_a_tool_output_come_back_on_its_first_page() -> None:
    store = MemoryContextStore()
    output = ToolResultBlock("shot", [TextBlock(FILLER), ImageBlock("image/png", PNG)])
    history = [
        Message.user("look"),
        Message("assistant", [ToolUseBlock("shot", "screenshot", {})]),
        Message("user", [output]),
        Message.assistant("seen"),
        Message.user("again"),
        Message.assistant("ok"),
    ]
    for message in history:
        await store.append(message)
    await store.replace_history(await MaskToolOutputs(keep_rounds=1).compact(history))
    handle = HANDLE.search(str((await store.get_history())[2].tool_results[0].content))
    assert handle is not None
    page = await recall(store, handle.group(1), max_chars=100)
    rendered = page.render()
    assert isinstance(rendered, list)
    assert rendered[-1] == ImageBlock("image/png", PNG)
    later = await recall(store, handle.group(1), offset=100, max_chars=100)
    assert later.images == ()


async def test_a_store_without_an_archive_says_so() -> None:
    class Plain(ContextStore):
        def __init__(self) -> None:
            self.messages: list[Message] = []

        async def append(self, message: Message) -> None:
            self.messages.append(message)

        async def get_history(self) -> list[Message]:
            return list(self.messages)

        async def clear(self) -> None:
            self.messages = []

    with pytest.raises(RecallError, match="Plain keeps no archive"):
        await recall(Plain(), "out-000000000000")
    wrapped = AutoCompactStore(Plain(), StubTransport([]))
    with pytest.raises(RecallError, match="keeps no archive"):
        await recall(wrapped, "out-000000000000")
    with pytest.raises(ValueError, match="offset"):
        await recall(MemoryContextStore(), "out-000000000000", offset=-1)
    with pytest.raises(ValueError, match="max_chars"):
        recall_tool(MemoryContextStore(), max_chars=0)


# -- end to end: AutoCompactStore masks on its own, the agent recalls ---------------------


async def test_an_agent_recalls_what_auto_compaction_masked(store: ContextStore) -> None:
    from contextfold import ModelInfo, tool

    @tool
    async def read_file(path: str) -> str:
        """Read a file."""
        note = f"# note: {FACT}\n" if path == "f0.cfg" else ""
        return f"{FILLER}\n{note}# end of {path}"

    def model(request: StubRequest) -> StubResponse:
        last = request.messages[-1]
        asked = next(m.text for m in reversed(request.messages) if m.role == "user" and m.text)
        if asked.startswith("Read"):
            done = sum(1 for m in request.messages if m.tool_results)
            if done < 6:
                return make_tool_use_response("read_file", {"path": f"f{done}.cfg"})
            return make_text_response("I read all six files.")
        if last.tool_results:
            text = str(last.tool_results[0].content)
            fact = re.search(r"note: (.*)", text)
            more = re.search(r"with handle (\S+) and offset (\d+) to read on", text)
            if fact is None and more is not None:
                page = {"handle": more.group(1), "offset": int(more.group(2))}
                return make_tool_use_response("recall", page)
            return make_text_response(f"Found it: {fact.group(1) if fact else 'nothing'}")
        placeholder = re.search(
            r'handle=(out-[0-9a-f]{12}) read_file \{"path":"f0.cfg"\}', str(request.messages)
        )
        assert placeholder is not None, "f0.cfg was not masked"
        return make_tool_use_response("recall", {"handle": placeholder.group(1)})

    events: list[Any] = []
    transport = FunctionTransport(model, model=ModelInfo("m", 16_000, 1_000))
    summarizer = StubTransport([])  # a summary would fail: masking must be enough
    wrapped = AutoCompactStore(
        store,
        transport,
        max_tokens=8_000,
        summary_transport=summarizer,
        on_event=events.append,
        settings=CompactionSettings(
            prepare_threshold=None, mask_tool_outputs=MaskToolOutputs(keep_rounds=1)
        ),
    )
    agent = Agent("You read configuration.", transport, tools=[read_file, recall_tool(wrapped)])
    assert await agent.run("Read f0.cfg to f5.cfg.", wrapped) == "I read all six files."
    assert "masked" in [e.outcome for e in events if e.phase == "after"]
    assert summarizer.requests == []
    live = await wrapped.get_history()
    assert FACT not in str(live)
    assert await agent.run("What does f0.cfg say?", wrapped) == f"Found it: {FACT}"
