"""The fourth held-out set of fidelity sessions (``_heldout4``): written without seeing
the compaction code or the other sets. These tests check only that the sessions are
well formed and the probes are planted as the checker reads them, never how many survive."""

from __future__ import annotations

import json

import pytest

from contextfold.cli import main as cli_main
from contextfold.validation import validate_history
from contextfold_harness.fidelity import (
    HELDOUT2_KINDS,
    HELDOUT3_KINDS,
    HELDOUT4_KINDS,
    HELDOUT_KINDS,
    PROBE_KINDS,
    SESSION_KINDS,
    generate,
    generate_heldout4,
    history_text,
    probe_survives,
)


def test_six_kinds_of_their_own() -> None:
    assert len(HELDOUT4_KINDS) == 6
    others = {*SESSION_KINDS, *HELDOUT_KINDS, *HELDOUT2_KINDS, *HELDOUT3_KINDS}
    assert not others & set(HELDOUT4_KINDS)
    with pytest.raises(ValueError, match="fourth held-out"):
        generate_heldout4("poetry", 0)


@pytest.mark.parametrize("kind", HELDOUT4_KINDS)
def test_a_seed_always_gives_the_same_session(kind: str) -> None:
    first, again, other = (generate_heldout4(kind, s) for s in (7, 7, 8))
    assert first.opening == again.opening
    assert first.segments == again.segments
    assert first.probes == again.probes
    assert first.probes != other.probes
    assert generate(kind, 7).probes == first.probes  # generate() dispatches here


@pytest.mark.parametrize("kind", HELDOUT4_KINDS)
@pytest.mark.parametrize("segments", [1, 3, 10, 12])
def test_every_kind_builds_valid_sessions(kind: str, segments: int) -> None:
    for seed in range(4):
        session = generate_heldout4(kind, seed, segments=segments)
        assert session.kind == kind
        assert session.seed == seed
        assert len(session.segments) == segments
        validate_history([*session.opening, *(m for s in session.segments for m in s)])
        assert session.opening[-1].role == "assistant"
        for segment in session.segments:
            # each segment follows a compacted history: it opens with the user's words
            assert segment[0].role == "user"
            assert segment[0].text
            assert segment[-1].role == "assistant"
            validate_history(segment)


@pytest.mark.parametrize("kind", HELDOUT4_KINDS)
def test_seven_probes_planted_in_the_opening_as_the_checker_reads_them(kind: str) -> None:
    for seed in range(10):
        session = generate_heldout4(kind, seed)
        counts = {k: sum(p.kind == k for p in session.probes) for k in PROBE_KINDS}
        assert counts == {"identifier": 3, "artifact": 2, "decision": 1, "next_step": 1}
        opening = history_text(session.opening)
        for probe in session.probes:
            assert probe_survives(probe, opening), (kind, seed, probe)
            assert probe.question
            assert probe.answer


@pytest.mark.parametrize("kind", HELDOUT4_KINDS)
def test_the_filler_never_holds_a_planted_fact(kind: str) -> None:
    for seed in range(10):
        session = generate_heldout4(kind, seed, segments=12)
        filler = history_text([m for s in session.segments for m in s])
        identifiers = [p.needles[0][0] for p in session.probes if p.kind == "identifier"]
        assert len(set(identifiers)) == 3
        for probe in session.probes:
            assert not probe_survives(probe, filler), (kind, seed, probe)
        for ident in identifiers:
            assert ident not in filler


@pytest.mark.parametrize("kind", HELDOUT4_KINDS)
def test_the_decision_is_the_users_last_word(kind: str) -> None:
    """The decision probe is answered only after the user's correction: the opening up to
    the correction's user message does not yet satisfy it."""
    for seed in range(6):
        session = generate_heldout4(kind, seed)
        (decision,) = [p for p in session.probes if p.kind == "decision"]
        prompts = [
            i for i, m in enumerate(session.opening) if m.role == "user" and not m.tool_results
        ]
        first_line = history_text(session.opening[: prompts[1]])
        assert not probe_survives(decision, first_line), (kind, seed)
        assert probe_survives(decision, history_text(session.opening))


def test_the_cli_runs_the_fourth_held_out_set(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["fidelity", "--json", "--seeds", "1", "--depths", "1", "--kinds", "heldout4"]
    assert cli_main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert {s["kind"] for s in report["sessions"]} == set(HELDOUT4_KINDS)
    assert report["probes"] == {"identifier": 18, "artifact": 12, "decision": 6, "next_step": 6}
