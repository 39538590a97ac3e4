"""The fact ledger's identifiers whole (issue 27, the sixteenth set's round): a name
joined by hyphens or dots is one id, not its first two parts; a MAC address or a key's
colon-joined fingerprint is an id; so is a long random token of mixed case. No case is
taken from a fidelity set."""

from __future__ import annotations

import pytest

from contextfold.compaction._ledger import _line_ids
from contextfold.messages import Message


@pytest.mark.parametrize(
    ("line", "whole"),
    [
        ("NAME READY  worker-00417-qx2  Ready", "worker-00417-qx2"),  # a revision
        ("pod/checkout-api-6f9c7b8d5-k2xzq   1/1   Running", "checkout-api-6f9c7b8d5-k2xzq"),
        ("created backup weekly-ledger-20250301031500 (Completed)", "weekly-ledger-20250301031500"),
        ("snapshot hourly-2025.03.01-a1b2c3 SUCCESS", "hourly-2025.03.01-a1b2c3"),
        ("rbd: pool/vm-4411-disk-1 mapped", "vm-4411-disk-1"),
    ],
)
def test_an_id_joined_by_hyphens_or_dots_is_found_whole(line: str, whole: str) -> None:
    ids = _line_ids(line)
    assert whole in ids
    # not also cut into its first parts
    assert not [i for i in ids if i != whole and i in whole and len(i) > 3]


@pytest.mark.parametrize(
    "token",
    [
        "3C:A6:2F:0B:91:7E",  # a MAC address
        "3c-a6-2f-0b-91-7e",  # written with dashes
        "a4:19:0e:77:c2:5b:90:1d:3e:8f:66:02:bb:71:d4:e9",  # a key fingerprint
    ],
)
def test_a_mac_address_or_a_fingerprint_is_an_id(token: str) -> None:
    assert token in _line_ids(f"iface eth0 link/ether {token} brd ff:ff:ff:ff:ff:ff")


def test_a_long_random_token_of_mixed_case_is_an_id() -> None:
    assert "Qm7Lx2VbT9aKcW4pZr8Ne1" in _line_ids("uuid: Qm7Lx2VbT9aKcW4pZr8Ne1 state=STARTED")
    consumer = "amq.ctag-Hx81LmQp0ZtW3vRk6YbN2c"
    assert consumer in _line_ids(f"consumer {consumer} on channel 7 (prefetch 50)")


@pytest.mark.parametrize(
    "line",
    [
        "Starting the well-known follow-up on a read-only replica",  # words, not ids
        "at 12:30:45 the job ran",  # a clock
        "DataLoaderForTransformers runs",  # a class name of letters only
    ],
)
def test_words_and_clocks_stay_out(line: str) -> None:
    ids = _line_ids(line)
    assert not [i for i in ids if "-" in i or ":" in i]
    assert "DataLoaderForTransformers" not in ids or "DataLoader" in line


@pytest.mark.parametrize("unit", ["a-", "a.", "--a", "-p", "0x"])
def test_a_long_joined_word_is_read_in_linear_time(unit: str) -> None:
    # a credential's URL form scanned the rest of a run of name characters from every
    # letter: "a-" * 80,000 on one line of output took 15 s (quadratic)
    import time

    from contextfold.compaction._ledger import build_ledger
    from tests.compaction.test_ledger import call

    def took(size: int) -> float:
        history = [Message.user("x"), *call(1, "bash", {"command": "dump"}, unit * size)]
        started = time.thread_time()  # this thread's CPU: other processes' load is no growth
        build_ledger(history)
        return time.thread_time() - started

    took(2_000)  # warm up
    small, large = min(took(10_000) for _ in range(2)), min(took(40_000) for _ in range(2))
    assert large < 8 * small + 0.05  # linear: ~4x; quadratic: ~16x


# -- a very long line is read at its two ends ---------------------------------------------


def test_a_trace_id_at_the_end_of_a_megabyte_line_is_found() -> None:
    """A minified blob or a log line with a megabyte of payload keeps the id it ends
    with (and the one it starts with), though only its ends are read."""
    line = "request ord-55120-kx " + "payload=aGVsbG8gd29ybGQ " * 40_000
    line += "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 done"
    ids = _line_ids(line)
    assert "4bf92f3577b34da6a3ce929d0e0e4736" in ids
    assert "ord-55120-kx" in ids


@pytest.mark.parametrize("shift", range(0, 40, 3))
def test_an_id_where_a_long_line_is_cut_is_not_read_in_half(shift: int) -> None:
    """The ends are cut where a name cannot go on: an id that straddles the cut is
    left out whole, never recorded as its first or last characters."""
    whole = "inv-2025-000417-qx"
    filler = "x" * 3_960 + " " * shift
    line = filler + " " + whole + " " + "y " * 10_000 + whole.upper() + " " + "z" * 3_990
    ids = _line_ids(line)
    pieces = [i for i in ids if i.lower() != whole and (i.lower() in whole or whole in i.lower())]
    assert not pieces, pieces
