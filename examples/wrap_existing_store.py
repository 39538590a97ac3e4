"""Wrap the conversation store you already have in AutoCompactStore.

Your store only needs ``append`` and ``get_history`` (plus ``replace_history`` if a
rewrite should be one operation in your backend). AutoCompactStore watches the real
input-token counts the agent reports and compacts *your* store in place when they
cross the limit. Runs offline: the model and the summarizer are scripted transports.

    python examples/wrap_existing_store.py
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from contextfold import Agent, AutoCompactStore, CompactionEvent, ContextStore, Message, tool
from contextfold.testing import (
    FunctionTransport,
    StubRequest,
    StubResponse,
    make_text_response,
    make_tool_use_response,
)


class TicketStore(ContextStore):
    """Stand-in for your own store: here, messages kept per ticket in a dict ("the DB")."""

    def __init__(self, db: dict[str, list[dict[str, Any]]], ticket: str) -> None:
        self.db, self.ticket = db, ticket
        self.db.setdefault(ticket, [])

    async def append(self, message: Message) -> None:
        self.db[self.ticket].append(message.to_dict())

    async def get_history(self) -> list[Message]:
        return [Message.from_dict(row) for row in self.db[self.ticket]]

    async def replace_history(self, messages: Sequence[Message]) -> None:
        self.db[self.ticket] = [m.to_dict() for m in messages]  # one write in a real backend


@tool
async def lookup_order(order_id: str) -> str:
    """Look up an order."""
    return f"order {order_id}: 3 items, shipped 2024-05-0{len(order_id) % 9}, " + "x" * 1500


def support_bot(request: StubRequest) -> StubResponse:
    """A scripted model: look the order up once per question, then answer."""
    last = request.messages[-1]
    if last.tool_results:
        return make_text_response("Your order has shipped; tracking is on its way.")
    question = last.text
    order = question.split("#")[-1].rstrip("?")
    return make_tool_use_response("lookup_order", {"order_id": order})


def summarizer(request: StubRequest) -> StubResponse:
    return make_text_response(
        "## User requests and intent\n- The customer asked where several orders are.\n"
        "## Current state\n- Every order so far has shipped."
    )


def report(event: CompactionEvent) -> None:
    # "compacted": summarized while the agent waited; "committed": a summary prepared in
    # the background was spliced in without a model call (see docs/library.md, preparation)
    if event.phase == "after" and event.outcome in ("compacted", "committed"):
        print(
            f"  compacted: {event.messages_before} -> {event.messages_after} messages, "
            f"~{event.tokens_before:,} -> ~{event.tokens_after:,} tokens ({event.outcome})"
        )


async def main() -> None:
    db: dict[str, list[dict[str, Any]]] = {}
    store = AutoCompactStore(
        TicketStore(db, "ticket-42"),
        FunctionTransport(support_bot, model="support-model"),
        max_tokens=2_000,  # a small limit so this short demo compacts
        keep_recent=2,
        summary_transport=FunctionTransport(summarizer),
        on_event=report,
    )
    agent = Agent("You are a support agent.", store.transport, tools=[lookup_order])
    for n in range(1, 7):
        await agent.run(f"Where is my order #A{n}00{n}?", store)
        print(f"question {n}: {len(db['ticket-42'])} messages in the ticket store")
    first = Message.from_dict(db["ticket-42"][0])
    print("your store now starts with the summary:", "<summary>" in first.text)
    print("compactions:", store.compactions)


if __name__ == "__main__":
    asyncio.run(main())
