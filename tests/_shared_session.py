"""Many writers on one session: the scenario of the cross-connection and cross-process tests.

Each writer appends agent rounds (a question, a tool call, its result, an answer), every
message tagged ``w<writer>m<n>`` so it can be found again. A round is appended under a
*turn lock* shared by all writers (a file lock between processes, an ``asyncio.Lock``
inside one): two agents' turns must not interleave, or the history is invalid whatever
the store does. Before each round the writer reads the history, as an agent does before
a model call, and checks it with ``validate_history`` in both dialects.

Compacting writers wrap their store in ``AutoCompactStore`` with a small window and
report a usage over the limit every other round, outside the turn lock, so compactions
run while the others append. Their stub summarizer records, under a fresh summary id,
every tag and every earlier summary id its request showed (:class:`SummaryLog`). A
message that left the live history is accounted for only when a committed summary (one
found in the live history or the archive) saw it, directly or through the summaries it
anchored on (:func:`verify`).

Run as a child process: ``python -m tests._shared_session KIND TARGET SESSION WRITER
ROUNDS LOGDIR compact|bare`` (``KIND`` is ``sqlite`` with a file path or ``postgres``
with a DSN); it prints its counts as one JSON line. ``bench/multiprocess.py`` runs the
same scenario and prints the numbers.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import re
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contextfold import AutoCompactStore, CompactionEvent, Message, ModelInfo
from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.compaction import CompactionSettings
from contextfold.context import ContextStore
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from contextfold.validation import history_problems

TAG = re.compile(r"\bw\d+m\d+\b")
SUMMARY_ID = re.compile(r"\bsummary-[0-9a-f]{12}\b")
WINDOW = ModelInfo("shared-session-stub", 4_000, 500)  # limit: 0.75 x 4,000 = 3,000 tokens
OVER_LIMIT = 3_900

ROOT = Path(__file__).resolve().parent.parent

TurnLock = Callable[[], AbstractAsyncContextManager[object]]


def round_messages(writer: int, r: int) -> list[Message]:
    """The four messages of writer ``writer``'s round ``r``, the same on every call."""
    t = [f"w{writer}m{4 * r + i}" for i in range(4)]
    call = f"call-w{writer}-{r}"
    return [
        Message.user(f"{t[0]} please check module {r}"),
        Message("assistant", [TextBlock(f"{t[1]} reading"), ToolUseBlock(call, "probe", {"r": r})]),
        Message("user", [ToolResultBlock(call, f"{t[2]} result of module {r}")]),
        Message.assistant(f"{t[3]} module {r} is fine"),
    ]


def expected_messages(writers: int, rounds: int) -> dict[str, Message]:
    """Every message the writers append, by tag."""
    out: dict[str, Message] = {}
    for w in range(writers):
        for r in range(rounds):
            for m in round_messages(w, r):
                tags = TAG.findall(m.text) or TAG.findall(str(m.content))
                out[tags[0]] = m
    return out


class SummaryLog:
    """A stub summarizer that records what every summary it writes has seen.

    Entries go to ``path`` (one JSON line each) when given, else to :attr:`entries`.
    """

    def __init__(self, path: Path | None = None, *, delay: float = 0.02) -> None:
        self.path, self.delay = path, delay
        self.entries: list[dict[str, Any]] = []

    async def summarize(self, request: StubRequest) -> StubResponse:
        await asyncio.sleep(self.delay)  # others append while the summary is written
        sid = f"summary-{uuid.uuid4().hex[:12]}"
        entry = {
            "id": sid,
            "tags": sorted(set(TAG.findall(request.text))),
            "refs": sorted(set(SUMMARY_ID.findall(request.text))),
        }
        if self.path is None:
            self.entries.append(entry)
        else:
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")
        return make_text_response(f"## Current state\n{sid} (the earlier work is summarized)")

    def transport(self) -> FunctionTransport:
        return FunctionTransport(self.summarize, model=WINDOW)


def read_logs(directory: Path) -> list[dict[str, Any]]:
    """Every :class:`SummaryLog` entry written under ``directory``."""
    return [
        json.loads(line)
        for path in sorted(directory.glob("summaries-*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def compacting(store: ContextStore, log: SummaryLog, outcomes: Counter[str]) -> AutoCompactStore:
    """``store`` wrapped the way every compacting writer wraps it."""

    def record(event: CompactionEvent) -> None:
        if event.phase == "after" and event.outcome:
            outcomes[event.outcome] += 1

    return AutoCompactStore(
        store,
        log.transport(),
        keep_recent=6,
        on_event=record,
        settings=CompactionSettings(proactive=False, max_backoff=0),
    )


async def write_rounds(
    store: ContextStore, writer: int, rounds: int, turn: TurnLock, counts: Counter[str]
) -> None:
    """Append ``rounds`` rounds as writer ``writer``, checking each history read first.

    ``counts`` gets ``reads``, ``invalid_reads`` (reads ``validate_history`` rejects in
    the OpenAI or Anthropic dialect) and ``appended``.
    """
    for r in range(rounds):
        async with turn():
            history = await store.get_history()
            counts["reads"] += 1
            if any(history_problems(history, d) for d in ("openai", "anthropic")):
                counts["invalid_reads"] += 1
            for message in round_messages(writer, r):
                await store.append(message)
                counts["appended"] += 1
        if isinstance(store, AutoCompactStore) and r % 2 == 1:
            # Growing usage, so that no attempt waits for usage to grow after the last one.
            await store.add_context_tokens(OVER_LIMIT + 200 * r, 1)


@contextlib.asynccontextmanager
async def file_lock(path: Path) -> AsyncIterator[object]:
    """An exclusive ``flock`` on ``path``, taken off the event loop."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        await asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX)
        yield None
    finally:
        os.close(fd)  # closing releases the lock


@dataclass
class Verdict:
    """How the appended messages ended up (see :func:`verify`)."""

    appended: int
    live: int
    summarized: int
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    invalid_final: list[str] = field(default_factory=list)


def verify(
    history: Sequence[Message],
    archive: Sequence[Any],
    transcript: Sequence[Message],
    expected: dict[str, Message],
    summaries: Sequence[dict[str, Any]],
) -> Verdict:
    """Account for every expected message.

    ``archive`` holds :class:`~contextfold.stores.base.ArchivedMessage` s. A message is
    *live* when the live history holds it exactly once, *summarized* when it is not live
    and a committed summary saw it; otherwise it is *lost*. It is *duplicated* when the
    live history holds it more than once or the transcript does not hold it exactly once.
    """
    by_id = {entry["id"]: entry for entry in summaries}
    committed = {s for m in history for s in SUMMARY_ID.findall(m.text)}
    committed |= {s for a in archive if a.synthetic for s in SUMMARY_ID.findall(a.message.text)}
    covered: set[str] = set()
    seen: set[str] = set()
    todo = [s for s in committed if s in by_id]
    while todo:
        sid = todo.pop()
        if sid in seen:
            continue
        seen.add(sid)
        covered.update(by_id[sid]["tags"])
        todo.extend(r for r in by_id[sid]["refs"] if r in by_id)
    live_count = Counter(_key(m) for m in history)
    transcript_count = Counter(_key(m) for m in transcript)
    verdict = Verdict(appended=len(expected), live=0, summarized=0)
    for tag, message in expected.items():
        key = _key(message)
        live = live_count[key]
        if live > 1 or transcript_count[key] != 1:
            verdict.duplicated.append(tag)
        if live >= 1:
            verdict.live += 1
        elif tag in covered:
            verdict.summarized += 1
        else:
            verdict.lost.append(tag)
    verdict.invalid_final = [
        p for dialect in ("openai", "anthropic") for p in history_problems(history, dialect)
    ]
    return verdict


def _key(message: Message) -> str:
    return json.dumps(message.to_dict(), sort_keys=True)


async def open_store(
    kind: str, target: str, session_id: str, *, single_flight: bool = True
) -> tuple[ContextStore, Any]:
    """A store on ``session_id`` with its own connection, and that connection.

    ``single_flight=False`` gives a store whose ``compaction_lock`` lets everyone in,
    so compactions overlap and only the commit's compare-and-swap keeps them apart.
    """
    from contextfold.postgres import PostgresContextStore
    from contextfold.postgres import connect as pg_connect
    from contextfold.sqlite import SQLiteContextStore, connect

    conn: Any = await (connect(target) if kind == "sqlite" else pg_connect(target))
    cls: type[Any] = SQLiteContextStore if kind == "sqlite" else PostgresContextStore
    if not single_flight:
        cls = type(f"Unlocked{cls.__name__}", (cls,), {"compaction_lock": _no_lock})
    return cls(conn, session_id), conn


@contextlib.asynccontextmanager
async def _no_lock(self: object) -> AsyncIterator[bool]:
    yield True


def _spawn(
    kind: str, target: str, sid: str, writer: int, rounds: int, logdir: Path, mode: str
) -> Any:
    args = [kind, target, sid, str(writer), str(rounds), str(logdir), mode]
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    return subprocess.Popen(
        [sys.executable, "-m", "tests._shared_session", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
    )


async def run_processes(
    kind: str, target: str, sid: str, rounds: int, logdir: Path, *, compacting: int = 4
) -> Counter[str]:
    """``compacting`` compacting processes and one bare appender; their summed counts.

    Summary logs go to ``logdir`` (read them with :func:`read_logs`). Raises
    :class:`RuntimeError` when a child fails.
    """
    modes = ["compact"] * compacting + ["bare"]
    children = [_spawn(kind, target, sid, w, rounds, logdir, m) for w, m in enumerate(modes)]
    outputs = await asyncio.gather(*(asyncio.to_thread(c.communicate) for c in children))
    if any(c.returncode for c in children):
        raise RuntimeError(f"a writer failed: {[c.returncode for c in children]}")
    total: Counter[str] = Counter()
    for out, _ in outputs:
        total.update(json.loads(out))
    return total


async def run_connections(
    kind: str, target: str, sid: str, rounds: int, writers: int, *, single_flight: bool = True
) -> tuple[Counter[str], list[dict[str, Any]]]:
    """``writers`` stores on their own connections in this process, the last one bare.

    Returns the summed counts and the summary log.
    """
    counts: Counter[str] = Counter()
    log = SummaryLog()
    turn = asyncio.Lock()
    opened = [
        await open_store(kind, target, sid, single_flight=single_flight) for _ in range(writers)
    ]
    try:
        stores = [
            compacting(store, log, counts) if w < writers - 1 else store
            for w, (store, _) in enumerate(opened)
        ]
        await asyncio.gather(
            *(write_rounds(s, w, rounds, lambda: turn, counts) for w, s in enumerate(stores))
        )
    finally:
        for _, conn in opened:
            await conn.close()
    return counts, log.entries


async def account(
    store: Any, writers: int, rounds: int, summaries: Sequence[dict[str, Any]]
) -> Verdict:
    """:func:`verify` on ``store``'s session after ``writers`` wrote ``rounds`` rounds each.

    ``store`` is a SQLite or PostgreSQL store (it needs the archive).
    """
    return verify(
        await store.get_history(),
        await store.get_archive(),
        await store.get_full_transcript(),
        expected_messages(writers, rounds),
        summaries,
    )


async def _child(argv: Sequence[str]) -> None:
    kind, target, session_id, writer, rounds, logdir, mode = argv
    directory = Path(logdir)
    store, conn = await open_store(kind, target, session_id)
    counts: Counter[str] = Counter()
    log = SummaryLog(directory / f"summaries-{writer}.jsonl")
    writing = compacting(store, log, counts) if mode == "compact" else store
    try:
        await write_rounds(
            writing, int(writer), int(rounds), lambda: file_lock(directory / "turn.lock"), counts
        )
    finally:
        await conn.close()
    print(json.dumps(dict(counts)), flush=True)


if __name__ == "__main__":
    asyncio.run(_child(sys.argv[1:]))
