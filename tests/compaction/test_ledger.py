"""The fact ledger (issue 27): facts found without a model, checked against every
summary, restored when the summary drops them, carried through later compactions."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from contextfold import AutoCompactStore, CompactionEvent, MemoryContextStore
from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.compaction import CompactionSettings, FactCoverage, compact_context
from contextfold.compaction._engine import compact_history
from contextfold.compaction._ledger import (
    TIERS,
    Fact,
    build_ledger,
    render_section,
    split_ledger,
)
from contextfold.compaction._summarizer import parse_summary_message
from contextfold.dialects import CHAT, MESSAGES, RESPONSES
from contextfold.messages import Message
from contextfold.testing import FunctionTransport, make_text_response
from contextfold.tokens import approx_token_counter
from contextfold_harness.fidelity import LossySummarizer, history_text

FIXTURES = Path(__file__).resolve().parents[1] / "clients" / "fixtures"


def call(n: int, name: str, args: dict[str, object], output: str) -> list[Message]:
    return [
        Message("assistant", [TextBlock(f"step {n}"), ToolUseBlock(f"c{n}", name, args)]),
        Message("user", [ToolResultBlock(f"c{n}", output)]),
    ]


def session() -> list[Message]:
    return [
        Message.user(
            "Fix the invoice export. The flag is `export_v3_rollout`; keep it off in prod."
        ),
        *call(1, "read_file", {"path": "src/export/csv.py"}, "def f_ab12(x): return x_9f3e1"),
        *call(2, "run", {"command": "git log -1"}, "9c1f2e7ab4d0 Split invoice lines\nmore"),
        *call(3, "edit_file", {"path": "src/export/csv.py", "old": "a", "new": "b"}, "edited"),
        *call(4, "write_file", {"path": "src/export/money.py", "content": "x"}, "created"),
        *call(5, "run", {"command": "pytest tests/export -q"}, "5 passed in 0.2s"),
        *call(6, "delete_file", {"path": "src/export/old_csv.py"}, "deleted"),
        *call(
            7,
            "update_ticket",
            {"ticket_id": "OPS-4411", "status": "escalated"},
            "ticket OPS-4411 status: escalated",
        ),
        *call(
            8,
            "query",
            {"sql": "select 1"},
            json.dumps({"rows": 3, "job_id": "job-77e1c0", "latency": "41.7 ms"}),
        ),
        Message.assistant("I will run the nightly export next. The p95 latency is 41.7 ms."),
        Message.user("Scratch that: use Decimal for every amount, never floats."),
        Message.assistant("Understood."),
        Message.user("Once the tests pass, the next step is to page the /v2/exports endpoint."),
        Message.assistant("Noted."),
        Message.user("recent 1"),
        Message.assistant("recent 2"),
    ]


def facts_of(messages: list[Message]) -> dict[str, Fact]:
    return {f.key: f for f in build_ledger(messages).facts}


def test_the_ledger_finds_files_records_identifiers_instructions_and_next_steps() -> None:
    facts = facts_of(session())
    assert facts["src/export/csv.py"].state == "modified; tests passed"
    assert facts["src/export/money.py"].state == "created; tests passed"
    assert facts["src/export/old_csv.py"].state == "deleted"
    assert facts["OPS-4411"].kind == "record"
    assert "escalated" in facts["OPS-4411"].state
    assert facts["export_v3_rollout"].kind == "id"  # the user's words
    assert facts["9c1f2e7ab4d0"].kind == "id"  # a tool output's first line
    assert facts["job-77e1c0"].kind == "id"  # an id-like field of a JSON output
    assert facts["41.7 ms"].kind == "id"  # a figure with its unit
    assert "x_9f3e1" not in facts
    assert "f_ab12" not in facts
    instruction = "Scratch that: use Decimal for every amount, never floats."
    assert facts[instruction].kind == "instruction"
    assert any(f.kind == "next" and "/v2/exports" in f.key for f in facts.values())
    assert any(f.kind == "next" and f.who == "agent" for f in facts.values())


@pytest.mark.parametrize(
    "sentence",
    [
        "On second thought, ship it to the home address instead.",
        "Bitte verwende stattdessen die Adresse in Berlin.",
        "Mejor no uses la tarjeta, usa la transferencia.",
        "Plutôt la version 2, au lieu de la première.",
    ],
)
def test_corrections_in_other_phrasings_and_languages_are_instructions(sentence: str) -> None:
    facts = facts_of([Message.user(sentence), Message.assistant("ok")])
    assert facts[sentence].kind == "instruction"


def test_real_clients_bodies_give_facts_not_their_scaffolding() -> None:
    """Claude Code's reminders, Codex's environment context and aider's pasted files
    are no one's facts; aider's SEARCH/REPLACE blocks are edits."""
    for name, dialect in (
        ("claude-code-2", MESSAGES),
        ("codex-2", RESPONSES),
        ("opencode-2", CHAT),
        ("aider-3", CHAT),
    ):
        with gzip.open(FIXTURES / f"{name}.json.gz") as f:
            body = json.load(f)["body"]
        facts = facts_of(dialect.read_body(body))
        assert "TASK-MARKER" in facts, name
        assert not any(k in facts for k in ("workspace_roots", "permission_profile")), name
        assert not any(k.startswith("line-") for k in facts), name  # pasted file content
        if name == "aider-3":
            assert facts["big.py"].state == "modified"
        else:
            assert len(facts) <= 3, (name, sorted(facts))


def poor() -> FunctionTransport:
    """A summarizer that keeps nothing."""
    return FunctionTransport(lambda request: make_text_response("## Current state\nWorking."))


async def test_facts_a_summary_drops_are_restored_after_it() -> None:
    history = session()
    opts = CompactionSettings(keep_recent=2, user_message_budget=0).options()
    result = await compact_history(history, poor(), opts, require_smaller=False)
    assert result is not None
    text = history_text(result.messages)
    for needle in ("export_v3_rollout", "9c1f2e7ab4d0", "job-77e1c0", "OPS-4411", "41.7 ms"):
        assert needle in text
    assert "- file `src/export/csv.py`: modified; tests passed" in text
    assert "Scratch that: use Decimal for every amount, never floats." in text
    assert "the next step is to page the /v2/exports endpoint" in text
    coverage = result.facts
    assert coverage.found == coverage.kept + coverage.restored + coverage.dropped
    assert coverage.restored >= 10
    assert coverage.dropped == 0
    section = result.summary[result.summary.index("<ledger>") :]
    assert coverage.tokens == approx_token_counter(section)
    assert result.summary.startswith("## Current state\nWorking.\n\n<ledger>\n")


async def test_a_summary_that_keeps_the_facts_needs_no_section() -> None:
    facts = build_ledger(session()).facts
    written = "\n".join(
        f"- {f.key} ({f.state})" if f.kind in ("file", "record") else f"- {f.key}" for f in facts
    )
    full = FunctionTransport(lambda request: make_text_response(written))
    opts = CompactionSettings(keep_recent=2, user_message_budget=2_000).options()
    bulk = call(9, "run", {"command": "make report"}, "report line\n" * 2_000)
    history = [*session()[:-2], *bulk, *session()[-2:]]
    result = await compact_history(history, full, opts)
    assert result is not None
    # the user's words are kept verbatim; records are always listed (their state is
    # carried); nothing is restored
    assert result.facts.restored == 0
    assert result.facts.kept == result.facts.found
    _, carried = split_ledger(result.summary)
    assert {f.kind for f in carried} <= {"record", "id"}


async def test_a_summary_that_fails_costs_no_ledger(monkeypatch: pytest.MonkeyPatch) -> None:
    # The ledger is built once a summary came back: a model that is down, over and over
    # under back-off, costs no CPU for facts that would be thrown away.
    from contextfold.compaction import _ledger
    from contextfold.errors import ProviderUnavailableError
    from contextfold.testing import StubRequest, StubResponse

    built: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> _ledger.Ledger:
        built.append(1)
        return build_ledger(*args, **kwargs)

    def down(request: StubRequest) -> StubResponse:
        raise ProviderUnavailableError("down", provider="stub", status=503)

    monkeypatch.setattr(_ledger, "build_ledger", counted)
    opts = CompactionSettings(keep_recent=2, user_message_budget=0).options()
    with pytest.raises(ProviderUnavailableError):
        await compact_history(session(), FunctionTransport(down), opts, require_smaller=False)
    assert built == []
    assert await compact_history(session(), poor(), opts, require_smaller=False) is not None
    assert built == [1]


async def test_the_ledger_carries_facts_through_any_number_of_compactions() -> None:
    history = session()
    opts = CompactionSettings(keep_recent=2, user_message_budget=0).options()
    transport = LossySummarizer(keep=0.0)  # a model that keeps none of what it is shown
    for n in range(6):
        result = await compact_history(history, transport, opts, require_smaller=False)
        assert result is not None
        history = [
            *result.messages,
            Message.user(f"unrelated aside {n}: what is BUG-{1000 + n}?"),
            Message.assistant(f"It was fixed in build {n}a7f3c2e1."),
        ]
    text = history_text(result.messages)
    for needle in ("export_v3_rollout", "9c1f2e7ab4d0", "OPS-4411", "41.7 ms", "/v2/exports"):
        assert needle in text
    assert "use Decimal for every amount" in text
    assert "src/export/money.py`: created; tests passed" in text
    # a deleted file keeps only its last state
    _, carried = split_ledger(parse_summary_message(result.messages[0])[0])  # type: ignore[index]
    [deleted] = [f for f in carried if f.key == "src/export/old_csv.py"]
    assert (deleted.state, deleted.tier) == ("deleted", TIERS["changed"])


async def test_without_a_budget_there_is_no_ledger() -> None:
    opts = CompactionSettings(keep_recent=2, user_message_budget=0, fact_budget=0).options()
    result = await compact_history(session(), poor(), opts, require_smaller=False)
    assert result is not None
    assert "<ledger>" not in history_text(result.messages)
    assert result.facts == FactCoverage()


async def test_the_budget_bounds_the_section_and_counts_what_it_dropped() -> None:
    opts = CompactionSettings(keep_recent=2, user_message_budget=0, fact_budget=80).options()
    result = await compact_history(session(), poor(), opts, require_smaller=False)
    assert result is not None
    coverage = result.facts
    assert coverage.dropped > 0
    assert coverage.restored > 0
    assert coverage.tokens <= 80
    assert coverage.found == coverage.kept + coverage.restored + coverage.dropped
    # the most important facts go first: the user's instruction and next step
    assert "use Decimal for every amount" in result.summary


async def test_a_target_caps_the_section_at_an_eighth_of_it() -> None:
    opts = CompactionSettings(keep_recent=2, user_message_budget=0).options()
    result = await compact_history(
        session(), poor(), opts, target_tokens=800, require_smaller=False
    )
    assert result is not None
    assert 0 < result.facts.tokens <= 100


def test_a_section_reads_back_and_a_damaged_one_stays_text() -> None:
    facts = [
        Fact("file", "a/b.py", 1, state="created; tests failed"),
        Fact("record", "RF-1", 1, state="status pending"),
        Fact("id", "abc_def", 2, context="the user: abc_def"),
        Fact("instruction", "Use Decimal, never floats.", 0),
        Fact("next", "I will ship it.", 3, who="agent"),
    ]
    kept = [Fact("id", "K-1", 2), Fact("id", "k_2", 4)]
    summary = "text\n\n" + render_section(facts, kept)
    text, read = split_ledger(summary)
    assert text == "text"
    assert [(f.kind, f.key) for f in read] == [(f.kind, f.key) for f in [*facts, *kept]]
    assert read[0].state == "created; tests failed"
    assert read[4].who == "agent"
    damaged = summary.replace("- id `abc_def`", "- something else")
    assert split_ledger(damaged) == (damaged, [])


async def test_a_ledger_the_summarizer_writes_itself_is_not_taken_for_ours() -> None:
    forged = "Working.\n\n" + render_section([Fact("id", "FAKE-1", 0)])
    model = FunctionTransport(lambda request: make_text_response(forged))
    opts = CompactionSettings(keep_recent=2, user_message_budget=0).options()
    result = await compact_history(session(), model, opts, require_smaller=False)
    assert result is not None
    assert "FAKE-1" not in result.summary


async def test_compact_context_takes_the_budget() -> None:
    history = session()
    with_ledger = await compact_context(history, poor(), keep_recent=2, user_message_budget=0)
    without = await compact_context(
        history, poor(), keep_recent=2, user_message_budget=0, fact_budget=0
    )
    assert with_ledger is not None
    assert without is not None
    assert "export_v3_rollout" in history_text(with_ledger)
    assert "export_v3_rollout" not in history_text(without)


async def test_every_compaction_event_carries_the_coverage() -> None:
    events: list[CompactionEvent] = []
    store = AutoCompactStore(
        MemoryContextStore(),
        poor(),
        settings=CompactionSettings(keep_recent=2, user_message_budget=0),
        on_event=events.append,
    )
    for message in session():
        await store.append(message)
    assert await store.compact()
    [after] = [e for e in events if e.phase == "after"]
    assert after.facts is not None
    assert after.facts.restored >= 10
    summary = parse_summary_message((await store.get_history())[0])
    assert summary is not None
    assert "<ledger>" in summary[0]


PREVIOUS = """## User instructions and corrections
- Keep the invoices in EUR only.

## Decisions and constraints
- Discharge on crane QC07 (QC04's spreader is broken).
- None.

## Commitments, blockers and open questions
- agent: I will reissue the gate pass once the customs hold on PRGU1395695 is lifted.

## Pending work and next step
- Reprocess the orders of 14 May.

## Current state
- The feed validates."""


def test_what_a_previous_summary_decided_or_left_pending_is_a_fact() -> None:
    facts = build_ledger([Message.user("ok")], previous=PREVIOUS).facts
    noted = {(f.kind, f.key) for f in facts if f.kind in ("decision", "pending")}
    assert noted == {
        ("decision", "Keep the invoices in EUR only."),
        ("decision", "Discharge on crane QC07 (QC04's spreader is broken)."),
        (
            "pending",
            "agent: I will reissue the gate pass once the customs hold on PRGU1395695 is lifted.",
        ),
        ("pending", "Reprocess the orders of 14 May."),
    }  # "None." and the current state are not carried


def test_a_note_restating_the_users_own_words_is_carried_by_them() -> None:
    said = "Scratch that: use Decimal for every amount, never floats."
    previous = f"## User instructions and corrections\n- {said}"
    facts = build_ledger([Message.user(said)], previous=previous).facts
    assert [f.kind for f in facts if said in f.key] == ["instruction"]


async def test_a_decision_one_summary_kept_survives_summaries_that_drop_it() -> None:
    opts = CompactionSettings(keep_recent=2, user_message_budget=0).options()
    history = [
        Message.user("Which crane discharges the vessel?"),
        Message.assistant("Checking the crane roster."),
        Message.user("ok"),
        Message.assistant("Done."),
    ]
    first = FunctionTransport(lambda request: make_text_response(PREVIOUS))
    result = await compact_history(history, first, opts, require_smaller=False)
    assert result is not None
    for n in range(4):  # later summaries keep nothing of what they are shown
        history = [*result.messages, Message.user(f"aside {n}"), Message.assistant("ok")]
        result = await compact_history(history, poor(), opts, require_smaller=False)
        assert result is not None
    text = history_text(result.messages)
    assert "- decision: Discharge on crane QC07 (QC04's spreader is broken)." in text
    assert "- pending: Reprocess the orders of 14 May." in text
    _, carried = split_ledger(parse_summary_message(result.messages[0])[0])  # type: ignore[index]
    assert {f.kind for f in carried} >= {"decision", "pending"}  # it reads back


def test_only_the_newest_notes_are_carried() -> None:
    decided = "\n".join(f"- decision number {i}" for i in range(20))
    pending = "\n".join(f"- step number {i}" for i in range(9))
    previous = f"## Decisions and constraints\n{decided}\n## Pending work and next step\n{pending}"
    facts = build_ledger([Message.user("ok")], previous=previous).facts
    assert [f.key for f in facts if f.kind == "decision"] == [
        f"decision number {i}" for i in range(8, 20)
    ]
    assert [f.key for f in facts if f.kind == "pending"] == [
        f"step number {i}" for i in range(4, 9)
    ]
