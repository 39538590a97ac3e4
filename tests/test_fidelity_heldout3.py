"""The third held-out fidelity set: six session kinds written without seeing the
compaction code or the other sets. These tests check the sessions themselves (seeded,
valid, probes planted where the checker finds them, never in the filler); they do not
look at survival numbers, so nothing is tuned against the set."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message
from contextfold.validation import history_problems
from contextfold_harness.fidelity import (
    HELDOUT2_KINDS,
    HELDOUT3_KINDS,
    HELDOUT_KINDS,
    PROBE_KINDS,
    SESSION_KINDS,
    Session,
    generate,
    generate_heldout3,
    history_text,
    probe_survives,
)
from contextfold_harness.fidelity._build import Builder
from contextfold_harness.fidelity._heldout3 import _TEMPLATES

CLI = shutil.which("contextfold", path=str(Path(sys.executable).parent)) or shutil.which(
    "contextfold"
)
SEEDS = (0, 1, 2, 5, 11, 42)


def _filler(session: Session) -> list[Message]:
    return [m for segment in session.segments for m in segment]


def test_six_kinds_none_shared_with_the_other_sets() -> None:
    assert len(HELDOUT3_KINDS) == 6
    assert len(set(HELDOUT3_KINDS)) == 6
    others = {*SESSION_KINDS, *HELDOUT_KINDS, *HELDOUT2_KINDS}
    assert not others & set(HELDOUT3_KINDS)


@pytest.mark.parametrize("kind", HELDOUT3_KINDS)
def test_a_seed_always_gives_the_same_session(kind: str) -> None:
    first, again, other = (generate_heldout3(kind, s, segments=4) for s in (7, 7, 8))
    assert first.kind == kind
    assert first.seed == 7
    assert first.opening == again.opening
    assert first.segments == again.segments
    assert first.probes == again.probes
    assert first.probes != other.probes
    assert first.opening != other.opening
    assert generate(kind, 7, segments=4).opening == first.opening


@pytest.mark.parametrize("kind", HELDOUT3_KINDS)
def test_the_generator_is_seeded_by_kind_and_seed(kind: str) -> None:
    rng = random.Random(f"heldout3:{kind}:3")
    opening, filler, probes = _TEMPLATES[kind](rng, Builder(rng), 2)
    session = generate_heldout3(kind, 3, segments=2)
    assert (session.opening, session.segments, session.probes) == (opening, filler, probes)


@pytest.mark.parametrize("kind", HELDOUT3_KINDS)
@pytest.mark.parametrize("segments", [1, 3, 10])
def test_sessions_are_valid_histories_in_both_dialects(kind: str, segments: int) -> None:
    for seed in SEEDS:
        session = generate_heldout3(kind, seed, segments=segments)
        assert len(session.segments) == segments
        history = [*session.opening, *_filler(session)]
        for dialect in ("anthropic", "openai"):
            assert history_problems(history, dialect) == [], (kind, seed, dialect)
        # Each compaction appends one segment after the compacted history: a segment
        # opens with the user's words and closes with the assistant's.
        assert session.opening[0].role == "user"
        assert session.opening[-1].role == "assistant"
        for segment in session.segments:
            assert segment[0].role == "user"
            assert isinstance(segment[0].content[0], TextBlock)
            assert segment[-1].role == "assistant"
            assert history_problems([*session.opening, *segment]) == []


@pytest.mark.parametrize("kind", HELDOUT3_KINDS)
def test_tool_calls_are_paired_and_every_text_is_non_empty(kind: str) -> None:
    session = generate_heldout3(kind, 9, segments=6)
    history = [*session.opening, *_filler(session)]
    uses = [b.id for m in history for b in m.content if isinstance(b, ToolUseBlock)]
    results = [b.tool_use_id for m in history for b in m.content if isinstance(b, ToolResultBlock)]
    assert uses == results
    assert len(set(uses)) == len(uses)
    assert all(b.text.strip() for m in history for b in m.content if isinstance(b, TextBlock))


@pytest.mark.parametrize("kind", HELDOUT3_KINDS)
def test_seven_probes_of_the_four_kinds(kind: str) -> None:
    for seed in SEEDS:
        probes = generate_heldout3(kind, seed, segments=1).probes
        assert [p.kind for p in probes] == [
            "identifier",
            "identifier",
            "identifier",
            "artifact",
            "artifact",
            "decision",
            "next_step",
        ]
        assert {p.kind for p in probes} == set(PROBE_KINDS)
        for probe in probes:
            assert probe.question.endswith("?")
            assert probe.answer
            if probe.kind == "identifier":
                assert len(probe.needles) == 1
                assert len(probe.needles[0]) == 1
                assert probe.needles[0][0] == probe.answer
            else:
                assert len(probe.needles) >= 2
        identifiers = [p.answer for p in probes if p.kind == "identifier"]
        assert len(set(identifiers)) == 3


@pytest.mark.parametrize("kind", HELDOUT3_KINDS)
def test_every_probe_is_planted_in_the_opening(kind: str) -> None:
    for seed in SEEDS:
        session = generate_heldout3(kind, seed, segments=3)
        opening = history_text(session.opening)
        for probe in session.probes:
            if probe.kind == "identifier":
                assert probe.needles[0][0] in opening, (kind, seed, probe)
            assert probe_survives(probe, opening), (kind, seed, probe)


@pytest.mark.parametrize("kind", HELDOUT3_KINDS)
def test_the_filler_never_holds_a_planted_fact(kind: str) -> None:
    for seed in (*SEEDS, *range(100, 110)):
        session = generate_heldout3(kind, seed, segments=10)
        filler = history_text(_filler(session))
        for probe in session.probes:
            if probe.kind == "identifier":
                assert probe.needles[0][0] not in filler, (kind, seed, probe)
            # nor do the other probes' expected words meet on one line of the filler
            assert not probe_survives(probe, filler), (kind, seed, probe)


@pytest.mark.parametrize("kind", HELDOUT3_KINDS)
def test_the_decision_probe_is_the_users_correction(kind: str) -> None:
    """The decision's expected words first appear in a user message that is not the
    first one (the earlier instruction it overrides does not match them)."""
    for seed in SEEDS:
        session = generate_heldout3(kind, seed, segments=1)
        decision = next(p for p in session.probes if p.kind == "decision")
        first = next(
            i
            for i in range(len(session.opening))
            if probe_survives(decision, history_text(session.opening[: i + 1]))
        )
        message = session.opening[first]
        assert first > 0
        assert message.role == "user"
        assert not message.tool_results
        assert probe_survives(decision, message.text)


def test_an_unknown_kind_is_refused_naming_the_set() -> None:
    with pytest.raises(ValueError, match="heldout3"):
        generate_heldout3("poetry", 0)
    with pytest.raises(ValueError, match="vulntriage"):
        generate("poetry", 0)


@pytest.mark.skipif(CLI is None, reason="the contextfold console script is not installed")
def test_the_cli_runs_the_third_held_out_set() -> None:
    assert CLI is not None
    result = subprocess.run(
        [CLI, "fidelity", "--json", "--seeds", "1", "--depths", "1", "--kinds", "heldout3"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert {s["kind"] for s in report["sessions"]} == set(HELDOUT3_KINDS)
    assert report["probes"]["identifier"] == 3 * len(HELDOUT3_KINDS)
    assert report["probes"]["next_step"] == len(HELDOUT3_KINDS)
    one = subprocess.run(
        [CLI, "fidelity", "--json", "--seeds", "1", "--depths", "1", "--kinds", "lims,operator"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert one.returncode == 0, one.stderr
    assert [s["kind"] for s in json.loads(one.stdout)["sessions"]] == ["lims", "operator"]
