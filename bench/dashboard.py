"""What ``serve --dashboard`` costs a request, side by side with the same proxy without it.

    .venv/bin/python bench/dashboard.py [--requests 200]

Starts, on loopback only, the minimal fake upstream of ``bench/proxy.py`` and two copies
of our proxy in front of it, each in its own process served as ``contextfold serve``
serves it: one as shipped, one with the dashboard on (``ProxyOptions(dashboard=True)``).
With the dashboard on, every chat request is read as a history so that the dashboard
knows its conversation; without it, a request far under the limit is forwarded unread.
Sends the same requests (``bench/proxy.py``'s cases) straight to the upstream and
through each proxy, at concurrency 1 and 16, and prints p50 latencies, what each proxy
adds to the direct p50 of the same run, and the CPU each proxy's process spent per
request (``/proc/PID/schedstat``, Linux only). Bounded: a minute or two.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import httpx2


def _proxy_bench() -> ModuleType:
    """``bench/proxy.py``, whose upstream, cases and measurements this reuses."""
    path = Path(__file__).with_name("proxy.py")
    spec = importlib.util.spec_from_file_location("bench_proxy", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _proxy_bench()
CONCURRENCY = (1, 16)


def serve_proxy(port: int, upstream_port: int, dashboard: bool) -> None:
    import uvicorn

    from contextfold.compaction import CompactionSettings
    from contextfold.proxy import ProxyOptions, create_app
    from contextfold.proxy._server import server_config

    app = create_app(
        upstream_openai=f"http://127.0.0.1:{upstream_port}/v1",
        context_window=200_000,
        settings=CompactionSettings(threshold=0.25),  # limit: 50,000 estimated tokens
        options=ProxyOptions(dashboard=dashboard),
    )
    config = server_config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
    uvicorn.Server(config).run()


async def run(requests: int, up_port: int, plain: tuple[int, int], shown: tuple[int, int]) -> None:
    for port in (up_port, plain[0], shown[0]):
        await bench.wait_ready(port)
    direct = f"http://127.0.0.1:{up_port}/v1/chat/completions"
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, {requests} requests per")
    print("cell; upstream and each proxy in their own process, loopback only.\n")
    print(
        "| path | messages | concurrency | direct p50 | ours p50 (added) "
        "| ours + dashboard p50 (added) | ours CPU ms/req | + dashboard CPU ms/req |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, count, chars in bench.CASES:
        body = json.dumps({"model": "bench-model", "messages": bench.history(count, chars)})
        payload = body.encode()
        for concurrency in CONCURRENCY:
            d = await bench.measure(direct, payload, requests, concurrency, bench.OURS_KEY)
            cells, cpus = [], []
            for port, pid in (plain, shown):
                spent: list[float] = []
                url = f"http://127.0.0.1:{port}/v1/chat/completions"
                got = await bench.measure(
                    url, payload, requests, concurrency, bench.OURS_KEY, cpu_of=pid, cpu=spent
                )
                cells.append(bench.cell(got, d, 0.5))
                cpus.append(f"{spent[0] * 1e3:.3f}" if spent else "-")
            print(
                f"| {name} | {count:,} | {concurrency} | {bench.pct(d, 0.5):.2f} "
                f"| {cells[0]} | {cells[1]} | {cpus[0]} | {cpus[1]} |",
                flush=True,
            )
    async with httpx2.AsyncClient() as client:
        page = await client.get(f"http://127.0.0.1:{shown[0]}/dashboard")
    print(
        f"\n(the dashboard's page after the run: {len(page.content):,} bytes, {page.status_code})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="timed requests per cell")
    parser.add_argument("--serve-proxy", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_proxy:
        port, upstream_port, dashboard = args.serve_proxy
        serve_proxy(int(port), int(upstream_port), dashboard == "on")
        return
    up_port, plain_port, shown_port = (bench.free_port() for _ in range(3))
    script, proxy_script = os.path.abspath(__file__), str(Path(__file__).with_name("proxy.py"))
    procs = [
        subprocess.Popen([sys.executable, proxy_script, "--serve-upstream", str(up_port)]),
        subprocess.Popen(
            [sys.executable, script, "--serve-proxy", str(plain_port), str(up_port), "off"]
        ),
        subprocess.Popen(
            [sys.executable, script, "--serve-proxy", str(shown_port), str(up_port), "on"]
        ),
    ]
    try:
        asyncio.run(
            run(args.requests, up_port, (plain_port, procs[1].pid), (shown_port, procs[2].pid))
        )
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
