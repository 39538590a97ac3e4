"""What :class:`~contextfold.manager.CompactingContextManager` takes besides the
compaction settings: :class:`ManagerOptions`, and :func:`manager_settings`, the
manager's defaults for :class:`~contextfold.compaction.CompactionSettings`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from contextfold.compaction._settings import CompactionSettings, check_fraction, check_int
from contextfold.strategies import StrategyLike

__all__ = ["OPTION_NAMES", "ManagerOptions", "manager_settings"]

DEFAULT_THRESHOLD: Final = 0.8
"""The manager's ``compaction_threshold`` when neither it nor ``settings`` is given."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ManagerOptions:
    """The manager's own options (``CompactingContextManager(options=...)``).

    Attributes:
        safety_margin: share of the provider's context window kept free, besides its
            ``max_output_tokens``, when the budget comes from the provider ([0, 1]).
        cache_size: how many summaries the manager keeps (at least 1).
        protected_recent: share of the latest messages every view keeps whole ([0, 1];
            ``None``: none), Amplifier's context-simple key.
        strategies: the LLM-free strategies a view still over the threshold goes
            through (``None``: :class:`~contextfold.strategies.TruncateToolOutputs` at
            ``max_tool_chars``).
        provider_lookup: returns the host's providers by name, for the ``"mounted"``
            summarizer (:func:`~contextfold.manager.mount` sets it).

    Bad values raise :class:`ValueError` when the options are made.
    """

    safety_margin: float = 0.05
    cache_size: int = 8
    protected_recent: float | None = None
    strategies: Iterable[StrategyLike] | None = None
    provider_lookup: Callable[[], Mapping[str, object]] | None = None

    def __post_init__(self) -> None:
        check_fraction("safety_margin", self.safety_margin, zero_ok=True)
        check_int("cache_size", self.cache_size, 1)
        if self.protected_recent is not None:
            value = check_fraction(
                "protected_recent", self.protected_recent, zero_ok=True, one_ok=True
            )
            object.__setattr__(self, "protected_recent", value)
        if self.strategies is not None:
            if isinstance(self.strategies, str | bytes) or not isinstance(
                self.strategies, Iterable
            ):
                raise ValueError(
                    f"strategies must be a list of strategies, got {self.strategies!r}"
                )
            steps = tuple(self.strategies)  # a generator is read once, here
            for step in steps:
                if not callable(step):
                    raise ValueError(f"strategies must be strategies or callables, got {step!r}")
            object.__setattr__(self, "strategies", steps)
        if self.provider_lookup is not None and not callable(self.provider_lookup):
            raise ValueError(f"provider_lookup must be callable, got {self.provider_lookup!r}")

    def replace(self, **changes: Any) -> ManagerOptions:
        """A copy with ``changes``, those whose value is ``None`` left out (not given),
        but for ``protected_recent``, ``strategies`` and ``provider_lookup``."""
        given = {
            name: value
            for name, value in changes.items()
            if value is not None or name in _NONE_IS_A_VALUE
        }
        return dataclasses.replace(self, **given) if given else self


OPTION_NAMES: Final = tuple(f.name for f in dataclasses.fields(ManagerOptions))
_NONE_IS_A_VALUE: Final = frozenset({"protected_recent", "strategies", "provider_lookup"})


def manager_settings(**fields: Any) -> CompactionSettings:
    """The manager's :class:`~contextfold.compaction.CompactionSettings` when none are
    given: ``threshold`` 0.8, and kept tool outputs cut to ``max_tool_chars`` (the
    summarizer's copy's bound) unless ``kept_tool_chars`` is given; ``fields`` as
    :meth:`CompactionSettings.replace` takes them."""
    settings = CompactionSettings(threshold=DEFAULT_THRESHOLD).replace(**fields)
    if fields.get("kept_tool_chars") is None:
        settings = settings.replace(kept_tool_chars=settings.max_tool_chars)
    return settings
