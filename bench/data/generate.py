"""Regenerate ``records.json`` and ``transcript.json`` (deterministic, seed 7).

``english.txt`` and ``code.py.txt`` are hand-written; the transcript reuses pieces of
them as an agent's reasoning and tool outputs. Run from the repository root:
``python bench/data/generate.py``.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

HERE = Path(__file__).parent
rng = random.Random(7)

STATUSES = ["open", "in_progress", "blocked", "review", "done"]
LABELS = ["bug", "perf", "docs", "api", "ui", "infra", "security", "flaky-test"]
VERBS = ["Fix", "Add", "Remove", "Speed up", "Document"]
THINGS = ["token counter", "sqlite store", "proxy stream", "retry policy", "summary prompt"]
SYSTEM = "You are a careful coding agent. Run the tests before you claim success."
TASK = (
    "The scheduler drops retried jobs under load. Find out why, fix it, and add a regression test."
)
ANSWER = (
    "Retried jobs were pushed with a stale sequence number; they now get a fresh one "
    "and a regression test covers it."
)
PEOPLE = ["ana", "bo", "chen", "dara", "eli", "fay", "gus", "hana"]


def records(n: int) -> list[dict[str, object]]:
    out = []
    for i in range(n):
        month, day = rng.randint(1, 12), rng.randint(1, 28)
        hour, minute = rng.randint(0, 23), rng.randint(0, 59)
        created = f"2025-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:00Z"
        out.append(
            {
                "id": 4100 + i,
                "key": f"CF-{4100 + i}",
                "title": f"{rng.choice(VERBS)} {rng.choice(THINGS)}",
                "status": rng.choice(STATUSES),
                "labels": rng.sample(LABELS, rng.randint(0, 3)),
                "assignee": rng.choice([*PEOPLE, None]),
                "estimate_hours": round(rng.uniform(0.5, 16), 1),
                "created_at": created,
                "watchers": rng.randint(0, 12),
                "links": [{"rel": "blocks", "key": f"CF-{rng.randint(4000, 4300)}"}]
                if rng.random() < 0.3
                else [],
                "metrics": {
                    "p50_ms": rng.randint(3, 90),
                    "p99_ms": rng.randint(100, 2500),
                    "error_rate": round(rng.random() / 50, 5),
                },
            }
        )
    return out


def transcript(english: str, code: str, data: list[dict[str, object]]) -> list[dict[str, object]]:
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", english) if len(s.strip()) > 20]
    code_lines = code.splitlines()
    messages: list[dict[str, object]] = [
        {
            "role": "system",
            "content": [
                {
                    "type": "text",
                    "text": SYSTEM,
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": TASK,
                }
            ],
        },
    ]
    for n in range(40):
        tool = rng.choice(["read_file", "run_tests", "grep", "list_issues"])
        thought = " ".join(rng.sample(sentences, 2))
        args: dict[str, object]
        if tool == "read_file":
            start = rng.randint(0, len(code_lines) - 40)
            args = {"path": "src/scheduler.py", "start": start, "end": start + 40}
            output = "\n".join(
                f"{start + k + 1:4d}  {line}"
                for k, line in enumerate(code_lines[start : start + 40])
            )
        elif tool == "run_tests":
            args = {"cmd": "pytest -q tests/test_scheduler.py"}
            dots = "".join(rng.choice("....F.s") for _ in range(rng.randint(40, 160)))
            failures = dots.count("F")
            output = (
                f"{dots}\n"
                + "".join(
                    f"FAILED tests/test_scheduler.py::test_retry_{rng.randint(1, 30)} - "
                    f"AssertionError: assert {rng.randint(1, 9)} == {rng.randint(10, 20)}\n"
                    for _ in range(failures)
                )
                + f"{failures} failed, {len(dots) - failures} passed in {rng.uniform(0.2, 3):.2f}s"
            )
        elif tool == "grep":
            pattern = rng.choice(["heappush", "attempts", "_wakeup", "semaphore", "due"])
            args = {"pattern": pattern, "path": "src/"}
            hits = [
                f"src/scheduler.py:{k + 1}:{line.strip()}"
                for k, line in enumerate(code_lines)
                if pattern.lower() in line.lower()
            ]
            output = "\n".join(hits) or "no matches"
        else:
            first = rng.randint(0, len(data) - 8)
            args = {"status": "open", "limit": 8}
            output = json.dumps(data[first : first + 8], indent=2)
        call_id = f"toolu_{n:03d}"
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": thought},
                    {"type": "tool_use", "id": call_id, "name": tool, "input": args},
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": call_id,
                        "content": output,
                        "is_error": False,
                    }
                ],
            }
        )
    messages.append(
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": ANSWER,
                }
            ],
        }
    )
    return messages


def main() -> None:
    data = records(160)
    (HERE / "records.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    english = (HERE / "english.txt").read_text(encoding="utf-8")
    code = (HERE / "code.py.txt").read_text(encoding="utf-8")
    history = transcript(english, code, data)
    (HERE / "transcript.json").write_text(json.dumps(history, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
