"""What emulating the providers' compaction APIs costs the proxy per request, in process.

    .venv/bin/python bench/native.py [--messages 1000] [--rounds 5] [--requests 40]

Builds one proxy app (``create_app``) in front of the fake upstream, both in this
process (ASGI, no sockets), and times, side by side in the same run and in turns, the
CPU the whole round trip takes (client, proxy and upstream together, ``process_time``)
for a Responses request of ``--messages`` input items far under the limit:

* ``plain``: the history as it is (the proxy scans it for the compaction APIs and
  forwards it unparsed);
* ``with item``: the same history after one ``/v1/responses/compact`` round, sent as
  the compacted output plus the same items again, so the proxy parses the body,
  verifies the item's HMAC, expands it into the summary and writes the body anew;
* ``expanded by hand``: the body ``with item`` becomes, sent as it is (the item
  replaced by its summary message): what the expansion itself costs is the difference;
* ``pass mode``: the plain request through an app with ``native_compaction="pass"``
  (no scan: the floor the scan is measured against).

Prints the best-of-rounds milliseconds per request and the ratios to ``pass mode``.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import httpx2

from contextfold.compaction import CompactionSettings
from contextfold.proxy import ProxyOptions, create_app
from contextfold.proxy._native import summary_item
from contextfold_harness.fake_upstream import Upstream

HEADERS = {"authorization": "Bearer sk-bench"}
MODEL = "bench-model"


def history(n: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for i in range(n):
        if i % 2 == 0:
            items.append({"role": "user", "content": f"step {i}: " + "word " * 40})
        else:
            items.append(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": f"done {i} " + "text " * 40}],
                }
            )
    return items


async def app_client(mode: str) -> tuple[httpx2.AsyncClient, Any]:
    upstream = Upstream()
    outbound = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=upstream.app()))
    app = create_app(
        upstream_openai="http://upstream.test/v1",
        http_client=outbound,
        context_window=1_000_000,
        settings=CompactionSettings(prepare_threshold=None),
        options=ProxyOptions(native_compaction=mode, summary_max_retries=0),
    )
    lifespan = app.router.lifespan_context(app)
    await lifespan.__aenter__()
    client = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), timeout=60)
    return client, lifespan


async def timed(client: httpx2.AsyncClient, body: dict[str, Any], requests: int) -> float:
    started = time.process_time()
    for _ in range(requests):
        reply = await client.post("http://proxy.test/v1/responses", json=body, headers=HEADERS)
        assert reply.status_code == 200, reply.text
    return (time.process_time() - started) / requests * 1e3


async def main(messages: int, rounds: int, requests: int) -> None:
    items = history(messages)
    emulating, lifespan_a = await app_client("emulate")
    passing, lifespan_b = await app_client("pass")
    compacted = await emulating.post(
        "http://proxy.test/v1/responses/compact",
        json={"model": MODEL, "input": items},
        headers=HEADERS,
    )
    assert compacted.status_code == 200, compacted.text
    output = compacted.json()["output"]
    carried = {"model": MODEL, "input": [*output, *items]}
    summary = summary_item("SUMMARY-1 (fresh)")  # what the fake upstream summarized
    by_hand = {"model": MODEL, "input": [*output[:-1], summary, *items]}
    plain = {"model": MODEL, "input": items}
    best: dict[str, float] = {}
    for _ in range(rounds):  # in turns, so that drift hits every row alike
        for name, client, body in (
            ("pass mode", passing, plain),
            ("plain", emulating, plain),
            ("expanded by hand", emulating, by_hand),
            ("with item", emulating, carried),
        ):
            ms = await timed(client, body, requests)
            best[name] = min(best.get(name, ms), ms)
    floor = best["pass mode"]
    print(f"{messages}-item Responses request, CPU per request, best of {rounds} x {requests}")
    print("| request | ms | vs pass mode |")
    print("|---|---|---|")
    for name in ("pass mode", "plain", "expanded by hand", "with item"):
        print(f"| {name} | {best[name]:.2f} | {best[name] / floor:.2f}x |")
    for client, lifespan in ((emulating, lifespan_a), (passing, lifespan_b)):
        await client.aclose()
        await lifespan.__aexit__(None, None, None)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=40)
    args = parser.parse_args()
    asyncio.run(main(args.messages, args.rounds, args.requests))
