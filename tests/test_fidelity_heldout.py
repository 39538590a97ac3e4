"""The held-out fidelity sessions: deterministic per seed, seven probes of the four kinds
each, planted in the opening only, never given away by the filler."""

from __future__ import annotations

from collections import Counter

import pytest

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message
from contextfold.validation import validate_history
from contextfold_harness.fidelity import SESSION_KINDS, history_text, probe_survives
from contextfold_harness.fidelity._heldout import HELDOUT_KINDS, generate_heldout

SEEDS = range(12)


def _said_by(messages: list[Message], role: str) -> str:
    """The plain text ``role`` wrote (no tool calls, no tool outputs)."""
    return "\n".join(
        block.text
        for message in messages
        if message.role == role
        for block in message.content
        if isinstance(block, TextBlock)
    )


def _tool_outputs(messages: list[Message]) -> list[str]:
    return [
        str(block.content)
        for message in messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


def _tool_inputs(messages: list[Message]) -> str:
    return "\n".join(
        str(block.input)
        for message in messages
        for block in message.content
        if isinstance(block, ToolUseBlock)
    )


def test_there_are_at_least_five_kinds_and_none_is_an_existing_one() -> None:
    assert len(HELDOUT_KINDS) >= 5
    assert len(set(HELDOUT_KINDS)) == len(HELDOUT_KINDS)
    assert not set(HELDOUT_KINDS) & set(SESSION_KINDS)


@pytest.mark.parametrize("kind", HELDOUT_KINDS)
def test_a_seed_always_gives_the_same_session(kind: str) -> None:
    first, again, other = (generate_heldout(kind, s) for s in (7, 7, 8))
    assert (first.kind, first.seed) == (kind, 7)
    assert first.opening == again.opening
    assert first.segments == again.segments
    assert first.probes == again.probes
    assert first.opening != other.opening
    assert first.probes != other.probes
    validate_history([*first.opening, *(m for s in first.segments for m in s)])


@pytest.mark.parametrize("kind", HELDOUT_KINDS)
def test_the_number_of_filler_segments_is_the_one_asked_for(kind: str) -> None:
    assert len(generate_heldout(kind, 0).segments) == 10
    short = generate_heldout(kind, 0, segments=3)
    assert len(short.segments) == 3
    assert all(short.segments)
    assert short.opening == generate_heldout(kind, 0).opening


@pytest.mark.parametrize("kind", HELDOUT_KINDS)
def test_every_session_plants_three_identifiers_two_artifacts_a_decision_a_next_step(
    kind: str,
) -> None:
    for seed in SEEDS:
        probes = generate_heldout(kind, seed).probes
        assert Counter(p.kind for p in probes) == {
            "identifier": 3,
            "artifact": 2,
            "decision": 1,
            "next_step": 1,
        }
        for probe in probes:
            assert probe.question.endswith("?")
            assert probe.answer
            assert all(group and all(group) for group in probe.needles)
            if probe.kind == "identifier":
                assert probe.needles == ((probe.answer,),)
            if probe.kind == "artifact":
                assert len(probe.needles) >= 2
        identifiers = [p.answer for p in probes if p.kind == "identifier"]
        assert len(set(identifiers)) == 3


@pytest.mark.parametrize("kind", HELDOUT_KINDS)
def test_every_probe_is_planted_in_the_opening(kind: str) -> None:
    for seed in SEEDS:
        session = generate_heldout(kind, seed)
        opening = history_text(session.opening)
        for probe in session.probes:
            assert probe_survives(probe, opening), (seed, probe)


@pytest.mark.parametrize("kind", HELDOUT_KINDS)
def test_no_filler_segment_gives_a_probe_away(kind: str) -> None:
    for seed in SEEDS:
        session = generate_heldout(kind, seed)
        filler = [history_text(segment) for segment in session.segments]
        for probe in session.probes:
            if probe.kind == "identifier":
                assert not probe_survives(probe, "\n".join(filler)), (seed, probe)
            for text in filler:
                assert not probe_survives(probe, text), (seed, probe)


@pytest.mark.parametrize("kind", HELDOUT_KINDS)
def test_the_tool_outputs_confirm_every_artifact(kind: str) -> None:
    for seed in SEEDS:
        session = generate_heldout(kind, seed)
        outputs = "\n".join(_tool_outputs(session.opening))
        for probe in session.probes:
            if probe.kind == "artifact":
                assert probe_survives(probe, outputs), (seed, probe)


@pytest.mark.parametrize("kind", HELDOUT_KINDS)
def test_the_decision_comes_from_a_later_user_correction(kind: str) -> None:
    for seed in SEEDS:
        session = generate_heldout(kind, seed)
        decision = next(p for p in session.probes if p.kind == "decision")
        said = [
            (i, m)
            for i, m in enumerate(session.opening)
            if probe_survives(decision, history_text([m]))
        ]
        index, first = said[0]
        assert first.role == "user"
        assert isinstance(first.content[0], TextBlock)
        correction = first.content[0].text
        assert not correction.lower().startswith(("actually", "correction"))
        earlier = _said_by(session.opening[:index], "user")
        assert earlier, "the user must have said something else first"
        assert not probe_survives(decision, earlier)


@pytest.mark.parametrize("kind", HELDOUT_KINDS)
def test_the_next_step_is_asked_for_by_the_user(kind: str) -> None:
    session = generate_heldout(kind, 5)
    step = next(p for p in session.probes if p.kind == "next_step")
    first = next(m for m in session.opening if probe_survives(step, history_text([m])))
    assert first.role == "user"
    assert isinstance(first.content[0], TextBlock)


def test_identifiers_hide_in_user_words_assistant_words_and_tool_outputs() -> None:
    """Across the kinds, some identifiers are only in what the user said, some only in the
    assistant's text, some only in tool outputs, and of those some below the first line."""
    places: Counter[str] = Counter()
    for kind in HELDOUT_KINDS:
        session = generate_heldout(kind, 0)
        user = _said_by(session.opening, "user")
        assistant = _said_by(session.opening, "assistant")
        inputs = _tool_inputs(session.opening)
        outputs = _tool_outputs(session.opening)
        for probe in session.probes:
            if probe.kind != "identifier":
                continue
            needle = probe.answer
            in_output = any(needle in out for out in outputs)
            if needle in user:
                places["user"] += 1
            elif needle in assistant and not in_output and needle not in inputs:
                places["assistant only"] += 1
            elif in_output and needle not in assistant:
                first_lines = any(needle in out.splitlines()[0] for out in outputs if out)
                places["tool output, first line" if first_lines else "tool output, deep"] += 1
    assert places["user"] >= 3
    assert places["assistant only"] >= 2
    assert places["tool output, first line"] >= 2
    assert places["tool output, deep"] >= 3


@pytest.mark.parametrize("kind", HELDOUT_KINDS)
def test_the_sizes_stay_in_budget(kind: str) -> None:
    for seed in SEEDS:
        session = generate_heldout(kind, seed)
        assert len(history_text(session.opening)) / 4 < 4_000
        for segment in session.segments:
            assert 1_400 <= len(history_text(segment)) / 4 <= 3_100


@pytest.mark.parametrize("kind", ["coding", "Incident", "", "legal"])
def test_an_unknown_kind_is_refused_naming_the_choices(kind: str) -> None:
    with pytest.raises(ValueError, match="unknown held-out kind") as caught:
        generate_heldout(kind, 0)
    assert all(name in str(caught.value) for name in HELDOUT_KINDS)
