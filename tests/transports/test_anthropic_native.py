"""The library's summarizer through Anthropic's own on-demand compaction (issue 26,
item 4): ``AnthropicTransport(..., native_compaction=True)`` as ``summary_transport``.

Through the SDK's real HTTP path (respx): the summary request is a compaction request
(``compaction`` with our prompt as its instructions, the beta header), the
``compaction`` block's text is the summary, and the store's verdict and tool-pairing
rules still apply. On today's main the keyword did not exist.
"""

from __future__ import annotations

import httpx
import pytest
import respx

from contextfold import AutoCompactStore, MemoryContextStore, Message
from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.compaction import CompactionSettings
from contextfold.testing import StubTransport
from contextfold.transports.anthropic import COMPACTION_BETA, AnthropicTransport
from contextfold.validation import validate_history
from tests.transports.conftest import anthropic_message, body

SUMMARY = "The user migrates tables t0 to t7 one step at a time with run; each migrate printed ok."


def compaction_reply(content: str | None) -> dict[str, object]:
    return anthropic_message(
        [{"type": "compaction", "content": content, "signature": "sig-provider"}],
        stop="compaction",
        input_tokens=900,
        output_tokens=60,
    )


def history() -> list[Message]:
    out: list[Message] = []
    for n in range(8):
        out.append(Message.user(f"step {n}: migrate table t{n} " + "x" * 400))
        call = ToolUseBlock(f"call_{n}", "run", {"cmd": f"migrate t{n}"})
        out.append(Message("assistant", [TextBlock("running"), call]))
        out.append(Message("user", [ToolResultBlock(f"call_{n}", [TextBlock("ok " + "y" * 300)])]))
        out.append(Message.assistant(f"t{n} migrated"))
    return out


async def compacted_store(
    summarizer: AnthropicTransport,
) -> AutoCompactStore:
    store = AutoCompactStore(
        MemoryContextStore(history()),
        StubTransport([]),
        summary_transport=summarizer,
        keep_recent=4,
        settings=CompactionSettings(prepare_threshold=None),
    )
    await store.compact(force=True)
    return store


async def test_the_summary_comes_from_the_compaction_block(
    anthropic_api: respx.MockRouter,
) -> None:
    route = anthropic_api.post("/v1/messages").mock(
        return_value=httpx.Response(200, json=compaction_reply(SUMMARY))
    )
    summarizer = AnthropicTransport("claude-haiku-4-5", api_key="k", native_compaction=True)
    store = await compacted_store(summarizer)
    assert store.compactions == 1
    sent = body(route)
    assert sent["compaction"]["type"] == "summarize"
    assert "summar" in sent["compaction"]["instructions"].lower()  # our prompt, as instructions
    assert "system" not in sent
    assert COMPACTION_BETA in route.calls[-1].request.headers["anthropic-beta"]
    after = await store.get_history()
    assert SUMMARY in after[0].text
    validate_history(after, "anthropic")  # tool pairs and alternation kept
    assert store.summarizer_usage.input_tokens == 900


@pytest.mark.parametrize("content", [None, "", "I'm sorry, but I can't help with that."])
async def test_a_failed_or_refused_compaction_is_never_committed(
    anthropic_api: respx.MockRouter, content: str | None
) -> None:
    anthropic_api.post("/v1/messages").mock(
        return_value=httpx.Response(200, json=compaction_reply(content))
    )
    summarizer = AnthropicTransport(
        "claude-haiku-4-5", api_key="k", native_compaction=True, max_retries=0
    )
    before = history()
    store = await compacted_store(summarizer)
    assert store.compactions == 0
    assert await store.get_history() == before


async def test_an_endpoint_that_ignores_the_parameter_answers_with_text(
    anthropic_api: respx.MockRouter,
) -> None:
    anthropic_api.post("/v1/messages").mock(
        return_value=httpx.Response(
            200, json=anthropic_message([{"type": "text", "text": f"<summary>{SUMMARY}</summary>"}])
        )
    )
    summarizer = AnthropicTransport("claude-haiku-4-5", api_key="k", native_compaction=True)
    store = await compacted_store(summarizer)
    assert store.compactions == 1
    assert SUMMARY in (await store.get_history())[0].text


def test_the_keyword_is_checked() -> None:
    with pytest.raises(ValueError, match="native_compaction"):
        AnthropicTransport("claude-haiku-4-5", api_key="k", native_compaction="yes")  # type: ignore[arg-type]
