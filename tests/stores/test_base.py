"""The store contract: every store the project ships runs these tests (see ``store`` fixture)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

import pytest

from contextfold import (
    ContentBlock,
    ContextStore,
    ImageBlock,
    MemoryContextStore,
    Message,
    PrefixReplacing,
    SnapshotReplacing,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)


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


@dataclass(frozen=True, slots=True)
class Sticker(ContentBlock):
    """A block kind contextfold does not know."""

    url: str


@dataclass(frozen=True, slots=True)
class Shouting(TextBlock):
    """A subclass would be read back as a plain TextBlock."""


class NoteMessage(Message):
    """A subclass would be read back as a plain Message."""


def _forced(block: ContentBlock, **fields: object) -> ContentBlock:
    """``block`` with fields set past the dataclass (as a buggy caller could)."""
    for name, value in fields.items():
        object.__setattr__(block, name, value)
    return block


def _with(message: Message, **fields: object) -> Message:
    for name, value in fields.items():
        setattr(message, name, value)
    return message


def _deep(depth: int) -> object:
    value: object = []
    for _ in range(depth):
        value = [value]
    return value


# Each message below would be written and then fail every later read of the session.
# The expected error names the field (and the store's message names message and block).
UNREADABLE = {
    "tool-use-id-none": (
        Message("user", [ToolResultBlock(None, "out")]),  # type: ignore[arg-type]
        r"block 0: ToolResultBlock field 'tool_use_id' must be str, got NoneType",
    ),
    "text-int": (
        Message("user", [TextBlock("fine"), TextBlock(5)]),  # type: ignore[arg-type]
        r"block 1: TextBlock field 'text' must be str, got int",
    ),
    "image-str-data": (
        Message("user", [ImageBlock("image/png", "aGk=")]),  # type: ignore[arg-type]
        r"ImageBlock field 'data' must be bytes, got str",
    ),
    "image-media-type": (
        Message("user", [_forced(ImageBlock("image/png", b"x"), media_type="image/bmp")]),
        r"ImageBlock field 'media_type' is 'image/bmp'",
    ),
    "unknown-block": (
        Message("assistant", [Sticker("https://example.invalid/s.png")]),
        r"Sticker is not a content block",
    ),
    "non-block-in-content": (
        _with(Message.user("x"), content=[TextBlock("x"), "a string"]),
        r"block 1: str is not a content block",
    ),
    "content-not-a-list": (
        _with(Message.user("x"), content="hello"),
        r"field 'content' must be a list",
    ),
    "role-tool": (_with(Message.user("x"), role="tool"), r"field 'role' must be one of"),
    "role-none": (_with(Message.user("x"), role=None), r"field 'role' must be one of"),
    "input-set": (
        Message("assistant", [ToolUseBlock("t1", "f", {"ids": {1, 2}})]),
        r"ToolUseBlock field 'input'\['ids'\] is not JSON data: set",
    ),
    "input-object": (
        Message("assistant", [ToolUseBlock("t1", "f", {"x": object()})]),
        r"field 'input'\['x'\] is not JSON data: object",
    ),
    "input-tuple": (
        Message("assistant", [ToolUseBlock("t1", "f", {"xy": (1, 2)})]),
        r"field 'input'\['xy'\] is not JSON data: tuple",
    ),
    "input-int-key": (
        Message("assistant", [ToolUseBlock("t1", "f", {"a": {1: "one"}})]),
        r"field 'input'\['a'\] is not JSON data: its key 1 is int",
    ),
    "input-nan": (
        Message("assistant", [ToolUseBlock("t1", "f", {"x": float("nan")})]),
        r"field 'input'\['x'\] is not JSON data: nan",
    ),
    "input-nested-inf": (
        Message("assistant", [ToolUseBlock("t1", "f", {"x": [1.0, {"y": float("-inf")}]})]),
        r"field 'input'\['x'\]\[1\]\['y'\] is not JSON data: -inf",
    ),
    "input-huge-int": (
        Message("assistant", [ToolUseBlock("t1", "f", {"n": 10**5000})]),
        r"an integer of over 4,000 digits",
    ),
    "input-too-deep": (
        Message("assistant", [ToolUseBlock("t1", "f", {"x": _deep(100_000)})]),
        r"field 'input'\['x'\](\[0\]){7}\[…\] is nested more than 200 levels deep",
    ),
    "input-deep-enough-to-fail-reads": (
        Message("assistant", [ToolUseBlock("t1", "f", {"x": _deep(950)})]),
        r"is nested more than 200 levels deep",
    ),
    "block-subclass": (
        Message("user", [Shouting("hi")]),
        r"Shouting is not a content block",
    ),
    "message-subclass": (
        NoteMessage("user", [TextBlock("x")]),
        r"expected a Message, got NoteMessage",
    ),
    "input-not-a-dict": (
        Message("assistant", [ToolUseBlock("t1", "f", ["a"])]),  # type: ignore[arg-type]
        r"field 'input' must be dict, got list",
    ),
    "tool-name-bytes": (
        Message("assistant", [ToolUseBlock("t1", b"f", {})]),  # type: ignore[arg-type]
        r"field 'name' must be str, got bytes",
    ),
    "is-error-int": (
        Message("user", [ToolResultBlock("t1", "out", is_error=1)]),  # type: ignore[arg-type]
        r"field 'is_error' must be bool, got int",
    ),
    "result-holds-tool-use": (
        Message("user", [ToolResultBlock("t1", [ToolUseBlock("t2", "f", {})])]),  # type: ignore[list-item]
        r"field 'content'\[0\] must be a TextBlock, ImageBlock or OpaqueBlock",
    ),
    "result-part-bad": (
        Message("user", [ToolResultBlock("t1", [TextBlock(None)])]),  # type: ignore[arg-type]
        r"field 'content'\[0\]: TextBlock field 'text' must be str, got NoneType",
    ),
    "thinking-signature-none": (
        Message("assistant", [ThinkingBlock("hmm", None)]),  # type: ignore[arg-type]
        r"ThinkingBlock field 'signature' must be str",
    ),
    "not-a-message": ({"role": "user", "content": []}, r"expected a Message, got dict"),
}


@pytest.mark.parametrize("case", list(UNREADABLE), ids=list(UNREADABLE))
async def test_a_message_that_could_not_be_read_back_is_rejected_and_nothing_written(
    store: ContextStore, case: str
) -> None:
    bad, field = UNREADABLE[case]
    await store.append(Message.user("before"))
    with pytest.raises(ValueError, match=r"cannot store this message.*" + field):
        await store.append(bad)  # type: ignore[arg-type]
    replacement = [Message.user("summary"), Message.assistant("ok"), bad]
    with pytest.raises(ValueError, match=r"cannot store message 2.*" + field):
        await store.replace_history(replacement)  # type: ignore[arg-type]
    if isinstance(store, PrefixReplacing):
        with pytest.raises(ValueError, match=field):
            await store.replace_prefix(1, [bad])  # type: ignore[list-item]
    if isinstance(store, SnapshotReplacing):
        with pytest.raises(ValueError, match=field):
            await store.replace_snapshot([Message.user("before")], [bad])  # type: ignore[list-item]
    # nothing was written, and the session reads and takes appends as before
    assert await store.get_history() == [Message.user("before")]
    await store.append(Message.assistant("after"))
    assert await store.get_history() == [Message.user("before"), Message.assistant("after")]
    listed = next(s for s in await store.list_sessions() if s.session_id == store.session_id)
    assert listed.message_count == 2


async def test_storable_edge_values_are_accepted_and_read_back_equal(store: ContextStore) -> None:
    tricky = [
        Message.user("nul \x00 and surrogate \ud800 and emoji \U0001f600"),
        Message(
            "assistant",
            [
                ThinkingBlock("", "", redacted=True),
                ToolUseBlock(
                    "t1",
                    "f",
                    {
                        "big": 10**300,
                        "neg0": -0.0,
                        "tiny": 5e-324,
                        "nested": [[{"": None}]],
                        "deep": _deep(198),  # 200 levels, the input included
                    },
                ),
            ],
        ),
        Message("user", [ToolResultBlock("t1", [TextBlock(""), ImageBlock("image/gif", b"")])]),
    ]
    for message in tricky:
        await store.append(message)
    await store.replace_history([*tricky, Message.assistant("done")])
    assert await store.get_history() == [*tricky, Message.assistant("done")]


async def test_replace_snapshot_commits_while_the_history_starts_with_the_snapshot(
    store: ContextStore,
) -> None:
    assert isinstance(store, SnapshotReplacing)
    for m in _conversation(10):
        await store.append(m)
    snapshot = (await store.get_history())[:8]
    await store.append(Message.user("appended while summarizing"))
    summary = [Message.user("summary"), Message.assistant("ok"), *snapshot[-2:]]
    assert await store.replace_snapshot(snapshot, summary) is True
    after = [*summary, *_conversation(10)[8:], Message.user("appended while summarizing")]
    assert await store.get_history() == after


@pytest.mark.parametrize(
    "change",
    ["edited", "rewritten-prefix", "removed", "reordered", "cleared", "shorter"],
)
async def test_replace_snapshot_writes_nothing_when_the_range_changed(
    store: ContextStore, change: str
) -> None:
    assert isinstance(store, SnapshotReplacing)
    history = _conversation(10)
    await store.replace_history(history)
    snapshot = await store.get_history()
    changed = {
        "edited": [*history[:4], Message.user("question 4, edited"), *history[5:]],
        "rewritten-prefix": [Message.user("other summary"), Message.assistant("ok"), *history[6:]],
        "removed": history[:3] + history[4:],
        "reordered": [history[1], history[0], *history[2:]],
        "cleared": [],
        "shorter": history[:9],
    }[change]
    await store.replace_history(changed)
    await store.append(Message.user("appended"))
    before = await store.get_history()
    assert await store.replace_snapshot(snapshot, [Message.user("mine"), *history[-2:]]) is False
    assert await store.get_history() == before


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
