"""Credentials the ledger copied before any of this stop's rules (found by the second
party's attack on them, tests/attack31, and left out of it as older leaks): a password
the user types, a connection URL with its password, a secret named by its environment
variable, a JSON Web Token. A compaction's ledger is stored with the summary; no
credential may reach it (issue 27; the project's rule on secrets)."""

from __future__ import annotations

import pytest

from contextfold.compaction._ledger import build_ledger
from contextfold.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.tokens import approx_token_counter


def rendered(messages: list[Message]) -> str:
    ledger = build_ledger(messages)
    section, _ = ledger.restore("", "", 1_000, approx_token_counter)
    return "\n".join([section, *(f"{f.key} {f.state} {f.context}" for f in ledger.facts)])


def turn(request: str, output: str, report: str) -> list[Message]:
    call = ToolUseBlock(id="call_1", name="bash", input={"command": "./deploy.sh"})
    return [
        Message.user(request),
        Message(role="assistant", content=[TextBlock(text="OK."), call]),
        Message(role="user", content=[ToolResultBlock(tool_use_id="call_1", content=output)]),
        Message.assistant(report),
    ]


@pytest.mark.parametrize(
    ("request_", "output", "report", "secret"),
    [
        (  # the user types it with the word
            "The admin password is Zx9cVb7nM3kL, log in to ORD-4471's portal and check it.",
            "ok",
            "Checked ORD-4471.",
            "Zx9cVb7nM3kL",
        ),
        (  # the value said after an id that sits between the word and it
            "The password for ORD-4471's portal is Zx9cVb7nM3kL.",
            "ok",
            "Logged in.",
            "Zx9cVb7nM3kL",
        ),
        (  # a connection URL with its password, from the user
            "Use postgres://app:S3cr3tPw77@db-1.internal:5432/app for the migration.",
            "ok",
            "Migrated.",
            "S3cr3tPw77",
        ),
        (  # the same URL in a tool's output
            "Run it.",
            "connecting to postgres://app:S3cr3tPw77@db-1.internal:5432/app ... done",
            "Done.",
            "S3cr3tPw77",
        ),
        (  # a secret named by its environment variable, in the agent's words
            "Configure the upload job.",
            "ok",
            "I set AWS_SECRET_ACCESS_KEY to wJalrXUtnFEMIK7MDENGbPxRfiCYzEXAMPLE in job_env.sh.",
            "wJalrXUtnFEMIK7MDENGbPxRfiCYzEXAMPLE",
        ),
        (
            "Configure the DB.",
            "ok",
            "DB_PASS is c2VjcmV0LXBhc3N3b3Jk, stored in db_settings.py now.",
            "c2VjcmV0LXBhc3N3b3Jk",
        ),
        (  # a JSON Web Token the agent repeats
            "Get a token for the API.",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhcGkifQ.c2lnbmF0dXJlX2hlcmU",
            "Got eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhcGkifQ.c2lnbmF0dXJlX2hlcmU for the API.",
            "c2lnbmF0dXJlX2hlcmU",
        ),
    ],
)
def test_no_credential_reaches_the_ledger(
    request_: str, output: str, report: str, secret: str
) -> None:
    assert secret not in rendered(turn(request_, output, report))


def test_the_ids_around_a_credential_are_still_kept() -> None:
    # an order id the user names a few words after the password is no secret
    text = rendered(
        turn(
            "The admin password is Zx9cVb7nM3kL; after you log in, check ORD-4471's portal.",
            "ok",
            "Checked.",
        )
    )
    assert "ORD-4471" in text


def test_a_token_that_is_no_credential_keeps_the_words_after_it() -> None:
    # EF Core's concurrency token, a model's tokens: the value after them is no secret
    text = rendered(
        turn(
            "Switch the concurrency token to UpdatedAt, drop RowVersion. Keep 4096 tokens Max.",
            "ok",
            "Done: UpdatedAt2 is the concurrency token now.",
        )
    )
    assert "UpdatedAt" in text
    assert "RowVersion" in text
