"""The proxy's memory over many distinct conversations, beside the same traffic repeating one.

    .venv/bin/python bench/proxy_memory.py [--conversations 10000] [--messages 10]
        [--chars 5000] [--concurrency 8] [--window 32768]

Starts, on loopback only, the fake upstream (``contextfold fake-upstream``) and two
proxies in front of it (``contextfold serve --context-window 32768``, an SQLite cache
each, each its own process, as an operator runs them), then sends ``--conversations``
chat requests to each, interleaved: to the first, every request a new conversation
(``--messages`` messages of ``--chars`` characters each, a distinct first message:
the attack of issue 24); to the second, the same conversation every time (the
baseline: the same bytes, parsing and forwarding, and nothing new to remember). With
the defaults a request is about 50 KB, near enough to the limit (24,576 tokens) that
the proxy parses, hashes and estimates every one, then forwards it unchanged.

Prints the resident set size (``VmRSS``, Linux; ``ps`` elsewhere) of both proxies at
the start (listening, nothing sent), every 2,000 conversations and at the end, and
the growth per conversation of each. It measures; it bounds nothing (the proxy's
parse memo and caches are bounded elsewhere). A few minutes on a laptop.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx2

KEY = "sk-bench-memory-client-key"
CHECKPOINT = 2_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mib(pid: int) -> float:
    """The resident set size of process ``pid`` in MiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    out = subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024


def conversation(number: int, messages: int, chars: int) -> bytes:
    """A chat request of ``messages`` messages, ``chars`` characters each, whose first
    message (and so whose every prefix hash) is its own."""
    system = f"conversation {number}: you are a benchmark. "
    out = [{"role": "system", "content": system + "s" * (chars - len(system))}]
    for i in range(messages - 1):
        role = "user" if i % 2 == 0 else "assistant"
        head = f"{number}-{i} {role}: "
        out.append({"role": role, "content": head + "x" * (chars - len(head))})
    if out[-1]["role"] != "user":
        out[-1] = {"role": "user", "content": out[-1]["content"]}
    return json.dumps({"model": "bench-model", "messages": out}).encode()


def command(*args: str) -> list[str]:
    """``contextfold ARGS`` run by this Python (the console script may not be on PATH)."""
    main = "import sys; from contextfold.cli import main; sys.exit(main(sys.argv[1:]))"
    return [sys.executable, "-c", main, *args]


async def wait_ready(port: int, process: subprocess.Popen[bytes]) -> None:
    async with httpx2.AsyncClient() as client:
        for _ in range(300):
            if process.poll() is not None:
                raise RuntimeError(f"the server for port {port} exited ({process.returncode})")
            try:
                await client.get(f"http://127.0.0.1:{port}/healthz")
                return
            except httpx2.TransportError:
                await asyncio.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


def start(args: argparse.Namespace, folder: str) -> dict[str, tuple[int, subprocess.Popen[bytes]]]:
    """The fake upstream and the two proxies, each a process: name -> (port, process)."""
    ports = {name: free_port() for name in ("upstream", "distinct", "same")}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    servers = {
        "upstream": subprocess.Popen(
            command("fake-upstream", "--port", str(ports["upstream"])), **quiet
        )
    }
    for name in ("distinct", "same"):
        servers[name] = subprocess.Popen(
            command(
                "serve",
                "--port",
                str(ports[name]),
                "--upstream-openai",
                f"http://127.0.0.1:{ports['upstream']}/v1",
                "--context-window",
                str(args.window),
                "--db",
                os.path.join(folder, f"{name}.db"),
                "--log-level",
                "warning",
            ),
            **quiet,
        )
    return {name: (ports[name], process) for name, process in servers.items()}


async def drive(
    args: argparse.Namespace, servers: dict[str, tuple[int, subprocess.Popen[bytes]]]
) -> list[tuple[int, float, float]]:
    """RSS of both proxies at the start and at each checkpoint: ``(requests, distinct,
    same)``."""
    for port, process in servers.values():
        await wait_ready(port, process)
    (distinct_port, distinct), (same_port, repeated) = servers["distinct"], servers["same"]
    rows = [(0, rss_mib(distinct.pid), rss_mib(repeated.pid))]
    same = conversation(-1, args.messages, args.chars)
    headers = {"content-type": "application/json", "authorization": f"Bearer {KEY}"}
    limits = httpx2.Limits(max_connections=2 * args.concurrency)
    async with httpx2.AsyncClient(limits=limits, timeout=120) as client:
        done = 0
        while done < args.conversations:
            batch = range(done, min(done + CHECKPOINT, args.conversations))
            queue = list(batch)

            async def worker(queue: list[int] = queue) -> None:
                while queue:
                    number = queue.pop()
                    for port, body in (
                        (distinct_port, conversation(number, args.messages, args.chars)),
                        (same_port, same),
                    ):
                        url = f"http://127.0.0.1:{port}/v1/chat/completions"
                        reply = await client.post(url, content=body, headers=headers)
                        reply.raise_for_status()

            await asyncio.gather(*[worker() for _ in range(args.concurrency)])
            done = batch.stop
            rows.append((done, rss_mib(distinct.pid), rss_mib(repeated.pid)))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=10)
    parser.add_argument("--chars", type=int, default=5_000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--window", type=int, default=32_768)
    args = parser.parse_args()
    size = len(conversation(0, args.messages, args.chars))
    with tempfile.TemporaryDirectory() as folder:
        servers = start(args, folder)
        try:
            rows = asyncio.run(drive(args, servers))
        finally:
            for _, process in servers.values():
                process.terminate()
            for _, process in servers.values():
                process.wait(timeout=30)
    print(
        f"{args.conversations:,} requests to each proxy, {args.messages} messages of "
        f"{args.chars:,} characters ({size / 1024:.0f} KiB a request), context window "
        f"{args.window:,}, concurrency {args.concurrency}\n"
    )
    print("| requests | RSS, distinct conversations | RSS, one conversation repeated |")
    print("|---:|---:|---:|")
    for count, distinct, repeated in rows:
        print(f"| {count:,} | {distinct:.1f} MiB | {repeated:.1f} MiB |")
    (_, d0, r0), (count, d1, r1) = rows[0], rows[-1]
    if count:
        print(
            f"\nGrowth per request: {(d1 - d0) * 1024 / count:.1f} KiB with distinct "
            f"conversations, {(r1 - r0) * 1024 / count:.1f} KiB with one repeated "
            f"(+{d1 - d0:.1f} MiB against +{r1 - r0:.1f} MiB, measured side by side)."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
