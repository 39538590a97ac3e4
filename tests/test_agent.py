"""The agent loop, driven by StubTransport against a real MemoryContextStore."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal

import pytest

from contextfold import (
    Agent,
    Completion,
    ContextOverflowError,
    MaxIterationsError,
    MemoryContextStore,
    Message,
    ModelInfo,
    TextBlock,
    Tool,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
    tool,
)
from contextfold.errors import ResponseFormatError
from contextfold.testing import (
    StubRequest,
    StubTransport,
    make_overflow_error,
    make_text_response,
    make_tool_use_response,
)
from contextfold.validation import validate_history


@tool
async def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


class RecordingStore(MemoryContextStore):
    """A memory store that logs every append and token report, in order."""

    def __init__(self, history: Sequence[Message] = ()) -> None:
        super().__init__(history)
        self.events: list[tuple[str, Any]] = []

    async def append(self, message: Message) -> None:
        self.events.append(("append", message.role))
        await super().append(message)

    async def add_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        self.events.append(("tokens", (input_tokens, output_tokens)))
        await super().add_context_tokens(input_tokens, output_tokens)


class CompactingStore(RecordingStore):
    """A Compactable store: ``compact(force=True)`` keeps only the latest user message."""

    def __init__(self, history: Sequence[Message] = (), *, succeeds: bool = True) -> None:
        super().__init__(history)
        self.succeeds = succeeds
        self.compact_calls: list[bool] = []

    async def compact(self, *, force: bool = False) -> bool:
        self.compact_calls.append(force)
        if self.succeeds:
            history = await self.get_history()
            await self.replace_history(history[-1:])
        return self.succeeds


def result_blocks(message: Message) -> dict[str, ToolResultBlock]:
    return {r.tool_use_id: r for r in message.tool_results}


# The basic loop


async def test_text_reply_returns_text_and_appends_user_and_assistant() -> None:
    store = MemoryContextStore()
    agent = Agent("You are helpful.", StubTransport([make_text_response("Done!")]))
    assert await agent.run("Hello", store) == "Done!"
    assert await store.get_history() == [Message.user("Hello"), Message.assistant("Done!")]


async def test_the_model_sees_system_history_and_tool_specs() -> None:
    stub = StubTransport([make_text_response("Hi again")])
    store = MemoryContextStore([Message.user("earlier"), Message.assistant("noted")])
    await Agent("Be terse.", stub, tools=[add]).run("Hello", store)
    (request,) = stub.requests
    assert request.system == "Be terse."
    assert [m.text for m in request.messages] == ["earlier", "noted", "Hello"]
    assert request.tools == [ToolSpec("add", "Add two integers.", add.input_schema)]


async def test_a_message_prompt_is_appended_as_given() -> None:
    store = MemoryContextStore()
    prompt = Message("user", [TextBlock("two"), TextBlock("parts")])
    await Agent(None, StubTransport([make_text_response("ok")])).run(prompt, store)
    assert (await store.get_history())[0] == prompt


async def test_tool_loop_runs_tools_and_feeds_results_back() -> None:
    stub = StubTransport(
        [make_tool_use_response("add", {"a": 2, "b": 3}, id="t1"), make_text_response("It is 5.")]
    )
    store = MemoryContextStore()
    assert await Agent(None, stub, tools=[add]).run("What is 2+3?", store) == "It is 5."

    history = await store.get_history()
    assert [m.role for m in history] == ["user", "assistant", "user", "assistant"]
    assert history[1].tool_uses == [ToolUseBlock("t1", "add", {"a": 2, "b": 3})]
    assert history[2].content == [ToolResultBlock("t1", "5")]
    assert stub.requests[1].messages == history[:3]
    validate_history(history)


async def test_parallel_calls_get_one_result_message_in_call_order() -> None:
    stub = StubTransport(
        [
            make_tool_use_response(
                "add", {"a": 1, "b": 1}, id="x", calls=[("add", {"a": 2, "b": 2})]
            ),
            make_text_response("2 and 4"),
        ]
    )
    store = MemoryContextStore()
    await Agent(None, stub, tools=[add]).run("go", store)
    history = await store.get_history()
    calls = history[1].tool_uses
    assert [r.tool_use_id for r in history[2].tool_results] == [c.id for c in calls]
    assert [r.content for r in history[2].tool_results] == ["2", "4"]


async def test_tools_run_concurrently() -> None:
    # Each tool waits until the other has started: this only finishes if both run at once.
    started = {"left": asyncio.Event(), "right": asyncio.Event()}

    async def meet(me: str, other: str) -> str:
        started[me].set()
        await asyncio.wait_for(started[other].wait(), timeout=5)
        return f"{me} met {other}"

    @tool
    async def left() -> str:
        """Left side."""
        return await meet("left", "right")

    @tool
    async def right() -> str:
        """Right side."""
        return await meet("right", "left")

    stub = StubTransport(
        [make_tool_use_response("left", calls=[("right", {})]), make_text_response("met")]
    )
    store = MemoryContextStore()
    await Agent(None, stub, tools=[left, right]).run("meet", store)
    results = (await store.get_history())[2].tool_results
    assert [(r.content, r.is_error) for r in results] == [
        ("left met right", False),
        ("right met left", False),
    ]


# Failures become error results, and the loop goes on


async def test_a_tool_that_raises_becomes_an_error_result() -> None:
    @tool
    async def explode(path: str) -> str:
        """Always fails."""
        raise FileNotFoundError(f"no such file: {path}")

    stub = StubTransport(
        [make_tool_use_response("explode", {"path": "a.txt"}, id="t1"), make_text_response("sorry")]
    )
    store = MemoryContextStore()
    assert await Agent(None, stub, tools=[explode]).run("read a.txt", store) == "sorry"
    result = result_blocks((await store.get_history())[2])["t1"]
    assert result.is_error
    assert result.content == "Error: FileNotFoundError: no such file: a.txt"
    assert stub.requests[1].messages[-1].tool_results == [result]


async def test_an_unknown_tool_becomes_an_error_result() -> None:
    stub = StubTransport(
        [make_tool_use_response("delete_everything", id="t1"), make_text_response("ok")]
    )
    store = MemoryContextStore()
    await Agent(None, stub, tools=[add]).run("go", store)
    result = result_blocks((await store.get_history())[2])["t1"]
    assert result.is_error
    assert result.content == "Error: unknown tool 'delete_everything' (available: add)"


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"a": 1}, "missing required field(s): b"),
        ({"a": 1, "b": 2, "c": 3}, "unknown field(s): c"),
        ({"a": "1", "b": 2}, "field 'a' must be integer, got str"),
        ({"a": True, "b": 2}, "field 'a' must be integer, got bool"),
        ({"a": 1.5, "b": 2}, "field 'a' must be integer, got float"),
    ],
)
async def test_malformed_tool_input_becomes_an_error_result_without_calling_the_tool(
    arguments: dict[str, Any], problem: str
) -> None:
    calls: list[dict[str, Any]] = []

    async def record(arguments: dict[str, Any]) -> str:
        calls.append(arguments)
        return "called"

    strict_add = Tool(add.name, add.description, add.input_schema, record)
    stub = StubTransport(
        [make_tool_use_response("add", arguments, id="t1"), make_text_response("ok")]
    )
    store = MemoryContextStore()
    await Agent(None, stub, tools=[strict_add]).run("go", store)
    result = result_blocks((await store.get_history())[2])["t1"]
    assert result.is_error
    assert result.content == f"Error: invalid input for add: {problem}"
    assert calls == []


async def test_enum_values_are_checked() -> None:
    @tool
    async def sort(order: Literal["asc", "desc"]) -> str:
        """Sort."""
        return order

    stub = StubTransport(
        [make_tool_use_response("sort", {"order": "random"}, id="t1"), make_text_response("ok")]
    )
    store = MemoryContextStore()
    await Agent(None, stub, tools=[sort]).run("go", store)
    result = result_blocks((await store.get_history())[2])["t1"]
    assert result.is_error
    assert "field 'order' must be one of ['asc', 'desc']" in str(result.content)


async def test_max_iterations_raises_and_leaves_a_valid_history() -> None:
    stub = StubTransport([make_tool_use_response("add", {"a": 1, "b": 1}) for _ in range(5)])
    store = MemoryContextStore()
    with pytest.raises(MaxIterationsError) as info:
        await Agent(None, stub, tools=[add], max_iterations=3).run("loop forever", store)
    assert info.value.iterations == 3
    assert len(stub.requests) == 3
    history = await store.get_history()
    assert len(history) == 1 + 3 * 2
    validate_history(history)  # no tool call left without its result


async def test_an_empty_reply_is_not_stored() -> None:
    store = MemoryContextStore()
    stub = StubTransport([Completion([], "end_turn", Usage(10, 0))])
    assert await Agent(None, stub).run("hi", store) == ""
    assert await store.get_history() == [Message.user("hi")]
    assert await store.get_context_tokens() == (10, 0)


# Token accounting


async def test_tokens_are_reported_after_every_call_before_the_reply_is_stored() -> None:
    stub = StubTransport(
        [
            make_tool_use_response("add", {"a": 1, "b": 2}, usage=Usage(1_000, 20)),
            make_tool_use_response("add", {"a": 3, "b": 4}, usage=Usage(1_100, 30)),
            make_text_response("3 then 7", usage=Usage(1_200, 40)),
        ]
    )
    store = RecordingStore()
    await Agent(None, stub, tools=[add]).run("go", store)
    assert store.events == [
        ("append", "user"),
        ("tokens", (1_000, 20)),
        ("append", "assistant"),
        ("append", "user"),
        ("tokens", (1_100, 30)),
        ("append", "assistant"),
        ("append", "user"),
        ("tokens", (1_200, 40)),
        ("append", "assistant"),
    ]
    assert await store.get_context_tokens() == (3_300, 90)


async def test_reported_input_tokens_are_the_transports_usage() -> None:
    stub = StubTransport([make_text_response("ok")])
    store = RecordingStore()
    await Agent("system prompt", stub).run("x" * 400, store)
    assert ("tokens", (stub.requests[0].input_tokens, 1)) in store.events


# Streaming


async def test_run_stream_yields_deltas_and_stores_what_run_stores() -> None:
    def script() -> list[Any]:
        return [
            make_tool_use_response("add", {"a": 20, "b": 22}, id="t1", text="Let me add."),
            make_text_response("The answer is 42."),
        ]

    streamed_store, plain_store = MemoryContextStore(), MemoryContextStore()
    streaming = Agent(None, StubTransport(script(), stream_chunk_chars=4), tools=[add])
    deltas = [d async for d in streaming.run_stream("add 20 and 22", streamed_store)]
    await Agent(None, StubTransport(script()), tools=[add]).run("add 20 and 22", plain_store)

    assert all(isinstance(d, str) and 0 < len(d) <= 4 for d in deltas)
    assert "".join(deltas) == "Let me add.The answer is 42."
    assert await streamed_store.get_history() == await plain_store.get_history()


async def test_run_stream_falls_back_to_complete_for_non_streaming_transports() -> None:
    class CompleteOnly:
        model = ModelInfo("plain")

        async def complete(
            self,
            messages: Sequence[Message],
            tools: Sequence[ToolSpec] = (),
            system: str | None = None,
        ) -> Completion:
            return Completion([TextBlock("whole reply")], "end_turn", Usage(5, 2))

    store = MemoryContextStore()
    assert [d async for d in Agent(None, CompleteOnly()).run_stream("hi", store)] == []
    assert (await store.get_history())[-1] == Message.assistant("whole reply")


async def test_a_stream_without_a_completion_is_a_response_format_error() -> None:
    class Broken:
        model = ModelInfo("broken")

        async def complete(
            self,
            messages: Sequence[Message],
            tools: Sequence[ToolSpec] = (),
            system: str | None = None,
        ) -> Completion:
            raise AssertionError("the agent should stream")

        async def stream(
            self,
            messages: Sequence[Message],
            tools: Sequence[ToolSpec] = (),
            system: str | None = None,
        ) -> AsyncIterator[str | Completion]:
            yield "partial"

    store = MemoryContextStore()
    with pytest.raises(ResponseFormatError, match="ended without a Completion"):
        _ = [d async for d in Agent(None, Broken()).run_stream("hi", store)]
    assert await store.get_history() == [Message.user("hi")]


# Context overflow: compact once and retry


async def test_overflow_compacts_a_compactable_store_and_retries_once() -> None:
    stub = StubTransport([make_overflow_error(), make_text_response("fits now")])
    store = CompactingStore([Message.user("old " * 50), Message.assistant("old answer")])
    assert await Agent(None, stub).run("new question", store) == "fits now"
    assert store.compact_calls == [True]
    assert [m.text for m in stub.requests[0].messages] == [
        "old " * 50,
        "old answer",
        "new question",
    ]
    assert [m.text for m in stub.requests[1].messages] == ["new question"]
    assert await store.get_history() == [
        Message.user("new question"),
        Message.assistant("fits now"),
    ]


async def test_overflow_retry_also_works_when_streaming() -> None:
    stub = StubTransport([make_overflow_error(), make_text_response("streamed")])
    store = CompactingStore([Message.user("old"), Message.assistant("old answer")])
    deltas = [d async for d in Agent(None, stub).run_stream("new", store)]
    assert "".join(deltas) == "streamed"
    assert store.compact_calls == [True]


async def test_overflow_on_a_store_that_cannot_compact_is_raised() -> None:
    stub = StubTransport([make_overflow_error("prompt is too long: 210000 tokens")])
    store = RecordingStore()
    with pytest.raises(ContextOverflowError, match="210000 tokens"):
        await Agent(None, stub).run("hi", store)
    assert len(stub.requests) == 1


async def test_overflow_is_raised_when_compaction_frees_nothing() -> None:
    stub = StubTransport([make_overflow_error(), make_text_response("never sent")])
    store = CompactingStore([Message.user("old")], succeeds=False)
    with pytest.raises(ContextOverflowError):
        await Agent(None, stub).run("hi", store)
    assert store.compact_calls == [True]
    assert len(stub.requests) == 1


async def test_a_second_overflow_is_raised_after_one_compaction() -> None:
    stub = StubTransport([make_overflow_error(), make_overflow_error(), make_text_response("no")])
    store = CompactingStore([Message.user("old")])
    with pytest.raises(ContextOverflowError):
        await Agent(None, stub).run("hi", store)
    assert store.compact_calls == [True]
    assert len(stub.requests) == 2
    assert stub.remaining == 1


async def test_each_model_call_gets_its_own_overflow_retry() -> None:
    stub = StubTransport(
        [
            make_overflow_error(),
            make_tool_use_response("add", {"a": 1, "b": 1}),
            make_overflow_error(),
            make_text_response("2"),
        ]
    )
    store = CompactingStore([Message.user("old")])
    assert await Agent(None, stub, tools=[add]).run("1+1?", store) == "2"
    assert store.compact_calls == [True, True]


# The @tool decorator


def test_tool_decorator_builds_a_schema_from_annotations() -> None:
    @tool
    async def search(
        query: str,
        limit: int = 10,
        scope: Literal["code", "docs"] = "code",
        tags: list[str] | None = None,
        ids: list[int] = [],  # noqa: B006 - a default the schema must mark as optional
        threshold: float = 0.5,
        exact: bool = False,
        since: int | None = None,
        options: dict[str, Any] | None = None,
    ) -> str:
        """Search the project."""
        return query

    assert search.name == "search"
    assert search.description == "Search the project."
    assert search.input_schema == {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer"},
            "scope": {"enum": ["code", "docs"]},
            "tags": {"type": ["array", "null"], "items": {"type": "string"}},
            "ids": {"type": "array", "items": {"type": "integer"}},
            "threshold": {"type": "number"},
            "exact": {"type": "boolean"},
            "since": {"type": ["integer", "null"]},
            "options": {"type": ["object", "null"]},
        },
        "required": ["query"],
        "additionalProperties": False,
    }


def test_tool_decorator_takes_a_name_and_description() -> None:
    @tool(name="lookup", description="Look a word up.")
    async def find_word(word: str) -> str:
        return word

    assert (find_word.name, find_word.description) == ("lookup", "Look a word up.")
    assert find_word.spec == ToolSpec("lookup", "Look a word up.", find_word.input_schema)


def test_tool_decorator_rejects_varargs() -> None:
    with pytest.raises(TypeError, match="cannot take \\*args or \\*\\*kwargs"):

        @tool
        async def anything(*args: str) -> str:
            return ""


async def test_optional_parameters_accept_null_and_defaults_apply() -> None:
    seen: list[tuple[int | None, str, Literal["a", "b"] | None]] = []

    @tool
    async def pick(
        n: int | None, label: str = "none", mode: Literal["a", "b"] | None = None
    ) -> str:
        """Pick."""
        seen.append((n, label, mode))
        return "picked"

    assert pick.input_schema["properties"]["mode"] == {"enum": ["a", "b", None]}
    stub = StubTransport(
        [
            make_tool_use_response("pick", {"n": None, "mode": None}, id="t1"),
            make_tool_use_response("pick", {"n": 3, "label": "x", "mode": "b"}, id="t2"),
            make_text_response("ok"),
        ]
    )
    store = MemoryContextStore()
    await Agent(None, stub, tools=[pick]).run("go", store)
    history = await store.get_history()
    assert not result_blocks(history[2])["t1"].is_error
    assert not result_blocks(history[4])["t2"].is_error
    assert seen == [(None, "none", None), (3, "x", "b")]


async def test_tool_outputs_are_normalised() -> None:
    @tool
    async def as_blocks() -> list[TextBlock]:
        """Blocks."""
        return [TextBlock("a"), TextBlock("b")]

    @tool
    async def as_json() -> dict[str, Any]:
        """JSON."""
        return {"files": ["a.py"], "count": 1}

    def sync_handler(arguments: dict[str, Any]) -> str:
        return "sync works"

    sync_tool = Tool("sync", "A plain function.", {"type": "object"}, sync_handler)
    stub = StubTransport(
        [
            make_tool_use_response("as_blocks", id="t1", calls=[("as_json", {}), ("sync", {})]),
            make_text_response("ok"),
        ]
    )
    store = MemoryContextStore()
    await Agent(None, stub, tools=[as_blocks, as_json, sync_tool]).run("go", store)
    contents = [r.content for r in (await store.get_history())[2].tool_results]
    assert contents == [
        [TextBlock("a"), TextBlock("b")],
        '{"files": ["a.py"], "count": 1}',
        "sync works",
    ]


def test_agent_rejects_bad_configuration() -> None:
    with pytest.raises(ValueError, match="two tools are named 'add'"):
        Agent(None, StubTransport(), tools=[add, add])
    with pytest.raises(ValueError, match="max_iterations must be at least 1, got 0"):
        Agent(None, StubTransport(), max_iterations=0)


async def test_a_handler_in_the_script_can_inspect_what_the_agent_sent() -> None:
    def check(request: StubRequest) -> Any:
        assert request.messages[-1].tool_results[0].content == "5"
        return make_text_response("checked")

    stub = StubTransport([make_tool_use_response("add", {"a": 2, "b": 3}), check])
    assert await Agent(None, stub, tools=[add]).run("go", MemoryContextStore()) == "checked"
