"""``contextfold fidelity``: how much of what the next model needs survives compaction.

Runs :func:`contextfold_harness.fidelity.run_fidelity` (the ``contextfold-harness``
package, imported when the command runs) offline with the extractive summarizer,
or with ``--provider`` against a real model, which then also judges the probes that are
not exact identifiers. Prints a table (a row per probe kind, a column per depth), or
JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from contextfold.cli._commands import CLIError, _spinner, load_harness, make_transport
from contextfold.cli._extractive import ExtractiveSummarizer
from contextfold.cli._output import print_table
from contextfold.transports.base import CompletionTransport, model_of

__all__ = ["add_fidelity_parser", "cmd_fidelity"]


def add_fidelity_parser(commands: Any, provider_args: Any) -> None:
    """Register ``fidelity`` on the CLI's subparsers."""
    fidelity = commands.add_parser(
        "fidelity",
        help="measure what survives compaction (planted probes)",
        description="Compact seeded long sessions (coding, support, research) 1, 3 and 10 "
        "times and report, per probe kind, the share of planted facts that survive. Offline "
        "with the extractive summarizer; with --provider a real model summarizes and judges. "
        "Needs the contextfold-harness package.",
    )
    fidelity.add_argument(
        "--kinds",
        help="session kinds, comma-separated, or 'heldout' / 'heldout2' / 'heldout3' / "
        "'heldout4' / 'heldout5' / 'heldout6' / 'heldout7' / 'heldout8' / 'heldout9' / "
        "'heldout10' / 'heldout11' / 'heldout12' / 'heldout13' / 'heldout14' / "
        "'heldout15' / 'heldout16' / 'heldout17' / 'heldout18' / 'heldout19' / "
        "'heldout20' / 'heldout21' for the "
        "held-out kinds the summarizer and the fact ledger were not written against "
        "(default: the tuned kinds: coding, support, research)",
    )
    fidelity.add_argument("--seeds", type=int, default=5, help="sessions per kind (default 5)")
    fidelity.add_argument("--seed-start", type=int, default=0, help="first seed (default 0)")
    fidelity.add_argument(
        "--depths", default="1,3,10", help="compaction counts to report (default 1,3,10)"
    )
    fidelity.add_argument(
        "--user-message-budget",
        type=int,
        default=2_000,
        help="tokens of the user's messages kept verbatim (default 2000; 0: summary only)",
    )
    fidelity.add_argument(
        "--fact-budget",
        type=int,
        default=1_000,
        help="tokens of facts the fact ledger restores after a summary (default 1000; "
        "0: the summary alone)",
    )
    fidelity.add_argument(
        "--lossy",
        type=float,
        metavar="SHARE",
        help="offline: summarize with a stub that keeps only this share (0-1) of the facts "
        "it is shown, like a model that drops details",
    )
    fidelity.add_argument("--instructions", help="compaction instructions for the summarizer")
    provider_args(fidelity)
    fidelity.add_argument("--json", action="store_true", help="print JSON")


def _kinds(text: str | None, tuned: Sequence[str], sets: dict[str, Sequence[str]]) -> list[str]:
    if text is None:
        return list(tuned)
    known = [*tuned, *(kind for kinds in sets.values() for kind in kinds)]
    kinds: list[str] = []
    for name in (k.strip() for k in text.split(",") if k.strip()):
        if name in sets:
            kinds += sets[name]
            continue
        if name not in known:
            raise CLIError(
                f"--kinds: unknown kind {name!r} (choose from {', '.join(known)}, or "
                f"{', '.join(sets)})"
            )
        kinds.append(name)
    if not kinds:
        raise CLIError("--kinds needs at least one kind")
    return kinds


def _depths(text: str) -> list[int]:
    try:
        depths = [int(d) for d in text.split(",") if d.strip()]
    except ValueError:
        raise CLIError(f"--depths must be comma-separated numbers, got {text!r}") from None
    if not depths or min(depths) < 1 or max(depths) > 50:
        raise CLIError(f"--depths must be numbers from 1 to 50, got {text!r}")
    return depths


async def cmd_fidelity(args: argparse.Namespace) -> int:
    depths = _depths(args.depths)
    harness = load_harness("fidelity", "fidelity")
    kinds = _kinds(
        args.kinds,
        harness.SESSION_KINDS,
        {name: kinds for name, (kinds, _) in harness.HELDOUT_SETS.items()},
    )
    if args.fact_budget < 0:
        raise CLIError(f"--fact-budget must be >= 0, got {args.fact_budget}")
    if args.lossy is not None and not 0 <= args.lossy <= 1:
        raise CLIError(f"--lossy must be a share from 0 to 1, got {args.lossy}")
    if args.lossy is not None and args.provider:
        raise CLIError("--lossy is an offline stub; leave out --provider")
    if not 1 <= args.seeds <= 100:
        raise CLIError(f"--seeds must be between 1 and 100, got {args.seeds}")
    if args.user_message_budget < 0:
        raise CLIError(f"--user-message-budget must be >= 0, got {args.user_message_budget}")
    if args.model and not args.provider:
        raise CLIError("--model needs --provider (anthropic or openai)")
    summarizer: CompletionTransport
    judge: CompletionTransport | None = None
    if args.provider:
        summarizer = judge = make_transport(args.provider, args.model)
    elif args.lossy is not None:
        summarizer = harness.LossySummarizer(keep=args.lossy)
    else:
        summarizer = ExtractiveSummarizer()
    sessions = len(kinds) * args.seeds
    try:
        with _spinner(f"compacting {sessions} sessions with {model_of(summarizer).name}"):
            report = await harness.run_fidelity(
                summarizer,
                kinds=kinds,
                seeds=range(args.seed_start, args.seed_start + args.seeds),
                depths=depths,
                judge=judge,
                user_message_budget=args.user_message_budget,
                fact_budget=args.fact_budget,
                instructions=args.instructions,
            )
    finally:
        aclose = getattr(summarizer, "aclose", None)
        if aclose is not None:
            await aclose()
    if args.json:
        sys.stdout.write(json.dumps(report.to_json(), indent=2) + "\n")
        return 0
    judged = f", judged by {report.judge}" if report.judge else ""
    title = f"Probes surviving compaction: {len(report.sessions)} sessions, {report.summarizer}"
    title += judged
    if report.ledger_tokens and args.fact_budget:
        mean = sum(report.ledger_tokens) / len(report.ledger_tokens)
        title += f"; fact ledger ~{mean:,.0f} tokens per summary"
    header = ["probe", *(f"after {d}" for d in report.depths)]
    print_table(title, header, report.rows())
    return 0
