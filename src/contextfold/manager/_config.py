"""``mount``'s configuration: contextfold's keys, and those of Amplifier's default modules.

A bundle written for Amplifier's ``context-simple`` or ``context-persistent`` can name
``contextfold-context`` instead and keep its ``config``. Their keys map as follows
(``docs/manager.md`` has the same table):

=============================  ===============================================
their key                      here
=============================  ===============================================
``max_tokens``                 ``max_tokens`` (the budget when the provider
                               gives none)
``compact_threshold``          ``compaction_threshold``
``target_usage``               ``target_ratio``
``truncate_chars``             ``max_tool_chars`` (at least 64)
``memory_files``               the same: read into system messages when a
                               session starts empty
``transcript_path``            noted; use ``store``
``protected_recent``           ``protected_recent`` (the last share of the
                               messages, widened to whole turns, ends every
                               view verbatim)
``protected_tool_results``     noted; the latest round is always kept whole
``compaction_notice_*``        noted; events replace the notice message
``output_reserve_fraction``    noted; all of ``max_output_tokens`` is reserved
``token_meter``                noted; counts are estimates
``max_tool_result_bytes``      noted; results are stored whole, cut in views
``truncate_boundary``          noted (unused by context-persistent as well)
=============================  ===============================================

"Noted" keys are accepted and logged once, at mount, with what happens instead; an
unknown key is a :class:`ValueError` listing every valid key.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from contextfold.compaction._settings import check_int

__all__ = ["ALIASES", "NOTED", "OWN_KEYS", "MountConfig", "read_config"]

logger = logging.getLogger("contextfold.manager")

OWN_KEYS: Final = frozenset(
    {
        "max_tokens",
        "compaction_threshold",
        "transport",
        "summary_transport",
        "keep_recent",
        "safety_margin",
        "target_ratio",
        "max_tool_chars",
        "max_summary_tokens",
        "system_prompt",
        "update_prompt",
        "prompt_vars",
        "cache_size",
        "max_backoff",
        "prepare_threshold",
        "store",
        "memory_files",
        "protected_recent",
        "summary_timeout",
    }
)
"""Keys with the meaning of :class:`CompactingContextManager`'s keywords (and ``store``
as a URL, ``memory_files`` and ``protected_recent`` as in context-simple/persistent)."""

ALIASES: Final = {
    "compact_threshold": "compaction_threshold",
    "target_usage": "target_ratio",
    "truncate_chars": "max_tool_chars",
}
"""Amplifier's names for keys that have an equivalent here."""

_NOTICE = "no notice message is inserted; context:pre_compact/post_compact events report it"
NOTED: Final = {
    "protected_tool_results": "the latest round's tool results are always kept whole",
    "compaction_notice_enabled": _NOTICE,
    "compaction_notice_token_reserve": _NOTICE,
    "compaction_notice_verbosity": _NOTICE,
    "compaction_notice_min_level": _NOTICE,
    "output_reserve_fraction": "the budget reserves all of the provider's max_output_tokens",
    "token_meter": "token counts are estimates of the messages",
    "max_tool_result_bytes": "tool results are stored whole and cut to max_tool_chars in views",
    "transcript_path": "the history persists in the ContextStore named by 'store'",
    "truncate_boundary": "context-persistent does not use it either",
}
"""Keys of context-simple / context-persistent with no equivalent, and what happens instead."""

_MIN_TOOL_CHARS = 64


@dataclass(frozen=True, slots=True)
class MountConfig:
    """``options`` for the manager's constructor, the ``store`` and the ``memory_files``."""

    options: dict[str, Any] = field(default_factory=dict)
    store: object = None
    memory_files: tuple[str, ...] = ()


def _valid_keys() -> str:
    return ", ".join(sorted(OWN_KEYS | set(ALIASES) | set(NOTED)))


def read_config(config: Mapping[str, Any]) -> MountConfig:
    """Map ``config`` to the manager's options (see the module docstring).

    Raises :class:`ValueError` for an unknown key (listing the valid ones), a key given
    under both names with different values, a bad ``truncate_chars`` or a
    ``memory_files`` that is not a list of paths. Other values are checked by the
    manager's constructor.
    """
    if not isinstance(config, Mapping):
        raise ValueError(f"config must be a mapping, got {type(config).__name__}")
    unknown = sorted(set(config) - OWN_KEYS - set(ALIASES) - set(NOTED))
    if unknown:
        raise ValueError(
            f"unknown contextfold-context config key(s): {', '.join(map(str, unknown))} "
            f"(valid: {_valid_keys()})"
        )
    options: dict[str, Any] = {}
    for key, value in config.items():
        if key in NOTED:
            logger.info(
                "contextfold-context: config key %r has no equivalent and is ignored: %s",
                key,
                NOTED[key],
            )
            continue
        target = ALIASES.get(key, key)
        if key == "truncate_chars":
            value = check_int("truncate_chars", value, 1)
            if value < _MIN_TOOL_CHARS:
                logger.warning(
                    "contextfold-context: truncate_chars %d raised to %d (max_tool_chars' minimum)",
                    value,
                    _MIN_TOOL_CHARS,
                )
                value = _MIN_TOOL_CHARS
        if target in options and options[target] != value:
            raise ValueError(f"config gives {target} twice, with different values")
        options[target] = value
    store = options.pop("store", None)
    files = options.pop("memory_files", None) or []
    if isinstance(files, str) or not isinstance(files, list | tuple):
        raise ValueError(f"memory_files must be a list of file paths, got {files!r}")
    if not all(isinstance(path, str) and path for path in files):
        raise ValueError(f"memory_files must be a list of file paths, got {files!r}")
    return MountConfig(options, store, tuple(files))
