"""What survives compaction: planted probes after 1, 3 and 10 successive compactions.

Run from the repository root (offline)::

    python bench/fidelity.py                     # the tables below
    python bench/fidelity.py --provider openai   # any `contextfold fidelity` options

Seeded sessions (``contextfold_harness.fidelity``) plant seven probes each in the part
the first compaction summarizes: three exact identifiers, two artifact states, a
decision overridden by a later user correction, and the pending next step. Each session
is compacted ten times in a row with unrelated work appended in between; a cell is the
share of probes still in the compacted history (identifiers by exact match, the rest by
their expected words on one line).

Eighteen sets of sessions: the three *tuned* kinds (coding, support, research; the
summarizer and the fact ledger were written against them), the *held-out* kinds (written
by someone who had not seen the summarizer nor the ledger; see
``contextfold_harness.fidelity._heldout``; the ledger's rules were widened once after a
first run on them), a *second held-out* set (``_heldout2``: written, and first run,
after the rules last changed), a *third held-out* set (``_heldout3``: written by someone
who saw neither the compaction code nor the other sets), a *fourth held-out* set
(``_heldout4``: likewise written blind to the compaction code and to the three other
sets), a *fifth held-out* set (``_heldout5``: written blind to the compaction code and
to all four other sets), a *sixth held-out* set (``_heldout6``: written blind to the
compaction code and to all five other sets), a *seventh held-out* set (``_heldout7``:
written blind to the compaction code and to all six other sets), an *eighth held-out*
set (``_heldout8``: written blind to the compaction code and to all seven other sets), a
*ninth held-out* set (``_heldout9``: written blind to the compaction code and to all
eight other sets), a *tenth held-out* set (``_heldout10``: written blind to the
compaction code and to all nine other sets), an *eleventh* (``_heldout11``), a *twelfth*
(``_heldout12``), a *thirteenth* (``_heldout13``), a *fourteenth* (``_heldout14``), a
*fifteenth* (``_heldout15``), a *sixteenth* (``_heldout16``), a *seventeenth*
(``_heldout17``), an *eighteenth* (``_heldout18``), a *nineteenth* (``_heldout19``), a
*twentieth* (``_heldout20``) and a *twenty-first* (``_heldout21``), each written blind to the
compaction code and to every other set.
Two summarizers: the offline extractive one, and a *lossy* stub that behaves like a model
dropping details (it keeps a random 35 % of the facts it is shown, drawn afresh per
request). Each with the user's words kept
verbatim (``user_message_budget=2000``) or not (``0``), and the fact ledger on
(``fact_budget=1000``) or off (``0``). ``tokens`` is the mean compacted history after 3
compactions; ``ledger`` the mean ledger section per compaction.

The last table is what the ledger costs: CPU per compaction with the ledger and without
(the same compactions, side by side), and the tokens it adds.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from contextfold.cli import main as cli_main
from contextfold.cli._extractive import ExtractiveSummarizer
from contextfold.compaction import CompactionSettings
from contextfold.compaction._engine import compact_history
from contextfold.transports.base import CompletionTransport
from contextfold_harness.fidelity import (
    HELDOUT2_KINDS,
    HELDOUT3_KINDS,
    HELDOUT4_KINDS,
    HELDOUT5_KINDS,
    HELDOUT6_KINDS,
    HELDOUT7_KINDS,
    HELDOUT8_KINDS,
    HELDOUT9_KINDS,
    HELDOUT10_KINDS,
    HELDOUT11_KINDS,
    HELDOUT12_KINDS,
    HELDOUT13_KINDS,
    HELDOUT14_KINDS,
    HELDOUT15_KINDS,
    HELDOUT16_KINDS,
    HELDOUT17_KINDS,
    HELDOUT18_KINDS,
    HELDOUT19_KINDS,
    HELDOUT20_KINDS,
    HELDOUT21_KINDS,
    HELDOUT_KINDS,
    PROBE_KINDS,
    SESSION_KINDS,
    LossySummarizer,
    generate,
    run_fidelity,
)

DEPTHS = (1, 3, 10)
CONFIGS: tuple[tuple[str, int, int], ...] = (
    ("extractive", 2_000, 1_000),
    ("extractive", 0, 0),
    ("lossy 35%", 0, 0),
    ("lossy 35%", 2_000, 0),
    ("lossy 35%", 0, 1_000),
    ("lossy 35%", 2_000, 1_000),
)


def summarizer(name: str) -> CompletionTransport:
    return ExtractiveSummarizer() if name == "extractive" else LossySummarizer(keep=0.35)


async def survival(label: str, kinds: tuple[str, ...]) -> None:
    print(f"\n{label} ({', '.join(kinds)}; seeds 0-4)\n")
    heads = " | ".join(f"after {d}" for d in DEPTHS)
    print(f"| summarizer | user words | ledger | probe | {heads} | tokens | ledger |")
    print("|---|---|---|---|" + "---|" * len(DEPTHS) + "---|---|")
    for name, words, facts in CONFIGS:
        report = await run_fidelity(
            summarizer(name),
            kinds=kinds,
            depths=DEPTHS,
            user_message_budget=words,
            fact_budget=facts,
        )
        ledger = statistics.mean(report.ledger_tokens)
        for kind in PROBE_KINDS:
            cells = " | ".join(f"{report.share(kind, d):.0%}" for d in DEPTHS)
            size = f"{report.mean_size(3):,.0f}" if kind == PROBE_KINDS[0] else ""
            extra = f"{ledger:,.0f}" if kind == PROBE_KINDS[0] else ""
            print(f"| {name} | {words} | {facts} | {kind} | {cells} | {size} | {extra} |")


async def cost() -> None:
    """CPU per compaction with and without the ledger, on the same histories."""
    print("\nWhat the ledger costs (lossy 35%, user words 0, depth 1-3 of every session)\n")
    cpu: dict[int, list[float]] = {0: [], 1_000: []}
    added: list[int] = []
    for kind in (*SESSION_KINDS, *HELDOUT_KINDS):
        for seed in range(5):
            session = generate(kind, seed, segments=3)
            history = [*session.opening, *session.segments[0]]
            for depth in range(1, 4):
                results = {}
                for budget in (0, 1_000):  # side by side, the same input
                    opts = CompactionSettings(
                        keep_recent=4, user_message_budget=0, fact_budget=budget
                    ).options()
                    start = time.process_time()
                    result = await compact_history(
                        history, LossySummarizer(keep=0.35), opts, require_smaller=False
                    )
                    cpu[budget].append(time.process_time() - start)
                    assert result is not None
                    results[budget] = result
                added.append(results[1_000].facts.tokens)
                if depth < 3:
                    history = [*results[1_000].messages, *session.segments[depth]]
    without, with_ledger = statistics.mean(cpu[0]), statistics.mean(cpu[1_000])
    print("| | per compaction |")
    print("|---|---|")
    print(f"| CPU without the ledger | {without * 1e3:.2f} ms |")
    print(f"| CPU with the ledger | {with_ledger * 1e3:.2f} ms ({with_ledger / without:.2f}x) |")
    print(f"| ledger section, mean | {statistics.mean(added):,.0f} tokens |")
    print(f"| ledger section, max | {max(added):,} tokens |")


async def main() -> None:
    await survival("Tuned sessions", SESSION_KINDS)
    await survival("Held-out sessions", HELDOUT_KINDS)
    await survival(
        "Second held-out sessions (the ledger's second round of rules was written against them)",
        HELDOUT2_KINDS,
    )
    await survival(
        "Third held-out sessions (written blind; the development set of the third round)",
        HELDOUT3_KINDS,
    )
    await survival(
        "Fourth held-out sessions (written blind after the rules froze: the honest number)",
        HELDOUT4_KINDS,
    )
    await survival("Fifth held-out sessions (written blind)", HELDOUT5_KINDS)
    await survival("Sixth held-out sessions (written blind)", HELDOUT6_KINDS)
    await survival("Seventh held-out sessions (written blind)", HELDOUT7_KINDS)
    await survival("Eighth held-out sessions (written blind)", HELDOUT8_KINDS)
    await survival("Ninth held-out sessions (written blind)", HELDOUT9_KINDS)
    await survival("Tenth held-out sessions (written blind)", HELDOUT10_KINDS)
    await survival("Eleventh held-out sessions (written blind)", HELDOUT11_KINDS)
    await survival("Twelfth held-out sessions (written blind)", HELDOUT12_KINDS)
    await survival("Thirteenth held-out sessions (written blind)", HELDOUT13_KINDS)
    await survival("Fourteenth held-out sessions (written blind)", HELDOUT14_KINDS)
    await survival("Fifteenth held-out sessions (written blind)", HELDOUT15_KINDS)
    await survival("Sixteenth held-out sessions (written blind)", HELDOUT16_KINDS)
    await survival("Seventeenth held-out sessions (written blind)", HELDOUT17_KINDS)
    await survival("Eighteenth held-out sessions (written blind)", HELDOUT18_KINDS)
    await survival("Nineteenth held-out sessions (written blind)", HELDOUT19_KINDS)
    await survival("Twentieth held-out sessions (written blind)", HELDOUT20_KINDS)
    await survival("Twenty-first held-out sessions (written blind)", HELDOUT21_KINDS)
    await cost()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(cli_main(["fidelity", *sys.argv[1:]]))
    asyncio.run(main())
