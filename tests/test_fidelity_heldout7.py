"""The seventh held-out session set (written blind): seeded, valid, probes planted once."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contextfold.validation import validate_history
from contextfold_harness.fidelity import (
    HELDOUT2_KINDS,
    HELDOUT3_KINDS,
    HELDOUT4_KINDS,
    HELDOUT5_KINDS,
    HELDOUT6_KINDS,
    HELDOUT7_KINDS,
    HELDOUT_KINDS,
    PROBE_KINDS,
    SESSION_KINDS,
    generate,
    generate_heldout7,
    history_text,
    probe_survives,
)


def test_there_are_six_kinds_and_generate_dispatches_them() -> None:
    assert len(HELDOUT7_KINDS) == 6
    for kind in HELDOUT7_KINDS:
        assert generate(kind, 2, segments=3).probes == generate_heldout7(kind, 2, segments=3).probes
    with pytest.raises(ValueError, match="heldout7"):
        generate_heldout7("poetry", 0)


def test_the_kinds_are_new_and_unknown_ones_are_refused() -> None:
    earlier = {
        *SESSION_KINDS,
        *HELDOUT_KINDS,
        *HELDOUT2_KINDS,
        *HELDOUT3_KINDS,
        *HELDOUT4_KINDS,
        *HELDOUT5_KINDS,
        *HELDOUT6_KINDS,
    }
    assert not earlier & set(HELDOUT7_KINDS)
    with pytest.raises(ValueError, match="poetry"):
        generate("poetry", 0)


@pytest.mark.parametrize("kind", HELDOUT7_KINDS)
def test_a_seed_always_gives_the_same_session(kind: str) -> None:
    first, again, other = (generate_heldout7(kind, s) for s in (7, 7, 8))
    assert first.opening == again.opening
    assert first.segments == again.segments
    assert first.probes == again.probes
    assert first.probes != other.probes
    assert first.kind == kind
    assert first.seed == 7


@pytest.mark.parametrize("kind", HELDOUT7_KINDS)
@pytest.mark.parametrize(("seed", "segments"), [(0, 1), (1, 3), (5, 10), (11, 12)])
def test_sessions_are_valid_histories(kind: str, seed: int, segments: int) -> None:
    session = generate_heldout7(kind, seed, segments=segments)
    assert len(session.segments) == segments
    assert all(session.segments)
    validate_history([*session.opening, *(m for s in session.segments for m in s)])
    validate_history(session.opening)
    for segment in session.segments:
        assert segment[0].role == "user"
        assert segment[-1].role == "assistant"


@pytest.mark.parametrize("kind", HELDOUT7_KINDS)
@pytest.mark.parametrize("seed", range(6))
def test_every_probe_is_found_in_the_opening_by_the_checker(kind: str, seed: int) -> None:
    session = generate_heldout7(kind, seed)
    counts = {k: sum(p.kind == k for p in session.probes) for k in PROBE_KINDS}
    assert counts == {"identifier": 3, "artifact": 2, "decision": 1, "next_step": 1}
    opening = history_text(session.opening)
    for probe in session.probes:
        assert probe_survives(probe, opening), probe
        assert probe.question
        assert probe.answer


@pytest.mark.parametrize("kind", HELDOUT7_KINDS)
@pytest.mark.parametrize("seed", range(6))
def test_planted_ids_never_appear_in_the_filler(kind: str, seed: int) -> None:
    session = generate_heldout7(kind, seed, segments=12)
    filler = history_text([m for s in session.segments for m in s])
    for probe in session.probes:
        if probe.kind == "identifier":
            assert not probe_survives(probe, filler), probe
            assert probe.needles[0][0] not in filler
        if probe.kind == "artifact":
            name = probe.needles[0][0]
            assert name not in filler, probe
            assert not probe_survives(probe, filler), probe


@pytest.mark.parametrize("kind", HELDOUT7_KINDS)
def test_the_identifiers_of_a_session_are_distinct(kind: str) -> None:
    session = generate_heldout7(kind, 4)
    ids = [p.needles[0][0] for p in session.probes if p.kind == "identifier"]
    assert len(set(ids)) == 3


def test_the_cli_runs_the_seventh_held_out_set() -> None:
    cli = shutil.which("contextfold", path=str(Path(sys.executable).parent))
    assert cli, "the contextfold console script is not installed"
    result = subprocess.run(
        [cli, "fidelity", "--json", "--seeds", "1", "--depths", "1", "--kinds", "heldout7"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert {s["kind"] for s in report["sessions"]} == set(HELDOUT7_KINDS)
    assert report["probes"] == {
        "identifier": 18,
        "artifact": 12,
        "decision": 6,
        "next_step": 6,
    }


@pytest.mark.parametrize("kind", HELDOUT7_KINDS)
def test_the_decisions_and_next_steps_vary_with_the_seed(kind: str) -> None:
    sessions = [generate_heldout7(kind, seed, segments=1) for seed in range(12)]
    for probe_kind in ("decision", "next_step", "artifact"):
        questions = {p.question for s in sessions for p in s.probes if p.kind == probe_kind}
        assert len(questions) > 1, probe_kind
