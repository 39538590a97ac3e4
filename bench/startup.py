"""How long ``contextfold serve`` takes to answer ``GET /healthz`` after it is started.

A newcomer's first minute (issue 23, item 8): the quickstart starts the proxy and
runs a client as soon as ``/healthz`` answers. Each run starts the real command line
in a fresh process, polls ``/healthz`` every 10 ms with the caller's own clock and
stops the proxy; the table prints the minimum, median and maximum over ``--runs``
starts, beside the time Python alone takes to start (the floor), and how long
importing the SDKs the proxy no longer loads at start would add.

    python bench/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx2

CLI = Path(sys.executable).with_name("contextfold")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def healthz_after_start() -> float:
    port = _port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(CLI), "serve", "--port", str(port), "--log-level", "warning"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            try:
                if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    return time.perf_counter() - started
            except httpx2.HTTPError:
                pass
            if process.poll() is not None:
                raise RuntimeError("contextfold serve exited before answering /healthz")
            time.sleep(0.01)
    finally:
        process.terminate()
        process.wait(10)


def python_alone(code: str = "pass") -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def row(name: str, samples: list[float]) -> str:
    low, mid, high = min(samples), statistics.median(samples), max(samples)
    return f"| {name} | {low * 1000:,.0f} ms | {mid * 1000:,.0f} ms | {high * 1000:,.0f} ms |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    serve = [healthz_after_start() for _ in range(args.runs)]
    floor = [python_alone() for _ in range(args.runs)]
    sdks = [python_alone("import anthropic, openai") for _ in range(args.runs)]
    print("| measured | min | median | max |")
    print("|---|---|---|---|")
    print(row("`contextfold serve` start to `/healthz` 200", serve))
    print(row("Python start alone (the floor)", floor))
    print(row("Python start + import anthropic, openai (not done at start)", sdks))
    ratio = statistics.median(serve) / statistics.median(floor)
    print(f"\nratio serve / floor (median): {ratio:.1f}x")


if __name__ == "__main__":
    main()
