"""The async bodies of ``contextfold demo``, ``compact`` and ``sessions``.

Each command takes the parsed arguments, writes its output, and returns the exit
status. Bad input raises :class:`CLIError`, :class:`ValueError` or a
:class:`~contextfold.errors.ContextfoldError`; :func:`contextfold.cli.main` turns those
into one line on stderr. ``demo`` runs a session of the ``contextfold-harness``
package, which :func:`load_harness` imports when the command runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import io
import json
import os
import sys
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.cli._databases import (
    check_database_path,
    check_writable_database,
    read_session,
    read_sessions,
    upgrade_database,
    write_session,
)
from contextfold.cli._extractive import ExtractiveSummarizer
from contextfold.cli._output import PlainView, make_view, print_table
from contextfold.cli._transcripts import (
    check_transcript,
    dump_transcript,
    dumps,
    read_transcript,
    transcript_items,
)
from contextfold.compaction import CompactionSettings, FactCoverage
from contextfold.compaction._engine import compact_history
from contextfold.compaction._summarizer import parse_summary_message
from contextfold.errors import HistoryConflictError, NothingToUndoError
from contextfold.messages import Message
from contextfold.prompts import load_prompt
from contextfold.stores.base import JournalEntry, last_undoable
from contextfold.tokens import count_tokens
from contextfold.transports.base import (
    CompletionTransport,
    MeteredTransport,
)

__all__ = [
    "PROVIDERS",
    "CLIError",
    "cmd_compact",
    "cmd_demo",
    "cmd_sessions",
    "load_harness",
    "make_transport",
]

# provider -> (API key variable, default model)
PROVIDERS: dict[str, tuple[str, str]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "claude-haiku-4-5"),
    "openai": ("OPENAI_API_KEY", "gpt-4o-mini"),
}


class CLIError(Exception):
    """Bad input the user can fix; its message is printed as one line."""


HARNESS = "contextfold-harness"


def load_harness(module: str, command: str) -> Any:
    """``contextfold_harness.<module>``, or :class:`CLIError` saying what to install.

    The harnesses and demo data (the demo session, the fidelity harness, the fake
    upstream) are a distribution of their own, kept out of the runtime package; the
    commands that run them import it here, when they run, and only here.
    """
    try:
        return importlib.import_module(f"contextfold_harness.{module}")
    except ImportError as exc:
        if exc.name is not None and exc.name.partition(".")[0] == "contextfold_harness":
            raise CLIError(
                f"contextfold {command} needs the '{HARNESS}' package: pip install {HARNESS} "
                "(in a checkout of contextfold: pip install -e ./harness)"
            ) from None
        # the harness is there but something it needs is not (an extra's hint, say)
        raise CLIError(f"contextfold {command}: {exc}") from None


def make_transport(provider: str, model: str | None) -> CompletionTransport:
    """A real provider transport; :class:`CLIError` when its API key is not set."""
    if provider not in PROVIDERS:
        raise CLIError(f"unknown provider {provider!r} (choose from {', '.join(PROVIDERS)})")
    variable, default = PROVIDERS[provider]
    if not os.environ.get(variable):
        raise CLIError(
            f"--provider {provider} needs {variable} to be set; export it, or leave out "
            "--provider to run offline"
        )
    if provider == "anthropic":
        from contextfold.transports.anthropic import AnthropicTransport

        return AnthropicTransport(model or default)
    from contextfold.transports.openai import OpenAITransport

    return OpenAITransport(model or default)


async def _close(transport: object) -> None:
    aclose = getattr(transport, "aclose", None)
    if aclose is not None:
        await aclose()


def _spinner(text: str) -> AbstractContextManager[object]:
    """A spinner on stderr while a real model works (nothing when stderr is not a TTY)."""
    if not sys.stderr.isatty():
        return nullcontext()
    try:
        from rich.console import Console
    except ImportError:
        return nullcontext()
    return Console(stderr=True).status(text)


# -------------------------------------------------------------------------- demo


async def cmd_demo(args: argparse.Namespace) -> int:
    if args.model and not args.provider:
        raise CLIError("--model needs --provider (anthropic or openai)")
    demo = load_harness("demo", "demo")
    db_path = Path(args.db)
    check_database_path(db_path, make_parent=True)
    await check_writable_database(db_path)  # never another application's SQLite file
    transport = make_transport(args.provider, args.model) if args.provider else None
    quiet = args.json
    view = PlainView(io.StringIO()) if quiet else make_view(sys.stdout)
    live = getattr(view, "fancy", False)
    try:
        result = await demo.run_demo(
            turns=args.turns,
            db_path=db_path,
            window=args.window,
            view=view,
            transport=transport,
            delay=args.delay if args.delay is not None else (0.15 if live else 0.0),
        )
    finally:
        if transport is not None:
            await _close(transport)
    if quiet:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print()
        demo.print_summary(result)
    return 0


# ----------------------------------------------------------------------- compact


def _prompt_vars(pairs: Sequence[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.isidentifier():
            raise CLIError(f"--var expects NAME=VALUE, got {pair!r}")
        out[key] = value
    return out


async def cmd_compact(args: argparse.Namespace) -> int:
    transcript = read_transcript(Path(args.file), args.format)
    warning = check_transcript(Path(args.file), transcript)  # refuses broken tool pairs
    if args.model and not args.provider:
        raise CLIError("--model needs --provider (anthropic or openai)")
    if args.keep_recent < 1:
        raise CLIError(f"--keep-recent must be at least 1, got {args.keep_recent}")
    if args.fact_budget is not None and args.fact_budget < 0:
        raise CLIError(f"--fact-budget must be >= 0, got {args.fact_budget}")
    prompt = load_prompt(args.prompt) if args.prompt else None
    if warning is not None:
        print(f"contextfold: warning: {warning}", file=sys.stderr)
    inner = make_transport(args.provider, args.model) if args.provider else ExtractiveSummarizer()
    summarizer = MeteredTransport(inner)  # the summarizer's requests and usage, for the stats
    before = transcript.messages
    started = time.monotonic()
    settings = CompactionSettings(
        keep_recent=args.keep_recent,
        system_prompt=prompt,
        prompt_vars=_prompt_vars(args.var),
        kept_tool_chars=8_000,
    )
    if args.fact_budget is not None:
        settings = settings.replace(fact_budget=args.fact_budget)
    not_smaller: str | None = None
    compacted: list[Message] | None = None
    facts = FactCoverage()
    try:
        with _spinner(f"summarizing {len(before)} messages with {inner.model.name}"):
            if len(before) > args.keep_recent:  # as compact_context: an explicit compaction
                result = await compact_history(
                    before, summarizer, settings.options(), require_smaller=False
                )
                if result is not None:
                    compacted, facts = result.messages, result.facts
    finally:
        await _close(inner)
    # compact_context returns what it was asked for even when that is larger (an
    # explicit compaction); a file rewrite is kept only when it makes the file smaller.
    if compacted is not None and count_tokens(compacted) >= count_tokens(before):
        not_smaller = (
            f"the compacted history (~{count_tokens(compacted):,} tokens) is not smaller than "
            f"the history it would replace (~{count_tokens(before):,} tokens); keep fewer "
            "recent messages (--keep-recent)"
        )
        compacted = None  # a bigger transcript is never written
    after = compacted if compacted is not None else before
    fmt = args.to or transcript.format
    tokens_before, tokens_after = count_tokens(before), count_tokens(after)
    stats = {
        "input": str(args.file),
        "input_format": transcript.format,
        "output_format": fmt,
        "compacted": compacted is not None,
        "messages_before": len(before),
        "messages_after": len(after),
        "tokens_before": tokens_before,
        "tokens_after": tokens_after,
        "summarizer": inner.model.name,
        "summarizer_requests": summarizer.requests,
        "summarizer_tokens": {
            "input": summarizer.usage.input_tokens,
            "output": summarizer.usage.output_tokens,
        },
        "facts": facts.to_json(),
        "duration_s": round(time.monotonic() - started, 3),
    }
    if args.json:
        system, items = transcript_items(after, fmt)
        body: dict[str, Any] = {"stats": stats}
        if system is not None:
            body["system"] = system
        body["messages"] = items
        text = dumps(body, indent=2) + "\n"
    else:
        same = fmt == transcript.format
        text = dump_transcript(
            after,
            fmt,
            jsonl=transcript.jsonl,
            wrapped=transcript.wrapped and same,
            extra=transcript.extra if same else None,
        )
    _write(args.output, text)
    if not args.json:
        what = (
            f"{stats['messages_before']} -> {stats['messages_after']} messages, "
            f"~{stats['tokens_before']:,} -> ~{stats['tokens_after']:,} tokens"
            if compacted is not None
            else "left unchanged"
            if not_smaller
            else f"nothing to compact: {len(before)} messages <= --keep-recent {args.keep_recent}"
        )
        print(f"contextfold: {what} ({inner.model.name})", file=sys.stderr)
        if compacted is not None and facts.found:
            print(
                f"contextfold: facts: {facts.found} found, {facts.kept} kept by the summary, "
                f"{facts.restored} restored after it, {facts.dropped} dropped "
                f"(~{facts.tokens} tokens)",
                file=sys.stderr,
            )
    if not_smaller:
        # Never silently: the summary would outweigh the messages it replaces.
        print(
            f"contextfold: warning: the transcript is left unchanged: {not_smaller}",
            file=sys.stderr,
        )
    if prompt is not None and args.provider is None:
        print("contextfold: note: the offline summarizer ignores --prompt", file=sys.stderr)
    return 0


def _write(output: str | None, text: str) -> None:
    # The CLI runs one task at a time; a blocking write cannot starve anything.
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


# ---------------------------------------------------------------------- sessions


def _message_text(message: Message, limit: int = 300) -> str:
    """A message on a few lines: its text, tool calls and results named."""
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolUseBlock):
            parts.append(f"[calls {block.name} {json.dumps(block.input)[:120]}]")
        elif isinstance(block, ToolResultBlock):
            text = " ".join(b.text for b in block.content if isinstance(b, TextBlock))
            parts.append(f"[result of {block.tool_use_id}: {text}]")
        else:
            parts.append(f"[{type(block).__name__}]")
    text = " ".join(" ".join(parts).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _when(created_at: str) -> str:
    return created_at[:19].replace("T", " ")


def _journal_row(e: JournalEntry) -> tuple[str, ...]:
    """One journal entry as a table row."""
    what = e.outcome or e.kind
    if e.undoes is not None:
        what += f" #{e.undoes}"
    if e.trigger and e.kind != "undo":
        what += f" ({e.trigger})"
    tokens = (
        f"{e.tokens_before:,}->{e.tokens_after:,}"
        if e.tokens_before is not None and e.tokens_after is not None
        else ""
    )
    summarizer = (
        f"{e.summarizer_input_tokens + e.summarizer_output_tokens:,}"
        if e.summarizer_requests
        else ""
    )
    facts = ""
    if e.facts:
        facts = f"{e.facts.get('kept', 0) + e.facts.get('restored', 0)}/{e.facts.get('found', 0)}"
    return (
        str(e.number),
        _when(e.created_at)[11:],
        what,
        f"{e.messages_before}->{e.messages_after}" if e.messages_before is not None else "",
        tokens,
        summarizer,
        f"{e.waited_s:.2f}s" if e.waited_s is not None else "",
        facts,
    )


async def _session_show(path: Path, session_id: str, as_json: bool) -> int:
    async with read_session(path, session_id) as store:
        history = await store.get_history()
        records = await store.get_compactions()
        journal = await store.journal()
        archived = await store.get_archive()
        tokens = await store.get_context_tokens()
    data = {
        "session_id": session_id,
        "messages": len(history),
        "tokens": count_tokens(history),
        "input_tokens": tokens[0],
        "output_tokens": tokens[1],
        "archived_messages": len(archived),
        "compactions": [dataclasses.asdict(record) for record in records],
        "journal": [entry.to_json() for entry in journal],
    }
    if as_json:
        print(json.dumps(data, indent=2))
        return 0
    print(
        f"session {session_id} in {path}: {len(history)} messages (~{data['tokens']:,} "
        f"tokens), {len(records)} compaction(s), {len(archived)} message(s) archived"
    )
    if journal:
        print_table(
            "journal",
            ("#", "time", "what", "msgs", "tokens", "summ. tok", "wait", "facts"),
            [_journal_row(e) for e in journal],
        )
    return 0


async def _session_diff(path: Path, session_id: str) -> int:
    async with read_session(path, session_id) as store:
        records = await store.get_compactions()
        archived = await store.get_archive()
        history = await store.get_history()
        journal = await store.journal()
    found = last_undoable(journal)
    number = None if found is None else found.compaction
    if number is None:
        state = "never compacted" if not records else "every compaction is undone"
        print(f"session {session_id} in {path}: {state}")
        return 0
    last = next((r for r in records if r.number == number), None)
    if last is None:
        raise CLIError(
            f"{path}: the journal of session {session_id!r} names compaction {number}, "
            "which has no record; the database was damaged"
        )
    entry = found
    replaced = [a.message for a in archived if a.compaction == number]
    summary = entry.summary if entry is not None else None
    if summary is None:  # a rewrite nothing journaled: read what it wrote
        front = last.kept_before
        written = history[front : front + last.inserted] if front is not None else history[:1]
        parsed = [parse_summary_message(m) for m in written]
        summary = "\n".join(
            p[0] if p is not None else m.text for p, m in zip(parsed, written, strict=True)
        )
    print(
        f"compaction #{number} of session {session_id} ({_when(last.created_at)}): "
        f"{len(replaced)} message(s), ~{count_tokens(replaced):,} tokens, replaced by "
        "the summary below"
    )
    for message in replaced:
        print(f"- {message.role}: {_message_text(message)}")
    print("+ summary:")
    for line in summary.strip().splitlines():
        print(f"+   {line}")
    return 0


async def _session_undo(path: Path, session_id: str, as_json: bool) -> int:
    async with write_session(path, session_id) as store:
        before = len(await store.get_history())
        try:
            entry = await store.undo()
        except (NothingToUndoError, HistoryConflictError) as exc:
            raise CLIError(f"{path}: {exc}") from None
        after = len(await store.get_history())
    if as_json:
        print(json.dumps({"session_id": session_id, "messages": after, "undo": entry.to_json()}))
        return 0
    print(
        f"undid compaction #{entry.undoes} of session {session_id}: {before} -> {after} "
        f"messages (journal entry #{entry.number}; the summary stays in the archive)"
    )
    return 0


async def _upgrade(path: Path) -> int:
    before, after = await upgrade_database(path)
    if before == after:
        print(f"{path}: already at schema version {after}")
    else:
        print(f"{path}: upgraded from schema version {before} to {after}")
    return 0


_SESSIONS_USAGE = (
    "usage: contextfold sessions DB | sessions show DB SESSION [--json] | "
    "sessions diff DB SESSION | sessions undo DB SESSION [--json] | sessions upgrade DB"
)


async def cmd_sessions(args: argparse.Namespace) -> int:
    words: list[str] = args.words
    if words[0] in ("show", "diff", "undo") and len(words) == 3:
        check_database_path(Path(words[1]), must_exist=True)
        if words[0] == "show":
            return await _session_show(Path(words[1]), words[2], args.json)
        if words[0] == "undo":
            return await _session_undo(Path(words[1]), words[2], args.json)
        return await _session_diff(Path(words[1]), words[2])
    if words[0] == "upgrade" and len(words) == 2:
        check_database_path(Path(words[1]), must_exist=True)
        return await _upgrade(Path(words[1]))
    if len(words) != 1:
        raise CLIError(_SESSIONS_USAGE)
    path = Path(words[0])
    rows = await read_sessions(path)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print(f"no sessions in {path}")
        return 0
    print_table(
        f"{len(rows)} session(s) in {path}",
        ("session", "messages", "preview", "created", "input tok", "output tok", "compactions"),
        [
            (
                r["session_id"],
                str(r["messages"]),
                r["preview"][:40] + ("..." if len(r["preview"]) > 40 else ""),
                r["created_at"][:19].replace("T", " "),
                f"{r['input_tokens']:,}",
                f"{r['output_tokens']:,}",
                str(r["compactions"]),
            )
            for r in rows
        ],
    )
    return 0
