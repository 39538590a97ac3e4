"""The fact ledger on words tens of thousands of characters long (a base64 blob, a
minified bundle, a pasted hex dump, written without a space): patterns that could start
a match at every character of a word and run to its end took quadratic time (the
proxy's test of a 600 KB conversation of such words spent 9 s of CPU in the ledger).
Every pattern is tried on such a word here; a regression is seconds to minutes, far
above the bound."""

from __future__ import annotations

import re
import time

import pytest

from contextfold.compaction import _ledger
from contextfold.compaction._ledger import build_ledger
from contextfold.messages import Message
from tests.compaction.test_ledger import call

_WORD = 30_000


@pytest.mark.parametrize("piece", ["u", "u_", "uu-", "u.", "9", "a/"])
def test_no_pattern_of_the_ledger_is_quadratic_on_one_long_word(piece: str) -> None:
    word = "request 1: " + piece * (_WORD // len(piece))
    slow: list[str] = []
    for name, pattern in vars(_ledger).items():
        if not isinstance(pattern, re.Pattern):
            continue
        start = time.perf_counter()
        pattern.search(word)
        if time.perf_counter() - start > 1.0:
            slow.append(name)
    # (a bounded lookahead of 300 characters at every place is linear, if not cheap)
    assert not slow, slow


def test_a_conversation_of_long_words_is_read_in_linear_time() -> None:
    messages = [
        Message.user("request: " + "u" * _WORD),
        *call(1, "read_file", {"n": 1}, "r" * _WORD),
        Message.assistant("answer: " + "a" * _WORD),
    ]
    start = time.process_time()
    build_ledger(messages)
    assert time.process_time() - start < 5.0


def _run_conversation(run: int) -> list[Message]:
    return [
        Message.user(f"Deploy build 4f9a2c1 to eu-west-1 for OPS-4411. {'u' * run} Then page ops."),
        *call(
            1,
            "run",
            {"command": f"make deploy PAD={'x' * run}"},
            f"{'0' * run}\nDeployed rel-2024.11.3 to app-7f3c in 41.7 s\n{'A' * run}_END",
        ),
        Message.assistant(f"Deployed rel-2024.11.3; {'9' * run} next: page ops on PAGE-77."),
    ]


Facts = list[tuple[str, str, str, int]]


def facts(messages: list[Message]) -> Facts:
    return sorted((f.kind, f.key, f.state, f.tier) for f in build_ledger(messages).facts)


def cut_and_whole(messages: list[Message], monkeypatch: pytest.MonkeyPatch) -> tuple[Facts, Facts]:
    """The facts of ``messages`` with their long runs read cut, and read whole."""
    cut = facts(messages)
    with monkeypatch.context() as patched:
        patched.setattr(_ledger, "_squeezed", lambda text: text)
        whole = facts(messages)
    return cut, whole


@pytest.mark.parametrize("run", [302, 5_000, 60_000])
def test_a_long_run_of_one_character_is_read_cut_without_changing_a_fact(
    run: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run longer than a fact may be is read cut to that length: a token holding one
    # stays too long to be a key, so here the facts are those of the text read whole
    # (tests/attack40: where a rule reads a fixed number of characters, not always).
    cut, whole = cut_and_whole(_run_conversation(run), monkeypatch)
    assert {"4f9a2c1", "OPS-4411", "rel-2024.11.3", "PAGE-77"} <= {key for _, key, _, _ in cut}
    assert cut == whole


@pytest.mark.parametrize(
    ("text", "read"),
    [
        (" " * 400, " " * 400),
        ("\n" * 400, "\n" * 400),
        ("word " * 100, "word " * 100),
        ("é" * 302, "é" * 301),
    ],
)
def test_texts_without_a_long_run_or_with_no_word_at_all_are_read(text: str, read: str) -> None:
    assert _ledger._squeezed(text) == read
    build_ledger([Message.user(text), Message.assistant(text)])
