"""Optional OpenTelemetry spans for compactions and summarizer calls (extra ``otel``).

With ``opentelemetry-api`` installed, every compaction attempt of
:class:`~contextfold.compaction.AutoCompactStore` is a span ``contextfold.compaction``
and every summarizer request a child span ``chat {model}`` following the OpenTelemetry
GenAI semantic conventions (``gen_ai.operation.name``, ``gen_ai.request.model``,
``gen_ai.request.max_tokens``, ``gen_ai.usage.input_tokens``,
``gen_ai.usage.output_tokens``, ``gen_ai.response.finish_reasons``). Spans go to the
tracer provider the application configured; without the package, or without a
provider, nothing is recorded and nothing is paid beyond a function call. No span
carries message text or credentials.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_trace: Any
try:  # the optional `otel` extra
    import opentelemetry.trace

    _trace = opentelemetry.trace
except ImportError:  # without it every span is a no-op
    _trace = None

__all__ = ["compaction_span", "summarizer_span"]

_SCOPE = "contextfold"
Attributes = dict[str, str | int | float | bool | list[str]]


@contextmanager
def _span(name: str, attributes: Attributes) -> Iterator[Any]:
    if _trace is None:
        yield None
        return
    tracer = _trace.get_tracer(_SCOPE)
    with tracer.start_as_current_span(name, attributes=attributes) as span:
        yield span


@contextmanager
def compaction_span(
    session_id: str, trigger: str, tokens: int
) -> Iterator[Callable[[Attributes], None]]:
    """A span around one compaction attempt; call the yielded function with what the
    attempt ended with (outcome, counts) before the block ends."""
    with _span(
        "contextfold.compaction",
        {
            "contextfold.session.id": session_id,
            "contextfold.compaction.trigger": trigger,
            "contextfold.compaction.tokens_before": tokens,
        },
    ) as span:

        def record(attributes: Attributes) -> None:
            if span is not None:
                span.set_attributes(attributes)

        yield record


@contextmanager
def summarizer_span(
    provider: str, model: str, max_tokens: int | None
) -> Iterator[Callable[[int, int, str], None]]:
    """A GenAI ``chat`` span around one summarizer request; call the yielded function
    with the usage and the stop reason when it answered."""
    attributes: Attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider,
        "gen_ai.request.model": model,
        "contextfold.role": "summarizer",
    }
    if max_tokens is not None:
        attributes["gen_ai.request.max_tokens"] = max_tokens
    with _span(f"chat {model}", attributes) as span:

        def record(input_tokens: int, output_tokens: int, stop_reason: str) -> None:
            if span is not None:
                span.set_attributes(
                    {
                        "gen_ai.usage.input_tokens": input_tokens,
                        "gen_ai.usage.output_tokens": output_tokens,
                        "gen_ai.response.finish_reasons": [stop_reason],
                    }
                )

        yield record
