"""The fact ledger's rules for where agents really find facts (issue 27, second round):
patches, output arguments, ids deep in logs and listings, records said in prose or in a
listing's row, corrections opened with a discourse marker, and the room each kind of
fact gets in the section. Each case failed on the rules before this round."""

from __future__ import annotations

import json

from contextfold.compaction._ledger import (
    MAX_REQUESTS,
    TIERS,
    Fact,
    Ledger,
    build_ledger,
)
from contextfold.messages import Message
from contextfold.tokens import approx_token_counter
from tests.compaction.test_ledger import call, facts_of


def test_patches_in_either_form_say_what_they_did_to_each_file() -> None:
    codex = (
        "*** Begin Patch\n*** Update File: svc/api/handlers.go\n@@\n-a\n+b\n"
        "*** Add File: svc/api/limits.go\n+package api\n*** Delete File: svc/api/old.go\n"
        "*** End Patch"
    )
    unified = (
        "--- a/deploy/values.yaml\n+++ b/deploy/values.yaml\n@@ -1 +1 @@\n-x: 1\n+x: 2\n"
        "--- /dev/null\n+++ b/deploy/extra.yaml\n@@ -0,0 +1 @@\n+y: 3\n"
    )
    facts = facts_of(
        [
            Message.user("Tighten the rate limits."),
            *call(1, "apply_patch", {"input": codex}, "Done!"),
            *call(2, "apply_patch", {"patch": unified}, "patching file deploy/values.yaml"),
        ]
    )
    assert facts["svc/api/handlers.go"].state.startswith("modified")
    assert facts["svc/api/limits.go"].state.startswith("created")
    assert facts["svc/api/old.go"].state == "deleted"
    assert facts["deploy/values.yaml"].state.startswith("modified")
    assert facts["deploy/extra.yaml"].state.startswith("created")


def test_a_tools_output_argument_and_any_path_argument_name_its_files() -> None:
    facts = facts_of(
        [
            Message.user("Convert the minutes and fix the budget sheet."),
            *call(
                1, "pdf_render", {"source": "notes/minutes.md", "output": "out/minutes.pdf"}, "ok"
            ),
            *call(2, "tabela_editar", {"ficheiro": "contas/orcamento.xlsx", "celula": "B4"}, "ok"),
        ]
    )
    assert facts["out/minutes.pdf"].state.startswith("created")
    assert facts["contas/orcamento.xlsx"].state.startswith("modified")


def test_a_test_tool_and_more_runners_report_on_the_changed_files() -> None:
    facts = facts_of(
        [
            Message.user("Fix the parser."),
            *call(1, "edit_file", {"path": "lib/parse.swift", "old": "a", "new": "b"}, "ok"),
            *call(
                2,
                "shell",
                {"command": "swift test --filter ParseTests"},
                "Executed 12 tests, with 0 failures",
            ),
            *call(3, "edit_file", {"path": "game/Boss.cs", "old": "a", "new": "b"}, "ok"),
            *call(
                4,
                "run_tests",
                {"suite": "EditMode"},
                "Test run: Boss\n  Passed  Boss.a\n  Passed  Boss.b",
            ),
        ]
    )
    assert facts["lib/parse.swift"].state == "modified; tests passed"  # "0 failures" passed
    assert facts["game/Boss.cs"].state == "modified; tests passed"


def test_a_file_changed_again_after_its_tests_keeps_what_they_said() -> None:
    facts = facts_of(
        [
            Message.user("Fix the parser."),
            *call(1, "edit_file", {"path": "lib/tok.py", "old": "a", "new": "b"}, "ok"),
            *call(2, "shell", {"command": "pytest tests/test_tok.py"}, "3 passed in 0.1s"),
            *call(3, "edit_file", {"path": "lib/tok.py", "old": "b", "new": "c"}, "ok"),
        ]
    )
    assert facts["lib/tok.py"].state == "modified; tests passed before the last change"


def test_ids_deep_in_plain_output_after_their_label_or_where_a_run_saved_its_work() -> None:
    log = "\n".join(
        [
            "step 100 | loss 2.1",
            "uploading artifact to gs://team-bucket/runs/r-77/model.bin",
            "step 200 | loss 1.9",
            "  artifactDigest: 9f86d081884c7d659a2feaa0c55ad015",
            "<receiptNo>4.4.0012345678</receiptNo>",
            "step 300 | loss 1.8",
            "finished: deployment window 2024-W17 closed",
        ]
    )
    facts = facts_of(
        [
            Message.user("How did the run go?"),
            *call(1, "shell", {"command": "tail -n 50 run.txt"}, log),
        ]
    )
    assert "gs://team-bucket/runs/r-77/model.bin" in facts
    assert "9f86d081884c7d659a2feaa0c55ad015" in facts
    assert "4.4.0012345678" in facts
    assert "2024-W17" in facts  # the last line, where a tool reports
    assert not any(k.startswith("step") for k in facts)  # unlabelled rows are bulk


def test_a_log_file_read_is_output_but_a_source_file_read_is_content() -> None:
    facts = facts_of(
        [
            Message.user("Check the nightly."),
            *call(
                1,
                "read_file",
                {"path": "logs/nightly.log"},
                "start\nwrote report to s3://qa/nightly/884.html\nend",
            ),
            *call(
                2,
                "read_file",
                {"path": "src/upload.py"},
                "start\nlog('saved to s3://qa/tmpl/{n}.html')\nend",
            ),
        ]
    )
    assert "s3://qa/nightly/884.html" in facts
    assert not any("tmpl" in k for k in facts)


def test_a_search_read_returns_findings() -> None:
    facts = facts_of(
        [
            Message.user("Which script does the prefab use?"),
            *call(
                1,
                "read_file",
                {"path": "Assets/Door.prefab", "grep": "m_Script"},
                "  m_Script: {fileID: 115, guid: 0b6f5a2c91d84e7fa3c2d1e0f9a8b7c6, type: 3}",
            ),
        ]
    )
    assert "0b6f5a2c91d84e7fa3c2d1e0f9a8b7c6" in facts


def test_a_row_in_a_failed_or_refused_state_is_a_record_routine_rows_are_not() -> None:
    listing = "\n".join(
        [
            "ref              type   state",
            "TX-20240501-0001 pay    BOOKED",
            "TX-20240501-0002 pay    BOOKED",
            "TX-20240501-0003 pay    ABGELEHNT   limit exceeded",
            "TX-20240501-0004 pay    BOOKED",
        ]
    )
    facts = facts_of(
        [
            Message.user("Any problems with the batch?"),
            *call(1, "bank_cli", {"batch": "7"}, listing),
        ]
    )
    assert facts["TX-20240501-0003"].kind == "record"
    assert facts["TX-20240501-0003"].state == "status abgelehnt"
    assert "TX-20240501-0002" not in facts or facts["TX-20240501-0002"].kind == "id"


def test_a_json_record_without_an_id_key_is_found_by_its_ids_shape() -> None:
    output = json.dumps({"awb": "176-44512093KL", "status": "CLEARED"})
    facts = facts_of(
        [Message.user("Is the shipment through?"), *call(1, "cargo_api", {"q": "x"}, output)]
    )
    assert facts["176-44512093KL"].kind == "record"
    assert facts["176-44512093KL"].state == "status CLEARED"


def test_a_record_the_agent_says_it_moved_and_a_job_it_cancelled() -> None:
    facts = facts_of(
        [
            Message.user("Move the ticket on and stop the stuck job."),
            Message.assistant("PAY-8812 moved to Awaiting Review; the patch is merged."),
            *call(1, "shell", {"command": "scancel 9917342"}, ""),
        ]
    )
    assert facts["PAY-8812"].state == "status Awaiting Review"
    assert facts["9917342"].state == "status cancelled"


def test_a_correction_opened_by_a_discourse_marker_is_the_users_instruction() -> None:
    for opener in ("Hmm, no,", "ok wait,", "Nee,", "Bon alors, non:", "Hm, nie,", "Okej, nej,"):
        text = f"{opener} keep the retry budget at 3 attempts, the partner API throttles us."
        facts = build_ledger(
            [
                Message.user("Set the retry budget to 5."),
                Message.assistant("Done."),
                Message.user(text),
            ]
        ).facts
        said = [f.key for f in facts if f.kind == "instruction"]
        assert any("retry budget at 3" in s for s in said), opener


def test_requests_do_not_age_out_a_correction() -> None:
    history = [
        Message.user("Use the blue theme."),
        Message.assistant("Ok."),
        Message.user("Actually, use the green theme instead, the brand changed."),
        Message.assistant("Ok."),
    ]
    for n in range(MAX_REQUESTS + 20):
        history += [Message.user(f"Please rename column c{n} to d{n}."), Message.assistant("Done.")]
    said = [f.key for f in build_ledger(history).facts if f.kind == "instruction"]
    assert any("green theme" in s for s in said)
    assert sum("rename column" in s for s in said) <= MAX_REQUESTS


def test_codex_command_headers_are_not_facts() -> None:
    output = (
        "Chunk ID: 4be1c0\nWall time: 0.0021 seconds\nProcess exited with code 0\n"
        "Original token count: 12\nOutput:\nbuilt release 7f3e9a1c2b"
    )
    facts = facts_of([Message.user("Build it."), *call(1, "exec_command", {"cmd": "make"}, output)])
    assert "4be1c0" not in facts
    assert "7f3e9a1c2b" in facts


def test_no_kind_of_fact_crowds_out_the_others_in_the_section() -> None:
    changes = [
        Fact("file", f"src/mod_{n:03d}.py", TIERS["changed"], state="modified") for n in range(200)
    ]
    ids = [Fact("id", f"RUN-{n:05d}", TIERS["tool id"]) for n in range(50)]
    section, coverage = Ledger([*ids, *changes]).restore("", "", 600, approx_token_counter)
    assert coverage.restored > 0
    assert "RUN-00000" in section  # the oldest ids keep their share
    assert "src/mod_000.py" in section
    assert approx_token_counter(section) <= 600


# -- third round (developed on the third held-out set) --------------------------------


def test_test_runners_lines_are_records_and_a_later_pass_clears_a_failure() -> None:
    first = "\n".join(
        [f"tests/test_io.py::test_case_{n} PASSED" for n in range(8)]
        + ["tests/test_io.py::test_unicode_names FAILED", "1 failed, 8 passed"]
    )
    second = "\n".join(
        [f"tests/test_io.py::test_case_{n} PASSED" for n in range(8)]
        + ["tests/test_io.py::test_unicode_names PASSED", "9 passed"]
    )
    jest = "PASS src/cart/total.test.ts\nFAIL src/cart/coupon.test.ts\n  ● coupon › applies once"
    cargo = (
        "running 2 tests\ntest store::tests::keeps_order ... ok\n"
        "test store::tests::evicts ... FAILED"
    )
    facts = facts_of(
        [
            Message.user("Run the tests."),
            *call(1, "shell", {"command": "python -m pytest -v"}, first),
            *call(2, "shell", {"command": "python -m pytest -v"}, second),
            *call(3, "shell", {"command": "npx jest"}, jest),
            *call(4, "shell", {"command": "cargo test"}, cargo),
        ]
    )
    assert facts["tests/test_io.py::test_unicode_names"].state == "status tests passed"
    assert "tests/test_io.py::test_case_3" not in facts  # a long listing of passes is bulk
    assert facts["src/cart/coupon.test.ts"].state == "tests failed"
    assert facts["store::tests::evicts"].state == "status tests failed"


def test_status_set_in_sql_and_dependencies_bumped() -> None:
    diff = (
        "diff --git a/go.mod b/go.mod\n--- a/go.mod\n+++ b/go.mod\n@@ -5,2 +5,2 @@\n"
        "-\tgithub.com/acme/wire v1.4.0 // indirect\n+\tgithub.com/acme/wire v1.6.2 // indirect\n"
    )
    facts = facts_of(
        [
            Message.user("Close bay 4 and bump the wire library."),
            *call(
                1, "sql", {"sql": "UPDATE bays SET status = 'closed' WHERE code = 'BAY-4'"}, "1 row"
            ),
            *call(2, "shell", {"command": "git diff go.mod"}, diff),
            *call(
                3,
                "shell",
                {"command": "cargo update -p serde"},
                "    Updating serde v1.0.190 -> v1.0.193",
            ),
        ]
    )
    assert facts["BAY-4"].state == "status closed"
    assert facts["github.com/acme/wire"].state == "bumped from 1.4.0 to 1.6.2"
    assert facts["serde"].state == "bumped from 1.0.190 to 1.0.193"


def test_files_moved_by_a_shell_or_seen_renamed_in_git_status() -> None:
    facts = facts_of(
        [
            Message.user("Tidy the layout."),
            *call(
                1, "shell", {"command": ["bash", "-lc", "git mv lib/util.rs lib/helpers.rs"]}, ""
            ),
            *call(2, "shell", {"command": "mv -v data/in.csv archive/"}, "renamed 'data/in.csv'"),
            *call(
                3, "shell", {"command": "git status --short"}, "R  docs/a.md -> docs/b.md\n M x.py"
            ),
        ]
    )
    assert facts["lib/util.rs"].state == "moved to lib/helpers.rs"
    assert facts["data/in.csv"].state == "moved to archive/"
    assert facts["docs/a.md"].state == "moved to docs/b.md"


def test_json_lines_and_id_lists_and_a_line_that_only_looks_like_json() -> None:
    stream = "\n".join(
        json.dumps({"finding": {"id": f"GO-2024-{n}", "aliases": [f"CVE-2024-{7000 + n}"]}})
        for n in range(3)
    )
    facts = facts_of(
        [
            Message.user("Scan it."),
            *call(1, "shell", {"command": "scanner -json ./..."}, stream),
            *call(
                2,
                "shell",
                {"command": "git commit -am fix"},
                "[hotfix/retry 4f2a9c1d7] Retry\n 1 file changed",
            ),
        ]
    )
    assert "CVE-2024-7001" in facts
    assert "4f2a9c1d7" in facts  # "[branch sha] msg" is a line, not a JSON array


def test_ids_a_command_names_and_an_argument_that_is_one_id() -> None:
    facts = facts_of(
        [
            Message.user("Where did it crash?"),
            *call(1, "shell", {"command": "addr2line -e build/fw.elf 0x0800A1F4"}, "main.c:88"),
            *call(2, "http", {"body": {"mrn": "5502918834", "when": "2024-05-02T10:00:00Z"}}, "ok"),
        ]
    )
    assert "0x0800A1F4" in facts
    assert "5502918834" in facts
    assert not any(k.startswith("2024-05-02") for k in facts)


def test_codex_exit_code_header_and_a_status_that_moved() -> None:
    output = (
        "Exit code: 0\nWall time: 0.2 seconds\nOutput:\n"
        "Claim CL/2024/0077 (cracked windscreen): status OPEN → APPROVED"
    )
    facts = facts_of([Message.user("Approve it."), *call(1, "claims", {"op": "approve"}, output)])
    record = facts["CL/2024/0077"]
    assert record.state.startswith("status approved")
    assert "cracked windscreen" in record.state


def test_a_plan_in_several_sentences_and_an_announced_decision() -> None:
    ledger = build_ledger(
        [
            Message.user("Set the export to run at 02:00."),
            Message.assistant("Ok."),
            Message.user("Plan: if ./check.sh passes. Then ship it to the canary ring tonight."),
            Message.assistant("Ok."),
            Message.user("The board has decided: exports run at 04:00 from now on."),
        ]
    )
    steps = [f.key for f in ledger.facts if f.kind == "next"]
    said = [f.key for f in ledger.facts if f.kind == "instruction"]
    assert any("canary ring" in s for s in steps)
    assert any("04:00" in s for s in said)


# -- fourth round (developed on the fourth held-out set, after its honest run) --------


def test_headers_and_checksums_name_ids() -> None:
    output = (
        "HTTP/1.1 201 Created\nLocation: /api/v3/bookings/BKG-7QX2LM\n"
        "X-Audit-Report-Id: QWERTYUIOPAS\n\n{}"
    )
    yaml = "dataset: ref\n  bundle_md5: 9e107d9d372bb6826bd81d3542a419d6\n  size: 3 GB"
    facts = facts_of(
        [
            Message.user("Book it and check the bundle."),
            *call(1, "http", {"method": "POST", "url": "https://x.test/api/v3/bookings"}, output),
            *call(2, "shell", {"command": "cat manifest.txt"}, yaml),
        ]
    )
    assert "BKG-7QX2LM" in facts
    assert "QWERTYUIOPAS" in facts
    assert "9e107d9d372bb6826bd81d3542a419d6" in facts


def test_a_status_set_on_a_record_named_in_another_language() -> None:
    facts = facts_of(
        [
            Message.user("Park the application."),
            *call(1, "akte_status", {"aktenzeichen": "BA-2024-11873", "status": "ruht"}, "ok"),
        ]
    )
    assert facts["BA-2024-11873"].state == "status ruht"


def test_a_grouped_number_with_a_slash_is_one_id() -> None:
    facts = facts_of([Message.user("Look up parcel 041122-003-00917/002 in the register.")])
    assert "041122-003-00917/002" in facts


def test_a_spanish_condition_and_a_czech_correction() -> None:
    ledger = build_ledger(
        [
            Message.user("Prepara el cuadrante de diciembre."),
            Message.assistant("Hecho."),
            Message.user("Si nadie protesta antes del viernes, publica el cuadrante final."),
            Message.assistant("De acuerdo."),
            Message.user("Nastav fixaci na 5 let."),
            Message.assistant("Ok."),
            Message.user("Oprava: klient si to rozmyslel, chce fixaci na 3 roky."),
        ]
    )
    steps = [f.key for f in ledger.facts if f.kind == "next"]
    said = [f.key for f in ledger.facts if f.kind == "instruction"]
    assert any("publica el cuadrante final" in s for s in steps)
    assert any("3 roky" in s for s in said)


async def test_the_users_words_are_not_all_dropped_to_make_room_for_the_section() -> None:
    """A compaction whose result would not be smaller than the history (a short one,
    compacted explicitly, as the fidelity harness does) gives way on whichever takes
    more room, the user's quoted words or the restored facts: before, the words were
    halved to nothing while the section stayed whole (a fifth-held-out session kept 6
    quoted messages without the ledger and 0 with it), and the user's correction was
    gone."""
    from contextfold.compaction import CompactionSettings
    from contextfold.compaction._engine import compact_history
    from contextfold.compaction._summarizer import parse_summary_message
    from contextfold_harness.fidelity import LossySummarizer, generate

    session = generate("port", 1, segments=1)
    history = [*session.opening, *session.segments[0]]
    quoted = {}
    for budget in (0, 1_000):
        opts = CompactionSettings(
            keep_recent=4, kept_tool_chars=8_000, user_message_budget=2_000, fact_budget=budget
        )
        result = await compact_history(
            history, LossySummarizer(keep=0.35), opts.options(), require_smaller=False
        )
        assert result is not None
        parsed = parse_summary_message(result.messages[0])
        assert parsed is not None
        quoted[budget] = parsed[1]
    assert quoted[0]  # the premise: without the ledger the user's words are quoted
    assert quoted[1_000], "the ledger's section took the place of every quoted word"


# -- the sixth round: CJK sentences, days, the agent's acknowledgement, reported states --


def _said(text: str, kind: str) -> list[str]:
    history = [Message.user("Set it up."), Message.assistant("Done."), Message.user(text)]
    return [f.key for f in build_ledger(history).facts if f.kind == kind]


def test_a_cjk_request_or_decision_is_an_instruction() -> None:
    for text in (
        "请把超时改为30秒。然后重新部署。",  # 请 ... 改为: a request, a change
        "타임아웃은 30초로 바꿔 주세요.",  # ... 주세요: please
        "やはりリトライは3回にすることにしました。",  # ...ことにしました: we decided
    ):
        assert any("30" in s or "3回" in s for s in _said(text, "instruction")), text


def test_work_put_on_a_day_is_a_next_step_a_day_talked_about_is_not() -> None:
    for text in (
        "Tomorrow, rotate the staging keys before the audit.",
        "Vendredi, il faudra relancer le fournisseur pour la facture.",
        "Am Montag bitte den Export neu starten.",
        "リリース前日までに、移行手順を共有してください。",
    ):
        assert _said(text, "next"), text
    for text in ("Monday was a long day for the team, sorry.", "Ha, that is a funny log line."):
        assert not _said(text, "next"), text


def test_the_agents_first_words_after_a_correction_are_the_decision() -> None:
    history = [
        Message.user("Scale the pool to 6 replicas."),
        *call(1, "kubectl", {"command": "kubectl scale deploy/pool --replicas=6"}, "scaled"),
        Message.assistant("Pool scaled to 6 replicas."),
        Message.user("Actually no, 6 is too many for the budget. Make it 4."),
        Message.assistant("Worker pool size 4 replicas. Applying it now."),
        Message.user("Also add the dashboards, please."),
        *call(2, "grafana", {"folder": "pool"}, "2 dashboards added"),
        Message.assistant("Dashboards added to the folder."),
    ]
    decisions = [f.key for f in build_ledger(history).facts if f.kind == "decision"]
    # not after a plain request: what the agent reports after doing the work
    assert decisions == ["Worker pool size 4 replicas."]


def test_a_state_a_tool_reports_on_a_line_of_its_own_is_a_record() -> None:
    output = "\n".join(
        [
            "[import] orders_0412.csv: rejected - 2 errors",
            "ticket PAY-7731: resolved (by on-call)",
            'secret "api-token-v2" deleted',
            '<shipment no="SHP-4410" state="delivered"/>',
            "<task><id>T-9921</id><name>nightly</name><status>done</status></task>",
            "image: nginx:1.25",
            "commit 633cc00: fix the retry loop",
            "Note: see above",
        ]
    )
    facts = facts_of([Message.user("Check the run."), *call(1, "ops", {"q": "all"}, output)])
    records = {k: f.state for k, f in facts.items() if f.kind == "record"}
    assert records == {
        "orders_0412.csv": "status rejected",
        "PAY-7731": "status resolved",
        "api-token-v2": "status deleted",
        "SHP-4410": "status delivered",
        "T-9921": "status done",
    }


def _decisions(*turns: str) -> list[str]:
    """The decisions of a conversation that alternates user and agent, user first."""
    history = [
        Message.user(text) if i % 2 == 0 else Message.assistant(text)
        for i, text in enumerate(turns)
    ]
    return [f.key for f in build_ledger(history).facts if f.kind == "decision"]


def test_a_short_yes_makes_the_agents_proposal_the_decision() -> None:
    cases = [
        (
            "Two ways to cache the tariffs: Redis or in process. I'd go with an in-process "
            "LRU of 512 entries, since we run one replica. OK with you?",
            "yep, go for it",
            "in-process LRU of 512 entries",
        ),
        (
            "Il gateway chiude a 30 secondi. Propongo di portare il timeout a 45 secondi. Procedo?",
            "sì, vai pure",
            "timeout a 45 secondi",
        ),
        (
            "Ik stel voor om de back-ups 14 dagen te bewaren in plaats van 30. Zal ik dat doen?",
            "prima, doe maar",
            "14 dagen",
        ),
        ("建议把重试次数改成5次，间隔2秒。要不要这样改？", "好的", "5次"),
        (  # no word says it proposes: its last sentence is what is asked
            "The flaky test comes from the shared tmp dir. Giving each worker its own "
            "directory fixes it. Shall I?",
            "ok",
            "its own directory",
        ),
    ]
    for proposal, yes, said in cases:
        decisions = _decisions("Look at it.", proposal, yes, "Done.")
        assert len(decisions) == 1, (yes, decisions)
        assert said in decisions[0]
        assert "Shall I?" not in decisions[0]
        assert "Procedo?" not in decisions[0]


def test_no_proposal_is_a_decision_without_a_short_yes_to_it() -> None:
    proposal = "I'd move the nightly export to 03:00 so it misses the backup window. OK?"
    assert _decisions("Look at it.", proposal, "no, leave it at 02:00") == []
    assert _decisions("Look at it.", proposal, "why would that help?") == []
    assert _decisions("Look at it.", "Shall I?", "yes") == []  # nothing was proposed
    assert _decisions("ok, let's start with the export module") == []  # no one proposed
    # the yes answers the agent's words since the user's last ones, not older ones
    assert _decisions("Look at it.", proposal, "hmm", "Looked: it is fine.", "yes") == []


def test_the_agents_acknowledgement_of_a_request_is_the_decision() -> None:
    cases = [
        (
            "aggiungi anche il campo iban al tracciato, obbligatorio",
            "Capito: il campo IBAN diventa obbligatorio nel tracciato.",
            "IBAN",
        ),
        ("den Cron dann auf 02:30 legen", "Alles klar, der Cronjob läuft jetzt um 02:30.", "02:30"),
        ("batas unggah naikin ke 25 MB ya", "Siap, batas unggah dinaikkan ke 25 MB.", "25 MB"),
        (
            "the replica count for eu-west is 5 from now",
            "Noted: eu-west runs 5 replicas.",
            "5 replicas",
        ),
        ("limit na 50", "Jasně, LIMIT=50 nastavuji.", "LIMIT=50"),  # a value in two words
    ]
    for request, answer, said in cases:
        decisions = _decisions(request, answer)
        assert len(decisions) == 1, (request, decisions)
        assert said in decisions[0]


def test_an_acknowledgement_that_says_nothing_or_repeats_the_user_is_no_decision() -> None:
    assert _decisions("the replicas stay at 5", "OK.") == []
    assert _decisions("the replicas stay at 5", "OK, checking.") == []
    # the user's words are an instruction whole: the agent's take adds nothing
    assert _decisions("Please keep the logs for 7 days.", "Sure, 7 days of logs kept.") == []
    # not the agent's first words after the user's: a report, not its take
    assert _decisions("Ship it.", "Building.", "OK, the build is green and shipped.") == []


def test_a_change_of_mind_after_an_aside_is_a_correction() -> None:
    for text in (
        "Oh right, correction: the retention is 90 days, not 30.",
        "Hmm, thinking about it \u2014 actually, keep the old endpoint alive until June.",
        "Ah, ripensandoci: lascia il vecchio endpoint attivo fino a giugno.",
        "Ach ja, Korrektur: die Aufbewahrung beträgt 90 Tage.",
    ):
        assert _said(text, "instruction"), text
    for text in ("Yes, no idea why it failed last night.", "Thanks, wait for the CI run."):
        assert not _said(text, "instruction"), text


def test_an_announced_plan_the_user_welcomes_is_pending_work() -> None:
    history = [
        Message.user("Check the duplicates."),
        Message.assistant(
            "Found them. Next I go through the 14 invoices that share a number with another "
            "supplier's and send you the list by Friday."
        ),
        Message.user("great, thanks"),
    ]
    facts = build_ledger(history).facts
    pending = [f.key for f in facts if f.kind == "pending"]
    assert len(pending) == 1
    assert "14 invoices" in pending[0]
    assert not [f for f in facts if f.kind == "decision"]  # announced, not proposed


def test_test_runners_report_each_class_or_case() -> None:
    output = {
        "surefire": (
            "[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.2 s"
            " - in org.shop.billing.InvoiceNumberTest\n"
            "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s"
            " <<< FAILURE! - in org.shop.billing.VatRoundingTest\n"
            "[INFO] Tests run: 7, Failures: 1, Errors: 0, Skipped: 0"
        ),
        "dotnet": (
            "  Passed Shop.Tests.CartTests.EmptyCartIsRejected [12 ms]\n"
            "  Failed Shop.Tests.CartTests.DiscountStacks [40 ms]\n"
            "Total tests: 2"
        ),
        "pest": "   PASS  Tests\\Unit\\LedgerTest\n  ✓ sums 0.01s\n\n   FAIL  Tests\\Feature\\"
        "RefundTest\n  ✗ refunds twice",
    }
    records: dict[str, str] = {}
    for n, (tool, text) in enumerate(output.items()):
        facts = facts_of([Message.user("Run the tests."), *call(n, tool, {"cmd": "test"}, text)])
        records |= {k: f.state for k, f in facts.items() if f.kind == "record"}
    assert records == {
        "org.shop.billing.InvoiceNumberTest": "status tests passed",
        "org.shop.billing.VatRoundingTest": "status tests failed",
        "Shop.Tests.CartTests.EmptyCartIsRejected": "status tests passed",
        "Shop.Tests.CartTests.DiscountStacks": "status tests failed",
        "Tests\\Unit\\LedgerTest": "status tests passed",
        "Tests\\Feature\\RefundTest": "status tests failed",
    }


def test_a_migration_a_tool_applied_is_a_record() -> None:
    outputs = [
        "Build succeeded.\nApplying migration '20260102093011_AddOrderLock'.\nDone.",
        "Applying migration `20260102_add_rider_zone`\nAll migrations have been applied.",
        "  2026_01_02_101500_add_zone_to_riders_table ........ 41ms DONE",
        '[INFO] Migrating schema `ops` to version "7 - add rider zone"\n[INFO] Successfully',
        "  Applying riders.0007_rider_zone... OK",
        "== 20260102101500 AddZoneToRiders: migrated (0.0121s) =====",
        "INFO  [alembic.runtime.migration] Running upgrade 1f2e -> 9a8b, add rider zone",
    ]
    records: dict[str, str] = {}
    for n, text in enumerate(outputs):
        facts = facts_of([Message.user("Migrate."), *call(n, "shell", {"cmd": "migrate"}, text)])
        records |= {k: f.state for k, f in facts.items() if f.kind == "record"}
    applied = "status migration applied"
    assert records == {
        "20260102093011_AddOrderLock": applied,
        "20260102_add_rider_zone": applied,
        "2026_01_02_101500_add_zone_to_riders_table": applied,
        "7 - add rider zone": applied,
        "riders.0007_rider_zone": applied,
        "20260102101500 AddZoneToRiders": applied,
        "9a8b, add rider zone": applied,
    }


def test_a_flag_switched_or_a_setting_changed_is_a_record() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: config/prod.json\n@@\n"
        '-  "UseLegacyTariffs": true,\n+  "UseLegacyTariffs": false,\n'
        "-  retries: 6\n+  retries: 2\n-  timeout: 30\n+  timeout: 30\n*** End Patch"
    )
    flags = '{"name": "new-checkout", "enabled": true}\n{"name": "old-search", "enabled": false}'
    facts = facts_of(
        [
            Message.user("Switch it over."),
            *call(1, "apply_patch", {"input": patch}, "Done!"),
            *call(2, "shell", {"cmd": "flags"}, flags),
        ]
    )
    records = {k: f.state for k, f in facts.items() if f.kind == "record"}
    assert records == {
        "UseLegacyTariffs": "status set to false",
        "retries": "status set to 2",  # not timeout: the same value is no change
        "new-checkout": "status enabled",
        "old-search": "status disabled",
    }


def test_any_other_answer_to_a_proposal_is_the_users_instruction() -> None:
    offers = [
        "The import is fixed. I could also backfill last week's rows from the archive. Want that?",
        "Potrei anche ricalcolare le medie di ieri con i valori interpolati.",
        "Daarnaast zou ik de oude exports kunnen verwijderen; ik zou dat vanavond doen.",
    ]
    answers = [
        "No backfill: the archive rows are unaudited, we leave the gap and note it.",
        "Lascia stare le medie, i dati grezzi restano come sono.",
        "Exports bewaren we zeven jaar, niets weggooien.",
    ]
    for offer, answer in zip(offers, answers, strict=True):
        history = [Message.user("Go on."), Message.assistant(offer), Message.user(answer)]
        said = [f.key for f in build_ledger(history).facts if f.kind == "instruction"]
        assert said == [answer], (offer, said)
    # a reply to a report is not an answer to a proposal
    history = [
        Message.user("Go on."),
        Message.assistant("The import ran: 4,210 rows."),
        Message.user("Interesting numbers there today."),
    ]
    assert not [f for f in build_ledger(history).facts if f.kind == "instruction"]


def test_the_agents_work_put_on_a_coming_day_is_its_next_step() -> None:
    for text, said in [
        ("Zbývá návod pro lékárníky. Pošlu ho zítra dopoledne.", "návod pro lékárníky"),
        ("Die Metrik für das Alter der Werte baue ich morgen früh ein.", "Metrik"),
        ("Laporan selisihnya saya kirim besok siang ke pengawas.", "Laporan"),
        ("Noch offen: die Doku. Die schreibe ich morgen.", "Doku"),
    ]:
        history = [Message.user("Thanks."), Message.assistant(text)]
        steps = [f.key for f in build_ledger(history).facts if f.kind == "next"]
        assert len(steps) == 1, (text, steps)
        assert said in steps[0]


def test_a_deadline_anywhere_in_the_users_words_is_a_next_step() -> None:
    for text in (
        "The incident report has to reach the regulator at the latest on Tuesday.",
        "Das Angebot muss bis spätestens Freitag beim Kunden sein.",
        "Hlášení musí odejít nejpozději v úterý.",
    ):
        assert _said(text, "next"), text
    assert not _said("We talked about it on Tuesday with the whole team.", "next")


def test_a_tools_line_that_opens_with_what_it_did_names_a_record() -> None:
    outputs = [
        "Deleted service [billing-canary].",
        "Disabled version [7] of the secret [stripe-webhook-key].",
        'Removed "/etc/systemd/system/timers.target.wants/nightly-export.timer".',
        "12:01:09  1 of 1 OK loaded seed file analytics.fx_rates ....... [INSERT 40 in 0.2s]",
        "Started 3 workers",  # nothing named: no record
    ]
    records: dict[str, str] = {}
    for n, text in enumerate(outputs):
        records |= {
            k: f.state
            for k, f in facts_of([Message.user("Do it."), *call(n, "sh", {"c": "x"}, text)]).items()
            if f.kind == "record"
        }
    assert records == {
        "billing-canary": "status deleted",
        "stripe-webhook-key": "status disabled",
        "/etc/systemd/system/timers.target.wants/nightly-export.timer": "status removed",
        "analytics.fx_rates": "status loaded",
    }


def test_what_the_agent_says_it_did_to_a_named_thing_is_a_record() -> None:
    history = [
        Message.user("Clean up the old credentials and the digest job."),
        Message.assistant("I revoked the `ci-deploy-2022` token; CI uses the new one."),
        Message.assistant("`weekly_digest` is disabled in the scheduler for now."),
        Message.assistant("I will check whether `audit_export` is disabled too."),
        Message.assistant("`invoice_rounding_spec.rb` is green: 9 examples, 0 failures."),
    ]
    records = {f.key: f.state for f in build_ledger(history).facts if f.kind == "record"}
    assert records == {
        "ci-deploy-2022": "status revoked",
        "weekly_digest": "status disabled",
        "invoice_rounding_spec.rb": "status green",
    }


def test_dbt_test_lines_are_test_records_and_a_file_keeps_its_own_state() -> None:
    output = (
        "08:10:02  1 of 2 PASS not_null_orders_id ............ [PASS in 0.9s]\n"
        "08:10:03  2 of 2 FAIL 3 assert_totals_match ............ [FAIL 3 in 1.1s]"
    )
    history = [
        Message.user("Run the tests, then archive the old notebook."),
        *call(1, "shell", {"command": "dbt test"}, output),
        *call(2, "shell", {"command": "git mv notebooks/old.ipynb archive/"}, ""),
        Message.assistant("`notebooks/old.ipynb` is archived; I removed nothing else."),
    ]
    facts = {f.key: f for f in build_ledger(history).facts}
    assert facts["not_null_orders_id"].state == "status tests passed"
    assert facts["assert_totals_match"].state == "status tests failed"
    assert facts["notebooks/old.ipynb"].kind == "file"  # not replaced by the sentence
    assert facts["notebooks/old.ipynb"].state == "moved to archive/"
