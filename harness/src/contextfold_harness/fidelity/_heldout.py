"""Held-out session templates: sessions the summarizer and the fact extractor were not
tuned against.

They were written without reading the compaction code, in other domains, tool
vocabularies and languages than :mod:`._sessions`:

``incident``
    an SRE on call: ``kubectl``, ``helm`` and ``bash`` calls, JSON and log outputs, an
    alert id, pod names, an image tag, a values file;
``frontend``
    a React/TypeScript fix with Claude-Code-style tools (``Read``, ``Edit``, ``Write``,
    ``Bash``, ``Grep``), vitest and ``gh`` outputs, a component created and one deleted;
``data``
    an analytics reconciliation: SQL with CSV outputs, a dbt model and its tests, money
    and sizes with units;
``travel``
    a German-speaking traveller after a flight cancellation: a booking code, a ticket
    number, a hotel cancellation, a compensation claim;
``finance``
    a Spanish-speaking business owner: a disputed card charge, an invoice, an IBAN, a
    scheduled transfer;
``infra``
    Terraform and Go: a KMS key, a state lock, a lifecycle rule, a failing Go test.

Each opening plants seven probes, as in :mod:`._sessions`: three identifiers (some in the
user's words, some in the assistant's text only, some only in a tool output, on its
first line or deep inside it), two artifacts, one decision the user later corrects and
one pending next step. The filler segments are unrelated work of the same kind, full of
other ids, paths, figures and records that change state. A session depends on nothing
but ``random.Random(f"heldout:{kind}:{seed}")``.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable, Sequence

from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    build_session,
    hexits,
    noise_lines,
    segments_of,
    token,
)

__all__ = ["HELDOUT_KINDS", "generate_heldout"]

_K8S = "bcdfghjklmnpqrstvwxz2456789"
_LOWER = string.ascii_lowercase + string.digits
_ALNUM = string.ascii_letters + string.digits
_PNR = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def _other(rng: random.Random, choices: Sequence[str], taken: str) -> str:
    return rng.choice([c for c in choices if c != taken])


def _hm(rng: random.Random) -> str:
    return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"


def _hms(rng: random.Random) -> str:
    return f"{_hm(rng)}:{rng.randint(0, 59):02d}"


def _day(rng: random.Random) -> str:
    return f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _clock(rng: random.Random) -> Callable[[], str]:
    """Times of day that go forward, for the lines of one log."""
    now = rng.randint(6 * 3600, 20 * 3600)

    def tick() -> str:
        nonlocal now
        now += rng.randint(0, 12)
        return f"{now // 3600:02d}:{now // 60 % 60:02d}:{now % 60:02d}"

    return tick


def _uuid(rng: random.Random) -> str:
    return "-".join(hexits(rng, n) for n in (8, 4, 4, 4, 12))


def _eur(cents: int) -> str:
    """``€18,437.60``."""
    return f"€{cents // 100:,}.{cents % 100:02d}"


def _eur_eu(cents: int) -> str:
    """``18.437,60 €``, as German and Spanish write it."""
    return f"{cents // 100:,}".replace(",", ".") + f",{cents % 100:02d} €"


def _numbered(lines: Sequence[str], start: int = 1) -> str:
    """``cat -n``: what the file viewers print."""
    return "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(lines, start))


# --- incident ----------------------------------------------------------------------------

_SERVICES = (
    "checkout-api",
    "payments-gw",
    "search-indexer",
    "cart-svc",
    "notif-dispatch",
    "pricing-engine",
    "inventory-sync",
    "auth-edge",
    "media-resizer",
    "geo-lookup",
)
_NAMESPACES = ("shop", "payments", "core", "edge")
_ALERTS = ("KubePodCrashLooping", "HighErrorRate5xx", "KubeHpaMaxedOut", "SLOBurnRateFast")


def _node(rng: random.Random) -> str:
    return f"ip-10-{rng.randint(0, 63)}-{rng.randint(0, 255)}-{rng.randint(1, 254)}.internal"


def _pod(rng: random.Random, service: str, replicaset: str | None = None) -> str:
    return f"{service}-{replicaset or token(rng, 10, _K8S)}-{token(rng, 5, _K8S)}"


def _tag(rng: random.Random) -> str:
    return f"2024.{rng.randint(1, 12):02d}.{rng.randint(1, 9)}-{hexits(rng, 7)}"


def _pods_json(
    rng: random.Random,
    pods: Sequence[str],
    victim: str,
    ns: str,
    service: str,
    image: str,
    restarts: int,
) -> str:
    items: list[dict[str, object]] = []
    for name in pods:
        bad = name == victim
        status: dict[str, object] = {
            "name": service,
            "image": image,
            "ready": not bad,
            "restartCount": restarts if bad else rng.randint(0, 1),
            "state": (
                {"waiting": {"reason": "CrashLoopBackOff"}}
                if bad
                else {"running": {"startedAt": f"2024-06-{rng.randint(4, 10):02d}T{_hms(rng)}Z"}}
            ),
        }
        if bad:
            status["lastState"] = {
                "terminated": {
                    "reason": "OOMKilled",
                    "exitCode": 137,
                    "finishedAt": f"2024-06-11T{_hms(rng)}Z",
                }
            }
        items.append(
            {
                "metadata": {"name": name, "namespace": ns, "labels": {"app": service}},
                "spec": {"nodeName": _node(rng)},
                "status": {"phase": "Running", "containerStatuses": [status]},
            }
        )
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2)


def _incident(rng: random.Random, b: Builder, segments: int) -> Parts:
    service = rng.choice(_SERVICES)
    ns = rng.choice(_NAMESPACES)
    cluster = rng.choice(("prod-eu1", "prod-us2", "prod-ap1"))
    inc = f"INC-{rng.randint(10000, 49999)}"
    replicaset = token(rng, 10, _K8S)
    pods = [_pod(rng, service, replicaset) for _ in range(4)]
    victim = pods[rng.randint(1, 3)]
    restarts = rng.randint(9, 31)
    image = f"registry.internal/{service}:{_tag(rng)}"
    values = f"deploy/{service}/values.yaml"
    cron = f"{service}-{rng.choice(('cache-warmup', 'catalog-preload', 'nightly-reindex'))}"
    mem_old, mem_new = rng.choice((("512Mi", "1Gi"), ("768Mi", "1536Mi"), ("1Gi", "2Gi")))
    prev = rng.randint(30, 80)
    p99 = rng.randint(1800, 4200)
    b.user(
        f"We got paged: {inc}, HighLatencyP99 on {service} in {cluster} (namespace {ns}). "
        f"p99 has been around {p99} ms since {_hm(rng)} UTC and 5xx is at "
        f"{rng.randint(2, 9)}.{rng.randint(0, 9)}%. kubectl and helm already point at "
        f"{cluster}. The runbook says roll back to the previous helm revision, so do that "
        "once you have confirmed which revision is bad."
    )
    b.tool(
        "Checking the pods first.",
        "kubectl",
        {"args": ["get", "pods", "-n", ns, "-l", f"app={service}", "-o", "json"]},
        _pods_json(rng, pods, victim, ns, service, image, restarts),
    )
    top = [f"{'NAME':<44} CPU(cores)   MEMORY(bytes)"]
    for pod in pods:
        cpu, mem = (
            (rng.randint(5, 60), rng.randint(40, 90))
            if pod == victim
            else (rng.randint(300, 900), rng.randint(400, 500))
        )
        top.append(f"{pod:<44} {cpu}m{'':<9} {mem}Mi")
    b.tool(
        f"One replica is crash-looping: OOMKilled (exit 137), {restarts} restarts so far. The "
        f"other three are Running; let me see how close they are to the {mem_old} limit.",
        "kubectl",
        {"args": ["top", "pods", "-n", ns, "-l", f"app={service}"]},
        "\n".join(top),
    )
    b.tool(
        "Which image is live?",
        "bash",
        {
            "cmd": f"kubectl -n {ns} get deploy {service} -o "
            "jsonpath='{.spec.template.spec.containers[0].image}'"
        },
        image,
    )
    history = ["REVISION\tUPDATED                 \tSTATUS    \tCHART          \tDESCRIPTION"]
    for day, rev in enumerate(range(prev - 3, prev + 2), start=4):
        state = "deployed" if rev == prev + 1 else "superseded"
        chart = f"{service}-0.{rng.randint(10, 60)}.{rng.randint(0, 9)}"
        history.append(
            f"{rev}      \t2024-06-{day if rev <= prev else 11:02d} {_hms(rng)}\t{state}\t"
            f"{chart}\tUpgrade complete"
        )
    b.tool(
        "And the release history.",
        "helm",
        {"subcommand": "history", "release": service, "namespace": ns, "max": 5},
        "\n".join(history),
    )
    b.assistant(
        f"Revision {prev + 1} went out this morning; {prev} is the previous one. Careful: "
        f"{prev + 1} also ran a schema migration in its pre-upgrade hook, so the "
        f"image of revision {prev} may not read the new columns."
    )
    b.user(
        f"Scratch that, no rollback: revision {prev} can't read the new schema and the "
        "migration already ran. We roll forward instead: raise the memory limit from "
        f"{mem_old} to {mem_new} in the values file and redeploy the current image. And get "
        f"rid of the {cron} CronJob, it loads the whole catalogue into every pod's cache "
        "every ten minutes; we bring it back after the fix."
    )
    b.tool(
        "Raising the limit.",
        "patch_file",
        {
            "target": values,
            "diff": f"@@ -41,7 +41,7 @@\n   limits:\n-    memory: {mem_old}\n"
            f"+    memory: {mem_new}",
        },
        f"patched {values}: 1 hunk applied (+1 -1)",
    )
    rollout_rev = prev + 2
    b.tool(
        "Redeploying the same image with the new values.",
        "helm",
        {
            "subcommand": "upgrade",
            "release": service,
            "chart": f"./deploy/{service}",
            "namespace": ns,
            "values": [values],
            "atomic": True,
        },
        f'Release "{service}" has been upgraded. Happy Helming!\nNAME: {service}\n'
        f"LAST DEPLOYED: Tue Jun 11 {_hms(rng)} 2024\nNAMESPACE: {ns}\nSTATUS: deployed\n"
        f"REVISION: {rollout_rev}\nTEST SUITE: None",
    )
    b.tool(
        "Removing the CronJob.",
        "kubectl",
        {"args": ["delete", "cronjob", cron, "-n", ns]},
        f'cronjob.batch "{cron}" deleted',
    )
    now_ms = rng.randint(420, 880)
    b.tool(
        "Checking p99 now.",
        "bash",
        {
            "cmd": "curl -s http://prometheus.monitoring:9090/api/v1/query --data-urlencode "
            f"'query=histogram_quantile(0.99, sum by (le) (rate(http_server_duration_bucket"
            f'{{service="{service}"}}[5m])))\''
        },
        json.dumps(
            {
                "status": "success",
                "data": {
                    "resultType": "vector",
                    "result": [
                        {
                            "metric": {},
                            "value": [1718110000 + rng.randint(0, 9999), f"0.{now_ms}"],
                        }
                    ],
                },
            }
        ),
    )
    b.assistant(
        f"Rolled out revision {rollout_rev} with the {mem_new} limit; all four pods are "
        f"Running with 0 restarts and p99 is down to about {now_ms} ms, still above target."
    )
    b.user(
        f"Good. Once p99 has stayed under 300 ms for 30 minutes, resolve {inc} and start the "
        "postmortem doc. Not before."
    )
    b.assistant(
        "Will do: I keep watching p99, and after 30 minutes under 300 ms I resolve the "
        "incident and start the postmortem."
    )
    opening = b.take()
    probes = [
        Probe(
            "identifier", "Which alert or incident id was the on-call paged for?", inc, ((inc,),)
        ),
        Probe(
            "identifier",
            "Which pod was OOMKilled and crash-looping?",
            victim,
            ((victim,),),
        ),
        Probe(
            "identifier",
            f"Which container image is {service} running?",
            image,
            ((image,),),
        ),
        Probe(
            "artifact",
            f"What happened to {values}?",
            f"{values} was modified (patched): the memory limit raised from {mem_old} to {mem_new}",
            ((values,), ("patched", "modified", "edited", "changed", "updated", "raised")),
        ),
        Probe(
            "artifact",
            f"What is the state of the {cron} CronJob?",
            f"The {cron} CronJob was deleted",
            ((cron,), ("deleted", "removed")),
        ),
        Probe(
            "decision",
            f"Should {service} be rolled back to the previous helm revision?",
            f"No: the user cancelled the rollback; roll forward with the current image and a "
            f"{mem_new} memory limit",
            (("roll",), ("forward",)),
        ),
        Probe(
            "next_step",
            "What is the next step once p99 stays under 300 ms for 30 minutes?",
            f"Resolve {inc} and start the postmortem doc",
            (("postmortem", "post-mortem", "post mortem"),),
        ),
    ]

    def events(r: random.Random, svc: str, ons: str) -> str:
        reasons = (
            ("Normal", "Pulled", "Successfully pulled image"),
            ("Normal", "Scheduled", "Successfully assigned"),
            ("Warning", "BackOff", "Back-off restarting failed container"),
            ("Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with code 503"),
            ("Normal", "ScalingReplicaSet", "Scaled up replica set"),
            ("Normal", "Killing", "Stopping container"),
        )
        rows = ["LAST SEEN   TYPE      REASON              OBJECT                         MESSAGE"]
        for _ in range(r.randint(9, 10)):
            kind, reason, message = r.choice(reasons)
            pod = _pod(r, svc)
            extra = f" registry.internal/{svc}:{_tag(r)}" if reason == "Pulled" else ""
            rows.append(
                f"{r.randint(1, 59)}m{'':<9}{kind:<10}{reason:<20}pod/{pod:<32}"
                f"{message}{extra} (node {_node(r)}, ns {ons})"
            )
        return "\n".join(rows)

    def log_lines(r: random.Random, svc: str) -> str:
        def line(q: random.Random) -> str:
            return json.dumps(
                {
                    "ts": f"2024-06-11T{_hms(q)}.{q.randint(100, 999)}Z",
                    "level": q.choice(("error", "warn", "error")),
                    "svc": svc,
                    "trace_id": hexits(q, 32),
                    "msg": q.choice(
                        (
                            "upstream timeout",
                            "connection reset by peer",
                            "pool exhausted",
                            "retry budget spent",
                        )
                    ),
                    "duration_ms": round(q.uniform(100, 5000), 1),
                }
            )

        return f"{r.randint(40, 400)}\n" + noise_lines(r, r.randint(7, 8), line)

    def filler(r: random.Random) -> None:
        other = _other(r, _SERVICES, service)
        ons = r.choice(_NAMESPACES)
        if r.random() < 0.5:
            other_inc = f"INC-{r.randint(50000, 99999)}"
            b.user(
                f"Unrelated: {other_inc} just fired for {other} ({r.choice(_ALERTS)}) in "
                f"{r.choice(('staging-eu1', 'prod-us2', 'prod-ap1'))}. Quick look?"
            )
            b.tool(
                "Recent events.",
                "kubectl",
                {"args": ["get", "events", "-n", ons, "--sort-by=.lastTimestamp"]},
                events(r, other, ons),
            )
            b.tool(
                "Error logs from the last 15 minutes.",
                "bash",
                {"cmd": f"kubectl -n {ons} logs deploy/{other} --since=15m | grep -c ERROR"},
                log_lines(r, other),
            )
            replicas = r.randint(4, 12)
            b.assistant(
                f"Mostly upstream timeouts from {other}'s dependency "
                f"{_other(r, _SERVICES, other)}; p95 is {r.randint(300, 2000)}.{r.randint(0, 9)} "
                f"ms on {r.randint(2, 6)} of its pods. Scaling to {replicas} should absorb it."
            )
            b.user(f"OK, ack {other_inc} and scale {other} to {replicas}.")
            b.tool(
                "Scaling.",
                "kubectl",
                {"args": ["scale", "deployment", other, f"--replicas={replicas}", "-n", ons]},
                f"deployment.apps/{other} scaled",
            )
            b.assistant(f"{other_inc} acknowledged, {other} scaled to {replicas} replicas.")
        else:
            staging = f"deploy/{other}/values-staging.yaml"
            feature = r.choice(("BULK_EXPORT", "WEBHOOKS_V2", "SMART_RETRY", "GEO_CACHE"))
            ticket = f"OPS-{r.randint(1000, 9999)}"
            b.user(
                f"While you're at it: staging {other} needs FEATURE_{feature} on in "
                f"{staging} ({ticket}), and clean up its old migration job."
            )

            def env_var(q: random.Random) -> str:
                name = token(q, 6, string.ascii_uppercase)
                key, value = q.choice(
                    (
                        (
                            f"{name}_URL",
                            f"http://{q.choice(_SERVICES)}.{ons}:{q.randint(80, 9999)}",
                        ),
                        (f"{name}_TTL", f"{q.randint(5, 3600)}s"),
                        (f"{name}_MAX", f"{q.randint(1, 9000)}"),
                        (f"{name}_KEY_ID", hexits(q, 12)),
                    )
                )
                return f'    - name: {key}\n      value: "{value}"'

            env = noise_lines(r, r.randint(20, 24), env_var)
            b.tool(
                "Reading the staging values.",
                "bash",
                {"cmd": f"cat {staging}"},
                f"image:\n  repository: registry.internal/{other}\n  tag: {_tag(r)}\n"
                f"replicaCount: {r.randint(1, 4)}\nresources:\n  limits:\n"
                f"    memory: {r.choice(('256Mi', '384Mi', '640Mi'))}\nenv:\n{env}",
            )
            b.tool(
                "Turning the feature on.",
                "patch_file",
                {"target": staging, "diff": f'+    - name: FEATURE_{feature}\n+      value: "1"'},
                f"patched {staging}: 1 hunk applied (+2 -0)",
            )
            b.tool(
                "Deploying to staging.",
                "helm",
                {
                    "subcommand": "upgrade",
                    "release": other,
                    "namespace": f"{ons}-staging",
                    "values": [staging],
                },
                f'Release "{other}" has been upgraded. Happy Helming!\nNAMESPACE: '
                f"{ons}-staging\nSTATUS: deployed\nREVISION: {r.randint(5, 200)}",
            )
            replicaset = token(r, 10, _K8S)
            wide = [
                "NAME                                      READY   STATUS    RESTARTS   IP  NODE"
            ]
            wide += [
                f"{_pod(r, other, replicaset):<42}{r.choice(('1/1', '1/1', '0/1'))}     Running   "
                f"{r.randint(0, 3)}          10.{r.randint(0, 63)}.{r.randint(0, 255)}."
                f"{r.randint(1, 254)}  {_node(r)}"
                for _ in range(r.randint(8, 9))
            ]
            b.tool(
                "Checking the new pods.",
                "kubectl",
                {
                    "args": [
                        "get",
                        "pods",
                        "-n",
                        f"{ons}-staging",
                        "-l",
                        f"app={other}",
                        "-o",
                        "wide",
                    ]
                },
                "\n".join(wide),
            )
            job = f"{other}-db-migrate-{token(r, 5, _K8S)}"
            b.tool(
                "Removing the finished migration job.",
                "kubectl",
                {"args": ["delete", "job", job, "-n", f"{ons}-staging"]},
                f'job.batch "{job}" deleted',
            )
            b.assistant(f"{ticket}: feature on in staging for {other}, old job {job} deleted.")

    return opening, segments_of(rng, b, segments, filler), probes


# --- frontend ----------------------------------------------------------------------------

_FE_AREAS = {
    "cart": ("CartSummary", "DiscountRow", "LegacyPromoBanner"),
    "checkout": ("OrderReview", "PromoLine", "OldCouponBox"),
    "account": ("LoyaltyPanel", "PointsDiscount", "LegacyRewardsCard"),
    "orders": ("InvoicePreview", "RebateLine", "DeprecatedTotals"),
}
_FE_OTHERS = (
    ("search", "SearchBar"),
    ("wishlist", "WishlistButton"),
    ("reviews", "ReviewStars"),
    ("product", "ProductGallery"),
    ("header", "MegaMenu"),
    ("footer", "FooterLinks"),
    ("product", "SizePicker"),
    ("stores", "StoreLocator"),
)
_SUMMARY_TSX = """import { useMemo } from 'react';
import { useCart } from '@/hooks/useCart';
import { formatMoney } from '@/lib/money';
import { applyDiscounts, memberPrice } from '@/lib/pricing';

type Props = { currency: string; compact?: boolean };

export function @E({ currency, compact = false }: Props) {
  const { lines, promo, member } = useCart();
  const subtotal = useMemo(
    () => lines.reduce((sum, l) => sum + memberPrice(l, member) * l.qty, 0),
    [lines, member],
  );
  const discounted = applyDiscounts(subtotal, promo, member);
  const discount = subtotal - applyDiscounts(discounted, promo, member);
  return (
    <section className={compact ? 'p-2' : 'rounded-lg border p-4'}>
      <div className="flex justify-between">
        <span>Subtotal</span>
        <span>{formatMoney(subtotal, currency)}</span>
      </div>
      {discount > 0 && (
        <div className="flex justify-between text-green-700">
          <span>{promo?.label ?? 'Member price'}</span>
          <span>-{formatMoney(discount, currency)}</span>
        </div>
      )}
      <div className="flex justify-between font-semibold">
        <span>Total</span>
        <span>{formatMoney(subtotal - discount, currency)}</span>
      </div>
    </section>
  );
}"""
_ROW_TSX = """import { formatMoney } from '@/lib/money';
import styles from './@C.module.css';

type Props = { label: string; amount: number; currency: string };

export function @C({ label, amount, currency }: Props) {
  if (amount <= 0) return null;
  return (
    <div className={styles.row} data-testid="discount-row">
      <span>{label}</span>
      <span>-{formatMoney(amount, currency)}</span>
    </div>
  );
}
"""


def _vitest(rng: random.Random, root: str, files: Sequence[tuple[str, int, bool]]) -> str:
    lines = [f" RUN  v1.6.0 {root}", ""]
    failed = 0
    tests = 0
    for path, count, ok in files:
        mark = "✓" if ok else "❯"
        lines.append(f" {mark} {path} ({count} tests) {rng.randint(8, 140)}ms")
        tests += count
        if not ok:
            failed += 1
            lines.append(f"   × renders the total once {rng.randint(2, 30)}ms")
    passed = len(files) - failed
    summary = f"{failed} failed | {passed} passed" if failed else f"{passed} passed"
    lines += [
        "",
        f" Test Files  {summary} ({len(files)})",
        f"      Tests  {tests - failed} passed ({tests})",
        f"   Start at  {_hms(rng)}",
        f"   Duration  {rng.randint(1, 4)}.{rng.randint(10, 99)}s (transform "
        f"{rng.randint(90, 400)}ms, setup 0ms, collect {rng.randint(300, 1500)}ms)",
    ]
    return "\n".join(lines)


def _frontend(rng: random.Random, b: Builder, segments: int) -> Parts:
    app = rng.choice(("shop-web", "storefront", "portal-ui", "acme-web"))
    root = f"/home/{rng.choice(('dev', 'mika', 'sam', 'ana'))}/code/{app}"
    area = rng.choice(sorted(_FE_AREAS))
    edited_name, created_name, legacy_name = _FE_AREAS[area]
    folder = f"src/components/{area}"
    edited = f"{folder}/{edited_name}.tsx"
    created = f"{folder}/{created_name}.tsx"
    legacy = f"{folder}/{legacy_name}.tsx"
    css = f"{folder}/{created_name}.module.css"
    ticket = f"WEB-{rng.randint(1000, 4999)}"
    pr_url = f"https://github.com/acme/{app}/pull/{rng.randint(1000, 4999)}"
    run_id = rng.randint(9_000_000_000, 9_999_999_999)
    b.user(
        f"Picking up {ticket}: the {area} page shows the discount twice when a promo code and "
        f"a member price both apply. Fix it in {edited_name}, move the discount line into its "
        f"own {created_name} component, and delete {legacy_name}, nothing imports it anymore. "
        f"Give {created_name} a CSS module for its styles."
    )
    b.tool(
        "Checking that nothing uses the old component.",
        "Grep",
        {"pattern": legacy_name, "path": "src", "output_mode": "files_with_matches"},
        f"Found 2 files\n{root}/{legacy}\n{root}/{folder}/{legacy_name}.test.tsx",
    )
    b.tool(
        "Reading the component.",
        "Read",
        {"file_path": f"{root}/{edited}"},
        _numbered(_SUMMARY_TSX.replace("@E", edited_name).splitlines()),
    )
    runs = []
    failing = rng.randint(1, 3)
    for i in range(4):
        runs.append(
            {
                "conclusion": "failure" if i == failing else "success",
                "databaseId": run_id if i == failing else rng.randint(8_000_000_000, 8_999_999_999),
                "displayTitle": rng.choice(
                    ("Bump vite to 5.3", "Fix header focus ring", "Add wishlist api", "i18n sync")
                ),
                "headSha": hexits(rng, 40),
                "name": "e2e" if i == failing else rng.choice(("ci", "lint", "unit")),
            }
        )
    b.tool(
        "Is main green?",
        "Bash",
        {
            "command": "gh run list --branch main --limit 4 --json "
            "conclusion,databaseId,displayTitle,headSha,name",
            "description": "List recent CI runs on main",
        },
        json.dumps(runs, indent=2),
    )
    b.tool(
        "Found the bug: `applyDiscounts` runs on the already discounted amount, so the member "
        "price is taken off twice. Main has one failed e2e run, unrelated to this.",
        "Edit",
        {
            "file_path": f"{root}/{edited}",
            "old_string": "  const discount = subtotal - "
            "applyDiscounts(discounted, promo, member);",
            "new_string": "  const discount = subtotal - discounted;",
        },
        f"The file {root}/{edited} has been updated. Here's the result of running `cat -n` "
        "on a snippet of the edited file:\n"
        + _numbered(
            [
                "  const discounted = applyDiscounts(subtotal, promo, member);",
                "  const discount = subtotal - discounted;",
                "  return (",
            ],
            14,
        ),
    )
    b.tool(
        "Creating the discount row.",
        "Write",
        {"file_path": f"{root}/{created}", "content": _ROW_TSX.replace("@C", created_name)},
        f"File created successfully at: {root}/{created}",
    )
    b.tool(
        "And its CSS module.",
        "Write",
        {
            "file_path": f"{root}/{css}",
            "content": ".row {\n  display: flex;\n  justify-content: space-between;\n}\n",
        },
        f"File created successfully at: {root}/{css}",
    )
    b.tool(
        "Rendering the row from the summary.",
        "Edit",
        {
            "file_path": f"{root}/{edited}",
            "old_string": '      {discount > 0 && (\n        <div className="flex justify-between '
            'text-green-700">',
            "new_string": f"      <{created_name} label={{promo?.label ?? 'Member price'}} "
            "amount={discount} currency={currency} />",
        },
        f"The file {root}/{edited} has been updated. Here's the result of running `cat -n` "
        "on a snippet of the edited file:\n"
        + _numbered(
            [
                f"      <{created_name} label={{promo?.label ?? 'Member price'}} "
                "amount={discount} currency={currency} />",
                '      <div className="flex justify-between font-semibold">',
            ],
            22,
        ),
    )
    b.tool(
        "Deleting the unused component and its test.",
        "Bash",
        {
            "command": f"git rm {legacy} {folder}/{legacy_name}.test.tsx",
            "description": "Remove the unused component",
        },
        f"rm '{legacy}'\nrm '{folder}/{legacy_name}.test.tsx'",
    )
    b.tool(
        "Running the tests of the folder.",
        "Bash",
        {"command": f"npx vitest run {folder}", "description": "Run the component tests"},
        _vitest(
            rng,
            root,
            [
                (f"{folder}/{edited_name}.test.tsx", rng.randint(4, 9), True),
                (f"{folder}/{area.capitalize()}Item.test.tsx", rng.randint(5, 12), True),
            ],
        ),
    )
    b.assistant(f"The discount now shows once and the {area} tests pass.")
    b.user(
        f"On second thought, no CSS module: the {area} folder moved to Tailwind last sprint, so "
        f"style {created_name} with Tailwind utility classes like the rest of it."
    )
    b.tool(
        "Switching to utility classes.",
        "Edit",
        {
            "file_path": f"{root}/{created}",
            "old_string": '<div className={styles.row} data-testid="discount-row">',
            "new_string": '<div className="flex justify-between text-green-700" '
            'data-testid="discount-row">',
        },
        f"The file {root}/{created} has been updated. Here's the result of running `cat -n` "
        "on a snippet of the edited file:\n"
        + _numbered(
            [
                '    <div className="flex justify-between text-green-700" '
                'data-testid="discount-row">'
            ],
            9,
        ),
    )
    b.tool(
        "Dropping the stylesheet.",
        "Bash",
        {"command": f"rm {css} && git status --short", "description": "Remove the CSS module"},
        f" M {edited}\n D {legacy}\n D {folder}/{legacy_name}.test.tsx\n?? {created}",
    )
    branch = f"fix/{area}-discount-once"
    sha = hexits(rng, 7)
    b.tool(
        "Committing on a branch.",
        "Bash",
        {
            "command": f"git checkout -b {branch} && git add -A && git commit -m "
            "'Show the discount once' && git push -u origin HEAD",
            "description": "Commit and push the fix",
        },
        f"Switched to a new branch '{branch}'\n[{branch} {sha}] Show the discount once\n"
        f" 4 files changed, {rng.randint(20, 40)} insertions(+), {rng.randint(30, 90)} "
        f"deletions(-)\nTo github.com:acme/{app}.git\n * [new branch]      HEAD -> {branch}\n"
        f"branch '{branch}' set up to track 'origin/{branch}'.",
    )
    b.tool(
        "Opening a draft PR.",
        "Bash",
        {
            "command": "gh pr create --draft --title 'Show the discount once' "
            "--body-file .github/pull_request_template.md",
            "description": "Open a draft pull request",
        },
        f"{pr_url}\n",
    )
    b.assistant("The draft PR is open; CI is running on it.")
    b.user(
        "Nice. When CI is green on the PR, mark it ready for review and request a review from "
        "the design-system team."
    )
    b.assistant(
        "Will do: once CI is green I mark the PR ready for review and request the "
        "design-system team."
    )
    opening = b.take()
    probes = [
        Probe("identifier", "Which ticket is this fix for?", ticket, ((ticket,),)),
        Probe("identifier", "What is the URL of the draft pull request?", pr_url, ((pr_url,),)),
        Probe(
            "identifier",
            "Which GitHub Actions run id failed the e2e workflow on main?",
            str(run_id),
            ((str(run_id),),),
        ),
        Probe(
            "artifact",
            f"What is the state of {created}?",
            f"{created} was created (a new component, later restyled with Tailwind)",
            ((created,), ("created", "new file", "added", "wrote", "written")),
        ),
        Probe(
            "artifact",
            f"What is the state of {legacy}?",
            f"{legacy} was deleted (git rm, with its test)",
            ((legacy,), ("deleted", "removed", "rm '", "git rm")),
        ),
        Probe(
            "decision",
            f"How must {created_name} be styled?",
            "With Tailwind utility classes (the user dropped the earlier CSS-module instruction)",
            (("tailwind",), ("class", "style")),
        ),
        Probe(
            "next_step",
            "What is the next step once CI is green on the PR?",
            "Mark the PR ready for review and request a review from the design-system team",
            (("ready for review",), ("design-system", "design system")),
        ),
    ]

    def code_line(q: random.Random) -> str:
        name = token(q, 1, string.ascii_lowercase) + token(q, 7, _LOWER)
        return q.choice(
            (
                f"  const {name} = useMemo(() => select{hexits(q, 3)}(state), [state]);",
                f'  if (!{name}) return <Spinner size="{q.choice(("sm", "md"))}" />;',
                f"  const [{name}, set{name.capitalize()}] = useState<number>({q.randint(0, 99)});",
                f"  useEffect(() => track('{name}', {{ id: '{token(q, 8)}' }}), []);",
                f"  // TODO(WEB-{q.randint(5000, 9999)}): drop {name} after the redesign",
            )
        )

    def filler(r: random.Random) -> None:
        other_area, comp = r.choice(_FE_OTHERS)
        path = f"src/components/{other_area}/{comp}.tsx"
        other_ticket = f"WEB-{r.randint(5000, 9999)}"
        if r.random() < 0.5:
            b.user(f"Side quest, {other_ticket}: lint is complaining about {comp}, can you look?")
            count = r.randint(7, 9)
            warnings = noise_lines(
                r,
                count,
                lambda q: (
                    f"  {q.randint(1, 120)}:{q.randint(1, 40)}  warning  "
                    f"'{token(q, 6, string.ascii_lowercase)}' is assigned a value but never used"
                    "  @typescript-eslint/no-unused-vars"
                ),
            )
            b.tool(
                "Running eslint on it.",
                "Bash",
                {"command": f"npx eslint {path}", "description": "Lint the component"},
                f"{root}/{path}\n{warnings}\n\n✖ {count} problems (0 errors, {count} warnings)",
            )
            b.tool(
                "Reading it.",
                "Read",
                {"file_path": f"{root}/{path}", "limit": 40},
                _numbered([code_line(r) for _ in range(r.randint(26, 30))]),
            )
            b.tool(
                "Removing the unused variables.",
                "Edit",
                {
                    "file_path": f"{root}/{path}",
                    "old_string": "  const [draft, setDraft] = useState('');\n",
                    "new_string": "",
                },
                f"The file {root}/{path} has been updated.",
            )
            test = path.replace(".tsx", ".test.tsx")
            b.tool(
                "Its tests.",
                "Bash",
                {"command": f"npx vitest run {test}", "description": "Run its tests"},
                _vitest(r, root, [(test, r.randint(2, 14), True)]),
            )
            b.assistant(f"Lint is clean for {comp} and its tests pass ({other_ticket}).")
        else:
            hook = f"src/hooks/use{r.choice(('Debounced', 'Throttled', 'Persisted'))}{comp}.ts"
            b.user(
                f"{other_ticket}: {comp} refetches on every keystroke. Add a hook for it, and "
                "tell me what's outdated while you're there."
            )
            b.tool(
                "Writing the hook.",
                "Write",
                {
                    "file_path": f"{root}/{hook}",
                    "content": "export function useX<T>(value: T, ms = 250): T { /* ... */ }",
                },
                f"File created successfully at: {root}/{hook}",
            )
            outdated = noise_lines(
                r,
                r.randint(23, 26),
                lambda q: (
                    f"{'@acme/' + token(q, 6, string.ascii_lowercase):<26}"
                    f"{q.randint(0, 9)}.{q.randint(0, 30)}.{q.randint(0, 9):<8}"
                    f"{q.randint(0, 9)}.{q.randint(0, 30)}.{q.randint(0, 9):<8}"
                    f"{q.randint(10, 19)}.{q.randint(0, 9)}.0   node_modules/{token(q, 8, _LOWER)}"
                    f"  {app}"
                ),
            )
            b.tool(
                "Checking dependencies.",
                "Bash",
                {"command": "npm outdated", "description": "List outdated packages"},
                "Package                   Current  Wanted   Latest   Location"
                "        Depended by\n"
                f"{outdated}",
            )
            b.tool(
                "Using the hook.",
                "Edit",
                {
                    "file_path": f"{root}/{path}",
                    "old_string": "const results = useSearch(query);",
                    "new_string": "const results = useSearch(useDebounced(query));",
                },
                f"The file {root}/{path} has been updated.",
            )
            b.assistant(
                f"Added {hook} and used it in {comp}. {r.randint(9, 19)} packages are behind, "
                "none with a security advisory; bundle size is "
                f"{r.randint(180, 420)}.{r.randint(1, 9)} kB gzipped."
            )

    return opening, segments_of(rng, b, segments, filler), probes


# --- data --------------------------------------------------------------------------------

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "September")
_OTHER_MODELS = (
    "stg_stripe__charges",
    "stg_stripe__payouts",
    "stg_shop__orders",
    "int_sessions_daily",
    "fct_subscriptions",
    "dim_customers",
)


def _refund_model_sql(model: str) -> list[str]:
    return [
        "{{ config(materialized='incremental', unique_key='refund_id') }}",
        "",
        "with refunds as (",
        "    select * from {{ ref('stg_stripe__refunds') }}",
        "    {% if is_incremental() %}",
        "    where created_at > (select max(created_at) from {{ this }})",
        "    {% endif %}",
        "),",
        "",
        "fx as (select * from {{ ref('stg_ecb__rates') }})",
        "",
        "select",
        "    refunds.refund_id,",
        "    refunds.charge_id,",
        "    refunds.is_partial,",
        "    refunds.amount / 100.0 * coalesce(fx.rate_to_eur, 1) as amount_eur,",
        "    refunds.created_at,",
        "    date_trunc('month', refunds.created_at) as refund_month",
        "from refunds",
        "left join fx",
        "    on fx.currency = refunds.currency",
        "   and fx.rate_date = refunds.created_at::date",
        f"-- model: {model}",
    ]


def _data(rng: random.Random, b: Builder, segments: int) -> Parts:
    model = rng.choice(("fct_refunds", "fct_refund_events", "fct_order_refunds"))
    path = f"models/marts/finance/{model}.sql"
    test = f"assert_{model}_matches_finance"
    month_i = rng.randrange(len(_MONTHS))
    month = _MONTHS[month_i]
    finance = rng.randint(1_500_000, 4_800_000)
    gap = rng.randint(40_000, 260_000)
    refund_id = f"re_{token(rng, 24, _ALNUM)}"
    b.user(
        f"Finance closed {month} with refunds of {_eur(finance)}, but the Refunds dashboard, "
        f"which reads {model}, shows more. Find out why. For the comparison leave partial "
        "refunds out, finance doesn't count them."
    )
    b.tool(
        "Summing the model for the month.",
        "run_sql",
        {
            "sql": f"select refund_month, sum(amount_eur) as refunds_eur, count(*) as n\n"
            f"from analytics.{model}\nwhere refund_month = '2024-{month_i + 1:02d}-01'\n"
            "group by 1",
            "warehouse": "ANALYTICS_WH",
        },
        f"refund_month,refunds_eur,n\n2024-{month_i + 1:02d}-01,{(finance + gap) / 100:.2f},"
        f"{rng.randint(300, 900)}\n(1 row · {rng.randint(200, 900)}.{rng.randint(0, 9)} MB "
        f"processed · {rng.randint(1, 4)}.{rng.randint(10, 99)} s)",
    )
    amounts = sorted({rng.randint(2_000, 300_000) for _ in range(9)} | {gap}, reverse=True)
    rows = ["refund_id,charge_id,amount_eur,created_at,n"]
    for cents in amounts:
        rid = refund_id if cents == gap else f"re_{token(rng, 24, _ALNUM)}"
        rows.append(
            f"{rid},ch_{token(rng, 24, _ALNUM)},{cents / 100:.2f},"
            f"2024-{month_i + 1:02d}-{rng.randint(1, 28):02d} {_hms(rng)},"
            f"{2 if cents == gap else 1}"
        )
    b.tool(
        f"The model sums {_eur(finance + gap)} for {month}, {_eur(gap)} more than finance's "
        "figure. Let me look for duplicates.",
        "run_sql",
        {
            "sql": f"select refund_id, charge_id, amount_eur, created_at, count(*) as n\n"
            f"from analytics.{model}\nwhere refund_month = '2024-{month_i + 1:02d}-01'\n"
            "group by 1, 2, 3, 4 order by amount_eur desc limit 10",
            "warehouse": "ANALYTICS_WH",
        },
        "\n".join(rows) + f"\n({len(amounts)} rows · 1.{rng.randint(1, 9)} GB processed · "
        f"{rng.randint(2, 6)}.{rng.randint(10, 99)} s)",
    )
    b.tool(
        "One refund is in the table twice (n = 2): Stripe delivered its webhook twice and the "
        "model does not dedupe on refund_id. Its amount is exactly the gap.",
        "open_file",
        {"filename": path},
        "\n".join(_refund_model_sql(model)),
    )
    b.tool(
        "Deduplicating and leaving partial refunds out.",
        "replace_in_file",
        {
            "filename": path,
            "find": "   and fx.rate_date = refunds.created_at::date",
            "replace": "   and fx.rate_date = refunds.created_at::date\n"
            "where not refunds.is_partial\nqualify row_number() over "
            "(partition by refunds.refund_id order by refunds.created_at) = 1",
        },
        f"{path}: 1 replacement, file saved (+3 -0)",
    )
    clock = _clock(rng)
    b.tool(
        "Building the model and its tests.",
        "dbt",
        {"args": f"build --select {model}"},
        f"{clock()}  Running with dbt=1.8.2\n"
        f"{clock()}  Found {rng.randint(180, 320)} models, {rng.randint(400, 900)} data tests\n"
        f"{clock()}  1 of 3 START sql incremental model analytics.{model} .......... [RUN]\n"
        f"{clock()}  1 of 3 OK created sql incremental model analytics.{model} ..... "
        f"[MERGE {rng.randint(100, 900)} in {rng.randint(3, 19)}.{rng.randint(10, 99)}s]\n"
        f"{clock()}  2 of 3 PASS unique_{model}_refund_id ...................... "
        f"[PASS in 1.{rng.randint(10, 99)}s]\n"
        f"{clock()}  3 of 3 FAIL 1 {test} ................ "
        f"[FAIL 1 in 2.{rng.randint(10, 99)}s]\n"
        f"{clock()}  Done. PASS=2 WARN=0 ERROR=0 FAIL=1 SKIP=0 TOTAL=3",
    )
    b.assistant(
        "The duplicate is gone and the unique test passes, but the reconciliation test is still "
        "off by one row."
    )
    b.user(
        "Wait, change of plan: I misread their sheet, finance does count partial refunds. "
        "Include them, converted to EUR at the refund-date rate."
    )
    b.assistant("Understood: partial refunds are included, converted at the refund-date rate.")
    b.user(f"When the reconciliation test passes, backfill {model} from January.")
    b.assistant(f"OK: once the reconciliation test is green I run the backfill of {model}.")
    opening = b.take()
    probes = [
        Probe(
            "identifier",
            f"What refund total did finance report for {month}?",
            _eur(finance),
            ((_eur(finance),),),
        ),
        Probe(
            "identifier",
            f"Which refund id appears twice in {model}?",
            refund_id,
            ((refund_id,),),
        ),
        Probe(
            "identifier",
            "By how much did the model's total exceed finance's figure?",
            _eur(gap),
            ((_eur(gap),),),
        ),
        Probe(
            "artifact",
            f"What is the state of {path}?",
            f"{path} was modified (deduplicated on refund_id)",
            ((path,), ("modified", "edited", "changed", "updated", "saved", "replacement")),
        ),
        Probe(
            "artifact",
            f"What is the state of the dbt test {test}?",
            f"{test} fails (FAIL 1)",
            ((test,), ("fail",)),
        ),
        Probe(
            "decision",
            "Do partial refunds count in the comparison with finance?",
            "Yes: include them, converted to EUR at the refund-date rate (the user reversed "
            "the earlier instruction to leave them out)",
            (("partial",), ("include",)),
        ),
        Probe(
            "next_step",
            "What is the next step once the reconciliation test passes?",
            f"Backfill {model} from January",
            (("backfill", "back-fill"),),
        ),
    ]

    def filler(r: random.Random) -> None:
        other = r.choice(_OTHER_MODELS)
        if r.random() < 0.5:
            countries = ("DE", "FR", "ES", "IT", "NL", "AT", "PL", "SE")
            b.user(
                "Marketing asks for weekly active users by country for the last six weeks, "
                f"from {other}. {r.choice(('Quick one.', 'For the Monday deck.', 'No rush.'))}"
            )
            count = r.randint(33, 35)
            rows = noise_lines(
                r,
                count,
                lambda q: (
                    f"2024-W{q.randint(10, 40)},{q.choice(countries)},{q.randint(1000, 90000)},"
                    f"{q.randint(100, 9000)},{q.randint(10, 99)}.{q.randint(0, 9)},"
                    f"{q.randint(100, 9999)},{q.randint(1000, 400000)},"
                    f"{q.randint(20, 140)}.{q.randint(10, 99)},"
                    f"{q.randint(1, 6)}.{q.randint(10, 99)}"
                ),
            )
            b.tool(
                "Querying.",
                "run_sql",
                {
                    "sql": "select week, country, wau, new_users, avg_session_min, orders, "
                    f"revenue_eur, aov_eur, conv_pct\nfrom analytics.{other}\n"
                    "where week >= current_date - 42\norder by 1, 2",
                    "warehouse": r.choice(("ANALYTICS_WH", "ADHOC_XS")),
                },
                "week,country,wau,new_users,avg_session_min,orders,revenue_eur,aov_eur,conv_pct\n"
                f"{rows}\n({count} rows · {r.randint(2, 9)}.{r.randint(0, 9)} GB processed · "
                f"{r.randint(3, 14)}.{r.randint(0, 9)} s)",
            )
            nb = f"notebooks/wau_by_country_{hexits(r, 4)}.ipynb"
            stats = noise_lines(
                r,
                8,
                lambda q: (
                    f"{q.choice(('count', 'mean', 'std', 'min', '25%', '50%', '75%', 'max')):<6}"
                    + "".join(f"{q.uniform(0, 90000):>14.2f}" for _ in range(5))
                ),
            )
            b.tool(
                "Charting it in a notebook.",
                "notebook",
                {"path": nb, "cell": "df.describe(); df.pivot(index='week', columns='country')"},
                f"created {nb} (6 cells), figure saved to {nb.replace('.ipynb', '.png')}\n"
                f"{'':<6}{'wau':>14}{'new_users':>14}{'orders':>14}{'revenue_eur':>14}"
                f"{'aov_eur':>14}\n{stats}",
            )
            b.assistant(
                f"{r.choice(countries)} leads with about {r.randint(20, 90)}k WAU, up "
                f"{r.randint(1, 9)}.{r.randint(0, 9)}% week over week; the chart is in {nb}."
            )
        else:
            endpoints = ("/orders", "/cart", "/search", "/login", "/products/:id", "/wishlist")
            b.user(
                f"The API latency tile looks off since someone touched {other}. Can you check "
                "the percentiles and fix the model if it's wrong?"
            )
            rows = noise_lines(
                r,
                r.randint(27, 29),
                lambda q: (
                    f"2024-{q.randint(1, 12):02d}-{q.randint(1, 28):02d},{q.choice(endpoints)},"
                    f"{q.choice(('eu-west-1', 'us-east-2'))},{q.randint(10, 90)}.{q.randint(0, 9)},"
                    f"{q.randint(100, 900)}.{q.randint(0, 9)},"
                    f"{q.randint(900, 4000)}.{q.randint(0, 9)},"
                    f"{q.randint(1000, 900000)},{q.randint(0, 900)},0.{q.randint(0, 99):02d}"
                ),
            )
            b.tool(
                "Percentiles per endpoint.",
                "run_sql",
                {
                    "sql": "select day, endpoint, region, p50_ms, p95_ms, p99_ms, requests, "
                    f"errors, error_pct\nfrom analytics.{other} order by day desc limit 25",
                    "warehouse": "ANALYTICS_WH",
                },
                "day,endpoint,region,p50_ms,p95_ms,p99_ms,requests,errors,error_pct\n"
                f"{rows}\n(25 rows · {r.randint(100, 900)} MB processed · 0.{r.randint(10, 99)} s)",
            )
            other_path = f"models/staging/{other}.sql"
            source = r.choice(("otel", "gateway", "cdn"))
            b.tool(
                "Reading the model.",
                "open_file",
                {"filename": other_path},
                "\n".join(
                    [
                        "{{ config(materialized='view') }}",
                        "",
                        "select",
                        "    date_trunc('day', ts) as day,",
                        "    endpoint,",
                        "    region,",
                        "    approx_percentile(latency_us, 0.50) as p50_ms,",
                        "    approx_percentile(latency_us, 0.95) as p95_ms,",
                        "    approx_percentile(latency_us, 0.99) as p99_ms,",
                        "    count(*) as requests,",
                        "    count_if(status >= 500) as errors,",
                        "    errors / nullif(requests, 0) as error_pct",
                        f"from {{{{ source('{source}', 'http_requests') }}}}",
                        f"where ts >= dateadd(day, -{r.randint(30, 90)}, current_date)",
                        "group by 1, 2, 3",
                    ]
                ),
            )
            b.tool(
                "The percentile used the wrong column.",
                "replace_in_file",
                {
                    "filename": other_path,
                    "find": "approx_percentile(latency_us",
                    "replace": "approx_percentile(latency_us / 1000.0",
                },
                f"{other_path}: 3 replacements, file saved (+3 -3)",
            )
            b.tool(
                "Rebuilding it.",
                "dbt",
                {"args": f"run --select {other}"},
                f"{_hms(r)}  1 of 1 OK created sql view model analytics.{other} "
                f"[CREATE VIEW in 0.{r.randint(10, 99)}s]\n"
                f"{_hms(r)}  Done. PASS=1 ERROR=0 TOTAL=1",
            )
            b.assistant(
                f"It treated microseconds as milliseconds; p95 for /orders is now "
                f"{r.randint(100, 400)}.{r.randint(0, 9)} ms instead of "
                f"{r.randint(1000, 9000)}.{r.randint(0, 9)} ms."
            )

    return opening, segments_of(rng, b, segments, filler), probes


# --- travel (German) ---------------------------------------------------------------------

_CITIES = (
    ("Lissabon", "LIS", "Hotel Miradouro"),
    ("Barcelona", "BCN", "Hotel Casa Gràcia"),
    ("Wien", "VIE", "Hotel am Stadtpark"),
    ("Kopenhagen", "CPH", "Hotel Nyhavn 71"),
)
_MONATE = (("März", 3), ("April", 4), ("Juni", 6), ("Oktober", 10))
_FIRST_NAMES = ("Jana", "Tobias", "Miriam", "Lukas", "Svenja", "Deniz", "Carla", "Henrik")


def _flight(rng: random.Random, airline: str = "LH") -> str:
    return f"{airline}{rng.randint(1000, 1999)}"


def _travel(rng: random.Random, b: Builder, segments: int) -> Parts:
    city, code, hotel = rng.choice(_CITIES)
    pnr = token(rng, 6, _PNR)
    ticket = f"220-{rng.randint(2_100_000_000, 2_199_999_999)}"
    conf = f"{rng.choice(('NH', 'IB', 'PT', 'VI'))}-{rng.randint(1_000_000, 9_999_999)}"
    claim = f"EU261-{rng.randint(100_000, 999_999)}"
    cancelled = _flight(rng)
    new_flight = _flight(rng)
    day = rng.randint(3, 26)
    monat, month = rng.choice(_MONATE)
    date_de = f"{day}. {monat}"
    date_iso = f"2024-{month:02d}-{day:02d}"
    nights = rng.randint(2, 3)
    rate = rng.randint(89, 189) * 100 + rng.choice((0, 50, 90))
    refund = _eur_eu(nights * rate)
    seat = f"{rng.randint(8, 31)}{rng.choice('CD')}"
    card = rng.randint(1000, 9999)
    b.user(
        f"Hallo! Mein Rückflug {cancelled} von {city} nach Frankfurt am {date_de} wurde "
        f"gestrichen, Buchungscode {pnr}. Bitte buch mich auf den frühesten Flug am selben Tag "
        f"um, gern in Business. Und die Verlängerungsnächte im {hotel} brauche ich dann nicht "
        "mehr, die können weg."
    )
    booking = {
        "record_locator": pnr,
        "passenger": {"name": "MUELLER/ANNA MS", "ff": f"LH{rng.randint(10**14, 10**15 - 1)}"},
        "segments": [
            {
                "id": 1,
                "flight": _flight(rng),
                "route": f"FRA-{code}",
                "date": f"2024-{month:02d}-{max(day - 4, 1):02d}",
                "status": "FLOWN",
            },
            {
                "id": 2,
                "flight": cancelled,
                "route": f"{code}-FRA",
                "date": date_iso,
                "status": "UN",
                "remark": "FLIGHT CANCELLED BY CARRIER",
            },
        ],
        "tickets": [
            {
                "number": ticket,
                "coupons": ["USED", "OPEN"],
                "fare_basis": f"{token(rng, 1, 'KLMSTV')}{token(rng, 5, string.ascii_uppercase)}",
                "total": f"EUR {rng.randint(280, 690)}.{rng.randint(10, 99)}",
            }
        ],
        "hotels": [
            {
                "confirmation": f"BK-{rng.randint(10**8, 10**9 - 1)}",
                "hotel": hotel,
                "nights": max(day - 4, 1),
                "status": "CONFIRMED",
            },
            {
                "confirmation": conf,
                "hotel": hotel,
                "nights": nights,
                "rate": f"EUR {rate // 100}.{rate % 100:02d}",
                "status": "CONFIRMED",
                "cancellable_until": f"{date_iso}T12:00",
            },
        ],
    }
    b.tool(
        "Buchung abrufen.",
        "get_booking",
        {"record_locator": pnr},
        json.dumps(booking, indent=2, ensure_ascii=False),
    )
    options = [
        f"{new_flight}  {code}-FRA  {rng.randint(6, 8):02d}:{rng.randint(0, 5)}0  C:4  Y:9",
        *(
            f"{_flight(rng, rng.choice(('LH', 'TP', 'OS', 'SK')))}  {code}-"
            f"{rng.choice(('FRA', 'MUC', 'ZRH'))}  {rng.randint(10, 21)}:{rng.randint(0, 5)}0  "
            f"C:{rng.randint(0, 8)}  Y:{rng.randint(0, 9)}"
            for _ in range(4)
        ),
    ]
    b.tool(
        "Ihr Ticket hat noch einen offenen Coupon für den Rückflug; weil die Airline "
        "gestrichen hat, ist die Umbuchung kostenlos. Ich suche Verbindungen.",
        "search_flights",
        {"origin": code, "destination": "FRA", "date": date_iso, "cabin": "C"},
        "FLIGHT  ROUTE    DEP    SEATS\n" + "\n".join(options),
    )
    b.assistant(
        f"Der früheste Flug ist {new_flight} am Morgen, Business ist noch frei. Weil Ihr Flug "
        "gestrichen wurde, steht Ihnen außerdem eine Entschädigung nach EU 261 zu; soll ich "
        "den Antrag stellen?"
    )
    b.user(
        "Ich hab's mir anders überlegt: Economy reicht, Business auf der Kurzstrecke zahlt die "
        "Firma eh nicht. Aber bitte mit Gangplatz. Und ja, stell den Antrag."
    )
    b.tool(
        "Umbuchen.",
        "rebook_segment",
        {
            "record_locator": pnr,
            "segment_id": 2,
            "flight": new_flight,
            "cabin": "Y",
            "seat_pref": "aisle",
        },
        f"Segment 2 rebooked: {new_flight} {code}-FRA {date_iso}, cabin Y, seat {seat}, status HK",
    )
    b.tool(
        "Hotelnächte stornieren.",
        "cancel_hotel",
        {"confirmation": conf, "reason": "flight cancelled"},
        f"{conf}: status CANCELLED. Refund {nights} nights x EUR {rate // 100}.{rate % 100:02d}"
        f" to original card (VISA ****{card}).",
    )
    b.tool(
        "Entschädigung beantragen.",
        "file_compensation_claim",
        {"record_locator": pnr, "flight": cancelled, "regulation": "EU261"},
        f"claim {claim} for {cancelled} ({date_iso}): EUR 250.00 requested, status SUBMITTED",
    )
    b.assistant(
        f"Erledigt: Sie fliegen mit {new_flight} in Economy, Gangplatz {seat}. Für die "
        f"stornierten Nächte bekommen Sie {refund} auf Ihre Visa zurück, und der "
        "Entschädigungsantrag ist eingereicht."
    )
    b.user(
        "Super, danke! Sobald die Hotel-Erstattung auf meiner Karte ist, mach bitte die "
        "Reisekostenabrechnung für die Reise fertig."
    )
    b.assistant(
        "Mache ich: sobald die Erstattung gebucht ist, erstelle ich die Reisekostenabrechnung."
    )
    opening = b.take()
    probes = [
        Probe("identifier", "What is the customer's booking code (PNR)?", pnr, ((pnr,),)),
        Probe("identifier", "What is the ticket number?", ticket, ((ticket,),)),
        Probe(
            "identifier",
            "How much does the customer get back for the cancelled hotel nights?",
            refund,
            ((refund,),),
        ),
        Probe(
            "artifact",
            f"What is the status of the hotel booking {conf}?",
            f"{conf} is cancelled",
            ((conf,), ("cancel", "storniert", "storno")),
        ),
        Probe(
            "artifact",
            f"What is the status of the compensation claim {claim}?",
            f"{claim} was submitted",
            ((claim,), ("submitted", "eingereicht", "filed", "pending")),
        ),
        Probe(
            "decision",
            "In which cabin must the customer be rebooked?",
            "Economy with an aisle seat (the customer withdrew the earlier Business request)",
            (("economy",),),
        ),
        Probe(
            "next_step",
            "What is the next step once the hotel refund is on the customer's card?",
            "Prepare the travel expense report (Reisekostenabrechnung) for the trip",
            (("reisekostenabrechnung", "expense report", "travel expense"),),
        ),
    ]

    def filler(r: random.Random) -> None:
        if r.random() < 0.5:
            colleague = r.choice(_FIRST_NAMES)
            other_pnr = token(r, 6, _PNR)
            flight = _flight(r, r.choice(("LH", "OS", "LX", "EW")))
            b.user(
                f"Noch was anderes: meine Kollegin {colleague} (Buchungscode {other_pnr}) "
                f"hätte gern einen Fensterplatz auf {flight}. Geht das ohne Aufpreis?"
            )
            other_booking = {
                "record_locator": other_pnr,
                "passenger": {"name": f"{colleague.upper()}/MS", "ff": None},
                "contact": {
                    "email": f"{colleague.lower()}.{token(r, 4, _LOWER)}@acme-corp.de",
                    "phone": f"+49 {r.randint(150, 179)} {r.randint(1000000, 9999999)}",
                },
                "segments": [
                    {
                        "id": i + 1,
                        "flight": flight if i == 0 else _flight(r),
                        "route": f"{r.choice(('FRA', 'MUC', 'HAM'))}-{r.choice(('VIE', 'ZRH'))}",
                        "date": f"2024-{r.randint(7, 12):02d}-{r.randint(1, 28):02d}",
                        "status": "HK",
                        "seat": None,
                    }
                    for i in range(2)
                ],
                "tickets": [
                    {
                        "number": f"220-{r.randint(2_300_000_000, 2_399_999_999)}",
                        "fare_basis": token(r, 7, string.ascii_uppercase),
                    }
                ],
                "ssr": [f"CTCE {token(r, 10)}", f"DOCS {token(r, 12)}"],
            }
            b.tool(
                "Buchung abrufen.",
                "get_booking",
                {"record_locator": other_pnr},
                json.dumps(other_booking, indent=2),
            )
            rules = noise_lines(
                r,
                r.randint(16, 18),
                lambda q: (
                    f"{q.choice(('SEAT', 'CHNG', 'RFND', 'BAG', 'UPGR'))}/{token(q, 3)}: "
                    f"{q.choice(('CHARGE', 'NO CHARGE', 'NOT PERMITTED'))} "
                    f"{q.choice(('BEFORE DEPARTURE', 'AFTER DEPARTURE', 'WITHIN 24H'))} "
                    f"EUR {q.choice((0, 15, 25, 70))}.00 {q.choice(('PER SEGMENT', 'PER TICKET'))}"
                    f" CAT{q.randint(2, 33)}"
                ),
            )
            b.tool(
                "Tarifbedingungen.",
                "get_fare_rules",
                {"record_locator": other_pnr, "segment_id": 1},
                rules,
            )
            seatmap = "\n".join(
                f"row {row:>2}: "
                + " ".join(f"{c}{r.choice(('.', 'X', 'X', 'P'))}" for c in "ABCDEF")
                + f"  price EUR {r.choice((0, 12, 19, 29))}"
                for row in range(7, 33)
            )
            b.tool(
                "Sitzplan.",
                "get_seatmap",
                {"flight": flight, "segment_id": 1},
                f"{flight} A320neo (X = taken, P = paid)\n{seatmap}",
            )
            seat_other = f"{r.randint(7, 32)}{r.choice('AF')}"
            b.tool(
                "Platz zuweisen.",
                "assign_seat",
                {"record_locator": other_pnr, "segment_id": 1, "seat": seat_other},
                f"seat {seat_other} assigned on {flight} for {other_pnr}, status CONFIRMED",
            )
            b.assistant(
                f"{colleague} sitzt jetzt am Fenster, Platz {seat_other} auf {flight}; laut "
                "Tarif ist die Sitzplatzwahl kostenlos."
            )
        else:
            town = r.choice(("Mannheim", "Mainz", "Würzburg", "Koblenz"))
            b.user(
                f"Kurze Frage: wie komme ich am Abend vom Flughafen nach {town}, und gibt es "
                "da eine Lounge am Gate?"
            )

            def train(q: random.Random, minute: int) -> str:
                arrival = minute + q.randint(40, 190)
                return (
                    f"{q.choice(('ICE', 'IC', 'RE'))} {q.randint(100, 2999):<5} ab "
                    f"{minute // 60}:{minute % 60:02d} Gleis {q.randint(4, 7)}  an "
                    f"{arrival // 60 % 24}:{arrival % 60:02d}  Umstiege {q.randint(0, 2)}  "
                    f"ab EUR {q.randint(9, 79)}.{q.choice(('90', '99', '00'))}  Auslastung "
                    f"{q.choice(('gering', 'mittel', 'hoch'))}"
                )

            departures = sorted(r.randint(17 * 60, 23 * 60 + 59) for _ in range(r.randint(28, 30)))
            trains = "\n".join(train(r, minute) for minute in departures)
            b.tool(
                "Zugverbindungen.",
                "search_trains",
                {"from": "Frankfurt(M) Flughafen Fernbf", "to": f"{town} Hbf", "after": "17:00"},
                trains,
            )
            b.tool(
                "Lounges.",
                "lookup_airport_info",
                {"airport": "FRA", "topic": "lounges"},
                noise_lines(
                    r,
                    r.randint(11, 13),
                    lambda q: (
                        f"Lounge {token(q, 1, 'ABZ')}{q.randint(1, 60)} "
                        f"({q.choice(('Schengen', 'Non-Schengen'))}): {q.randint(5, 6)}:00-"
                        f"{q.randint(21, 23)}:00, access {q.choice(('Senator', 'HON', 'Business'))}"
                    ),
                ),
            )
            b.assistant(
                f"Am besten der ICE um {r.randint(18, 21)}:{r.randint(0, 59):02d}, ohne Umstieg. "
                "Eine Lounge gibt es im B-Bereich, Zugang ab Senator-Status oder mit "
                "Business-Ticket."
            )

    return opening, segments_of(rng, b, segments, filler), probes


# --- finance (Spanish) -------------------------------------------------------------------

_MERCHANTS = ("AMAZON MKTPLACE", "REPSOL E.S.", "MAKRO CASH", "LEROY MERLIN", "IKEA BUSINESS")
_SUPPLIERS = ("Papelería Ortega", "Transportes Lema", "Imprenta Vidal", "Cafés Montaña")
_MESES = ("enero", "febrero", "marzo", "abril", "mayo", "junio")


def _iban_es(rng: random.Random) -> str:
    digits = f"ES{rng.randint(10, 99)}" + "".join(str(rng.randint(0, 9)) for _ in range(20))
    return " ".join(digits[i : i + 4] for i in range(0, 24, 4))


def _finance(rng: random.Random, b: Builder, segments: int) -> Parts:
    merchant = rng.choice(_MERCHANTS)
    supplier = rng.choice(_SUPPLIERS)
    iban = _iban_es(rng)
    invoice = f"FA{rng.randint(23, 24)}-{rng.randint(100, 9999):05d}"
    tpv = f"{rng.randint(10**11, 10**12 - 1)}"
    claim = f"REC-{rng.randint(100_000, 999_999)}"
    transfer = f"TRF-{token(rng, 8, string.ascii_uppercase + string.digits)}"
    mes_i = rng.randrange(len(_MESES))
    mes = _MESES[mes_i]
    day = rng.randint(3, 25)
    charge = rng.randint(4_000, 90_000)
    base = rng.randint(150_000, 900_000)
    total = base + base * 21 // 100
    half = total // 2
    b.user(
        f"Hola. Dos cosas. Primero, con la tarjeta de empresa me han cobrado dos veces la "
        f"misma compra en {merchant} el {day} de {mes} y quiero reclamarlo. Segundo, hay que "
        f"pagar la factura de {supplier} que te he subido; págala entera desde la cuenta de "
        f"empresa a este IBAN: {iban}."
    )
    moves: list[dict[str, object]] = []
    dup_at = rng.randint(2, 5)
    hour, minute = rng.randint(9, 19), rng.randint(0, 58)
    for i in range(9):
        same = i in (dup_at, dup_at + 1)
        moves.append(
            {
                "id": f"mov_{hexits(rng, 10)}",
                "fecha": f"2024-{mes_i + 1:02d}-{day if same else rng.randint(1, 28):02d}",
                "hora": f"{hour}:{minute + (i == dup_at + 1):02d}" if same else _hm(rng),
                "concepto": f"COMPRA TARJ. 5540 {merchant}"
                if same
                else f"COMPRA TARJ. 5540 {rng.choice(_MERCHANTS)} {token(rng, 4)}",
                "importe": f"-{charge / 100:.2f}"
                if same
                else f"-{rng.randint(300, 60000) / 100:.2f}",
                "referencia_tpv": tpv if i == dup_at + 1 else f"{rng.randint(10**11, 10**12 - 1)}",
                "estado": "liquidado",
            }
        )
    duplicate = str(moves[dup_at + 1]["id"])
    moves.sort(key=lambda m: (str(m["fecha"]), str(m["hora"])), reverse=True)
    b.tool(
        "Consulto los movimientos de la tarjeta.",
        "consultar_movimientos",
        {"cuenta": "empresa", "desde": f"2024-{mes_i + 1:02d}-01", "tarjeta": "****5540"},
        json.dumps(moves, indent=2, ensure_ascii=False),
    )
    b.tool(
        f"Veo dos cargos idénticos de {_eur_eu(charge)} en {merchant} el mismo día, con un "
        "minuto de diferencia. Reclamo el segundo.",
        "abrir_reclamacion",
        {"id_movimiento": duplicate, "motivo": "cargo duplicado"},
        f"Reclamación {claim} registrada. Estado: EN REVISIÓN. Respuesta en un máximo de 10 "
        "días hábiles.",
    )
    file = f"facturas/{supplier.split()[0].lower()}_{mes}.pdf"
    b.tool(
        "Leo la factura.",
        "leer_documento",
        {"archivo": file},
        f"FACTURA {invoice}\n{supplier} S.L. · CIF B{rng.randint(10**7, 10**8 - 1)}\n"
        f"Fecha: {rng.randint(1, 28)}/{mes_i + 1:02d}/2024 · Vencimiento: 30 días\n"
        f"Concepto: suministro {mes} ({rng.randint(3, 40)} uds.)\n"
        f"Base imponible: {_eur_eu(base)}\nIVA 21 %: {_eur_eu(total - base)}\n"
        f"TOTAL: {_eur_eu(total)}",
    )
    b.assistant(f"La factura de {supplier} es de {_eur_eu(total)} con IVA incluido.")
    b.user(
        "Pensándolo mejor, no la pagues entera: transfiere solo el 50 % ahora y el resto a "
        "30 días, que este mes voy justa de caja."
    )
    b.tool(
        "Programo la transferencia.",
        "programar_transferencia",
        {
            "iban_destino": iban.replace(" ", ""),
            "importe": f"{half / 100:.2f}",
            "fecha_ejecucion": f"2024-{mes_i + 2:02d}-01",
            "concepto": f"Pago parcial factura {invoice}",
        },
        f"Transferencia {transfer} programada para el 01/{mes_i + 2:02d}/2024: "
        f"{_eur_eu(half)} a {iban[:4]} **** **** **** **** {iban[-4:]}. Estado: PROGRAMADA.",
    )
    b.assistant(
        "Hecho: la mitad sale el día 1 y te aviso para programar la otra mitad a 30 días. La "
        "reclamación del cargo duplicado está en revisión."
    )
    b.user(
        f"Perfecto. Cuando el banco resuelva la reclamación, mándale a mi gestor el extracto "
        f"de {mes} con la devolución incluida."
    )
    b.assistant(
        f"De acuerdo: en cuanto se resuelva la reclamación, envío al gestor el extracto de {mes}."
    )
    opening = b.take()
    probes = [
        Probe("identifier", "What is the supplier's IBAN?", iban, ((iban,),)),
        Probe("identifier", "What is the supplier invoice number?", invoice, ((invoice,),)),
        Probe(
            "identifier",
            "What is the TPV reference of the duplicated card charge?",
            tpv,
            ((tpv,),),
        ),
        Probe(
            "artifact",
            f"What is the status of the claim {claim}?",
            f"{claim} is registered and under review (en revisión)",
            ((claim,), ("revisión", "revision", "review", "registrada", "abierta")),
        ),
        Probe(
            "artifact",
            f"What is the status of the transfer {transfer}?",
            f"{transfer} is scheduled (programada) for the 1st of next month",
            ((transfer,), ("programada", "scheduled", "pending")),
        ),
        Probe(
            "decision",
            "How must the supplier invoice be paid?",
            "50 % now and the rest in 30 days (the customer withdrew the instruction to pay it "
            "in full)",
            (("50 %", "50%", "mitad", "half"), ("30 días", "30 dias", "30 days")),
        ),
        Probe(
            "next_step",
            "What is the next step once the bank resolves the claim?",
            f"Send the bank statement for {mes} (with the refund) to the customer's accountant "
            "(gestor)",
            (("gestor", "accountant"), ("extracto", "statement")),
        ),
    ]

    def filler(r: random.Random) -> None:
        if r.random() < 0.5:
            cat = r.choice(("dietas", "combustible", "material de oficina", "suministros"))
            mes_other = r.choice(_MESES)
            b.user(
                f"Otra cosa: ponle la categoría «{cat}» a los gastos que toquen de "
                f"{mes_other}, que la app los ha dejado sin categorizar."
            )
            items = [
                {
                    "id": f"mov_{hexits(r, 10)}",
                    "fecha": f"2024-{r.randint(1, 6):02d}-{r.randint(1, 28):02d}",
                    "concepto": f"COMPRA TARJ. {r.randint(1000, 9999)} {r.choice(_MERCHANTS)} "
                    f"{token(r, 5)}",
                    "importe": f"-{r.randint(300, 40000) / 100:.2f}",
                    "categoria": None,
                }
                for _ in range(r.randint(17, 19))
            ]
            b.tool(
                "Busco los movimientos sin categoría.",
                "consultar_movimientos",
                {"cuenta": "empresa", "sin_categoria": True},
                json.dumps(items, indent=1, ensure_ascii=False),
            )
            chosen = [str(m["id"]) for m in items[: r.randint(3, 6)]]
            b.tool(
                "Asigno la categoría.",
                "asignar_categoria",
                {"ids": chosen, "categoria": cat},
                f"{len(chosen)} movimientos actualizados: categoría {cat}",
            )
            b.assistant(f"Listo, {len(chosen)} movimientos de {mes_other} quedan como «{cat}».")
        else:
            other = _other(r, _SUPPLIERS, supplier)
            other_trf = f"TRF-{token(r, 8, string.ascii_uppercase + string.digits)}"
            b.user(
                f"¿Cuánto IVA llevo este trimestre? Y de paso, ¿salió ya la transferencia "
                f"{other_trf} a {other}?"
            )
            lines = noise_lines(
                r,
                r.randint(38, 40),
                lambda q: (
                    f"{q.choice(('FV', 'FR', 'AB'))}{q.randint(23, 24)}-{q.randint(100, 9999):05d}"
                    f" | {q.choice((*_SUPPLIERS, 'Clientes varios', 'Hostelería Sur'))} | base "
                    f"{_eur_eu(q.randint(2000, 500000))} | IVA {q.choice(('21', '10', '4'))} % | "
                    f"{q.choice(('emitida', 'recibida'))}"
                ),
            )
            b.tool(
                "Resumen de IVA del trimestre.",
                "resumen_iva",
                {"trimestre": f"2024T{r.randint(1, 4)}"},
                f"{lines}\nIVA repercutido: {_eur_eu(r.randint(100000, 900000))}\n"
                f"IVA soportado: {_eur_eu(r.randint(50000, 400000))}\n"
                f"Resultado modelo 303 estimado: {_eur_eu(r.randint(10000, 500000))}",
            )
            b.tool(
                "Consulto la transferencia.",
                "consultar_transferencia",
                {"id": other_trf},
                f"Transferencia {other_trf}\nOrdenante: cuenta empresa ****{r.randint(1000, 9999)}"
                f"\nBeneficiario: {other} S.L. · ES{r.randint(10, 99)} **** **** **** "
                f"{r.randint(1000, 9999)}\nImporte: {_eur_eu(r.randint(10000, 300000))} · "
                f"Comisión: 0,00 €\nReferencia: {r.randint(10**9, 10**10 - 1)}\n"
                f"Estado: EJECUTADA el {r.randint(1, 28)}/{r.randint(1, 12):02d}/2024.",
            )
            b.assistant(
                f"El 303 sale a ingresar unos {r.randint(300, 4000)} €. La transferencia "
                f"{other_trf} ya está ejecutada."
            )

    return opening, segments_of(rng, b, segments, filler), probes


# --- infra -------------------------------------------------------------------------------

_TF_MODULES = ("s3_archive", "audit_logs", "media_vault", "backup_store")
_TF_OTHER_MODULES = ("network", "eks_nodes", "rds_reporting", "cdn_edge", "iam_ci", "dns_zones")
_GO_PKGS = ("archiver", "uploader", "shipper", "exporter")
_GO_OTHER_PKGS = ("config", "metrics", "authz", "healthcheck", "ratelimit", "tracing")


def _infra(rng: random.Random, b: Builder, segments: int) -> Parts:
    repo = rng.choice(("infra-tools", "platform-svc", "vault-sync"))
    module = rng.choice(_TF_MODULES)
    pkg = rng.choice(_GO_PKGS)
    region = rng.choice(("eu-west-1", "eu-central-1", "us-east-2"))
    account = f"{rng.randint(10**11, 10**12 - 1)}"
    change = f"CHG{rng.randint(30_000, 49_999):07d}"
    arn = f"arn:aws:kms:{region}:{account}:key/{_uuid(rng)}"
    lock = _uuid(rng)
    lifecycle = f"terraform/modules/{module}/lifecycle.tf"
    go_pkg = f"github.com/acme/{repo}/internal/{pkg}"
    bucket = f"acme-{module.replace('_', '-')}-prod"
    b.user(
        f"Change {change}: the {bucket} bucket has to be archived properly before the audit. "
        f"Add SSE-KMS with the existing archive key and a lifecycle rule that expires objects "
        f"after 30 days, in terraform/modules/{module}. The Go {pkg} in internal/{pkg} must "
        "retry on S3 throttling too. Apply straight to prod when the plan looks right."
    )
    b.tool(
        "Finding the archive key.",
        "shell",
        {
            "argv": [
                "aws",
                "kms",
                "describe-key",
                "--key-id",
                "alias/archive",
                "--query",
                "KeyMetadata.Arn",
                "--output",
                "text",
            ]
        },
        f"{arn}\n",
    )
    main_tf = [
        f'resource "aws_s3_bucket" "this" {{\n  bucket = "{bucket}"\n  tags   = var.tags\n}}',
        "",
        'resource "aws_s3_bucket_versioning" "this" {',
        "  bucket = aws_s3_bucket.this.id",
        '  versioning_configuration { status = "Enabled" }',
        "}",
        "",
        'resource "aws_s3_bucket_public_access_block" "this" {',
        "  bucket                  = aws_s3_bucket.this.id",
        "  block_public_acls       = true",
        "  block_public_policy     = true",
        "  restrict_public_buckets = true",
        "}",
    ]
    b.tool(
        "Reading the module.",
        "str_replace_editor",
        {"command": "view", "path": f"terraform/modules/{module}/main.tf"},
        _numbered("\n".join(main_tf).splitlines()),
    )
    b.tool(
        "Adding encryption with the key, looked up by alias.",
        "str_replace_editor",
        {
            "command": "str_replace",
            "path": f"terraform/modules/{module}/main.tf",
            "old_str": 'resource "aws_s3_bucket_versioning" "this" {',
            "new_str": 'data "aws_kms_alias" "archive" { name = "alias/archive" }\n\n'
            'resource "aws_s3_bucket_server_side_encryption_configuration" "this" {\n'
            "  bucket = aws_s3_bucket.this.id\n  rule {\n"
            "    apply_server_side_encryption_by_default {\n"
            '      sse_algorithm     = "aws:kms"\n      kms_master_key_id = '
            "data.aws_kms_alias.archive.target_key_arn\n    }\n  }\n}\n\n"
            'resource "aws_s3_bucket_versioning" "this" {',
        },
        f"The file terraform/modules/{module}/main.tf has been edited.",
    )
    b.tool(
        "Adding the lifecycle rule.",
        "str_replace_editor",
        {
            "command": "create",
            "path": lifecycle,
            "file_text": 'resource "aws_s3_bucket_lifecycle_configuration" "this" {\n'
            "  bucket = aws_s3_bucket.this.id\n  rule {\n"
            '    id     = "expire"\n    status = "Enabled"\n'
            "    expiration { days = 30 }\n  }\n}\n",
        },
        f"Created file {lifecycle} (9 lines)",
    )
    b.user(
        "Let's not expire anything after all: legal wants seven years of retention. "
        "Transition objects to Glacier Deep Archive after 90 days and never delete them."
    )
    b.tool(
        "Switching the rule to a transition.",
        "str_replace_editor",
        {
            "command": "str_replace",
            "path": lifecycle,
            "old_str": '    id     = "expire"\n    status = "Enabled"\n'
            "    expiration { days = 30 }",
            "new_str": '    id     = "deep-archive"\n    status = "Enabled"\n'
            '    transition {\n      days          = 90\n      storage_class = "DEEP_ARCHIVE"\n'
            "    }",
        },
        f"The file {lifecycle} has been edited.",
    )
    runner = f"ci-{hexits(rng, 4)}"
    b.tool(
        "Planning against prod.",
        "shell",
        {"argv": ["terraform", "plan", "-out=tfplan"], "cwd": "terraform/envs/prod"},
        "Acquiring state lock. This may take a few moments...\n╷\n"
        "│ Error: Error acquiring the state lock\n│\n"
        "│ Error message: ConditionalCheckFailedException: The conditional request failed\n"
        "│ Lock Info:\n"
        f"│   ID:        {lock}\n"
        f"│   Path:      acme-tfstate-prod/{module}/terraform.tfstate\n"
        "│   Operation: OperationTypeApply\n"
        f"│   Who:       runner@{runner}\n"
        "│   Version:   1.8.5\n"
        f"│   Created:   2024-06-11 {_hms(rng)}.{rng.randint(100000, 999999)} +0000 UTC\n"
        "│   Info:\n│\n"
        "│ Terraform acquires a state lock to protect the state from being written\n"
        "│ by multiple users at the same time. Please resolve the issue above and try\n"
        '│ again. For most commands, you can disable locking with the "-lock=false"\n'
        "│ flag, but this is not recommended.\n╵",
    )
    b.tool(
        f"The prod state is locked by a CI apply on runner {runner} that started "
        f"{rng.randint(20, 90)} minutes ago. I won't force-unlock it without your OK.",
        "str_replace_editor",
        {
            "command": "str_replace",
            "path": f"internal/{pkg}/{pkg}.go",
            "old_str": "client := s3.NewFromConfig(cfg)",
            "new_str": "client := s3.NewFromConfig(cfg, func(o *s3.Options) {\n"
            "\to.Retryer = retry.AddWithMaxAttempts(retry.NewStandard(), 3)\n})",
        },
        f"The file internal/{pkg}/{pkg}.go has been edited.",
    )
    b.tool(
        "Testing it.",
        "shell",
        {"argv": ["go", "test", f"./internal/{pkg}/..."]},
        f"--- FAIL: TestPutRetriesOnSlowDown (0.0{rng.randint(1, 9)}s)\n"
        f"    {pkg}_test.go:{rng.randint(40, 140)}: expected 3 attempts, got 1\n"
        f"FAIL\nFAIL\t{go_pkg}\t0.{rng.randint(100, 900)}s\nFAIL",
    )
    b.assistant(
        f"The retry test still fails: New{pkg.capitalize()} builds its own S3 client and never "
        "sees the retryer, so it makes one attempt."
    )
    b.user(
        f"OK. Once the lock is released and the plan is clean, open a PR against infra-live "
        f"with {change} in the description. Don't apply anything yourself."
    )
    b.assistant(
        "Understood: after the lock is gone and the plan is clean, I open the PR against "
        "infra-live; no apply from me."
    )
    opening = b.take()
    probes = [
        Probe("identifier", "Which change request covers this work?", change, ((change,),)),
        Probe("identifier", "What is the ARN of the archive KMS key?", arn, ((arn,),)),
        Probe(
            "identifier",
            "What is the ID of the Terraform state lock held by the CI runner?",
            lock,
            ((lock,),),
        ),
        Probe(
            "artifact",
            f"What is the state of {lifecycle}?",
            f"{lifecycle} was created (new file, its rule later switched to a Glacier transition)",
            ((lifecycle,), ("created", "new file", "added")),
        ),
        Probe(
            "artifact",
            f"What is the state of the tests of {go_pkg}?",
            f"The tests of {go_pkg} fail (TestPutRetriesOnSlowDown)",
            ((go_pkg,), ("fail",)),
        ),
        Probe(
            "decision",
            "What lifecycle rule must the bucket get?",
            "Transition objects to Glacier Deep Archive after 90 days and never delete them "
            "(the user dropped the 30-day expiration)",
            (("glacier", "deep_archive", "deep archive"), ("90",)),
        ),
        Probe(
            "next_step",
            "What is the next step once the lock is released and the plan is clean?",
            f"Open a PR against infra-live with {change} in the description (no apply)",
            (("infra-live",), ("pr", "pull request", "merge request")),
        ),
    ]

    def plan_line(q: random.Random, mod: str) -> str:
        kind, ident = q.choice(
            (
                ("aws_security_group_rule", f"sgr-{hexits(q, 17)}"),
                ("aws_route53_record", f"Z{token(q, 13)}_{token(q, 6, _LOWER)}.acme.io_CNAME"),
                ("aws_iam_role_policy", f"role-{token(q, 8, _LOWER)}:policy"),
                ("aws_subnet", f"subnet-{hexits(q, 17)}"),
                ("aws_launch_template", f"lt-{hexits(q, 17)}"),
            )
        )
        action = q.choice(("will be updated in-place", "will be created", "must be replaced"))
        return (
            f"  # module.{mod}.{kind}.{token(q, 6, string.ascii_lowercase)} {action}\n"
            f'      ~ id = "{ident}"  # arn:aws:iam::{account}:role/{token(q, 10, _LOWER)}'
        )

    def filler(r: random.Random) -> None:
        if r.random() < 0.5:
            mod = r.choice(_TF_OTHER_MODULES)
            ticket = f"CHG{r.randint(50_000, 99_999):07d}"
            b.user(f"Different thing ({ticket}): why does staging show drift in module.{mod}?")
            b.tool(
                "Planning staging.",
                "shell",
                {
                    "argv": ["terraform", "plan", "-no-color", f"-target=module.{mod}"],
                    "cwd": "terraform/envs/staging",
                },
                noise_lines(r, r.randint(16, 18), lambda q: plan_line(q, mod))
                + f"\n\nPlan: {r.randint(0, 5)} to add, {r.randint(1, 9)} to change, "
                f"{r.randint(0, 2)} to destroy.",
            )
            var = f"terraform/modules/{mod}/variables.tf"
            b.tool(
                "Pinning the default that drifted.",
                "str_replace_editor",
                {
                    "command": "str_replace",
                    "path": var,
                    "old_str": "default = null",
                    "new_str": f'default = "{r.choice(("10.40.0.0/16", "t3.large", "gp3"))}"',
                },
                f"The file {var} has been edited.",
            )
            b.tool(
                "Validating.",
                "shell",
                {"argv": ["terraform", "validate"], "cwd": "terraform/envs/staging"},
                "Success! The configuration is valid.",
            )
            b.assistant(
                f"Someone changed {mod} by hand in the console; with the default pinned in "
                f"{var} the plan is down to {r.randint(0, 2)} changes."
            )
        else:
            other = r.choice(_GO_OTHER_PKGS)
            b.user(f"golangci-lint is red on internal/{other}, can you fix it?")
            b.tool(
                "Running the linter.",
                "shell",
                {"argv": ["golangci-lint", "run", f"./internal/{other}/..."]},
                noise_lines(
                    r,
                    r.randint(20, 22),
                    lambda q: (
                        f"internal/{other}/{token(q, 6, string.ascii_lowercase)}.go:"
                        f"{q.randint(10, 400)}:{q.randint(2, 60)}: "
                        + q.choice(
                            (
                                "Error return value of `resp.Body.Close` is not checked (errcheck)",
                                "ineffectual assignment to err (ineffassign)",
                                "S1039: unnecessary use of fmt.Sprintf (gosimple)",
                                "exported func New should have comment or be unexported (revive)",
                            )
                        )
                    ),
                ),
            )
            path = f"internal/{other}/{other}.go"
            b.tool(
                "Checking the error.",
                "str_replace_editor",
                {
                    "command": "str_replace",
                    "path": path,
                    "old_str": "defer resp.Body.Close()",
                    "new_str": "defer func() { _ = resp.Body.Close() }()",
                },
                f"The file {path} has been edited.",
            )
            b.tool(
                "Tests.",
                "shell",
                {"argv": ["go", "test", f"./internal/{other}/..."]},
                f"ok  \tgithub.com/acme/{repo}/internal/{other}\t0.{r.randint(100, 900)}s\n"
                f"ok  \tgithub.com/acme/{repo}/internal/{other}/v2\t0.{r.randint(10, 99)}s",
            )
            b.tool(
                "And the bucket sizes you asked about last week.",
                "shell",
                {"argv": ["aws", "s3", "ls", "--summarize", "--human-readable"]},
                noise_lines(
                    r,
                    r.randint(11, 13),
                    lambda q: (
                        f"2024-{q.randint(1, 12):02d}-{q.randint(1, 28):02d} {_hms(q)} "
                        f"acme-{token(q, 8, _LOWER)}-{q.choice(('dev', 'stg'))}  "
                        f"{q.randint(1, 900)}.{q.randint(0, 9)} GiB"
                    ),
                ),
            )
            b.assistant(f"Lint is clean in internal/{other} and its tests pass.")

    return opening, segments_of(rng, b, segments, filler), probes


_KINDS: dict[str, Callable[[random.Random, Builder, int], Parts]] = {
    "incident": _incident,
    "frontend": _frontend,
    "data": _data,
    "travel": _travel,
    "finance": _finance,
    "infra": _infra,
}
HELDOUT_KINDS: tuple[str, ...] = tuple(_KINDS)


def generate_heldout(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The held-out session of ``kind`` for ``seed``: the same seed always gives the same
    session."""
    return build_session(_KINDS, kind, seed, segments, seed_prefix="heldout:", label="held-out")
