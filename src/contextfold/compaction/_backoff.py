"""The back-off after failed summaries: one rule for every face.

After the n-th failed attempt in a row, the next ``min(2**(n-1), max_backoff)``
triggers are skipped (1, 2, 4 ... ``max_backoff``); a success starts over. The library
and the manager hold one :class:`BackOff` per history, the proxy one per conversation
prefix (in a bounded table). A trigger that is forced (an overflow the upstream
reported, ``compact(force=True)``) does not wait for it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BackOff"]


@dataclass(frozen=True, slots=True)
class BackOff:
    """Failed attempts in a row and the triggers still to skip."""

    failures: int = 0
    skips: int = 0

    @property
    def holding(self) -> bool:
        """Whether the next trigger is skipped."""
        return self.skips > 0

    def failed(self, max_backoff: int) -> BackOff:
        """After one more failure: skip the next ``min(2**(n-1), max_backoff)`` triggers."""
        failures = self.failures + 1
        return BackOff(failures, min(2 ** (failures - 1), max_backoff))

    def skipped(self) -> BackOff:
        """After one trigger skipped."""
        return BackOff(self.failures, max(self.skips - 1, 0))
