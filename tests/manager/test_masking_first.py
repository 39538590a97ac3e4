"""CompactingContextManager with CompactionSettings(mask_tool_outputs=...): mask the view first."""

from __future__ import annotations

import re

from contextfold.compaction import CompactionSettings
from contextfold.context import ArchivedMessage
from contextfold.formats import from_openai
from contextfold.manager import CompactingContextManager
from contextfold.recall import recall_archived
from contextfold.validation import validate_history
from tests.manager.test_manager import Recorder, conversation, filled, summarizer, tokens_of

OUTPUT = "\n".join(f"row {i}: some tool output" for i in range(200))  # ~5,000 chars


async def test_masking_alone_fits_the_view_and_no_summary_is_made() -> None:
    from tests.manager.test_manager import tool_round

    history = conversation(0) + [m for i in range(8) for m in tool_round(i, output=OUTPUT)]
    transport = summarizer()
    hooks = Recorder()
    manager = await filled(
        CompactingContextManager(
            max_tokens=12_000,
            transport=transport,
            hooks=hooks,
            settings=CompactionSettings(threshold=0.8, mask_tool_outputs=True),
        ),
        history,
    )
    view = await manager.get_messages_for_request()
    assert transport.requests == []
    (post,) = hooks.named("context:post_compact")
    assert post["summary"] == "masked"
    assert post["summarizer_requests"] == 0
    assert tokens_of(view) <= int(12_000 * 0.8)
    validate_history(from_openai(view))
    assert len(view) == len(history)
    assert view[-4:] == history[-4:]
    masked = [w for w in view if "[masked tool output: handle=" in str(w.get("content"))]
    assert masked
    assert masked[0]["tool_call_id"] == "call_0"  # the other fields of the dict are kept
    assert await manager.get_messages() == history  # the history itself is whole
    # the originals are in the manager's history: a handle reads one back
    handle = re.search(r"handle=(out-[0-9a-f]{12})", masked[0]["content"])
    assert handle is not None
    archive = [
        ArchivedMessage(i, 0, False, m)
        for i, m in enumerate(from_openai(await manager.get_messages()))
    ]
    page = recall_archived(archive, handle.group(1))
    assert page.text == f"result 0: {OUTPUT}"


async def test_when_masking_is_not_enough_the_view_is_summarized() -> None:
    history = conversation(30)  # many small outputs: nothing large to mask
    transport = summarizer()
    hooks = Recorder()
    manager = await filled(
        CompactingContextManager(
            max_tokens=3_000,
            transport=transport,
            hooks=hooks,
            settings=CompactionSettings(mask_tool_outputs=True),
        ),
        history,
    )
    await manager.get_messages_for_request()
    assert len(transport.requests) == 1
    assert hooks.named("context:post_compact")[-1]["summary"] == "new"
