"""The ``contextfold`` command line.

::

    contextfold demo       a long agent session that compacts itself (offline by default)
    contextfold compact    compact a transcript file (OpenAI, Anthropic or contextfold JSON/JSONL)
    contextfold sessions   list the sessions in a contextfold SQLite database
    contextfold serve      run the compaction proxy
    contextfold fake-upstream  a local stand-in for the OpenAI and Anthropic APIs (offline demos)
    contextfold fidelity   measure what survives compaction (seeded sessions, planted probes)

Contract: :func:`main` returns 0 on success. Bad input (a missing or malformed file,
an unknown format or provider, a missing API key, a failed model call) prints exactly
one line, ``contextfold: error: ...``, on stderr and returns 1 (2 for a command-line
usage error), never a traceback. ``--json`` output goes to stdout alone. This is the
only place in contextfold that starts an event loop.

The room: :mod:`._commands` (demo, compact, sessions), :mod:`._serve` (serve's
options), :mod:`._extractive` (the offline extractive
summarizer), :mod:`._fidelity` (the fidelity harness's command), :mod:`._transcripts`
(reading and writing transcript files), :mod:`._databases` (opening the SQLite files
``sessions`` reads) and :mod:`._output`. The top face: it may import everything, and
nothing imports it.

``demo``, ``fidelity`` and ``fake-upstream`` run code of the ``contextfold-harness``
package (the demo session, the fidelity harness, the fake upstream), which is not part
of the runtime package: :func:`._commands.load_harness` imports it when one of them
runs, and without it they fail in one line naming what to install.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import os
import socket
import sqlite3
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, NoReturn

from contextfold.cli._commands import (
    PROVIDERS,
    CLIError,
    cmd_compact,
    cmd_demo,
    cmd_sessions,
    load_harness,
)
from contextfold.cli._databases import check_database_path
from contextfold.cli._fidelity import add_fidelity_parser, cmd_fidelity
from contextfold.cli._serve import add_serve_arguments, app_arguments, resolve
from contextfold.cli._transcripts import FORMATS
from contextfold.errors import ContextfoldError

__all__ = ["build_parser", "main"]

_PROG = "contextfold"
_DEFAULT_DB = ".contextfold/demo.db"


def _version() -> str:
    from contextfold import __version__

    return __version__


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other CLI error.

    Leftover arguments are named for what they are (``unknown option: --bogus``,
    ``unexpected argument: b.json``) before a missing COMMAND is reported, so that
    ``contextfold --bogus`` blames the option, not the command it never reached.
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{_PROG}: error: {message} (see '{self.prog} --help')\n")

    def parse_args(  # type: ignore[override]  # one signature is all the CLI needs
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        parsed, rest = self.parse_known_args(args, namespace)
        options = [a for a in rest if a.startswith("-") and a != "-"]
        if options:
            s = "s" if len(options) > 1 else ""
            self.error(f"unknown option{s}: {', '.join(options)}")
        if rest:
            s = "s" if len(rest) > 1 else ""
            self.error(f"unexpected argument{s}: {' '.join(rest)}")
        if getattr(parsed, "command", "") is None:
            self.error("the following arguments are required: COMMAND")
        return parsed


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=_PROG,
        description="Long-running LLM agents that never run out of context.",
    )
    parser.add_argument("--version", action="version", version=f"{_PROG} {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = False  # checked after the unknown options (see _Parser.parse_args)

    demo = commands.add_parser(
        "demo",
        help="run a long agent session that compacts itself",
        description="Run a long coding-agent session on a SQLite store wrapped in "
        "AutoCompactStore, showing context usage and every compaction. Offline by "
        "default (a simulated model and the extractive summarizer). Needs the "
        "contextfold-harness package.",
    )
    demo.add_argument("--turns", type=int, default=12, help="user turns to run (default 12)")
    demo.add_argument(
        "--window",
        type=int,
        default=16_000,
        help="simulated context window in tokens; compaction starts at 75%% (default 16000)",
    )
    demo.add_argument("--db", default=_DEFAULT_DB, help=f"SQLite file (default {_DEFAULT_DB})")
    demo.add_argument(
        "--delay",
        type=float,
        default=None,
        help="pause after each turn in seconds (default: 0.15 on a terminal, else 0)",
    )
    _provider_args(demo)
    demo.add_argument("--json", action="store_true", help="print a JSON summary only")

    compact = commands.add_parser(
        "compact",
        help="compact a transcript file",
        description="Compact a transcript into [summary, acknowledgement, *recent]. Without "
        "--provider the summary is written by an offline extractive summarizer (no LLM).",
    )
    compact.add_argument("file", help="transcript: JSON or JSONL (OpenAI, Anthropic, contextfold)")
    compact.add_argument("--format", choices=FORMATS, help="input dialect (default: detect)")
    compact.add_argument("--to", choices=FORMATS, help="output dialect (default: the input's)")
    compact.add_argument("-o", "--output", help="write here instead of stdout")
    compact.add_argument("--prompt", help="summary prompt: text or a file path (LLM only)")
    compact.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a variable for the prompt (repeatable)",
    )
    compact.add_argument(
        "--keep-recent", type=int, default=6, help="recent messages kept verbatim (default 6)"
    )
    compact.add_argument(
        "--fact-budget",
        type=int,
        default=None,
        metavar="TOKENS",
        help="tokens of facts the summary left out restored after it by the fact ledger, "
        "0 for none (default 1000)",
    )
    _provider_args(compact)
    compact.add_argument(
        "--json",
        action="store_true",
        help='print {"stats", "messages": [...]} as JSON instead of the transcript '
        '(plus "system" for Anthropic output with a system prompt)',
    )

    sessions = commands.add_parser(
        "sessions",
        help="list the sessions in a database; show one's journal, diff or undo its last "
        "compaction",
        usage="contextfold sessions DB | show DB SESSION [--json] | diff DB SESSION | "
        "undo DB SESSION [--json] | upgrade DB",
        description="List the sessions in a contextfold SQLite database (sessions DB); "
        "show one's size and compaction journal (sessions show DB SESSION); print what "
        "its last compaction replaced beside the summary (sessions diff DB SESSION); put "
        "back the history as it was before that compaction, keeping everything appended "
        "since (sessions undo DB SESSION); or upgrade a database written by an older "
        "contextfold in place (sessions upgrade DB). Only undo and upgrade write.",
    )
    sessions.add_argument(
        "words",
        nargs="+",
        metavar="ARG",
        help="DB; show|diff|undo followed by DB SESSION; or upgrade DB",
    )
    sessions.add_argument("--json", action="store_true", help="print JSON")

    serve = commands.add_parser(
        "serve",
        help="run the compaction proxy",
        description="Run the OpenAI/Anthropic-compatible compaction proxy "
        "(needs the 'proxy' extra). Every option can also come from the environment "
        "variable in [brackets] or from the --config TOML file; the command line wins "
        "over the environment, which wins over the file. GET /healthz and GET /metrics "
        "(Prometheus) are answered by the proxy itself, and GET /dashboard with --dashboard.",
    )
    add_serve_arguments(serve)

    fake = commands.add_parser(
        "fake-upstream",
        help="run a local stand-in for the OpenAI and Anthropic APIs",
        description="Serve a fake OpenAI + Anthropic API on localhost, for trying the proxy "
        "offline: it accepts any key, answers every chat request by describing what it "
        "received, writes summaries when the proxy asks, and prints a line per request "
        "(needs the 'proxy' extra and the contextfold-harness package).",
    )
    fake.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    fake.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    fake.add_argument("--reply", help="a fixed reply text (default: describe the request)")
    fake.add_argument(
        "--max-prompt-tokens",
        type=int,
        metavar="TOKENS",
        help="refuse larger chat prompts with each API's context-overflow error "
        "(to see the proxy compact and retry)",
    )
    add_fidelity_parser(commands, _provider_args)
    return parser


def _provider_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--provider",
        choices=sorted(PROVIDERS),
        help="use a real model (needs its API key in the environment)",
    )
    parser.add_argument("--model", help="model name for --provider")


def _import_proxy(module: str = "contextfold.proxy") -> Any:
    """``module`` of the proxy face, or :class:`CLIError` naming the ``proxy`` extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name in ("starlette", "uvicorn") or (exc.name or "").startswith(
            ("starlette.", "uvicorn.")
        ):
            raise CLIError(
                "the proxy needs the 'proxy' extra: pip install 'contextfold[proxy]'"
            ) from None
        raise CLIError(f"the proxy is not available in this installation ({exc})") from None


def _serve(args: argparse.Namespace) -> object:
    """Start the proxy; returns what ``proxy.serve`` returns (maybe a coroutine)."""
    args = resolve(args, os.environ)  # command line > environment > --config file
    proxy = _import_proxy()
    models = {}
    for name, table in args.models.items():
        try:
            models[name] = proxy.ModelSettings.from_mapping(table)
        except (TypeError, ValueError) as exc:
            raise CLIError(f'{args.config}: [models."{name}"] {exc}') from None
    _check_address(args.host, args.port)
    if args.db is not None and args.db.startswith(("postgresql://", "postgres://")):
        asyncio.run(_open_shared_cache(args.db))
    elif args.db is not None:
        asyncio.run(_open_cache(Path(args.db)))
    options: dict[str, Any] = {"db": args.db}
    try:  # every option that is create_app's (a setting, a proxy option...), when set
        options |= app_arguments(args, proxy.ProxyOptions)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if models:
        options["models"] = models
    serve: Callable[..., object] = proxy.serve
    for timeout in ("header_timeout", "body_timeout"):  # serve's own, not create_app's
        if getattr(args, timeout) is not None:
            options[timeout] = getattr(args, timeout)
    return serve(host=args.host, port=args.port, log_level=args.log_level, **options)


def _fake_upstream(args: argparse.Namespace) -> object:
    """Serve :class:`contextfold_harness.fake_upstream.Upstream` until interrupted."""
    if not 0 < args.port < 65_536:
        raise CLIError(f"--port must be between 1 and 65535, got {args.port}")
    if args.max_prompt_tokens is not None and args.max_prompt_tokens < 1:
        raise CLIError(f"--max-prompt-tokens must be positive, got {args.max_prompt_tokens}")
    _import_proxy()  # the 'proxy' extra's hint first: the fake upstream is a Starlette app
    fake = load_harness("fake_upstream", "fake-upstream")
    _check_address(args.host, args.port)
    print(
        f"fake upstream on http://{args.host}:{args.port}: OpenAI base URL "
        f"http://{args.host}:{args.port}/v1, Anthropic http://{args.host}:{args.port} "
        "(any key works; Ctrl-C stops it)",
        flush=True,
    )
    serve: Callable[..., object] = fake.serve
    return serve(
        host=args.host,
        port=args.port,
        reply_text=args.reply,
        max_prompt_tokens=args.max_prompt_tokens,
    )


def _check_address(host: str, port: int) -> None:
    """Bind ``host:port`` and let it go, so that a port in use or an unknown host is a
    one-line error here rather than uvicorn's log and exit status 3. (Another process
    may still take the port in between; uvicorn then reports it.)"""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise CLIError(f"--host {host}: {exc.strerror}") from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            probe.bind(address)
        except OSError as exc:
            raise CLIError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


async def _open_cache(path: Path) -> None:
    """Open and close the summary cache so that a bad ``--db`` fails here, in one line,
    rather than inside uvicorn's startup (a traceback and exit status 3)."""
    from contextfold.proxy._cache import SummaryCache

    check_database_path(path)
    cache = SummaryCache(path)
    try:
        await cache.open()
    except (sqlite3.Error, ContextfoldError) as exc:
        raise CLIError(f"{path}: cannot be used as the summary cache: {exc}") from None
    await cache.close()


async def _open_shared_cache(url: str) -> None:
    """:func:`_open_cache` for a PostgreSQL URL: unreachable, refused or not a
    database fails here in one line (the password never shown)."""
    try:
        from contextfold.proxy._pgcache import PostgresSummaryCache, open_error
    except ImportError as exc:
        raise CLIError(f"--db {url.split(':', 1)[0]}://...: {exc}") from None
    import psycopg

    cache = PostgresSummaryCache(url)
    try:
        await cache.open()
    except psycopg.Error as exc:
        raise CLIError(open_error(url, exc)) from None
    await cache.close()


_SERVERS: dict[str, Callable[[argparse.Namespace], object]] = {
    "serve": _serve,
    "fake-upstream": _fake_upstream,
}

_ASYNC_COMMANDS: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, int]]] = {
    "demo": cmd_demo,
    "compact": cmd_compact,
    "sessions": cmd_sessions,
    "fidelity": cmd_fidelity,
}


def _fail(message: str, status: int = 1) -> int:
    first = " ".join(str(message).split()) or "unknown error"
    print(f"{_PROG}: error: {first}", file=sys.stderr)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    args = build_parser().parse_args(argv)
    try:
        if args.command in _SERVERS:
            try:
                started = _SERVERS[args.command](args)
            except SystemExit as exc:  # uvicorn exits (status 3) when startup fails
                if exc.code in (0, None):
                    return 0
                what = "the proxy" if args.command == "serve" else "the fake upstream"
                return _fail(f"{what} failed to start (its log is above)")
            if inspect.isawaitable(started):
                asyncio.run(_await(started))
            return 0
        return asyncio.run(_ASYNC_COMMANDS[args.command](args))
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print(f"{_PROG}: interrupted", file=sys.stderr)
        return 130
    except (CLIError, ContextfoldError, ValueError, sqlite3.Error) as exc:
        return _fail(str(exc))
    except RecursionError:
        return _fail("the input is nested too deeply to process")
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return _fail(f"{where}{exc.strerror or exc}")


async def _await(awaitable: Any) -> None:
    await awaitable


if __name__ == "__main__":  # pragma: no cover - python -m contextfold.cli
    sys.exit(main())
