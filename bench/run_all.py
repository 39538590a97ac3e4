"""Run every benchmark in ``bench/`` and write ``bench/RESULTS.md``.

``make bench`` calls this. Each script prints a markdown table of figures measured
side by side in one run; this runner records them with the command, the date and the
machine they came from, so the numbers in the README and docs/ can always be traced
to a run.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# compaction.py prints stall.py's tables too (stall.py still runs on its own).
SCRIPTS = ["compaction.py", "stores.py", "multiprocess.py", "tokens.py", "proxy.py", "recall.py"]
SCRIPTS += ["proxy_memory.py", "startup.py", "native.py", "loop_lag.py"]
SCRIPTS += ["fidelity.py", "extractive.py"]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores{memory}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


def main() -> int:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sections = [
        "# Benchmark results",
        "",
        f"Produced by `make bench` (`python bench/run_all.py`) on {now}.",
        f"Machine: {machine()}.",
        "",
        "Every ratio compares two measurements taken in the same run on the same machine.",
    ]
    failed = []
    for name in SCRIPTS:
        script = HERE / name
        if not script.exists():
            continue
        print(f"== {name}", flush=True)
        proc = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, cwd=HERE.parent
        )
        print(proc.stdout, end="")
        if proc.returncode != 0:
            failed.append(name)
            print(proc.stderr, file=sys.stderr)
        doc = (script.read_text().split('"""')[1].strip().splitlines() or [name])[0]
        sections += ["", f"## `bench/{name}`", "", doc, "", proc.stdout.strip()]
        if proc.returncode != 0:
            sections += ["", f"(exited with status {proc.returncode})"]
    (HERE / "RESULTS.md").write_text("\n".join(sections) + "\n")
    print(f"wrote {HERE / 'RESULTS.md'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
