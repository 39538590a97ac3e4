"""A second party's attack on four fact-ledger rules (commits 3d66652 and bb22e42).

3d66652, "pointing at a row": a plain ASCII word (or a clock time) after a listing that
is a whole word of exactly one of its rows makes that row's strong ids agent-tier ids.
bb22e42, "shared names": a name of three hyphened parts or more, or words joined by an
underscore before an extension, that the request or the agent's command named and the
agent says again becomes a ``said:`` record, also from a two-word sentence; and a
``git commit``'s summary lines (create, delete, rename) become file facts.

Written by a second party, not the rules' author, with inputs the author did not
choose: credentials in pointed rows and passphrases of hyphened words, idioms and flags
of three hyphened parts, odd and hostile ``git commit`` outputs, turn boundaries and
adversarial sizes. A case that holds today is a plain test; a case that fails is
``xfail(strict=True)`` with its impact. Nothing under ``src/`` was changed.

Of its 52 cases 22 fail (nine defects): credentials copied from a pointed row, a
passphrase of hyphened words made a record, idioms and a flag made things, a quadratic
search the two-word deed now reaches, and four ways a commit summary is misread.
"""

from __future__ import annotations

import time

import pytest

from contextfold.compaction._ledger import (
    _GIT_COMMITTED,
    TIERS,
    Fact,
    _committed_files,
    _shared_shape,
    build_ledger,
)
from contextfold.messages import Message
from tests.compaction.test_ledger import call
from tests.compaction.test_ledger_shared_names import records, turn


def facts(messages: list[Message]) -> list[Fact]:
    return build_ledger(messages).facts


def leaks(messages: list[Message], secret: str) -> list[Fact]:
    """The facts that hold ``secret`` or a piece of it (six characters or more)."""
    return [
        f
        for f in facts(messages)
        if any(
            secret in text or (len(f.key) >= 6 and f.key in secret)
            for text in (f.key, f.state, f.context)
        )
    ]


def listing(output: str, words: str, command: str = "tool ls") -> list[Message]:
    return [
        Message.user("List them."),
        *call(1, "bash", {"command": command}, output),
        Message.user(words),
    ]


# --- pointing: credentials in the pointed row ----------------------------------------

_KEYS = """\
USER      KEY                               CREATED     STATE
alice     8f3kQ9zL2mX7vB4nR6tY1wP5sD0hJ3cA  2024-01-02  valid
bob       Zx9cVb7nM3kL5pQ2wE8rT4yU6iO1aS0d  2024-02-03  expired
carol     Hq7xZp29Lm4Nv8Bc3Xd6Fg1Jk5Ty0Wr2  2024-03-04  valid
dave      Rk2mP8vL5nQ3xZ9cB7wE4tY1uI6oA0sD  2024-03-05  valid
"""
_PASSWORDS = """\
id  user   password        role
1   alice  Tr0ub4dor3xQ9    admin
2   bob    Pa55w0rdZx81     viewer
3   carol  Qw3rty77Asdf     editor
4   dave   H4ck3rM4n2024    viewer
"""
_VAULT = """\
service    value                              updated
postgres   Xk9mQ2vL7nR4pW8zT3yB6cF1hJ5dG0sA    19:41
redis      Lp4nV8xC2mZ6qR9tY3wE7uI1oA5sD0fG    03:15
mq         Bn7vC3xZ9mL2kJ6hG4fD8sA1pO5iU0yT    07:30
smtp       Qw2eR4tY6uI8oP0aS3dF5gH7jK9lZ1xC    11:02
"""
_AWS = """\
NAME       SECRET                                      STATE
ci         AKIAIOSFODNN7EXAMPLE                        active
backup     wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY    revoked
deploy     AKIAI44QH8DHBEXAMPLE                        active
web        AKIAJ55RI9EICFYEXAMPL                       active
"""


@pytest.mark.parametrize(
    ("output", "words", "command", "secret"),
    [
        (_KEYS, "Delete bob's expired one.", "apikeys ls", "Zx9cVb7nM3kL5pQ2wE8rT4yU6iO1aS0d"),
        (_PASSWORDS, "Carol is the editor, keep her.", "sqlite3 app.db", "Qw3rty77Asdf"),
        (
            _VAULT,
            "The one changed at 19:41 broke things.",
            "vault kv get -format=table app/creds",
            "Xk9mQ2vL7nR4pW8zT3yB6cF1hJ5dG0sA",
        ),
        (  # a piece of an AWS secret access key, between its slashes
            _AWS,
            "Drop the revoked one.",
            "keyctl ls",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
    ],
    ids=["api-key-column", "password-column", "vault-clock-time", "aws-secret-piece"],
)
def test_pointing_copies_no_credential_from_the_row(
    output: str, words: str, command: str, secret: str
) -> None:
    assert not [f.key for f in leaks(listing(output, words, command), secret)]


_TOKENS = """\
NAME       SECRET                                          STATE
ci-bot     ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zAA        active
vault      hvs.CAESIJx7k2m9Q4w8e1r5t3y6u0i2o4p7a9s1d3f5    stale
aws        AKIAIOSFODNN7EXAMPLE                            expired
grafana    eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc123XYZdefGHI   rotated
web        ghp_zZ9yY8xX7wW6vV5uU4tT3sS2rR1qQ0pP        active
"""


@pytest.mark.parametrize(
    ("word", "secret"),
    [
        ("stale", "hvs.CAESIJx7k2m9Q4w8e1r5t3y6u0i2o4p7a9s1d3f5"),
        ("expired", "AKIAIOSFODNN7EXAMPLE"),
        ("rotated", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc123XYZdefGHI"),
        ("ci-bot", "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zAA"),
    ],
)
def test_a_pointed_row_holding_a_known_token_shape_gives_nothing(word: str, secret: str) -> None:
    messages = listing(_TOKENS, f"Rotate the {word} one today.", "tokctl ls")
    assert not leaks(messages, secret)
    assert not leaks(messages, secret[:20])


# --- pointing: what must not point ----------------------------------------------------

_PODS = """\
NAME                              READY   STATUS             RESTARTS   AGE
checkout-web-7d9f8c6b5-2xkqp      1/1     Running            0          3d
checkout-worker-5b6c7d8e9-lq4wn   0/1     ImagePullBackOff   0          12m
checkout-worker-5b6c7d8e9-t7hvx   0/1     CrashLoopBackOff   4          3d
checkout-cron-28391045-x2bfd      0/1     Completed          0          41m
checkout-api-6c5d4e3f2-zz9yy      1/1     Running            0          3d
"""


def pod_tiers(messages: list[Message]) -> dict[str, int]:
    return {f.key: f.tier for f in facts(messages) if f.key.startswith("checkout-")}


def test_the_state_word_points_and_ranks_the_row_as_the_agents() -> None:
    # the control for the cases below
    tiers = pod_tiers(listing(_PODS, "The CrashLoopBackOff pod is ours.", "kubectl get pods"))
    assert tiers.get("checkout-worker-5b6c7d8e9-t7hvx") == TIERS["agent id"]


@pytest.mark.parametrize(
    "words",
    [
        "Every pod that is Running looks fine.",  # a word of two rows
        "The READY and STATUS columns look odd.",  # the head only
        "Noted, nothing to do here.",  # no word of any row
    ],
)
def test_words_of_two_rows_or_of_the_head_point_at_nothing(words: str) -> None:
    tiers = pod_tiers(listing(_PODS, words, "kubectl get pods"))
    assert TIERS["agent id"] not in tiers.values()


def test_words_after_a_later_tool_call_do_not_point_at_the_earlier_output() -> None:
    messages = [
        Message.user("Why is checkout down?"),
        *call(1, "bash", {"command": "kubectl get pods"}, _PODS),
        *call(2, "bash", {"command": "date"}, "Mon Mar  3 10:00:00 UTC 2025"),
        Message.user("The CrashLoopBackOff one, please."),
    ]
    assert TIERS["agent id"] not in pod_tiers(messages).values()


def test_a_row_far_down_a_large_listing_is_still_pointed_at() -> None:
    rows = "".join(f"job-{100000 + i:06d}-a   Succeeded   node-{i % 7}\n" for i in range(5000))
    output = "NAME              STATUS      NODE\n" + rows + "job-999999-z   Evicted   node-3\n"
    assert len(output) < 200_000
    got = {f.key: f.tier for f in facts(listing(output, "Why was it Evicted?", "jobs ls"))}
    assert got.get("job-999999-z") == TIERS["agent id"]


def test_a_large_listing_with_many_pointer_words_after_it_stays_fast() -> None:
    rows = "".join(f"r{1000000 + i} name{i:05d}x st{i}\n" for i in range(9000))
    output = ("ID NAME STATE\n" + rows)[:199_000]
    words = " ".join(f"name{i:05d}x" for i in range(0, 9000, 140)) + " "
    words += " ".join(f"st{i}" for i in range(64))
    messages = [
        Message.user("List."),
        *call(1, "bash", {"command": "ls"}, output),
        Message.assistant(words),
        Message.user(words),
    ]
    start = time.perf_counter()
    got = facts(messages)
    assert time.perf_counter() - start < 2.0
    # three rows pointed at, at most, from one output
    assert sum(f.tier == TIERS["agent id"] for f in got) <= 3 * 4


# --- shared names: passphrases, idioms, flags -----------------------------------------

PHRASE = "correct-horse-battery-staple"
# Still open: with no word of a credential beside it ("use X for admin", "X as bob's
# login"), a passphrase of hyphened words looks like the name of a policy or a job.
_PASSPHRASE_OPEN = pytest.mark.xfail(
    strict=True,
    reason="a passphrase of hyphened words given with no credential word, flag or SQL "
    "beside it is taken for a thing's name (deny-legacy-ftp has the same shape) and "
    "becomes a said: record",
)


@pytest.mark.parametrize(
    ("request_", "command", "report"),
    [
        pytest.param(
            "use correct-horse-battery-staple for admin",
            "adminctl reset admin",
            "Reset admin with correct-horse-battery-staple.",
            marks=_PASSPHRASE_OPEN,
        ),
        (
            "Set the admin login to correct-horse-battery-staple.",
            "adminctl set-login",
            "Done: the admin login is now correct-horse-battery-staple.",
        ),
        (
            "Encrypt the backup with correct-horse-battery-staple.",
            "gpg --symmetric --batch backup.tar",
            "Encrypted the backup with correct-horse-battery-staple.",
        ),
        (
            "Rotate the app's database login.",
            "psql -c \"ALTER USER app WITH PASSWORD 'correct-horse-battery-staple'\"",
            "Rotated: app now uses correct-horse-battery-staple.",
        ),
        (
            "Zip the report for the auditors.",
            "zip -P correct-horse-battery-staple report.zip report.pdf",
            "Zipped it with correct-horse-battery-staple.",
        ),
        (
            "Encrypt the dump.",
            "openssl enc -aes-256-cbc -k correct-horse-battery-staple -in d -out d.enc",
            "Encrypted with correct-horse-battery-staple.",
        ),
        pytest.param(
            "Use correct-horse-battery-staple as bob's login.",
            "chpasswd",
            "correct-horse-battery-staple set.",
            marks=_PASSPHRASE_OPEN,
        ),
    ],
    ids=["no-credential-word", "login", "encrypt", "alter-user", "zip-P", "openssl-k", "two-word"],
)
def test_a_passphrase_of_hyphened_words_is_no_record(
    request_: str, command: str, report: str
) -> None:
    assert PHRASE not in records(*turn(request_, command, "ok", report))


@pytest.mark.parametrize(
    ("request_", "command", "report"),
    [
        (
            "The password is correct-horse-battery-staple; set it for admin.",
            "adminctl",
            "Set correct-horse-battery-staple for admin.",
        ),
        (
            "Encrypt it.",
            "gpg --batch --passphrase correct-horse-battery-staple -c a",
            "Encrypted with correct-horse-battery-staple.",
        ),
        (
            "passwd for bob: correct-horse-battery-staple",
            "chpasswd",
            "bob now has correct-horse-battery-staple.",
        ),
    ],
)
def test_a_passphrase_said_as_a_credential_is_kept_out(
    request_: str, command: str, report: str
) -> None:
    messages = turn(request_, command, "ok", report)
    assert not leaks(messages, PHRASE)


@pytest.mark.xfail(
    strict=True,
    reason="an idiom of three hyphened words or more with no connector among "
    "_CONNECTORS (it, go, yourself, size, fits, come, et) is taken for the name of a "
    "thing and becomes a said: record of the agent's sentence",
)
@pytest.mark.parametrize(
    ("phrase", "request_", "report"),
    [
        (
            "one-size-fits-all",
            "Drop the one-size-fits-all config.",
            "I removed the one-size-fits-all config.",
        ),
        (
            "do-it-yourself",
            "Add a do-it-yourself guide.",
            "I added the do-it-yourself guide.",
        ),
        (
            "happy-go-lucky",
            "Keep the happy-go-lucky tone.",
            "I kept the happy-go-lucky tone.",
        ),
        (
            "first-come-first-served",
            "Queue requests first-come-first-served.",
            "Requests are queued first-come-first-served now.",
        ),
        (
            "va-et-vient",
            "Supprime le va-et-vient du menu.",
            "J'ai supprimé le va-et-vient du menu.",
        ),
    ],
)
def test_an_idiom_of_hyphened_words_is_no_thing(phrase: str, request_: str, report: str) -> None:
    assert phrase not in records(*turn(request_, "ls docs", "a\nb", report))


def test_a_flag_of_three_parts_is_no_thing() -> None:
    got = records(
        *turn(
            "Try the migration first.",
            "migrate --dry-run-only",
            "ok",
            "Ran it with --dry-run-only: nothing changed.",
        )
    )
    assert not any("dry-run-only" in key for key in got)


@pytest.mark.parametrize(
    ("request_", "report", "name"),
    [
        ("Call the mother-in-law service.", "I called the mother-in-law service.", "mother"),
        ("Meet face-to-face.", "We met face-to-face about the rollout plan.", "face"),
        ("Quita el ir-y-venir del menú.", "He quitado el ir-y-venir del menú.", "venir"),
        ("Pin to 1.2.3-rc-1 now.", "Pinned 1.2.3-rc-1 everywhere in the repo.", "rc-1"),
        ("Ship on 2025-01-02.", "Shipped on 2025-01-02 as the team planned.", "2025"),
        (
            "Delete job 3f2a1b4c-9d8e-4f7a-b6c5-1234567890ab.",
            "Deleted 3f2a1b4c-9d8e-4f7a-b6c5-1234567890ab from the queue.",
            "3f2a1b4c",
        ),
    ],
)
def test_connectors_versions_dates_and_uuids_are_no_shared_things(
    request_: str, report: str, name: str
) -> None:
    assert not [key for key in records(*turn(request_, "ls", "a", report)) if name in key]


def test_a_policy_name_of_three_parts_is_still_a_thing() -> None:
    # the control: the rule's own case in another language
    got = records(
        *turn(
            "Bitte entferne die Regel deny-legacy-ftp.",
            "fwctl rules list",
            "allow-ssh\ndeny-legacy-ftp",
            "deny-legacy-ftp entfernt.",
        )
    )
    assert got.get("deny-legacy-ftp", "").startswith("said: ")


def test_a_two_word_reply_with_a_long_word_stays_fast() -> None:
    messages = turn("Remove the deny-legacy-ftp policy.", "ls", "ok", "Digest: " + "x" * 50_000)
    start = time.perf_counter()
    build_ledger(messages)
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize(
    "token",
    [
        "a" + "-aa" * 100_000,
        "aa-" * 100_000,
        "a_" * 100_000 + ".x",
        "a_b" * 50_000 + ".toolongext",
        "-".join(["ab"] * 50_000) + "-",
    ],
    ids=["hyphens", "trailing-hyphens", "underscores", "long-extension", "dangling"],
)
def test_many_parts_has_no_catastrophic_backtracking(token: str) -> None:
    start = time.perf_counter()
    _shared_shape(token)
    assert time.perf_counter() - start < 2.0


# --- git commit summaries -------------------------------------------------------------


def files_of(output: str, command: str = "git commit -am 'Tidy'") -> dict[str, str]:
    messages = [
        Message.user("Tidy the repo and commit it."),
        *call(1, "bash", {"command": command}, output),
        Message.assistant("Committed."),
    ]
    return {f.key: f.state for f in build_ledger(messages).facts if f.kind == "file"}


_HEAD = "[main 3f9e1c2] Tidy\n 3 files changed, 1 insertion(+)\n"


def test_a_brace_with_an_empty_right_side_moves_to_the_parent() -> None:
    files = files_of(_HEAD + " rename {old => }/x.py (90%)\n")
    assert files.get("old/x.py") == "moved to x.py"


def test_a_brace_with_an_empty_left_side_moves_into_the_folder() -> None:
    files = files_of(_HEAD + " rename src/{ => lib}/util.py (100%)\n")
    assert files.get("src/util.py") == "moved to src/lib/util.py"


def test_a_commit_summary_with_crlf_line_endings() -> None:
    output = _HEAD + " create mode 100644 a.txt\n delete mode 100644 b.txt\n"
    output += " rename x.txt => y.txt (100%)\n"
    files = files_of(output.replace("\n", "\r\n"))
    assert files == {"a.txt": "created", "b.txt": "deleted", "x.txt": "moved to y.txt"}


def test_a_quoted_path_is_unquoted() -> None:
    files = files_of(_HEAD + ' create mode 100644 "caf\\303\\251.txt"\n')
    assert files.get("café.txt") == "created"


def test_a_commit_summary_shown_by_cat_is_no_deed() -> None:
    output = (
        "How to retire a module:\n\n[main 1234567] Retire app\n delete mode 100644 src/app.py\n"
    )
    assert "src/app.py" not in files_of(output, "cat docs/howto-retire.md")


def test_paths_with_spaces_and_modes_that_are_no_file_change() -> None:
    output = _HEAD + " create mode 100644 docs/release notes.md\n"
    output += " mode change 100644 => 100755 scripts/run.sh\n"
    files = files_of(output)
    assert files.get("docs/release notes.md") == "created"
    assert "scripts/run.sh" not in files
    assert not any("=>" in key or "100755" in key for key in files)


def test_a_commit_line_inside_a_logs_message_body_is_not_read() -> None:
    # git log indents a message's body: a pasted "[main ...]" there is no commit line
    output = "commit 3f9e1c2a8d\nAuthor: A <a@b.c>\n\n    [main 1234567] fake\n"
    output += " delete mode 100644 src/core.py\n"
    assert "src/core.py" not in files_of(output, "git log --summary -1")


def test_a_huge_commit_summary_is_read_fast_and_capped() -> None:
    output = _HEAD + "".join(f" create mode 100644 f/{i}.txt\n" for i in range(100_000))
    output += "".join(" rename " + "a => " * 80 + "b\n" for _ in range(20_000))
    start = time.perf_counter()
    assert _GIT_COMMITTED.search(output)
    got = list(_committed_files(output))
    assert time.perf_counter() - start < 2.0
    assert len(got) == 50
    assert got[0] == Fact("file", "f/0.txt", TIERS["changed"], state="created")
