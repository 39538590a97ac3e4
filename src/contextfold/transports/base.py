"""The one seam to a model: :class:`CompletionTransport` and the data it speaks.

A transport exposes ``model`` (a :class:`ModelInfo`) and
``async complete(messages, tools, system) -> Completion``. Real transports also
offer ``stream(messages, tools, system)``: an async iterator of text deltas (``str``)
that ends with the full :class:`Completion`.

**Output cap.** ``complete`` (and ``stream``) may also take a keyword
``max_output_tokens: int | None = None``: when it is given, the reply is limited to
that many output tokens (the provider's ``max_tokens``), and a reply cut there ends
with ``stop_reason="max_tokens"``. Every transport of this library accepts it;
a transport of yours need not: :func:`complete_with_cap` (what compaction calls)
passes the cap only to a ``complete`` whose signature takes it (a parameter of that
name, or ``**kwargs``), and calls the others without it.

:class:`Usage` follows one rule everywhere: ``input_tokens`` is the **whole prompt**
of that request, cache reads and cache writes included. Compaction triggers on it.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, Protocol, runtime_checkable

from contextfold.blocks import ContentBlock, TextBlock, ToolUseBlock
from contextfold.messages import Message

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "MODEL_REGISTRY",
    "Completion",
    "CompletionTransport",
    "MeteredTransport",
    "ModelInfo",
    "StopReason",
    "StreamingTransport",
    "ToolSpec",
    "Usage",
    "accepts_output_cap",
    "check_output_cap",
    "complete_with_cap",
    "lookup_model",
    "model_of",
    "registry_entry",
]

StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn"]

DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_MAX_OUTPUT_TOKENS = 8_192


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """What compaction needs to know about a model: its window and its output limit."""

    name: str
    context_window: int = DEFAULT_CONTEXT_WINDOW
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS

    def __post_init__(self) -> None:
        for field_name in ("context_window", "max_output_tokens"):
            value = getattr(self, field_name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"{field_name} must be a positive int, got {value!r}")
        if self.max_output_tokens >= self.context_window:
            raise ValueError(
                f"max_output_tokens ({self.max_output_tokens}) must be smaller than "
                f"context_window ({self.context_window})"
            )

    @property
    def input_budget(self) -> int:
        """The most prompt tokens a request may carry and still leave room for a full reply."""
        return self.context_window - self.max_output_tokens


def model_of(transport: object) -> ModelInfo:
    """``transport.model`` as a :class:`ModelInfo`, read by duck typing; never raises.

    A transport without ``model``, a model whose attributes are missing, raise, or are
    not positive ints, or whose output limit is not below its window, gets the
    defaults (128,000 / 8,192) for what it lacks, so compaction works with any object
    that can ``complete``.
    """
    try:
        model = getattr(transport, "model", None)
        if isinstance(model, ModelInfo):
            return model
        name = getattr(model, "name", None)
        window = getattr(model, "context_window", None)
        output = getattr(model, "max_output_tokens", None)
    except Exception:  # a property that raises is a model we cannot read
        return ModelInfo("unknown")
    size = window if isinstance(window, int) and _positive_int(window) and window >= 2 else 0
    size = size or DEFAULT_CONTEXT_WINDOW
    limit = output if isinstance(output, int) and _positive_int(output) else 0
    if not 0 < limit < size:
        limit = min(DEFAULT_MAX_OUTPUT_TOKENS, max(size // 4, 1))
    return ModelInfo(name if isinstance(name, str) else "unknown", size, limit)


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage of one model call.

    ``input_tokens`` is the whole prompt (cache reads and writes included);
    ``cache_read_tokens`` and ``cache_write_tokens`` say how much of it the cache
    served or stored. ``estimated`` is true when the provider reported nothing and
    the numbers are a local estimate.
    """

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    estimated: bool = False

    def __post_init__(self) -> None:
        for name in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"Usage.{name} must be a non-negative int, got {value!r}")
        if self.cache_read_tokens + self.cache_write_tokens > self.input_tokens:
            raise ValueError(
                "Usage.input_tokens is the whole prompt and must include cache reads and "
                f"writes: {self.input_tokens} < {self.cache_read_tokens} + "
                f"{self.cache_write_tokens}"
            )

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.estimated or other.estimated,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class Completion:
    """A model's reply: its content blocks, why it stopped, what it cost."""

    content: list[ContentBlock]
    stop_reason: StopReason
    usage: Usage
    model: str = ""

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def to_message(self) -> Message:
        """The assistant message that records this reply in a history."""
        return Message("assistant", list(self.content))


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as a model sees it: a name, a description and a JSON schema of its input."""

    name: str
    description: str
    input_schema: dict[str, Any]


@runtime_checkable
class CompletionTransport(Protocol):
    """Anything that can answer a conversation. Implement it to plug in a provider.

    ``complete`` may also take the keyword ``max_output_tokens`` (see the module
    docstring); it is optional so that existing transports keep working.
    """

    @property
    def model(self) -> ModelInfo: ...

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
    ) -> Completion: ...


@runtime_checkable
class StreamingTransport(CompletionTransport, Protocol):
    """A transport that can also stream: text deltas, then the full :class:`Completion`."""

    def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
    ) -> AsyncIterator[str | Completion]: ...


def check_output_cap(max_output_tokens: object) -> None:
    """Raise :class:`ValueError` unless ``max_output_tokens`` is a positive int."""
    if (
        not isinstance(max_output_tokens, int)
        or isinstance(max_output_tokens, bool)
        or max_output_tokens <= 0
    ):
        raise ValueError(f"max_output_tokens must be a positive int, got {max_output_tokens!r}")


def accepts_output_cap(transport: object) -> bool:
    """Whether ``transport.complete`` takes the ``max_output_tokens`` keyword.

    True for a parameter of that name (not positional-only) or a ``**kwargs``. The
    signature is read once per function and cached.
    """
    complete = getattr(transport, "complete", None)
    if complete is None:
        return False
    function = getattr(complete, "__func__", complete)
    try:
        return _takes_cap(function)
    except TypeError:  # an unhashable callable object: inspect it every time
        return _takes_cap.__wrapped__(function)


@lru_cache(maxsize=256)
def _takes_cap(function: Callable[..., object]) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a builtin or an object without a signature
        return False
    return any(
        p.kind is p.VAR_KEYWORD
        or (p.name == "max_output_tokens" and p.kind is not p.POSITIONAL_ONLY)
        for p in parameters
    )


async def complete_with_cap(
    transport: CompletionTransport,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] = (),
    system: str | None = None,
    *,
    max_output_tokens: int | None = None,
) -> Completion:
    """``transport.complete(...)``, passing ``max_output_tokens`` when it accepts it.

    A transport whose ``complete`` does not take the keyword is called without it:
    its reply is then bounded only by its own limit, so a caller that needs a bound
    must also check the reply (compaction counts the summary's tokens).
    """
    if max_output_tokens is not None and accepts_output_cap(transport):
        complete: Callable[..., Any] = transport.complete
        result: Completion = await complete(
            messages, tools, system, max_output_tokens=max_output_tokens
        )
        return result
    return await transport.complete(messages, tools, system)


class MeteredTransport:
    """``inner``, counting its requests and their usage (``requests``, ``usage``) and
    telling ``on_completion`` of each one: how the demo, ``contextfold compact`` and the
    benchmarks keep the agent's or the summarizer's costs apart. Every call goes through
    :func:`complete_with_cap`, so an output cap reaches ``inner`` when it takes one."""

    def __init__(
        self,
        inner: CompletionTransport,
        on_completion: Callable[[Completion], None] | None = None,
    ) -> None:
        self.inner = inner
        self.on_completion = on_completion
        self.usage = Usage(0, 0)
        self.requests = 0

    @property
    def model(self) -> ModelInfo:
        return self.inner.model

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
        *,
        max_output_tokens: int | None = None,
    ) -> Completion:
        completion = await complete_with_cap(
            self.inner, messages, tools, system, max_output_tokens=max_output_tokens
        )
        self.usage = self.usage + completion.usage
        self.requests += 1
        if self.on_completion is not None:
            self.on_completion(completion)
        return completion


# Context windows and output limits of current model families, matched by prefix
# (longest prefix wins) so dated snapshots such as "claude-sonnet-4-5-20250929" resolve.
# Each entry names where its numbers were read (checked 2026-11). "unverified": kept
# from earlier releases, no current source found. A name missing here falls back to
# 128,000 / 8,192; a newer model whose name extends a listed one (claude-opus-4-7 ->
# claude-opus-4) inherits that entry's numbers until it is listed. Operators set any
# model's numbers with `contextfold serve --config` (docs/proxy-operations.md).
MODEL_REGISTRY: dict[str, ModelInfo] = {
    info.name: info
    for info in (
        # Anthropic: the model's page (the comment), unless noted, under
        # https://platform.claude.com/docs/en/models/PAGE/overview
        ModelInfo("claude-opus-5-5", 1_000_000, 128_000),  # opus-5-5 (lineup table)
        ModelInfo("claude-opus-5", 1_000_000, 128_000),  # opus-5
        ModelInfo("claude-sonnet-5-5", 1_000_000, 128_000),  # sonnet-5-5 (lineup table)
        ModelInfo("claude-sonnet-5", 1_000_000, 128_000),  # sonnet-5
        ModelInfo("claude-opus-4-8", 1_000_000, 128_000),  # opus-4-8
        ModelInfo("claude-opus-4-6", 1_000_000, 128_000),  # opus-4-6
        ModelInfo("claude-sonnet-4-6", 1_000_000, 128_000),  # sonnet-4-6
        ModelInfo("claude-opus-4-5", 200_000, 64_000),  # opus-4-5
        ModelInfo("claude-sonnet-4-5", 200_000, 64_000),  # sonnet-4-5 (1M only in beta)
        ModelInfo("claude-haiku-4-5", 200_000, 64_000),  # haiku-4-5
        # Claude 4.1, 4 and 3.7: docs.rs/mixtape-core, src/mixtape_core/models/claude.rs
        ModelInfo("claude-opus-4-1", 200_000, 32_000),
        ModelInfo("claude-opus-4", 200_000, 32_000),
        ModelInfo("claude-sonnet-4", 200_000, 64_000),
        ModelInfo("claude-3-7-sonnet", 200_000, 64_000),
        ModelInfo("claude-3-5-sonnet", 200_000, 8_192),  # unverified
        # output: github.com/xsyetopz/claudetto/wiki/Claude-Code-Models-Catalog; window unverified
        ModelInfo("claude-3-5-haiku", 200_000, 8_192),
        ModelInfo("claude-3-haiku", 200_000, 4_096),  # unverified
        # OpenAI
        # https://developers.openai.com/api/docs/models/gpt-5.6-luna (Sol, Terra and Luna
        # alike: https://vercel.com/ai-gateway/models/gpt-5.6-terra.md); the Agents SDK's
        # default model is gpt-5.6-luna
        ModelInfo("gpt-5.6", 1_050_000, 128_000),
        # https://vercel.com/ai-gateway/models/openai/gpt-5.5.md
        ModelInfo("gpt-5.5", 1_000_000, 272_000),
        # https://wavespeed.ai/zh-CN/llm/openai/gpt-5.4 (922K input + 128K output)
        ModelInfo("gpt-5.4", 1_050_000, 128_000),
        # https://vercel.com/ai-gateway/models/openai/gpt-5.4-mini-fast.md
        ModelInfo("gpt-5.4-mini", 400_000, 128_000),
        # window: https://vercel.com/ai-gateway/models/gpt-5.4-nano/faq; output unverified
        ModelInfo("gpt-5.4-nano", 400_000, 128_000),
        # https://vercel.com/ai-gateway/models/openai/gpt-5.2-fast.md
        ModelInfo("gpt-5.2", 400_000, 128_000),
        # https://developers.openai.com/api/docs/models/gpt-5.1
        ModelInfo("gpt-5.1", 400_000, 128_000),
        # chat variants: github.com/labring/fastgpt-plugin/pull/297
        ModelInfo("gpt-5.1-chat", 128_000, 16_000),
        ModelInfo("gpt-5-chat", 128_000, 16_000),
        # https://vercel.com/ai-gateway/models/gpt-5-fast.md, gpt-5-mini-fast.md, gpt-5-nano.md
        ModelInfo("gpt-5", 400_000, 128_000),
        ModelInfo("gpt-5-mini", 400_000, 128_000),
        ModelInfo("gpt-5-nano", 400_000, 128_000),
        # https://api.koog.ai/ (OpenAIModels.Chat.GPT5Pro, quoting OpenAI's model page)
        ModelInfo("gpt-5-pro", 400_000, 272_000),
        # https://vercel.com/ai-gateway/models/gpt-4.1-fast.md (and -mini-fast, -nano-fast)
        ModelInfo("gpt-4.1", 1_047_576, 32_768),
        ModelInfo("gpt-4.1-mini", 1_047_576, 32_768),
        ModelInfo("gpt-4.1-nano", 1_047_576, 32_768),
        # https://docs.uipath.com/autopilot/other/latest/user-guide/supported-models-and-limits
        ModelInfo("gpt-4o", 128_000, 16_384),
        ModelInfo("gpt-4o-mini", 128_000, 16_384),  # unverified
        ModelInfo("o1", 200_000, 100_000),  # unverified
        ModelInfo("o1-mini", 128_000, 65_536),  # unverified
        # github.com/RooCodeInc/Roo-Code/pull/2691 (from platform.openai.com/docs/models/o3)
        ModelInfo("o3", 200_000, 100_000),
        # window: https://vercel.com/ai-gateway/models/o3-mini/faq; output unverified
        ModelInfo("o3-mini", 200_000, 100_000),
        # https://vercel.com/ai-gateway/models/o4-mini.md
        ModelInfo("o4-mini", 200_000, 100_000),
    )
}


def registry_entry(name: str) -> str | None:
    """The :data:`MODEL_REGISTRY` name that ``name`` resolves to (itself, or the longest
    listed name it extends with ``-``), or ``None`` when the registry does not know it."""
    return max(
        (key for key in MODEL_REGISTRY if name == key or name.startswith(key + "-")),
        key=len,
        default=None,
    )


def lookup_model(
    name: str,
    *,
    context_window: int | None = None,
    max_output_tokens: int | None = None,
) -> ModelInfo:
    """The :class:`ModelInfo` for ``name``.

    Known names (and their dated snapshots) come from :data:`MODEL_REGISTRY`; unknown
    names fall back to 128,000 / 8,192. Either number can be overridden. When only
    ``context_window`` is overridden and the inherited output limit does not fit in
    it (a small local deployment), the output limit becomes half the window.
    """
    known = registry_entry(name)
    base = MODEL_REGISTRY[known] if known else ModelInfo(name)
    window = context_window if context_window is not None else base.context_window
    if max_output_tokens is None:
        max_output_tokens = base.max_output_tokens
        if isinstance(context_window, int) and max_output_tokens >= context_window:
            max_output_tokens = max(1, window // 2)
    return ModelInfo(name, window, max_output_tokens)
