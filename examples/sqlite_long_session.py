"""A long research session on SQLite: it compacts, and nothing is ever lost.

The agent reads forty long pages through a tool. AutoCompactStore keeps the live
history inside a small window by summarizing; the SQLite store archives every
message a compaction replaces, so the full original transcript stays readable and
the session survives a restart. Runs offline with scripted transports.

    python examples/sqlite_long_session.py
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from contextfold import Agent, AutoCompactStore, CompactionEvent, tool
from contextfold.sqlite import SQLiteContextStore, connect
from contextfold.testing import (
    FunctionTransport,
    StubRequest,
    StubResponse,
    make_text_response,
    make_tool_use_response,
)

PAGES = 40


@tool
async def fetch_page(number: int) -> str:
    """Fetch one page of the report."""
    return f"Page {number}. " + f"Finding {number}: demand grew {number % 7 + 1}%. " * 60


def researcher(request: StubRequest) -> StubResponse:
    """Ask for the page named in the latest question, then note what it said."""
    last = request.messages[-1]
    if last.tool_results:
        return make_text_response("Noted.")
    number = int(last.text.rsplit(" ", 1)[-1])
    return make_tool_use_response("fetch_page", {"number": number})


def summarizer(request: StubRequest) -> StubResponse:
    pages = sorted({int(w) for w in request.text.replace(".", " ").split() if w.isdigit()})
    return make_text_response(f"## Current state\n- Pages read so far include {pages[-5:]}.")


def report(event: CompactionEvent) -> None:
    if event.phase == "after" and event.outcome == "compacted":
        print(
            f"  compaction: {event.messages_before} -> {event.messages_after} messages, "
            f"~{event.tokens_before:,} -> ~{event.tokens_after:,} tokens"
        )


async def main(db_path: Path) -> None:
    conn = await connect(db_path)
    try:
        inner = SQLiteContextStore(conn)
        store = AutoCompactStore(
            inner,
            FunctionTransport(researcher),
            max_tokens=6_000,
            keep_recent=4,
            summary_transport=FunctionTransport(summarizer),
            on_event=report,
        )
        agent = Agent("You read reports page by page.", store.transport, [fetch_page])
        for page in range(1, PAGES + 1):
            await agent.run(f"Read page {page}", store)
        live = await inner.get_history()
        archive = await inner.get_archive()
        transcript = await inner.get_full_transcript()
        records = await inner.get_compactions()
        session = inner.session_id
    finally:
        await conn.close()

    print(f"{store.compactions} compactions; live history: {len(live)} messages")
    print(f"archived: {len(archive)} messages (earlier summaries included), {len(records)} records")
    print(f"full transcript: {len(transcript)} messages, first: {transcript[0].text!r}")

    # A new process (here: a new connection) picks the session up where it was.
    conn = await connect(db_path)
    try:
        reopened = SQLiteContextStore(conn, session)
        print(
            f"after reopening: {len(await reopened.get_history())} live messages, "
            f"tokens (in, out) = {await reopened.get_context_tokens()}"
        )
    finally:
        await conn.close()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(main(Path(folder) / "session.db"))
