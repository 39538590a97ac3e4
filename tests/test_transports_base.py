"""Transport data types: ModelInfo and Usage validation, Completion helpers, the model registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextfold import (
    Completion,
    CompletionTransport,
    Message,
    ModelInfo,
    StreamingTransport,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
    lookup_model,
)
from contextfold.testing import StubTransport
from contextfold.transports import base
from contextfold.transports.base import (
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_MAX_OUTPUT_TOKENS,
    MODEL_REGISTRY,
)

# ModelInfo


def test_model_info_defaults_and_input_budget() -> None:
    info = ModelInfo("my-model")
    assert (info.context_window, info.max_output_tokens) == (128_000, 8_192)
    assert info.input_budget == 128_000 - 8_192


@pytest.mark.parametrize(
    ("window", "output", "problem"),
    [
        (0, 100, "context_window must be a positive int, got 0"),
        (-5, 100, "context_window must be a positive int, got -5"),
        (1000, 0, "max_output_tokens must be a positive int, got 0"),
        (1000, 1000, "max_output_tokens (1000) must be smaller than context_window (1000)"),
        (1000, 2000, "max_output_tokens (2000) must be smaller than context_window (1000)"),
        ("200k", 100, "context_window must be a positive int, got '200k'"),
        (1000.0, 100, "context_window must be a positive int, got 1000.0"),
        (True, 100, "context_window must be a positive int, got True"),
    ],
)
def test_model_info_rejects_impossible_sizes(window: object, output: object, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        ModelInfo("m", window, output)  # type: ignore[arg-type]


# Usage


def test_usage_input_tokens_include_cache() -> None:
    usage = Usage(
        input_tokens=10_000, output_tokens=50, cache_read_tokens=8_000, cache_write_tokens=1_500
    )
    assert usage.total_tokens == 10_050
    assert not usage.estimated


def test_usage_that_excludes_cache_from_input_is_rejected() -> None:
    # Anthropic reports input_tokens without cache; a transport must add it back.
    with pytest.raises(
        ValueError, match="must include cache reads and writes: 500 < 8000 \\+ 1500"
    ):
        Usage(input_tokens=500, output_tokens=50, cache_read_tokens=8_000, cache_write_tokens=1_500)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"input_tokens": -1, "output_tokens": 0},
        {"input_tokens": 1, "output_tokens": -1},
        {"input_tokens": 1.5, "output_tokens": 0},
        {"input_tokens": True, "output_tokens": 0},
        {"input_tokens": 10, "output_tokens": 0, "cache_read_tokens": -1},
        {"input_tokens": "10", "output_tokens": 0},
    ],
)
def test_usage_counts_are_non_negative_ints(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="must be a non-negative int"):
        Usage(**kwargs)  # type: ignore[arg-type]


def test_usages_add_up() -> None:
    total = Usage(100, 10, 60, 0) + Usage(200, 20, 0, 50, estimated=True)
    assert total == Usage(300, 30, 60, 50, estimated=True)


# Completion


def test_completion_helpers() -> None:
    use = ToolUseBlock("t1", "grep", {"q": "x"})
    completion = Completion(
        [ThinkingBlock("plan"), TextBlock("Let me "), TextBlock("look."), use],
        "tool_use",
        Usage(10, 5),
        "stub-model",
    )
    assert completion.text == "Let me look."
    assert completion.tool_uses == [use]
    message = completion.to_message()
    assert message == Message("assistant", completion.content)
    message.content.clear()
    assert len(completion.content) == 4


# Protocols


def test_stub_transport_satisfies_both_protocols() -> None:
    stub = StubTransport([])
    assert isinstance(stub, CompletionTransport)
    assert isinstance(stub, StreamingTransport)


def test_an_object_without_complete_is_not_a_transport() -> None:
    class NotATransport:
        model = ModelInfo("x")

    assert not isinstance(NotATransport(), CompletionTransport)


# lookup_model


@pytest.mark.parametrize(
    ("name", "window", "output"),
    [
        ("claude-sonnet-4-5", 200_000, 64_000),
        ("claude-sonnet-4-5-20250929", 200_000, 64_000),
        ("claude-opus-4-1-20250805", 200_000, 32_000),
        ("claude-opus-4-20250514", 200_000, 32_000),
        ("claude-3-5-haiku-20241022", 200_000, 8_192),
        ("gpt-4o", 128_000, 16_384),
        ("gpt-4o-2024-08-06", 128_000, 16_384),
        ("gpt-4o-mini-2024-07-18", 128_000, 16_384),
        ("gpt-4.1-mini-2025-04-14", 1_047_576, 32_768),
        ("o1-mini", 128_000, 65_536),
        ("o1-2024-12-17", 200_000, 100_000),
        ("o3-mini-2025-01-31", 200_000, 100_000),
    ],
)
def test_known_models_and_dated_snapshots_resolve(name: str, window: int, output: int) -> None:
    info = lookup_model(name)
    assert (info.name, info.context_window, info.max_output_tokens) == (name, window, output)


def test_longest_prefix_wins() -> None:
    assert lookup_model("claude-opus-4-1-20250805").max_output_tokens == 32_000
    assert lookup_model("claude-opus-4-5-20251101").max_output_tokens == 64_000


@pytest.mark.parametrize("name", ["llama-3.1-8b", "gpt-4o2", "claude-sonnet", "o3x", ""])
def test_unknown_models_fall_back(name: str) -> None:
    info = lookup_model(name)
    assert (info.context_window, info.max_output_tokens) == (128_000, 8_192)
    assert (DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT_TOKENS) == (128_000, 8_192)


def test_a_prefix_match_needs_a_dash_boundary() -> None:
    # "o3x" must not inherit o3's window just because it starts with "o3".
    assert lookup_model("o3x").context_window == DEFAULT_CONTEXT_WINDOW
    assert "o3" in MODEL_REGISTRY


def test_overrides_win() -> None:
    info = lookup_model("gpt-4o", context_window=64_000, max_output_tokens=4_000)
    assert (info.context_window, info.max_output_tokens) == (64_000, 4_000)
    assert lookup_model("llama-3", max_output_tokens=2_048).context_window == 128_000


def test_overriding_a_small_window_shrinks_the_inherited_output_limit() -> None:
    # A local server started with a 4k context: the 8,192 default output cannot fit.
    info = lookup_model("llama-3.2-3b", context_window=4_096)
    assert (info.context_window, info.max_output_tokens) == (4_096, 2_048)
    assert lookup_model("claude-sonnet-4-5", context_window=50_000).max_output_tokens == 25_000


def test_an_explicit_impossible_override_is_still_an_error() -> None:
    with pytest.raises(ValueError, match="must be smaller than context_window"):
        lookup_model("llama", context_window=4_096, max_output_tokens=8_192)


def test_registry_entries_are_consistent() -> None:
    for key, info in MODEL_REGISTRY.items():
        assert key == info.name
        assert info.input_budget > 0


@pytest.mark.parametrize(
    ("name", "window", "output"),
    [
        # newer names that used to inherit an older entry's numbers (or the fallback)
        ("claude-opus-4-6", 1_000_000, 128_000),
        ("claude-sonnet-4-6", 1_000_000, 128_000),
        ("claude-opus-4-8", 1_000_000, 128_000),
        ("claude-opus-5-5", 1_000_000, 128_000),
        ("claude-sonnet-5", 1_000_000, 128_000),
        ("claude-haiku-4-5-20251001", 200_000, 64_000),
        ("gpt-5.1", 400_000, 128_000),
        ("gpt-5.1-2025-11-13", 400_000, 128_000),
        ("gpt-5.1-chat-latest", 128_000, 16_000),
        ("gpt-5-chat-latest", 128_000, 16_000),
        ("gpt-5.2", 400_000, 128_000),
        ("gpt-5.4", 1_050_000, 128_000),
        ("gpt-5.4-nano", 400_000, 128_000),  # not gpt-5.4's 1M window
        ("gpt-5.5", 1_000_000, 272_000),
        ("gpt-5-pro", 400_000, 272_000),
        ("gpt-5-mini-2025-08-07", 400_000, 128_000),
        ("o4-mini-2025-04-16", 200_000, 100_000),
    ],
)
def test_current_models_resolve(name: str, window: int, output: int) -> None:
    info = lookup_model(name)
    assert (info.context_window, info.max_output_tokens) == (window, output)


def test_every_registry_entry_names_its_source() -> None:
    """Each entry carries a comment (its source, or "unverified"), or sits in a group
    under one."""
    source = Path(base.__file__).read_text().splitlines()
    start = next(i for i, line in enumerate(source) if line.startswith("MODEL_REGISTRY"))
    entries = [i for i in range(start, len(source)) if 'ModelInfo("' in source[i]]
    assert len(entries) == len(MODEL_REGISTRY)
    for i in entries:
        j = i
        while "#" not in source[j] and 'ModelInfo("' in source[j]:
            j -= 1
        assert source[j].strip().startswith(("#", "ModelInfo(")), source[i]
        assert "#" in source[j], f"no source for {source[i].strip()}"


# The optional output cap of ``complete`` (issue 13, item 2)


class _Recorder:
    """Transports of every shape a user may have written: which keywords reach them."""

    model = ModelInfo("m", 8_000, 1_000)

    def __init__(self) -> None:
        self.calls: list[dict[str, object]] = []

    def _reply(self, **seen: object) -> Completion:
        self.calls.append(seen)
        return Completion([TextBlock("ok")], "end_turn", Usage(1, 1))


class _Old(_Recorder):
    async def complete(self, messages, tools=(), system=None):  # type: ignore[no-untyped-def]
        return self._reply()


class _Capped(_Recorder):
    async def complete(self, messages, tools=(), system=None, *, max_output_tokens=None):  # type: ignore[no-untyped-def]
        return self._reply(max_output_tokens=max_output_tokens)


class _Kwargs(_Recorder):
    async def complete(self, messages, tools=(), system=None, **options):  # type: ignore[no-untyped-def]
        return self._reply(**options)


class _PositionalOnly(_Recorder):
    async def complete(self, messages, tools=(), system=None, max_output_tokens=None, /):  # type: ignore[no-untyped-def]
        return self._reply(positional=max_output_tokens)


@pytest.mark.parametrize(
    ("cls", "accepts", "seen"),
    [
        (_Old, False, {}),
        (_Capped, True, {"max_output_tokens": 99}),
        (_Kwargs, True, {"max_output_tokens": 99}),
        (_PositionalOnly, False, {"positional": None}),
    ],
)
async def test_complete_with_cap_passes_the_cap_only_where_it_is_accepted(
    cls: type[_Recorder], accepts: bool, seen: dict[str, object]
) -> None:
    from contextfold.transports.base import accepts_output_cap, complete_with_cap

    transport = cls()
    assert accepts_output_cap(transport) is accepts
    completion = await complete_with_cap(transport, [Message.user("hi")], max_output_tokens=99)  # type: ignore[arg-type]
    assert completion.text == "ok"
    assert transport.calls == [seen]


async def test_complete_with_cap_without_a_cap_calls_plainly() -> None:
    from contextfold.transports.base import complete_with_cap

    transport = _Capped()
    await complete_with_cap(transport, [Message.user("hi")])  # type: ignore[arg-type]
    assert transport.calls == [{"max_output_tokens": None}]


def test_a_callable_object_or_a_missing_complete_is_handled() -> None:
    class Callable_:
        __hash__ = None  # type: ignore[assignment]

        def __call__(self, messages: object, *, max_output_tokens: int | None = None) -> None: ...

    from contextfold.transports.base import accepts_output_cap

    holder = type("Holder", (), {})()
    holder.complete = Callable_()
    assert accepts_output_cap(holder) is True
    assert accepts_output_cap(object()) is False
    assert accepts_output_cap(StubTransport()) is True


async def test_metered_transport_counts_usage_and_passes_the_cap_on() -> None:
    from contextfold.testing import StubTransport, make_text_response
    from contextfold.transports.base import MeteredTransport, Usage

    inner = StubTransport([make_text_response("one"), make_text_response("two")])
    seen: list[object] = []
    metered = MeteredTransport(inner, seen.append)
    assert metered.model is inner.model
    await metered.complete([Message.user("hi")], max_output_tokens=50)
    await metered.complete([Message.user("again")])
    assert metered.requests == 2 == len(seen)
    assert [c.text for c in seen] == ["one", "two"]  # type: ignore[attr-defined]
    assert metered.usage == sum((c.usage for c in seen), Usage(0, 0))  # type: ignore[attr-defined]
    assert inner.requests[0].max_output_tokens == 50
