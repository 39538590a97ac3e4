"""A second party's attack on two fact-ledger rules (commits 64aed5f and 1ffe81d).

64aed5f, "shared names": a name the user's last request or the agent's commands since
gave (a host, a mailbox, a domain, a package), said again by the agent, becomes a record
``said: <the agent's sentence>``. 1ffe81d, "singled-out ids": a token of eight characters
or more with a digit, in the agent's words, that a tool output of the same turn showed
whole on a line talking of no credential, is an identifier.

Written by a second party, not the rules' author, with inputs the author did not
choose: credentials printed by tools or passed on command lines, noise tokens (times,
durations, ports, resolutions), mailboxes with a plus or a non-ASCII letter, scripts
(CJK, Thai, Arabic, Hebrew, Persian, Devanagari, full-width), turn boundaries and
adversarial output sizes. A case that holds today is a plain test; a case that fails is
``xfail(strict=True)`` with its impact. Nothing under ``src/`` was changed.

Of its 73 cases 38 failed on those commits; 33 pass since the fixes after them (every
credential case but a password printed as ``admin / pw``, the walk over near misses,
the four noise shapes, the two mailboxes). Still failing: that password, and four
scripts' reports of a deed on a mailbox.
"""

from __future__ import annotations

import time
import unicodedata

import pytest

from contextfold.compaction._ledger import Fact, build_ledger
from contextfold.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.tokens import approx_token_counter

PW = "Hq7x-Zp29.Lm"  # a password no rule before these commits made an id
MAILBOX = "juma.k@duka.co.tz"


def turn(request: str, command: str, output: str, report: str) -> list[Message]:
    call = ToolUseBlock(id="call_1", name="bash", input={"command": command})
    return [
        Message.user(request),
        Message(role="assistant", content=[TextBlock(text="OK."), call]),
        Message(role="user", content=[ToolResultBlock(tool_use_id="call_1", content=output)]),
        Message.assistant(report),
    ]


def facts(messages: list[Message]) -> list[Fact]:
    return build_ledger(messages).facts


def rendered(messages: list[Message]) -> str:
    """The ledger section as a compaction would restore it, with every fact's text."""
    ledger = build_ledger(messages)
    section, _ = ledger.restore("", "", 1_000, approx_token_counter)
    texts = [f"{f.key} {f.state} {f.context}" for f in ledger.facts]
    return "\n".join([section, *texts])


def records(messages: list[Message]) -> dict[str, str]:
    return {f.key: f.state for f in facts(messages) if f.kind == "record"}


def agent_ids(messages: list[Message]) -> list[str]:
    return [f.key for f in facts(messages) if f.kind == "id" and f.who == "agent"]


def leak(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=reason)


# --- Group A: a credential a tool printed on a line its English-only labels miss -------

SHOWN_LEAK = (
    "the singled-out-ids rule copies a password into the ledger because the tool's line "
    "labels it in a way _SECRET_TALK/_CREDENTIAL do not read"
)


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(f"MYSQL_ROOT_PW={PW}", id="env-PW"),
        pytest.param(f"mdp: {PW}", id="fr-mdp"),
        pytest.param(f"Kennwort: {PW}", id="de-Kennwort"),
        pytest.param(f"口令：{PW}", id="zh-kouling"),
        pytest.param(f"암호: {PW}", id="ko-amho"),
        pytest.param(f"رمز عبور: {PW}", id="fa-ramz-obur"),
        pytest.param(f"كلمة السر: {PW}", id="ar-kalimat-alsir"),
        pytest.param(f"पासवर्ड: {PW}", id="hi-password"),
        pytest.param(f"pin: {PW}", id="pin"),
        pytest.param(f"admin / {PW}", marks=leak(SHOWN_LEAK), id="user-slash-pass"),
        pytest.param(f"Password for admin:\n{PW}", id="next-line"),
        pytest.param(f"  - name: DB_PW\n    value: {PW}", id="k8s-env-array"),
        pytest.param(f"DB_PASS: {PW}", id="DB_PASS-held"),
        pytest.param(f"password={PW}", id="password-eq-held"),
        pytest.param(f"пароль: {PW}", id="ru-parol-held"),
        pytest.param(f"パスワード: {PW}", id="ja-pasuwado-held"),
        pytest.param(f"Authorization: Bearer {PW}", id="http-bearer"),
    ],
)
def test_a_password_a_tool_printed_never_reaches_the_ledger(line: str) -> None:
    output = f"user: admin\n{line}\n"
    section = rendered(turn("Check it.", "cat out", output, f"The value {PW} is set there."))
    assert PW not in section


# --- Group B: credentials in the shapes real tools print them -------------------------


@pytest.mark.parametrize(
    ("command", "output", "report", "secret"),
    [
        pytest.param(
            "vault token create -ttl=1h",
            "Key                  Value\n---                  -----\n"
            "hvs.CAESIJ9xk2Lq7Bz\naccessor             Yk2Lq7BzQ9xm\n",
            "Created hvs.CAESIJ9xk2Lq7Bz with a one hour TTL.",
            "hvs.CAESIJ9xk2Lq7Bz",
            id="vault-token",
        ),
        pytest.param(
            "kubectl get secret db -o yaml",
            "apiVersion: v1\ndata:\n  db-pw: SHE3eFpwMjlMbQ\nkind: Secret\n",
            "The db-pw entry holds SHE3eFpwMjlMbQ as expected.",
            "SHE3eFpwMjlMbQ",
            id="k8s-secret-base64",
        ),
        pytest.param(
            "cat ~/.ssh/id_ed25519",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n"
            "-----END OPENSSH PRIVATE KEY-----\n",
            "It starts with b3BlbnNzaC1rZXktdjEAAAAABG5vbmU as expected.",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
            id="private-key-body",
        ),
        pytest.param(
            "gh auth 2fa",
            "Recovery codes:\nab12c-de34f\n9x8y7-z6w5v\n",
            "Saved 9x8y7-z6w5v and the rest.",
            "9x8y7-z6w5v",
            id="recovery-code",
        ),
        pytest.param(
            "cat /etc/nginx/.htpasswd",
            "admin:$apr1$x9Ab3cDe$Qw8eRt5yUi0p\n",
            "The admin entry uses salt x9Ab3cDe there.",
            "x9Ab3cDe",
            id="htpasswd-salt",
        ),
        pytest.param(
            "vault token create -ttl=1h",
            "token                hvs.CAESIJ9xk2Lq7Bz\naccessor             Yk2Lq7BzQ9xm\n",
            "Created hvs.CAESIJ9xk2Lq7Bz with a one hour TTL.",
            "hvs.CAESIJ9xk2Lq7Bz",
            id="vault-token-labelled-held",
        ),
    ],
)
def test_a_credential_in_a_tools_usual_shape_never_reaches_the_ledger(
    command: str, output: str, report: str, secret: str
) -> None:
    assert secret not in rendered(turn("Do it, please.", command, output, report))


# --- Group C: a password the agent's own command passed (shared-names rule) -----------

COMMAND_LEAK = (
    "the shared-names rule takes a password passed on the command line as a name and "
    "copies the agent's sentence with it into a said record"
)


@pytest.mark.parametrize(
    ("command", "report"),
    [
        pytest.param(
            f"htpasswd -b /etc/nginx/.htpasswd admin {PW}",
            f"Added admin with {PW} to the file.",
            id="htpasswd-b",
        ),
        pytest.param(
            f"sshpass -p {PW} scp a.txt root@web-1.internal:/tmp",
            f"Copied to root@web-1.internal via {PW}.",
            id="sshpass-p",
        ),
        pytest.param(
            f"curl -u admin:{PW} https://api-2.internal/health",
            f"admin:{PW} works against the API.",
            id="curl-u",
        ),
        pytest.param(
            f"redis-cli -h cache-1.internal -a {PW} FLUSHALL",
            f"Flushed cache-1.internal after auth with {PW}.",
            id="redis-cli-a",
        ),
        pytest.param(
            f"export DB_PW={PW} && ./deploy.sh",
            f"Deployed with DB_PW set to {PW}.",
            id="export-PW",
        ),
        pytest.param(
            f"mysql -u root -p{PW} -h db-3.internal",
            f"Connected to db-3.internal as root with {PW}.",
            id="mysql-p-host-record",
        ),
        pytest.param(
            f"psql -c \"ALTER USER app WITH PASSWORD '{PW}'\"",
            f"Set app's login to {PW} on the server.",
            id="psql-alter-user-held",
        ),
    ],
)
def test_a_password_the_command_passed_never_reaches_the_ledger(command: str, report: str) -> None:
    assert PW not in rendered(turn("Do it, please.", command, "ok", report))


# --- Group D: a password the user typed in another sentence or line of the request ----


@pytest.mark.parametrize(
    "request_",
    [
        pytest.param(
            f"Log in to admin@db-3.internal with the password below.\n{PW}",
            id="next-line",
        ),
        pytest.param(
            f"Here is the password for the box. {PW} is it.",
            id="next-sentence",
        ),
        pytest.param(
            f"Log in to admin@db-3.internal, the password is {PW}.",
            id="same-sentence-host-record",
        ),
    ],
)
def test_a_password_the_user_typed_never_reaches_the_ledger(request_: str) -> None:
    report = f"Logged in to admin@db-3.internal using {PW}."
    assert PW not in rendered(turn(request_, "ssh admin@db-3.internal true", "ok", report))


# --- Group E: noise the singled-out-ids rule makes an identifier ----------------------


@pytest.mark.parametrize(
    ("output", "report", "token"),
    [
        pytest.param(
            "12:00:01 error boom\n",
            "It failed at 12:00:01 today.",
            "12:00:01",
            id="time-of-day",
        ),
        pytest.param(
            "elapsed 00:03:27.41\n",
            "It took 00:03:27.41 to run.",
            "00:03:27.41",
            id="duration",
        ),
        pytest.param(
            "screen 1920x1080\n",
            "The screen is 1920x1080 wide.",
            "1920x1080",
            id="resolution",
        ),
        pytest.param(
            "LISTEN 0.0.0.0:8080\n",
            "Port 0.0.0.0:8080 is open.",
            "0.0.0.0:8080",
            id="listen-port",
        ),
        pytest.param("Linux x86_64 GNU/Linux\n", "The box is x86_64.", "x86_64", id="arch"),
        pytest.param(
            "go1.22.3 linux/amd64\n", "Built for linux/amd64 only.", "linux/amd64", id="platform"
        ),
        pytest.param(
            "cpu: 1500m memory: 512Mi\n", "Limits are 1500m and 512Mi.", "512Mi", id="k8s-qty"
        ),
        pytest.param("line 1204:17 error\n", "The error is at 1204:17.", "1204:17", id="line"),
        pytest.param("ISO-8859-1\n", "It is ISO-8859-1 encoded.", "ISO-8859-1", id="charset"),
    ],
)
def test_noise_a_tool_showed_is_no_identifier(output: str, report: str, token: str) -> None:
    assert token not in agent_ids(turn("Check it.", "run", output, report))


# --- Group F: a mailbox the shared-names rule keys under another mailbox --------------


@pytest.mark.parametrize(
    ("request_", "report", "mailbox"),
    [
        pytest.param(
            "Disable juma+ops@duka.co.tz please.",
            "I disabled juma+ops@duka.co.tz, it is off now.",
            "juma+ops@duka.co.tz",
            id="plus-address",
        ),
        pytest.param(
            "Désactive josé.k@duka.co.tz.",
            "J'ai désactivé josé.k@duka.co.tz hier.",
            "josé.k@duka.co.tz",
            id="accented-local-part",
        ),
    ],
)
def test_a_mailbox_is_filed_under_its_own_whole_name(
    request_: str, report: str, mailbox: str
) -> None:
    found = records(turn(request_, "mailctl status", "ok", report))
    assert set(found) == {mailbox}, found


# --- Group G: scripts and punctuation around a shared name ----------------------------


@pytest.mark.parametrize(
    ("request_", "report"),
    [
        (f"请停用{MAILBOX}的账户。", f"已停用{MAILBOX}的账户。"),
        (f"{MAILBOX}を無効にしてください。", f"{MAILBOX}を無効にしました。"),
        (f"{MAILBOX}、無効にして。", f"{MAILBOX}、無効にしました。"),
        (f"من فضلك عطّل {MAILBOX} الآن.", f"عطّلت {MAILBOX}، وهو متوقف الآن."),
        (f"תשבית את {MAILBOX} בבקשה.", f"השבתתי את {MAILBOX}."),
        (f"حساب {MAILBOX} را غیرفعال کن.", f"حساب {MAILBOX} را غیرفعال کردم؛ تمام."),
        (f"कृपया {MAILBOX} बंद करें।", f"{MAILBOX} बंद कर दिया।"),
        (f'Disable "{MAILBOX}".', f'I disabled "{MAILBOX}" as asked.'),
        (f"Disable {MAILBOX}.", f"I disabled [{MAILBOX}](mailto:{MAILBOX}) as asked."),
        ("Disable Juma.K@Duka.co.tz.", f"I disabled {MAILBOX} as asked."),
        pytest.param(
            f"停用{MAILBOX}。",
            f"已停用{MAILBOX}。",
            marks=leak("a short Chinese report of the deed keeps nothing of it"),
            id="zh-short",
        ),
        pytest.param(
            f"ช่วยปิดบัญชี{MAILBOX}ให้หน่อย",
            f"ปิดบัญชี{MAILBOX}แล้วครับ",
            marks=leak("a Thai report with the mailbox glued in keeps nothing of the deed"),
            id="th-glued",
        ),
        pytest.param(
            "ｊｕｍａ．ｋ＠ｄｕｋａ．ｃｏ．ｔｚを無効にして。",
            "ｊｕｍａ．ｋ＠ｄｕｋａ．ｃｏ．ｔｚを無効にしました。",
            marks=leak("a full-width mailbox (an IME's output) is never read as a name"),
            id="full-width",
        ),
        pytest.param(
            "Отключи ящик иван@пример.рф.",
            "Я отключил ящик иван@пример.рф сегодня.",
            marks=leak("an internationalised (Cyrillic) mailbox's deed is lost"),
            id="idn-mailbox",
        ),
    ],
)
def test_the_deed_on_a_requested_mailbox_is_kept_in_any_script(request_: str, report: str) -> None:
    found = records(turn(request_, "mailctl status", "ok", report))
    told = unicodedata.normalize("NFKC", report)
    assert any(unicodedata.normalize("NFKC", state).endswith(told) for state in found.values()), (
        found
    )


# --- Group H: words, versions, plans, questions, code, earlier turns (defences) -------


@pytest.mark.parametrize(
    ("request_", "command", "report", "word"),
    [
        (
            "Upgrade app to 1.2.3-rc1.",
            "helm upgrade app --version 1.2.3-rc1",
            "Now 1.2.3-rc1.",
            "1.2.3",
        ),
        ("Use go1.22.3 for it.", "goenv install go1.22.3", "Installed go1.22.3 now.", "go1.22"),
        ("Pin django==4.2.11.", "pip install django==4.2.11", "Pinned django==4.2.11.", "4.2.11"),
        ("Restore the 2025-11-02 one.", "restore 2025-11-02", "Restored 2025-11-02.", "2025"),
        (
            "Raise memory to 512Mi.",
            "kubectl set resources --limits=memory=512Mi",
            "Now 512Mi.",
            "512",
        ),
        ("Resize the disk to 3.5GB.", "resize 3.5GB", "Resized to 3.5GB.", "3.5gb"),
        (
            "Drain node-12.k8s.local tomorrow.",
            "kubectl get node node-12.k8s.local",
            "I will drain node-12.k8s.local tomorrow after the backup.",
            "node-12",
        ),
        (
            "What about mx-2.mail.example?",
            "dig mx-2.mail.example",
            "Should I remove mx-2.mail.example from the pool?",
            "mx-2",
        ),
        (
            "Fix the dsn for db-3.internal:5432.",
            "cat app.cfg",
            "```\nhost = db-3.internal:5432\n```",
            "db-3",
        ),
    ],
)
def test_a_version_figure_plan_question_or_code_is_no_said_record(
    request_: str, command: str, report: str, word: str
) -> None:
    found = records(turn(request_, command, "ok", report))
    assert not any(word in key.lower() for key in found), found


def test_a_token_shown_before_the_users_last_words_is_no_identifier() -> None:
    first = turn("List the parts.", "ls", "202603_118_240_2\n", "Listed them.")
    second = turn("Which one is broken?", "true", "ok", "Part 202603_118_240_2 is broken.")
    assert "202603_118_240_2" not in agent_ids([*first, *second])


def test_a_name_from_an_earlier_request_is_no_thing_now() -> None:
    first = turn(f"Disable {MAILBOX}.", "true", "ok", "Done.")
    second = turn("How is the queue?", "true", "ok", f"I saw {MAILBOX} in the queue.")
    assert MAILBOX not in records([*first, *second])


def test_a_token_shown_by_one_of_two_parallel_calls_is_an_identifier() -> None:
    calls = [
        ToolUseBlock(id="a", name="bash", input={"command": "ls parts"}),
        ToolUseBlock(id="b", name="bash", input={"command": "ls logs"}),
    ]
    messages = [
        Message.user("Check both."),
        Message(role="assistant", content=[TextBlock(text="Looking."), *calls]),
        Message(
            role="user",
            content=[
                ToolResultBlock(tool_use_id="a", content="202603_118_240_2\n"),
                ToolResultBlock(tool_use_id="b", content="error: disk full", is_error=True),
            ],
        ),
        Message.assistant("Part 202603_118_240_2 sits on the full disk."),
    ]
    assert "202603_118_240_2" in agent_ids(messages)


def test_an_agent_sentence_before_the_output_is_no_identifier() -> None:
    # the agent named the token before any tool showed it: nothing was singled out
    call = ToolUseBlock(id="c", name="bash", input={"command": "ls"})
    messages = [
        Message.user("Check it."),
        Message(
            role="assistant", content=[TextBlock(text="I guess 202603_118_240_2 broke."), call]
        ),
        Message(
            role="user", content=[ToolResultBlock(tool_use_id="c", content="202603_118_240_2\n")]
        ),
    ]
    assert "202603_118_240_2" not in agent_ids(messages)


# --- Group I: scale ----------------------------------------------------------------------


def _cpu(messages: list[Message]) -> float:
    start = time.thread_time()
    build_ledger(messages)
    return time.thread_time() - start


def _many_calls(n: int) -> list[Message]:
    messages = [Message.user("Drain the nodes.")]
    for i in range(n):
        call = ToolUseBlock(id=f"c{i}", name="bash", input={"command": f"drain node-{i}.k8s"})
        result = ToolResultBlock(tool_use_id=f"c{i}", content=f"node-{i}.k8s drained")
        messages += [
            Message(role="assistant", content=[call]),
            Message(role="user", content=[result]),
        ]
    messages.append(Message.assistant(" ".join(f"I drained node-{i}.k8s." for i in range(n))))
    return messages


def test_shared_names_stay_linear_in_the_number_of_calls() -> None:
    small, large = _cpu(_many_calls(150)), _cpu(_many_calls(600))
    assert large < 8 * small + 0.1, (small, large)


def test_near_misses_in_an_output_do_not_multiply_the_search() -> None:
    near = "abcdefgh1_" * 40_000  # the token occurs 40,000 times, never whole
    plain = "zzzzzzzzz_" * 40_000  # same size, the token never occurs
    report = "Checked " + " ".join(["abcdefgh1"] * 100) + "."
    slow = _cpu(turn("Check it.", "ls", near, report))
    fast = _cpu(turn("Check it.", "ls", plain, report))
    assert slow < 3 * fast + 0.05, (fast, slow)
