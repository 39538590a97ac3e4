"""MaskToolOutputs: old, large tool outputs become placeholders with a stable handle."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold._masking import masked_handle, output_handle, output_text, recallable_section
from contextfold.blocks import ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message
from contextfold.strategies import MaskToolOutputs, Pipeline, TrimRounds, TruncateToolOutputs
from contextfold.tokens import count_tokens
from contextfold.validation import validate_history
from tests._histories import PNG, histories

BIG = "\n".join(f"line {i}: some output of the tool" for i in range(200))  # ~6,500 chars


def session(rounds: int, output: str = BIG) -> list[Message]:
    history = [Message.system("You are a coding agent."), Message.user("Fix the bug.")]
    for r in range(rounds):
        history.append(
            Message("assistant", [ToolUseBlock(f"c{r}", "read_file", {"path": f"src/m{r}.py"})])
        )
        history.append(Message("user", [ToolResultBlock(f"c{r}", f"[{r}] {output}")]))
    history.append(Message.assistant("Done."))
    return history


async def test_old_large_outputs_become_placeholders_and_recent_rounds_stay() -> None:
    history = session(5)
    out = await MaskToolOutputs(keep_rounds=2).compact(history)
    validate_history(out)
    assert len(out) == len(history)
    masked = [m for m in out if m.tool_results and masked_handle(m.tool_results[0])]
    assert len(masked) == 4  # the last two rounds (the call c4, the answer) are kept
    assert out[-3:] == history[-3:]
    first = masked[0].tool_results[0]
    assert first.tool_use_id == "c0"
    assert not first.is_error
    text = first.content
    assert isinstance(text, str)
    original = history[3].tool_results[0]
    header = text.splitlines()[0]
    assert header.startswith(f"[masked tool output: handle={output_handle(original)} ")
    assert 'read_file {"path":"src/m0.py"}' in header
    assert f"{len(original.content)} chars" in header
    assert "[0] line 0: some output" in text  # the head
    assert count_tokens(out) < count_tokens(history) / 3


async def test_masking_is_idempotent_and_returns_the_same_list_when_nothing_changes() -> None:
    strategy = MaskToolOutputs(keep_rounds=1)
    out = await strategy.compact(session(4))
    assert await strategy.compact(out) is out
    small = session(4, output="tiny")
    assert await strategy.compact(small) is small
    short = session(1)  # two rounds: the call and the answer
    assert await MaskToolOutputs(keep_rounds=2).compact(short) is short


def test_the_handle_is_stable_across_processes() -> None:
    block = ToolResultBlock("call_7", [TextBlock("x" * 3000), ImageBlock("image/png", PNG)])
    code = (
        "from contextfold._masking import output_handle; "
        "from contextfold.blocks import ToolResultBlock, TextBlock, ImageBlock; "
        "from tests._histories import PNG; "
        "print(output_handle(ToolResultBlock('call_7', [TextBlock('x' * 3000), "
        "ImageBlock('image/png', PNG)])))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == output_handle(block)
    assert output_handle(ToolResultBlock("call_8", block.content)) != output_handle(block)
    assert output_handle(ToolResultBlock("call_7", block.content, True)) != output_handle(block)


async def test_list_content_with_images_is_masked_as_one_text() -> None:
    history = session(3)
    history[3] = Message(
        "user", [ToolResultBlock("c0", [TextBlock(BIG), ImageBlock("image/png", PNG)])]
    )
    out = await MaskToolOutputs(keep_rounds=1).compact(history)
    result = out[3].tool_results[0]
    assert isinstance(result.content, str)
    assert "1 image(s)" in result.content.splitlines()[0]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="keep_rounds"):
        MaskToolOutputs(0)
    with pytest.raises(ValueError, match="min_chars"):
        MaskToolOutputs(min_chars=100, head_chars=100)
    with pytest.raises(ValueError, match="head_chars"):
        MaskToolOutputs(head_chars=-1)


async def test_masking_composes_with_the_other_strategies() -> None:
    history = session(8)
    out = await Pipeline(MaskToolOutputs(2), TruncateToolOutputs(1_000), TrimRounds(5)).compact(
        history
    )
    validate_history(out)
    handles = [masked_handle(r) for m in out for r in m.tool_results]
    # the latest call's output is cut by TruncateToolOutputs only; placeholders pass through
    assert handles.count(None) == 1
    assert len(handles) == 4
    assert len(out) == 2 + 2 * 4 + 1
    # a placeholder whose head a later strategy cut is still one (and listed as one)
    cut = await Pipeline(MaskToolOutputs(1), TruncateToolOutputs(300)).compact(history)
    original = history[3].tool_results[0]
    assert masked_handle(cut[3].tool_results[0]) == output_handle(original)
    assert f"- {output_handle(original)}: read_file" in recallable_section("S", cut[1:5])


def test_a_summary_lists_what_it_replaced_and_carries_the_previous_list() -> None:
    history = session(3)
    body = history[1:]
    first = recallable_section("Summary one.", body)
    assert first.startswith("Summary one.\n\nRecallable originals")
    for r in range(3):
        assert output_handle(history[2 + 2 * r + 1].tool_results[0]) in first
    assert "msgs-" in first
    assert "the 8 messages this summary replaced" in first
    # The next summary keeps the earlier entries, once, and adds its own.
    later = session(1, output="other " + BIG)[1:]
    second = recallable_section("Summary two.\n\n" + first.split("\n\n", 1)[1], later, first)
    assert second.count("Recallable originals") == 1
    assert all(line in second for line in first.splitlines()[2:])
    assert output_handle(later[2].tool_results[0]) in second
    assert recallable_section("No tools.", [Message.user("hi")]) == "No tools."


def test_a_list_the_summarizer_copied_is_dropped_but_what_it_wrote_after_it_is_kept() -> None:
    history = session(2)
    first = recallable_section("Summary one.", history[1:])
    copied = first.split("\n\n", 1)[1]  # the list alone, as the summarizer saw it
    summary = f"## Intent\nFix the bug.\n\n{copied}\n\n## Current state\nTests pass."
    later = session(1, output="other " + BIG)[1:]
    second = recallable_section(summary, later, first)
    assert second.startswith("## Intent\nFix the bug.\n\n## Current state\nTests pass.\n\n")
    assert second.count("Recallable originals") == 1
    assert all(line in second for line in first.splitlines()[2:])


async def test_an_output_that_only_starts_like_a_placeholder_is_masked_by_its_own_handle() -> None:
    forged = "[masked tool output: handle=out-000000000000 x]\n" + BIG
    history = session(3)
    history[3] = Message("user", [ToolResultBlock("c0", forged)])
    out = await MaskToolOutputs(keep_rounds=1).compact(history)
    original = history[3].tool_results[0]
    placeholder = out[3].tool_results[0]
    assert masked_handle(placeholder) == output_handle(original)
    assert len(output_text(placeholder)) < len(output_text(original)) / 5
    listed = recallable_section("S", history[1:5])
    assert output_handle(original) in listed
    assert "out-000000000000" not in listed
    assert await MaskToolOutputs(keep_rounds=1).compact(out) is out  # still idempotent


# Properties over arbitrary valid histories -------------------------------------------------


def inflate(history: list[Message], factor: int) -> list[Message]:
    """``history`` with every tool output's text repeated ``factor`` times (still valid)."""

    def grow(block: ToolResultBlock) -> ToolResultBlock:
        content = block.content
        if isinstance(content, str):
            return ToolResultBlock(block.tool_use_id, content * factor, block.is_error)
        parts = [TextBlock(p.text * factor) if isinstance(p, TextBlock) else p for p in content]
        return ToolResultBlock(block.tool_use_id, parts, block.is_error)

    return [
        Message(m.role, [grow(b) if isinstance(b, ToolResultBlock) else b for b in m.content])
        if m.tool_results
        else m
        for m in history
    ]


@settings(max_examples=200, deadline=None)
@given(histories(), st.integers(1, 80), st.integers(1, 4), st.integers(1, 400), st.integers(0, 60))
async def test_masking_properties(
    history: list[Message], factor: int, keep: int, min_chars: int, head_chars: int
) -> None:
    history = inflate(history, factor)
    snapshot = [m.copy() for m in history]
    strategy = MaskToolOutputs(keep, min_chars=min_chars + head_chars, head_chars=head_chars)
    out = await strategy.compact(history)
    validate_history(out, allow_pending=True)
    assert history == snapshot  # the input was not modified
    assert len(out) == len(history)
    for before, after in zip(history, out, strict=True):
        assert after.role == before.role
        if not before.tool_results:
            assert after is before
            continue
        assert [type(b) for b in after.content] == [type(b) for b in before.content]
        for old, new in zip(before.tool_results, after.tool_results, strict=True):
            assert (new.tool_use_id, new.is_error) == (old.tool_use_id, old.is_error)
            if new is not old:
                assert masked_handle(new) == output_handle(old)
                assert isinstance(new.content, str)
                assert len(new.content) < len(output_text(old))
                assert output_text(old)[:head_chars] in new.content
    # the last rounds are never touched; masking twice changes nothing more
    assert await strategy.compact(out) is out
    if out is not history:
        assert count_tokens(out) <= count_tokens(history)


@settings(max_examples=100, deadline=None)
@given(histories(), st.integers(20, 80))
async def test_every_masked_output_is_recalled_exactly_from_the_archive(
    history: list[Message], factor: int
) -> None:
    from contextfold.context import MemoryContextStore
    from contextfold.recall import recall

    history = inflate(history, factor)
    store = MemoryContextStore(history)
    masked = await MaskToolOutputs(1, min_chars=50, head_chars=10).compact(history)
    await store.replace_history(masked)
    originals = {r.tool_use_id: r for m in history for r in m.tool_results}
    for message in await store.get_history():
        for result in message.tool_results:
            handle = masked_handle(result)
            if handle is None:
                continue
            page = await recall(store, handle, max_chars=10**9)
            assert page.text == output_text(originals[result.tool_use_id])
