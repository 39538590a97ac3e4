"""Hostile tests of the ledger's command rules (commit 23915d7): schema statements run
through a database client, new git branches, "Rollback to `X`" lines, one-slash names
in the agent's words and "id" no longer read as "I'd".

Each case asserts what a demanding user expects of a fact ledger. 39 of the 73 failed
on the commit attacked (written by a second party) and pass since the fixes that
followed it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.compaction._ledger import Fact, _said_records, build_ledger
from contextfold.messages import Message
from tests.compaction.test_ledger import call

SECRET = "S3cr3tPw9"


def ledger(
    command: str,
    output: str,
    *,
    tool: str = "bash",
    key: str = "command",
    after: str = "Done.",
) -> list[Fact]:
    return build_ledger(
        [
            Message.user("Go ahead."),
            *call(1, tool, {key: command}, output),
            Message.assistant(after),
        ]
    ).facts


def records(facts: list[Fact]) -> dict[str, list[str]]:
    """Every record's states by key (a key told twice keeps both states)."""
    found: dict[str, list[str]] = {}
    for fact in facts:
        if fact.kind == "record":
            found.setdefault(fact.key, []).append(fact.state)
    return found


def said(key: str, facts: list[Fact], word: str) -> bool:
    """Whether some record of ``key`` has ``word`` in its state."""
    return any(word in state for state in records(facts).get(key, []))


# --- schema statements and branches that were never run -----------------------------


@pytest.mark.parametrize(
    ("tool", "key", "command", "output", "name", "word"),
    [
        pytest.param(
            "bash",
            "command",
            "psql app <<'SQL'\n-- DROP TABLE users;  (kept for reference)\n"
            "ALTER TABLE orders ADD COLUMN note text;\nSQL",
            "ALTER TABLE",
            "users",
            "dropped",
            id="sql-comment",
        ),
        pytest.param(
            "bash",
            "command",
            "psql -c \"INSERT INTO audit(msg) VALUES ('DROP TABLE users requested')\"",
            "INSERT 0 1",
            "users",
            "dropped",
            id="string-literal",
        ),
        pytest.param(
            "bash",
            "command",
            'psql -d app -c "BEGIN; DROP TABLE users; ROLLBACK;"',
            "BEGIN\nDROP TABLE\nROLLBACK",
            "users",
            "dropped",
            id="rolled-back-transaction",
        ),
        pytest.param(
            "bash",
            "command",
            "grep -n 'DROP TABLE sessions_tmp' /var/log/mysql/mysql.log",
            "2024-06-01T10:00:00 12 Query DROP TABLE sessions_tmp",
            "sessions_tmp",
            "dropped",
            id="grep-mysql-log",
        ),
        pytest.param(
            "search_docs",
            "query",
            "how to DROP TABLE sessions_tmp safely in production",
            "3 results",
            "sessions_tmp",
            "dropped",
            id="search-query",
        ),
        pytest.param(
            "bash",
            "command",
            "echo 'git checkout -b fake/branch' >> CONTRIBUTING.md",
            "",
            "fake/branch",
            "created",
            id="echo-git-into-file",
        ),
        pytest.param(
            "bash",
            "command",
            "git checkout -- src/app.py",
            "Updated 1 path from the index",
            "src/app.py",
            "created",
            id="checkout-a-file",
        ),
    ],
)
def test_what_was_not_run_changes_nothing(
    tool: str, key: str, command: str, output: str, name: str, word: str
) -> None:
    assert not said(name, ledger(command, output, tool=tool, key=key), word)


def test_a_script_written_to_a_file_runs_nothing() -> None:
    content = "#!/bin/sh\nmysql app -e 'DROP TABLE sessions_tmp'\ngit checkout -b hotfix/x main\n"
    facts = build_ledger(
        [
            Message.user("Write the cleanup script, do not run it."),
            *call(1, "write_file", {"path": "scripts/cleanup.sh", "content": content}, "wrote"),
            Message.assistant("Written."),
        ]
    ).facts
    assert not said("sessions_tmp", facts, "dropped")
    assert not said("hotfix/x", facts, "created")


# --- what a statement did, to what ---------------------------------------------------


@pytest.mark.parametrize(
    ("command", "key", "states"),
    [
        pytest.param(
            'mysql shop -e "ALTER TABLE orders ADD COLUMN reason VARCHAR(64) '
            "COMMENT 'drop reason'\"",
            "orders.reason",
            ["status added"],
            id="column-comment",
        ),
        pytest.param(
            "psql -c 'ALTER TABLE users OWNER TO app' && git add migrations && git commit -m x",
            "users.migrations",
            None,
            id="past-the-statement",
        ),
        pytest.param(
            "mysql shop -e 'ALTER TABLE users CHANGE mail email VARCHAR(255)'",
            "users.mail",
            ["status renamed to users.email"],
            id="mysql-change",
        ),
        pytest.param(
            "psql -c 'ALTER TABLE invoice RENAME COLUMN vat TO vat_rate'",
            "invoice.vat",
            ["status renamed to invoice.vat_rate"],
            id="rename-column",
        ),
    ],
)
def test_an_alter_table_tells_its_own_clauses(
    command: str, key: str, states: list[str] | None
) -> None:
    assert records(ledger(command, "ALTER TABLE")).get(key) == states


@pytest.mark.parametrize(
    ("command", "key", "word"),
    [
        pytest.param(
            "psql -c 'CREATE INDEX CONCURRENTLY idx_orders_user ON orders (user_id)'",
            "idx_orders_user",
            "created",
            id="concurrently",
        ),
        pytest.param(
            "mysql -e 'DROP DATABASE `shop-staging`'",
            "shop-staging",
            "dropped",
            id="quoted-hyphen",
        ),
        pytest.param(
            "psql -c 'DROP TABLE \"Order Lines\"'",
            "Order Lines",
            "dropped",
            id="quoted-space",
        ),
        pytest.param(
            "psql -c 'DROP TABLE carts_old, carts_tmp'",
            "carts_tmp",
            "dropped",
            id="two-tables",
        ),
        pytest.param(
            "psql -c 'DROP TABLE Änderungen_2023'",
            "Änderungen_2023",
            "dropped",
            id="non-ascii-latin",
        ),
        pytest.param(
            "psql -c 'DROP TABLE клиенты_старые'",
            "клиенты_старые",
            "dropped",
            id="cyrillic",
        ),
        pytest.param('psql -c \'DROP TABLE "public"."Users"\'', "public.Users", "dropped"),
        pytest.param("sqlcmd -Q 'DROP TABLE [dbo].[users]'", "dbo.users", "dropped"),
        pytest.param("mysql -e 'DROP TABLE `shop`.`cart_items`'", "shop.cart_items", "dropped"),
        pytest.param("psql -c 'DROP TABLE tmp$import'", "tmp$import", "dropped"),
    ],
)
def test_an_object_is_recorded_by_its_whole_name(command: str, key: str, word: str) -> None:
    assert said(key, ledger(command, "DROP TABLE"), word)


# --- was it refused? -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "output", "key", "word"),
    [
        pytest.param(
            "psql -c 'DROP TABLE sessions_tmp'",
            "FEHLER:  Tabelle »sessions_tmp« existiert nicht",
            "sessions_tmp",
            "dropped",
            id="pg-de",
        ),
        pytest.param(
            "psql -c 'DROP TABLE sessions_tmp'",
            'ОШИБКА:  таблица "sessions_tmp" не существует',
            "sessions_tmp",
            "dropped",
            id="pg-ru",
        ),
        pytest.param(
            "psql -c 'DROP TABLE sessions_tmp'",
            "ERREUR:  la table « sessions_tmp » n'existe pas",
            "sessions_tmp",
            "dropped",
            id="pg-fr",
        ),
        pytest.param(
            "git checkout -b fix/login",
            "Schwerwiegend: Ein Branch namens 'fix/login' existiert bereits.",
            "fix/login",
            "created",
            id="git-de",
        ),
        pytest.param(
            "psql -c 'DROP TABLE users CASCADE'",
            "NOTICE:  drop cascades to view v_report\n" * 200
            + "ERROR:  canceling statement due to lock timeout",
            "users",
            "dropped",
            id="error-after-4000-chars",
        ),
        pytest.param(
            "psql -c 'DROP TABLE sessions_tmp'",
            'psql: error: connection to server at "db" (10.0.0.5), port 5432 failed',
            "sessions_tmp",
            "dropped",
            id="no-connection",
        ),
        pytest.param(
            "git checkout -b fix/login",
            "fatal: a branch named 'fix/login' already exists",
            "fix/login",
            "created",
            id="git-fatal",
        ),
    ],
)
def test_a_refused_command_changes_nothing(command: str, output: str, key: str, word: str) -> None:
    assert not said(key, ledger(command, output), word)


@pytest.mark.parametrize(
    ("command", "output", "key", "word"),
    [
        pytest.param(
            "mysql -v app -e 'ALTER TABLE jobs ADD COLUMN error TEXT'",
            "--------------\nALTER TABLE jobs ADD COLUMN error TEXT\n--------------\n\n"
            "Query OK, 0 rows affected (0.02 sec)",
            "jobs.error",
            "added",
            id="mysql-verbose-echo",
        ),
        pytest.param(
            "psql -e -c 'ALTER TABLE logins ADD COLUMN failed boolean'",
            "ALTER TABLE logins ADD COLUMN failed boolean\nALTER TABLE",
            "logins.failed",
            "added",
            id="psql-echo",
        ),
        pytest.param(
            "psql -a app <<'SQL'\n\\set ON_ERROR_STOP on\nDROP TABLE sessions_tmp;\nSQL",
            "\\set ON_ERROR_STOP on\nDROP TABLE sessions_tmp;\nDROP TABLE\n0 errors, 0 warnings",
            "sessions_tmp",
            "dropped",
            id="on-error-stop",
        ),
    ],
)
def test_a_success_is_not_read_as_a_refusal(command: str, output: str, key: str, word: str) -> None:
    assert said(key, ledger(command, output), word)


def _out_of_order() -> list[Message]:
    return [
        Message.user("Drop both scratch tables."),
        Message(
            "assistant",
            [
                TextBlock("Dropping both."),
                ToolUseBlock("c1", "bash", {"command": "psql -c 'DROP TABLE beta_tmp'"}),
                ToolUseBlock("c2", "bash", {"command": "psql -c 'DROP TABLE alpha_tmp'"}),
            ],
        ),
        Message(
            "user",
            [
                ToolResultBlock("c2", 'ERROR:  table "alpha_tmp" does not exist'),
                ToolResultBlock("c1", "DROP TABLE"),
            ],
        ),
        Message.assistant("beta_tmp is gone; alpha_tmp never existed."),
    ]


def _unanswered() -> list[Message]:
    return [
        Message.user("Drop alpha_tmp."),
        *call(1, "bash", {"command": "psql -c 'DROP TABLE alpha_tmp'"}, "DROP TABLE")[:1],
        Message.user("Stop! Not that one. Drop beta_tmp instead."),
        *call(2, "bash", {"command": "psql -c 'DROP TABLE beta_tmp'"}, "DROP TABLE"),
        Message.assistant("Dropped beta_tmp only."),
    ]


@pytest.mark.parametrize(
    "history",
    [
        pytest.param(
            _out_of_order,
            id="parallel-out-of-order",
        ),
        pytest.param(
            _unanswered,
            id="call-never-answered",
        ),
    ],
)
def test_each_call_is_judged_by_its_own_output(history: Callable[[], list[Message]]) -> None:
    facts = build_ledger(history()).facts
    assert said("beta_tmp", facts, "status dropped")
    assert not said("alpha_tmp", facts, "status dropped")


# --- git branches --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "output", "key", "states"),
    [
        pytest.param(
            "cd repo && git fetch && git checkout -b release/2.4 origin/main && "
            "git push -u origin release/2.4",
            "Switched to a new branch 'release/2.4'",
            "release/2.4",
            ["status created from origin/main"],
            id="in-a-longer-script",
        ),
        pytest.param(
            "git switch -c feat/x --track origin/feat/x",
            "branch 'feat/x' set up to track 'origin/feat/x'.\nSwitched to a new branch 'feat/x'",
            "feat/x",
            ["status created from origin/feat/x"],
            id="track",
        ),
        pytest.param(
            'git checkout -b "feat/quoted" main',
            "Switched to a new branch 'feat/quoted'",
            "feat/quoted",
            ["status created from main"],
            id="quoted",
        ),
        pytest.param(
            "git checkout -b release/$VERSION origin/main",
            "Switched to a new branch 'release/2.5'",
            "release",
            None,
            id="shell-variable",
        ),
    ],
)
def test_a_new_branch_is_recorded_as_created(
    command: str, output: str, key: str, states: list[str] | None
) -> None:
    assert records(ledger(command, output)).get(key) == states


def test_a_branch_reset_with_capital_b_is_not_created() -> None:
    facts = ledger("git checkout -B hotfix origin/main", "Reset branch 'hotfix'")
    assert not said("hotfix", facts, "created")


# --- rollback lines ------------------------------------------------------------------


@pytest.mark.parametrize(
    "output",
    [
        "01 Rollback to `releases/20240611` failed: permission denied",
        "[dry-run] Rollback to `releases/20240611`",
        "No rollback to `releases/20240611` possible: only one release",
    ],
)
def test_a_rollback_that_did_not_happen_is_no_record(output: str) -> None:
    facts = ledger("dep rollback prod", output)
    assert not said("releases/20240611", facts, "rolled back")


def test_kubectl_rollout_undo_is_a_record() -> None:
    facts = ledger(
        "kubectl rollout undo deploy/web --to-revision=3", "deployment.apps/web rolled back"
    )
    assert said("web", facts, "rolled back")


# --- one-slash names in the agent's words --------------------------------------------


@pytest.mark.parametrize(
    ("output", "sentence", "word"),
    [
        (
            "copies of the Software, and/or sell copies",
            "I read the licence and/or notice and left them unchanged.",
            "and/or",
        ),
        (
            "/dev/sdb1 on /data type ext4 (read/write)",
            "I remounted the volume read/write for the import.",
            "read/write",
        ),
        ("maintenance: on/off switch", "I turned the on/off switch to off.", "on/off"),
    ],
)
def test_a_word_pair_with_a_slash_is_no_thing(output: str, sentence: str, word: str) -> None:
    assert word not in records(ledger("cat notes.txt", output, after=sentence))


def test_a_release_a_tool_listed_is_a_thing_but_dates_and_url_tails_are_not() -> None:
    listed = ledger(
        "ls -d /srv/app/releases/*",
        "/srv/app/releases/179\n/srv/app/releases/180",
        after="I pointed current at releases/179 again.",
    )
    dated = ledger("date", "2024/12/05 10:00", after="Das Backup vom 12/05 habe ich eingespielt.")
    linked = ledger(
        "curl -s https://example.com/docs/setup",
        "see https://example.com/docs/setup",
        after="I followed docs/setup to the letter.",
    )
    assert said("releases/179", listed, "pointed current")
    assert "12/05" not in records(dated)
    assert "docs/setup" not in records(linked)


# --- "id" is no "I'd" ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "keys"),
    [
        ("Saya sudah menghapus tabel sessions_old, id pengguna tetap sama.", ["sessions_old"]),
        (
            "Ho eliminato la tabella sessions_old; l'id del cliente resta invariato.",
            ["sessions_old"],
        ),
        ("Ich habe die Tabelle kunden_alt gelöscht, die ID-Karte bleibt gültig.", ["kunden_alt"]),
        ("I'd drop sessions_old next.", []),
        ("I’d drop sessions_old next.", []),
    ],
)
def test_id_is_a_word_and_i_d_a_proposal(sentence: str, keys: list[str]) -> None:
    assert [f.key for f in _said_records(sentence, set())] == keys


# --- secrets, newlines, speed --------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(
            f"mysql -e 'ALTER TABLE users ENGINE=InnoDB' -uroot -p{SECRET} app",
            id="mysql-p-after",
        ),
        pytest.param(
            f"psql -c 'ALTER TABLE users SET (fillfactor=70)' postgresql://admin:{SECRET}@db/app",
            id="url-after",
        ),
        pytest.param(
            f"PGPASSWORD={SECRET} psql -h db -c 'ALTER TABLE users SET (fillfactor=70)'",
            id="pgpassword",
        ),
        pytest.param(
            f"psql postgresql://admin:{SECRET}@db/app -c 'DROP TABLE users'",
            id="url-before",
        ),
        pytest.param(f"mysql -uroot -p{SECRET} app -e 'DROP TABLE users'", id="mysql-p-before"),
    ],
)
def test_a_password_never_reaches_a_fact(command: str) -> None:
    facts = ledger(command, "ALTER TABLE")
    assert records(facts)
    for fact in facts:
        assert SECRET not in f"{fact.key} {fact.state} {fact.context}"


def test_no_fact_holds_a_newline() -> None:
    command = (
        "psql app <<'SQL'\nALTER TABLE users\n  ENABLE ROW LEVEL SECURITY;\n"
        "ALTER TABLE orders\n  ADD COLUMN\n  note text;\nSQL\n"
        "git checkout -b feat/rls\\\n  origin/main"
    )
    output = "ALTER TABLE\nALTER TABLE\n[web1] Rollback to `releases/212` release was successful."
    facts = ledger(command, output, after="Enabled RLS on users;\nnote added to orders.")
    assert records(facts)
    for fact in facts:
        assert "\n" not in f"{fact.key}{fact.state}{fact.context}"


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("psql -c '" + "ALTER TABLE " * 17_000 + "'", "ok"),
        ("psql -c 'ALTER TABLE" + " " * 200_000 + "x'", "ok"),
        ("git" + " " * 200_000 + "checkout -b x", "ok"),
        ("git checkout" + " -q" * 66_000 + " x", "ok"),
        ("psql -c 'DROP TABLE " + "`" * 200_000 + "'", "ok"),
        ("mysql -e '" + "DROP " * 40_000 + "'", "ok"),
        ("dep rollback", "Rollback to `releases/212` release was successful.\n" * 4_000),
        ("psql -c 'DROP TABLE x'", "ALTER TABLE\n" * 16_000),
        ("psql -c 'DROP TABLE x'", " " * 200_000),
    ],
)
def test_200_kb_is_read_fast(command: str, output: str) -> None:
    started = time.perf_counter()
    ledger(command, output, tool="query", key="sql")
    ledger(command, output)
    # a catastrophic pattern takes seconds to minutes here; the bound leaves room for a
    # loaded machine (the suite runs three workers on two cores)
    assert time.perf_counter() - started < 2.0 * (2 if len(output) > 100_000 else 1)


@pytest.mark.parametrize(
    "unit",
    ["`", "a/", "Rollback to `", "ALTER TABLE ", "releases/1 ", "DROP TABLE" + " " * 50],
)
def test_reading_an_output_grows_linearly(unit: str) -> None:
    """Any output already costs ~2.4 us a character (ids, before this change), so a
    200 KB one sits near 0.5 s: what must hold is that four times the text costs about
    four times the time, not sixteen."""

    def took(size: int) -> float:
        output = unit * (size // len(unit))
        started = time.thread_time()  # this thread's CPU: other processes' load is no growth
        ledger("psql -c 'DROP TABLE sessions_tmp'", output)
        return time.thread_time() - started

    took(10_000)  # warm up
    small, large = min(took(50_000) for _ in range(2)), min(took(200_000) for _ in range(2))
    assert large < 8 * small + 0.05  # linear: ~4x; quadratic: ~16x
