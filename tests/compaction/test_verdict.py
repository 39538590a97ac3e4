"""What a summary must be before it is committed (issue 13, items 1-3), on stub transports.

* any stop other than a normal end is rejected (``pause_turn``, unknown reasons);
* a summary is judged, not required to be tagged: with tags their content is the
  summary (a preamble around them is dropped); an untagged reply that is no refusal
  and names what it summarizes is committed, with the built-in prompts and custom
  ones alike; an unclosed tag, a reply with nothing visible, and a short untagged
  reply that names nothing of the conversation (a refusal in a language the detector
  does not know) are rejected;
* the summarizer's request carries an output cap, a summary over the budget is
  rejected, and a compaction that does not shrink the history is rejected;
* lone surrogates never reach a store or a provider: they are repaired to U+FFFD.

The same guarantees over the real SDKs: ``tests/transports/test_compaction_over_transports.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import MemoryContextStore, Message, ModelInfo
from contextfold.compaction import AutoCompactStore, CompactionEvent, compact_context
from contextfold.errors import SummaryRejectedError
from contextfold.testing import (
    FunctionTransport,
    StubRequest,
    StubResponse,
    StubTransport,
    make_text_response,
)
from contextfold.tokens import approx_token_counter, count_tokens
from contextfold.transports.base import Completion, ToolSpec, Usage
from tests._faces import store_arguments

SUMMARY = "## User requests and intent\nThe user asked about logs.\n## Current state\nAnswered."
WINDOW = ModelInfo("small-model", 8_000, 1_000)
SWAHILI_REFUSAL = "Samahani, siwezi kusaidia na ombi hili."  # no detector knows Swahili


def history(n: int = 12) -> list[Message]:
    return [
        Message.user(f"question {i}: " + "please look at the logs " * 12)
        if i % 2 == 0
        else Message.assistant(f"answer {i}: " + "the logs show a timeout " * 12)
        for i in range(n)
    ]


def auto_store(
    inner: MemoryContextStore, summarizer: object, events: list[CompactionEvent], **kw: object
) -> AutoCompactStore:
    return AutoCompactStore(
        inner,
        StubTransport(model=WINDOW),
        **store_arguments(
            keep_recent=2, summary_transport=summarizer, on_event=events.append, **kw
        ),
    )


# --- item 1: stop reasons ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stop", "reason"),
    [("pause_turn", "incomplete"), ("tool_use", "tool_call"), ("max_tokens", "truncated")],
)
async def test_a_reply_that_did_not_end_normally_is_rejected(stop: str, reason: str) -> None:
    reply = make_text_response(SUMMARY, stop_reason=stop)  # type: ignore[arg-type]
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), StubTransport([reply]), keep_recent=2)
    assert info.value.reason == reason


async def test_an_unknown_stop_reason_from_a_custom_transport_is_rejected() -> None:
    class Odd:
        model = ModelInfo("odd", 8_000, 1_000)

        async def complete(
            self,
            messages: Sequence[Message],
            tools: Sequence[ToolSpec] = (),
            system: str | None = None,
        ) -> Completion:
            from contextfold.blocks import TextBlock

            return Completion([TextBlock(SUMMARY)], "paused_for_moderation", Usage(10, 10))  # type: ignore[arg-type]

    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), Odd(), keep_recent=2)
    assert info.value.reason == "incomplete"


async def test_a_pause_turn_summary_leaves_the_auto_compact_history_untouched() -> None:
    inner = MemoryContextStore(history(20))
    before = await inner.get_history()
    events: list[CompactionEvent] = []
    paused = StubTransport([make_text_response(SUMMARY, stop_reason="pause_turn")], model=WINDOW)
    store = auto_store(inner, paused, events)
    await store.add_context_tokens(7_000, 10)
    assert await inner.get_history() == before
    assert [e.outcome for e in events if e.phase == "after"] == ["rejected"]


# --- item 1: the <summary> format, for models ----------------------------------------------


async def test_the_built_in_prompts_ask_for_summary_tags() -> None:
    transport = FunctionTransport(lambda request: make_text_response(SUMMARY))
    await compact_context(history(), transport, keep_recent=2)
    [request] = transport.requests
    assert "<summary>" in (request.system or "")
    assert "</summary>" in (request.system or "")


@pytest.mark.parametrize(
    "reply",
    [
        SUMMARY,  # the model ignored the format: judged, not refused
        "The user asked why the logs show a timeout; it was answered.",
        "## Current state\nThe logs were read; the timeout is explained.\n",
        "用户询问了日志中的超时 (logs, timeout) 问题，已经回答。",
    ],
)
async def test_an_untagged_model_summary_is_committed(reply: str) -> None:
    # Today's main rejected each of these ("format": no <summary> tag).
    model = StubTransport([make_text_response(reply)], scripted=False)
    result = await compact_context(history(), model, keep_recent=2)
    assert result is not None
    assert reply.strip() in result[0].text


@pytest.mark.parametrize(
    "reply",
    [
        SWAHILI_REFUSAL,  # a refusal the detector knows now
        "Pole, siwezi kufanya hivyo.",  # one it does not: it names nothing of the logs
        "Xin l\u1ed7i, t\u00f4i kh\u00f4ng th\u1ec3 gi\u00fap vi\u1ec7c n\u00e0y.",
        "Hapana.",
        "Ngiyaxolisa, angikwazi ukusiza ngalokho.",
    ],
)
async def test_an_untagged_model_refusal_is_rejected_whatever_its_language(reply: str) -> None:
    model = StubTransport([make_text_response(reply)], scripted=False)
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), model, keep_recent=2)
    assert info.value.reason in ("refusal", "unrelated")


@pytest.mark.parametrize(
    "reply",
    [
        "\u200b\u200c\u200d\ufeff",  # zero-width characters
        "\u0301\u0308\u0327",  # combining marks alone
        "\u3164\u3164",  # Hangul filler
        "\u2800\u2800\u2800",  # Braille blank
        ".",  # a lone punctuation mark
        "<summary>\u200b</summary>",
        "<summary>\u3164 \u2800 ?</summary>",
    ],
)
async def test_a_reply_with_nothing_visible_is_empty(reply: str) -> None:
    model = StubTransport([make_text_response(reply)], scripted=False)
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), model, keep_recent=2)
    assert info.value.reason == "empty"


async def test_an_unclosed_summary_tag_is_rejected() -> None:
    model = StubTransport([make_text_response(f"<summary>\n{SUMMARY}")], scripted=False)
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), model, keep_recent=2)
    assert info.value.reason == "format"


async def test_a_model_reply_with_tags_is_committed_without_its_preamble() -> None:
    reply = (
        f"Here is the summary you asked for:\n\n<summary>\n{SUMMARY}\n</summary>\n\nAnything else?"
    )
    model = StubTransport([make_text_response(reply)], scripted=False)
    result = await compact_context(history(), model, keep_recent=2)
    assert result is not None
    assert SUMMARY in result[0].text
    assert "Here is the summary" not in result[0].text
    assert "Anything else" not in result[0].text


async def test_a_refusal_inside_the_tags_is_still_a_refusal() -> None:
    reply = "<summary>I'm sorry, but I can't help with that.</summary>"
    model = StubTransport([make_text_response(reply)], scripted=False)
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), model, keep_recent=2)
    assert info.value.reason == "refusal"


async def test_empty_tags_are_an_empty_summary() -> None:
    model = StubTransport([make_text_response("<summary>\n \n</summary>")], scripted=False)
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), model, keep_recent=2)
    assert info.value.reason == "empty"


async def test_a_custom_prompt_without_tags_accepts_a_plain_model_summary() -> None:
    model = StubTransport([make_text_response(SUMMARY)], scripted=False)
    result = await compact_context(
        history(), model, keep_recent=2, system_prompt="Summarize in {max_summary_tokens} tokens."
    )
    assert result is not None
    assert SUMMARY in result[0].text


async def test_an_untagged_model_refusal_leaves_the_auto_compact_history_untouched() -> None:
    inner = MemoryContextStore(history(20))
    before = await inner.get_history()
    events: list[CompactionEvent] = []
    model = StubTransport([make_text_response(SWAHILI_REFUSAL)], model=WINDOW, scripted=False)
    store = auto_store(inner, model, events)
    await store.add_context_tokens(7_000, 10)
    assert await inner.get_history() == before
    [after] = [e for e in events if e.phase == "after"]
    assert after.outcome == "rejected"
    assert after.error is not None
    assert "refused" in after.error


# --- item 2: the output cap, the summary budget, a result that is not smaller ---------------


async def test_every_summarizer_request_carries_the_output_cap() -> None:
    transport = FunctionTransport(lambda request: make_text_response(SUMMARY))
    await compact_context(history(), transport, keep_recent=2, max_summary_tokens=400)
    [request] = transport.requests
    # The budget plus slack for counting differences (1.25 x 400 + 64), never the model's 8,192.
    assert request.max_output_tokens == 564


async def test_the_cap_never_exceeds_the_summarizers_output_limit() -> None:
    small = ModelInfo("small", 8_000, 300)
    transport = FunctionTransport(lambda request: make_text_response(SUMMARY), model=small)
    await compact_context(history(), transport, keep_recent=2, max_summary_tokens=4_000)
    assert transport.requests[0].max_output_tokens == 300


async def test_a_function_transport_sees_the_cap_and_can_honour_it() -> None:
    def model(request: StubRequest) -> StubResponse:
        assert request.max_output_tokens is not None
        words = ["word"] * 10_000  # a model that would ramble on: cut at the cap
        text = " ".join(words)[: request.max_output_tokens * 4]
        return make_text_response(text, stop_reason="max_tokens")

    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), FunctionTransport(model), keep_recent=2)
    assert info.value.reason == "truncated"


async def test_a_transport_without_the_cap_keyword_is_called_without_it() -> None:
    seen: list[dict[str, object]] = []

    class Plain:  # a user's transport written before the output cap existed
        model = ModelInfo("plain", 8_000, 1_000)

        async def complete(
            self,
            messages: Sequence[Message],
            tools: Sequence[ToolSpec] = (),
            system: str | None = None,
        ) -> Completion:
            seen.append({"system": system})
            from contextfold.blocks import TextBlock

            return Completion([TextBlock(f"<summary>{SUMMARY}</summary>")], "end_turn", Usage(1, 1))

    result = await compact_context(history(), Plain(), keep_recent=2)
    assert result is not None
    assert SUMMARY in result[0].text
    assert len(seen) == 1


async def test_a_summary_over_the_budget_is_rejected() -> None:
    rambling = "## Current state\n" + "The user asked about the logs again. " * 400  # ~3,600 tokens
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(
            history(40),
            StubTransport([make_text_response(rambling)]),
            keep_recent=2,
            max_summary_tokens=500,
        )
    assert info.value.reason == "too_long"


async def test_a_summary_within_the_slack_is_accepted() -> None:
    near = "## Current state\n" + "x" * (4 * 560)  # ~565 tokens for a 500-token budget: slack
    result = await compact_context(
        history(40),
        StubTransport([make_text_response(near)]),
        keep_recent=2,
        max_summary_tokens=500,
    )
    assert result is not None


@pytest.mark.parametrize("trigger", ["usage", "append", "prepare"])
async def test_an_automatic_compaction_that_does_not_shrink_the_history_is_rejected(
    trigger: str,
) -> None:
    # The explicit compact_context / compact() of the same history is not refused
    # (tests/compaction/test_compaction.py, the seed example).
    short = [Message.user(f"m{i}") if i % 2 == 0 else Message.assistant(f"m{i}") for i in range(22)]
    wordy = "## Current state\n" + "The user counted messages. " * 40  # ~270 tokens > ~110
    events: list[CompactionEvent] = []
    inner = MemoryContextStore([] if trigger == "append" else short)
    store = AutoCompactStore(
        inner,
        FunctionTransport(lambda request: make_text_response(wordy)),
        keep_recent=4,
        max_tokens=130 if trigger == "prepare" else 100,  # preparing from 104 (80 %)
        on_event=events.append,
    )
    if trigger == "usage":
        await store.add_context_tokens(150, 1)
    elif trigger == "prepare":
        await store.add_context_tokens(115, 1)
        for _ in range(20):
            await asyncio.sleep(0)
    else:
        for message in short:
            await store.append(message)
        await store.get_history()  # the read before a request: ~110 tokens > 100
    assert await inner.get_history() == short
    [after] = [e for e in events if e.phase == "after"]
    assert (after.trigger, after.outcome) == (trigger, "rejected")
    assert after.error is not None
    assert "not smaller" in after.error


async def test_a_summary_larger_than_the_history_is_never_committed_by_auto_compact() -> None:
    # The reported case: a summary several times larger than the history it replaced.
    inner = MemoryContextStore(history(8))
    before = await inner.get_history()
    assert count_tokens(before, approx_token_counter) < 1_000
    big = "## Current state\n" + "The user asked about the logs. " * 600  # ~4,700 tokens
    events: list[CompactionEvent] = []
    store = auto_store(
        inner, StubTransport([make_text_response(big)], model=WINDOW), events, max_tokens=700
    )
    await store.add_context_tokens(900, 10)
    assert await inner.get_history() == before
    [after] = [e for e in events if e.phase == "after"]
    assert after.outcome == "rejected"


async def test_an_oversized_but_within_budget_summary_of_a_short_history_is_not_smaller() -> None:
    inner = MemoryContextStore(history(6))
    before = await inner.get_history()
    summary = "## Current state\n" + "The user asked about the logs. " * 110  # ~850: in budget
    events: list[CompactionEvent] = []
    store = auto_store(
        inner, StubTransport([make_text_response(summary)], model=WINDOW), events, max_tokens=300
    )
    await store.add_context_tokens(700, 10)
    assert await inner.get_history() == before
    [after] = [e for e in events if e.phase == "after"]
    assert after.outcome == "rejected"
    assert after.error is not None
    assert "not smaller" in after.error


# --- item 3: text that cannot be encoded --------------------------------------------------


def _encodable(messages: list[Message]) -> bool:
    for message in messages:
        try:
            message.text.encode("utf-8")
        except UnicodeEncodeError:
            return False
    return True


async def test_a_lone_surrogate_in_the_summary_is_repaired_before_it_is_stored() -> None:
    broken = SUMMARY + " emoji \ud83d cut, pair \ud83d\ude00 split"
    inner = MemoryContextStore(history(20))
    events: list[CompactionEvent] = []
    store = auto_store(inner, StubTransport([make_text_response(broken)], model=WINDOW), events)
    await store.add_context_tokens(7_000, 10)
    assert store.compactions == 1
    stored = await inner.get_history()
    assert _encodable(stored)
    assert "emoji \ufffd cut, pair \U0001f600 split" in stored[0].text


async def test_compact_context_never_returns_unencodable_text() -> None:
    result = await compact_context(
        history(), StubTransport([make_text_response(SUMMARY + "\udc80")]), keep_recent=2
    )
    assert result is not None
    assert _encodable(result)


async def test_the_summarizer_is_never_sent_a_lone_surrogate() -> None:
    messages = history()
    messages[1] = Message.assistant("half an emoji: \ud83d, and a stray \udfff")
    transport = FunctionTransport(lambda request: make_text_response(SUMMARY))
    await compact_context(messages, transport, keep_recent=2)
    [request] = transport.requests
    request.text.encode("utf-8")  # raises if anything unencodable was sent
    assert "half an emoji: \ufffd" in request.text


async def test_a_refusal_that_mentions_the_tag_is_not_taken_for_a_summary() -> None:
    reply = "I'm sorry, but I can't write a <summary> of this conversation."
    model = StubTransport([make_text_response(reply)], scripted=False)
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), model, keep_recent=2)
    assert info.value.reason == "refusal"


async def test_a_summary_that_quotes_its_own_tags_keeps_its_tail() -> None:
    inner = f"{SUMMARY}\nThe user's template wraps notes in <summary></summary> tags. Tail kept."
    model = StubTransport([make_text_response(f"<summary>{inner}</summary>")], scripted=False)
    result = await compact_context(history(), model, keep_recent=2)
    assert result is not None
    assert "Tail kept." in result[0].text


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reply=st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=300))
def test_whatever_a_summarizer_answers_nothing_unencodable_is_committed(reply: str) -> None:
    try:
        result = asyncio.run(
            compact_context(history(), StubTransport([make_text_response(reply)]), keep_recent=2)
        )
    except SummaryRejectedError as exc:
        result, reason = None, exc.reason
    else:
        reason = "committed"
    assert reason in ("committed", "empty", "refusal")
    assert result is None or _encodable(result)
