"""Child process for the crash-safety tests: start a ``replace_history`` and get killed.

Run as ``python -m tests.stores._crash_helper KIND TARGET SESSION MODE`` where KIND is
``sqlite`` (TARGET a file path) or ``postgres`` (TARGET a DSN). The child prints
``ready`` just before calling ``replace_history(new_history())``. In ``mid`` mode
(SQLite only) it also prints ``mid`` from inside the transaction — after the old rows
were copied to the archive, before they are deleted — and then blocks, so the parent
can SIGKILL it at a known point of the transaction.
"""

from __future__ import annotations

import asyncio
import sys
import time

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message
from contextfold.stores._sql.store import SQLStore


def old_history(rounds: int = 400) -> list[Message]:
    """A realistic session: questions, tool calls and sizeable tool results."""
    messages: list[Message] = []
    for i in range(rounds):
        messages.append(Message.user(f"step {i}: please look at file_{i}.py " + "q" * 80))
        messages.append(
            Message("assistant", [TextBlock("checking"), ToolUseBlock(f"t{i}", "read", {"i": i})])
        )
        messages.append(Message("user", [ToolResultBlock(f"t{i}", f"line {i}\n" * 60)]))
        messages.append(Message.assistant(f"file_{i}.py looks fine"))
    return messages


def new_history() -> list[Message]:
    """What the child writes: a summary plus a large rewritten tail (many rows to insert)."""
    return [
        Message.user("summary of earlier work " + "s" * 500),
        Message.assistant("understood, continuing"),
        *(Message.user(f"rewritten {i} " + "r" * 300) for i in range(3000)),
    ]


def _emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def _main(kind: str, target: str, session_id: str, mode: str) -> None:
    if kind == "sqlite":
        from contextfold.stores.sqlite import SQLiteContextStore, connect

        conn = await connect(target)
        if mode == "mid":

            def trace(statement: str) -> None:
                if statement.lstrip().startswith("DELETE FROM contextfold_messages"):
                    _emit("mid")
                    time.sleep(3600)  # blocks the connection's thread inside the transaction

            await conn.set_trace_callback(trace)
        store: SQLStore = SQLiteContextStore(conn, session_id)
    else:
        from contextfold.stores.postgres import PostgresContextStore
        from contextfold.stores.postgres import connect as pg_connect

        store = PostgresContextStore(await pg_connect(target), session_id)
    new = new_history()
    _emit("ready")
    await store.replace_history(new)
    _emit("done")
    await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run(_main(*sys.argv[1:5]))
