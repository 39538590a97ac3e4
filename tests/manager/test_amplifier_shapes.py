"""The manager with the message dicts Amplifier's orchestrators write (issue 18, item 1)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold.manager import CompactingContextManager, ManagerOptions, manager_settings
from contextfold.messages import Message
from contextfold.testing import FunctionTransport, make_text_response
from tests.manager._loop_basic import (
    Wire,
    assistant_dict,
    final_response,
    hook_note,
    rebuilds,
    response_with_calls,
    tool_dict,
    tool_pairs_intact,
    turn,
    unusual_blocks,
)

SUMMARY = "## User requests and intent\nTasks were done.\n## Current state\nAll fine."


def summarizer() -> FunctionTransport:
    return FunctionTransport(lambda request: make_text_response(SUMMARY))


def transcript(turns: int, *, streaming: bool = False) -> list[Wire]:
    head: list[Wire] = [{"role": "system", "content": "You are an agent."}]
    return head + [m for i in range(turns) for m in turn(i, streaming=streaming)]


async def filled(manager: CompactingContextManager, wires: list[Wire]) -> CompactingContextManager:
    for wire in wires:
        await manager.add_message(wire)
    return manager


def by_id(wires: list[Wire]) -> dict[str, Wire]:
    return {w["tool_call_id"]: w for w in wires if w["role"] == "tool"}


async def test_a_loop_basic_tool_turn_is_accepted_and_returned_unchanged() -> None:
    # On the starting commit add_message raised "a tool call is missing field 'function'".
    wires = transcript(3)
    manager = await filled(CompactingContextManager(), copy.deepcopy(wires))
    assert await manager.get_messages() == wires
    assert await manager.get_messages_for_request() == wires
    rebuilds(await manager.get_messages_for_request())


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize("with_summary", [False, True])
async def test_a_compacted_view_is_valid_for_amplifier_and_keeps_tool_pairs(
    streaming: bool, with_summary: bool
) -> None:
    wires = [hook_note("remember the rules"), *transcript(12, streaming=streaming)]
    manager = await filled(
        CompactingContextManager(
            transport=summarizer() if with_summary else None,
            keep_recent=4,
            settings=manager_settings(max_tool_chars=200),
        ),
        copy.deepcopy(wires),
    )
    view = await manager.get_messages_for_request(token_budget=2_500)
    assert len(view) < len(wires)
    rebuilds(view)  # every dict, kept or fresh, is a valid amplifier_core Message
    assert tool_pairs_intact(view) == []
    assert all(w.get("content") is not None for w in view)
    originals = [w for w in wires if w["role"] == "assistant"]
    for kept in (w for w in view if w["role"] == "assistant" and w.get("tool_calls")):
        assert kept in originals  # thinking signatures, metadata, tool_calls untouched
    stored = by_id(wires)
    for call_id, result in by_id(view).items():
        assert {k: v for k, v in result.items() if k != "content"} == {
            k: v for k, v in stored[call_id].items() if k != "content"
        }  # a truncated result keeps tool_call_id and name
    if with_summary:
        assert any(SUMMARY in str(w["content"]) for w in view)
    assert await manager.get_messages() == wires


async def test_thinking_signatures_of_the_current_turn_survive_compaction() -> None:
    wires = transcript(10)
    manager = await filled(
        CompactingContextManager(transport=summarizer(), keep_recent=3), copy.deepcopy(wires)
    )
    view = await manager.get_messages_for_request(token_budget=2_000)
    last_call = max(i for i, w in enumerate(view) if w["role"] == "assistant" and "tool_calls" in w)
    thinking = [
        b
        for w in view
        for b in w["content"]
        if isinstance(w["content"], list) and b["type"] == "thinking"
    ]
    assert view[last_call] in wires
    assert thinking
    assert all(b["signature"].startswith("sig-") for b in thinking)


async def test_unusual_amplifier_blocks_are_accepted_and_returned_unchanged() -> None:
    wires = [{"role": "system", "content": "sys"}, *unusual_blocks()]
    manager = await filled(CompactingContextManager(), copy.deepcopy(wires))
    assert await manager.get_messages_for_request() == wires
    rebuilds(wires)


async def test_tool_results_in_blocks_pair_with_their_calls() -> None:
    manager = CompactingContextManager()
    call = assistant_dict(response_with_calls(0, 0, 2))
    await manager.add_message({"role": "user", "content": "go"})
    await manager.add_message(call)
    results = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_call_id": "call-0-0-0", "output": {"ok": True}},
            {"type": "tool_result", "tool_call_id": "call-0-0-1", "output": "done"},
        ],
    }
    await manager.add_message(results)
    with pytest.raises(ValueError, match="answers no open tool call"):
        await manager.add_message(tool_dict("call-0-0-0", "again"))
    assert await manager.get_messages() == [{"role": "user", "content": "go"}, call, results]


async def test_saved_transcripts_of_either_shape_resume_through_set_messages() -> None:
    amplifier = transcript(4)
    openai: list[Wire] = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
    ]
    manager = CompactingContextManager()
    for saved in (amplifier, openai, amplifier + openai[1:]):
        await manager.set_messages(copy.deepcopy(saved))
        assert await manager.get_messages() == saved
        assert await manager.get_messages_for_request() == saved


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"role": "assistant", "content": "", "tool_calls": [{"tool": "x"}]}, "string 'id'"),
        (
            {"role": "assistant", "content": [{"type": "tool_call", "id": "a", "input": {}}]},
            "needs a string 'name'",
        ),
        ({"role": "assistant", "content": [{"type": "thinking"}]}, "string 'thinking'"),
        ({"role": "user", "content": [{"text": "no type"}]}, "malformed content part"),
        (
            {"role": "user", "content": [{"type": "image", "source": {}}, {"text": "x"}]},
            "string 'type'",
        ),
        ({"role": "user", "content": [{"type": "image", "source": "x"}]}, "object in field"),
        (
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "a", "tool": "t", "arguments": [1]}],
            },
            "must be an object",
        ),
        (
            {"role": "function", "content": "x", "tool_calls": [{"id": "a", "tool": "t"}]},
            "unsupported role",
        ),
        ({"content": [{"type": "thinking", "thinking": "t"}]}, "missing field 'role'"),
    ],
)
async def test_malformed_amplifier_messages_are_rejected_and_not_stored(
    message: Wire, error: str
) -> None:
    manager = await filled(CompactingContextManager(), [{"role": "user", "content": "hi"}])
    with pytest.raises(ValueError, match=rf"message 1\b.*{error}"):
        await manager.add_message(message)
    assert await manager.get_messages() == [{"role": "user", "content": "hi"}]


async def rewrite_assistants(messages: list[Message]) -> list[Message]:
    """A strategy that rebuilds every assistant message (so the view must write them)."""
    return [Message(m.role, list(m.content)) if m.role == "assistant" else m for m in messages]


async def test_fresh_messages_of_an_amplifier_history_are_written_in_its_shape() -> None:
    wires = transcript(8)
    manager = await filled(
        CompactingContextManager(options=ManagerOptions(strategies=[rewrite_assistants])),
        copy.deepcopy(wires),
    )
    view = await manager.get_messages_for_request(token_budget=3_000)
    rebuilds(view)
    rewritten = [w for w in view if w["role"] == "assistant" and "tool_calls" in w]
    assert rewritten
    for wire in rewritten:
        original = next(w for w in wires if w.get("tool_calls") == wire["tool_calls"])
        assert all(set(c) == {"id", "tool", "arguments"} for c in wire["tool_calls"])
        signed = [b for b in original["content"] if b["type"] == "thinking"]
        kept = [b for b in wire["content"] if b["type"] == "thinking"]
        assert [b["signature"] for b in kept] == [b["signature"] for b in signed]
    assert tool_pairs_intact(view) == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 900), st.booleans()), min_size=1, max_size=14
    ),
    st.integers(300, 5_000),
    st.booleans(),
)
async def test_any_loop_basic_history_gets_a_view_amplifier_accepts(
    steps: list[tuple[int, int, bool]], budget: int, with_summary: bool
) -> None:
    wires: list[Wire] = [{"role": "system", "content": "agent"}]
    for i, (calls, padding, streaming) in enumerate(steps):
        wires.append({"role": "user", "content": f"task {i}"})
        if calls:
            response = response_with_calls(i, 0, calls, thinking=streaming)
            wires.append(assistant_dict(response, streaming=streaming))
            for tc in response.tool_calls or []:
                wires.append(tool_dict(tc.id, "o" * padding, name="echo" if streaming else None))
        wires.append(assistant_dict(final_response(i), streaming=streaming))
    manager = await filled(
        CompactingContextManager(
            transport=summarizer() if with_summary else None,
            keep_recent=3,
            settings=manager_settings(max_tool_chars=100),
        ),
        copy.deepcopy(wires),
    )
    view = await manager.get_messages_for_request(token_budget=budget)
    rebuilds(view)
    assert tool_pairs_intact(view) == []
    assert view[-1] == wires[-1]
    assert await manager.get_messages() == wires


@pytest.mark.parametrize("with_text", [False, True])
async def test_a_truncated_result_in_a_block_list_is_not_duplicated(with_text: bool) -> None:
    call = assistant_dict(response_with_calls(0, 0, 1))
    text = [{"type": "text", "text": "and also look at this"}] if with_text else []
    mixed = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_call_id": "call-0-0-0", "output": "r" * 5_000},
            *text,
        ],
    }
    wires = [{"role": "user", "content": "go"}, call, mixed, assistant_dict(final_response(0))]
    manager = await filled(
        CompactingContextManager(settings=manager_settings(max_tool_chars=100)),
        copy.deepcopy(wires),
    )
    view = await manager.get_messages_for_request(token_budget=600)
    rebuilds(view)
    results = [w for w in view if w["role"] == "tool"]
    assert [w["tool_call_id"] for w in results] == ["call-0-0-0"]
    assert len(results[0]["content"]) < 5_000
    assert mixed not in view
    assert ({"role": "user", "content": "and also look at this"} in view) is with_text
    assert tool_pairs_intact(view) == []
