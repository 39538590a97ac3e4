# ruff: noqa: E501
"""The fourteenth held-out set: six long agent sessions, written without seeing the
compaction code or the other sets.

``eshop_celery_slovak``
    a Django e-shop whose Celery workers fail to render invoice PDFs after a VAT
    rounding change (Slovak; Django, Celery, Flower, git bisect, MySQL);
``clinic_efcore_armenian``
    a clinic booking API hitting concurrency errors after an EF Core migration
    (Armenian; .NET 8, EF Core, SQL Server via sqlcmd, Serilog);
``school_compose_urdu``
    a school's self-hosted Nextcloud stack moved and backed up by hand (Urdu; Docker
    Compose, Traefik, MariaDB, restic);
``courier_mongosh_kazakh``
    a courier company's MongoDB replica set with a lagging member and slow queries
    (Kazakh; mongosh, rs.status, explain, indexes);
``health_dbt_welsh``
    a health board's dbt project whose unique test fails on waiting-list data (Welsh;
    dbt Core, BigQuery, bq CLI);
``exam_helm_telugu``
    an exam platform whose API pods are OOM-killed before results day (Telugu; Helm,
    kubectl, HPA).

Each opening plants seven probes, in an order the seed shuffles: three identifiers of
different types (a Celery task id, a bisected commit, a Sentry issue; a W3C trace id, a
Jira ticket, a SQL Server row key; a Docker image id, a restic snapshot, a Storage Box
host; an ObjectId, a replica-set host, a YouTrack ticket; a BigQuery job id, a
surrogate key, a Linear ticket; a pod name, an image tag, a PagerDuty incident), some in
tables or JSON and some in prose, next to decoys of the same shape; two artifacts
(migrations, periodic tasks, branches, indexes, volumes, config files, collections,
tables, models, releases, cronjobs, secrets) and what became of them, told by the
tool's output, by the agent's words only, or both; one decision (dictated, corrected
later, proposed by the agent and approved or changed, relayed from a colleague, or the
user's answer to the agent's question) next to the option it replaced; and one next
step with a deadline or a condition, the user's (sometimes in passing in a longer
message) or the agent's promise. The filler segments are later work on other parts of
the same project and never repeat the planted values.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import NotRequired, TypedDict

from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    Template,
    build_session,
    hexits,
    noise_lines,
    segments_of,
    token,
)

__all__ = ["HELDOUT14_KINDS", "generate_heldout14"]

_B32 = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"
_UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_ALNUM = "bcdfghjklmnpqrstvwxz2456789"

Step = Callable[[], None]


def _uuid(rng: random.Random) -> str:
    return (
        f"{hexits(rng, 8)}-{hexits(rng, 4)}-4{hexits(rng, 3)}-"
        f"{rng.choice('89ab')}{hexits(rng, 3)}-{hexits(rng, 12)}"
    )


def _distinct(rng: random.Random, make: Callable[[random.Random], str], n: int) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        value = make(rng)
        if value not in out:
            out.append(value)
    return out


def _play(rng: random.Random, first: Step, middle: list[Step], last: Step) -> None:
    """Writes ``first``, the ``middle`` steps in an order the seed shuffles, ``last``."""
    order = list(middle)
    rng.shuffle(order)
    for step in (first, *order, last):
        step()


def _hms(rng: random.Random) -> str:
    return f"{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


# ---------------------------------------------------------------------------------------
# Slovak: a Django e-shop, Celery workers, invoice PDFs
# ---------------------------------------------------------------------------------------

_SK_TASKS = (
    "orders.tasks.sync_stock_from_erp",
    "orders.tasks.send_order_confirmation",
    "catalog.tasks.rebuild_search_index",
    "invoices.tasks.send_invoice_email",
    "marketing.tasks.push_heureka_feed",
)


def _sk_worker_line(rng: random.Random) -> str:
    task = rng.choice(_SK_TASKS)
    worker = rng.randint(1, 8)
    ms = rng.randint(10, 999)
    return (
        f"[2024-03-12 {_hms(rng)},{ms:03d}: INFO/ForkPoolWorker-{worker}] "
        f"Task {task}[{_uuid(rng)}] succeeded in {rng.uniform(0.01, 4.5):.3f}s: None"
    )


def _sk_access_line(rng: random.Random) -> str:
    path = rng.choice(
        ("/api/v1/products/", "/kosik/", "/api/v1/cart/items/", "/pokladna/doprava/", "/static/")
    )
    status = rng.choice((200, 200, 200, 200, 304, 302, 404))
    return (
        f'10.0.{rng.randint(0, 3)}.{rng.randint(2, 250)} - - [12/Mar/2024:{_hms(rng)} +0100] "GET {path} HTTP/1.1" '
        f'{status} {rng.randint(200, 48000)} "-" "Mozilla/5.0" {rng.uniform(0.002, 0.9):.3f}'
    )


class _Topic(TypedDict):
    """A decision's topic: the values to choose from, how people name it, the probe's
    question and needles, and reasons that fit any value."""

    values: tuple[str, ...]
    noun: NotRequired[str]
    short: str
    needle: tuple[str, ...]
    q: str
    why: tuple[str, ...]


_SK_TOPICS: tuple[_Topic, ...] = (
    {
        "values": ("WeasyPrint", "ReportLab", "xhtml2pdf"),
        "noun": "knižnicu na PDF faktúry",
        "short": "PDF",
        "needle": ("pdf",),
        "q": "Which library will render the invoice PDFs from now on?",
        "why": (
            "lebo ju už používa tím skladu na dodacie listy",
            "lebo s ňou má Peter skúsenosti z minulého projektu",
            "lebo s ňou nemáme problém s diakritikou vo fontoch",
        ),
    },
    {
        "values": ("ROUND_HALF_UP", "ROUND_HALF_EVEN"),
        "noun": "režim zaokrúhľovania DPH",
        "short": "zaokrúhľovanie DPH",
        "needle": ("zaokrúhľ", "round", "dph", "vat"),
        "q": "Which rounding mode was chosen for the VAT amounts on invoices?",
        "why": (
            "lebo tak to počíta aj účtovný systém Pohoda",
            "lebo to tak odsúhlasila Zuzka z účtovníctva",
            "aby sa súčty zhodovali s pokladňou eKasa",
        ),
    },
    {
        "values": ("max_retries=5", "max_retries=3", "max_retries=10"),
        "noun": "retry politiku pre render_invoice_pdf",
        "short": "retry pre PDF task",
        "needle": ("retry", "opakov", "max_retries"),
        "q": "What retry limit was decided for the render_invoice_pdf Celery task?",
        "why": (
            "s exponenciálnym backoffom, nech nezahltíme worker",
            "lebo pri výpadku Redis sa to aj tak do pár minút spraví",
            "a po poslednom pokuse nech to ide do Sentry ako error",
        ),
    },
)

_SK_DAYS = (
    ("do piatku", "by Friday", ("piatk", "friday")),
    ("do štvrtka", "by Thursday", ("štvrtk", "thursday")),
    ("do pondelka", "by Monday", ("pondel", "monday")),
    (
        "do konca mesiaca",
        "by the end of the month",
        ("konca mesiaca", "end of the month", "month-end", "end of month"),
    ),
)


def _eshop(rng: random.Random, b: Builder, segments: int) -> Parts:
    order_no = f"2024{rng.randint(10000, 99999)}"
    other_orders = _distinct(rng, lambda r: f"2024{r.randint(10000, 99999)}", 6)
    task_id, *task_decoys = _distinct(rng, _uuid, 8)
    bad_sha, *good_shas = _distinct(rng, lambda r: hexits(r, 40), 6)
    short_sha = bad_sha[:10]
    sentry, old_sentry = _distinct(rng, lambda r: f"ESHOP-{token(r, 3, _B32)}", 2)

    num = rng.randint(41, 68)
    stem = rng.choice(("invoice_vat_rate", "invoiceline_vat_amount", "invoice_rounding_mode"))
    mig = f"{num:04d}_{stem}"
    prev_mig = f"{num - 1:04d}_invoice_{rng.choice(('due_date', 'variable_symbol', 'qr_payload'))}"
    mig_state = rng.choice(("unapplied", "faked", "deleted"))
    mig_tell = rng.randrange(3)  # 0 tool only, 1 agent only, 2 both
    ptask = rng.choice(
        ("nocne-upomienky-faktur", "hodinova-synchronizacia-skladu", "tyzdenny-export-pohoda")
    )
    ptask_state = rng.choice(("disabled", "deleted"))
    pt_tell = rng.randrange(3)

    topic = rng.choice(_SK_TOPICS)
    chosen, other = rng.sample(topic["values"], 2)
    why = rng.choice(topic["why"])
    d_mode = rng.randrange(5)
    colleague = rng.choice(("Marek z backendu", "Zuzka z účtovníctva", "Peter (CTO)"))

    n_mode = rng.randrange(3)
    day, day_en, day_needles = rng.choice(_SK_DAYS)

    probes: list[Probe] = [
        Probe(
            "identifier",
            f"What is the Celery task id of the failed render_invoice_pdf task for order {order_no}?",
            task_id,
            ((task_id,),),
        ),
        Probe(
            "identifier",
            "Which commit did git bisect name as the first bad commit for the VAT rounding bug?",
            short_sha,
            ((short_sha,),),
        ),
        Probe(
            "identifier",
            "What is the Sentry short id of the new rounding error the user reported?",
            sentry,
            ((sentry,),),
        ),
    ]

    def intro() -> None:
        lines = [
            f"Ahoj, od včera poobede nám padá generovanie faktúr. V Sentry je to {sentry}, "
            f"InvalidOperation z decimal pri render_invoice_pdf. Staršie {old_sentry} ignoruj, "
            "to bol ten problém s fontami a je vyriešený.",
            f"Zákazník s objednávkou {order_no} volal, že mu neprišla faktúra. Pozri prosím Flower "
            "a worker logy na app-01, nech vieme, ktorý task to je.",
        ]
        if d_mode == 1:
            lines.append(f"Mimochodom, {topic['noun']}: zatiaľ počítaj s {other}.")
        b.user("\n\n".join(lines))
        flower = {}
        rows = [
            (task_decoys[i], "invoices.tasks.render_invoice_pdf", "SUCCESS", other_orders[i])
            for i in range(4)
        ]
        rows.append((task_id, "invoices.tasks.render_invoice_pdf", "FAILURE", order_no))
        rows.append(
            (task_decoys[4], "invoices.tasks.send_invoice_email", "FAILURE", other_orders[4])
        )
        rows.append((task_decoys[5], "invoices.tasks.render_invoice_pdf", "RETRY", other_orders[5]))
        rng.shuffle(rows)
        for uid, name, state, order in rows:
            flower[uid] = {
                "name": name,
                "state": state,
                "args": f"({order},)",
                "kwargs": "{}",
                "received": round(1710238000 + rng.uniform(0, 9000), 6),
                "started": round(1710238000 + rng.uniform(0, 9000), 6),
                "runtime": None if state != "SUCCESS" else round(rng.uniform(0.4, 3.1), 6),
                "worker": f"celery@app-0{rng.randint(1, 2)}",
                "retries": 0 if state == "SUCCESS" else rng.randint(1, 3),
                "exception": (
                    "InvalidOperation([<class 'decimal.InvalidOperation'>])"
                    if name.endswith("pdf") and state != "SUCCESS"
                    else (
                        "SMTPServerDisconnected('Connection unexpectedly closed')"
                        if state == "FAILURE"
                        else None
                    )
                ),
                "result": None,
            }
        b.tool(
            "Pozriem sa do Flower API na posledné tasky okolo faktúr.",
            "bash",
            {
                "command": "curl -s -u admin:$FLOWER_PASS 'http://app-01:5555/api/tasks?limit=7&taskname=invoices.tasks'"
            },
            json.dumps(flower, indent=2),
        )
        log = noise_lines(rng, rng.randint(14, 20), _sk_worker_line)
        fail = (
            f"[2024-03-12 {_hms(rng)},{rng.randint(0, 999):03d}: ERROR/ForkPoolWorker-{rng.randint(1, 8)}] "
            f"Task invoices.tasks.render_invoice_pdf[{task_id}] raised unexpected: "
            "InvalidOperation([<class 'decimal.InvalidOperation'>])\n"
            "Traceback (most recent call last):\n"
            '  File "/srv/eshop/venv/lib/python3.11/site-packages/celery/app/trace.py", line 477, in trace_task\n'
            "    R = retval = fun(*args, **kwargs)\n"
            '  File "/srv/eshop/invoices/tasks.py", line 58, in render_invoice_pdf\n'
            "    totals = compute_totals(invoice)\n"
            '  File "/srv/eshop/invoices/services/totals.py", line 112, in compute_totals\n'
            "    vat = (line.net * line.vat_rate).quantize(CENT, rounding=settings.VAT_ROUNDING)\n"
            "decimal.InvalidOperation: [<class 'decimal.InvalidOperation'>]"
        )
        b.tool(
            "A worker log na app-01 za posledné minúty:",
            "bash",
            {
                "command": "ssh app-01 journalctl -u celery-worker --since '-30min' --no-pager | tail -n 40"
            },
            log + "\n" + fail + "\n" + noise_lines(rng, rng.randint(6, 10), _sk_worker_line),
        )
        where = rng.randrange(3)
        if where == 0:
            b.assistant(
                f"Pre objednávku {order_no} zlyhal task {task_id} — InvalidOperation pri quantize v "
                "compute_totals. Ostatné render_invoice_pdf prešli, jeden je v RETRY a send_invoice_email "
                "padá na SMTP, to je iná vec."
            )
        elif where == 1:
            b.assistant(
                "Vo Flower je jediný FAILURE pre render_invoice_pdf, presne pre tú objednávku zákazníka; "
                "padá to v compute_totals na quantize. Ten druhý FAILURE je send_invoice_email (SMTP) "
                "a s týmto nesúvisí."
            )
        else:
            b.assistant(
                f"Našiel som to: task {task_id} (objednávka {order_no}) skončil výnimkou "
                "decimal.InvalidOperation v invoices/services/totals.py:112. Vyzerá to na "
                "settings.VAT_ROUNDING, ktoré tam nie je platná konštanta z modulu decimal."
            )

    def bisect() -> None:
        b.user(
            rng.choice(
                (
                    "Skús prosím git bisect medzi tagom v3.18.0 (tam to fungovalo) a HEAD. Test je invoices/tests/test_totals.py.",
                    "Nechcem hádať, ktorý commit to rozbil. Spusti bisect od v3.18.0, test_totals ti povie, či je commit dobrý.",
                    "Ktorý commit to zaviedol? Daj bisect run s pytestom na test_totals, posledná dobrá verzia je v3.18.0.",
                )
            )
        )
        steps = []
        for i, sha in enumerate(good_shas[:4]):
            left = max(0, 6 - 2 * i)
            steps.append(
                f"Bisecting: {left} revisions left to test after this (roughly {max(0, 3 - i)} steps)\n"
                f"[{sha}] {rng.choice(('catalog: faster facet counts', 'orders: idempotent webhook', 'deps: bump django to 4.2.11', 'invoices: move totals to service', 'ci: cache pip wheels'))}\n"
                f"running  'pytest' '-q' 'invoices/tests/test_totals.py'\n"
                + (
                    f"{rng.randint(9, 14)} passed in {rng.uniform(0.8, 2.5):.2f}s"
                    if i % 2 == 0
                    else f"FAILED invoices/tests/test_totals.py::test_vat_rounding_half_cent - decimal.InvalidOperation\n1 failed, {rng.randint(8, 13)} passed in {rng.uniform(0.8, 2.5):.2f}s"
                )
            )
        out = "\n".join(steps) + (
            f"\n{bad_sha} is the first bad commit\n"
            f"commit {bad_sha}\n"
            "Author: Tomáš Hruška <tomas.hruska@kvetko.sk>\n"
            f"Date:   Tue Mar 5 {_hms(rng)} 2024 +0100\n\n"
            "    invoices: make VAT rounding configurable (settings.VAT_ROUNDING)\n\n"
            " eshop/settings/base.py          |  2 ++\n"
            " invoices/services/totals.py     | 19 +++++++++++--------\n"
            " 2 files changed, 13 insertions(+), 8 deletions(-)\n"
            "bisect found first bad commit"
        )
        b.tool(
            "Spúšťam bisect s pytestom.",
            "bash",
            {
                "command": "git bisect start HEAD v3.18.0 && git bisect run pytest -q invoices/tests/test_totals.py"
            },
            out,
        )
        b.tool(
            "Pozriem, čo presne ten commit zmenil v settings.",
            "bash",
            {"command": f"git show {bad_sha[:7]} -- eshop/settings/base.py && git bisect reset"},
            f"commit {bad_sha}\n"
            "Author: Tomáš Hruška <tomas.hruska@kvetko.sk>\n\n"
            "diff --git a/eshop/settings/base.py b/eshop/settings/base.py\n"
            "--- a/eshop/settings/base.py\n+++ b/eshop/settings/base.py\n"
            "@@ -141,6 +141,8 @@ CELERY_TASK_ACKS_LATE = True\n"
            " CELERY_TASK_REJECT_ON_WORKER_LOST = True\n"
            ' CELERY_TASK_DEFAULT_QUEUE = "default"\n'
            " \n+# rounding for VAT, see invoices/services/totals.py\n"
            '+VAT_ROUNDING = env.str("VAT_ROUNDING", default="HALF_UP")\n'
            f"Previous HEAD position was {good_shas[3][:7]} ci: cache pip wheels\n"
            "Switched to branch 'main'",
        )
        if rng.randrange(2):
            b.assistant(
                f"Prvý zlý commit je {short_sha} od Tomáša: VAT_ROUNDING sa číta z env ako reťazec "
                '"HALF_UP", ale quantize chce konštantu z modulu decimal. Na app-01 '
                "premenná nie je nastavená, takže ide default a ten je neplatný."
            )
        else:
            b.assistant(
                "Bisect to našiel (výstup vyššie): commit, ktorý pridal VAT_ROUNDING do settings. Hodnota "
                'sa berie z env ako "HALF_UP", čo decimal nepozná — odtiaľ InvalidOperation.'
            )

    def migration() -> None:
        b.user(
            rng.choice(
                (
                    f"A čo tá migrácia {mig}, ktorú Tomáš pridal v tom istom PR? Vyrieš ju, ako sme hovorili.",
                    f"Ešte migrácia {mig} — na produkcii s ňou nechcem ďalšie prekvapenie, poriešiš to?",
                    f"Pozri prosím aj {mig} v invoices, tá súvisí s tým istým PR.",
                )
            )
        )
        b.tool(
            "Najprv stav migrácií v invoices.",
            "bash",
            {"command": "python manage.py showmigrations invoices"},
            "invoices\n"
            + "\n".join(
                f" [X] {i:04d}_{name}"
                for i, name in zip(
                    range(num - 6, num - 1),
                    rng.sample(
                        (
                            "invoice_number_seq",
                            "creditnote",
                            "invoice_pdf_path",
                            "auto_20231114_0912",
                            "invoiceline_sku",
                            "invoice_customer_ico",
                            "proforma",
                        ),
                        5,
                    ),
                    strict=True,
                )
            )
            + f"\n [X] {prev_mig}\n [{'X' if mig_state == 'unapplied' else ' '}] {mig}",
        )
        if mig_state == "unapplied":
            cmd = f"python manage.py migrate invoices {prev_mig[:4]}"
            out = (
                "Operations to perform:\n"
                f"  Target specific migration: {prev_mig}, from invoices\n"
                "Running migrations:\n  Rendering model states... DONE\n"
                f"  Unapplying invoices.{mig}... OK"
            )
            quiet = (
                "Operations to perform:\n  Target specific migration: "
                + prev_mig
                + ", from invoices\nRunning migrations:\n  Rendering model states... DONE\n  (1 migration processed)"
            )
            said = rng.choice(
                (
                    f"Migráciu {mig} som vrátil (unapply) na {prev_mig}; súbor ostáva v repozitári, kým ju Tomáš neopraví.",
                    f"Hotovo, {mig} je odaplikovaná — databáza je späť na {prev_mig}.",
                )
            )
        elif mig_state == "faked":
            cmd = f"python manage.py migrate invoices {mig[:4]} --fake"
            out = (
                "Operations to perform:\n"
                f"  Target specific migration: {mig}, from invoices\n"
                "Running migrations:\n"
                f"  Applying invoices.{mig}... FAKED"
            )
            quiet = (
                "Operations to perform:\n  Target specific migration: "
                + mig
                + ", from invoices\nRunning migrations:\n  (1 migration processed)"
            )
            said = rng.choice(
                (
                    f"{mig} som označil ako aplikovanú cez --fake (FAKED), stĺpec v MySQL už existoval z ručného ALTER.",
                    f"Migráciu {mig} som len nafejkoval (--fake), nič sa v tabuľke nemenilo.",
                )
            )
        else:
            cmd = f"git rm invoices/migrations/{mig}.py"
            out = f"rm 'invoices/migrations/{mig}.py'"
            said = rng.choice(
                (
                    f"Súbor migrácie {mig}.py som zmazal (git rm), na produkcii ešte nebola aplikovaná.",
                    f"Migráciu {mig} som odstránil z repozitára, Tomáš ju vygeneruje znova po oprave.",
                )
            )
        if mig_state == "deleted":
            b.tool(
                "Na produkcii nie je aplikovaná, takže ju môžem odstrániť.",
                "bash",
                {"command": cmd + (" -q" if mig_tell == 1 else "") + " && git status --short"},
                (out + "\n" if mig_tell != 1 else "")
                + f"D  invoices/migrations/{mig}.py\n M invoices/services/totals.py",
            )
        else:
            b.tool("Idem na to.", "bash", {"command": cmd}, out if mig_tell != 1 else quiet)
        if mig_tell == 0:
            b.assistant(
                "Hotovo, výstup je vyššie. Ostatné migrácie v invoices som nechal tak, ako sú."
            )
        else:
            b.assistant(said + " Ostatné migrácie v invoices som nechal tak.")

    def periodic() -> None:
        b.user(
            rng.choice(
                (
                    f"Kým to nie je opravené, tá periodická úloha {ptask} v celery beat bude len generovať ďalšie chyby. Zrušíme ju?",
                    f"V beat máme {ptask}, ktorá ťahá tie isté totals. Vyrieš ju, nech nám v noci nespamuje Sentry.",
                    f"Pozri ešte celery beat — {ptask} by v noci zase padala.",
                )
            )
        )
        listing = "\n".join(
            f"{name:<34} enabled={flag}  {cron}"
            for name, flag, cron in rng.sample(
                [
                    (ptask, True, "crontab(0 2 * * *)"),
                    ("celery.backend_cleanup", True, "crontab(0 4 * * *)"),
                    ("obnova-cache-kategorii", True, "interval(every 15 minutes)"),
                    ("export-feedu-heureka", True, "crontab(30 */2 * * *)"),
                    ("stara-synchronizacia-dph", False, "crontab(0 1 * * *)"),
                ],
                5,
            )
        )
        b.tool(
            "Zoznam periodických úloh v django_celery_beat:",
            "bash",
            {
                "command": "python manage.py shell -c \"from django_celery_beat.models import PeriodicTask as P; [print(f'{t.name:<34} enabled={t.enabled}  {t.schedule}') for t in P.objects.all()]\""
            },
            listing,
        )
        if ptask_state == "disabled":
            out = f"{ptask}: enabled=False" if pt_tell != 1 else "1"
            code = (
                f"t=P.objects.get(name='{ptask}'); t.enabled=False; t.save(); print(f'{{t.name}}: enabled={{t.enabled}}')"
                if pt_tell != 1
                else f"print(P.objects.filter(name='{ptask}').update(enabled=False))"
            )
            said = rng.choice(
                (
                    f"Úlohu {ptask} som vypol (enabled=False), nezmazal som ju — po oprave ju len zapneme.",
                    f"{ptask} je deaktivovaná, záznam v beat ostal aj s crontabom.",
                )
            )
        else:
            out = (
                f"deleted {ptask} (1, {{'django_celery_beat.PeriodicTask': 1}})"
                if pt_tell != 1
                else "(1, {'django_celery_beat.PeriodicTask': 1})"
            )
            code = (
                f"print('deleted', '{ptask}', P.objects.filter(name='{ptask}').delete())"
                if pt_tell != 1
                else f"print(P.objects.filter(name='{ptask}').delete())"
            )
            said = rng.choice(
                (
                    f"Periodickú úlohu {ptask} som zmazal z django_celery_beat, aj tak ju prepíšeme na nový task.",
                    f"{ptask} je odstránená z beat; crontab som si odložil do popisu PR.",
                )
            )
        b.tool(
            "Upravím ju cez shell.",
            "bash",
            {
                "command": f'python manage.py shell -c "from django_celery_beat.models import PeriodicTask as P; {code}"'
            },
            out,
        )
        if pt_tell == 0:
            b.assistant(
                "Beat si zmenu načíta do minúty (DatabaseScheduler). Ostatné úlohy bežia ďalej."
            )
        else:
            b.assistant(said + " Ostatné periodické úlohy bežia ďalej.")

    def decision() -> None:
        noun, short = topic["noun"], topic["short"]
        if d_mode == 0:
            b.user(
                rng.choice(
                    (
                        f"{short.capitalize()}: chcem {chosen}, nie {other}, {why}.",
                        f"Rozhodol som: {noun} bude {chosen} — {why}. {other} nepoužívaj.",
                        f"Aby bolo jasno, {short} = {chosen}, {why}.",
                    )
                )
            )
            b.assistant(f"Rozumiem, {short}: {chosen}. Zapíšem to aj do popisu PR.")
        elif d_mode == 1:
            b.user(
                rng.choice(
                    (
                        f"Oprava k tomu, čo som písal ráno: {short} nakoniec {chosen}, nie {other}. {why.capitalize()}.",
                        f"Zmena plánu — {noun} nebude {other}, ale {chosen}, {why}.",
                        f"Zabudni na {other}. Pre {short} ideme na {chosen}, {why}.",
                    )
                )
            )
            b.assistant(f"Beriem na vedomie, {short} bude {chosen}; {other} z návrhu vyhodím.")
        elif d_mode == 2:
            first = rng.choice((chosen, other))
            b.user(
                rng.choice(("Ako to teda opravíme natrvalo?", "Čo navrhuješ?", "A čo s tým ďalej?"))
            )
            b.assistant(f"Navrhujem pre {short} {first}, {why}. Súhlasíš, alebo chceš niečo iné?")
            if first == chosen:
                b.user(
                    rng.choice(
                        (
                            f"Áno, {short} nech je {chosen}.",
                            f"Súhlas, ber {chosen} pre {short}.",
                            f"Ok, {chosen} na {short} mi sedí.",
                        )
                    )
                )
            else:
                b.user(
                    rng.choice(
                        (
                            f"Skôr {chosen} — {short} s {other} sme už raz skúšali a nešlo to.",
                            f"Nie, na {short} chcem {chosen}, nie {other}.",
                        )
                    )
                )
            b.assistant(f"Dobre, {short}: {chosen}.")
        elif d_mode == 3:
            b.user(
                rng.choice(
                    (
                        f"Písal {colleague}: pre {short} ide {chosen}, {other} ostáva len na testoch. Vraj {why}.",
                        f"{colleague} rozhodol, že {noun} je {chosen} ({why}). Tak to sprav tak.",
                        f"Volal mi {colleague} — {short} bude {chosen}, nie {other}.",
                    )
                )
            )
            b.assistant(f"Ok, {short} podľa neho: {chosen}.")
        else:
            a, c = rng.sample((chosen, other), 2)
            b.user(rng.choice(("Môžeš to rovno opraviť?", "Oprav to prosím.", "Tak to sprav.")))
            b.assistant(
                f"Otázka: {short} — {a}, alebo {c}? Oboje vie vyriešiť ten InvalidOperation."
            )
            b.user(
                rng.choice(
                    (
                        f"{chosen} — {short} nech je takto, {why}.",
                        f"Daj {chosen} na {short}, {why}.",
                        f"Pre {short} {chosen}. {other} nie.",
                    )
                )
            )
            b.assistant(f"Jasné, {short} = {chosen}.")

    task_kinds = (
        (
            "účtovníčke zoznam dotknutých faktúr",
            "the accountant the list of affected invoices",
            ("účtovníč", "accountant"),
            "What must be sent to the accountant, and by when?",
        ),
        (
            "export dotknutých faktúr pre Zuzku z účtovníctva",
            "Zuzka from accounting an export of the affected invoices",
            ("export", "zuzk"),
            "What export is owed to Zuzka from accounting, and by when?",
        ),
    )
    what, what_en, what_needles, what_q = rng.choice(task_kinds)

    def next_step() -> None:
        if n_mode == 0:
            b.user(
                f"Dobre, tak to opravíme v settings a pridáme test. Mimochodom, pošli {what} {day}, "
                "nech vedia, čo dobropisovať. A ešte — tie obrázky produktov na CDN sú zase pomalé, ale to "
                "neriešme teraz, na to je iný ticket."
            )
            b.assistant("Jasné, test pridám k totals a na CDN sa pozriem neskôr.")
            probes.append(
                Probe("next_step", what_q, f"Send {what_en} {day_en}.", (what_needles, day_needles))
            )
        elif n_mode == 1:
            cond = rng.choice(
                (
                    (
                        "až keď bude oprava na produkcii",
                        ("produkci", "production", "deploy"),
                        "only once the fix is in production",
                    ),
                    (
                        "až po schválení PR Tomášom",
                        ("schválen", "approv", "tomáš"),
                        "only after Tomáš approves the PR",
                    ),
                )
            )
            b.user(
                f"Všetky PDF dotknutých faktúr treba pregenerovať, ale {cond[0]}. Dovtedy na ne nesiahaj."
            )
            b.assistant("Rozumiem, pregenerovanie nechám na potom a teraz nič nespúšťam.")
            probes.append(
                Probe(
                    "next_step",
                    "When should the affected invoice PDFs be regenerated?",
                    f"Regenerate the affected PDFs {cond[2]}.",
                    (("pregener", "regenerat"), cond[1]),
                )
            )
        else:
            b.user("Dík. Daj mi vedieť, či sa to po oprave nevracia.")
            b.assistant(
                "Zajtra ráno skontrolujem vo Flower, či nepribúdajú FAILURE pre render_invoice_pdf, a ozvem sa."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to check, and when?",
                    "Check Flower tomorrow morning for new render_invoice_pdf failures.",
                    (("flower",), ("zajtra ráno", "tomorrow morning")),
                )
            )

    def outro() -> None:
        b.user("Zhrň mi v skratke, kde sme.")
        b.assistant(
            "Príčina je v settings.VAT_ROUNDING (reťazec namiesto konštanty z decimal), zlyhané PDF sú "
            "zmapované, migrácie a beat sú upravené podľa dohody. Opravu pripravím ako PR s testom "
            "test_vat_rounding_half_cent."
        )

    _play(rng, intro, [bisect, migration, periodic, decision, next_step], outro)

    mig_words = {
        "unapplied": (
            "unapplying",
            "unapplied",
            "unapply",
            "rolled back",
            "reverted",
            "odaplik",
            "vrátil",
            "vrátená",
        ),
        "faked": ("faked", "--fake", "fake", "nafejk"),
        "deleted": ("rm '", "deleted", "removed", "zmaza", "odstrán"),
    }[mig_state]
    probes.append(
        Probe(
            "artifact",
            f"What happened to the invoices migration {mig}?",
            {
                "unapplied": f"It was unapplied (rolled back to {prev_mig}); the file stays in the repo.",
                "faked": "It was marked as applied with --fake (FAKED); the column already existed.",
                "deleted": "Its file was deleted with git rm; it was never applied in production.",
            }[mig_state],
            ((mig,), mig_words),
        )
    )
    probes.append(
        Probe(
            "artifact",
            f"What was done with the celery beat periodic task {ptask}?",
            "It was disabled (enabled=False), not deleted."
            if ptask_state == "disabled"
            else "It was deleted from django_celery_beat.",
            (
                (ptask,),
                ("enabled=false", "disabled", "vypol", "vypnut", "deaktiv")
                if ptask_state == "disabled"
                else ("deleted", "removed", "zmaza", "odstrán"),
            ),
        )
    )
    probes.append(
        Probe(
            "decision",
            topic["q"],
            f"{chosen} ({why}); not {other}.",
            ((chosen,), topic["needle"]),
        )
    )
    opening = b.take()
    return opening, segments_of(rng, b, segments, lambda r: _sk_filler(r, b)), probes


def _sk_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(3)
    if pick == 0:
        size = rng.choice((24, 36, 48))
        b.user(
            f"Iná vec: API zoznamu produktov vracia všetko naraz. Pridaj stránkovanie po {size} kusov."
        )
        b.tool(
            "Pridám PageNumberPagination do catalog/api/views.py a spustím testy katalógu.",
            "bash",
            {"command": "pytest -q catalog/tests/test_api.py"},
            f"{'.' * rng.randint(18, 30)}                                           [100%]\n"
            f"{rng.randint(18, 30)} passed, {rng.randint(1, 3)} warnings in {rng.uniform(2, 9):.2f}s",
        )
        b.assistant(
            f"Stránkovanie po {size} je v ProductViewSet, testy prešli. Frontend dostane aj 'next' a 'count'."
        )
    elif pick == 1:
        ms = rng.randint(900, 4200)
        b.user(f"Admin pre produkty sa načítava {ms} ms. Prečo?")
        b.tool(
            "Pozriem EXPLAIN dotazu, ktorý robí changelist.",
            "bash",
            {
                "command": "mysql -e 'EXPLAIN SELECT * FROM catalog_product INNER JOIN catalog_brand ON (catalog_product.brand_id = catalog_brand.id) ORDER BY catalog_product.updated_at DESC LIMIT 100' eshop"
            },
            "+----+-------------+-----------------+------------+--------+---------------+---------+---------+---------------------------+-------+----------+----------------+\n"
            "| id | select_type | table           | partitions | type   | possible_keys | key     | key_len | ref                       | rows  | filtered | Extra          |\n"
            "+----+-------------+-----------------+------------+--------+---------------+---------+---------+---------------------------+-------+----------+----------------+\n"
            f"|  1 | SIMPLE      | catalog_product | NULL       | ALL    | brand_id      | NULL    | NULL    | NULL                      | {rng.randint(20000, 90000)} |   100.00 | Using filesort |\n"
            "|  1 | SIMPLE      | catalog_brand   | NULL       | eq_ref | PRIMARY       | PRIMARY | 4       | eshop.catalog_product.brand_id |     1 |   100.00 | NULL           |\n"
            "+----+-------------+-----------------+------------+--------+---------------+---------+---------+---------------------------+-------+----------+----------------+",
        )
        b.assistant(
            "Chýba index na updated_at, preto filesort cez celú tabuľku. Navrhnem index a list_select_related pre brand."
        )
    else:
        b.user("Prosím aktualizuj slovenské preklady, pribudli texty v košíku.")
        b.tool(
            "Spustím makemessages a compilemessages.",
            "bash",
            {
                "command": "python manage.py makemessages -l sk && python manage.py compilemessages -l sk"
            },
            "processing locale sk\n"
            + "\n".join(
                f"processing file django.po in /srv/eshop/{app}/locale/sk/LC_MESSAGES"
                for app in ("cart", "checkout", "catalog")
            ),
        )
        b.assistant(
            f"Pribudlo {rng.randint(4, 19)} nových reťazcov v cart a checkout, preložil som ich a .mo súbory sú skompilované."
        )


# ---------------------------------------------------------------------------------------
# Armenian: a clinic booking API, .NET 8, EF Core, SQL Server
# ---------------------------------------------------------------------------------------


def _guid(rng: random.Random) -> str:
    return _uuid(rng).upper()


def _hy_log_line(rng: random.Random) -> str:
    path = rng.choice(
        (
            "/api/doctors",
            "/api/doctors/14/slots",
            "/api/patients/me",
            "/health/ready",
            "/api/clinics/3/schedule",
        )
    )
    return json.dumps(
        {
            "@t": f"2024-04-02T{_hms(rng)}.{rng.randint(1000000, 9999999)}Z",
            "@mt": "HTTP {RequestMethod} {RequestPath} responded {StatusCode} in {Elapsed:0.0000} ms",
            "RequestMethod": "GET",
            "RequestPath": path,
            "StatusCode": 200,
            "Elapsed": round(rng.uniform(1.5, 180.0), 4),
            "SourceContext": "Serilog.AspNetCore.RequestLoggingMiddleware",
            "TraceId": hexits(rng, 32),
            "SpanId": hexits(rng, 16),
        },
        ensure_ascii=False,
    )


_HY_TOPICS: tuple[_Topic, ...] = (
    {
        "values": ("RowVersion", "UpdatedAt"),
        "short": "concurrency token-ը",
        "needle": ("concurrency", "կոնկուրենտ", "token"),
        "q": "Which column was chosen as the EF Core concurrency token for Appointments?",
        "why": (
            "որովհետև Գոռը նույնն է արել Billing մոդուլում",
            "որպեսզի մյուս aggregate-ների հետ նույնը լինի",
            "որովհետև հաշվետվությունները արդեն կարդում են այդ սյունը",
        ),
    },
    {
        "values": ("409 Conflict", "412 Precondition Failed", "ավտոմատ retry"),
        "short": "կոնֆլիկտի պատասխանը",
        "needle": ("կոնֆլիկտ", "conflict", "պատասխան"),
        "q": "How should the API answer a concurrency conflict on rescheduling?",
        "why": (
            "որովհետև մոբայլ հավելվածը արդեն գիտի՝ ինչ անել դրա հետ",
            "որպեսզի վեբը և մոբայլը նույն վարքն ունենան",
            "որովհետև Front-ի թիմը այդպես է խնդրել",
        ),
    },
    {
        "values": ("DateTimeOffset", "DateTime (UTC)"),
        "short": "StartsAt-ի տիպը",
        "needle": ("startsat", "ժամի", "time"),
        "q": "Which type will Appointment.StartsAt be stored as?",
        "why": (
            "որովհետև մոբայլ հավելվածը այդպես է ուղարկում",
            "որպեսզի Billing-ի հետ համընկնի",
            "որովհետև Power BI հաշվետվությունները այդպես են սպասում",
        ),
    },
)


def _clinic(rng: random.Random, b: Builder, segments: int) -> Parts:
    trace, *trace_decoys = _distinct(rng, lambda r: hexits(r, 32), 4)
    ticket, old_ticket = _distinct(rng, lambda r: f"MED-{r.randint(310, 1999)}", 2)
    dup, kept, *row_decoys = _distinct(rng, _guid, 6)
    doctor = rng.randint(11, 48)
    slot = f"2024-04-0{rng.randint(3, 9)} {rng.choice(('09', '10', '11', '14', '15'))}:{rng.choice(('00', '30'))}:00.0000000"

    mname = rng.choice(
        ("AddAppointmentVersionColumn", "AddDoctorSlotUniqueIndex", "SplitPatientFullName")
    )
    mig = f"202403{rng.randint(10, 29)}{rng.randint(8, 19):02d}{rng.randint(0, 59):02d}{rng.randint(0, 59):02d}_{mname}"
    prev = f"20240301{rng.randint(10, 18)}{rng.randint(0, 59):02d}{rng.randint(0, 59):02d}_AddClinicBranches"
    mig_state = rng.choice(("removed", "reverted"))
    mig_tell = rng.randrange(3)
    branch = rng.choice(
        ("fix/reschedule-concurrency", "spike/optimistic-locking", "chore/ef8-upgrade-tmp")
    )
    new_branch = "fix/" + rng.choice(
        ("appointment-versioning", "booking-conflicts", "slot-locking")
    )
    br_state = rng.choice(("deleted", "renamed"))
    br_tell = rng.randrange(3) if br_state == "deleted" else rng.choice((1, 2))

    topic = rng.choice(_HY_TOPICS)
    chosen, other = rng.sample(topic["values"], 2)
    why = rng.choice(topic["why"])
    d_mode = rng.randrange(5)
    colleague = rng.choice(("Արամը", "Լիլիթը", "Գոռը թիմլիդից"))
    n_mode = rng.randrange(3)

    probes: list[Probe] = [
        Probe(
            "identifier",
            "What is the TraceId of the reschedule request that failed with HTTP 500?",
            trace,
            ((trace,),),
        ),
        Probe(
            "identifier", "Which Jira ticket tracks the double-booking bug?", ticket, ((ticket,),)
        ),
        Probe(
            "identifier",
            f"What is the Id of the duplicate appointment that was cancelled for doctor {doctor}?",
            dup,
            ((dup,),),
        ),
    ]

    def intro() -> None:
        lines = [
            f"Բարև։ Jira-ում բացել եմ {ticket}՝ կրկնակի ամրագրումներ։ Երեկ երկու պացիենտ "
            f"նույն ժամին են ամրագրվել բժիշկ {doctor}-ի մոտ, իսկ reschedule-ը 500 է տալիս։ "
            f"{old_ticket}-ը մի նայիր, դա հին ծանուցումների խնդիրն էր, փակված է։",
            "Նայիր prod-ի լոգերը (Seq-ից արտահանել եմ app-2024-04-02.json), գտիր ընկնող request-ը։",
        ]
        if d_mode == 1:
            lines.append(f"Ի դեպ, {topic['short']}՝ առայժմ թող լինի {other}։")
        b.user("\n\n".join(lines))
        errs = [
            {
                "@t": f"2024-04-02T{_hms(rng)}.{rng.randint(1000000, 9999999)}Z",
                "@mt": "HTTP {RequestMethod} {RequestPath} responded {StatusCode} in {Elapsed:0.0000} ms",
                "@l": "Error",
                "@x": "Microsoft.EntityFrameworkCore.DbUpdateConcurrencyException: The database operation was expected to affect 1 row(s), but actually affected 0 row(s); data may have been modified or deleted since entities were loaded.\n   at Microsoft.EntityFrameworkCore.Update.AffectedCountModificationCommandBatch.ThrowAggregateUpdateConcurrencyExceptionAsync(...)\n   at MedBook.Application.Appointments.RescheduleHandler.Handle(RescheduleCommand request, CancellationToken ct) in /src/MedBook.Application/Appointments/RescheduleHandler.cs:line 61",
                "RequestMethod": "PUT",
                "RequestPath": f"/api/appointments/{row_decoys[0]}/reschedule",
                "StatusCode": 500,
                "Elapsed": round(rng.uniform(40, 300), 4),
                "TraceId": trace,
                "SpanId": hexits(rng, 16),
            },
            {
                "@t": f"2024-04-02T{_hms(rng)}.{rng.randint(1000000, 9999999)}Z",
                "@mt": "HTTP {RequestMethod} {RequestPath} responded {StatusCode} in {Elapsed:0.0000} ms",
                "@l": "Warning",
                "RequestMethod": "POST",
                "RequestPath": "/api/appointments",
                "StatusCode": 409,
                "Elapsed": round(rng.uniform(10, 90), 4),
                "TraceId": trace_decoys[0],
                "SpanId": hexits(rng, 16),
            },
        ]
        lines_out = [_hy_log_line(rng) for _ in range(rng.randint(12, 18))]
        for e in errs:
            lines_out.insert(rng.randrange(len(lines_out)), json.dumps(e, ensure_ascii=False))
        b.tool(
            "Նայեմ սխալ և զգուշացում ունեցող տողերը լոգում։",
            "bash",
            {
                "command": "jq -c 'select(.StatusCode != null)' logs/app-2024-04-02.json | tail -n 24"
            },
            "\n".join(lines_out),
        )
        if rng.randrange(2):
            b.assistant(
                f"Ընկնողը PUT reschedule-ն է, TraceId {trace}՝ DbUpdateConcurrencyException "
                "RescheduleHandler.cs:61-ում։ 409-ը POST-ից է, դա նորմալ վալիդացիա է, ոչ թե bug։"
            )
        else:
            b.assistant(
                "Լոգում մեկ 500 կա՝ PUT /reschedule, DbUpdateConcurrencyException RescheduleHandler-ում "
                "(տողը վերևում է)։ 409-ը POST /api/appointments-ից է և այլ բան է։"
            )

    def duplicates() -> None:
        b.user(
            rng.choice(
                (
                    "Գտիր կրկնակի ամրագրումները բազայում։ Եթե կան, ավելի ուշ ստեղծվածը չեղարկիր, առաջինը թող մնա։",
                    "Բազայում ստուգիր՝ նույն բժշկի նույն ժամին քանի Booked կա։ Ավելի նորը Cancelled արա։",
                    "Նախ մաքրենք տվյալները․ կրկնվող slot-ում թողնում ենք ավելի շուտ ստեղծվածը, մյուսը՝ չեղարկել։",
                )
            )
        )
        rows = [
            (kept, doctor, slot, "Booked", "2024-04-01 09:12:44.1230000"),
            (
                dup,
                doctor,
                slot,
                "Booked",
                f"2024-04-01 {rng.randint(10, 17)}:{rng.randint(10, 59)}:03.5570000",
            ),
        ]
        other_rows = [
            (
                g,
                rng.randint(11, 48),
                f"2024-04-0{rng.randint(3, 9)} 1{rng.randint(0, 6)}:00:00.0000000",
                "Booked",
                f"2024-03-{rng.randint(20, 31)} 1{rng.randint(0, 9)}:0{rng.randint(0, 9)}:11.0000000",
            )
            for g in row_decoys[1:]
        ]
        head = (
            "Id                                   DoctorId    StartsAt                    Status     CreatedAt\n"
            "------------------------------------ ----------- --------------------------- ---------- ---------------------------\n"
        )
        b.tool(
            "Նախ ընդհանուր նկար՝ մոտակա ամրագրումները այդ բժշկի և հարևանների համար։",
            "bash",
            {
                "command": "sqlcmd -S sql-prod-01 -d MedBook -Q \"SELECT TOP 6 Id, DoctorId, StartsAt, Status, CreatedAt FROM dbo.Appointments WHERE StartsAt >= '2024-04-03' AND Status = 'Booked' ORDER BY DoctorId\" -W"
            },
            head
            + "\n".join(
                f"{r[0]} {r[1]:<11} {r[2]} {r[3]:<10} {r[4]}"
                for r in sorted([*rows, *other_rows], key=lambda r: r[1])
            )
            + f"\n\n({len(rows) + len(other_rows)} rows affected)",
        )
        b.tool(
            "Միայն կրկնվող slot-երը։",
            "bash",
            {
                "command": "sqlcmd -S sql-prod-01 -d MedBook -Q \"SELECT a.Id, a.DoctorId, a.StartsAt, a.CreatedAt FROM dbo.Appointments a JOIN (SELECT DoctorId, StartsAt FROM dbo.Appointments WHERE Status='Booked' GROUP BY DoctorId, StartsAt HAVING COUNT(*) > 1) d ON d.DoctorId = a.DoctorId AND d.StartsAt = a.StartsAt ORDER BY a.CreatedAt\" -W"
            },
            "Id                                   DoctorId    StartsAt                    CreatedAt\n"
            "------------------------------------ ----------- --------------------------- ---------------------------\n"
            + "\n".join(f"{r[0]} {r[1]:<11} {r[2]} {r[4]}" for r in rows)
            + "\n\n(2 rows affected)",
        )
        b.tool(
            "Ավելի ուշ ստեղծվածը չեղարկում եմ։",
            "bash",
            {
                "command": f"sqlcmd -S sql-prod-01 -d MedBook -Q \"UPDATE dbo.Appointments SET Status = 'Cancelled', CancelReason = 'duplicate booking' WHERE Id = '{dup}'\""
            },
            "\n(1 rows affected)",
        )
        if rng.randrange(2):
            b.assistant(
                f"Մեկ կրկնակի slot կար։ {dup}-ը (ավելի ուշ ստեղծված) Cancelled է, {kept}-ը մնում է Booked։"
            )
        else:
            b.assistant(
                "Կրկնվող slot-ը մեկն էր․ երկրորդ ամրագրումը (CreatedAt-ով ավելի ուշ) չեղարկեցի, առաջինը մնաց Booked։"
            )

    def migration() -> None:
        b.user(
            rng.choice(
                (
                    f"{mname} միգրացիան, որ երեկ ավելացրինք, staging-ում խնդիր է տալիս։ Կարգավորիր այնպես, ինչպես պայմանավորվեցինք։",
                    f"Staging-ի բազան փչացրել է {mname}-ը։ Դրա հետ ինչ-որ բան արա, մինչև նորը գրենք։",
                    f"{mname}-ը ճիշտ չէ գեներացված, ինդեքսը սխալ սյան վրա է։ Լուծիր։",
                )
            )
        )
        b.tool(
            "Միգրացիաների ցուցակը staging-ի համար։",
            "bash",
            {
                "command": "dotnet ef migrations list --project src/MedBook.Infrastructure --startup-project src/MedBook.Api"
            },
            "Build started...\nBuild succeeded.\n"
            f"20240115093012_InitialCreate\n20240208141507_AddPatientConsent\n{prev}\n{mig}",
        )
        if mig_state == "removed":
            cmds = [
                (
                    "dotnet ef database update " + prev.split("_", 1)[1],
                    f"Build started...\nBuild succeeded.\nReverting migration '{mig}'.\nDone.",
                ),
                (
                    "dotnet ef migrations remove",
                    f"Build started...\nBuild succeeded.\nRemoving migration '{mig}'.\nReverting the model snapshot.\nDone.",
                ),
            ]
            quiet = f"Build started...\nBuild succeeded.\nDone.\n$ git status --short\n D src/MedBook.Infrastructure/Migrations/{mig}.cs\n D src/MedBook.Infrastructure/Migrations/{mig}.Designer.cs\n M src/MedBook.Infrastructure/Migrations/MedBookDbContextModelSnapshot.cs"
            said = rng.choice(
                (
                    f"{mig} միգրացիան ջնջեցի (migrations remove), snapshot-ը հետ է վերադարձված։",
                    f"{mname}-ը հեռացրի նախագծից՝ նախ staging-ի բազան հետ տարա {prev}-ի վրա։",
                )
            )
            words: tuple[str, ...] = ("removing migration", "removed", "deleted", "ջնջ", "հեռացր")
            answer = f"It was reverted on staging and removed from the project (dotnet ef migrations remove); the database is back on {prev}."
        else:
            cmds = [
                (
                    "dotnet ef database update " + prev.split("_", 1)[1],
                    f"Build started...\nBuild succeeded.\nReverting migration '{mig}'.\nDone.",
                )
            ]
            quiet = f"Build started...\nBuild succeeded.\nDone.\n$ dotnet ef migrations list\n{prev}\n{mig} (Pending)"
            said = rng.choice(
                (
                    f"{mig}-ը staging-ի բազայում հետ գլորեցի (reverted), ֆայլը նախագծում մնում է։",
                    f"{mname} միգրացիան բազայից հետ գլորեցի {prev}-ի վրա, կոդում չեմ ջնջել։",
                )
            )
            words = ("reverting migration", "reverted", "rolled back", "հետ գլոր")
            answer = f"It was reverted (rolled back) on the staging database to {prev}; the migration file stays in the project."
        for i, (cmd, out) in enumerate(cmds):
            if mig_tell == 1:
                out = quiet if i == len(cmds) - 1 else "Build started...\nBuild succeeded.\nDone."
            b.tool(
                "Կատարում եմ։",
                "bash",
                {
                    "command": f"{cmd} --project src/MedBook.Infrastructure --startup-project src/MedBook.Api"
                },
                out,
            )
        if mig_tell == 0:
            b.assistant("Պատրաստ է, արդյունքը վերևում է։ Մյուս միգրացիաներին չեմ դիպել։")
        else:
            b.assistant(said + " Մյուս միգրացիաներին չեմ դիպել։")
        probes.append(
            Probe(
                "artifact",
                f"What happened to the EF Core migration {mname}?",
                answer,
                ((mig, mname), words),
            )
        )

    def branch_step() -> None:
        b.user(
            rng.choice(
                (
                    f"{branch} ճյուղը դեռ կա՞։ Կարգի բեր ճյուղերը, որ PR-ը մաքուր լինի։",
                    f"Remote-ում մնացել է {branch}-ը։ Արա այն, ինչ պետք է, որ Գոռը չշփոթվի։",
                    f"Ճյուղերի մասին․ {branch}-ի հետ ինչ-որ բան արա, ինչպես նախորդ անգամ։",
                )
            )
        )
        lst = "\n".join(
            f"  {name:<34} {hexits(rng, 7)} {msg}"
            for name, msg in rng.sample(
                [
                    (branch, "wip: optimistic locking on Appointment"),
                    ("main", "Merge pull request #212 from medbook/feature/sms-reminders"),
                    ("feature/sms-reminders", "sms: retry on 429 from provider"),
                    ("release/2024.03", "bump version"),
                ],
                4,
            )
        )
        b.tool("Լոկալ ճյուղերը՝", "bash", {"command": "git branch -v"}, lst)
        if br_state == "deleted":
            out = f"Deleted branch {branch} (was {hexits(rng, 7)})." if br_tell != 1 else "Done."
            cmd = (
                f"git branch -D {branch} && git push origin --delete {branch}"
                if br_tell != 1
                else f"git branch -D {branch} -q && git push -q origin --delete {branch} && echo Done."
            )
            if br_tell != 1:
                out += f"\nTo github.com:medbook/medbook-api.git\n - [deleted]         {branch}"
            said = rng.choice(
                (
                    f"{branch} ճյուղը ջնջեցի թե լոկալ, թե remote-ում։",
                    f"{branch}-ը այլևս չկա․ ջնջված է նաև origin-ից։",
                )
            )
            words: tuple[str, ...] = ("deleted branch", "[deleted]", "deleted", "ջնջ")
            answer = "It was deleted locally and on the remote."
        else:
            cmd = f"git branch -m {branch} {new_branch} && git push -q origin -u {new_branch} && git push -q origin --delete {branch}"
            out = f"branch '{new_branch}' set up to track 'origin/{new_branch}'."
            said = f"{branch} ճյուղը վերանվանեցի {new_branch} (renamed), remote-ում նույնպես։"
            words = ("renamed", "վերանվան")
            answer = f"It was renamed to {new_branch}, locally and on the remote."
        b.tool("Անում եմ։", "bash", {"command": cmd}, out)
        if br_tell == 0:
            b.assistant("Պատրաստ է։ main-ին և release ճյուղին չեմ դիպել։")
        else:
            b.assistant(said + " main-ին և release ճյուղին չեմ դիպել։")
        probes.append(
            Probe(
                "artifact", f"What happened to the git branch {branch}?", answer, ((branch,), words)
            )
        )

    def decision() -> None:
        short = topic["short"]
        if d_mode == 0:
            b.user(
                rng.choice(
                    (
                        f"{short.capitalize()} կլինի {chosen}, ոչ թե {other}, {why}։",
                        f"Որոշեցի․ {short}՝ {chosen}։ {why.capitalize()}։",
                        f"Թող {short} լինի {chosen} — {why}։ {other}-ը չօգտագործես։",
                    )
                )
            )
            b.assistant(f"Հասկացա, {short}՝ {chosen}։ Կգրեմ նաև PR-ի նկարագրության մեջ։")
        elif d_mode == 1:
            b.user(
                rng.choice(
                    (
                        f"Ուղղում առավոտվա ասածիս․ {short} {other} չէ, այլ {chosen}, {why}։",
                        f"Փոխում եմ որոշումը՝ {short} կլինի {chosen}, {other}-ը մոռացիր։",
                        f"Վերջնական՝ {short} {chosen}։ {other}-ը այլևս չի գործում։",
                    )
                )
            )
            b.assistant(f"Ընդունված է, {short}՝ {chosen}, {other}-ը հանում եմ։")
        elif d_mode == 2:
            first = rng.choice((chosen, other))
            b.user(
                rng.choice(
                    ("Իսկ ինչպե՞ս ուղղենք ընդմիշտ։", "Ի՞նչ ես առաջարկում։", "Հետո ի՞նչ ենք անում։")
                )
            )
            b.assistant(f"Առաջարկում եմ, որ {short} լինի {first}, {why}։ Համաձա՞յն ես։")
            if first == chosen:
                b.user(
                    rng.choice(
                        (
                            f"Այո, {short}՝ {chosen}։",
                            f"Համաձայն եմ, {chosen}, {short} այդպես թող լինի։",
                        )
                    )
                )
            else:
                b.user(
                    rng.choice(
                        (
                            f"Ոչ, {short} թող լինի {chosen}, ոչ թե {other}։",
                            f"Ավելի լավ է {chosen} — {short} {other}-ով արդեն փորձել ենք։",
                        )
                    )
                )
            b.assistant(f"Լավ, {short}՝ {chosen}։")
        elif d_mode == 3:
            b.user(
                rng.choice(
                    (
                        f"{colleague} գրեց, որ {short} պետք է լինի {chosen}, {why}։",
                        f"Խոսեցի՝ {colleague} ասում է {short}՝ {chosen}, ոչ {other}։ Այդպես էլ անենք։",
                        f"{colleague} որոշեց․ {short} {chosen}։",
                    )
                )
            )
            b.assistant(f"Լավ, նրա ասածով՝ {short} {chosen}։")
        else:
            a, c = rng.sample((chosen, other), 2)
            b.user(rng.choice(("Կարո՞ղ ես միանգամից ուղղել։", "Ուղղիր, խնդրում եմ։", "Դե արա։")))
            b.assistant(
                f"Հարց ունեմ․ {short}՝ {a}, թե՞ {c}։ Երկուսն էլ լուծում են DbUpdateConcurrencyException-ի խնդիրը։"
            )
            b.user(
                rng.choice(
                    (
                        f"{chosen}, {short} {why}։",
                        f"{short.capitalize()}՝ {chosen}։ {other}-ը՝ ոչ։",
                        f"Վերցրու {chosen}․ {short}՝ {chosen}, դա է ճիշտը։",
                    )
                )
            )
            b.assistant(f"Պարզ է, {short}՝ {chosen}։")
        probes.append(
            Probe(
                "decision",
                topic["q"],
                f"{chosen} ({why}); not {other}.",
                ((chosen,), topic["needle"]),
            )
        )

    def next_step() -> None:
        if n_mode == 0:
            day, day_en, needles = rng.choice(
                (
                    ("մինչև հինգշաբթի", "by Thursday", ("հինգշաբթի", "thursday")),
                    ("մինչև ուրբաթ", "by Friday", ("ուրբաթ", "friday")),
                    ("մինչև ամսի 15-ը", "by the 15th", ("15-ը", "15th", "april 15", "15 april")),
                )
            )
            b.user(
                "Լավ, շարունակիր։ Մեկ էլ՝ Swagger-ում reschedule-ի նկարագրությունը հնացած է, բայց դա հետո։ "
                f"Եվ չմոռանաս Անիին (QA) ասել, որ staging-ում կրկնի ամրագրման թեստերը {day}։ "
                "SMS-ների խնդիրը այսօր չենք նայում։"
            )
            b.assistant("Լավ, Swagger-ը և SMS-ը հետո։")
            probes.append(
                Probe(
                    "next_step",
                    "What must QA (Ani) be asked to do, and by when?",
                    f"Tell Ani (QA) to rerun the booking tests on staging {day_en}.",
                    (("անի", "ani", "qa"), needles),
                )
            )
        elif n_mode == 1:
            cond, cond_en, needles = rng.choice(
                (
                    (
                        "միայն կիրակի գիշերվա backup-ից հետո",
                        "only after the Sunday night backup",
                        ("կիրակի", "sunday"),
                    ),
                    (
                        "միայն այն բանից հետո, երբ Լիլիթը հաստատի PR-ը",
                        "only after Lilit approves the PR",
                        ("լիլիթ", "lilit"),
                    ),
                )
            )
            b.user(f"Նոր միգրացիան prod-ում կկիրառենք {cond}։ Մինչ այդ prod-ի բազային ոչինչ չանես։")
            b.assistant("Հասկացա, prod-ի միգրացիան սպասում է։")
            probes.append(
                Probe(
                    "next_step",
                    "When may the new migration be applied to production?",
                    f"Apply the new migration on prod {cond_en}.",
                    (("միգրացի", "migration"), needles),
                )
            )
        else:
            b.user("Շնորհակալություն։ Իսկ ինչպե՞ս իմանանք, որ այլևս չի կրկնվի։")
            b.assistant(
                "Վաղը կավելացնեմ ինտեգրացիոն թեստ Testcontainers-ով (SQL Server), որը զուգահեռ երկու ամրագրում է անում նույն slot-ի վրա։"
            )
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to add, and when?",
                    "An integration test with Testcontainers for parallel bookings, tomorrow.",
                    (("testcontainers", "ինտեգրացիոն"), ("վաղը", "tomorrow")),
                )
            )

    def outro() -> None:
        b.user("Կարճ ամփոփիր, խնդրում եմ։")
        b.assistant(
            "Պատճառը reschedule-ում concurrency-ի բացակայությունն է․ կրկնակի ամրագրումը մաքրված է, "
            "միգրացիան և ճյուղերը կարգավորված են ըստ պայմանավորվածության, ուղղումը կգնա մեկ PR-ով։"
        )

    _play(rng, intro, [duplicates, migration, branch_step, decision, next_step], outro)
    return b.take(), segments_of(rng, b, segments, lambda r: _hy_filler(r, b)), probes


def _hy_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(3)
    if pick == 0:
        b.user("Ուրիշ բան․ health check-ը ավելացրու SQL Server-ի և Redis-ի համար։")
        b.tool(
            "Ավելացրի AddHealthChecks()-ը, ստուգեմ endpoint-ը։",
            "bash",
            {"command": "curl -s localhost:5080/health/ready | jq ."},
            json.dumps(
                {
                    "status": "Healthy",
                    "totalDuration": f"00:00:00.{rng.randint(1000000, 9999999)}",
                    "entries": {
                        "sqlserver": {
                            "status": "Healthy",
                            "duration": f"00:00:00.0{rng.randint(100000, 999999)}",
                        },
                        "redis": {
                            "status": "Healthy",
                            "duration": f"00:00:00.00{rng.randint(10000, 99999)}",
                        },
                    },
                },
                indent=2,
            ),
        )
        b.assistant(
            "Երկու ստուգումն էլ Healthy են, /health/ready-ը պատրաստ է Kubernetes-ի probe-երի համար։"
        )
    elif pick == 1:
        n = rng.randint(40, 90)
        b.user("Billing մոդուլի թեստերը անցնու՞մ են։")
        b.tool(
            "Աշխատեցնում եմ միայն Billing-ի թեստերը։",
            "bash",
            {"command": "dotnet test tests/MedBook.Billing.Tests --nologo"},
            f"  Determining projects to restore...\n  All projects are up-to-date for restore.\n  MedBook.Billing.Tests -> /src/tests/MedBook.Billing.Tests/bin/Debug/net8.0/MedBook.Billing.Tests.dll\n"
            f"Test run for /src/tests/MedBook.Billing.Tests/bin/Debug/net8.0/MedBook.Billing.Tests.dll (.NETCoreApp,Version=v8.0)\n"
            f"Passed!  - Failed:     0, Passed:    {n}, Skipped:     {rng.randint(0, 2)}, Total:    {n + 1}, Duration: {rng.randint(2, 9)} s - MedBook.Billing.Tests.dll (net8.0)",
        )
        b.assistant(
            f"Billing-ի {n} թեստերը անցնում են, մեկը skip է՝ արտարժույթի փոխարժեքի արտաքին API-ի պատճառով։"
        )
    else:
        b.user("Ո՞ր NuGet փաթեթներն են հնացած։")
        b.tool(
            "Ստուգում եմ։",
            "bash",
            {"command": "dotnet list src/MedBook.Api package --outdated"},
            "Project `MedBook.Api` has the following updates to its packages\n   [net8.0]: \n"
            "   Top-level Package                      Requested   Resolved   Latest\n"
            f"   > Serilog.AspNetCore                   8.0.0       8.0.0      8.0.{rng.randint(1, 3)}\n"
            f"   > Swashbuckle.AspNetCore               6.5.0       6.5.0      6.{rng.randint(6, 9)}.0\n"
            f"   > FluentValidation.AspNetCore          11.3.0      11.3.0     11.{rng.randint(4, 9)}.0",
        )
        b.assistant(
            "Երեք փաթեթ հնացած է, մեծ փոփոխություններ չկան․ կարող եմ թարմացնել առանձին PR-ով։"
        )


# ---------------------------------------------------------------------------------------
# Urdu: a school's self-hosted Nextcloud, Docker Compose, restic
# ---------------------------------------------------------------------------------------


def _ur_log_line(rng: random.Random) -> str:
    return (
        f"nextcloud-app-1  | 172.20.0.{rng.randint(2, 9)} - - [14/Mar/2024:{_hms(rng)} +0500] "
        f'"{rng.choice(("PROPFIND", "GET", "GET", "REPORT"))} /remote.php/dav/files/{rng.choice(("ustani.sadia", "admin", "sir.kamran", "office"))}/ HTTP/1.1" '
        f'{rng.choice((207, 200, 200, 304))} {rng.randint(300, 9000)} "-" "Mozilla/5.0 (Windows) mirall/3.12.{rng.randint(0, 3)}"'
    )


_UR_TOPICS: tuple[_Topic, ...] = (
    {
        "values": ("02:30", "04:00", "23:30"),
        "short": "بیک اپ کا وقت",
        "needle": ("بیک اپ", "backup", "cron", "کرون"),
        "q": "At what time will the nightly restic backup run?",
        "why": (
            "کیونکہ اس وقت کوئی استاد فائلیں سنک نہیں کر رہا ہوتا",
            "تاکہ صبح اسمبلی سے پہلے مکمل ہو جائے",
            "کیونکہ اس وقت PTCL کی لائن سب سے تیز ہوتی ہے",
        ),
    },
    {
        "values": ("--keep-daily 14", "--keep-daily 7", "--keep-daily 30"),
        "short": "ریٹینشن پالیسی",
        "needle": ("ریٹینشن", "retention", "keep-daily", "forget"),
        "q": "What restic retention (keep-daily) was decided?",
        "why": (
            "کیونکہ Storage Box میں صرف 1 TB جگہ ہے",
            "کیونکہ آڈٹ والوں نے یہی کہا ہے",
            "کیونکہ کامران بھائی کے دوسرے اسکول میں یہی چل رہا ہے",
        ),
    },
    {
        "values": ("nextcloud:27.1-apache", "nextcloud:28.0-apache"),
        "short": "Nextcloud کا ورژن",
        "needle": ("nextcloud", "ورژن", "version"),
        "q": "Which Nextcloud image will the stack run on for now?",
        "why": (
            "کیونکہ Collabora کی ایپ اسی پر ٹیسٹ ہو چکی ہے",
            "کیونکہ حاضری والی ایپ کا ڈویلپر یہی کہتا ہے",
            "تاکہ سمسٹر کے بیچ کوئی نیا مسئلہ نہ آئے",
        ),
    },
)


def _school(rng: random.Random, b: Builder, segments: int) -> Parts:
    img_old, img_new, img_db, img_redis, img_traefik = _distinct(rng, lambda r: hexits(r, 12), 5)
    snap, *snap_decoys = _distinct(rng, lambda r: hexits(r, 8), 9)
    box, old_box = _distinct(rng, lambda r: f"u{r.randint(100000, 499999)}.your-storagebox.de", 2)
    old_ver = f"27.1.{rng.randint(6, 11)}"
    new_ver = f"28.0.{rng.randint(2, 5)}"

    vol_state = rng.choice(("removed", "created"))
    if vol_state == "removed":
        vol = f"{rng.choice(('nc-staging', 'nc-test', 'moodle-old'))}_{rng.choice(('db', 'nc-data', 'mariadb'))}"
    else:
        vol = f"nextcloud_{rng.choice(('clamav-db', 'imaginary-cache', 'restic-cache'))}"
    vol_tell = rng.randrange(3)
    cfile, f_state = rng.choice(
        (
            ("docker-compose.override.yml", "renamed"),
            ("docker-compose.override.yml", "deleted"),
            (".env.backup", "deleted"),
            ("traefik/dynamic/middlewares.yml", "modified"),
            ("traefik/dynamic/tls.yml", "modified"),
        )
    )
    f_tell = rng.randrange(3)

    topic = rng.choice(_UR_TOPICS)
    chosen, other = rng.sample(topic["values"], 2)
    why = rng.choice(topic["why"])
    d_mode = rng.randrange(5)
    colleague = rng.choice(("کامران بھائی", "سعدیہ باجی (آفس)", "پرنسپل صاحبہ"))
    n_mode = rng.randrange(3)

    probes: list[Probe] = [
        Probe(
            "identifier",
            f"What is the image ID of the old nextcloud:{old_ver}-apache image kept for a rollback?",
            img_old,
            ((img_old,),),
        ),
        Probe(
            "identifier",
            "What is the ID of the restic snapshot tagged pre-upgrade?",
            snap,
            ((snap,),),
        ),
        Probe(
            "identifier",
            "What is the host name of the new Hetzner Storage Box used as the restic target?",
            box,
            ((box,),),
        ),
    ]

    def intro() -> None:
        lines = [
            f"السلام علیکم۔ کل رات Nextcloud کو {new_ver} پر اپ گریڈ کیا تھا، آج صبح سے اساتذہ کہہ رہے ہیں کہ فائلیں "
            "سنک نہیں ہو رہیں اور ویب پر کبھی کبھی 502 آتا ہے۔ پہلے دیکھو کون سے کنٹینر چل رہے ہیں اور کون سی امیجز موجود ہیں۔",
            f"بیک اپ اب نئے Storage Box {box} پر جائے گا، پرانا {old_box} اس مہینے بند ہو جائے گا اس لیے اسے استعمال نہ کرنا۔",
        ]
        if d_mode == 1:
            lines.append(f"اور {topic['short']} فی الحال {other} رکھو۔")
        rng.shuffle(lines)
        b.user("\n\n".join(lines))
        b.tool(
            "پہلے کنٹینرز کی حالت دیکھتا ہوں۔",
            "bash",
            {"command": "cd /opt/nextcloud && docker compose ps"},
            "NAME                  IMAGE                         COMMAND                  SERVICE   CREATED        STATUS                          PORTS\n"
            f'nextcloud-app-1       {"nextcloud:" + new_ver + "-apache":<29} "/entrypoint.sh apac…"   app       10 hours ago   Restarting (255) 8 seconds ago\n'
            f'nextcloud-cron-1      {"nextcloud:" + new_ver + "-apache":<29} "/cron.sh"               cron      10 hours ago   Up 10 hours\n'
            'nextcloud-db-1        mariadb:10.11                 "docker-entrypoint.s…"   db        3 weeks ago    Up 3 weeks (healthy)            3306/tcp\n'
            'nextcloud-redis-1     redis:7-alpine                "docker-entrypoint.s…"   redis     3 weeks ago    Up 3 weeks                      6379/tcp\n'
            'nextcloud-traefik-1   traefik:v2.11                 "/entrypoint.sh --pr…"   traefik   3 weeks ago    Up 3 weeks                      0.0.0.0:80->80/tcp, 0.0.0.0:443->443/tcp',
        )
        rows = [
            ("nextcloud", f"{new_ver}-apache", img_new, "11 days ago", "1.27GB"),
            ("nextcloud", f"{old_ver}-apache", img_old, "7 weeks ago", "1.21GB"),
            ("mariadb", "10.11", img_db, "5 weeks ago", "404MB"),
            ("redis", "7-alpine", img_redis, "6 weeks ago", "41MB"),
            ("traefik", "v2.11", img_traefik, "4 weeks ago", "162MB"),
        ]
        b.tool(
            "اور امیجز:",
            "bash",
            {"command": "docker image ls"},
            "REPOSITORY   TAG             IMAGE ID       CREATED        SIZE\n"
            + "\n".join(f"{r[0]:<12} {r[1]:<15} {r[2]}   {r[3]:<14} {r[4]}" for r in rows),
        )
        b.tool(
            "ایپ کنٹینر کیوں ری اسٹارٹ ہو رہا ہے، لاگ دیکھتا ہوں۔",
            "bash",
            {"command": "docker compose logs --tail 30 app"},
            noise_lines(rng, rng.randint(22, 30), _ur_log_line)
            + f"\nnextcloud-app-1  | Initializing nextcloud {new_ver}.1 ...\n"
            f"nextcloud-app-1  | Upgrading nextcloud from {old_ver}.1 ...\n"
            "nextcloud-app-1  | Nextcloud or one of the apps require upgrade - only a limited number of commands are available\n"
            "nextcloud-app-1  | An unhandled exception has been thrown:\n"
            'nextcloud-app-1  | Exception: App "attendance_pk" cannot be installed because it is not compatible with this version of the server.\n'
            "nextcloud-app-1  | Retrying install...",
        )
        if rng.randrange(2):
            b.assistant(
                f"مسئلہ حاضری والی ایپ attendance_pk کا ہے جو {new_ver} کے ساتھ چلتی نہیں، اس لیے اپ گریڈ بیچ میں رکا ہوا ہے۔ "
                f"پرانی امیج nextcloud:{old_ver}-apache ابھی موجود ہے (IMAGE ID {img_old})، رول بیک ممکن ہے۔"
            )
        else:
            b.assistant(
                f"اپ گریڈ attendance_pk ایپ پر اٹک گیا ہے۔ اچھی بات یہ ہے کہ {old_ver} والی امیج ابھی ڈیلیٹ نہیں ہوئی (اوپر ٹیبل میں)، "
                "تو ہم واپس جا سکتے ہیں۔"
            )

    def backups() -> None:
        b.user(
            rng.choice(
                (
                    "رول بیک سے پہلے دیکھو کہ اپ گریڈ سے پہلے والا بیک اپ موجود ہے یا نہیں۔",
                    "restic میں اپ گریڈ سے پہلے کا اسنیپ شاٹ ہے؟ اسی سے واپس جائیں گے۔",
                    "بیک اپ چیک کرو، مجھے pre-upgrade والا اسنیپ شاٹ چاہیے۔",
                )
            )
        )
        rows = []
        for i, sid in enumerate(snap_decoys[:7]):
            rows.append((sid, f"2024-03-{7 + i:02d} 02:30:0{rng.randint(1, 9)}", "daily"))
        rows.append(
            (snap, f"2024-03-13 22:{rng.randint(10, 58)}:{rng.randint(10, 59)}", "pre-upgrade")
        )
        rows.append((snap_decoys[7], f"2024-03-14 02:30:0{rng.randint(1, 9)}", "daily"))
        b.tool(
            "Storage Box والی ریپوزٹری کے اسنیپ شاٹس:",
            "bash",
            {"command": f"restic -r sftp:{box.split('.')[0]}@{box}:/restic/nextcloud snapshots"},
            f"repository {hexits(rng, 8)} opened (version 2, compression level auto)\n"
            "ID        Time                 Host        Tags         Paths\n"
            "--------------------------------------------------------------------------------------\n"
            + "\n".join(
                f"{r[0]}  {r[1]}  nc-vps-01   {r[2]:<12} /srv/nextcloud/data\n                                              /srv/nextcloud/db-dump"
                for r in rows
            )
            + "\n--------------------------------------------------------------------------------------\n"
            f"{len(rows)} snapshots",
        )
        if rng.randrange(2):
            b.assistant(
                f"ہاں، pre-upgrade ٹیگ والا اسنیپ شاٹ {snap} ہے، کل رات اپ گریڈ سے ٹھیک پہلے کا۔ اس میں ڈیٹا اور ڈیٹا بیس ڈمپ دونوں ہیں۔"
            )
        else:
            b.assistant(
                "موجود ہے — ٹیبل میں pre-upgrade ٹیگ والی لائن کل رات کی ہے، اس میں ڈیٹا اور db-dump دونوں ہیں۔"
            )

    def volume() -> None:
        if vol_state == "removed":
            b.user(
                rng.choice(
                    (
                        f"سرور پر جگہ کم ہے۔ پرانا {vol} والیوم ابھی بھی پڑا ہے، اس کا کچھ کرو۔",
                        f"df دیکھو، ڈسک 91% ہے۔ {vol} کی اب ضرورت نہیں۔",
                        f"{vol} پرانے ٹیسٹ سیٹ اپ کا ہے، اسے صاف کر دو۔",
                    )
                )
            )
            proj = vol.split("_")[0]
            b.tool(
                "والیومز کی لسٹ:",
                "bash",
                {"command": "docker volume ls && df -h /var/lib/docker"},
                "DRIVER    VOLUME NAME\n"
                + "\n".join(
                    f"local     {v}"
                    for v in sorted(
                        {
                            vol,
                            "nextcloud_db",
                            "nextcloud_nc-data",
                            "nextcloud_redis",
                            "traefik_letsencrypt",
                        }
                    )
                )
                + "\nFilesystem      Size  Used Avail Use% Mounted on\n/dev/sda1       240G  218G   22G  91% /",
            )
            if vol_tell != 1:
                out = (
                    f" ✔ Container {proj}-app-1  Removed\n ✔ Container {proj}-db-1   Removed\n"
                    f" ✔ Volume {vol}  Removed\n ✔ Network {proj}_default  Removed"
                )
                cmd = f"docker compose -p {proj} down -v"
            else:
                out = f"Filesystem      Size  Used Avail Use% Mounted on\n/dev/sda1       240G  {rng.randint(150, 190)}G   {rng.randint(50, 90)}G  {rng.randint(62, 79)}% /"
                cmd = f"docker compose --progress quiet -p {proj} down -v && df -h /"
            said = rng.choice(
                (
                    f"{vol} والیوم ڈیلیٹ کر دیا ہے (removed)، ساتھ اس کے پرانے کنٹینر بھی۔",
                    f"پرانا والیوم {vol} ہٹا دیا گیا ہے، اب ڈسک میں جگہ ہے۔",
                )
            )
            words: tuple[str, ...] = ("removed", "deleted", "ڈیلیٹ", "ہٹا", "حذف")
            answer = "It was removed (docker compose down -v), with its old containers."
        else:
            b.user(
                rng.choice(
                    (
                        "اینٹی وائرس (ClamAV) والی سروس کے لیے الگ والیوم چاہیے تاکہ ہر بار ڈیٹابیس دوبارہ ڈاؤن لوڈ نہ ہو۔",
                        "نئی سروس کا ڈیٹا کنٹینر کے اندر نہ رہے، اس کے لیے والیوم بنا دو۔",
                        "compose میں نئی سروس کے لیے persistent والیوم شامل کر دو۔",
                    )
                )
            )
            b.tool(
                "compose فائل میں والیوم شامل کر کے اوپر لاتا ہوں۔",
                "bash",
                {"command": "docker compose up -d"},
                (f' ✔ Volume "{vol}"  Created\n' if vol_tell != 1 else "")
                + " ✔ Container nextcloud-redis-1    Running\n ✔ Container nextcloud-db-1       Running\n"
                " ✔ Container nextcloud-clamav-1   Started\n ✔ Container nextcloud-app-1      Running",
            )
            said = rng.choice(
                (
                    f"نیا والیوم {vol} بنا دیا ہے (created) اور سروس اس سے جڑ گئی ہے۔",
                    f"{vol} والیوم تیار ہے، کنٹینر اسی پر لکھ رہا ہے۔",
                )
            )
            words = ("created", "بنا دیا", "بنایا", "تیار")
            answer = "It was created (new persistent volume for the service)."
            cmd = ""
        if vol_state == "removed":
            b.tool("صاف کرتا ہوں۔", "bash", {"command": cmd}, out)
        if vol_tell == 0:
            b.assistant("ہو گیا، آؤٹ پٹ اوپر ہے۔ nextcloud کے اپنے والیومز کو ہاتھ نہیں لگایا۔")
        else:
            b.assistant(said + " nextcloud کے باقی والیومز ویسے ہی ہیں۔")
        probes.append(
            Probe("artifact", f"What happened to the Docker volume {vol}?", answer, ((vol,), words))
        )

    def config() -> None:
        reason = {
            "renamed": "اس میں پرانے پورٹس ہیں جو traefik سے ٹکراتے ہیں",
            "deleted": "اس میں پرانا ڈیٹابیس پاس ورڈ ہے",
            "modified": "اس میں IP whitelist پرانی ہے، آفس کا نیا IP شامل نہیں",
        }[f_state]
        b.user(
            rng.choice(
                (
                    f"{cfile} کا بھی کچھ کرنا ہے، {reason}۔",
                    f"ایک بات اور: {cfile} دیکھو، {reason}۔ جیسا کہا تھا ویسے کر دو۔",
                    f"{cfile}؟ {reason}۔",
                )
            )
        )
        if f_state == "renamed":
            cmd, line = (
                f"git mv {cfile} {cfile}.disabled",
                f"renamed:    {cfile} -> {cfile}.disabled",
            )
            said = f"{cfile} کا نام بدل کر {cfile}.disabled کر دیا ہے (renamed)، تاکہ compose اسے نہ پڑھے۔"
            words: tuple[str, ...] = ("renamed", "نام بدل")
            answer = f"It was renamed to {cfile}.disabled so compose no longer reads it."
        elif f_state == "deleted":
            cmd, line = f"git rm -q {cfile}", f"deleted:    {cfile}"
            said = f"{cfile} ڈیلیٹ کر دی ہے (deleted)، پاس ورڈ اب صرف .env میں ہے۔"
            words = ("deleted", "ڈیلیٹ", "حذف", "مٹا")
            answer = "It was deleted (git rm)."
        else:
            cmd, line = (
                f"sed -i 's#203.0.113.0/24#203.0.113.0/24, 39.57.{rng.randint(10, 250)}.0/24#' {cfile}",
                f"modified:   {cfile}",
            )
            said = (
                f"{cfile} میں تبدیلی کر دی ہے (modified): آفس کا نیا IP رینج whitelist میں شامل ہے۔"
            )
            words = ("modified", "تبدیلی", "تبدیل", "ترمیم")
            answer = "It was modified: the office's new IP range was added to the whitelist."
        status = (
            'On branch main\nChanges to be committed:\n  (use "git restore --staged <file>..." to unstage)\n'
            f"        {line}\n\nChanges not staged for commit:\n        modified:   docker-compose.yml"
        )
        if f_tell == 1:
            status = (
                "On branch main\nYour branch is up to date with 'origin/main'.\n\n1 file changed"
            )
        b.tool(
            "کر دیتا ہوں اور git میں حالت دیکھتا ہوں۔",
            "bash",
            {
                "command": f"cd /opt/nextcloud && {cmd} && git add -A && git status"
                + (" --short | wc -l" if f_tell == 1 else "")
            },
            status,
        )
        if f_tell == 0:
            b.assistant("ہو گیا، git status اوپر ہے۔ کمٹ بعد میں ایک ساتھ کروں گا۔")
        else:
            b.assistant(said + " کمٹ بعد میں ایک ساتھ کروں گا۔")
        probes.append(Probe("artifact", f"What was done to {cfile}?", answer, ((cfile,), words)))

    def decision() -> None:
        short = topic["short"]
        if d_mode == 0:
            b.user(
                rng.choice(
                    (
                        f"{short} {chosen} ہو گا، {other} نہیں، {why}۔",
                        f"فیصلہ یہ ہے کہ {short} {chosen} رکھو — {why}۔",
                        f"سنو، {short}: {chosen}۔ {why}۔",
                    )
                )
            )
            b.assistant(f"ٹھیک ہے، {short} {chosen}۔ README میں بھی لکھ دوں گا۔")
        elif d_mode == 1:
            b.user(
                rng.choice(
                    (
                        f"صبح والی بات میں تصحیح: {short} {other} نہیں بلکہ {chosen} ہو گا، {why}۔",
                        f"پلان بدل گیا ہے — {short} اب {chosen}، {other} بھول جاؤ۔",
                        f"آخری فیصلہ: {short} {chosen}۔ {other} والی بات ختم۔",
                    )
                )
            )
            b.assistant(f"نوٹ کر لیا، {short} {chosen}، {other} ہٹا رہا ہوں۔")
        elif d_mode == 2:
            first = rng.choice((chosen, other))
            b.user(rng.choice(("اب آگے کیا کریں؟", "تمہاری کیا رائے ہے؟", "مستقل حل کیا ہو؟")))
            b.assistant(f"میری تجویز ہے کہ {short} {first} رکھیں، {why}۔ منظور ہے؟")
            if first == chosen:
                b.user(
                    rng.choice(
                        (
                            f"ہاں، {short} {chosen} ٹھیک ہے۔",
                            f"منظور، {chosen} ہی رکھو {short} کے لیے۔",
                        )
                    )
                )
            else:
                b.user(
                    rng.choice(
                        (
                            f"نہیں، {short} {chosen} ہو گا، {other} نہیں۔",
                            f"{other} نہیں — {short} کے لیے {chosen} بہتر ہے۔",
                        )
                    )
                )
            b.assistant(f"ٹھیک، {short} {chosen}۔")
        elif d_mode == 3:
            b.user(
                rng.choice(
                    (
                        f"{colleague} کا پیغام آیا ہے کہ {short} {chosen} ہو، {why}۔",
                        f"{colleague} نے کہا ہے {short} {chosen} رکھیں، {other} نہیں۔ ویسا ہی کرو۔",
                        f"{colleague} سے بات ہوئی، {short}: {chosen}۔",
                    )
                )
            )
            b.assistant(f"ٹھیک ہے، ان کے کہنے کے مطابق {short} {chosen}۔")
        else:
            a, c = rng.sample((chosen, other), 2)
            b.user(rng.choice(("باقی سیٹ اپ بھی کر دو۔", "اب باقی ترتیب دے دو۔", "آگے بڑھو۔")))
            b.assistant(f"ایک سوال: {short} {a} رکھوں یا {c}؟")
            b.user(
                rng.choice(
                    (
                        f"{chosen}، {short} کے لیے وہی ٹھیک ہے، {why}۔",
                        f"{short} {chosen} رکھو، {other} نہیں۔",
                        f"{chosen}۔ {short} میں یہی چاہیے۔",
                    )
                )
            )
            b.assistant(f"سمجھ گیا، {short} {chosen}۔")
        probes.append(
            Probe(
                "decision",
                topic["q"],
                f"{chosen} ({why}); not {other}.",
                ((chosen,), topic["needle"]),
            )
        )

    def next_step() -> None:
        if n_mode == 0:
            day, day_en, needles = rng.choice(
                (
                    ("ہفتے کے دن تک", "by Saturday", ("ہفتے", "saturday")),
                    ("جمعرات تک", "by Thursday", ("جمعرات", "thursday")),
                    ("20 تاریخ سے پہلے", "before the 20th", ("20 تاریخ", "20th")),
                )
            )
            b.user(
                "ٹھیک ہے، جاری رکھو۔ ویسے پرنٹر والے مسئلے کا اس سے کوئی تعلق نہیں، وہ بعد میں۔ "
                f"اور ہاں، پرنسپل صاحبہ کو ڈاؤن ٹائم کے بارے میں ای میل {day} بھیجنی ہے، یاد رکھنا۔ "
                "باقی WiFi کا مسئلہ آئی ٹی والے خود دیکھیں گے۔"
            )
            b.assistant("ٹھیک ہے، پرنٹر اور WiFi فی الحال نہیں۔")
            probes.append(
                Probe(
                    "next_step",
                    "What email must be sent to the principal, and by when?",
                    f"An email about the downtime to the principal, {day_en}.",
                    (("پرنسپل", "principal"), needles),
                )
            )
        elif n_mode == 1:
            b.user(
                "رول بیک کے بعد ایک مکمل ریسٹور ٹیسٹ بھی کرنا ہے کسی الگ مشین پر، لیکن امتحانات ختم ہونے کے بعد، ابھی نہیں۔"
            )
            b.assistant("سمجھ گیا، ریسٹور ٹیسٹ امتحانات کے بعد ہو گا۔")
            probes.append(
                Probe(
                    "next_step",
                    "When should the full restore test be done?",
                    "After the exams end, on a separate machine.",
                    (("ریسٹور", "restore"), ("امتحان", "exam")),
                )
            )
        else:
            b.user("شکریہ۔ ڈسک کا کیا ہو گا؟ پچھلی بار دو دن میں بھر گئی تھی۔")
            b.assistant(
                "کل صبح میں دوبارہ df اور docker system df سے ڈسک چیک کروں گا اور آپ کو بتاؤں گا کہ جگہ کتنی بچی ہے۔"
            )
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to check, and when?",
                    "Check the disk usage (df, docker system df) tomorrow morning.",
                    (("ڈسک", "disk", "df"), ("کل صبح", "tomorrow morning")),
                )
            )

    def outro() -> None:
        b.user("مختصر خلاصہ بتا دو۔")
        b.assistant(
            f"اپ گریڈ attendance_pk ایپ کی وجہ سے رکا، {old_ver} پر واپسی کا راستہ موجود ہے اور بیک اپ نئے Storage Box پر ہیں۔ "
            "والیوم اور کنفگ فائل طے شدہ طریقے سے ٹھیک کر دیے ہیں۔"
        )

    _play(rng, intro, [backups, volume, config, decision, next_step], outro)
    return b.take(), segments_of(rng, b, segments, lambda r: _ur_filler(r, b)), probes


def _ur_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(3)
    if pick == 0:
        b.user("SSL سرٹیفکیٹ کب ایکسپائر ہو رہا ہے؟ پچھلے سال مسئلہ ہوا تھا۔")
        b.tool(
            "traefik کے لاگ میں ACME دیکھتا ہوں۔",
            "bash",
            {"command": "docker compose logs traefik --since 72h | grep -i acme | tail -5"},
            "\n".join(
                f'nextcloud-traefik-1  | time="2024-03-1{rng.randint(0, 9)}T0{rng.randint(0, 9)}:{rng.randint(10, 59)}:00Z" level=info msg="Renewing certificate from LE : {{Main:cloud.alnoor-school.edu.pk SANs:[]}}" providerName=letsencrypt.acme'
                for _ in range(rng.randint(2, 4))
            ),
        )
        b.assistant(
            f"سرٹیفکیٹ خودکار طریقے سے ری نیو ہو رہا ہے، اگلی میعاد تقریباً {rng.randint(50, 85)} دن بعد ہے۔"
        )
    elif pick == 1:
        n = rng.randint(1200, 9000)
        b.user("سر کامران کی فائلیں ویب پر نظر نہیں آ رہیں حالانکہ فولڈر میں موجود ہیں۔")
        b.tool(
            "occ سے اسکین چلاتا ہوں۔",
            "bash",
            {"command": "docker compose exec -u www-data app php occ files:scan sir.kamran"},
            "Starting scan for user 1 out of 1 (sir.kamran)\n"
            "+---------+-------+-----+---------+---------+--------+--------------+\n"
            "| Folders | Files | New | Updated | Removed | Errors | Elapsed time |\n"
            "+---------+-------+-----+---------+---------+--------+--------------+\n"
            f"| {rng.randint(40, 300):<7} | {n:<5} | {rng.randint(10, 90):<3} | 0       | 0       | 0      | 00:00:{rng.randint(10, 59)}     |\n"
            "+---------+-------+-----+---------+---------+--------+--------------+",
        )
        b.assistant(
            "اسکین کے بعد نئی فائلیں ویب پر نظر آ رہی ہیں، غالباً انہوں نے SMB سے براہ راست کاپی کی تھیں۔"
        )
    else:
        b.user("بیک گراؤنڈ جابز ٹھیک چل رہی ہیں؟ ایڈمن پیج پر پیلا وارننگ ہے۔")
        b.tool(
            "cron سروس کے لاگ دیکھتا ہوں۔",
            "bash",
            {
                "command": "docker compose exec -u www-data app php occ background-job:list --limit 5"
            },
            "+-----+--------------------------------------------+---------------------------+------------+\n"
            "| id  | class                                      | last_run                  | argument   |\n"
            "+-----+--------------------------------------------+---------------------------+------------+\n"
            + "\n".join(
                f"| {rng.randint(10, 999):<3} | {cls:<42} | 2024-03-14T0{rng.randint(0, 9)}:{rng.randint(10, 59)}:00+05:00 | null       |"
                for cls in (
                    "OCA\\Files\\BackgroundJob\\ScanFiles",
                    "OCA\\Activity\\BackgroundJob\\EmailNotification",
                    "OC\\Log\\Rotate",
                )
            )
            + "\n+-----+--------------------------------------------+---------------------------+------------+",
        )
        b.assistant("جابز چل رہی ہیں، وارننگ پرانی ہے اور اگلے cron رن کے بعد ختم ہو جائے گی۔")


# ---------------------------------------------------------------------------------------
# Kazakh: a courier company's MongoDB replica set, mongosh
# ---------------------------------------------------------------------------------------


def _oid(rng: random.Random) -> str:
    return f"65f{hexits(rng, 21)}"


def _kk_slow_line(rng: random.Random) -> str:
    coll = rng.choice(("deliveries", "couriers", "zones", "payouts", "tracking_events"))
    return json.dumps(
        {
            "t": {"$date": f"2024-03-12T{_hms(rng)}.{rng.randint(100, 999)}+05:00"},
            "s": "I",
            "c": "COMMAND",
            "id": 51803,
            "ctx": f"conn{rng.randint(1000, 9999)}",
            "msg": "Slow query",
            "attr": {
                "type": "command",
                "ns": f"jetkiz.{coll}",
                "command": {
                    "find": coll,
                    "filter": {"zone": rng.choice(("ALA-03", "AST-01", "SHY-02"))},
                },
                "planSummary": rng.choice(
                    ("IXSCAN { zone: 1 }", "COLLSCAN", "IXSCAN { courierId: 1 }")
                ),
                "docsExamined": rng.randint(100, 90000),
                "nreturned": rng.randint(0, 200),
                "durationMillis": rng.randint(100, 2400),
            },
        }
    )


_KK_TOPICS: tuple[_Topic, ...] = (
    {
        "values": ("majority", "w: 1"),
        "short": "writeConcern",
        "needle": ("writeconcern", "write concern", "жазу"),
        "q": "Which write concern was chosen for order writes?",
        "why": (
            "себебі Ержан ағай солай ұсынды",
            "себебі басқа сервистерде де солай",
            "себебі бухгалтерия есептері соған сүйенеді",
        ),
    },
    {
        "values": ("30 күн", "90 күн", "180 күн"),
        "short": "tracking_events үшін TTL",
        "needle": ("ttl", "expireafter", "сақта"),
        "q": "How long will tracking_events be kept (the TTL)?",
        "why": (
            "себебі даулы жеткізулер осы мерзімде қаралады",
            "себебі диск 80%-ға жетті",
            "себебі заң бойынша осыншалық жеткілікті",
        ),
    },
    {
        "values": ("secondaryPreferred", "primary", "nearest"),
        "short": "аналитикаға readPreference",
        "needle": ("readpreference", "аналитика", "metabase"),
        "q": "Which readPreference will the analytics (Metabase) connection use?",
        "why": (
            "себебі Айгерім солай сұрады",
            "себебі есептер тек түнде жүреді",
            "себебі Данияр тексеріп көрді",
        ),
    },
)


def _courier(rng: random.Random, b: Builder, segments: int) -> Parts:
    stuck, *oid_decoys = _distinct(rng, _oid, 6)
    zone = rng.choice(("ala", "ast", "shy"))
    lag_host, ok_host, primary_host = _distinct(
        rng,
        lambda r: f"mongo-{token(r, 2, 'abcdefghkmnpqrstuvwxyz23456789')}.{zone}.jetkiz.internal",
        3,
    )
    ticket, old_ticket = _distinct(rng, lambda r: f"JTK-{r.randint(200, 2999)}", 2)
    order_no = f"JT-2403{rng.randint(10, 12)}-{rng.randint(1000, 9999)}"
    lag_secs = rng.randint(900, 5400)

    c_state = rng.choice(("dropped", "renamed"))
    if c_state == "dropped":
        coll = rng.choice(("orders_backup_0308", "tracking_events_tmp", "couriers_old_import"))
        new_coll = ""
    else:
        coll, new_coll = rng.choice(
            (
                ("tracking_tmp", "tracking_events_2023"),
                ("deliveries_2023_raw", "archive_deliveries_2023"),
            )
        )
    c_tell = rng.randrange(3)
    i_state = rng.choice(("created", "dropped"))
    index = rng.choice(
        (
            "courierId_1_createdAt_-1",
            "status_1_zone_1_promisedAt_1",
            "recipient.phone_1_createdAt_-1",
        )
    )
    i_tell = rng.randrange(3)

    topic = rng.choice(_KK_TOPICS)
    chosen, other = rng.sample(topic["values"], 2)
    why = rng.choice(topic["why"])
    chosen_needles: tuple[str, ...] = (chosen,)
    if chosen.endswith(" күн"):
        chosen_needles = (chosen, chosen.replace("күн", "days"), chosen.replace("күн", "day"))
    d_mode = rng.randrange(5)
    colleague = rng.choice(("Айгерім (аналитик)", "Ержан ағай", "Данияр DevOps-тан"))
    n_mode = rng.randrange(3)
    shell = f"mongosh 'mongodb://{primary_host}:27017/jetkiz?replicaSet=rs0' --quiet"

    probes: list[Probe] = [
        Probe(
            "identifier",
            f"What is the ObjectId of order {order_no}, the one stuck without a courier?",
            stuck,
            ((stuck,),),
        ),
        Probe(
            "identifier",
            "Which replica set member (host) was lagging behind the primary?",
            lag_host,
            ((lag_host,),),
        ),
        Probe("identifier", "Which YouTrack ticket tracks the stuck orders?", ticket, ((ticket,),)),
    ]

    def intro() -> None:
        lines = [
            f"Сәлем! YouTrack-та {ticket} ашылды: бүгін таңнан бері кейбір тапсырыстар 'assigned' күйінде "
            "қалып қойды, курьерге тағайындалмаған. Мысалы, "
            f"{order_no}. Ескі {old_ticket}-ке қарама, ол қосымшаның push-хабарламалары туралы, жабылған.",
            "Алдымен репликаны тексер, кеше кешке бір түйін баяу жұмыс істеді деп Данияр айтты.",
        ]
        if d_mode == 1:
            lines.append(f"Айтпақшы, {topic['short']} — әзірге {other} деп есепте.")
        b.user("\n\n".join(lines))
        b.tool(
            "Репликация кешігуін қараймын.",
            "bash",
            {"command": f"{shell} --eval 'rs.printSecondaryReplicationInfo()'"},
            f"source: {ok_host}:27017\n{{\n  syncedTo: 'Tue Mar 12 2024 {_hms(rng)} GMT+0500 (Qazaqstan Time)',\n  replLag: '0 secs (0 hrs) behind the primary '\n}}\n---\n"
            f"source: {lag_host}:27017\n{{\n  syncedTo: 'Tue Mar 12 2024 {_hms(rng)} GMT+0500 (Qazaqstan Time)',\n  replLag: '-{lag_secs} secs ({-lag_secs / 3600:.2f} hrs) behind the primary '\n}}",
        )
        b.tool(
            "Және баяу сұраулар журналы:",
            "bash",
            {
                "command": f"ssh {primary_host} \"grep 'Slow query' /var/log/mongodb/mongod.log | tail -n 20\""
            },
            noise_lines(rng, rng.randint(12, 18), _kk_slow_line),
        )
        if rng.randrange(2):
            b.assistant(
                f"{lag_host} primary-ден {lag_secs} секундқа артта қалған, қалған secondary қалыпты. "
                "Баяу сұраулардың көбі deliveries-те COLLSCAN — индекс жетіспейді."
            )
        else:
            b.assistant(
                f"Бір secondary шамамен {lag_secs // 60} минутқа артта (жоғарыдағы replLag). Егер қосымша "
                "secondaryPreferred оқыса, курьерлер ескі деректі көреді — тапсырыстардың тұрып қалуы осыдан болуы мүмкін."
            )

    def find_order() -> None:
        b.user(
            rng.choice(
                (
                    f"{order_no} тапсырысын тауып, құжатты көрсетші.",
                    f"Енді {order_no}-ке қарайық, базада қандай күйде тұр?",
                    f"Тұрып қалған тапсырыстарды тап, {order_no} солардың бірі болуы керек.",
                )
            )
        )
        docs = []
        rows = [(stuck, order_no, None)] + [
            (oid, f"JT-2403{rng.randint(10, 12)}-{rng.randint(1000, 9999)}", _oid(rng))
            for oid in oid_decoys[:4]
        ]
        rng.shuffle(rows)
        for oid, no, courier in rows:
            docs.append(
                "  {\n"
                f"    _id: ObjectId('{oid}'),\n"
                f"    orderNo: '{no}',\n"
                "    status: 'assigned',\n"
                f"    courierId: {'null' if courier is None else f'ObjectId({chr(39)}{courier}{chr(39)})'},\n"
                f"    zone: '{zone.upper()}-0{rng.randint(1, 4)}',\n"
                f"    promisedAt: ISODate('2024-03-12T{_hms(rng)}.000Z'),\n"
                f"    updatedAt: ISODate('2024-03-12T{_hms(rng)}.{rng.randint(100, 999)}Z')\n"
                "  }"
            )
        b.tool(
            "'assigned' күйіндегі соңғы тапсырыстар:",
            "bash",
            {
                "command": f"{shell} --eval \"db.orders.find({{status: 'assigned', updatedAt: {{$lt: new Date(Date.now() - 30*60*1000)}}}}, {{orderNo: 1, status: 1, courierId: 1, zone: 1, promisedAt: 1, updatedAt: 1}}).limit(5)\""
            },
            "[\n" + ",\n".join(docs) + "\n]",
        )
        if rng.randrange(2):
            b.assistant(
                f"{order_no} — _id {stuck}, courierId null. Қалған төртеуінде курьер бар, олар жай ғана кешіккен."
            )
        else:
            b.assistant(
                "Жоғарыдағы бесеудің ішінде курьерсіз (courierId: null) біреуі ғана — дәл сол клиенттің тапсырысы. "
                "Тағайындау сервисі оны lagging secondary-ден оқып, өткізіп жіберген сияқты."
            )

    def collection() -> None:
        if c_state == "dropped":
            b.user(
                rng.choice(
                    (
                        f"Диск толып барады. {coll} коллекциясы әлі тұр ма? Оны шеш.",
                        f"{coll} енді керек емес, кеше Ержан растады.",
                        f"Тазалау керек: {coll} ескі импорттан қалған.",
                    )
                )
            )
            call = f"db.{coll}.drop()"
            out = "true"
            said = rng.choice(
                (
                    f"{coll} коллекциясын жойдым (drop), көлемі шамамен {rng.randint(3, 40)} ГБ еді.",
                    f"{coll} жойылды — dropped, индекстерімен бірге.",
                )
            )
            words: tuple[str, ...] = ("drop", "dropped", "жойдым", "жойылды")
            answer = "It was dropped."
        else:
            b.user(
                rng.choice(
                    (
                        f"{coll} деген атау түсініксіз, архив екенін бірден көру керек.",
                        f"{coll} коллекциясымен келісілген нәрсені жаса, архивке ұқсасын.",
                        f"{coll}-ты ретке келтір, кейін Metabase одан оқиды.",
                    )
                )
            )
            call = f"db.{coll}.renameCollection('{new_coll}')"
            out = "{ ok: 1 }"
            said = rng.choice(
                (
                    f"{coll} коллекциясының атын {new_coll} деп өзгерттім (renameCollection).",
                    f"{coll} енді {new_coll} деп аталады — renamed.",
                )
            )
            words = ("renamecollection", "renamed", "атын", "аталады")
            answer = f"It was renamed to {new_coll}."
        b.tool(
            "Коллекциялар тізімі:",
            "bash",
            {"command": f"{shell} --eval 'db.getCollectionNames().sort()'"},
            "[\n  "
            + ",\n  ".join(
                f"'{n}'"
                for n in sorted(
                    {
                        coll,
                        "orders",
                        "deliveries",
                        "couriers",
                        "zones",
                        "payouts",
                        "tracking_events",
                    }
                )
            )
            + "\n]",
        )
        if c_tell == 1:
            b.tool(
                "Скриптпен орындаймын.",
                "bash",
                {"command": f"{shell} --file scripts/cleanup_2024_03_12.js"},
                out,
            )
            b.assistant(said + " Басқа коллекцияларға тимедім.")
        else:
            b.tool("Орындаймын.", "bash", {"command": f'{shell} --eval "{call}"'}, out)
            b.assistant(
                said + " Басқа коллекцияларға тимедім."
                if c_tell == 2
                else "Дайын, нәтиже жоғарыда. Басқа коллекцияларға тимедім."
            )
        probes.append(
            Probe(
                "artifact",
                f"What happened to the MongoDB collection {coll}?",
                answer,
                ((coll,), words),
            )
        )

    def index_step() -> None:
        spec = {
            "courierId_1_createdAt_-1": "{courierId: 1, createdAt: -1}",
            "status_1_zone_1_promisedAt_1": "{status: 1, zone: 1, promisedAt: 1}",
            "recipient.phone_1_createdAt_-1": "{'recipient.phone': 1, createdAt: -1}",
        }[index]
        if i_state == "created":
            b.user(
                rng.choice(
                    (
                        f"deliveries бойынша COLLSCAN-дарды жөнде, {index} индексі туралы сөйлескенбіз.",
                        f"Баяу сұраулар үшін {index} керек деп ойлаймын. Жаса.",
                        f"{index} индексін қосатын уақыт келді.",
                    )
                )
            )
            call = f"db.deliveries.createIndex({spec}, {{name: '{index}'}})"
            out = f"{index}"
            said = f"{index} индексін жасадым (createIndex, created), rolling түрде емес, бірақ жүктеме аз кезде."
            words: tuple[str, ...] = ("createindex", "created", "жасадым", "құрдым")
            answer = "It was created on deliveries."
        else:
            b.user(
                rng.choice(
                    (
                        f"{index} индексі ешқашан қолданылмайды, $indexStats соны көрсетті. Не істейміз, білесің.",
                        f"Артық индекс: {index}. Жазуды баяулатады.",
                        f"deliveries-те {index} бар ма? Ол енді керек емес.",
                    )
                )
            )
            call = f"db.deliveries.dropIndex('{index}')"
            out = f"{{ nIndexesWas: {rng.randint(4, 9)}, ok: 1 }}"
            said = f"{index} индексін жойдым (dropIndex), $indexStats бойынша accesses.ops 0 еді."
            words = ("dropindex", "dropped", "жойдым", "жойылды")
            answer = "It was dropped from deliveries."
        b.tool(
            "Индекстердің қолданылуы:",
            "bash",
            {
                "command": f"{shell} --eval \"db.deliveries.aggregate([{{$indexStats: {{}}}}, {{$project: {{name: 1, 'accesses.ops': 1}}}}])\""
            },
            "[\n"
            + ",\n".join(
                f"  {{ name: '{n}', accesses: {{ ops: Long('{ops}') }} }}"
                for n, ops in [
                    ("_id_", rng.randint(10**5, 10**7)),
                    ("zone_1", rng.randint(10**4, 10**6)),
                    ("courierId_1", rng.randint(10**4, 10**6)),
                ]
                + ([(index, 0)] if i_state == "dropped" else [])
            )
            + "\n]",
        )
        if i_tell == 1:
            b.tool(
                "Скриптпен орындаймын.",
                "bash",
                {"command": f"{shell} --file scripts/indexes_deliveries.js"},
                "done",
            )
            b.assistant(said)
        else:
            b.tool("Орындаймын.", "bash", {"command": f'{shell} --eval "{call}"'}, out)
            b.assistant(said if i_tell == 2 else "Дайын, нәтиже жоғарыда.")
        probes.append(
            Probe(
                "artifact",
                f"What happened to the index {index} on deliveries?",
                answer,
                ((index,), words),
            )
        )

    def decision() -> None:
        short = topic["short"]
        if d_mode == 0:
            b.user(
                rng.choice(
                    (
                        f"{short}: {chosen} болады, {other} емес, {why}.",
                        f"Шештім — {short} {chosen}. {why.capitalize()}.",
                        f"{short} үшін {chosen} қой, {why}.",
                    )
                )
            )
            b.assistant(f"Түсіндім, {short}: {chosen}. README-ге де жазамын.")
        elif d_mode == 1:
            b.user(
                rng.choice(
                    (
                        f"Таңертеңгі айтқанымды түзетемін: {short} {other} емес, {chosen} болады, {why}.",
                        f"Жоспар өзгерді — {short} енді {chosen}, {other}-ды ұмыт.",
                        f"Соңғы шешім: {short} {chosen}. {other} жоқ.",
                    )
                )
            )
            b.assistant(f"Қабылдадым, {short}: {chosen}, {other}-ды алып тастаймын.")
        elif d_mode == 2:
            first = rng.choice((chosen, other))
            b.user(
                rng.choice(("Ары қарай не істейміз?", "Не ұсынасың?", "Түбегейлі қалай шешеміз?"))
            )
            b.assistant(f"Ұсынысым: {short} {first} болсын, {why}. Келісесің бе?")
            if first == chosen:
                b.user(
                    rng.choice((f"Иә, {short} {chosen}.", f"Келісемін, {chosen} қал {short} үшін."))
                )
            else:
                b.user(
                    rng.choice(
                        (
                            f"Жоқ, {short} {chosen} болсын, {other} емес.",
                            f"{other} емес — {short} үшін {chosen} жақсы.",
                        )
                    )
                )
            b.assistant(f"Жақсы, {short}: {chosen}.")
        elif d_mode == 3:
            b.user(
                rng.choice(
                    (
                        f"{colleague} жазды: {short} {chosen} болуы керек, {why}.",
                        f"{colleague} айтты, {short} {chosen}, {other} емес. Солай істе.",
                        f"{colleague}-мен сөйлестім — {short}: {chosen}.",
                    )
                )
            )
            b.assistant(f"Жарайды, соның айтуынша {short}: {chosen}.")
        else:
            a, c = rng.sample((chosen, other), 2)
            b.user(
                rng.choice(("Қалғанын да баптап жібер.", "Ары қарай жалғастыр.", "Жөндеп таста."))
            )
            b.assistant(f"Бір сұрақ: {short} {a} ма, әлде {c} ма?")
            b.user(
                rng.choice(
                    (
                        f"{chosen}, {short} үшін сол дұрыс, {why}.",
                        f"{short} {chosen} болсын.",
                        f"{chosen}. {short} осылай.",
                    )
                )
            )
            b.assistant(f"Түсінікті, {short}: {chosen}.")
        probes.append(
            Probe(
                "decision",
                topic["q"],
                f"{chosen} ({why}); not {other}.",
                (chosen_needles, topic["needle"]),
            )
        )

    def next_step() -> None:
        if n_mode == 0:
            day, day_en, needles = rng.choice(
                (
                    ("бейсенбіге дейін", "by Thursday", ("бейсенбі", "thursday")),
                    ("жұмаға дейін", "by Friday", ("жұма", "friday")),
                    ("айдың 20-сына дейін", "by the 20th", ("20-сына", "20th")),
                )
            )
            b.user(
                "Жақсы, жалғастыр. Айтпақшы, курьерлер қосымшасының картасы да баяу, бірақ ол бөлек мәселе. "
                f"Айгерімге баяу сұраулар бойынша есепті {day} жіберуді ұмытпа. Төлемдер модулін бүгін қозғамаймыз."
            )
            b.assistant("Жарайды, карта мен төлемдер кейін.")
            probes.append(
                Probe(
                    "next_step",
                    "What report is owed to Aigerim, and by when?",
                    f"The slow-query report to Aigerim, {day_en}.",
                    (("айгерім", "aigerim"), needles),
                )
            )
        elif n_mode == 1:
            b.user(
                "MongoDB 7.0-ге көшуді Наурыз мерекесінен кейін жасаймыз, оған дейін нұсқаны өзгертпе."
            )
            b.assistant("Түсіндім, 7.0-ге жаңарту Наурыздан кейін.")
            probes.append(
                Probe(
                    "next_step",
                    "When is the MongoDB 7.0 upgrade planned?",
                    "After the Nauryz holidays; no version change before that.",
                    (("7.0",), ("наурыз", "nauryz")),
                )
            )
        else:
            b.user("Рахмет. Репликация қайта артта қалмай ма?")
            b.assistant(
                "Ертең таңертең oplog терезесін (rs.printReplicationInfo) және кешігуді қайта тексеріп, саған жазамын."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to check, and when?",
                    "The oplog window and the replication lag, tomorrow morning.",
                    (("oplog", "репликация"), ("ертең", "tomorrow")),
                )
            )

    def outro() -> None:
        b.user("Қысқаша қорытынды жасашы.")
        b.assistant(
            "Тапсырыстар артта қалған secondary-ден оқылғандықтан тұрып қалды; тұрып қалған тапсырыс табылды, "
            "коллекция мен индекс келісім бойынша өңделді, басқа өзгеріс жоқ."
        )

    _play(rng, intro, [find_order, collection, index_step, decision, next_step], outro)
    return b.take(), segments_of(rng, b, segments, lambda r: _kk_filler(r, b)), probes


def _kk_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(3)
    shell = "mongosh 'mongodb://localhost:27017/jetkiz?replicaSet=rs0' --quiet"
    if pick == 0:
        b.user("Осы аптада қай қалада жеткізу көп болды?")
        b.tool(
            "Агрегация жасаймын.",
            "bash",
            {
                "command": f"{shell} --eval \"db.deliveries.aggregate([{{$match: {{createdAt: {{$gte: ISODate('2024-03-04')}}}}}}, {{$group: {{_id: '$city', n: {{$sum: 1}}}}}}, {{$sort: {{n: -1}}}}])\""
            },
            "[\n"
            + ",\n".join(
                f"  {{ _id: '{city}', n: {rng.randint(800, 20000)} }}"
                for city in ("Алматы", "Астана", "Шымкент", "Қарағанды")
            )
            + "\n]",
        )
        b.assistant("Алматы алда, одан кейін Астана. Қаласы жоқ құжаттар жоқ, бұл жақсы.")
    elif pick == 1:
        b.user("Metabase үшін тек оқуға арналған пайдаланушы жаса.")
        b.tool(
            "Пайдаланушыны жасаймын.",
            "bash",
            {
                "command": f"{shell} --eval \"db.getSiblingDB('admin').createUser({{user: 'metabase_ro', pwd: passwordPrompt(), roles: [{{role: 'read', db: 'jetkiz'}}]}})\""
            },
            "{ ok: 1, '$clusterTime': { clusterTime: Timestamp({ t: "
            + str(rng.randint(1710200000, 1710299999))
            + ", i: 1 }) } }",
        )
        b.assistant(
            "metabase_ro жасалды, тек jetkiz базасына read рөлі. Құпия сөзді Vaultwarden-ге салдым."
        )
    else:
        b.user("payouts коллекциясы қанша орын алады?")
        b.tool(
            "Статистиканы қараймын.",
            "bash",
            {
                "command": f"{shell} --eval 'const s = db.payouts.stats(); printjson({{count: s.count, size: s.size, storageSize: s.storageSize, nindexes: s.nindexes}})'"
            },
            f"{{\n  count: {rng.randint(100000, 900000)},\n  size: {rng.randint(10**8, 10**9)},\n  storageSize: {rng.randint(10**7, 10**8)},\n  nindexes: {rng.randint(2, 5)}\n}}",
        )
        b.assistant("payouts қысылған түрде шамамен 60-90 МБ алады, алаңдайтын ештеңе жоқ.")


# ---------------------------------------------------------------------------------------
# Welsh: a health board's dbt project on BigQuery
# ---------------------------------------------------------------------------------------

_CY_MODELS = (
    "stg_wpas__referrals",
    "stg_wpas__appointments",
    "stg_welsh_demographic__patients",
    "int_referrals_joined",
    "int_waits_by_specialty",
    "dim_specialty",
    "dim_site",
    "fct_waiting_list_weekly",
    "fct_outpatient_attendances",
)

_CY_TOPICS: tuple[_Topic, ...] = (
    {
        "values": ("updated_at", "referral_received_date"),
        "short": "y rheol dad-ddyblygu",
        "needle": ("dyblyg", "duplicate", "dedup", "qualify"),
        "q": "Which column decides which row is kept when de-duplicating the waiting-list rows?",
        "why": (
            "achos dyna sut mae'r adroddiad cenedlaethol yn ei wneud",
            "achos dyna mae'r tîm perfformiad yn ei ddisgwyl yn yr adroddiad RTT",
            "achos mae'r golofn arall yn wag i tua 3% o'r rhesi",
        ),
    },
    {
        "values": ("merge", "insert_overwrite"),
        "short": "y strategaeth incremental",
        "needle": ("incremental", "cynyddol", "strategaeth", "strategy"),
        "q": "Which incremental strategy will fct_waiting_list_weekly use?",
        "why": (
            "achos mae Gareth wedi'i brofi ar y data dev",
            "achos mae'n rhatach o ran bytes processed",
            "achos mae'r modelau incremental eraill yn gwneud yr un peth",
        ),
    },
    {
        "values": ("specialty_code", "site_code", "health_board_code"),
        "short": "cluster_by ar y tabl wythnosol",
        "needle": ("cluster", "clwstwr"),
        "q": "Which column will the weekly waiting-list table be clustered by?",
        "why": (
            "achos mae bron pob dashboard yn hidlo arno",
            "achos dyna sut mae Looker Studio yn ei ddefnyddio",
            "achos mae'n lleihau'r bytes processed fwyaf",
        ),
    },
)


def _cy_line(rng: random.Random, i: int, total: int) -> str:
    model = rng.choice(_CY_MODELS)
    rows = f"{rng.uniform(0.1, 9.9):.1f}m rows"
    mib = f"{rng.uniform(10, 900):.1f} MiB"
    return (
        f"06:{rng.randint(0, 20):02d}:{rng.randint(0, 59):02d}  {i} of {total} OK created sql table model dbt_prod.{model} "
        f"{'.' * rng.randint(4, 20)} [CREATE TABLE ({rows}, {mib} processed) in {rng.uniform(1, 40):.2f}s]"
    )


def _health(rng: random.Random, b: Builder, segments: int) -> Parts:
    job, *job_decoys = _distinct(rng, _uuid, 5)
    dup_key, *key_decoys = _distinct(rng, lambda r: hexits(r, 32), 5)
    ticket, old_ticket = _distinct(rng, lambda r: f"DATA-{r.randint(100, 1999)}", 2)
    referral = f"R{rng.randint(10**8, 10**9 - 1)}"
    dev = rng.choice(("dbt_gwen", "dbt_iwan", "dbt_sian"))

    t_state = rng.choice(("dropped", "restored"))
    table = (
        rng.choice(("int_referrals_deduped_v1", "fct_waiting_list_weekly_bak", "tmp_wpas_reload"))
        if t_state == "dropped"
        else rng.choice(("rpt_rtt_pathways_monthly", "rpt_cancer_waits_62d"))
    )
    dataset = dev if t_state == "dropped" else "dbt_prod"
    t_tell = rng.randrange(3)
    m_state = rng.choice(("renamed", "deleted", "disabled"))
    model = rng.choice(("int_waits_legacy", "stg_wpas__referral_v0", "int_pathway_clock_stops"))
    new_model = (
        model.replace("_legacy", "_archive")
        .replace("_v0", "_v1")
        .replace("clock_stops", "clock_stop_events")
    )
    m_tell = rng.randrange(3) if m_state != "disabled" else rng.choice((1, 2))

    topic = rng.choice(_CY_TOPICS)
    chosen, other = rng.sample(topic["values"], 2)
    why = rng.choice(topic["why"])
    d_mode = rng.randrange(5)
    colleague = rng.choice(("Dr. Rhys Morgan", "Elin o'r tîm perfformiad", "Gareth (pensaer data)"))
    n_mode = rng.randrange(3)

    probes: list[Probe] = [
        Probe(
            "identifier",
            "What is the BigQuery job ID of the failed int_waits_by_specialty query?",
            job,
            ((job,),),
        ),
        Probe(
            "identifier",
            "Which waiting_list_key is duplicated in fct_waiting_list_weekly?",
            dup_key,
            ((dup_key,),),
        ),
        Probe(
            "identifier",
            "Which Linear ticket tracks the failing unique test?",
            ticket,
            ((ticket,),),
        ),
    ]

    def intro() -> None:
        lines = [
            "Bore da. Mae'r job dbt nosweithiol wedi methu eto: mae'r prawf unique ar fct_waiting_list_weekly yn "
            f"methu ac mae int_waits_by_specialty yn rhoi Database Error. Dw i wedi agor {ticket} yn Linear. "
            f"Anwybydda {old_ticket}, hen fater am y seed safleoedd oedd hwnnw, mae wedi'i gau.",
            "Edrych ar log y rhediad neithiwr gynta, plis.",
        ]
        if d_mode == 1:
            lines.append(f"Gyda llaw, {topic['short']}: am y tro, defnyddia {other}.")
        b.user("\n\n".join(lines))
        total = rng.randint(40, 60)
        out = [
            "06:00:03  Running with dbt=1.7.11",
            "06:00:05  Registered adapter: bigquery=1.7.7",
            f"06:00:06  Found {rng.randint(80, 95)} models, {rng.randint(200, 260)} tests, 6 seeds, 19 sources, 0 exposures, 0 metrics, 514 macros, 0 groups, 0 semantic models",
            "06:00:06  ",
            "06:00:08  Concurrency: 4 threads (target='prod')",
            "06:00:08  ",
        ]
        out += [_cy_line(rng, i, total) for i in range(1, rng.randint(10, 15))]
        out += [
            f"06:21:{rng.randint(10, 59)}  {total - 9} of {total} ERROR creating sql table model dbt_prod.int_waits_by_specialty .... [ERROR in {rng.uniform(40, 300):.2f}s]",
            f"06:24:{rng.randint(10, 59)}  {total - 3} of {total} FAIL 1 unique_fct_waiting_list_weekly_waiting_list_key ........... [FAIL 1 in 2.{rng.randint(10, 99)}s]",
            f"06:25:{rng.randint(10, 59)}  Finished running {total - 20} table models, {rng.randint(200, 240)} data tests in 0 hours 25 minutes and {rng.randint(1, 59)} seconds ({rng.randint(1500, 1560)}.{rng.randint(10, 99)}s).",
            "06:25:40  ",
            "06:25:40  Completed with 2 errors and 0 warnings:",
            "06:25:40  ",
            "06:25:40    Database Error in model int_waits_by_specialty (models/intermediate/int_waits_by_specialty.sql)",
            "  Resources exceeded during query execution: The query could not be executed in the allotted memory. Peak usage: 132% of limit.",
            "  Top memory consumer(s):",
            "    ORDER BY operations: 98%",
            "    other/unattributed: 2%",
            "  Location: europe-west2",
            f"  Job ID: {job}",
            "  ",
            "06:25:40  ",
            "06:25:40  Failure in test unique_fct_waiting_list_weekly_waiting_list_key (models/marts/_marts__models.yml)",
            "06:25:40    Got 1 result, configured to fail if != 0",
            "06:25:40  ",
            "06:25:40    compiled Code at target/compiled/bihc_analytics/models/marts/_marts__models.yml/unique_fct_waiting_list_weekly_waiting_list_key.sql",
            "06:25:40  ",
            f"06:25:40  Done. PASS={total - 2} WARN=0 ERROR=2 SKIP={rng.randint(2, 6)} TOTAL={total + 4}",
        ]
        b.tool(
            "Dyma log y rhediad neithiwr o'r cyfeiriadur logs:",
            "bash",
            {"command": "tail -n 40 logs/prod_2024-03-14.log"},
            "\n".join(out),
        )
        rr = {
            "metadata": {"dbt_version": "1.7.11", "invocation_id": _uuid(rng)},
            "results": [
                {
                    "status": "success",
                    "unique_id": f"model.bihc_analytics.{m}",
                    "execution_time": round(rng.uniform(1, 40), 3),
                    "adapter_response": {
                        "_message": f"CREATE TABLE ({rng.uniform(0.1, 9):.1f}m rows, {rng.uniform(10, 900):.1f} MiB processed)",
                        "code": "CREATE TABLE",
                        "bytes_processed": rng.randint(10**7, 10**9),
                        "location": "europe-west2",
                        "project_id": "bihc-analytics",
                        "job_id": j,
                    },
                }
                for m, j in zip(
                    (
                        "int_referrals_joined",
                        "dim_specialty",
                        "fct_outpatient_attendances",
                        "stg_wpas__appointments",
                    ),
                    job_decoys,
                    strict=True,
                )
            ],
        }
        b.tool(
            "A'r job_id o run_results.json i gymharu:",
            "bash",
            {
                "command": "jq '{metadata: {dbt_version: .metadata.dbt_version, invocation_id: .metadata.invocation_id}, results: [.results[] | select(.status==\"success\") | {status, unique_id, execution_time, adapter_response}][:4]}' target/run_results.json"
            },
            json.dumps(rr, indent=2),
        )
        if rng.randrange(2):
            b.assistant(
                f"Dau fethiant: int_waits_by_specialty yn rhedeg allan o gof yn BigQuery (Job ID {job}, ORDER BY yn "
                "bwyta 98%), a'r prawf unique ar waiting_list_key gydag un rhes ddyblyg."
            )
        else:
            b.assistant(
                "Dau fethiant ar wahân: Resources exceeded yn int_waits_by_specialty (mae'r Job ID yn y log uchod) a "
                "phrawf unique gydag un canlyniad. Mae'r modelau eraill yn iawn."
            )

    def duplicate() -> None:
        b.user(
            rng.choice(
                (
                    "Dangos i mi'r rhes ddyblyg yn fct_waiting_list_weekly.",
                    "Pa allwedd sy'n ddyblyg? Dw i eisiau gweld y ddwy res.",
                    "Dechreua gyda'r prawf unique — beth yn union sy'n ddyblyg?",
                )
            )
        )
        b.tool(
            "Rhedeg y SQL sydd wedi'i gasglu i'r prawf:",
            "bash",
            {
                "command": "bq query --use_legacy_sql=false --format=pretty 'select waiting_list_key, count(*) as n from `bihc-analytics.dbt_prod.fct_waiting_list_weekly` group by 1 having count(*) > 1'"
            },
            "+----------------------------------+---+\n"
            "|         waiting_list_key         | n |\n"
            "+----------------------------------+---+\n"
            f"| {dup_key} | 2 |\n"
            "+----------------------------------+---+",
        )
        specs = rng.sample(("100", "101", "110", "120", "130", "301", "330", "502"), 2)
        rows = [
            (dup_key, referral, specs[0], "2024-01-08"),
            (dup_key, referral, specs[1], "2024-02-19"),
        ]
        rows += [
            (
                k,
                f"R{rng.randint(10**8, 10**9 - 1)}",
                rng.choice(specs),
                f"2024-0{rng.randint(1, 3)}-{rng.randint(10, 28)}",
            )
            for k in key_decoys[:3]
        ]
        b.tool(
            "A'r rhesi o gwmpas yr atgyfeiriad:",
            "bash",
            {
                "command": f'bq query --use_legacy_sql=false --format=pretty \'select waiting_list_key, referral_id, specialty_code, updated_at from `bihc-analytics.dbt_prod.fct_waiting_list_weekly` where referral_id = "{referral}" or week_start = "2024-03-11" limit 5\''
            },
            "+----------------------------------+-------------+----------------+------------+\n"
            "|         waiting_list_key         | referral_id | specialty_code | updated_at |\n"
            "+----------------------------------+-------------+----------------+------------+\n"
            + "\n".join(f"| {r[0]} | {r[1]:<11} | {r[2]:<14} | {r[3]} |" for r in rows)
            + "\n+----------------------------------+-------------+----------------+------------+",
        )
        if rng.randrange(2):
            b.assistant(
                f"Yr allwedd ddyblyg yw {dup_key}: yr un atgyfeiriad {referral} gyda dau specialty_code gwahanol. "
                "Dyw specialty_code ddim yn rhan o'r generate_surrogate_key, felly mae'r ddwy res yn cael yr un allwedd."
            )
        else:
            b.assistant(
                f"Un atgyfeiriad ({referral}) sydd wedi'i drosglwyddo rhwng arbenigeddau, felly mae dwy res gyda'r un "
                "waiting_list_key (y rhes gyntaf yn y tabl uchod). Mae'r tair arall yn unigryw."
            )

    def table_step() -> None:
        if t_state == "dropped":
            b.user(
                rng.choice(
                    (
                        f"Mae {dataset}.{table} yn dal yno o'r arbrawf y mis diwetha. Gwna beth sydd angen.",
                        f"Glanhau: {dataset}.{table} — does neb ei angen bellach.",
                        f"Beth am {table} yn {dataset}? Mae'n costio storio.",
                    )
                )
            )
            cmd = f"bq rm -t bihc-analytics:{dataset}.{table}"
            out = f"rm: remove table 'bihc-analytics:{dataset}.{table}'? (y/N) y"
            quiet_cmd = f"bq rm -f -t bihc-analytics:{dataset}.{table} && bq ls -n 1000 bihc-analytics:{dataset} | tail -n +3 | wc -l"
            said = rng.choice(
                (
                    f"Dw i wedi dileu {dataset}.{table} (bq rm), roedd yn {rng.randint(2, 40)} GB.",
                    f"Mae'r tabl {table} wedi'i ddileu o {dataset} — dropped.",
                )
            )
            words: tuple[str, ...] = ("remove table", "dropped", "deleted", "dileu")
            answer = f"It was dropped (bq rm) from the dev dataset {dataset}."
        else:
            b.user(
                rng.choice(
                    (
                        f"Ddoe rhedodd rhywun --full-refresh yn erbyn prod ac mae {table} yn wag. Trwsia fe fel y trafodon ni.",
                        f"Mae {table} yn dangos sero rhes ers ddoe. Oes modd ei gael yn ôl?",
                        f"Help — mae dashboard y bwrdd yn wag achos {table}.",
                    )
                )
            )
            cmd = f"bq cp -f 'bihc-analytics:dbt_prod.{table}@-86400000' bihc-analytics:dbt_prod.{table}"
            out = (
                f"Waiting on bqjob_r{hexits(rng, 16)}_{hexits(rng, 16)}_1 ... (1s) Current status: DONE\n"
                f"Table 'bihc-analytics:dbt_prod.{table}@-86400000' successfully copied to 'bihc-analytics:dbt_prod.{table}'"
            )
            quiet_cmd = cmd + " >/dev/null && echo ok"
            said = rng.choice(
                (
                    f"Dw i wedi adfer {table} (restored) o'r time travel — cyflwr 24 awr yn ôl.",
                    f"Mae {table} wedi'i adfer gyda bq cp o snapshot ddoe, mae'r rhesi yn ôl.",
                )
            )
            words = ("copied", "restored", "adfer")
            answer = "It was restored with BigQuery time travel (bq cp of the table as of 24 hours earlier)."
        b.tool(
            "Gwirio'r tabl gynta:",
            "bash",
            {
                "command": f"bq show --format=prettyjson bihc-analytics:{dataset}.{table} | jq '{{numRows, numBytes, lastModifiedTime, type}}'"
            },
            json.dumps(
                {
                    "numRows": "0" if t_state == "restored" else str(rng.randint(10**5, 10**7)),
                    "numBytes": "0" if t_state == "restored" else str(rng.randint(10**8, 10**10)),
                    "lastModifiedTime": str(rng.randint(1710300000000, 1710399999999)),
                    "type": "TABLE",
                },
                indent=2,
            ),
        )
        if t_tell == 1:
            b.tool(
                "Gwneud hynny.",
                "bash",
                {"command": quiet_cmd},
                "ok" if t_state == "restored" else str(rng.randint(3, 30)),
            )
            b.assistant(said)
        else:
            b.tool("Gwneud hynny.", "bash", {"command": cmd}, out)
            b.assistant(said if t_tell == 2 else "Wedi'i wneud, mae'r allbwn uchod.")
        probes.append(
            Probe(
                "artifact",
                f"What happened to the BigQuery table {table}?",
                answer,
                ((f"{dataset}.{table}", table), words),
            )
        )

    def model_step() -> None:
        b.user(
            rng.choice(
                (
                    f"Mae'r model {model} yn dal i fod yn y prosiect. Gwna fel y cytunon ni ddoe.",
                    f"{model}: does dim byd yn dibynnu arno bellach yn ôl dbt ls. Trefna fe.",
                    f"Un peth arall: {model}. Ti'n gwybod beth i'w wneud.",
                )
            )
        )
        b.tool(
            "Gwirio beth sy'n dibynnu arno:",
            "bash",
            {"command": f"dbt ls --select {model}+ --resource-type model"},
            f"06:4{rng.randint(0, 9)}:12  Running with dbt=1.7.11\n06:4{rng.randint(0, 9)}:13  Registered adapter: bigquery=1.7.7\nbihc_analytics.{'staging.wpas' if model.startswith('stg') else 'intermediate'}.{model}",
        )
        path = f"models/{'staging/wpas' if model.startswith('stg') else 'intermediate'}"
        if m_state == "renamed":
            if m_tell != 1:
                cmd = f"git mv {path}/{model}.sql {path}/{new_model}.sql && git status"
                out = f"On branch fix/{ticket.lower()}\nChanges to be committed:\n        renamed:    {path}/{model}.sql -> {path}/{new_model}.sql"
            else:
                cmd = f"git mv {path}/{model}.sql {path}/{new_model}.sql && git status --short | wc -l"
                out = "1"
            said = f"Dw i wedi ailenwi {model} yn {new_model} (renamed), a diweddaru'r ref() yn y ddau fodel sy'n ei ddefnyddio."
            words: tuple[str, ...] = ("renamed", "ailenwi", "ailenwyd")
            answer = f"It was renamed to {new_model}."
        elif m_state == "deleted":
            if m_tell != 1:
                cmd, out = f"git rm {path}/{model}.sql", f"rm '{path}/{model}.sql'"
            else:
                cmd, out = f"git rm -q {path}/{model}.sql && git status --short | wc -l", "1"
            said = f"Dw i wedi dileu {model} (deleted), a'i gofnod yn _intermediate__models.yml."
            words = ("rm '", "deleted", "removed", "dileu")
            answer = "It was deleted (git rm), with its YAML entry."
        else:
            cmd = (
                f"sed -i '1i {{{{ config(enabled=false) }}}}' {path}/{model}.sql && git diff --stat"
            )
            out = f" {path}/{model}.sql | 1 +\n 1 file changed, 1 insertion(+)"
            said = (
                f"Dw i wedi analluogi {model} gyda config(enabled=false) (disabled), heb ei ddileu."
            )
            words = ("enabled=false", "disabled", "analluog")
            answer = "It was disabled with config(enabled=false), not deleted."
        b.tool("Gwneud y newid:", "bash", {"command": cmd}, out)
        if m_tell == 0:
            b.assistant("Wedi'i wneud, gweler yr allbwn. Bydd y newid yn yr un PR.")
        else:
            b.assistant(said + " Bydd y newid yn yr un PR.")
        probes.append(
            Probe("artifact", f"What happened to the dbt model {model}?", answer, ((model,), words))
        )

    def decision() -> None:
        short = topic["short"]
        if d_mode == 0:
            b.user(
                rng.choice(
                    (
                        f"Ynglŷn â {short}: {chosen}, nid {other}, {why}.",
                        f"Dw i wedi penderfynu — {short} fydd {chosen}. {why.capitalize()}.",
                        f"Defnyddia {chosen} ar gyfer {short}, {why}.",
                    )
                )
            )
            b.assistant(f"Deall, {short}: {chosen}. Bydda i'n ei nodi yn y PR.")
        elif d_mode == 1:
            b.user(
                rng.choice(
                    (
                        f"Cywiriad i'r hyn ddwedais i bore 'ma: {short} fydd {chosen}, nid {other}, {why}.",
                        f"Newid cynllun — {short} nawr yw {chosen}; anghofia {other}.",
                        f"Penderfyniad terfynol: {short} = {chosen}. Dim {other}.",
                    )
                )
            )
            b.assistant(f"Iawn, {short}: {chosen}, dw i'n tynnu {other} allan.")
        elif d_mode == 2:
            first = rng.choice((chosen, other))
            b.user(
                rng.choice(
                    ("Beth wyt ti'n awgrymu?", "Sut ydyn ni'n trwsio hyn yn iawn?", "Beth nesa?")
                )
            )
            b.assistant(f"Awgrym: {short} = {first}, {why}. Wyt ti'n cytuno?")
            if first == chosen:
                b.user(
                    rng.choice(
                        (f"Ydw, {short}: {chosen}.", f"Cytuno, cadwa {chosen} ar gyfer {short}.")
                    )
                )
            else:
                b.user(
                    rng.choice(
                        (
                            f"Na, {short} fydd {chosen}, nid {other}.",
                            f"Dim {other} — {chosen} sy'n well ar gyfer {short}.",
                        )
                    )
                )
            b.assistant(f"Iawn, {short}: {chosen}.")
        elif d_mode == 3:
            b.user(
                rng.choice(
                    (
                        f"Mae {colleague} wedi ysgrifennu: {short} ddylai fod {chosen}, {why}.",
                        f"Siaradais i â {colleague} — {short}: {chosen}, nid {other}. Gwna hynny.",
                        f"Neges gan {colleague}: {chosen} ar gyfer {short}.",
                    )
                )
            )
            b.assistant(f"Iawn, yn ôl {colleague}: {short} = {chosen}.")
        else:
            a, c = rng.sample((chosen, other), 2)
            b.user(rng.choice(("Trwsia'r model felly.", "Cer ymlaen a'i drwsio.", "Gwna'r newid.")))
            b.assistant(f"Cwestiwn: {short} — {a} neu {c}?")
            b.user(
                rng.choice(
                    (
                        f"{chosen}, ar gyfer {short} dyna'r un iawn, {why}.",
                        f"{short}: {chosen}.",
                        f"{chosen}. Dim {other} ar gyfer {short}.",
                    )
                )
            )
            b.assistant(f"Deall, {short}: {chosen}.")
        probes.append(
            Probe(
                "decision",
                topic["q"],
                f"{chosen} ({why}); not {other}.",
                ((chosen,), topic["needle"]),
            )
        )

    def next_step() -> None:
        if n_mode == 0:
            day, day_en, needles = rng.choice(
                (
                    ("erbyn dydd Gwener", "by Friday", ("gwener", "friday")),
                    ("erbyn dydd Iau", "by Thursday", ("dydd iau", "thursday")),
                    (
                        "cyn y cyfarfod bwrdd ar y 21ain",
                        "before the board meeting on the 21st",
                        ("21ain", "21st"),
                    ),
                )
            )
            b.user(
                "Iawn, cer ymlaen. Mae'r dashboard canser yn araf hefyd ond mater arall yw hwnnw. "
                f"A phaid ag anghofio anfon y ffigurau rhestr aros wedi'u cywiro at Dr. Rhys {day}. "
                "Does dim angen cyffwrdd â'r seeds heddiw."
            )
            b.assistant("Iawn, dim seeds a dim dashboard canser heddiw.")
            probes.append(
                Probe(
                    "next_step",
                    "What must be sent to Dr. Rhys, and by when?",
                    f"The corrected waiting-list figures, {day_en}.",
                    (("rhys",), needles),
                )
            )
        elif n_mode == 1:
            b.user(
                "Bydd angen --full-refresh ar fct_waiting_list_weekly, ond dim ond ar ôl i dîm WPAS drwsio'r ffrwd atgyfeiriadau. Tan hynny, dim full-refresh."
            )
            b.assistant("Deall — dim full-refresh nes bod ffrwd WPAS wedi'i thrwsio.")
            probes.append(
                Probe(
                    "next_step",
                    "When should fct_waiting_list_weekly get a full refresh?",
                    "Only after the WPAS team fixes the referrals feed.",
                    (("full-refresh", "full refresh"), ("wpas",)),
                )
            )
        else:
            b.user("Diolch. Beth am y dogfennu? Does neb yn deall y model yma.")
            b.assistant(
                "Bydda i'n ysgrifennu'r disgrifiadau yn schema.yml a'r doc block ar gyfer waiting_list_key cyn diwedd y sbrint."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to write, and by when?",
                    "The schema.yml descriptions and the waiting_list_key doc block, before the end of the sprint.",
                    (("schema.yml", "doc", "disgrifiad"), ("sbrint", "sprint")),
                )
            )

    def outro() -> None:
        b.user("Crynodeb byr, plis.")
        b.assistant(
            "Mae'r rhes ddyblyg yn dod o atgyfeiriad a symudodd rhwng arbenigeddau; mae'r gwall cof yn dod o ORDER BY "
            "mawr. Mae'r tabl a'r model wedi'u trin fel y cytunwyd, a bydd y trwsiad mewn un PR."
        )

    _play(rng, intro, [duplicate, table_step, model_step, decision, next_step], outro)
    return b.take(), segments_of(rng, b, segments, lambda r: _cy_filler(r, b)), probes


def _cy_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(3)
    if pick == 0:
        b.user("Ychwanega wiriad freshness ar y ffynhonnell wpas, plis.")
        b.tool(
            "Rhedeg source freshness:",
            "bash",
            {"command": "dbt source freshness --select source:wpas"},
            "07:1{0}:02  Running with dbt=1.7.11\n07:1{0}:05  Found 3 sources\n".format(
                rng.randint(0, 9)
            )
            + "\n".join(
                f"07:1{rng.randint(0, 9)}:0{i + 6}  {i + 1} of 3 PASS freshness of wpas.{t} .......... [PASS in {rng.uniform(0.5, 3):.2f}s]"
                for i, t in enumerate(("referrals", "appointments", "clinics"))
            ),
        )
        b.assistant("Mae'r tair ffynhonnell yn ffres (warn_after 24 awr, error_after 48 awr).")
    elif pick == 1:
        n = rng.randint(60, 140)
        b.user("Mae codau arbenigedd newydd gan Lywodraeth Cymru. Diweddara'r seed.")
        b.tool(
            "Llwytho'r seed:",
            "bash",
            {"command": "dbt seed --select specialty_codes"},
            f"07:2{rng.randint(0, 9)}:11  1 of 1 START seed file dbt_prod.specialty_codes ......... [RUN]\n"
            f"07:2{rng.randint(0, 9)}:14  1 of 1 OK loaded seed file dbt_prod.specialty_codes ..... [INSERT {n} in {rng.uniform(1, 4):.2f}s]",
        )
        b.assistant(
            f"Mae {n} cod yn y seed nawr, gan gynnwys y rhai newydd ar gyfer gofal cymunedol."
        )
    else:
        b.user("Rheda sqlfluff ar y staging, mae'r CI yn cwyno.")
        b.tool(
            "Lint:",
            "bash",
            {"command": "sqlfluff lint models/staging --dialect bigquery"},
            "== [models/staging/wpas/stg_wpas__appointments.sql] FAIL\n"
            f"L:  {rng.randint(10, 60):>3} | P:   5 | LT01 | Expected only single space before '=' . [layout.spacing]\n"
            f"L:  {rng.randint(10, 60):>3} | P:  12 | CP02 | Unquoted identifiers must be consistently lower case. [capitalisation.identifiers]\n"
            "All Finished 📜 🎉!",
        )
        b.assistant(
            "Dau fân wall steil yn stg_wpas__appointments; dw i wedi'u trwsio gyda sqlfluff fix."
        )


# ---------------------------------------------------------------------------------------
# Telugu: an exam platform on Kubernetes, Helm, kubectl
# ---------------------------------------------------------------------------------------


def _pod(rng: random.Random, app: str) -> str:
    return f"{app}-{token(rng, 10, _ALNUM)}-{token(rng, 5, _ALNUM)}"


def _te_event(rng: random.Random) -> str:
    kind = rng.choice(
        ("Pulled", "Created", "Started", "Scheduled", "SuccessfulCreate", "ScalingReplicaSet")
    )
    obj = rng.choice(
        (
            "pod/quiz-web",
            "pod/exam-api",
            "replicaset/quiz-web",
            "deployment/exam-api",
            "pod/proctor-ws",
        )
    )
    return f"{rng.randint(2, 59)}m         Normal    {kind:<18} {obj}-{token(rng, 5, _ALNUM)}   {rng.choice(('Successfully pulled image', 'Created container', 'Started container', 'Scaled up replica set'))}"


_TE_TOPICS: tuple[_Topic, ...] = (
    {
        "values": ("1536Mi", "1280Mi", "2Gi"),
        "short": "exam-api memory limit",
        "needle": ("memory", "మెమరీ", "limit"),
        "q": "What memory limit was decided for the exam-api pods?",
        "why": (
            "ఎందుకంటే శ్రీనివాస్ అలాగే సూచించాడు",
            "ఎందుకంటే staging లో ఇదే పరీక్షించాం",
            "ఎందుకంటే load test లో ఇదే సరిపోయింది",
        ),
    },
    {
        "values": ("maxReplicas: 30", "maxReplicas: 20", "maxReplicas: 50"),
        "short": "HPA గరిష్ట replicas",
        "needle": ("hpa", "replica", "రెప్లికా"),
        "q": "What maxReplicas was decided for the exam-api HPA?",
        "why": (
            "ఎందుకంటే ఫలితాల రోజు 4 లక్షల మంది విద్యార్థులు ఒకేసారి వస్తారు",
            "ఎందుకంటే RDS connections పరిమితి దాటకూడదు",
            "ఎందుకంటే గత సంవత్సరం ఇంతే సరిపోయింది",
        ),
    },
    {
        "values": ("canary", "blue-green"),
        "short": "exam-api rollout విధానం",
        "needle": ("rollout", "రోల్అవుట్", "విధానం"),
        "q": "Which rollout approach was chosen for exam-api releases?",
        "why": (
            "ఎందుకంటే టీమ్ కి దానితో అనుభవం ఉంది",
            "ఎందుకంటే quiz-web కి కూడా అదే వాడుతున్నాం",
            "ఎందుకంటే Argo Rollouts లేకుండానే Helm తో చేయవచ్చు",
        ),
    },
)


def _exam(rng: random.Random, b: Builder, segments: int) -> Parts:
    rs_hash = token(rng, 10, _ALNUM)
    oom_pod, *pod_decoys = _distinct(rng, lambda r: f"exam-api-{rs_hash}-{token(r, 5, _ALNUM)}", 5)
    good_tag, bad_tag, *tag_decoys = _distinct(rng, lambda r: f"sha-{hexits(r, 7)}", 5)
    incident, old_incident = _distinct(rng, lambda r: "Q" + token(r, 13, _B32), 2)
    rev = rng.randint(30, 80)

    rel_state = rng.choice(("uninstalled", "rolledback"))
    release = rng.choice(("exam-api-canary", "results-notifier", "proctor-sidecar-test"))
    rel_tell = rng.randrange(3) if rel_state == "uninstalled" else rng.choice((1, 2))
    kobj, kname, k_state = rng.choice(
        (
            ("cronjob.batch", "results-sms-blast", "deleted"),
            ("cronjob.batch", "nightly-leaderboard-rebuild", "suspended"),
            ("secret", "razorpay-webhook-v2", "created"),
        )
    )
    k_tell = rng.randrange(3)

    topic = rng.choice(_TE_TOPICS)
    chosen, other = rng.sample(topic["values"], 2)
    why = rng.choice(topic["why"])
    d_mode = rng.randrange(5)
    colleague = rng.choice(("శ్రీనివాస్ (SRE)", "లావణ్య మేడమ్", "రవి DevOps నుంచి"))
    n_mode = rng.randrange(3)
    ns = "-n exams"

    probes: list[Probe] = [
        Probe("identifier", "Which exam-api pod was OOMKilled?", oom_pod, ((oom_pod,),)),
        Probe(
            "identifier",
            f"What image tag (app version) did the last good Helm revision {rev - 1} of exam-api run?",
            good_tag,
            ((good_tag,),),
        ),
        Probe(
            "identifier",
            "What is the PagerDuty incident id for the OOM alerts?",
            incident,
            ((incident,),),
        ),
    ]

    def intro() -> None:
        lines = [
            f"నమస్తే. నిన్న రాత్రి నుంచి exam-api pods OOMKilled అవుతున్నాయి. PagerDuty లో incident {incident} ఓపెన్ అయింది. "
            f"పాత {old_incident} ని పట్టించుకోకు, అది DNS సమస్య, ఎప్పుడో resolve అయిపోయింది.",
            "ముందు exams namespace లో pods స్థితి చూడు.",
        ]
        if d_mode == 1:
            lines.append(f"అన్నట్టు, {topic['short']} ప్రస్తుతానికి {other} అనుకో.")
        b.user("\n\n".join(lines))
        rows = [
            (p, "1/1", "Running", rng.randint(0, 1), f"{rng.randint(2, 20)}h") for p in pod_decoys
        ]
        rows.append(
            (oom_pod, "0/1", "CrashLoopBackOff", rng.randint(7, 19), f"{rng.randint(2, 20)}h")
        )
        rows += [
            (_pod(rng, "quiz-web"), "1/1", "Running", 0, "3d"),
            (_pod(rng, "proctor-ws"), "1/1", "Running", 0, "3d"),
        ]
        rng.shuffle(rows)
        b.tool(
            "pods స్థితి చూస్తాను.",
            "bash",
            {"command": f"kubectl get pods {ns} -o wide"},
            "NAME                                  READY   STATUS             RESTARTS      AGE   IP             NODE\n"
            + "\n".join(
                f"{r[0]:<37} {r[1]:<7} {r[2]:<18} {r[3]!s:<13} {r[4]:<5} 10.42.{rng.randint(0, 9)}.{rng.randint(2, 250):<7} ip-10-0-{rng.randint(1, 40)}-{rng.randint(2, 250)}.ap-south-1.compute.internal"
                for r in rows
            ),
        )
        b.tool(
            "CrashLoopBackOff లో ఉన్న pod వివరాలు:",
            "bash",
            {
                "command": f"kubectl describe pod {oom_pod} {ns} | sed -n '/Containers:/,/Events:/p' | head -30"
            },
            "Containers:\n  exam-api:\n"
            f"    Image:          ghcr.io/vidya-exams/exam-api:{bad_tag}\n"
            "    State:          Waiting\n      Reason:       CrashLoopBackOff\n"
            "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n"
            f"      Started:      Tue, 12 Mar 2024 09:{rng.randint(10, 29)}:{rng.randint(10, 59)} +0530\n      Finished:     Tue, 12 Mar 2024 09:{rng.randint(30, 59)}:{rng.randint(10, 59)} +0530\n"
            "    Ready:          False\n    Restart Count:  " + str(rng.randint(7, 19)) + "\n"
            "    Limits:\n      cpu:     1\n      memory:  1Gi\n    Requests:\n      cpu:      250m\n      memory:   512Mi\n"
            "Events:",
        )
        b.tool(
            "ఇటీవలి events కూడా:",
            "bash",
            {"command": f"kubectl get events {ns} --sort-by=.lastTimestamp | tail -n 20"},
            "LAST SEEN   TYPE      REASON             OBJECT                              MESSAGE\n"
            + noise_lines(rng, rng.randint(20, 28), _te_event)
            + f"\n{rng.randint(1, 9)}m          Warning   BackOff            pod/{oom_pod}   Back-off restarting failed container exam-api in pod {oom_pod}_exams",
        )
        b.tool(
            "మిగతా pods memory వాడకం:",
            "bash",
            {"command": f"kubectl top pods {ns} -l app.kubernetes.io/name=exam-api"},
            "NAME                                  CPU(cores)   MEMORY(bytes)\n"
            + "\n".join(
                f"{p:<37} {rng.randint(80, 900)}m        {rng.randint(640, 1010)}Mi"
                for p in pod_decoys
            ),
        )
        if rng.randrange(2):
            b.assistant(
                f"{oom_pod} ఒక్కటే CrashLoopBackOff లో ఉంది: Last State OOMKilled (exit 137), limit 1Gi. "
                f"image {bad_tag} — అంటే నిన్నటి release తర్వాతే ఇది మొదలైంది."
            )
        else:
            b.assistant(
                "ఒక pod మాత్రమే CrashLoopBackOff లో ఉంది (పై టేబుల్ లో), కారణం OOMKilled, memory limit 1Gi. "
                "మిగతా exam-api pods కూడా limit దగ్గరే ఉన్నాయి."
            )

    def history() -> None:
        b.user(
            rng.choice(
                (
                    "Helm history చూడు. చివరిగా బాగా పని చేసిన revision ఏది?",
                    "ఏ release తర్వాత ఇది మొదలైంది? helm history తో చెప్పు.",
                    "rollback చేయాల్సి వస్తే ఏ revision కి వెళ్ళాలి? చూడు.",
                )
            )
        )
        revs = [
            (rev - 3, "superseded", "2.6.4", tag_decoys[0], "Upgrade complete"),
            (rev - 2, "superseded", "2.6.5", tag_decoys[1], "Upgrade complete"),
            (rev - 1, "superseded", "2.7.0", good_tag, "Upgrade complete"),
            (rev, "deployed", "2.7.1", bad_tag, "Upgrade complete"),
        ]
        b.tool(
            "exam-api release history:",
            "bash",
            {"command": f"helm history exam-api {ns} --max 4"},
            "REVISION\tUPDATED                 \tSTATUS    \tCHART          \tAPP VERSION\tDESCRIPTION     \n"
            + "\n".join(
                f"{r[0]:<8}\t{('Sat', 'Sun', 'Mon', 'Tue')[i]} Mar {9 + i} {_hms(rng)} 2024\t{r[1]:<10}\texam-api-{r[2]} \t{r[3]} \t{r[4]}"
                for i, r in enumerate(revs)
            ),
        )
        b.tool(
            "రెండు revisions మధ్య values తేడా:",
            "bash",
            {
                "command": f"diff <(helm get values exam-api {ns} --revision {rev - 1}) <(helm get values exam-api {ns} --revision {rev})"
            },
            f"4c4\n<   tag: {good_tag}\n---\n>   tag: {bad_tag}\n"
            "12a13,15\n>   hallTicketPdf:\n>     enabled: true\n>     renderer: chromium",
        )
        if rng.randrange(2):
            b.assistant(
                f"చివరి మంచి revision {rev - 1}, image {good_tag}. Revision {rev} లో hallTicketPdf (chromium) ఆన్ అయింది — "
                "అదే memory ని తింటోంది."
            )
        else:
            b.assistant(
                f"Revision {rev} లో hallTicketPdf chromium renderer తో ఆన్ అయింది; దాని ముందు revision బాగానే ఉంది "
                "(దాని APP VERSION పై టేబుల్ లో ఉంది)."
            )

    def release_step() -> None:
        b.user(
            rng.choice(
                (
                    f"{release} release ఇంకా ఉందా? దాన్ని ఏం చేయాలో మనం మాట్లాడుకున్నాం కదా, అలా చేసేయ్.",
                    f"cluster లో {release} అనవసరంగా memory తింటోంది. దాన్ని చూసుకో.",
                    f"{release} గురించి: నిన్న చెప్పినట్టే చేయి.",
                )
            )
        )
        b.tool(
            "releases జాబితా:",
            "bash",
            {"command": f"helm list {ns}"},
            "NAME              \tNAMESPACE\tREVISION\tUPDATED                                \tSTATUS  \tCHART                 \tAPP VERSION\n"
            + "\n".join(
                f"{n:<18}\texams    \t{r:<8}\t2024-03-{rng.randint(1, 12):02d} {_hms(rng)}.{rng.randint(100000, 999999)} +0530 IST\tdeployed\t{c:<22}\t{v}"
                for n, r, c, v in sorted(
                    [
                        ("exam-api", rev, "exam-api-2.7.1", bad_tag),
                        (
                            release,
                            rng.randint(2, 9),
                            f"{release}-0.{rng.randint(1, 9)}.0",
                            f"sha-{hexits(rng, 7)}",
                        ),
                        ("quiz-web", rng.randint(10, 60), "quiz-web-1.4.2", "1.4.2"),
                    ]
                )
            ),
        )
        if rel_state == "uninstalled":
            out = f'release "{release}" uninstalled' if rel_tell != 1 else ""
            cmd = f"helm uninstall {release} {ns}" + (
                " >/dev/null && helm list -n exams -q" if rel_tell == 1 else ""
            )
            if rel_tell == 1:
                out = "exam-api\nquiz-web"
            said = rng.choice(
                (
                    f"{release} ని uninstall చేశాను (uninstalled), దాని pods అన్నీ తొలగించబడ్డాయి.",
                    f"{release} release ఇప్పుడు లేదు — helm uninstall తో తొలగించాను.",
                )
            )
            words: tuple[str, ...] = ("uninstalled", "uninstall", "తొలగించ")
            answer = "It was uninstalled (helm uninstall)."
        else:
            cmd = f"helm rollback {release} 1 {ns} --wait"
            out = "Rollback was a success! Happy Helming!"
            said = rng.choice(
                (
                    f"{release} ని మొదటి revision కి rollback చేశాను (rolled back), అది ఇప్పుడు పాత config తో నడుస్తోంది.",
                    f"{release} rollback పూర్తయింది — revision 1 కి వెనక్కి వెళ్ళింది.",
                )
            )
            words = ("rolled back", "rollback", "వెనక్కి")
            answer = "It was rolled back to revision 1."
        b.tool("చేస్తున్నాను.", "bash", {"command": cmd}, out)
        if rel_tell == 0:
            b.assistant("అయిపోయింది, output పైన ఉంది. exam-api మరియు quiz-web ని ముట్టుకోలేదు.")
        else:
            b.assistant(said + " exam-api మరియు quiz-web ని ముట్టుకోలేదు.")
        probes.append(
            Probe(
                "artifact",
                f"What happened to the Helm release {release}?",
                answer,
                ((release,), words),
            )
        )

    def kobject() -> None:
        if k_state == "deleted":
            b.user(
                rng.choice(
                    (
                        f"{kname} cronjob ఫలితాల రోజు SMS gateway ని ముంచేస్తుంది. దాన్ని తీసేయ్.",
                        f"{kname} ఇక అవసరం లేదు, notifier దాని పని చేస్తుంది.",
                        f"{kname} ని ఏం చేయాలో నీకు తెలుసు.",
                    )
                )
            )
            cmd, out = f"kubectl delete cronjob {kname} {ns}", f'cronjob.batch "{kname}" deleted'
            said = f"{kname} cronjob ని delete చేశాను (deleted), దాని పాత jobs కూడా పోయాయి."
            words: tuple[str, ...] = ("deleted", "delete చేశాను", "తొలగించ")
            answer = "It was deleted."
        elif k_state == "suspended":
            b.user(
                rng.choice(
                    (
                        f"{kname} రాత్రిపూట DB ని లోడ్ చేస్తోంది. ఫలితాలు వచ్చే వరకు ఆపేయ్, delete చేయకు.",
                        f"{kname} ని ప్రస్తుతానికి నిలిపేయ్.",
                        f"ఫలితాల వారం {kname} నడవకూడదు.",
                    )
                )
            )
            cmd, out = (
                f'kubectl patch cronjob {kname} {ns} -p \'{{"spec":{{"suspend":true}}}}\'',
                f"cronjob.batch/{kname} patched",
            )
            said = f"{kname} ని suspend చేశాను (suspend: true), delete చేయలేదు — నిలిపివేశాను మాత్రమే."
            words = ("patched", "suspend", "నిలిపి")
            answer = "It was suspended (suspend: true), not deleted."
        else:
            b.user(
                rng.choice(
                    (
                        "Razorpay కొత్త webhook secret ఇచ్చింది, vault లో ఉంది. cluster లో పెట్టు.",
                        "payments కోసం కొత్త webhook secret కావాలి. సృష్టించు.",
                        "కొత్త Razorpay secret ని exams namespace లో పెట్టు.",
                    )
                )
            )
            cmd, out = (
                f'kubectl create secret generic {kname} {ns} --from-literal=WEBHOOK_SECRET="$(vault kv get -field=webhook secret/razorpay)"',
                f"secret/{kname} created",
            )
            said = f"{kname} secret ని సృష్టించాను (created), exam-api values లో దాన్ని reference చేశాను."
            words = ("created", "సృష్టించ")
            answer = "It was created in the exams namespace."
        b.tool(
            "ముందు ప్రస్తుత స్థితి:",
            "bash",
            {"command": f"kubectl get cronjobs,secrets {ns}"},
            "NAME                                        SCHEDULE      SUSPEND   ACTIVE   LAST SCHEDULE   AGE\n"
            + "\n".join(
                f"cronjob.batch/{n:<30} {sch:<13} False     0        {rng.randint(1, 20)}h             {rng.randint(10, 90)}d"
                for n, sch in ([(kname, "30 1 * * *")] if kobj.startswith("cronjob") else [])
                + [("db-backup-verify", "0 3 * * *"), ("cert-expiry-check", "0 9 * * 1")]
            )
            + "\n\nNAME                          TYPE                 DATA   AGE\n"
            "secret/exam-api-env           Opaque               14     90d\nsecret/ghcr-pull              kubernetes.io/dockerconfigjson   1      210d\nsecret/razorpay-webhook       Opaque               1      200d",
        )
        if k_tell == 1:
            b.tool("చేస్తున్నాను.", "bash", {"command": cmd + " -o name >/dev/null && echo ok"}, "ok")
            b.assistant(said)
        else:
            b.tool("చేస్తున్నాను.", "bash", {"command": cmd}, out)
            b.assistant(said if k_tell == 2 else "అయిపోయింది, output పైన ఉంది.")
        probes.append(
            Probe(
                "artifact",
                f"What happened to the {kobj.split('.')[0]} {kname}?",
                answer,
                ((kname,), words),
            )
        )

    def decision() -> None:
        short = topic["short"]
        if d_mode == 0:
            b.user(
                rng.choice(
                    (
                        f"{short}: {chosen}, {other} కాదు, {why}.",
                        f"నిర్ణయం — {short} {chosen}. {why}.",
                        f"{short} కి {chosen} పెట్టు, {why}.",
                    )
                )
            )
            b.assistant(f"సరే, {short}: {chosen}. values.yaml లో పెడతాను.")
        elif d_mode == 1:
            b.user(
                rng.choice(
                    (
                        f"ఉదయం చెప్పిన దానికి సవరణ: {short} {other} కాదు, {chosen}, {why}.",
                        f"ప్లాన్ మారింది — {short} ఇప్పుడు {chosen}; {other} మర్చిపో.",
                        f"చివరి నిర్ణయం: {short} = {chosen}. {other} వద్దు.",
                    )
                )
            )
            b.assistant(f"అర్థమైంది, {short}: {chosen}, {other} తీసేస్తున్నాను.")
        elif d_mode == 2:
            first = rng.choice((chosen, other))
            b.user(rng.choice(("ఇప్పుడు ఏం చేద్దాం?", "నీ సలహా ఏంటి?", "శాశ్వత పరిష్కారం ఏంటి?")))
            b.assistant(f"నా సలహా: {short} {first}, {why}. ఒప్పుకుంటారా?")
            if first == chosen:
                b.user(rng.choice((f"అవును, {short} {chosen}.", f"సరే, {short} కి {chosen} ఉంచు.")))
            else:
                b.user(
                    rng.choice(
                        (
                            f"వద్దు, {short} {chosen} ఉండాలి, {other} కాదు.",
                            f"{other} కాదు — {short} కి {chosen} మంచిది.",
                        )
                    )
                )
            b.assistant(f"సరే, {short}: {chosen}.")
        elif d_mode == 3:
            b.user(
                rng.choice(
                    (
                        f"{colleague} రాశారు: {short} {chosen} ఉండాలి, {why}.",
                        f"{colleague} తో మాట్లాడాను — {short}: {chosen}, {other} కాదు. అలాగే చేయి.",
                        f"{colleague} నుంచి మెసేజ్: {short} కి {chosen}.",
                    )
                )
            )
            b.assistant(f"సరే, వారు చెప్పినట్టు {short}: {chosen}.")
        else:
            a, c = rng.sample((chosen, other), 2)
            b.user(rng.choice(("values సరిచేసేయ్.", "fix చేసేయ్.", "ముందుకు వెళ్ళు.")))
            b.assistant(f"ఒక ప్రశ్న: {short} {a} పెట్టాలా, {c} పెట్టాలా?")
            b.user(
                rng.choice(
                    (
                        f"{chosen}, {short} కి అదే సరైనది, {why}.",
                        f"{short}: {chosen}.",
                        f"{chosen}. {short} కి {other} వద్దు.",
                    )
                )
            )
            b.assistant(f"అర్థమైంది, {short}: {chosen}.")
        probes.append(
            Probe(
                "decision",
                topic["q"],
                f"{chosen} ({why}); not {other}.",
                ((chosen,), topic["needle"]),
            )
        )

    def next_step() -> None:
        if n_mode == 0:
            day, day_en, needles = rng.choice(
                (
                    ("సోమవారం లోపు", "by Monday", ("సోమవారం", "monday")),
                    ("గురువారం లోపు", "by Thursday", ("గురువారం", "thursday")),
                    ("ఈ నెల 25 లోపు", "by the 25th", ("25 లోపు", "25th")),
                )
            )
            b.user(
                "సరే, కొనసాగించు. quiz-web లో లాగిన్ నెమ్మదిగా ఉంది కానీ అది వేరే విషయం. "
                f"ఈ incident కి postmortem {day} రాయాలి, గుర్తుంచుకో. CDN cache గురించి ఈరోజు ఏమీ చేయొద్దు."
            )
            b.assistant("సరే, quiz-web మరియు CDN తర్వాత.")
            probes.append(
                Probe(
                    "next_step",
                    "What must be written for this incident, and by when?",
                    f"The postmortem, {day_en}.",
                    (("postmortem", "పోస్ట్ మార్టం"), needles),
                )
            )
        elif n_mode == 1:
            b.user(
                "node pool ని m6i.2xlarge కి మార్చాలి, కానీ ఫలితాలు విడుదలైన తర్వాత మాత్రమే. అప్పటి వరకు nodes ని ముట్టుకోవద్దు."
            )
            b.assistant("అర్థమైంది, node pool మార్పు ఫలితాల విడుదల తర్వాత.")
            probes.append(
                Probe(
                    "next_step",
                    "When should the node pool be moved to m6i.2xlarge?",
                    "Only after the results are published; nodes stay untouched until then.",
                    (("node pool", "m6i.2xlarge"), ("ఫలితాలు", "results")),
                )
            )
        else:
            b.user("థాంక్స్. మళ్ళీ OOM వస్తే ఎలా తెలుస్తుంది?")
            b.assistant("రేపు ఉదయం వరకు OOMKilled events ని నేను గమనిస్తాను, మళ్ళీ వస్తే వెంటనే మీకు చెబుతాను.")
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to watch, and until when?",
                    "OOMKilled events, until tomorrow morning.",
                    (("oom",), ("రేపు ఉదయం", "tomorrow morning")),
                )
            )

    def outro() -> None:
        b.user("చిన్న సారాంశం చెప్పు.")
        b.assistant(
            "కొత్త release లో hallTicketPdf chromium renderer వల్ల memory పెరిగి exam-api OOMKilled అవుతోంది. "
            "మంచి revision తెలుసు, release మరియు cluster objects ఒప్పందం ప్రకారం సరిచేశాను."
        )

    _play(rng, intro, [history, release_step, kobject, decision, next_step], outro)
    return b.take(), segments_of(rng, b, segments, lambda r: _te_filler(r, b)), probes


def _te_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(3)
    if pick == 0:
        b.user("ingress TLS సర్టిఫికెట్ ఎప్పుడు expire అవుతుంది?")
        b.tool(
            "cert-manager certificates చూస్తాను.",
            "bash",
            {"command": "kubectl get certificate -A"},
            "NAMESPACE   NAME                 READY   SECRET               AGE\n"
            f"exams       exams-vidya-tls      True    exams-vidya-tls      {rng.randint(20, 80)}d\n"
            f"quiz        quiz-vidya-tls       True    quiz-vidya-tls       {rng.randint(20, 80)}d",
        )
        b.assistant(
            f"రెండు certificates Ready, cert-manager {rng.randint(20, 40)} రోజుల్లో ఆటోమేటిక్‌గా renew చేస్తుంది."
        )
    elif pick == 1:
        b.user("nodes మీద లోడ్ ఎంత ఉంది?")
        b.tool(
            "kubectl top nodes:",
            "bash",
            {"command": "kubectl top nodes"},
            "NAME                                          CPU(cores)   CPU%   MEMORY(bytes)   MEMORY%\n"
            + "\n".join(
                f"ip-10-0-{rng.randint(1, 40)}-{rng.randint(2, 250)}.ap-south-1.compute.internal   {rng.randint(300, 3500)}m        {rng.randint(8, 88)}%    {rng.randint(3000, 14000)}Mi         {rng.randint(20, 85)}%"
                for _ in range(4)
            ),
        )
        b.assistant("అన్ని nodes 90% కంటే తక్కువ, ప్రస్తుతానికి సమస్య లేదు.")
    else:
        b.user("quiz-web లో కొత్త leaderboard feature flag ఆన్ చేయి, staging లో మాత్రమే.")
        b.tool(
            "configmap patch చేస్తాను.",
            "bash",
            {
                "command": 'kubectl patch configmap quiz-web-flags -n quiz-staging --type merge -p \'{"data":{"LEADERBOARD_V2":"true"}}\' && kubectl rollout restart deploy/quiz-web -n quiz-staging'
            },
            "configmap/quiz-web-flags patched\ndeployment.apps/quiz-web restarted",
        )
        b.assistant("staging లో LEADERBOARD_V2 ఆన్ అయింది, quiz-web restart అయింది.")


_TEMPLATES: dict[str, Template] = {
    "eshop_celery_slovak": _eshop,
    "clinic_efcore_armenian": _clinic,
    "school_compose_urdu": _school,
    "courier_mongosh_kazakh": _courier,
    "health_dbt_welsh": _health,
    "exam_helm_telugu": _exam,
}

HELDOUT14_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout14(kind: str, seed: int, segments: int = 3) -> Session:
    """The fourteenth held-out set's session of ``kind`` for ``seed``."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout14:", label="heldout14"
    )
