"""Per-model settings of the proxy, and the one place a model's limit is worked out.

An operator runs the proxy in front of models the registry
(:data:`~contextfold.transports.base.MODEL_REGISTRY`) may not know - a local 32k
server, a fine-tune with its own name - or wants one model compacted differently
from the rest. :class:`ModelSettings` holds what can be set for one model;
:class:`ModelTable` resolves a request's model name to the numbers the proxy acts on.

Resolution, for a request's ``model``:

1. the table entry whose name is ``model``, or a prefix of it followed by ``-`` (a
   dated snapshot such as ``my-model-2026-01-01``), the longest such name winning -
   the registry's own matching rule;
2. each field that entry leaves unset falls back to the proxy-wide value
   (``context_window``, ``threshold``, ``keep_recent``, ``summary_model``), the
   window then to what the upstream reported for the model (:meth:`ModelTable.learn`:
   the ``/v1/models`` metadata of OpenAI-compatible servers that report a context
   length), and the window and output limit finally to the registry (128,000 / 8,192
   for a name it does not know: logged once at ``WARNING``, with how to set it).

A request may widen its model's window for itself: Anthropic's 1M-context beta
(``anthropic-beta: context-1m-...``) makes it 1,000,000 tokens (see
:meth:`ModelTable.limit`'s ``window``).

The limit a request is held to is ``threshold × window``, never above ``window −
max output``. Resolutions are memoized per model name (at most
:data:`_MEMO_ENTRIES` names, as clients choose them, each of at most
:data:`_MEMO_NAME` characters: a longer one is resolved again each time).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from contextfold.compaction._settings import check_fraction, check_int
from contextfold.transports.base import ModelInfo, lookup_model, registry_entry

logger = logging.getLogger("contextfold.proxy")

__all__ = ["ModelSettings", "ModelTable", "Resolved"]

_MEMO_ENTRIES = 1024
_MEMO_NAME = 256  # characters: 1,024 names hold well under 1 MiB
_MIN_WINDOW = 1024
_MAX_LEARNED = 1024
_NATIVE = ("auto", "emulate", "pass")  # see ._native


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelSettings:
    """What the proxy can be told about one model; ``None`` leaves a field to the
    proxy-wide setting (and the window and output limit to the model registry).

    Bad values raise :class:`ValueError` when the settings are made.

    Attributes:
        context_window: the model's context window in tokens (at least 1,024).
        max_output_tokens: the most tokens one reply may take; the limit stays below
            ``context_window − max_output_tokens``. When only ``context_window`` is
            given and the registry's output limit does not fit in it, half the window.
        threshold: share of the window above which a request is compacted, in (0, 1].
        keep_recent: messages kept verbatim after the summary (at least 1).
        summary_model: the model that writes this model's summaries (default: the
            proxy-wide ``summary_model``, else the request's own model).
        native_compaction: ``"auto"``, ``"emulate"`` or ``"pass"``: whether the
            providers' own compaction APIs are emulated for this model (default: the
            proxy-wide ``native_compaction``; see :mod:`contextfold.proxy._native`).
    """

    context_window: int | None = None
    max_output_tokens: int | None = None
    threshold: float | None = None
    keep_recent: int | None = None
    summary_model: str | None = None
    native_compaction: str | None = None

    def __post_init__(self) -> None:
        if self.context_window is not None:
            check_int("context_window", self.context_window, _MIN_WINDOW)
        if self.max_output_tokens is not None:
            check_int("max_output_tokens", self.max_output_tokens, 1)
        if self.threshold is not None:
            check_fraction("threshold", self.threshold, one_ok=True)
        if self.keep_recent is not None:
            check_int("keep_recent", self.keep_recent, 1)
        if self.summary_model is not None and (
            not isinstance(self.summary_model, str) or not self.summary_model.strip()
        ):
            raise ValueError(f"summary_model must be a model name, got {self.summary_model!r}")
        if self.context_window is not None and self.max_output_tokens is not None:
            ModelInfo("check", self.context_window, self.max_output_tokens)
        if self.native_compaction is not None and self.native_compaction not in _NATIVE:
            raise ValueError(
                f"native_compaction must be one of {', '.join(_NATIVE)}, "
                f"got {self.native_compaction!r}"
            )

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> ModelSettings:
        """Settings from a plain mapping (a TOML table); an unknown key is a
        :class:`ValueError` naming the known ones."""
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(
                f"unknown model setting(s) {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(known)}"
            )
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Resolved:
    """What the proxy acts on for one model name."""

    info: ModelInfo  # window and output limit
    threshold: float
    keep_recent: int
    summary_model: str | None  # None: the request's own model
    window_override: int | None  # the configured window, if any (for the summarizer)
    max_tokens: int | None = None  # an absolute limit in place of ``threshold × window``

    @property
    def limit(self) -> int:
        """``threshold × window`` (or ``max_tokens``), never above ``window − max output``."""
        if self.max_tokens is not None:
            return min(self.max_tokens, self.info.input_budget)
        return min(int(self.threshold * self.info.context_window), self.info.input_budget)


class ModelTable:
    """Resolves model names to :class:`Resolved` settings (see the module doc)."""

    def __init__(
        self,
        models: Mapping[str, ModelSettings | Mapping[str, Any]] | None = None,
        *,
        context_window: int | None = None,
        threshold: float,
        keep_recent: int,
        summary_model: str | None = None,
        max_tokens: int | None = None,
    ) -> None:
        if isinstance(models, str | bytes) or (
            models is not None and not isinstance(models, Mapping)
        ):
            raise ValueError(f"models must map model names to settings, got {models!r}")
        self.models: dict[str, ModelSettings] = {}
        for name, given in (models or {}).items():
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"a model name must be a non-empty string, got {name!r}")
            if isinstance(given, ModelSettings):
                self.models[name] = given
            elif isinstance(given, Mapping):
                try:
                    self.models[name] = ModelSettings.from_mapping(given)
                except (TypeError, ValueError) as exc:
                    raise ValueError(f"model {name!r}: {exc}") from None
            else:
                raise ValueError(f"model {name!r}: expected settings, got {given!r}")
        self.context_window = context_window
        self.threshold = threshold
        self.keep_recent = keep_recent
        self.summary_model = summary_model
        self.max_tokens = max_tokens  # the limit of every model without a threshold of its own
        self._memo: dict[str, Resolved] = {}
        self._learned: dict[str, int] = {}  # windows the upstream reported, by model
        self._warned: set[str] = set()
        for name in self.models:  # an impossible window/output pair fails here, not later
            self.resolve(name)

    def entry(self, model: str) -> ModelSettings | None:
        """The table entry that applies to ``model`` (exact, or longest ``name-`` prefix)."""
        found = self.models.get(model)
        if found is not None:
            return found
        best = max(
            (key for key in self.models if model.startswith(key + "-")), key=len, default=None
        )
        return None if best is None else self.models[best]

    def resolve(self, model: str) -> Resolved:
        """The settings for requests naming ``model``."""
        memo = self._memo.get(model)
        if memo is not None:
            return memo
        own = self.entry(model) or ModelSettings()
        window = own.context_window if own.context_window is not None else self.context_window
        if window is None:
            window = self._learned.get(model)
        try:
            info = lookup_model(
                model, context_window=window, max_output_tokens=own.max_output_tokens
            )
        except ValueError as exc:
            raise ValueError(f"model {model!r}: {exc}") from None
        resolved = Resolved(
            info,
            own.threshold if own.threshold is not None else self.threshold,
            own.keep_recent if own.keep_recent is not None else self.keep_recent,
            own.summary_model or self.summary_model,
            window,
            self.max_tokens if own.threshold is None else None,
        )
        if len(model) <= _MEMO_NAME:
            if len(self._memo) >= _MEMO_ENTRIES:
                self._memo.clear()
            self._memo[model] = resolved
        if (
            window is None
            and model not in self._warned
            and len(self._warned) < _MEMO_ENTRIES
            and len(model) <= _MEMO_NAME
            and self.unknown(model)
        ):
            self._warned.add(model)
            logger.warning(
                "model %r is not in contextfold's model registry and the upstream has "
                "not reported its context window: assuming %s tokens (limit %s). Set "
                'it with --context-window, or context_window in a [models."%s"] table '
                "of --config",
                model,
                f"{info.context_window:,}",
                f"{resolved.limit:,}",
                model,
            )
        return resolved

    def unknown(self, model: str) -> bool:
        """Whether nothing tells ``model``'s window: not configured (for it or for every
        model), not reported by the upstream, not in the registry."""
        own = self.entry(model)
        return (
            (own is None or own.context_window is None)
            and self.context_window is None
            and model not in self._learned
            and registry_entry(model) is None
        )

    def learn(self, model: str, window: int) -> None:
        """The upstream reported ``model``'s context window: use it where nothing was
        configured (a configured window always wins). Windows under 1,024 are ignored."""
        if window < _MIN_WINDOW or self._learned.get(model) == window:
            return
        if model not in self._learned and len(self._learned) >= _MAX_LEARNED:
            return
        self._learned[model] = window
        self._memo.pop(model, None)
        logger.info("the upstream reports a context window of %s tokens for %r", window, model)

    def info(self, model: str, window: int | None = None) -> ModelInfo:
        """``model``'s window and output limit; with ``window`` (a request's own, wider
        window: Anthropic's 1M beta), that window."""
        info = self.resolve(model).info
        if window is None or window <= info.context_window:
            return info
        return replace(info, context_window=window)

    def limit(self, model: str, window: int | None = None) -> int:
        """The prompt size above which a request naming ``model`` is compacted; with
        ``window`` (a request's own, wider window: Anthropic's 1M beta), that window."""
        resolved = self.resolve(model)
        info = self.info(model, window)
        return resolved.limit if info is resolved.info else replace(resolved, info=info).limit
