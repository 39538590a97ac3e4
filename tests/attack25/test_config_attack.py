"""Attacks on the "one configuration path" change (settings= + options objects + a few
keywords, the old flat keywords deprecated).

The promise: no behaviour change beyond the API shape (old flat keywords behave exactly
as before, d1a3b77), bad input is a clear ValueError/TypeError naming the field, one
DeprecationWarning per call pointing at the caller's line. The tests that fail below
name what is wrong and what should happen; the passing ones pin attacks that found
nothing.
"""

from __future__ import annotations

import asyncio
import socket
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import contextfold.proxy as proxy
from contextfold import AutoCompactStore, MemoryContextStore
from contextfold.cli import main
from contextfold.compaction import CompactionSettings
from contextfold.manager import CompactingContextManager, ManagerOptions, mount
from contextfold.proxy import ProxyOptions, create_app
from contextfold.strategies import TruncateToolOutputs
from contextfold.testing import StubTransport


def _store(**kw: Any) -> AutoCompactStore:
    return AutoCompactStore(MemoryContextStore(), StubTransport([]), **kw)


def _recorded(call: Callable[[], object]) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return [w for w in seen if issubclass(w.category, DeprecationWarning)]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- defects -------------------------------------------------------------------------


def test_store_refuses_should_compact_keyword_it_never_took() -> None:
    """AutoCompactStore never took ``should_compact=`` as a keyword (d1a3b77: TypeError,
    and tests/compaction/test_config_path.py leaves it out of the store's legacy names),
    and the change promises "a name a face never took is a TypeError". apply_legacy is
    called with names=None (every settings field), so the store now accepts it as a
    "deprecated" keyword. Expected: TypeError, as before."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match="should_compact"):
            _store(should_compact=lambda check: None)


@pytest.mark.parametrize("name", ["safety_margin", "cache_size"])
def test_manager_legacy_none_for_a_non_optional_option_is_still_an_error(name: str) -> None:
    """d1a3b77: ``CompactingContextManager(safety_margin=None)`` (or ``cache_size=None``)
    raised ValueError naming the field; so do ``ManagerOptions(safety_margin=None)`` and
    ``mount(host, {"safety_margin": None})`` today. The legacy path goes through
    ManagerOptions.replace, which drops None as "not given", so the flat keyword now
    silently means the default (0.05 / 8). Expected: ValueError naming the field."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(ValueError, match=name):
            CompactingContextManager(**{name: None})


def test_manager_legacy_strategies_generator_still_works() -> None:
    """d1a3b77: ``CompactingContextManager(strategies=<generator>)`` worked (the manager
    took ``tuple(strategies)``). Through ManagerOptions' "must be a sequence" check the
    same old keyword is now a ValueError: an old flat keyword that no longer behaves as
    before. Expected: the strategies are taken (a deprecation warning at most)."""
    step = TruncateToolOutputs(500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        manager = CompactingContextManager(strategies=(s for s in [step]))
    assert manager.strategies == (step,)


_FACES: dict[str, Callable[..., object]] = {
    "AutoCompactStore": lambda **kw: _store(**kw),
    "CompactingContextManager": lambda **kw: CompactingContextManager(**kw),
    "create_app": lambda **kw: create_app(**kw),
}


@pytest.mark.parametrize(
    "bad",
    [{}, {"threshold": 0.5}, ManagerOptions()],
    ids=["empty-dict", "dict", "ManagerOptions"],
)
@pytest.mark.parametrize("face", list(_FACES))
def test_settings_of_the_wrong_type_is_a_clear_error(face: str, bad: object) -> None:
    """``settings=`` is now the one configuration path, and ``options=`` of the wrong
    type is a ValueError naming it, but ``settings`` is never type-checked: a falsy
    value ({} or 0) is silently replaced by the defaults (the caller's config is lost),
    a dict or a ManagerOptions dies with AttributeError ('dict' object has no attribute
    'replace'; 'ManagerOptions' object has no attribute 'max_tokens'). Expected: a
    ValueError/TypeError naming ``settings``."""
    with pytest.raises((ValueError, TypeError), match="settings"):
        _FACES[face](settings=bad)


@pytest.mark.parametrize(
    "headers", [[1], [None], [b"x-api-key"], ["x api key"]], ids=["int", "none", "bytes", "space"]
)
def test_proxy_options_checks_each_secret_header_when_made(headers: list[object]) -> None:
    """ProxyOptions says "Bad values raise ValueError when the options are made" and
    checks tenant_header against RFC 9110's token, but secret_headers only has to be a
    non-string iterable: [1] or [None] are accepted and create_app then dies with
    AttributeError ('int' object has no attribute 'lower'); bytes or a name with a space
    are accepted and silently never match a header (a credential the operator thinks
    is scrubbed is not; ``serve --secret-header 'x api key'`` is refused). Expected:
    ValueError naming secret_headers at ProxyOptions(...)."""
    with pytest.raises(ValueError, match="secret_headers"):
        ProxyOptions(secret_headers=headers)


@pytest.mark.parametrize("budget", [0, -1, 1000, 1024 * 1024 - 1])
def test_proxy_options_memory_budget_below_one_mib_is_refused_when_made(budget: int) -> None:
    """ProxyOptions documents memory_budget as "at least 1 MiB" and "Bad values raise
    ValueError when the options are made", but only checks that it is an int: the
    error comes later, from create_app's MemoryBudget. Expected: ValueError at
    ProxyOptions(memory_budget=...)."""
    with pytest.raises(ValueError, match="memory_budget"):
        ProxyOptions(memory_budget=budget)


def test_manager_options_checks_its_strategies_when_made() -> None:
    """ManagerOptions checks that strategies is a sequence but not its items: [1] is
    accepted, and the first request over the threshold fails with "a pipeline step must
    be a strategy or callable: 1". Expected: ValueError at ManagerOptions(...), as its
    docstring promises for bad values."""
    with pytest.raises(ValueError, match="strateg"):
        ManagerOptions(strategies=[1])  # type: ignore[list-item]


def test_serve_deprecation_warning_points_at_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve(**create_app_kwargs)`` hands old flat keywords to create_app, whose
    warning uses a fixed stacklevel: it points at contextfold/proxy/__init__.py (serve's
    own line), not at the caller's, so under Python's default filters (DeprecationWarning
    shown only when attributed to __main__) a script calling ``serve(threshold=0.6)``
    never sees it. Expected: the warning's filename is the caller's file."""

    class Stop(Exception):
        pass

    def stop(level: object) -> None:
        raise Stop

    monkeypatch.setattr(proxy, "_log_to_stderr", stop)

    def call() -> None:
        with pytest.raises(Stop):
            proxy.serve(threshold=0.6)

    seen = _recorded(call)
    assert seen, "no DeprecationWarning"
    assert [w.filename for w in seen] == [__file__] * len(seen)


@pytest.mark.parametrize(
    ("face", "keywords"),
    [
        ("CompactingContextManager", {"safety_margin": 0.1, "target_ratio": 0.4}),
        ("create_app", {"timeout": 5.0, "db_path": None, "threshold": 0.5}),
    ],
    ids=["manager", "create_app"],
)
def test_one_deprecation_warning_per_call(face: str, keywords: dict[str, Any]) -> None:
    """The change promises the dropped keywords "still work with one DeprecationWarning
    naming where each lives now". Mixing an option keyword with a settings keyword (and
    db_path) gives one warning per group: two from the manager, three from create_app.
    Expected: exactly one warning naming every deprecated keyword."""
    seen = _recorded(lambda: _FACES[face](**keywords))
    assert len(seen) == 1, [str(w.message) for w in seen]
    for name in keywords:
        assert f"{name}=" in str(seen[0].message)


def test_docstrings_do_not_advertise_the_deprecated_keywords() -> None:
    """Module/class docs still show the old flat keywords as the way to call the faces:
    proxy._recall ("create_app(recall=True)"), proxy._budget
    ("create_app(memory_budget=...)") and strategies.MaskToolOutputs
    ("AutoCompactStore (``mask_tool_outputs=``)"); following them now gets a
    DeprecationWarning. Expected: they name options=ProxyOptions(...) / settings=."""
    from contextfold import strategies
    from contextfold.proxy import _budget, _recall

    assert "create_app(recall=True)" not in (_recall.__doc__ or "")
    assert "create_app(memory_budget=" not in (_budget.__doc__ or "")
    assert "(``mask_tool_outputs=``)" not in (strategies.MaskToolOutputs.__doc__ or "")


# -- attacks that found nothing --------------------------------------------------------


@pytest.mark.parametrize("name", ["summary_timeout", "prepare_threshold"])
def test_legacy_none_turns_a_feature_off_over_settings(name: str) -> None:
    """None means "off" (not "not given") for these legacy keywords, over settings."""
    on = CompactionSettings(summary_timeout=5.0, prepare_threshold=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert getattr(_store(settings=on, **{name: None}).settings, name) is None
        manager = CompactingContextManager(settings=on, **{name: None})
        assert getattr(manager.settings, name) is None
        app = create_app(settings=on, **{name: None})
        assert getattr(app.state.settings, name) is None
        masked = _store(settings=CompactionSettings(mask_tool_outputs=True), mask_tool_outputs=None)
    assert masked.settings.mask_tool_outputs is None


@pytest.mark.parametrize("face", list(_FACES))
def test_direct_call_warning_points_at_the_caller(face: str) -> None:
    keyword = {"AutoCompactStore": "target_ratio", "CompactingContextManager": "target_ratio"}
    seen = _recorded(lambda: _FACES[face](**{keyword.get(face, "threshold"): 0.4}))
    assert [w.filename for w in seen] == [__file__]


def test_manager_kept_tool_chars_default_with_legacy_and_settings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        flat = CompactingContextManager(max_tool_chars=500)
        given = CompactingContextManager(settings=CompactionSettings(), max_tool_chars=500)
    assert (flat.settings.kept_tool_chars, flat.settings.threshold) == (500, 0.8)
    assert (given.settings.kept_tool_chars, given.settings.threshold) == (2_000, 0.75)


def test_fork_keeps_settings_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        store = _store(summary_timeout=None, mask_tool_outputs=True, keep_recent=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        forked = asyncio.run(store.fork())
    assert forked.settings == store.settings


class _Host:
    session_id = "attack"
    hooks = None

    def mount(self, point: str, module: object, name: str | None = None) -> None:
        pass


def test_mount_aliases_build_the_flat_managers_settings() -> None:
    config = {"compact_threshold": 0.5, "target_usage": 0.3, "truncate_chars": 700}
    manager = asyncio.run(mount(_Host(), {**config, "transport": "none"}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        flat = CompactingContextManager(
            compaction_threshold=0.5, target_ratio=0.3, max_tool_chars=700, transport="none"
        )
    assert manager.settings == flat.settings


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    apps: list[Any] = []

    def fake(host: str, port: int, *, log_level: str, **kw: Any) -> None:
        kw.pop("header_timeout", None)
        kw.pop("body_timeout", None)
        apps.append(create_app(**kw))

    monkeypatch.setattr(proxy, "serve", fake)
    return apps


def test_serve_flags_reach_create_app(served: list[Any]) -> None:
    main(
        [
            "serve",
            "--port",
            str(_free_port()),
            "--summary-timeout",
            "off",
            "--prepare-threshold",
            "off",
            "--recall",
            "--secret-header",
            "x-gw-key",
            "--tenant-header",
            "x-user",
            "--threshold",
            "0.5",
        ]
    )
    (app,) = served
    settings, options = app.state.settings, app.state.options
    assert (settings.summary_timeout, settings.prepare_threshold, settings.threshold) == (
        None,
        None,
        0.5,
    )
    assert (options.recall, options.secret_headers, options.tenant_header) == (
        True,
        ("x-gw-key",),
        "x-user",
    )
