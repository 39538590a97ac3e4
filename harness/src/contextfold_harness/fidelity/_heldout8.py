"""The eighth held-out session set: six kinds written blind to the compaction code.

``klaerwerk_de``
    a wastewater plant's OPC UA bridge stops recording oxygen overnight (German);
``fietsdeel_nl``
    a city bike-share's rebalancing planner crashes on stations gone from its feed (Dutch);
``koperasi_id``
    a savings-and-loan cooperative's Laravel app rounds loan instalments wrong (Indonesian);
``erecept_cz``
    a pharmacy chain's e-prescription dispensing is stuck on a lock it left behind (Czech);
``lenglian_zh``
    a cold-chain warehouse's temperature alarms fire on sensor gaps (Simplified Chinese);
``museum_iiif``
    a museum's zoom viewer shows grey tiles for a new digitisation batch (English).

Each session plants, in its opening (the part that gets summarized), among tool calls,
logs and chatter: three identifiers (tickets, hosts, commits, versions, waybills, figures
with units ...), two artifact states (a file or resource renamed, deleted, applied,
tested, rolled back, switched off ..., said the way that tool or person says it), one
decision (a user's correction, an approved proposal, a verdict relayed from someone
else) and one open next step (a deadline, a condition, a promise). Which artifacts, which
decision and which next step a session gets, and how they are phrased, vary with the
seed, as do the identifiers and the filler: unrelated work in the same project that
never repeats a planted identifier or artifact name.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    Template,
    build_session,
    hexits,
    segments_of,
    token,
)

__all__ = ["HELDOUT8_KINDS", "generate_heldout8"]

_MON = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_DAYS_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")

Filler = Callable[[random.Random, Builder], None]


def _date(rng: random.Random) -> tuple[int, int, int]:
    return rng.choice((2024, 2025)), rng.randint(1, 12), rng.randint(1, 28)


def _hms(rng: random.Random, lo: int = 0, hi: int = 23) -> str:
    return f"{rng.randint(lo, hi):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


def _fresh(rng: random.Random, make: Callable[[random.Random], str], avoid: set[str]) -> str:
    """A value from ``make`` that is none of ``avoid`` (planted values stay out of filler)."""
    while True:
        value = make(rng)
        if not any(value in a or a in value for a in avoid):
            return value


def _filler(b: Builder, fillers: tuple[Filler, ...]) -> Callable[[random.Random], None]:
    """Writes the fillers in seeded shuffled rounds, so no task comes twice in a row."""
    deck: list[Filler] = []
    done: list[Filler] = []

    def write(rng: random.Random) -> None:
        if not deck:
            deck.extend(fillers)
            rng.shuffle(deck)
            if done and deck[-1] is done[-1]:
                deck.insert(0, deck.pop())
        done.append(deck.pop())
        done[-1](rng, b)

    return write


# --------------------------------------------------------------------------------------
# klaerwerk_de: a wastewater plant's OPC UA -> InfluxDB bridge (German)
# --------------------------------------------------------------------------------------

_ORTE_DE = ("Nordheim", "Altenbach", "Weilerstadt", "Rheinau", "Hollfeld", "Markdorf", "Tannau")
_TAGE_DE = ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag")
_SCHICHT_DE = ("Kowalski", "Brandt", "Yilmaz", "Hofmeister", "Lehner", "Schäfer")


def _klaerwerk(rng: random.Random, b: Builder, segments: int) -> Parts:
    ort = rng.choice(_ORTE_DE)
    kz = ort[:3].lower()
    becken = rng.randint(2, 6)
    year, month, day = _date(rng)
    ticket = f"STM-{year}-{rng.randint(10000, 99999)}"
    host_old = f"opc{rng.randint(1, 9):02d}.leit.kw-{kz}.local"
    host_new = f"opcua{rng.randint(10, 39)}.leit.kw-{kz}.local"
    commit = hexits(rng, 9)
    gw = f"kawa-gw{rng.randint(1, 4)}"
    pid = rng.randint(900, 4000)
    h0, m0 = rng.randint(1, 3), rng.randint(8, 44)
    o2 = f"{rng.randint(12, 24) / 10:.1f}".replace(".", ",")
    knoten = rng.randint(36, 64)
    arts = rng.sample(("rename", "test", "dashboard", "task"), 2)
    dash = f"dashboards/b{becken}_o2_alt.json"
    decision = rng.choice(("interpolation", "backoff", "sms"))
    step = rng.choice(("protokoll", "firmware", "metrik"))
    tag = rng.randrange(5)
    probes: list[Probe] = []

    def j(h: int, m: int, s: int, level: str, logger: str, msg: str, ms: int = -1) -> str:
        ms = rng.randint(0, 899) if ms < 0 else ms
        return (
            f"{_MON[month - 1]} {day:02d} {h:02d}:{m:02d}:{s:02d} {gw} kawa-bridge[{pid}]: "
            f"{year}-{month:02d}-{day:02d} {h:02d}:{m:02d}:{s:02d},{ms:03d} {level} "
            f"{logger}: {msg}"
        )

    b.user(
        f"Moin! Heute Nacht kam wieder eine Störmeldung rein, {ticket}: ab ca. "
        f"{h0:02d}:{m0:02d} standen die O2-Werte von Belebungsbecken {becken} still, in "
        f"Grafana nur noch eine gerade Linie bei {o2} mg/l. Die Gebläse hat die SPS zum "
        f"Glück selbst geregelt, aber uns fehlen gut {rng.randint(3, 5)} Stunden "
        f"Aufzeichnung. Kannst du dir den kawa-bridge-Dienst auf {gw} anschauen? Das Repo "
        "liegt unter /opt/kawa-bridge."
    )
    lines = []
    for i in range(5):
        lines.append(
            j(
                h0,
                m0 - 5 + i,
                rng.randint(0, 59),
                "INFO",
                "kawa_bridge.writer",
                f"{knoten} Punkte nach influx geschrieben (bucket=kawa_roh, "
                f"{rng.randint(90, 400)} ms)",
            )
        )
    s0, ms0 = rng.randint(0, 50), rng.randint(100, 899)
    lines += [
        j(
            h0,
            m0,
            s0,
            "WARNING",
            "asyncua.client.ua_client.UaClient",
            "ServiceFault (BadSessionIdInvalid, diagnostics: None) from server received "
            "in response to PublishRequest",
            ms0,
        ),
        j(
            h0,
            m0,
            s0,
            "ERROR",
            "kawa_bridge.subscriber",
            'Publish fehlgeschlagen: "The session id is not valid."(BadSessionIdInvalid)',
            ms0 + 1,
        ),
    ]
    for k in range(1, 4):
        lines.append(
            j(
                h0,
                m0 + 5 * k,
                s0,
                "WARNING",
                "kawa_bridge.watchdog",
                f"keine neuen Werte seit {300 * k} s ({knoten} Knoten, letzter Wert "
                f"{h0:02d}:{m0:02d})",
            )
        )
    b.tool(
        "Ich schaue zuerst ins Journal des Dienstes rund um den Zeitpunkt.",
        "shell",
        {
            "cmd": f'journalctl -u kawa-bridge --since "{year}-{month:02d}-{day:02d} '
            f'{h0:02d}:00" --no-pager | head -n 12'
        },
        "\n".join(lines),
    )
    b.tool(
        "Der Server hat die Session verworfen, danach kam nur noch der Watchdog. Wie "
        "reagiert der Subscriber auf so einen Statuswechsel?",
        "shell",
        {"cmd": "sed -n '41,78p' kawa_bridge/subscriber.py"},
        "    async def _run(self) -> None:\n"
        "        while not self._stop.is_set():\n"
        "            try:\n"
        "                async with Client(url=self.settings.endpoint, timeout=10) as client:\n"
        "                    await self._configure_security(client)\n"
        "                    sub = await client.create_subscription(\n"
        "                        self.settings.publish_ms, self\n"
        "                    )\n"
        "                    await sub.subscribe_data_change(self._nodes(client))\n"
        "                    log.info(\n"
        '                        "Subscription %s angelegt, %d Knoten",\n'
        "                        sub.subscription_id,\n"
        "                        len(self._tags),\n"
        "                    )\n"
        "                    await self._stop.wait()\n"
        "            except (ConnectionError, OSError, ua.UaError) as exc:\n"
        '                log.error("Verbindung fehlgeschlagen: %s", exc)\n'
        "                await asyncio.sleep(5)\n"
        "\n"
        "    def datachange_notification(self, node, val, data) -> None:\n"
        "        self._queue.put_nowait(Messwert.from_notification(node, val, data))\n"
        "\n"
        "    def status_change_notification(self, status: ua.StatusChangeNotification) -> None:\n"
        '        log.error("Publish fehlgeschlagen: %s", status.Status)',
    )
    b.tool(
        "Und wohin würde er sich neu verbinden?",
        "shell",
        {"cmd": f"grep -n -A3 endpoint config/tags.yaml; getent hosts {host_old}; echo rc=$?"},
        f"3:endpoint: opc.tcp://{host_old}:4840\n"
        "4-security_policy: Basic256Sha256\n"
        "5-security_mode: SignAndEncrypt\n"
        "6-zertifikat: /etc/kawa-bridge/pki/client.der\n"
        "rc=2",
    )
    b.assistant(
        f"Zwei Dinge greifen ineinander:\n\n"
        f"1. Um {h0:02d}:{m0:02d}:{s0:02d} hat der Server die Session verworfen "
        "(`BadSessionIdInvalid`). `status_change_notification` schreibt das nur ins Log; "
        "`_run` hängt danach weiter in `await self._stop.wait()` – es wird nie neu "
        "verbunden, deshalb die gerade Linie. Der Watchdog merkt es, tut aber nichts.\n"
        f"2. Selbst ein Neuverbinden wäre gescheitert: in `config/tags.yaml` steht "
        f"`opc.tcp://{host_old}:4840`, und der Name löst auf {gw} nicht mehr auf "
        "(`getent` rc=2).\n\nIst der OPC-UA-Server umgezogen?"
    )
    extra = ""
    if "rename" in arts:
        extra = (
            " Und wenn du eh in der Datei bist: benenn die tags.yaml bitte in "
            "messstellen.yaml um, so heißt die Datei in allen unseren anderen Projekten."
        )
    b.user(
        f"Ah, stimmt. {host_old} war seit dem Umbau im Frühjahr nur noch ein Alias auf den "
        f"neuen Server {host_new}, die IT hat den Alias gestern Abend aufgeräumt. Stell "
        f"bitte direkt auf {host_new} um.{extra}"
    )
    if "rename" in arts:
        b.tool(
            "Ich benenne die Datei um, ziehe den Pfad in den Settings nach und setze den "
            "neuen Endpoint.",
            "shell",
            {
                "cmd": "git mv config/tags.yaml config/messstellen.yaml && "
                "sed -i 's#config/tags.yaml#config/messstellen.yaml#' kawa_bridge/settings.py"
                f" && sed -i 's#{host_old}#{host_new}#' config/messstellen.yaml && "
                "git diff --stat HEAD"
            },
            " config/{tags.yaml => messstellen.yaml} | 2 +-\n"
            " kawa_bridge/settings.py                | 2 +-\n"
            " 2 files changed, 2 insertions(+), 2 deletions(-)",
        )
    else:
        b.tool(
            "Ich setze den neuen Endpoint.",
            "apply_patch",
            {
                "patch": "*** Begin Patch\n*** Update File: config/tags.yaml\n@@\n"
                f"-endpoint: opc.tcp://{host_old}:4840\n"
                f"+endpoint: opc.tcp://{host_new}:4840\n*** End Patch"
            },
            "Success. Updated the following files:\nM config/tags.yaml",
        )
    b.tool(
        "Kurzer Gegencheck, ob der neue Server erreichbar ist und unser Zertifikat nimmt.",
        "shell",
        {"cmd": f"uv run python -m kawa_bridge.probe --endpoint opc.tcp://{host_new}:4840"},
        f"Verbinde opc.tcp://{host_new}:4840 (Basic256Sha256, SignAndEncrypt) ...\n"
        f"Server: SIMATIC.S7-1500.OPC-UA.Application:PLC_1 (ServerState.Running)\n"
        f"Namespace 3: http://www.siemens.com/simatic-s7-opcua\n"
        f"{knoten}/{knoten} Knoten lesbar, z. B. "
        f'ns=3;s="DB_Belebung"."B{becken}"."O2_Ist" = {o2.replace(",", ".")}\n'
        "OK",
    )
    plan = (
        f"Der neue Server antwortet, alle {knoten} Knoten sind lesbar. Für den Subscriber "
        "schlage ich vor: `status_change_notification` setzt bei einem `Bad*`-Status ein "
        "Event, `_run` wartet auf Stopp *oder* dieses Event, verlässt den Client-Kontext "
        "und baut Session und Subscription neu auf."
    )
    dash_req = ""
    if "dashboard" in arts:
        dash_req = (
            f"\n\nAch, und {dash} kann weg – das alte Dashboard verwirrt die Schicht nur, "
            "die schauen immer aufs falsche."
        )
    if decision == "interpolation":
        b.assistant(
            plan + "\n\nFür die Lücke von heute Nacht könnte ich außerdem die fehlenden "
            "O2-Werte aus den Nachbarpunkten linear interpolieren und nachträglich in "
            "`kawa_roh` schreiben, dann stimmen die Tagesmittel wieder."
        )
        b.user(
            rng.choice(
                (
                    "Bitte nicht! Fehlende Messwerte bleiben Lücken, nichts interpolieren – "
                    "das Wasserwirtschaftsamt prüft die Rohdaten, nachgerechnete Werte "
                    "gehen da gar nicht.",
                    "Den Subscriber-Umbau ja. Aber interpolieren kommt nicht in Frage, die "
                    "Lücke bleibt eine Lücke in den Rohdaten; das Amt will echte Messwerte "
                    "sehen, keine gerechneten.",
                )
            )
            + " Die Lücke vermerken wir im Betriebstagebuch."
            + dash_req
        )
        probes.append(
            Probe(
                "decision",
                "What was settled about the missing O2 values from the night of the outage?",
                "They stay a gap in the raw data: no interpolation (the authority checks raw "
                "data); the gap is noted in the operations log instead.",
                (
                    ("interpol",),
                    ("lücke", "luecke", "gap", "nicht", "kein", "no ", "not ", "never"),
                ),
            )
        )
        retry = "Neuverbindung weiter mit fester 5-s-Pause"
    elif decision == "backoff":
        cap_proposed = rng.choice((120, 300))
        cap = rng.choice((30, 45, 60, 90))
        b.assistant(
            plan + " Beim Neuverbinden würde ich statt der festen 5 s einen exponentiellen "
            f"Backoff nehmen: 5 s, 10 s, 20 s … bis maximal {cap_proposed} s, damit wir den "
            "Server nach einem SPS-Neustart nicht fluten."
        )
        b.user(
            rng.choice(
                (
                    f"Passt, aber deckel den Backoff bei {cap} Sekunden. Länger als "
                    f"{cap} s ohne Aufzeichnung will ich nach einem Neustart nicht haben.",
                    f"{cap_proposed} s ist zu lang, das sind bei uns Minuten ohne Daten. "
                    f"Beim Neuverbinden maximal {cap} Sekunden zwischen den Versuchen, "
                    "dann ist gut.",
                )
            )
            + dash_req
        )
        probes.append(
            Probe(
                "decision",
                "What cap was agreed for the reconnect backoff?",
                f"Exponential backoff from 5 s, capped at {cap} seconds (not the proposed "
                f"{cap_proposed} s).",
                (
                    (f"{cap} s", f"{cap}s", f"{cap} sek", f"{cap} second", f"{cap} sec"),
                    ("backoff", "verbind", "connect", "retry", "versuch", "deckel", "max"),
                ),
            )
        )
        retry = f"Backoff ab 5 s verdoppelnd, gedeckelt bei {cap} s"
    else:
        boss = rng.choice(_SCHICHT_DE)
        b.assistant(
            plan + " Frage dazu: Soll der Watchdog bei „keine neuen Werte seit 300 s“ "
            "künftig jemanden benachrichtigen? Bisher ist das nur eine Logzeile."
        )
        b.user(
            f"Ja. Hab eben mit Herrn {boss} von der Schichtleitung gesprochen: "
            "Ausfallmeldungen der Bridge gehen ab jetzt per SMS an die Rufbereitschaft, "
            "nicht mehr ans Sammelpostfach – das liest nachts keiner. Das SMS-Gateway "
            "kennst du ja aus dem Pumpwerk-Projekt." + dash_req
        )
        probes.append(
            Probe(
                "decision",
                "Who gets the bridge's outage alerts from now on, and how?",
                f"The on-call duty (Rufbereitschaft), by SMS, not the shared mailbox (agreed "
                f"with shift lead {boss}).",
                (("sms",), ("rufbereitschaft", "bereitschaft", "on-call", "on call")),
            )
        )
        retry = "Watchdog meldet Ausfälle über das SMS-Gateway"
    b.tool(
        "Ich baue den Subscriber um.",
        "apply_patch",
        {
            "patch": "*** Begin Patch\n*** Update File: kawa_bridge/subscriber.py\n@@\n"
            "-                    await self._stop.wait()\n"
            "+                    self._neu.clear()\n"
            "+                    await _erstes(self._stop.wait(), self._neu.wait())\n"
            "@@\n"
            '         log.error("Publish fehlgeschlagen: %s", status.Status)\n'
            "+        if status.Status.is_bad():\n"
            "+            self._neu.set()\n*** End Patch"
        },
        "Success. Updated the following files:\nM kawa_bridge/subscriber.py",
    )
    tests = [
        "tests/test_settings.py::test_endpoint_aus_yaml",
        "tests/test_settings.py::test_publish_intervall_default",
        "tests/test_subscriber.py::test_datachange_landet_in_queue",
        "tests/test_subscriber.py::test_stop_beendet_run",
        "tests/test_writer.py::test_batch_nach_influx",
        "tests/test_writer.py::test_leere_queue_schreibt_nichts",
    ]
    if "test" in arts:
        b.tool(
            "Dazu ein Test, der genau den Ablauf von heute Nacht nachstellt: Fake-Server "
            "liefert BadSessionIdInvalid, danach muss eine neue Subscription entstehen.",
            "write_file",
            {
                "path": "tests/test_resubscribe.py",
                "content": "import asyncio\n\nimport pytest\nfrom asyncua import ua\n\n"
                "from kawa_bridge.subscriber import Subscriber\n...",
            },
            "Wrote 64 lines to tests/test_resubscribe.py",
        )
        tests += [
            "tests/test_resubscribe.py::test_session_invalid_baut_neu_auf",
            "tests/test_resubscribe.py::test_zweite_subscription_gleiche_knoten",
            "tests/test_resubscribe.py::test_stop_waehrend_neuaufbau",
        ]
    tests.sort()
    out = [f"platform linux -- Python 3.11.{rng.randint(2, 9)}, pytest-8.{rng.randint(0, 3)}.1"]
    out.append(f"collected {len(tests)} items\n")
    for i, t in enumerate(tests, 1):
        out.append(f"{t} PASSED{'':>10}[{100 * i // len(tests):3d}%]")
    out.append(f"\n{'=' * 20} {len(tests)} passed in {rng.randint(80, 400) / 100:.2f}s {'=' * 20}")
    b.tool("Tests laufen lassen.", "shell", {"cmd": "uv run pytest -v"}, "\n".join(out))
    staged = []
    if "rename" in arts:
        staged.append("\trenamed:    config/tags.yaml -> config/messstellen.yaml")
    else:
        staged.append("\tmodified:   config/tags.yaml")
    if "dashboard" in arts:
        staged.append(f"\tdeleted:    {dash}")
    if "rename" in arts:
        staged.append("\tmodified:   kawa_bridge/settings.py")
    staged.append("\tmodified:   kawa_bridge/subscriber.py")
    if "test" in arts:
        staged.append("\tnew file:   tests/test_resubscribe.py")
    rm = f"git rm -q {dash} && " if "dashboard" in arts else ""
    b.tool(
        "Alles grün. Ich stage die Änderungen" + (" und lösche das alte Dashboard." if rm else "."),
        "shell",
        {"cmd": f"{rm}git add -A && git status"},
        "On branch main\nYour branch is up to date with 'origin/main'.\n\n"
        "Changes to be committed:\n"
        '  (use "git restore --staged <file>..." to unstage)\n' + "\n".join(staged),
    )
    files = len(staged)
    b.tool(
        "Commit mit Verweis auf die Störmeldung.",
        "shell",
        {
            "cmd": "git commit -m 'subscriber: nach Bad-Status Session und Subscription neu "
            f"aufbauen ({ticket})' && git push"
        },
        f"[main {commit}] subscriber: nach Bad-Status Session und Subscription neu aufbauen "
        f"({ticket})\n {files} files changed, {rng.randint(30, 90)} insertions(+), "
        f"{rng.randint(3, 12)} deletions(-)\n"
        f"To git.stadtwerke-{kz}.de:leittechnik/kawa-bridge.git\n"
        f"   {hexits(rng, 7)}..{commit[:7]}  main -> main",
    )
    hh = rng.randint(8, 11)
    b.tool(
        f"Auf {gw} ausrollen und neu starten.",
        "shell",
        {
            "cmd": f"ssh {gw} 'cd /opt/kawa-bridge && git pull -q && sudo systemctl restart "
            "kawa-bridge && sleep 15 && journalctl -u kawa-bridge -n 4 -o cat'"
        },
        f"{year}-{month:02d}-{day:02d} {hh}:{rng.randint(10, 59)}:0{rng.randint(0, 9)},"
        f"{rng.randint(100, 999)} INFO kawa_bridge.subscriber: Verbunden mit "
        f"opc.tcp://{host_new}:4840 (SignAndEncrypt)\n"
        f"... INFO kawa_bridge.subscriber: Subscription {rng.randint(1, 30)} angelegt, "
        f"{knoten} Knoten\n"
        f"... INFO kawa_bridge.writer: {knoten} Punkte nach influx geschrieben "
        f"(bucket=kawa_roh, {rng.randint(90, 400)} ms)\n"
        f"... INFO kawa_bridge.writer: {knoten} Punkte nach influx geschrieben "
        f"(bucket=kawa_roh, {rng.randint(90, 400)} ms)",
    )
    b.assistant(
        f"Läuft wieder: verbunden mit `{host_new}`, Subscription steht, "
        f"der Writer schreibt {knoten} Punkte pro Minute. Commit `{commit}` ist auf main. "
        f"Neu im Subscriber: nach einem Bad-Status wird neu aufgebaut; {retry}."
    )
    probes += [
        Probe(
            "identifier",
            "What is the number of the Störmeldung (incident) for the night the O2 values froze?",
            ticket,
            ((ticket,),),
        ),
        Probe(
            "identifier",
            "Which OPC UA server host does the bridge connect to after the fix?",
            f"{host_new} (the old alias {host_old} is gone)",
            ((host_new,),),
        ),
        Probe(
            "identifier",
            "Which commit holds the resubscribe fix?",
            commit,
            ((commit,),),
        ),
    ]
    if "rename" in arts:
        probes.append(
            Probe(
                "artifact",
                "What happened to the bridge's tag configuration file?",
                "config/tags.yaml was renamed to config/messstellen.yaml (git mv), with the "
                "new endpoint in it.",
                (
                    ("messstellen.yaml",),
                    ("umbenannt", "umbenenn", "renam", "verschoben", "moved", "git mv"),
                ),
            )
        )
    if "test" in arts:
        probes.append(
            Probe(
                "artifact",
                "Which test file was added for the resubscribe fix, and how did it do?",
                "tests/test_resubscribe.py was written; its three tests passed.",
                (
                    ("test_resubscribe",),
                    ("passed", "pass", "bestanden", "grün", "gruen", "green", "erfolgreich"),
                ),
            )
        )
    if "dashboard" in arts:
        probes.append(
            Probe(
                "artifact",
                f"What happened to the old Grafana dashboard of basin {becken}?",
                f"{dash} was deleted (git rm) because it confused the shift.",
                (
                    (f"b{becken}_o2_alt.json",),
                    (
                        "gelöscht",
                        "geloescht",
                        "entfernt",
                        "deleted",
                        "removed",
                        "git rm",
                        "delet",
                        "remov",
                    ),
                ),
            )
        )
    if "task" in arts:
        task_id = hexits(rng, 16)
        b.user(
            "Super. Noch was: der Influx-Task o2_mittel_15min rechnet die Lücke als 0 mg/l "
            f"mit rein, deswegen sah das Tagesmittel von Becken {becken} heute so komisch "
            "aus. Schalt den bitte ab, bis wir das sauber gelöst haben."
        )
        b.tool(
            "Ich deaktiviere den Task.",
            "shell",
            {
                "cmd": "influx task list --name o2_mittel_15min --hide-headers | cut -f1 | "
                "xargs -I{} influx task update --id {} --status inactive"
            },
            "ID\t\t\tName\t\tOrganization ID\t\tOrganization\tStatus\t\tEvery\tCron\n"
            f"{task_id}\to2_mittel_15min\t{hexits(rng, 16)}\tstadtwerke-{kz}\tinactive\t"
            "15m",
        )
        b.assistant(
            "Erledigt, `o2_mittel_15min` steht auf `inactive`. Die Rohdaten in `kawa_roh` "
            "sind davon nicht betroffen."
        )
        probes.append(
            Probe(
                "artifact",
                "What was done with the InfluxDB task o2_mittel_15min?",
                "It was deactivated (status inactive) because it averaged the gap as 0 mg/l.",
                (
                    ("o2_mittel_15min",),
                    (
                        "inactive",
                        "deaktiv",
                        "disabl",
                        "abgeschaltet",
                        "ausgeschaltet",
                        "pausiert",
                        "paused",
                        "switched off",
                        "turned off",
                        "stopp",
                    ),
                ),
            )
        )
    day_de, day_en = _TAGE_DE[tag], _DAYS_EN[tag]
    if step == "protokoll":
        b.user(
            rng.choice(
                (
                    f"Danke dir! Bis {day_de} brauche ich fürs Wasserwirtschaftsamt noch ein "
                    "Ausfallprotokoll zu heute Nacht – Beginn, Ende, betroffene Messstellen. "
                    "Stellst du mir das aus den Logs zusammen?",
                    "Danke! Eine Sache hängt noch dran: das Ausfallprotokoll fürs Amt muss "
                    f"bis {day_de} raus, mit Beginn, Ende und den betroffenen Messstellen. "
                    "Kannst du das aus den Logs ziehen?",
                )
            )
        )
        b.assistant(
            f"Mache ich. Beginn ist {h0:02d}:{m0:02d}:{s0:02d} (BadSessionIdInvalid), Ende "
            "der Neustart vorhin; die Messstellen ziehe ich aus der Knotenliste. Du bekommst "
            f"einen Entwurf vor {day_de}."
        )
        probes.append(
            Probe(
                "next_step",
                "What does the user still need from the agent, and by when?",
                f"An outage report (Ausfallprotokoll) of the night for the water authority, "
                f"with start, end and affected measuring points, by {day_en}.",
                (
                    ("ausfall", "outage", "downtime", "störung", "stoerung", "incident"),
                    (day_de.lower(), day_en.lower()),
                ),
            )
        )
    elif step == "firmware":
        b.user(
            f"Danke dir! Die Siemens-Techniker spielen am {day_de} die neue Firmware auf die "
            "SPS. Danach müssen wir den Reconnect-Test noch mal gegen die echte Anlage "
            "fahren, vorher gilt das Ganze bei uns nicht als abgenommen."
        )
        b.assistant(
            f"Notiert: nach dem Firmware-Update am {day_de} Reconnect-Test gegen die echte "
            "Anlage wiederholen, erst dann ist es abgenommen. Ich bereite ein Skript vor, "
            "das die Session gezielt abbricht und die Zeit bis zum ersten neuen Wert misst."
        )
        probes.append(
            Probe(
                "next_step",
                "What has to happen after the PLC firmware update?",
                f"Re-run the reconnect test against the real plant after the firmware update "
                f"on {day_en}; only then is the fix accepted.",
                (("firmware",), ("test",)),
            )
        )
    else:
        b.user("Super, danke. Ist von deiner Seite noch was offen?")
        b.assistant(
            rng.choice(
                (
                    "Eine Sache: Ich baue morgen früh noch eine Prometheus-Metrik "
                    "`kawa_werte_alter_sekunden` je Messstelle ein, damit ihr in Grafana "
                    "seht, wie alt der letzte Wert ist. Kommt als eigener Commit.",
                    "Ja, ich schulde euch noch die Prometheus-Metrik für das Alter des "
                    "letzten Werts je Messstelle (`kawa_werte_alter_sekunden`) – die baue "
                    "ich morgen früh ein, eigener Commit.",
                )
            )
        )
        probes.append(
            Probe(
                "next_step",
                "What did the agent promise to add next?",
                "A Prometheus metric with the age of the last value per measuring point "
                "(kawa_werte_alter_sekunden), tomorrow morning, as its own commit.",
                (("metri",), ("alter", "age", "stale", "veraltet")),
            )
        )
    opening = b.take()
    fill = _filler(b, _klaerwerk_fillers(kz))
    return opening, segments_of(rng, b, segments, fill), probes


def _klaerwerk_fillers(kz: str) -> tuple[Filler, ...]:
    def export(rng: random.Random, b: Builder) -> None:
        groesse = rng.choice(("NH4-N", "NO3-N", "Pges", "CSB"))
        stellen = rng.choice((1, 2, 3))
        b.user(
            f"Im Monatsbericht-Export steht {groesse} mit sechs Nachkommastellen, das "
            f"Labor will {stellen}. Kannst du das anpassen?"
        )
        b.tool(
            "Ich schaue, wo formatiert wird.",
            "shell",
            {"cmd": "grep -n 'round\\|:.6f' kawa_bridge/export/monatsbericht.py"},
            f'{rng.randint(30, 60)}:        zeile[spalte] = f"{{wert:.6f}}"\n'
            f"{rng.randint(61, 90)}:    # TODO Nachkommastellen je Parameter",
        )
        b.tool(
            "Ich führe eine Tabelle der Nachkommastellen je Parameter ein.",
            "apply_patch",
            {
                "patch": "*** Begin Patch\n*** Update File: kawa_bridge/export/monatsbericht.py"
                f'\n@@\n+STELLEN = {{"{groesse}": {stellen}}}\n*** End Patch'
            },
            "Success. Updated the following files:\nM kawa_bridge/export/monatsbericht.py",
        )
        n = rng.randint(4, 9)
        b.tool(
            "Export-Tests.",
            "shell",
            {"cmd": "uv run pytest -q tests/test_export.py"},
            f"{'.' * n}{' ' * 4}[100%]\n{n} passed in {rng.randint(20, 90) / 100:.2f}s",
        )
        b.assistant(
            f"{groesse} wird jetzt mit {stellen} Nachkommastelle(n) exportiert, die anderen "
            f"Parameter bleiben wie bisher. {n} Export-Tests grün."
        )

    def rechen(rng: random.Random, b: Builder) -> None:
        r = rng.randint(1, 3)
        tag = rng.choice(_TAGE_DE)
        b.user(
            f"Der Betriebsstundenzähler von Rechen {r} springt seit {tag} immer wieder auf "
            "kleine Werte zurück. Liegt das an uns oder an der SPS?"
        )
        start = rng.randint(65480, 65530)
        h = rng.randint(5, 8)
        datum = f"2024-{rng.randint(1, 12):02d}-{rng.randint(10, 28)}"
        rows = []
        for i in range(5):
            v = (start + 12 * i) % 65536
            stamp = f"{h + i // 3:02d}:{12 * (i % 3) + rng.randint(0, 11):02d}:00Z"
            rows.append(f",,0,{datum}T{stamp},rechen{r}_betriebsstd_min,{v}")
        b.tool(
            "Ich hole die Rohwerte aus Influx.",
            "shell",
            {
                "cmd": 'influx query \'from(bucket:"kawa_roh") |> range(start:-3d) |> '
                f'filter(fn:(r)=>r._field=="rechen{r}_betriebsstd_min") |> '
                "limit(n:5)' --raw"
            },
            "#datatype,string,long,dateTime:RFC3339,string,long\n"
            ",result,table,_time,_field,_value\n" + "\n".join(rows),
        )
        b.assistant(
            "Das ist ein Überlauf, kein Fehler der Bridge: der Zähler läuft in Minuten und "
            "springt nach 65535 auf 0 – er ist in der SPS als UInt16 angelegt. Entweder "
            "stellt die SPS-Seite auf UDInt um, oder wir rechnen die Überläufe beim "
            "Schreiben heraus. Ich würde Ersteres empfehlen."
        )

    def pakete(rng: random.Random, b: Builder) -> None:
        b.user("Kannst du mal schauen, welche Abhängigkeiten veraltet sind?")
        pk = [
            ("asyncua", f"1.{rng.randint(0, 1)}.{rng.randint(0, 5)}", "1.1.6"),
            ("influxdb-client", f"1.{rng.randint(38, 44)}.0", "1.48.0"),
            ("pydantic", f"2.{rng.randint(4, 8)}.{rng.randint(0, 2)}", "2.10.3"),
            ("prometheus-client", f"0.{rng.randint(17, 19)}.0", "0.21.1"),
        ]
        rng.shuffle(pk)
        table = "Package            Version Latest Type\n------------------ ------- ------ -----\n"
        table += "\n".join(f"{n:<18} {v:<7} {lat:<6} wheel" for n, v, lat in pk)
        b.tool("Liste der veralteten Pakete.", "shell", {"cmd": "uv pip list --outdated"}, table)
        easy = [n for n, _, _ in pk if n != "asyncua"]
        b.assistant(
            f"Veraltet sind {', '.join(n for n, _, _ in pk)}. Unkritisch sind "
            f"`{easy[0]}` und `{easy[1]}`; bei `asyncua` würde ich erst die Changelogs zum "
            "Reconnect-Verhalten lesen, bevor wir hochziehen. Soll ich einen Branch machen?"
        )

    def faulgas(rng: random.Random, b: Builder) -> None:
        b.user("Wie viel Faulgas hatten wir letzte Woche im Schnitt pro Tag?")
        tage = [round(rng.uniform(38.0, 64.0), 1) for _ in range(7)]
        rows = "\n".join(
            f",_result,0,{d},faulturm_gas_m3h,{v}"
            for d, v in zip(("Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"), tage, strict=True)
        )
        b.tool(
            "Tagesmittel aus Influx.",
            "shell",
            {"cmd": "influx query --file queries/faulgas_tagesmittel.flux --raw"},
            ",result,table,tag,_field,_value\n" + rows,
        )
        mittel = sum(tage) / 7
        b.assistant(
            f"Im Wochenschnitt {mittel:.1f} m³/h, also rund {mittel * 24:.0f} m³ pro Tag. "
            f"Am höchsten war {max(tage)} m³/h, am niedrigsten {min(tage)} m³/h."
        )

    def lint(rng: random.Random, b: Builder) -> None:
        b.user("Die CI meckert über ruff, kannst du das glattziehen?")
        n = rng.randint(2, 4)
        codes = rng.sample(("F401", "E501", "B006", "UP035", "SIM108", "I001"), n)
        out = "\n".join(
            f"kawa_bridge/{rng.choice(('writer', 'export/monatsbericht', 'watchdog'))}.py:"
            f"{rng.randint(3, 140)}:{rng.randint(1, 40)}: {c} ..."
            for c in codes
        )
        b.tool(
            "ruff laufen lassen.",
            "shell",
            {"cmd": "uv run ruff check ."},
            f"{out}\nFound {n} errors.\n[*] {n - 1} fixable with the `--fix` option.",
        )
        b.tool(
            "Die automatisch behebbaren fixe ich.",
            "shell",
            {"cmd": "uv run ruff check --fix ."},
            f"Found {n} errors ({n - 1} fixed, 1 remaining).",
        )
        b.tool(
            "Den letzten Befund behebe ich von Hand und prüfe noch mal.",
            "shell",
            {"cmd": "uv run ruff check ."},
            "All checks passed!",
        )
        b.assistant(f"ruff ist wieder sauber ({', '.join(codes)} behoben).")

    def grafana(rng: random.Random, b: Builder) -> None:
        name = rng.choice(("Lena Vogt", "Jonas Peters", "Mert Aydin", "Sophie Keller"))
        login = name.lower().replace(" ", ".")
        b.user(
            f"Wir haben eine neue Azubi-Kraft, {name}. Leg bitte in Grafana einen Viewer-Zugang an."
        )
        b.tool(
            "Ich lege den Benutzer über die Admin-API an.",
            "shell",
            {
                "cmd": f"curl -s -u admin:*** -H 'Content-Type: application/json' "
                f'-d \'{{"name":"{name}","login":"{login}","password":"***"}}\' '
                f"https://grafana.kw-{kz}.local/api/admin/users"
            },
            f'{{"id":{rng.randint(20, 90)},"uid":"{token(rng, 14).lower()}",'
            '"message":"User created"}',
        )
        b.assistant(
            f"Zugang `{login}` ist angelegt (Rolle Viewer). Das Startpasswort schicke ich "
            "nicht hier rein – gib es bitte persönlich weiter."
        )

    return (export, rechen, pakete, faulgas, lint, grafana)


# --------------------------------------------------------------------------------------
# fietsdeel_nl: a city bike-share's rebalancing planner (Dutch)
# --------------------------------------------------------------------------------------

_STEDEN_NL = ("Utrecht", "Zwolle", "Leiden", "Arnhem", "Haarlem", "Breda", "Delft", "Assen")
_PLEKKEN_NL = (
    "Stationsplein Noord",
    "Marktbrug",
    "Havenkade",
    "Kerkstraat/Molenweg",
    "Sportpark De Wetering",
    "Ziekenhuis Oost",
    "Bibliotheek Centrum",
    "Lindeplein",
    "P+R Westpoort",
)
_DAGEN_NL = ("maandag", "dinsdag", "woensdag", "donderdag", "vrijdag")
_SENTRY = "ABCDEFGHJKLMNPQRSTVWXYZ0123456789"


def _fietsdeel(rng: random.Random, b: Builder, segments: int) -> Parts:
    stad = rng.choice(_STEDEN_NL)
    pre = stad[:3].lower()
    station = f"{pre}-{rng.randint(1000, 4999)}"
    plek = rng.choice(_PLEKKEN_NL)
    sentry = f"HERVERDELING-{token(rng, 3, _SENTRY)}"
    minor, patch = rng.randint(10, 29), rng.randint(0, 8)
    old_release, release = f"v2.{minor}.{patch}", f"v2.{minor}.{patch + 1}"
    year, month, day = _date(rng)
    n_db = rng.randint(150, 320)
    arts = rng.sample(("migration", "legacy", "flag", "rollback"), 2)
    decision = rng.choice(("archive", "stops", "spits"))
    step = rng.choice(("stuurgroep", "sentry", "e2e"))
    dag = rng.randrange(5)
    probes: list[Probe] = []
    legacy_req = ""
    if "legacy" in arts:
        legacy_req = (
            "\n\nZie je trouwens src/planner/legacyGreedy.ts nog staan? Die gebruiken we "
            "sinds de overstap op de solver niet meer, die mag eruit."
        )

    b.user(
        rng.choice(
            (
                f"Goedemorgen! De herverdelingsplanner voor {stad} is vannacht weer "
                f"omgevallen, Sentry-issue {sentry}. De chauffeurs hadden om zes uur geen "
                "ritlijst en zijn op gevoel gaan rijden. Kun je kijken wat er aan de hand is?",
                f"Hoi, vannacht is de nachtelijke planning voor {stad} niet gedraaid. In "
                f"Sentry staat {sentry}, veertien keer. De busjes zijn zonder ritlijst de "
                "stad in gegaan. Wil je er even induiken?",
            )
        )
    )
    seen = f"{year}-{month:02d}-{day:02d}T0{rng.randint(2, 5)}:{rng.randint(10, 59)}:07Z"
    b.tool(
        "Ik haal eerst het Sentry-issue op.",
        "sentry_get_issue",
        {"organization": "deelfiets", "issue": sentry},
        f"{sentry}  TypeError: Cannot read properties of undefined (reading "
        "'num_docks_available')\n"
        f"status: unresolved   events: {rng.randint(9, 30)}   users: 0\n"
        f"first seen: {seen}   release: {old_release}   environment: production\n\n"
        "TypeError: Cannot read properties of undefined (reading 'num_docks_available')\n"
        "    at <anonymous> (src/planner/state.ts:48:31)\n"
        "    at Array.map (<anonymous>)\n"
        "    at buildStationState (src/planner/state.ts:44:19)\n"
        "    at planRoutes (src/planner/index.ts:112:22)\n"
        "    at async runNightlyPlan (src/jobs/nightly.ts:37:9)",
    )
    b.tool(
        "En de plek in de code:",
        "read_file",
        {"path": "src/planner/state.ts", "start_line": 40, "end_line": 56},
        "40  export function buildStationState(\n"
        "41    stations: Station[],\n"
        "42    status: Map<string, GbfsStationStatus>,\n"
        "43  ): StationState[] {\n"
        "44    return stations.map((s) => {\n"
        "45      const st = status.get(s.stationId)!;\n"
        "46      return {\n"
        "47        id: s.stationId,\n"
        "48        bikes: st.num_bikes_available,\n"
        "49        docks: st.num_docks_available,\n"
        "50        target: Math.round(s.targetFill * s.capacity),\n"
        "51      };\n"
        "52    });\n"
        "53  }",
    )
    b.tool(
        "De `!` op regel 45 gaat ervan uit dat elk station uit de database ook in de "
        "GBFS-feed zit. Even vergelijken:",
        "shell",
        {"cmd": f"pnpm tsx scripts/diff-stations.ts --city {pre}"},
        f"> herverdeling@{old_release[1:]} tsx scripts/diff-stations.ts --city {pre}\n\n"
        f"database: {n_db} actieve stations\n"
        f"station_information.json: {n_db - 1} stations "
        f"(last_updated {rng.randint(1700000000, 1760000000)})\n"
        f"alleen in database:\n  {station}  {plek}  capacity={rng.randint(8, 30)}\n"
        "alleen in feed:\n  (geen)",
    )
    b.assistant(
        f"Gevonden. Station `{station}` ({plek}) is uit de GBFS-feed verdwenen maar staat "
        "in onze database nog als actief. `status.get()` geeft dan `undefined`, en de "
        "non-null-assertion op regel 45 laat dat door tot regel 48 – daar klapt het. Elke "
        "nachtrun sinds het verdwijnen crasht dus op dezelfde plek."
    )
    if decision == "archive":
        b.user("Klopt, dat station is weg vanwege werkzaamheden aan de kade. Hoe los je het op?")
        b.assistant(
            "Voorstel: `buildStationState` slaat stations zonder status over en logt een "
            f"waarschuwing, en ik verwijder `{station}` uit de tabel `stations`, zodat de "
            "database weer gelijkloopt met de feed."
        )
        b.user(
            rng.choice(
                (
                    "Het overslaan is prima, maar niet verwijderen! We archiveren zulke "
                    "stations – de gemeente wil de historie van elk station houden voor de "
                    "jaarrapportage.",
                    "Overslaan ja. Verwijderen nee: stations die uit de feed vallen "
                    "archiveren we alleen, want de gemeente vraagt elk jaar de historie per "
                    "station op.",
                )
            )
            + legacy_req
        )
        probes.append(
            Probe(
                "decision",
                "What is to be done with stations that disappear from the GBFS feed?",
                "Skip them in the planner, and archive them in the database; never delete "
                "them (the municipality wants each station's history).",
                (
                    ("archiv",),
                    (
                        "verwijder",
                        "delet",
                        "remov",
                        "niet",
                        "not",
                        "never",
                        "nooit",
                        "geen",
                        "instead",
                        "in plaats",
                    ),
                ),
            )
        )
        rule = "stations zonder feed-status worden overgeslagen en gearchiveerd"
    elif decision == "stops":
        worst = rng.randint(21, 29)
        proposed = rng.choice((15, 18, 20))
        cap = rng.choice((10, 12, 14))
        b.user("Ja, dat station is weg vanwege werkzaamheden. Hoe ga je het oplossen?")
        b.assistant(
            "`buildStationState` slaat stations zonder status voortaan over en logt een "
            "waarschuwing. Nog iets wat me opviel in de laatste geslaagde ritlijst: bus 3 "
            f"had {worst} stops in één rit. Zal ik er meteen een maximum van {proposed} "
            "stops per rit in zetten?"
        )
        b.user(
            rng.choice(
                (
                    f"Goed dat je het ziet. Maak er maximaal {cap} stops per rit van, dat is "
                    "wat een chauffeur in een dienst haalt – zo hebben we het met de "
                    "planning afgesproken.",
                    f"{proposed} is te veel, dat halen ze nooit. De planning en ik houden het "
                    f"op {cap} stops per rit, hooguit.",
                )
            )
            + legacy_req
        )
        probes.append(
            Probe(
                "decision",
                "What limit was agreed for stops per route?",
                f"At most {cap} stops per route (not the {proposed} the agent proposed), "
                "agreed with the dispatch planning.",
                (
                    (
                        f"{cap} stops",
                        f"{cap} haltes",
                        f"{cap} stations",
                        f"{cap} stopp",
                        f"max {cap}",
                        f"maximaal {cap}",
                        f"maximum {cap}",
                        f"maximum of {cap}",
                        f"{cap} per rit",
                        f"{cap} per route",
                    ),
                ),
            )
        )
        rule = f"hoogstens {cap} stops per rit"
    else:
        start = rng.choice(("16:00", "16:30", "15:30"))
        end = rng.choice(("18:30", "19:00"))
        b.user("Ja, dat station is weg vanwege werkzaamheden. Hoe ga je het oplossen?")
        b.assistant(
            "`buildStationState` slaat stations zonder status voortaan over en logt een "
            "waarschuwing. De planner plant daarna gewoon verder met de rest."
        )
        b.user(
            "Prima. Nu je toch in de planner zit: gisteren was het overleg met de gemeente, "
            f"en die heeft besloten dat er tussen {start} en {end} geen busjes meer in de "
            "binnenstad herverdelen, vanwege de spits. Kun je dat meenemen?" + legacy_req
        )
        probes.append(
            Probe(
                "decision",
                "What did the municipality decide about rebalancing during rush hour?",
                f"No rebalancing vans in the city centre between {start} and {end} (rush hour).",
                (
                    (start, start.replace(":", "."), start.replace(":", "u")),
                    (
                        "spits",
                        "rush",
                        "peak",
                        "binnenstad",
                        "centrum",
                        "centre",
                        "center",
                        "herverdel",
                        "rebalanc",
                        "bus",
                        "van",
                    ),
                ),
            )
        )
        rule = f"binnenstad tussen {start} en {end} wordt niet ingepland"
    b.tool(
        "Ik pas `buildStationState` aan.",
        "apply_patch",
        {
            "patch": "*** Begin Patch\n*** Update File: src/planner/state.ts\n@@\n"
            "-  return stations.map((s) => {\n"
            "-    const st = status.get(s.stationId)!;\n"
            "+  return stations.flatMap((s) => {\n"
            "+    const st = status.get(s.stationId);\n"
            "+    if (!st) {\n"
            "+      log.warn({ station: s.stationId }, 'station ontbreekt in GBFS-feed');\n"
            "+      return [];\n"
            "+    }\n*** End Patch"
        },
        "Success. Updated the following files:\nM src/planner/state.ts",
    )
    if "migration" in arts:
        stamp = f"{year}{month:02d}{day:02d}{rng.randint(70000, 95959):06d}"
        b.tool(
            "Voor het bijhouden van verdwenen stations komt er een kolom `archived_at` bij "
            "(`prisma/schema.prisma` is al aangepast); migratie maken en toepassen:",
            "shell",
            {
                "cmd": "pnpm prisma migrate dev --name station_archived_at --create-only && "
                "pnpm prisma migrate deploy"
            },
            "Prisma schema loaded from prisma/schema.prisma\n"
            'Datasource "db": PostgreSQL database "herverdeling", schema "public" at '
            f'"pg-{pre}.internal:5432"\n\n'
            f"Prisma Migrate created the following migration without applying it "
            f"{stamp}_station_archived_at\n\n"
            f"{rng.randint(7, 12)} migrations found in prisma/migrations\n\n"
            f"Applying migration `{stamp}_station_archived_at`\n\n"
            "The following migration(s) have been applied:\n\nmigrations/\n"
            f"  └─ {stamp}_station_archived_at/\n    └─ migration.sql\n\n"
            "All migrations have been successfully applied.",
        )
        probes.append(
            Probe(
                "artifact",
                "What happened to the Prisma migration for the stations table?",
                f"The migration {stamp}_station_archived_at (adds archived_at) was created "
                "and applied.",
                (
                    ("station_archived_at",),
                    (
                        "toegepast",
                        "applied",
                        "apply",
                        "uitgevoerd",
                        "doorgevoerd",
                        "migrated",
                        "gemigreerd",
                        "deployed",
                    ),
                ),
            )
        )
    tests_text = "Tests:"
    if "legacy" in arts:
        b.tool(
            "Eerst checken dat niets het nog importeert, dan weg ermee.",
            "shell",
            {
                "cmd": "grep -rn legacyGreedy src tests | grep -v '^src/planner/legacyGreedy.ts'"
                " ; git rm -q src/planner/legacyGreedy.ts && git status --short"
            },
            "D  src/planner/legacyGreedy.ts\n M src/planner/state.ts"
            + ("\n?? prisma/migrations/" if "migration" in arts else ""),
        )
        tests_text = (
            "Niets importeerde het nog, dus `src/planner/legacyGreedy.ts` is verwijderd. "
            "Nu de tests:"
        )
        probes.append(
            Probe(
                "artifact",
                "What happened to the old greedy planner file?",
                "src/planner/legacyGreedy.ts was deleted (git rm); nothing imported it.",
                (
                    ("legacyGreedy",),
                    (
                        "verwijderd",
                        "verwijder",
                        "deleted",
                        "removed",
                        "delet",
                        "remov",
                        "git rm",
                        "weggehaald",
                        "geschrapt",
                    ),
                ),
            )
        )
    n_tests = rng.randint(40, 90)
    b.tool(
        tests_text,
        "shell",
        {"cmd": "pnpm vitest run"},
        f" ✓ src/planner/state.test.ts ({rng.randint(6, 12)} tests) {rng.randint(8, 60)}ms\n"
        f" ✓ src/planner/index.test.ts ({rng.randint(8, 20)} tests) {rng.randint(90, 400)}ms\n"
        f" ✓ src/gbfs/client.test.ts ({rng.randint(4, 9)} tests) {rng.randint(8, 60)}ms\n"
        f" ✓ src/jobs/nightly.test.ts ({rng.randint(3, 6)} tests) {rng.randint(90, 700)}ms\n\n"
        " Test Files  4 passed (4)\n"
        f"      Tests  {n_tests} passed ({n_tests})\n"
        f"   Duration  {rng.randint(12, 40) / 10:.2f}s",
    )
    b.tool(
        "Groen. Release taggen en pushen; de pipeline rolt het eerst naar staging uit.",
        "shell",
        {"cmd": "pnpm version patch -m 'release %s' && git push --follow-tags"},
        f"{release}\n"
        f"To gitlab.deelfiets.nl:planning/herverdeling.git\n"
        f"   {hexits(rng, 7)}..{hexits(rng, 7)}  main -> main\n"
        f" * [new tag]         {release} -> {release}",
    )
    if "rollback" in arts:
        opt = f"{rng.randint(3, 5)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}"
        b.tool(
            "Even kijken of staging gezond is.",
            "shell",
            {"cmd": "kubectl -n staging get pods -l 'app in (herverdeling,route-optimizer)'"},
            "NAME                               READY   STATUS             RESTARTS   AGE\n"
            f"herverdeling-{hexits(rng, 9)}-{token(rng, 5).lower()}   1/1     Running"
            f"            0          {rng.randint(2, 6)}m\n"
            f"route-optimizer-{hexits(rng, 9)}-{token(rng, 5).lower()}   0/1     "
            f"CrashLoopBackOff   {rng.randint(4, 7)}          {rng.randint(6, 12)}m",
        )
        b.tool(
            "De planner draait, maar route-optimizer crasht – dat is de Renovate-bump naar "
            f"OR-Tools {opt} van vannacht, los van onze fix. Die zet ik terug.",
            "shell",
            {
                "cmd": "kubectl -n staging rollout undo deployment/route-optimizer && "
                "kubectl -n staging rollout status deployment/route-optimizer"
            },
            "deployment.apps/route-optimizer rolled back\n"
            'Waiting for deployment "route-optimizer" rollout to finish: 1 old replicas are '
            "pending termination...\n"
            'deployment "route-optimizer" successfully rolled out',
        )
        probes.append(
            Probe(
                "artifact",
                "What happened to the route-optimizer deployment on staging?",
                f"It was rolled back (kubectl rollout undo) because the Renovate bump to "
                f"OR-Tools {opt} made it crash-loop.",
                (
                    ("route-optimizer",),
                    (
                        "rolled back",
                        "rollback",
                        "roll back",
                        "rollout undo",
                        "teruggedraaid",
                        "teruggezet",
                        "teruggerold",
                        "terugdraai",
                        "undo",
                    ),
                ),
            )
        )
    if "flag" in arts:
        b.tool(
            "Het overslaan van spookstations staat achter de Unleash-flag; die zet ik in "
            "productie aan zodra de release daar staat – eerst staging:",
            "shell",
            {
                "cmd": 'curl -s -X POST -H "Authorization: $UNLEASH_ADMIN" '
                "https://unleash.deelfiets.nl/api/admin/projects/planning/features/"
                "skip-ghost-stations/environments/production/on && "
                'curl -s -H "Authorization: $UNLEASH_ADMIN" '
                "https://unleash.deelfiets.nl/api/admin/projects/planning/features/"
                "skip-ghost-stations | jq -c '.environments[]|{name,enabled}'"
            },
            '{"name":"development","enabled":true}\n'
            '{"name":"staging","enabled":true}\n'
            '{"name":"skip-ghost-stations/production","enabled":true}',
        )
        probes.append(
            Probe(
                "artifact",
                "What is the state of the Unleash flag skip-ghost-stations?",
                "It was switched on (enabled) in production, as in development and staging.",
                (
                    ("skip-ghost-stations",),
                    (
                        "ingeschakeld",
                        "enabled",
                        "aangezet",
                        "geactiveerd",
                        "activated",
                        "switched on",
                        "turned on",
                        "true",
                    ),
                ),
            )
        )
    b.assistant(
        f"Samengevat: {release} staat op staging (was {old_release}); de planner slaat "
        f"stations zonder feed-status over, dus `{station}` laat de nachtrun niet meer "
        f"crashen. Afspraak in de code: {rule}."
    )
    dag_nl, dag_en = _DAGEN_NL[dag], _DAYS_EN[dag]
    if step == "stuurgroep":
        b.user(
            f"Top. Voor de stuurgroep van {dag_nl} wil ik een overzicht van alle stations "
            "die uit de feed verdwenen zijn maar bij ons nog meetellen. Lukt dat?"
        )
        b.assistant(
            f"Komt eraan: ik draai `diff-stations` voor alle steden en zet de verdwenen "
            f"stations met laatste datum in de feed in een tabel, ruim voor {dag_nl}."
        )
        probes.append(
            Probe(
                "next_step",
                "What does the user want for the steering group, and when?",
                f"An overview of all stations that vanished from the feed but still count "
                f"in the database, for the steering group on {dag_en}.",
                (
                    (
                        "verdwen",
                        "ghost",
                        "spook",
                        "missing",
                        "ontbrek",
                        "vanish",
                        "gone",
                        "disappear",
                    ),
                    (dag_nl, dag_en.lower()),
                ),
            )
        )
    elif step == "sentry":
        uren = rng.choice((24, 48))
        b.user(
            rng.choice(
                (
                    f"Top. Als Sentry {uren} uur stil blijft op staging, mag {release} naar "
                    "productie. Eerder niet, we hebben de vorige keer te snel gepromoot.",
                    f"Mooi. Productie pas als staging {uren} uur lang geen nieuwe events in "
                    "Sentry heeft – dan mag je de release promoveren.",
                )
            )
        )
        b.assistant(
            f"Afgesproken: ik houd Sentry op staging in de gaten en promoveer pas na "
            f"{uren} uur zonder nieuwe events naar productie."
        )
        probes.append(
            Probe(
                "next_step",
                "Under what condition may the release go to production?",
                f"Only after Sentry has stayed quiet on staging for {uren} hours.",
                (
                    (f"{uren} uur", f"{uren} hour", f"{uren}h", f"{uren} u ", f"{uren}-hour"),
                    ("productie", "production", "prod", "promo"),
                ),
            )
        )
    else:
        b.user("Top, bedankt. Nog iets wat je openlaat?")
        b.assistant(
            rng.choice(
                (
                    "Eén ding: ik schrijf morgen nog een e2e-test tegen een GBFS-fixture "
                    "waarin een station tussen twee runs verdwijnt, zodat dit nooit meer "
                    "ongemerkt terugkomt.",
                    "Ja – de e2e-test ontbreekt nog: een GBFS-fixture waarin een station "
                    "verdwijnt, door de hele nachtrun heen. Die schrijf ik morgen.",
                )
            )
        )
        probes.append(
            Probe(
                "next_step",
                "What did the agent say it would still write?",
                "An end-to-end test with a GBFS fixture where a station disappears, tomorrow.",
                (("e2e", "end-to-end", "end to end"), ("gbfs", "feed", "fixture")),
            )
        )
    probes += [
        Probe(
            "identifier",
            "Which Sentry issue reported the crashing nightly plan?",
            sentry,
            ((sentry,),),
        ),
        Probe(
            "identifier",
            "Which station had vanished from the GBFS feed and crashed the planner?",
            f"{station} ({plek})",
            ((station,),),
        ),
        Probe(
            "identifier",
            "Which release carries the fix?",
            f"{release} (the crash was in {old_release})",
            ((release,),),
        ),
    ]
    opening = b.take()
    fill = _filler(b, _fietsdeel_fillers(stad, pre))
    return opening, segments_of(rng, b, segments, fill), probes


def _fietsdeel_fillers(stad: str, pre: str) -> tuple[Filler, ...]:
    def other_station(rng: random.Random) -> str:
        return f"{pre}-{rng.randint(5000, 9999)}"

    def feed(rng: random.Random, b: Builder) -> None:
        b.user("Hoe vers is de station_status-feed eigenlijk? De app lijkt soms achter te lopen.")
        age = rng.randint(20, 200)
        b.tool(
            "Ik kijk naar de headers en het last_updated-veld.",
            "shell",
            {
                "cmd": f"curl -sI https://gbfs.deelfiets.nl/{pre}/station_status.json | "
                "grep -i -E 'cache-control|age'; curl -s https://gbfs.deelfiets.nl/"
                f"{pre}/station_status.json | jq '{{last_updated, ttl}}'"
            },
            f"cache-control: public, max-age={rng.choice((30, 60, 120))}\nage: {age}\n"
            f'{{\n  "last_updated": {rng.randint(1700000000, 1760000000)},\n'
            f'  "ttl": {rng.choice((0, 30, 60))}\n}}',
        )
        b.assistant(
            f"De CDN-cache staat op {age} s oud, terwijl de feed elke minuut ververst. Dat "
            "verklaart de achterstand in de app; een kortere max-age op het CDN lost het op."
        )

    def outdated(rng: random.Random, b: Builder) -> None:
        b.user("Kun je een lijstje maken van verouderde dependencies?")
        pk = [
            ("@prisma/client", f"5.{rng.randint(10, 19)}.0", "5.22.0"),
            ("vitest", f"1.{rng.randint(2, 6)}.0", "2.1.8"),
            ("pino", f"8.{rng.randint(14, 19)}.0", "9.5.0"),
            ("zod", f"3.{rng.randint(20, 22)}.4", "3.23.8"),
        ]
        rng.shuffle(pk)
        rows = "\n".join(f"│ {n:<16} │ {v:<7} │ {lat:<6} │" for n, v, lat in pk)
        b.tool(
            "pnpm outdated:",
            "shell",
            {"cmd": "pnpm outdated"},
            "┌──────────────────┬─────────┬────────┐\n"
            "│ Package          │ Current │ Latest │\n"
            "├──────────────────┼─────────┼────────┤\n"
            + rows
            + "\n└──────────────────┴─────────┴────────┘",
        )
        b.assistant(
            f"{len(pk)} pakketten lopen achter. `vitest` en `pino` zijn majors, die zou ik "
            "apart oppakken; de rest kan in één Renovate-batch."
        )

    def leeg(rng: random.Random, b: Builder) -> None:
        b.user(f"Welke stations in {stad} stonden vorige week het vaakst leeg?")
        rows = []
        for _ in range(5):
            rows.append(
                f" {other_station(rng):<10} | {rng.choice(_PLEKKEN_NL):<22} | "
                f"{rng.randint(8, 60):>5}"
            )
        rows.sort(key=lambda r: -int(r.rsplit("|", 1)[1]))
        b.tool(
            "Query op de uur-snapshots:",
            "shell",
            {
                "cmd": 'psql $DATABASE_URL -c "select station_id, naam, count(*) as lege_uren '
                "from snapshots where bikes = 0 and ts > now() - interval '7 days' "
                'group by 1,2 order by 3 desc limit 5"'
            },
            " station_id | naam                   | lege_uren\n"
            "------------+------------------------+----------\n" + "\n".join(rows) + "\n(5 rows)",
        )
        b.assistant(
            f"Bovenaan staat `{rows[0].split('|')[0].strip()}` met "
            f"{rows[0].rsplit('|', 1)[1].strip()} lege uren. Die zou ik een hoger "
            "streefpercentage geven in de planner."
        )

    def vertaling(rng: random.Random, b: Builder) -> None:
        b.user(
            "De chauffeursapp toont 'Pickup' en 'Dropoff' nog in het Engels. Kun je dat vertalen?"
        )
        b.tool(
            "Ik pas de Nederlandse vertaling aan.",
            "apply_patch",
            {
                "patch": "*** Begin Patch\n*** Update File: app/i18n/nl.json\n@@\n"
                '-  "stop.pickup": "Pickup",\n-  "stop.dropoff": "Dropoff",\n'
                '+  "stop.pickup": "Ophalen",\n+  "stop.dropoff": "Afzetten",\n*** End Patch'
            },
            "Success. Updated the following files:\nM app/i18n/nl.json",
        )
        b.tool(
            "Controle of alle sleutels nog kloppen:",
            "shell",
            {"cmd": "pnpm i18n:check"},
            f"nl.json: {rng.randint(140, 220)} keys, 0 missing, 0 unused\nen.json: reference",
        )
        b.assistant("Vertaald: 'Ophalen' en 'Afzetten'. De i18n-check is schoon.")

    def flaky(rng: random.Random, b: Builder) -> None:
        b.user("De CI faalde net op een test in sortStops, maar lokaal is hij groen. Flaky?")
        runs = rng.randint(20, 50)
        fails = rng.randint(1, 3)
        b.tool(
            "Ik draai de test een paar keer achter elkaar.",
            "shell",
            {
                "cmd": f"for i in $(seq {runs}); do pnpm vitest run src/planner/sortStops.test.ts "
                "--reporter=dot >/dev/null || echo FAIL; done | sort | uniq -c"
            },
            f"      {fails} FAIL",
        )
        b.assistant(
            f"{fails} van de {runs} runs faalden: de test vergelijkt stops met gelijke "
            "afstand, en `Array.sort` is bij gelijke sleutels niet stabiel genoeg voor "
            "onze vergelijker. Ik voeg station_id toe als tweede sorteersleutel."
        )

    return (feed, outdated, leeg, vertaling, flaky)


# --------------------------------------------------------------------------------------
# koperasi_id: a savings-and-loan cooperative's Laravel app (Indonesian)
# --------------------------------------------------------------------------------------

_KOPERASI = (
    "KSP Maju Jaya",
    "Koperasi Karyawan Sumber Rejeki",
    "KSP Mitra Usaha Tani",
    "Koperasi Sejahtera Bersama",
    "KSP Tunas Mandiri",
)
_NAMA_ID = ("Bu Ratna", "Bu Sri", "Pak Hendra", "Bu Wulan", "Pak Agus", "Bu Dewi")
_HARI_ID = ("Senin", "Selasa", "Rabu", "Kamis", "Jumat", "Sabtu")
_DAYS6_EN = (*_DAYS_EN, "Saturday")
_BULAN_ID = (
    "Januari",
    "Februari",
    "Maret",
    "April",
    "Mei",
    "Juni",
    "Juli",
    "Agustus",
    "September",
    "Oktober",
    "November",
    "Desember",
)
_MONTHS_EN = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def _rp(x: int) -> str:
    return f"{x:,}".replace(",", ".")


def _koperasi(rng: random.Random, b: Builder, segments: int) -> Parts:
    kop = rng.choice(_KOPERASI)
    year, month, day = _date(rng)
    pjm = f"PJM/{year}/{month:02d}/{rng.randint(10000, 99999)}"
    ticket = f"SIMPIN-{rng.randint(100, 1999)}"
    bendahara = rng.choice(_NAMA_ID)
    decision = rng.choice(("bulat", "lama", "flat"))
    kel = rng.choice((100, 500)) if decision == "bulat" else 100
    while True:
        pokok = rng.randint(20, 250) * 100_000
        tenor = rng.choice((9, 10, 12, 18, 24, 36))
        bunga = rng.choice((1.2, 1.5, 1.8))
        app_val = round(pokok / tenor) + round(pokok * bunga / 100)
        manual = -(-(pokok / tenor + pokok * bunga / 100) // kel) * kel
        if manual > app_val:
            break
    manual = int(manual)
    aktif = rng.randint(180, 640)
    beda = rng.randint(aktif // 2, aktif - 10)
    total = rng.randint(400_000, 4_900_000)
    total_s = _rp(total)
    arts = rng.sample(("migration", "seeder", "test", "rename"), 2)
    step = rng.choice(("rat", "rekon", "surat"))
    probes: list[Probe] = []

    b.user(
        rng.choice(
            (
                f"Selamat pagi. Ada keluhan anggota soal pinjaman {pjm}: angsuran di "
                f"aplikasi Rp {_rp(app_val)}, tapi di kartu angsuran yang dihitung "
                f"{bendahara} Rp {_rp(manual)}. Tiketnya sudah saya buat, {ticket}. Bisa "
                "dicek di mana bedanya?",
                f"Pagi, tolong bantu. Tiket {ticket}: anggota dengan pinjaman {pjm} protes "
                f"karena angsurannya di aplikasi Rp {_rp(app_val)}, padahal di kartu "
                f"manual {bendahara} Rp {_rp(manual)}.",
            )
        )
    )
    b.tool(
        "Saya lihat dulu data pinjamannya.",
        "shell",
        {
            "cmd": "php artisan tinker --execute=\"dump(App\\Models\\Pinjaman::where('nomor', "
            f"'{pjm}')->first()->only(['pokok','tenor','bunga_flat','tanggal_cair']));\""
        },
        "array:4 [\n"
        f'  "pokok" => "{pokok}.00"\n'
        f'  "tenor" => {tenor}\n'
        f'  "bunga_flat" => "{bunga:.2f}"\n'
        f'  "tanggal_cair" => "{year}-{month:02d}-{day:02d}"\n'
        "]",
    )
    b.tool(
        "Lalu cara aplikasi menghitung jadwalnya.",
        "read_file",
        {"path": "app/Services/AngsuranCalculator.php", "start_line": 18, "end_line": 37},
        "18      public function jadwalFlat(Pinjaman $p): Collection\n"
        "19      {\n"
        "20          $pokokPerBulan = $p->pokok / $p->tenor;\n"
        "21          $bungaPerBulan = $p->pokok * $p->bunga_flat / 100;\n"
        "22\n"
        "23          return collect(range(1, $p->tenor))->map(fn (int $ke) => [\n"
        "24              'angsuran_ke' => $ke,\n"
        "25              'jatuh_tempo' => $p->tanggal_cair->copy()->addMonthsNoOverflow($ke),\n"
        "26              'pokok' => round($pokokPerBulan),\n"
        "27              'bunga' => round($bungaPerBulan),\n"
        "28              'total' => round($pokokPerBulan) + round($bungaPerBulan),\n"
        "29          ]);\n"
        "30      }",
    )
    b.tool(
        "Pokok dan bunga dibulatkan terpisah per bulan, dan sisa pembulatan tidak pernah "
        "dikoreksi. Saya cek seberapa luas dampaknya ke semua pinjaman aktif:",
        "shell",
        {"cmd": "php artisan angsuran:audit --status=aktif --bandingkan=kartu-manual"},
        f"Memeriksa {aktif} pinjaman aktif ...\n"
        f" {aktif}/{aktif} [============================] 100%\n\n"
        "+----------------------+-----------+-----------+---------+\n"
        "| nomor                | aplikasi  | manual    | selisih |\n"
        "+----------------------+-----------+-----------+---------+\n"
        + "\n".join(
            f"| PJM/{year}/{rng.randint(1, 12):02d}/{rng.randint(10000, 99999)}    | "
            f"{_rp(v):>9} | {_rp(v + d):>9} | {d:>7} |"
            for v, d in (
                (rng.randint(300, 2500) * 1000 + rng.randint(1, 999), rng.randint(1, 99))
                for _ in range(3)
            )
        )
        + "\n| ...                  |           |           |         |\n"
        "+----------------------+-----------+-----------+---------+\n"
        f"{beda} dari {aktif} pinjaman berbeda; total selisih sepanjang tenor: "
        f"Rp {total_s}",
    )
    b.assistant(
        f"Ketemu sumbernya. `jadwalFlat` membulatkan pokok dan bunga masing-masing ke rupiah "
        f"terdekat, jadi tiap bulan hasilnya sedikit beda dengan kartu manual, dan sisanya "
        f"tidak pernah dikoreksi di angsuran terakhir. Audit: {beda} dari {aktif} pinjaman "
        f"aktif terdampak, total selisih Rp {total_s} sepanjang tenor. Untuk {pjm} "
        f"selisihnya Rp {_rp(manual - app_val)} per bulan."
    )
    req = ""
    if "rename" in arts:
        req += (
            "\n\nOh ya, sekalian: LaporanBulananExport tolong ganti nama jadi "
            "RekapAngsuranExport, biar sama dengan nama menu yang dipakai bendahara."
        )
    if "seeder" in arts:
        req += "\n\nDan DummyAnggotaSeeder hapus saja, kemarin hampir ke-run di server produksi."
    month_idx = rng.randrange(12)
    bulan, month_en = _BULAN_ID[month_idx], _MONTHS_EN[month_idx]
    if decision == "bulat":
        b.user("Terus perbaikannya bagaimana?")
        b.assistant(
            "Usul saya: hitung angsuran sekali dari total (pokok + bunga) lalu bulatkan ke "
            "rupiah terdekat dengan `round()`, dan sisa pembulatan diselesaikan di angsuran "
            "terakhir. Dengan begitu total per pinjaman tepat sama dengan pokok + bunga."
        )
        b.user(
            rng.choice(
                (
                    "Jangan ke rupiah terdekat. Sesuai keputusan RAT, angsuran dibulatkan ke "
                    f"atas ke kelipatan Rp {kel}, selisihnya dikurangkan di angsuran "
                    f"terakhir. Begitu juga {bendahara} menghitung di kartu.",
                    f"Hampir. Tapi pembulatannya ke atas, kelipatan Rp {kel} – itu sudah "
                    f"diputuskan RAT dan dipakai {bendahara} di kartu manual. Angsuran "
                    "terakhir yang menyesuaikan.",
                )
            )
            + req
        )
        probes.append(
            Probe(
                "decision",
                "How are instalments to be rounded?",
                f"Up to the next multiple of Rp {kel} (decided by the members' annual "
                "meeting), with the last instalment absorbing the difference; not to the "
                "nearest rupiah.",
                (
                    (
                        f"Rp {kel}",
                        f"Rp{kel}",
                        f"Rp. {kel}",
                        f"kelipatan {kel}",
                        f"{kel} rupiah",
                        f"multiple of {kel}",
                        f"multiples of {kel}",
                        f"nearest {kel}",
                        f"IDR {kel}",
                    ),
                    ("bulat", "round"),
                ),
            )
        )
        aturan = f"dibulatkan ke atas ke kelipatan Rp {kel}"
    elif decision == "lama":
        b.user("Terus perbaikannya bagaimana? Semua jadwal ikut berubah?")
        b.assistant(
            "Saya bisa perbaiki rumusnya lalu menghitung ulang jadwal semua pinjaman aktif "
            "dengan `php artisan angsuran:regenerasi`, supaya semua konsisten."
        )
        b.user(
            rng.choice(
                (
                    "Rumusnya diperbaiki, iya. Tapi jadwal pinjaman lama jangan diubah – Pak "
                    "Ketua sudah putuskan, perhitungan baru hanya berlaku untuk pinjaman yang "
                    f"cair mulai 1 {bulan}.",
                    "Jangan regenerasi semua. Sudah dibahas dengan pengurus: pinjaman yang "
                    f"cair mulai 1 {bulan} pakai rumus baru, pinjaman lama tetap dengan "
                    "jadwal yang sudah ditandatangani anggota.",
                )
            )
            + req
        )
        probes.append(
            Probe(
                "decision",
                "Which loans does the corrected instalment calculation apply to?",
                f"Only to loans disbursed from 1 {month_en} on; existing loans keep their "
                "signed schedules (decided by the board/chairman).",
                (
                    (f"1 {bulan}", f"1 {month_en}", f"{month_en} 1"),
                    ("pinjaman", "loan", "jadwal", "schedule", "cair", "disburs"),
                ),
            )
        )
        aturan = f"rumus baru hanya untuk pinjaman cair mulai 1 {bulan}"
    else:
        b.user("Terus perbaikannya bagaimana?")
        b.assistant(
            "Rumus pembulatannya saya perbaiki. Sekalian pertimbangan: banyak koperasi sudah "
            "pindah dari bunga flat ke anuitas/efektif, lebih adil untuk anggota yang "
            "melunasi lebih cepat. Mau sekalian disiapkan?"
        )
        b.user(
            rng.choice(
                (
                    "Sudah dibahas di rapat pengurus kemarin: bunga tetap flat "
                    f"{str(bunga).replace('.', ',')}% per bulan, tidak pindah ke anuitas. "
                    "Perbaiki pembulatannya saja.",
                    "Jangan. Pengurus kemarin memutuskan tetap pakai bunga flat, anggota "
                    "sudah paham cara hitungnya. Cukup pembulatannya yang dibetulkan.",
                )
            )
            + req
        )
        probes.append(
            Probe(
                "decision",
                "What did the board decide about the interest method?",
                "Interest stays flat (no switch to annuity/effective rate); only the "
                "rounding gets fixed.",
                (("flat",), ("bunga", "interest", "rate", "%", "anuitas", "annuit")),
            )
        )
        aturan = "bunga tetap flat"
    b.tool(
        "Saya perbaiki `jadwalFlat`.",
        "apply_patch",
        {
            "patch": "*** Begin Patch\n*** Update File: app/Services/AngsuranCalculator.php\n"
            "@@\n-            'pokok' => round($pokokPerBulan),\n"
            "-            'bunga' => round($bungaPerBulan),\n"
            "-            'total' => round($pokokPerBulan) + round($bungaPerBulan),\n"
            "+            'total' => $ke < $p->tenor ? $angsuran : $sisaTerakhir,\n"
            "*** End Patch"
        },
        "Success. Updated the following files:\nM app/Services/AngsuranCalculator.php",
    )
    if "migration" in arts:
        mig = (
            f"{year}_{month:02d}_{day:02d}_{rng.randint(80000, 165959):06d}"
            "_add_metode_pembulatan_to_pinjaman_table"
        )
        b.tool(
            "Metode pembulatan disimpan per pinjaman, supaya jadwal bisa dihitung ulang "
            "persis sama. Migrasinya:",
            "shell",
            {
                "cmd": "php artisan make:migration add_metode_pembulatan_to_pinjaman_table "
                "&& php artisan migrate"
            },
            f"\n   INFO  Migration [database/migrations/{mig}.php] created successfully.\n\n"
            "\n   INFO  Running migrations.\n\n"
            f"  {mig} {'.' * rng.randint(6, 20)} {rng.randint(20, 140)}ms DONE\n",
        )
        probes.append(
            Probe(
                "artifact",
                "What happened to the migration that adds the rounding method to loans?",
                f"{mig} was created and run (php artisan migrate: DONE).",
                (
                    ("add_metode_pembulatan",),
                    (
                        "done",
                        "migrat",
                        "dijalankan",
                        "berhasil",
                        "applied",
                        "sukses",
                        "success",
                        "ran ",
                    ),
                ),
            )
        )
    pest = [
        f"   PASS  Tests\\Unit\\SimpananWajibTest\n  ✓ setoran bulanan "
        f"{rng.randint(1, 9) / 100:.2f}s",
        f"   PASS  Tests\\Feature\\PencairanPinjamanTest\n  ✓ pencairan membuat jadwal "
        f"{rng.randint(1, 30) / 100:.2f}s\n  ✓ pencairan ditolak tanpa persetujuan "
        f"{rng.randint(1, 9) / 100:.2f}s",
    ]
    n = 3
    if "test" in arts:
        b.tool(
            f"Saya tulis tes yang mengunci kasus {pjm} dan kasus tenor ganjil.",
            "write_file",
            {
                "path": "tests/Feature/JadwalAngsuranTest.php",
                "content": "<?php\n\nuse App\\Models\\Pinjaman;\nuse App\\Services\\"
                "AngsuranCalculator;\n\nit('total jadwal sama dengan pokok + bunga', "
                "function () {\n    ...",
            },
            "Wrote 58 lines to tests/Feature/JadwalAngsuranTest.php",
        )
        pest.append(
            "   PASS  Tests\\Feature\\JadwalAngsuranTest\n"
            f"  ✓ total jadwal sama dengan pokok + bunga {rng.randint(1, 20) / 100:.2f}s\n"
            f"  ✓ angsuran terakhir menampung sisa {rng.randint(1, 9) / 100:.2f}s\n"
            f"  ✓ kasus kartu manual {rng.randint(1, 9) / 100:.2f}s"
        )
        n += 3
        probes.append(
            Probe(
                "artifact",
                "Which test file was added for the instalment schedule, and did it pass?",
                "tests/Feature/JadwalAngsuranTest.php was written; all three of its tests passed.",
                (
                    ("JadwalAngsuranTest",),
                    ("pass", "lulus", "berhasil", "hijau", "green", "lolos", "sukses"),
                ),
            )
        )
    b.tool(
        "Jalankan tes.",
        "shell",
        {"cmd": "php artisan test"},
        "\n\n".join(pest) + f"\n\n  Tests:    {n} passed ({n * 2 + rng.randint(0, 6)} assertions)\n"
        f"  Duration: {rng.randint(40, 300) / 100:.2f}s",
    )
    if "rename" in arts or "seeder" in arts:
        cmds, lines = [], []
        if "rename" in arts:
            cmds.append(
                "git mv app/Exports/LaporanBulananExport.php app/Exports/RekapAngsuranExport.php"
                " && sed -i 's/LaporanBulananExport/RekapAngsuranExport/g' "
                "app/Exports/RekapAngsuranExport.php app/Http/Controllers/LaporanController.php"
            )
            lines.append(
                "\trenamed:    app/Exports/LaporanBulananExport.php -> "
                "app/Exports/RekapAngsuranExport.php"
            )
        if "seeder" in arts:
            cmds.append(
                "git rm -q database/seeders/DummyAnggotaSeeder.php && sed -i "
                "'/DummyAnggotaSeeder/d' database/seeders/DatabaseSeeder.php"
            )
            lines.append("\tdeleted:    database/seeders/DummyAnggotaSeeder.php")
        b.tool(
            "Tes hijau. Sekarang permintaan tambahan tadi.",
            "shell",
            {"cmd": " && ".join(cmds) + " && git add -A && git status"},
            "On branch main\nYour branch is up to date with 'origin/main'.\n\n"
            "Changes to be committed:\n"
            '  (use "git restore --staged <file>..." to unstage)\n' + "\n".join(sorted(lines)),
        )
        if "rename" in arts:
            probes.append(
                Probe(
                    "artifact",
                    "What happened to the LaporanBulananExport class?",
                    "It was renamed to RekapAngsuranExport (git mv, references updated), to "
                    "match the treasurer's menu name.",
                    (
                        ("RekapAngsuranExport",),
                        (
                            "renam",
                            "ganti nama",
                            "diganti",
                            "ubah nama",
                            "diubah",
                            "dinamai",
                            "berganti",
                            "git mv",
                        ),
                    ),
                )
            )
        if "seeder" in arts:
            probes.append(
                Probe(
                    "artifact",
                    "What happened to DummyAnggotaSeeder?",
                    "database/seeders/DummyAnggotaSeeder.php was deleted (git rm) after it "
                    "nearly ran on production.",
                    (
                        ("DummyAnggotaSeeder",),
                        (
                            "dihapus",
                            "hapus",
                            "deleted",
                            "removed",
                            "delet",
                            "remov",
                            "git rm",
                            "dibuang",
                        ),
                    ),
                )
            )
    commit = hexits(rng, 7)
    b.tool(
        "Commit.",
        "shell",
        {
            "cmd": f"git commit -am 'Perbaiki pembulatan angsuran flat ({ticket})' && git push "
            "origin main"
        },
        f"[main {commit}] Perbaiki pembulatan angsuran flat ({ticket})\n"
        f" {rng.randint(3, 7)} files changed, {rng.randint(40, 140)} insertions(+), "
        f"{rng.randint(4, 30)} deletions(-)",
    )
    b.assistant(
        f"Sudah di-push ({commit}). Rumus baru: angsuran dihitung dari total, {aturan}, "
        f"angsuran terakhir menampung sisanya. Tiket {ticket} saya beri komentar dengan "
        "hasil audit."
    )
    hari = rng.randrange(6)
    if step == "rat":
        b.user(
            rng.choice(
                (
                    f"Terima kasih. Sebelum RAT hari {_HARI_ID[hari]}, saya perlu laporan "
                    "selisih per anggota untuk dibacakan pengawas. Bisa disiapkan?",
                    "Makasih. Satu lagi: pengawas minta laporan selisih per anggota, harus "
                    f"siap sebelum RAT hari {_HARI_ID[hari]}.",
                )
            )
        )
        b.assistant(
            "Bisa. Saya ekspor hasil `angsuran:audit` per anggota ke Excel (nomor pinjaman, "
            f"nama, selisih per bulan, total), siap sebelum hari {_HARI_ID[hari]}."
        )
        probes.append(
            Probe(
                "next_step",
                "What report is still due, and by when?",
                "A per-member report of the instalment differences for the supervisors, "
                f"ready before the members' annual meeting (RAT) on {_DAYS6_EN[hari]}.",
                (
                    ("laporan", "report", "rekap", "daftar", "list", "ekspor", "export"),
                    (_HARI_ID[hari].lower(), _DAYS6_EN[hari].lower()),
                ),
            )
        )
    elif step == "rekon":
        b.user(
            f"Terima kasih. Untuk produksi: tunggu {bendahara} selesai rekonsiliasi saldo "
            "rekening bank bulan ini, baru setelah itu jalankan `php artisan "
            "angsuran:regenerasi` di server. Jangan sebelum itu."
        )
        b.assistant(
            f"Siap, saya tahan `angsuran:regenerasi` di produksi sampai {bendahara} "
            "mengonfirmasi rekonsiliasi selesai."
        )
        probes.append(
            Probe(
                "next_step",
                "When may the schedule regeneration run on production?",
                f"Only after {bendahara} has finished reconciling this month's bank "
                "balances; then run php artisan angsuran:regenerasi.",
                (("regenera",), ("rekonsil", "reconcil", "konfirm", "confirm", "saldo", "balance")),
            )
        )
    else:
        b.user("Terima kasih banyak. Ada yang masih perlu dikerjakan?")
        b.assistant(
            rng.choice(
                (
                    "Satu hal: besok saya siapkan draf surat pemberitahuan untuk anggota "
                    "yang angsurannya berubah, supaya tidak kaget saat bayar bulan depan.",
                    "Masih ada: anggota yang angsurannya berubah perlu diberi tahu. Draf "
                    "surat pemberitahuannya saya siapkan besok pagi.",
                )
            )
        )
        probes.append(
            Probe(
                "next_step",
                "What did the agent promise to prepare?",
                "A draft notification letter to the members whose instalments change, tomorrow.",
                (
                    ("anggota", "member"),
                    (
                        "pemberitahuan",
                        "notif",
                        "surat",
                        "letter",
                        "inform",
                        "kabar",
                        "pesan",
                        "message",
                    ),
                ),
            )
        )
    probes += [
        Probe("identifier", "Which loan did the member complain about?", pjm, ((pjm,),)),
        Probe(
            "identifier",
            "What is the ticket number for the rounding complaint?",
            ticket,
            ((ticket,),),
        ),
        Probe(
            "identifier",
            "What total difference did the audit of active loans find (in rupiah)?",
            f"Rp {total_s} over the loans' terms ({beda} of {aktif} active loans differ).",
            ((total_s,),),
        ),
    ]
    opening = b.take()
    fill = _filler(b, _koperasi_fillers(kop, {pjm, ticket, total_s, commit}))
    return opening, segments_of(rng, b, segments, fill), probes


def _koperasi_fillers(kop: str, avoid: set[str]) -> tuple[Filler, ...]:
    def rupiah(rng: random.Random, lo: int, hi: int) -> str:
        return _fresh(rng, lambda r: _rp(r.randint(lo, hi)), avoid)

    def shu(rng: random.Random, b: Builder) -> None:
        b.user("Berapa total jasa pinjaman tahun lalu? Untuk bahan hitung SHU.")
        v = rupiah(rng, 40_000_000, 400_000_000)
        b.tool(
            "Saya jumlahkan dari tabel pembayaran.",
            "shell",
            {
                "cmd": 'php artisan tinker --execute="echo number_format(App\\Models\\'
                "Pembayaran::whereYear('tanggal', now()->subYear()->year)->sum('bunga'), 0, "
                "',', '.');\""
            },
            v,
        )
        b.assistant(
            f"Total jasa pinjaman tahun lalu Rp {v}. Angka ini dari pembayaran yang sudah "
            "masuk, belum termasuk tunggakan."
        )

    def composer(rng: random.Random, b: Builder) -> None:
        b.user("Paket composer ada yang perlu diupdate?")
        pk = [
            ("laravel/framework", f"10.{rng.randint(10, 48)}.{rng.randint(0, 9)}", "11.34.2"),
            ("barryvdh/laravel-dompdf", f"2.{rng.randint(0, 2)}.1", "3.0.0"),
            ("maatwebsite/excel", f"3.1.{rng.randint(40, 55)}", "3.1.61"),
            ("spatie/laravel-permission", f"5.{rng.randint(5, 11)}.0", "6.10.1"),
        ]
        rng.shuffle(pk)
        b.tool(
            "composer outdated --direct:",
            "shell",
            {"cmd": "composer outdated --direct"},
            "\n".join(f"{n:<27} {v:<8} ! {lat:<8} ..." for n, v, lat in pk),
        )
        b.assistant(
            "Yang major: laravel/framework dan laravel-permission – itu sebaiknya proyek "
            "tersendiri. maatwebsite/excel aman diupdate sekarang."
        )

    def slip(rng: random.Random, b: Builder) -> None:
        b.user("Slip angsuran PDF hurufnya jadi kotak-kotak untuk nama yang pakai tanda petik.")
        b.tool(
            "Saya lihat template slipnya.",
            "shell",
            {"cmd": "grep -n font-family resources/views/pdf/slip-angsuran.blade.php"},
            f"{rng.randint(8, 30)}:        body {{ font-family: 'Arial'; font-size: 11px; }}",
        )
        b.tool(
            "dompdf tidak membawa Arial; saya ganti ke DejaVu Sans yang sudah dibundel.",
            "apply_patch",
            {
                "patch": "*** Begin Patch\n*** Update File: resources/views/pdf/"
                "slip-angsuran.blade.php\n@@\n-        body { font-family: 'Arial'; "
                "font-size: 11px; }\n+        body { font-family: 'DejaVu Sans'; font-size: "
                "11px; }\n*** End Patch"
            },
            "Success. Updated the following files:\nM resources/views/pdf/slip-angsuran.blade.php",
        )
        b.assistant("Font slip sekarang DejaVu Sans, tanda petik dan huruf lain tampil benar.")

    def backup(rng: random.Random, b: Builder) -> None:
        b.user("Backup database semalam jalan tidak?")
        size = rng.randint(80, 400)
        mon, tgl = rng.randrange(12), rng.randint(10, 25)
        b.tool(
            "Saya cek folder backup.",
            "shell",
            {"cmd": "ls -lh /var/backups/simpin/ | tail -n 3"},
            "\n".join(
                f"-rw-r----- 1 backup backup {size + i}M {_MON[mon]} {tgl + i:2d} 02:00 "
                f"simpin-{mon + 1:02d}{tgl + i:02d}.sql.gz"
                for i in range(3)
            ),
        )
        b.assistant(
            f"Jalan, file terakhir {size + 2} MB, ukurannya wajar dibanding hari sebelumnya."
        )

    def nik(rng: random.Random, b: Builder) -> None:
        b.user("Form anggota baru masih bisa disimpan dengan NIK 15 digit. Tolong divalidasi.")
        b.tool(
            "Saya tambahkan aturan di form request.",
            "apply_patch",
            {
                "patch": "*** Begin Patch\n*** Update File: app/Http/Requests/"
                "AnggotaRequest.php\n@@\n-            'nik' => ['required'],\n"
                "+            'nik' => ['required', 'digits:16', 'unique:anggota,nik'],\n"
                "*** End Patch"
            },
            "Success. Updated the following files:\nM app/Http/Requests/AnggotaRequest.php",
        )
        k = rng.randint(3, 6)
        b.tool(
            "Tes form anggota:",
            "shell",
            {"cmd": "php artisan test --filter=AnggotaFormTest"},
            f"   PASS  Tests\\Feature\\AnggotaFormTest\n  Tests:    {k} passed",
        )
        b.assistant(f"NIK sekarang wajib 16 digit dan unik di {kop}; {k} tes form lulus.")

    return (shu, composer, slip, backup, nik)


# --------------------------------------------------------------------------------------
# erecept_cz: a pharmacy chain's e-prescription dispensing (Czech)
# --------------------------------------------------------------------------------------

_SITE_CZ = (
    ("Olomouc", "OL"),
    ("Brno", "BR"),
    ("Plzeň", "PL"),
    ("Hradec Králové", "HK"),
    ("Liberec", "LB"),
    ("České Budějovice", "CB"),
    ("Zlín", "ZL"),
)
# (in "v/ve ..." form, the stems a summary in Czech or English would use)
_DNY_CZ = (
    ("v pondělí", ("pondělí", "pondeli", "monday")),
    ("v úterý", ("úterý", "utery", "tuesday")),
    ("ve středu", ("střed", "stred", "wednesday")),
    ("ve čtvrtek", ("čtvrt", "ctvrt", "thursday")),
    ("v pátek", ("pátek", "pátku", "patek", "patku", "friday")),
)
_ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def _erecept(rng: random.Random, b: Builder, segments: int) -> Parts:
    mesto, kod = rng.choice(_SITE_CZ)
    host = f"LV-{kod}{rng.randint(10, 49)}-APP"
    erp = token(rng, 12, _ALNUM)
    major, minor = rng.randint(4, 6), rng.randint(1, 9)
    patch_old = rng.randint(10, 29)
    old_ver = f"{major}.{minor}.{patch_old}"
    new_ver = f"{major}.{minor + 1}.{rng.randint(10, 19)}"
    year, month, day = _date(rng)
    arts = rng.sample(("migration", "cert", "test", "toggle"), 2)
    decision = rng.choice(("rucne", "pokusy", "nasazeni"))
    step = rng.choice(("sukl", "wsdl", "navod"))
    timeout = rng.choice((20, 30, 45))
    t0 = rng.randint(8 * 3600, 17 * 3600)

    def t(offset: int) -> str:
        x = t0 + offset
        return f"{x // 3600:02d}:{x // 60 % 60:02d}:{x % 60:02d}"

    probes: list[Probe] = []

    b.user(
        rng.choice(
            (
                f"Dobrý den, volala vedoucí z pobočky {mesto}: nejde jim vydat eRecept "
                f"{erp}. Aplikace hlásí, že recept je zablokovaný rozpracovaným výdejem, "
                "pacientka čeká u okénka. Server pobočky je "
                f"{host}. Můžete se podívat?",
                f"Ahoj, máme hořící problém na pobočce {mesto} ({host}). Recept {erp} nejde "
                "vydat, prý je 'zablokován rozpracovaným výdejem'. Nikdo ho přitom "
                "nevydával. Podíváš se na to?",
            )
        )
    )
    b.tool(
        "Podívám se do logu výdejové služby na pobočce.",
        "shell",
        {
            "cmd": f'ssh {host} "Get-Content D:\\LekVydej\\logs\\vydej-{year}{month:02d}'
            f"{day:02d}.log | Select-String -Context 0,4 '{erp}'\""
        },
        f"[{t(0)} INF] Výdej receptu {erp}: odesílám zapisVydej ({rng.randint(1, 4)} "
        "položky)\n"
        f"[{t(timeout)} ERR] Výdej receptu {erp} selhal\n"
        "System.Threading.Tasks.TaskCanceledException: The request was canceled due to the "
        f"configured HttpClient.Timeout of {timeout} seconds elapsing.\n"
        "   at Lekarny.Cuer.Klient.CuerSoapClient.ZapisVydejAsync(ZapisVydejRequest "
        "request, CancellationToken ct)\n"
        "   at Lekarny.Vydej.Sluzby.VydejService.DokoncitVydejAsync(String erpId, Kosik "
        "kosik) in D:\\a\\lek-vydej\\src\\Vydej\\Sluzby\\VydejService.cs:line 118\n"
        f"[{t(timeout)} INF] Opakuji výdej receptu {erp} (pokus 2)\n"
        f"[{t(timeout + 1)} ERR] CÚER vrátil chybu: soap:Client – Recept "
        f"{erp} je zablokován rozpracovaným výdejem.",
    )
    b.tool(
        "První pokus spadl na timeout, druhý už narazil na blokaci. Co dělá "
        "`DokoncitVydejAsync` při timeoutu:",
        "read_file",
        {"path": "src/Vydej/Sluzby/VydejService.cs", "start_line": 104, "end_line": 131},
        "104          public async Task<VysledekVydeje> DokoncitVydejAsync(string erpId, "
        "Kosik kosik)\n"
        "105          {\n"
        "106              for (var pokus = 1; pokus <= _nastaveni.MaxPokusu; pokus++)\n"
        "107              {\n"
        "108                  try\n"
        "109                  {\n"
        "110                      var odpoved = await _cuer.ZapisVydejAsync(\n"
        "111                          VytvorPozadavek(erpId, kosik), CancellationToken.None);\n"
        "112                      return VysledekVydeje.Ok(odpoved.IdVydeje);\n"
        "113                  }\n"
        "114                  catch (TaskCanceledException ex)\n"
        "115                  {\n"
        '116                      _log.LogError(ex, "Výdej receptu {ErpId} selhal", erpId);\n'
        '117                      _log.LogInformation("Opakuji výdej receptu {ErpId} (pokus '
        '{Pokus})", erpId, pokus + 1);\n'
        "118                  }\n"
        "119              }\n"
        '120              return VysledekVydeje.Chyba("Výdej se nepodařilo dokončit");\n'
        "121          }",
    )
    b.tool(
        "A jakou verzi klienta CÚER pobočka používá:",
        "shell",
        {"cmd": "dotnet list src/Vydej/Vydej.csproj package | findstr Cuer"},
        f"   > Lekarny.Cuer.Klient      {old_ver}      {old_ver}",
    )
    b.assistant(
        f"Příčina: první `ZapisVydej` pro {erp} trval déle než {timeout} s, HttpClient ho "
        "utnul, ale CÚER výdej mezitím založil – jako rozpracovaný. Náš kód po timeoutu "
        "jen slepě opakuje zápis, a ten už na rozpracovaný výdej narazí. Chybí krok, který "
        "po timeoutu zjistí stav výdeje a náš rozpracovaný výdej buď dokončí, nebo zruší.\n\n"
        f"Klient `Lekarny.Cuer.Klient` {old_ver} metodu pro zrušení rozpracovaného výdeje "
        f"nemá; přibyla až ve {new_ver}."
    )
    cert_req = ""
    if "cert" in arts:
        cert_req = (
            "\n\nA když už jsi v repu: certs/cuer-test-2023.pfx tam pořád leží, ten "
            "certifikát vypršel, smaž ho prosím."
        )
    if decision == "rucne":
        minut = rng.choice((5, 10, 15))
        b.user("Jak to opravíš, aby se to neopakovalo?")
        b.assistant(
            f"Navrhuji: aktualizovat klienta na {new_ver}, po timeoutu se zeptat CÚER na stav "
            f"výdeje a rozpracovaný výdej starší než {minut} minut automaticky zrušit, aby "
            "se recept uvolnil bez zásahu obsluhy."
        )
        b.user(
            rng.choice(
                (
                    "Aktualizace a dotaz na stav ano. Ale automaticky nic nerušit! Vedoucí "
                    "farmaceutka trvá na tom, že rozpracovaný výdej se ruší jen ručně, po "
                    "potvrzení farmaceutem – mohl už odejít lék a pak bychom měli v CÚER "
                    "nesmysl.",
                    "Tohle ne. Zrušení rozpracovaného výdeje musí vždycky ručně potvrdit "
                    "farmaceut, automat ho rušit nesmí – tak to chce vedoucí farmaceutka. "
                    "Aplikace ať jen ukáže, co v CÚER visí.",
                )
            )
            + cert_req
        )
        probes.append(
            Probe(
                "decision",
                "May the app cancel a stuck (in-progress) dispensing automatically?",
                "No: in-progress dispensings are only cancelled manually, confirmed by a "
                "pharmacist; the app just shows what is pending in CÚER.",
                (
                    (
                        "ručn",
                        "rucn",
                        "manual",
                        "farmaceut",
                        "pharmacist",
                        "člověk",
                        "human",
                        "potvrd",
                        "potvrz",
                        "confirm",
                    ),
                    ("zruš", "zrus", "ruší", "ruši", "rusi", "cancel"),
                ),
            )
        )
        pravidlo = "rozpracovaný výdej se po timeoutu zobrazí farmaceutovi k ručnímu zrušení"
    elif decision == "pokusy":
        navrh = rng.choice((5, 6))
        k = rng.choice((2, 3))
        b.user("Jak to opravíš? A kolikrát to má zkoušet znovu?")
        b.assistant(
            f"Aktualizuji klienta na {new_ver}; po timeoutu se nejdřív zeptám CÚER na stav "
            "výdeje a teprve pak případně zopakuji zápis. Počet pokusů bych zvedl na "
            f"{navrh}, s rostoucí pauzou."
        )
        b.user(
            rng.choice(
                (
                    f"{navrh} je moc, pacient u okénka nečeká minutu. Stačí {k} pokusy, pak "
                    "ať to aplikace vrátí farmaceutovi s jasnou hláškou.",
                    f"Dotaz na stav super. Pokusy ale maximálně {k}, víc ne – u okénka stojí "
                    "fronta. Potom hlášku pro farmaceuta.",
                )
            )
            + cert_req
        )
        probes.append(
            Probe(
                "decision",
                "How many dispensing attempts were agreed?",
                f"At most {k} attempts (not the {navrh} proposed), then the app hands it back "
                "to the pharmacist with a clear message.",
                (
                    (
                        f"{k} pokus",
                        f"{k} opakov",
                        f"{k} retr",
                        f"{k} attempt",
                        f"{k} tries",
                        f"{k} times",
                        f"{k}×",
                        f"maximálně {k}",
                        f"max {k}",
                        f"maximum {k}",
                        f"maximum of {k}",
                        f"at most {k}",
                        f"nejvýše {k}",
                    ),
                ),
            )
        )
        pravidlo = f"nejvýše {k} pokusy o zápis výdeje"
    else:
        hh = rng.choice((19, 20, 21))
        b.user("Jak to opravíš, aby se to neopakovalo?")
        b.assistant(
            f"Aktualizuji klienta na {new_ver} a po timeoutu se nejdřív zeptám CÚER na stav "
            "výdeje – rozpracovaný výdej naší pobočky pak dokončím, místo abych zápis "
            "opakoval naslepo. Mám to pak rovnou nasadit na všechny pobočky?"
        )
        b.user(
            rng.choice(
                (
                    "Ráno jsem to řešil s vedoucím IT a rozhodl: na pobočky se nasazuje "
                    f"jen po zavírací době, tedy po {hh}:00. Přes den nic, ani hotfix.",
                    f"Ne přes den. Šéf IT to uzavřel: nasazení na pobočky vždy až po {hh}:00, "
                    "kdy jsou zavřené, i kdyby hořelo.",
                )
            )
            + cert_req
        )
        probes.append(
            Probe(
                "decision",
                "When may releases be deployed to the branches?",
                f"Only after closing time, i.e. after {hh}:00 (decided by the head of IT); "
                "never during the day.",
                (
                    (
                        f"{hh}:00",
                        f"{hh}.00",
                        f"{hh} h",
                        f"{hh}h",
                        f"po {hh}",
                        f"{hh - 12} pm",
                        f"{hh - 12}pm",
                        f"{hh - 12}:00 pm",
                    ),
                    (
                        "nasaz",
                        "deploy",
                        "rollout",
                        "release",
                        "pobočk",
                        "pobock",
                        "branch",
                        "zavír",
                        "zavir",
                        "clos",
                    ),
                ),
            )
        )
        pravidlo = f"nasazení na pobočky až po {hh}:00"
    b.tool(
        f"Aktualizuji klienta CÚER na {new_ver}.",
        "shell",
        {"cmd": f"dotnet add src/Vydej/Vydej.csproj package Lekarny.Cuer.Klient -v {new_ver}"},
        "  Determining projects to restore...\n"
        "info : Adding PackageReference for package 'Lekarny.Cuer.Klient' into project "
        "'src/Vydej/Vydej.csproj'.\n"
        f"info : PackageReference for package 'Lekarny.Cuer.Klient' version '{new_ver}' "
        "updated in file 'src/Vydej/Vydej.csproj'.\n"
        "info : Writing assets file to disk. Path: src/Vydej/obj/project.assets.json\n"
        "log  : Restored src/Vydej/Vydej.csproj (in 1,84 sec).",
    )
    b.tool(
        "Po timeoutu teď nejdřív zjistím stav výdeje.",
        "apply_patch",
        {
            "patch": "*** Begin Patch\n*** Update File: src/Vydej/Sluzby/VydejService.cs\n@@\n"
            "                 catch (TaskCanceledException ex)\n                 {\n"
            '                     _log.LogError(ex, "Výdej receptu {ErpId} selhal", erpId);\n'
            "+                    var stav = await _cuer.NactiStavVydejeAsync(erpId, "
            "_nastaveni.Pracoviste);\n"
            "+                    if (stav.JeRozpracovany) return await VyresRozpracovany("
            "erpId, stav);\n*** End Patch"
        },
        "Success. Updated the following files:\nM src/Vydej/Sluzby/VydejService.cs",
    )
    if "migration" in arts:
        stamp = f"{year}{month:02d}{day:02d}{rng.randint(70000, 175959):06d}"
        b.tool(
            "Stav rozpracovaných výdejů si budeme držet i lokálně (kdy vznikl, kdy "
            "vyprší); migrace:",
            "shell",
            {
                "cmd": "dotnet ef migrations add AddVydejZamekExpirace -p src/Vydej && "
                "dotnet ef database update -p src/Vydej"
            },
            "Build started...\nBuild succeeded.\n"
            "Done. To undo this action, use 'ef migrations remove'\n"
            "Build started...\nBuild succeeded.\n"
            f"Applying migration '{stamp}_AddVydejZamekExpirace'.\nDone.",
        )
        probes.append(
            Probe(
                "artifact",
                "What happened to the EF Core migration for the dispensing lock?",
                f"{stamp}_AddVydejZamekExpirace was created and applied (dotnet ef database "
                "update).",
                (
                    ("AddVydejZamekExpirace",),
                    (
                        "apply",
                        "aplikov",
                        "použit",
                        "pouzit",
                        "migrov",
                        "migrat",
                        "nasazen",
                        "proveden",
                        "spušt",
                        "spust",
                    ),
                ),
            )
        )
    testy = [
        "Lekarny.Vydej.Tests.KosikTests.PrazdnyKosikNelzeVydat",
        "Lekarny.Vydej.Tests.KosikTests.DoplatekSeSpocitaZeSazby",
        "Lekarny.Vydej.Tests.VydejServiceTests.UspesnyVydejVratiId",
    ]
    if "test" in arts:
        testy += [
            "Lekarny.Vydej.Tests.VydejRetryTests.PoTimeoutuSeNactеStav".replace("е", "e"),
            "Lekarny.Vydej.Tests.VydejRetryTests.RozpracovanyVydejSeNeopakuje",
        ]
    lines = [f"  Passed {name} [{rng.randint(2, 90)} ms]" for name in sorted(testy)]
    b.tool(
        "Testy"
        + (
            " (nové `VydejRetryTests` simulují timeout a rozpracovaný výdej)"
            if "test" in arts
            else ""
        )
        + ":",
        "shell",
        {"cmd": 'dotnet test tests/Vydej.Tests --logger "console;verbosity=normal"'},
        "\n".join(lines)
        + f"\n\nTest Run Successful.\nTotal tests: {len(testy)}\n     Passed: {len(testy)}\n"
        f" Total time: {rng.uniform(1, 4):.4f} Seconds",
    )
    if "test" in arts:
        probes.append(
            Probe(
                "artifact",
                "What test class was added for the timeout case, and how did it do?",
                "VydejRetryTests (timeout then in-progress dispensing) was added; its tests "
                "passed.",
                (
                    ("VydejRetryTests",),
                    ("passed", "pass", "prošl", "prosl", "úspěš", "uspes", "zelen", "green", "ok"),
                ),
            )
        )
    staged = [
        "\tmodified:   src/Vydej/Sluzby/VydejService.cs",
        "\tmodified:   src/Vydej/Vydej.csproj",
    ]
    cmd = "git add -A && git status"
    if "cert" in arts:
        staged.insert(0, "\tdeleted:    certs/cuer-test-2023.pfx")
        cmd = "git rm -q certs/cuer-test-2023.pfx && " + cmd
        probes.append(
            Probe(
                "artifact",
                "What happened to the expired CÚER test certificate?",
                "certs/cuer-test-2023.pfx was deleted from the repository (git rm).",
                (
                    ("cuer-test-2023.pfx",),
                    ("smaz", "odstran", "delet", "remov", "vymaz", "git rm"),
                ),
            )
        )
    if "toggle" in arts:
        b.tool(
            "Asynchronní výdej (zkušební režim z minulého měsíce) s novým postupem "
            "nepočítá; v produkční konfiguraci ho vypínám.",
            "apply_patch",
            {
                "patch": "*** Begin Patch\n*** Update File: src/Vydej/appsettings.Production.json"
                '\n@@\n-    "PouzitAsynchronniVydej": true,\n'
                '+    "PouzitAsynchronniVydej": false,\n*** End Patch'
            },
            "Success. Updated the following files:\nM src/Vydej/appsettings.Production.json",
        )
        staged.append("\tmodified:   src/Vydej/appsettings.Production.json")
        probes.append(
            Probe(
                "artifact",
                "What was done with the PouzitAsynchronniVydej setting?",
                "It was switched off (set to false) in appsettings.Production.json.",
                (
                    ("PouzitAsynchronniVydej",),
                    ("vypn", "false", "disabl", "off", "deaktiv"),
                ),
            )
        )
    b.tool(
        "Připravím změny ke commitu.",
        "shell",
        {"cmd": cmd},
        "On branch oprava/rozpracovany-vydej\n\nChanges to be committed:\n"
        '  (use "git restore --staged <file>..." to unstage)\n'
        + "\n".join(staged)
        + ("\n\tnew file:   tests/Vydej.Tests/VydejRetryTests.cs" if "test" in arts else "")
        + (
            "\n\tnew file:   src/Vydej/Migrations/AddVydejZamekExpirace.cs"
            if "migration" in arts
            else ""
        ),
    )
    b.assistant(
        f"Hotovo ve větvi `oprava/rozpracovany-vydej`: klient CÚER {new_ver} (z {old_ver}), "
        f"po timeoutu dotaz na stav výdeje; {pravidlo}. Recept {erp} na pobočce {mesto} "
        "jsem zatím neřešil – ten visí v CÚER a je potřeba ho uvolnit."
    )
    den, stems = _DNY_CZ[rng.randrange(5)]
    if step == "sukl":
        b.user(
            rng.choice(
                (
                    f"Díky. Ještě jedna věc: hlášení incidentu na SÚKL musí odejít nejpozději "
                    f"{den}. Připravíš mi podklady – časy, recept, co se stalo?",
                    f"Díky moc. Nezapomeň, že SÚKL chce hlášení o incidentu, termín máme "
                    f"{den}. Podklady bych potřeboval od tebe.",
                )
            )
        )
        b.assistant(
            "Připravím: časovou osu z logu, číslo receptu, příčinu (timeout + slepé "
            f"opakování) a opravu. Budeš to mít s předstihem, termín SÚKL je {den}."
        )
        probes.append(
            Probe(
                "next_step",
                "What is due to the state agency (SÚKL), and when?",
                f"The incident report to SÚKL, due {den} at the latest; the agent prepares "
                "the material (timeline, prescription, cause, fix).",
                (("súkl", "sukl"), stems),
            )
        )
    elif step == "wsdl":
        b.user(
            "Díky. SÚKL avizoval novou verzi WSDL ještě tento měsíc. Až ji zveřejní, "
            "přegeneruj prosím klienta a pusť integrační testy proti testovacímu CÚER."
        )
        b.assistant(
            "Beru na vědomí: po zveřejnění nového WSDL přegeneruji klienta a pustím "
            "integrační testy proti testovacímu prostředí."
        )
        probes.append(
            Probe(
                "next_step",
                "What has to be done when SÚKL publishes the new WSDL?",
                "Regenerate the CÚER client from it and run the integration tests against "
                "the CÚER test environment.",
                (
                    ("wsdl",),
                    ("přegener", "pregener", "regener", "vygener", "generat", "aktualiz", "update"),
                ),
            )
        )
    else:
        b.user("Díky. Je z tvé strany ještě něco otevřené?")
        b.assistant(
            rng.choice(
                (
                    "Ano – slíbil jsem si napsat pro lékárníky krátký návod, jak rozpracovaný "
                    "výdej v aplikaci najít a uvolnit. Pošlu ho zítra dopoledne.",
                    "Jedna věc: napíšu lékárníkům návod, jak postupovat, když recept visí v "
                    "rozpracovaném výdeji. Do zítřka ho budeš mít.",
                )
            )
        )
        probes.append(
            Probe(
                "next_step",
                "What did the agent promise to write?",
                "A short guide for the pharmacists on how to find and release a stuck "
                "in-progress dispensing, by tomorrow.",
                (
                    ("návod", "navod", "guide", "instructions", "manuál", "how-to", "postup"),
                    ("lékárn", "lekarn", "pharmac", "farmaceut"),
                ),
            )
        )
    probes += [
        Probe("identifier", "Which eRecept could not be dispensed?", erp, ((erp,),)),
        Probe(
            "identifier",
            "What is the server of the affected branch?",
            f"{host} (branch {mesto})",
            ((host,),),
        ),
        Probe(
            "identifier",
            "To which version was the Lekarny.Cuer.Klient package updated?",
            f"{new_ver} (from {old_ver})",
            ((new_ver,),),
        ),
    ]
    opening = b.take()
    fill = _filler(b, _erecept_fillers(kod, {erp, host, new_ver, old_ver}))
    return opening, segments_of(rng, b, segments, fill), probes


def _erecept_fillers(kod: str, avoid: set[str]) -> tuple[Filler, ...]:
    def server(rng: random.Random) -> str:
        return _fresh(rng, lambda r: f"LV-{kod}{r.randint(50, 99)}-APP", avoid)

    def index(rng: random.Random, b: Builder) -> None:
        b.user("Reporty výdejů jsou poslední dobou pomalé. Můžeš mrknout na indexy?")
        rows = "\n".join(
            f"{t:<22} {i:<34} {rng.randint(30, 95)}.{rng.randint(0, 9)}"
            for t, i in (
                ("dbo.VydejPolozka", "IX_VydejPolozka_VydejId"),
                ("dbo.Vydej", "IX_Vydej_Datum_Pracoviste"),
                ("dbo.Sklad", "PK_Sklad"),
            )
        )
        b.tool(
            "Fragmentace indexů:",
            "shell",
            {
                "cmd": 'sqlcmd -S sql-lek01 -d LekVydej -Q "SELECT OBJECT_SCHEMA_NAME(s.object_id)'
                "+'.'+OBJECT_NAME(s.object_id), i.name, s.avg_fragmentation_in_percent FROM "
                "sys.dm_db_index_physical_stats(DB_ID(),NULL,NULL,NULL,'LIMITED') s JOIN "
                'sys.indexes i ON ..."'
            },
            "tabulka                index                              fragmentace\n" + rows,
        )
        b.assistant(
            "Dva indexy mají fragmentaci přes 30 %, doporučuji `ALTER INDEX ... REBUILD` v "
            "noční údržbě. Pro reporty je klíčový `IX_Vydej_Datum_Pracoviste`."
        )

    def balicky(rng: random.Random, b: Builder) -> None:
        b.user("Jsou nějaké zastaralé NuGet balíčky?")
        pk = [
            ("Serilog.AspNetCore", f"7.0.{rng.randint(0, 2)}", "8.0.3"),
            ("Microsoft.EntityFrameworkCore", f"8.0.{rng.randint(1, 6)}", "8.0.11"),
            ("Polly", f"7.2.{rng.randint(1, 3)}", "8.5.0"),
            ("QuestPDF", f"2023.12.{rng.randint(1, 6)}", "2024.10.4"),
        ]
        rng.shuffle(pk)
        b.tool(
            "dotnet list package --outdated:",
            "shell",
            {"cmd": "dotnet list src/Vydej/Vydej.csproj package --outdated"},
            "Project `Vydej` has the following updates to its packages\n"
            "   [net8.0]:\n   Top-level Package                  Requested   Resolved   Latest\n"
            + "\n".join(f"   > {n:<32} {v:<11} {v:<10} {lat}" for n, v, lat in pk),
        )
        b.assistant(
            "Major skoky jsou Polly (7 → 8, jiné API) a Serilog.AspNetCore; EF Core je jen "
            "patch a můžeme ho vzít hned."
        )

    def stitky(rng: random.Random, b: Builder) -> None:
        srv = server(rng)
        b.user(f"Na pobočce se serverem {srv} tiskne štítkovačka místo 'ř' otazník.")
        b.tool(
            "Podívám se, jak posíláme data do tiskárny.",
            "shell",
            {"cmd": "grep -n Encoding src/Tisk/ZebraStitek.cs"},
            f"{rng.randint(20, 80)}:        var data = Encoding.ASCII.GetBytes(zpl);",
        )
        b.tool(
            "ZPL posíláme v ASCII; přepnu na UTF-8 a doplním `^CI28`.",
            "apply_patch",
            {
                "patch": "*** Begin Patch\n*** Update File: src/Tisk/ZebraStitek.cs\n@@\n"
                "-        var data = Encoding.ASCII.GetBytes(zpl);\n"
                '+        var data = Encoding.UTF8.GetBytes("^XA^CI28" + zpl[3..]);\n'
                "*** End Patch"
            },
            "Success. Updated the following files:\nM src/Tisk/ZebraStitek.cs",
        )
        b.assistant("Opraveno: štítky jdou v UTF-8 s `^CI28`, diakritika se vytiskne správně.")

    def tyden(rng: random.Random, b: Builder) -> None:
        b.user("Kolik eReceptů jsme minulý týden vydali po pobočkách?")
        rows = "\n".join(f"{m:<18} {rng.randint(300, 2400)}" for m, _ in rng.sample(_SITE_CZ, 4))
        b.tool(
            "Dotaz do reportovací databáze:",
            "shell",
            {
                "cmd": 'sqlcmd -S sql-lek01 -d LekReport -Q "SELECT Pobocka, COUNT(*) FROM '
                "VydanyERecept WHERE Datum >= DATEADD(day,-7,CAST(GETDATE() AS date)) GROUP BY "
                'Pobocka ORDER BY 2 DESC"'
            },
            "Pobocka           Pocet\n" + rows,
        )
        b.assistant("Tady je přehled za posledních 7 dní; chceš to i jako graf do reportu?")

    def logy(rng: random.Random, b: Builder) -> None:
        dny = rng.choice((14, 30, 60))
        b.user(f"Logy na pobočkách zabírají moc místa. Stačí je držet {dny} dní.")
        b.tool(
            "Upravím retenci Serilogu.",
            "apply_patch",
            {
                "patch": "*** Begin Patch\n*** Update File: src/Vydej/appsettings.json\n@@\n"
                '-          "retainedFileCountLimit": 365,\n'
                f'+          "retainedFileCountLimit": {dny},\n*** End Patch'
            },
            "Success. Updated the following files:\nM src/Vydej/appsettings.json",
        )
        b.assistant(f"Retence logů nastavena na {dny} souborů (jeden za den).")

    return (index, balicky, stitky, tyden, logy)


# --------------------------------------------------------------------------------------
# lenglian_zh: a cold-chain warehouse's temperature alarms (Simplified Chinese)
# --------------------------------------------------------------------------------------

_CANG_ZH = (
    ("嘉兴", "jx"),
    ("昆山", "ks"),
    ("武汉", "wh"),
    ("成都", "cd"),
    ("天津", "tj"),
    ("佛山", "fs"),
    ("郑州", "zz"),
)
_KEHU_ZH = ("优鲜汇", "禾丰生鲜", "百味家超市", "鲜到家", "绿邻里")
# (how the day is said, the stems a summary in Chinese or English would use)
_ZHOU_ZH = (
    ("周一", ("周一", "星期一", "monday")),
    ("周二", ("周二", "星期二", "tuesday")),
    ("周三", ("周三", "星期三", "wednesday")),
    ("周四", ("周四", "星期四", "thursday")),
    ("周五", ("周五", "星期五", "friday")),
)


def _lenglian(rng: random.Random, b: Builder, segments: int) -> Parts:
    cang, code = rng.choice(_CANG_ZH)
    kehu = rng.choice(_KEHU_ZH)
    year, month, day = _date(rng)
    waybill = f"LL{year}{month:02d}{day:02d}{rng.randint(100000, 999999)}"
    probe = f"TH-{hexits(rng, 6).upper()}"
    minor, patch = rng.randint(3, 9), rng.randint(10, 30)
    old_ver, new_ver = f"v2.{minor}.{patch}", f"v2.{minor}.{patch + 1}"
    zone = f"B{rng.randint(1, 4)}"
    h, m = rng.randint(1, 20), rng.randint(0, 25)
    gap = rng.choice((20, 25, 30, 35))
    arts = rng.sample(("flyway", "legacy", "offset", "test"), 2)
    decision = rng.choice(("buchong", "yuzhi", "jushou"))
    step = rng.choice(("baogao", "tantou", "lag"))
    probes: list[Probe] = []

    b.user(
        rng.choice(
            (
                f"早上好。客户{kehu}今天拒收了运单 {waybill}，说随货的温度报告显示 {zone} "
                f"冷冻库 {h:02d}:{m:02d} 起有 {gap} 分钟是 0℃，超标了。"
                "可仓库说冷库一直正常，压缩机也没停。麻烦查一下是怎么回事？",
                f"{kehu}那边把运单 {waybill} 拒收了，理由是温度报告里 {zone} 库区有一段 0℃。"
                f"现场说根本没升温。{h:02d}:{m:02d} 前后那 {gap} 分钟到底发生了什么，帮忙看看。",
            )
        )
    )
    rows = []
    for i in range(gap // 5 + 2):
        mm = h * 60 + m + 5 * i
        n = 0 if 1 <= i <= gap // 5 else rng.randint(4, 5)
        v = "0.0" if n == 0 else f"-{rng.randint(180, 196) / 10:.1f}"
        rows.append(f"| {mm // 60:02d}:{mm % 60:02d} | {zone:<4} | {probe} | {n:>9} | {v:>9} |")
    b.tool(
        "先对比原始读数和 5 分钟聚合值。",
        "shell",
        {
            "cmd": 'mysql -h wms-db -e "SELECT w.window_start, w.zone, w.probe_id, '
            "COUNT(r.id) raw_count, w.avg_temp FROM temp_window_5m w LEFT JOIN temp_reading r "
            "ON r.probe_id=w.probe_id AND r.ts>=w.window_start AND r.ts<w.window_end WHERE "
            f"w.zone='{zone}' AND w.window_start BETWEEN ... GROUP BY w.id\" wms_coldchain"
        },
        "+-------+------+-----------+-----------+-----------+\n"
        "| start | zone | probe_id  | raw_count | avg_temp  |\n"
        "+-------+------+-----------+-----------+-----------+\n"
        + "\n".join(rows)
        + "\n+-------+------+-----------+-----------+-----------+",
    )
    b.tool(
        "raw_count 为 0 的窗口，聚合值却是 0.0。看一下告警服务当时的日志：",
        "shell",
        {
            "cmd": "kubectl -n wms logs deploy/coldchain-alarm --since=24h | grep -E "
            f"'{probe}|{waybill}' | head -n 6"
        },
        f"{year}-{month:02d}-{day:02d} {h:02d}:{m + 5:02d}:00.118  WARN 1 --- [window-agg-2] "
        f"c.l.alarm.TemperatureWindowAggregator  : probe {probe} has no readings in window, "
        "using default\n"
        f"{year}-{month:02d}-{day:02d} {h:02d}:{m + 5:02d}:00.121  WARN 1 --- [excursion-1] "
        f"c.l.alarm.ExcursionDetector          : 温度超标 zone={zone} value=0.0 limit=-15.0\n"
        f"{year}-{month:02d}-{day:02d} {h:02d}:{m + 10:02d}:00.104  WARN 1 --- [window-agg-1] "
        f"c.l.alarm.TemperatureWindowAggregator  : probe {probe} has no readings in window, "
        "using default\n"
        f"{year}-{month:02d}-{day:02d} {h + 1:02d}:{rng.randint(10, 50):02d}:31.552  INFO 1 --- "
        f"[report-3] c.l.alarm.WaybillReportService      : 运单 {waybill} 温度报告已生成，"
        "标记: 建议拒收",
    )
    b.tool(
        "看 using default 的来源：",
        "read_file",
        {
            "path": "alarm/src/main/java/com/lenglian/alarm/TemperatureWindowAggregator.java",
            "start_line": 52,
            "end_line": 64,
        },
        "52      public WindowValue aggregate(String probeId, List<Reading> readings, "
        "Window w) {\n"
        "53          if (readings.isEmpty()) {\n"
        '54              log.warn("probe {} has no readings in window, using default", '
        "probeId);\n"
        "55          }\n"
        "56          double avg = readings.stream()\n"
        "57                  .mapToDouble(Reading::getTemperature)\n"
        "58                  .average()\n"
        "59                  .orElse(0.0);\n"
        "60          return new WindowValue(probeId, w, avg);\n"
        "61      }",
    )
    bat = rng.randint(1, 6)
    b.tool(
        "再确认探头本身的状态：",
        "shell",
        {"cmd": f"curl -s http://iot-gw-{code}.internal/api/v1/devices/{probe} | jq ."},
        "{\n"
        f'  "deviceId": "{probe}",\n'
        f'  "zone": "{zone}",\n'
        '  "status": "ONLINE",\n'
        f'  "battery": {bat},\n'
        f'  "offlineEvents24h": {rng.randint(2, 5)},\n'
        f'  "firmware": "1.{rng.randint(2, 8)}.{rng.randint(0, 9)}"\n'
        "}",
    )
    b.assistant(
        f"原因清楚了：探头 {probe} 电量只剩 {bat}%，{h:02d}:{m:02d} 之后断线了约 {gap} 分钟，"
        "这段时间没有任何原始读数。`TemperatureWindowAggregator.aggregate` "
        "在没有读数时用 `orElse(0.0)`，"
        '把空窗口算成了 0.0℃，超标检测据此判定超标，报告服务给运单打上了"建议拒收"。'
        "冷库本身没有升温，这是一次误报。"
    )
    legacy_req = ""
    if "legacy" in arts:
        legacy_req = (
            "\n\n另外 alarm-rules-legacy.yml 那个旧规则文件顺手删掉吧，新规则早就在配置中心了，"
            "留着老有人改错地方。"
        )
    if decision == "buchong":
        b.user("明白了。你打算怎么改？")
        b.assistant(
            "建议：没有读数的窗口用前一个窗口的值填充（前值填充），这样报告里曲线连续，"
            "也不会再出现 0℃ 的假超标。"
        )
        b.user(
            rng.choice(
                (
                    '不行，缺失的数据一律不补。没有读数就标记成"探头离线"，质量部审核要看原始数据，'
                    "补出来的数字说不清楚。",
                    "前值填充不要做。质量部的要求是：缺数据的时段就是缺，报告里标成探头离线，"
                    "不许用任何方式补值。",
                )
            )
            + legacy_req
        )
        probes.append(
            Probe(
                "decision",
                "How must windows without sensor readings be handled?",
                "Never filled in (no forward fill or any other fill): they are marked as "
                "probe offline, because QA reviews the raw data.",
                (
                    ("离线", "offline"),
                    (
                        "补",
                        "填充",
                        "fill",
                        "插值",
                        "interpol",
                        "缺",
                        "missing",
                        "gap",
                        "标记",
                        "mark",
                    ),
                ),
            )
        )
        rule = "无读数窗口标记为探头离线，不补值"
    elif decision == "yuzhi":
        k = rng.choice((10, 15, 20))
        b.user("明白了。怎么改？顺便超标判定也太敏感了。")
        b.assistant(
            "改两处：无读数的窗口不再当成 0℃，而是标记探头离线；超标判定我建议改成连续 5 分钟"
            "高于 -15℃ 才告警，单个窗口不算。"
        )
        b.user(
            rng.choice(
                (
                    f"第一点同意。第二点质量部已经定了：连续 {k} 分钟高于 -15℃ 才算超标，"
                    "按这个来。",
                    f"5 分钟太短了。质量部的标准是持续 {k} 分钟超过 -15℃ 才判定超标，"
                    "这个别自己定。",
                )
            )
            + legacy_req
        )
        probes.append(
            Probe(
                "decision",
                "What counts as a temperature excursion now?",
                f"Above -15℃ for {k} minutes in a row (the QA department's rule, not the "
                "5 minutes the agent proposed).",
                (
                    (f"{k} 分钟", f"{k}分钟", f"{k} min", f"{k}min", f"{k} minute", f"{k}-minute"),
                    ("超标", "告警", "报警", "判定", "alarm", "alert", "excursion", "-15"),
                ),
            )
        )
        rule = f"连续 {k} 分钟高于 -15℃ 才判定超标"
    else:
        b.user("明白了，那就改吧。")
        b.assistant(
            "好的：无读数的窗口不再当成 0℃，标记探头离线。另外问一下：报告服务现在会给超标运单"
            '自动打"建议拒收"，这个要保留吗？'
        )
        b.user(
            rng.choice(
                (
                    f"昨天和{kehu}开会正好定了：以后温度超标的运单只通知客户，收不收由客户决定，"
                    "我们系统不再自动标记拒收。",
                    "不保留。和客户的会上已经说定：超标只发通知，拒收与否客户自己判断，"
                    "系统不要再自动给出拒收建议。",
                )
            )
            + legacy_req
        )
        probes.append(
            Probe(
                "decision",
                "What happens to waybills with a temperature excursion from now on?",
                "The customer is only notified and decides; the system no longer marks them "
                "for rejection automatically (agreed in the meeting with the customer).",
                (
                    ("拒收", "reject"),
                    (
                        "通知",
                        "notif",
                        "inform",
                        "不再",
                        "no longer",
                        "不自动",
                        "not auto",
                        "no auto",
                        "客户决定",
                        "customer decide",
                    ),
                ),
            )
        )
        rule = "超标运单只通知客户，不再自动标记拒收"
    b.tool(
        "先改聚合逻辑。",
        "apply_patch",
        {
            "patch": "*** Begin Patch\n*** Update File: alarm/src/main/java/com/lenglian/alarm/"
            "TemperatureWindowAggregator.java\n@@\n         if (readings.isEmpty()) {\n"
            '-            log.warn("probe {} has no readings in window, using default", '
            "probeId);\n"
            "+            return WindowValue.offline(probeId, w);\n         }\n*** End Patch"
        },
        "Success. Updated the following files:\n"
        "M alarm/src/main/java/com/lenglian/alarm/TemperatureWindowAggregator.java",
    )
    if "flyway" in arts:
        ver = rng.randint(28, 64)
        b.tool(
            "temp_window_5m 需要一个离线标记列，写了迁移脚本 "
            f"V{ver}__add_probe_offline_flag.sql，执行：",
            "shell",
            {
                "cmd": "mvn -q -pl alarm flyway:migrate -Dflyway.url=jdbc:mysql://wms-db:3306/"
                "wms_coldchain"
            },
            f"[INFO] Database: jdbc:mysql://wms-db:3306/wms_coldchain (MySQL 8.0)\n"
            f"[INFO] Successfully validated {ver} migrations (execution time 00:00.084s)\n"
            f"[INFO] Current version of schema `wms_coldchain`: {ver - 1}\n"
            f'[INFO] Migrating schema `wms_coldchain` to version "{ver} - add probe offline '
            'flag"\n'
            "[INFO] Successfully applied 1 migration to schema `wms_coldchain`, now at "
            f"version v{ver} (execution time 00:00.{rng.randint(100, 900)}s)",
        )
        probes.append(
            Probe(
                "artifact",
                "What happened to the Flyway migration that adds the offline flag?",
                f"V{ver}__add_probe_offline_flag.sql was applied to wms_coldchain (schema now "
                f"at v{ver}).",
                (
                    ("probe offline flag", "probe_offline_flag"),
                    ("migrat", "applied", "success", "执行", "迁移", "已应用", "应用", "完成"),
                ),
            )
        )
    tests = [
        ("com.lenglian.alarm.ExcursionDetectorTest", rng.randint(5, 9)),
        ("com.lenglian.alarm.WaybillReportServiceTest", rng.randint(3, 7)),
    ]
    if "test" in arts:
        tests.insert(1, ("com.lenglian.alarm.TemperatureGapTest", rng.randint(3, 6)))
    out = [
        "[INFO] -------------------------------------------------------",
        "[INFO]  T E S T S",
        "[INFO] -------------------------------------------------------",
    ]
    for name, n in tests:
        out.append(f"[INFO] Running {name}")
        out.append(
            f"[INFO] Tests run: {n}, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: "
            f"{rng.randint(50, 900) / 1000:.3f} s - in {name}"
        )
    total = sum(n for _, n in tests)
    out += [
        "[INFO] ",
        f"[INFO] Tests run: {total}, Failures: 0, Errors: 0, Skipped: 0",
        "[INFO] BUILD SUCCESS",
    ]
    b.tool(
        "跑测试" + ("（新增 TemperatureGapTest，覆盖无读数窗口）" if "test" in arts else "") + "：",
        "shell",
        {"cmd": "mvn -pl alarm test"},
        "\n".join(out),
    )
    if "test" in arts:
        probes.append(
            Probe(
                "artifact",
                "Which test class covers windows without readings, and did it pass?",
                "TemperatureGapTest was added and passed (Failures: 0, Errors: 0).",
                (
                    ("TemperatureGapTest",),
                    ("通过", "passed", "pass", "success", "成功", "failures: 0", "绿", "green"),
                ),
            )
        )
    if "legacy" in arts:
        b.tool(
            "删除旧规则文件：",
            "shell",
            {"cmd": "git rm -q alarm/src/main/resources/alarm-rules-legacy.yml && git status"},
            "On branch fix/probe-offline\nChanges to be committed:\n"
            '  (use "git restore --staged <file>..." to unstage)\n'
            "\tdeleted:    alarm/src/main/resources/alarm-rules-legacy.yml\n\n"
            "Changes not staged for commit:\n"
            "\tmodified:   alarm/src/main/java/com/lenglian/alarm/TemperatureWindowAggregator"
            ".java",
        )
        probes.append(
            Probe(
                "artifact",
                "What happened to the old alarm-rules-legacy.yml file?",
                "alarm/src/main/resources/alarm-rules-legacy.yml was deleted (git rm); the "
                "rules live in the config centre.",
                (
                    ("alarm-rules-legacy",),
                    ("删除", "删掉", "移除", "delet", "remov", "git rm", "清理"),
                ),
            )
        )
    b.tool(
        "提交、打 tag，流水线会发布到生产。",
        "shell",
        {
            "cmd": f"git commit -qam 'fix(alarm): 无读数窗口标记探头离线' && git tag {new_ver} && "
            "git push -q --follow-tags && kubectl -n wms rollout status deploy/coldchain-alarm"
        },
        'Waiting for deployment "coldchain-alarm" rollout to finish: 1 of 2 updated replicas '
        "are available...\n"
        'deployment "coldchain-alarm" successfully rolled out',
    )
    if "offset" in arts:
        ts = f"{year}-{month:02d}-{day:02d}T{max(h - 1, 0):02d}:00:00.000"
        b.tool(
            "新版本已上线。把告警消费组回拨到事发前，重新计算当天的窗口和报告：",
            "shell",
            {
                "cmd": "kafka-consumer-groups.sh --bootstrap-server kafka:9092 --group "
                "coldchain-alarm-cg --topic wms.temp.readings --reset-offsets --to-datetime "
                f"{ts} --execute"
            },
            "GROUP                          TOPIC                          PARTITION  "
            "NEW-OFFSET\n"
            + "\n".join(
                f"coldchain-alarm-cg             wms.temp.readings              {p:<10} "
                f"{rng.randint(1_000_000, 9_000_000)}"
                for p in range(3)
            ),
        )
        b.assistant(
            f"消费组 coldchain-alarm-cg 的 offset 已重置到 {ts}，{new_ver} 正在重算当天数据。"
        )
        probes.append(
            Probe(
                "artifact",
                "What was done with the Kafka consumer group coldchain-alarm-cg?",
                f"Its offsets were reset to {ts} (before the incident) so the day is "
                "recomputed by the fixed version.",
                (
                    ("coldchain-alarm-cg",),
                    ("重置", "reset", "回拨", "rewind", "重新消费", "replay"),
                ),
            )
        )
        b.user("好的。")
    b.assistant(
        f"{new_ver} 已发布（上一版 {old_ver}）。改动：{rule}；运单 {waybill} 的报告会用新逻辑"
        "重新生成，那段时间会显示为探头离线。"
    )
    zhou, stems = _ZHOU_ZH[rng.randrange(5)]
    if step == "baogao":
        b.user(
            rng.choice(
                (
                    f"辛苦了。{zhou}之前要给{kehu}出一份正式的温度情况说明，解释这次是探头掉线不是"
                    "冷库故障，你帮我起个草稿？",
                    f"{kehu}要一份书面说明，{zhou}之前必须发过去：为什么报告里有 0℃、实际温度多少。"
                    "草稿交给你了。",
                )
            )
        )
        b.assistant(
            f"好的，{zhou}之前给你草稿：事件时间线、探头 {probe} 的离线记录、同库区其他探头"
            "的实际温度，以及我们做的修改。"
        )
        probes.append(
            Probe(
                "next_step",
                "What document is due to the customer, and by when?",
                "A formal written statement on the temperature incident (probe offline, not "
                f"a freezer failure) for the customer, before {stems[-1].title()}; the agent "
                "drafts it.",
                (("说明", "报告", "report", "statement", "explanation", "草稿", "draft"), stems),
            )
        )
    elif step == "tantou":
        b.user(
            f"辛苦了。{zone} 的新探头设备科说{zhou}装，装好之后要先校准，校准通过了再把这个库区的"
            "超标告警重新打开，之前先别开。"
        )
        b.assistant(f"明白：{zone} 库区告警暂时保持关闭，等新探头安装并校准通过后再打开。")
        probes.append(
            Probe(
                "next_step",
                "What has to happen before the zone's excursion alarms are switched back on?",
                f"The new probes for zone {zone} must be installed (planned for "
                f"{stems[-1].title()}) and calibrated; only then re-enable the alarms.",
                (("校准", "calibrat"), ("探头", "probe", "sensor", "传感器", "告警", "alarm")),
            )
        )
    else:
        b.user("辛苦了。还有什么没收尾的吗？")
        b.assistant(
            rng.choice(
                (
                    "还有一项：重算数据时我发现告警服务的 Kafka 消费延迟没有任何监控。我今晚把消费"
                    "延迟（lag）的监控告警加上。",
                    "我答应过把 Kafka 消费延迟（lag）的告警补上，今晚加到 Prometheus 里，"
                    "超过阈值就通知值班。",
                )
            )
        )
        probes.append(
            Probe(
                "next_step",
                "What did the agent commit to add tonight?",
                "Monitoring/alerting on the Kafka consumer lag (in Prometheus, notifying the "
                "on-call).",
                (("延迟", "lag", "积压"), ("告警", "alert", "报警", "监控", "monitor")),
            )
        )
    probes += [
        Probe("identifier", "Which waybill did the customer reject?", waybill, ((waybill,),)),
        Probe(
            "identifier",
            "Which temperature probe went offline?",
            f"{probe} (battery {bat}%, zone {zone})",
            ((probe,),),
        ),
        Probe(
            "identifier",
            "Which release of coldchain-alarm contains the fix?",
            f"{new_ver} (previous {old_ver})",
            ((new_ver,),),
        ),
    ]
    opening = b.take()
    fill = _filler(b, _lenglian_fillers(cang, {waybill, probe, new_ver, old_ver}))
    return opening, segments_of(rng, b, segments, fill), probes


def _lenglian_fillers(cang: str, avoid: set[str]) -> tuple[Filler, ...]:
    def sku(rng: random.Random) -> str:
        return _fresh(rng, lambda r: f"SKU{r.randint(100000, 999999)}", avoid)

    def pandian(rng: random.Random, b: Builder) -> None:
        b.user("昨天盘点有差异，帮我列一下差异最大的几个 SKU。")
        rows = "\n".join(
            f"| {sku(rng)} | {rng.randint(100, 900):>6} | {rng.randint(100, 900):>6} |"
            for _ in range(4)
        )
        b.tool(
            "查盘点结果：",
            "shell",
            {
                "cmd": 'mysql -h wms-db -e "SELECT sku, book_qty, counted_qty FROM '
                "stocktake_line WHERE stocktake_date=CURDATE()-1 ORDER BY ABS(book_qty-"
                'counted_qty) DESC LIMIT 4" wms_core'
            },
            "| sku       | book   | count  |\n" + rows,
        )
        b.assistant("差异最大的四个 SKU 如上，建议先复盘这几个库位的出库扫描记录。")

    def maven(rng: random.Random, b: Builder) -> None:
        b.user("依赖有没有需要升级的？")
        deps = [
            (
                "org.springframework.boot:spring-boot-starter-parent",
                f"3.1.{rng.randint(2, 9)}",
                "3.3.5",
            ),
            ("org.apache.kafka:kafka-clients", f"3.4.{rng.randint(0, 1)}", "3.8.1"),
            ("com.mysql:mysql-connector-j", f"8.0.{rng.randint(31, 33)}", "9.1.0"),
        ]
        b.tool(
            "mvn versions:display-dependency-updates：",
            "shell",
            {"cmd": "mvn -q versions:display-dependency-updates"},
            "[INFO] The following dependencies in Dependencies have newer versions:\n"
            + "\n".join(f"[INFO]   {g} ...... {a} -> {c}" for g, a, c in deps),
        )
        b.assistant("Spring Boot 和 Kafka 客户端跨了小版本，建议单独开分支升级并做一次回归。")

    def pda(rng: random.Random, b: Builder) -> None:
        b.user(f"{cang}仓的 PDA 扫码时不时报 502，看一下？")
        n = rng.randint(12, 80)
        b.tool(
            "查 Nginx 错误日志：",
            "shell",
            {
                "cmd": "kubectl -n wms logs deploy/pda-gateway --since=2h | grep -c 'upstream "
                "timed out'"
            },
            str(n),
        )
        b.assistant(
            f"两小时内 {n} 次 upstream timed out，集中在出库高峰。建议把 pda-api 的副本数从 2 "
            "调到 4，并把 proxy_read_timeout 调到 30s。"
        )

    def yuetai(rng: random.Random, b: Builder) -> None:
        slot = rng.choice((20, 30, 45))
        b.user(f"月台预约的时段长度改成 {slot} 分钟。")
        b.tool(
            "改配置：",
            "apply_patch",
            {
                "patch": "*** Begin Patch\n*** Update File: dock/src/main/resources/"
                f"application.yml\n@@\n-    slot-minutes: 60\n+    slot-minutes: {slot}\n"
                "*** End Patch"
            },
            "Success. Updated the following files:\nM dock/src/main/resources/application.yml",
        )
        b.assistant(f"已改为每个时段 {slot} 分钟，下次发布生效。")

    def dianhao(rng: random.Random, b: Builder) -> None:
        b.user("上个月冷库的电耗是多少？")
        kwh = rng.randint(80_000, 260_000)
        b.tool(
            "查能耗表：",
            "shell",
            {
                "cmd": 'mysql -h wms-db -e "SELECT SUM(kwh) FROM energy_daily WHERE '
                "month=DATE_FORMAT(CURDATE()-INTERVAL 1 MONTH,'%Y-%m')\" wms_core"
            },
            f"SUM(kwh)\n{kwh}",
        )
        b.assistant(f"上个月冷库总电耗 {kwh} kWh，日均约 {kwh // 30} kWh。")

    return (pandian, maven, pda, yuetai, dianhao)


# --------------------------------------------------------------------------------------
# museum_iiif: a museum's digitisation pipeline and IIIF image server (English)
# --------------------------------------------------------------------------------------

_MUSEUMS = (
    ("Harbour City Museum", "hcm"),
    ("Northfield Art Gallery", "nag"),
    ("Museum of the Western Isles", "mwi"),
    ("Castlegate Museum of Design", "cmd"),
    ("Riverside Maritime Museum", "rmm"),
)
_OBJECTS = (
    "brass ship's chronometer",
    "embroidered sampler",
    "lacquered tea caddy",
    "survey map of the estuary",
    "carved figurehead",
    "set of glass lantern slides",
    "silver christening cup",
)


def _museum(rng: random.Random, b: Builder, segments: int) -> Parts:
    museum, slug = rng.choice(_MUSEUMS)
    obj = rng.choice(_OBJECTS)
    year, month, day = _date(rng)
    accession = f"{rng.randint(1950, 2015)}.{rng.randint(1, 140)}.{rng.randint(1, 60)}"
    record = rng.randint(10000, 99999)
    manifest = f"https://collections.{slug}.org/iiif/manifest/{record}.json"
    image = f"{accession.replace('.', '_')}_001.tif"
    commit = hexits(rng, 8)
    batch = f"dig{year % 100:02d}w{rng.randint(10, 52)}"
    count = rng.randint(120, 480)
    bad = rng.randint(30, count // 2)
    registrar = rng.choice(("Priya", "Tom", "Aileen", "Marcus", "Ines"))
    arts = rng.sample(("reencode", "delete", "test", "rollback"), 2)
    decision = rng.choice(("masters", "rights", "cc0"))
    step = rng.choice(("opening", "registrar", "guard"))
    day_idx = rng.randrange(5)
    probes: list[Probe] = []

    b.user(
        rng.choice(
            (
                f"Hi! The new acquisitions went online this morning and {registrar} (our "
                "registrar) says a bunch of them show grey tiles in the zoom viewer. Example: "
                f"{accession}, the {obj} — manifest {manifest}. They came from digitisation "
                f"batch {batch}. Could you take a look?",
                f"Morning. Zoom is broken for some of the objects we published today — grey "
                f"squares instead of the image. {registrar} spotted it on {accession} ({obj}), "
                f"manifest is {manifest}. All from batch {batch} as far as we can tell.",
            )
        )
    )
    b.tool(
        "Following the manifest to the image service and asking it for a full image.",
        "shell",
        {
            "cmd": f"curl -s {manifest} | jq -r '.items[0].items[0].items[0].body.service[0].id'"
            f" && curl -s -o /dev/null -w '%{{http_code}}\\n' https://iiif.{slug}.org/iiif/3/"
            f"{image}/full/max/0/default.jpg"
        },
        f"https://iiif.{slug}.org/iiif/3/{image}\n500",
    )
    pods = ""
    if "rollback" in arts:
        pods = (
            "\n--- kubectl get pods -l app=cantaloupe\n"
            "NAME                               READY   STATUS    RESTARTS        AGE\n"
            f"iiif-cantaloupe-{hexits(rng, 9)}-{token(rng, 5).lower()}   1/1     Running   "
            f"{rng.randint(4, 9)} (OOMKilled)   {rng.randint(14, 22)}h"
        )
    b.tool(
        "A 500 from the image server. Its log:",
        "shell",
        {
            "cmd": f"kubectl -n iiif logs deploy/iiif-cantaloupe --since=6h | grep -m3 -A2 "
            f"'{image}'" + ("; kubectl -n iiif get pods -l app=cantaloupe" if pods else "")
        },
        f"{year}-{month:02d}-{day:02d} 08:{rng.randint(10, 59)}:{rng.randint(10, 59)}."
        f"{rng.randint(100, 999)} "
        f"[qtp-{rng.randint(100, 999)}] ERROR e.i.l.c.resource.iiif.v3.ImageResource - "
        f"handle(): {image}\n"
        "javax.imageio.IIOException: Unsupported TIFF Compression value: 34712\n"
        "\tat java.desktop/com.sun.imageio.plugins.tiff.TIFFImageReader.getTIFFDecompressor"
        "(TIFFImageReader.java:1038)\n"
        "\tat edu.illinois.library.cantaloupe.processor.codec.tiff.TIFFImageReader.read"
        "(TIFFImageReader.java:212)" + pods,
    )
    b.tool(
        "Compression 34712 is JPEG 2000 inside a TIFF. Checking the access derivative and "
        "the pipeline profile:",
        "shell",
        {
            "cmd": f"aws s3 cp s3://{slug}-access/{batch}/{image} - | tiffinfo -0 /dev/stdin "
            "| grep -E 'Width|Compression'; git log -1 --format='%h %an %s' -- "
            "digipipe/profiles/access.yaml; grep -n -A2 compression digipipe/profiles/access.yaml"
        },
        f"  Image Width: {rng.randint(6000, 12000)} Image Length: {rng.randint(5000, 9000)}\n"
        "  Tile Width: 256 Tile Length: 256\n"
        "  Compression Scheme: 34712\n"
        f"{hexits(rng, 7)} {rng.choice(('Sam Reid', 'Jo Park', 'Dana Wolfe'))} access "
        "profile: jp2k compression, ~40% smaller derivatives\n"
        "7:  compression: jp2k\n8:  tile: 256\n9:  pyramid: true",
    )
    b.tool(
        "How much of the batch is affected?",
        "shell",
        {"cmd": f"python -m digipipe.audit --batch {batch} --field compression"},
        f"batch {batch}: {count} access derivatives\n"
        f"  compression=jpeg      {count - bad}\n"
        f"  compression=34712     {bad}   (JPEG 2000)\n"
        f"first 34712 file written {year}-{month:02d}-{max(day - 1, 1):02d}T16:"
        f"{rng.randint(10, 59)}:00Z",
    )
    b.assistant(
        "Found the cause. The access profile was switched to JPEG 2000 compression inside "
        "the TIFF (to save space), and Cantaloupe's TIFF reader can't decode that "
        f"compression (34712) — every tile request fails, the viewer shows grey. {bad} of the "
        f"{count} derivatives in {batch} were written after that change, including "
        f"{accession}. The masters are fine; only the access copies need redoing."
    )
    extra = ""
    if "delete" in arts:
        extra = (
            "\n\nAlso, while you're in the repo: scripts/legacy_zoomify.py can go. Nothing has "
            "used Zoomify since the IIIF switch and it confuses the volunteers."
        )
    if "rollback" in arts:
        extra += (
            "\n\nAnd the OOM restarts: yesterday's Renovate bump of the iiif-cantaloupe chart "
            "dropped the heap to 2 GB. Roll that release back to the previous revision, "
            "please."
        )
    if decision == "masters":
        b.user("OK, what's the plan?")
        b.assistant(
            "Set the access profile back to tiled JPEG (Q90) and re-encode the affected "
            "derivatives. While at it I could also re-encode the masters of the batch to a "
            "lossless compression in place — they're uncompressed and take a lot of space."
        )
        b.user(
            rng.choice(
                (
                    "The access copies yes. But never touch the masters — conservation policy: "
                    "masters are write-once, exactly as they came off the camera. Storage is "
                    "not our problem to solve that way.",
                    "Please don't. Masters stay untouched, always; they're our preservation "
                    "copies and the policy is write-once. Only the access derivatives get "
                    "regenerated.",
                )
            )
            + extra
        )
        probes.append(
            Probe(
                "decision",
                "May the master files be re-encoded or changed?",
                "No: masters are write-once preservation copies and are never touched; only "
                "the access derivatives are regenerated.",
                (
                    ("master",),
                    (
                        "never",
                        "not ",
                        "untouched",
                        "don't",
                        "do not",
                        "write-once",
                        "write once",
                        "read-only",
                        "unchanged",
                    ),
                ),
            )
        )
    elif decision == "rights":
        px = rng.choice((600, 800, 1000))
        b.user("OK, what's the plan?")
        b.assistant(
            "Set the access profile back to tiled JPEG (Q90), re-encode the affected "
            "derivatives and republish the whole batch with full zoom."
        )
        b.user(
            rng.choice(
                (
                    f"Careful — {registrar} checked the rights: the works in that batch that are "
                    f"still in copyright may only be shown up to {px} px on the long edge, no "
                    "deep zoom. The rest can have full zoom.",
                    f"Full zoom only for the public-domain ones. {registrar} says in-copyright "
                    f"works are capped at {px} px, long edge — that's the licence we have.",
                )
            )
            + extra
        )
        probes.append(
            Probe(
                "decision",
                "How large may in-copyright works from the batch be shown?",
                f"At most {px} px on the long edge, no deep zoom (per the registrar's rights "
                "check); public-domain works get full zoom.",
                (
                    (f"{px} px", f"{px}px", f"{px} pixel", f"{px}-pixel", f"{px} pixels"),
                    (
                        "copyright",
                        "rights",
                        "long edge",
                        "licen",
                        "zoom",
                        "max",
                        "cap",
                        "size",
                        "limit",
                    ),
                ),
            )
        )
    else:
        b.user("OK, what's the plan?")
        b.assistant(
            "Set the access profile back to tiled JPEG (Q90) and re-encode the affected "
            'derivatives. One more thing I noticed in the manifest: `rights` says "All '
            'rights reserved" for every object, including the public-domain ones. Should that '
            "stay?"
        )
        b.user(
            rng.choice(
                (
                    "Good catch — the director decided last month: public-domain images go out "
                    "as CC0 from now on, no more 'all rights reserved' on those. Please fix "
                    "that in the manifests too.",
                    "No. That was settled at the last directors' meeting: public-domain "
                    "images are released under CC0. Put that in the manifests.",
                )
            )
            + extra
        )
        probes.append(
            Probe(
                "decision",
                "Under what licence are public-domain images published?",
                "CC0 (the director's decision), not 'all rights reserved'; the manifests' "
                "rights statement is fixed accordingly.",
                (
                    ("cc0", "cc-0", "cc zero", "creative commons zero"),
                    ("public domain", "public-domain", "licen", "rights", "image", "manifest"),
                ),
            )
        )
    b.tool(
        "Access profile back to tiled JPEG.",
        "apply_patch",
        {
            "patch": "*** Begin Patch\n*** Update File: digipipe/profiles/access.yaml\n@@\n"
            "-  compression: jp2k\n+  compression: jpeg\n+  Q: 90\n*** End Patch"
        },
        "Success. Updated the following files:\nM digipipe/profiles/access.yaml",
    )
    tests = [
        "tests/test_derivatives.py::test_pyramid_levels",
        "tests/test_derivatives.py::test_icc_profile_kept",
        "tests/test_manifest.py::test_manifest_v3_valid",
    ]
    if "test" in arts:
        b.tool(
            "A test that fails if any profile produces a compression Cantaloupe can't read:",
            "write_file",
            {
                "path": "tests/test_tiff_compression.py",
                "content": "import pytest\n\nfrom digipipe.profiles import load_profiles\n\n"
                "READABLE = {'none', 'jpeg', 'deflate', 'lzw'}\n...",
            },
            "Wrote 31 lines to tests/test_tiff_compression.py",
        )
        tests += [
            "tests/test_tiff_compression.py::test_access_profile_is_readable",
            "tests/test_tiff_compression.py::test_written_file_has_jpeg_compression",
        ]
    out = "\n".join(
        f"{t} PASSED{'':>6}[{100 * (i + 1) // len(tests):3d}%]" for i, t in enumerate(sorted(tests))
    )
    b.tool(
        "Tests:",
        "shell",
        {"cmd": "pytest -v"},
        out + f"\n\n{'=' * 16} {len(tests)} passed in {rng.uniform(1, 9):.2f}s {'=' * 16}",
    )
    if "test" in arts:
        probes.append(
            Probe(
                "artifact",
                "What test file was added for the TIFF compression, and how did it do?",
                "tests/test_tiff_compression.py was written; both its tests passed.",
                (
                    ("test_tiff_compression",),
                    ("passed", "pass", "green", "succeed", "ok"),
                ),
            )
        )
    b.tool(
        f"Re-encoding the {bad} affected derivatives from the masters (masters are only read).",
        "shell",
        {
            "cmd": f"python -m digipipe.reencode --batch {batch} --only-compression 34712 "
            "--profile access --workers 8"
        },
        f"reading masters from s3://{slug}-masters/{batch}/\n"
        f"[{bad}/{bad}] {'#' * 30} 100%  {rng.randint(8, 40)}m{rng.randint(10, 59)}s\n"
        f"batch {batch}: {bad}/{bad} access derivatives re-encoded (jpeg Q90, tiled "
        "pyramid), 0 failed",
    )
    if "reencode" in arts:
        probes.append(
            Probe(
                "artifact",
                f"What happened to the access derivatives of batch {batch}?",
                f"The {bad} JPEG-2000-compressed ones were re-encoded from the masters as "
                "tiled JPEG Q90 (0 failed).",
                (
                    (batch,),
                    (
                        "re-encod",
                        "reencod",
                        "regenerat",
                        "rebuilt",
                        "re-generat",
                        "redone",
                        "converted",
                        "recreat",
                    ),
                ),
            )
        )
    b.tool(
        "Purging the image server's cached failures and checking the example again.",
        "shell",
        {
            "cmd": f"curl -s -u admin:$CANTALOUPE_ADMIN -X POST -H 'Content-Type: "
            f'application/json\' -d \'{{"verb":"PurgeInvalidFromCache"}}\' -o /dev/null -w '
            f"'%{{http_code}}\\n' https://iiif.{slug}.org/tasks && curl -s -o /dev/null -w "
            f"'%{{http_code}}\\n' https://iiif.{slug}.org/iiif/3/{image}/full/max/0/default.jpg"
        },
        "202\n200",
    )
    if "rollback" in arts:
        rev = rng.randint(9, 30)
        chart = f"cantaloupe-{rng.randint(2, 3)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}"
        b.tool(
            "Now the chart rollback.",
            "shell",
            {
                "cmd": f"helm -n iiif rollback iiif-cantaloupe {rev} && helm -n iiif history "
                "iiif-cantaloupe --max 3"
            },
            "Rollback was a success! Happy Helming!\n"
            "REVISION\tUPDATED                 \tSTATUS    \tCHART           \tDESCRIPTION\n"
            f"{rev}      \t{_MON[month - 1]} {max(day - 3, 1):02d} 10:02:11\tsuperseded\t"
            f"{chart}\tUpgrade complete\n"
            f"{rev + 1}      \t{_MON[month - 1]} {day:02d} 02:00:48\tsuperseded\tcantaloupe-"
            f"{rng.randint(4, 5)}.0.{rng.randint(0, 9)}\tUpgrade complete\n"
            f"{rev + 2}      \t{_MON[month - 1]} {day:02d} 11:{rng.randint(10, 59)}:07\t"
            f"deployed  \t{chart}\tRollback to {rev}",
        )
        b.assistant(
            f"The `iiif-cantaloupe` release is rolled back to revision {rev} (heap back to "
            "the old size); watching for further OOM restarts."
        )
        b.user("Thanks.")
        probes.append(
            Probe(
                "artifact",
                "What happened to the iiif-cantaloupe Helm release?",
                f"It was rolled back to revision {rev} (the Renovate chart bump had cut the "
                "heap to 2 GB and caused OOM restarts).",
                (
                    ("iiif-cantaloupe",),
                    ("rolled back", "rollback", "roll back", "reverted", "revert"),
                ),
            )
        )
    staged = ["\tmodified:   digipipe/profiles/access.yaml"]
    cmd = "git add -A && git status"
    if "delete" in arts:
        staged.append("\tdeleted:    scripts/legacy_zoomify.py")
        cmd = "git rm -q scripts/legacy_zoomify.py && " + cmd
        probes.append(
            Probe(
                "artifact",
                "What happened to scripts/legacy_zoomify.py?",
                "It was deleted (git rm); nothing has used Zoomify since the IIIF switch.",
                (
                    ("legacy_zoomify",),
                    ("deleted", "delet", "removed", "remov", "git rm", "gone"),
                ),
            )
        )
    if "test" in arts:
        staged.append("\tnew file:   tests/test_tiff_compression.py")
    b.tool(
        "Staging the changes.",
        "shell",
        {"cmd": cmd},
        "On branch main\nYour branch is up to date with 'origin/main'.\n\n"
        "Changes to be committed:\n"
        '  (use "git restore --staged <file>..." to unstage)\n' + "\n".join(staged),
    )
    b.tool(
        "Committing.",
        "shell",
        {
            "cmd": "git commit -m 'access profile: back to tiled JPEG; JPEG 2000 in TIFF is "
            "unreadable for Cantaloupe' && git push"
        },
        f"[main {commit}] access profile: back to tiled JPEG; JPEG 2000 in TIFF is unreadable "
        f"for Cantaloupe\n {len(staged)} files changed, {rng.randint(3, 40)} insertions(+), "
        f"{rng.randint(1, 90)} deletions(-)",
    )
    b.assistant(
        f"Zoom works again for {accession} (the image service returns 200), and the other "
        f"{bad - 1} affected objects of {batch} are re-encoded too. The fix is commit "
        f"`{commit}` on main."
    )
    d = _DAYS_EN[day_idx]
    if step == "opening":
        b.user(
            rng.choice(
                (
                    f"Brilliant. Reminder: the exhibition site launches on {d} and every "
                    "object in the show needs working zoom by then — please check them all "
                    "before that.",
                    f"Thanks! The exhibition goes live {d}; I need every exhibition object "
                    "checked for working zoom before the launch.",
                )
            )
        )
        b.assistant(
            f"I'll run the viewer check over every object in the exhibition list and send "
            f"you the results well before {d}."
        )
        probes.append(
            Probe(
                "next_step",
                "What must be checked before the exhibition launch, and when is it?",
                f"Working zoom for every object in the exhibition, before the site launches "
                f"on {d}.",
                (
                    ("exhibition", "launch", "go live", "goes live", "opening", "show"),
                    (d.lower(),),
                ),
            )
        )
    elif step == "registrar":
        n = rng.randint(8, 40)
        b.user(
            f"Thanks! {n} objects from the batch are still unpublished — once {registrar} "
            "confirms their rights status, publish them with the same settings. Not before."
        )
        b.assistant(
            f"Understood: the remaining {n} objects stay unpublished until {registrar} "
            "confirms the rights; then I publish them with the same profile."
        )
        probes.append(
            Probe(
                "next_step",
                "What is waiting on the registrar?",
                f"The remaining {n} unpublished objects of the batch: publish them once the "
                f"registrar ({registrar}) confirms their rights status, not before.",
                (("registrar", "rights", registrar.lower()), ("publish", "release", "online")),
            )
        )
    else:
        b.user("Great, thanks. Anything still open?")
        b.assistant(
            rng.choice(
                (
                    "One thing I'll do tomorrow: add a check to the pipeline that refuses to "
                    "upload any TIFF whose compression the image server can't read, so this "
                    "fails at digitisation instead of on the website.",
                    "Yes — I want a guard in digipipe that rejects TIFFs with an unsupported "
                    "compression before upload. I'll add it tomorrow.",
                )
            )
        )
        probes.append(
            Probe(
                "next_step",
                "What did the agent say it would add tomorrow?",
                "A check/guard in the pipeline that rejects TIFFs with a compression the "
                "image server can't read, before upload.",
                (
                    ("check", "guard", "reject", "refuse", "validat", "block"),
                    ("compression", "tiff", "upload"),
                ),
            )
        )
    probes += [
        Probe(
            "identifier",
            "Which object was the registrar's example of the broken zoom?",
            f"{accession} ({obj})",
            ((accession,),),
        ),
        Probe(
            "identifier",
            "What is the manifest URL of that example object?",
            manifest,
            ((manifest,),),
        ),
        Probe("identifier", "Which commit fixes the access profile?", commit, ((commit,),)),
    ]
    opening = b.take()
    fill = _filler(b, _museum_fillers(museum, slug, {accession, manifest, commit, batch}))
    return opening, segments_of(rng, b, segments, fill), probes


def _museum_fillers(museum: str, slug: str, avoid: set[str]) -> tuple[Filler, ...]:
    def other_accession(rng: random.Random) -> str:
        return _fresh(
            rng,
            lambda r: f"{r.randint(1950, 2015)}.{r.randint(141, 300)}.{r.randint(61, 99)}",
            avoid,
        )

    def linkedart(rng: random.Random, b: Builder) -> None:
        acc = other_accession(rng)
        b.user(f"The Linked Art export fails validation for {acc}. Can you see why?")
        b.tool(
            "Validating the record.",
            "shell",
            {"cmd": f"python -m digipipe.linkedart validate --accession {acc}"},
            f"{acc}: 1 error\n  /produced_by/timespan/begin_of_the_begin: '18th century' is "
            "not a 'date-time'",
        )
        b.assistant(
            "The production date is free text. Linked Art wants a timespan: I'd map "
            "'18th century' to 1700-01-01 … 1799-12-31 and keep the text as the display "
            "label."
        )

    def storage(rng: random.Random, b: Builder) -> None:
        b.user("How much space do the masters take now?")
        tb = rng.randint(40, 190) + rng.randint(0, 9) / 10
        b.tool(
            "Summing the masters bucket.",
            "shell",
            {"cmd": f"aws s3 ls s3://{slug}-masters --recursive --summarize | tail -n 2"},
            f"Total Objects: {rng.randint(200_000, 900_000)}\n   Total Size: {int(tb * 1024**4)}",
        )
        b.assistant(f"About {tb} TiB in the masters bucket.")

    def search(rng: random.Random, b: Builder) -> None:
        b.user("Search on the collection site still shows the old titles for some objects.")
        docs = rng.randint(40_000, 160_000)
        b.tool(
            "Reindexing from the collections database.",
            "shell",
            {"cmd": "python -m collectionsite.search reindex --alias collection"},
            f"indexed {docs} documents into collection-{token(rng, 6).lower()} "
            f"in {rng.randint(60, 600)}s\nalias collection -> collection-… (swapped)",
        )
        b.assistant(f"Reindexed {docs} records; the alias now points at the fresh index.")

    def mirador(rng: random.Random, b: Builder) -> None:
        b.user("Can we get the newer Mirador on the site? Curators want the image tools.")
        v = f"3.{rng.randint(3, 4)}.{rng.randint(0, 3)}"
        b.tool(
            "Bumping Mirador and the image tools plugin.",
            "shell",
            {"cmd": f"npm install mirador@{v} mirador-image-tools@0.11.0 && npm run build"},
            f"added 3 packages, changed 41 packages in {rng.randint(5, 30)}s\n"
            f"> collection-site build\nvite v5.4.{rng.randint(1, 9)} building for "
            "production...\n✓ built in " + f"{rng.uniform(3, 12):.2f}s",
        )
        b.assistant(f"Mirador is on {v} with the image tools plugin; build is green.")

    def alttext(rng: random.Random, b: Builder) -> None:
        n = rng.randint(200, 2000)
        b.user(f"How many published images on the {museum} site have no alt text?")
        b.tool(
            "Counting.",
            "shell",
            {
                "cmd": 'psql $COLLECTIONS_DB -At -c "select count(*) from media where '
                "published and coalesce(alt_text,'') = ''\""
            },
            str(n),
        )
        b.assistant(f"{n} published images have no alt text. I can export them as a CSV.")

    return (linkedart, storage, search, mirador, alttext)


_TEMPLATES: dict[str, Template] = {
    "klaerwerk_de": _klaerwerk,
    "fietsdeel_nl": _fietsdeel,
    "koperasi_id": _koperasi,
    "erecept_cz": _erecept,
    "lenglian_zh": _lenglian,
    "museum_iiif": _museum,
}
HELDOUT8_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout8(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The eighth held-out session of ``kind`` for ``seed``: the same seed always gives
    the same session, and an unknown ``kind`` raises :class:`ValueError`."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout8:", label="heldout8"
    )
