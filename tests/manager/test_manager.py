"""CompactingContextManager and mount: non-destructive views, budgets, cached summaries, events."""

from __future__ import annotations

import asyncio
import base64
import importlib.metadata
import re
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold.formats import from_openai, to_openai
from contextfold.manager import (
    CompactingContextManager,
    ContextManager,
    ManagerOptions,
    manager_settings,
    mount,
)
from contextfold.messages import Message
from contextfold.strategies import TrimRounds
from contextfold.testing import (
    FunctionTransport,
    StubRequest,
    StubResponse,
    StubTransport,
    make_text_response,
    make_unavailable_error,
)
from contextfold.tokens import count_tokens
from contextfold.transports.base import ModelInfo
from contextfold.validation import validate_history
from tests._faces import manager_arguments
from tests._histories import histories

SUMMARY = "## User requests and intent\nThe user ran many steps.\n## Current state\nStep work."
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16).decode()

Wire = dict[str, Any]


def tool_round(i: int, output: str = "ok " * 100) -> list[Wire]:
    """An assistant tool call, its result, a reply and the user's next prompt."""
    call = {"id": f"call_{i}", "type": "function", "function": {"name": "run", "arguments": "{}"}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"call_{i}", "content": f"result {i}: {output}"},
        {"role": "assistant", "content": f"finished step {i}"},
        {"role": "user", "content": f"now do step {i + 1} " + "x" * 200},
    ]


def conversation(rounds: int, *, first: int = 0) -> list[Wire]:
    head: list[Wire] = (
        []
        if first
        else [
            {"role": "system", "content": "You are a careful agent."},
            {"role": "user", "content": "Please work through the steps."},
        ]
    )
    return head + [m for i in range(first, first + rounds) for m in tool_round(i)]


def summarizer(text: str = SUMMARY) -> FunctionTransport:
    return FunctionTransport(lambda request: make_text_response(text))


async def filled(manager: CompactingContextManager, wires: list[Wire]) -> CompactingContextManager:
    for wire in wires:
        await manager.add_message(wire)
    return manager


def tokens_of(view: list[Wire]) -> int:
    return count_tokens(from_openai(view))


def system_texts(wires: list[Wire]) -> list[str]:
    return [w["content"] for w in wires if w["role"] == "system"]


class Recorder:
    """A hooks object recording every event (sync ``emit``)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def emit(self, event: str, data: dict[str, Any]) -> None:
        self.events.append((event, data))

    def named(self, name: str) -> list[dict[str, Any]]:
        return [data for event, data in self.events if event == name]


class AsyncRecorder(Recorder):
    async def emit(self, event: str, data: dict[str, Any]) -> None:  # type: ignore[override]
        await asyncio.sleep(0)
        self.events.append((event, data))


# --- the view is non-destructive ---------------------------------------------------------


async def test_under_the_threshold_the_view_is_the_whole_history() -> None:
    hooks = Recorder()
    transport = summarizer()
    history = conversation(3)
    manager = await filled(CompactingContextManager(transport=transport, hooks=hooks), history)
    assert await manager.get_messages_for_request() == history
    assert await manager.get_messages() == history
    assert transport.requests == []
    assert hooks.events == []


async def test_compacted_view_leaves_the_stored_history_complete() -> None:
    transport = summarizer()
    history = conversation(30)
    manager = await filled(CompactingContextManager(max_tokens=3_000, transport=transport), history)

    view = await manager.get_messages_for_request()

    assert len(view) < len(history)
    assert any(SUMMARY in str(w["content"]) for w in view)
    assert tokens_of(view) <= 0.8 * 3_000
    assert await manager.get_messages() == history
    view[0]["content"] = "changed by the caller"
    view.clear()
    assert await manager.get_messages() == history


async def test_returned_and_stored_dicts_are_copies() -> None:
    message: Wire = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    manager = CompactingContextManager()
    await manager.add_message(message)
    message["content"][0]["text"] = "mutated after adding"
    got = await manager.get_messages()
    assert got[0]["content"][0]["text"] == "hi"
    got[0]["content"][0]["text"] = "mutated the copy"
    assert (await manager.get_messages_for_request())[0]["content"][0]["text"] == "hi"


async def test_kept_messages_are_the_callers_original_dicts() -> None:
    history = conversation(30)
    history[-1] = {**history[-1], "name": "alice"}  # a field formats would not keep
    manager = await filled(
        CompactingContextManager(max_tokens=3_000, transport=summarizer()), history
    )
    view = await manager.get_messages_for_request()
    assert view[-1] == history[-1]
    assert view[-1]["name"] == "alice"


# --- valid views: tool pairs and system messages --------------------------------------------


def rich_history() -> list[Wire]:
    """System messages early and mid-way, parallel calls, a tool image, a pending call."""
    history = conversation(12)
    history.insert(20, {"role": "system", "content": "Mid-session note: stay in /src."})
    calls = [
        {"id": f"par_{k}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        for k in range(2)
    ]
    image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
    history += [
        {"role": "assistant", "content": "reading two files", "tool_calls": calls},
        {"role": "tool", "tool_call_id": "par_0", "content": "file zero " + "z" * 300},
        {"role": "tool", "tool_call_id": "par_1", "content": [{"type": "text", "text": "one"}]},
        {
            "role": "user",
            "content": [{"type": "text", "text": "[images returned by tool call par_1]"}, image],
        },
        {"role": "assistant", "content": "both read"},
        {"role": "user", "content": "one more step"},
    ]
    history += tool_round(50)[:1]  # the model's latest call, not answered yet
    return history


@pytest.mark.parametrize("with_transport", [True, False], ids=["summary", "strategies"])
async def test_view_is_a_valid_history_that_keeps_every_system_message(
    with_transport: bool,
) -> None:
    history = rich_history()
    manager = await filled(
        CompactingContextManager(
            max_tokens=2_500, transport=summarizer() if with_transport else None, keep_recent=4
        ),
        history,
    )
    view = await manager.get_messages_for_request()
    assert len(view) < len(history)
    validate_history(from_openai(view), allow_pending=True)
    assert sorted(system_texts(view)) == sorted(system_texts(history))
    assert view[-1] == history[-1]  # the pending call stays at the end
    assert await manager.get_messages() == history


async def test_a_kept_tool_group_is_returned_as_its_original_dicts() -> None:
    history = rich_history()[:-1]
    manager = await filled(
        CompactingContextManager(max_tokens=3_000, transport=summarizer(), keep_recent=6), history
    )
    view = await manager.get_messages_for_request()
    start = next(i for i, w in enumerate(view) if w.get("content") == "reading two files")
    assert view[start : start + 6] == history[-6:]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories(max_turns=20), st.integers(60, 600), st.booleans())
async def test_any_valid_history_gets_a_valid_view_with_every_system_message(
    history: list[Message], budget: int, with_transport: bool
) -> None:
    wires = to_openai(history)
    manager = await filled(
        CompactingContextManager(
            transport=summarizer() if with_transport else None,
            keep_recent=3,
            settings=manager_settings(max_tool_chars=200),
        ),
        wires,
    )
    view = await manager.get_messages_for_request(token_budget=budget)
    validate_history(from_openai(view), allow_pending=True)
    assert sorted(system_texts(view)) == sorted(system_texts(wires))
    assert await manager.get_messages() == wires


# --- budgets -----------------------------------------------------------------------------


def limits_object() -> SimpleNamespace:
    return SimpleNamespace(context_window=10_000, max_output_tokens=2_000)


def limits_dict() -> dict[str, int]:
    return {"context_window": 10_000, "max_output_tokens": 2_000}


class SyncModelInfo:
    def get_model_info(self) -> SimpleNamespace:
        return limits_object()


class AsyncModelInfoDict:
    async def get_model_info(self) -> dict[str, int]:
        return limits_dict()


class SyncInfoDefaultsDict:
    def get_info(self) -> SimpleNamespace:
        return SimpleNamespace(id="p", defaults=limits_dict())


class AsyncInfoDefaultsObject:
    async def get_info(self) -> dict[str, Any]:
        return {"id": "p", "defaults": limits_object()}


@pytest.mark.parametrize(
    "provider",
    [
        SyncModelInfo(),
        AsyncModelInfoDict(),
        SyncInfoDefaultsDict(),
        AsyncInfoDefaultsObject(),
        StubTransport(model=ModelInfo("m", 10_000, 2_000)),
        ModelInfo("m", 10_000, 2_000),
    ],
    ids=["model-info", "async-model-info-dict", "info-defaults", "async-info", "transport", "info"],
)
async def test_budget_is_window_minus_output_minus_margin(provider: object) -> None:
    manager = CompactingContextManager(
        max_tokens=50_000, options=ManagerOptions(safety_margin=0.05)
    )
    assert await manager.request_budget(provider=provider) == 10_000 - 2_000 - 500


async def test_explicit_budget_wins_and_the_fallback_is_max_tokens() -> None:
    manager = CompactingContextManager(max_tokens=50_000)
    assert await manager.request_budget(1_234, SyncModelInfo()) == 1_234
    assert await manager.request_budget() == 50_000
    assert await manager.request_budget(provider=object()) == 50_000
    assert await manager.request_budget(provider=SimpleNamespace(get_info=dict)) == 50_000


async def test_a_provider_that_fails_to_describe_itself_falls_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken:
        def get_model_info(self) -> object:
            raise RuntimeError("no info today")

    manager = CompactingContextManager(max_tokens=42_000)
    assert await manager.request_budget(provider=Broken()) == 42_000
    assert "no info today" in caplog.text


async def test_a_missing_max_output_counts_as_zero_and_a_tiny_window_falls_back() -> None:
    manager = CompactingContextManager(max_tokens=7_000, options=ManagerOptions(safety_margin=0.0))
    only_window = SimpleNamespace(get_model_info=lambda: {"context_window": 9_000})
    assert await manager.request_budget(provider=only_window) == 9_000
    tiny = SimpleNamespace(get_model_info=lambda: {"context_window": 100, "max_output_tokens": 100})
    assert await manager.request_budget(provider=tiny) == 7_000


@pytest.mark.parametrize("bad", [0, -5, 1.5, True, "100"])
async def test_a_bad_explicit_budget_is_a_value_error(bad: object) -> None:
    with pytest.raises(ValueError, match="token_budget"):
        await CompactingContextManager().get_messages_for_request(token_budget=bad)  # type: ignore[arg-type]


async def test_the_provider_budget_drives_compaction() -> None:
    hooks = Recorder()
    history = conversation(30)  # ~3,900 estimated tokens
    manager = await filled(CompactingContextManager(max_tokens=1_000_000, hooks=hooks), history)
    assert await manager.get_messages_for_request() == history
    assert hooks.events == []
    view = await manager.get_messages_for_request(provider=SyncModelInfo())
    assert view == history  # 7,500 budget: under the 6,000 threshold
    small = SimpleNamespace(
        get_model_info=lambda: {"context_window": 4_000, "max_output_tokens": 500}
    )
    view = await manager.get_messages_for_request(provider=small)
    assert len(view) < len(history)
    (pre,) = hooks.named("context:pre_compact")
    assert pre["budget"] == 4_000 - 500 - 200
    assert pre["threshold_tokens"] == int(3_300 * 0.8)
    assert tokens_of(view) <= pre["threshold_tokens"]


# --- cached, incremental summaries ----------------------------------------------------------


async def test_repeated_requests_reuse_the_cached_summary() -> None:
    transport = summarizer()
    manager = await filled(
        CompactingContextManager(max_tokens=3_000, transport=transport), conversation(30)
    )
    first = await manager.get_messages_for_request()
    assert len(transport.requests) == 1
    assert await manager.get_messages_for_request() == first
    await manager.add_message({"role": "assistant", "content": "a short reply"})
    third = await manager.get_messages_for_request()
    assert third == [*first, {"role": "assistant", "content": "a short reply"}]
    assert len(transport.requests) == 1
    assert manager.summarizer_requests == 1
    assert manager.summarizer_usage.input_tokens == transport.requests[0].input_tokens


async def test_a_later_crossing_extends_the_cached_summary_with_only_new_messages() -> None:
    texts = iter(["FIRST SUMMARY of steps 0 to n", "SECOND SUMMARY extended"])
    transport = FunctionTransport(lambda request: make_text_response(next(texts)))
    manager = await filled(
        CompactingContextManager(max_tokens=3_000, transport=transport), conversation(30)
    )
    await manager.get_messages_for_request()
    await filled(manager, conversation(15, first=30))
    view = await manager.get_messages_for_request()

    assert len(transport.requests) == 2
    update = transport.requests[1].text
    # the first summary is the anchor (with the facts of its ledger section)
    assert "<previous-summary>\nFIRST SUMMARY of steps 0 to n\n" in update
    assert "result 35:" in update
    assert "result 3:" not in update  # the first summary's messages are not sent again
    assert any("SECOND SUMMARY extended" in str(w["content"]) for w in view)
    assert not any("FIRST SUMMARY" in str(w["content"]) for w in view)
    assert len(await manager.get_messages()) == 2 + 45 * 4


async def test_protected_recent_is_a_share_of_the_view_so_a_long_session_stays_bounded() -> None:
    # The share counts what a view compacts (the cached summary and the dicts since), as
    # context-simple counts the list it compacts; a share of the whole stored history
    # would keep 72 of 242 dicts verbatim by the end, far over the threshold.
    hooks = Recorder()
    manager = CompactingContextManager(
        max_tokens=3_000,
        transport=summarizer(),
        hooks=hooks,
        settings=manager_settings(prepare_threshold=None),
        options=ManagerOptions(protected_recent=0.3),
    )
    await filled(manager, conversation(1))
    for i in range(1, 60):
        await filled(manager, conversation(1, first=i))
        view = await manager.get_messages_for_request()
        validate_history(from_openai(view))
    posts = hooks.named("context:post_compact")
    assert {"new", "extended"} & {p["summary"] for p in posts}
    assert all(p["tokens_after"] <= p["threshold_tokens"] for p in posts)
    assert len(await manager.get_messages()) == 2 + 60 * 4


async def test_set_messages_with_the_same_prefix_keeps_the_cache_and_clear_drops_it() -> None:
    transport = summarizer()
    history = conversation(30)
    manager = await filled(CompactingContextManager(max_tokens=3_000, transport=transport), history)
    view = await manager.get_messages_for_request()
    await manager.set_messages(history)
    assert await manager.get_messages_for_request() == view
    assert len(transport.requests) == 1
    await manager.clear()
    assert await manager.get_messages() == []
    await manager.set_messages(history)
    await manager.get_messages_for_request()
    assert len(transport.requests) == 2


async def test_a_view_still_over_the_threshold_is_not_resummarized_until_it_grows() -> None:
    transport = summarizer()
    hooks = Recorder()
    history = conversation(10) + tool_round(10, output="y" * 20_000)[:2]
    manager = await filled(
        CompactingContextManager(
            max_tokens=3_000,
            transport=transport,
            hooks=hooks,
            keep_recent=4,
            options=ManagerOptions(strategies=[]),
        ),
        history,
    )
    for _ in range(3):
        view = await manager.get_messages_for_request()
    assert len(transport.requests) == 1
    assert any(w.get("tool_call_id") == "call_10" for w in view)  # the latest round is kept
    found = [d["summary"] for d in hooks.named("context:post_compact")]
    # The view after the summary is past the prepare point, so a preparation starts;
    # a view meanwhile does not wait for it ("preparing"), and none is summarized again.
    assert found[0] == "new"
    assert set(found[1:]) <= {"cached", "preparing"}


# --- failures fall back to strategies ----------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        make_text_response(""),
        make_text_response("I'm sorry, I can't help with that."),
        make_unavailable_error(),
        # Raised by the transport though nothing was cancelled (a library's own
        # timeout): a failed summary like the others, never the caller's request.
        asyncio.CancelledError(),
    ],
    ids=["empty", "refusal", "transport-error", "cancelled-error"],
)
async def test_a_failed_summary_falls_back_to_strategies_and_backs_off(
    reply: StubResponse | BaseException,
) -> None:
    transport = FunctionTransport(lambda request: reply)
    hooks = Recorder()
    history = conversation(30)
    manager = await filled(
        CompactingContextManager(max_tokens=3_000, transport=transport, hooks=hooks), history
    )
    view = await manager.get_messages_for_request()
    assert tokens_of(view) <= 2_400
    validate_history(from_openai(view))
    assert system_texts(view) == system_texts(history)
    (post,) = hooks.named("context:post_compact")
    assert post["summary"] == "failed"
    assert post["strategies_applied"] is True
    assert post["error"]
    assert await manager.get_messages() == history

    await manager.get_messages_for_request()  # backing off: no new request
    assert len(transport.requests) == 1
    assert hooks.named("context:post_compact")[-1]["summary"] == "backoff"
    await manager.get_messages_for_request()  # the back-off (1 request) is over
    assert len(transport.requests) == 2


# --- strategies only ---------------------------------------------------------------------------


async def test_without_a_transport_strategies_bound_the_view() -> None:
    hooks = Recorder()
    history = conversation(20) + tool_round(20, output="z" * 20_000)
    manager = await filled(CompactingContextManager(max_tokens=4_000, hooks=hooks), history)
    view = await manager.get_messages_for_request()

    assert tokens_of(view) <= 3_200
    validate_history(from_openai(view))
    assert view[:2] == history[:2]  # system and task
    big = next(w for w in view if w.get("tool_call_id") == "call_20")
    assert len(big["content"]) == 8_000
    assert "...[truncated]" in big["content"]
    (post,) = hooks.named("context:post_compact")
    assert post["summary"] == "none"
    assert post["summarizer_requests"] == 0
    assert await manager.get_messages() == history


async def test_custom_strategies_shape_the_view() -> None:
    history = conversation(30)
    manager = await filled(
        CompactingContextManager(
            max_tokens=100_000, options=ManagerOptions(strategies=[TrimRounds(3)])
        ),
        history,
    )
    view = await manager.get_messages_for_request(token_budget=3_000)
    validate_history(from_openai(view))
    assert view[:2] == history[:2]
    # the last three rounds: prompt + call + result, the reply, the next prompt
    assert view[2:] == history[-5:]


# --- events -------------------------------------------------------------------------------------


@pytest.mark.parametrize("hooks_class", [Recorder, AsyncRecorder], ids=["sync", "async"])
async def test_events_carry_message_and_token_counts(hooks_class: type[Recorder]) -> None:
    hooks = hooks_class()
    history = conversation(30)
    manager = await filled(
        CompactingContextManager(max_tokens=3_000, transport=summarizer(), hooks=hooks), history
    )
    view = await manager.get_messages_for_request()

    assert [event for event, _ in hooks.events] == ["context:pre_compact", "context:post_compact"]
    pre, post = hooks.events[0][1], hooks.events[1][1]
    assert pre == {
        "messages": len(history),
        "tokens": tokens_of(history),
        "budget": 3_000,
        "threshold_tokens": 2_400,
    }
    assert post["messages_before"] == len(history)
    assert post["messages_after"] == len(view)
    assert post["tokens_before"] == tokens_of(history)
    assert post["tokens_after"] == tokens_of(view) < post["threshold_tokens"]
    assert post["summary"] == "new"
    assert post["summarizer_requests"] == 1
    assert post["summarizer_input_tokens"] > 0
    assert post["error"] is None


async def test_a_hook_that_raises_does_not_break_the_request(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Exploding:
        def emit(self, event: str, data: dict[str, Any]) -> None:
            raise RuntimeError("hook bug")

    manager = await filled(
        CompactingContextManager(max_tokens=3_000, hooks=Exploding()), conversation(30)
    )
    assert len(await manager.get_messages_for_request()) < 2 + 30 * 4
    assert "hook bug" in caplog.text


# --- concurrency --------------------------------------------------------------------------------


async def test_concurrent_requests_share_one_summarization() -> None:
    release = asyncio.Event()

    async def slow(request: StubRequest) -> StubResponse:
        await release.wait()
        return make_text_response(SUMMARY)

    transport = FunctionTransport(slow)
    manager = await filled(
        CompactingContextManager(max_tokens=3_000, transport=transport), conversation(30)
    )
    tasks = [asyncio.ensure_future(manager.get_messages_for_request()) for _ in range(5)]
    for _ in range(200):  # let every task run until it blocks
        await asyncio.sleep(0)
    assert len(transport.requests) == 1
    # The history stays writable while the summarizer runs.
    await manager.add_message({"role": "assistant", "content": "added meanwhile"})
    assert (await manager.get_messages())[-1]["content"] == "added meanwhile"
    release.set()
    views = await asyncio.gather(*tasks)
    assert len(transport.requests) == 1
    assert all(view == views[0] for view in views)
    assert views[0][-1]["content"] != "added meanwhile"  # each view is of its snapshot
    latest = await manager.get_messages_for_request()
    assert latest == [*views[0], {"role": "assistant", "content": "added meanwhile"}]


# --- content parts formats does not model -------------------------------------------------

AUDIO_DATA = base64.b64encode(b"RIFF-secret-audio-bytes" * 40).decode()
FILE_DATA = base64.b64encode(b"%PDF-secret-file-bytes" * 40).decode()
CAT_URL = "https://example.com/cat.png"


def media_messages() -> list[Wire]:
    """An unknown part type, audio, a file and a remote image next to ordinary parts."""
    local = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
    audio = {"type": "input_audio", "input_audio": {"data": AUDIO_DATA, "format": "wav"}}
    return [
        {"role": "user", "content": [{"type": "input_video", "input_video": {"id": "v1"}}]},
        {"role": "user", "content": [audio]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "read this"},
                {"type": "file", "file": {"filename": "report.pdf", "file_data": FILE_DATA}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": CAT_URL, "detail": "high"}},
                local,
            ],
        },
    ]


def as_text_parts(view: list[Wire]) -> list[Wire]:
    """``view`` with every part formats cannot parse replaced by a text part (for checks)."""
    out: list[Wire] = []
    for wire in view:
        content = wire.get("content")
        if isinstance(content, list):
            parseable = [
                part
                if part["type"] in ("text", "refusal")
                or (part["type"] == "image_url" and part["image_url"]["url"].startswith("data:"))
                else {"type": "text", "text": "media"}
                for part in content
            ]
            wire = {**wire, "content": parseable}
        out.append(wire)
    return out


async def test_unmodelled_content_parts_are_stored_as_given() -> None:
    media = media_messages()
    manager = CompactingContextManager()
    for wire in media:
        await manager.add_message(wire)
    assert await manager.get_messages() == media
    assert await manager.get_messages_for_request() == media  # under the threshold: all
    await manager.set_messages([*media, {"role": "assistant", "content": "a cat"}])
    assert (await manager.get_messages())[:4] == media


async def test_each_unmodelled_part_costs_like_an_image() -> None:
    hooks = Recorder()
    manager = CompactingContextManager(max_tokens=3_500, hooks=hooks)
    remote = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": CAT_URL}}]}
    for _ in range(4):
        await manager.add_message(remote)
        await manager.add_message({"role": "assistant", "content": "ok"})
    assert hooks.events == []  # 4 × 600 tokens: under the 2,800 threshold
    await manager.add_message(remote)
    view = await manager.get_messages_for_request()  # 5 × 600: over it
    (pre,) = hooks.named("context:pre_compact")
    assert 5 * 600 <= pre["tokens"] < 5 * 600 + 100
    assert len(view) < 9  # the oldest images were dropped to fit


async def test_unmodelled_parts_reach_the_summarizer_as_placeholders_only() -> None:
    transport = summarizer()
    history = conversation(1)[:2] + media_messages() + conversation(30, first=1)
    manager = await filled(CompactingContextManager(max_tokens=3_000, transport=transport), history)
    view = await manager.get_messages_for_request()

    (request,) = transport.requests
    assert f"[image: {CAT_URL}]" in request.text
    assert "[audio: wav]" in request.text
    assert "[file: report.pdf]" in request.text
    assert "[content part: input_video]" in request.text
    assert AUDIO_DATA not in request.text
    assert FILE_DATA not in request.text
    # the media messages were summarized away (the fact ledger may still name the URL
    # the user sent, as an identifier, but no image part is kept)
    assert "image_url" not in str(view)
    assert FILE_DATA not in str(view)
    validate_history(from_openai(view))
    assert await manager.get_messages() == history


@pytest.mark.parametrize("with_transport", [True, False], ids=["summary", "strategies"])
async def test_a_kept_message_with_unmodelled_parts_is_the_callers_dict(
    with_transport: bool,
) -> None:
    history = conversation(30) + media_messages()
    manager = await filled(
        CompactingContextManager(
            max_tokens=8_000, transport=summarizer() if with_transport else None
        ),
        history,
    )
    view = await manager.get_messages_for_request()

    assert len(view) < len(history)
    kept = 3 if with_transport else 4  # the summary keeps a smaller tail
    assert view[-kept:] == media_messages()[-kept:]
    assert view[-1]["content"][1]["image_url"] == {"url": CAT_URL, "detail": "high"}
    validate_history(from_openai(as_text_parts(view)))
    assert sorted(system_texts(view)) == sorted(system_texts(history))


# --- rewritten tool groups keep their messages' fields -----------------------------------


def fetch_group(prefix: str, name: str, output: str = "page " + "p" * 30_000) -> list[Wire]:
    """Three parallel calls: a small error, a huge output, an unmodelled part, an image."""
    calls = [
        {"id": f"{prefix}{k}", "type": "function", "function": {"name": "fetch", "arguments": "{}"}}
        for k in range(3)
    ]
    image = {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "low"},
    }
    return [
        {"role": "assistant", "content": None, "tool_calls": calls},
        {
            "role": "tool",
            "tool_call_id": f"{prefix}0",
            "name": name,
            "content": "Error: small failure",
        },
        {
            "role": "tool",
            "tool_call_id": f"{prefix}1",
            "name": name,
            "content": output,
            "x_trace": "abc",
        },
        {
            "role": "tool",
            "tool_call_id": f"{prefix}2",
            "name": name,
            "content": [{"type": "text", "text": "see"}, {"type": "blob", "blob": {"id": 1}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": f"[images returned by tool call {prefix}0]"},
                image,
            ],
        },
    ]


def by_call_id(view: list[Wire], call_id: str) -> list[Wire]:
    return [w for w in view if w.get("tool_call_id") == call_id]


@pytest.mark.parametrize("with_transport", [True, False], ids=["summary", "strategies"])
async def test_a_truncated_tool_group_keeps_every_other_field(with_transport: bool) -> None:
    group = fetch_group("t", "fetch")
    history = conversation(30) + group  # the latest round: a summary keeps it whole
    manager = await filled(
        CompactingContextManager(
            max_tokens=12_000, transport=summarizer() if with_transport else None
        ),
        history,
    )
    view = await manager.get_messages_for_request()

    assert view != history
    assert view[-5:-3] == group[:2]  # the call and the untouched siblings: the caller's dicts
    assert view[-2:] == group[-2:]  # (the last one is the tool's image, with its detail)
    cut = view[-3]
    assert {k: v for k, v in cut.items() if k != "content"} == {
        k: v for k, v in group[2].items() if k != "content"
    }
    assert len(cut["content"]) == 8_000  # cut to max_tool_chars, by the summary or strategy
    assert cut["content"].startswith("page ppp")
    assert "truncated" in cut["content"]
    validate_history(from_openai(as_text_parts(view)))
    assert await manager.get_messages() == history


async def test_rewritten_groups_that_reuse_call_ids_keep_their_own_fields() -> None:
    first, second = fetch_group("c", "first"), fetch_group("c", "second", "other " + "o" * 30_000)
    reply: Wire = {"role": "assistant", "content": "fetched all three"}
    history = conversation(2) + first + [reply] + conversation(2, first=2) + second
    manager = await filled(CompactingContextManager(max_tokens=20_000), history)
    view = await manager.get_messages_for_request()

    assert len(view) == len(history)  # only the two long outputs were cut
    cut = by_call_id(view, "c1")
    assert [w["name"] for w in cut] == ["first", "second"]
    assert cut[0]["content"].startswith("page p")
    assert cut[1]["content"].startswith("other o")
    assert all(len(w["content"]) == 8_000 for w in cut)
    assert by_call_id(view, "c0") == [first[1], second[1]]
    assert by_call_id(view, "c2") == [first[3], second[3]]


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"content": "no role"}, "message 1 is missing field 'role'"),
        ({"role": "robot", "content": "hi"}, "unsupported role 'robot'"),
        ("just a string", "must be a dict"),
        ({"role": "assistant", "tool_calls": [{"type": "function"}]}, "missing field 'function'"),
        ({"role": "tool", "content": "orphan"}, "missing field 'tool_call_id'"),
        ({"role": "tool", "tool_call_id": "nope", "content": "x"}, "answers no open tool call"),
        ({"role": "user", "content": 42}, "'content' must be"),
        (
            {"content": [{"type": "image_url", "image_url": {"url": CAT_URL}}]},
            "message 1 is missing field 'role'",
        ),
        (
            {"role": "user", "content": [{"type": "input_audio"}]},
            "message 1: content part 'input_audio' needs an object",
        ),
        (
            {"role": "user", "content": [{"type": "file", "file": "report.pdf"}]},
            "message 1: content part 'file' needs an object",
        ),
        (
            {"role": "user", "content": [{"type": "file", "file": {}}, {"type": "text"}]},
            "malformed content part: 'text'",
        ),
        (
            {"role": "user", "content": [{"type": "image_url", "image_url": {}}]},
            "message 1: content part 'image_url' needs a string 'url'",
        ),
        (
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": CAT_URL}}, 7]},
            "malformed content part",
        ),
        (
            {
                "role": "tool",
                "tool_call_id": "nope",
                "content": [{"type": "input_audio", "input_audio": {"data": ""}}],
            },
            "answers no open tool call",
        ),
    ],
)
async def test_invalid_messages_are_rejected_and_not_stored(message: object, error: str) -> None:
    manager = CompactingContextManager()
    await manager.add_message({"role": "user", "content": "hello"})
    with pytest.raises(ValueError, match=error):
        await manager.add_message(message)  # type: ignore[arg-type]
    assert await manager.get_messages() == [{"role": "user", "content": "hello"}]


@pytest.mark.parametrize(
    "tool_call",
    [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{oops"}},
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": "[1, 2]"}},
        {"id": "c", "type": "custom", "custom": {"name": "apply_patch", "input": "*** Begin"}},
    ],
)
async def test_a_call_contextfold_does_not_model_is_kept_as_given(tool_call: object) -> None:
    manager = CompactingContextManager()
    call = {"role": "assistant", "content": None, "tool_calls": [tool_call]}
    answer = {"role": "tool", "tool_call_id": "c", "content": "done"}
    await manager.add_message({"role": "user", "content": "hello"})
    await manager.add_message(call)
    await manager.add_message(answer)
    assert await manager.get_messages() == [{"role": "user", "content": "hello"}, call, answer]
    assert await manager.get_messages_for_request() == [
        {"role": "user", "content": "hello"},
        call,
        answer,
    ]


async def test_a_tool_call_is_answered_once() -> None:
    manager = await filled(CompactingContextManager(), conversation(1)[:4])
    with pytest.raises(ValueError, match="answers no open tool call"):
        await manager.add_message({"role": "tool", "tool_call_id": "call_0", "content": "again"})


def nested(depth: int) -> Wire:
    wire: Wire = {"role": "user", "content": "deep"}
    inner = wire
    for _ in range(depth):
        inner["more"] = {}
        inner = inner["more"]
    return wire


async def test_hostile_dicts_are_kept_or_refused_whole_never_half_stored() -> None:
    manager = await filled(CompactingContextManager(), [{"role": "user", "content": "a"}])
    mixed_keys = {"role": "assistant", "content": "b", "metadata": {1: "int key", "s": 2}}
    await manager.add_message(mixed_keys)  # on the starting commit: TypeError, half stored
    with pytest.raises(ValueError, match="message 2 is nested too deeply"):
        await manager.add_message(nested(5_000))
    assert await manager.get_messages() == [{"role": "user", "content": "a"}, mixed_keys]
    assert await manager.get_messages_for_request(token_budget=10) == [
        {"role": "user", "content": "a"},
        mixed_keys,
    ]


async def test_set_messages_validates_everything_before_replacing() -> None:
    manager = await filled(CompactingContextManager(), conversation(1))
    before = await manager.get_messages()
    bad = [*conversation(1), {"role": "assistant"}, {"content": "no role"}]
    with pytest.raises(ValueError, match="message 7 is missing field 'role'"):
        await manager.set_messages(bad)
    assert await manager.get_messages() == before
    with pytest.raises(ValueError, match="list of dicts"):
        await manager.set_messages({"role": "user"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"max_tokens": 0}, "max_tokens"),
        ({"compaction_threshold": 1.5}, "compaction_threshold"),
        ({"compaction_threshold": 0}, "compaction_threshold"),
        ({"safety_margin": 1}, "safety_margin"),
        ({"target_ratio": "half"}, "target_ratio"),
        ({"keep_recent": 0}, "keep_recent"),
        ({"cache_size": 0}, "cache_size"),
        ({"transport": 42}, "CompletionTransport"),
        ({"transport": "gpt-4o"}, r"unknown transport 'gpt-4o'.*anthropic:<model>"),
        ({"hooks": object()}, "emit"),
        ({"protected_recent": 1.5}, "protected_recent"),
        ({"protected_recent": -0.1}, "protected_recent"),
    ],
)
def test_bad_settings_are_value_errors(options: dict[str, Any], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        CompactingContextManager(**manager_arguments(**options))


# --- the protocol, mount and the entry point ----------------------------------------------------


def test_the_manager_satisfies_the_protocol() -> None:
    assert isinstance(CompactingContextManager(), ContextManager)
    assert not isinstance(object(), ContextManager)


class AsyncCoordinator:
    def __init__(self) -> None:
        self.hooks = AsyncRecorder()
        self.mounted: list[tuple[str, object, str | None]] = []

    async def mount(self, mount_point: str, module: object, *, name: str | None = None) -> None:
        self.mounted.append((mount_point, module, name))


class SyncCoordinator:
    def __init__(self) -> None:
        self.mounted: list[tuple[str, object, str | None]] = []

    def mount(self, mount_point: str, module: object, *, name: str | None = None) -> None:
        self.mounted.append((mount_point, module, name))


async def test_mount_registers_a_configured_manager_that_emits_to_the_coordinators_hooks() -> None:
    coordinator = AsyncCoordinator()
    manager = await mount(
        coordinator, {"max_tokens": 3_000, "compaction_threshold": 0.5, "keep_recent": 4}
    )
    assert coordinator.mounted == [("context", manager, "contextfold")]
    assert (manager.max_tokens, manager.compaction_threshold, manager.keep_recent) == (
        3_000,
        0.5,
        4,
    )
    await filled(manager, conversation(30))
    view = await manager.get_messages_for_request()
    assert tokens_of(view) <= 1_500
    assert [e for e, _ in coordinator.hooks.events] == [
        "context:pre_compact",
        "context:post_compact",
    ]


async def test_mount_with_a_sync_coordinator_and_no_config() -> None:
    coordinator = SyncCoordinator()
    manager = await mount(coordinator)
    assert coordinator.mounted == [("context", manager, "contextfold")]
    assert manager.max_tokens == 100_000
    assert manager.hooks is None
    transport = summarizer()
    with_transport = await mount(SyncCoordinator(), {"transport": transport})
    assert with_transport.transport is transport


async def test_mount_rejects_unknown_config_keys() -> None:
    coordinator = SyncCoordinator()
    with pytest.raises(ValueError, match=r"unknown contextfold-context config key.*max_token\b"):
        await mount(coordinator, {"max_token": 5})
    assert coordinator.mounted == []
    with pytest.raises(ValueError, match="coordinator must have a mount"):
        await mount(object())  # type: ignore[arg-type]


def test_the_entry_point_resolves_to_mount() -> None:
    found = [
        ep
        for ep in importlib.metadata.entry_points(group="amplifier.modules")
        if ep.name == "contextfold-context"
    ]
    assert len(found) == 1
    assert found[0].load() is mount


@pytest.mark.parametrize("budget", [0, 2_000])
async def test_instructions_and_the_user_message_budget_reach_the_summary(budget: int) -> None:
    transport = summarizer()
    manager = CompactingContextManager(
        max_tokens=3_000,
        transport=transport,
        settings=manager_settings(
            instructions="Keep the step numbers.", user_message_budget=budget
        ),
    )
    view = await (await filled(manager, conversation(30))).get_messages_for_request()
    [request] = transport.requests
    assert "Keep the step numbers." in request.messages[-1].text
    summary = next(w["content"] for w in view if "<summary>" in str(w.get("content")))
    assert ("<user-messages>" in summary) is (budget > 0)
    if budget:  # the user's newest summarized prompt, word for word
        assert re.search(r"now do step \d+ x{200}\n", summary)


async def test_summary_timeout_bounds_the_managers_summaries() -> None:
    # Today's main had no summary_timeout in the manager: a summarizer that never
    # answered held get_messages_for_request forever.
    async def never(request: object) -> object:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    manager = CompactingContextManager(
        max_tokens=3_000,
        transport=FunctionTransport(never),
        settings=manager_settings(summary_timeout=0.3),
    )
    await filled(manager, conversation(30))
    view = await asyncio.wait_for(manager.get_messages_for_request(), timeout=30)
    assert len(view) < len(conversation(30))  # the strategies stood in for the summary
    assert manager.settings.summary_timeout == 0.3
    with pytest.raises(ValueError, match="summary_timeout"):
        CompactingContextManager(settings=manager_settings(summary_timeout=-1))
