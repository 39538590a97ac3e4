"""A proxy replica for the fleet tests: ``python -m tests._fleet_replica PORT UPSTREAM DB LEASE``.

``contextfold serve`` gives every replica the production lease of 30 seconds; the
test of a replica killed mid-summary needs a short one, so this runs the same app
under uvicorn with :attr:`PostgresSummaryCache.lease_seconds` set to ``LEASE``, and a
threshold of 0.3 (of a 16,384-token window), low enough that the summarizer reads
the old part of the tests' histories in one call.

The proxy imports the model SDKs with its first summary (over a second of CPU, several
on a loaded machine); a replica here imports them before it listens, so the tests' times
measure leases and summaries, not an import (the killed-replica test allows its survivor
3 seconds past the lease).
"""

from __future__ import annotations

import sys

import anthropic  # noqa: F401 - see the module doc
import openai  # noqa: F401
import uvicorn

from contextfold.compaction import CompactionSettings
from contextfold.proxy import ProxyOptions, create_app
from contextfold.proxy._pgcache import PostgresSummaryCache


def main(port: str, upstream: str, db: str, lease: str) -> None:
    app = create_app(
        upstream_openai=f"{upstream}/v1",
        upstream_anthropic=upstream,
        db=db,
        context_window=16_384,
        settings=CompactionSettings(threshold=0.3),
        options=ProxyOptions(summary_max_retries=0),
    )
    cache = app.state.forwarder.planner.cache
    assert isinstance(cache, PostgresSummaryCache)
    cache.lease_seconds = float(lease)
    uvicorn.run(app, host="127.0.0.1", port=int(port), log_level="warning")


if __name__ == "__main__":
    main(*sys.argv[1:])
