"""The public surface: what users import, and the hygiene of every public module's ``__all__``."""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
from importlib.metadata import version
from types import ModuleType

import pytest

import contextfold


def test_version_prints_from_a_fresh_interpreter() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import contextfold; print(contextfold.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == version("contextfold")
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", out.stdout.strip())


def test_importing_transports_loads_no_provider_sdk() -> None:
    code = (
        "import sys, contextfold.transports; "
        "print(sorted(m for m in ('anthropic', 'openai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# SPEC §2–§5: the names users write, by the concept module that owns them.
SPEC_NAMES: dict[str, list[str]] = {
    "contextfold.blocks": [
        "ContentBlock",
        "TextBlock",
        "ImageBlock",
        "ToolUseBlock",
        "ToolResultBlock",
        "ThinkingBlock",
        "to_dict",
        "from_dict",
    ],
    "contextfold.messages": ["Message", "Role"],
    "contextfold.context": ["ContextStore", "MemoryContextStore", "SessionInfo", "Compactable"],
    "contextfold.transports": [
        "CompletionTransport",
        "StreamingTransport",
        "ModelInfo",
        "Completion",
        "Usage",
        "ToolSpec",
        "lookup_model",
    ],
    "contextfold.agent": ["Agent", "Tool", "tool"],
    "contextfold.errors": [
        "ContextfoldError",
        "TransportError",
        "RateLimitError",
        "ContextOverflowError",
    ],
}

CONCEPT_ONLY: dict[str, list[str]] = {
    "contextfold.sqlite": ["connect", "SQLiteContextStore"],
    "contextfold.transports.anthropic": ["AnthropicTransport"],
    "contextfold.transports.openai": ["OpenAITransport"],
    "contextfold.testing": [
        "StubTransport",
        "FunctionTransport",
        "make_text_response",
        "make_tool_use_response",
    ],
}


@pytest.mark.parametrize(
    ("module_name", "name"), [(m, n) for m, names in SPEC_NAMES.items() for n in names]
)
def test_spec_name_imports_from_package_and_concept_module(module_name: str, name: str) -> None:
    module = importlib.import_module(module_name)
    assert name in module.__all__
    assert name in contextfold.__all__
    assert getattr(contextfold, name) is getattr(module, name)


@pytest.mark.parametrize(
    ("module_name", "name"), [(m, n) for m, names in CONCEPT_ONLY.items() for n in names]
)
def test_spec_name_imports_from_its_concept_module(module_name: str, name: str) -> None:
    module = importlib.import_module(module_name)
    assert name in module.__all__
    assert callable(getattr(module, name))


def public_modules() -> list[str]:
    names = ["contextfold"]
    for info in pkgutil.walk_packages(contextfold.__path__, "contextfold."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return sorted(names)


def _isort_key(name: str) -> tuple[int, list[str | int]]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then everything else; natural order within.
    if name.upper() == name and any(c.isalpha() for c in name):
        group = 0
    elif name[0].isupper():
        group = 1
    else:
        group = 2
    return group, [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def test_public_modules_are_found() -> None:
    found = public_modules()
    for expected in ("contextfold.blocks", "contextfold.agent", "contextfold.transports.base"):
        assert expected in found


@pytest.mark.parametrize("module_name", public_modules())
def test_all_is_sorted_unique_and_resolvable(module_name: str) -> None:
    module: ModuleType = importlib.import_module(module_name)
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, list), f"{module_name} has no __all__ list"
    assert exported == sorted(exported, key=_isort_key), f"{module_name}.__all__ is not sorted"
    assert len(set(exported)) == len(exported), f"{module_name}.__all__ has duplicates"
    missing = [name for name in exported if not hasattr(module, name)]
    assert missing == [], f"{module_name}.__all__ names missing attributes: {missing}"


# SPEC §1: the stores live in contextfold.stores; the paths users imported them from
# before keep working, naming the very same objects.
STORE_PATHS: dict[str, tuple[str, list[str]]] = {
    "contextfold.context": (
        "contextfold.stores",
        [
            "ArchivedMessage",
            "Archiving",
            "Compactable",
            "CompactionLocking",
            "ContextStore",
            "MemoryContextStore",
            "PrefixReplacing",
            "SessionInfo",
            "SnapshotReplacing",
        ],
    ),
    "contextfold.sqlite": (
        "contextfold.stores.sqlite",
        ["ArchivedMessage", "CompactionRecord", "SQLiteContextStore", "connect", "ensure_schema"],
    ),
    "contextfold.postgres": (
        "contextfold.stores.postgres",
        ["ArchivedMessage", "CompactionRecord", "PostgresContextStore", "connect", "ensure_schema"],
    ),
    "contextfold.redis": (
        "contextfold.stores.redis",
        ["ArchivedMessage", "CompactionRecord", "RedisContextStore"],
    ),
}


@pytest.mark.parametrize("path", sorted(STORE_PATHS))
def test_the_store_paths_of_before_name_the_same_objects(path: str) -> None:
    home_name, names = STORE_PATHS[path]
    module, home = importlib.import_module(path), importlib.import_module(home_name)
    assert set(names) <= set(module.__all__)
    for name in names:
        assert getattr(module, name) is getattr(home, name), f"{path}.{name}"


def test_preview_of_is_still_in_contextfold_context() -> None:
    from contextfold.context import preview_of
    from contextfold.stores.base import preview_of as home

    assert preview_of is home


def test_the_stores_package_and_the_package_agree() -> None:
    import contextfold.stores

    shared = set(contextfold.stores.__all__) & set(contextfold.__all__)
    assert {"ContextStore", "MemoryContextStore", "SQLiteContextStore"} <= shared
    for name in shared:
        assert getattr(contextfold.stores, name) is getattr(contextfold, name), name


def test_importing_the_stores_loads_no_optional_driver() -> None:
    code = (
        "import sys, contextfold, contextfold.stores, contextfold.context, contextfold.sqlite; "
        "print(sorted(m for m in ('psycopg', 'psycopg_pool', 'redis') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
