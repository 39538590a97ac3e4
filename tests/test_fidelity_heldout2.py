"""The second held-out fidelity sessions: seeded, seven probes each, all planted in the
opening and none of the identifiers repeated by the filler."""

from __future__ import annotations

import pytest

from contextfold.tokens import approx_token_counter, count_tokens
from contextfold.validation import validate_history
from contextfold_harness.fidelity import history_text, probe_survives
from contextfold_harness.fidelity._heldout2 import HELDOUT2_KINDS, generate_heldout2

SEEDS = (0, 1, 2, 7, 31)


def test_there_are_at_least_five_kinds() -> None:
    assert len(HELDOUT2_KINDS) >= 5
    assert len(set(HELDOUT2_KINDS)) == len(HELDOUT2_KINDS)


@pytest.mark.parametrize("kind", HELDOUT2_KINDS)
def test_a_seed_always_gives_the_same_session(kind: str) -> None:
    first, again, other = (generate_heldout2(kind, s) for s in (7, 7, 8))
    assert first.kind == kind
    assert first.seed == 7
    assert first.opening == again.opening
    assert first.segments == again.segments
    assert first.probes == again.probes
    assert first.probes != other.probes
    assert history_text(first.opening) != history_text(other.opening)
    validate_history([*first.opening, *(m for s in first.segments for m in s)])


@pytest.mark.parametrize("kind", HELDOUT2_KINDS)
@pytest.mark.parametrize("count", [1, 3, 10])
def test_segments_sets_the_number_of_filler_segments(kind: str, count: int) -> None:
    session = generate_heldout2(kind, 3, segments=count)
    assert len(session.segments) == count
    assert all(session.segments)


@pytest.mark.parametrize("kind", HELDOUT2_KINDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_seven_probes_split_three_two_one_one(kind: str, seed: int) -> None:
    kinds = [p.kind for p in generate_heldout2(kind, seed).probes]
    assert len(kinds) == 7
    assert kinds.count("identifier") == 3
    assert kinds.count("artifact") == 2
    assert kinds.count("decision") == 1
    assert kinds.count("next_step") == 1


@pytest.mark.parametrize("kind", HELDOUT2_KINDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_opening_plants_every_probe(kind: str, seed: int) -> None:
    session = generate_heldout2(kind, seed)
    text = history_text(session.opening)
    for probe in session.probes:
        assert probe.needles, probe
        assert all(probe.needles), probe
        if probe.kind == "identifier":
            assert len(probe.needles) == 1
            assert len(probe.needles[0]) == 1
            assert probe.needles[0][0] == probe.answer
        else:
            assert len(probe.needles) >= 1
        assert probe_survives(probe, text), probe


@pytest.mark.parametrize("kind", HELDOUT2_KINDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_filler_never_repeats_an_identifier(kind: str, seed: int) -> None:
    session = generate_heldout2(kind, seed)
    filler = "\n".join(history_text(segment) for segment in session.segments)
    for probe in session.probes:
        if probe.kind == "identifier":
            assert probe.needles[0][0] not in filler, probe
        # Nor does the filler alone answer any other probe: only the opening can.
        assert not probe_survives(probe, filler), probe


@pytest.mark.parametrize("kind", HELDOUT2_KINDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_decisions_and_next_steps_come_later_from_the_user(kind: str, seed: int) -> None:
    """The decision is a change of mind: the first message that settles it is a user
    message after the first one (which said something else); the next step is the
    user's too."""
    session = generate_heldout2(kind, seed)
    for probe in session.probes:
        if probe.kind not in ("decision", "next_step"):
            continue
        first = next(
            i
            for i in range(len(session.opening))
            if probe_survives(probe, history_text(session.opening[: i + 1]))
        )
        assert first > 0, probe
        assert session.opening[first].role == "user", probe


@pytest.mark.parametrize("kind", HELDOUT2_KINDS)
def test_sizes(kind: str) -> None:
    session = generate_heldout2(kind, 11)
    assert count_tokens(session.opening, approx_token_counter) < 4_000
    for segment in session.segments:
        assert 1_200 <= count_tokens(segment, approx_token_counter) <= 3_500


def test_an_unknown_kind_names_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown") as caught:
        generate_heldout2("astrology", 0)
    for kind in HELDOUT2_KINDS:
        assert kind in str(caught.value)
