"""Hostile tests of 5bfa862: the fact ledger's fourteenth round (rows pointed to by the
words after a listing, a log's own error word, ids before names, records keyed by id,
go test's package lines, clocks and placeholders that are no ids, timings last).

Twelve of them (sixteen cases) failed on 5bfa862 and pass since the fixes that followed
the attack; the others guard what held. No case is taken from a fidelity set.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

from contextfold.compaction import _ledger
from contextfold.compaction._ledger import Ledger, build_ledger
from contextfold.messages import Message
from contextfold.tokens import approx_token_counter
from tests.compaction.test_ledger import call, facts_of

_IMAGES = """\
REPOSITORY      TAG          IMAGE ID       CREATED        SIZE
grafana/grafana 10.4.2       8c0f1e2d3a4b   2 weeks ago    412MB
grafana/grafana 10.2.6       77aa91bc02ef   3 months ago   398MB
postgres        16-alpine    f00dba11cafe   5 weeks ago    243MB
"""


def _section(messages: list[Message]) -> str:
    section, _ = Ledger(build_ledger(messages).facts).restore("", "", 1_000, approx_token_counter)
    return section


def _best_ms(run: Callable[[], object], tries: int = 3) -> float:
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        run()
        best = min(best, (time.perf_counter() - start) * 1000)
    return best


# --- a log's own error word --------------------------------------------------------


def test_an_error_word_in_a_setting_does_not_hide_the_real_error() -> None:
    out = "\n".join(
        [
            "worker boot: LOG_LEVEL=ERROR, queue=invoices",
            *(f"processed batch {n}" for n in range(12)),
            "Traceback (most recent call last):",
            '  File "/app/tasks.py", line 88, in render',
            "    db.insert(order)",
            "psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint"
            ' "orders_pkey"',
            "DETAIL:  Key (id)=(ord_77a1c9e2) already exists.",
            *(f"processed batch {n}" for n in range(12, 20)),
            "worker stopped",
        ]
    )
    facts = facts_of(
        [Message.user("Why do invoices fail?"), *call(1, "bash", {"command": "docker logs w"}, out)]
    )
    assert "ord_77a1c9e2" in facts
    assert "orders_pkey" in facts


# --- records a JSON object lists under their ids ------------------------------------


def test_a_failure_among_tasks_in_states_all_different_is_kept() -> None:
    listed = {
        "task-7f3a91c2": {"name": "render_pdf", "state": "FAILURE"},
        "task-8b21c0d4": {"name": "render_pdf", "state": "STARTED"},
        "task-9c44e1f0": {"name": "render_pdf", "state": "SUCCESS"},
        "task-a1d2e3f4": {"name": "render_pdf", "state": "PENDING"},
    }
    facts = facts_of(
        [Message.user("?"), *call(1, "http_get", {"url": "/api/tasks"}, json.dumps(listed))]
    )
    assert facts["task-7f3a91c2"].state == "status FAILURE; render_pdf"


def test_failed_tasks_are_not_dropped_when_they_are_the_many() -> None:
    listed = {f"task-{n:04d}c2": {"name": "render_pdf", "state": "FAILURE"} for n in range(6)}
    listed["task-9999ab"] = {"name": "render_pdf", "state": "SUCCESS"}
    facts = facts_of(
        [Message.user("?"), *call(1, "http_get", {"url": "/api/tasks"}, json.dumps(listed))]
    )
    assert any("FAILURE" in fact.state for fact in facts.values())


# --- go test's line per package -----------------------------------------------------


def test_a_go_package_passing_under_cover_is_no_longer_failing() -> None:
    failed = "--- FAIL: TestLease (0.01s)\nFAIL\nFAIL\tgithub.com/acme/queue/lease\t0.207s\nFAIL"
    passed = "ok  \tgithub.com/acme/queue/lease\t0.311s\tcoverage: 81.2% of statements"
    facts = facts_of(
        [
            Message.user("fix the lease tests"),
            *call(1, "bash", {"command": "go test ./..."}, failed),
            *call(2, "bash", {"command": "go test -cover ./..."}, passed),
        ]
    )
    assert "tests failed" not in facts["github.com/acme/queue/lease"].state


@pytest.mark.parametrize(
    ("out", "package"),
    [
        (
            "# github.com/acme/queue/lease\nlease/lease.go:12:2: undefined: clock\n"
            "FAIL\tgithub.com/acme/queue/lease [build failed]\nFAIL",
            "github.com/acme/queue/lease",
        ),
        ("--- FAIL: TestSeed (0.00s)\nFAIL\nFAIL\tmyapp\t0.300s\nFAIL", "myapp"),
    ],
    ids=["build-failed", "module-root"],
)
def test_go_package_lines_of_other_forms_are_results(out: str, package: str) -> None:
    facts = facts_of([Message.user("run the tests"), *call(1, "bash", {"command": "go test"}, out)])
    assert "tests failed" in facts[package].state


# --- rows the words after a listing point to ----------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "上の表の10.2.6のイメージがまだ残っているので、戻せます。",
        "旧镜像10.2.6还在上面的表里。",
        "อิมเมจ10.2.6ยังอยู่ในตารางด้านบน",
    ],
    ids=["ja", "zh", "th"],
)
def test_a_row_pointed_to_in_prose_without_spaces_gives_its_ids(said: str) -> None:
    facts = facts_of(
        [
            Message.user("更新"),
            *call(1, "bash", {"command": "docker image ls"}, _IMAGES),
            Message.assistant(said),
            Message.user("ok"),
        ]
    )
    assert "77aa91bc02ef" in facts


def test_a_pointer_into_a_file_only_read_takes_no_row() -> None:
    """Guard: the rows of a file the agent only read are content, not a listing."""
    facts = facts_of(
        [
            Message.user("Check the pins."),
            *call(1, "read_file", {"path": "images.txt"}, _IMAGES),
            Message.assistant("The 10.2.6 pin is still there."),
            Message.user("ok"),
        ]
    )
    assert "77aa91bc02ef" not in facts


def test_a_long_word_after_a_listing_costs_linear_time() -> None:
    messages = [
        Message.user("look"),
        *call(1, "bash", {"command": "ls"}, "a.txt\nb.txt\nc.txt"),
        Message.user("x" * 4_000),
    ]
    assert _best_ms(lambda: build_ledger(messages), tries=1) < 100


def test_many_words_after_a_long_listing_cost_little() -> None:
    rows = "\n".join(f"r{n:06d} item-{n} ok" for n in range(9_000))
    words = "\n".join(f"GET /api/items {n}.{n % 97} 200 rq-{n:05d}x" for n in range(1_000))
    assert _best_ms(lambda: list(_ledger._pointed_rows(rows, words)), tries=2) < 100


# --- credentials --------------------------------------------------------------------


def test_a_password_on_a_pointed_row_is_not_copied() -> None:
    table = (
        "NAME        USER     SECRET                      HOST\n"
        "app-db      app      token=Zx9kL2mPq7rWt4v        db1.internal\n"
        "report-db   report   password=Hj3nB8cRt5yUe2w     db2.internal\n"
        "cache       default  none                        redis1\n"
    )
    section = _section(
        [
            Message.user("Rotate the database credentials."),
            *call(1, "bash", {"command": "vault kv list db"}, table),
            Message.assistant("The report-db row is the one to rotate first."),
            Message.user("ok"),
        ]
    )
    assert "Hj3nB8cRt5yUe2w" not in section


def test_a_password_on_a_logs_error_line_is_not_copied() -> None:
    log = "\n".join(
        [
            "2025-01-01 10:00:00 INFO start",
            *(f"2025-01-01 10:00:{n:02d} INFO tick {n}" for n in range(1, 20)),
            "2025-01-01 10:00:30 ERROR auth rejected for db user app: password=Pa55w0rdAutumn24",
            *(f"2025-01-01 10:01:{n:02d} INFO tick {n}" for n in range(1, 20)),
            "2025-01-01 10:02:00 INFO stop",
        ]
    )
    section = _section(
        [Message.user("why?"), *call(1, "bash", {"command": "journalctl -u app"}, log)]
    )
    assert "Pa55w0rdAutumn24" not in section


# --- what is no identifier ----------------------------------------------------------


@pytest.mark.parametrize(
    "out",
    ["retrying job {job_4471ab} in 5s\nqueued\ndone", "tenant {acme_eu_4471} migrated\nx\ny"],
)
def test_an_id_in_braces_is_no_placeholder(out: str) -> None:
    facts = facts_of([Message.user("?"), *call(1, "bash", {"command": "run it"}, out)])
    assert {"job_4471ab", "acme_eu_4471"} & facts.keys()


def test_the_users_restore_point_is_kept() -> None:
    facts = facts_of(
        [
            Message.user(
                "Restore the orders database to 2024-05-06T07:08:09Z, just before the bad "
                "migration."
            ),
            Message.assistant("On it."),
        ]
    )
    assert "2024-05-06T07:08:09Z" in facts


def test_a_clock_stays_out_of_a_long_log_but_its_request_id_is_kept() -> None:
    """Guard: 200 lines all sharing one clock shape give no clock piece as an id."""
    log = "\n".join(
        f"2025-02-01T08:{n % 60:02d}:{n % 60:02d}.{n:06d}Z ERROR req rq_{n:08x} failed"
        for n in range(200)
    )
    facts = facts_of([Message.user("?"), *call(1, "bash", {"command": "kubectl logs"}, log)])
    assert "rq_00000000" in facts
    assert not [key for key in facts if key.startswith(("2025-02-01", "08:"))]
