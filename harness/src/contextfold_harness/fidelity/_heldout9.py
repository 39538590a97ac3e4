"""The ninth held-out session set: six kinds written blind to the compaction code.

``skipass_it``
    Italian: a ski resort's turnstile validation service (Elixir/Phoenix, Ecto, Loki).
``doodh_app_hi``
    Hinglish: a dairy cooperative's milk-collection Android app (Kotlin, Gradle, Room).
``svitlo_bot_uk``
    Ukrainian: a Telegram bot announcing power-outage schedules (Go, Cloud Run, Terraform).
``elaiourgeio_el``
    Greek: an olive-oil cooperative's delivery and yield analytics (dbt, Airflow, Postgres).
``kaukolampo_fi``
    Finnish: district-heating meter ingestion (Rust, sqlx, TimescaleDB, Ansible).
``vetclinic_rails``
    English: a veterinary group's appointment reminders (Rails, Sidekiq, Twilio, Kamal).

Each session plants, in its opening (the part the first compaction summarizes), among
tool calls, logs and chatter: three identifiers (error codes, hostnames, commit hashes,
versions, ticket ids, MAC addresses, URLs, cloud revisions, job ids, figures with units),
two artifact states (files, migrations, DAGs, secrets, timers, cloud resources: deleted,
renamed, applied, reverted, paused, disabled, tested), some said only by the tool and
some only in the agent's words, one decision settled in one of several ways (dictated,
corrected, relayed from elsewhere, a proposal turned down, an answer to the agent's
question) and one open next step (a deadline, a condition, a promise or a reminder, owned
by the user or by the agent). Which artifacts, decision and next step a session gets,
and every value in them, depend on the seed; decoys (an abandoned commit, an older
version, a second error code) sit beside the planted facts. The filler segments are
unrelated work in the same project and never repeat a planted identifier or artifact.
"""

from __future__ import annotations

import random
import string
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

__all__ = ["HELDOUT9_KINDS", "generate_heldout9"]

_Block = Callable[[], Probe]


def _blocks(rng: random.Random, artifacts: list[_Block], decision: _Block) -> list[Probe]:
    """Run two of ``artifacts`` and ``decision`` in a seeded order; their probes."""
    chosen = [*rng.sample(artifacts, 2), decision]
    rng.shuffle(chosen)
    return [block() for block in chosen]


def _lines(*lines: str) -> str:
    return "\n".join(lines)


_Write = Callable[[random.Random, Builder, int], None]


def _deck(b: Builder, count: int, write: _Write) -> Callable[[random.Random], None]:
    """A filler writing ``write``'s ``count`` snippets in a seeded order, reshuffled once
    every snippet has been used (so neighbouring segments rarely repeat a task)."""
    order: list[int] = []

    def filler(r: random.Random) -> None:
        if not order:
            order.extend(r.sample(range(count), count))
        write(r, b, order.pop())

    return filler


# --------------------------------------------------------------------------- skipass_it

_LIFTS_IT = ("ciampedie", "buffaure", "belvedere", "col-rodella", "pordoi", "catinaccio")
_VENDORS_IT = ("Nivex", "GateLink", "Tessera3", "AlpAccess")


def _skipass_it(rng: random.Random, b: Builder, segments: int) -> Parts:
    lift = rng.choice(_LIFTS_IT)
    lift_title = lift.replace("-", " ").title()
    nn = rng.randint(2, 14)
    host = f"varco-{lift}-{nn:02d}"
    others = [f"varco-{lift}-{k:02d}" for k in rng.sample([k for k in range(1, 16) if k != nn], 3)]
    code = f"GT-{token(rng, 2, string.ascii_uppercase)}{rng.randint(100, 999)}"
    decoy_code = f"GT-W{rng.randint(10, 99)}"
    cause, tried, revert, fix = (hexits(rng, 8) for _ in range(4))
    day = rng.randint(8, 27)
    hh, mm = rng.choice((8, 9)), rng.randint(2, 55)

    def uid(r: random.Random) -> str:
        return ":".join(hexits(r, 2).upper() for _ in range(4))

    def gate_ok(r: random.Random) -> str:
        return (
            f"2025-01-{day:02d}T{hh:02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z "
            f"host={r.choice(others)} [info] validate_pass uid={uid(r)} result=ok "
            f"elapsed_ms={r.randint(180, 420)}"
        )

    def gate_err(r: random.Random) -> str:
        return (
            f"2025-01-{day:02d}T{hh:02d}:{mm:02d}:{r.randint(0, 59):02d}Z host={host} "
            f"[error] validate_pass uid={uid(r)} result=reject code={code} "
            f"reason=reader_timeout elapsed_ms={r.randint(2001, 2480)}"
        )

    log = [gate_ok(rng) for _ in range(9)] + [gate_err(rng) for _ in range(5)]
    log.append(
        f"2025-01-{day:02d}T{hh:02d}:{rng.randint(0, 59):02d}:07Z host={others[0]} [warning] "
        f"reader_status code={decoy_code} reason=low_signal rssi=-{rng.randint(71, 79)}",
    )
    b.user(
        f"Ciao! Stamattina verso le {hh}:{mm:02d} alla partenza della {lift_title} i tornelli "
        "hanno rifiutato una decina di giornalieri validi: la gente scavalcava e gli addetti "
        "hanno dovuto aprire a mano. Riesci a capire cosa è successo? Il servizio è `varco` "
        "(Phoenix), i log dei varchi finiscono su Loki con la label `lift`."
    )
    b.tool(
        "Cerco errori e warning dei varchi di quella partenza nelle ultime ore.",
        "bash",
        {
            "command": f'logcli query \'{{app="varco",lift="{lift}"}} |~ "error|warning|info"\''
            " --since=4h --limit=40 --quiet"
        },
        _lines(*sorted(log, reverse=True)),
    )
    b.assistant(
        f"Il problema è concentrato su un solo varco: `{host}`. Tutti i rifiuti hanno "
        f"`code={code}` con `reason=reader_timeout` e tempi oltre i 2 secondi, mentre gli altri "
        f"varchi della {lift_title} validano in 200-400 ms. C'è anche un `{decoy_code}` "
        f"(low_signal) su `{others[0]}`, ma è un warning isolato e non ha bloccato nessuno."
    )
    b.user("Ok, ma perché proprio adesso? Il lettore di quel varco nessuno l'ha toccato.")
    b.tool(
        "Guardo la storia recente del validatore.",
        "bash",
        {"command": "git log --oneline -5 -- lib/varco/validator.ex"},
        _lines(
            f"{cause} validator: GenServer.call con timeout 2_000 (era :infinity)",
            f"{hexits(rng, 8)} validator: log strutturati con uid e lift",
            f"{hexits(rng, 8)} validator: rifiuta skipass con stagione chiusa",
            f"{hexits(rng, 8)} mix: phoenix 1.7.14, ecto_sql 3.12",
            f"{hexits(rng, 8)} validator: estrai via/1",
        ),
    )
    b.tool(
        "E il punto in cui il varco chiama il lettore.",
        "bash",
        {"command": "sed -n 18,34p lib/varco/validator.ex"},
        _lines(
            "  @reader_timeout 2_000",
            "",
            "  @spec validate(varco_id(), uid()) :: {:ok, Passaggio.t()} | {:reject, atom()}",
            "  def validate(varco, uid) do",
            "    GenServer.call(via(varco), {:validate, uid}, @reader_timeout)",
            "  catch",
            "    :exit, {:timeout, _} ->",
            '      Logger.error("validate_pass", uid: uid, result: :reject)',
            "      {:reject, :reader_timeout}",
            "  end",
        ),
    )
    b.assistant(
        f"Ecco il motivo: il commit `{cause}` di ieri ha messo un timeout fisso di 2 s sulla "
        f"`GenServer.call` (prima era `:infinity`). Il lettore di `{host}` ha un firmware più "
        "vecchio e con l'antenna attuale ci mette 2,1-2,4 s: la call va in timeout e il varco "
        "rifiuta. Propongo di rendere il timeout configurabile per varco."
    )
    b.user("Prova prima la cosa più semplice: un retry sulla lettura.")
    b.tool(
        "Aggiungo un secondo tentativo di lettura e faccio commit sul branch del fix.",
        "bash",
        {"command": 'git commit -am "validator: ritenta la lettura su timeout"'},
        _lines(
            f"[fix/timeout-lettore {tried}] validator: ritenta la lettura su timeout",
            " 1 file changed, 9 insertions(+), 2 deletions(-)",
        ),
    )
    b.tool(
        "Lancio i test del validatore.",
        "bash",
        {"command": "mix test test/varco/validator_test.exs"},
        _lines(
            f"Running ExUnit with seed: {rng.randint(10000, 999999)}, max_cases: 16",
            "",
            "......",
            "",
            "  1) test un uid valido passa anche con lettore lento (Varco.ValidatorTest)",
            "     test/varco/validator_test.exs:57",
            "     Assertion with < failed",
            "     code:  assert elapsed_ms < 3_000",
            f"     left:  {rng.randint(4010, 4480)}",
            "     right: 3000",
            "",
            ".......",
            f"Finished in {rng.randint(40, 60) / 10} seconds (0.0s async, 4.9s sync)",
            "14 tests, 1 failure",
        ),
    )
    b.assistant(
        "Il retry non basta: con due letture da 2 s il varco resta fermo più di 4 s e l'addetto "
        "deve intervenire comunque. Lo annullo e faccio il timeout configurabile."
    )
    b.user("Va bene, fai così.")
    b.tool(
        "Annullo il tentativo col retry.",
        "bash",
        {"command": f"git revert --no-edit {tried}"},
        _lines(
            f'[fix/timeout-lettore {revert}] Revert "validator: ritenta la lettura su timeout"',
            " 1 file changed, 2 insertions(+), 9 deletions(-)",
        ),
    )
    b.tool(
        "Timeout letto dalla configurazione del varco, default 3500 ms; commit.",
        "bash",
        {
            "command": 'git commit -am "validator: timeout del lettore configurabile per varco '
            '(default 3_500 ms)"'
        },
        _lines(
            f"[fix/timeout-lettore {fix}] validator: timeout del lettore configurabile per varco "
            "(default 3_500 ms)",
            " 3 files changed, 41 insertions(+), 6 deletions(-)",
        ),
    )
    b.assistant(
        f"Il fix è nel commit `{fix}` sul branch `fix/timeout-lettore`; il tentativo con il "
        f"retry (`{tried}`) è annullato dal revert `{revert}`. Sul varco lento bastano 3,5 s."
    )
    probes = [
        Probe(
            "identifier",
            "Which turnstile host was rejecting valid day passes?",
            f"{host} (reader timeouts; the other gates of {lift_title} were fine)",
            ((host,),),
        ),
        Probe(
            "identifier",
            "What error code did the rejected passes carry in the gate logs?",
            f"{code} (reason=reader_timeout)",
            ((code,),),
        ),
        Probe(
            "identifier",
            "Which commit holds the reader-timeout fix that was kept?",
            f"{fix} on fix/timeout-lettore (the retry attempt {tried} was reverted)",
            ((fix,),),
        ),
    ]

    def legacy_sync_deleted() -> Probe:
        b.user(
            "Già che ci sei togli quel vecchio modulo che sincronizzava i varchi col sistema di "
            "prima, non lo chiama più nessuno."
        )
        b.tool(
            "Controllo che non ci siano riferimenti e lo rimuovo.",
            "bash",
            {
                "command": "grep -rn LegacyGateSync lib test; git rm -q "
                "lib/varco/legacy_gate_sync.ex && git status"
            },
            _lines(
                "On branch fix/timeout-lettore",
                "Changes to be committed:",
                '  (use "git restore --staged <file>..." to unstage)',
                "\tdeleted:    lib/varco/legacy_gate_sync.ex",
            ),
        )
        b.assistant(
            "Nessun riferimento rimasto; il modulo è fuori, lo includo nel prossimo commit."
        )
        return Probe(
            "artifact",
            "What happened to lib/varco/legacy_gate_sync.ex?",
            "It was deleted (git rm), nothing referenced it any more",
            (
                ("legacy_gate_sync", "LegacyGateSync"),
                ("delet", "eliminat", "rimoss", "cancellat", "removed", "tolto"),
            ),
        )

    def migration_applied() -> Probe:
        at = f"{hh + 1:02d}{rng.randint(10, 59)}{rng.randint(10, 58)}"
        stamp = f"202501{day:02d}{at}"
        clock = f"{at[:2]}:{at[2:4]}:{int(at[4:]) + 1:02d}"
        b.user("Il timeout per varco dove lo salvi? Serve una colonna, immagino.")
        b.tool(
            "Sì, una colonna `reader_timeout_ms` su `varchi`. Genero la migrazione e la lancio "
            "su staging.",
            "bash",
            {"command": "MIX_ENV=staging mix ecto.migrate"},
            _lines(
                f"{clock}.004 [info] == Running {stamp} "
                "Varco.Repo.Migrations.AddReaderTimeoutToVarchi.change/0 forward",
                f"{clock}.006 [info] alter table varchi",
                f"{clock}.019 [info] == Migrated {stamp} in 0.0s",
            ),
        )
        b.assistant(
            "La migrazione `add_reader_timeout_to_varchi` è applicata sul database di staging: "
            "`reader_timeout_ms` intero, default 3500, non nullo."
        )
        return Probe(
            "artifact",
            "Was the add_reader_timeout_to_varchi migration run, and where?",
            "Yes, applied on the staging database (reader_timeout_ms, default 3500)",
            (
                ("add_reader_timeout_to_varchi", "AddReaderTimeoutToVarchi"),
                ("applicat", "eseguit", "lanciat", "migrated", "applied", "ran "),
            ),
        )

    def export_scaled() -> Probe:
        b.user(
            "Un'altra cosa: il deployment che esportava i passaggi al vecchio fornitore gira "
            "ancora su k8s e riempie i log di errori. Spegnilo, senza cancellarlo."
        )
        b.tool(
            "Porto il deployment a zero repliche.",
            "bash",
            {"command": "kubectl -n impianti scale deployment/varco-export-legacy --replicas=0"},
            "deployment.apps/varco-export-legacy scaled",
        )
        b.tool(
            "Verifico.",
            "bash",
            {"command": "kubectl -n impianti get deploy varco-export-legacy"},
            _lines(
                "NAME                  READY   UP-TO-DATE   AVAILABLE   AGE",
                f"varco-export-legacy   0/0     0            0           {rng.randint(40, 300)}d",
            ),
        )
        b.assistant("Fatto: il deployment resta definito ma non ha più pod attivi.")
        return Probe(
            "artifact",
            "What was done to the varco-export-legacy deployment?",
            "Scaled to 0 replicas (kept, not deleted)",
            (
                ("varco-export-legacy",),
                ("scaled", "scalat", "replicas=0", "0 replic", "zero", "0/0", "spent", "stopped"),
            ),
        )

    def timeout_test_green() -> Probe:
        b.user("Hai scritto un test apposta per il varco lento?")
        b.tool(
            "Sì, simula un lettore da 2,4 s. Lo lancio.",
            "bash",
            {"command": "mix test test/varco/reader_timeout_test.exs"},
            _lines(
                f"Running ExUnit with seed: {rng.randint(10000, 999999)}, max_cases: 16",
                "",
                "...........",
                f"Finished in 0.{rng.randint(2, 9)} seconds (0.1s async, 0.2s sync)",
                "11 tests, 0 failures",
            ),
        )
        b.assistant(
            "`test/varco/reader_timeout_test.exs` passa: 11 test, 0 fallimenti, compreso il caso "
            "del lettore da 2,4 s."
        )
        return Probe(
            "artifact",
            "What is the state of test/varco/reader_timeout_test.exs?",
            "It passes (11 tests, 0 failures)",
            (
                ("reader_timeout_test",),
                (
                    "passa",
                    "passed",
                    "passes",
                    "passing",
                    "0 failures",
                    "0 fallimenti",
                    "verde",
                    "green",
                ),
            ),
        )

    def antipassback() -> Probe:
        n = rng.choice((5, 10, 15))
        b.user(
            f"Ho appena sentito il direttore d'esercizio: l'antipassback lo portiamo a {n} minuti "
            "su tutti i varchi, non più 2. Vale da subito, anche per gli stagionali."
        )
        b.assistant(
            f"Ricevuto: antipassback a {n} minuti su tutti i varchi, stagionali compresi. Lo "
            "metto nella configurazione insieme al timeout, così va in produzione con il fix."
        )
        return Probe(
            "decision",
            "What anti-passback interval was settled for the turnstiles?",
            f"{n} minutes on every gate, season passes included (the operations director's call; "
            "it used to be 2)",
            (
                ("antipassback", "anti-passback", "passback", "ripassaggio", "re-entry"),
                (f"{n} min", f"{n}-min", f"{n}min"),
            ),
        )

    def fail_closed() -> Probe:
        k = rng.choice((1, 2))
        b.user("Per evitare che ricapiti, cosa proponi se il lettore va comunque in timeout?")
        b.assistant(
            "Proposta: in caso di timeout il varco apre lo stesso e registriamo il passaggio come "
            "`da_verificare`, così nessuno resta bloccato in coda."
        )
        b.user(
            "No, aprire alla cieca no: la Provincia ci controlla i passaggi. Se il lettore va in "
            f"timeout il varco resta chiuso e si accende la luce gialla per l'addetto. Al massimo "
            f"{k} rilettur{'a' if k == 1 else 'e'}, poi basta."
        )
        b.assistant(
            "Chiaro, niente apertura in caso di timeout: il varco resta chiuso con luce gialla "
            f"per l'addetto, massimo {k} rilettur{'a' if k == 1 else 'e'}."
        )
        return Probe(
            "decision",
            "What must a turnstile do when its card reader times out?",
            f"Stay closed with the yellow light for the attendant, at most {k} re-read(s); the "
            "proposal to open anyway was rejected",
            (
                ("timeout", "time out", "times out"),
                (
                    "chius",
                    "closed",
                    "fail-closed",
                    "non apre",
                    "not open",
                    "never open",
                    "doesn't open",
                    "does not open",
                ),
            ),
        )

    def offline_whitelist() -> Probe:
        h = rng.choice((2, 3, 4, 6))
        b.user("Ora la whitelist che i varchi tengono in memoria: va rivista anche quella.")
        b.assistant(
            "Prima di toccarla mi serve una risposta: se un varco perde la connessione col "
            "server, per quanto tempo può continuare a validare con la whitelist offline?"
        )
        b.user(f"{h} ore, non di più. Dopo, solo gli stagionali passano.")
        b.assistant(
            f"Ok: whitelist offline valida {h} ore dall'ultima sincronizzazione, poi solo "
            "stagionali."
        )
        return Probe(
            "decision",
            "How long may a gate keep validating from its offline whitelist?",
            f"{h} hours after the last sync; after that only season passes",
            (
                ("offline", "whitelist"),
                (f"{h} or", f"{h} h", f"{h}h", f"{h}-hour", f"{h}-or"),
            ),
        )

    def timezone_fix() -> Probe:
        b.user(
            "Nella configurazione nuova scrivi tutti i timestamp in UTC, così non impazziamo col "
            "cambio d'ora."
        )
        b.assistant("Ok, tutto in UTC.")
        b.user(
            "Anzi no, correggo: i passaggi in UTC va bene, ma la tabella `fasce_orarie` resta in "
            "Europe/Rome, perché le tariffe pomeridiane partono alle 12:30 ora locale."
        )
        b.assistant(
            "Corretto: passaggi in UTC, `fasce_orarie` in Europe/Rome (ora locale delle tariffe)."
        )
        return Probe(
            "decision",
            "Which time zone does the fasce_orarie table use?",
            "Europe/Rome local time (pass events stay in UTC); this corrected an earlier "
            "all-UTC instruction",
            (("fasce_orarie", "fasce orarie"), ("europe/rome", "ora locale", "local time")),
        )

    probes += _blocks(
        rng,
        [legacy_sync_deleted, migration_applied, export_scaled, timeout_test_green],
        rng.choice([antipassback, fail_closed, offline_whitelist, timezone_fix]),
    )

    step = rng.randrange(3)
    if step == 0:
        t = rng.choice(("7:15", "7:30", "7:45"))
        b.user(
            f"Domattina alle {t}, prima che aprano gli impianti, voglio provarlo io sul varco con "
            "una tessera di prova. Tu intanto non fare deploy sugli altri varchi."
        )
        b.assistant(
            f"Perfetto: niente deploy sugli altri varchi finché non l'hai provato domattina alle "
            f"{t}."
        )
        probe = Probe(
            "next_step",
            "What is planned before the fix goes to the other gates?",
            f"The user tests it himself on the gate with a test card tomorrow at {t}, before "
            "opening; no deploy to the other gates until then",
            ((t, t.replace(":", ".")), ("prov", "test", "try")),
        )
    elif step == 1:
        day_it, day_en = rng.choice((("sabato", "saturday"), ("domenica", "sunday")))
        b.user("Mi piacerebbe capire quanti passaggi abbiamo perso davvero, non solo stamattina.")
        b.assistant(
            f"Appena mi mandi l'export dei passaggi di {day_it} lo incrocio con i rifiuti "
            "`reader_timeout` e ti dico quanti clienti sono stati bloccati."
        )
        probe = Probe(
            "next_step",
            "What will the agent do once it receives the pass export?",
            f"Cross-check {day_it}'s pass export with the reader_timeout rejections to count the "
            "blocked customers",
            (("export",), (day_it, day_en)),
        )
    else:
        vendor = rng.choice(_VENDORS_IT)
        b.user(
            f"Ricordami di far revocare entro venerdì la chiave API di {vendor}: il vecchio "
            "fornitore non deve più leggere i nostri passaggi."
        )
        b.assistant(f"Segnato: revoca della chiave API di {vendor} entro venerdì.")
        probe = Probe(
            "next_step",
            "What did the user ask to be reminded of?",
            f"Having {vendor}'s API key revoked by Friday",
            ((vendor,), ("revoc", "revok")),
        )
    probes.append(probe)
    b.user("Bene, per ora è tutto su questo.")
    b.assistant(
        f"Riepilogo: fix in `{fix}` pronto su `fix/timeout-lettore`, varco `{host}` da "
        "monitorare dopo il deploy."
    )
    opening = b.take()
    return opening, segments_of(rng, b, segments, _deck(b, 6, _skipass_filler)), probes


def _skipass_filler(rng: random.Random, b: Builder, pick: int) -> None:
    if pick == 0:
        a, c = rng.randint(1, 5), rng.randint(6, 9)
        n = rng.randint(180, 260)
        b.user("Dependabot insiste con phoenix_live_view, aggiorniamo?")
        b.tool(
            "Aggiorno la dipendenza.",
            "bash",
            {"command": "mix deps.update phoenix_live_view"},
            _lines(
                "Resolving Hex dependencies...",
                "Resolution completed in 0.21s",
                "Upgraded:",
                f"  phoenix_live_view 0.20.{a} => 0.20.{c}",
                "* Updating phoenix_live_view (Hex package)",
            ),
        )
        b.tool(
            "Tutta la suite.",
            "bash",
            {"command": "mix test"},
            _lines(
                f"Finished in {rng.randint(30, 90) / 10} seconds ({rng.randint(1, 9) / 10}s "
                "async, 2.1s sync)",
                f"{n} tests, 0 failures",
            ),
        )
        b.assistant(f"Aggiornato a 0.20.{c}, i {n} test sono verdi. Apro la PR.")
    elif pick == 1:
        p95 = rng.randint(120, 900)
        b.user("Il widget meteo sul sito sembra lento, mi dai il p95 di /api/meteo di oggi?")
        b.tool(
            "Interrogo Prometheus.",
            "bash",
            {
                "command": "curl -s 'http://prometheus:9090/api/v1/query' --data-urlencode "
                "'query=histogram_quantile(0.95, sum by (le) (rate(phoenix_endpoint_stop_"
                'duration_bucket{route="/api/meteo"}[24h])))\''
            },
            '{"status":"success","data":{"resultType":"vector","result":[{"metric":{},'
            f'"value":[1736{rng.randint(100000, 999999)},"{p95 / 1000:.3f}"]}}]}}}}',
        )
        b.assistant(
            f"p95 di /api/meteo nelle ultime 24 ore: {p95} ms. "
            + (
                "Va bene così."
                if p95 < 400
                else "Alto: il provider esterno risponde lento, si può mettere una cache di 5 "
                "minuti."
            )
        )
    elif pick == 2:
        missing = rng.randint(3, 17)
        b.user("Mancano le traduzioni tedesche della pagina tariffe, me lo segnalano gli hotel.")
        b.tool(
            "Estraggo e unisco le stringhe.",
            "bash",
            {"command": "mix gettext.extract --merge"},
            _lines(
                "Extracted priv/gettext/default.pot",
                "Wrote priv/gettext/de/LC_MESSAGES/default.po "
                f"({rng.randint(2, 6)} new messages, 0 removed, {missing} fuzzy)",
                "Wrote priv/gettext/en/LC_MESSAGES/default.po (0 new messages, 0 removed)",
            ),
        )
        b.assistant(
            f"In `de/LC_MESSAGES/default.po` ci sono {missing} voci fuzzy da rivedere: te le "
            "passo in un file per l'ufficio marketing."
        )
    elif pick == 3:
        counts = [rng.randint(0, 40) for _ in range(3)]
        b.user("Quanti job del report giornaliero sono ancora in coda su Oban?")
        b.tool(
            "Conto per stato.",
            "bash",
            {
                "command": 'psql $DATABASE_URL -c "select state, count(*) from oban_jobs where '
                "queue = 'report' group by state\""
            },
            _lines(
                "   state    | count",
                "------------+-------",
                f" available  |    {counts[0]}",
                f" completed  |  {counts[1] + 300}",
                f" retryable  |     {counts[2]}",
                "(3 rows)",
            ),
        )
        b.assistant(
            f"Coda `report`: {counts[0]} disponibili, {counts[2]} in retry, il resto completato. "
            "Niente di bloccato."
        )
    elif pick == 4:
        issues = rng.randint(2, 6)
        b.user("Credo si lamenta in CI, guardi?")
        b.tool(
            "Lo lancio in strict.",
            "bash",
            {"command": "mix credo --strict"},
            _lines(
                "Checking 142 source files ...",
                "",
                "  Readability",
                "┃ [R] ↘ Modules should have a @moduledoc tag.",
                "┃       lib/varco_web/controllers/meteo_controller.ex:1:11 #(VarcoWeb.Meteo"
                "Controller)",
                "",
                f"{issues} mods/funs, found {issues} readability issues.",
            ),
        )
        b.assistant(f"Sono {issues} moduli senza `@moduledoc`; li documento, niente di funzionale.")
    else:
        rows = rng.randint(40, 220)
        b.user("Importa il CSV dei cannoni da neve di stanotte, serve per il bollettino.")
        b.tool(
            "Lancio lo script di import.",
            "bash",
            {"command": "mix run priv/scripts/import_innevamento.exs /data/innevamento.csv"},
            _lines(
                f"[info] letti {rows} record da /data/innevamento.csv",
                f"[info] inseriti {rows - 2} record, 2 duplicati ignorati",
                f"[info] acqua totale: {rng.randint(900, 4000)} m³",
            ),
        )
        b.assistant(f"Importati {rows - 2} record (2 duplicati saltati), il bollettino li vede.")


# ------------------------------------------------------------------------- doodh_app_hi

_CENTRES_HI = ("Kheda", "Borsad", "Petlad", "Nadiad", "Umreth", "Khambhat")
_PKG = "com.sahkari.doodhsetu"
_SRC = f"app/src/main/java/{_PKG.replace('.', '/')}"


def _mac(rng: random.Random, prefix: str) -> str:
    return ":".join([prefix, *(hexits(rng, 2).upper() for _ in range(3))])


def _doodh_app_hi(rng: random.Random, b: Builder, segments: int) -> Parts:
    centre = rng.choice(_CENTRES_HI)
    m, p = rng.randint(10, 19), rng.randint(1, 8)
    bad, good, fixed = f"5.{m}.{p}", f"5.{m}.{p - 1}", f"5.{m}.{p + 1}"
    ticket = f"DS-{rng.randint(400, 1999)}"
    mac = _mac(rng, "00:1B:DC")
    printer = _mac(rng, "66:12:4A")
    serial = f"R9{token(rng, 9)}"
    pid = rng.randint(3000, 9000)
    stamp = f"01-{rng.randint(10, 28)} 06:{rng.randint(10, 59)}"

    def crash_line(text: str) -> str:
        return f"{stamp}:31.882  {pid}  {pid + 54} E AndroidRuntime: {text}"

    b.user(
        f"Bhai, kal subah se {centre} ke 3 centres pe app crash ho raha hai jaise hi analyzer "
        f"connect karte hain. Maine {ticket} bana diya hai. Ek tablet USB pe laga hai mere laptop "
        "pe, adb se dekh sakte ho?"
    )
    b.tool(
        "Pehle crash buffer dekhta hoon.",
        "bash",
        {"command": f"adb -s {serial} logcat -b crash -b main -d -s AndroidRuntime BleAnalyzer"},
        _lines(
            f"{stamp}:30.114  {pid}  {pid + 54} D BleAnalyzer: scan result {printer} "
            "(EP-58 Printer) rssi=-61",
            f"{stamp}:30.517  {pid}  {pid + 54} D BleAnalyzer: connecting to {mac} "
            "(MilkoTest BT-200)",
            "--------- beginning of crash",
            crash_line("FATAL EXCEPTION: DefaultDispatcher-worker-3"),
            crash_line(f"Process: {_PKG}, PID: {pid}"),
            crash_line(
                "java.lang.SecurityException: Need android.permission.BLUETOOTH_CONNECT "
                "permission for AttributionSource { uid = 10211, packageName = "
                f"{_PKG} }}: GattService registerClient"
            ),
            crash_line("\tat android.os.Parcel.createExceptionOrNull(Parcel.java:3011)"),
            crash_line(
                "\tat android.bluetooth.BluetoothDevice.connectGatt(BluetoothDevice.java:2787)"
            ),
            crash_line(f"\tat {_PKG}.analyzer.BleAnalyzerClient.connect(BleAnalyzerClient.kt:88)"),
            crash_line(
                f"\tat {_PKG}.collection.CollectionViewModel$startReading$1.invokeSuspend"
                "(CollectionViewModel.kt:142)"
            ),
        ),
    )
    b.tool(
        "Is tablet pe kaunsa build hai aur targetSdk kya hai.",
        "bash",
        {
            "command": f"adb -s {serial} shell dumpsys package {_PKG} | grep -oE "
            "'versionName=\\S+|targetSdk=\\S+'"
        },
        _lines("targetSdk=33", f"versionName={bad}"),
    )
    b.tool(
        "Play Console ka pichhla release bhi dekh leta hoon.",
        "bash",
        {"command": "git log --oneline -3 -- app/build.gradle.kts"},
        _lines(
            f"{hexits(rng, 7)} release: {bad} (targetSdk 33 for Play policy)",
            f"{hexits(rng, 7)} release: {good}",
            f"{hexits(rng, 7)} deps: room 2.6.1",
        ),
    )
    b.assistant(
        f"Mil gaya. Crash sirf {bad} mein hai: is release mein targetSdk 30 se 33 kiya gaya, "
        "aur Android 12+ pe ab `BLUETOOTH_CONNECT` runtime permission maangni padti hai. Hum "
        f"maang hi nahi rahe, isliye analyzer `{mac}` (MilkoTest BT-200) se connect karte hi "
        f"`SecurityException`. {good} mein targetSdk 30 tha, wahan ye problem nahi thi. Printer "
        f"`{printer}` wala scan theek hai."
    )
    b.user(f"Fix karo. Aur {ticket} pe update daal dena, Meena QA wahi dekhti hai.")
    b.tool(
        "Permission request add karta hoon connect se pehle.",
        "bash",
        {"command": "git diff --stat && ./gradlew :app:testDebugUnitTest -q"},
        _lines(
            " app/src/main/AndroidManifest.xml                      |  4 +++-",
            " .../collection/CollectionViewModel.kt                 | 27 ++++++++++++++++++---",
            " .../permissions/BluetoothPermissions.kt               | 41 +++++++++++++++++++++",
            " 3 files changed, 67 insertions(+), 5 deletions(-)",
            "",
            f"BUILD SUCCESSFUL in {rng.randint(40, 95)}s",
            f"{rng.randint(38, 60)} actionable tasks: 9 executed, 40 up-to-date",
        ),
    )
    b.tool(
        "Ticket pe comment.",
        "bash",
        {
            "command": f'jira issue comment add {ticket} "Root cause: {bad} me targetSdk 33, '
            'BLUETOOTH_CONNECT runtime permission missing. Fix branch: fix/ble-permission"'
        },
        f'✓ Comment added to issue "{ticket}"',
    )
    b.assistant(
        f"Fix `fix/ble-permission` branch pe hai: connect se pehle permission maangte hain, mana "
        f"kare to screen pe Gujarati mein samjhate hain. Unit tests green, {ticket} pe comment "
        f"daal diya. Naya build {fixed} banega."
    )
    probes = [
        Probe(
            "identifier",
            "Which app version crashes when the analyzer connects?",
            f"{bad} (targetSdk 33 without the BLUETOOTH_CONNECT request; {good} was fine)",
            ((bad,),),
        ),
        Probe(
            "identifier",
            "Which Jira ticket tracks the analyzer crash?",
            ticket,
            ((ticket,),),
        ),
        Probe(
            "identifier",
            "What is the Bluetooth MAC address of the milk analyzer on the failing tablet?",
            f"{mac} (MilkoTest BT-200)",
            ((mac,),),
        ),
    ]

    def migration_tested() -> Probe:
        b.user(
            "Aur collections table mein `synced_at` column wala migration bhi pending tha na, "
            "usko real tablet pe test kar lo jab tak laga hua hai."
        )
        b.tool(
            "MigrationTest chala raha hoon tablet pe.",
            "bash",
            {
                "command": "./gradlew :app:connectedDebugAndroidTest "
                "-Pandroid.testInstrumentationRunnerArguments.class="
                f"{_PKG}.db.MigrationTest"
            },
            _lines(
                "> Task :app:connectedDebugAndroidTest",
                "Starting 3 tests on SM-T225 - 13",
                "",
                f"{_PKG}.db.MigrationTest > migrate6To7[SM-T225 - 13] PASSED",
                f"{_PKG}.db.MigrationTest > migrate7To8[SM-T225 - 13] PASSED",
                f"{_PKG}.db.MigrationTest > migrateAll[SM-T225 - 13] PASSED",
                "",
                f"BUILD SUCCESSFUL in 1m {rng.randint(5, 50)}s",
            ),
        )
        b.assistant("Teeno migration tests tablet pe chal gaye, data bhi sahi bacha.")
        return Probe(
            "artifact",
            "How did the Room migration to schema 8 (synced_at) do on the real tablet?",
            "MigrationTest.migrate7To8 passed on the SM-T225 (Android 13)",
            (("migrate7To8", "MIGRATION_7_8"), ("pass", "chal gay", "sahi")),
        )

    def printer_bridge_deleted() -> Probe:
        b.user("Purana printer wala bridge abhi bhi pada hai kya? EscPos wala aane ke baad?")
        b.tool(
            "Check karke hata deta hoon.",
            "bash",
            {
                "command": "grep -rn LegacyPrinterBridge app/src --include=*.kt | wc -l; "
                f"git rm {_SRC}/print/LegacyPrinterBridge.kt"
            },
            _lines("1", f"rm '{_SRC}/print/LegacyPrinterBridge.kt'"),
        )
        b.assistant(
            "Sirf apni file mein hi naam tha. `LegacyPrinterBridge.kt` hata diya, ab printing "
            "sirf `EscPosPrinter` se hoti hai."
        )
        return Probe(
            "artifact",
            "What happened to LegacyPrinterBridge.kt?",
            "Deleted with git rm; printing only goes through EscPosPrinter now",
            (("LegacyPrinterBridge",), ("hata", "delet", "remov", "nikal")),
        )

    def auto_print_off() -> Probe:
        v = rng.randint(30, 90)
        b.user(
            "Jab tak fix nahi jaata, auto print band kar do Remote Config se. Crash ke baad "
            "printer double slip nikal raha hai."
        )
        b.tool(
            "Remote Config template nikaal ke flag badalta hoon.",
            "bash",
            {
                "command": "firebase remoteconfig:get -o rc.json && jq '.parameters."
                'enable_auto_print.defaultValue.value = "false"\' rc.json > rc.new.json && '
                "firebase deploy --only remoteconfig && jq -c '.parameters | "
                "{enable_auto_print}' rc.new.json"
            },
            _lines(
                "=== Deploying to 'doodhsetu-prod'...",
                "i  deploying remoteconfig",
                f"✔  remoteconfig: current version: {v}",
                "✔  Deploy complete!",
                '{"enable_auto_print":{"defaultValue":{"value":"false"}}}',
            ),
        )
        b.assistant(f"Ho gaya, template v{v} live hai. Apps agli fetch pe naya value le lenge.")
        return Probe(
            "artifact",
            "What is the state of the enable_auto_print Remote Config flag?",
            f"Set to false (template v{v} deployed) until the fix ships",
            (("enable_auto_print",), ("false", "band", "disabl", "off")),
        )

    def client_renamed() -> Probe:
        b.user("BleAnalyzerClient naam confusing hai, ab USB analyzer bhi aayega. Rename kar do.")
        b.tool(
            "git mv karke references update karta hoon.",
            "bash",
            {
                "command": f"git mv {_SRC}/analyzer/BleAnalyzerClient.kt "
                f"{_SRC}/analyzer/AnalyzerConnection.kt && git status --short -- {_SRC}/analyzer"
            },
            f"R  {_SRC}/analyzer/BleAnalyzerClient.kt -> {_SRC}/analyzer/AnalyzerConnection.kt",
        )
        b.assistant(
            "Class bhi `AnalyzerConnection` kar di, aur 6 jagah imports theek kiye. Build green."
        )
        return Probe(
            "artifact",
            "What happened to BleAnalyzerClient.kt?",
            "Renamed (git mv) to AnalyzerConnection.kt, class renamed too",
            (("BleAnalyzerClient",), ("renam", "AnalyzerConnection", "naam badl")),
        )

    def truncate() -> Probe:
        b.user(
            "Ek cheez pakki kar lo: fat aur SNF dono 1 decimal tak dikhana hai, aur truncate "
            "karna hai, round nahi. Society wale rounding pe jhagda karte hain, 4.96 ko 5.0 "
            "dikhaya to paisa zyada banta hai."
        )
        b.assistant(
            "Samajh gaya: fat/SNF 1 decimal, truncate (4.96 → 4.9), rounding kahin nahi. "
            "`ReadingFormatter` mein yahi rule daalunga."
        )
        return Probe(
            "decision",
            "How must fat and SNF readings be shown?",
            "One decimal, truncated, never rounded (4.96 shows as 4.9)",
            (
                ("truncat", "round nahi", "no rounding", "not round", "without rounding"),
                ("fat", "snf"),
            ),
        )

    def min_sdk() -> Probe:
        old, final = rng.choice((24, 26)), rng.choice((21, 22))
        b.user(f"Aur minSdk {old} kar do, purane tablets ka jhanjhat khatam.")
        b.assistant(f"Theek hai, minSdk {old} kar deta hoon.")
        b.user(
            "Ruko, galat bola. Sarpanch ji ne bataya 2 centres pe abhi bhi Android 5 wale tablets "
            f"hain. minSdk {final} hi rahega."
        )
        b.assistant(f"Ok, minSdk {final} hi rakhta hoon, {old} wala change nahi karunga.")
        return Probe(
            "decision",
            "What minSdk does the app keep?",
            f"{final} (the user first said {old}, then corrected it: some centres still run "
            "Android 5 tablets)",
            (("minsdk", "min sdk"), (str(final),)),
        )

    def slip_snf() -> Probe:
        b.user(
            "Union office se message aaya hai: slip pe rate per litre ke saath SNF bhi print hona "
            "chahiye, aur Gujarati mein. Ye final hai, unka circular aa gaya."
        )
        b.assistant(
            "Noted: slip pe rate/litre ke saath SNF bhi, Gujarati mein. Print layout mein ek line "
            "badhani padegi, 58mm paper pe fit ho jayegi."
        )
        return Probe(
            "decision",
            "What did the union office decide about the printed slip?",
            "The slip must print SNF along with the rate per litre, in Gujarati",
            (("slip",), ("snf",)),
        )

    def keep_offline() -> Probe:
        b.user("Offline entries ka kya karein jo kabhi sync hi nahi hoti?")
        b.assistant(
            "Mera suggestion: 7 din se purani unsynced entries auto-delete kar dein, storage "
            "bhar jaata hai."
        )
        b.user(
            "Nahi yaar, delete kabhi nahi. Wo kisaan ka paisa hai. Jab tak server pe sync na ho, "
            "entries tablet mein hi rahengi, chahe mahina lag jaye."
        )
        b.assistant(
            "Theek, unsynced entries kabhi delete nahi hongi; sync hone tak tablet pe rahengi."
        )
        return Probe(
            "decision",
            "What happens to offline entries that have not synced?",
            "They are never deleted; they stay on the tablet until synced (the 7-day "
            "auto-delete proposal was rejected)",
            (
                ("sync",),
                (
                    "delete nahi",
                    "never delete",
                    "not delete",
                    "no delete",
                    "never be deleted",
                    "not be deleted",
                    "no auto-delete",
                    "not auto-delete",
                    "kabhi delete nahi",
                    "never deleted",
                    "not deleted",
                ),
            ),
        )

    probes += _blocks(
        rng,
        [migration_tested, printer_bridge_deleted, auto_print_off, client_renamed],
        rng.choice([truncate, min_sdk, slip_snf, keep_offline]),
    )
    step = rng.randrange(3)
    if step == 0:
        day = rng.choice(("Friday", "Saturday"))
        b.user(
            f"Main {day} tak {centre} wale centre se 2 tablets mangwa leta hoon, phir field test "
            "karenge dono Android versions pe."
        )
        b.assistant(f"Perfect, {day} ko tablets aane ke baad field test.")
        hindi = {"Friday": ("shukravar", "शुक्रवार"), "Saturday": ("shanivar", "शनिवार")}[day]
        probe = Probe(
            "next_step",
            "What is the user going to arrange, and by when?",
            f"Get 2 tablets from the {centre} centre by {day} for a field test",
            (("tablet",), (day, *hindi)),
        )
    elif step == 1:
        pct = rng.choice((10, 20, 25))
        b.user("Rollout kaise karoge? Pichhli baar seedha 100% kiya tha aur yahi hua.")
        b.assistant(
            f"Jab Meena QA sign-off de degi, tab main {fixed} ka staged rollout {pct}% pe start "
            "karunga, aur 2 din crash-free dekh ke aage badhaunga."
        )
        probe = Probe(
            "next_step",
            "What will the agent do after QA signs off?",
            f"Start a staged rollout of {fixed} at {pct}%, widen it after 2 crash-free days",
            (("rollout",), (f"{pct}%", f"{pct} %", f"{pct} percent")),
        )
    else:
        b.user(
            "Aur Monday subah 10 baje se pehle Play Console pe Gujarati release notes daal dena, "
            "ye tumhara kaam hai. Main us din Anand mein rahunga."
        )
        b.assistant("Done, Monday 10 baje se pehle Gujarati release notes main daal dunga.")
        probe = Probe(
            "next_step",
            "What must the agent do before Monday 10 am?",
            "Put the Gujarati release notes on Play Console",
            (("release notes",), ("monday", "somvar", "सोमवार")),
        )
    probes.append(probe)
    b.user("Chalo, abhi ke liye itna. Baaki kal.")
    b.assistant(f"Theek hai. {ticket} open rakhta hoon jab tak {fixed} rollout nahi hota.")
    opening = b.take()
    return opening, segments_of(rng, b, segments, _deck(b, 6, _doodh_filler)), probes


def _doodh_filler(rng: random.Random, b: Builder, pick: int) -> None:
    if pick == 0:
        old, new = rng.choice((("2024.06.00", "2024.09.00"), ("2024.09.00", "2024.10.01")))
        b.user("Compose BOM update karna hai, Dependabot PR pada hai kab se.")
        b.tool(
            "Version catalog badal ke build karta hoon.",
            "bash",
            {"command": "git diff gradle/libs.versions.toml && ./gradlew assembleDebug -q"},
            _lines(
                '@@ -4,7 +4,7 @@ agp = "8.5.2"',
                f'-compose-bom = "{old}"',
                f'+compose-bom = "{new}"',
                "",
                f"BUILD SUCCESSFUL in {rng.randint(50, 140)}s",
            ),
        )
        b.assistant(f"BOM {new} pe build theek hai, PR merge kar sakte ho.")
    elif pick == 1:
        warn = rng.randint(3, 40)
        b.user("Lint ki warnings kitni hain ab? CI report dekhna mushkil hai.")
        b.tool(
            "Lint chalata hoon.",
            "bash",
            {"command": "./gradlew :app:lintDebug"},
            _lines(
                "> Task :app:lintDebug",
                "Wrote HTML report to file:///home/rohit/doodhsetu/app/build/reports/"
                "lint-results-debug.html",
                f"Lint found 0 errors, {warn} warnings",
            ),
        )
        b.assistant(
            f"0 errors, {warn} warnings — zyada tar unused resources aur hardcoded strings hain."
        )
    elif pick == 2:
        total, mr = rng.randint(180, 240), rng.randint(140, 179)
        b.user("Marathi strings kitni missing hain? Kolhapur wale centres ke liye chahiye.")
        b.tool(
            "Count karta hoon.",
            "bash",
            {
                "command": "grep -c '<string ' app/src/main/res/values/strings.xml "
                "app/src/main/res/values-mr/strings.xml"
            },
            _lines(
                f"app/src/main/res/values/strings.xml:{total}",
                f"app/src/main/res/values-mr/strings.xml:{mr}",
            ),
        )
        b.assistant(f"{total - mr} strings Marathi mein missing hain. List bana ke bhej deta hoon.")
    elif pick == 3:
        mins = [rng.randint(7, 19) for _ in range(3)]
        b.user("CI itna slow kyun hai aajkal?")
        b.tool(
            "Pichhle runs dekhta hoon.",
            "bash",
            {"command": "gh run list --workflow android.yml -L 3"},
            _lines(
                "STATUS  TITLE                      WORKFLOW  BRANCH  EVENT  ID          ELAPSED",
                *(
                    f"✓       {title:<26} android   main    push   "
                    f"{rng.randint(10**9, 2 * 10**9)}  {mins[i]}m{rng.randint(0, 59)}s"
                    for i, title in enumerate(
                        ("strings: gujarati fixes", "deps: okhttp 4.12.0", "ui: bigger number pad")
                    )
                ),
            ),
        )
        b.assistant(
            "Gradle cache restore nahi ho raha, key har run badal rahi hai. `gradle/actions/setup-"
            "gradle` pe shift karne se 5-6 minute bachenge."
        )
    elif pick == 4:
        mb = rng.randint(11, 19)
        b.user("Release APK ka size kitna hai ab? Gaon mein data mehenga hai.")
        b.tool(
            "Release build aur size.",
            "bash",
            {"command": "./gradlew assembleRelease -q && ls -lh app/build/outputs/apk/release/"},
            _lines(
                "total 15M",
                f"-rw-r--r-- 1 rohit rohit {mb}M  app-release.apk",
                "-rw-r--r-- 1 rohit rohit  1.1K output-metadata.json",
            ),
        )
        b.assistant(f"{mb} MB hai. App bundle se download 30-35% kam hoga, wahi upload karte hain.")
    else:
        ms = rng.randint(600, 1900)
        b.user("Cold start kitna time le raha hai purane tablet pe?")
        b.tool(
            "am start se measure karta hoon.",
            "bash",
            {"command": f"adb shell am start -W -n {_PKG}/.MainActivity"},
            _lines(
                f"Starting: Intent {{ cmp={_PKG}/.MainActivity }}",
                "Status: ok",
                "LaunchState: COLD",
                f"TotalTime: {ms}",
                f"WaitTime: {ms + rng.randint(5, 40)}",
                "Complete",
            ),
        )
        b.assistant(
            f"Cold start {ms} ms. Baseline profile lagane se 20-30% kam ho sakta hai, try karein?"
        )


# ------------------------------------------------------------------------ svitlo_bot_uk

_OBLENERGO_UK = (
    ("cherkasy", "Черкасах", "cek"),
    ("poltava", "Полтаві", "poe"),
    ("ternopil", "Тернополі", "toe"),
    ("zhytomyr", "Житомирі", "ztoe"),
    ("rivne", "Рівному", "roe"),
)


def _svitlo_bot_uk(rng: random.Random, b: Builder, segments: int) -> Parts:
    region, city_in, short = rng.choice(_OBLENERGO_UK)
    v = rng.randint(3, 5)
    old_url = f"https://api.{short}.com.ua/gpv/v{v - 1}/schedule?region={region}"
    new_url = f"https://api.{short}.com.ua/gpv/v{v}/regions/{rng.randint(10, 99)}/schedule"
    n = rng.randint(30, 180)
    suffix = [token(rng, 3, string.ascii_lowercase) for _ in range(3)]
    good_rev, bad_rev, next_rev = (f"svitlo-bot-{n + i:05d}-{suffix[i]}" for i in range(3))
    limit = rng.choice((256, 512))
    used = f"{limit + rng.randint(9, 120)} MiB"
    day = rng.randint(5, 27)

    def entry(hour: int, rev: str, text: str) -> str:
        clock = f"{hour:02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
        return f"2025-02-{day:02d}T{clock}Z\t{rev}\t{text}"

    first = limit + rng.randint(1, 8)
    oom = "Consider increasing the memory limit, see https://cloud.google.com/run/docs/"
    oom += "configuring/memory-limits"
    log = [
        entry(21, bad_rev, f"Memory limit of {limit} MiB exceeded with {used} used. {oom}"),
        entry(21, bad_rev, 'level=ERROR msg="poll failed" err="context deadline exceeded"'),
        entry(
            20,
            bad_rev,
            f'level=WARN msg="upstream redirect" status=301 from={old_url} to={new_url}',
        ),
        entry(20, bad_rev, f"Memory limit of {limit} MiB exceeded with {first} MiB used. {oom}"),
        entry(18, good_rev, 'level=WARN msg="slow upstream" elapsed=4.2s'),
    ]
    b.user(
        f"Привіт! З учорашнього вечора бот не надіслав жодного сповіщення, а в {city_in} вже "
        "двічі вимикали світло. Люди пишуть у чат, що бот мовчить. Глянь, будь ласка, що там "
        "на Cloud Run."
    )
    b.tool(
        "Дивлюся логи сервісу з рівнем WARNING і вище за останню добу.",
        "bash",
        {
            "command": 'gcloud logging read \'resource.type="cloud_run_revision" AND '
            'resource.labels.service_name="svitlo-bot" AND severity>=WARNING\' --freshness=1d '
            "--limit=8 --format='value(timestamp,resource.labels.revision_name,textPayload)'"
        },
        _lines(*sorted(log, reverse=True)),
    )
    b.tool(
        "Які ревізії зараз є і куди йде трафік.",
        "bash",
        {
            "command": "gcloud run revisions list --service=svitlo-bot --region=europe-central2 "
            "--limit=2"
        },
        _lines(
            "   REVISION                 ACTIVE  SERVICE     DEPLOYED                 DEPLOYED BY",
            f"✔  {bad_rev}  yes     svitlo-bot  2025-02-{day - 1:02d} 18:41:07 UTC  "
            "ci@svitlo-prod.iam.gserviceaccount.com",
            f"✔  {good_rev}          svitlo-bot  2025-02-{day - 3:02d} 10:02:55 UTC  "
            "ci@svitlo-prod.iam.gserviceaccount.com",
        ),
    )
    b.assistant(
        f"Ось що сталося. Обленерго перенесло API: старий `{old_url}` тепер віддає 301 на "
        f"`{new_url}`, а новий ендпоінт повертає графік на цілий тиждень для всіх підчерг. "
        f"Ревізія `{bad_rev}` (учорашній деплой) іде за редіректом, читає все тіло в пам'ять і "
        f"падає по OOM: {used} при ліміті {limit} MiB. Тому й тиша. Попередня `{good_rev}` "
        "редіректу не знала і теж нічого корисного не отримала б."
    )
    b.user("Ясно. Що пропонуєш — просто підняти пам'ять?")
    b.tool(
        "Підняти можна, але краще не тримати тиждень у пам'яті. Ось як зараз читається відповідь.",
        "bash",
        {"command": "sed -n 41,52p internal/gpv/client.go"},
        _lines(
            "\tresp, err := c.http.Do(req)",
            "\tif err != nil {",
            '\t\treturn nil, fmt.Errorf("gpv: fetch: %w", err)',
            "\t}",
            "\tdefer resp.Body.Close()",
            "\tbody, err := io.ReadAll(resp.Body)",
            "\tif err != nil {",
            "\t\treturn nil, err",
            "\t}",
            "\tvar week WeekSchedule",
            "\tif err := json.Unmarshal(body, &week); err != nil {",
        ),
    )
    b.tool(
        "Переписав на потоковий json.Decoder, беремо тільки сьогодні й завтра; новий URL у "
        "конфігу. Тести пакета:",
        "bash",
        {"command": "go test ./internal/gpv/... -count=1"},
        f"ok  \tgithub.com/svitlo/bot/internal/gpv\t0.{rng.randint(11, 95):02d}s",
    )
    b.tool(
        "Деплою.",
        "bash",
        {"command": "gcloud run deploy svitlo-bot --source . --region=europe-central2"},
        _lines(
            "Building using Dockerfile and deploying container to Cloud Run service [svitlo-bot] "
            "in project [svitlo-prod] region [europe-central2]",
            "OK Building and deploying... Done.",
            f"Service [svitlo-bot] revision [{next_rev}] has been deployed and is serving 100 "
            "percent of traffic.",
        ),
    )
    b.assistant(
        f"Готово: `{next_rev}` обслуговує 100% трафіку, парсер читає потоком і тримає лише два "
        "дні. Дивлюся, щоб пам'ять не росла."
    )
    probes = [
        Probe(
            "identifier",
            "Which Cloud Run revision was being killed for running out of memory?",
            f"{bad_rev} (yesterday's deploy)",
            ((bad_rev,),),
        ),
        Probe(
            "identifier",
            "What is the oblenergo's new schedule API URL?",
            f"{new_url} (the old {old_url} answers 301 to it)",
            ((new_url,),),
        ),
        Probe(
            "identifier",
            "How much memory was the crashing revision using when it was killed?",
            f"{used} (limit {limit} MiB)",
            ((used,),),
        ),
    ]

    def scheduler_destroyed() -> Probe:
        b.user(
            "Приберімо той старий Cloud Scheduler, що смикав /poll щохвилини, — тепер бот сам "
            "опитує."
        )
        b.tool(
            "Видалив ресурс із scheduler.tf, застосовую.",
            "bash",
            {"command": "terraform apply -auto-approve"},
            _lines(
                "google_cloud_scheduler_job.poll_every_minute: Destroying... [id=projects/"
                "svitlo-prod/locations/europe-central2/jobs/poll-every-minute]",
                "google_cloud_scheduler_job.poll_every_minute: Destruction complete after 2s",
                "",
                "Apply complete! Resources: 0 added, 0 changed, 1 destroyed.",
            ),
        )
        b.assistant("Зроблено, джоби більше немає.")
        return Probe(
            "artifact",
            "What happened to the Cloud Scheduler job poll_every_minute?",
            "Destroyed with terraform apply (removed from scheduler.tf)",
            (
                ("poll_every_minute", "poll-every-minute"),
                ("destr", "видал", "знищ", "прибра", "removed", "deleted"),
            ),
        )

    def secret_disabled() -> Probe:
        b.user(
            "До речі, хтось учора скинув у чат скрін із токеном бота. Новий я вже взяла в "
            "BotFather і поклала як нову версію секрету. Стару вимкни."
        )
        b.tool(
            "Дивлюся версії секрету.",
            "bash",
            {"command": "gcloud secrets versions list telegram-bot-token --limit=2"},
            _lines(
                "NAME  STATE    CREATED              DESTROYED",
                f"4     enabled  2025-02-{day:02d}T07:58:12  -",
                f"3     enabled  2024-11-{rng.randint(10, 28)}T12:40:31  -",
            ),
        )
        b.tool(
            "Вимикаю третю.",
            "bash",
            {"command": "gcloud secrets versions disable 3 --secret=telegram-bot-token"},
            "Disabled version [3] of the secret [telegram-bot-token].",
        )
        b.assistant(
            "Версію 3 вимкнено, сервіс читає `latest`, тобто 4. Не знищую, щоб можна було "
            "подивитися аудит."
        )
        return Probe(
            "artifact",
            "What was done to the old version of the telegram-bot-token secret?",
            "Version 3 was disabled (not destroyed); the service reads version 4",
            (("telegram-bot-token",), ("disabl", "вимкн", "деактив", "відклик", "revok")),
        )

    def dst_test_failing() -> Probe:
        b.user("Прожени всі тести, перш ніж мерджити.")
        b.tool(
            "Запускаю.",
            "bash",
            {"command": "go test ./... -count=1"},
            _lines(
                f"ok  \tgithub.com/svitlo/bot/internal/gpv\t0.{rng.randint(11, 95):02d}s",
                f"ok  \tgithub.com/svitlo/bot/internal/notify\t0.{rng.randint(11, 95):02d}s",
                "--- FAIL: TestSlotsAcrossDST (0.00s)",
                "    slots_test.go:88: got 23 slots for 2025-03-30, want 24",
                "FAIL",
                "FAIL\tgithub.com/svitlo/bot/internal/schedule\t0.014s",
                "FAIL",
            ),
        )
        b.assistant(
            "Усе зелене, крім `TestSlotsAcrossDST`: він падав і до мого фіксу, це перехід на "
            "літній час. Залишаю його червоним і заведу окрему задачу."
        )
        return Probe(
            "artifact",
            "What is the state of TestSlotsAcrossDST?",
            "Still failing (23 slots instead of 24 on the DST day); left for a separate task",
            (("TestSlotsAcrossDST",), ("fail", "пада", "червон", "не проход", "broken")),
        )

    def sender_renamed() -> Probe:
        b.user("sender.go — незрозуміла назва, там тільки Telegram. Перейменуй.")
        b.tool(
            "Перейменовую через git mv.",
            "bash",
            {
                "command": "git mv internal/notify/sender.go internal/notify/telegram.go && "
                "git status --short internal/notify"
            },
            "R  internal/notify/sender.go -> internal/notify/telegram.go",
        )
        b.assistant("Файл перейменовано, пакет і імпорти ті самі, збирається.")
        return Probe(
            "artifact",
            "What happened to internal/notify/sender.go?",
            "Renamed with git mv to internal/notify/telegram.go",
            (("notify/sender.go",), ("renam", "перейменов", "telegram.go")),
        )

    def lead_time() -> Probe:
        mins = rng.choice((15, 20, 30))
        b.user(
            f"І ще: сповіщення шлемо за {mins} хвилин до відключення, не раніше. За годину люди "
            "встигають забути."
        )
        b.assistant(f"Прийнято: сповіщення рівно за {mins} хвилин до початку відключення.")
        return Probe(
            "decision",
            "How long before an outage is the notification sent?",
            f"{mins} minutes before it starts, not earlier",
            (
                ("сповіщ", "notif", "повідомл", "нагад", "alert"),
                (f"{mins} хв", f"{mins} min", f"{mins}-min", f"{mins}хв"),
            ),
        )

    def no_phones() -> Probe:
        b.user(
            "Юристи нарешті відповіли: номери телефонів не зберігаємо взагалі, тільки chat_id. "
            "Так і напишемо в політиці конфіденційності."
        )
        b.assistant(
            "Зрозумів: жодних телефонів у базі, тільки `chat_id`. Приберу поле `phone` з "
            "моделі підписника в наступному PR."
        )
        return Probe(
            "decision",
            "What did the lawyers decide about subscriber data?",
            "No phone numbers stored at all, only the Telegram chat_id",
            (("телефон", "phone"), ("chat_id", "chat id")),
        )

    def empty_schedule() -> Probe:
        b.user("Що ще треба знати, поки ти в парсері?")
        b.assistant(
            "Одне питання: якщо обленерго віддає порожній графік на день, писати людям "
            "«відключень не заплановано» чи мовчати?"
        )
        b.user(
            "Мовчати. Порожній графік у них часто означає, що ще не опублікували. Тільки "
            "warning у лог."
        )
        b.assistant("Добре: на порожній графік нічого не надсилаємо, лише warning у лог.")
        return Probe(
            "decision",
            "What does the bot do when the oblenergo returns an empty schedule?",
            "Sends nothing to users, only logs a warning (empty often means not published yet)",
            (
                ("порожн", "empty"),
                (
                    "мовч",
                    "нічого",
                    "nothing",
                    "no message",
                    "not send",
                    "silent",
                    "skip",
                    "не надсил",
                    "не пиш",
                    "warning",
                ),
            ),
        )

    def poll_interval() -> Probe:
        every = rng.choice((5, 10))
        b.user("Як часто тепер опитуватимемо обленерго?")
        b.assistant("Пропоную щохвилини, раз уже немає зовнішнього Scheduler.")
        b.user(
            f"Ні, раз на {every} хвилин досить — вони нас уже банили за частий polling, і "
            "графік однаково оновлюють не частіше."
        )
        b.assistant(f"Гаразд, інтервал опитування {every} хвилин.")
        return Probe(
            "decision",
            "How often does the bot poll the oblenergo API?",
            f"Every {every} minutes (the agent's every-minute proposal was rejected)",
            (("опит", "poll"), (f"{every} хв", f"{every} min", f"{every}-min", f"{every}хв")),
        )

    probes += _blocks(
        rng,
        [scheduler_destroyed, secret_disabled, dst_test_failing, sender_renamed],
        rng.choice([lead_time, no_phones, empty_schedule, poll_interval]),
    )
    step = rng.randrange(3)
    if step == 0:
        b.user("Як переконаємося, що новий формат парситься правильно?")
        b.assistant(
            "Щойно обленерго опублікує графік на завтра (зазвичай до 20:00), прожену парсер на "
            "живих даних і напишу тобі, що вийшло."
        )
        probe = Probe(
            "next_step",
            "What will the agent do once tomorrow's schedule is published?",
            "Run the parser on the live data (usually published by 20:00) and report back",
            (("парсер", "parser"), ("завтра", "tomorrow")),
        )
    elif step == 1:
        b.user(
            "До четверга закрию PR з переїздом terraform state у GCS — це на мені, backend "
            "поки не чіпай."
        )
        b.assistant("Добре, backend не чіпаю, чекаю твій PR зі state у GCS до четверга.")
        probe = Probe(
            "next_step",
            "Who moves the Terraform state to GCS, and by when?",
            "The user closes that PR by Thursday; the agent must not touch the backend meanwhile",
            (("state", "стан"), ("gcs",), ("четвер", "thursday")),
        )
    else:
        b.user(
            "Нагадай мені в понеділок написати в обленерго, щоб дали нам API-ключ, а не "
            "публічний ендпоінт, який вони міняють без попередження."
        )
        b.assistant("Нагадаю в понеділок: лист в обленерго про API-ключ.")
        probe = Probe(
            "next_step",
            "What should the agent remind the user of on Monday?",
            "To write to the oblenergo asking for an API key instead of the public endpoint",
            (("обленерго", "oblenergo", "api-ключ", "api key", "ключ"), ("понеділ", "monday")),
        )
    probes.append(probe)
    b.user("Дякую, поки все.")
    b.assistant(f"Будь ласка. За `{next_rev}` стежу в Cloud Monitoring до вечора.")
    opening = b.take()
    return opening, segments_of(rng, b, segments, _deck(b, 6, _svitlo_filler)), probes


def _svitlo_filler(rng: random.Random, b: Builder, pick: int) -> None:
    if pick == 0:
        a, c = rng.randint(1, 8), rng.randint(9, 14)
        b.user("Оновімо бібліотеку Telegram, там виправили ретраї.")
        b.tool(
            "Оновлюю і чищу go.mod.",
            "bash",
            {"command": "go get github.com/go-telegram/bot@latest && go mod tidy"},
            f"go: upgraded github.com/go-telegram/bot v1.{a}.0 => v1.{c}.{rng.randint(0, 3)}",
        )
        b.assistant(f"Оновлено до v1.{c}, тести зелені, PR відкрито.")
    elif pick == 1:
        sent = rng.randint(2000, 90000)
        b.user("Скільки сповіщень ми надіслали за тиждень?")
        b.tool(
            "Беру лічильник із /metrics.",
            "bash",
            {
                "command": 'curl -s -H "Authorization: Bearer $(gcloud auth print-identity-token)'
                '" "$SERVICE_URL/metrics" | grep ^svitlo_notifications_sent_total'
            },
            _lines(
                f'svitlo_notifications_sent_total{{kind="outage_soon"}} {sent}',
                f'svitlo_notifications_sent_total{{kind="power_back"}} {sent // 2 + 17}',
            ),
        )
        b.assistant(f"{sent} попереджень і {sent // 2 + 17} «світло повернулося» з моменту старту.")
    elif pick == 2:
        miss = rng.randint(1, 6)
        b.user("Англійська локалізація щось відстає, перевір ключі.")
        b.tool(
            "Є утиліта, що порівнює файли.",
            "bash",
            {"command": "go run ./cmd/i18ncheck locales/uk.toml locales/en.toml"},
            f"en: {miss} missing keys: outage.tomorrow, settings.queue"
            + (", outage.cancelled" if miss > 2 else ""),
        )
        b.assistant(f"В en бракує {miss} ключів, додам переклади.")
    elif pick == 3:
        mb = rng.randint(9, 40)
        b.user("Образ не роздувся після оновлень?")
        b.tool(
            "Збираю локально і дивлюся розмір.",
            "bash",
            {"command": "docker build -q -t svitlo-bot:local . && docker images svitlo-bot"},
            _lines(
                "REPOSITORY   TAG     IMAGE ID       CREATED          SIZE",
                f"svitlo-bot   local   {hexits(rng, 12)}   10 seconds ago   "
                f"{mb}.{rng.randint(0, 9)}MB",
            ),
        )
        b.assistant(f"{mb} MB на distroless — нормально.")
    elif pick == 4:
        line = rng.randint(20, 140)
        b.user("golangci-lint у CI впав, глянеш?")
        b.tool(
            "Запускаю локально.",
            "bash",
            {"command": "golangci-lint run ./..."},
            _lines(
                f"internal/subs/store.go:{line}:2: ineffectual assignment to err (ineffassign)",
                "\terr = rows.Err()",
                "\t^",
            ),
        )
        b.assistant("Помилка з `rows.Err()` ігнорувалася — виправив, лінтер чистий.")
    else:
        days = rng.choice((30, 60, 90))
        b.user(f"Експорти статистики в бакеті треба видаляти через {days} днів.")
        b.tool(
            "Додав lifecycle-правило, план:",
            "bash",
            {"command": "terraform plan -no-color | tail -8"},
            _lines(
                '  ~ resource "google_storage_bucket" "exports" {',
                "      + lifecycle_rule {",
                '          + action { + type = "Delete" }',
                f"          + condition {{ + age = {days} }}",
                "        }",
                "    }",
                "",
                "Plan: 0 to add, 1 to change, 0 to destroy.",
            ),
        )
        b.assistant("План чистий: одна зміна в бакеті. Застосувати?")


# ----------------------------------------------------------------------- elaiourgeio_el

_VILLAGES_EL = ("Πεζά", "Αρχάνες", "Σητεία", "Ζάκρος", "Κριτσά", "Βιάννος")


def _kg_el(kilos: int, tenths: int) -> str:
    return f"{kilos:,}".replace(",", ".") + f",{tenths} kg"


def _elaiourgeio_el(rng: random.Random, b: Builder, segments: int) -> Parts:
    village = rng.choice(_VILLAGES_EL)
    dd = rng.randint(4, 27)
    run_id = f"scheduled__2024-11-{dd:02d}T03:00:00+00:00"
    prev_run = f"scheduled__2024-11-{dd - 1:02d}T03:00:00+00:00"
    slip_n = rng.randint(10000, 99998)
    slip = f"ΔΠ-{slip_n}"
    kilos, tenths = rng.randint(300, 4000), rng.randint(1, 9)
    extra = _kg_el(kilos, tenths)
    twice = 2 * (kilos * 10 + tenths)
    double = f"{twice // 10}.{twice % 10}"
    b.user(
        "Καλημέρα. Το DAG `elaia_daily` έσκασε πάλι τη νύχτα, και το πρωί ο πρόεδρος είδε στο "
        f"dashboard περισσότερο καρπό για το χωριό {village} απ' όσο ζυγίσαμε. Μπορείς να ρίξεις "
        "μια ματιά;"
    )
    b.tool(
        "Κοιτάζω τα αποτυχημένα runs του DAG.",
        "bash",
        {"command": "airflow dags list-runs -d elaia_daily --state failed -o plain | head -3"},
        _lines(
            "dag_id      | run_id                               | state  | start_date",
            f"elaia_daily | {run_id} | failed | 2024-11-{dd + 1:02d}T03:00:04.118+00:00",
        ),
    )
    b.tool(
        "Και το log του task `dbt_test` γι' αυτό το run.",
        "bash",
        {
            "command": f"tail -6 'logs/dag_id=elaia_daily/run_id={run_id}/task_id=dbt_test/"
            "attempt=1.log'"
        },
        _lines(
            f"[2024-11-{dd + 1:02d}, 03:07:41 UTC] {{subprocess.py:93}} INFO - 03:07:41  "
            "Failure in test unique_stg_paradoseis_deltio_id (models/staging/schema.yml)",
            f"[2024-11-{dd + 1:02d}, 03:07:41 UTC] {{subprocess.py:93}} INFO - 03:07:41    "
            "Got 1 result, configured to fail if != 0",
            f"[2024-11-{dd + 1:02d}, 03:07:42 UTC] {{subprocess.py:93}} INFO - 03:07:42  "
            "Done. PASS=41 WARN=0 ERROR=1 SKIP=0 TOTAL=42",
            f"[2024-11-{dd + 1:02d}, 03:07:42 UTC] {{taskinstance.py:2905}} ERROR - Task failed "
            "with exception",
            "airflow.exceptions.AirflowException: Bash command failed. The command returned a "
            "non-zero exit code 1.",
        ),
    )
    b.tool(
        "Ψάχνω το διπλό δελτίο.",
        "bash",
        {
            "command": 'psql -d elaia -c "select deltio_id, count(*), sum(kila) from '
            "staging.stg_paradoseis where deltio_id between 'ΔΠ-"
            f"{slip_n - 1}' and 'ΔΠ-{slip_n + 1}' group by 1 order by 1\""
        },
        _lines(
            " deltio_id | count |   sum",
            "-----------+-------+---------",
            f" ΔΠ-{slip_n - 1}  |     1 | {rng.randint(300, 2500)}.0",
            f" {slip}  |     2 | {double}",
            f" ΔΠ-{slip_n + 1}  |     1 | {rng.randint(300, 2500)}.{rng.choice((0, 5))}",
            "(3 rows)",
        ),
    )
    b.assistant(
        f"Βρέθηκε. Το run `{run_id}` απέτυχε στο test μοναδικότητας: το δελτίο παράδοσης `{slip}` "
        "υπάρχει δύο φορές στο `stg_paradoseis`, γιατί η ζυγαριά το ξαναέστειλε μετά από "
        f"διακοπή δικτύου. Έτσι το mart μέτρησε {extra} καρπού παραπάνω για τον ίδιο παραγωγό. "
        f"Τα γειτονικά δελτία είναι εντάξει, και το προηγούμενο run (`{prev_run}`) πέρασε."
    )
    b.user("Διόρθωσέ το στο staging, να μην ξαναγίνει με τις επαναποστολές.")
    b.tool(
        "Κρατάω μόνο την πρώτη λήψη κάθε δελτίου.",
        "bash",
        {"command": "git diff models/staging/stg_paradoseis.sql"},
        _lines(
            "@@ -1,3 +1,5 @@",
            "-select * from {{ source('zygos', 'paradoseis') }}",
            "+select distinct on (deltio_id) *",
            "+from {{ source('zygos', 'paradoseis') }}",
            "+order by deltio_id, received_at",
        ),
    )
    b.tool(
        "Ξανατρέχω το run από το task που απέτυχε.",
        "bash",
        {
            "command": f"airflow tasks clear elaia_daily -t 'dbt_.*' -s 2024-11-{dd:02d} "
            f"-e 2024-11-{dd:02d} -y"
        },
        _lines(
            "<TaskInstance: elaia_daily.dbt_run " + run_id + " [failed]>",
            "<TaskInstance: elaia_daily.dbt_test " + run_id + " [failed]>",
        ),
    )
    b.assistant(
        f"Το staging κρατά πλέον την πρώτη λήψη κάθε δελτίου. Καθάρισα τα tasks του `{run_id}` "
        f"και το Airflow τα ξανατρέχει· το χωριό {village} θα δείξει το σωστό βάρος."
    )
    probes = [
        Probe(
            "identifier",
            "Which Airflow run of elaia_daily failed?",
            f"{run_id} (unique test on stg_paradoseis.deltio_id)",
            ((run_id,),),
        ),
        Probe(
            "identifier",
            "Which delivery slip was duplicated?",
            f"{slip} (re-sent by the scale after a network drop)",
            ((slip,),),
        ),
        Probe(
            "identifier",
            "How many extra kilos of olives did the mart count because of the duplicate?",
            extra,
            ((extra,),),
        ),
    ]

    def tests_pass() -> Probe:
        b.user("Τα tests του staging περνάνε τώρα;")
        b.tool(
            "Τα τρέχω μόνο για αυτό το μοντέλο.",
            "bash",
            {"command": "dbt test --select stg_paradoseis"},
            _lines(
                "09:14:02  Running with dbt=1.8.7",
                "09:14:03  1 of 3 START test not_null_stg_paradoseis_kila .............. [RUN]",
                "09:14:03  1 of 3 PASS not_null_stg_paradoseis_kila .......... [PASS in 0.18s]",
                "09:14:03  2 of 3 PASS unique_stg_paradoseis_deltio_id ....... [PASS in 0.21s]",
                "09:14:03  3 of 3 PASS relationships_stg_paradoseis_kodikos_melous [PASS in 0.3s]",
                "09:14:04  Done. PASS=3 WARN=0 ERROR=0 SKIP=0 TOTAL=3",
            ),
        )
        b.assistant("Και τα τρία tests περνάνε, και το unique.")
        return Probe(
            "artifact",
            "Do the stg_paradoseis tests pass after the fix?",
            "Yes, all 3 (including unique_stg_paradoseis_deltio_id) pass",
            (("stg_paradoseis",), ("pass", "πέρασ", "περνά", "επιτυχ", "πράσιν", "green")),
        )

    def legacy_dag_paused() -> Probe:
        b.user(
            "Το παλιό `elaia_legacy_export` στέλνει ακόμα CSV στον λογιστή και μπερδεύει τα "
            "νούμερα. Σταμάτα το, μην το σβήσεις όμως."
        )
        b.tool(
            "Το βάζω σε παύση.",
            "bash",
            {"command": "airflow dags pause elaia_legacy_export"},
            "Dag: elaia_legacy_export, paused: True",
        )
        b.assistant("Σε παύση· ο κώδικας και το ιστορικό μένουν.")
        return Probe(
            "artifact",
            "What is the state of the elaia_legacy_export DAG?",
            "Paused (not deleted)",
            (
                ("elaia_legacy_export",),
                ("paus", "παύσ", "σταμάτ", "stopped", "disabled", "απενεργοπ"),
            ),
        )

    def tmp_table_dropped() -> Probe:
        b.user("Υπάρχει ακόμα εκείνος ο προσωρινός πίνακας απόδοσης του 2023; Πιάνει χώρο.")
        b.tool(
            "Υπάρχει, δεν τον διαβάζει κανένα μοντέλο. Τον σβήνω.",
            "bash",
            {"command": "psql -d elaia -c 'drop table analytics.tmp_apodosi_2023;'"},
            "DROP TABLE",
        )
        b.assistant(
            f"Ο πίνακας `tmp_apodosi_2023` διαγράφηκε, ελευθερώθηκαν περίπου "
            f"{rng.randint(200, 900)} MB."
        )
        return Probe(
            "artifact",
            "What happened to analytics.tmp_apodosi_2023?",
            "It was dropped (nothing read it)",
            (("tmp_apodosi_2023",), ("drop", "διαγρ", "delet", "σβήσ", "removed")),
        )

    def seed_loaded() -> Probe:
        b.user("Η λογίστρια έστειλε τις νέες τιμές ανά κιλό για κάθε ποικιλία. Πέρασέ τες.")
        b.tool(
            "Ενημέρωσα το seed και το φορτώνω.",
            "bash",
            {"command": "dbt seed --select timi_ana_kilo --full-refresh"},
            _lines(
                "09:31:10  Running with dbt=1.8.7",
                "09:31:11  1 of 1 START seed file analytics.timi_ana_kilo ................ [RUN]",
                f"09:31:11  1 of 1 OK loaded seed file analytics.timi_ana_kilo ....... [INSERT "
                f"{rng.randint(24, 60)} in 0.12s]",
                "09:31:11  Done. PASS=1 WARN=0 ERROR=0 SKIP=0 TOTAL=1",
            ),
        )
        b.assistant("Οι νέες τιμές είναι μέσα· τα marts τις παίρνουν στο επόμενο run.")
        return Probe(
            "artifact",
            "What happened to the timi_ana_kilo seed?",
            "Updated with the new per-kilo prices and loaded (dbt seed --full-refresh)",
            (("timi_ana_kilo",), ("loaded", "φορτώθ", "φόρτωσ", "φορτωμ", "insert")),
        )

    def acidity() -> Probe:
        b.user(
            "Κάτι ακόμα: η οξύτητα να βγαίνει με ένα δεκαδικό, όχι δύο. Έτσι τη γράφει και το "
            "εργαστήριο στα δελτία, αλλιώς οι παραγωγοί ρωτάνε γιατί διαφέρει."
        )
        b.assistant("Εντάξει, οξύτητα με ένα δεκαδικό παντού (`round(oxytita, 1)`).")
        return Probe(
            "decision",
            "How is acidity to be reported?",
            "With one decimal, as the lab writes it",
            (
                ("οξύτητ", "acidity"),
                (
                    "ένα δεκαδικό",
                    "1 δεκαδικ",
                    "ενός δεκαδικού",
                    "one decimal",
                    "1 decimal",
                    "round(oxytita, 1)",
                ),
            ),
        )

    def backfill_year() -> Probe:
        old, year = rng.choice((2018, 2019)), rng.choice((2020, 2021, 2022))
        b.user(f"Μετά θα θέλω backfill του ιστορικού από το {old}.")
        b.assistant(f"Εντάξει, ετοιμάζω backfill από το {old}.")
        b.user(
            f"Διόρθωση: από το {year} και μετά. Τα παλιότερα είναι στο παλιό σύστημα, με άλλους "
            "κωδικούς παραγωγών, και θα βγάλουν σκουπίδια."
        )
        b.assistant(f"Κατάλαβα, το backfill ξεκινά από το {year}, όχι από το {old}.")
        return Probe(
            "decision",
            "From which year does the history backfill start?",
            f"{year} (the user first said {old}, then corrected it: older data uses other "
            "producer codes)",
            (("backfill", "ιστορικ", "history", "historical"), (str(year),)),
        )

    def litres() -> Probe:
        b.user(
            "Μήνυμα από τη συνεδρίαση του ΔΣ χθες: η απόδοση υπολογίζεται σε λίτρα ανά 100 κιλά "
            "καρπού, όχι σε κιλά λαδιού. Έτσι τη δίνουν και στους παραγωγούς."
        )
        b.assistant(
            "Σημείωσα: απόδοση = λίτρα λαδιού ανά 100 κιλά καρπού. Αλλάζω το `fct_apodosi` "
            "και την περιγραφή της στήλης."
        )
        return Probe(
            "decision",
            "In what unit does the board want yield computed?",
            "Litres of oil per 100 kg of olives (not kilos of oil)",
            (("απόδοσ", "yield"), ("λίτρ", "litre", "liter")),
        )

    def member_key() -> Probe:
        b.user("Οι παραγωγοί εμφανίζονται διπλοί στη λίστα. Πώς τους ενώνουμε;")
        b.assistant("Προτείνω να τους ενώσουμε με βάση το ΑΦΜ, είναι πιο σταθερό.")
        b.user(
            "Όχι με ΑΦΜ — πολλά μέλη είναι οικογένειες με κοινό ΑΦΜ, θα χάσουμε ανθρώπους. "
            "Κλειδί είναι ο κωδικός μέλους."
        )
        b.assistant("Σωστά· κλειδί ο κωδικός μέλους (`kodikos_melous`), όχι το ΑΦΜ.")
        return Probe(
            "decision",
            "What key identifies a producer?",
            "The member code (kodikos_melous), not the ΑΦΜ tax number (families share one)",
            (("μέλους", "member", "kodikos_melous"), ("αφμ", "afm", "tax", "vat")),
        )

    probes += _blocks(
        rng,
        [tests_pass, legacy_dag_paused, tmp_table_dropped, seed_loaded],
        rng.choice([acidity, backfill_year, litres, member_key]),
    )
    step = rng.randrange(3)
    if step == 0:
        b.user("Μέχρι την Παρασκευή θέλω το dashboard απόδοσης ανά χωριό, για τη γενική συνέλευση.")
        b.assistant("Θα είναι έτοιμο ως την Παρασκευή· στέλνω πρόχειρο νωρίτερα.")
        probe = Probe(
            "next_step",
            "What is due by Friday?",
            "The yield-per-village dashboard for the general assembly",
            (("dashboard", "ταμπλό"), ("παρασκευ", "friday")),
        )
    elif step == 1:
        b.user("Και πώς ξέρουμε ότι δεν λείπουν κι άλλα δελτία;")
        b.assistant(
            "Μόλις ο Νίκος στείλει τα CSV της ζυγαριάς για τον Νοέμβριο, κάνω συμφωνία γραμμή "
            "προς γραμμή με τις παραδόσεις και σου λέω τι λείπει."
        )
        probe = Probe(
            "next_step",
            "What will the agent do when the scale's CSVs arrive?",
            "Reconcile November's scale CSVs line by line against the deliveries",
            (("ζυγαρι", "scale", "weighbridge"), ("csv",)),
        )
    else:
        b.user(
            "Θύμισέ μου να ζητήσω από το λογιστήριο read-only πρόσβαση στη βάση του ERP πριν τις "
            "15 του μήνα."
        )
        b.assistant("Θα σου το θυμίσω: read-only πρόσβαση στο ERP από το λογιστήριο, ως τις 15.")
        probe = Probe(
            "next_step",
            "What should the agent remind the user of?",
            "To ask accounting for read-only access to the ERP database before the 15th",
            (("λογιστήρ", "accounting", "erp"), ("read-only", "read only", "πρόσβασ", "access")),
        )
    probes.append(probe)
    b.user("Ευχαριστώ, τα λέμε.")
    b.assistant("Τα λέμε. Το επόμενο run του `elaia_daily` θα το δω πρωί.")
    opening = b.take()
    return opening, segments_of(rng, b, segments, _deck(b, 6, _elaiourgeio_filler)), probes


def _elaiourgeio_filler(rng: random.Random, b: Builder, pick: int) -> None:
    if pick == 0:
        nodes = rng.randint(60, 140)
        b.user("Ανανέωσε την τεκμηρίωση του dbt, ο Κώστας θέλει να δει το lineage.")
        b.tool(
            "Παράγω τα docs.",
            "bash",
            {"command": "dbt docs generate"},
            _lines(
                "10:02:11  Running with dbt=1.8.7",
                f"10:02:12  Found {nodes} models, {nodes * 2} data tests, 4 seeds, 9 sources",
                "10:02:15  Building catalog",
                "10:02:17  Catalog written to /opt/elaia/target/catalog.json",
            ),
        )
        b.assistant("Τα docs ανανεώθηκαν· το lineage φαίνεται στο γνωστό link.")
    elif pick == 1:
        n = rng.randint(2, 9)
        b.user("Το sqlfluff κοκκινίζει στο CI, τι λέει;")
        b.tool(
            "Τρέχω lint στα marts.",
            "bash",
            {"command": "sqlfluff lint models/marts/fct_apodosi_xoria.sql"},
            _lines(
                "== [models/marts/fct_apodosi_xoria.sql] FAIL",
                f"L:  {rng.randint(3, 40)} | P:   5 | LT01 | Expected single whitespace.",
                f"L:  {rng.randint(41, 80)} | P:  12 | AL03 | Column expression without alias.",
                f"All Finished! {n} violations.",
            ),
        )
        b.assistant(f"{n} θέματα μορφοποίησης, τα φτιάχνω με `sqlfluff fix`.")
    elif pick == 2:
        slots = rng.choice((16, 32, 64))
        b.user("Γιατί τα tasks περιμένουν τόσο στο queue τα πρωινά;")
        b.tool(
            "Κοιτάζω τα pools.",
            "bash",
            {"command": "airflow pools list -o plain"},
            _lines(
                "pool         | slots | description          | include_deferred",
                f"default_pool | {slots}    | Default pool         | False",
                "postgres     | 4     | μέγιστες συνδέσεις   | False",
            ),
        )
        b.assistant(
            "Το pool `postgres` έχει μόνο 4 θέσεις και όλα τα dbt tasks πάνε εκεί. Προτείνω 8."
        )
    elif pick == 3:
        hours = rng.randint(2, 30)
        b.user("Είναι φρέσκα τα δεδομένα από τα τιμολόγια;")
        b.tool(
            "Ελέγχω freshness.",
            "bash",
            {"command": "dbt source freshness --select source:erp"},
            _lines(
                "10:20:01  1 of 1 START freshness of erp.timologia ...................... [RUN]",
                f"10:20:02  1 of 1 {'PASS' if hours < 24 else 'WARN'} freshness of erp.timologia "
                f".......... [{'PASS' if hours < 24 else 'WARN'} in 0.4s]",
            ),
        )
        b.assistant(
            f"Τελευταία εγγραφή πριν {hours} ώρες — "
            + ("εντάξει." if hours < 24 else "πάνω από μία μέρα, ρωτάω το λογιστήριο.")
        )
    elif pick == 4:
        cols = rng.randint(4, 15)
        b.user("Πρόσθεσε περιγραφές στις στήλες του `fct_apodosi_xoria`.")
        b.tool(
            "Συμπλήρωσα το schema.yml.",
            "bash",
            {"command": "git diff --stat models/marts/schema.yml"},
            f" models/marts/schema.yml | {cols * 2} +++++++++++++-----",
        )
        b.assistant(f"Περιγραφές για {cols} στήλες, στα ελληνικά όπως τα θέλει ο πρόεδρος.")
    else:
        rows = [(v, rng.randint(40, 400)) for v in rng.sample(_VILLAGES_EL, 3)]
        b.user("Πόσους ενεργούς παραγωγούς έχουμε ανά χωριό φέτος;")
        b.tool(
            "Ρωτάω το dimension.",
            "bash",
            {
                "command": 'psql -d elaia -c "select xorio, count(*) from marts.dim_paragogoi '
                'where energos group by 1 order by 2 desc limit 3"'
            },
            _lines(
                "  xorio   | count",
                "----------+-------",
                *(f" {v:<8} | {c}" for v, c in sorted(rows, key=lambda r: -r[1])),
                "(3 rows)",
            ),
        )
        b.assistant("Αυτά είναι τα τρία μεγαλύτερα χωριά σε ενεργούς παραγωγούς.")


# ------------------------------------------------------------------------ kaukolampo_fi

_AREAS_FI = ("Hervannan", "Kalevan", "Lielahden", "Tesoman", "Hatanpään")


def _kaukolampo_fi(rng: random.Random, b: Builder, segments: int) -> Parts:
    area = rng.choice(_AREAS_FI)
    collector = f"KR-{rng.randint(100, 199)}"
    meter = f"{rng.randint(60, 79)}{rng.randint(100000, 999999)}"
    ok_meter = f"{rng.randint(80, 99)}{rng.randint(100000, 999999)}"
    where = f"src/decode/vif.rs:{rng.randint(150, 320)}:{rng.randint(9, 48)}"
    x, y = rng.randint(3, 12), rng.randint(1, 7)
    bad, fixed = f"v2.{x}.{y}", f"v2.{x}.{y + 1}"
    pid = rng.randint(1200, 40000)
    hh = rng.randint(5, 8)

    def journal(sec: int, text: str, unit: str = f"lampo-ingest[{pid}]") -> str:
        return f"helmi 11 {hh:02d}:14:{sec:02d} lampo-ingest-02 {unit}: {text}"

    b.user(
        "Moi! lampo-ingest-02 on käynnistynyt uudelleen parisenkymmentä kertaa aamun aikana, "
        f"ja {area} alueen lukemia puuttuu raportilta. Katsotko mitä siellä tapahtuu?"
    )
    b.tool(
        "Katson palvelun journalin.",
        "bash",
        {"command": "ssh lampo-ingest-02 journalctl -u lampo-ingest --since today -n 9 --no-pager"},
        _lines(
            journal(
                1,
                f"2025-02-11T{hh - 2:02d}:14:01.902Z DEBUG lampo_ingest::decode: meter "
                f"id={ok_meter} manufacturer=KAM version=0x1a medium=heat",
            ),
            journal(
                2,
                f"2025-02-11T{hh - 2:02d}:14:02.118Z  INFO lampo_ingest::collector: frame "
                f"received collector={collector} len=47",
            ),
            journal(
                2,
                f"2025-02-11T{hh - 2:02d}:14:02.119Z DEBUG lampo_ingest::decode: meter "
                f"id={meter} manufacturer=KAM version=0x1b medium=heat",
            ),
            journal(2, f"thread 'tokio-runtime-worker' panicked at {where}:"),
            journal(2, "unsupported VIF extension 0xFD 0x3B"),
            journal(
                2, "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"
            ),
            journal(
                2,
                "lampo-ingest.service: Main process exited, code=exited, status=101/n/a",
                "systemd[1]",
            ),
            journal(2, "lampo-ingest.service: Failed with result 'exit-code'.", "systemd[1]"),
            journal(
                7,
                "lampo-ingest.service: Scheduled restart job, restart counter is at "
                f"{rng.randint(18, 29)}.",
                "systemd[1]",
            ),
        ),
    )
    b.tool(
        "Mikä versio siellä pyörii ja mitä dekooderiin muuttui viimeksi.",
        "bash",
        {
            "command": f"ssh lampo-ingest-02 lampo-ingest --version && git log --oneline "
            f"v2.{x}.{y - 1}..{bad} -- src/decode"
        },
        _lines(
            f"lampo-ingest {bad[1:]}",
            f"{hexits(rng, 9)} decode: tiukka VIF-jäsennys, tuntematon laajennus = virhe",
            f"{hexits(rng, 9)} decode: siirrä DIF-taulukko omaan moduuliin",
        ),
    )
    b.assistant(
        f"Syy löytyi. Versiossa {bad} VIF-jäsennys tehtiin tiukaksi, ja mittari `{meter}` "
        "(Kamstrup, uudempi firmware 0x1b) lähettää laajennuksen 0xFD 0x3B, jota dekooderi ei "
        f"tunne. Siitä tulee `unwrap()`-paniikki kohdassa `{where}`, koko prosessi kaatuu ja "
        f"systemd käynnistää sen uudelleen — sillä välin kaikki keräimen {collector} kehykset "
        f"menetetään. Vanhempi mittari `{ok_meter}` jäsentyy normaalisti."
    )
    b.user("Korjaa niin, ettei yksi mittari kaada koko palvelua.")
    b.tool(
        "Tuntematon laajennus ohitetaan nyt varoituksella ja kehys tallennetaan ilman sitä. "
        "Testit:",
        "bash",
        {"command": "cargo test --release 2>&1 | tail -4"},
        _lines(
            "test decode::tests::tuntematon_vif_laajennus_ohitetaan ... ok",
            "",
            f"test result: ok. {rng.randint(50, 90)} passed; 0 failed; 1 ignored; 0 measured; "
            "0 filtered out; finished in 0.41s",
        ),
    )
    b.tool(
        "Tagaan korjauksen ja ajan deployn molemmille koneille.",
        "bash",
        {
            "command": f"git tag {fixed} && git push origin {fixed} && ansible-playbook "
            f"deploy.yml -l lampo_ingest -e lampo_version={fixed}"
        },
        _lines(
            "PLAY RECAP *********************************************************************",
            "lampo-ingest-01            : ok=9    changed=2    unreachable=0    failed=0",
            "lampo-ingest-02            : ok=9    changed=2    unreachable=0    failed=0",
        ),
    )
    b.assistant(
        f"{fixed} on nyt ajossa kummallakin koneella; {bad} on korvattu. Mittari `{meter}` "
        "tuottaa varoituksen, mutta palvelu pysyy pystyssä."
    )
    probes = [
        Probe(
            "identifier",
            "Which meter's frames crashed the ingest service?",
            f"{meter} (Kamstrup, firmware 0x1b, VIF extension 0xFD 0x3B)",
            ((meter,),),
        ),
        Probe(
            "identifier",
            "Where in the code did the service panic?",
            where,
            ((where,),),
        ),
        Probe(
            "identifier",
            "Which lampo-ingest version carries the fix and is deployed?",
            f"{fixed} (replacing {bad})",
            ((fixed,),),
        ),
    ]

    def migration_applied() -> Probe:
        b.user(
            "Kun se laajennus nyt kuitenkin luetaan, tallennetaanko samalla menolämpötila? "
            "Kanta tarvitsee siihen sarakkeen."
        )
        b.tool(
            "Tein migraation ja ajan sen.",
            "bash",
            {"command": "sqlx migrate run --database-url $LAMPO_DB_URL"},
            f"Applied 20250211{hh + 1:02d}3000/migrate add flow temperature "
            f"({rng.randint(8, 40)}.{rng.randint(100, 999)}ms)",
        )
        b.assistant(
            "Sarake `meno_lampotila_c` on nyt taulussa `lukemat`; hypertaulun pakkaus ei "
            "häiriintynyt."
        )
        return Probe(
            "artifact",
            "Was the add_flow_temperature migration run?",
            "Yes, applied with sqlx migrate run (column meno_lampotila_c on lukemat)",
            (
                ("add_flow_temperature", "add flow temperature"),
                ("applied", "ajettu", "ajoin", "ajettiin", "sovellettu", "migrated"),
            ),
        )

    def timer_disabled() -> Probe:
        b.user(
            "Se vanha siirtoajo, joka kopioi lukemat yöllä vanhaan järjestelmään, kannattaa "
            "sammuttaa. Se ajaa samaan aikaan ja hidastaa kantaa."
        )
        b.tool(
            "Sammutan ajastimen molemmilta koneilta (ohessa 02:n tuloste).",
            "bash",
            {
                "command": "ssh lampo-ingest-02 sudo systemctl disable --now "
                "lampo-vanha-siirto.timer"
            },
            'Removed "/etc/systemd/system/timers.target.wants/lampo-vanha-siirto.timer".',
        )
        b.assistant("Ajastin on pois käytöstä, palvelutiedosto jäi paikalleen.")
        return Probe(
            "artifact",
            "What was done to lampo-vanha-siirto.timer?",
            "Disabled and stopped (systemctl disable --now); the unit file was kept",
            (
                ("lampo-vanha-siirto",),
                ("disabl", "poist", "pysäyt", "removed", "stopped", "pois käytöstä", "sammut"),
            ),
        )

    def test_ignored() -> Probe:
        b.user("Yksi testi oli ignored, mikä se on?")
        b.tool(
            "Katson.",
            "bash",
            {"command": "cargo test talvikellon_vaihto -- --include-ignored 2>&1 | grep test"},
            _lines(
                "test decode::tests::talvikellon_vaihto ... FAILED",
                "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; "
                f"{rng.randint(50, 90)} filtered out",
            ),
        )
        b.assistant(
            "`talvikellon_vaihto` on merkitty `#[ignore]`:lla, koska Kamstrupin keräin lähettää "
            "väärän aikaleiman kellonsiirron tunnilla. Se on yhä ohitettu, ja ajettuna se "
            "kaatuu; tiketti on auki."
        )
        return Probe(
            "artifact",
            "What is the state of the talvikellon_vaihto test?",
            "Marked #[ignore] (it fails when run: wrong collector timestamps at the DST hour)",
            (("talvikellon_vaihto",), ("ignore", "ohitet", "ohit", "skip")),
        )

    def dashboard_deleted() -> Probe:
        b.user("Repossa on vielä se vanha kulutusdashboardin JSON. Uusi on jo käytössä.")
        b.tool(
            "Poistan sen.",
            "bash",
            {
                "command": "git rm grafana/vanha_kulutus.json && git commit -qm 'grafana: poista "
                "vanha kulutusnäkymä'"
            },
            "rm 'grafana/vanha_kulutus.json'",
        )
        b.assistant("`vanha_kulutus.json` poistettu repositoriosta, uusi näkymä korvaa sen.")
        return Probe(
            "artifact",
            "What happened to grafana/vanha_kulutus.json?",
            "Deleted from the repository (git rm, committed)",
            (("vanha_kulutus",), ("poist", "delet", "removed")),
        )

    def negative_flows() -> Probe:
        b.user(
            "Ja sovitaan tämä nyt: negatiiviset virtaamat nollataan, koko kehystä ei hylätä. "
            "Niitä tulee aina kun pumppu pysähtyy."
        )
        b.assistant("Selvä: negatiivinen virtaama tallennetaan nollana, kehys hyväksytään.")
        return Probe(
            "decision",
            "What happens to negative flow readings?",
            "They are set to zero; the frame is kept, not rejected",
            (("negatiivi", "negative"), ("nolla", "zero", "→ 0", "to 0", "= 0")),
        )

    def raw_frames() -> Probe:
        b.user("Lokita raakakehykset hexinä info-tasolla, niin nähdään mitä mittarit lähettävät.")
        b.assistant("Selvä, lisään raakakehykset info-lokiin.")
        b.user(
            "Ei sittenkään. Kehyksissä on asiakkaan osoitetietoja salaamattomana. Raakakehykset "
            "vain debug-tasolla ja vain testiympäristössä."
        )
        b.assistant("Korjattu suunnitelma: raakakehykset vain debug-tasolla, vain testissä.")
        return Probe(
            "decision",
            "At what log level may raw frames be logged?",
            "Only at debug level and only in the test environment (the earlier info-level "
            "instruction was withdrawn: frames contain customer address data)",
            (("raakakehy", "raw frame", "raw hex", "kehykset", "frames"), ("debug",)),
        )

    def first_wins() -> Probe:
        b.user("Onko vielä jotain auki ennen kuin jatketaan?")
        b.assistant(
            "Yksi kysymys: kun keräin lähettää saman lukeman kahdesti eri aikaleimalla, kumpi "
            "jää kantaan — ensimmäinen vai viimeisin?"
        )
        b.user("Ensimmäinen. Keräimen uudelleenlähetyksissä aikaleima on usein väärä.")
        b.assistant("Selvä: duplikaateista säilytetään ensimmäinen, uudelleenlähetys ohitetaan.")
        return Probe(
            "decision",
            "Which copy of a duplicated reading is kept?",
            "The first one; the collector's re-sends often carry a wrong timestamp",
            (
                ("ensimmäi", "first", "earliest"),
                ("duplik", "kahdesti", "twice", "duplicate", "uudelleenläh", "resen", "re-sen"),
            ),
        )

    def mtls_only() -> Probe:
        b.user(
            "Energiayhtiön tietoturva linjasi eilen: keräimet tunnistetaan jatkossa vain "
            "mTLS:llä, API-avaimet poistuvat käytöstä."
        )
        b.assistant(
            "Kirjasin: keräimille vain mTLS, ei API-avaimia. Avainreitti poistetaan axumista."
        )
        return Probe(
            "decision",
            "How must collectors authenticate from now on?",
            "Only with mTLS; API keys are withdrawn (the energy company's security team)",
            (("mtls",), ("keräi", "collector", "api-avai", "api key", "api-key")),
        )

    probes += _blocks(
        rng,
        [migration_applied, timer_disabled, test_ignored, dashboard_deleted],
        rng.choice([negative_flows, raw_frames, first_wins, mtls_only]),
    )
    step = rng.randrange(3)
    if step == 0:
        b.user(
            f"Käyn torstaina {area} lämpökeskuksella katsomassa keräimen "
            f"{collector} antennin, signaali on ollut heikko."
        )
        b.assistant("Hyvä. Katson torstaina käyntisi jälkeen, paraneeko kehysten määrä.")
        probe = Probe(
            "next_step",
            "What is the user going to do on Thursday?",
            f"Visit the heating plant to check collector {collector}'s antenna",
            (("antenn",), ("torstai", "thursday")),
        )
    elif step == 1:
        b.user("Jääkö se 0xFD 0x3B -laajennus nyt kokonaan lukematta?")
        b.assistant(
            "Toistaiseksi kyllä. Kun Kamstrupin protokolladokumentti tulee, lisään dekooderiin "
            "oikean tuen sille; nyt se vain ohitetaan varoituksella."
        )
        probe = Probe(
            "next_step",
            "What will the agent do when Kamstrup's protocol document arrives?",
            "Add proper decoder support for the 0xFD 0x3B extension (skipped with a warning now)",
            (("kamstrup",), ("dokument", "doc", "spec", "protokoll", "protocol")),
        )
    else:
        b.user(
            "TimescaleDB:n päivitys 2.17:ään tehdään vasta tiistain huoltoikkunassa klo 22. "
            "Sinä ajat päivityksen, minä päivystän."
        )
        b.assistant("Sovittu: ajan TimescaleDB-päivityksen tiistaina klo 22 huoltoikkunassa.")
        probe = Probe(
            "next_step",
            "When is the TimescaleDB upgrade, and who runs it?",
            "Tuesday in the 22:00 maintenance window; the agent runs it, the user is on call",
            (("timescale",), ("tiistai", "tuesday")),
        )
    probes.append(probe)
    b.user("Kiitos, tämä riittää tältä erää.")
    b.assistant(f"Selvä. Seuraan {collector}:n kehysmääriä iltapäivän ajan.")
    opening = b.take()
    return opening, segments_of(rng, b, segments, _deck(b, 6, _kaukolampo_filler)), probes


def _kaukolampo_filler(rng: random.Random, b: Builder, pick: int) -> None:
    if pick == 0:
        n = rng.randint(2, 9)
        b.user("Clippy valittaa CI:ssä, korjaatko?")
        b.tool(
            "Ajan clippyn.",
            "bash",
            {"command": "cargo clippy --all-targets -- -D warnings 2>&1 | head -6"},
            _lines(
                "warning: this `if let` can be collapsed into the outer `match`",
                f"  --> src/api/health.rs:{rng.randint(10, 60)}:17",
                "   |",
                "   = help: for further information visit https://rust-lang.github.io/"
                "rust-clippy/master/index.html#collapsible_match",
                f'warning: `lampo-ingest` (bin "lampo-ingest") generated {n} warnings',
            ),
        )
        b.assistant(f"{n} varoitusta, kaikki tyylijuttuja. Korjattu, CI vihreä.")
    elif pick == 1:
        a, c = rng.randint(38, 40), rng.randint(41, 43)
        b.user("Päivitetäänkö tokio, dependabot ehdottaa.")
        b.tool(
            "Päivitän lukitustiedoston.",
            "bash",
            {"command": "cargo update -p tokio"},
            _lines(
                "    Updating crates.io index",
                f"    Updating tokio v1.{a}.0 -> v1.{c}.1",
                "    Updating mio v1.0.2 -> v1.0.3",
            ),
        )
        b.assistant(f"tokio 1.{c} sisään, testit menevät läpi.")
    elif pick == 2:
        ms = rng.randint(200, 3000)
        b.user("Kulutusraportin kysely on hidas, voitko katsoa?")
        b.tool(
            "Katson suunnitelman.",
            "bash",
            {
                "command": "psql $LAMPO_DB_URL -c 'explain analyze select * from "
                "kulutus_tunneittain "
                "where alue = 7 and aika > now() - interval \\'30 days\\''"
            },
            _lines(
                "Custom Scan (ChunkAppend) on _materialized_hypertable_4",
                f"  Chunks excluded during startup: {rng.randint(2, 40)}",
                f"Planning Time: {rng.randint(1, 9)}.{rng.randint(100, 999)} ms",
                f"Execution Time: {ms}.{rng.randint(100, 999)} ms",
            ),
        )
        b.assistant(
            f"{ms} ms. Jatkuva aggregaatti on kunnossa, mutta `alue`-sarakkeelta puuttuu indeksi."
        )
    elif pick == 3:
        n = rng.randint(1, 5)
        b.user("Ansible-lint herjaa rooleista.")
        b.tool(
            "Ajan sen.",
            "bash",
            {"command": "ansible-lint roles/"},
            _lines(
                "name[casing]: All names should start with an uppercase letter.",
                f"roles/nginx/tasks/main.yml:{rng.randint(3, 30)} Task/Handler: restart nginx",
                "",
                f"Failed: {n} failure(s), 0 warning(s) on 41 files.",
            ),
        )
        b.assistant(f"{n} nimeämisvirhettä, korjattu isoilla alkukirjaimilla.")
    elif pick == 4:
        lines = rng.randint(10, 60)
        b.user("Päivitä README:hen, miten uusi keräin lisätään.")
        b.tool(
            "Kirjoitin ohjeen.",
            "bash",
            {"command": "git diff --stat README.md"},
            f" README.md | {lines} +++++++++++++++++++++++-",
        )
        b.assistant("Ohje lisätty: sarjanumero, sijainti, sertifikaatin pyyntö.")
    else:
        pct = rng.randint(40, 93)
        b.user("Paljonko lampo-db-01:llä on levyä jäljellä?")
        b.tool(
            "Katson.",
            "bash",
            {"command": "ssh lampo-db-01 df -h /var/lib/postgresql"},
            _lines(
                "Tiedostojärjestelmä  Koko  Käyt  Vapaa Käy% Liitospiste",
                f"/dev/sdb1             500G  {pct * 5}G  {500 - pct * 5}G  {pct}% "
                "/var/lib/postgresql",
            ),
        )
        b.assistant(
            f"Käytössä {pct} %. "
            + ("Ei hätää." if pct < 80 else "Pakkausta pitää tiivistää vanhemmille chunkeille.")
        )


# ---------------------------------------------------------------------- vetclinic_rails

_CLINICS_EN = ("Northside", "Harbour Road", "Millbrook", "Eastgate")
_PEOPLE_EN = ("Priya", "Tomasz", "Ngozi", "Declan")


def _vetclinic_rails(rng: random.Random, b: Builder, segments: int) -> Parts:
    short = token(rng, 3, "0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    sentry = f"PAWDESK-{short}"
    other_sentry = f"PAWDESK-{token(rng, 3, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')}"
    jid = hexits(rng, 24)
    other_jid = hexits(rng, 24)
    usual, sent = rng.randint(900, 1600), rng.randint(3200, 7000)
    price = 0.0079
    extra = f"${(sent - usual) * price:.2f}"
    retries = rng.randint(2, 4)
    b.user(
        "Morning. We had a pile of angry calls first thing — owners got the same vaccine "
        f"reminder text {retries + 1} or so times last night. Sentry lit up too. Can you dig in?"
    )
    b.tool(
        "Checking what Sentry picked up overnight.",
        "bash",
        {"command": "sentry-cli issues list -p pawdesk --query 'is:unresolved firstSeen:-24h'"},
        _lines(
            "+------------+--------------+--------------------------------------------------+",
            "| Issue ID   | Short ID     | Title                                            |",
            "+------------+--------------+--------------------------------------------------+",
            f"| 45{rng.randint(10**7, 10**8 - 1)} | {sentry:<12} | Twilio::REST::RestError: "
            "[HTTP 429] 20429 : Too ... |",
            f"| 45{rng.randint(10**7, 10**8 - 1)} | {other_sentry:<12} | ActionView::Template::"
            "Error: undefined method `na... |",
            "+------------+--------------+--------------------------------------------------+",
        ),
    )
    b.tool(
        "And what Sidekiq gave up on.",
        "bash",
        {
            "command": "kamal app exec --reuse 'bin/rails runner \"Sidekiq::DeadSet.new.each "
            "{ |j| puts [j.jid, j.klass, j[%q(retry_count)], j[%q(error_class)]].join(%q( )) }\"'"
        },
        _lines(
            f"{jid} VaccineReminderBatchJob {retries} Twilio::REST::RestError",
            f"{other_jid} PdfInvoiceJob 25 Aws::S3::Errors::SlowDown",
        ),
    )
    b.tool(
        "The batch job itself.",
        "bash",
        {"command": "sed -n 8,22p app/jobs/vaccine_reminder_batch_job.rb"},
        _lines(
            "  def perform(date = Date.current)",
            "    Reminder.vaccines.due_on(date).includes(pet: :owner).find_each do |reminder|",
            "      SmsSender.new(reminder.pet.owner.mobile).deliver(",
            '        I18n.t("reminders.vaccine", pet: reminder.pet.name, due: reminder.due_on)',
            "      )",
            "    end",
            "    Reminder.vaccines.due_on(date).update_all(sent_at: Time.current)",
            "  end",
        ),
    )
    b.tool(
        "And yesterday's SMS usage from Twilio.",
        "bash",
        {
            "command": "twilio api:core:usage:records:yesterday:list --category sms-outbound "
            "--properties count,price,priceUnit"
        },
        _lines("Count  Price   Price Unit", f"{sent}   {sent * price:.2f}   usd"),
    )
    b.assistant(
        f"Found it. `VaccineReminderBatchJob` (jid `{jid}`) sends every due reminder in one loop "
        "and only marks them sent at the very end. Partway through, Twilio answered 429 "
        f"(Sentry `{sentry}`), the job raised, and Sidekiq retried the whole batch {retries} "
        "times — each retry re-texted everyone already done, until it landed in the dead set. "
        f"We sent {sent} segments yesterday against a usual ~{usual}, so roughly {extra} of "
        f"the bill is duplicates. (`{other_sentry}` is an unrelated template error.)"
    )
    b.user("Ugh. Fix it so a retry can never resend anything.")
    b.tool(
        "Splitting it: the batch only enqueues one ReminderDispatchJob per reminder, and each "
        "one locks its row and skips if sent_at is set. Running the batch spec:",
        "bash",
        {"command": "bundle exec rspec spec/jobs/vaccine_reminder_batch_job_spec.rb"},
        _lines(
            f"Randomized with seed {rng.randint(1000, 99999)}",
            ".........",
            "",
            f"Finished in {rng.randint(2, 9) / 10} seconds (files took 2.1 seconds to load)",
            "9 examples, 0 failures",
        ),
    )
    b.tool(
        "Deploying.",
        "bash",
        {"command": "kamal deploy"},
        _lines(
            "  INFO [a1f0c2e3] Running docker container ls --all --filter name=^pawdesk-web- "
            "on 10.0.1.12",
            "  INFO First web container is healthy on 10.0.1.12, booting any other roles",
            f"Finished all in {rng.randint(60, 180)}.{rng.randint(0, 9)} seconds",
        ),
    )
    b.assistant(
        "Deployed. A retry now re-runs only the one reminder that failed, and a reminder with "
        f"`sent_at` is never texted again. I removed `{jid}` from the dead set so nobody "
        "retries it by hand."
    )
    probes = [
        Probe(
            "identifier",
            "Which Sentry issue recorded the Twilio rate-limit errors?",
            f"{sentry} (HTTP 429, error 20429)",
            ((sentry,),),
        ),
        Probe(
            "identifier",
            "What was the jid of the dead VaccineReminderBatchJob?",
            jid,
            ((jid,),),
        ),
        Probe(
            "identifier",
            "Roughly how much of yesterday's Twilio bill was duplicate texts?",
            f"About {extra} ({sent} segments against a usual ~{usual})",
            ((extra,),),
        ),
    ]

    def migration_reverted() -> Probe:
        b.user(
            "Also, yesterday's reminder-channel migration went to staging before the form was "
            "ready and it's breaking the patient page there. Roll it back on staging."
        )
        b.tool(
            "Rolling back the last migration on staging.",
            "bash",
            {"command": "kamal app exec -d staging 'bin/rails db:rollback STEP=1'"},
            _lines(
                "== 20250304091200 AddReminderChannelToPatients: reverting ====================",
                '-- remove_column(:patients, :reminder_channel, :string, {:default=>"sms"})',
                f"   -> 0.0{rng.randint(100, 999)}s",
                "== 20250304091200 AddReminderChannelToPatients: reverted (0.0131s) ===========",
            ),
        )
        b.assistant("Staging's patient page loads again; the migration file is still in the repo.")
        return Probe(
            "artifact",
            "What happened to the AddReminderChannelToPatients migration on staging?",
            "Rolled back (db:rollback STEP=1); the file stays in the repo",
            (
                ("AddReminderChannelToPatients", "add_reminder_channel_to_patients"),
                ("revert", "rolled back", "rollback", "roll back"),
            ),
        )

    def digest_disabled() -> Probe:
        b.user(
            "The nightly vaccine digest for the vets uses the same batch code, doesn't it? Keep "
            "it from running until this has settled."
        )
        b.tool(
            "It does. Disabling its cron entry.",
            "bash",
            {
                "command": "kamal app exec --reuse 'bin/rails runner \"p Sidekiq::Cron::Job."
                "find(%q(nightly_vaccine_digest)).disable!\"'"
            },
            "true",
        )
        b.assistant(
            "`nightly_vaccine_digest` is disabled in sidekiq-cron; the job class is untouched "
            "so we can re-enable it with one call."
        )
        return Probe(
            "artifact",
            "What is the state of the nightly_vaccine_digest cron job?",
            "Disabled in sidekiq-cron until the fix has settled",
            (
                ("nightly_vaccine_digest",),
                ("disabl", "paused", "turned off", "switched off", "stopped"),
            ),
        )

    def dispatch_spec_green() -> Probe:
        b.user("Did you write a spec for the new per-reminder job?")
        b.tool(
            "Yes — including a retry after a 429. Running it.",
            "bash",
            {"command": "bundle exec rspec spec/jobs/reminder_dispatch_job_spec.rb"},
            _lines(
                f"Randomized with seed {rng.randint(1000, 99999)}",
                "..............",
                "",
                "Finished in 0.61 seconds (files took 2.3 seconds to load)",
                "14 examples, 0 failures",
            ),
        )
        b.assistant(
            "`reminder_dispatch_job_spec.rb` is green: 14 examples, 0 failures, the 429 retry "
            "case included."
        )
        return Probe(
            "artifact",
            "What is the state of spec/jobs/reminder_dispatch_job_spec.rb?",
            "Green: 14 examples, 0 failures (includes a retry after a 429)",
            (("reminder_dispatch_job_spec",), ("green", "pass", "0 failures")),
        )

    def key_revoked() -> Probe:
        b.user("While you're in Twilio: is that old staging API key from 2023 still live?")
        b.tool(
            "Listing the keys.",
            "bash",
            {"command": "twilio api:core:keys:list --properties sid,friendlyName,dateCreated"},
            _lines(
                "SID                                 Friendly Name         Date Created",
                f"SK{hexits(rng, 32)}  pawdesk-production    Jan 09 2024",
                f"SK{hexits(rng, 32)}  pawdesk-staging-2023  Mar 14 2023",
            ),
        )
        b.assistant(
            "It was. I revoked the `pawdesk-staging-2023` key; staging already uses the "
            "production-scoped sub-account key."
        )
        return Probe(
            "artifact",
            "What happened to the pawdesk-staging-2023 Twilio API key?",
            "Revoked (staging uses another key)",
            (("pawdesk-staging-2023",), ("revok", "delet", "removed")),
        )

    def send_time() -> Probe:
        at = rng.choice(("10:30", "11:15", "14:00"))
        b.user("For the new job, send the reminders at 9am.")
        b.assistant("Will do — 9am.")
        b.user(
            f"Actually no, make it {at}. The front desk phones get swamped at opening and "
            "people call about the text."
        )
        b.assistant(f"Got it: reminders go out at {at}, not 9am.")
        return Probe(
            "decision",
            "What time do reminder texts go out?",
            f"{at} (the user first said 9am, then corrected it: the front desk is swamped at "
            "opening)",
            (("remind", "text", "sms"), (at, at.replace(":", "."))),
        )

    def end_of_life() -> Probe:
        b.user(
            "Dr. Okafor asked me to pass this on, and it's not up for debate: we never text about "
            "euthanasia or end-of-life appointments. Email only, and only if the owner opted in."
        )
        b.assistant(
            "Understood. End-of-life appointments get no SMS ever; email only, with opt-in. I'll "
            "filter on the appointment type."
        )
        return Probe(
            "decision",
            "How are end-of-life appointments handled by the reminders?",
            "Never by SMS; email only and only with the owner's opt-in (Dr. Okafor's rule)",
            (("euthanasia", "end-of-life", "end of life"), ("email",)),
        )

    def dedupe_appointment() -> Probe:
        b.user("Anything else to stop duplicates at the source?")
        b.assistant("I could also dedupe by owner phone number — one reminder per phone per day.")
        b.user(
            "No — loads of owners have three cats on one phone, and each cat needs its own "
            "reminder. Dedupe per appointment."
        )
        b.assistant("Right, dedupe key is the appointment id, not the phone.")
        return Probe(
            "decision",
            "What is the de-duplication key for reminders?",
            "The appointment id, not the owner's phone (several pets share one phone)",
            (("appointment",), ("dedup", "de-dup", "idempot", "unique", "key")),
        )

    def opt_out() -> Probe:
        b.user("Before you finish the job — anything you need from me?")
        b.assistant(
            "One question: should `sms_opt_out` still hold for overdue rabies boosters, or do "
            "those override it?"
        )
        b.user("It holds. Opt-out wins, always — legal was very clear on that.")
        b.assistant("Noted: opt-out is respected for every reminder, rabies boosters included.")
        return Probe(
            "decision",
            "Does sms_opt_out apply to overdue rabies booster reminders?",
            "Yes: opt-out always wins, boosters included (legal's position)",
            (
                ("opt-out", "opt out", "opted out", "opt_out"),
                ("always", "even", "wins", "regardless", "includ", "no exception"),
            ),
        )

    probes += _blocks(
        rng,
        [migration_reverted, digest_disabled, dispatch_spec_green, key_revoked],
        rng.choice([send_time, end_of_life, dedupe_appointment, opt_out]),
    )
    step = rng.randrange(3)
    if step == 0:
        b.user("Some owners got nothing at all, right? The batch died partway.")
        b.assistant(
            "Right, a few hundred never went out. Once Twilio confirms the 429 throttle on our "
            "account is lifted, I'll backfill those missed reminders — not before."
        )
        probe = Probe(
            "next_step",
            "What will the agent do once Twilio lifts the throttle?",
            "Backfill the reminders that never went out when the batch died",
            (("backfill", "resend", "re-send", "missed", "never went out"), ("twilio",)),
        )
    elif step == 1:
        clinic = rng.choice(_CLINICS_EN)
        b.user(
            f"Unrelated but urgent: {clinic} goes live on the new booking flow on the 1st. Their "
            "vets and rooms need seeding before then — that's on you."
        )
        b.assistant(f"On it: {clinic}'s vets and rooms seeded before the 1st.")
        probe = Probe(
            "next_step",
            "What does the agent owe before the 1st?",
            f"Seed {clinic}'s vets and rooms for its go-live on the new booking flow",
            ((clinic,), ("seed",)),
        )
    else:
        person = rng.choice(_PEOPLE_EN)
        b.user(
            f"And remind me to forward this month's Twilio invoice to {person} before month end, "
            "with a note about the duplicates."
        )
        b.assistant(f"Will remind you: Twilio invoice to {person} before month end.")
        probe = Probe(
            "next_step",
            "What should the agent remind the user about?",
            f"Forwarding the Twilio invoice to {person} before month end, noting the duplicates",
            (("invoice",), (person,)),
        )
    probes.append(probe)
    b.user("Thanks, that'll do for this one.")
    b.assistant("No problem. I'll watch tonight's run in the Sidekiq dashboard.")
    opening = b.take()
    return opening, segments_of(rng, b, segments, _deck(b, 6, _vetclinic_filler)), probes


def _vetclinic_filler(rng: random.Random, b: Builder, pick: int) -> None:
    if pick == 0:
        patch = rng.randint(4, 6)
        b.user("There's a Rails security patch out, can you bump it?")
        b.tool(
            "Updating rails.",
            "bash",
            {"command": "bundle update rails --conservative"},
            _lines(
                "Fetching gem metadata from https://rubygems.org/.........",
                f"Installing rails 7.1.{patch} (was 7.1.{patch - 1})",
                "Bundle updated!",
            ),
        )
        b.assistant(f"Rails 7.1.{patch} in, full suite green. PR is up.")
    elif pick == 1:
        b.user("The appointments index feels slow for the front desk.")
        b.tool(
            "Checking the Bullet log.",
            "bash",
            {"command": "tail -4 log/bullet.log"},
            _lines(
                f"2025-03-0{rng.randint(1, 9)} 10:{rng.randint(10, 59)}:02[WARN] user: dana",
                "GET /appointments?day=today",
                "USE eager loading detected",
                "  Appointment => [:pet]",
            ),
        )
        b.assistant("Classic N+1 on pets; added `includes(:pet)`, the page does 3 queries now.")
    elif pick == 2:
        n = rng.randint(1, 4)
        b.user("Anything stale in the importmap?")
        b.tool(
            "Checking.",
            "bash",
            {"command": "bin/importmap outdated"},
            _lines(
                "| Package          | Current | Latest |",
                "|------------------|---------|--------|",
                "| @hotwired/stimulus | 3.2.1 | 3.2.2 |",
                f"{n} outdated package{'s' if n > 1 else ''} found",
            ),
        )
        b.assistant("Only patch releases; pinned the new ones.")
    elif pick == 3:
        w = rng.randint(0, 3)
        b.user("Run brakeman before the audit next week?")
        b.tool(
            "Running.",
            "bash",
            {"command": "bundle exec brakeman -q --no-pager"},
            _lines(
                "== Overview ==",
                f"Controllers: {rng.randint(20, 40)}",
                f"Models: {rng.randint(25, 50)}",
                f"Security Warnings: {w}",
            ),
        )
        b.assistant(
            f"{w} warning{'s' if w != 1 else ''}"
            + (" — clean." if w == 0 else "; all are mass-assignment notes on admin forms, fixing.")
        )
    elif pick == 4:
        ms = rng.randint(40, 900)
        b.user("How slow is the vaccine history query for big practices?")
        b.tool(
            "Timing it on the biggest clinic.",
            "bash",
            {
                "command": "bin/rails runner 'puts Benchmark.ms { Pet.joins(:vaccinations)"
                ".where(clinic_id: 3).load }.round'"
            },
            str(ms),
        )
        b.assistant(
            f"{ms} ms. " + ("Fine." if ms < 200 else "Adding an index on vaccinations.pet_id.")
        )
    else:
        b.user("Are the health checks happy after the last deploy?")
        b.tool(
            "Tailing the app logs.",
            "bash",
            {"command": "kamal app logs --lines 3 --grep /up"},
            _lines(
                *(
                    f'App Host: 10.0.1.1{i} ... Started GET "/up" ... Completed 200 OK in '
                    f"{rng.randint(1, 9)}ms"
                    for i in (2, 3, 2)
                )
            ),
        )
        b.assistant("All 200s on both hosts.")


# ------------------------------------------------------------------------------ the set

_TEMPLATES: dict[str, Template] = {
    "skipass_it": _skipass_it,
    "doodh_app_hi": _doodh_app_hi,
    "svitlo_bot_uk": _svitlo_bot_uk,
    "elaiourgeio_el": _elaiourgeio_el,
    "kaukolampo_fi": _kaukolampo_fi,
    "vetclinic_rails": _vetclinic_rails,
}

HELDOUT9_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout9(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The ninth held-out session of ``kind`` for ``seed`` (see the module docstring)."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout9:", label="heldout9"
    )
