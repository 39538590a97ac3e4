"""The fact ledger reading what a ``git commit`` says it did to files: the summary lines
under the commit's own first line ("[main 7d85b03] ..."), where a shell agent deletes,
adds or moves files with ``git rm``, ``git mv`` or a plain ``rm`` (issue 27, the
twenty-first set's round). No case is taken from a fidelity set."""

from __future__ import annotations

from contextfold.compaction._ledger import build_ledger
from contextfold.messages import Message
from tests.compaction.test_ledger import call

_COMMIT = """\
[main 3f9e1c2] Retire the old geo rules, add the new blocklist
 4 files changed, 31 insertions(+), 58 deletions(-)
 delete mode 100644 rules/geo_legacy.acl
 create mode 100644 rules/geo_blocklist.lst
 rename maps/{tenant_routes.map => tenant_routes_v1.map} (100%)
 rename {scripts => bin}/reload.sh (92%)
"""


def files_of(output: str, command: str = "git commit -am 'Retire'") -> dict[str, str]:
    messages = [
        Message.user("Tidy the rules directory and commit it."),
        *call(1, "bash", {"command": command}, output),
        Message.assistant("Committed."),
    ]
    return {f.key: f.state for f in build_ledger(messages).facts if f.kind == "file"}


def test_a_commits_summary_says_what_it_deleted_created_and_moved() -> None:
    files = files_of(_COMMIT)
    assert files["rules/geo_legacy.acl"] == "deleted"
    assert files["rules/geo_blocklist.lst"] == "created"
    # git writes the part of a path that changed in braces
    assert files["maps/tenant_routes.map"] == "moved to maps/tenant_routes_v1.map"
    assert files["scripts/reload.sh"] == "moved to bin/reload.sh"


def test_a_root_commit_is_a_commit_too() -> None:
    output = "[main (root-commit) 0a1b2c3] Start\n 1 file changed\n create mode 100644 README\n"
    assert files_of(output)["README"] == "created"


def test_history_a_log_or_a_show_prints_is_no_deed_of_this_session() -> None:
    # the same summary lines under `git log --summary`: what older commits did
    log = "commit 3f9e1c2a8d\nAuthor: A <a@b.c>\n\n    Retire\n\n" + _COMMIT.split("\n", 1)[1]
    files = files_of(log, "git log --summary -1")
    assert "rules/geo_legacy.acl" not in files
    assert "maps/tenant_routes.map" not in files
