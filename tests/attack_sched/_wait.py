"""Waiting for a condition a test cannot be told about (a fake's counters)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

DEADLINE = 30  # generous: only a hang exceeds it


async def until(predicate: Callable[[], bool], within: float = DEADLINE) -> None:
    """Poll ``predicate`` until it holds; a hang past ``within`` seconds raises."""
    async with asyncio.timeout(within):
        for _ in itertools.count():
            if predicate():
                return
            await asyncio.sleep(0.005)
