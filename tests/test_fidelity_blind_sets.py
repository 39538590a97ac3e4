"""The held-out session sets written blind (the fifth to the twenty-first): seeded, valid,
probes planted once, each run by the CLI.

One module for the seventeen: the sets themselves were written apart on purpose (blind to
each other and to the compaction code); what is checked of them is the same.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import NamedTuple

import pytest

from contextfold.cli import main
from contextfold.validation import validate_history
from contextfold_harness.fidelity import (
    HELDOUT2_KINDS,
    HELDOUT3_KINDS,
    HELDOUT4_KINDS,
    HELDOUT5_KINDS,
    HELDOUT6_KINDS,
    HELDOUT7_KINDS,
    HELDOUT8_KINDS,
    HELDOUT9_KINDS,
    HELDOUT10_KINDS,
    HELDOUT11_KINDS,
    HELDOUT12_KINDS,
    HELDOUT13_KINDS,
    HELDOUT14_KINDS,
    HELDOUT15_KINDS,
    HELDOUT16_KINDS,
    HELDOUT17_KINDS,
    HELDOUT18_KINDS,
    HELDOUT19_KINDS,
    HELDOUT20_KINDS,
    HELDOUT21_KINDS,
    HELDOUT_KINDS,
    PROBE_KINDS,
    SESSION_KINDS,
    Session,
    generate,
    generate_heldout5,
    generate_heldout6,
    generate_heldout7,
    generate_heldout8,
    generate_heldout9,
    generate_heldout10,
    generate_heldout11,
    generate_heldout12,
    generate_heldout13,
    generate_heldout14,
    generate_heldout15,
    generate_heldout16,
    generate_heldout17,
    generate_heldout18,
    generate_heldout19,
    generate_heldout20,
    generate_heldout21,
    history_text,
    probe_survives,
)


class BlindSet(NamedTuple):
    name: str  # what --kinds calls it
    kinds: tuple[str, ...]
    make: Callable[..., Session]


SETS = (
    BlindSet("heldout5", HELDOUT5_KINDS, generate_heldout5),
    BlindSet("heldout6", HELDOUT6_KINDS, generate_heldout6),
    BlindSet("heldout7", HELDOUT7_KINDS, generate_heldout7),
    BlindSet("heldout8", HELDOUT8_KINDS, generate_heldout8),
    BlindSet("heldout9", HELDOUT9_KINDS, generate_heldout9),
    BlindSet("heldout10", HELDOUT10_KINDS, generate_heldout10),
    BlindSet("heldout11", HELDOUT11_KINDS, generate_heldout11),
    BlindSet("heldout12", HELDOUT12_KINDS, generate_heldout12),
    BlindSet("heldout13", HELDOUT13_KINDS, generate_heldout13),
    BlindSet("heldout14", HELDOUT14_KINDS, generate_heldout14),
    BlindSet("heldout15", HELDOUT15_KINDS, generate_heldout15),
    BlindSet("heldout16", HELDOUT16_KINDS, generate_heldout16),
    BlindSet("heldout17", HELDOUT17_KINDS, generate_heldout17),
    BlindSet("heldout18", HELDOUT18_KINDS, generate_heldout18),
    BlindSet("heldout19", HELDOUT19_KINDS, generate_heldout19),
    BlindSet("heldout20", HELDOUT20_KINDS, generate_heldout20),
    BlindSet("heldout21", HELDOUT21_KINDS, generate_heldout21),
)
EARLIER = (SESSION_KINDS, HELDOUT_KINDS, HELDOUT2_KINDS, HELDOUT3_KINDS, HELDOUT4_KINDS)
KINDS = [pytest.param(s, kind, id=f"{s.name}-{kind}") for s in SETS for kind in s.kinds]
BY_SET = [pytest.param(s, id=s.name) for s in SETS]


@pytest.mark.parametrize("blind", BY_SET)
def test_there_are_six_kinds_and_generate_dispatches_them(blind: BlindSet) -> None:
    assert len(blind.kinds) == 6
    for kind in blind.kinds:
        assert generate(kind, 2, segments=3).probes == blind.make(kind, 2, segments=3).probes
    with pytest.raises(ValueError, match=blind.name):
        blind.make("poetry", 0)


def test_the_kinds_are_new_to_every_set_and_unknown_ones_are_refused() -> None:
    every = [*EARLIER, *(s.kinds for s in SETS)]
    assert len({kind for kinds in every for kind in kinds}) == sum(len(k) for k in every)
    with pytest.raises(ValueError, match="poetry"):
        generate("poetry", 0)


@pytest.mark.parametrize(("blind", "kind"), KINDS)
def test_a_seed_always_gives_the_same_session(blind: BlindSet, kind: str) -> None:
    first, again, other = (blind.make(kind, s) for s in (7, 7, 8))
    assert first.opening == again.opening
    assert first.segments == again.segments
    assert first.probes == again.probes
    assert first.probes != other.probes
    assert first.kind == kind
    assert first.seed == 7


@pytest.mark.parametrize(("blind", "kind"), KINDS)
@pytest.mark.parametrize(("seed", "segments"), [(0, 1), (1, 3), (5, 10), (11, 12)])
def test_sessions_are_valid_histories(blind: BlindSet, kind: str, seed: int, segments: int) -> None:
    session = blind.make(kind, seed, segments=segments)
    assert len(session.segments) == segments
    assert all(session.segments)
    validate_history([*session.opening, *(m for s in session.segments for m in s)])
    validate_history(session.opening)
    for segment in session.segments:
        assert segment[0].role == "user"
        assert segment[-1].role == "assistant"


@pytest.mark.parametrize(("blind", "kind"), KINDS)
@pytest.mark.parametrize("seed", range(6))
def test_every_probe_is_found_in_the_opening_by_the_checker(
    blind: BlindSet, kind: str, seed: int
) -> None:
    session = blind.make(kind, seed)
    counts = {k: sum(p.kind == k for p in session.probes) for k in PROBE_KINDS}
    assert counts == {"identifier": 3, "artifact": 2, "decision": 1, "next_step": 1}
    opening = history_text(session.opening)
    for probe in session.probes:
        assert probe_survives(probe, opening), probe
        assert probe.question
        assert probe.answer


@pytest.mark.parametrize(("blind", "kind"), KINDS)
@pytest.mark.parametrize("seed", range(6))
def test_planted_ids_never_appear_in_the_filler(blind: BlindSet, kind: str, seed: int) -> None:
    session = blind.make(kind, seed, segments=12)
    filler = history_text([m for s in session.segments for m in s])
    for probe in session.probes:
        if probe.kind == "identifier":
            assert not probe_survives(probe, filler), probe
            assert probe.needles[0][0] not in filler
        if probe.kind == "artifact":
            name = probe.needles[0][0]
            assert name not in filler, probe
            assert not probe_survives(probe, filler), probe


@pytest.mark.parametrize(("blind", "kind"), KINDS)
def test_the_identifiers_of_a_session_are_distinct(blind: BlindSet, kind: str) -> None:
    session = blind.make(kind, 4)
    ids = [p.needles[0][0] for p in session.probes if p.kind == "identifier"]
    assert len(set(ids)) == 3


# (the fifth and sixth sets plant one phrasing per kind, its values varying)
VARIED = [
    pytest.param(s, kind, id=f"{s.name}-{kind}")
    for s in SETS
    if s.name not in ("heldout5", "heldout6")
    for kind in s.kinds
]


@pytest.mark.parametrize(("blind", "kind"), VARIED)
def test_the_decisions_and_next_steps_vary_with_the_seed(blind: BlindSet, kind: str) -> None:
    sessions = [blind.make(kind, seed, segments=1) for seed in range(12)]
    for probe_kind in ("decision", "next_step", "artifact"):
        # what is asked, or what the answer is (one topic, a value the seed draws)
        probes = {
            (p.question, p.answer) for s in sessions for p in s.probes if p.kind == probe_kind
        }
        assert len(probes) > 1, probe_kind


@pytest.mark.parametrize("blind", BY_SET)
def test_the_cli_runs_the_set(blind: BlindSet, capsys: pytest.CaptureFixture[str]) -> None:
    # In this process: a `contextfold` process per set cost 0.5 s of start-up each
    # (tests/cli runs the installed console script itself).
    code = main(["fidelity", "--json", "--seeds", "1", "--depths", "1", "--kinds", blind.name])
    result = capsys.readouterr()
    assert code == 0, result.err
    report = json.loads(result.out)
    assert {s["kind"] for s in report["sessions"]} == set(blind.kinds)
    assert report["probes"] == {
        "identifier": 18,
        "artifact": 12,
        "decision": 6,
        "next_step": 6,
    }
