"""Attack 24: credentials in a query string, written so the log scrubber missed them."""

from __future__ import annotations

import gc
import io
import logging
import os
import time
import tracemalloc

import pytest

from contextfold._secrets import REDACTED, Secrets, _watched, guard_logs, watch

GEMINI_KEY = "AIzaSyATTACK24-query-heron-0077"


@pytest.mark.parametrize(
    "query",
    [
        f"%6Bey={GEMINI_KEY}",  # "key", its k percent-encoded: a server decodes names
        f"ke%79={GEMINI_KEY}",
        f"api%5Fkey={GEMINI_KEY}",
        f"ACCESS%5FTOKEN={GEMINI_KEY}",
        f"alt=sse;key={GEMINI_KEY}",  # inside another parameter's value
        f"token=abc;{GEMINI_KEY}",  # a ';' ends no value for most servers
    ],
)
def test_an_escaped_credential_parameter_never_reaches_the_access_log(query: str) -> None:
    # Impact: the scrubber matched parameter names as written: ?%6Bey=AIza... (the key
    # a Gemini-style upstream reads as ?key=) reached uvicorn's access log in clear,
    # and so did what followed a ';' in a token.
    from uvicorn.logging import AccessFormatter

    guard_logs()
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(AccessFormatter('"%(request_line)s" %(status_code)s', use_colors=False))
    access = logging.getLogger("uvicorn.access")
    level = access.level
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    try:
        target = f"/v1beta/models/g:generateContent?{query}&monkey=banana"
        access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "POST", target, "1.1", 200)
    finally:
        access.removeHandler(handler)
        access.setLevel(level)
    line = out.getvalue()
    assert GEMINI_KEY not in line
    assert line.count(REDACTED) == 1
    assert line.endswith(f'{REDACTED}&monkey=banana HTTP/1.1" 200 OK\n')


def test_other_parameters_are_kept_as_they_are() -> None:
    text = "GET /v1?alt=json&keys=3&monkey=banana&tokens=5;x=1 ?%6Beys=kept"
    assert Secrets().text(text) == text


def test_credentials_of_tens_of_kilobytes_cost_no_memory_to_speak_of() -> None:
    # Impact: every 12- and 6-character stretch of every form of a credential was a
    # string of its own, cached for 256 credential sets: a client sending a distinct
    # 50 KB Authorization value with each request grew the proxy by 38 MB a request
    # (~10 GB for 256 of them), with no key needed.
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        made = [Secrets([f"Bearer {os.urandom(25_000).hex()}"]) for _ in range(20)]
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 16 * 1024 * 1024, held
    huge = next(iter(made[0].values))
    assert made[0].text(f"echo: {huge} done") == f"echo: {REDACTED} done"  # found whole
    token = huge.removeprefix("Bearer ")
    assert made[0].text(token) == REDACTED


def test_a_credential_of_ordinary_length_is_still_found_by_its_stretches() -> None:
    jwt = "eyJ" + "a" * 1500 + ".sig-" + os.urandom(16).hex()
    secrets = Secrets([f"Bearer {jwt}"])
    assert secrets.text(f"cut: {jwt[200:260]}!") == f"cut: {REDACTED}!"


def test_a_log_record_costs_no_more_with_a_thousand_requests_in_flight(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Impact: each log record, once the requests in flight had changed, rebuilt the
    # union of every watched credential from scratch: ~120 ms a record with 1,000
    # bearer keys in flight (~1.5 s with 200 OAuth tokens of 2 KB), and a served proxy
    # writes an access-log record for every request: throughput fell with concurrency.
    caplog.set_level(logging.INFO)
    guard_logs()
    live = [watch(Secrets([f"Bearer {os.urandom(25).hex()}"])) for _ in range(1000)]
    log = logging.getLogger("contextfold.proxy")
    started = time.perf_counter()
    for i in range(20):
        live.append(watch(Secrets([f"Bearer arriving-{i:03d}-{os.urandom(16).hex()}"])))
        log.info("answered %s", next(iter(live[-1].values)))
    assert time.perf_counter() - started < 0.5
    assert caplog.text.count(REDACTED) == 20
    assert "arriving-" not in caplog.text


def test_a_credential_watched_where_an_ended_one_lived_is_scrubbed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Impact: the union was rebuilt only when the set of id()s of the live secrets
    # changed; a request's Secrets freed and the next one's allocated at the same
    # address (CPython reuses it at once: 200 of 200 swaps here) left the union stale,
    # so the new request's bearer token reached the logs in clear.
    caplog.set_level(logging.INFO)
    guard_logs()
    held = watch(Secrets([f"Bearer churn-first-{os.urandom(16).hex()}"]))
    _watched()
    leaked = []
    for i in range(50):
        del held
        token = f"Bearer churn-{i:03d}-{os.urandom(16).hex()}"
        held = watch(Secrets([token]))
        if _watched().text(f"sent {token}") != f"sent {REDACTED}":
            leaked.append(i)
    logging.getLogger("contextfold.proxy").info("answered %s", token)
    del held
    assert leaked == []
    assert "churn-" not in caplog.text


def test_a_secret_is_watched_exactly_while_it_lives() -> None:
    token = f"lifetime-token-{os.urandom(12).hex()}"  # no key-like look
    held = watch(Secrets([token]))
    again = watch(held)  # idempotent: one watch
    twin = watch(Secrets([token]))  # another holder of the same value
    assert token in _watched().values
    del held, again
    gc.collect()
    assert token in _watched().values  # the twin still holds it
    assert _watched().text(f"x {token} y") == f"x {REDACTED} y"

    class Cycle:
        pass

    cycle = Cycle()
    cycle.me = cycle  # type: ignore[attr-defined]
    cycle.secrets = twin  # type: ignore[attr-defined]
    del twin, cycle
    gc.collect()  # finalized by the collector: the count drops
    assert token not in _watched().values
    assert _watched().text(f"x {token} y") == f"x {token} y"
