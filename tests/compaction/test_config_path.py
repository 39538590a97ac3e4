"""One configuration path (issue 25, item 4).

Each face takes ``settings=CompactionSettings(...)``, its own options object and a few
keywords: ``AutoCompactStore(store, transport, ...)`` as the seed wrote it, the
manager's budget and summarizer, the proxy's upstreams. On today's main the three took
26, 23 and 23 keywords, every setting twice, and ``UNSET`` sentinels in their
signatures; these tests fail there. The keywords they dropped still work, with a
``DeprecationWarning`` naming where each one lives now, and build the same settings.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from contextfold import AutoCompactStore, MemoryContextStore
from contextfold.compaction import CompactionSettings
from contextfold.manager import CompactingContextManager, ManagerOptions, manager_settings
from contextfold.proxy import ProxyOptions, create_app
from contextfold.strategies import TruncateToolOutputs
from contextfold.testing import StubTransport
from tests.compaction.test_settings_faces import VALUES

FACES: dict[str, Callable[..., Any]] = {
    "AutoCompactStore": AutoCompactStore,
    "CompactingContextManager": CompactingContextManager,
    "create_app": create_app,
}


def _keywords(face: Callable[..., Any]) -> list[str]:
    return [
        name
        for name, parameter in inspect.signature(face).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and name != "settings"
    ]


@pytest.mark.parametrize("name", FACES)
def test_each_face_takes_settings_and_at_most_eight_keywords(name: str) -> None:
    keywords = _keywords(FACES[name])
    assert len(keywords) <= 8, keywords
    assert "settings" in inspect.signature(FACES[name]).parameters


@pytest.mark.parametrize("name", FACES)
def test_no_sentinel_in_a_public_signature(name: str) -> None:
    for parameter in inspect.signature(FACES[name]).parameters.values():
        assert not isinstance(parameter.default, enum.Enum), parameter
    import contextfold.compaction._settings as module

    assert not hasattr(module, "UNSET")


def test_the_seed_signature_works_without_a_warning() -> None:
    summarizer = StubTransport([])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store = AutoCompactStore(
            MemoryContextStore(),
            StubTransport([]),
            keep_recent=4,
            threshold=0.6,
            max_tokens=9_000,
            summary_transport=summarizer,
            system_prompt="Summarize in at most {max_summary_tokens} tokens.",
        )
    assert (store.settings.keep_recent, store.settings.threshold) == (4, 0.6)
    assert store.settings.max_tokens == 9_000
    assert store.summary_transport is summarizer


# The fields each face took as flat keywords before this path.
_STORE_LEGACY = [
    name
    for name in VALUES
    if name not in {"keep_recent", "threshold", "max_tokens", "system_prompt", "should_compact"}
    and name != "fact_budget"  # came after settings=: it never had a flat keyword
]
_MANAGER_LEGACY = [
    "counter",
    "target_ratio",
    "max_tool_chars",
    "max_summary_tokens",
    "system_prompt",
    "update_prompt",
    "prompt_vars",
    "max_backoff",
    "prepare_threshold",
    "user_message_budget",
    "instructions",
    "summary_timeout",
]
_APP_LEGACY = [
    "threshold",
    "keep_recent",
    "counter",
    "system_prompt",
    "max_summary_tokens",
    "target_ratio",
    "prepare_threshold",
    "user_message_budget",
    "instructions",
    "summary_timeout",
]


def _value(field: str) -> object:
    return VALUES[field]


# prompt_vars must be used by a prompt: the default prompts take none but the budget
_PROMPT = "Summarize {project} in at most {max_summary_tokens} tokens."


@pytest.mark.parametrize("field", _STORE_LEGACY)
def test_a_flat_store_keyword_still_works_with_a_warning(field: str) -> None:
    value = _value(field)
    prompt = {"system_prompt": _PROMPT} if field == "prompt_vars" else {}
    with pytest.warns(DeprecationWarning, match=rf"{field}= -> settings=CompactionSettings"):
        old = AutoCompactStore(MemoryContextStore(), StubTransport([]), **{field: value}, **prompt)
    new = AutoCompactStore(
        MemoryContextStore(),
        StubTransport([]),
        settings=CompactionSettings(**{field: value}, **prompt),
    )
    assert old.settings == new.settings


@pytest.mark.parametrize("field", _MANAGER_LEGACY)
def test_a_flat_manager_keyword_still_works_with_a_warning(field: str) -> None:
    value = _value(field)
    extra = {"system_prompt": _PROMPT} if field == "prompt_vars" else {}
    with pytest.warns(DeprecationWarning, match=rf"{field}= -> settings=CompactionSettings"):
        old = CompactingContextManager(**{field: value}, **extra)
    new = CompactingContextManager(settings=manager_settings(**{field: value}, **extra))
    assert old.settings == new.settings


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("safety_margin", 0.1),
        ("cache_size", 3),
        ("protected_recent", 0.25),
        ("strategies", [TruncateToolOutputs(100)]),
        ("provider_lookup", dict),
    ],
)
def test_a_flat_manager_option_still_works_with_a_warning(field: str, value: object) -> None:
    with pytest.warns(DeprecationWarning, match=rf"{field}= -> options=ManagerOptions"):
        old = CompactingContextManager(**{field: value})
    new = CompactingContextManager(options=ManagerOptions(**{field: value}))
    assert old.options == new.options


@pytest.mark.parametrize("field", _APP_LEGACY)
def test_a_flat_proxy_setting_still_works_with_a_warning(field: str) -> None:
    value = VALUES[field]
    with pytest.warns(DeprecationWarning, match=rf"{field}= -> settings=CompactionSettings"):
        old = create_app(**{field: value})
    new = create_app(settings=CompactionSettings(**{field: value}))
    assert old.state.settings == new.state.settings


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_body_bytes", 1_000),
        ("timeout", 5.0),
        ("summary_max_retries", 0),
        ("secret_headers", ["x-gateway-key"]),
        ("tenant_header", "x-user-id"),
        ("memory_budget", 2 * 1024 * 1024),
        ("recall", True),
    ],
)
def test_a_flat_proxy_option_still_works_with_a_warning(field: str, value: object) -> None:
    with pytest.warns(DeprecationWarning, match=rf"{field}= -> options=ProxyOptions"):
        old = create_app(**{field: value})
    new = create_app(options=ProxyOptions(**{field: value}))
    assert old.state.options == new.state.options


def test_db_path_is_db_with_a_warning(tmp_path: Any) -> None:
    with pytest.warns(DeprecationWarning, match="db_path= -> db="):
        app = create_app(db_path=tmp_path / "a.db")
    assert app.state.forwarder.planner.cache is not None


@pytest.mark.parametrize("name", FACES)
def test_an_unknown_keyword_is_a_type_error(name: str) -> None:
    args = (MemoryContextStore(), StubTransport([])) if name == "AutoCompactStore" else ()
    with pytest.raises(TypeError, match="unexpected keyword argument 'treshold'"):
        FACES[name](*args, treshold=0.5)


@pytest.mark.parametrize("name", ["CompactingContextManager", "create_app"])
def test_a_setting_the_face_never_took_flat_is_a_type_error(name: str) -> None:
    # proactive was never a keyword of these two: it is no deprecated spelling now
    with pytest.raises(TypeError, match="unexpected keyword argument 'proactive'"):
        FACES[name](proactive=False)


def test_options_objects_check_their_values() -> None:
    for bad in ({"max_body_bytes": 0}, {"timeout": -1}, {"tenant_header": "x y"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            ProxyOptions(**bad)
    with pytest.raises(ValueError, match="secret_headers"):
        ProxyOptions(secret_headers="x-a")  # type: ignore[arg-type]
    for bad_manager in ({"safety_margin": 2}, {"cache_size": 0}, {"protected_recent": -0.1}):
        with pytest.raises(ValueError, match=next(iter(bad_manager))):
            ManagerOptions(**bad_manager)
    with pytest.raises(ValueError, match="options must be a ProxyOptions"):
        create_app(options={"recall": True})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="options must be a ManagerOptions"):
        CompactingContextManager(options={"cache_size": 2})  # type: ignore[arg-type]


def test_the_manager_defaults_are_one_function() -> None:
    # Without settings the manager compacts at 0.8 and cuts kept tool outputs to
    # max_tool_chars; manager_settings() is that default, also with fields given.
    assert CompactingContextManager().settings == manager_settings()
    assert manager_settings().threshold == 0.8
    assert manager_settings(max_tool_chars=500).kept_tool_chars == 500
    assert manager_settings(max_tool_chars=500, kept_tool_chars=900).kept_tool_chars == 900
    given = CompactionSettings(max_tool_chars=500)
    assert CompactingContextManager(settings=given).settings == given  # held as given
    assert dataclasses.replace(manager_settings(), threshold=0.75) != manager_settings()


def test_prompt_vars_cannot_set_the_summary_budget() -> None:
    # today's main: a bare TypeError from Prompt.render() ("multiple values")
    from contextfold.errors import PromptError

    with pytest.raises(PromptError, match="max_summary_tokens"):
        AutoCompactStore(
            MemoryContextStore(),
            StubTransport([]),
            settings=CompactionSettings(prompt_vars={"max_summary_tokens": 300}),
        )
