"""Terminal output for the CLI: a live context gauge, plain lines, tables.

Two views share one small interface. :class:`LiveView` (a terminal with ``rich``
installed) draws a progress bar of context usage against the window that redraws in
place, printing event lines above it. :class:`PlainView` (a pipe, CI, or no
``rich``) prints one plain line per turn and per event: no control codes, no colour.
:func:`print_table` renders key/value or column tables with ``rich`` when available
and as aligned text otherwise.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, Protocol, TextIO

__all__ = ["DemoView", "LiveView", "PlainView", "make_view", "print_table"]


class DemoView(Protocol):
    fancy: bool  # may print non-ASCII symbols and markup

    def start(self, *, model: str, window: int, limit: int, turns: int) -> None: ...
    def turn(self, number: int, prompt: str) -> None: ...
    def usage(self, tokens: int, calls: int) -> None: ...
    def line(self, text: str) -> None: ...
    def turn_done(self, tokens: int, calls: int) -> None: ...
    def stop(self) -> None: ...


def _rich_available() -> bool:
    try:
        import rich  # noqa: F401
    except ImportError:
        return False
    return True


def _is_terminal(stream: TextIO) -> bool:
    return stream.isatty() and os.environ.get("TERM") != "dumb"


def make_view(stream: TextIO | None = None) -> DemoView:
    """A live view on an interactive terminal with ``rich``; plain lines otherwise."""
    stream = stream or sys.stdout
    if _is_terminal(stream) and _rich_available():
        return LiveView(stream)
    return PlainView(stream)


def _pct(tokens: int, window: int) -> str:
    return f"{tokens / window:.0%}" if window else "-"


class PlainView:
    """One line per turn and per event; safe for pipes and logs."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.window = self.turns = 0
        self.fancy = False

    def _print(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def start(self, *, model: str, window: int, limit: int, turns: int) -> None:
        self.window, self.turns = window, turns
        self._print(
            f"contextfold demo: {model}, window {window:,} tokens, compaction above "
            f"{limit:,} tokens, {turns} turns"
        )

    def turn(self, number: int, prompt: str) -> None:
        short = prompt if len(prompt) <= 72 else prompt[:69] + "..."
        self._print(f"turn {number:>2}/{self.turns}  user: {short}")

    def usage(self, tokens: int, calls: int) -> None:
        """Per-call updates are left out of plain output: a line per turn is enough."""

    def line(self, text: str) -> None:
        self._print(text)

    def turn_done(self, tokens: int, calls: int) -> None:
        self._print(
            f"         context {tokens:,}/{self.window:,} tokens ({_pct(tokens, self.window)}), "
            f"{calls} model calls so far"
        )

    def stop(self) -> None:
        self.stream.flush()


class LiveView:
    """A ``rich`` progress bar of context usage that redraws in place."""

    def __init__(self, stream: TextIO) -> None:
        from rich.console import Console

        self.console = Console(file=stream, highlight=False)
        self.fancy = True
        self._progress: Any = None
        self._task: Any = None
        self.limit = 0

    def start(self, *, model: str, window: int, limit: int, turns: int) -> None:
        from rich.progress import BarColumn, Progress, TextColumn

        self.limit = limit
        self.console.print(
            f"[bold]contextfold demo[/]: {model}, window [cyan]{window:,}[/] tokens, "
            f"compaction above [cyan]{limit:,}[/] tokens, {turns} turns"
        )
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=36, complete_style="cyan", finished_style="red"),
            TextColumn("{task.completed:>7,.0f}/{task.total:,.0f} tokens"),
            TextColumn("[dim]turn {task.fields[turn]}/{task.fields[turns]}"),
            TextColumn("[dim]{task.fields[calls]} calls"),
            console=self.console,
            transient=False,
            refresh_per_second=20,
        )
        self._task = self._progress.add_task(
            self._label(0), total=window, turn=0, turns=turns, calls=0
        )
        self._progress.start()

    def _label(self, tokens: int) -> str:
        colour = (
            "red" if tokens > self.limit else "yellow" if tokens > 0.8 * self.limit else "green"
        )
        return f"[{colour}]context[/]"

    def turn(self, number: int, prompt: str) -> None:
        short = prompt if len(prompt) <= 80 else prompt[:77] + "..."
        self._progress.console.print(f"[bold]turn {number}[/] [dim]user:[/] {short}")
        self._progress.update(self._task, turn=number)

    def usage(self, tokens: int, calls: int) -> None:
        self._progress.update(
            self._task, completed=tokens, calls=calls, description=self._label(tokens)
        )

    def line(self, text: str) -> None:
        from rich.text import Text

        self._progress.console.print(Text(text, style="magenta"))

    def turn_done(self, tokens: int, calls: int) -> None:
        self.usage(tokens, calls)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def print_table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    stream: TextIO | None = None,
) -> None:
    """Print a table: ``rich`` when installed (plain in a pipe), aligned text otherwise."""
    stream = stream or sys.stdout
    if _rich_available():
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, title_justify="left", show_header=any(columns))
        for i, column in enumerate(columns):
            numeric = all(_numeric(row[i]) for row in rows)
            table.add_column(column, justify="right" if numeric else "left", overflow="fold")
        for row in rows:
            table.add_row(*row)
        Console(file=stream, highlight=False).print(table)
        return
    widths = [max(len(str(c)) for c in col) for col in zip(columns, *rows, strict=True)]
    print(title, file=stream)
    for row in (columns, *rows) if any(columns) else rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)), file=stream)


def _numeric(cell: str) -> bool:
    return bool(cell) and all(c.isdigit() or c in ",.%" for c in cell)
