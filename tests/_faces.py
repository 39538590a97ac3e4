"""Test helpers that take the three faces' settings as flat keywords, as many tests
find convenient to write them, and hand each face the one configuration path:
``settings=CompactionSettings(...)`` and its ``options=`` object."""

from __future__ import annotations

import dataclasses
from typing import Any

from contextfold.compaction import CompactionSettings
from contextfold.manager import ManagerOptions, manager_settings
from contextfold.proxy import ProxyOptions

SETTINGS_FIELDS = frozenset(f.name for f in dataclasses.fields(CompactionSettings))


def _split(flat: dict[str, Any], names: frozenset[str], keep: frozenset[str]) -> dict[str, Any]:
    return {name: flat.pop(name) for name in list(flat) if name in names and name not in keep}


def app_arguments(**flat: Any) -> dict[str, Any]:
    """``create_app`` keywords for ``flat`` (settings fields and ProxyOptions fields
    among its own keywords; ``settings=`` and ``options=`` given are the bases)."""
    settings: CompactionSettings = flat.pop("settings", None) or CompactionSettings()
    options: ProxyOptions = flat.pop("options", None) or ProxyOptions()
    fields = _split(flat, SETTINGS_FIELDS, frozenset())
    own = _split(flat, frozenset(f.name for f in dataclasses.fields(ProxyOptions)), frozenset())
    return {"settings": settings.replace(**fields), "options": options.replace(**own), **flat}


_STORE_KEYWORDS = frozenset({"keep_recent", "threshold", "max_tokens", "system_prompt"})


def store_arguments(**flat: Any) -> dict[str, Any]:
    """``AutoCompactStore`` keywords for ``flat``."""
    settings: CompactionSettings = flat.pop("settings", None) or CompactionSettings()
    fields = _split(flat, SETTINGS_FIELDS, _STORE_KEYWORDS)
    return {"settings": settings.replace(**fields), **flat}


_MANAGER_KEYWORDS = frozenset({"max_tokens", "keep_recent"})


def manager_arguments(**flat: Any) -> dict[str, Any]:
    """``CompactingContextManager`` keywords for ``flat`` (without ``settings=``, the
    fields go onto the manager's defaults, :func:`manager_settings`)."""
    given: CompactionSettings | None = flat.pop("settings", None)
    options: ManagerOptions = flat.pop("options", None) or ManagerOptions()
    fields = _split(flat, SETTINGS_FIELDS, _MANAGER_KEYWORDS)
    own = _split(flat, frozenset(f.name for f in dataclasses.fields(ManagerOptions)), frozenset())
    settings = manager_settings(**fields) if given is None else given.replace(**fields)
    return {"settings": settings, "options": options.replace(**own), **flat}
