"""What the compaction proxy adds to a request's latency, side by side with LiteLLM's proxy.

    .venv/bin/python bench/proxy.py [--requests 200] [--litellm PATH] [--http h11]
                                    [--only pass-through]

Starts, on loopback only, a minimal fake upstream, our proxy in front of it and, when
its executable is found, LiteLLM's proxy in front of the same upstream, each in its
own process under uvicorn (ours as ``contextfold.proxy.serve`` runs it: httptools'
parser when installed, ``--http h11`` for h11's); then sends the same requests
straight to the upstream, through ours and through LiteLLM's, at concurrency 1, 16
and 64:

* ``pass-through``: a conversation far under the limit (its size in bytes alone
  shows it cannot be near the limit: the proxy forwards it without parsing), for a
  10- and a 1,000-message history - the rows with the LiteLLM column;
* ``near-limit pass-through``: a conversation under the limit but close enough
  that the proxy parses, hashes and estimates it, then forwards the original bytes;
* ``cached summary``: a conversation over the limit whose summary is already cached
  (the proxy parses, finds the summary, splices, validates and forwards the shorter
  body) - one warm-up request creates the summary first.

The limit is 50,000 estimated tokens. LiteLLM (``pip install 'litellm[proxy]'``,
best in a virtual environment of its own: ``--litellm /path/to/venv/bin/litellm``;
default: ``litellm`` on ``PATH``) runs with a one-model config pointing at the same
upstream, a master key (it refuses to start without one), its local model cost map
(``LITELLM_LOCAL_MODEL_COST_MAP=True``: no network) and its logs sent to
``/dev/null``. It re-serializes every request and reply; ours forwards the bytes.
Prints a markdown table of p50/p99 latencies and what each proxy adds to the direct
p50 and p99 of the same run, and the CPU time our proxy's process spent per request
(from ``/proc/PID/schedstat``, Linux only). ``--only NAME`` runs the rows of one path.
Bounded: a few minutes on a laptop.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
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


def serve_proxy(port: int, upstream_port: int, http: str | None) -> None:
    import uvicorn

    from contextfold.compaction import CompactionSettings
    from contextfold.proxy import create_app
    from contextfold.proxy._server import server_config

    app = create_app(
        upstream_openai=f"http://127.0.0.1:{upstream_port}/v1",
        context_window=200_000,
        settings=CompactionSettings(threshold=0.25),  # limit: 50,000 estimated tokens
    )
    # served as contextfold.proxy.serve serves it (its protocol and settings)
    config = server_config(
        app, host="127.0.0.1", port=port, log_level="warning", access_log=False, http=http
    )
    uvicorn.Server(config).run()


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
CONCURRENCY = (1, 16, 64)
OURS_KEY = "sk-bench-client-key"
LITELLM_KEY = "sk-bench-master-7f3c9a1e5b2d4c6e8a0f1b3d5c7e9a2b"


async def measure(
    url: str,
    body: bytes,
    requests: int,
    concurrency: int,
    key: str,
    *,
    errors: list[int] | None = None,
    cpu_of: int | None = None,
    cpu: list[float] | None = None,
) -> list[float]:
    """Latencies of successful requests; failures are raised, or, given ``errors``, counted
    there by status (0: no answer). With ``cpu_of`` (a process id) and ``cpu``, the CPU
    seconds that process spent per timed request are appended to ``cpu``."""
    headers = {"content-type": "application/json", "authorization": f"Bearer {key}"}
    limits = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx2.AsyncClient(limits=limits, timeout=120) as client:
        # warm every connection (and, through the proxy, its cache)
        await asyncio.gather(
            *[client.post(url, content=body, headers=headers) for _ in range(concurrency)],
            return_exceptions=True,
        )
        latencies: list[float] = []
        queue = list(range(max(requests, 4 * concurrency)))

        async def worker() -> None:
            while queue:
                queue.pop()
                start = time.perf_counter()
                try:
                    reply = await client.post(url, content=body, headers=headers)
                except httpx2.HTTPError:
                    if errors is None:
                        raise
                    errors.append(0)
                    continue
                if reply.status_code >= 400 and errors is not None:
                    errors.append(reply.status_code)
                    continue
                reply.raise_for_status()
                latencies.append(time.perf_counter() - start)

        before = None if cpu_of is None else cpu_seconds(cpu_of)
        await asyncio.gather(*[worker() for _ in range(concurrency)])
        after = None if cpu_of is None else cpu_seconds(cpu_of)
        if cpu is not None and before is not None and after is not None and latencies:
            cpu.append((after - before) / len(latencies))
    return latencies


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def wait_ready(port: int, path: str = "/v1/models", tries: int = 200) -> None:
    async with httpx2.AsyncClient() as client:
        for _ in range(tries):
            try:
                await client.get(f"http://127.0.0.1:{port}{path}")
                return
            except httpx2.TransportError:
                await asyncio.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not start")


def start_litellm(executable: str, up_port: int, port: int, folder: str) -> subprocess.Popen[bytes]:
    config = os.path.join(folder, "litellm.yaml")
    with open(config, "w", encoding="utf-8") as out:
        out.write(
            "model_list:\n"
            "  - model_name: bench-model\n"
            "    litellm_params:\n"
            "      model: openai/bench-model\n"
            f"      api_base: http://127.0.0.1:{up_port}/v1\n"
            "      api_key: sk-upstream\n"
            "litellm_settings:\n"
            "  telemetry: false\n"
            "general_settings:\n"
            f"  master_key: {LITELLM_KEY}\n"
        )
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    command = [executable, "--config", config, "--host", "127.0.0.1", "--port", str(port)]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=folder
    )


def cpu_seconds(pid: int) -> float | None:
    """CPU time process ``pid`` has spent so far (Linux), else ``None``."""
    try:
        with open(f"/proc/{pid}/schedstat", encoding="ascii") as stat:
            return int(stat.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def cell(values: list[float] | None, direct: list[float], q: float, errors: int = 0) -> str:
    if values is None:
        return "-"
    failed = f", {errors} failed" if errors else ""
    if not values:
        return f"all {errors} failed"
    return f"{pct(values, q):.2f} ({pct(values, q) - pct(direct, q):+.2f}{failed})"


async def run(
    requests: int,
    up_port: int,
    proxy: tuple[int, int],
    litellm: tuple[int, str] | None,
    only: str | None = None,
) -> None:
    proxy_port, proxy_pid = proxy
    await wait_ready(up_port)
    await wait_ready(proxy_port)
    litellm_url = None
    note = "not run: no litellm executable found (give --litellm PATH)"
    if litellm is not None:
        port, note = litellm
        try:
            await wait_ready(port, "/health/liveliness", tries=1200)
            litellm_url = f"http://127.0.0.1:{port}/v1/chat/completions"
        except RuntimeError:
            note = "not run: LiteLLM's proxy did not start within 120 s"
    direct = f"http://127.0.0.1:{up_port}/v1/chat/completions"
    proxied = f"http://127.0.0.1:{proxy_port}/v1/chat/completions"
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, {requests} requests per")
    print("cell (at least 4 x concurrency); upstream and each proxy in their own process,")
    print(f"loopback only. LiteLLM column: {note}. Cells: p50 or p99 ms (added to direct).\n")
    print(
        "| path | messages | body KiB | concurrency | direct p50 | ours p50 (added) "
        "| LiteLLM p50 (added) | direct p99 | ours p99 (added) | LiteLLM p99 (added) "
        "| ours CPU ms/request |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, count, chars in CASES:
        if only is not None and name != only:
            continue
        body = json.dumps({"model": "bench-model", "messages": history(count, chars)}).encode()
        async with httpx2.AsyncClient(timeout=60) as client:
            check = await client.post(
                proxied, content=body, headers={"authorization": f"Bearer {OURS_KEY}"}
            )
        expected = "true" if name == "cached summary" else "false"
        got = check.headers.get("x-contextfold-compacted")
        if got != expected:
            raise RuntimeError(f"{name}/{count}: proxy compacted={got}, expected {expected}")
        for concurrency in CONCURRENCY:
            d = await measure(direct, body, requests, concurrency, OURS_KEY)
            spent: list[float] = []
            p = await measure(
                proxied, body, requests, concurrency, OURS_KEY, cpu_of=proxy_pid, cpu=spent
            )
            cpu = f"{spent[0] * 1e3:.3f}" if spent else "-"
            lite, failed = None, []
            if litellm_url is not None and name == "pass-through":
                lite = await measure(
                    litellm_url, body, requests, concurrency, LITELLM_KEY, errors=failed
                )
            print(
                f"| {name} | {count:,} | {len(body) / 1024:,.0f} | {concurrency} "
                f"| {pct(d, 0.5):.2f} | {cell(p, d, 0.5)} | {cell(lite, d, 0.5, len(failed))} "
                f"| {pct(d, 0.99):.2f} | {cell(p, d, 0.99)} | {cell(lite, d, 0.99, len(failed))} "
                f"| {cpu} |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="timed requests per cell")
    parser.add_argument("--litellm", help="LiteLLM's proxy executable (default: on PATH)")
    parser.add_argument(
        "--http",
        choices=["httptools", "h11"],
        help="our proxy's HTTP parser (default: serve's, httptools)",
    )
    parser.add_argument("--only", help="run only the rows of this path (e.g. pass-through)")
    parser.add_argument("--serve-upstream", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve-proxy", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_upstream:
        serve_upstream(args.serve_upstream)
        return
    if args.serve_proxy:
        port, upstream_port, *http = args.serve_proxy
        serve_proxy(int(port), int(upstream_port), http[0] if http else None)
        return
    up_port, proxy_port, litellm_port = free_port(), free_port(), free_port()
    script = os.path.abspath(__file__)
    procs = [
        subprocess.Popen([sys.executable, script, "--serve-upstream", str(up_port)]),
        subprocess.Popen(
            [sys.executable, script, "--serve-proxy", str(proxy_port), str(up_port)]
            + ([args.http] if args.http else [])
        ),
    ]
    executable = args.litellm or shutil.which("litellm")
    litellm = None
    with tempfile.TemporaryDirectory() as folder:
        if executable:
            procs.append(start_litellm(executable, up_port, litellm_port, folder))
            version = (
                subprocess.run(
                    [executable, "--version"], capture_output=True, text=True, check=False
                )
                .stdout.strip()
                .splitlines()
            )
            litellm = (litellm_port, version[-1] if version else executable)
        try:
            proxy = (proxy_port, procs[1].pid)
            asyncio.run(run(args.requests, up_port, proxy, litellm, args.only))
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(timeout=30)


if __name__ == "__main__":
    main()
