"""Token counters side by side: accuracy against exact tiktoken, and speed.

Run from the repository root (offline; needs the ``tiktoken`` extra)::

    python bench/tokens.py

Samples live in ``bench/data``: hand-written English prose and Python code, and
generated JSON records and an agent transcript (``bench/data/generate.py``). Plain-text
samples are cut into 1,000-character user messages; the transcript is used as is.

Accuracy: every counter is compared with the exact ``o200k_base`` count of the same
messages (and the heuristic also with ``cl100k_base``). The calibrated counter is
measured two ways: *per turn* - after each message, calibrate on the exact count of
the history so far (what a provider reports), then estimate the history one message
longer; and *half anchored* - calibrate once on the first half, estimate the whole.

Speed: megabytes of message text counted per second, best of five runs; the last rows
time one recount of the whole transcript after a new message was appended.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from contextfold.messages import Message
from contextfold.tokens import (
    CachedMessageCounter,
    CalibratedTokenCounter,
    TiktokenCounter,
    count_tokens,
)

DATA = Path(__file__).parent / "data"
CHUNK = 1_000


def load_samples() -> dict[str, list[Message]]:
    def chunks(text: str) -> list[Message]:
        return [Message.user(text[i : i + CHUNK]) for i in range(0, len(text), CHUNK)]

    transcript = json.loads((DATA / "transcript.json").read_text(encoding="utf-8"))
    return {
        "English prose": chunks((DATA / "english.txt").read_text(encoding="utf-8")),
        "Python code": chunks((DATA / "code.py.txt").read_text(encoding="utf-8")),
        "JSON records": chunks((DATA / "records.json").read_text(encoding="utf-8")),
        "agent transcript": [Message.from_dict(m) for m in transcript],
    }


def text_bytes(messages: list[Message]) -> int:
    return len(json.dumps([m.to_dict() for m in messages], ensure_ascii=False).encode())


def pct(estimate: float, exact: float) -> float:
    return 100.0 * (estimate - exact) / exact


def best_of(runs: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def accuracy(samples: dict[str, list[Message]]) -> None:
    o200k, cl100k = TiktokenCounter("o200k_base"), TiktokenCounter("cl100k_base")
    print(
        "| sample | KB | messages | o200k tokens | heuristic vs o200k | heuristic vs cl100k "
        "| calibrated per turn (mean / max abs) | calibrated, half anchored |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, messages in samples.items():
        exact = count_tokens(messages, o200k)
        heuristic = count_tokens(messages)
        versus_cl100k = pct(heuristic, count_tokens(messages, cl100k))
        # prefix sums of exact counts: what the provider would report for each prefix
        prefix = [0]
        for m in messages:
            prefix.append(prefix[-1] + count_tokens([m], o200k))
        calibrated = CalibratedTokenCounter()
        errors = []
        for k in range(1, len(messages)):
            calibrated.calibrate(messages[:k], prefix[k])
            errors.append(abs(pct(calibrated.estimate(messages[: k + 1]), prefix[k + 1])))
        half = len(messages) // 2
        anchored = CalibratedTokenCounter()
        anchored.calibrate(messages[:half], prefix[half])
        print(
            f"| {name} | {text_bytes(messages) / 1024:.1f} | {len(messages)} | {exact:,} "
            f"| {pct(heuristic, exact):+.1f} % | {versus_cl100k:+.1f} % "
            f"| {statistics.mean(errors):.2f} % / {max(errors):.2f} % "
            f"| {pct(anchored.estimate(messages), exact):+.1f} % |"
        )


def throughput(samples: dict[str, list[Message]]) -> None:
    everything = [m for messages in samples.values() for m in messages]
    megabytes = text_bytes(everything) / 1e6
    o200k, cl100k = TiktokenCounter("o200k_base"), TiktokenCounter("cl100k_base")
    rows: list[tuple[str, float]] = [
        ("heuristic (4 chars/token)", best_of(5, lambda: count_tokens(everything))),
        ("tiktoken o200k_base", best_of(5, lambda: count_tokens(everything, o200k))),
        ("tiktoken cl100k_base", best_of(5, lambda: count_tokens(everything, cl100k))),
        (
            "cached tiktoken o200k, cold cache",
            best_of(5, lambda: CachedMessageCounter(o200k).count(everything)),
        ),
    ]
    print("| counter (all samples) | MB/s |")
    print("|---|---:|")
    for name, seconds in rows:
        print(f"| {name} | {megabytes / seconds:,.1f} |")

    transcript = samples["agent transcript"]
    grown = [*transcript, Message.user("One more thing: update the changelog.")]
    size = text_bytes(grown) / 1e6
    warm = CachedMessageCounter(o200k)
    warm.count(transcript)
    calibrated = CalibratedTokenCounter()
    calibrated.calibrate(transcript, count_tokens(transcript, o200k))
    full = best_of(5, lambda: count_tokens(grown, o200k))
    # a store reload: equal but distinct message objects (their strings are not yet hashed)
    reloads = iter([[Message.from_dict(m.to_dict()) for m in grown] for _ in range(5)])
    cached = best_of(5, lambda: warm.count(next(reloads)))
    cached_same = best_of(5, lambda: warm.count(grown))
    estimate = best_of(5, lambda: calibrated.estimate(grown))
    print()
    print(
        f"| recount the {text_bytes(grown) / 1024:.0f} KB transcript after one new message "
        "| ms | transcript MB/s | speed-up vs full tiktoken |"
    )
    print("|---|---:|---:|---:|")
    for name, seconds in [
        ("full tiktoken o200k recount", full),
        ("cached tiktoken, fresh message copies (store reload)", cached),
        ("cached tiktoken, same message objects", cached_same),
        ("calibrated estimate (anchor + new message)", estimate),
    ]:
        print(f"| {name} | {seconds * 1e3:.2f} | {size / seconds:,.0f} | {full / seconds:.1f}x |")


def main() -> None:
    samples = load_samples()
    print("## Accuracy against exact tiktoken (negative = undercount)\n")
    accuracy(samples)
    print("\n## Throughput\n")
    throughput(samples)


if __name__ == "__main__":
    main()
