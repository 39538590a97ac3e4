"""What survives compaction: planted probes after 1, 3 and 10 successive compactions.

Run from the repository root (offline)::

    python bench/fidelity.py                     # the table below
    python bench/fidelity.py --provider openai   # any `contextfold fidelity` options

Fifteen seeded sessions (five each of a coding agent, customer support and research,
``contextfold_harness.fidelity``) plant seven probes each in the part the first compaction
summarizes: three exact identifiers, two artifact states, a decision overridden by a
later user correction, and the pending next step. Each session is compacted ten times
in a row with unrelated work appended in between; a cell is the share of probes still
in the compacted history (identifiers by exact match, the rest by their expected words
on one line). Side by side: the offline extractive summarizer with the user's own
words kept verbatim (``user_message_budget=2000``, the default) and the summary alone
(``user_message_budget=0``).
"""

from __future__ import annotations

import asyncio
import sys

from contextfold.cli import main as cli_main
from contextfold.cli._extractive import ExtractiveSummarizer
from contextfold_harness.fidelity import PROBE_KINDS, run_fidelity

DEPTHS = (1, 3, 10)


async def table() -> None:
    with_words = await run_fidelity(ExtractiveSummarizer(), depths=DEPTHS)
    alone = await run_fidelity(ExtractiveSummarizer(), depths=DEPTHS, user_message_budget=0)
    heads = [f"{label}, after {d}" for label in ("with words", "alone") for d in DEPTHS]
    print("| probe | planted | " + " | ".join(heads) + " |")
    print("|---|---" + "|---" * len(heads) + "|")
    for kind in PROBE_KINDS:
        row = [f"{r.share(kind, d):.0%}" for r in (with_words, alone) for d in DEPTHS]
        print(f"| {kind} | {with_words.total[kind][DEPTHS[0]]} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(cli_main(["fidelity", *sys.argv[1:]]))
    asyncio.run(table())
