"""The twentieth held-out set, written blind: six long ops sessions, each on one stack and
in one human language the user and the agent share, tool output in the tool's own English.

* ``nginx_certbot_azerbaijani``: Nginx with Let's Encrypt / certbot, in Azerbaijani;
* ``patroni_etcd_burmese``: PostgreSQL under Patroni and etcd, in Burmese (Myanmar script);
* ``jenkins_georgian``: a Jenkins controller and its agents, in Georgian;
* ``airflow_celery_macedonian``: Apache Airflow on the Celery executor, in Macedonian;
* ``consul_tagalog``: a HashiCorp Consul datacenter, in Tagalog;
* ``logstash_beats_marathi``: Filebeat and Logstash pipelines, in Marathi.

Each opening plants, in an order the seed shuffles and among decoys, seven probes: three
identifiers of three id types of the stack (each in a listing beside same-shaped decoys;
named by the agent, named only by the user, or named by nobody beyond the listing line
the user points at), two artifacts (a named thing and what happened to it, told by the
tool only, the agent only, or both, sometimes behind a "don't delete it, only ..." trap),
one decision (dictated with a reason, proposed and approved, proposed and changed,
dictated then corrected, relayed from a colleague, or the answer to an either/or) and one
next step (tomorrow, next week, a date, a weekday, a deadline, a condition, or the
agent's promise). Traps sit beside them: a colleague's wrong hunch, a closed ticket next
to an open one. The filler segments are later work on the same system that never repeats
a planted id or artifact name.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    build_session,
    hexits,
    segments_of,
)

__all__ = ["HELDOUT20_KINDS", "generate_heldout20"]

R = random.Random
Scene = Callable[[], None]


# --------------------------------------------------------------------------- languages


@dataclass(frozen=True)
class Lang:
    left: str
    ask: str
    show: tuple[str, ...]
    look: tuple[str, ...]
    id_agent: tuple[str, ...]
    id_user: tuple[str, ...]
    id_neither: tuple[str, ...]
    noted: tuple[str, ...]
    ok: tuple[str, ...]
    done: tuple[str, ...]
    dictate: str
    dec_ack: str
    propose: str
    approve: tuple[str, ...]
    change: str
    first: str
    fix: str
    relay: str
    either: str
    answer: str
    nexts: dict[str, tuple[str, tuple[str, ...]]]
    promise: tuple[str, tuple[str, ...]]
    cond: str
    months: str  # the date template, {d} the day
    digits: str  # the script's digits 0-9 ("" for ASCII)
    hunch: str
    hunch_reply: str
    tickets: str
    tickets_reply: str
    people: tuple[str, ...]


_DATE_EN = ("january {d}", "jan {d}", "{d} jan", "01-{d:02d}", "{d:02d}.01")


AZ = Lang(
    left="Bəs başqa nə qalır?",
    ask="{key} barədə nə təklif edirsən?",
    show=(
        "{noun} siyahısını göstər.",
        "Gəl {noun} siyahısına baxaq.",
        "{noun} siyahısını çıxar, baxım.",
    ),
    look=("Baxıram.", "İndi çıxarıram.", "Yoxlayıram."),
    id_agent=(
        "Diqqət: {what} budur — {id}. Bunu sonrakı addım üçün qeyd edirəm.",
        "{what} yalnız biridir: {id}. Qalanları qaydasındadır.",
    ),
    id_user=(
        "{id} — bax bu bizə lazımdır, {what}. Onu bir kənara yaz.",
        "Bizi {id} maraqlandırır. Digərlərinə toxunma.",
    ),
    id_neither=(
        "Siyahıda bir sətir var, {what} — bizə məhz o lazımdır. Yadda saxla.",
        "Həmin sətrə, {what}, sonra qayıdacağıq, unutma.",
    ),
    noted=("Oldu, qeyd etdim.", "Aydındır."),
    ok=("Oldu.", "Hazırdır.", "Tamam, davam edirəm."),
    done=("Əmr uğurla bitdi.", "Hazırdır, çıxışa bax."),
    dictate="{key} üçün {value} qoyuruq, çünki {reason}.",
    dec_ack="Qəbul etdim: {key} = {value}.",
    propose="Təklifim: {key} = {value}, çünki {reason}. Razısan?",
    approve=("Razıyam, elə et.", "Olar, təsdiqləyirəm."),
    change="Yox, {other} yox — {key} = {value} olsun, çünki {reason}.",
    first="{key} üçün hələlik {other} yaz.",
    fix="Düzəliş: {key} {other} olmayacaq, {value} olacaq. Əvvəlkini unut.",
    relay="{who} yazdı: {key} = {value} olsun, {reason}. Onun dediyi kimi edək.",
    either="{key} üçün iki variant var: {a} yoxsa {b}. Hansını seçək?",
    answer="{key} üçün {value} götür.",
    nexts={
        "tomorrow": ("Sabah {task}, unutma.", ("sabah", "tomorrow")),
        "next_week": ("Gələn həftə {task}.", ("gələn həftə", "next week")),
        "weekday": ("Cümə günü {task}, ondan tez yox.", ("cümə", "friday")),
        "deadline": (
            "Çərşənbə axşamına qədər {task} — son tarix budur.",
            ("çərşənbə axşamı", "tuesday"),
        ),
    },
    promise=("Söz verirəm: sabah səhər bunu özüm edəcəyəm — {task}.", ("sabah", "tomorrow")),
    cond="{cond}, sonra {task}.",
    months="{d} yanvarda {task}.",
    digits="",
    hunch="{who} elə bilir ki, səbəb {thing}-dir, amma məncə yox.",
    hunch_reply="Yoxladım: {thing} qaydasındadır, səbəb orada deyil.",
    tickets="Tiketlərə də bax, hansı açıqdır?",
    tickets_reply="{closed} artıq bağlıdır; açıq qalan {open}-dir.",
    people=("Elnur", "Günay", "Rəşad", "Aysel"),
)

MY = Lang(
    left="ကျန်တဲ့ အလုပ် ဘာရှိသေးလဲ။",
    ask="{key} အတွက် ဘာ အကြံပြုမလဲ။",
    show=("{noun} ကို ပြပါ။", "{noun} ကို ကြည့်ကြရအောင်။", "{noun} အားလုံး ထုတ်ပြပါ။"),
    look=("စစ်ကြည့်နေပါတယ်။", "ချက်ချင်း ကြည့်ပါမယ်။", "ထုတ်ကြည့်ပါမယ်။"),
    id_agent=(
        "သတိပြုပါ — {what} က {id} ပါ။ နောက်မှ လိုမှာမို့ မှတ်ထားပါတယ်။",
        "{what} တစ်ခုတည်းပဲ ရှိပါတယ် — {id}။ ကျန်တာတွေ အဆင်ပြေပါတယ်။",
    ),
    id_user=(
        "{id} — ဒါပဲ ကျွန်တော်တို့ လိုတာ၊ {what}။ မှတ်ထားပါ။",
        "{id} ကိုပဲ ကြည့်မယ်၊ တခြားဟာတွေကို မထိပါနဲ့။",
    ),
    id_neither=(
        "စာရင်းထဲမှာ {what} လိုင်း တစ်ကြောင်း ရှိတယ် — အဲဒါပဲ လိုတာ။ မှတ်ထားပါ။",
        "{what} လိုင်းကို နောက်မှ ပြန်လာကြည့်မယ်၊ မမေ့ပါနဲ့။",
    ),
    noted=("ဟုတ်ကဲ့၊ မှတ်ထားပါပြီ။", "နားလည်ပါပြီ။"),
    ok=("ဟုတ်ကဲ့။", "ပြီးပါပြီ။", "ဆက်လုပ်ပါမယ်။"),
    done=("command အောင်မြင်စွာ ပြီးသွားပါပြီ။", "ပြီးပါပြီ၊ output ကို ကြည့်ပါ။"),
    dictate="{key} အတွက် {value} ထားမယ်၊ ဘာလို့လဲဆိုတော့ {reason}။",
    dec_ack="လက်ခံပါတယ် — {key} = {value}။",
    propose="ကျွန်တော့် အကြံပြုချက် — {key} = {value}၊ ဘာလို့လဲဆိုတော့ {reason}။ သဘောတူပါသလား။",
    approve=("သဘောတူပါတယ်၊ အဲဒီလို လုပ်ပါ။", "ဟုတ်ကဲ့၊ အတည်ပြုပါတယ်။"),
    change="မဟုတ်ဘူး၊ {other} မဟုတ်ဘူး — {key} = {value} ထားပါ၊ ဘာလို့လဲဆိုတော့ {reason}။",
    first="{key} အတွက် လောလောဆယ် {other} ထည့်ထားပါ။",
    fix="ပြင်ဆင်ချက် — {key} က {other} မဟုတ်တော့ဘူး၊ {value} ဖြစ်ရမယ်။ အရင်ဟာကို မေ့လိုက်ပါ။",
    relay="{who} က ပြောတယ် — {key} = {value} ထားပါ၊ {reason}။ သူပြောတဲ့အတိုင်း လုပ်ကြရအောင်။",
    either="{key} အတွက် ရွေးစရာ နှစ်ခု ရှိတယ် — {a} လား {b} လား။ ဘယ်ဟာ ရွေးမလဲ။",
    answer="{key} အတွက် {value} ကို ယူပါ။",
    nexts={
        "tomorrow": ("မနက်ဖြန် {task}၊ မမေ့ပါနဲ့။", ("မနက်ဖြန်", "tomorrow")),
        "next_week": ("နောက်အပတ်မှာ {task}။", ("နောက်အပတ်", "next week")),
        "weekday": ("သောကြာနေ့မှာ {task}၊ အဲဒီမတိုင်ခင် မလုပ်ပါနဲ့။", ("သောကြာ", "friday")),
        "deadline": ("အင်္ဂါနေ့ မတိုင်ခင် {task} — ဒါ နောက်ဆုံးရက်ပဲ။", ("အင်္ဂါ", "tuesday")),
    },
    promise=(
        "ကတိပေးပါတယ် — မနက်ဖြန် မနက် ကျွန်တော် ကိုယ်တိုင် လုပ်ပါမယ်: {task}။",
        ("မနက်ဖြန်", "tomorrow"),
    ),
    cond="{cond} ပြီးရင် {task}။",
    months="ဇန်နဝါရီ {d} ရက်နေ့မှာ {task}။",
    digits="၀၁၂၃၄၅၆၇၈၉",
    hunch="{who} ကတော့ {thing} ကြောင့်လို့ ထင်နေတယ်၊ ဒါပေမဲ့ ကျွန်တော် မထင်ဘူး။",
    hunch_reply="စစ်ပြီးပါပြီ — {thing} က အဆင်ပြေပါတယ်၊ ပြဿနာ အဲဒီမှာ မဟုတ်ပါဘူး။",
    tickets="ticket တွေလည်း ကြည့်ပါဦး၊ ဘယ်ဟာ ဖွင့်ထားသေးလဲ။",
    tickets_reply="{closed} က ပိတ်ပြီးသားပါ၊ ဖွင့်ထားသေးတာက {open} ပါ။",
    people=("ကိုဇော်", "မသီတာ", "ကိုအောင်", "မနှင်း"),
)

KA = Lang(
    left="კიდევ რა დაგვრჩა?",
    ask="{key}-ზე რას გვირჩევ?",
    show=("მაჩვენე {noun}.", "მოდი, {noun} ვნახოთ.", "{noun} — ყველა ამოიღე, ვნახავ."),
    look=("ვამოწმებ.", "ახლავე ვნახავ.", "ამოვიღებ."),
    id_agent=(
        "ყურადღება: {what} — {id}. ეს ჩავინიშნე, მერე დაგვჭირდება.",
        "{what} მხოლოდ ერთია: {id}. დანარჩენი ნორმაშია.",
    ),
    id_user=(
        "{id} — აი ეს გვჭირდება, {what}. ჩაინიშნე.",
        "ჩვენ {id} გვაინტერესებს, სხვებს ნუ შეეხები.",
    ),
    id_neither=(
        "სიაში ერთი ხაზია, {what} — სწორედ ის გვჭირდება. დაიმახსოვრე.",
        "იმ ხაზს, {what}, მოგვიანებით დავუბრუნდებით, არ დაგავიწყდეს.",
    ),
    noted=("კარგი, ჩავინიშნე.", "გასაგებია."),
    ok=("კარგი.", "მზადაა.", "გავაგრძელებ."),
    done=("ბრძანება წარმატებით დასრულდა.", "მზადაა, იხილე გამოსავალი."),
    dictate="{key}-ისთვის ვაყენებთ {value}, რადგან {reason}.",
    dec_ack="მივიღე: {key} = {value}.",
    propose="ჩემი წინადადება: {key} = {value}, რადგან {reason}. თანახმა ხარ?",
    approve=("თანახმა ვარ, ასე გააკეთე.", "კი, ვადასტურებ."),
    change="არა, {other} არა — {key} = {value} იყოს, რადგან {reason}.",
    first="{key}-ისთვის ჯერჯერობით {other} ჩაწერე.",
    fix="შესწორება: {key} არ იქნება {other}, იქნება {value}. წინა დაივიწყე.",
    relay="{who} მწერს: {key} = {value} იყოს, {reason}. მისი თქმისამებრ გავაკეთოთ.",
    either="{key}-ისთვის ორი ვარიანტია: {a} თუ {b}. რომელს ავირჩევთ?",
    answer="{key}-ისთვის აიღე {value}.",
    nexts={
        "tomorrow": ("ხვალ {task}, არ დაგვავიწყდეს.", ("ხვალ", "tomorrow")),
        "next_week": ("მომავალ კვირას {task}.", ("მომავალ კვირას", "next week")),
        "weekday": ("პარასკევს {task}, მანამდე არა.", ("პარასკევ", "friday")),
        "deadline": ("სამშაბათამდე {task} — ეს ბოლო ვადაა.", ("სამშაბათ", "tuesday")),
    },
    promise=("გპირდები, ხვალ დილით ამას მე გავაკეთებ — {task}.", ("ხვალ", "tomorrow")),
    cond="{cond}, მერე {task}.",
    months="{d} იანვარს {task}.",
    digits="",
    hunch="{who} ფიქრობს, რომ მიზეზი {thing}-ია, მაგრამ მე არ მგონია.",
    hunch_reply="შევამოწმე: {thing} რიგზეა, მიზეზი იქ არ არის.",
    tickets="ტიკეტებიც ნახე, რომელია ღია?",
    tickets_reply="{closed} უკვე დახურულია; ღია რჩება {open}.",
    people=("ნინო", "გიორგი", "ლაშა", "თამარ"),
)

MK = Lang(
    left="Што ни останува уште?",
    ask="Што предлагаш за {key}?",
    show=("Покажи ми ги {noun}.", "Ајде да ги видиме {noun}.", "{noun} — извади ги сите."),
    look=("Проверувам.", "Веднаш гледам.", "Ги вадам."),
    id_agent=(
        "Внимание: {what} — {id}. Го запишувам, ќе ни треба подоцна.",
        "Само еден е {what}: {id}. Другите се во ред.",
    ),
    id_user=(
        "{id} — ова ни треба, {what}. Запиши го.",
        "Нас не интересира {id}, другите не ги допирај.",
    ),
    id_neither=(
        "Во листата има еден ред, {what} — токму тој ни треба. Запамети го.",
        "На тој ред, {what}, ќе се вратиме подоцна, не заборавај.",
    ),
    noted=("Во ред, запишав.", "Јасно."),
    ok=("Во ред.", "Готово.", "Продолжувам."),
    done=("Командата заврши успешно.", "Готово, погледни го излезот."),
    dictate="За {key} ставаме {value}, затоа што {reason}.",
    dec_ack="Примено: {key} = {value}.",
    propose="Мој предлог: {key} = {value}, затоа што {reason}. Се согласуваш?",
    approve=("Се согласувам, направи така.", "Да, одобрувам."),
    change="Не, не {other} — нека биде {key} = {value}, затоа што {reason}.",
    first="За {key} засега стави {other}.",
    fix="Исправка: {key} нема да биде {other}, туку {value}. Заборави го претходното.",
    relay="{who} пишува: {key} = {value}, {reason}. Да направиме како што вели.",
    either="За {key} има две опции: {a} или {b}. Која да ја избереме?",
    answer="За {key} земи {value}.",
    nexts={
        "tomorrow": ("Утре {task}, да не заборавиме.", ("утре", "tomorrow")),
        "next_week": ("Следната недела {task}.", ("следната недела", "next week")),
        "weekday": ("Во петок {task}, не порано.", ("петок", "friday")),
        "deadline": ("До вторник {task} — тоа е крајниот рок.", ("вторник", "tuesday")),
    },
    promise=("Ветувам, утре наутро ова го правам јас — {task}.", ("утре", "tomorrow")),
    cond="{cond}, потоа {task}.",
    months="На {d} јануари {task}.",
    digits="",
    hunch="{who} мисли дека причината е {thing}, ама јас не верувам.",
    hunch_reply="Проверив: {thing} е во ред, причината не е таму.",
    tickets="Погледни ги и тикетите, кој е отворен?",
    tickets_reply="{closed} е веќе затворен; отворен останува {open}.",
    people=("Бојан", "Марија", "Горан", "Ивана"),
)

TL = Lang(
    left="Ano pa ang natitira?",
    ask="Ano ang mungkahi mo sa {key}?",
    show=("Ipakita mo ang {noun}.", "Tingnan natin ang {noun}.", "Ilabas mo lahat ng {noun}."),
    look=("Titingnan ko.", "Sandali, chine-check ko.", "Kinukuha ko na."),
    id_agent=(
        "Pansinin: {what} — {id}. Itinala ko ito, kakailanganin natin mamaya.",
        "Iisa lang ang {what}: {id}. Maayos ang iba.",
    ),
    id_user=(
        "{id} — ito ang kailangan natin, {what}. Itala mo.",
        "Ang {id} ang tinitingnan natin, huwag mong galawin ang iba.",
    ),
    id_neither=(
        "May isang linya sa listahan, {what} — iyon mismo ang kailangan natin. Tandaan mo.",
        "Babalikan natin mamaya ang linyang iyon, {what}. Huwag kalimutan.",
    ),
    noted=("Sige, naitala ko.", "Malinaw."),
    ok=("Sige.", "Tapos na.", "Tuloy ako."),
    done=("Matagumpay na natapos ang command.", "Tapos na, tingnan mo ang output."),
    dictate="Sa {key}, {value} ang ilalagay natin, dahil {reason}.",
    dec_ack="Noted: {key} = {value}.",
    propose="Mungkahi ko: {key} = {value}, dahil {reason}. Ayos ba sa iyo?",
    approve=("Sang-ayon ako, gawin mo.", "Oo, aprubado."),
    change="Hindi, hindi {other} — {key} = {value} na lang, dahil {reason}.",
    first="Sa {key}, ilagay mo muna ang {other}.",
    fix="Pagtutuwid: hindi {other} ang {key}, kundi {value}. Kalimutan mo ang nauna.",
    relay="Sabi ni {who}: {key} = {value}, {reason}. Sundin natin siya.",
    either="Para sa {key}, dalawa ang pagpipilian: {a} o {b}. Alin ang pipiliin natin?",
    answer="Sa {key}, {value} ang kunin mo.",
    nexts={
        "tomorrow": ("Bukas, {task} — huwag kalimutan.", ("bukas", "tomorrow")),
        "next_week": ("Sa susunod na linggo, {task}.", ("susunod na linggo", "next week")),
        "weekday": ("Sa Biyernes, {task}, hindi mas maaga.", ("biyernes", "friday")),
        "deadline": ("Bago mag-Martes, {task} — iyon ang deadline.", ("martes", "tuesday")),
    },
    promise=(
        "Pangako, bukas ng umaga ako mismo ang gagawa nito — {task}.",
        ("bukas", "tomorrow"),
    ),
    cond="{cond}, saka {task}.",
    months="Sa Enero {d}, {task}.",
    digits="",
    hunch="Akala ni {who} na {thing} ang dahilan, pero sa tingin ko hindi.",
    hunch_reply="Chineck ko: maayos ang {thing}, hindi iyon ang dahilan.",
    tickets="Tingnan mo rin ang mga ticket, alin ang bukas pa?",
    tickets_reply="Sarado na ang {closed}; ang bukas pa ay {open}.",
    people=("Jomar", "Liza", "Paolo", "Carmela"),
)

MR = Lang(
    left="अजून काय बाकी आहे?",
    ask="{key} बद्दल तुझं काय मत?",
    show=("{noun} दाखव.", "चल, {noun} बघूया.", "{noun} — सगळे काढ, मी बघतो."),
    look=("तपासतो.", "लगेच बघतो.", "काढतो."),
    id_agent=(
        "लक्ष द्या: {what} — {id}. हे नोंदवून ठेवतो, नंतर लागेल.",
        "{what} फक्त एकच आहे: {id}. बाकी सगळे ठीक आहेत.",
    ),
    id_user=(
        "{id} — हाच आपल्याला हवा आहे, {what}. नोंद करून ठेव.",
        "आपल्याला {id} पाहिजे, बाकीच्यांना हात लावू नकोस.",
    ),
    id_neither=(
        "यादीत एक ओळ आहे, {what} — नेमकी तीच आपल्याला हवी आहे. लक्षात ठेव.",
        "त्या ओळीकडे, {what}, आपण नंतर परत येऊ, विसरू नकोस.",
    ),
    noted=("ठीक आहे, नोंद केली.", "समजलं."),
    ok=("ठीक आहे.", "झालं.", "पुढे जातो."),
    done=("कमांड यशस्वीपणे पूर्ण झाली.", "झालं, आउटपुट बघ."),
    dictate="{key} साठी आपण {value} ठेवतोय, कारण {reason}.",
    dec_ack="स्वीकारलं: {key} = {value}.",
    propose="माझा प्रस्ताव: {key} = {value}, कारण {reason}. चालेल का?",
    approve=("चालेल, तसंच कर.", "हो, मंजूर."),
    change="नाही, {other} नको — {key} = {value} ठेव, कारण {reason}.",
    first="{key} साठी सध्या {other} लिही.",
    fix="दुरुस्ती: {key} {other} नसेल, {value} असेल. आधीचं विसरून जा.",
    relay="{who} म्हणतोय: {key} = {value}, {reason}. तो म्हणतो तसं करूया.",
    either="{key} साठी दोन पर्याय आहेत: {a} की {b}. कोणता निवडायचा?",
    answer="{key} साठी {value} घे.",
    nexts={
        "tomorrow": ("उद्या {task}, विसरू नकोस.", ("उद्या", "tomorrow")),
        "next_week": ("पुढच्या आठवड्यात {task}.", ("पुढच्या आठवड्यात", "next week")),
        "weekday": ("शुक्रवारी {task}, त्याआधी नाही.", ("शुक्रवार", "friday")),
        "deadline": ("मंगळवारपर्यंत {task} — हीच शेवटची मुदत.", ("मंगळवार", "tuesday")),
    },
    promise=("मी वचन देतो: उद्या सकाळी हे मी करेन — {task}.", ("उद्या", "tomorrow")),
    cond="{cond}, मग {task}.",
    months="{d} जानेवारीला {task}.",
    digits="०१२३४५६७८९",
    hunch="{who} ला वाटतं की कारण {thing} आहे, पण मला तसं वाटत नाही.",
    hunch_reply="तपासलं: {thing} ठीक आहे, कारण तिथे नाही.",
    tickets="तिकिटं पण बघ, कोणतं उघडं आहे?",
    tickets_reply="{closed} आधीच बंद आहे; उघडं आहे ते {open}.",
    people=("सचिन", "प्रिया", "अमोल", "स्नेहा"),
)

_DATE_NATIVE = {
    AZ.months: "{d} yanvar",
    MY.months: "ဇန်နဝါရီ {d}",
    KA.months: "{d} იანვარ",
    MK.months: "{d} јануари",
    TL.months: "enero {d}",
    MR.months: "{d} जानेवारी",
}


def _native_digits(lang: Lang, n: int) -> str:
    if not lang.digits:
        return str(n)
    return "".join(lang.digits[int(c)] for c in str(n))


# ------------------------------------------------------------------------------ stacks


@dataclass(frozen=True)
class IdSpec:
    label: str  # English, for the question
    noun: str  # native: what the listing lists
    what: str  # native: how the line the user wants differs
    what_en: str
    make: Callable[[R], str]
    tool: str
    args: dict[str, object]
    header: str
    row: Callable[[R, str, bool], str]
    footer: str = ""


@dataclass(frozen=True)
class ArtSpec:
    make: Callable[[R], str]
    action: str  # English, for the answer
    ask: str  # native, {name}
    neg: str  # native, {name}: "don't delete it, only ..."
    said: str  # native, the agent's words, {name}
    tool: str
    args: Callable[[str], dict[str, object]]
    out: Callable[[R, str], str]  # a line with the name and the English deed
    alts: tuple[str, ...]


@dataclass(frozen=True)
class Filler:
    ask: tuple[str, ...]
    tool: str
    args: dict[str, object]
    out: Callable[[R], str]
    reply: tuple[str, ...]


@dataclass(frozen=True)
class Kit:
    lang: Lang
    intro: tuple[str, ...]
    intro_reply: str
    ids: tuple[IdSpec, IdSpec, IdSpec]
    arts: tuple[tuple[ArtSpec, ...], tuple[ArtSpec, ...]]
    key: str
    values: tuple[str, ...]
    reasons: tuple[str, ...]
    decision_q: str
    tasks: tuple[tuple[str, str, str], ...]  # native clause, ASCII key, English
    conds: tuple[tuple[str, str], ...]  # native condition, ASCII key
    things: tuple[str, ...]  # a colleague's wrong hunches (ASCII)
    ticket: str  # the ticket prefix
    filler: tuple[Filler, ...]


def _ts(rng: R, day: int = 7) -> str:
    return (
        f"2026-12-{day:02d} {rng.randint(0, 23):02d}"
        f":{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    )


def _uuid(rng: R) -> str:
    h = hexits(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def _ip(rng: R) -> str:
    return f"10.{rng.randint(10, 40)}.{rng.randint(0, 255)}.{rng.randint(2, 250)}"


# --- Nginx + certbot, Azerbaijani ---------------------------------------------------

_AZ_DOMAINS = ("bazar", "kassa", "xeber", "poct", "bilet", "musteri", "hesab", "sifaris")


def _cert_row(rng: R, serial: str, target: bool) -> str:
    d = f"{rng.choice(_AZ_DOMAINS)}{rng.randint(1, 99)}.example.az"
    kt = rng.choice(("ECDSA", "RSA"))
    exp = (
        "2026-12-05 03:11:40+00:00 (INVALID: EXPIRED)"
        if target
        else (
            f"2027-0{rng.randint(1, 3)}-{rng.randint(10, 28)} 0{rng.randint(1, 9)}:"
            f"{rng.randint(10, 59)}:{rng.randint(10, 59)}+00:00 (VALID: {rng.randint(20, 88)} days)"
        )
    )
    return (
        f"  Certificate Name: {d}\n    Serial Number: {serial}\n    Key Type: {kt}\n"
        f"    Domains: {d} www.{d}\n    Expiry Date: {exp}\n"
        f"    Certificate Path: /etc/letsencrypt/live/{d}/fullchain.pem\n"
        f"    Private Key Path: /etc/letsencrypt/live/{d}/privkey.pem"
    )


def _acct_row(rng: R, acct: str, target: bool) -> str:
    when = (
        "Dec  7 19:41"
        if target
        else (
            f"{rng.choice(('Mar', 'Jun', 'Sep', 'Nov'))} "
            f"{rng.randint(10, 28)}  {rng.choice((2023, 2024, 2025))}"
        )
    )
    return f"drwx------ 2 root root 4096 {when} {acct}"


def _order_row(rng: R, order: str, target: bool) -> str:
    status = "invalid" if target else rng.choice(("valid", "valid", "ready", "valid"))
    return (
        f"{_ts(rng)},{rng.randint(100, 999)}:DEBUG:acme.client:Order "
        f"https://acme-v02.api.letsencrypt.org/acme/order/1698822451/{order} status: {status}"
    )


def _dissite(rng: R, name: str) -> str:
    return (
        f"Site {name} disabled (sites-available/{name} kept).\n"
        "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\n"
        "nginx: configuration file /etc/nginx/nginx.conf test is successful"
    )


def _rekey(rng: R, name: str) -> str:
    return (
        "Saving debug log to /var/log/letsencrypt/letsencrypt.log\n"
        f"Renewing an existing certificate for {name}\n"
        f"{name}: re-keyed, key_type rsa -> ecdsa (secp384r1), "
        f"new key 00{rng.randint(10, 99)}_key-certbot.pem\n"
        "Congratulations, all renewals succeeded."
    )


def _drain(rng: R, name: str) -> str:
    return (
        "--- a/etc/nginx/conf.d/upstream.conf\n+++ b/etc/nginx/conf.d/upstream.conf\n"
        f"-    server {name} max_fails=3;\n+    server {name} down;  # drained\n"
        "nginx: configuration file /etc/nginx/nginx.conf test is successful"
    )


def _archive(rng: R, name: str) -> str:
    return (
        f"renamed '/etc/letsencrypt/renewal/{name}' -> '/root/renewal-archive/{name}'\n"
        f"archived {name} (certbot will no longer renew it)"
    )


def _access_log(rng: R) -> str:
    lines = []
    for _ in range(rng.randint(14, 22)):
        code = rng.choice((200, 200, 200, 301, 304, 404, 502, 499))
        path = rng.choice(("/api/v2/orders", "/static/app.js", "/login", "/health", "/cart"))
        lines.append(
            f"{_ip(rng)} - - [07/Dec/2026:{rng.randint(10, 23)}:{rng.randint(10, 59)}:"
            f'{rng.randint(10, 59)} +0000] "GET {path} HTTP/2.0" {code} {rng.randint(200, 90000)} '
            f'"-" "Mozilla/5.0" rt={rng.randint(1, 900) / 1000:.3f} '
            f'uct="0.00{rng.randint(1, 9)}"'
        )
    return "\n".join(lines)


def _ss(rng: R) -> str:
    rows = ["State  Recv-Q Send-Q Local Address:Port  Peer Address:Port Process"]
    for port in (80, 443, 8080, 9113, 22):
        rows.append(
            f"LISTEN 0      511    0.0.0.0:{port}        0.0.0.0:*     "
            f'users:(("nginx",pid={rng.randint(1000, 9999)},fd={rng.randint(5, 30)}))'
        )
    return "\n".join(rows)


def _nginx_t(rng: R) -> str:
    return "\n".join(
        [
            "# configuration file /etc/nginx/nginx.conf:",
            "user www-data;",
            f"worker_processes {rng.choice(('auto', 4, 8))};",
            f"worker_rlimit_nofile {rng.choice((65535, 131072))};",
            "events {",
            f"    worker_connections {rng.choice((2048, 4096, 8192))};",
            "}",
            "http {",
            "    gzip on;",
            f"    gzip_comp_level {rng.randint(3, 6)};",
            "    gzip_types text/css application/javascript application/json;",
            f"    client_max_body_size {rng.choice((10, 25, 50))}m;",
            "    include /etc/nginx/conf.d/*.conf;",
            "    include /etc/nginx/sites-enabled/*;",
            "}",
        ]
    )


_AZ_STEMS = ("yay-kampaniya", "kohne-portal", "beta-vitrin", "test-odenis", "qis-endirim")


NGINX_AZ = Kit(
    lang=AZ,
    intro=(
        (
            "Salam! Bu gün nginx və certbot ilə bağlı işlərə "
            "baxırıq: sertifikatlar, upstream, köhnə saytlar."
        ),
        (
            "Salam. Prod nginx serverində (web-01) sertifikatları "
            "və konfiqurasiyanı səliqəyə salmalıyıq."
        ),
    ),
    intro_reply="Salam! Hazıram, əvvəlcə vəziyyətə baxaq.",
    ids=(
        IdSpec(
            "certificate serial number",
            "sertifikatların",
            "müddəti bitmiş (INVALID: EXPIRED) sertifikatın seriya nömrəsi",
            "the certificate certbot listed as INVALID: EXPIRED",
            lambda rng: rng.choice("34") + hexits(rng, 35),
            "bash",
            {"command": "sudo certbot certificates"},
            "Saving debug log to /var/log/letsencrypt/letsencrypt.log\n\n"
            "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n"
            "Found the following certs:",
            _cert_row,
            "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -",
        ),
        IdSpec(
            "ACME account directory id",
            "ACME hesab qovluqlarının",
            "bu gün 19:41-də yaradılmış hesab qovluğu",
            "the account directory created today at 19:41",
            lambda rng: hexits(rng, 32),
            "bash",
            {
                "command": (
                    "sudo ls -l /etc/letsencrypt/accounts/acme-v02.api.letsencrypt.org/directory/"
                )
            },
            "total 28",
            _acct_row,
        ),
        IdSpec(
            "ACME order number",
            "letsencrypt.log-dakı sifarişlərin",
            "statusu invalid olan sifariş",
            "the ACME order whose status was invalid",
            lambda rng: str(rng.randrange(10**11, 10**12)),
            "bash",
            {
                "command": (
                    "sudo grep 'acme.client:Order' /var/log/"
                    "letsencrypt/letsencrypt.log | tail -n 12"
                )
            },
            "",
            _order_row,
        ),
    ),
    arts=(
        (
            ArtSpec(
                lambda rng: f"{rng.choice(_AZ_STEMS)}-{rng.randint(2, 9)}.conf",
                "disabled (unlinked from sites-enabled), not deleted",
                "{name} saytını söndür.",
                "{name}-i silmə, yalnız söndür — sites-available-da qalsın.",
                (
                    "{name} söndürüldü: sites-enabled-dəki link "
                    "götürüldü, fayl sites-available-da qalır."
                ),
                "bash",
                lambda n: {"command": f"sudo nginx-dissite {n} && sudo systemctl reload nginx"},
                _dissite,
                ("disabled", "söndürül"),
            ),
            ArtSpec(
                lambda rng: (
                    f"odenis{rng.randint(2, 9)}-{rng.choice(('api', 'gw', 'pay'))}.example.az"
                ),
                "re-keyed from RSA to ECDSA",
                "{name} sertifikatının açarını yenilə, RSA-dan ECDSA-ya keç.",
                "{name} sertifikatını silmə, yalnız açarını dəyiş (ECDSA).",
                (
                    "{name} üçün açar yeniləndi: indi ECDSA "
                    "(secp384r1), RSA açarı artıq istifadə olunmur."
                ),
                "bash",
                lambda n: {
                    "command": (
                        f"sudo certbot renew --cert-name {n} --key-type ecdsa --force-renewal"
                    )
                },
                _rekey,
                ("re-keyed", "ecdsa", "açar yeniləndi"),
            ),
        ),
        (
            ArtSpec(
                lambda rng: f"app{rng.randint(10, 99)}.int.example.az:8080",
                "drained (marked down in the upstream), not removed",
                "{name}-i upstream-dən boşalt, trafik getməsin.",
                "{name}-i upstream-dən silmə, sadəcə boşalt (drain).",
                "{name} boşaldıldı: upstream-də down ilə işarələndi, trafik getmir.",
                "bash",
                lambda n: {"command": "sudo vi /etc/nginx/conf.d/upstream.conf && git diff"},
                _drain,
                ("drain", "boşaldıl"),
            ),
            ArtSpec(
                lambda rng: (
                    f"{rng.choice(('kohne', 'arxiv', 'legacy'))}{rng.randint(2, 9)}.example.az.conf"
                ),
                "renewal config archived (moved to /root/renewal-archive)",
                "{name} yenilənmə faylını arxivə köçür.",
                "{name}-i silmə, yalnız arxivə köçür.",
                (
                    "{name} arxivləşdirildi: /root/renewal-"
                    "archive-ə köçürüldü, certbot onu yeniləməyəcək."
                ),
                "bash",
                lambda n: {
                    "command": f"sudo mv -v /etc/letsencrypt/renewal/{n} /root/renewal-archive/"
                },
                _archive,
                ("archive", "arxiv"),
            ),
        ),
    ),
    key="renew_before_expiry",
    values=("20 days", "25 days", "35 days", "40 days"),
    reasons=(
        "rate limitlərə ilişməyək",
        "həftəsonu yenilənmə uğursuz olsa, vaxtımız qalsın",
        "monitorinq xəbərdarlığı 14 gün qalmış gəlir",
    ),
    decision_q="What renew_before_expiry value was finally chosen for the certbot renewals?",
    tasks=(
        (
            "`certbot renew --dry-run`-ı işə salmalıyıq",
            "certbot renew --dry-run",
            "run certbot renew --dry-run",
        ),
        (
            "staging-də HSTS max-age dəyərini 63072000-ə qaldırmalıyıq",
            "63072000",
            "raise HSTS max-age to 63072000 on staging",
        ),
        (
            "`certbot.timer` üçün systemd override yazmalıyıq",
            "certbot.timer",
            "write a systemd override for certbot.timer",
        ),
    ),
    conds=(("DNS dəyişikliyi ns2.example.az-a yayılanda", "ns2.example.az"),),
    things=("worker_connections", "IPv6 listen", "OCSP stapling"),
    ticket="WEB",
    filler=(
        Filler(
            ("Son saatda 5xx cavabları nə qədərdir?", "Access log-a bax, 502 artıbmı?"),
            "bash",
            {"command": "sudo tail -n 20 /var/log/nginx/access.log"},
            _access_log,
            (
                "502-lər azdır, əsasən /api/v2/orders-dadır; ciddi artım yoxdur.",
                "Log normal görünür.",
            ),
        ),
        Filler(
            ("Hansı portlar dinlənir?", "nginx hansı portlarda qulaq asır?"),
            "bash",
            {"command": "sudo ss -tlnp | grep nginx"},
            _ss,
            ("Gözlənilən portlardır, əlavə heç nə yoxdur.", "Hər şey yerindədir."),
        ),
        Filler(
            ("gzip ayarlarına bax.", "nginx -T çıxışında worker ayarlarını yoxla."),
            "bash",
            {"command": "sudo nginx -T 2>/dev/null | head -n 16"},
            _nginx_t,
            (
                "gzip aktivdir, səviyyə normaldır.",
                "Worker ayarları qaydasındadır, dəyişməyə ehtiyac yoxdur.",
            ),
        ),
    ),
)


# --- PostgreSQL + Patroni + etcd, Burmese -------------------------------------------

_SEP_ETCD = (
    "+------------------+-----------+---------+-----------"
    "--------------+-------------------------+------------+"
)


def _etcd_row(rng: R, mid: str, target: bool) -> str:
    status = "unstarted" if target else "started"
    ip = f"10.20.0.{rng.randint(11, 60)}"
    name = "" if target else f"etcd-{rng.randint(1, 9)}"
    return (
        f"| {mid} | {status:<9} | {name:<7} | http://{ip}:2380  | "
        f"http://{ip}:2379  | {'false':>10} |"
    )


def _wal_row(rng: R, seg: str, target: bool) -> str:
    suffix = "ready" if target else "done"
    return (
        "-rw------- 1 postgres postgres 0 Dec  7 "
        f"1{rng.randint(0, 9)}:{rng.randint(10, 59)} {seg}.{suffix}"
    )


def _lsn_row(rng: R, lsn: str, target: bool) -> str:
    state = "catchup" if target else "streaming"
    lag = (
        f"00:0{rng.randint(1, 4)}:{rng.randint(10, 59)}.{rng.randint(100, 999)}"
        if target
        else (f"00:00:00.{rng.randint(1000, 9999):06d}")
    )
    return (
        f" pg-app-{rng.randint(2, 9)}-{rng.choice('abc')} |"
        f" 10.20.1.{rng.randint(10, 90):<3} | {state:<9} | "
        f"{rng.choice(('async', 'async', 'sync')):<5} | {lsn:<12} | {lag}"
    )


def _lsn(rng: R) -> str:
    return f"{rng.randint(0x50, 0x5F):X}/{hexits(rng, 8).upper()}"


def _patroni_pause(rng: R, name: str) -> str:
    return (
        "Success: cluster management is paused\n"
        f"{_ts(rng)},{rng.randint(100, 999)} INFO: {name}"
        ": cluster management paused (maintenance mode)"
    )


def _nofailover(rng: R, name: str) -> str:
    return (
        f"--- /etc/patroni/{name}.yml\n+++ /etc/patroni/{name}.yml\n"
        f"+  nofailover: true\n{_ts(rng)} INFO: {name}: tags "
        "updated, nofailover: true (excluded from failover)"
    )


def _rotate_role(rng: R, name: str) -> str:
    return f"-- rotated password for role {name} (VALID UNTIL '2027-03-07')\nALTER ROLE"


def _migrate_prefix(rng: R, name: str) -> str:
    return f"etcdctl migrate: migrated {name} (v2 -> v3): {rng.randint(9, 40)} keys\nOK"


def _patronictl_list(rng: R) -> str:
    rows = [
        f"+ Cluster: pg-main ({rng.randrange(10**18, 10**19)}) -----+----+-----------+",
        "| Member    | Host        | Role    | State     | TL | Lag in MB |",
        "+-----------+-------------+---------+-----------+----+-----------+",
    ]
    for i in range(1, 4):
        role = "Leader" if i == 1 else "Replica"
        state = "running" if i == 1 else "streaming"
        rows.append(
            f"| pg-node-{i} | 10.20.0.{20 + i} | {role:<7} | {state:<9} | {rng.randint(7, 9):>2} | "
            f"{'' if i == 1 else rng.randint(0, 3):>9} |"
        )
    return "\n".join(rows)


def _pg_log(rng: R) -> str:
    msgs = (
        "LOG:  checkpoint starting: time",
        "LOG:  checkpoint complete: wrote {n} buffers (1.2%); 0 WAL file(s) added, 1 removed",
        'LOG:  automatic vacuum of table "app.public.events": index scans: 1',
        "LOG:  duration: {n}.412 ms  statement: SELECT * FROM invoices WHERE status = $1",
        "LOG:  connection received: host=10.20.3.{n} port=52114",
    )
    return "\n".join(
        f"{_ts(rng)}.{rng.randint(100, 999)} UTC [{rng.randint(1000, 99999)}] "
        + rng.choice(msgs).format(n=rng.randint(10, 999))
        for _ in range(rng.randint(12, 18))
    )


def _etcd_health(rng: R) -> str:
    return "\n".join(
        f"http://10.20.0.{i}:2379 is healthy: successfully committed proposal: took = "
        f"{rng.randint(1, 9)}.{rng.randint(100000, 999999)}ms"
        for i in (11, 12, 13)
    )


_MY_STEMS = ("orders", "billing", "ledger", "catalog", "audit")

PATRONI_MY = Kit(
    lang=MY,
    intro=(
        "မင်္ဂလာပါ။ ဒီနေ့ Patroni cluster နဲ့ etcd ကို စစ်ကြမယ်။",
        "မင်္ဂလာပါ၊ PostgreSQL HA (Patroni + etcd) မှာ ပြဿနာ နည်းနည်း ရှိနေတယ်၊ ကြည့်ပေးပါ။",
    ),
    intro_reply="မင်္ဂလာပါ။ အဆင်သင့်ပါ၊ အရင်ဆုံး အခြေအနေကို ကြည့်ကြရအောင်။",
    ids=(
        IdSpec(
            "etcd member ID",
            "etcd member စာရင်း",
            "unstarted ဖြစ်နေတဲ့ etcd member ရဲ့ ID",
            "the etcd member whose STATUS was unstarted",
            lambda rng: hexits(rng, 16),
            "bash",
            {"command": "ETCDCTL_API=3 etcdctl member list -w table"},
            f"{_SEP_ETCD}\n|        ID        |  STATUS   |  NAME   |       PEER ADDRS        |"
            f"      CLIENT ADDRS       | IS LEARNER |\n{_SEP_ETCD}",
            _etcd_row,
            _SEP_ETCD,
        ),
        IdSpec(
            "WAL segment name",
            "pg_wal/archive_status ထဲက ဖိုင် စာရင်း",
            "archive မလုပ်ရသေးတဲ့ (.ready) WAL segment",
            "the WAL segment still marked .ready in archive_status",
            lambda rng: (
                f"0000000{rng.randint(7, 9)}000000A{rng.randint(2, 4)}"
                f"000000{hexits(rng, 2).upper()}"
            ),
            "bash",
            {
                "command": (
                    "sudo -u postgres ls -l /var/lib/postgresql/16/main/pg_wal/archive_status/"
                )
            },
            "total 0",
            _wal_row,
        ),
        IdSpec(
            "replay LSN",
            "pg_stat_replication ရလဒ်",
            "catchup အခြေအနေမှာ ရှိနေတဲ့ replica ရဲ့ replay_lsn",
            "the replica in state catchup (its replay_lsn)",
            _lsn,
            "bash",
            {
                "command": 'psql -XAc "select application_name, client_addr, state, sync_state,'
                ' replay_lsn, replay_lag from pg_stat_replication"'
            },
            " application_name | client_addr | state     | sync  | replay_lsn   | replay_lag\n"
            "------------------+-------------+-----------+-------+--------------+-----------",
            _lsn_row,
        ),
    ),
    arts=(
        (
            ArtSpec(
                lambda rng: f"pg-{rng.choice(_MY_STEMS)}-{rng.randint(2, 9)}",
                "cluster management paused (maintenance mode), nothing removed",
                "{name} cluster ကို pause လုပ်ပါ။",
                "{name} ကို မဖျက်ပါနဲ့၊ pause ပဲ လုပ်ပါ။",
                "{name} cluster ကို ခေတ္တရပ်ထား (paused) ပါပြီ — maintenance mode ဖြစ်နေပါတယ်။",
                "bash",
                lambda n: {"command": f"patronictl -c /etc/patroni/{n}.yml pause {n} --wait"},
                _patroni_pause,
                ("paused", "ခေတ္တရပ်"),
            ),
            ArtSpec(
                lambda rng: f"pg-replica-{rng.choice('xyz')}{rng.randint(2, 9)}",
                "tagged nofailover: true (excluded from failover, still a replica)",
                "{name} ကို failover မှာ မပါအောင် လုပ်ပါ။",
                "{name} ကို cluster ထဲက မဖယ်ပါနဲ့၊ failover ကနေပဲ ဖယ်ထားပါ။",
                "{name} ကို nofailover: true လုပ်ပြီးပါပြီ — replica အဖြစ် ဆက်ရှိပေမဲ့ failover မှာ မပါတော့ပါဘူး။",
                "bash",
                lambda n: {
                    "command": f"sudo vi /etc/patroni/{n}.yml && patronictl reload pg-main {n}"
                },
                _nofailover,
                ("nofailover",),
            ),
        ),
        (
            ArtSpec(
                lambda rng: f"svc_{rng.choice(_MY_STEMS)}_rw{rng.randint(2, 9)}",
                "password rotated (role kept)",
                "{name} role ရဲ့ password ကို ပြောင်းပါ။",
                "{name} role ကို မဖျက်ပါနဲ့၊ password ပဲ ပြောင်းပါ။",
                "{name} role ရဲ့ password ကို rotate လုပ်ပြီးပါပြီ၊ role ကတော့ ရှိနေဆဲပါ။",
                "bash",
                lambda n: {
                    "command": (
                        f"psql -Xc \"ALTER ROLE {n} PASSWORD :'newpw' VALID UNTIL '2027-03-07'\""
                    )
                },
                _rotate_role,
                ("rotate",),
            ),
            ArtSpec(
                lambda rng: f"/service/pg-{rng.choice(_MY_STEMS)}{rng.randint(2, 9)}",
                "migrated from the etcd v2 store to v3",
                "{name} prefix ကို etcd v3 ကို ရွှေ့ပါ။",
                "{name} ကို မဖျက်ပါနဲ့၊ v3 ကို ရွှေ့ပဲ ရွှေ့ပါ။",
                "{name} prefix ကို etcd v2 ကနေ v3 ကို migrate လုပ်ပြီးပါပြီ။",
                "bash",
                lambda n: {"command": f"etcdctl migrate --data-dir=/var/lib/etcd --prefix {n}"},
                _migrate_prefix,
                ("migrat", "ရွှေ့"),
            ),
        ),
    ),
    key="maximum_lag_on_failover",
    values=("1048576", "4194304", "8388608", "33554432"),
    reasons=(
        "data ဆုံးရှုံးမှု နည်းနိုင်သမျှ နည်းစေချင်လို့",
        "replica တွေ ညဘက် batch job တွေကြောင့် နောက်ကျတတ်လို့",
        "အရင် incident မှာ failover မဖြစ်ဘဲ ပိတ်မိခဲ့လို့",
    ),
    decision_q="What maximum_lag_on_failover value was finally chosen for Patroni?",
    tasks=(
        (
            "`patronictl switchover --candidate pg-node-2` ကို run ရမယ်",
            "switchover",
            "switch over to pg-node-2 with patronictl",
        ),
        (
            "etcd snapshot ကို `etcdctl snapshot save` နဲ့ ယူရမယ်",
            "snapshot save",
            "take an etcd snapshot with etcdctl snapshot save",
        ),
        (
            "invoices table ပေါ်မှာ `pg_repack` ကို run ရမယ်",
            "pg_repack",
            "run pg_repack on the invoices table",
        ),
    ),
    conds=(("etcd-quorum-alert ပြန်ငြိမ်သွား", "etcd-quorum-alert"),),
    things=("shared_buffers", "etcd disk latency", "wal_keep_size"),
    ticket="DBA",
    filler=(
        Filler(
            ("cluster အခြေအနေ ပြပါ။", "patronictl list ကို ပြန်ကြည့်ပါဦး။"),
            "bash",
            {"command": "patronictl -c /etc/patroni/patroni.yml list"},
            _patronictl_list,
            ("Leader တစ်ခု၊ replica နှစ်ခု — အားလုံး ပုံမှန်ပါ။", "lag မရှိသလောက်ပါပဲ။"),
        ),
        Filler(
            ("PostgreSQL log ကို ကြည့်ပါ။", "နောက်ဆုံး log တွေမှာ ထူးခြားတာ ရှိလား။"),
            "bash",
            {"command": "sudo tail -n 18 /var/log/postgresql/postgresql-16-main.log"},
            _pg_log,
            (
                "checkpoint နဲ့ autovacuum ပဲ ရှိပါတယ်၊ error မရှိပါ။",
                "slow query တစ်ချို့ပဲ ရှိတယ်၊ စိုးရိမ်စရာ မဟုတ်ပါ။",
            ),
        ),
        Filler(
            ("etcd endpoint health စစ်ပါ။", "etcd ကျန်းမာလား။"),
            "bash",
            {"command": "etcdctl endpoint health --cluster"},
            _etcd_health,
            ("endpoint သုံးခုလုံး healthy ပါ။", "etcd အဆင်ပြေပါတယ်။"),
        ),
    ),
)


# --- Jenkins, Georgian ----------------------------------------------------------------


def _cred_row(rng: R, cid: str, target: bool) -> str:
    desc = (
        "(expired — do not use)"
        if target
        else rng.choice(
            (
                "(github deploy key)",
                "(nexus upload)",
                "(slack webhook)",
                "(sonar token)",
                "(docker hub)",
            )
        )
    )
    return f"{cid} {rng.choice(('deploy-bot', 'ci-user', 'release-bot'))}/****** {desc}"


def _build_row(rng: R, sha: str, target: bool) -> str:
    result = "UNSTABLE" if target else rng.choice(("SUCCESS", "SUCCESS", "FAILURE"))
    return (
        f"#{rng.randint(1400, 1520):<5} {result:<9} 2026-12-0{rng.randint(1, 7)} "
        f"{rng.randint(10, 23)}:{rng.randint(10, 59)}  "
        f"{rng.randint(2, 19)}m{rng.randint(10, 59)}s  {sha}"
    )


def _fp_row(rng: R, md5: str, target: bool) -> str:
    owner = "outside Jenkins" if target else f"release-pipeline #{rng.randint(1400, 1520)}"
    art = rng.choice(("app", "api", "worker", "cli"))
    return (
        f"{art}-2.{rng.randint(10, 19)}.{rng.randint(0, 9)}.jar  md5:{md5}  original owner: {owner}"
    )


def _disable_job(rng: R, name: str) -> str:
    return f"jenkins-cli disable-job {name}: OK\nJob {name} is now disabled (builds kept)"


def _rename_job(rng: R, name: str) -> str:
    return f"Renamed job {name} -> {name}-legacy (history kept)"


def _offline(rng: R, name: str) -> str:
    return f"Node {name} is now offline: disk replacement (not deleted)"


def _downgrade(rng: R, name: str) -> str:
    return (
        f"Downgraded {name} from 4.{rng.randint(5, 9)}.1 to 4.{rng.randint(1, 4)}.0 (rolled back)\n"
        "Restart required to apply the change."
    )


def _console(rng: R) -> str:
    lines = [
        "Started by timer",
        "Running in Durability level: MAX_SURVIVABILITY",
        "[Pipeline] Start of Pipeline",
    ]
    for stage in ("Checkout", "Build", "Unit tests", "Package"):
        lines += [
            f"[Pipeline] {{ ({stage})",
            f"+ ./gradlew {stage.lower().replace(' ', '')} --no-daemon",
        ]
        lines += [f"BUILD SUCCESSFUL in {rng.randint(10, 90)}s", "[Pipeline] }"]
    lines.append("Finished: SUCCESS")
    return "\n".join(lines)


def _queue(rng: R) -> str:
    rows = ["NODE              EXECUTORS  BUSY  STATE"]
    for i in range(1, 6):
        rows.append(f"linux-{i:02d}          4          {rng.randint(0, 4)}     online")
    return "\n".join(rows)


def _gc(rng: R) -> str:
    return "\n".join(
        f"[{_ts(rng)}] GC(pause) Pause Young (Normal) (G1 Evacuation Pause) "
        f"{rng.randint(800, 2400)}M->{rng.randint(300, 700)}M({rng.randint(3, 4)}"
        f"096M) {rng.randint(5, 80)}.{rng.randint(100, 999)}ms"
        for _ in range(rng.randint(10, 16))
    )


_KA_PLUGINS = ("git-client", "kubernetes", "workflow-cps", "credentials-binding", "docker-workflow")
_KA_STEMS = ("mobile-app", "payments", "docs-site", "etl", "frontend")

JENKINS_KA = Kit(
    lang=KA,
    intro=(
        "გამარჯობა! დღეს Jenkins-ს ვალაგებთ: credentials, job-ები, agent-ები.",
        "გამარჯობა. Jenkins controller-ზე (ci-01) რამდენიმე საქმე გვაქვს, დავიწყოთ.",
    ),
    intro_reply="გამარჯობა! მზად ვარ, ჯერ მდგომარეობას ვნახავ.",
    ids=(
        IdSpec(
            "credential ID",
            "credential-ების სია",
            "ვადაგასული (expired) credential-ის ID",
            "the credential described as expired",
            _uuid,
            "bash",
            {
                "command": (
                    "java -jar jenkins-cli.jar -s https://ci-"
                    "01:8443/ list-credentials system::system::jenkins"
                )
            },
            "=============================\nDomain           (global)\nDescription\n"
            "=============================\nId                                   Name",
            _cred_row,
        ),
        IdSpec(
            "git commit SHA",
            "api-service-ის build-ების ისტორია",
            "UNSTABLE შედეგის მქონე build-ის commit",
            "the api-service build whose result was UNSTABLE",
            lambda rng: hexits(rng, 40),
            "bash",
            {"command": "./jq-builds.sh api-service --last 8  # number result date duration sha"},
            "",
            _build_row,
        ),
        IdSpec(
            "artifact fingerprint (md5)",
            "fingerprint-ების სია",
            "Jenkins-ის გარეთ შექმნილი ფაილის fingerprint",
            "the artifact whose original owner was outside Jenkins",
            lambda rng: hexits(rng, 32),
            "bash",
            {"command": "curl -s https://ci-01:8443/fingerprints/ | ./fp-table"},
            "",
            _fp_row,
        ),
    ),
    arts=(
        (
            ArtSpec(
                lambda rng: f"{rng.choice(_KA_STEMS)}-nightly-{rng.randint(2, 9)}",
                "disabled, not deleted (builds kept)",
                "{name} job გამორთე.",
                "{name} არ წაშალო, მხოლოდ გამორთე.",
                "{name} გაითიშა (disabled) — job და მისი build-ები ადგილზეა.",
                "bash",
                lambda n: {"command": f"java -jar jenkins-cli.jar disable-job {n}"},
                _disable_job,
                ("disabled", "გაითიშ"),
            ),
            ArtSpec(
                lambda rng: f"{rng.choice(_KA_STEMS)}-deploy-v{rng.randint(2, 9)}",
                "renamed to <name>-legacy (history kept)",
                "{name} გადაარქვი, -legacy დაუმატე.",
                "{name} არ წაშალო, მხოლოდ გადაარქვი სახელი (-legacy).",
                "{name} გადაერქვა: ახლა მისი სახელია {name}-legacy, ისტორია შენარჩუნებულია.",
                "bash",
                lambda n: {
                    "command": (
                        "java -jar jenkins-cli.jar groovy = <<< "
                        f"\"Jenkins.instance.getItem('{n}').renameTo('{n}-legacy')\""
                    )
                },
                _rename_job,
                ("renamed", "გადაერქვა"),
            ),
        ),
        (
            ArtSpec(
                lambda rng: f"build-agent-{rng.randint(10, 49)}",
                "taken offline for a disk replacement, not deleted",
                "{name} offline-ში გადაიყვანე.",
                "{name} არ წაშალო, მხოლოდ offline გახადე.",
                "{name} offline-შია (დისკის გამოცვლა), node წაშლილი არ არის.",
                "bash",
                lambda n: {
                    "command": f"java -jar jenkins-cli.jar offline-node {n} -m 'disk replacement'"
                },
                _offline,
                ("offline",),
            ),
            ArtSpec(
                lambda rng: rng.choice(_KA_PLUGINS),
                "plugin rolled back to the previous version",
                "{name} plugin წინა ვერსიაზე დააბრუნე.",
                "{name} plugin არ წაშალო, მხოლოდ წინა ვერსიაზე დააბრუნე.",
                "{name} plugin დავაბრუნე წინა ვერსიაზე (rolled back), საჭიროა restart.",
                "bash",
                lambda n: {"command": f"java -jar jenkins-cli.jar groovy = < downgrade-{n}.groovy"},
                _downgrade,
                ("rolled back", "დავაბრუნე", "downgrad"),
            ),
        ),
    ),
    key="numToKeepStr",
    values=("30", "50", "80", "120"),
    reasons=(
        "JENKINS_HOME დისკი თითქმის სავსეა",
        "აუდიტისთვის ბოლო ორი თვის build-ები გვჭირდება",
        "backup ძალიან დიდხანს გრძელდება",
    ),
    decision_q="What numToKeepStr value for the build discarder was finally chosen?",
    tasks=(
        (
            "`jenkins-plugin-cli --available-updates` უნდა გავუშვათ",
            "--available-updates",
            "check plugin updates with jenkins-plugin-cli --available-updates",
        ),
        ("JCasC-ის jenkins.yaml უნდა განვაახლოთ", "jenkins.yaml", "update the JCasC jenkins.yaml"),
        (
            "JENKINS_HOME-ის backup აღდგენით უნდა შევამოწმოთ",
            "JENKINS_HOME",
            "test-restore the JENKINS_HOME backup",
        ),
    ),
    conds=(("როცა linux-07-ზე დისკი შეიცვლება", "linux-07"),),
    things=("Java heap", "GitHub webhook", "executor starvation"),
    ticket="CI",
    filler=(
        Filler(
            ("ბოლო nightly build-ის console log მაჩვენე.", "როგორ დასრულდა ბოლო build?"),
            "bash",
            {"command": "java -jar jenkins-cli.jar console core-lib -n 60"},
            _console,
            ("Build წარმატებით დასრულდა, ყველა stage მწვანეა.", "შეცდომა არ არის."),
        ),
        Filler(
            ("executor-ების მდგომარეობა ნახე.", "agent-ები როგორ არის დატვირთული?"),
            "bash",
            {"command": "./nodes-table.sh"},
            _queue,
            ("ყველა node online-ია, დატვირთვა ნორმალურია.", "რიგი არ გროვდება."),
        ),
        Filler(
            (
                "GC log-ს შეხედე, ხომ არ გვაქვს გრძელი პაუზები?",
                "controller-ის მეხსიერება როგორ არის?",
            ),
            "bash",
            {"command": "tail -n 14 /var/log/jenkins/gc.log"},
            _gc,
            ("პაუზები მოკლეა, heap საკმარისია.", "GC ნორმალურად მუშაობს."),
        ),
    ),
)


# --- Apache Airflow on Celery, Macedonian ------------------------------------------

_K8S = "bcdfghjklmnpqrstvwxz2456789"


def _run_id(rng: R) -> str:
    day, hour = rng.randint(1, 30), rng.choice((0, 2, 4, 6))
    if rng.random() < 0.3:
        return (
            f"manual__2026-11-{day:02d}T{rng.randint(8, 18):02d}:{rng.randint(10, 59)}"
            f":{rng.randint(10, 59)}.{rng.randint(100000, 999999)}+00:00"
        )
    return f"scheduled__2026-11-{day:02d}T{hour:02d}:00:00+00:00"


def _run_row(rng: R, run: str, target: bool) -> str:
    state = "failed" if target else rng.choice(("success", "success", "running"))
    return f"etl_orders | {run:<52} | {state:<7} | 2026-11-{rng.randint(1, 30):02d}T02:00:00+00:00"


def _task_row(rng: R, tid: str, target: bool) -> str:
    state = "RETRY" if target else rng.choice(("SUCCESS", "SUCCESS", "STARTED"))
    return (
        f"{tid}  execute_command  {state:<8}  celery@airflow-worker-{rng.randint(0, 5)}  "
        f"2026-12-07 {rng.randint(10, 19)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}"
    )


def _pod(rng: R) -> str:
    return (
        f"airflow-worker-{''.join(rng.choice(_K8S) for _ in range(9))}"
        f"-{''.join(rng.choice(_K8S) for _ in range(5))}"
    )


def _pod_row(rng: R, pod: str, target: bool) -> str:
    if target:
        return (
            f"{pod}   0/1     CrashLoopBackOff   {rng.randint(6, 30)}"
            f" ({rng.randint(1, 9)}m ago)   {rng.randint(2, 6)}d"
        )
    return f"{pod}   1/1     Running            0              {rng.randint(2, 6)}d"


def _af_pause(rng: R, name: str) -> str:
    return f"Dag: {name}, paused: True"


def _af_conn(rng: R, name: str) -> str:
    return f"Successfully updated connection with `conn_id`={name} (password rotated)"


def _af_cancel(rng: R, name: str) -> str:
    return "\n".join(
        f"-> celery@airflow-worker-{i}: OK\n    no longer consuming from '{name}'" for i in range(3)
    )


def _af_pool(rng: R, name: str) -> str:
    return (
        "pool                 | slots | description\n"
        "=====================+=======+=================================\n"
        f"{name} | 0     | scaled to zero for the migration"
    )


def _sched_log(rng: R) -> str:
    dags = ("etl_customers", "refresh_dashboards", "sync_inventory", "cleanup_tmp")
    return "\n".join(
        f"[{_ts(rng)},{rng.randint(100, 999)}] "
        f"{{scheduler_job_runner.py:{rng.randint(400, 900)}}} INFO - "
        f"Setting the following tasks to queued state: <TaskInstance: {rng.choice(dags)}.extract "
        f"scheduled__2026-12-07T{rng.randint(10, 23)}:00:00+00:00 [scheduled]>"
        for _ in range(rng.randint(10, 16))
    )


def _celery_stats(rng: R) -> str:
    return "\n".join(
        f"-> celery@airflow-worker-{i}: OK\n    {{'pool': {{'max-concurrency': 16, 'processes': "
        f"[{', '.join(str(rng.randint(100, 999)) for _ in range(4))}]}}, 'total': "
        f"{{'execute_command': {rng.randint(1000, 9999)}}}}}"
        for i in range(3)
    )


def _top(rng: R) -> str:
    rows = ["NAME                                CPU(cores)   MEMORY(bytes)"]
    for name in (
        "airflow-scheduler-0",
        "airflow-webserver-0",
        "airflow-redis-0",
        "airflow-flower-0",
    ):
        rows.append(f"{name:<35} {rng.randint(5, 900)}m        {rng.randint(100, 3000)}Mi")
    return "\n".join(rows)


_MK_STEMS = ("izvestai_prodazba", "sinhronizacija_magacin", "fakturi_mesecni", "backup_crm")

AIRFLOW_MK = Kit(
    lang=MK,
    intro=(
        "Здраво! Денеска го средуваме Airflow-от со Celery: DAG-ови, workers, редици.",
        "Здраво. Имаме неколку проблеми со Airflow (Celery executor) во prod, ајде да ги решиме.",
    ),
    intro_reply="Здраво! Спремен сум, прво да ја видиме состојбата.",
    ids=(
        IdSpec(
            "DAG run id",
            "run-овите на etl_orders",
            "неуспешниот (failed) run",
            "the etl_orders run in state failed",
            _run_id,
            "bash",
            {"command": "airflow dags list-runs -d etl_orders --no-backfill -o plain | head -n 12"},
            (
                "dag_id     | run_id                           "
                "                    | state   | execution_date"
            ),
            _run_row,
        ),
        IdSpec(
            "Celery task id",
            "Celery задачите од Flower",
            "задачата во состојба RETRY",
            "the Celery task in state RETRY",
            _uuid,
            "bash",
            {"command": "curl -s http://airflow-flower:5555/api/tasks?limit=10 | ./flower-table"},
            (
                "UUID                                  NAME       "
                "      STATE     WORKER                    RECEIVED"
            ),
            _task_row,
        ),
        IdSpec(
            "worker pod name",
            "worker подовите",
            "подот во CrashLoopBackOff",
            "the worker pod in CrashLoopBackOff",
            _pod,
            "bash",
            {"command": "kubectl get pods -n airflow -l component=worker"},
            "NAME                                   READY   STATUS             RESTARTS        AGE",
            _pod_row,
        ),
    ),
    arts=(
        (
            ArtSpec(
                lambda rng: f"{rng.choice(_MK_STEMS)}_v{rng.randint(2, 9)}",
                "paused, not deleted",
                "Паузирај го DAG-от {name}.",
                "Не го бриши {name}, само паузирај го.",
                "DAG-от {name} е паузиран — не е избришан, историјата останува.",
                "bash",
                lambda n: {"command": f"airflow dags pause {n}"},
                _af_pause,
                ("paused: true", "паузиран"),
            ),
            ArtSpec(
                lambda rng: (
                    f"{rng.choice(('erp', 'crm', 'dwh', 'billing'))}_postgres_{rng.randint(2, 9)}"
                ),
                "its password rotated (connection kept)",
                "Ротирај ја лозинката на конекцијата {name}.",
                "Не ја бриши конекцијата {name}, само ротирај ја лозинката.",
                "На конекцијата {name} лозинката е ротирана; конекцијата останува.",
                "bash",
                lambda n: {
                    "command": (
                        "airflow connections delete-then-add -"
                        f'-conn-id {n} --conn-password "$NEWPW"'
                    )
                },
                _af_conn,
                ("rotated", "ротиран"),
            ),
        ),
        (
            ArtSpec(
                lambda rng: (
                    f"q_{rng.choice(('heavy', 'reports', 'ml', 'exports'))}_{rng.randint(2, 9)}"
                ),
                "drained (workers stopped consuming it), queue not deleted",
                "Испразни ја редицата {name} — workers нека престанат да ја читаат.",
                "Не ја бриши редицата {name}, само испразни ја.",
                "Редицата {name} е испразнета: ниту еден worker не ја консумира, но постои.",
                "bash",
                lambda n: {
                    "command": (
                        "celery -A airflow.providers.celery.executors.celery_executor.app "
                        f"control cancel_consumer {n}"
                    )
                },
                _af_cancel,
                ("no longer consuming", "испразн"),
            ),
            ArtSpec(
                lambda rng: f"{rng.choice(('dwh', 'api', 'sftp'))}_pool_{rng.randint(2, 9)}",
                "scaled to zero slots for the migration (pool kept)",
                "Намали го пулот {name} на нула.",
                "Не го бриши пулот {name}, само намали го на нула слотови.",
                "Пулот {name} е намален на нула слотови за време на миграцијата.",
                "bash",
                lambda n: {
                    "command": f"airflow pools set {n} 0 'scaled to zero for the migration'"
                },
                _af_pool,
                ("scaled to zero", "на нула"),
            ),
        ),
    ),
    key="worker_concurrency",
    values=("8", "12", "24", "32"),
    reasons=(
        "workers имаат само 16 GiB меморија",
        "редицата постојано расте навечер",
        "базата не издржува повеќе конекции",
    ),
    decision_q="What worker_concurrency was finally chosen for the Celery workers?",
    tasks=(
        (
            "треба да пуштиме `airflow db clean` за стари записи",
            "airflow db clean",
            "run airflow db clean on old records",
        ),
        (
            "треба да го надградиме apache-airflow-providers-celery",
            "apache-airflow-providers-celery",
            "upgrade apache-airflow-providers-celery",
        ),
        (
            "треба да ги префрлиме DAG-овите од schedule_interval на schedule",
            "schedule_interval",
            "move the DAGs from schedule_interval to schedule",
        ),
    ),
    conds=(("Кога redis-broker-0 ќе се врати", "redis-broker-0"),),
    things=("Redis visibility_timeout", "DAG parsing", "parallelism"),
    ticket="DATA",
    filler=(
        Filler(
            ("Погледни го логот на scheduler-от.", "Дали scheduler-от редовно закажува?"),
            "bash",
            {"command": "kubectl logs -n airflow airflow-scheduler-0 --tail=16"},
            _sched_log,
            ("Scheduler-от редовно ги става задачите во редица.", "Нема грешки во логот."),
        ),
        Filler(
            ("Колку задачи извршиле workers?", "Celery статистика, те молам."),
            "bash",
            {
                "command": (
                    "celery -A airflow.providers.celery.executors.celery_executor.app inspect stats"
                )
            },
            _celery_stats,
            ("Сите три workers одговараат, оптоварувањето е рамномерно.", "Статистиката е во ред."),
        ),
        Filler(
            ("Колку ресурси трошат подовите?", "kubectl top за airflow."),
            "bash",
            {"command": "kubectl top pods -n airflow"},
            _top,
            ("Потрошувачката е нормална.", "Ништо не е блиску до лимитот."),
        ),
    ),
)


# --- HashiCorp Consul, Tagalog --------------------------------------------------------


def _peer_row(rng: R, nid: str, target: bool) -> str:
    voter = "false" if target else "true"
    state = "follower" if target else rng.choice(("follower", "follower", "leader"))
    return (
        f"consul-srv-{rng.randint(1, 9)}  {nid}  10.30.0.{rng.randint(10, 99)}:8300  "
        f"{state:<8}  {voter:<5}  3             {rng.randint(480000, 490000)}  {rng.randint(0, 9)}"
    )


def _svc_id(rng: R) -> str:
    svc = rng.choice(("payments-api", "orders-api", "auth-svc", "search-api", "cart-svc"))
    return (
        f"{svc}-{''.join(rng.choice(_K8S) for _ in range(10))}"
        f"-{''.join(rng.choice(_K8S) for _ in range(5))}"
    )


def _health_row(rng: R, sid: str, target: bool) -> str:
    status = "critical" if target else "passing"
    out = "connect: connection refused" if target else "HTTP GET /health: 200 OK"
    return f"ip-10-30-{rng.randint(1, 9)}-{rng.randint(10, 99)}  {sid}  {status:<8}  {out}"


def _token_row(rng: R, acc: str, target: bool) -> str:
    desc = rng.choice(
        ("nomad-server", "vault-backend", "terraform-ci", "prometheus", "registrator")
    )
    exp = "2026-12-08 09:00:00 +0000 UTC" if target else "<none>"
    return (
        f"AccessorID:       {acc}\nDescription:      {desc}\nLocal:            false\n"
        f"ExpirationTime:   {exp}\nPolicies:\n   {hexits(rng, 8)}-... - {desc}-policy\n"
    )


def _maint(rng: R, name: str) -> str:
    return (
        "Service maintenance is now enabled\n"
        f"{_ts(rng)} [INFO]  agent: Service entered maintenance mode: service={name}"
    )


def _kv_rollback(rng: R, name: str) -> str:
    return (
        f"Success! Data written to: {name} (rolled back to ModifyIndex {rng.randint(40000, 90000)})"
    )


def _policy_rename(rng: R, name: str) -> str:
    return (
        f"ID:           {_uuid(rng)}\nName:         {name}-old\nrenamed policy {name} -> {name}-old"
    )


def _snap_archive(rng: R, name: str) -> str:
    return f"move: ./{name} to s3://consul-backups/archive/{name}"


def _members(rng: R) -> str:
    rows = [
        "Node              Address            Status  "
        "Type    Build   Protocol  DC   Partition  Segment"
    ]
    for i in range(1, 4):
        rows.append(
            f"consul-srv-{i}      10.30.0.{10 + i}:8301     alive "
            "  server  1.17.2  2         dc1  default    <all>"
        )
    for _ in range(rng.randint(4, 7)):
        rows.append(
            f"ip-10-30-{rng.randint(1, 9)}-{rng.randint(10, 99)}   10.30.{rng.randint(1, 9)}"
            f".{rng.randint(10, 99)}:8301  alive   client "
            " 1.17.2  2         dc1  default    <default>"
        )
    return "\n".join(rows)


def _consul_log(rng: R) -> str:
    msgs = (
        "agent: Synced check: check=service:web-frontend-1",
        "agent.server.raft: snapshot complete up to: index={n}",
        "agent: (LAN) joined: number_of_nodes={n}",
        (
            "agent.server.memberlist.lan: memberlist: Suspect "
            "ip-10-30-4-{n} has failed, no acks received"
        ),
    )
    return "\n".join(
        f"{_ts(rng)} [INFO]  " + rng.choice(msgs).format(n=rng.randint(10, 99999))
        for _ in range(rng.randint(10, 16))
    )


_TL_STEMS = ("checkout", "promos", "inventory", "loyalty", "shipping")

CONSUL_TL = Kit(
    lang=TL,
    intro=(
        "Hi! Ngayon aayusin natin ang Consul cluster sa dc1: raft, services, ACL.",
        "Magandang araw. May ilang problema tayo sa Consul sa production, tingnan natin.",
    ),
    intro_reply="Hi! Handa na ako, tingnan muna natin ang kalagayan.",
    ids=(
        IdSpec(
            "raft peer node ID",
            "mga raft peer",
            "ang peer na hindi voter (Voter false)",
            "the raft peer that is not a voter",
            _uuid,
            "bash",
            {"command": "consul operator raft list-peers"},
            (
                "Node          ID                                    Address       "
                "     State     Voter  RaftProtocol  Commit Index  Trails Leader By"
            ),
            _peer_row,
        ),
        IdSpec(
            "service instance ID",
            "health checks ng mga serbisyo",
            "ang instance na critical",
            "the service instance whose check was critical",
            _svc_id,
            "bash",
            {
                "command": (
                    "curl -s localhost:8500/v1/health/state/any | jq -"
                    "r '.[] | [.Node,.ServiceID,.Status,.Output] | @tsv'"
                )
            },
            "",
            _health_row,
        ),
        IdSpec(
            "ACL token AccessorID",
            "mga ACL token",
            "ang token na may ExpirationTime (mag-e-expire bukas ng umaga)",
            "the ACL token that has an ExpirationTime set",
            _uuid,
            "bash",
            {"command": "consul acl token list"},
            "",
            _token_row,
        ),
    ),
    arts=(
        (
            ArtSpec(
                lambda rng: f"{rng.choice(_TL_STEMS)}-worker-{rng.randint(2, 9)}",
                "put in maintenance mode, not deregistered",
                "Ilagay mo sa maintenance mode ang {name}.",
                "Huwag mong i-deregister ang {name}, ilagay lang sa maintenance mode.",
                "Naka-maintenance mode na ang {name}; hindi ito na-deregister.",
                "bash",
                lambda n: {"command": f"consul maint -enable -service={n} -reason='node patching'"},
                _maint,
                ("maintenance",),
            ),
            ArtSpec(
                lambda rng: f"config/{rng.choice(_TL_STEMS)}/feature_flags_v{rng.randint(2, 9)}",
                "rolled back to its previous version",
                "Ibalik mo sa dating bersyon ang {name}.",
                "Huwag mong burahin ang {name}, ibalik lang sa dating bersyon.",
                "Ibinalik ko ang {name} sa dating bersyon (rolled back).",
                "bash",
                lambda n: {"command": f"consul kv put {n} @feature_flags.prev.json"},
                _kv_rollback,
                ("rolled back", "ibinalik"),
            ),
        ),
        (
            ArtSpec(
                lambda rng: f"policy-{rng.choice(_TL_STEMS)}-rw{rng.randint(2, 9)}",
                "renamed to <name>-old (not deleted)",
                "Palitan mo ang pangalan ng {name}, lagyan ng -old.",
                "Huwag mong burahin ang {name}, palitan lang ang pangalan.",
                "Pinalitan ko ang pangalan ng {name}: {name}-old na ito ngayon.",
                "bash",
                lambda n: {"command": f"consul acl policy update -name {n} -new-name {n}-old"},
                _policy_rename,
                ("renamed", "pinalitan"),
            ),
            ArtSpec(
                lambda rng: (
                    f"consul-dc1-2026{rng.randint(10, 11)}"
                    f"{rng.randint(10, 28)}-{rng.randint(10, 23)}00.snap"
                ),
                "archived to s3://consul-backups/archive/",
                "Ilipat mo sa archive ang {name}.",
                "Huwag mong burahin ang {name}, ilipat lang sa archive.",
                "Nailipat ko na sa archive ang {name}.",
                "bash",
                lambda n: {"command": f"aws s3 mv ./{n} s3://consul-backups/archive/{n}"},
                _snap_archive,
                ("archive",),
            ),
        ),
    ),
    key="service_ttl",
    values=("10s", "15s", "45s", "2m"),
    reasons=(
        "masyadong maraming DNS query sa mga server",
        "mabilis dapat mawala sa DNS ang mga patay na instance",
        "iyon ang sinusuportahan ng caching ng mga client",
    ),
    decision_q="What dns_config service_ttl value was finally chosen?",
    tasks=(
        ("kailangan nating i-upgrade ang Consul sa 1.17.3", "1.17.3", "upgrade Consul to 1.17.3"),
        (
            "kailangan nating gumawa ng bagong snapshot gamit ang `consul snapshot save`",
            "consul snapshot save",
            "take a fresh consul snapshot save",
        ),
        (
            "kailangan nating i-rotate ang gossip keyring (`consul keyring -install`)",
            "keyring",
            "rotate the gossip keyring",
        ),
    ),
    conds=(("Kapag bumalik na sa alive ang consul-srv-2", "consul-srv-2"),),
    things=("gossip encryption", "DNS recursor", "raft_multiplier"),
    ticket="NET",
    filler=(
        Filler(
            ("Ipakita mo ang consul members.", "Buhay ba lahat ng node?"),
            "bash",
            {"command": "consul members"},
            _members,
            ("Lahat ng node ay alive.", "Walang failed na member."),
        ),
        Filler(
            ("Tingnan mo ang log ng agent.", "May kakaiba ba sa log ng server?"),
            "bash",
            {"command": "journalctl -u consul --since '-30m' --no-pager | tail -n 16"},
            _consul_log,
            ("Normal ang log; may isang suspect pero bumalik din.", "Walang error sa log."),
        ),
    ),
)


# --- Elastic Beats + Logstash, Marathi ----------------------------------------------


def _plugin_row(rng: R, pid: str, target: bool) -> str:
    kind = rng.choice(("grok", "mutate", "date", "geoip", "useragent"))
    fails = rng.randint(1200, 9000) if target else 0
    n = rng.randint(100000, 9999999)
    return f"filter  {kind:<9}  {pid}  in={n}  out={n - fails}  failures={fails}"


def _backing(rng: R) -> str:
    ds = rng.choice(("nginx.access", "nginx.error", "system.syslog", "app.json"))
    return f".ds-logs-{ds}-default-2026.12.0{rng.randint(1, 7)}-{rng.randint(1, 60):06d}"


def _index_row(rng: R, idx: str, target: bool) -> str:
    health = "red" if target else rng.choice(("green", "green", "yellow"))
    return (
        f"{health:<6} open   {idx:<56} {hexits(rng, 22)}"
        f"   1   1   {rng.randint(10**5, 10**7):>9}   "
        f"{rng.randint(1, 90)}.{rng.randint(1, 9)}gb"
    )


def _beat_row(rng: R, aid: str, target: bool) -> str:
    version = "8.10.4" if target else "8.11.3"
    return f"web-{rng.randint(10, 60)}.prod  {aid}  filebeat  {version}  last_seen={_ts(rng)}"


def _ls_disable(rng: R, name: str) -> str:
    return (
        f"disabled pipeline {name} in /etc/logstash/pipelines.yml (commented out, config kept)\n"
        f"[{_ts(rng)},{rng.randint(100, 999)}][INFO "
        "][logstash.agent] Pipelines running {:count=>3}"
    )


def _ls_rollback(rng: R, name: str) -> str:
    return (
        f"Updated 1 path from the index\nrolled back {name} to the previous commit\n"
        f"[{_ts(rng)},{rng.randint(100, 999)}][INFO ][logstash.javapipeline] Pipeline started"
    )


def _dlq_archive(rng: R, name: str) -> str:
    return f"archived /var/lib/logstash/dead_letter_queue/{name} -> /mnt/archive/{name}.tar.zst"


def _rekey_beat(rng: R, name: str) -> str:
    return f"{name}: client certificate re-issued (re-keyed), serial rotated, filebeat restarted"


def _ls_log(rng: R) -> str:
    msgs = (
        "[INFO ][logstash.outputs.elasticsearch] Restored connection to ES instance",
        "[WARN ][logstash.outputs.elasticsearch] Retrying failed action {{:status=>429}}",
        '[INFO ][logstash.inputs.beats] Starting input listener {{:address=>"0.0.0.0:5044"}}',
        (
            "[INFO ][logstash.javapipeline] Pipeline Java "
            'execution initialization time {{"seconds"=>{n}.2}}'
        ),
    )
    return "\n".join(
        f"[{_ts(rng)},{rng.randint(100, 999)}]" + rng.choice(msgs).format(n=rng.randint(1, 9))
        for _ in range(rng.randint(10, 16))
    )


def _cat_nodes(rng: R) -> str:
    rows = ["ip          heap.percent ram.percent cpu load_1m node.role name"]
    for name in ("es-master-1", "es-warm-1", "es-warm-2", "es-ingest-1"):
        rows.append(
            f"10.40.0.{rng.randint(10, 99)}  {rng.randint(20, 80):>12} {rng.randint(50, 99):>11} "
            f"{rng.randint(1, 90):>3} {rng.randint(0, 9)}.{rng.randint(10, 99):<5}"
            f" {'m' if 'master' in name else 'dw'}   {name}"
        )
    return "\n".join(rows)


def _fb_log(rng: R) -> str:
    return "\n".join(
        f"{_ts(rng).replace(' ', 'T')}.{rng.randint(100, 999)}"
        "Z\tINFO\t[monitoring]\tlog/log.go:187\t"
        f'Non-zero metrics in the last 30s\t{{"harvester":{{"open_files":{rng.randint(2, 40)}}},'
        f'"output":{{"events":{{"acked":{rng.randint(100, 9000)}}}}}}}'
        for _ in range(rng.randint(8, 12))
    )


_MR_STEMS = ("payments", "audit", "clickstream", "firewall", "k8s-events")

LOGSTASH_MR = Kit(
    lang=MR,
    intro=(
        "नमस्कार! आज आपण Filebeat आणि Logstash pipelines नीट करणार आहोत.",
        "नमस्कार. prod मधल्या Logstash pipeline मध्ये काही अडचणी आहेत, चल बघूया.",
    ),
    intro_reply="नमस्कार! मी तयार आहे, आधी सद्यस्थिती बघतो.",
    ids=(
        IdSpec(
            "Logstash plugin id",
            "main pipeline मधल्या filter plugins ची यादी",
            "failures असलेला filter plugin",
            "the filter plugin with failures",
            lambda rng: hexits(rng, 64),
            "bash",
            {
                "command": (
                    "curl -s localhost:9600/_node/stats/pipelines/main "
                    "| jq -r '.pipelines.main.plugins.filters[] | ...'"
                )
            },
            "",
            _plugin_row,
        ),
        IdSpec(
            "backing index name",
            "logs data streams च्या backing indices ची यादी",
            "red health असलेला index",
            "the backing index whose health was red",
            _backing,
            "bash",
            {"command": "curl -s 'es-hot-01:9200/_cat/indices/.ds-logs-*?v&s=index'"},
            (
                "health status index                                           "
                "         uuid                     pri rep docs.count store.size"
            ),
            _index_row,
        ),
        IdSpec(
            "Filebeat agent.id",
            "Filebeat agents ची यादी",
            "जुनी (8.10.4) आवृत्ती चालवणारा filebeat",
            "the Filebeat still running version 8.10.4",
            _uuid,
            "bash",
            {
                "command": (
                    "curl -s 'es-hot-01:9200/.monitoring-beats-*/_search?size=0' | ./beats-table"
                )
            },
            "HOST          AGENT.ID                              BEAT      VERSION  LAST SEEN",
            _beat_row,
        ),
    ),
    arts=(
        (
            ArtSpec(
                lambda rng: f"{rng.choice(_MR_STEMS)}-pipeline-{rng.randint(2, 9)}",
                "disabled in pipelines.yml (commented out), config not deleted",
                "{name} बंद कर.",
                "{name} डिलीट करू नकोस, फक्त बंद कर.",
                "{name} बंद केली (disabled): pipelines.yml मध्ये comment केली, config फाइल तशीच आहे.",
                "bash",
                lambda n: {
                    "command": (
                        f"sudo sed -i '/pipeline.id: {n}/,+1 s/^/# /' /etc/logstash/pipelines.yml"
                    )
                },
                _ls_disable,
                ("disabled", "बंद केली"),
            ),
            ArtSpec(
                lambda rng: f"{rng.choice(_MR_STEMS)}-enrich-{rng.randint(2, 9)}",
                "rolled back to the previous config commit",
                "{name} चा config आधीच्या commit वर परत ने.",
                "{name} काढू नकोस, फक्त आधीच्या config वर परत ने.",
                "{name} आधीच्या config वर परत नेली (rolled back).",
                "bash",
                lambda n: {
                    "command": (
                        "cd /etc/logstash && git checkout HEAD~1 -- "
                        f"conf.d/{n}.conf && systemctl reload logstash"
                    )
                },
                _ls_rollback,
                ("rolled back", "परत नेली"),
            ),
        ),
        (
            ArtSpec(
                lambda rng: f"dlq-{rng.choice(_MR_STEMS)}-2026w{rng.randint(40, 48)}",
                "archived to /mnt/archive (not deleted)",
                "{name} archive कर.",
                "{name} डिलीट करू नकोस, फक्त archive कर.",
                "{name} संग्रहित केली (archived) — /mnt/archive मध्ये आहे.",
                "bash",
                lambda n: {
                    "command": (
                        f"sudo tar --zstd -cf /mnt/archive/{n}.tar.zst "
                        f"-C /var/lib/logstash/dead_letter_queue {n}"
                    )
                },
                _dlq_archive,
                ("archived", "संग्रहित"),
            ),
            ArtSpec(
                lambda rng: f"edge-{rng.randint(10, 49)}.dmz",
                "re-keyed (new client TLS certificate)",
                "{name} वरचं filebeat client certificate नवीन कर.",
                "{name} वरचा filebeat काढू नकोस, फक्त certificate नवीन कर.",
                "{name} re-keyed झाला: नवीन client certificate, जुनी key वापरात नाही.",
                "bash",
                lambda n: {"command": f"ansible {n} -m include_role -a name=filebeat_tls"},
                _rekey_beat,
                ("re-keyed", "re-issued"),
            ),
        ),
    ),
    key="pipeline.batch.size",
    values=("125", "250", "500", "1000"),
    reasons=(
        "Elasticsearch 429 परत करतोय",
        "heap वापर 80% च्या वर जातोय",
        "latency कमी हवी आहे",
    ),
    decision_q="What pipeline.batch.size was finally chosen for Logstash?",
    tasks=(
        (
            "`filebeat test output` सगळ्या hosts वर चालवायचं आहे",
            "filebeat test output",
            "run filebeat test output on all hosts",
        ),
        ("Logstash 8.11.4 वर upgrade करायचं आहे", "8.11.4", "upgrade Logstash to 8.11.4"),
        (
            "pipeline.workers ची मूल्यं पुन्हा तपासायची आहेत",
            "pipeline.workers",
            "re-check the pipeline.workers values",
        ),
    ),
    conds=(("es-hot-03 नोड पुन्हा green झाल्यावर", "es-hot-03"),),
    things=("persistent queue", "grok timeout", "JVM heap"),
    ticket="OBS",
    filler=(
        Filler(
            ("Logstash चा log बघ.", "Logstash मध्ये काही warning आहेत का?"),
            "bash",
            {"command": "sudo tail -n 16 /var/log/logstash/logstash-plain.log"},
            _ls_log,
            ("काही 429 retry आहेत, पण connection परत आलं.", "log मध्ये गंभीर काही नाही."),
        ),
        Filler(
            ("Elasticsearch nodes कसे आहेत?", "_cat/nodes दाखव."),
            "bash",
            {"command": "curl -s 'es-hot-01:9200/_cat/nodes?v'"},
            _cat_nodes,
            ("सगळे nodes ठीक आहेत.", "heap वापर सामान्य आहे."),
        ),
        Filler(
            ("Filebeat चा monitoring log बघ.", "Filebeat events पाठवतोय ना?"),
            "bash",
            {"command": "sudo journalctl -u filebeat -n 12 --no-pager -o cat"},
            _fb_log,
            ("events acked होतायत, सगळं ठीक.", "harvesters चालू आहेत."),
        ),
    ),
)


# ------------------------------------------------------------------------------ engine


def _listing(rng: R, spec: IdSpec, target: str) -> str:
    n = rng.randint(6, 9)
    at = rng.randrange(n)
    rows = []
    for i in range(n):
        if i == at:
            rows.append(spec.row(rng, target, True))
            continue
        decoy = spec.make(rng)
        while decoy == target:
            decoy = spec.make(rng)
        rows.append(spec.row(rng, decoy, False))
    head = [spec.header] if spec.header else []
    foot = [spec.footer] if spec.footer else []
    return "\n".join([*head, *rows, *foot])


def _id_scene(rng: R, b: Builder, kit: Kit, spec: IdSpec, mode: str) -> Probe:
    lang = kit.lang
    value = spec.make(rng)
    b.user(rng.choice(lang.show).format(noun=spec.noun))
    b.tool(rng.choice(lang.look), spec.tool, dict(spec.args), _listing(rng, spec, value))
    if mode == "agent":
        b.assistant(rng.choice(lang.id_agent).format(what=spec.what, id=value))
    else:
        b.assistant(rng.choice(lang.ok))
        pick = lang.id_user if mode == "user" else lang.id_neither
        b.user(rng.choice(pick).format(what=spec.what, id=value))
        b.assistant(rng.choice(lang.noted))
    return Probe(
        "identifier",
        f"What is the {spec.label} of {spec.what_en}?",
        value,
        ((value,),),
    )


def _art_scene(rng: R, b: Builder, kit: Kit, spec: ArtSpec) -> Probe:
    lang = kit.lang
    name = spec.make(rng)
    how = rng.choice(("tool", "agent", "both"))
    neg = bool(spec.neg) and rng.random() < 0.5
    b.user((spec.neg if neg else spec.ask).format(name=name))
    if how == "agent":
        b.assistant(spec.said.format(name=name))
    else:
        b.tool(rng.choice(lang.look), spec.tool, spec.args(name), spec.out(rng, name))
        b.assistant(spec.said.format(name=name) if how == "both" else rng.choice(lang.done))
    return Probe(
        "artifact",
        f"What happened to {name}?",
        f"{name}: {spec.action.replace('<name>', name)}",
        ((name,), spec.alts),
    )


def _decision_scenes(rng: R, b: Builder, kit: Kit) -> tuple[list[Scene], Scene | None, Probe]:
    lang = kit.lang
    value, other, third = rng.sample(kit.values, 3)
    reason = rng.choice(kit.reasons)
    key = kit.key
    form = rng.choice(("dictate", "approve", "change", "correct", "relay", "either"))
    later: Scene | None = None

    def scene() -> None:
        if form == "dictate":
            b.user(lang.dictate.format(key=key, value=value, reason=reason))
            b.assistant(lang.dec_ack.format(key=key, value=value))
        elif form == "approve":
            b.user(lang.ask.format(key=key))
            b.assistant(lang.propose.format(key=key, value=value, reason=reason))
            b.user(rng.choice(lang.approve))
            b.assistant(rng.choice(lang.ok))
        elif form == "change":
            b.user(lang.ask.format(key=key))
            b.assistant(lang.propose.format(key=key, value=other, reason=rng.choice(kit.reasons)))
            b.user(lang.change.format(key=key, value=value, other=other, reason=reason))
            b.assistant(lang.dec_ack.format(key=key, value=value))
        elif form == "correct":
            b.user(lang.first.format(key=key, other=other))
            b.assistant(lang.dec_ack.format(key=key, value=other))
        elif form == "relay":
            who = rng.choice(lang.people)
            b.user(lang.relay.format(who=who, key=key, value=value, reason=reason))
            b.assistant(lang.dec_ack.format(key=key, value=value))
        else:
            a, c = (value, third) if rng.random() < 0.5 else (third, value)
            b.user(lang.ask.format(key=key))
            b.assistant(lang.either.format(key=key, a=a, b=c))
            b.user(lang.answer.format(key=key, value=value))
            b.assistant(lang.dec_ack.format(key=key, value=value))

    if form == "correct":

        def fix() -> None:
            b.user(lang.fix.format(key=key, other=other, value=value))
            b.assistant(lang.dec_ack.format(key=key, value=value))

        later = fix
    probe = Probe("decision", kit.decision_q, value, ((key,), (value,)))
    return [scene], later, probe


def _next_scene(rng: R, b: Builder, kit: Kit) -> Probe:
    lang = kit.lang
    task, key, english = rng.choice(kit.tasks)
    form = rng.choice(("tomorrow", "next_week", "weekday", "deadline", "date", "cond", "promise"))
    if form in lang.nexts:
        text, alts = lang.nexts[form]
        b.user(text.format(task=task))
        b.assistant(rng.choice(lang.noted))
        when = alts[-1]
    elif form == "date":
        d = rng.choice((9, 14, 21, 27))
        b.user(lang.months.format(d=_native_digits(lang, d), task=task))
        b.assistant(rng.choice(lang.noted))
        native = _DATE_NATIVE[lang.months]
        alts = (
            native.format(d=_native_digits(lang, d)),
            native.format(d=d),
            *(f.format(d=d) for f in _DATE_EN),
        )
        when = f"January {d}"
    elif form == "cond":
        cond, ckey = rng.choice(kit.conds)
        b.user(lang.cond.format(cond=cond, task=task))
        b.assistant(rng.choice(lang.noted))
        alts = (ckey,)
        when = f"once {ckey} condition holds"
    else:
        text, alts = lang.promise
        b.user(lang.left)
        b.assistant(text.format(task=task))
        b.user(rng.choice(lang.approve))
        b.assistant(rng.choice(lang.ok))
        when = "tomorrow morning (the agent promised)"
    return Probe(
        "next_step",
        "What is the pending next step, and when?",
        f"{english} — {when}",
        ((key,), alts),
    )


def _hunch_scene(rng: R, b: Builder, kit: Kit) -> None:
    lang = kit.lang
    thing = rng.choice(kit.things)
    b.user(lang.hunch.format(who=rng.choice(lang.people), thing=thing))
    b.assistant(lang.hunch_reply.format(thing=thing))


def _ticket_scene(rng: R, b: Builder, kit: Kit) -> None:
    lang = kit.lang
    a, c = rng.sample(range(1200, 4800), 2)
    closed, opened = f"{kit.ticket}-{a}", f"{kit.ticket}-{c}"
    rows = [
        (
            f"{closed:<10} Done         {_ts(rng, rng.randint(1, 5))}"
            "  ops: alert flapping on the night shift"
        ),
        f"{opened:<10} In Progress  {_ts(rng)}  ops: follow-up from this week's incident",
    ]
    rng.shuffle(rows)
    b.user(lang.tickets)
    b.tool(
        rng.choice(lang.look),
        "bash",
        {"command": f"jira issue list -q 'project = {kit.ticket} AND updated >= -7d' --plain"},
        "KEY        STATUS       UPDATED              SUMMARY\n" + "\n".join(rows),
    )
    b.assistant(lang.tickets_reply.format(closed=closed, open=opened))


def _filler(kit: Kit, b: Builder) -> Callable[[R], None]:
    def one(rng: R) -> None:
        f = rng.choice(kit.filler)
        b.user(rng.choice(f.ask))
        b.tool(rng.choice(kit.lang.look), f.tool, dict(f.args), f.out(rng))
        b.assistant(rng.choice(f.reply))

    return one


def _push_id(probes: list[Probe], rng: R, b: Builder, kit: Kit, spec: IdSpec, mode: str) -> None:
    probes.append(_id_scene(rng, b, kit, spec, mode))


def _push_art(probes: list[Probe], rng: R, b: Builder, kit: Kit, spec: ArtSpec) -> None:
    probes.append(_art_scene(rng, b, kit, spec))


def _template(kit: Kit) -> Callable[[R, Builder, int], Parts]:
    def make(rng: R, b: Builder, segments: int) -> Parts:
        probes: list[Probe] = []
        scenes: list[Scene] = []
        modes = ["agent", "user", "neither"]
        rng.shuffle(modes)
        for id_spec, mode in zip(kit.ids, modes, strict=True):
            scenes.append(partial(_push_id, probes, rng, b, kit, id_spec, mode))
        for slot in kit.arts:
            scenes.append(partial(_push_art, probes, rng, b, kit, rng.choice(slot)))
        first, later, decision = _decision_scenes(rng, b, kit)
        scenes.extend(first)
        scenes.append(lambda: probes.append(_next_scene(rng, b, kit)))
        scenes.append(lambda: _hunch_scene(rng, b, kit))
        scenes.append(lambda: _ticket_scene(rng, b, kit))
        noise = _filler(kit, b)
        for _ in range(2):
            scenes.append(lambda: noise(rng))
        rng.shuffle(scenes)
        if later is not None:
            at = scenes.index(first[0])
            scenes.insert(rng.randint(at + 1, len(scenes)), later)
        b.user(rng.choice(kit.intro))
        b.assistant(kit.intro_reply)
        for scene in scenes:
            scene()
        probes.append(decision)
        opening = b.take()
        filler = segments_of(rng, b, segments, _filler(kit, b))
        return opening, filler, probes

    return make


_KITS: dict[str, Kit] = {
    "nginx_certbot_azerbaijani": NGINX_AZ,
    "patroni_etcd_burmese": PATRONI_MY,
    "jenkins_georgian": JENKINS_KA,
    "airflow_celery_macedonian": AIRFLOW_MK,
    "consul_tagalog": CONSUL_TL,
    "logstash_beats_marathi": LOGSTASH_MR,
}

HELDOUT20_KINDS: tuple[str, ...] = tuple(_KITS)
_TEMPLATES = {kind: _template(kit) for kind, kit in _KITS.items()}


def generate_heldout20(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The session of ``kind`` (one of :data:`HELDOUT20_KINDS`) for ``seed``."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout20:", label="heldout20"
    )
