"""The retry policy shared by the provider transports (tenacity underneath).

The SDKs' own retries are switched off; this policy decides instead, so every
provider retries the same failures the same way: the
:data:`~contextfold.errors.RETRYABLE_ERRORS` (429, 5xx, 529 overloaded, timeouts,
connection errors), with exponential backoff and full jitter, honouring the
server's ``Retry-After`` when it gave one. Nothing else is retried, and a stream is
never retried once it has yielded output.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from contextfold.errors import RETRYABLE_ERRORS, ProviderUnavailableError, RateLimitError

__all__ = ["RetryPolicy", "parse_retry_after"]

logger = logging.getLogger("contextfold.transports")

Sleep = Callable[[float], Awaitable[None]]


async def _default_sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently a transport retries a transient failure.

    ``max_attempts`` counts the first try (``1`` disables retries). Without a
    server hint the n-th retry waits a random time in ``[0, min(max_delay,
    initial_delay * 2**(n-1))]`` ("full jitter"); a ``Retry-After`` hint is waited
    out exactly, up to ``max_retry_after`` seconds (a longer hint is not retried).
    ``sleep`` is awaited for every wait: inject a recorder in tests.
    """

    max_attempts: int = 4
    initial_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 120.0
    sleep: Sleep = field(default=_default_sleep, compare=False)
    rng: Callable[[], float] = field(default=random.random, compare=False)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if self.initial_delay < 0 or self.max_delay < 0 or self.max_retry_after < 0:
            raise ValueError("retry delays must not be negative")

    def delay(self, error: BaseException, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if isinstance(error, RateLimitError | ProviderUnavailableError) and error.retry_after:
            return error.retry_after
        ceiling = min(self.max_delay, self.initial_delay * 2.0 ** (attempt - 1))
        return ceiling * self.rng()

    def should_retry(self, error: BaseException) -> bool:
        """Whether ``error`` is transient and its ``Retry-After`` (if any) acceptable."""
        if not isinstance(error, RETRYABLE_ERRORS):
            return False
        if isinstance(error, RateLimitError | ProviderUnavailableError) and error.retry_after:
            return error.retry_after <= self.max_retry_after
        return True

    def retrying(self, *, allowed: Callable[[], bool] = lambda: True) -> AsyncRetrying:
        """A tenacity controller for ``async for attempt in ...: with attempt: ...``.

        ``allowed()`` is asked after each failure; a stream returns False once it
        has yielded output. The last error is re-raised as is. Each retry is logged
        (a warning on ``contextfold.transports``) just before its wait; the final
        failure is not.
        """

        def wait(state: RetryCallState) -> float:
            return self.delay(_failure(state), state.attempt_number)

        def announce(state: RetryCallState) -> None:
            # Called only when a retry will happen (tenacity asks ``wait`` even
            # after the last attempt, before it checks ``stop``).
            logger.warning(
                "model call failed (%s); retry %d of %d in %.2fs",
                _failure(state),
                state.attempt_number,
                self.max_attempts - 1,
                state.upcoming_sleep,
            )

        return AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=wait,
            retry=retry_if_exception(lambda exc: allowed() and self.should_retry(exc)),
            before_sleep=announce,
            sleep=self.sleep,
            reraise=True,
        )


def _failure(state: RetryCallState) -> BaseException:
    """The exception that ended the attempt ``state`` describes."""
    assert state.outcome is not None
    error = state.outcome.exception()
    assert error is not None
    return error


def parse_retry_after(
    headers: Mapping[str, str] | None, *, now: float | None = None
) -> float | None:
    """The server's retry hint in seconds, from ``retry-after-ms`` or ``Retry-After``.

    ``Retry-After`` may be seconds or an HTTP date. Returns ``None`` when neither
    header is present or readable; never negative.
    """
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
