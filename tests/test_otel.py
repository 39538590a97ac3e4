"""Optional OpenTelemetry spans: a compaction and its summarizer calls, GenAI conventions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from contextfold import AutoCompactStore, MemoryContextStore, _otel
from contextfold.compaction import CompactionSettings
from contextfold.testing import StubTransport
from tests.compaction.test_compaction import WINDOW, alternating, summarizer

_EXPORTER = InMemorySpanExporter()


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    # The global provider can be set once per process; later tests reuse it.
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        trace.set_tracer_provider(provider)
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()


async def test_a_compaction_and_its_summarizer_call_are_spans(
    spans: InMemorySpanExporter,
) -> None:
    store = AutoCompactStore(
        MemoryContextStore(alternating(30)),
        StubTransport(model=WINDOW),
        keep_recent=4,
        summary_transport=summarizer(),
        settings=CompactionSettings(prepare_threshold=None),
    )
    await store.add_context_tokens(3_500, 10)
    assert store.compactions == 1
    finished = {s.name: s for s in spans.get_finished_spans()}
    compaction = finished["contextfold.compaction"]
    chat = next(s for name, s in finished.items() if name.startswith("chat "))
    assert chat.parent is not None
    assert chat.parent.span_id == compaction.context.span_id  # the call inside the attempt
    assert chat.attributes is not None
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.usage.input_tokens"] > 0
    assert chat.attributes["gen_ai.request.max_tokens"] > 0
    assert compaction.attributes is not None
    assert compaction.attributes["contextfold.compaction.outcome"] == "compacted"
    assert compaction.attributes["contextfold.compaction.trigger"] == "usage"
    assert compaction.attributes["contextfold.session.id"] == store.session_id
    texts = [str(v) for s in spans.get_finished_spans() for v in (s.attributes or {}).values()]
    assert not any("q1 " in t for t in texts)  # no message text in any span


async def test_without_opentelemetry_nothing_is_recorded(
    spans: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_otel, "_trace", None)
    store = AutoCompactStore(
        MemoryContextStore(alternating(30)),
        StubTransport(model=WINDOW),
        keep_recent=4,
        summary_transport=summarizer(),
        settings=CompactionSettings(prepare_threshold=None),
    )
    await store.add_context_tokens(3_500, 10)
    assert store.compactions == 1
    assert spans.get_finished_spans() == ()
