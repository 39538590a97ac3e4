"""The offline extractive summarizer on long transcripts: does its time grow linearly?

Run from the repository root (offline)::

    python bench/extractive.py

A transcript of N tool calls, each output naming five distinct identifiers (build ids,
versions, order numbers, hashes), is summarized at N = 1,000 and 8,000. Printed side by
side: seconds for each (best of three) and the ratio of the two, which is about 8 for
work that grows linearly with the transcript and about 64 for quadratic work (before
this bench, every identifier added scanned the list of those already kept: 9.4 s at
8,000 calls).
"""

from __future__ import annotations

import time

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.cli._extractive import ExtractiveSummarizer
from contextfold.compaction._summarizer import transcript_entries
from contextfold.messages import Message


def request(calls: int) -> list[Message]:
    history = [Message.user("Build every directory and report the artifacts.")]
    for i in range(calls):
        use = ToolUseBlock(f"c{i}", "run", {"command": f"make -C dir_{i}"})
        output = f"build_{i}_a build_{i}_b v1.{i}.3 ORD-{i:05d} abc{i:07x}"
        history.append(Message("assistant", [TextBlock("next"), use]))
        history.append(Message("user", [ToolResultBlock(f"c{i}", output)]))
    body = "\n\n".join(transcript_entries(history, 2_000))
    return [Message.user(f"<transcript>\n{body}\n</transcript>")]


def seconds(calls: int) -> float:
    messages = request(calls)
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        ExtractiveSummarizer().summarize(messages)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    small, large = seconds(1_000), seconds(8_000)
    print("| tool calls | 1,000 | 8,000 | ratio (8 = linear, 64 = quadratic) |")
    print("|---|---|---|---|")
    print(f"| seconds | {small:.3f} | {large:.3f} | {large / small:.1f} |")


if __name__ == "__main__":
    main()
