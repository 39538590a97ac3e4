"""The store contract: every store the project ships runs these tests (see ``store`` fixture)."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from contextfold import (
    ContextStore,
    HistoryConflictError,
    MemoryContextStore,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.context import PrefixReplacing


def _conversation(n: int) -> list[Message]:
    return [
        Message.user(f"question {i}") if i % 2 == 0 else Message.assistant(f"answer {i}")
        for i in range(n)
    ]


async def test_append_is_visible_to_next_read(store: ContextStore) -> None:
    await store.append(Message.user("hello"))
    assert await store.get_history() == [Message.user("hello")]


async def test_history_keeps_insertion_order(store: ContextStore) -> None:
    messages = _conversation(25)
    for m in messages:
        await store.append(m)
    assert await store.get_history() == messages


async def test_rich_content_round_trips(store: ContextStore) -> None:
    call = Message("assistant", [TextBlock("let me look"), ToolUseBlock("t1", "grep", {"q": "x"})])
    result = Message("user", [ToolResultBlock("t1", [TextBlock("found")], is_error=True)])
    await store.append(Message.user("find x"))
    await store.append(call)
    await store.append(result)
    assert (await store.get_history())[1:] == [call, result]


async def test_nul_and_unpaired_surrogates_round_trip(store: ContextStore) -> None:
    # Tool outputs carry binary junk; PostgreSQL's jsonb and text refuse a raw NUL.
    odd = "binary \x00 output \ud800 end"
    call = Message("assistant", [ToolUseBlock("t\x00", "read", {"path\x00": odd})])
    result = Message("user", [ToolResultBlock("t\x00", [TextBlock(odd)])])
    await store.append(Message.user(odd))
    await store.append(call)
    await store.append(result)
    assert await store.get_history() == [Message.user(odd), call, result]
    await store.replace_history([Message.user(odd), Message.assistant("ok")])
    assert await store.get_history() == [Message.user(odd), Message.assistant("ok")]
    [mine] = [s for s in await store.list_sessions() if s.session_id == store.session_id]
    assert mine.preview.startswith("binary")


@pytest.mark.parametrize(
    "bad_input",
    [{"x": float("nan")}, {"x": float("inf")}, {"x": [float("-inf")]}, {"x": object()}],
    ids=["nan", "inf", "nested-inf", "object"],
)
async def test_content_json_cannot_hold_is_rejected_and_nothing_written(
    store: ContextStore, bad_input: dict[str, object]
) -> None:
    if isinstance(store, MemoryContextStore):
        pytest.skip("the memory store keeps Message objects and never encodes them as JSON")
    bad = Message("assistant", [ToolUseBlock("t1", "f", bad_input)])
    await store.append(Message.user("before"))
    with pytest.raises(ValueError, match="not JSON data"):
        await store.append(bad)
    with pytest.raises(ValueError, match="not JSON data"):
        await store.replace_history([Message.user("summary"), bad])
    assert await store.get_history() == [Message.user("before")]
    await store.append(Message.assistant("after"))
    assert [m.text for m in await store.get_history()] == ["before", "after"]


async def test_token_counts_beyond_64_bits_are_rejected(store: ContextStore) -> None:
    if isinstance(store, MemoryContextStore):
        pytest.skip("the memory store holds Python ints of any size")
    await store.add_context_tokens(5, 6)
    with pytest.raises(ValueError, match="64-bit"):
        await store.set_context_tokens(2**63, 0)
    assert await store.get_context_tokens() == (5, 6)


async def test_get_history_returns_a_copy(store: ContextStore) -> None:
    await store.append(Message.user("one"))
    history = await store.get_history()
    history.append(Message.user("intruder"))
    history[0].content.append(TextBlock("mutated"))
    assert await store.get_history() == [Message.user("one")]


async def test_concurrent_appends_lose_nothing(store: ContextStore) -> None:
    await asyncio.gather(*(store.append(Message.user(f"m{i}")) for i in range(50)))
    texts = sorted(m.text for m in await store.get_history())
    assert texts == sorted(f"m{i}" for i in range(50))


async def test_fork_is_isolated_and_has_its_own_id(store: ContextStore) -> None:
    await store.append(Message.user("shared"))
    await store.add_context_tokens(100, 10)
    forked = await store.fork()
    assert forked.session_id != store.session_id
    assert await forked.get_history() == [Message.user("shared")]
    assert await forked.get_context_tokens() == (100, 10)
    await forked.append(Message.assistant("only in fork"))
    await store.append(Message.assistant("only in original"))
    assert [m.text for m in await store.get_history()] == ["shared", "only in original"]
    assert [m.text for m in await forked.get_history()] == ["shared", "only in fork"]


async def test_token_counts_accumulate(store: ContextStore) -> None:
    assert await store.get_context_tokens() == (0, 0)
    await store.add_context_tokens(1000, 50)
    await store.add_context_tokens(1200, 70)
    assert await store.get_context_tokens() == (2200, 120)
    await store.set_context_tokens(5, 6)
    assert await store.get_context_tokens() == (5, 6)


async def test_concurrent_token_increments_are_atomic(store: ContextStore) -> None:
    await asyncio.gather(*(store.add_context_tokens(10, 1) for _ in range(40)))
    assert await store.get_context_tokens() == (400, 40)


async def test_clear_empties_the_history(store: ContextStore) -> None:
    for m in _conversation(4):
        await store.append(m)
    await store.clear()
    assert await store.get_history() == []
    await store.append(Message.user("again"))
    assert await store.get_history() == [Message.user("again")]


async def test_replace_history(store: ContextStore) -> None:
    for m in _conversation(10):
        await store.append(m)
    replacement = [Message.user("summary"), Message.assistant("ok"), Message.user("recent")]
    await store.replace_history(replacement)
    assert await store.get_history() == replacement
    await store.append(Message.assistant("after"))
    assert [m.text for m in await store.get_history()][-1] == "after"


async def test_list_sessions_describes_this_session(store: ContextStore) -> None:
    await store.append(Message.system("be brief"))
    await store.append(Message.user("  Plan a trip\nto Lisbon " + "x" * 200))
    await store.add_context_tokens(300, 20)
    sessions = await store.list_sessions()
    mine = next(s for s in sessions if s.session_id == store.session_id)
    assert mine.message_count == 2
    assert mine.preview.startswith("Plan a trip to Lisbon")
    assert len(mine.preview) <= 80
    assert (mine.input_tokens, mine.output_tokens) == (300, 20)
    datetime.fromisoformat(mine.created_at)


async def test_replace_prefix_is_a_compare_and_swap(store: ContextStore) -> None:
    assert isinstance(store, PrefixReplacing)
    for m in _conversation(6):
        await store.append(m)
    snapshot = await store.get_history()
    await store.replace_prefix(1, [Message.user("edited by someone else")])
    with pytest.raises(HistoryConflictError):
        await store.replace_prefix(4, [Message.user("summary")], expected=snapshot[:4])
    assert [m.text for m in await store.get_history()] == [
        "edited by someone else",
        *(m.text for m in snapshot[1:]),
    ]
    current = await store.get_history()
    await store.append(Message.user("appended meanwhile"))
    await store.replace_prefix(4, [Message.user("summary")], expected=current[:4])
    assert [m.text for m in await store.get_history()] == [
        "summary",
        "question 4",
        "answer 5",
        "appended meanwhile",
    ]


async def test_session_id_is_stable(store: ContextStore) -> None:
    assert store.session_id == store.session_id
    assert isinstance(store.session_id, str)
    assert store.session_id


async def test_close_is_safe(store: ContextStore) -> None:
    await store.append(Message.user("x"))
    await store.close()


# --- defaults of the ABC, exercised through a minimal subclass ----------------------


class ListStore(ContextStore):
    """The smallest possible store: only the two abstract methods, no __init__ call."""

    def __init__(self) -> None:
        self.items: list[Message] = []

    async def append(self, message: Message) -> None:
        self.items.append(message.copy())

    async def get_history(self) -> list[Message]:
        return [m.copy() for m in self.items]


class NeedsArgs(MemoryContextStore):
    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label


async def test_defaults_work_without_super_init() -> None:
    store = ListStore()
    assert len(store.session_id) == 32
    assert await store.get_context_tokens() == (0, 0)
    await store.add_context_tokens(5, 5)  # no-op by default
    assert await store.get_context_tokens() == (0, 0)
    with pytest.raises(NotImplementedError, match="ListStore does not support clear"):
        await store.clear()
    with pytest.raises(NotImplementedError):
        await store.replace_history([])
    await store.close()


async def test_default_fork_copies_into_memory_store() -> None:
    store = ListStore()
    await store.append(Message.user("hi"))
    forked = await store.fork()
    assert isinstance(forked, MemoryContextStore)
    assert await forked.get_history() == [Message.user("hi")]
    await forked.append(Message.assistant("x"))
    assert len(await store.get_history()) == 1


async def test_default_list_sessions() -> None:
    store = ListStore()
    await store.append(Message.user("first question"))
    [info] = await store.list_sessions()
    assert info.session_id == store.session_id
    assert info.preview == "first question"
    assert info.message_count == 1


async def test_from_history_and_from_context() -> None:
    msgs = _conversation(3)
    store = await MemoryContextStore.from_history(msgs)
    assert await store.get_history() == msgs
    await store.add_context_tokens(7, 8)
    copy = await ListStore.from_context(store)
    assert isinstance(copy, ListStore)
    assert await copy.get_history() == msgs


async def test_from_history_passes_constructor_arguments() -> None:
    store = await NeedsArgs.from_history(_conversation(2), "tagged")
    assert store.label == "tagged"
    assert len(await store.get_history()) == 2


async def test_from_history_explains_missing_constructor_arguments() -> None:
    with pytest.raises(TypeError, match=r"NeedsArgs.from_history\(messages, <constructor args>\)"):
        await NeedsArgs.from_history([])


async def test_memory_store_copies_initial_history() -> None:
    initial = _conversation(2)
    store = MemoryContextStore(initial)
    initial.append(Message.user("later"))
    assert len(await store.get_history()) == 2


async def test_nested_values_are_never_shared_with_the_store(store: ContextStore) -> None:
    call = Message("assistant", [ToolUseBlock("t1", "edit", {"path": "a.py", "opts": {"n": 1}})])
    result = Message("user", [ToolResultBlock("t1", [TextBlock("done")])])
    await store.append(Message.user("go"))
    await store.append(call)
    await store.append(result)
    call.tool_uses[0].input["opts"]["n"] = 99  # the caller changes what it appended
    history = await store.get_history()
    history[1].tool_uses[0].input["path"] = "MUTATED"  # and what it read
    content = history[2].tool_results[0].content
    assert isinstance(content, list)
    content.append(TextBlock("INJECTED"))
    fresh = await store.get_history()
    assert fresh[1].tool_uses[0].input == {"path": "a.py", "opts": {"n": 1}}
    assert fresh[2].tool_results[0].content == [TextBlock("done")]


async def test_preview_is_the_first_user_text_even_after_a_rewrite(store: ContextStore) -> None:
    await store.append(Message.user("Original task: migrate the billing tables"))
    await store.append(Message.assistant("On it."))
    await store.replace_history(
        [Message.user("A summary of earlier work"), Message.assistant("ok")]
    )
    mine = next(s for s in await store.list_sessions() if s.session_id == store.session_id)
    assert mine.preview == "Original task: migrate the billing tables"
    assert mine.message_count == 2
