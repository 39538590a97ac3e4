"""One meaning per setting: every ``CompactionSettings`` field, walked through every face.

Issue 25 (one policy, three faces): a face either holds a field as given (and acts on
it as the library does) or refuses it with a ``ValueError`` that names the field and
the face. Today's main took every field on every face and quietly dropped or changed
some: the proxy ignored ``max_tokens``, ``proactive``, ``cache_friendly`` and the
agent's prefix; the manager replaced ``kept_tool_chars`` with ``max_tool_chars`` and
read ``max_tokens`` as its token budget, not as the size that triggers compaction.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from contextfold import AutoCompactStore, MemoryContextStore
from contextfold.compaction import CompactionSettings
from contextfold.manager import CompactingContextManager
from contextfold.proxy import create_app
from contextfold.strategies import MaskToolOutputs
from contextfold.testing import StubTransport
from contextfold.transports.base import ModelInfo, ToolSpec


def _counter(text: str) -> int:
    return len(text) // 3 + 1


def _never(check: object) -> bool:
    return False


MASK = MaskToolOutputs(min_chars=500)
# A valid value other than the default for every field.
VALUES: dict[str, Any] = {
    "keep_recent": 3,
    "threshold": 0.5,
    "max_tokens": 5_000,
    "target_ratio": 0.4,
    "system_prompt": "Summarize the conversation in at most {max_summary_tokens} tokens.",
    "update_prompt": "Update the summary in at most {max_summary_tokens} tokens.",
    "prompt_vars": {"project": "atlas"},
    "counter": _counter,
    "max_summary_tokens": 500,
    "max_tool_chars": 1_000,
    "kept_tool_chars": 500,
    "cache_friendly": True,
    "agent_system": "You are a careful agent.",
    "agent_tools": (ToolSpec("read_file", "Read a file.", {"type": "object"}),),
    "proactive": False,
    "max_backoff": 4,
    "summary_timeout": 5.0,
    "prepare_threshold": 0.3,
    "mask_tool_outputs": MASK,
    "user_message_budget": 100,
    "fact_budget": 300,
    "instructions": "Keep every ticket id.",
    "should_compact": _never,
}

# What a field needs beside it to be valid.
NEEDS: dict[str, dict[str, Any]] = {
    "prompt_vars": {"system_prompt": "Summarize the {project} session in {max_summary_tokens}."},
}

# What each face refuses, and why (the error must say it).
REFUSED: dict[str, dict[str, str]] = {
    "store": {},
    "manager": {
        "max_tokens": "budget",
        "proactive": "every view",
    },
    "proxy": {
        "proactive": "every request",
        "cache_friendly": "own system prompt and tools",
        "agent_system": "own system prompt and tools",
        "agent_tools": "own system prompt and tools",
    },
}


def _store(settings: CompactionSettings, tmp_path: Path) -> CompactionSettings:
    model = ModelInfo("test-model", context_window=32_768, max_output_tokens=4_096)
    store = AutoCompactStore(
        MemoryContextStore(), StubTransport([], model=model), settings=settings
    )
    return store.settings


def _manager(settings: CompactionSettings, tmp_path: Path) -> CompactionSettings:
    return CompactingContextManager(settings=settings).settings


def _proxy(settings: CompactionSettings, tmp_path: Path) -> CompactionSettings:
    app = create_app(settings=settings, db=tmp_path / "cache.db")
    held: CompactionSettings = app.state.settings
    return held


FACES: dict[str, Callable[[CompactionSettings, Path], CompactionSettings]] = {
    "store": _store,
    "manager": _manager,
    "proxy": _proxy,
}


def test_the_walk_covers_every_field() -> None:
    names = {f.name for f in dataclasses.fields(CompactionSettings)}
    assert set(VALUES) == names
    defaults = CompactionSettings()
    for name, value in VALUES.items():
        assert getattr(defaults, name) != value, name  # each value is not the default


@pytest.mark.parametrize("face", sorted(FACES))
@pytest.mark.parametrize("name", sorted(VALUES))
def test_every_face_holds_a_field_as_given_or_refuses_it(
    face: str, name: str, tmp_path: Path
) -> None:
    settings = CompactionSettings(**{name: VALUES[name], **NEEDS.get(name, {})})
    make = FACES[face]
    refused = REFUSED[face].get(name)
    if refused is not None:
        with pytest.raises(ValueError, match=name) as caught:
            make(settings, tmp_path)
        assert refused in str(caught.value)
        return
    held = make(settings, tmp_path)
    assert getattr(held, name) == getattr(settings, name)
    for other in VALUES:  # and the others are left as they were given
        assert getattr(held, other) == getattr(settings, other), (name, other)


@pytest.mark.parametrize("face", sorted(FACES))
def test_the_defaults_are_taken_by_every_face(face: str, tmp_path: Path) -> None:
    FACES[face](CompactionSettings(), tmp_path)


def test_the_proxy_triggers_at_max_tokens() -> None:
    # Today's main ignored settings.max_tokens in the proxy: a model with a 200k
    # window compacted at 0.75 x 200k whatever max_tokens said.
    from contextfold.proxy._config import ModelTable

    table = ModelTable(context_window=200_000, threshold=0.75, keep_recent=6, max_tokens=5_000)
    assert table.limit("any-model") == 5_000
    own = ModelTable(
        {"own": {"threshold": 0.5}},
        context_window=200_000,
        threshold=0.75,
        keep_recent=6,
        max_tokens=5_000,
    )
    assert own.limit("own") == 100_000  # a model's own threshold wins over the global size
    big = ModelTable(context_window=32_768, threshold=0.9, keep_recent=6, max_tokens=50_000)
    assert big.limit("x") == big.resolve("x").info.input_budget  # never past the window
