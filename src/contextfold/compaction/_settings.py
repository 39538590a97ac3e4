"""One set of compaction settings, shared by every face that compacts.

:class:`~contextfold.compaction.AutoCompactStore`,
:class:`~contextfold.manager.CompactingContextManager` and the proxy
(:func:`~contextfold.proxy.create_app`) each take ``settings=CompactionSettings(...)``
and a few keywords of their own; the handful of settings each also takes as a keyword
(``keep_recent``, ``threshold``...) wins over the same field of ``settings`` when given.
Every other field is set through ``settings`` only: the flat keywords the faces took
before (``prepare_threshold=``, ``summary_timeout=``...) still work, with a
:class:`DeprecationWarning` (see :class:`Legacy`).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from contextfold.compaction._engine import Options, PromptLike, build_options
from contextfold.compaction._trigger import TriggerHook
from contextfold.strategies import MaskToolOutputs
from contextfold.tokens import TokenCounter, approx_token_counter
from contextfold.transports.base import ToolSpec

__all__ = [
    "CompactionSettings",
    "Legacy",
    "check_fraction",
    "check_int",
    "check_settings",
    "refuse_fields",
]


def check_int(name: str, value: object, minimum: int) -> int:
    """``value`` if it is an int (not a bool) of at least ``minimum``, else :class:`ValueError`."""
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return value


def check_fraction(
    name: str, value: object, *, zero_ok: bool = False, one_ok: bool = False
) -> float:
    """``value`` as a float in (0, 1) (ends included as asked), else :class:`ValueError`."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
        if (0 < number < 1) or (zero_ok and number == 0) or (one_ok and number == 1):
            return number
    bounds = ("[0" if zero_ok else "(0") + ", " + ("1]" if one_ok else "1)")
    raise ValueError(f"{name} must be a number in {bounds}, got {value!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionSettings:
    """When to compact, what to keep and how to summarize.

    Bad values raise :class:`ValueError` when the settings are made.

    Attributes:
        keep_recent: messages kept verbatim after the summary (moved to the nearest cut
            that keeps tool calls with their results); at least 1.
        threshold: share of the model's context window above which compaction runs,
            in (0, 1].
        max_tokens: an absolute prompt size that triggers compaction instead of
            ``threshold × context_window``; it never goes above ``context_window −
            max_output_tokens``.
        target_ratio: share of the limit a compaction aims for, in (0, 1).
        system_prompt: the summarization prompt: text, a file path or a
            :class:`~contextfold.prompts.Prompt` (default: the built-in structured one).
        update_prompt: the prompt for incremental updates of an earlier summary
            (default: ``system_prompt`` when one is given, else the built-in update).
        prompt_vars: extra variables for the prompts, besides ``max_summary_tokens``.
        counter: the token counter estimates are made with.
        max_summary_tokens: the summary's budget in tokens (at least 64).
        max_tool_chars: tool outputs are cut to this many characters (head + tail) in
            the summarizer's copy (at least 64).
        kept_tool_chars: tool outputs of the kept part are cut to this many characters
            when nothing else gets the history under the target (at least 64).
        cache_friendly: summarize as a continuation of the agent's own prefix
            (``agent_system`` and ``agent_tools``) so the provider's prompt cache is hit.
        agent_system: the agent's system prompt, for ``cache_friendly``.
        agent_tools: the agent's tools, for ``cache_friendly``.
        proactive: compact before a request when appends since the last real usage
            would push it past the limit.
        max_backoff: after failed attempts, skip 1, 2, 4 ... up to this many triggers.
        summary_timeout: seconds one summarization attempt may wait on the model (all
            its requests together); past it the attempt ends as ``failed`` and the
            history is left as it was. The fact ledger's check of a summary that came
            back in time is not cut short. ``None`` waits for ever.
        prepare_threshold: share of the context window at which a summary starts to
            be prepared in the background, so that crossing ``threshold`` commits it
            without waiting for a model (see :class:`AutoCompactStore`). ``None`` turns
            preparation off; a value whose prompt size is not below the compaction
            limit (a low ``threshold`` or ``max_tokens``) prepares at 0.8 of the limit
            instead. A session that ends between the two thresholds pays for one
            summary it never uses.
        mask_tool_outputs: a :class:`~contextfold.strategies.MaskToolOutputs` (``True``:
            its defaults) tried first by every compaction attempt: when masking old,
            large tool outputs alone gets under the target, no model is called
            (outcome ``masked``); otherwise the masked history is summarized. The
            store's archive keeps the originals (:mod:`contextfold.recall`). ``None``
            (the default) summarizes only.
        user_message_budget: tokens of the user's own messages (not tool results) from
            the summarized part kept word for word in the summary message, newest first
            (at most a quarter of the compaction's target); ``0`` keeps none. The rest
            is only in the summary.
        fact_budget: tokens of facts the summary left out that the fact ledger
            restores in a section rendered after it (at most an eighth of the
            compaction's target): the files and records changed, the identifiers, the
            user's instructions and next steps of the summarized part, found without a
            model (see :mod:`contextfold.compaction._ledger`). ``0`` turns the ledger
            off.
        instructions: compaction instructions for the summarizer (what to keep or
            stress), sent after the transcript with the standing instructions the user
            gave in the conversation (see :mod:`contextfold.compaction._userwords`).
        should_compact: a hook every face asks whether to compact now, with a
            :class:`~contextfold.compaction.TriggerCheck` (face, model, estimated
            tokens, limit, window): ``True`` compacts now, ``False`` not now (a
            history past the relief point is still relieved), ``None`` leaves it to the
            limit. Sync or async; one that raises is logged and the limit decides.
    """

    keep_recent: int = 6
    threshold: float = 0.75
    max_tokens: int | None = None
    target_ratio: float = 0.5
    system_prompt: PromptLike | None = None
    update_prompt: PromptLike | None = None
    prompt_vars: Mapping[str, object] = field(default_factory=dict)
    counter: TokenCounter = approx_token_counter
    max_summary_tokens: int = 4_000
    max_tool_chars: int = 8_000
    kept_tool_chars: int = 2_000
    cache_friendly: bool = False
    agent_system: str | None = None
    agent_tools: tuple[ToolSpec, ...] = ()
    proactive: bool = True
    max_backoff: int = 32
    summary_timeout: float | None = 120.0
    prepare_threshold: float | None = 0.6
    mask_tool_outputs: MaskToolOutputs | None = None
    user_message_budget: int = 2_000
    fact_budget: int = 1_000
    instructions: str | None = None
    should_compact: TriggerHook | None = None

    def __post_init__(self) -> None:
        check_fraction("threshold", self.threshold, one_ok=True)
        if self.max_tokens is not None:
            check_int("max_tokens", self.max_tokens, 1)
        check_fraction("target_ratio", self.target_ratio)
        check_int("max_backoff", self.max_backoff, 0)
        check_int("keep_recent", self.keep_recent, 1)
        for name in ("max_summary_tokens", "max_tool_chars", "kept_tool_chars"):
            check_int(name, getattr(self, name), 64)
        timeout = self.summary_timeout
        if timeout is not None and (
            not isinstance(timeout, int | float) or isinstance(timeout, bool) or not timeout > 0
        ):
            raise ValueError(f"summary_timeout must be a positive number or None, got {timeout!r}")
        for name in ("cache_friendly", "proactive"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.prepare_threshold is not None:
            check_fraction("prepare_threshold", self.prepare_threshold)
        mask: object = self.mask_tool_outputs
        if isinstance(mask, bool):  # True: the defaults; False: off
            object.__setattr__(self, "mask_tool_outputs", MaskToolOutputs() if mask else None)
        elif mask is not None and not isinstance(mask, MaskToolOutputs):
            raise ValueError(
                f"mask_tool_outputs must be a MaskToolOutputs, True or None, got {mask!r}"
            )
        check_int("user_message_budget", self.user_message_budget, 0)
        check_int("fact_budget", self.fact_budget, 0)
        if self.instructions is not None and not isinstance(self.instructions, str):
            raise ValueError(f"instructions must be a string or None, got {self.instructions!r}")
        if self.should_compact is not None and not callable(self.should_compact):
            raise ValueError(
                f"should_compact must be a callable (TriggerCheck) -> bool | None, "
                f"got {self.should_compact!r}"
            )
        if not callable(self.counter):
            raise ValueError(f"counter must be a callable (text) -> int, got {self.counter!r}")
        # Frozen, but built from user arguments: own copies, so later changes to the
        # caller's dict or list cannot reach in.
        object.__setattr__(self, "prompt_vars", dict(self.prompt_vars))
        object.__setattr__(self, "agent_tools", tuple(self.agent_tools))

    def replace(self, **changes: Any) -> CompactionSettings:
        """A copy with ``changes``; a change whose value is ``None`` is left out ("not
        given", so a face can pass its keywords straight through), except for
        ``summary_timeout``, ``prepare_threshold``, ``mask_tool_outputs`` and
        ``should_compact``, whose ``None`` turns a feature off."""
        given = {
            name: value
            for name, value in changes.items()
            if value is not None or name in _NONE_MEANS_OFF
        }
        return dataclasses.replace(self, **given) if given else self

    def options(self, *, counter: TokenCounter | None = None) -> Options:
        """The engine's options: prompts loaded and checked (a prompt with an unknown
        variable raises :class:`~contextfold.errors.PromptError` here)."""
        return build_options(
            keep_recent=self.keep_recent,
            system_prompt=self.system_prompt,
            update_prompt=self.update_prompt,
            prompt_vars=dict(self.prompt_vars),
            counter=counter or self.counter,
            max_summary_tokens=self.max_summary_tokens,
            max_tool_chars=self.max_tool_chars,
            kept_tool_chars=self.kept_tool_chars,
            cache_friendly=self.cache_friendly,
            agent_system=self.agent_system,
            agent_tools=self.agent_tools,
            instructions=self.instructions,
            user_message_budget=self.user_message_budget,
            fact_budget=self.fact_budget,
        )


def refuse_fields(settings: CompactionSettings, face: str, reasons: Mapping[str, str]) -> None:
    """Raise :class:`ValueError` for the first field of ``settings`` named in
    ``reasons`` that is not its default: ``face`` cannot give it the meaning it has in
    :class:`~contextfold.AutoCompactStore`, and says why, rather than ignore it."""
    defaults = _DEFAULTS
    for name, reason in reasons.items():
        value = getattr(settings, name)
        if value != getattr(defaults, name):
            # The value is not echoed: a system prompt may hold anything, keys included.
            raise ValueError(
                f"{face} does not support CompactionSettings.{name} (a "
                f"{type(value).__name__} other than the default was given): {reason}"
            )


class Legacy:
    """A face's deprecated flat keywords (its ``**legacy``), sorted to where they live
    now. :meth:`take` removes the names of one destination; :meth:`done` then raises
    :class:`TypeError` for a name no destination took, as for any unexpected keyword,
    or issues one :class:`DeprecationWarning` naming every keyword taken and where it
    goes."""

    def __init__(self, face: str, given: Mapping[str, Any]) -> None:
        self.face = face
        self._left = dict(given)
        self._moved: list[str] = []

    def take(self, names: Iterable[str], where: str) -> dict[str, Any]:
        """The keywords among ``names``; ``where`` (with ``{}`` for the name) says where
        each lives now, for the warning."""
        wanted = set(names)
        taken = {name: self._left.pop(name) for name in list(self._left) if name in wanted}
        self._moved += [f"{name}= -> {where.format(name)}" for name in taken]
        return taken

    def settings(self, names: Iterable[str]) -> dict[str, Any]:
        """The keywords among ``names`` that are fields of :class:`CompactionSettings`."""
        return self.take(set(names) & set(_FIELD_NAMES), "settings=CompactionSettings({}=...)")

    def done(self, stacklevel: int = 3) -> None:
        """Refuse what is left, else warn once (``stacklevel`` as for
        :func:`warnings.warn`, counted from this method: 3 is the face's caller)."""
        if self._left:
            name = next(iter(self._left))
            raise TypeError(f"{self.face}() got an unexpected keyword argument {name!r}")
        if self._moved:
            warnings.warn(
                f"{self.face}: these keywords are deprecated and will be removed: "
                + ", ".join(self._moved),
                DeprecationWarning,
                stacklevel=stacklevel,
            )


def check_settings(settings: object) -> None:
    """:class:`ValueError` unless ``settings`` is ``None`` or a
    :class:`CompactionSettings`."""
    if settings is not None and not isinstance(settings, CompactionSettings):
        raise ValueError(f"settings must be a CompactionSettings, got {type(settings).__name__}")


_NONE_MEANS_OFF = frozenset(
    {"summary_timeout", "prepare_threshold", "mask_tool_outputs", "should_compact"}
)

_DEFAULTS: Final = CompactionSettings()
_FIELD_NAMES: Final = tuple(f.name for f in dataclasses.fields(CompactionSettings))
