"""The tenth held-out session set: six kinds written blind to the compaction code.

Written without seeing the compaction code, the summarizer, the fact ledger or the other
session sets. Six kinds, each a project an LLM agent works on with a user, in its own
language and stack:

``halal_horizon_ar``
    Arabic: a Laravel app with Horizon queues for a halal certification body
    (failed renewal jobs, ``artisan`` output, Laravel logs).
``dental_flutter_he``
    Hebrew: a Flutter app for a chain of dental clinics on Firebase (``flutter test``,
    ``firebase deploy``, Crashlytics).
``durian_snowflake_th``
    Thai: a Snowflake warehouse for a durian exporter (``snowsql`` tables, tasks, query
    ids, lab residue results).
``bakery_spark_da``
    Danish: demand forecasts for a bakery chain on Databricks Spark (job runs, MLflow,
    ``pytest``).
``lab_kafka_ro``
    Romanian: Kafka Connect with Debezium streaming a medical laboratory's results to a
    patient portal (Connect REST API, ``kafka-topics``, consumer-group lag).
``theatre_argocd_ru``
    Russian: a theatre box office deployed with Helm and Argo CD (``argocd``,
    ``kubectl``, ``git``).

Each session plants in its opening (the part the first compaction summarizes), among
tool calls, logs and chatter, exactly: three identifiers of different types (seeded),
two artifact states (a file or resource and what happened to it, told by the tool's
own output or only in the agent's words, by the seed), one decision (dictated,
corrected, a proposal rejected, modified or approved, relayed from someone else, or the
user's answer to the agent's question) and one open next step (a deadline, a condition,
a promise or a reminder, owned by the user or the agent). The opening's blocks come in a
seeded order, with decoys (other job ids, rejected values) where they come naturally.
The filler segments (their number is ``segments``) never repeat a planted identifier or
artifact name.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from contextfold.messages import Message
from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    ProbeKind,
    Session,
    Template,
    build_session,
    hexits,
    noise_lines,
    segments_of,
    token,
)

__all__ = ["HELDOUT10_KINDS", "generate_heldout10"]

Block = Callable[[], None]
Filler = Callable[[random.Random, Builder], None]


def _id(question: str, value: str) -> Probe:
    return Probe("identifier", question, value, ((value,),))


def _fact(kind: ProbeKind, question: str, answer: str, *groups: tuple[str, ...]) -> Probe:
    return Probe(kind, question, answer, groups)


def _run(rng: random.Random, first: Block, middle: list[Block], last: Block) -> None:
    """The opening: ``first``, the ``middle`` blocks in a seeded order, then ``last``."""
    first()
    rng.shuffle(middle)
    for block in middle:
        block()
    last()


def _fill(
    rng: random.Random, b: Builder, segments: int, fillers: list[Filler]
) -> list[list[Message]]:
    return segments_of(rng, b, segments, lambda r: r.choice(fillers)(r, b))


def _uuid(rng: random.Random) -> str:
    return (
        f"{hexits(rng, 8)}-{hexits(rng, 4)}-4{hexits(rng, 3)}-"
        f"{rng.choice('89ab')}{hexits(rng, 3)}-{hexits(rng, 12)}"
    )


def _clock(rng: random.Random) -> str:
    return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


# --------------------------------------------------------------------------- Arabic

_AR_DAYS = (
    ("الأحد", "sunday"),
    ("الاثنين", "monday"),
    ("الثلاثاء", "tuesday"),
    ("الأربعاء", "wednesday"),
    ("الخميس", "thursday"),
)
_AR_FACTORIES = ("مصنع الواحة للحوم", "شركة نخيل للأغذية", "مطاحن الريان", "ألبان السنابل")
_AR_PEOPLE = ("م. خالد", "أ. ريم", "م. يوسف", "أ. هند")


def _ar_log(rng: random.Random) -> str:
    level = rng.choice(("INFO", "DEBUG", "INFO", "WARNING"))
    what = rng.choice(
        (
            "Horizon supervisor heartbeat",
            "Processing: App\\Jobs\\SyncInspectorCalendar",
            "Processed:  App\\Jobs\\SendAuditReminder",
            "Redis connection pool size=12",
            "Scheduler: inspections:sync ran in 214ms",
        )
    )
    return f"[2025-03-14 {_clock(rng)}] production.{level}: {what}"


def _halal(rng: random.Random, b: Builder, segments: int) -> Parts:
    cert = f"HC-{rng.randint(2024, 2026)}-{rng.randint(10000, 99999)}"
    decoy_cert = f"HC-{rng.randint(2024, 2026)}-{rng.randint(10000, 99999)}"
    job, decoy_job = _uuid(rng), _uuid(rng)
    cr = f"10{rng.randint(10, 99)}{rng.randint(100000, 999999)}"
    factory = rng.choice(_AR_FACTORIES)
    person = rng.choice(_AR_PEOPLE)
    probes = [
        _id("What is the number of the certificate whose renewal job failed?", cert),
        _id("What is the UUID of the failed Horizon renewal job?", job),
        _id("What is the factory's commercial registration (CR) number?", cr),
    ]

    def first() -> None:
        b.user(
            f"السلام عليكم. {factory} يشتكي أن شهادة الحلال لم تُجدَّد رغم الدفع. رقم السجل "
            f"التجاري للمصنع {cr}. افحص طابور التجديد على Horizon لو سمحت."
        )
        b.tool(
            "أبدأ بقائمة المهام الفاشلة.",
            "bash",
            {"command": "php artisan queue:failed"},
            f"  2025-03-14 06:02:11 {decoy_job} ............ redis@mail App\\Mail\\AuditInvite\n"
            f"  2025-03-14 08:12:55 {job} ........ redis@renewals App\\Jobs\\RenewCertificate",
        )
        b.assistant(
            "هناك مهمتان فاشلتان: الأولى رسالة دعوة تدقيق (طابور mail) والثانية مهمة تجديد "
            "في طابور renewals، وهي التي تخص المصنع على الأرجح."
        )

    def log() -> None:
        b.user("طيب، ما سبب فشل التجديد؟")
        lines = noise_lines(rng, rng.randint(3, 5), _ar_log)
        b.tool(
            "أقرأ سجل Laravel حول وقت الفشل.",
            "bash",
            {"command": "tail -n 40 storage/logs/laravel-2025-03-14.log | grep -v DEBUG"},
            f"{lines}\n[2025-03-14 08:12:41] production.INFO: Renewed certificate "
            f"{decoy_cert} (pdf ok, mail queued)\n[2025-03-14 08:12:55] production.ERROR: "
            f"RenewCertificate failed for certificate {cert}: Expected response code 250 "
            'but got code "421", with message "421 Too many connections"\n'
            "#0 vendor/symfony/mailer/Transport/Smtp/SmtpTransport.php(331)",
        )
        b.assistant(
            f"الشهادة {cert} تعثرت عند إرسال البريد: خادم SMTP رفض الاتصال (421). أما "
            f"{decoy_cert} فتجددت بشكل طبيعي قبلها بثوانٍ."
        )

    middle: list[Block] = [log]

    # artifacts: two of three, each told by the tool or by the agent
    def migration(by_tool: bool) -> Block:
        def block() -> None:
            b.user("أضف عمود تاريخ التذكير قبل الانتهاء كما اتفقنا أمس.")
            if by_tool:
                b.tool(
                    "أشغّل الترحيل على الإنتاج.",
                    "bash",
                    {"command": "php artisan migrate --force"},
                    "\n   INFO  Running migrations.\n\n  2025_03_14_101500_add_expiry_reminder_"
                    "to_certificates_table ........................ 38.12ms DONE\n",
                )
                b.assistant("تم. العمود expiry_reminder_at موجود الآن في جدول الشهادات.")
            else:
                b.tool(
                    "أتأكد أولًا من حالة قاعدة البيانات.",
                    "bash",
                    {"command": "php artisan db:show --counts | head -6"},
                    "  MySQL 8.0.36 .................................. \n  Database "
                    "........................ halal_prod\n  Tables ................ 41",
                )
                b.assistant(
                    "نفّذت الترحيل add_expiry_reminder_to_certificates_table على الإنتاج "
                    "بنجاح، والعمود expiry_reminder_at صار في جدول الشهادات."
                )

        return block

    def template(by_tool: bool) -> Block:
        def block() -> None:
            b.user("القالب القديم للشهادة ما زال في المستودع؟ لم نعد نستخدمه منذ الشعار الجديد.")
            if by_tool:
                b.tool(
                    "أزيله من المستودع.",
                    "bash",
                    {"command": "git rm resources/views/pdf/certificate_legacy.blade.php"},
                    "rm 'resources/views/pdf/certificate_legacy.blade.php'",
                )
                b.assistant("انتهيت، وسأضمّه في نفس الـ commit مع إصلاح التجديد.")
            else:
                b.tool(
                    "أبحث عن أي استخدام له أولًا.",
                    "bash",
                    {"command": 'grep -rn "pdf.certificate_legacy" app/ routes/ || true'},
                    "",
                )
                b.assistant(
                    "لا يوجد أي استدعاء له، لذلك حذفت certificate_legacy.blade.php من "
                    "resources/views/pdf."
                )

        return block

    def job_file(by_tool: bool) -> Block:
        def block() -> None:
            b.user("اجعل مهمة التجديد لا تعيد توليد PDF عند إعادة المحاولة.")
            if by_tool:
                b.tool(
                    "عدّلت المهمة لتتخطى التوليد إن كان الملف موجودًا. هذه حالة المستودع:",
                    "bash",
                    {"command": "git status"},
                    "On branch fix/renewal-smtp\nChanges not staged for commit:\n"
                    "\tmodified:   app/Jobs/RenewCertificate.php\n\nno changes added to commit",
                )
                b.assistant("التوليد الآن مشروط بعدم وجود الملف في التخزين.")
            else:
                b.tool(
                    "أشغّل الاختبارات بعد التغيير.",
                    "bash",
                    {"command": "php artisan test --filter=Renewal"},
                    "   PASS  Tests\\Feature\\RenewalFlowTest\n  ✓ renews paid certificate\n"
                    "  ✓ skips pdf when present\n\n  Tests:    2 passed (7 assertions)",
                )
                b.assistant(
                    "عدّلت RenewCertificate.php بحيث لا يُعاد توليد الـ PDF إذا كان موجودًا، "
                    "والاختبارات ناجحة."
                )

        return block

    arts = [
        (
            migration,
            _fact(
                "artifact",
                "What happened to the add_expiry_reminder_to_certificates_table migration?",
                "It was run on production and finished successfully (DONE).",
                ("add_expiry_reminder_to_certificates_table",),
                (
                    "done",
                    "migrated",
                    "applied",
                    "executed",
                    "نفذ",
                    "نفّذ",
                    "تنفيذ",
                    "شغل",
                    "شغّل",
                    "طبق",
                    "طبّق",
                    "تطبيق",
                    "ran ",
                    "run on",
                    "succe",
                    "نجاح",
                ),
            ),
        ),
        (
            template,
            _fact(
                "artifact",
                "What happened to the old certificate_legacy.blade.php PDF template?",
                "It was deleted (git rm) from resources/views/pdf.",
                ("certificate_legacy.blade.php",),
                ("rm '", "delet", "remov", "حذف", "أزل", "ازل", "إزالة", "ازالة", "git rm"),
            ),
        ),
        (
            job_file,
            _fact(
                "artifact",
                "What is the state of app/Jobs/RenewCertificate.php?",
                "It was modified (uncommitted) so retries skip regenerating an existing PDF.",
                ("RenewCertificate.php",),
                ("modified", "عدل", "عدّل", "تعديل", "edit", "changed", "updated", "غير", "غيّر"),
            ),
        ),
    ]
    for make, probe in rng.sample(arts, 2):
        middle.append(make(rng.random() < 0.5))
        probes.append(probe)

    decision = rng.randrange(3)
    if decision == 0:
        v = rng.choice((150, 240, 420, 600))

        def decide() -> None:
            b.user("كيف نمنع تكرار الفشل مع خادم البريد؟")
            b.assistant(
                "أقترح في RenewCertificate أن تكون tries = 3 مع backoff قدره 60 ثانية بين "
                "المحاولات."
            )
            b.user(f"لا، 60 قليلة؛ خادمهم يحظرنا عند التكرار. اجعل الـ backoff {v} ثانية.")
            b.assistant(f"حسنًا: backoff = {v} ثانية بدل 60.")

        probes.append(
            _fact(
                "decision",
                "What backoff between retries did the user settle for the renewal job?",
                f"{v} seconds (the agent's 60 seconds was rejected).",
                (str(v),),
                ("backoff", "ثانية", "ثوان", "second", "انتظار", "تأخير", "sec"),
            )
        )
    elif decision == 1:
        n = rng.choice((3, 5, 7))

        def decide() -> None:
            b.user(
                f"وصلني من فريق الاستضافة: supervisor-pdf في config/horizon.php لا يتجاوز "
                f"{n} عمليات (maxProcesses = {n})، وإلا تنفد ذاكرة الخادم."
            )
            b.assistant(f"مفهوم، سأضبط maxProcesses = {n} لـ supervisor-pdf.")

        probes.append(
            _fact(
                "decision",
                "How many processes may Horizon's PDF supervisor run, per the hosting team?",
                f"At most {n} (maxProcesses = {n}).",
                ("maxprocesses", "process", "عملي", "عمليات"),
                (str(n),),
            )
        )
    else:
        d = rng.choice((30, 45, 60, 90))

        def decide() -> None:
            b.user("صفحة التحقق العامة جاهزة تقريبًا.")
            b.tool(
                "أراجع المسار الحالي.",
                "bash",
                {"command": "php artisan route:list --path=verify"},
                "  GET|HEAD  verify/{certificate} .... verify.show › VerifyController@show",
            )
            b.assistant("سؤال: هل تبقى الشهادات المنتهية ظاهرة في صفحة التحقق العامة؟")
            b.user(f"تبقى ظاهرة {d} يومًا بعد انتهائها مع علامة «منتهية»، ثم تُخفى.")
            b.assistant(f"واضح: {d} يومًا بعد الانتهاء ثم إخفاء.")

        probes.append(
            _fact(
                "decision",
                "How long do expired certificates stay visible on the public verify page?",
                f"{d} days after expiry (marked expired), then hidden.",
                (str(d),),
                ("يوم", "day"),
            )
        )
    middle.append(decide)

    step = rng.randrange(3)
    if step == 0:

        def nxt() -> None:
            b.user("هل نعيد تشغيل المهمة الآن؟")
            b.assistant(
                f"ليس قبل أن يؤكد {person} أن SMTP عاد يقبل الاتصالات؛ بعد تأكيده سأعيد تشغيل "
                "المهمة الفاشلة بـ queue:retry."
            )

        probes.append(
            _fact(
                "next_step",
                "What is pending on the failed renewal job, and on what condition?",
                f"The agent will retry it (queue:retry) once {person} confirms SMTP is fixed.",
                ("retry", "إعادة", "أعيد", "rerun", "re-run"),
                ("smtp",),
            )
        )
    elif step == 1:
        day, day_en = rng.choice(_AR_DAYS)

        def nxt() -> None:
            b.user(
                f"مهم: يجب إرسال إشعارات التجديد لكل المصانع التي تنتهي شهاداتها هذا الشهر قبل "
                f"يوم {day}."
            )
            b.assistant(f"مسجّل: إشعارات التجديد قبل {day}.")

        probes.append(
            _fact(
                "next_step",
                "What must be sent out, and by when?",
                f"Renewal notifications to all factories expiring this month, before {day_en}.",
                ("إشعار", "اشعار", "notification", "notice", "تنبيه", "notify"),
                (day, day_en),
            )
        )
    else:

        def nxt() -> None:
            b.user(
                f"ذكّرني لاحقًا أن أطلب من {person} مفتاح API لبوابة SFDA الجديدة، لن نربط "
                "التحقق بها قبل ذلك."
            )
            b.assistant("سأذكّرك بذلك في نهاية الجلسة.")

        probes.append(
            _fact(
                "next_step",
                "What did the user ask to be reminded of?",
                f"To ask {person} for the API key of the new SFDA gateway.",
                ("sfda",),
                ("key", "مفتاح", "api"),
            )
        )
    middle.append(nxt)

    def last() -> None:
        b.user("شكرًا، لننتقل إلى أمور أخرى.")
        b.assistant("تمام.")

    _run(rng, first, middle, last)
    opening = b.take()
    return opening, _fill(rng, b, segments, [_ar_fill_lang, _ar_fill_status, _ar_fill_test]), probes


def _ar_fill_lang(rng: random.Random, b: Builder) -> None:
    key = rng.choice(("inspection_date", "auditor_name", "plant_address", "batch_code"))
    b.user(f"رسالة التحقق للحقل {key} تظهر بالإنجليزية في الواجهة العربية.")
    b.tool(
        "أبحث عن المفتاح في ملفات الترجمة.",
        "bash",
        {"command": f'grep -n "{key}" lang/ar/validation.php lang/en/validation.php'},
        f"lang/en/validation.php:{rng.randint(120, 190)}:        "
        f"'{key}' => '{key.replace('_', ' ')}',",
    )
    b.assistant(f"المفتاح {key} ناقص في lang/ar/validation.php؛ أضفت ترجمته في قسم attributes.")


def _ar_fill_status(rng: random.Random, b: Builder) -> None:
    b.user("كيف حال الطوابير الآن؟")
    waits = {q: rng.randint(0, 40) for q in ("default", "mail", "inspections")}
    b.tool(
        "أتحقق من Horizon.",
        "bash",
        {
            "command": "php artisan horizon:status && "
            "php artisan queue:monitor redis:default,redis:mail"
        },
        "   INFO  Horizon is running.\n\n"
        + "\n".join(f"  [redis] {q} ........ [{w}] OK" for q, w in waits.items()),
    )
    b.assistant("Horizon يعمل والطوابير ضمن الحدود الطبيعية.")


def _ar_fill_test(rng: random.Random, b: Builder) -> None:
    name = rng.choice(("InspectorScheduleTest", "AuditExportTest", "PlantSearchTest"))
    n = rng.randint(4, 12)
    b.user(f"شغّل اختبارات {name} بعد تحديث الحزم.")
    b.tool(
        "أشغّلها.",
        "bash",
        {"command": f"php artisan test --filter={name}"},
        f"   PASS  Tests\\Feature\\{name}\n"
        + noise_lines(
            rng,
            3,
            lambda r: (
                f"  ✓ {r.choice(('lists', 'filters', 'exports'))} "
                f"{r.choice(('by region', 'by date', 'as csv'))} {r.randint(1, 99)}ms"
            ),
        )
        + f"\n\n  Tests:    {n} passed ({n * 3} assertions)",
    )
    b.assistant(f"كل اختبارات {name} ناجحة.")


# --------------------------------------------------------------------------- Hebrew

_HE_DAYS = (
    ("ראשון", "sunday"),
    ("שני", "monday"),
    ("שלישי", "tuesday"),
    ("רביעי", "wednesday"),
    ("חמישי", "thursday"),
)
_HE_PEOPLE = ("דנה", "אורי", "מיכל", "יואב")
_HE_CLINICS = ("סניף חולון", "סניף חיפה", "סניף באר שבע", "סניף רמת גן")


def _he_log(rng: random.Random) -> str:
    return rng.choice(
        (
            f"I/flutter ({rng.randint(4000, 9999)}): [booking] slots fetched in "
            f"{rng.randint(80, 400)}ms",
            f"D/FirebaseAuth({rng.randint(4000, 9999)}): Notifying id token listeners",
            f"W/System  ({rng.randint(4000, 9999)}): Ignoring header X-Firebase-Locale",
            f"I/flutter ({rng.randint(4000, 9999)}): locale=he_IL textDirection=rtl",
        )
    )


def _dental(rng: random.Random, b: Builder, segments: int) -> Parts:
    project = f"shen-clinic-prod-{hexits(rng, 5)}"
    build = f"2.{rng.randint(3, 9)}.{rng.randint(0, 9)}+{rng.randint(300, 899)}"
    issue, decoy_issue = hexits(rng, 32), hexits(rng, 32)
    person = rng.choice(_HE_PEOPLE)
    clinic = rng.choice(_HE_CLINICS)
    probes = [
        _id("What is the Firebase project id of the production app?", project),
        _id("Which app version and build number crashes on the booking screen?", build),
        _id("What is the Crashlytics issue id of the booking crash?", issue),
    ]

    def first() -> None:
        b.user(
            f"היי, מטופלים ב{clinic} מדווחים שהאפליקציה קורסת כשבוחרים תור. זה קורה בגרסה "
            f"{build} שעלתה אתמול לחנות."
        )
        b.tool(
            "בודק ב-Crashlytics מה הכי נפוץ מאז ההעלאה.",
            "bash",
            {"command": f"firebase crashlytics:issues:list --app android --version {build}"},
            f"┌──────────────────────────────────┬────────┬─────────────────────────────┐\n"
            f"│ Issue                            │ Events │ Title                       │\n"
            f"│ {issue} │ {rng.randint(300, 900):>6} │ RangeError: index out of range │\n"
            f"│ {decoy_issue} │ {rng.randint(2, 20):>6} │ PlatformException(net)      │\n"
            f"└──────────────────────────────────┴────────┴─────────────────────────────┘",
        )
        b.assistant(
            f"הקריסה הבולטת היא RangeError (issue {issue}), מאות אירועים. השנייה היא שגיאת "
            "רשת נדירה שלא קשורה."
        )

    def project_block() -> None:
        b.user("תוודא שאתה מחובר לפרויקט הנכון, לא ל-staging.")
        b.tool(
            "בודק את הפרויקט הפעיל.",
            "bash",
            {"command": "firebase use"},
            f"Active Project: prod ({project})",
        )
        b.assistant(f"מחובר ל-prod: {project}.")

    def logs() -> None:
        b.user("אפשר לשחזר את זה אצלך?")
        b.tool(
            "מריץ על האמולטור עם לוגים.",
            "bash",
            {"command": "flutter run -d emulator-5554 --profile 2>&1 | tail -8"},
            noise_lines(rng, 4, _he_log)
            + "\nE/flutter: [ERROR:flutter/runtime/dart_vm_initializer.cc(41)] Unhandled "
            "Exception: RangeError (index): Invalid value: Not in inclusive range 0..5: 6\n"
            "#0  List.[] (dart:core-patch/growable_array.dart)\n"
            "#1  _BookingScreenState._slotFor (package:shen/screens/booking_screen.dart:212)",
        )
        b.assistant("משוחזר: כשיש יותר משש משבצות ביום האינדקס חורג מהמערך. התיקון קטן.")

    middle: list[Block] = [project_block, logs]

    def screen(by_tool: bool) -> Block:
        def block() -> None:
            b.user("תקן את זה בבקשה.")
            if by_tool:
                b.tool(
                    "תיקנתי את חישוב האינדקס. מצב המאגר:",
                    "bash",
                    {"command": "git status"},
                    "On branch hotfix/booking-range\nChanges not staged for commit:\n"
                    "\tmodified:   lib/screens/booking_screen.dart\n",
                )
                b.assistant("השינוי מוכן לבדיקה.")
            else:
                b.tool(
                    "מריץ את בדיקות המסך.",
                    "bash",
                    {"command": "flutter test test/widget/booking_test.dart"},
                    "00:04 +6: All tests passed!",
                )
                b.assistant(
                    "עדכנתי את booking_screen.dart כך שהאינדקס נחסם לפי מספר המשבצות, "
                    "והבדיקות עוברות."
                )

        return block

    def reminder(by_tool: bool) -> Block:
        def block() -> None:
            b.user("תריץ גם את כל הבדיקות לפני שממשיכים.")
            if by_tool:
                b.tool(
                    "מריץ את כל חבילת הבדיקות.",
                    "bash",
                    {"command": "flutter test"},
                    "00:09 +41: test/widget/booking_test.dart: shows six slots\n"
                    "00:11 +41 -1: test/widget/reminder_test.dart: reminder shows Hebrew date [E]\n"
                    "  Expected: 'יום ג׳, 14 במרץ'\n    Actual: 'Tue, 14 Mar'\n"
                    "00:12 +47 -1: Some tests failed.",
                )
                b.assistant("כמעט הכול עובר; נשארה בדיקה אחת אדומה בנושא התאריך העברי.")
            else:
                b.tool(
                    "מריץ את כל חבילת הבדיקות.",
                    "bash",
                    {"command": "flutter test --reporter=silent; echo exit=$?"},
                    "exit=1",
                )
                b.assistant(
                    "הבדיקה reminder_test.dart נכשלת: התזכורת מציגה תאריך באנגלית במקום "
                    "בעברית. זה לא קשור לתיקון הקריסה."
                )

        return block

    def rules(by_tool: bool) -> Block:
        def block() -> None:
            b.user("והחוקים החדשים של Firestore שכתבנו בשבוע שעבר, שמטופל יראה רק את התורים שלו?")
            if by_tool:
                b.tool(
                    "מפרסם רק את החוקים.",
                    "bash",
                    {"command": "firebase deploy --only firestore:rules"},
                    "=== Deploying to 'prod'...\n\ni  deploying firestore\n"
                    "✔  cloud.firestore: rules file firestore.rules compiled successfully\n"
                    "✔  firestore: released rules firestore.rules to cloud.firestore\n\n"
                    "✔  Deploy complete!",
                )
                b.assistant("בוצע.")
            else:
                b.tool(
                    "בודק אותם קודם באמולטור.",
                    "bash",
                    {"command": "firebase emulators:exec --only firestore 'npm test'"},
                    "  patient can read own appointments ✓\n  patient cannot read others ✓\n"
                    "  2 passing (412ms)",
                )
                b.assistant("החוקים עברו באמולטור, ופרסמתי את firestore.rules לפרודקשן.")

        return block

    arts = [
        (
            screen,
            _fact(
                "artifact",
                "What is the state of lib/screens/booking_screen.dart?",
                "Modified (uncommitted) to clamp the slot index; the fix for the crash.",
                ("booking_screen.dart",),
                (
                    "modified",
                    "עדכנ",
                    "שינ",
                    "שונה",
                    "תיקנ",
                    "תוקן",
                    "edit",
                    "updated",
                    "changed",
                    "fixed",
                ),
            ),
        ),
        (
            reminder,
            _fact(
                "artifact",
                "What is the state of test/widget/reminder_test.dart?",
                "It fails: the reminder shows an English date instead of a Hebrew one.",
                ("reminder_test.dart",),
                ("[e]", "fail", "נכשל", "כשל", "red", "אדום"),
            ),
        ),
        (
            rules,
            _fact(
                "artifact",
                "What happened to firestore.rules?",
                "It was deployed (released) to production.",
                ("firestore.rules",),
                ("released", "deploy", "פרס", "הועל", "publish", "העלי"),
            ),
        ),
    ]
    for make, probe in rng.sample(arts, 2):
        middle.append(make(rng.random() < 0.5))
        probes.append(probe)

    decision = rng.randrange(3)
    if decision == 0:
        v = rng.choice((23, 24, 26))

        def decide() -> None:
            b.user("בוא נעדכן גם את גרסת ה-Android המינימלית, הרבה אזהרות ב-build.")
            b.assistant("אני מציע minSdkVersion 21, כדי לא לאבד מכשירים ישנים.")
            b.user(f"לא, 21 ישן מדי, הספרייה של התשלומים לא תומכת. תשים minSdkVersion {v}.")
            b.assistant(f"בסדר, minSdkVersion {v} ב-android/app/build.gradle.")

        probes.append(
            _fact(
                "decision",
                "Which minimum Android SDK version was decided?",
                f"minSdkVersion {v} (the agent's 21 was rejected).",
                ("minsdk", "min sdk", "sdk"),
                (str(v),),
            )
        )
    elif decision == 1:

        def decide() -> None:
            b.user(
                f"{person} דיברה עם היועצת המשפטית של הרשת: תזכורות לתורים שולחים רק ב-SMS, "
                "לא בוואטסאפ. תוריד את האפשרות מההגדרות."
            )
            b.assistant("הבנתי: תזכורות רק ב-SMS, מוריד את וואטסאפ מההגדרות.")

        probes.append(
            _fact(
                "decision",
                "Through which channel may appointment reminders be sent, per the legal advisor?",
                "Only SMS, not WhatsApp.",
                ("sms",),
                ("reminder", "תזכור"),
            )
        )
    else:
        m = rng.choice((20, 25, 40))

        def decide() -> None:
            b.user("צריך גם להוסיף יומן תורים לשיננית.")
            b.assistant("מה אורך משבצת ברירת המחדל לתור שיננית?")
            b.user(f"{m} דקות, ואל תאפשר לקבוע בהפרש קטן מזה.")
            b.assistant(f"משבצת שיננית: {m} דקות.")

        probes.append(
            _fact(
                "decision",
                "What is the default slot length for a hygienist appointment?",
                f"{m} minutes.",
                (str(m),),
                ("דק", "min"),
            )
        )
    middle.append(decide)

    step = rng.randrange(3)
    if step == 0:
        day, day_en = rng.choice(_HE_DAYS)

        def nxt() -> None:
            b.user(f"את הגרסה המתוקנת חייבים להגיש ל-App Store review עד יום {day}.")
            b.assistant(f"רשמתי: הגשה ל-App Store review עד יום {day}.")

        probes.append(
            _fact(
                "next_step",
                "What must be done with the fixed version, and by when?",
                f"Submit it for App Store review by {day_en}.",
                ("app store", "review", "אפ סטור"),
                (day, day_en),
            )
        )
    elif step == 1:
        pct = rng.choice((20, 50, 100))

        def nxt() -> None:
            b.user("מתי מרחיבים את ההפצה ב-Play?")
            b.assistant(
                f"אם Crashlytics לא יראה קריסות חדשות במשך 48 שעות, אעלה את ה-rollout ל-{pct}%."
            )

        probes.append(
            _fact(
                "next_step",
                "What happens to the Play rollout, and on what condition?",
                f"The agent raises it to {pct}% after 48 hours without new crashes.",
                (f"{pct}%", f"{pct} %", f"{pct} אחוז"),
                ("rollout", "הפצה", "48"),
            )
        )
    else:

        def nxt() -> None:
            b.user("והתרגום של טקסט התזכורת?")
            b.assistant("אוסיף את מפתחות התרגום החסרים ל-app_he.arb מחר בבוקר.")

        probes.append(
            _fact(
                "next_step",
                "What did the agent promise to do about the reminder text?",
                "Add the missing translation keys to app_he.arb tomorrow morning.",
                ("app_he.arb",),
                ("add", "אוסיף", "להוסיף", "translation", "תרגום", "key", "מפתח"),
            )
        )
    middle.append(nxt)

    def last() -> None:
        b.user("מעולה, תודה.")
        b.assistant("בשמחה.")

    _run(rng, first, middle, last)
    opening = b.take()
    return opening, _fill(rng, b, segments, [_he_fill_pub, _he_fill_lint, _he_fill_golden]), probes


def _he_fill_pub(rng: random.Random, b: Builder) -> None:
    pkg = rng.choice(("intl", "go_router", "riverpod", "flutter_local_notifications"))
    b.user(f"יש עדכון ל-{pkg}? כדאי לעדכן?")
    b.tool(
        "בודק חבילות מיושנות.",
        "bash",
        {"command": "flutter pub outdated --no-dev-dependencies"},
        "Package Name  Current  Upgradable  Resolvable  Latest\n"
        f"{pkg:<13} {rng.randint(0, 9)}.{rng.randint(0, 19)}.0   *{rng.randint(0, 9)}.1.0"
        f"      *{rng.randint(0, 9)}.2.1      *{rng.randint(10, 20)}.0.0",
    )
    b.assistant(f"יש גרסה חדשה ל-{pkg}, אבל היא שוברת API; נשאיר לספרינט הבא.")


def _he_fill_lint(rng: random.Random, b: Builder) -> None:
    n = rng.randint(2, 9)
    b.user("תריץ ניתוח סטטי.")
    b.tool(
        "מריץ flutter analyze.",
        "bash",
        {"command": "flutter analyze"},
        "Analyzing shen...\n"
        + noise_lines(
            rng,
            n,
            lambda r: (
                f"   info • Prefer const with constant constructors • lib/widgets/"
                f"{r.choice(('clinic_card', 'doctor_tile', 'price_list'))}.dart:"
                f"{r.randint(10, 200)}:"
                f"{r.randint(3, 30)} • prefer_const_constructors"
            ),
        )
        + f"\n\n{n} issues found.",
    )
    b.assistant(f"{n} הערות סגנון בלבד (prefer_const), בלי שגיאות.")


def _he_fill_golden(rng: random.Random, b: Builder) -> None:
    w = rng.choice(("clinic_card", "doctor_tile", "price_list"))
    b.user(f"תעדכן את צילומי ה-golden של {w} אחרי שינוי הצבעים.")
    b.tool(
        "מעדכן goldens.",
        "bash",
        {"command": f"flutter test --update-goldens test/golden/{w}_golden_test.dart"},
        f"00:0{rng.randint(2, 9)} +{rng.randint(2, 6)}: All tests passed!",
    )
    b.assistant(f"צילומי ה-golden של {w} עודכנו.")


# --------------------------------------------------------------------------- Thai

_TH_DAYS = (
    ("จันทร์", "monday"),
    ("อังคาร", "tuesday"),
    ("พุธ", "wednesday"),
    ("พฤหัส", "thursday"),
    ("ศุกร์", "friday"),
)
_TH_PEOPLE = ("คุณนิด", "คุณต้น", "คุณแพร", "คุณบอย")
_TH_ORCHARDS = ("สวนลุงเปี๊ยก จันทบุรี", "สวนป้าสมร ระยอง", "สวนบ้านนา ตราด", "สวนเขาพลอยแหวน")


def _query_id(rng: random.Random) -> str:
    return f"01b{hexits(rng, 5)}-{hexits(rng, 4)}-{hexits(rng, 4)}-0000-{hexits(rng, 12)}"


def _durian(rng: random.Random, b: Builder, segments: int) -> Parts:
    qid, decoy_qid = _query_id(rng), _query_id(rng)
    pc = f"DOA-PC-{rng.randint(100000, 999999)}"
    box = f"{rng.choice(('TGHU', 'SEGU', 'CXRU', 'TRIU'))}{rng.randint(1000000, 9999999)}"
    person = rng.choice(_TH_PEOPLE)
    orchard = rng.choice(_TH_ORCHARDS)
    probes = [
        _id("What is the Snowflake query id of the failed load?", qid),
        _id("What is the phytosanitary certificate number of the held shipment?", pc),
        _id("What is the number of the reefer container that was held?", box),
    ]

    def first() -> None:
        b.user(
            f"สวัสดีครับ ตู้ {box} ที่ส่งไปท่าเรือชิงเต่าโดนกักที่ด่าน ลูกค้าถามว่าผลแล็บของล็อต"
            f"จาก{orchard}อยู่ไหน รายงานบน dashboard ว่างเปล่า ช่วยดูหน่อยครับ"
        )
        b.tool(
            "ดูประวัติ query ที่โหลดผลแล็บช่วงเช้า",
            "bash",
            {
                "command": 'snowsql -c prod -q "select query_id, execution_status, error_message '
                "from table(information_schema.query_history()) where query_text ilike "
                "'%LAB_RESULTS%' order by start_time desc limit 2\""
            },
            "+--------------------------------------+------------------+----------------------"
            "----------------------------+\n| QUERY_ID                             "
            "| EXECUTION_STATUS"
            " | ERROR_MESSAGE                                    |\n|--------------------------"
            f"------------+------------------+--------------------------------------------------|\n"
            f"| {qid} | FAILED_WITH_ERROR | Numeric value 'N.D.' is not recognized |\n"
            f"| {decoy_qid} | SUCCESS          "
            "| NULL                                             |\n"
            "+--------------------------------------+------------------+----------------------"
            "----------------------------+\n2 Row(s) produced. Time Elapsed: 0.412s",
        )
        b.assistant(
            f"เจอแล้วครับ query {qid} ล้มเหลว เพราะแล็บส่งค่า 'N.D.' (ตรวจไม่พบ) มาในคอลัมน์ตัวเลข "
            "ส่วนอีก query ก่อนหน้าผ่านปกติ"
        )

    def cert() -> None:
        b.user("ใบรับรองสุขอนามัยพืชของตู้นี้เลขอะไร ลูกค้าต้องใช้")
        b.tool(
            "ค้นจากตาราง shipment",
            "bash",
            {
                "command": 'snowsql -c prod -o output_format=psql -q "select container_no, '
                f"phyto_cert_no, status from CORE.SHIPMENTS where container_no = '{box}'\""
            },
            f" container_no | phyto_cert_no  | status\n--------------+----------------+--------\n"
            f" {box}  | {pc} | HELD\n(1 row)",
        )
        b.assistant(f"ใบรับรองของตู้ {box} คือ {pc} สถานะตอนนี้ HELD ครับ")

    middle: list[Block] = [cert]

    def dropped(by_tool: bool) -> Block:
        def block() -> None:
            b.user("ตาราง LAB_RESULTS_2023 ยังเก็บไว้ทำไม ข้อมูลย้ายไปตารางใหม่หมดแล้ว")
            if by_tool:
                b.tool(
                    "ลบตามที่ขอครับ",
                    "bash",
                    {"command": 'snowsql -c prod -q "drop table RAW.LAB_RESULTS_2023"'},
                    "+---------------------------------------+\n| status"
                    "                                |\n|---------------------------------------|\n"
                    "| LAB_RESULTS_2023 successfully dropped. |\n"
                    "+---------------------------------------+",
                )
                b.assistant("เรียบร้อยครับ ถ้าต้องการคืนยังใช้ UNDROP ได้ภายในช่วง time travel")
            else:
                b.tool(
                    "เช็กก่อนว่าไม่มี view ไหนอ้างถึง",
                    "bash",
                    {
                        "command": 'snowsql -c prod -q "select count(*) from '
                        "SNOWFLAKE.ACCOUNT_USAGE.OBJECT_DEPENDENCIES where "
                        "referenced_object_name = 'LAB_RESULTS_2023'\""
                    },
                    "+----------+\n| COUNT(*) |\n|----------|\n|        0 |\n+----------+",
                )
                b.assistant("ไม่มีอะไรอ้างถึง ผมลบตาราง LAB_RESULTS_2023 ออกแล้วครับ")

        return block

    def suspended(by_tool: bool) -> Block:
        def block() -> None:
            b.user("task คำนวณมาร์จินรันทุกชั่วโมง กินเครดิตมาก หยุดไว้ก่อนได้ไหม")
            if by_tool:
                b.tool(
                    "suspend แล้วดูสถานะ",
                    "bash",
                    {
                        "command": 'snowsql -c prod -q "alter task MART.REFRESH_EXPORT_MARGIN '
                        "suspend; show tasks like 'REFRESH_%' in schema MART\""
                    },
                    "| name                  | schedule             | state     |\n"
                    "| REFRESH_EXPORT_MARGIN | USING CRON 0 * * * * | suspended |\n"
                    "| REFRESH_GRADE_PRICES  | USING CRON 0 6 * * * | started   |",
                )
                b.assistant("หยุดแล้วครับ ส่วน task ราคาเกรดยังรันวันละครั้งตามเดิม")
            else:
                b.tool(
                    "ดูเครดิตที่ใช้ไปของ warehouse",
                    "bash",
                    {
                        "command": 'snowsql -c prod -q "select warehouse_name, sum(credits_used) '
                        "from snowflake.account_usage.warehouse_metering_history where "
                        'start_time > dateadd(day,-7,current_timestamp) group by 1"'
                    },
                    f"| TRANSFORM_WH   | {rng.randint(40, 90)}.{rng.randint(10, 99)} |\n"
                    f"| BI_WH          | {rng.randint(5, 20)}.{rng.randint(10, 99)} |",
                )
                b.assistant(
                    "เครดิตส่วนใหญ่มาจาก TRANSFORM_WH ผมสั่งพัก (suspend) task "
                    "REFRESH_EXPORT_MARGIN ไว้แล้วครับ"
                )

        return block

    def view(by_tool: bool) -> Block:
        def block() -> None:
            b.user("ฝ่ายขายอยากเห็นสัดส่วนเกรด A/B ต่อสวน ทำ view ให้หน่อย")
            if by_tool:
                b.tool(
                    "สร้าง view ใน MART",
                    "bash",
                    {"command": "snowsql -c prod -f sql/mart/v_grade_ab_yield.sql"},
                    "+-----------------------------------------+\n| status"
                    "                                  |\n"
                    "|-----------------------------------------|\n"
                    "| View V_GRADE_AB_YIELD successfully created. |\n"
                    "+-----------------------------------------+",
                )
                b.assistant("พร้อมใช้ครับ ให้สิทธิ์ BI_ROLE อ่านแล้ว")
            else:
                b.tool(
                    "ลองดูตัวอย่างผล",
                    "bash",
                    {"command": 'snowsql -c prod -q "select * from MART.V_GRADE_AB_YIELD limit 2"'},
                    f"| ORCHARD_ID | GRADE_A_PCT | GRADE_B_PCT |\n| O-{rng.randint(100, 999)} "
                    f"| {rng.randint(40, 70)}.2 | {rng.randint(20, 40)}.8 |",
                )
                b.assistant("ผมสร้าง view V_GRADE_AB_YIELD ไว้ใน MART แล้ว ตัวเลขดูสมเหตุสมผลครับ")

        return block

    arts = [
        (
            dropped,
            _fact(
                "artifact",
                "What happened to the table RAW.LAB_RESULTS_2023?",
                "It was dropped (deleted); UNDROP is possible within time travel.",
                ("LAB_RESULTS_2023",),
                ("dropped", "drop", "ลบ", "delet", "remov"),
            ),
        ),
        (
            suspended,
            _fact(
                "artifact",
                "What is the state of the task MART.REFRESH_EXPORT_MARGIN?",
                "Suspended (it ran hourly and used many credits).",
                ("REFRESH_EXPORT_MARGIN",),
                ("suspend", "หยุด", "พัก", "ระงับ", "paused"),
            ),
        ),
        (
            view,
            _fact(
                "artifact",
                "What happened to MART.V_GRADE_AB_YIELD?",
                "The view was created (grade A/B share per orchard).",
                ("V_GRADE_AB_YIELD",),
                ("created", "สร้าง", "create", "new view", "added"),
            ),
        ),
    ]
    for make, probe in rng.sample(arts, 2):
        middle.append(make(rng.random() < 0.5))
        probes.append(probe)

    decision = rng.randrange(3)
    if decision == 0:
        sec = rng.choice((60, 120, 300))

        def decide() -> None:
            b.user("query ช้ามาก ทำยังไงดี")
            b.assistant("เสนอให้ขยาย TRANSFORM_WH จาก XSMALL เป็น MEDIUM ครับ")
            b.user(f"ไม่เอา แพงเกิน ให้คง XSMALL ไว้ แต่ตั้ง AUTO_SUSPEND = {sec} วินาที แล้วแก้ query แทน")
            b.assistant(f"รับทราบ คง XSMALL และตั้ง AUTO_SUSPEND = {sec}")

        probes.append(
            _fact(
                "decision",
                "What was decided for the TRANSFORM_WH warehouse?",
                f"Keep it XSMALL (MEDIUM rejected) with AUTO_SUSPEND = {sec} seconds.",
                (str(sec),),
                ("auto_suspend", "auto-suspend", "autosuspend", "auto suspend", "suspend"),
            )
        )
    elif decision == 1:

        def decide() -> None:
            b.user(
                f"{person}ฝ่ายบัญชีฝากมาบอกว่า ให้คำนวณราคาเป็นบาทด้วยอัตราแลกเปลี่ยนของ "
                "ธนาคารแห่งประเทศไทย (BOT) ไม่ใช่ของ XE เพราะผู้สอบบัญชีใช้ตัวนั้น"
            )
            b.assistant("เข้าใจครับ จะเปลี่ยนแหล่งอัตราแลกเปลี่ยนเป็น BOT")

        probes.append(
            _fact(
                "decision",
                "Which exchange rate source must be used for baht prices, per accounting?",
                "The Bank of Thailand (BOT) rate, not XE.",
                ("bot", "ธนาคารแห่งประเทศไทย", "bank of thailand", "ธปท"),
                ("อัตรา", "rate", "exchange", "fx", "แลกเปลี่ยน"),
            )
        )
    else:
        lim = rng.choice(("0.01", "0.02", "0.05"))

        def decide() -> None:
            b.user("แก้ให้ 'N.D.' เป็น NULL แล้ว flag ล็อตที่สารตกค้างเกินด้วย")
            b.assistant("ค่าคลอร์ไพริฟอสเกินเท่าไรถึงจะ flag ล็อตครับ")
            b.user(f"เกิน {lim} mg/kg ตามเกณฑ์ที่จีนใช้")
            b.assistant(f"ตกลงครับ flag เมื่อคลอร์ไพริฟอสเกิน {lim} mg/kg")

        probes.append(
            _fact(
                "decision",
                "Above what chlorpyrifos residue is a lot flagged?",
                f"Above {lim} mg/kg.",
                (lim,),
                ("mg/kg", "มก./กก.", "มก/กก", "mg per kg", "mg kg"),
            )
        )
    middle.append(decide)

    step = rng.randrange(3)
    if step == 0:
        day, day_en = rng.choice(_TH_DAYS)

        def nxt() -> None:
            b.user(f"รายงานผลตรวจสำหรับ GACC ต้องส่งให้ลูกค้าภายในวัน{day}นี้นะ")
            b.assistant(f"รับทราบครับ รายงาน GACC ส่งภายในวัน{day}")

        probes.append(
            _fact(
                "next_step",
                "What is due to the customer, and when?",
                f"The GACC lab report, by {day_en}.",
                ("gacc",),
                (day, day_en),
            )
        )
    elif step == 1:

        def nxt() -> None:
            b.user("แล้วข้อมูลที่หายไปล่ะ")
            b.assistant(
                "พอ Snowpipe โหลดไฟล์แล็บรอบบ่ายเสร็จ ผมจะรัน backfill ของ FACT_LOTS ย้อนหลังให้ครับ"
            )

        probes.append(
            _fact(
                "next_step",
                "What will the agent do once the afternoon lab files are loaded?",
                "Run the backfill of FACT_LOTS.",
                ("FACT_LOTS",),
                ("backfill", "แบ็กฟิลล์", "เติมข้อมูล", "back-fill"),
            )
        )
    else:

        def nxt() -> None:
            b.user(f"อย่าลืมให้สิทธิ์ role ANALYST_RO กับทีมของ{person} ก่อนประชุมพรุ่งนี้นะ")
            b.assistant("จดไว้แล้วครับ จะ grant ANALYST_RO ก่อนประชุม")

        probes.append(
            _fact(
                "next_step",
                "What must be done before tomorrow's meeting?",
                f"Grant the role ANALYST_RO to {person}'s team.",
                ("ANALYST_RO",),
                ("grant", "สิทธิ์", "สิทธิ", "access"),
            )
        )
    middle.append(nxt)

    def last() -> None:
        b.user("โอเค ขอบคุณครับ")
        b.assistant("ยินดีครับ")

    _run(rng, first, middle, last)
    opening = b.take()
    return opening, _fill(rng, b, segments, [_th_fill_stage, _th_fill_count, _th_fill_pipe]), probes


def _th_fill_stage(rng: random.Random, b: Builder) -> None:
    b.user("ไฟล์ราคาตลาดจากตลาดไทวันนี้เข้ามาหรือยัง")
    b.tool(
        "ดูไฟล์ใน stage",
        "bash",
        {"command": "snowsql -c prod -q \"list @RAW.MARKET_STAGE pattern='.*talaadthai.*'\""},
        noise_lines(
            rng,
            3,
            lambda r: (
                f"| market_stage/talaadthai_{r.randint(1, 28):02d}03.csv.gz | "
                f"{r.randint(2000, 9000)} | {hexits(r, 8)} |"
            ),
        ),
    )
    b.assistant("ไฟล์เข้ามาครบแล้วครับ")


def _th_fill_count(rng: random.Random, b: Builder) -> None:
    grade = rng.choice(("หมอนทอง", "ก้านยาว", "ชะนี", "พวงมณี"))
    n = rng.randint(30, 400)
    b.user(f"สัปดาห์นี้มีล็อตพันธุ์{grade}กี่ล็อต")
    b.tool(
        "นับจาก CORE.LOTS",
        "bash",
        {
            "command": 'snowsql -c prod -q "select count(*) from CORE.LOTS where variety = '
            f"'{grade}' and harvest_date >= date_trunc(week, current_date)\""
        },
        f"+----------+\n| COUNT(*) |\n|----------|\n| {n:>8} |\n+----------+",
    )
    b.assistant(f"{n} ล็อตครับ")


def _th_fill_pipe(rng: random.Random, b: Builder) -> None:
    b.user("Snowpipe ของราคาตลาดยังทำงานปกติไหม")
    b.tool(
        "ดูสถานะ pipe",
        "bash",
        {"command": "snowsql -c prod -q \"select system$pipe_status('RAW.MARKET_PIPE')\""},
        f'{{"executionState":"RUNNING","pendingFileCount":{rng.randint(0, 3)},'
        f'"lastIngestedTimestamp":"2025-03-14T{_clock(rng)}.000Z"}}',
    )
    b.assistant("ปกติดีครับ")


# --------------------------------------------------------------------------- Danish

_DA_DAYS = (
    ("mandag", "monday"),
    ("tirsdag", "tuesday"),
    ("onsdag", "wednesday"),
    ("torsdag", "thursday"),
    ("fredag", "friday"),
)
_DA_PEOPLE = ("Mette", "Jonas", "Freja", "Anders")
_DA_SHOPS = ("Nørrebro", "Aarhus C", "Vesterbro", "Odense Banegård")


def _ean(rng: random.Random) -> str:
    digits = "57" + "".join(str(rng.randrange(10)) for _ in range(10))
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(digits))
    return digits + str((10 - total % 10) % 10)


def _bakery(rng: random.Random, b: Builder, segments: int) -> Parts:
    run_id = str(rng.randint(10**10, 10**11 - 1))
    decoy_run = str(rng.randint(10**10, 10**11 - 1))
    mlflow = hexits(rng, 32)
    ean = _ean(rng)
    person = rng.choice(_DA_PEOPLE)
    shop = rng.choice(_DA_SHOPS)
    probes = [
        _id("What is the run id of the failed Databricks forecast job?", run_id),
        _id("What is the MLflow run id of the model trained tonight?", mlflow),
        _id("What is the EAN of the product whose forecast went wrong?", ean),
    ]

    def first() -> None:
        b.user(
            f"Hej. Butikken på {shop} fik kun halvdelen af de rugbrød, de skulle have i morges. "
            "Natjobbet med prognosen ser ud til at være fejlet. Kan du kigge?"
        )
        b.tool(
            "Jeg ser på de seneste kørsler af jobbet.",
            "bash",
            {
                "command": "databricks jobs list-runs --job-id 918273 --limit 2 -o json "
                "| jq -c '.[]'"
            },
            f'{{"run_id":{decoy_run},"state":{{"life_cycle_state":"TERMINATED",'
            f'"result_state":"SUCCESS"}},"start_time":"2025-03-13T02:00:04Z"}}\n'
            f'{{"run_id":{run_id},"state":{{"life_cycle_state":"TERMINATED",'
            f'"result_state":"FAILED","state_message":"Task forecast failed"}},'
            f'"start_time":"2025-03-14T02:00:03Z"}}',
        )
        b.assistant(
            f"Nattens kørsel {run_id} fejlede; kørslen dagen før gik fint. Jeg kigger på "
            "driver-loggen."
        )

    def driver() -> None:
        b.user("Hvad står der i loggen?")
        b.tool(
            "Henter output fra kørslen.",
            "bash",
            {"command": f"databricks runs get-output --run-id {run_id} | jq -r .error"},
            noise_lines(
                rng,
                3,
                lambda r: (
                    f"25/03/14 02:{r.randint(10, 40)}:{r.randint(10, 59)} INFO "
                    f"DAGScheduler: Job {r.randint(10, 90)} finished: count at "
                    f"features.py:{r.randint(20, 140)}"
                ),
            )
            + f"\nValueError: NaN in target for ean={ean} store=0{rng.randint(10, 99)}: "
            "missing sales rows since 2025-03-10",
        )
        b.assistant(
            f"Varen med EAN {ean} mangler salgsdata siden 10. marts, og modellen giver op. Det "
            "forklarer rugbrødene."
        )

    def model() -> None:
        b.user("Blev der trænet en ny model i nat alligevel?")
        b.tool(
            "Jeg søger i MLflow.",
            "bash",
            {"command": "mlflow runs list --experiment-id 4411 | head -4"},
            "Date                 Name              ID\n"
            f"2025-03-14 01:41:07  brod-nightly      {mlflow}\n"
            f"2025-03-13 01:39:52  brod-nightly      {hexits(rng, 32)}",
        )
        b.assistant(
            f"Ja, træningen lykkedes (MLflow run {mlflow}); det var kun prognosetrinnet, "
            "der fejlede."
        )

    middle: list[Block] = [driver, model]

    def job(by_tool: bool) -> Block:
        def block() -> None:
            b.user("Få prognosen til at fortsætte med de andre varer, når én vare mangler data.")
            if by_tool:
                b.tool(
                    "Rettet, så varer uden data springes over og logges. Status:",
                    "bash",
                    {"command": "git status"},
                    "On branch fix/skip-missing-ean\nChanges not staged for commit:\n"
                    "\tmodified:   jobs/forecast_daily.py\n",
                )
                b.assistant("Ændringen er klar til review.")
            else:
                b.tool(
                    "Kører de hurtige tests.",
                    "bash",
                    {"command": "pytest -q tests/test_features.py"},
                    f"{'.' * rng.randint(8, 14)}  [100%]\n{rng.randint(8, 14)} passed in 3.21s",
                )
                b.assistant(
                    "Jeg har ændret forecast_daily.py, så varer uden salgsdata springes over og "
                    "logges i stedet for at vælte hele jobbet."
                )

        return block

    def stage(by_tool: bool) -> Block:
        def block() -> None:
            b.user("Modellen fra i nat er bedre end den gamle. Sæt den i produktion.")
            if by_tool:
                b.tool(
                    "Flytter versionen til Production.",
                    "bash",
                    {"command": "python scripts/promote.py --model brod_prognose --version latest"},
                    f"Model 'brod_prognose' version {rng.randint(8, 30)} transitioned to stage "
                    "'Production'; previous version archived.",
                )
                b.assistant("Gjort.")
            else:
                b.tool(
                    "Sammenligner MAPE først.",
                    "bash",
                    {"command": "python scripts/compare_models.py --last 2"},
                    f"new  MAPE={rng.randint(9, 12)}.{rng.randint(0, 9)}%\nold  "
                    f"MAPE={rng.randint(13, 16)}.{rng.randint(0, 9)}%",
                )
                b.assistant(
                    "Den nye er bedst, så jeg har sat brod_prognose i produktion og arkiveret den "
                    "gamle version."
                )

        return block

    def holiday(by_tool: bool) -> Block:
        def block() -> None:
            b.user("Kør hele testsuiten, før vi merger.")
            if by_tool:
                b.tool(
                    "Kører alt.",
                    "bash",
                    {"command": "pytest -q"},
                    "........F.....\n"
                    "FAILED tests/test_helligdage.py::test_store_bededag - AssertionError: "
                    "expected closed\n1 failed, 13 passed in 11.87s",
                )
                b.assistant("Én test er rød; den handler om helligdagskalenderen.")
            else:
                b.tool(
                    "Kører alt.",
                    "bash",
                    {"command": "pytest -q -p no:terminal; echo rc=$?"},
                    "rc=1",
                )
                b.assistant(
                    "test_helligdage.py fejler: den forventer lukket på store bededag, som ikke "
                    "længere er helligdag. Det er testen, ikke koden."
                )

        return block

    arts = [
        (
            job,
            _fact(
                "artifact",
                "What is the state of jobs/forecast_daily.py?",
                "Modified (uncommitted) to skip and log products without sales data.",
                ("forecast_daily.py",),
                ("modified", "ændr", "rettet", "opdater", "edit", "updated", "changed"),
            ),
        ),
        (
            stage,
            _fact(
                "artifact",
                "What happened to the brod_prognose model?",
                "The new version was moved to Production; the old one archived.",
                ("brod_prognose",),
                ("production", "produktion", "promoted", "transitioned", "prod"),
            ),
        ),
        (
            holiday,
            _fact(
                "artifact",
                "What is the state of tests/test_helligdage.py?",
                "It fails (expects shops closed on store bededag, no longer a holiday).",
                ("test_helligdage.py",),
                ("fail", "fejl", "rød"),
            ),
        ),
    ]
    for make, probe in rng.sample(arts, 2):
        middle.append(make(rng.random() < 0.5))
        probes.append(probe)

    decision = rng.randrange(3)
    if decision == 0:
        d = rng.choice((10, 14, 21))

        def decide() -> None:
            b.user("Hvor langt frem skal prognosen gå?")
            b.assistant("Jeg foreslår en horisont på 7 dage, som nu.")
            b.user(f"Nej, indkøb skal bestille mel længere ud. Gør den {d} dage.")
            b.assistant(f"OK, horisonten bliver {d} dage.")

        probes.append(
            _fact(
                "decision",
                "What forecast horizon did the user decide?",
                f"{d} days (the agent's 7 days was rejected).",
                (str(d),),
                ("dag", "day"),
            )
        )
    elif decision == 1:

        def decide() -> None:
            b.user(
                f"Indkøbschefen har sagt til {person}: rundstykker skal prognosticeres per time, "
                "ikke per dag, fordi de bages i flere hold."
            )
            b.assistant("Forstået: rundstykker får en timeprognose.")

        probes.append(
            _fact(
                "decision",
                "At what granularity must bread rolls be forecast, per the purchasing manager?",
                "Per hour, not per day.",
                ("rundstykker", "rolls"),
                ("time", "hour", "timeprognose"),
            )
        )
    else:

        def decide() -> None:
            b.user("Jobbet er for langsomt.")
            b.assistant("Skal jeg give klyngen 8 workers i stedet for 4?")
            b.user("OK, 8 workers, men kun spot-instanser.")
            b.assistant("Sat op: 8 workers på spot.")

        probes.append(
            _fact(
                "decision",
                "What cluster change was approved, with what condition?",
                "8 workers instead of 4, but spot instances only.",
                ("spot",),
                ("8",),
            )
        )
    middle.append(decide)

    step = rng.randrange(3)
    if step == 0:
        day, day_en = rng.choice(_DA_DAYS)
        at = rng.choice(("03:30", "04:15", "04:45"))

        def nxt() -> None:
            b.user(f"Husk: fra {day} skal prognosen ligge klar til bagerierne senest kl. {at}.")
            b.assistant(f"Noteret: prognosen klar senest kl. {at} fra {day}.")

        probes.append(
            _fact(
                "next_step",
                "What deadline must the forecast meet, and from when?",
                f"Ready for the bakeries by {at}, from {day_en}.",
                (at,),
                ("prognose", "forecast", "klar", "ready"),
            )
        )
    elif step == 1:

        def nxt() -> None:
            b.user("Og backtesten?")
            b.assistant(
                f"Når {person} har sendt helligdagskalenderen for 2026, kører jeg backtesten igen."
            )

        probes.append(
            _fact(
                "next_step",
                "What will the agent do, once what arrives?",
                f"Rerun the backtest once {person} sends the 2026 holiday calendar.",
                ("backtest", "back-test"),
                ("helligdag", "holiday", "kalender", "calendar"),
            )
        )
    else:
        x = rng.choice((15, 18, 20))

        def nxt() -> None:
            b.user("Jeg vil gerne vide det, hvis prognosen bliver dårlig igen.")
            b.assistant(f"Jeg sætter en alert op i Databricks SQL, der fyrer når MAPE > {x}%.")

        probes.append(
            _fact(
                "next_step",
                "What alert did the agent promise to set up?",
                f"A Databricks SQL alert when MAPE exceeds {x}%.",
                ("mape",),
                (str(x),),
            )
        )
    middle.append(nxt)

    def last() -> None:
        b.user("Super, tak.")
        b.assistant("Selv tak.")

    _run(rng, first, middle, last)
    opening = b.take()
    return opening, _fill(rng, b, segments, [_da_fill_sql, _da_fill_cluster, _da_fill_lint]), probes


def _da_fill_sql(rng: random.Random, b: Builder) -> None:
    item = rng.choice(("kanelsnegl", "tebirkes", "spandauer", "franskbrød"))
    b.user(f"Hvor mange {item} solgte vi i sidste uge?")
    b.tool(
        "Spørger Delta-tabellen.",
        "bash",
        {
            "command": 'databricks sql query --warehouse bi -e "select sum(qty) from '
            f"gold.sales_weekly where item = '{item}' and week = 10\""
        },
        f"sum(qty)\n{rng.randint(900, 9000)}",
    )
    b.assistant(f"Det blev til den sum {item} for uge 10.")


def _da_fill_cluster(rng: random.Random, b: Builder) -> None:
    b.user("Kører dev-klyngen stadig?")
    b.tool(
        "Tjekker klyngerne.",
        "bash",
        {"command": "databricks clusters list"},
        f"0314-{rng.randint(100000, 999999)}-dev{rng.randint(10, 99)}  dev-shared   "
        f"{rng.choice(('RUNNING', 'TERMINATED'))}\n"
        f"0301-{rng.randint(100000, 999999)}-job{rng.randint(10, 99)}  job-pool     TERMINATED",
    )
    b.assistant("Dev-klyngen har automatisk stop efter 30 minutter, så den koster ikke meget.")


def _da_fill_lint(rng: random.Random, b: Builder) -> None:
    f = rng.choice(("features.py", "calendar_util.py", "io_delta.py"))
    b.user(f"Ryd op i imports i {f}.")
    b.tool(
        "Kører ruff.",
        "bash",
        {"command": f"ruff check --fix jobs/{f}"},
        f"Found {rng.randint(1, 6)} errors ({rng.randint(1, 6)} fixed, 0 remaining).",
    )
    b.assistant(f"{f} er ryddet op.")


# --------------------------------------------------------------------------- Romanian

_RO_DAYS = (
    ("luni", "monday"),
    ("marți", "tuesday"),
    ("miercuri", "wednesday"),
    ("joi", "thursday"),
    ("vineri", "friday"),
)
_RO_PEOPLE = ("Ioana", "Radu", "Andreea", "Mihai")


def _ro_log(rng: random.Random) -> str:
    return rng.choice(
        (
            f"[{_clock(rng)},{rng.randint(100, 999)}] INFO [lis-pg-source|task-0] "
            f"Committing offsets for {rng.randint(10, 900)} acknowledged messages",
            f"[{_clock(rng)},{rng.randint(100, 999)}] INFO WorkerSourceTask{{id=lis-pg-source-0}} "
            "flushing 0 outstanding messages",
            f"[{_clock(rng)},{rng.randint(100, 999)}] WARN [Producer clientId=connector-producer]"
            " Got error produce response, retrying",
        )
    )


def _lab(rng: random.Random, b: Builder, segments: int) -> Parts:
    lsn = f"{rng.randint(1, 9)}/{hexits(rng, 8).upper()}"
    barcode = f"CBR{rng.randint(10**7, 10**8 - 1)}"
    decoy_barcode = f"CBR{rng.randint(10**7, 10**8 - 1)}"
    offset = str(rng.randint(10**7, 10**8 - 1))
    person = rng.choice(_RO_PEOPLE)
    probes = [
        _id("At which Postgres LSN did the Debezium source stop?", lsn),
        _id("What is the barcode of the sample whose result never reached the portal?", barcode),
        _id("At which offset of partition 3 is the portal consumer group stuck?", offset),
    ]

    def first() -> None:
        b.user(
            f"Salut. O pacientă sună că rezultatul pentru proba {barcode} nu apare în portal, "
            "deși în LIS e validat de ieri. Te uiți pe Kafka Connect?"
        )
        b.tool(
            "Mă uit la starea conectorilor.",
            "bash",
            {"command": "curl -s localhost:8083/connectors?expand=status | jq -c '.[].status'"},
            '{"name":"lis-pg-source","connector":{"state":"RUNNING"},"tasks":[{"id":0,'
            '"state":"FAILED","trace":"org.apache.kafka.connect.errors.ConnectException: '
            f'replication slot lost at LSN {lsn}"}}]}}\n'
            '{"name":"portal-notif-sink","connector":{"state":"RUNNING"},"tasks":[{"id":0,'
            '"state":"RUNNING"}]}',
        )
        b.assistant(
            f"Task-ul sursei Debezium a picat: slotul de replicare s-a pierdut la LSN {lsn}. De "
            "atunci nu mai intră rezultate noi."
        )

    def lag() -> None:
        b.user("Și consumatorul portalului?")
        b.tool(
            "Verific lag-ul grupului.",
            "bash",
            {
                "command": "kafka-consumer-groups --bootstrap-server kafka:9092 --describe "
                "--group portal-pacienti"
            },
            "GROUP            TOPIC                     PARTITION  CURRENT-OFFSET  "
            "LOG-END-OFFSET  LAG\n"
            f"portal-pacienti  lis.public.rezultate      3          {offset}        "
            f"{int(offset) + rng.randint(2000, 9000)}        {rng.randint(2000, 9000)}\n"
            "portal-pacienti  lis.public.rezultate      1          -               "
            "-               0",
        )
        b.assistant(
            f"Grupul portal-pacienti stă pe partiția 3 la offsetul {offset}; mesajul de acolo "
            "pare otrăvit (poison pill)."
        )

    def logs() -> None:
        b.user("Ce zic logurile worker-ului?")
        b.tool(
            "Citesc logul Connect.",
            "bash",
            {"command": "docker logs connect-1 --since 2h 2>&1 | tail -6"},
            noise_lines(rng, 4, _ro_log)
            + f"\nERROR Sample {decoy_barcode} published OK; sample {barcode} skipped: "
            "result_value is not a valid decimal",
        )
        b.assistant(
            f"Proba {barcode} a fost sărită din cauza valorii nezecimale; {decoy_barcode} a trecut "
            "normal."
        )

    middle: list[Block] = [lag, logs]

    def paused(by_tool: bool) -> Block:
        def block() -> None:
            b.user("Oprește sink-ul vechi de rezultate până reparăm, să nu trimită dubluri.")
            if by_tool:
                b.tool(
                    "Îl pun pe pauză.",
                    "bash",
                    {
                        "command": "curl -s -X PUT localhost:8083/connectors/lis-rezultate-sink/"
                        "pause && curl -s localhost:8083/connectors/lis-rezultate-sink/status"
                    },
                    '{"name":"lis-rezultate-sink","connector":{"state":"PAUSED",'
                    '"worker_id":"connect-1:8083"},"tasks":[{"id":0,"state":"PAUSED"}]}',
                )
                b.assistant("Gata.")
            else:
                b.tool(
                    "Verific întâi ce consumă.",
                    "bash",
                    {"command": "curl -s localhost:8083/connectors/lis-rezultate-sink/topics"},
                    '{"lis-rezultate-sink":{"topics":["lis.public.rezultate"]}}',
                )
                b.assistant("Am pus pe pauză conectorul lis-rezultate-sink; nu mai trimite nimic.")

        return block

    def topic(by_tool: bool) -> Block:
        def block() -> None:
            b.user("Pentru buletinele PDF facem un topic separat, cum am zis.")
            if by_tool:
                b.tool(
                    "Îl creez.",
                    "bash",
                    {
                        "command": "kafka-topics --bootstrap-server kafka:9092 --create --topic "
                        "lis.public.buletine_v1 --partitions 6 --replication-factor 3"
                    },
                    "Created topic lis.public.buletine_v1.",
                )
                b.assistant("E gata, 6 partiții, factor de replicare 3.")
            else:
                b.tool(
                    "Verific întâi brokerii.",
                    "bash",
                    {
                        "command": "kafka-broker-api-versions --bootstrap-server "
                        "kafka:9092 | grep -c id"
                    },
                    "3",
                )
                b.assistant(
                    "Toți cei 3 brokeri răspund; am creat topicul lis.public.buletine_v1 cu 6 "
                    "partiții."
                )

        return block

    def smt(by_tool: bool) -> Block:
        def block() -> None:
            b.user("Numele medicului trimițător nu trebuie să ajungă în portal. Maschează-l.")
            if by_tool:
                b.tool(
                    "Am adăugat MaskField pe medic_trimitator. Starea repo-ului:",
                    "bash",
                    {"command": "git status"},
                    "On branch mascare-medic\nChanges not staged for commit:\n"
                    "\tmodified:   connect/transforms-mascare.json\n",
                )
                b.assistant("Aplic configul după review.")
            else:
                b.tool(
                    "Validez configul.",
                    "bash",
                    {
                        "command": "curl -s -X PUT localhost:8083/connector-plugins/"
                        "JdbcSinkConnector/config/validate -d @connect/sink.json | jq .error_count"
                    },
                    "0",
                )
                b.assistant(
                    "Am modificat transforms-mascare.json: câmpul medic_trimitator e mascat, "
                    "validarea trece."
                )

        return block

    arts = [
        (
            paused,
            _fact(
                "artifact",
                "What is the state of the lis-rezultate-sink connector?",
                "Paused, so it sends no duplicates until the fix.",
                ("lis-rezultate-sink",),
                ("paused", "pauz", "oprit", "suspend", "stopped"),
            ),
        ),
        (
            topic,
            _fact(
                "artifact",
                "What happened to the topic lis.public.buletine_v1?",
                "It was created (6 partitions, replication factor 3).",
                ("lis.public.buletine_v1",),
                ("creat", "new topic", "added"),
            ),
        ),
        (
            smt,
            _fact(
                "artifact",
                "What is the state of connect/transforms-mascare.json?",
                "Modified (uncommitted) to mask medic_trimitator.",
                ("transforms-mascare.json",),
                ("modified", "modific", "edit", "updated", "actualiz", "schimbat", "changed"),
            ),
        ),
    ]
    for make, probe in rng.sample(arts, 2):
        middle.append(make(rng.random() < 0.5))
        probes.append(probe)

    decision = rng.randrange(3)
    if decision == 0:

        def decide() -> None:
            b.user("Ce facem cu CNP-ul din mesajele de rezultate?")
            b.assistant("Propun să-l hash-uim cu SHA-256 în SMT, ca să putem face join.")
            b.user("Nu, nici hash. CNP-ul se elimină complet din mesaj, portalul nu are nevoie.")
            b.assistant("Bine: CNP-ul se elimină complet, fără hash.")

        probes.append(
            _fact(
                "decision",
                "What happens to the CNP (personal numeric code) in result messages?",
                "It is removed entirely (the agent's SHA-256 hashing was rejected).",
                ("cnp",),
                ("elimin", "drop", "remov", "exclu", "șter", "scos", "strip"),
            )
        )
    elif decision == 1:
        n = rng.choice((7, 14, 30))

        def decide() -> None:
            b.user(
                f"{person} a primit răspuns de la DPO: retenția pe topicurile cu rezultate e de "
                f"maximum {n} zile."
            )
            b.assistant(f"Setez retention.ms pentru {n} zile pe topicurile de rezultate.")

        probes.append(
            _fact(
                "decision",
                "What retention did the DPO set for result topics?",
                f"At most {n} days.",
                (str(n),),
                ("zile", "day", "retenți", "retention"),
            )
        )
    else:
        at = rng.choice(("01:30", "02:30", "03:15"))

        def decide() -> None:
            b.user("Trebuie refăcut snapshot-ul inițial după ce recreăm slotul.")
            b.assistant("La ce oră îl pornesc, ca să nu încarce LIS-ul în timpul lucrului?")
            b.user(f"La {at} noaptea, atunci nu lucrează nimeni în laborator.")
            b.assistant(f"Snapshot programat la {at}.")

        probes.append(
            _fact(
                "decision",
                "At what time will the initial snapshot be redone?",
                f"At {at} at night, when the laboratory is idle.",
                (at,),
                ("snapshot",),
            )
        )
    middle.append(decide)

    step = rng.randrange(3)
    if step == 0:
        day, day_en = rng.choice(_RO_DAYS)

        def nxt() -> None:
            b.user(f"Până {day} trebuie să confirmăm cu spitalul formatul HL7 pentru buletine.")
            b.assistant(f"Notat: confirmarea formatului HL7 până {day}.")

        probes.append(
            _fact(
                "next_step",
                "What must be confirmed with the hospital, and by when?",
                f"The HL7 format for the reports, by {day_en}.",
                ("hl7",),
                (day, day_en, day.replace("ț", "t")),
            )
        )
    elif step == 1:

        def nxt() -> None:
            b.user("Când pornim iar sink-ul?")
            b.assistant(
                "Când lag-ul grupului portal-pacienti scade sub 1000 de mesaje, îl repornesc."
            )

        probes.append(
            _fact(
                "next_step",
                "When will the agent restart the sink?",
                "Once the portal-pacienti group's lag drops below 1000 messages.",
                ("portal-pacienti",),
                ("lag",),
            )
        )
    else:

        def nxt() -> None:
            b.user("Data viitoare nu vreau să ghicim ce facem.")
            b.assistant(
                "Scriu un runbook pentru recrearea slotului și repornirea task-urilor, până mâine."
            )

        probes.append(
            _fact(
                "next_step",
                "What did the agent promise to write, and by when?",
                "A runbook for recreating the slot and restarting tasks, by tomorrow.",
                ("runbook",),
            )
        )
    middle.append(nxt)

    def last() -> None:
        b.user("Mersi mult.")
        b.assistant("Cu plăcere.")

    _run(rng, first, middle, last)
    opening = b.take()
    return (
        opening,
        _fill(rng, b, segments, [_ro_fill_plugins, _ro_fill_schema, _ro_fill_acl]),
        probes,
    )


def _ro_fill_plugins(rng: random.Random, b: Builder) -> None:
    b.user("Ce versiune de Debezium avem instalată?")
    b.tool(
        "Listez pluginurile.",
        "bash",
        {
            "command": "curl -s localhost:8083/connector-plugins "
            "| jq -r '.[] | .class + \" \" + .version'"
        },
        "io.debezium.connector.postgresql.PostgresConnector "
        f"2.{rng.randint(3, 7)}.{rng.randint(0, 3)}.Final\n"
        f"io.confluent.connect.jdbc.JdbcSinkConnector 10.{rng.randint(5, 8)}.{rng.randint(0, 9)}",
    )
    b.assistant("Debezium 2.x; e suficient de nou pentru ce ne trebuie.")


def _ro_fill_schema(rng: random.Random, b: Builder) -> None:
    subj = rng.choice(
        ("lis.public.pacienti-value", "lis.public.analize-value", "lis.public.medici-value")
    )
    b.user(f"Câte versiuni are schema {subj}?")
    b.tool(
        "Întreb Schema Registry.",
        "bash",
        {"command": f"curl -s schema-registry:8081/subjects/{subj}/versions"},
        "[" + ",".join(str(i) for i in range(1, rng.randint(3, 8))) + "]",
    )
    b.assistant(f"Schema {subj} are câteva versiuni, toate compatibile BACKWARD.")


def _ro_fill_acl(rng: random.Random, b: Builder) -> None:
    user = rng.choice(("svc-raportare", "svc-facturare", "svc-audit"))
    b.user(f"Are {user} drept de citire pe topicurile de analize?")
    b.tool(
        "Verific ACL-urile.",
        "bash",
        {"command": f"kafka-acls --bootstrap-server kafka:9092 --list --principal User:{user}"},
        f"Current ACLs for principal `User:{user}`:\n \t(principal=User:{user}, host=*, "
        "operation=READ, permissionType=ALLOW)",
    )
    b.assistant(f"Da, {user} are READ.")


# --------------------------------------------------------------------------- Russian

_RU_DAYS = (
    ("понедельника", "понедельник", "monday"),
    ("вторника", "вторник", "tuesday"),
    ("среды", "сред", "wednesday"),
    ("четверга", "четверг", "thursday"),
    ("пятницы", "пятниц", "friday"),
)
_RU_PEOPLE = ("Ольга", "Кирилл", "Марина", "Денис")
_RU_SHOWS = ("«Чайка»", "«Вишнёвый сад»", "«Ревизор»", "«Три сестры»")


def _ru_pod_line(rng: random.Random) -> str:
    return (
        f"bilety-api-{hexits(rng, 9)}-{token(rng, 5, 'abcdefghijklmnopqrstuvwxyz0123456789')}   "
        f"1/1     Running   {rng.randint(0, 3)}          {rng.randint(1, 20)}h"
    )


def _theatre(rng: random.Random, b: Builder, segments: int) -> Parts:
    sha = hexits(rng, 40)
    order = f"{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}"
    decoy_order = f"{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}"
    tag = f"2025.{rng.randint(1, 12):02d}.{rng.randint(1, 28)}-rc{rng.randint(1, 9)}"
    person = rng.choice(_RU_PEOPLE)
    show = rng.choice(_RU_SHOWS)
    probes = [
        _id("Which git commit is Argo CD syncing bilety-api to in production?", sha),
        _id("What is the number of the order paid twice?", order),
        _id("Which image tag of bilety-api is running in production?", tag),
    ]

    def first() -> None:
        b.user(
            f"Привет. После вчерашнего релиза касса на {show} задваивает оплату: заказ № {order} "
            "списали дважды. Посмотри, что сейчас в проде."
        )
        b.tool(
            "Смотрю приложение в Argo CD.",
            "bash",
            {"command": "argocd app get bilety-api --show-operation"},
            "Name:               argocd/bilety-api\nProject:            kassa\n"
            "Server:             https://kubernetes.default.svc\nNamespace:          kassa-prod\n"
            f"Sync Status:        Synced to main ({sha})\nHealth Status:      Healthy\n\n"
            f"Operation:          Sync\nSync Revision:      {sha}\nPhase:              Succeeded",
        )
        b.assistant(f"В проде bilety-api синхронизирован на коммит {sha}, статус Healthy.")

    def image() -> None:
        b.user("А какой образ крутится?")
        b.tool(
            "Смотрю деплоймент.",
            "bash",
            {
                "command": "kubectl -n kassa-prod get deploy bilety-api "
                "-o jsonpath='{.spec.template.spec.containers[0].image}'; echo; "
                "kubectl -n kassa-prod get pods -l app=bilety-api"
            },
            f"registry.teatr.local/kassa/bilety-api:{tag}\n"
            "NAME                          READY   STATUS    RESTARTS   AGE\n"
            + noise_lines(rng, 3, _ru_pod_line),
        )
        b.assistant(f"Образ bilety-api:{tag}, три пода, рестартов почти нет.")

    def payments() -> None:
        times = sorted(_clock(rng) for _ in range(4))
        b.user("Что в логах по оплатам?")
        b.tool(
            "Ищу по логам.",
            "bash",
            {
                "command": "kubectl -n kassa-prod logs deploy/bilety-api --since=24h "
                "| grep -i webhook | tail -4"
            },
            f"{times[0]} INFO  webhook payment.succeeded order={decoy_order} handled\n"
            f"{times[1]} INFO  webhook payment.succeeded order={order} handled\n"
            f"{times[2]} WARN  webhook retry from acquirer, idempotency key missing\n"
            f"{times[3]} INFO  webhook payment.succeeded order={order} handled",
        )
        b.assistant(
            f"Для заказа {order} вебхук обработан дважды: при повторе от эквайера не проверяется "
            f"ключ идемпотентности. Заказ {decoy_order} в порядке."
        )

    middle: list[Block] = [image, payments]

    def values(by_tool: bool) -> Block:
        def block() -> None:
            b.user("Включи проверку идемпотентности через флаг в чарте.")
            if by_tool:
                b.tool(
                    "Добавил idempotency.enabled: true. Состояние репозитория:",
                    "bash",
                    {"command": "git -C deploy status"},
                    "On branch fix/idempotency\nChanges not staged for commit:\n"
                    "\tmodified:   charts/kassa/values-prod.yaml\n",
                )
                b.assistant("Жду твоего ревью перед пушем.")
            else:
                b.tool(
                    "Проверяю, что чарт рендерится.",
                    "bash",
                    {
                        "command": "helm template kassa charts/kassa -f "
                        "charts/kassa/values-prod.yaml | grep -c IDEMPOTENCY"
                    },
                    "1",
                )
                b.assistant(
                    "Я изменил values-prod.yaml: включил idempotency.enabled, чарт рендерится."
                )

        return block

    def staging(by_tool: bool) -> Block:
        def block() -> None:
            b.user("Старый стенд kassa-staging больше не нужен, убери его из Argo.")
            if by_tool:
                b.tool(
                    "Удаляю вместе с ресурсами.",
                    "bash",
                    {"command": "argocd app delete kassa-staging --cascade -y"},
                    "application 'kassa-staging' deleted",
                )
                b.assistant("Готово.")
            else:
                b.tool(
                    "Проверяю, что на него ничего не ссылается.",
                    "bash",
                    {"command": "grep -rn 'kassa-staging' deploy/apps/ | wc -l"},
                    "0",
                )
                b.assistant(
                    "Ссылок нет, я удалил приложение kassa-staging из Argo CD вместе с ресурсами."
                )

        return block

    def afisha(by_tool: bool) -> Block:
        def block() -> None:
            b.user("Глянь заодно, все ли приложения зелёные.")
            if by_tool:
                b.tool(
                    "Список приложений.",
                    "bash",
                    {"command": "argocd app list -p kassa"},
                    "NAME        CLUSTER                         NAMESPACE   PROJECT  "
                    "STATUS     HEALTH\n"
                    "bilety-api  https://kubernetes.default.svc  kassa-prod  kassa    "
                    "Synced     Healthy\n"
                    "afisha-web  https://kubernetes.default.svc  kassa-prod  kassa    "
                    "OutOfSync  Degraded",
                )
                b.assistant("Не все; разберусь после оплаты.")
            else:
                b.tool(
                    "Список приложений.",
                    "bash",
                    {"command": "argocd app list -p kassa -o name"},
                    "argocd/bilety-api\nargocd/afisha-web",
                )
                b.assistant(
                    "afisha-web в статусе Degraded и OutOfSync: новый ingress не применился. "
                    "Остальное зелёное."
                )

        return block

    arts = [
        (
            values,
            _fact(
                "artifact",
                "What is the state of charts/kassa/values-prod.yaml?",
                "Modified (uncommitted): idempotency.enabled switched on.",
                ("values-prod.yaml",),
                (
                    "modified",
                    "измен",
                    "поправ",
                    "правк",
                    "обнов",
                    "edit",
                    "updated",
                    "changed",
                    "включ",
                ),
            ),
        ),
        (
            staging,
            _fact(
                "artifact",
                "What happened to the Argo CD application kassa-staging?",
                "It was deleted with its resources (cascade).",
                ("kassa-staging",),
                ("deleted", "удал", "remov", "убра", "снес"),
            ),
        ),
        (
            afisha,
            _fact(
                "artifact",
                "What is the state of the afisha-web application?",
                "Degraded and OutOfSync.",
                ("afisha-web",),
                (
                    "degraded",
                    "деград",
                    "outofsync",
                    "out of sync",
                    "рассинхрон",
                    "unhealthy",
                    "нездоров",
                ),
            ),
        ),
    ]
    for make, probe in rng.sample(arts, 2):
        middle.append(make(rng.random() < 0.5))
        probes.append(probe)

    decision = rng.randrange(3)
    if decision == 0:

        def decide() -> None:
            b.user("Чтобы такое не повторялось, настрой автосинк для bilety-api.")
            b.assistant("Предлагаю syncPolicy.automated с prune: true и selfHeal: true.")
            b.user("Автосинк да, selfHeal да, но prune выключи: у нас ручные секреты в неймспейсе.")
            b.assistant("Сделаю: automated, selfHeal: true, prune: false.")

        probes.append(
            _fact(
                "decision",
                "How was the automated sync policy for bilety-api settled?",
                "Automated sync with selfHeal, but prune disabled (manual secrets in the "
                "namespace).",
                ("prune",),
                ("false", "без", "without", "off", "disabl", "выключ", "no prune", "не "),
            )
        )
    elif decision == 1:
        at = rng.choice(("14:00", "15:00", "16:00"))

        def decide() -> None:
            b.user(
                f"{person} передала от руководителя кассы: в прод выкатываем только до {at}, "
                "вечером идут продажи перед спектаклями."
            )
            b.assistant(f"Принял: деплой в прод не позже {at}.")

        probes.append(
            _fact(
                "decision",
                "Until what time of day may production be deployed, per the box-office head?",
                f"Only until {at} (evening sales before shows).",
                (at,),
                ("деплой", "deploy", "релиз", "release", "выкат", "прод", "prod"),
            )
        )
    else:
        n = rng.choice((12, 16, 20))

        def decide() -> None:
            b.user("Перед премьерой будет наплыв.")
            b.assistant("Какой maxReplicas поставить в HPA для bilety-api на премьеру?")
            b.user(f"{n}, больше кластер не вытянет.")
            b.assistant(f"Ставлю maxReplicas: {n}.")

        probes.append(
            _fact(
                "decision",
                "What HPA maxReplicas was set for bilety-api for the premiere?",
                f"{n}.",
                (str(n),),
                ("maxreplicas", "max replicas", "реплик", "replica", "hpa"),
            )
        )
    middle.append(decide)

    step = rng.randrange(3)
    if step == 0:
        day, stem, day_en = rng.choice(_RU_DAYS)

        def nxt() -> None:
            b.user(f"И ещё: до {day} секреты эквайера надо перенести в Vault.")
            b.assistant(f"Записал: перенос секретов эквайера в Vault до {day}.")

        probes.append(
            _fact(
                "next_step",
                "What must be moved into Vault, and by when?",
                f"The acquirer's secrets, by {day_en}.",
                ("vault",),
                (stem, day_en),
            )
        )
    elif step == 1:

        def nxt() -> None:
            b.user("А старый неймспейс?")
            b.assistant(f"После премьеры {show} удалю неймспейс kassa-legacy, раньше не трогаю.")

        probes.append(
            _fact(
                "next_step",
                "What will the agent do after the premiere?",
                "Delete the kassa-legacy namespace (not before).",
                ("kassa-legacy",),
                ("удал", "delet", "remov", "снес"),
            )
        )
    else:
        x = rng.choice((1, 2, 5))

        def nxt() -> None:
            b.user("Хочу узнавать о таком раньше, чем зрители начнут звонить.")
            b.assistant(f"Настрою правило в Alertmanager: доля 5xx выше {x}% за 5 минут.")

        probes.append(
            _fact(
                "next_step",
                "What alert did the agent promise to set up?",
                f"An Alertmanager rule when 5xx exceed {x}% over 5 minutes.",
                ("5xx",),
                ("alert", "алерт", "правил"),
            )
        )
    middle.append(nxt)

    def last() -> None:
        b.user("Спасибо.")
        b.assistant("Пожалуйста.")

    _run(rng, first, middle, last)
    opening = b.take()
    return opening, _fill(rng, b, segments, [_ru_fill_top, _ru_fill_helm, _ru_fill_events]), probes


def _ru_fill_top(rng: random.Random, b: Builder) -> None:
    b.user("Сколько памяти ест afisha-кэш?")
    b.tool(
        "Смотрю потребление.",
        "bash",
        {"command": "kubectl -n kassa-prod top pods -l app=redis-cache"},
        "NAME            CPU(cores)   MEMORY(bytes)\n"
        f"redis-cache-0   {rng.randint(3, 40)}m          {rng.randint(60, 400)}Mi",
    )
    b.assistant("Немного, в пределах лимита.")


def _ru_fill_helm(rng: random.Random, b: Builder) -> None:
    b.user("Какие версии чарта redis стоят?")
    b.tool(
        "История релиза.",
        "bash",
        {"command": "helm -n kassa-prod history redis-cache --max 3"},
        "REVISION  UPDATED                   STATUS      CHART          APP VERSION  DESCRIPTION\n"
        + noise_lines(
            rng,
            3,
            lambda r: (
                f"{r.randint(1, 40):<9} Mon Mar {r.randint(1, 28):>2} {_clock(r)} 2025  "
                f"superseded  redis-{r.randint(17, 19)}.{r.randint(0, 9)}.{r.randint(0, 9)}   7.2.4"
                "        Upgrade complete"
            ),
        ),
    )
    b.assistant("Чарт redis обновлялся штатно.")


def _ru_fill_events(rng: random.Random, b: Builder) -> None:
    b.user("Есть ли предупреждения в событиях кластера?")
    b.tool(
        "Смотрю события.",
        "bash",
        {"command": "kubectl -n kassa-prod get events --field-selector type=Warning | tail -3"},
        noise_lines(
            rng,
            rng.randint(1, 3),
            lambda r: (
                f"{r.randint(2, 59)}m   Warning   BackOff   pod/redis-cache-0   "
                "Back-off restarting failed container"
            ),
        ),
    )
    b.assistant("Только старые предупреждения redis-cache, сейчас всё стабильно.")


_TEMPLATES: dict[str, Template] = {
    "halal_horizon_ar": _halal,
    "dental_flutter_he": _dental,
    "durian_snowflake_th": _durian,
    "bakery_spark_da": _bakery,
    "lab_kafka_ro": _lab,
    "theatre_argocd_ru": _theatre,
}
HELDOUT10_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout10(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The tenth held-out session of ``kind`` for ``seed``: the same seed always gives the
    same session; ``segments`` filler segments follow the opening."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout10:", label="heldout10"
    )
