"""What the compaction proxy adds to a request's latency, measured side by side.

    .venv/bin/python bench/proxy.py [--requests 200]

Starts, on loopback only, a minimal fake upstream and the proxy in front of it, each
in its own process under uvicorn, then sends the same requests once straight to
the upstream and once through the proxy, at concurrency 1 and 16:

* ``pass-through``: a conversation far under the limit (its size in bytes alone
  shows it cannot be near the limit: the proxy forwards it without parsing);
* ``near-limit pass-through``: a conversation under the limit but close enough
  that the proxy parses, hashes and estimates it, then forwards the original bytes;
* ``cached summary``: a conversation over the limit whose summary is already cached
  (the proxy parses, finds the summary, splices, validates and forwards the shorter
  body) - one warm-up request creates the summary first;

for a 10-message and a 1,000-message history (the limit is 50,000 estimated
tokens). Prints a markdown table of p50/p99 latencies and their ratios (proxy /
direct). Bounded: the whole run takes well under two minutes on a laptop.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import time
from typing import Any

import httpx2

REPLY = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "bench-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "<summary>the earlier work.</summary>"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105},
    }
).encode()


async def upstream_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A raw ASGI upstream: reads the whole body, answers one fixed completion."""
    if scope["type"] != "http":
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(REPLY))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": REPLY})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_upstream(port: int) -> None:
    import uvicorn

    uvicorn.run(upstream_app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def serve_proxy(port: int, upstream_port: int) -> None:
    import uvicorn

    from contextfold.proxy import create_app

    app = create_app(
        upstream_openai=f"http://127.0.0.1:{upstream_port}/v1",
        context_window=200_000,
        threshold=0.25,  # limit: 50,000 estimated tokens
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def history(count: int, chars: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a benchmark."}]
    for i in range(count - 1):
        role = "user" if i % 2 == 0 else "assistant"
        out.append({"role": role, "content": f"{role} {i} " + "x" * chars})
    if out[-1]["role"] != "user":
        out.append({"role": "user", "content": "next"})
    return out


CASES: list[tuple[str, int, int]] = [
    # name, messages, chars per message: under the limit / over it
    ("pass-through", 10, 200),
    ("pass-through", 1_000, 4),
    ("near-limit pass-through", 1_000, 100),
    ("cached summary", 10, 24_000),
    ("cached summary", 1_000, 250),
]


async def measure(url: str, body: bytes, requests: int, concurrency: int) -> list[float]:
    headers = {"content-type": "application/json", "authorization": "Bearer sk-bench"}
    limits = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx2.AsyncClient(limits=limits, timeout=60) as client:
        for _ in range(5):  # warm connections (and, through the proxy, its cache)
            reply = await client.post(url, content=body, headers=headers)
            reply.raise_for_status()
        latencies: list[float] = []
        queue = list(range(requests))

        async def worker() -> None:
            while queue:
                queue.pop()
                start = time.perf_counter()
                reply = await client.post(url, content=body, headers=headers)
                latencies.append(time.perf_counter() - start)
                reply.raise_for_status()

        await asyncio.gather(*[worker() for _ in range(concurrency)])
    return latencies


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def wait_ready(port: int) -> None:
    async with httpx2.AsyncClient() as client:
        for _ in range(200):
            try:
                await client.get(f"http://127.0.0.1:{port}/v1/models")
                return
            except httpx2.TransportError:
                await asyncio.sleep(0.05)
    raise RuntimeError(f"server on port {port} did not start")


async def run(requests: int, up_port: int, proxy_port: int) -> None:
    await wait_ready(up_port)
    await wait_ready(proxy_port)
    direct = f"http://127.0.0.1:{up_port}/v1/chat/completions"
    proxied = f"http://127.0.0.1:{proxy_port}/v1/chat/completions"
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, {requests} requests")
    print("per row; upstream and proxy each in their own process, loopback only\n")
    print(
        "| path | messages | body KiB | concurrency | direct p50 ms | proxy p50 ms "
        "| added p50 ms | p50 ratio | direct p99 ms | proxy p99 ms | p99 ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, count, chars in CASES:
        body = json.dumps({"model": "bench-model", "messages": history(count, chars)}).encode()
        async with httpx2.AsyncClient(timeout=60) as client:
            check = await client.post(
                proxied, content=body, headers={"authorization": "Bearer sk-bench"}
            )
        expected = "true" if name == "cached summary" else "false"
        got = check.headers.get("x-contextfold-compacted")
        if got != expected:
            raise RuntimeError(f"{name}/{count}: proxy compacted={got}, expected {expected}")
        for concurrency in (1, 16):
            d = await measure(direct, body, requests, concurrency)
            p = await measure(proxied, body, requests, concurrency)
            d50, p50, d99, p99 = pct(d, 0.5), pct(p, 0.5), pct(d, 0.99), pct(p, 0.99)
            print(
                f"| {name} | {count:,} | {len(body) / 1024:,.0f} | {concurrency} "
                f"| {d50:.2f} | {p50:.2f} | {p50 - d50:+.2f} | {p50 / d50:.1f}x "
                f"| {d99:.2f} | {p99:.2f} | {p99 / d99:.1f}x |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="timed requests per row")
    parser.add_argument("--serve-upstream", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve-proxy", type=int, nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_upstream:
        serve_upstream(args.serve_upstream)
        return
    if args.serve_proxy:
        serve_proxy(*args.serve_proxy)
        return
    up_port, proxy_port = free_port(), free_port()
    script = os.path.abspath(__file__)
    procs = [
        subprocess.Popen([sys.executable, script, "--serve-upstream", str(up_port)]),
        subprocess.Popen([sys.executable, script, "--serve-proxy", str(proxy_port), str(up_port)]),
    ]
    try:
        asyncio.run(run(args.requests, up_port, proxy_port))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
