"""The fifth held-out set: six session kinds written blind.

Written without seeing the compaction code, the summarizer, the fact ledger or any of
the earlier session sets (tuned or held out). Each session plants, in its opening,
three ``identifier`` probes, two ``artifact`` probes, one ``decision`` the user later
changes (the probe is the final decision) and one ``next_step`` behind a condition;
then ``segments`` filler segments of unrelated work with their own ids, drawn from
namespaces the planted ids never use.
"""

from __future__ import annotations

import json
import random
import string

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

__all__ = ["HELDOUT5_KINDS", "generate_heldout5"]

_DIGITS = string.digits
_UPPER = string.ascii_uppercase
_LOWER = string.ascii_lowercase


def _ident(question: str, value: str) -> Probe:
    return Probe("identifier", question, value, ((value,),))


# --------------------------------------------------------------------------- port


def _port(rng: random.Random, b: Builder, segments: int) -> Parts:
    box = "PRGU" + token(rng, 7, _DIGITS)
    visit = "PV" + token(rng, 2, _DIGITS) + "-" + token(rng, 4, _UPPER)
    gate = "GTX" + token(rng, 9, _DIGITS)
    baplie = f"baplie_{token(rng, 3, _LOWER)}{token(rng, 3, _DIGITS)}.edi"
    wo = "ΕΡΓ-" + token(rng, 6, _DIGITS)
    vessel = rng.choice(["ASTERIA STAR", "KALLISTI BAY", "THALASSA MIRA"])
    b.user(
        f"Καλημέρα. Θέλω βοήθεια με το TOS σήμερα. Το κοντέινερ {box} έχει customs hold "
        f"από χθες, και το {vessel} φτάνει απόψε. Ξεκίνα με το vessel visit, please."
    )
    b.tool(
        "Looking up the vessel visit in the TOS.",
        "tos_query",
        {"entity": "vessel_visit", "vessel_name": vessel, "eta_window": "24h"},
        json.dumps(
            {
                "vessel": vessel,
                "lloyds": token(rng, 7, _DIGITS),
                "visit": {
                    "phase": "INBOUND",
                    "visit_id": visit,
                    "berth_window": "22:00-10:00",
                },
                "moves_planned": rng.randint(400, 900),
            },
            indent=2,
            ensure_ascii=False,
        ),
    )
    b.assistant(
        f"The visit for {vessel} is {visit}, phase INBOUND, berth window 22:00-10:00. "
        "Next I can load the stowage plan."
    )
    b.user(f"Ναι, φόρτωσε το BAPLIE: είναι το {baplie} στο shared folder.")
    b.tool(
        "Validating and importing the BAPLIE file.",
        "bash",
        {"command": f"tosctl edi import --type BAPLIE --visit {visit} ./inbox/{baplie}"},
        "\n".join(
            [
                "[edi] parsing segments... 1184 read",
                "[edi] UNB/UNH ok, version D.95B",
                "[edi] LOC+147 slot 0340212 duplicated (2 containers)",
                f"[edi] {baplie}: απορρίφθηκε (rejected) - 3 errors, nothing imported",
            ]
        ),
    )
    b.assistant("The BAPLIE import was rejected: slot 0340212 is assigned twice.")
    b.user(
        "Ok, θα ζητήσω νέο αρχείο από τον agent. Για το discharge βάλε τον γερανό QC04. "
        "Και άνοιξε work order για το reefer rack."
    )
    b.tool(
        "Creating the reefer rack work order.",
        "tos_workorder",
        {"action": "create", "area": "REEFER-R2", "priority": "high"},
        f"<workOrder><id>{wo}</id><area>REEFER-R2</area><state>ΝΕΟ</state></workOrder>",
    )
    b.user("Διόρθωση: όχι QC04, έχει βλάβη στο spreader. Τελικά ο γερανός QC07 κάνει το discharge.")
    b.tool(
        "Checking the gate log and closing out the reefer work order.",
        "bash",
        {"command": f"tosctl gate log --container {box} --last 3 && tosctl wo close {wo}"},
        "\n".join(
            [
                "2024-05-14T06:02:11 IN  truck ZKN-4411 lane 3 EIR pending",
                "2024-05-14T06:40:57 HOLD customs flag raised lane 3",
                f"2024-05-14T07:15:03 OUT refused lane 2 txn {gate}",
                f"work order {wo}: ολοκληρώθηκε (completed) by shift B",
            ]
        ),
    )
    b.user(
        f"Τέλεια. Αν αρθεί το customs hold στο {box}, έκδωσε αμέσως το gate pass για "
        "τον μεταφορέα. Αλλιώς το αφήνουμε."
    )
    b.assistant(
        f"Noted: discharge on QC07; gate pass for {box} only once the customs hold is lifted."
    )
    opening = b.take()

    owners = ("MSCU", "CMAU", "HLXU", "OOLU", "TGHU")
    blocks = ("A", "B", "C", "D", "E")

    def filler(r: random.Random) -> None:
        c = r.choice(owners) + token(r, 7, _DIGITS)
        slot = f"{r.choice(blocks)}{r.randint(1, 40):02d}-{r.randint(1, 9)}-{r.randint(1, 5)}"
        move = r.randrange(4)
        if move == 0:
            b.user(f"Πού είναι το {c}; Ο οδηγός περιμένει στο lane {r.randint(1, 6)}.")
            b.tool(
                "Finding the container in the yard.",
                "tos_query",
                {"entity": "container", "id": c},
                f"container: {c}\nposition: {slot}\nstatus: ΣΤΗΝ ΑΥΛΗ\n"
                f"weight_kg: {r.randint(4000, 29000)}\nline: {c[:4]}",
            )
            b.assistant(f"{c} sits at {slot}; I queued a yard move to the truck lane.")
        elif move == 1:
            b.user("Δείξε μου τα reefer alarms της βάρδιας.")
            rows = [
                f"{r.choice(owners)}{token(r, 7, _DIGITS)},{r.uniform(-25, 8):.1f},"
                f"{r.choice(['OK', 'HIGH', 'POWER_OFF'])}"
                for _ in range(r.randint(3, 6))
            ]
            b.tool(
                "Pulling reefer monitoring readings.",
                "bash",
                {"command": "tosctl reefer alarms --shift current --format csv"},
                "container,temp_c,alarm\n" + "\n".join(rows),
            )
            b.assistant("Listed the reefer alarms; the POWER_OFF ones need an electrician check.")
        elif move == 2:
            eq = f"RTG{r.randint(10, 40)}"
            b.user(
                f"Το {eq} θέλει service. Αν δεν τελειώσει πριν τις {r.randint(12, 18)}:00, "
                "μοίρασε τις κινήσεις του στα άλλα RTG."
            )
            b.tool(
                "Logging the equipment outage.",
                "tos_equipment",
                {"unit": eq, "state": "MAINTENANCE", "eta_h": r.randint(2, 6)},
                f"unit {eq} -> MAINTENANCE (ticket EQ-{token(r, 5, _DIGITS)})",
            )
            b.assistant(f"{eq} is in maintenance; its pending moves stay queued for now.")
        else:
            bk = "BK" + token(r, 8, _DIGITS)
            b.user(f"Ο πελάτης ρωτάει για το booking {bk}, πόσα άδεια έχουν βγει;")
            b.tool(
                "Counting empty releases on the booking.",
                "tos_query",
                {"entity": "booking", "id": bk},
                f"| booking | size | released | remaining |\n|---|---|---|---|\n"
                f"| {bk} | 40HC | {r.randint(0, 9)} | {r.randint(0, 9)} |",
            )
            b.assistant(f"Booking {bk}: the release count is in the table above.")

    probes = [
        _ident("Which container has the customs hold?", box),
        _ident("What is the vessel visit id?", visit),
        _ident("Which gate transaction refused the container?", gate),
        Probe(
            "artifact",
            f"What happened to {baplie}?",
            f"The BAPLIE import of {baplie} was rejected.",
            ((baplie,), ("rejected", "απορρίφθηκε")),
        ),
        Probe(
            "artifact",
            f"What is the state of work order {wo}?",
            f"Work order {wo} was completed.",
            ((wo,), ("completed", "ολοκληρώθηκε", "closed")),
        ),
        Probe(
            "decision",
            "Which quay crane does the discharge?",
            "QC07 (not QC04, whose spreader is broken).",
            (("QC07",), ("discharge", "crane", "γερανό")),
        ),
        Probe(
            "next_step",
            f"What should be done about {box}'s gate pass?",
            "Issue the gate pass once the customs hold is lifted.",
            (("gate pass",), ("hold", "αρθεί", "lifted")),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


# --------------------------------------------------------------------------- k8s cost


def _kubecost(rng: random.Random, b: Builder, segments: int) -> Parts:
    instance = "i-0" + hexits(rng, 16)
    volume = "vol-0" + hexits(rng, 16)
    commit = hexits(rng, 40)
    team = rng.choice(["checkout", "ledger", "search", "notify"])
    hpa = f"deploy/overlays/prod/hpa-{team}-{token(rng, 4, _LOWER)}.yaml"
    pvc = f"data-{team}-archive-{token(rng, 5, _LOWER + _DIGITS)}"
    pool = f"np-{token(rng, 3, _LOWER)}{rng.randint(10, 99)}"
    b.user(
        "we're over budget on the prod cluster by ~30%. can you audit where the money goes? "
        "start with the most expensive nodes"
    )
    b.tool(
        "Querying Prometheus for node cost over the last 7 days.",
        "prometheus_query",
        {"query": "topk(5, sum by (instance_id) (node_total_hourly_cost) * 168)"},
        json.dumps(
            {
                "status": "success",
                "data": {
                    "resultType": "vector",
                    "result": [
                        {"metric": {"instance_id": "spot-pool-a"}, "value": [0, "412.10"]},
                        {"metric": {"instance_id": instance}, "value": [0, "389.77"]},
                        {"metric": {"instance_id": "spot-pool-b"}, "value": [0, "201.03"]},
                    ],
                },
            }
        ),
    )
    b.assistant(
        "The second-most expensive node is an on-demand m6i.8xlarge that is mostly idle. "
        "Let me look at storage too."
    )
    b.user("yes. and check for orphaned volumes, I bet there are a bunch")
    b.tool(
        "Listing released and unbound volumes.",
        "bash",
        {
            "command": "kubectl get pv -o custom-columns=NAME:.metadata.name,VOL:.spec.csi."
            "volumeHandle,STATUS:.status.phase,CLAIM:.spec.claimRef.name"
        },
        "NAME                                       VOL                     STATUS    CLAIM\n"
        "pv-logs-7                                  ebs-logs-7              Bound     logs-7\n"
        f"pv-{team}-archive                          {volume}   Released  {pvc}\n"
        "pv-metrics-2                               ebs-metrics-2           Bound     m-2",
    )
    b.user(f"that archive claim is dead, delete {pvc}. ledger team confirmed")
    b.tool(
        "Deleting the released claim.",
        "bash",
        {"command": f"kubectl -n {team} delete pvc {pvc}"},
        f'persistentvolumeclaim "{pvc}" deleted',
    )
    b.user("ok now rightsizing. move everything to spot, we don't need on-demand anywhere")
    b.assistant(
        "Before switching: the stateful pool runs Postgres replicas, spot evictions would "
        "force failovers. Do you want it on spot too?"
    )
    b.user(
        "hmm, good point. scratch what I said — keep the stateful pool on on-demand, "
        "only stateless workloads go to spot"
    )
    b.tool(
        f"Lowering the {team} HPA max replicas.",
        "str_replace",
        {"path": hpa, "old_str": "maxReplicas: 40", "new_str": "maxReplicas: 18"},
        f"The file {hpa} has been edited. Run git diff to review.",
    )
    b.tool(
        "Committing the change.",
        "bash",
        {"command": f"git add {hpa} && git commit -m 'hpa: cap {team} at 18'"},
        f"[main {commit[:7]}] hpa: cap {team} at 18\n 1 file changed, 1 insertion(+), "
        f"1 deletion(-)\ncommit {commit}",
    )
    b.user(
        f"cool. if p95 latency for {team} stays under 300ms for 24h after the HPA change, "
        f"scale node pool {pool} down to 3 nodes. not before"
    )
    b.assistant(
        f"Understood: after 24h of p95 < 300ms I scale {pool} down to 3 nodes; "
        "stateful stays on-demand."
    )
    opening = b.take()

    namespaces = ("payments", "web", "batch", "ml-serving", "infra", "observability")

    def filler(r: random.Random) -> None:
        ns = r.choice(namespaces)
        pod = f"{ns}-{token(r, 5, _LOWER + _DIGITS)}-{token(r, 5, _LOWER + _DIGITS)}"
        move = r.randrange(4)
        if move == 0:
            b.user(f"what's {ns} requesting vs using for cpu?")
            b.tool(
                "Comparing requests with usage.",
                "prometheus_query",
                {"query": f'sum(kube_pod_container_resource_requests{{namespace="{ns}"}})'},
                f'{{namespace="{ns}"}} => {r.uniform(2, 60):.2f} cores requested\n'
                f'{{namespace="{ns}"}} => {r.uniform(0.5, 20):.2f} cores used (p95)',
            )
            b.assistant(f"{ns} is over-requested; a VPA recommendation would help.")
        elif move == 1:
            b.user(f"why is {pod} restarting so much?")
            b.tool(
                "Describing the pod.",
                "bash",
                {"command": f"kubectl -n {ns} describe pod {pod} | tail -5"},
                f"  Last State: Terminated\n    Reason: OOMKilled\n    Exit Code: 137\n"
                f"  Restart Count: {r.randint(3, 80)}\n  Limits: memory: {r.choice([256, 512])}Mi",
            )
            b.assistant(f"{pod} is OOMKilled; its memory limit is too tight.")
        elif move == 2:
            b.user(
                f"if the {ns} namespace has no traffic on weekends, could we scale it to zero? "
                "just check, don't change anything"
            )
            b.tool(
                "Checking weekend request rates.",
                "prometheus_query",
                {"query": f'sum(rate(http_requests_total{{namespace="{ns}"}}[1h]))'},
                f"weekday avg: {r.randint(50, 900)} rps\nweekend avg: {r.randint(0, 40)} rps",
            )
            b.assistant(f"{ns} still gets weekend traffic, so scale-to-zero is risky.")
        else:
            b.user("show me the cost breakdown by namespace, last 30d")
            rows = "\n".join(f"{n:<14} ${r.randint(200, 9000):>6}" for n in r.sample(namespaces, 4))
            b.tool(
                "Pulling the cost allocation report.",
                "bash",
                {"command": "kubectl cost namespace --window 30d"},
                "NAMESPACE      COST\n" + rows,
            )
            b.assistant("Here is the 30-day breakdown by namespace.")

    probes = [
        _ident("Which EC2 instance is the expensive idle node?", instance),
        _ident("Which EBS volume backs the orphaned archive claim?", volume),
        _ident("What is the commit of the HPA change?", commit),
        Probe(
            "artifact",
            f"What happened to the claim {pvc}?",
            f"The PVC {pvc} was deleted.",
            ((pvc,), ("deleted",)),
        ),
        Probe(
            "artifact",
            f"What happened to {hpa}?",
            f"{hpa} was edited (maxReplicas 40 -> 18).",
            ((hpa,), ("edited", "modified", "changed", "maxReplicas")),
        ),
        Probe(
            "decision",
            "Which workloads go to spot?",
            "Only stateless ones; the stateful pool stays on on-demand.",
            (("stateful",), ("on-demand", "on demand")),
        ),
        Probe(
            "next_step",
            f"When should {pool} be scaled down?",
            f"After 24h of p95 latency under 300ms, scale {pool} down to 3 nodes.",
            ((pool,), ("300ms", "300 ms")),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


# --------------------------------------------------------------------------- hotel


def _hotel(rng: random.Random, b: Builder, segments: int) -> Parts:
    conf = "7" + token(rng, 8, _DIGITS)
    group = "GRP-" + token(rng, 5, _UPPER + _DIGITS)
    push = "PSH" + hexits(rng, 10).upper()
    listino = f"listino_estate_{token(rng, 4, _LOWER)}.csv"
    promo = "PRM-" + token(rng, 6, _UPPER + _DIGITS)
    b.user(
        "Ciao! Sono Giulia del revenue. Oggi dobbiamo sistemare Ferragosto. Prima cosa: la "
        f"prenotazione {conf} del signor Bassi va spostata nel blocco gruppo, controlla."
    )
    b.tool(
        "Cerco la prenotazione nel PMS.",
        "pms_lookup",
        {"confirmation": conf},
        f"Conferma: {conf}\nOspite: BASSI/MARCO\nArrivo: 13/08  Partenza: 17/08\n"
        f"Tipologia: DLX  Tariffa: BAR  Blocco: {group}\nStato: GARANTITA",
    )
    b.assistant(f"La prenotazione è già agganciata al blocco {group}, stato GARANTITA.")
    b.user(
        f"Perfetto. Ora carica il nuovo listino sul channel manager, è {listino}. "
        "Per Ferragosto metti soggiorno minimo 3 notti."
    )
    b.tool(
        "Carico il listino sul channel manager.",
        "channel_upload",
        {"file": listino, "channels": ["booking", "expedia"], "min_stay": 3},
        f'<?xml version="1.0"?>\n<PushResult>\n  <PushId>{push}</PushId>\n'
        f"  <File>{listino}</File>\n  <Esito>RIFIUTATO: colonna 'data_fine' vuota "
        f"riga 14</Esito>\n</PushResult>",
    )
    b.assistant(
        f"Il channel manager ha rifiutato {listino}: la colonna data_fine è vuota alla riga "
        "14. Serve un file corretto."
    )
    b.user(
        "Uffa. Anzi no, correggo: soggiorno minimo 2 notti a Ferragosto, non 3, "
        f"altrimenti perdiamo i weekend. E disattiva la promo {promo}, non ha senso ad agosto."
    )
    b.tool(
        "Disattivo la promozione.",
        "pms_promo",
        {"code": promo, "active": False},
        json.dumps({"code": promo, "stato": "disattivata", "dal": "2024-08-01"}),
    )
    b.user(
        "Ultima cosa: se giovedì l'occupazione supera il 92%, alza la BAR del 15% su "
        "Booking. Se no lasciala com'è."
    )
    b.assistant(
        "Ok: min stay 2 notti, promo disattivata; giovedì controllo l'occupazione e, "
        "sopra il 92%, alzo la BAR del 15% su Booking."
    )
    opening = b.take()

    rooms = ("STD", "SUP", "JS", "FAM", "DLX-V")

    def filler(r: random.Random) -> None:
        res = "RES" + token(r, 6, _UPPER + _DIGITS)
        day = f"{r.randint(1, 28):02d}/{r.choice(['09', '10', '11'])}"
        move = r.randrange(4)
        if move == 0:
            b.user(f"Quante camere {r.choice(rooms)} abbiamo libere il {day}?")
            b.tool(
                "Controllo la disponibilità.",
                "pms_availability",
                {"date": day},
                "\n".join(f"{rt}: {r.randint(0, 25)} libere" for rt in rooms),
            )
            b.assistant(f"Ecco la disponibilità per il {day}.")
        elif move == 1:
            b.user(f"Il cliente della {res} chiede il late check-out, si può?")
            b.tool(
                "Apro la prenotazione.",
                "pms_lookup",
                {"confirmation": res},
                f"Conferma: {res}\nArrivo: {day}\nNotti: {r.randint(1, 6)}\nStato: CONFERMATA",
            )
            b.assistant(f"Ho aggiunto il late check-out alle 13:00 alla {res}.")
        elif move == 2:
            b.user(
                f"Se il competitor scende sotto i {r.randint(90, 160)} euro il {day}, "
                "avvisami, ma non toccare le tariffe."
            )
            b.tool(
                "Leggo il rate shopper.",
                "rate_shopper",
                {"date": day},
                "hotel;prezzo\n"
                + "\n".join(
                    f"{n};{r.randint(80, 220)}"
                    for n in ("Hotel Aurora", "Grand Lido", "Villa Serena")
                ),
            )
            b.assistant("Nessun competitor sotto la soglia per ora.")
        else:
            b.user("Mi fai il pickup della settimana?")
            b.tool(
                "Calcolo il pickup.",
                "bash",
                {"command": "rmsctl pickup --days 7 --format table"},
                "| giorno | pickup | ADR |\n|---|---|---|\n"
                + "\n".join(
                    f"| {r.randint(1, 28):02d}/10 | {r.randint(-3, 20)} | {r.randint(90, 240)} |"
                    for _ in range(4)
                ),
            )
            b.assistant("Pickup nella media; l'ADR tiene.")

    probes = [
        _ident("What is Mr Bassi's confirmation number?", conf),
        _ident("Which group block holds the booking?", group),
        _ident("What was the channel manager push id?", push),
        Probe(
            "artifact",
            f"What happened to {listino}?",
            f"The channel manager rejected {listino} (empty data_fine column).",
            ((listino,), ("rifiutato", "rejected", "rifiutat")),
        ),
        Probe(
            "artifact",
            f"What is the state of promo {promo}?",
            f"Promo {promo} was deactivated.",
            ((promo,), ("disattivata", "deactivated", "disabled", "inactive")),
        ),
        Probe(
            "decision",
            "What is the minimum stay for Ferragosto?",
            "2 nights (corrected from 3).",
            (
                ("soggiorno minimo", "min stay", "minimum stay", "minstay"),
                ("2 notti", "2 nights", "two nights", "2-night"),
            ),
        ),
        Probe(
            "next_step",
            "What should happen on Thursday?",
            "If occupancy is above 92%, raise the BAR by 15% on Booking.",
            (("15%", "15 %"), ("92%", "92 %")),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


# --------------------------------------------------------------------------- lab


def _lab(rng: random.Random, b: Builder, segments: int) -> Parts:
    specimen = "FI-TL-" + token(rng, 7, _DIGITS)
    cluster = "EPI" + token(rng, 2, _DIGITS) + "-" + token(rng, 4, _UPPER)
    run = f"RUN_24{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}_M0{token(rng, 4, _DIGITS)}"
    spoiled = "FI-TL-" + token(rng, 7, _DIGITS)
    report = f"viikkoraportti_vk{rng.randint(10, 52)}_{token(rng, 4, _LOWER)}.pdf"
    b.user(
        f"Moi. Tarvitsen apua viikkoraportin kanssa. Näyte {specimen} tuli eilen "
        "Salmonella-positiivisena, tarkista sen tiedot LIMS:stä."
    )
    b.tool(
        "Haen näytteen LIMS-järjestelmästä.",
        "lims_get",
        {"specimen": specimen, "fields": ["organism", "cluster", "status"]},
        f"specimen: {specimen}\norganism: Salmonella enterica ser. Enteritidis\n"
        f"cluster: {cluster}\nstatus: VAHVISTETTU\nreceived: 2024-03-11",
    )
    b.assistant(f"Näyte kuuluu klusteriin {cluster}; tila VAHVISTETTU.")
    b.user(
        "Hyvä. Ryhmittele raportin Salmonella-löydökset serotyypeittäin. Ja katso "
        "sekvensointiajon loki."
    )
    b.tool(
        "Luen sekvensointiajon lokin.",
        "bash",
        {"command": "tail -n 4 /data/seq/latest/run.log"},
        f"{run} started 06:12 flowcell OK\nbasecalling 100%\n"
        f"demux: 94 samples, 2 undetermined\nQC pass rate 97.9%",
    )
    b.tool(
        "Tarkistan hylätyt näytteet.",
        "lims_query",
        {"sql": "SELECT specimen, tila FROM naytteet WHERE tila <> 'OK' LIMIT 3"},
        f"specimen,tila,syy\n{spoiled},hylätty,hemolyysi\nFI-XX-PENDING,odottaa,-",
    )
    b.user(
        "Hmm, muutos: älä ryhmittele serotyypeittäin vaan kunnittain, THL haluaa sen "
        "niin tänä vuonna."
    )
    b.tool(
        "Luon raportin ja lähetän sen THL:lle.",
        "report_send",
        {"template": "weekly", "group_by": "municipality", "to": "THL"},
        json.dumps({"file": report, "tila": "lähetetty", "recipient": "THL"}, ensure_ascii=False),
    )
    b.user(
        "Kiitos. Jos Listeria-PCR on huomenna positiivinen, pyydä uusintaviljely samasta "
        "näytteestä. Muuten ei tarvitse tehdä mitään."
    )
    b.assistant(
        "Selvä: raportti lähetetty kunnittain ryhmiteltynä; jos Listeria-PCR on positiivinen, "
        "pyydän uusintaviljelyn."
    )
    opening = b.take()

    organisms = ("Campylobacter jejuni", "E. coli STEC", "Norovirus GII", "Yersinia")

    def filler(r: random.Random) -> None:
        s = "S-" + token(r, 8, _DIGITS)
        move = r.randrange(4)
        if move == 0:
            b.user(f"Mikä on näytteen {s} tulos?")
            b.tool(
                "Haen tuloksen.",
                "lims_get",
                {"specimen": s},
                f"specimen: {s}\norganism: {r.choice(organisms)}\nstatus: ALUSTAVA\n"
                f"ct: {r.uniform(18, 36):.1f}",
            )
            b.assistant(f"Näytteen {s} tulos on alustava.")
        elif move == 1:
            b.user("Paljonko näytteitä on jonossa?")
            b.tool(
                "Lasken jonon.",
                "lims_query",
                {"sql": "SELECT osasto, COUNT(*) FROM jono GROUP BY osasto"},
                "osasto,count\n"
                + "\n".join(
                    f"{o},{r.randint(0, 60)}" for o in ("bakteriologia", "virologia", "PCR")
                ),
            )
            b.assistant("Jono on lyhyt, PCR:ssä eniten.")
        elif move == 2:
            b.user(
                f"Jos {r.choice(organisms)}-tapauksia tulee yli {r.randint(3, 9)} viikossa, "
                "mainitse se raportin huomioissa. Tarkista nykyinen määrä."
            )
            b.tool(
                "Lasken viikon tapaukset.",
                "lims_query",
                {"sql": "SELECT COUNT(*) FROM loydokset WHERE viikko = current_week()"},
                f"count\n{r.randint(0, 12)}",
            )
            b.assistant("Määrä tarkistettu; lisään huomion tarvittaessa.")
        else:
            b.user("Tarkista laitteen kalibrointiloki.")
            b.tool(
                "Luen kalibrointilokin.",
                "bash",
                {"command": "grep CAL /var/log/analyzer.log | tail -3"},
                "\n".join(
                    f"2024-03-{r.randint(1, 28):02d} CAL lot L{token(r, 5, _DIGITS)} ok"
                    for _ in range(3)
                ),
            )
            b.assistant("Kalibroinnit kunnossa.")

    probes = [
        _ident("Which specimen was Salmonella-positive?", specimen),
        _ident("Which outbreak cluster is it in?", cluster),
        _ident("What is the sequencing run id?", run),
        Probe(
            "artifact",
            f"What happened to {report}?",
            f"{report} was sent to THL.",
            ((report,), ("lähetetty", "sent")),
        ),
        Probe(
            "artifact",
            f"What is the state of specimen {spoiled}?",
            f"{spoiled} was rejected (haemolysis).",
            ((spoiled,), ("hylätty", "rejected")),
        ),
        Probe(
            "decision",
            "How are the Salmonella findings grouped in the report?",
            "By municipality (not by serotype).",
            (("kunnittain", "municipality", "municipalities"),),
        ),
        Probe(
            "next_step",
            "What to do if the Listeria PCR is positive?",
            "Request a re-culture from the same specimen.",
            (("uusintaviljely", "re-culture", "reculture"), ("listeria",)),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


# --------------------------------------------------------------------------- indexer


def _indexer(rng: random.Random, b: Builder, segments: int) -> Parts:
    tx = "0x" + hexits(rng, 64)
    block = str(21_000_000 + rng.randrange(900_000))
    ckpt = "ckpt_" + hexits(rng, 12)
    migration = f"0042_{token(rng, 5, _LOWER)}_balances.sql"
    job = "bf-" + token(rng, 6, _LOWER + _DIGITS)
    b.user(
        "The indexer shows a wrong USDC balance for one wallet. Suspect this transfer: "
        f"{tx}. Can you trace it?"
    )
    b.tool(
        "Fetching the receipt from the RPC.",
        "rpc_call",
        {"method": "eth_getTransactionReceipt", "params": [tx]},
        json.dumps(
            {
                "jsonrpc": "2.0",
                "result": {
                    "status": "0x1",
                    "blockNumber": hex(int(block)),
                    "logs": [{"logIndex": "0x3", "removed": False}],
                },
            }
        ),
    )
    b.tool(
        "Checking the indexer log around that block.",
        "bash",
        {"command": "grep -n 'reorg' /var/log/indexer.log | tail -2"},
        f"88121: WARN reorg detected depth=3 at block {block}, rolling back\n"
        f"88124: INFO resumed from checkpoint {ckpt}",
    )
    b.assistant(
        f"The transfer landed in block {block}, which was reorged; the indexer rolled back "
        f"and resumed from {ckpt} but kept a stale balance row."
    )
    b.user(
        "Ugh. Set the confirmation depth to 12 blocks from now on so we don't index unsafe "
        "heads. And apply the new balances migration."
    )
    b.tool(
        "Running the migration.",
        "bash",
        {"command": "sqlx migrate run --source ./migrations"},
        f"Applied 0041_token_meta.sql (skipped, already applied)\nApplied {migration} (38.412ms)",
    )
    b.tool(
        "Starting a backfill of the affected range.",
        "indexer_admin",
        {"action": "backfill", "from": int(block) - 10, "to": int(block) + 10},
        f"job {job} queued\njob {job} running 4/21 blocks\njob {job} FAILED: "
        "rpc error 429 Too Many Requests",
    )
    b.user(
        "Scratch the 12. Make it 64 confirmations — wait for finalized, correctness over latency."
    )
    b.user(
        "Also: if the RPC provider keeps returning 429 after the backoff, switch the "
        "backfill to the archive node. Otherwise just retry later."
    )
    b.assistant(
        "OK: 64 confirmations (finalized); if the 429s persist after backoff I move the "
        "backfill to the archive node."
    )
    opening = b.take()

    chains = ("polygon", "arbitrum", "base", "optimism")

    def filler(r: random.Random) -> None:
        addr = "0x" + hexits(r, 40)
        height = str(r.randint(40_000_000, 59_999_999))
        move = r.randrange(4)
        if move == 0:
            chain = r.choice(chains)
            b.user(f"how far behind is the {chain} indexer?")
            b.tool(
                "Checking head lag.",
                "indexer_admin",
                {"action": "status", "chain": chain},
                f"chain: {chain}\nindexed: {height}\nhead_lag_blocks: {r.randint(0, 300)}",
            )
            b.assistant(f"{chain} is close to head.")
        elif move == 1:
            b.user(f"what tokens does {addr} hold according to us?")
            b.tool(
                "Querying balances.",
                "sql",
                {"query": f"SELECT token, amount FROM balances WHERE owner = '{addr}'"},
                "token | amount\n"
                + "\n".join(
                    f"{t} | {r.uniform(0, 9000):.4f}" for t in r.sample(["WETH", "DAI", "ARB"], 2)
                ),
            )
            b.assistant(f"{addr} holds the tokens listed.")
        elif move == 2:
            b.user(
                f"if the {r.choice(chains)} RPC latency goes above {r.randint(200, 900)}ms "
                "again, page me. for now just look at it"
            )
            b.tool(
                "Reading RPC latency metrics.",
                "bash",
                {"command": "curl -s localhost:9100/metrics | grep rpc_latency"},
                "\n".join(f'rpc_latency_ms{{chain="{c}"}} {r.randint(40, 700)}' for c in chains),
            )
            b.assistant("Latency is within range right now.")
        else:
            b.user("run the indexer unit tests")
            n = r.randint(80, 200)
            b.tool(
                "Running cargo test.",
                "bash",
                {"command": "cargo test -p indexer-core"},
                f"running {n} tests\n...\ntest result: ok. {n} passed; 0 failed; "
                f"{r.randint(0, 3)} ignored",
            )
            b.assistant("All indexer tests pass.")

    probes = [
        _ident("Which transaction was suspected?", tx),
        _ident("At which block was the reorg?", block),
        _ident("From which checkpoint did the indexer resume?", ckpt),
        Probe(
            "artifact",
            f"What happened to migration {migration}?",
            f"{migration} was applied.",
            ((migration,), ("applied",)),
        ),
        Probe(
            "artifact",
            f"What happened to backfill job {job}?",
            f"Backfill job {job} failed (RPC 429).",
            ((job,), ("failed",)),
        ),
        Probe(
            "decision",
            "What confirmation depth does the indexer use?",
            "64 confirmations (finalized), not 12.",
            (("64",), ("confirmation", "finalized")),
        ),
        Probe(
            "next_step",
            "What if the RPC keeps returning 429?",
            "Switch the backfill to the archive node.",
            (("archive node", "archive-node"), ("429",)),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


# --------------------------------------------------------------------------- print shop


def _printshop(rng: random.Random, b: Builder, segments: int) -> Parts:
    order = "MR-25-" + token(rng, 5, _DIGITS)
    lot = "PT" + token(rng, 3, _UPPER) + token(rng, 4, _DIGITS)
    proof = "prf-" + hexits(rng, 10)
    flyer = f"szorolap_A5_{token(rng, 4, _LOWER)}_v2.pdf"
    invoice = "SZ-" + token(rng, 7, _DIGITS)
    b.user(
        f"Szia! A {order} rendelésről van szó, Kovácsné pékség, 5000 db A5 szórólap. "
        "Nézd meg, melyik papírtételből megy."
    )
    b.tool(
        "Megnézem a raktárkészletet.",
        "inventory",
        {"sku": "A5-matt-130", "format": "csv"},
        f"tetel,gramm,felulet,keszlet_iv\nPTAAA0001,130,matt,0\n{lot},130,matt,4200\n"
        "PTZZZ9999,90,fényes,800",
    )
    b.assistant(f"A {lot} tételből van elég 130 g-os mattból.")
    b.user("Jó, akkor 130 g-os matt papírra megy. Futtasd a preflightot a nyomdai fájlra.")
    b.tool(
        "Preflight ellenőrzés.",
        "bash",
        {"command": f"pdftoolbox --profile PDFX4 jobs/{order}/{flyer}"},
        "Checking fonts... ok\nChecking bleed... 0 mm (need 3 mm)\n"
        f"Result: {flyer} hibás - preflight FAILED (2 errors)",
    )
    b.tool(
        "Megnézem a proof e-mailt.",
        "mail_read",
        {"folder": "proof", "latest": 1},
        f"From: kovacsne@pekseg.hu\nX-Proof-Id: {proof}\nSubject: Re: proof\n\n"
        "Köszönöm, még átnézem.",
    )
    b.user(
        "Bocs, módosítás: a vevő mégis 170 g-os fényes papírt kér, nem mattot. "
        f"És a {invoice} számlát rögzítsd, átutalta."
    )
    b.tool(
        "Rögzítem a befizetést.",
        "billing",
        {"invoice": invoice, "action": "mark_paid"},
        f'<invoice id="{invoice}" status="kiegyenlítve" amount="184 500 Ft"/>',
    )
    b.user(
        "Ha a vevő délig nem hagyja jóvá a proofot, tedd át a gyártást hétfőre. Ha jóváhagyja, "
        "mehet holnap."
    )
    b.assistant(
        "Rendben: 170 g fényes; ha délig nincs jóváhagyás a proofra, a gyártás hétfőre megy."
    )
    opening = b.take()

    products = ("névjegy", "plakát B2", "matrica", "boríték C5", "roll-up")

    def filler(r: random.Random) -> None:
        web = "WEB-" + token(r, 6, _DIGITS)
        move = r.randrange(4)
        if move == 0:
            b.user(f"Mi a státusza a {web} webes rendelésnek?")
            b.tool(
                "Lekérem a rendelést.",
                "orders",
                {"id": web},
                json.dumps(
                    {"id": web, "termek": r.choice(products), "allapot": "gyártásban"},
                    ensure_ascii=False,
                ),
            )
            b.assistant(f"A {web} gyártásban van.")
        elif move == 1:
            b.user(f"Mennyibe kerül {r.randint(100, 2000)} db {r.choice(products)}?")
            b.tool(
                "Árajánlat számítása.",
                "quote",
                {"product": r.choice(products), "qty": r.randint(100, 2000)},
                f"nettó: {r.randint(8, 400)} 000 Ft\nÁFA 27%\nszállítás: {r.randint(1, 5)} nap",
            )
            b.assistant("Elküldtem az árajánlatot.")
        elif move == 2:
            b.user(
                f"Ha a Heidelberg gép {r.randint(14, 18)} óráig nem áll le, a {web} mehet rá "
                "este. Nézd meg a gépnaplót."
            )
            b.tool(
                "Gépnapló.",
                "bash",
                {"command": "tail -3 /var/log/press/heidelberg.log"},
                "\n".join(
                    f"{r.randint(8, 17):02d}:{r.randint(0, 59):02d} job {token(r, 4, _DIGITS)} "
                    f"{r.choice(['OK', 'PAUSE', 'OK'])}"
                    for _ in range(3)
                ),
            )
            b.assistant("A gép rendben fut.")
        else:
            b.user("Milyen a festékkészlet?")
            b.tool(
                "Festékkészlet.",
                "inventory",
                {"sku": "ink-cmyk"},
                "| szín | kg |\n|---|---|\n"
                + "\n".join(f"| {c} | {r.uniform(0.5, 12):.1f} |" for c in "CMYK"),
            )
            b.assistant("A festékkészlet elég a hétre.")

    probes = [
        _ident("What is the bakery's order number?", order),
        _ident("Which paper lot was chosen?", lot),
        _ident("What is the proof id in the customer's e-mail?", proof),
        Probe(
            "artifact",
            f"What happened to {flyer}?",
            f"{flyer} failed preflight (no bleed).",
            ((flyer,), ("hibás", "failed")),
        ),
        Probe(
            "artifact",
            f"What is the state of invoice {invoice}?",
            f"Invoice {invoice} is paid.",
            ((invoice,), ("kiegyenlítve", "paid")),
        ),
        Probe(
            "decision",
            "Which paper does the order use?",
            "170 g gloss (not 130 g matte).",
            (("170",), ("fényes", "gloss")),
        ),
        Probe(
            "next_step",
            "What if the customer does not approve the proof by noon?",
            "Move production to Monday.",
            (("hétfő", "monday"), ("jóvá", "approv", "proof")),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


_TEMPLATES: dict[str, Template] = {
    "port": _port,
    "kubecost": _kubecost,
    "hotel": _hotel,
    "lab": _lab,
    "indexer": _indexer,
    "printshop": _printshop,
}

HELDOUT5_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout5(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The fifth held-out session of ``kind`` for ``seed``, from a generator seeded with
    ``f"heldout5:{kind}:{seed}"``."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout5:", label="heldout5"
    )
