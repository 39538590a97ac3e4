"""The fact ledger reading where a tool's output says what matters (issue 27, the
fourteenth set's round): the rows of a listing the words after it point to, a log's own
word for an error, ids ahead of a long line's names, the one failure among things an
API lists under their ids, go test's line per package, and a clock or a template's
placeholder that is no identifier. No case is taken from a fidelity set."""

from __future__ import annotations

import json

from contextfold.compaction._ledger import Ledger, _identifiers, build_ledger
from contextfold.messages import Message
from contextfold.tokens import approx_token_counter
from tests.compaction.test_ledger import call, facts_of

_IMAGES = """\
REPOSITORY      TAG          IMAGE ID       CREATED        SIZE
grafana/grafana 10.4.2       8c0f1e2d3a4b   2 weeks ago    412MB
grafana/grafana 10.2.6       77aa91bc02ef   3 months ago   398MB
postgres        16-alpine    f00dba11cafe   5 weeks ago    243MB
redis           7.2          0badc0ffee42   6 weeks ago    117MB
"""


def test_a_row_the_words_after_a_listing_point_to_gives_its_ids() -> None:
    facts = facts_of(
        [
            Message.user("Mettons Grafana à jour."),
            *call(1, "bash", {"command": "docker image ls"}, _IMAGES),
            Message.assistant(
                "L'ancienne image 10.2.6 est encore là (tableau ci-dessus) : on peut revenir."
            ),
            Message.user("Parfait."),
        ]
    )
    assert "77aa91bc02ef" in facts
    assert "10.2.6" in facts["77aa91bc02ef"].context
    # rows nobody pointed to stay bulk: the listing's middle is not read
    assert "f00dba11cafe" not in facts


def test_a_word_on_many_rows_or_only_in_the_head_points_to_no_row() -> None:
    facts = facts_of(
        [
            Message.user("Check the images."),
            *call(1, "bash", {"command": "docker image ls"}, _IMAGES),
            Message.assistant("All grafana/grafana images and their IMAGE ID are listed."),
            Message.user("ok"),
        ]
    )
    assert "77aa91bc02ef" not in facts
    assert "f00dba11cafe" not in facts


def test_a_logs_own_error_word_makes_its_line_an_error_line() -> None:
    log = "\n".join(
        [
            "2025-02-01 08:00:01,101 INFO  worker started pid=4411",
            *(f"2025-02-01 08:00:{n:02d},000 INFO  heartbeat ok seq={n}" for n in range(2, 30)),
            "2025-02-01 08:00:31,554 ERROR sync job 7f3c2a91-55d0-4c1e-9b7e-0c2f1d9a8e44 aborted",
            *(f"2025-02-01 08:01:{n:02d},000 INFO  heartbeat ok seq={n}" for n in range(30, 50)),
            "2025-02-01 08:02:00,000 INFO  worker idle",
        ]
    )
    facts = facts_of(
        [Message.user("Warum hängt der Sync?"), *call(1, "bash", {"command": "journalctl"}, log)]
    )
    assert "7f3c2a91-55d0-4c1e-9b7e-0c2f1d9a8e44" in facts
    # the clock on every line is no identifier, nor any piece of it
    assert not [key for key in facts if key.startswith(("2025-02-01", "08:0", "31,554"))]


def test_a_logs_later_errors_are_read_too() -> None:
    lines = ["level=info msg=start"]
    lines += ['level=error msg="upstream reset" req=rq_18be77f0a2'] + ["  at frame"] * 9
    lines += ["level=info msg=tick"] * 20
    lines += ['level=error msg="quota exceeded" req=rq_92cc01d4e7', "level=info msg=stop"]
    facts = facts_of(
        [Message.user("?"), *call(1, "bash", {"command": "kubectl logs"}, "\n".join(lines))]
    )
    assert "rq_18be77f0a2" in facts
    assert "rq_92cc01d4e7" in facts


def test_ids_come_before_names_on_a_long_line() -> None:
    line = json.dumps(
        {
            "@t": "2025-03-03T10:11:12.1234567Z",
            "@mt": "HTTP {RequestMethod} {RequestPath} responded {StatusCode} in {Elapsed:0.0}",
            "@l": "Error",
            "SourceContext": "Serilog.AspNetCore.RequestLoggingMiddleware",
            "ConnectionId": "ConnectionIdValue", "RequestId": "RequestIdValue",
            "Application": "BillingApi", "Environment": "ProductionEnvironment",
            "MachineName": "WebServerMachine", "ThreadName": "ThreadPoolWorker",
            "ActionName": "InvoiceController", "EndpointName": "CreateInvoiceEndpoint",
            "TraceId": "4bf92f3577b34da6a3ce929d0e0e4736",
        }
    )  # fmt: skip
    facts = facts_of(
        [Message.user("?"), *call(1, "bash", {"command": "cat app.log"}, f"head\n{line}")]
    )
    assert "4bf92f3577b34da6a3ce929d0e0e4736" in facts
    assert not {"RequestMethod", "StatusCode", "2025-03-03T10", "12.1234567"} & facts.keys()


def test_the_one_failure_an_api_lists_under_its_id_is_a_record() -> None:
    listed = {f"job-{n:04d}-a1": {"name": "nightly.export", "status": "done"} for n in range(6)}
    listed["job-0099-b7"] = {"name": "nightly.export", "status": "failed"}
    facts = facts_of(
        [
            Message.user("Was ist los?"),
            *call(1, "http_get", {"url": "/api/jobs"}, json.dumps(listed)),
        ]
    )
    assert facts["job-0099-b7"].state == "status failed; nightly.export"
    assert "job-0001-a1" not in facts or facts["job-0001-a1"].kind == "id"
    # the name they share is no record of one state ("nightly.export: done" was said)
    assert "nightly.export" not in facts or facts["nightly.export"].kind == "id"


def test_a_few_things_listed_under_their_ids_are_each_a_record() -> None:
    listed = {"pay_81723aa": {"status": "captured"}, "pay_81723ab": {"status": "refunded"}}
    facts = facts_of([Message.user("?"), *call(1, "api", {}, json.dumps(listed))])
    assert facts["pay_81723aa"].state == "status captured"
    assert facts["pay_81723ab"].state == "status refunded"


def test_go_tests_line_per_package_is_its_result() -> None:
    out = (
        "--- FAIL: TestRetry (0.01s)\nFAIL\n"
        "FAIL\tgitlab.example.org/team/queue/internal/lease\t0.207s\n"
        "ok  \tgitlab.example.org/team/queue/internal/store\t(cached)\nFAIL"
    )
    facts = facts_of(
        [Message.user("run the tests"), *call(1, "bash", {"command": "go test ./..."}, out)]
    )
    assert "tests failed" in facts["gitlab.example.org/team/queue/internal/lease"].state
    assert "tests passed" in facts["gitlab.example.org/team/queue/internal/store"].state


def test_a_time_taken_yields_to_an_id_in_a_full_section() -> None:
    body = [Message.user("?")]
    for n in range(60):
        body += call(
            n, "bash", {"command": f"run {n}"}, f"done in {n}.{n:03d}s\nfinished {n}.5{n}s"
        )
    body += call(99, "bash", {"command": "deploy"}, "bld-7e21c9f0aa")
    section, _ = Ledger(build_ledger(body).facts).restore("", "", 300, approx_token_counter)
    assert "bld-7e21c9f0aa" in section


def test_a_clock_and_a_placeholder_are_no_identifiers() -> None:
    text = "at 2024-05-06 07:08:09.123+02:00, 23:59:59,999: {UserId} {Elapsed:0.00} u_8812ab91"
    assert _identifiers(text) == ["u_8812ab91"]


def test_a_tools_line_of_what_it_did_names_the_thing_after_the_verb() -> None:
    facts = facts_of(
        [
            Message.user("Clean up the cluster and the scheduler."),
            *call(1, "bash", {"command": "helm uninstall"}, 'release "grade-mailer" uninstalled'),
            *call(
                2,
                "bash",
                {"command": "manage.py shell"},
                "deleted weekly-digest (1, {'beat.Task': 1})",
            ),
            *call(3, "bash", {"command": "manage.py shell"}, "nightly-export: enabled=False"),
        ]
    )
    assert facts["grade-mailer"].state == "status uninstalled"
    assert facts["weekly-digest"].state == "status deleted"
    assert "beat.Task" not in facts or facts["beat.Task"].kind == "id"
    assert facts["nightly-export"].state == "status disabled"
