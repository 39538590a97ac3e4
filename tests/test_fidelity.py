"""The fidelity harness: seeded sessions, planted probes, survival after 1, 3 and 10
compactions (SPEC §13)."""

from __future__ import annotations

import pytest

from contextfold.cli._extractive import ExtractiveSummarizer
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from contextfold.validation import validate_history
from contextfold_harness.fidelity import (
    PROBE_KINDS,
    SESSION_KINDS,
    generate_session,
    history_text,
    probe_survives,
    run_fidelity,
)


@pytest.mark.parametrize("kind", SESSION_KINDS)
def test_a_seed_always_gives_the_same_session(kind: str) -> None:
    first, again, other = (generate_session(kind, s) for s in (7, 7, 8))  # type: ignore[arg-type]
    assert first.opening == again.opening
    assert first.segments == again.segments
    assert first.probes == again.probes
    assert first.probes != other.probes
    assert {p.kind for p in first.probes} == set(PROBE_KINDS)
    validate_history([*first.opening, *(m for s in first.segments for m in s)])


@pytest.mark.parametrize("kind", SESSION_KINDS)
def test_every_probe_is_planted_in_the_opening_only(kind: str) -> None:
    session = generate_session(kind, 3)  # type: ignore[arg-type]
    opening = history_text(session.opening)
    filler = history_text([m for s in session.segments for m in s])
    for probe in session.probes:
        assert any(option.lower() in opening.lower() for option in probe.needles[0]), probe
        if probe.kind == "identifier":
            assert not probe_survives(probe, filler), probe


async def test_the_report_is_deterministic_per_seed() -> None:
    first = await run_fidelity(ExtractiveSummarizer(), seeds=(1, 2), depths=(1, 3))
    second = await run_fidelity(ExtractiveSummarizer(), seeds=(1, 2), depths=(1, 3))
    assert first.to_json() == second.to_json()
    assert first.to_json()["probes"] == {
        "identifier": 18,
        "artifact": 12,
        "decision": 6,
        "next_step": 6,
    }


async def test_the_extractive_summarizer_keeps_identifiers_and_artifacts_after_three() -> None:
    report = await run_fidelity(ExtractiveSummarizer(), depths=(3,), user_message_budget=0)
    assert report.share("identifier", 3) >= 0.95
    assert report.share("artifact", 3) >= 0.90


def dropping(word_of: str) -> FunctionTransport:
    """A summarizer that writes the extractive summary but leaves out every line that
    mentions a probe of one kind (found from the request, as a careless model would)."""
    extractive = ExtractiveSummarizer()

    def reply(request: StubRequest) -> StubResponse:
        text = extractive.summarize(request.messages)
        kept = [line for line in text.splitlines() if word_of not in line]
        return make_text_response("\n".join(kept))

    return FunctionTransport(reply)


async def test_a_summary_that_drops_a_planted_probe_lowers_the_score() -> None:
    good = await run_fidelity(
        ExtractiveSummarizer(), depths=(1,), user_message_budget=0, fact_budget=0
    )
    bad = await run_fidelity(
        dropping("from tool output"), depths=(1,), user_message_budget=0, fact_budget=0
    )
    assert good.share("identifier", 1) == 1.0
    assert bad.share("identifier", 1) < good.share("identifier", 1)
    assert any(m["kind"] == "identifier" for m in bad.missed)
    worst = await run_fidelity(
        FunctionTransport(lambda r: make_text_response("## Current state\nWorking.")),
        depths=(1,),
        user_message_budget=0,
        fact_budget=0,
    )
    # only what compaction itself keeps (recall handles name some tool calls) is left
    assert worst.share("identifier", 1) < 0.2
    assert all(worst.share(kind, 1) == 0.0 for kind in ("artifact", "decision", "next_step"))


async def test_the_users_verbatim_words_carry_what_a_poor_summary_drops() -> None:
    poor = FunctionTransport(lambda r: make_text_response("## Current state\nWorking."))
    report = await run_fidelity(
        poor, kinds=("coding",), depths=(1,), user_message_budget=2_000, fact_budget=0
    )
    assert report.share("decision", 1) == 1.0  # the user's correction, quoted word for word
    assert report.share("artifact", 1) == 0.0  # what tools did is only in a summary


async def test_a_judge_grades_every_probe_but_identifiers() -> None:
    asked: list[StubRequest] = []

    def grade(request: StubRequest) -> StubResponse:
        asked.append(request)
        body = request.messages[-1].text
        context = body.split("</context>")[0]
        answer = body.split("Correct answer: ")[1].split("\n")[0]
        return make_text_response("YES" if answer.split()[0] in context else "NO")

    judge = FunctionTransport(grade)
    report = await run_fidelity(
        ExtractiveSummarizer(), kinds=("support",), seeds=(0,), depths=(1,), judge=judge
    )
    session = generate_session("support", 0)
    assert len(asked) == sum(p.kind != "identifier" for p in session.probes)
    assert all("Question: " in r.messages[-1].text and r.system for r in asked)
    assert report.judge == judge.model.name
    assert report.share("artifact", 1) == 1.0


async def test_bad_depths_are_refused() -> None:
    with pytest.raises(ValueError, match="depths"):
        await run_fidelity(ExtractiveSummarizer(), depths=(0,))
