"""The fourth held-out set: six session kinds written without seeing the compaction
code (the summarizer, the fact ledger) or any of the other session sets.

Each session opens with the part that gets summarized, where seven probes are planted
(three identifiers, two artifacts, a decision the user later changes, a next step behind
a condition), followed by ``segments`` filler segments of unrelated work in the same
domain. Planted identifiers come from namespaces the filler never draws from, and a
session whose filler happens to satisfy a probe's check anyway is written again from the
same generator (so a seed still always gives the same session).

The kinds: an airline crew-scheduling desk in Spanish (``crew_roster_es``), a genomics
pipeline on a SLURM cluster (``genomics_slurm``), a municipal building-permit office in
German (``bauamt_de``), an Android release through Gradle and Play Console
(``android_release``), a CNC/PLC machining line (``plc_line``) and a mortgage
underwriting desk in Czech (``hypoteka_cz``).
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable, Sequence

from contextfold.messages import Message
from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    Template,
    build_session,
    hexits,
    history_text,
    probe_survives,
    segments_of,
    token,
)

__all__ = ["HELDOUT4_KINDS", "generate_heldout4"]

Call = tuple[str, str, dict[str, object], str]
"""A tool call as written: the assistant's words, the tool, its arguments, its output."""


def _episode(b: Builder, ask: str, calls: Sequence[Call], reply: str) -> None:
    """A user request, the tool calls it takes, the assistant's answer."""
    b.user(ask)
    for text, name, args, output in calls:
        b.tool(text, name, args, output)
    b.assistant(reply)


def _js(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _lower(rng: random.Random, n: int) -> str:
    return token(rng, n, string.ascii_lowercase + string.digits)


def _pick(rng: random.Random, items: Sequence[str], k: int) -> list[str]:
    return rng.sample(list(items), k)


def _guarded(write: Template) -> Template:
    """``write``, written again (same generator, fresh builder) while its filler would
    satisfy one of its probes' checks on its own; at most 40 tries."""

    def template(rng: random.Random, b: Builder, segments: int) -> Parts:
        for _ in range(40):
            opening, filler, probes = write(rng, b, segments)
            text = history_text([m for segment in filler for m in segment])
            if not any(probe_survives(p, text) for p in probes):
                return opening, filler, probes
            b = Builder(rng)
        raise RuntimeError("could not write filler free of the planted probes")

    return template


Filler = Callable[[random.Random, Builder], None]


# -- crew_roster_es: airline crew scheduling, in Spanish ---------------------------------

_BASES = {
    "MAD": "Madrid",
    "BCN": "Barcelona",
    "AGP": "Málaga",
    "PMI": "Palma",
    "LPA": "Gran Canaria",
    "BIO": "Bilbao",
    "SVQ": "Sevilla",
}
_DEST = ("BOG", "GRU", "MEX", "LIM", "JFK", "ORD", "FCO", "CDG", "LHR", "TLV", "EZE")
_MONTHS_ES = {
    "noviembre": "November",
    "diciembre": "December",
    "enero": "January",
    "febrero": "February",
    "marzo": "March",
}


def _pairing(rng: random.Random, planted: bool = False) -> str:
    return f"PRG-{rng.randrange(8000, 10000) if planted else rng.randrange(1000, 8000)}"


def _employee(rng: random.Random, planted: bool = False) -> str:
    return f"E{7 if planted else rng.choice((3, 4, 5))}{rng.randrange(10000, 100000)}"


def _crew_filler(bases: Sequence[str]) -> Filler:
    def filler(rng: random.Random, b: Builder) -> None:
        base = rng.choice(bases)
        pairing = _pairing(rng)
        flight = f"UX{rng.randrange(1000, 9999)}"
        crew = [_employee(rng) for _ in range(rng.randint(3, 6))]
        choice = rng.randrange(6)
        if choice == 0:
            fdp, limit = rng.randint(600, 760), rng.choice((780, 795, 810))
            table = "\n".join(
                [
                    "| regla | valor | límite | resultado |",
                    "|---|---|---|---|",
                    f"| FDP | {fdp // 60}:{fdp % 60:02d} | {limit // 60}:{limit % 60:02d} | OK |",
                    f"| descanso previo | {rng.randint(12, 20)}:00 | 12:00 | OK |",
                    f"| sectores | {rng.randint(2, 4)} | 6 | OK |",
                    f"| horas bloque 28d | {rng.randint(60, 95)} | 100 | OK |",
                ]
            )
            _episode(
                b,
                f"¿Puedes revisar la legalidad del emparejamiento {pairing}? Sale de {base} "
                f"el {rng.randint(1, 28)} y va a {rng.choice(_DEST)}.",
                [
                    (
                        f"Compruebo {pairing} contra el convenio y la EASA ORO.FTL.",
                        "legality_check",
                        {"pairing": pairing, "normativa": ["EASA-ORO.FTL", "convenio-2024"]},
                        table,
                    )
                ],
                f"{pairing} es legal: FDP {fdp // 60}:{fdp % 60:02d} con margen de "
                f"{(limit - fdp) // 60} h {(limit - fdp) % 60} min. Si el vuelo de ida se "
                "retrasa más de 45 minutos habría que volver a mirarlo.",
            )
        elif choice == 1:
            delay = rng.randint(40, 180)
            rows = "\n".join(
                f"{e},{rng.choice(('CPT', 'FO', 'SCCM', 'CC', 'CC'))},{base},"
                f"{rng.randint(9, 13)}:{rng.choice(('00', '15', '30', '45'))}"
                for e in crew
            )
            _episode(
                b,
                f"El {flight} de mañana sale con {delay} min de retraso previsto. ¿A quién afecta?",
                [
                    (
                        f"Saco la tripulación asignada al {flight}.",
                        "crew_api",
                        {"op": "flight_crew", "vuelo": flight, "fecha": "mañana"},
                        f"empleado,funcion,base,fdp_restante\n{rows}",
                    )
                ],
                f"Afecta a {len(crew)} tripulantes ({', '.join(crew[:3])}...). Con "
                f"{delay} min a {crew[0]} le quedaría poco FDP; si el retraso pasa de 90 min "
                f"habrá que activar una imaginaria de {base}.",
            )
        elif choice == 2:
            lines = "\n".join(
                f"- empleado: {e}\n  curso: {rng.choice(('CRM', 'SEP', 'DG', 'OPC'))}\n"
                f"  caduca: 2025-{rng.randint(10, 12):02d}-{rng.randint(1, 28):02d}"
                for e in crew
            )
            _episode(
                b,
                "Lista de tripulantes con formación recurrente que caduca antes de fin de año, "
                "por favor.",
                [
                    (
                        "Consulto el módulo de formación.",
                        "crew_api",
                        {"op": "training_expiry", "antes_de": "2025-12-31", "base": base},
                        f"# {len(crew)} resultados\n{lines}",
                    )
                ],
                f"Hay {len(crew)} caducidades; la primera es de {crew[0]}. Las programo en "
                "el simulador si me confirmas las fechas.",
            )
        elif choice == 3:
            a, c = crew[0], crew[1]
            state = rng.choice(("aprobado", "pendiente", "rechazado"))
            _episode(
                b,
                f"Aprueba el cambio de actividad entre {a} y {c} en {pairing}, lo han pedido "
                "los dos.",
                [
                    (
                        f"Registro el cambio en {pairing}.",
                        "crew_api",
                        {"op": "swap", "pairing": pairing, "de": a, "a": c},
                        _js(
                            {
                                "pairing": pairing,
                                "cambio": {"de": a, "a": c},
                                "estado": state,
                                "motivo": None if state != "rechazado" else "descanso < 12h",
                            }
                        ),
                    )
                ],
                f"Cambio en {pairing}: {state}.",
            )
        elif choice == 4:
            rows = "\n".join(
                f"{code},{rng.randint(2400, 9800)},{rng.randint(40, 120)},"
                f"{rng.randint(70, 96)}.{rng.randint(0, 9)}"
                for code in bases
            )
            _episode(
                b,
                "Dame las horas bloque por base del mes pasado.",
                [
                    (
                        "Lanzo el script de estadísticas.",
                        "bash",
                        {"command": "python scripts/stats_roster.py --mes octubre --csv"},
                        f"base,horas_bloque,tripulantes,utilizacion_pct\n{rows}",
                    )
                ],
                f"Octubre: {len(bases)} bases; la de mayor utilización es {base}.",
            )
        else:
            sha = hexits(rng, 7)
            path = rng.choice(("reglas/tiempos_conexion.yaml", "reglas/dietas.yaml"))
            _episode(
                b,
                f"Sube el tiempo mínimo de conexión en {base} a {rng.randint(35, 60)} min y "
                "haz commit.",
                [
                    (
                        f"Edito {path}.",
                        "edit_file",
                        {"path": path, "find": f"{base}: 30", "replace": f"{base}: 45"},
                        "1 replacement",
                    ),
                    (
                        "Commit.",
                        "bash",
                        {"command": f"git commit -am 'conexión mínima {base}'"},
                        f"[main {sha}] conexión mínima {base}\n 1 file changed, 1 insertion(+), "
                        "1 deletion(-)",
                    ),
                ],
                f"Hecho en {sha}.",
            )

    return filler


def _crew(rng: random.Random, b: Builder, segments: int) -> Parts:
    month = rng.choice(list(_MONTHS_ES))
    first, final = _pick(rng, ("MAD", "BCN", "AGP", "PMI"), 2)
    employee = _employee(rng, planted=True)
    cancelled = _pairing(rng, planted=True)
    checked = _pairing(rng, planted=True)
    while checked == cancelled:
        checked = _pairing(rng, planted=True)
    change = f"CMB-{rng.choice('KLMNP')}{token(rng, 5)}"
    publication = f"RPB-{rng.choice('QRSTV')}{token(rng, 5)}"
    rule = rng.choice(("descanso_minimo", "limites_ftl", "nocturnidad"))
    renamed = f"reglas/{rule}_{rng.choice(('2025', 'v2', 'nuevo'))}.yaml"
    dest = rng.choice(_DEST)
    b.user(
        f"Hola. Tenemos que cerrar la programación de tripulaciones de {month}. Primero, el "
        f"TCP con número de empleado {employee} ha puesto una queja por descanso "
        f"insuficiente en el emparejamiento {checked}. Para las imaginarias usamos la base de "
        f"{_BASES[first]} ({first}) este mes."
    )
    b.tool(
        f"Reviso {checked} y los descansos del tripulante.",
        "crew_api",
        {"op": "get_pairing", "pairing": checked, "incluir": ["descansos", "tripulacion"]},
        "\n".join(
            [
                f"pairing: {checked}",
                f"ruta: {first}-{dest}-{first}",
                "sectores: 2",
                f"tripulacion: [{employee}, {_employee(rng)}, {_employee(rng)}]",
                "descansos:",
                f"  - lugar: {dest}",
                f"    horas: {rng.randint(9, 11)}:{rng.choice(('10', '25', '40'))}",
                "    minimo_convenio: '12:00'",
                "    cumple: false",
            ]
        ),
    )
    b.tool(
        "El descanso en destino no cumple el mínimo. Registro una solicitud de cambio para "
        f"sustituir al tripulante en {checked}.",
        "http_request",
        {
            "method": "POST",
            "url": "https://crew.internal/api/v2/cambios",
            "json": {"pairing": checked, "sale": employee, "motivo": "descanso"},
        },
        "\n".join(
            [
                "HTTP/1.1 201 Created",
                "Content-Type: application/json; charset=utf-8",
                f"Location: /api/v2/cambios/{change}",
                f"X-RateLimit-Remaining: {rng.randint(200, 900)}",
                f"Date: Tue, {rng.randint(1, 28)} Oct 2025 0{rng.randint(6, 9)}:12:44 GMT",
                "",
                '{"estado": "registrada"}',
            ]
        ),
    )
    b.assistant(
        "Solicitud registrada; el sistema propone un sustituto de la bolsa de imaginarias. "
        "Antes de publicar, ordeno las reglas como pediste la semana pasada."
    )
    b.user("Sí, y renombra el fichero de reglas para que quede claro cuál es el vigente.")
    b.tool(
        "Renombro con git para conservar la historia.",
        "bash",
        {"command": f"git mv reglas/{rule}.yaml {renamed} && git status --short"},
        f"R  reglas/{rule}.yaml -> {renamed}",
    )
    b.tool(
        f"Genero el borrador del roster de {month}.",
        "roster_publish",
        {"mes": month, "modo": "borrador", "bases": [first, final]},
        _js(
            {
                "resultado": "ok",
                "resumen": {"pairings": rng.randint(900, 1400), "tripulantes": 612},
                "avisos": [f"{rng.randint(2, 9)} pairings sin imaginaria asignada"],
                "publicacion": {
                    "modo": "borrador",
                    "id": publication,
                    "generado": f"2025-10-{rng.randint(10, 28)}T07:41:09Z",
                },
            }
        ),
    )
    b.assistant(f"Borrador de {month} generado, con avisos de imaginarias sin asignar.")
    phrasing = rng.randrange(3)
    if phrasing == 0:
        b.user(
            f"Perdona, cambio de planes: las imaginarias de {month} salen de {_BASES[final]}, "
            f"no de {_BASES[first]}."
        )
    elif phrasing == 1:
        b.user(f"Oye, mejor {final}.")
    else:
        b.user(f"Pues nada, al final base de imaginarias = {final}. Lo ha decidido operaciones.")
    b.tool(
        f"Entendido: las imaginarias se asignan desde {final} ({_BASES[final]}). Recalculo y "
        "listo los emparejamientos afectados tras los cambios.",
        "crew_api",
        {"op": "list_pairings", "mes": month, "filtro": "modificados"},
        "\n".join(
            [
                "| pairing | ruta | días | estado |",
                "|---|---|---|---|",
                f"| {_pairing(rng)} | {first}-{rng.choice(_DEST)}-{first} | 3 | publicado |",
                f"| {checked} | {first}-{dest}-{first} | 2 | modificado |",
                f"| {cancelled} | {final}-{rng.choice(_DEST)}-{final} | 4 | cancelado |",
                f"| {_pairing(rng)} | {final}-{rng.choice(_DEST)}-{final} | 2 | publicado |",
            ]
        ),
    )
    b.assistant("El listado ya refleja los cambios.")
    b.user(
        f"Vale. Si el sindicato no presenta objeciones antes del viernes, publica el roster "
        f"definitivo de {month}. Si objetan, no toques nada y avísame."
    )
    b.assistant("De acuerdo, quedo a la espera de la respuesta del sindicato.")
    opening = b.take()
    probes = [
        Probe(
            "identifier",
            f"What is the employee number of the cabin crew member who complained about rest "
            f"on {checked}?",
            employee,
            ((employee,),),
        ),
        Probe(
            "identifier",
            "Which change request did the crew API create for the rest complaint?",
            change,
            ((change,),),
        ),
        Probe(
            "identifier",
            f"What is the id of the draft roster publication for {month}?",
            publication,
            ((publication,),),
        ),
        Probe(
            "artifact",
            f"What was done to reglas/{rule}.yaml?",
            f"renamed to {renamed}",
            ((renamed,), ("renam", "renombr", "mv ", "moved", "movido")),
        ),
        Probe(
            "artifact",
            f"What state is pairing {cancelled} in?",
            "cancelled (cancelado)",
            ((cancelled,), ("cancelad", "cancelled", "canceled", "anulad")),
        ),
        Probe(
            "decision",
            f"From which base are reserve crews assigned for {month}?",
            f"{final} ({_BASES[final]})",
            ((final, _BASES[final]), ("imaginaria", "reserve", "reserva", "standby")),
        ),
        Probe(
            "next_step",
            "What is pending, and under what condition?",
            f"publish the final {month} roster if the union raises no objection by Friday",
            (
                ("publica", "publish"),
                (month, _MONTHS_ES[month]),
                ("sindicato", "union", "objec", "objeci"),
            ),
        ),
    ]
    filler = _crew_filler([code for code in _BASES if code != final])
    return opening, segments_of(rng, b, segments, lambda r: filler(r, b)), probes


# -- genomics_slurm: a variant-calling pipeline on a SLURM cluster -----------------------

_MODULES_PLANTED = ("bqsr_apply", "mark_duplicates_spark", "vep_annotate", "haplotypecaller_gvcf")
_MODULES_FILLER = ("fastp_trim", "bwa_index", "samtools_sort", "mosdepth_cov", "bcftools_norm")


def _genomics_filler(rng: random.Random, b: Builder) -> None:
    job = rng.randrange(50_000_000, 51_000_000)
    lib = f"lib{rng.randrange(1, 61):02d}"
    srr = f"SRR{rng.randrange(10_000_000, 30_000_000)}"
    choice = rng.randrange(6)
    if choice == 0:
        rows = "\n".join(
            f"{job}_{i:<4} align_{lib:<8} "
            f"{rng.choice(('COMPLETED', 'COMPLETED', 'COMPLETED', 'TIMEOUT', 'OUT_OF_MEMORY'))}"
            f"  {rng.randint(0, 3)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}  "
            f"{rng.randint(8, 62)}G"
            for i in range(rng.randint(4, 8))
        )
        _episode(
            b,
            f"How did job {job} do? That's the old {lib} alignment array.",
            [
                (
                    "Checking accounting.",
                    "bash",
                    {"command": f"sacct -j {job} --format=JobID,JobName,State,Elapsed,MaxRSS"},
                    "JobID        JobName      State      Elapsed   MaxRSS\n"
                    "------------ ------------ ---------- --------- ------\n" + rows,
                )
            ],
            f"Array {job}: most tasks completed; the ones that hit TIMEOUT or OUT_OF_MEMORY "
            "need --mem 64G and a 6 h limit if you want them rerun.",
        )
    elif choice == 1:
        total = rng.randint(300_000_000, 900_000_000)
        mapped = total - rng.randint(1_000_000, 9_000_000)
        _episode(
            b,
            f"Quick flagstat on {lib}_normal.sorted.bam please.",
            [
                (
                    "Running samtools flagstat.",
                    "bash",
                    {"command": f"samtools flagstat -@ 8 results/bam/{lib}_normal.sorted.bam"},
                    f"{total} + 0 in total (QC-passed reads + QC-failed reads)\n"
                    f"{rng.randint(100000, 900000)} + 0 secondary\n"
                    f"{mapped} + 0 mapped ({mapped * 100 / total:.2f} % : N/A)\n"
                    f"{total - 2_000_000} + 0 paired in sequencing\n"
                    f"{rng.randint(1000, 90000)} + 0 singletons",
                )
            ],
            f"{lib}_normal: {mapped * 100 / total:.2f} % mapped, nothing unusual.",
        )
    elif choice == 2:
        used = rng.randint(700, 990)
        _episode(
            b,
            "Are we close to the scratch quota again?",
            [
                (
                    "Checking Lustre quota for the group.",
                    "bash",
                    {"command": "lfs quota -hg genomics_lab /scratch"},
                    "Disk quotas for grp genomics_lab (gid 40213):\n"
                    "     Filesystem    used   quota   limit   grace   files\n"
                    f"       /scratch  {used}T   1000T   1100T       -  {rng.randint(2, 9)}1204"
                    f"{rng.randint(10, 99)}",
                )
            ],
            f"{used}T of 1000T used. If scratch fills up again over the weekend, I'd purge "
            "work/ directories older than 7 days rather than resubmit anything.",
        )
    elif choice == 3:
        q30 = rng.randint(82, 95)
        _episode(
            b,
            f"Did fastp finish on {srr}?",
            [
                (
                    "Reading the fastp JSON summary.",
                    "bash",
                    {"command": f"jq .summary qc/fastp/{srr}.json"},
                    _js(
                        {
                            "before_filtering": {
                                "total_reads": rng.randint(40_000_000, 90_000_000),
                                "q30_rate": round(q30 / 100 - 0.03, 4),
                            },
                            "after_filtering": {
                                "total_reads": rng.randint(30_000_000, 40_000_000),
                                "q30_rate": q30 / 100,
                                "gc_content": round(rng.uniform(0.39, 0.45), 4),
                            },
                        }
                    ),
                )
            ],
            f"Yes, {srr} trimmed fine: Q30 {q30} % after filtering.",
        )
    elif choice == 4:
        module = rng.choice(_MODULES_FILLER)
        passed = rng.randint(3, 9)
        _episode(
            b,
            f"Can you run the {module} module tests? I touched its main.nf.",
            [
                (
                    f"Running nf-test on {module}.",
                    "run_tests",
                    {"runner": "nf-test", "path": f"tests/modules/{module}.nf.test"},
                    f"nf-test 0.9.2\n\nTest Process {module.upper()}\n"
                    + "\n".join(
                        f"  Test [{hexits(rng, 8)}] 'case {i}' PASSED ({rng.randint(4, 40)}.0s)"
                        for i in range(passed)
                    )
                    + f"\n\nSUCCESS: Executed {passed} tests",
                )
            ],
            f"All {passed} {module} tests pass.",
        )
    else:
        env = rng.choice(("gatk4.5", "bcftools-1.20", "deepvariant-1.6"))
        _episode(
            b,
            f"Rebuild the {env} conda env, the lockfile changed.",
            [
                (
                    "Rebuilding with mamba.",
                    "bash",
                    {"command": f"mamba env update -n {env} -f envs/{env}.lock.yml --prune"},
                    f"Transaction finished\n  + {rng.randint(2, 9)} packages installed\n"
                    f"  - {rng.randint(1, 5)} packages removed\n"
                    f"To activate this environment, use: mamba activate {env}",
                )
            ],
            f"{env} rebuilt. If a login node complains about the old env cache, run "
            "`conda clean -i` there.",
        )


def _genomics(rng: random.Random, b: Builder) -> tuple[list[Message], list[Probe]]:
    accession = f"ERR{rng.randrange(9_000_000, 10_000_000)}"
    job = rng.randrange(51_000_000, 52_000_000)
    md5 = hexits(rng, 32)
    lib = f"lib{rng.randrange(80, 100)}"
    bam = f"{lib}_tumor.dedup.bam"
    module = rng.choice(_MODULES_PLANTED)
    first = rng.choice(("GRCh38", "GRCh38 (no alt)", "hg38"))
    b.user(
        f"Morning. {accession} (that's {lib}, the tumour library) came back from the "
        f"sequencing core with a bad lane. Please realign it against {first}, throw away the "
        "old dedup BAM so nobody picks it up by mistake, and resubmit as an array."
    )
    b.tool(
        "Checking which reference the pipeline config points at first.",
        "bash",
        {"command": "cat config/pipeline.yaml"},
        "\n".join(
            [
                "project: tumour_normal_wgs",
                "scheduler:",
                "  partition: cpu-long",
                "  account: genomics_lab",
                "reference:",
                "  fasta: /ref/GRCh38/GRCh38_full_analysis_set.fna",
                f"  genome_md5: {md5}",
                "  dict: /ref/GRCh38/GRCh38_full_analysis_set.dict",
                "known_sites:",
                "  - /ref/GRCh38/dbsnp_156.vcf.gz",
                "  - /ref/GRCh38/mills_1000G.indels.vcf.gz",
                "aligner: bwa-mem2",
            ]
        ),
    )
    b.tool(
        "Removing the stale BAM and its index.",
        "bash",
        {"command": f"rm -v results/bam/{bam} results/bam/{bam}.bai"},
        f"removed 'results/bam/{bam}'\nremoved 'results/bam/{bam}.bai'",
    )
    phrasing = rng.randrange(3)
    if phrasing == 0:
        b.user(
            "Actually — hold on. For this cohort we're moving to T2T-CHM13v2.0, please use "
            f"that as the reference instead of {first}."
        )
    elif phrasing == 1:
        b.user("scratch that: CHM13.")
    else:
        b.user(
            "Sorry, one more thing, the PI decided this morning: T2T-CHM13v2.0, not "
            f"{first}. Could you switch it?"
        )
    b.tool(
        "Understood. Switching the alignment reference to T2T-CHM13v2.0 for the realignment; "
        f"{first} stays in the config for the other cohorts. Submitting the realignment array.",
        "bash",
        {
            "command": f"sbatch --array=1-24%8 --export=ALL,SAMPLE={accession},"
            "REF=chm13v2 slurm/align_array.sh"
        },
        f"Submitted batch job {job}\n"
        "sbatch: Verify job submission ... ok\n"
        f"sbatch: partition cpu-long, account genomics_lab, est. start in {rng.randint(2, 40)} min",
    )
    b.tool(
        "While it queues, running the tests of the module I had to touch for the new "
        "reference dict.",
        "run_tests",
        {"runner": "nf-test", "path": f"tests/modules/{module}.nf.test"},
        "\n".join(
            [
                "nf-test 0.9.2",
                "",
                f"Test Process {module.upper()}",
                f"  Test [{hexits(rng, 8)}] 'homo_sapiens - bam' PASSED (14.2s)",
                f"  Test [{hexits(rng, 8)}] 'homo_sapiens - cram' FAILED (9.8s)",
                "    Assertion failed: snapshot mismatch in output 'vcf'",
                "",
                "FAILURE: Executed 2 tests in 24.0s (1 failed)",
            ]
        ),
    )
    b.assistant(
        f"{module}.nf.test fails on the CRAM case (snapshot mismatch in the VCF output), "
        "the BAM case passes. The array is queued."
    )
    b.user(
        "Fine. If the array comes back with zero FAILED tasks, run MultiQC over results/ and "
        "drop the report in /lab/share/reports. If anything failed just send me the sacct table."
    )
    b.assistant("Will do once the array finishes.")
    probes = [
        Probe(
            "identifier",
            "Which run accession had to be realigned?",
            accession,
            ((accession,),),
        ),
        Probe(
            "identifier", "What is the realignment array's SLURM job id?", str(job), ((str(job),),)
        ),
        Probe(
            "identifier",
            "What is the genome_md5 of the reference in config/pipeline.yaml?",
            md5,
            ((md5,),),
        ),
        Probe(
            "artifact",
            f"What happened to results/bam/{bam}?",
            "deleted (rm -v), with its index",
            ((bam,), ("removed", "deleted", "rm ", "rm -v")),
        ),
        Probe(
            "artifact",
            f"What was the result of tests/modules/{module}.nf.test?",
            "failed (CRAM case, snapshot mismatch)",
            ((f"{module}.nf.test",), ("fail",)),
        ),
        Probe(
            "decision",
            f"Which reference genome is {accession} realigned against?",
            "T2T-CHM13v2.0",
            (("chm13",), ("reference", "align", "genome")),
        ),
        Probe(
            "next_step",
            "What is pending, and under what condition?",
            "run MultiQC over results/ if the array finishes with zero failed tasks",
            (("multiqc",), ("fail", "zero", "succe", "complete")),
        ),
    ]
    return b.take(), probes


def _genomics_parts(rng: random.Random, b: Builder, segments: int) -> Parts:
    opening, probes = _genomics(rng, b)
    return opening, segments_of(rng, b, segments, lambda r: _genomics_filler(r, b)), probes


# -- bauamt_de: a municipal building-permit office, in German ----------------------------

_STREETS = ("Lindenstraße", "Am Mühlbach", "Kirchweg", "Bahnhofstraße", "Gartenring", "Eichenallee")
_STAENDE = ("eingegangen", "ausstehend", "ausstehend", "ohne Bedenken")
_TOEB = (
    "Untere Naturschutzbehörde",
    "Brandschutzdienststelle",
    "Straßenverkehrsbehörde",
    "Stadtwerke (Leitungsauskunft)",
    "Immissionsschutz",
    "Wasserbehörde",
)


def _az(rng: random.Random, planted: bool = False) -> str:
    return f"BV-2025-{rng.randrange(80000, 100000) if planted else rng.randrange(10000, 70000)}"


def _flurstueck(rng: random.Random, planted: bool = False) -> str:
    district = rng.randrange(90000, 100000) if planted else rng.randrange(50000, 60000)
    return (
        f"0{district}-{rng.randrange(1, 30):03d}-{rng.randrange(1, 2000):05d}/"
        f"{rng.randrange(1, 20):03d}"
    )


def _bauamt_filler(rng: random.Random, b: Builder) -> None:
    az = _az(rng)
    street = f"{rng.choice(_STREETS)} {rng.randint(1, 80)}"
    choice = rng.randrange(6)
    if choice == 0:
        cost = rng.randint(180, 900) * 1000
        rows = "\n".join(
            [
                "| Position | Grundlage | Betrag |",
                "|---|---|---|",
                f"| Baugenehmigung (TP 2.1) | {cost:,} € Rohbaukosten | "
                f"{cost * 0.006:,.2f} € |".replace(",", "."),
                f"| Abweichung § 67 BauO | pauschal | {rng.choice((150, 250, 400))},00 € |",
                f"| Prüfung Standsicherheit | {rng.randint(2, 9)} Std. | "
                f"{rng.randint(300, 900)},00 € |",
            ]
        )
        _episode(
            b,
            f"Kannst du die Gebühren für {az} ({street}) ausrechnen?",
            [
                (
                    f"Ich berechne die Gebühren für {az} nach Tarif.",
                    "gebuehren_berechnen",
                    {"aktenzeichen": az, "tarif": "VwKostO 2024"},
                    rows,
                )
            ],
            f"Gebühren für {az} stehen; falls der Bauherr Ratenzahlung beantragt, bräuchte es "
            "eine Anordnung der Kämmerei.",
        )
    elif choice == 1:
        rows = "\n".join(
            f"{az};{behoerde};{rng.choice(_STAENDE)};"
            f"{rng.randint(1, 28):02d}.{rng.randint(9, 12):02d}.2025"
            for behoerde in _pick(rng, _TOEB, 4)
        )
        _episode(
            b,
            f"Welche Stellungnahmen fehlen noch bei {az}?",
            [
                (
                    "Ich frage die Beteiligungsliste ab.",
                    "fachverfahren",
                    {"abfrage": "beteiligung", "aktenzeichen": az, "format": "csv"},
                    f"aktenzeichen;stelle;stand;datum\n{rows}",
                )
            ],
            f"Bei {az} sind noch Stellungnahmen offen (siehe Liste). Falls bis zum Stichtag "
            "nichts kommt, gilt das Einvernehmen nach § 36 BauGB als erteilt.",
        )
    elif choice == 2:
        rows = "\n".join(
            f"| {_az(rng)} | {rng.choice(_STREETS)} {rng.randint(1, 80)} | "
            f"{rng.choice(('in Prüfung', 'genehmigt', 'abgelehnt', 'unvollständig'))} |"
            for _ in range(rng.randint(4, 7))
        )
        _episode(
            b,
            "Zeig mir bitte alle Vorgänge von Frau Kessler aus dieser Woche.",
            [
                (
                    "Abfrage nach Sachbearbeiterin.",
                    "fachverfahren",
                    {"abfrage": "vorgaenge", "sachbearbeitung": "Kessler", "zeitraum": "KW 43"},
                    f"| Aktenzeichen | Adresse | Status |\n|---|---|---|\n{rows}",
                )
            ],
            "Das sind ihre Vorgänge dieser Woche.",
        )
    elif choice == 3:
        plan = f"B-Plan Nr. {rng.randint(10, 140)}"
        _episode(
            b,
            f"Liegt {street} im Geltungsbereich eines Bebauungsplans?",
            [
                (
                    "Ich prüfe das im GIS.",
                    "gis_abfrage",
                    {"flurstueck": _flurstueck(rng), "ebenen": ["bplan", "altlasten"]},
                    "\n".join(
                        [
                            "treffer:",
                            f"  - ebene: bplan\n    name: {plan}",
                            f"    rechtskraft: 20{rng.randint(0, 24):02d}",
                            f"    grz: 0.{rng.randint(3, 6)}\n    gfz: {rng.randint(6, 12) / 10}",
                            f"    vollgeschosse: {rng.randint(2, 4)}",
                        ]
                    ),
                )
            ],
            f"Ja, {plan}; die GRZ lässt den Anbau grundsätzlich zu.",
        )
    elif choice == 4:
        _episode(
            b,
            f"Der Architekt von {az} fragt per Mail, ob die Abstandsflächen jetzt passen. "
            "Kannst du kurz antworten?",
            [
                (
                    "Ich lese die Prüfnotiz.",
                    "dms_lesen",
                    {"pfad": f"Vorgaenge/{az}/Pruefnotiz_Abstandsflaechen.txt"},
                    f"Abstandsfläche Nord: {rng.randint(30, 60) / 10} m (erf. 3,00 m) — ok\n"
                    f"Abstandsfläche Ost: {rng.randint(20, 29) / 10} m (erf. 3,00 m) — nicht ok\n"
                    "Hinweis: Übernahme auf Nachbargrundstück möglich (Baulast)",
                )
            ],
            f"Entwurf der Antwort zu {az}: Nord passt, Ost nicht; mit einer Abstandsflächenbaulast "
            "des Nachbarn ginge es.",
        )
    else:
        _episode(
            b,
            f"Bitte den Eingang der Statik für {az} bestätigen.",
            [
                (
                    "Ich erfasse den Eingang.",
                    "vorgang_status_setzen",
                    {
                        "aktenzeichen": az,
                        "ereignis": "Unterlage eingegangen",
                        "unterlage": "Statik",
                    },
                    f"OK: {az} Eingang 'Statik' erfasst ({rng.randint(1, 28):02d}.10.2025)",
                )
            ],
            f"Erfasst. Falls der Prüfstatiker bis Freitag keine Rückmeldung gibt, schicke ich "
            f"eine Erinnerung zu {az}.",
        )


def _bauamt(rng: random.Random, b: Builder, segments: int) -> Parts:
    az = _az(rng, planted=True)
    deferred = _az(rng, planted=True)
    while deferred == az:
        deferred = _az(rng, planted=True)
    parcel = _flurstueck(rng, planted=True)
    uuid = (
        f"{hexits(rng, 8)}-{hexits(rng, 4)}-4{hexits(rng, 3)}-a{hexits(rng, 3)}-{hexits(rng, 12)}"
    )
    first, final = _pick(rng, ("3", "4", "6", "8"), 2)
    words = {"3": "drei", "4": "vier", "6": "sechs", "8": "acht"}
    street = f"{rng.choice(_STREETS)} {rng.randint(1, 80)}"
    doc = f"{az}_Nachforderung.docx"
    b.user(
        f"Guten Morgen! Bauantrag {az}, Einfamilienhaus mit Einliegerwohnung, {street}. "
        "Die Unterlagen sind unvollständig, es fehlen Statik und Entwässerungsplan. Bitte eine "
        f"Nachforderung vorbereiten, Frist {first} Wochen. Und die Bauvoranfrage {deferred} vom "
        "Nachbarn hängt davon ab."
    )
    b.tool(
        "Ich prüfe zuerst das Grundstück im Liegenschaftskataster.",
        "alkis_abfrage",
        {"flurstueckskennzeichen": parcel, "felder": ["flaeche", "eigentum", "baulasten"]},
        _js(
            {
                "flaeche_m2": rng.randint(420, 980),
                "eigentum": "Privat (1 Eigentümer)",
                "baulasten": [],
                "lage": street,
            }
        ),
    )
    b.tool(
        "Die elektronische Antragsnachricht (XBau) hole ich aus dem Postfach.",
        "xbau_nachricht_abrufen",
        {"aktenzeichen": az},
        "\n".join(
            [
                '<?xml version="1.0" encoding="UTF-8"?>',
                '<xbau:baugenehmigung.antrag.0200 xmlns:xbau="http://www.xleitstelle.de/xbau/2">',
                "  <nachrichtenkopf.g2g>",
                "    <identifikation.nachricht>",
                f"      <nachrichtenUUID>{uuid}</nachrichtenUUID>",
                "      <nachrichtentyp listURI='urn:xoev-de:xbau:codeliste:nachrichten'>"
                "<code>0200</code></nachrichtentyp>",
                f"      <erstellungszeitpunkt>2025-10-{rng.randint(1, 28):02d}T09:14:03"
                "</erstellungszeitpunkt>",
                "    </identifikation.nachricht>",
                "    <autor><name>Architekturbüro Brandt</name></autor>",
                "  </nachrichtenkopf.g2g>",
                "  <antragsgegenstand><vorhaben>Neubau EFH mit ELW</vorhaben></antragsgegenstand>",
                "  <anlagen><anzahl>7</anzahl></anlagen>",
                "</xbau:baugenehmigung.antrag.0200>",
            ]
        ),
    )
    b.tool(
        "Ich lege das Nachforderungsschreiben aus der Vorlage an.",
        "dms_dokument_anlegen",
        {"ordner": "Bescheide/2025", "dateiname": doc, "vorlage": "NF-03"},
        f"Dokument angelegt: Bescheide/2025/{doc} (Version 1, Vorlage NF-03, Frist {first} Wochen)",
    )
    b.tool(
        f"Die Bauvoranfrage {deferred} stelle ich zurück, bis {az} vollständig ist.",
        "vorgang_status_setzen",
        {"aktenzeichen": deferred, "status": "zurückgestellt", "grund": f"abhängig von {az}"},
        f"OK: Status geändert (vorher: in Prüfung), Wiedervorlage in {rng.randint(4, 8)} Wochen",
    )
    b.assistant(
        f"Nachforderung zu {az} angelegt, Flurstück geprüft (keine Baulasten), die Voranfrage "
        "ist vorerst geparkt."
    )
    phrasing = rng.randrange(3)
    if phrasing == 0:
        b.user(f"Ach so, Korrektur: Die Frist bitte auf {final} Wochen, der Bauherr ist im Urlaub.")
    elif phrasing == 1:
        b.user(f"Also, doch lieber {words[final]} Wochen Frist. Danke dir!")
    else:
        b.user(f"Frist -> {final} Wochen.")
    b.tool(
        "Ich passe die Frist im Schreiben an.",
        "dms_dokument_bearbeiten",
        {"pfad": f"Bescheide/2025/{doc}", "feld": "frist_wochen", "wert": int(final)},
        "Version 2 gespeichert",
    )
    b.assistant(f"Erledigt, die Frist im Schreiben steht jetzt auf {final} Wochen.")
    b.user(
        "Wenn die Stellungnahme der Unteren Denkmalschutzbehörde da ist und keine Einwände "
        "enthält, schick den Genehmigungsbescheid raus. Sonst bitte erst mit mir sprechen."
    )
    b.assistant("Alles klar, ich warte auf die Stellungnahme.")
    opening = b.take()
    probes = [
        Probe("identifier", "What is the building application's file number?", az, ((az,),)),
        Probe(
            "identifier",
            "What is the parcel identifier (Flurstückskennzeichen) of the plot?",
            parcel,
            ((parcel,),),
        ),
        Probe("identifier", "What is the XBau message UUID of the application?", uuid, ((uuid,),)),
        Probe(
            "artifact",
            f"What happened to the preliminary enquiry {deferred}?",
            "deferred (zurückgestellt)",
            (
                (deferred,),
                ("zurückgestellt", "zurueckgestellt", "deferred", "postponed", "on hold"),
            ),
        ),
        Probe(
            "artifact",
            f"Which document was created for {az}, and where?",
            f"Bescheide/2025/{doc}, created from template NF-03",
            ((doc,), ("angelegt", "erstellt", "created", "new ", "neu")),
        ),
        Probe(
            "decision",
            "What deadline does the request for missing documents give?",
            f"{final} weeks",
            (
                (f"{final} Wochen", f"{words[final]} Wochen", f"{final} weeks", f"{final}-week"),
                ("frist", "deadline"),
            ),
        ),
        Probe(
            "next_step",
            "What is pending, and under what condition?",
            "send the building permit once the heritage authority's statement arrives "
            "without objections",
            (
                ("denkmal", "heritage", "monument"),
                ("bescheid", "genehmigung", "permit", "approval"),
            ),
        ),
    ]
    return opening, segments_of(rng, b, segments, lambda r: _bauamt_filler(r, b)), probes


# -- android_release: an Android app release through Gradle and Play Console -------------

_TESTS_PLANTED = ("CheckoutViewModelTest", "PromoCodeRepositoryTest", "CartMergerTest")
_TESTS_FILLER = ("LoginUseCaseTest", "ProfileMapperTest", "SearchPagingSourceTest", "FeedDaoTest")


def _android_filler(rng: random.Random, b: Builder) -> None:
    version = f"5.{rng.randint(10, 30)}.{rng.randint(0, 9)}"
    code = rng.randint(50100, 50999)
    choice = rng.randrange(6)
    if choice == 0:
        test = rng.choice(_TESTS_FILLER)
        n = rng.randint(8, 40)
        _episode(
            b,
            f"Run {test} on the debug variant, I refactored the mapper.",
            [
                (
                    "Running the unit test through Gradle.",
                    "bash",
                    {"command": f"./gradlew :app:testDebugUnitTest --tests '*{test}'"},
                    "> Task :app:compileDebugKotlin\n> Task :app:testDebugUnitTest\n\n"
                    f"{n} tests completed, 0 failed\n\nBUILD SUCCESSFUL in {rng.randint(20, 90)}s\n"
                    f"{rng.randint(30, 60)} actionable tasks: {rng.randint(5, 20)} executed",
                )
            ],
            f"{test}: {n} tests, all green.",
        )
    elif choice == 1:
        lib, old, new = rng.choice(
            (
                ("androidx.compose:compose-bom", "2024.09.00", "2024.10.01"),
                ("com.squareup.okhttp3:okhttp", "4.12.0", "5.0.0-alpha.14"),
                ("io.coil-kt:coil-compose", "2.6.0", "2.7.0"),
            )
        )
        _episode(
            b,
            "Which dependencies are outdated?",
            [
                (
                    "Running the versions plugin.",
                    "bash",
                    {"command": "./gradlew dependencyUpdates -Drevision=release"},
                    "The following dependencies have later release versions:\n"
                    f" - {lib} [{old} -> {new}]\n"
                    f" - org.jetbrains.kotlinx:kotlinx-coroutines-android [1.8.1 -> 1.9.0]\n"
                    f"\nBUILD SUCCESSFUL in {rng.randint(8, 30)}s",
                )
            ],
            f"Two updates; {lib} {new} is the interesting one. If R8 complains after bumping "
            "coroutines, we'd need a keep rule for the debug probes.",
        )
    elif choice == 2:
        rows = "\n".join(
            f"| {v} ({c}) | {rng.randint(9900, 9999) / 100}% | {rng.randint(10, 60) / 100}% |"
            for v, c in (
                (f"5.{rng.randint(1, 9)}.0", rng.randint(49000, 49999)),
                (f"5.{rng.randint(1, 9)}.1", rng.randint(49000, 49999)),
            )
        )
        _episode(
            b,
            "How are the vitals for the versions already in production?",
            [
                (
                    "Querying Android vitals.",
                    "play_console",
                    {"op": "vitals", "metrics": ["crashRate", "anrRate"], "days": 28},
                    f"| version | crash-free users | ANR rate |\n|---|---|---|\n{rows}",
                )
            ],
            "Both older versions are within the bad-behaviour thresholds.",
        )
    elif choice == 3:
        issues = rng.randint(2, 14)
        _episode(
            b,
            "Lint is slow again; any new errors?",
            [
                (
                    "Running lint on release.",
                    "bash",
                    {
                        "command": "./gradlew :app:lintRelease && "
                        "head -c 600 app/build/reports/lint-results-release.xml"
                    },
                    '<?xml version="1.0" encoding="UTF-8"?>\n<issues format="6" by="lint 8.7.1">\n'
                    f'  <issue id="UnusedResources" severity="Warning" message="The resource '
                    f'`R.string.legacy_banner_{rng.randint(1, 9)}` appears to be unused"/>\n'
                    f'  <issue id="ObsoleteSdkInt" severity="Warning" message="Unnecessary; '
                    f'SDK_INT is always >= 24"/>\n</issues>\n'
                    f"Lint found 0 errors, {issues} warnings",
                )
            ],
            f"No errors, {issues} warnings (unused resources, obsolete SDK checks).",
        )
    elif choice == 4:
        testers = rng.randint(12, 80)
        _episode(
            b,
            f"Push {version} to the QA testers via App Distribution.",
            [
                (
                    "Building and uploading the QA build.",
                    "bash",
                    {"command": "./gradlew assembleQa appDistributionUploadQa"},
                    f"> Task :app:assembleQa\nUploading the APK.\nUploaded APK successfully "
                    f"(versionCode {code})\nAdded release notes successfully\nDistributed to "
                    f"{testers} testers\n\nBUILD SUCCESSFUL in {rng.randint(60, 200)}s",
                )
            ],
            f"QA build {version} ({code}) is out to {testers} testers. If anyone reports the "
            "login loop again, grab their device model first.",
        )
    else:
        lang = rng.choice(("pl", "nl", "pt-rBR", "tr"))
        _episode(
            b,
            f"Import the new {lang} translations from the agency zip.",
            [
                (
                    "Unpacking into res/.",
                    "bash",
                    {
                        "command": f"unzip -o ~/Downloads/translations_{lang}.zip -d "
                        f"app/src/main/res/values-{lang}/ && git status --short"
                    },
                    f" M app/src/main/res/values-{lang}/strings.xml\n"
                    f"?? app/src/main/res/values-{lang}/plurals.xml",
                )
            ],
            f"{lang}: strings.xml updated, plurals.xml added.",
        )


def _android(rng: random.Random, b: Builder, segments: int) -> Parts:
    issue = hexits(rng, 32)
    sha1 = ":".join(token(rng, 2, "0123456789ABCDEF") for _ in range(20))
    scan = _lower(rng, 13)
    test = rng.choice(_TESTS_PLANTED)
    old, new = rng.choice(
        (
            ("strings_legacy.xml", "strings_onboarding.xml"),
            ("colors_old.xml", "colors_brand2025.xml"),
            ("dimens_tmp.xml", "dimens_checkout.xml"),
        )
    )
    first = rng.choice(("20", "25", "10"))
    final = rng.choice(("2", "3", "4"))
    version = f"6.{rng.randint(0, 9)}.0"
    code = rng.randint(60100, 60999)
    b.user(
        f"We're shipping {version} today. Crashlytics issue {issue} is the checkout crash that "
        f"this release fixes. Plan is a staged rollout at {first}% on production. Please build "
        "the release bundle, check we sign with the right upload key, and clean up the "
        f"resource file {old} the design team asked about."
    )
    b.tool(
        "Checking the upload keystore first.",
        "bash",
        {"command": "keytool -list -v -keystore keystores/upload.jks -alias upload"},
        "\n".join(
            [
                "Alias name: upload",
                "Creation date: 14 Mar 2023",
                "Entry type: PrivateKeyEntry",
                "Certificate chain length: 1",
                "Certificate[1]:",
                "Owner: CN=Shop Mobile, OU=Apps, O=Shop GmbH, C=DE",
                f"Serial number: {hexits(rng, 16)}",
                "Valid from: Tue Mar 14 10:02:11 CET 2023 until: Sat Mar 07 10:02:11 CET 2048",
                "Certificate fingerprints:",
                f"\t SHA1: {sha1}",
                "\t SHA256: " + ":".join(token(rng, 2, "0123456789ABCDEF") for _ in range(32)),
                "Signature algorithm name: SHA256withRSA",
                "Subject Public Key Algorithm: 4096-bit RSA key",
            ]
        ),
    )
    b.tool(
        f"That matches the upload certificate in Play Console. Renaming {old} as the design "
        "team asked.",
        "move_file",
        {
            "source": f"app/src/main/res/values/{old}",
            "destination": f"app/src/main/res/values/{new}",
        },
        "ok",
    )
    b.tool(
        "Building the release bundle with the unit tests and a build scan.",
        "bash",
        {"command": "./gradlew :app:testReleaseUnitTest :app:bundleRelease --scan"},
        "\n".join(
            [
                "> Task :app:compileReleaseKotlin",
                "> Task :app:testReleaseUnitTest",
                "",
                f"com.shop.checkout.{test} > appliesPromoCodeOnlyOnce FAILED",
                f"    java.lang.AssertionError at {test}.kt:{rng.randint(40, 140)}",
                "",
                f"{rng.randint(180, 400)} tests completed, 1 failed",
                "",
                "> Task :app:testReleaseUnitTest FAILED",
                "",
                "FAILURE: Build failed with an exception.",
                "",
                f"BUILD FAILED in {rng.randint(1, 3)}m {rng.randint(1, 59)}s",
                f"{rng.randint(60, 90)} actionable tasks: {rng.randint(20, 50)} executed",
                "",
                "Publishing build scan...",
                f"https://gradle.com/s/{scan}",
            ]
        ),
    )
    b.assistant(
        "The bundle did not build: one release unit test fails (promo code applied twice). "
        "Looking at the test before anything goes to Play."
    )
    phrasing = rng.randrange(3)
    if phrasing == 0:
        b.user(f"and make it {final}%, not {first}. no discussion.")
        ack = f"OK, the staged rollout starts at {final}% then, not {first}%."
    elif phrasing == 1:
        b.user(
            f"Hmm, thinking about it, with a failing checkout test I'd rather start the "
            f"rollout at {final}%. Sorry for the back and forth."
        )
        ack = f"No problem: staged rollout at {final}%."
    else:
        b.user(f"Ok so — rollout {final}% instead. Product agreed.")
        ack = f"Noted: {final}% staged rollout."
    b.tool(
        f"{ack} Preparing the production release in Play Console (draft, not sent for "
        "review) while I look at the test.",
        "play_console",
        {
            "op": "create_release",
            "track": "production",
            "versionCodes": [code],
            "status": "draft",
            "userFraction": int(final) / 100,
        },
        _js({"track": "production", "release": {"name": version, "status": "draft"}}),
    )
    b.assistant(f"Draft release {version} ({code}) is on the production track.")
    b.user(
        "Once the test is fixed and it's live: if crash-free users stay at or above 99.6% for "
        "48 hours, bump production to 30%; if not, halt the rollout."
    )
    b.assistant("Understood.")
    opening = b.take()
    probes = [
        Probe(
            "identifier",
            f"Which Crashlytics issue does {version} fix?",
            issue,
            ((issue,),),
        ),
        Probe(
            "identifier",
            "What is the SHA1 fingerprint of the upload key?",
            sha1,
            ((sha1,),),
        ),
        Probe("identifier", "What is the id of the release build's build scan?", scan, ((scan,),)),
        Probe(
            "artifact",
            f"What happened to app/src/main/res/values/{old}?",
            f"renamed to {new}",
            ((new,), ("renam", "moved", "move", "mv ", "destination", "->", "→")),
        ),
        Probe(
            "artifact",
            f"What was the result of {test}?",
            "failed (appliesPromoCodeOnlyOnce)",
            ((test,), ("fail",)),
        ),
        Probe(
            "decision",
            f"At what percentage does the staged rollout of {version} start?",
            f"{final}%",
            (
                (f"{final}%", f"{final} %", f"{final} percent", f"0.0{final}"),
                ("rollout", "roll out", "userfraction", "staged"),
            ),
        ),
        Probe(
            "next_step",
            "What is pending, and under what condition?",
            "bump production to 30% if crash-free users stay >= 99.6% for 48 h, else halt",
            (("30%", "30 %", "30 percent"), ("crash-free", "crash free", "99.6")),
        ),
    ]
    return opening, segments_of(rng, b, segments, lambda r: _android_filler(r, b)), probes


# -- plc_line: a CNC machining line run through PLCs, OPC-UA and an MES ------------------

_SUITES_PLANTED = ("FB_ToolChanger_Tests", "FB_SafetyDoor_Tests", "FB_CoolantPump_Tests")
_SUITES_FILLER = ("FB_Conveyor_Tests", "FB_PalletClamp_Tests", "FB_ChipAuger_Tests")
_ALARMS = ("Coolant level low", "Door interlock open", "Axis Z following error", "Chip jam")
_MATERIALS = ("AL6061", "42CrMo4", "X5CrNi18-10", "C45", "AlMg3")


def _node(rng: random.Random, planted: bool = False) -> str:
    if planted:
        cell = f"Cell{rng.randint(12, 19)}"
        return f"ns=7;s={cell}.CNC{rng.randint(20, 29)}.Spindle.{rng.choice(('LoadPct', 'TempC'))}"
    return (
        f"ns={rng.choice((2, 3))};s=Cell0{rng.randint(1, 9)}.CNC0{rng.randint(1, 9)}."
        f"{rng.choice(('Axis.X.Pos', 'Coolant.Conc', 'Door.Locked', 'Spindle.Rpm'))}"
    )


def _plc_filler(rng: random.Random, b: Builder) -> None:
    wo = f"WO-{rng.randrange(4_000_000, 5_000_000)}"
    machine = f"CNC0{rng.randint(1, 9)}"
    choice = rng.randrange(6)
    if choice == 0:
        rows = "\n".join(
            f"2025-10-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d},"
            f"ALM-{rng.randint(1000, 6999)},{machine},"
            f"{rng.choice(_ALARMS)},"
            f"{rng.choice(('ACK', 'ACK', 'ACTIVE', 'CLEARED'))}"
            for _ in range(rng.randint(5, 9))
        )
        _episode(
            b,
            f"Export the alarm history of {machine} for the last shift.",
            [
                (
                    "Exporting from the alarm server.",
                    "alarm_export",
                    {"machine": machine, "since": "-8h", "format": "csv"},
                    f"timestamp,alarm_id,machine,text,state\n{rows}",
                )
            ],
            f"{machine} had mostly coolant and door alarms; nothing still active that blocks "
            "production.",
        )
    elif choice == 1:
        node = _node(rng)
        value = rng.choice(("7.2", "6.1", "True", "4120", "-212.450"))
        _episode(
            b,
            f"Read {node.split(';s=')[1]} for me.",
            [
                (
                    "Reading over OPC-UA.",
                    "opcua_read",
                    {
                        "endpoint": f"opc.tcp://10.40.{rng.randint(1, 9)}.{rng.randint(10, 90)}"
                        ":4840",
                        "node_id": node,
                    },
                    _js(
                        {
                            "value": value,
                            "statusCode": "Good",
                            "sourceTimestamp": "2025-10-21T06:02:11Z",
                        }
                    ),
                )
            ],
            f"Value {value} (Good). If coolant concentration drops below 6 % on that cell, top "
            "it up before the next batch.",
        )
    elif choice == 2:
        rows = "\n".join(
            f"| Cell0{i} | {rng.randint(55, 88)}% | {rng.randint(80, 99)}% | "
            f"{rng.randint(95, 100)}% |"
            for i in range(1, rng.randint(4, 7))
        )
        _episode(
            b,
            "OEE per cell for yesterday?",
            [
                (
                    "Querying the MES.",
                    "mes_query",
                    {"report": "oee", "date": "yesterday", "group_by": "cell"},
                    f"| cell | availability | performance | quality |\n|---|---|---|---|\n{rows}",
                )
            ],
            "OEE table above; Cell01 lost most availability to tool changes.",
        )
    elif choice == 3:
        tool_no = f"T{rng.randint(1, 40):02d}"
        life = rng.randint(3, 25)
        _episode(
            b,
            f"How much life is left on {tool_no} in {machine}?",
            [
                (
                    "Reading the tool table.",
                    "cnc_tooltable",
                    {"machine": machine, "tool": tool_no},
                    f"TOOL {tool_no}  D={rng.choice((6, 8, 10, 12, 16))}.000  "
                    f"L={rng.randint(60, 140)}.250  LIFE_REM={life}%  CUTS={rng.randint(200, 900)}",
                )
            ],
            f"{tool_no}: {life}% life left. If it drops under 5 % mid-batch, swap to the "
            "sister tool.",
        )
    elif choice == 4:
        suite = rng.choice(_SUITES_FILLER)
        n = rng.randint(6, 20)
        _episode(
            b,
            f"I changed {suite.replace('_Tests', '')}; run its tests.",
            [
                (
                    "Running the TcUnit suite.",
                    "run_plc_tests",
                    {"project": "Line1_PLC", "suite": suite},
                    f'<testsuites>\n  <testsuite name="{suite}" tests="{n}" failures="0" '
                    f'errors="0" time="{rng.randint(1, 9)}.{rng.randint(0, 9)}"/>\n</testsuites>',
                )
            ],
            f"{suite}: {n}/{n} passed.",
        )
    else:
        state = rng.choice(("RUN", "SETUP", "MAINT"))
        _episode(
            b,
            f"Book {wo} onto Cell0{rng.randint(1, 9)} and set the cell to {state}.",
            [
                (
                    "Updating the MES.",
                    "mes_update",
                    {"work_order": wo, "action": "dispatch", "cell_state": state},
                    f"HTTP/1.1 200 OK\nContent-Type: application/json\n\n"
                    f'{{"work_order": "{wo}", "qty": {rng.randint(20, 400)}, "state": "{state}"}}',
                )
            ],
            f"{wo} dispatched; cell in {state}.",
        )


def _plc(rng: random.Random, b: Builder, segments: int) -> Parts:
    wo = f"WO-{rng.randrange(8_800_000, 8_900_000)}"
    node = _node(rng, planted=True)
    crc = "0x" + token(rng, 8, "0123456789ABCDEF")
    program = (
        f"O{rng.randint(7000, 7999)}_{rng.choice(_MATERIALS)}_roughing_v{rng.randint(2, 6)}.nc"
    )
    suite = rng.choice(_SUITES_PLANTED)
    first = rng.choice(("110", "120"))
    final = rng.choice(("85", "90", "95"))
    machine = node.split(".")[1]
    cell = node.split(";s=")[1].split(".")[0]
    b.user(
        f"Hi, {cell} is down since the night shift. Work order {wo} (the housing batch) is "
        f"waiting on {machine}. The spindle load looked odd before it tripped. Keep the feed "
        f"override cap at {first}% like before, we're behind."
    )
    b.tool(
        "Reading the spindle value over OPC-UA first.",
        "opcua_read",
        {"endpoint": "opc.tcp://10.40.12.21:4840", "node_id": node},
        _js(
            {
                "value": rng.randint(96, 140),
                "statusCode": "Uncertain_LastUsableValue",
                "sourceTimestamp": "2025-10-21T03:47:52Z",
            }
        ),
    )
    b.tool(
        f"The last usable value is high. The old roughing program on {machine} is the one "
        f"that overloaded it; deleting {program} so it can't be loaded again.",
        "delete_file",
        {"path": f"recipes/{machine}/{program}"},
        "1 file removed",
    )
    b.tool(
        "Running the PLC unit tests of the function block I had to touch.",
        "run_plc_tests",
        {"project": f"{cell}_PLC", "suite": suite},
        "\n".join(
            [
                "<testsuites>",
                f'  <testsuite name="{suite}" tests="{rng.randint(8, 16)}" failures="0" '
                f'errors="0" time="{rng.randint(2, 6)}.{rng.randint(0, 9)}">',
                '    <testcase name="Test_Sequence_Nominal" status="PASS"/>',
                '    <testcase name="Test_Sequence_DoorOpen" status="PASS"/>',
                "  </testsuite>",
                "</testsuites>",
            ]
        ),
    )
    b.tool(
        "Downloading the corrected project to the PLC.",
        "plc_download",
        {"target": f"{cell}-PLC01", "project": f"{cell}_PLC", "mode": "online_change"},
        "\n".join(
            [
                "Connecting to target ... ok",
                "Checking for online change compatibility ... ok",
                f"Transferring {rng.randint(300, 900)} KB ... done",
                "Online change applied, 0 errors, 2 warnings",
                f"Project CRC {crc}",
            ]
        ),
    )
    phrasing = rng.randrange(3)
    if phrasing == 0:
        b.user(
            f"Sorry to go back and forth — actually, cap the feed override at {final}%. The "
            "fixture can't take more."
        )
    elif phrasing == 1:
        b.user(f"Änderung: Override max {final}%. Sagt die Instandhaltung.")
    else:
        b.user(f"Well, on second thought: {final}%.")
    b.tool(
        "Setting the override limit in the machine data.",
        "opcua_write",
        {
            "endpoint": "opc.tcp://10.40.12.21:4840",
            "node_id": f"ns=7;s={cell}.{machine}.Feed.OverrideMaxPct",
            "value": int(final),
        },
        "Good",
    )
    b.assistant(f"Feed override on {machine} is now capped at {final}%.")
    b.user(
        "Thanks. If the vibration RMS on the spindle stays under 2.8 mm/s during the test cut, "
        "set the cell back to RUN in the MES; otherwise leave it in MAINT and call Jonas."
    )
    b.assistant("OK, I'll watch the test cut.")
    opening = b.take()
    probes = [
        Probe("identifier", f"Which work order is waiting on {machine}?", wo, ((wo,),)),
        Probe("identifier", "Which OPC-UA node was read for the spindle?", node, ((node,),)),
        Probe("identifier", "What is the project CRC after the PLC download?", crc, ((crc,),)),
        Probe(
            "artifact",
            f"What happened to {program}?",
            f"deleted from recipes/{machine}/",
            ((program,), ("delet", "removed", "gelöscht")),
        ),
        Probe(
            "artifact",
            f"What was the result of {suite}?",
            "passed (0 failures)",
            ((suite,), ("pass", 'failures="0"', "0 failures", "0 failed", "succe", "green")),
        ),
        Probe(
            "decision",
            f"What is the feed override cap on {machine}?",
            f"{final}%",
            ((f"{final}%", f"{final} %", f"{final} percent"), ("override",)),
        ),
        Probe(
            "next_step",
            "What is pending, and under what condition?",
            "set the cell back to RUN if spindle vibration RMS stays under 2.8 mm/s in the "
            "test cut, else leave it in MAINT and call Jonas",
            (("vibration",), ("2.8",), ("RUN", "production", "release")),
        ),
    ]
    return opening, segments_of(rng, b, segments, lambda r: _plc_filler(r, b)), probes


# -- hypoteka_cz: mortgage underwriting, in Czech ----------------------------------------

_NAMES_CZ = ("Novák", "Dvořáková", "Svoboda", "Procházková", "Černý", "Kučerová", "Veselý")
_TOWNS_CZ = ("Brno-Líšeň", "Olomouc", "Plzeň-Bory", "Kolín", "Jihlava", "Praha 4 - Nusle")
_IN_TOWN_CZ = ("v Brně-Líšni", "v Olomouci", "v Plzni-Borech", "v Kolíně", "v Jihlavě", "v Nuslích")


def _czk(rng: random.Random, lo: int, hi: int) -> str:
    """Millions of crowns with one decimal, Czech style (a decimal comma)."""
    return f"{rng.randint(lo, hi) / 10:.1f}".replace(".", ",")


def _zadost(rng: random.Random, planted: bool = False) -> str:
    return f"HU-2025-{rng.randrange(800000, 1000000) if planted else rng.randrange(100000, 700000)}"


def _hypoteka_filler(rng: random.Random, b: Builder) -> None:
    zadost = _zadost(rng)
    name = rng.choice(_NAMES_CZ)
    choice = rng.randrange(6)
    if choice == 0:
        income = rng.randint(45, 140) * 1000
        debt = rng.randint(3, 9) * 1000 * rng.randint(300, 900)
        _episode(
            b,
            f"Spočítej prosím DSTI a DTI pro {zadost} (klient {name}).",
            [
                (
                    "Počítám ukazatele podle doporučení ČNB.",
                    "kalkulacka_ukazatelu",
                    {"zadost": zadost, "cisty_prijem": income, "dluh_celkem": debt},
                    "| ukazatel | hodnota | limit |\n|---|---|---|\n"
                    f"| DTI | {debt / (income * 12):.2f} | 8,5 |\n"
                    f"| DSTI | {rng.randint(25, 48)} % | 45 % |\n"
                    f"| LTV | {rng.randint(60, 90)} % | 80 % (90 % do 36 let) |",
                )
            ],
            f"{zadost}: ukazatele vyšly; pokud by DSTI přes 45 %, šlo by to jen ve výjimce.",
        )
    elif choice == 1:
        rows = "\n".join(
            f"| {_zadost(rng)} | {rng.choice(_NAMES_CZ)} | {rng.randint(18, 95) * 100_000:,} Kč | "
            f"{rng.choice(('schválena', 'v posouzení', 'čeká na doklady', 'čerpána'))} |".replace(
                ",", " "
            )
            for _ in range(rng.randint(4, 7))
        )
        _episode(
            b,
            "Vypiš mi moje rozpracované žádosti.",
            [
                (
                    "Načítám seznam žádostí.",
                    "uver_system",
                    {"op": "seznam_zadosti", "poradce": "me", "stav": "aktivni"},
                    f"| žádost | klient | výše | stav |\n|---|---|---|---|\n{rows}",
                )
            ],
            "To jsou tvoje aktivní žádosti.",
        )
    elif choice == 2:
        _episode(
            b,
            f"Klient {name} k žádosti {zadost} poslal výpisy z účtu. Zkontroluj, jestli sedí "
            "příjem.",
            [
                (
                    "Čtu extrakt z výpisů.",
                    "doklady_extrakt",
                    {"zadost": zadost, "typ": "vypis_z_uctu", "mesice": 3},
                    "mesic,prijem_mzda,zamestnavatel\n"
                    + "\n".join(
                        f"2025-0{m},{rng.randint(38, 90) * 1000},"
                        f"{rng.choice(('ŠKODA AUTO a.s.', 'ČEZ, a. s.', 'Moneta Money Bank'))}"
                        for m in (7, 8, 9)
                    ),
                )
            ],
            f"Příjem u {zadost} sedí s potvrzením od zaměstnavatele. Pokud klient nedoloží "
            "daňové přiznání do pátku, žádost pozastavím.",
        )
    elif choice == 3:
        years = rng.choice(("5", "7", "10"))
        rate = f"{rng.randint(4, 5)},{rng.randint(10, 99)}"
        _episode(
            b,
            f"Jakou sazbu dostane {name} s fixací na {years} let?",
            [
                (
                    "Dívám se do sazebníku.",
                    "sazebnik",
                    {
                        "produkt": "hypoteka_standard",
                        "fixace_let": int(years),
                        "ltv_pasmo": "do 80 %",
                    },
                    _js(
                        {
                            "sazba_pct": rate,
                            "rpsn_pct": f"{rate[0]},{rng.randint(20, 99)}",
                            "platnost_od": "2025-10-01",
                        }
                    ),
                )
            ],
            f"Při fixaci na {years} let {rate} % p.a.",
        )
    elif choice == 4:
        parcel = f"{rng.randint(100, 3999)}/{rng.randint(1, 40)}"
        _episode(
            b,
            f"Je na parcele {parcel} v k.ú. {rng.choice(_TOWNS_CZ)} nějaké zástavní právo?",
            [
                (
                    "Dotaz do katastru.",
                    "katastr",
                    {"op": "lv_vypis", "parcela": parcel},
                    "\n".join(
                        [
                            f"LV: {rng.randint(100, 9999)}",
                            "Vlastník: SJM " + name,
                            "Omezení vlastnického práva:",
                            "  - Zástavní právo smluvní, oprávněný: "
                            + rng.choice(("Komerční banka", "ČSOB", "Raiffeisenbank")),
                            f"    řízení: V-{rng.randint(1000, 99999)}/2019-"
                            f"{rng.randint(101, 299)}",
                        ]
                    ),
                )
            ],
            "Ano, váznou tam zástavy z roku 2019; při refinancování je potřeba souhlas "
            "stávající banky.",
        )
    else:
        _episode(
            b,
            f"Nahraj k {zadost} podepsaný souhlas se zpracováním údajů.",
            [
                (
                    "Nahrávám do spisu.",
                    "bash",
                    {
                        "command": f"cp ~/scan/souhlas_{name.lower()}.pdf /spisy/{zadost}/ && "
                        f"ls /spisy/{zadost}/"
                    },
                    f"souhlas_{name.lower()}.pdf\nobcansky_prukaz.pdf\nvypisy_2025.pdf",
                )
            ],
            "Nahráno.",
        )


def _hypoteka(rng: random.Random, b: Builder, segments: int) -> Parts:
    zadost = _zadost(rng, planted=True)
    rejected = _zadost(rng, planted=True)
    while rejected == zadost:
        rejected = _zadost(rng, planted=True)
    vklad = f"V-{rng.randint(1000, 99999)}/2025-{rng.randint(701, 799)}"
    report = f"CB{rng.choice('QRSTUVWXYZ')}{token(rng, 9)}"
    name = rng.choice(_NAMES_CZ)
    town = rng.choice(_IN_TOWN_CZ)
    threshold = f"{rng.randint(55, 80) / 10:.1f}".replace(".", ",")
    renamed = f"potvrzeni_o_prijmu_2025-{rng.randint(7, 9):02d}.pdf"
    first, final = rng.choice((("5", "3"), ("10", "3"), ("5", "8"), ("7", "8")))
    final_forms = {
        "3": ("3 roky", "tříletou", "3letou", "3 years", "three years"),
        "8": ("8 let", "osmiletou", "8letou", "8 years", "eight years"),
    }[final]
    b.user(
        f"Dobrý den, máme novou hypotéku, žádost {zadost}, klient {name}, byt {town}. Chce "
        f"fixaci na {first} let. Prosím zkontroluj registr, katastr a doklady."
    )
    b.tool(
        "Ověřuji klienta v registru CBCB.",
        "http_request",
        {"method": "GET", "url": f"https://registry.internal/cbcb/report?zadost={zadost}"},
        "\n".join(
            [
                "HTTP/1.1 200 OK",
                "Content-Type: application/json",
                f"X-CBCB-Report-Id: {report}",
                "Cache-Control: no-store",
                "",
                _js({"negativni_zaznamy": 0, "aktivni_uvery": 2, "skore": rng.randint(560, 780)}),
            ]
        ),
    )
    b.tool(
        "Katastr: stav zápisů k bytu.",
        "katastr",
        {"op": "rizeni", "zadost": zadost},
        "\n".join(
            [
                "| řízení | typ | stav | podáno |",
                "|---|---|---|---|",
                f"| V-{rng.randint(1000, 99999)}/2016-{rng.randint(101, 299)} | vklad "
                "vlastnictví | "
                "zapsáno | 2016 |",
                f"| {vklad} | výmaz zástavy | probíhá | 2025 |",
            ]
        ),
    )
    b.tool(
        "Doklady: skenované potvrzení o příjmu má nejasný název, přejmenuji ho.",
        "bash",
        {"command": f"mv /spisy/{zadost}/scan0042.pdf /spisy/{zadost}/{renamed}"},
        "",
    )
    b.tool(
        "Kontroluji, jestli klient nemá jinou žádost.",
        "uver_system",
        {"op": "seznam_zadosti", "klient": name, "stav": "vse"},
        "\n".join(
            [
                "| žádost | produkt | výše | stav |",
                "|---|---|---|---|",
                f"| {rejected} | Refinancování | {_czk(rng, 12, 40)} mil. Kč | zamítnuta |",
                f"| {zadost} | Hypotéka | {_czk(rng, 28, 75)} mil. Kč | v posouzení |",
            ]
        ),
    )
    b.assistant(
        "Registr bez negativních záznamů, v katastru běží výmaz staré zástavy, doklady jsou ve "
        "spisu."
    )
    phrasing = rng.randrange(3)
    if phrasing == 0:
        word = "roky" if final == "3" else "let"
        b.user(f"Oprava: klient si to rozmyslel, chce fixaci na {final} {word}.")
    elif phrasing == 1:
        b.user(f"Takže nakonec {final_forms[1]} fixace, prosím.")
    else:
        b.user(f"Hele, změna — fixace {final_forms[2]}.")
    b.assistant(f"Rozumím, fixace se mění na {final_forms[0]}; přepočítám nabídku.")
    b.user(
        f"Díky. Pokud odhad nemovitosti přijde aspoň na {threshold} mil. Kč, "
        "pošli klientovi návrh úvěrové smlouvy. Když bude nižší, ozvi se mi."
    )
    b.assistant("Dobře, čekám na odhad.")
    opening = b.take()
    probes = [
        Probe("identifier", "What is the mortgage application number?", zadost, ((zadost,),)),
        Probe(
            "identifier",
            "Which cadastral proceeding (deletion of the old lien) is still running?",
            vklad,
            ((vklad,),),
        ),
        Probe(
            "identifier", "What is the id of the client's CBCB credit report?", report, ((report,),)
        ),
        Probe(
            "artifact",
            "What happened to the scanned income statement scan0042.pdf?",
            f"renamed to {renamed}",
            ((renamed,), ("přejmenov", "prejmenov", "renam", "mv ", "moved")),
        ),
        Probe(
            "artifact",
            f"What state is application {rejected} in?",
            "rejected (zamítnuta)",
            ((rejected,), ("zamítnut", "zamitnut", "rejected", "declined", "denied")),
        ),
        Probe(
            "decision",
            "For how long is the rate fixed?",
            f"{final} years",
            (final_forms, ("fixac", "fixation", "fixed", "fix")),
        ),
        Probe(
            "next_step",
            "What is pending, and under what condition?",
            f"send the client the draft loan agreement if the valuation comes in at "
            f"{threshold} mil. Kč or more; otherwise report back",
            (("odhad", "valuation", "apprais"), ("smlouv", "agreement", "contract")),
        ),
    ]
    return opening, segments_of(rng, b, segments, lambda r: _hypoteka_filler(r, b)), probes


_TEMPLATES: dict[str, Template] = {
    "crew_roster_es": _guarded(_crew),
    "genomics_slurm": _guarded(_genomics_parts),
    "bauamt_de": _guarded(_bauamt),
    "android_release": _guarded(_android),
    "plc_line": _guarded(_plc),
    "hypoteka_cz": _guarded(_hypoteka),
}

HELDOUT4_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout4(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The fourth held-out session of ``kind`` for ``seed`` (see the module docstring),
    from ``random.Random(f"heldout4:{kind}:{seed}")``."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout4:", label="fourth held-out"
    )
