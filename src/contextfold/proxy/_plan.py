"""What the proxy forwards for one chat request, and what it reports about it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from contextfold.proxy._metrics import Unplaced

__all__ = ["ForwardPlan", "SummaryState"]

SummaryState = Literal["none", "cached", "created"]
"""Where a forwarded summary came from (``none``: no summary in the request)."""


@dataclass(frozen=True, slots=True)
class ForwardPlan:
    """What to forward: ``body`` (``None``: the original bytes) and what to report."""

    body: dict[str, Any] | None
    usage_key: str  # chain hash of the forwarded history, to anchor the next estimate
    tokens_before: int | None  # None: not estimated
    tokens_after: int | None
    summary: SummaryState = "none"
    error: str | None = None
    relieved: bool = False  # cut under the window without a model (see ``Planner._relieve``)

    @classmethod
    def unchanged(cls, reason: str, why: Unplaced) -> ForwardPlan:
        """Forward the original bytes, unestimated, and say why in ``error``."""
        return cls(None, "", None, None, error=reason, why=why)

    learn: bool = True  # False: the upstream's usage report says nothing of these bytes
    tenant: str = ""  # whose request (:mod:`._tenant`): what its answer teaches is theirs
    why: Unplaced | None = None  # with ``error``: the reason /metrics counts it under
    # The conversation's root: the prefix hash of its prompt and task (what the planner
    # pins), "" when the request was not read as a history; and the request's number in
    # that conversation on the dashboard (0: not recorded). See :mod:`._dashboard`.
    conversation: str = ""
    seen: int = 0

    @property
    def compacted(self) -> bool:
        return self.body is not None
