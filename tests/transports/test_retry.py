"""RetryPolicy and Retry-After parsing (the policy itself; transports test it end to end)."""

from __future__ import annotations

import logging

import pytest

from contextfold.errors import (
    BadRequestError,
    ContextOverflowError,
    ProviderUnavailableError,
    RateLimitError,
    TransportConnectionError,
    TransportTimeoutError,
)
from contextfold.transports import RetryPolicy
from contextfold.transports._retry import parse_retry_after
from tests.transports.conftest import RecordingSleep


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "12"}, 12.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after-ms": "750", "retry-after": "9"}, 0.75),
        ({"Retry-After": "Thu, 01 Jan 1970 00:01:40 GMT"}, 40.0),  # 100s epoch, now = 60
        ({"Retry-After": "Thu, 01 Jan 1970 00:00:01 GMT"}, 0.0),  # in the past
        ({"Retry-After": "soon"}, None),
        ({"retry-after-ms": "x"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str] | None, expected: float | None) -> None:
    assert parse_retry_after(headers, now=60.0) == expected


def test_backoff_is_exponential_capped_and_jittered() -> None:
    policy = RetryPolicy(initial_delay=1.0, max_delay=5.0, rng=lambda: 1.0)
    error = TransportTimeoutError("t")
    assert [policy.delay(error, n) for n in (1, 2, 3, 4, 5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    half = RetryPolicy(initial_delay=1.0, rng=lambda: 0.5)
    assert half.delay(error, 3) == 2.0


def test_server_hint_wins_over_backoff() -> None:
    policy = RetryPolicy(rng=lambda: 1.0)
    assert policy.delay(RateLimitError("r", retry_after=9.0), 1) == 9.0
    assert policy.delay(ProviderUnavailableError("u", retry_after=3.0), 4) == 3.0


@pytest.mark.parametrize(
    ("error", "retried"),
    [
        (RateLimitError("r"), True),
        (ProviderUnavailableError("u"), True),
        (TransportTimeoutError("t"), True),
        (TransportConnectionError("c"), True),
        (RateLimitError("r", retry_after=500.0), False),  # longer than max_retry_after
        (BadRequestError("b"), False),
        (ContextOverflowError("o"), False),
        (ValueError("v"), False),
    ],
)
def test_only_transient_errors_are_retried(error: BaseException, retried: bool) -> None:
    assert RetryPolicy().should_retry(error) is retried


async def test_retrying_stops_after_max_attempts_and_reraises(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="contextfold.transports")
    sleeps = RecordingSleep()
    policy = RetryPolicy(max_attempts=3, sleep=sleeps, rng=lambda: 1.0)
    calls: list[int] = []

    async def always_down() -> None:
        async for attempt in policy.retrying():
            with attempt:
                calls.append(attempt.retry_state.attempt_number)
                raise TransportConnectionError("down")

    with pytest.raises(TransportConnectionError):
        await always_down()
    assert calls == [1, 2, 3]
    assert sleeps.delays == [1.0, 2.0]
    # One warning per retry that happens; none for the final failure.
    assert [r.getMessage() for r in caplog.records] == [
        "model call failed (down); retry 1 of 2 in 1.00s",
        "model call failed (down); retry 2 of 2 in 2.00s",
    ]


async def test_an_error_that_is_not_retried_is_not_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="contextfold.transports")
    policy = RetryPolicy(sleep=RecordingSleep())

    async def rejected() -> None:
        async for attempt in policy.retrying():
            with attempt:
                raise BadRequestError("bad")

    with pytest.raises(BadRequestError):
        await rejected()
    assert caplog.records == []


def test_invalid_policies_are_rejected() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="negative"):
        RetryPolicy(initial_delay=-1)
