"""A second party's attack on 2ebd19f: every entry's run of one word character longer
than 301 is read cut to 301 before credentials are masked, on the claim that no fact
changes because a token holding such a run is too long to be a key.

The claim holds for keys, not for the rules' other limits: many rules read a line only
up to a length (a test runner's line: 400 characters), a statement only so far (an
``ALTER TABLE``'s rest: 400), or a message's first characters (a request's names and
its talk of a secret: 20,000; a user's values: 4,000). A run before the thing read
now leaves it within reach, so facts appear or vanish with the run's length, 400 or
5,000 characters alike. Each case compares the facts of the text cut and whole.

Kept as they are (each ``xfail(strict=True)``): the cut is what made the ledger read
filler in linear time (a compaction of 30 messages of 5,000-character runs: 10 s whole,
0.9 s cut), and a run of one character over 300 long is padding, not content. Where the
two readings differ, the cut one read the text after the padding as if the padding
were shorter; two cases lose records that way (the padded pass line, the password far
after a name).

Tried with no difference: credentials holding or beside a long run (``password=``,
``-p``, ``sk-``, "the password is ..."), runs in JSON arguments, ids after digit runs,
``git commit`` output with a long first line, a private key or a Kubernetes Secret
after padding (same facts), an injected ``<system-reminder>`` tag with a long
attribute, an answer over 100,000 characters.
"""

from __future__ import annotations

import pytest

from contextfold.messages import Message
from tests.compaction.test_ledger import call
from tests.compaction.test_ledger_long_words import cut_and_whole

CUT = pytest.mark.xfail(
    strict=True,
    reason="a run read cut brings the text after it within a rule's fixed reach (accepted)",
)


@CUT
def test_a_failed_test_on_a_line_padded_past_400_characters_reads_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Impact: a runner's line longer than 400 characters is bulk; cut, the same line is
    # a test line, and "tests/test_pay.py::test_refund: tests failed" is a new record.
    messages = [
        Message.user("Run the tests."),
        *call(
            1,
            "bash",
            {"command": "pytest -q"},
            "FAILED tests/test_pay.py::test_refund - AssertionError: "
            + "x" * 400
            + "\n1 failed in 0.2s",
        ),
    ]
    cut, whole = cut_and_whole(messages, monkeypatch)
    assert cut == whole


@CUT
def test_passes_beside_a_padded_pass_line_read_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    # Impact: five passes were records; cut, the padded sixth line is a test line too,
    # more than five passes list only failures, and all five pass records vanish.
    lines = "\n".join(f"tests/test_pay.py::test_case_{i} PASSED" for i in range(5))
    messages = [
        Message.user("Run the tests."),
        *call(
            1,
            "bash",
            {"command": "pytest -v"},
            lines + "\ntests/test_pay.py::test_zlong PASSED " + "_" * 400 + "\n6 passed in 0.3s",
        ),
    ]
    cut, whole = cut_and_whole(messages, monkeypatch)
    assert cut == whole


@CUT
def test_a_column_added_after_a_long_default_reads_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Impact: an ALTER TABLE's rest is read for 400 characters; cut, "ADD COLUMN
    # refund_id" comes within reach and "orders.refund_id: added" is a new record.
    sql = (
        "ALTER TABLE orders ALTER COLUMN note SET DEFAULT 0"
        + "0" * 400
        + ", ADD COLUMN refund_id bigint"
    )
    messages = [Message.user("Migrate."), *call(1, "psql", {"sql": sql}, "ALTER TABLE")]
    cut, whole = cut_and_whole(messages, monkeypatch)
    assert cut == whole


@CUT
def test_a_password_said_far_after_a_name_reads_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    # Impact: a request is read for names and for talk of a secret over its first
    # 20,000 characters; cut, the password sentence after the filler comes within
    # them, every value-like name becomes a secret, and the record of the gateway the
    # agent restarted ("said: I restarted edge-gw-7.") vanishes.
    messages = [
        Message.user("Restart edge-gw-7 now. " + "z" * 25_000 + " The password is Hunter22X."),
        *call(1, "bash", {"command": "kubectl rollout restart deploy/edge-gw-7"}, "restarted"),
        Message.assistant("I restarted edge-gw-7."),
    ]
    cut, whole = cut_and_whole(messages, monkeypatch)
    assert cut == whole


@CUT
def test_a_reply_repeating_values_past_4000_characters_reads_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Impact: a user's values are read from their first 4,000 characters; cut, the
    # bucket and region the reply repeats come within them and a decision appears.
    messages = [
        Message.user(
            "Set the retention to "
            + "9" * 5_000
            + " days, and use bucket logs-eu-7 in region eu-west-3."
        ),
        Message.assistant("Using bucket logs-eu-7 in eu-west-3."),
    ]
    cut, whole = cut_and_whole(messages, monkeypatch)
    assert cut == whole


@CUT
def test_a_json_answer_with_a_number_over_python_s_digit_limit_reads_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Impact: json.loads refuses an integer of more than 4,300 digits, so the answer
    # was no JSON; cut to 302 digits it parses, and "ord-7" is a new id.
    messages = [
        Message.user("Get it."),
        *call(1, "api", {"path": "/o"}, '{"id": "ord-7", "amount": 1' + "0" * 5_000 + "}"),
    ]
    cut, whole = cut_and_whole(messages, monkeypatch)
    assert cut == whole
