"""``contextfold serve`` options: command line > ``CONTEXTFOLD_*`` environment > ``--config``
TOML file > defaults, one-line errors for bad values, and the operator's whole path run for
real (the console script in a subprocess, in front of a fake upstream on a real port)."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import os
import re
import socket
import subprocess
import warnings
from pathlib import Path
from typing import Any

import httpx2
import pytest

from contextfold.cli import build_parser
from contextfold.cli._commands import CLIError
from contextfold.cli._serve import OFF, OPTIONS, app_arguments, app_keywords, resolve
from contextfold.compaction import CompactionSettings
from contextfold.proxy import ModelSettings, ProxyOptions, create_app
from tests._proxy_upstream import Upstream, openai_history
from tests._raw_http import Served
from tests.cli.test_cli import CLI, assert_one_line_error, run

KEY = "sk-test-SERVE-OPTIONS-DISTINCTIVE-99aa00bb"


def options(argv: list[str], env: dict[str, str] | None = None) -> Any:
    return resolve(build_parser().parse_args(["serve", *argv]), env or {})


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


# -- precedence -------------------------------------------------------------------------


def test_defaults_when_nothing_is_given() -> None:
    got = options([])
    assert (got.host, got.port, got.log_level, got.secret_headers) == (
        "127.0.0.1",
        8787,
        "info",
        [],
    )
    assert (got.threshold, got.keep_recent, got.context_window, got.summary_model) == (
        None,
        None,
        None,
        None,
    )
    assert got.models == {}


def test_command_line_beats_environment_beats_file(tmp_path: Path) -> None:
    config = write(
        tmp_path / "proxy.toml",
        """
[defaults]
port = 9001
threshold = 0.5
keep_recent = 8
summary_model = "file-model"
secret_headers = ["x-file-key"]
log_level = "warning"
""",
    )
    env = {"CONTEXTFOLD_CONFIG": config, "CONTEXTFOLD_THRESHOLD": "0.6", "CONTEXTFOLD_PORT": "9002"}
    got = options(["--port", "9003"], env)
    assert got.port == 9003  # command line
    assert got.threshold == 0.6  # environment
    assert (got.keep_recent, got.summary_model, got.log_level) == (8, "file-model", "warning")
    assert got.secret_headers == ["x-file-key"]
    assert options([], {**env, "CONTEXTFOLD_THRESHOLD": ""}).threshold == 0.5  # empty = unset
    assert options(["--config", config]).port == 9001


def test_the_config_variable_is_read_like_the_others(tmp_path: Path) -> None:
    # surrounding whitespace (a quoted value in a unit file) is not part of the path,
    # and a blank variable is unset, as for every other CONTEXTFOLD_* variable
    config = write(tmp_path / "proxy.toml", "[defaults]\nport = 9001\n")
    assert options([], {"CONTEXTFOLD_CONFIG": f"  {config}\n"}).port == 9001
    assert options([], {"CONTEXTFOLD_CONFIG": "   "}).port == 8787
    assert options([], {"CONTEXTFOLD_CONFIG": "   "}).config is None


def test_every_option_has_its_environment_variable(tmp_path: Path) -> None:
    given = {
        "CONTEXTFOLD_HOST": "0.0.0.0",
        "CONTEXTFOLD_PORT": "8111",
        "CONTEXTFOLD_UPSTREAM_OPENAI": "http://127.0.0.1:8000/v1",
        "CONTEXTFOLD_UPSTREAM_ANTHROPIC": "http://127.0.0.1:8001",
        "CONTEXTFOLD_DB": str(tmp_path / "cache.db"),
        "CONTEXTFOLD_SECRET_HEADERS": "x-a-key, x-b-key",
        "CONTEXTFOLD_TENANT_HEADER": " x-user-id ",
        "CONTEXTFOLD_CONTEXT_WINDOW": "32768",
        "CONTEXTFOLD_THRESHOLD": "0.7",
        "CONTEXTFOLD_KEEP_RECENT": "4",
        "CONTEXTFOLD_SUMMARY_MODEL": "small",
        "CONTEXTFOLD_LOG_LEVEL": "DEBUG",
        "CONTEXTFOLD_USER_MESSAGE_BUDGET": "500",
        "CONTEXTFOLD_FACT_BUDGET": "400",
        "CONTEXTFOLD_INSTRUCTIONS": "Keep ticket ids.",
        "CONTEXTFOLD_RECALL": "yes",
        "CONTEXTFOLD_PREPARE_THRESHOLD": "0.5",
        "CONTEXTFOLD_HEADER_TIMEOUT": "12",
        "CONTEXTFOLD_BODY_TIMEOUT": "2.5",
        "CONTEXTFOLD_SUMMARY_TIMEOUT": "30",
        "CONTEXTFOLD_NATIVE_COMPACTION": "Emulate",
        "CONTEXTFOLD_COMPACTION_KEY": "a-fleet-wide-secret-0123",
        "CONTEXTFOLD_DASHBOARD": "on",
        "CONTEXTFOLD_DASHBOARD_TOKEN": "a-dashboard-token-4567",
    }
    assert {option.env for option in OPTIONS} == set(given)
    got = options([], given)
    assert (got.host, got.port, got.db) == ("0.0.0.0", 8111, str(tmp_path / "cache.db"))
    assert (got.upstream_openai, got.upstream_anthropic) == (
        "http://127.0.0.1:8000/v1",
        "http://127.0.0.1:8001",
    )
    assert got.secret_headers == ["x-a-key", "x-b-key"]
    assert got.tenant_header == "x-user-id"
    assert (got.context_window, got.threshold, got.keep_recent) == (32_768, 0.7, 4)
    assert (got.summary_model, got.log_level) == ("small", "debug")
    assert (got.user_message_budget, got.instructions) == (500, "Keep ticket ids.")
    assert got.recall is True
    assert got.prepare_threshold == 0.5
    assert (got.header_timeout, got.body_timeout) == (12.0, 2.5)
    assert got.summary_timeout == 30.0
    assert (got.native_compaction, got.compaction_key) == ("emulate", "a-fleet-wide-secret-0123")
    arguments = app_arguments(got, ProxyOptions)
    assert arguments["options"].native_compaction == "emulate"
    assert (got.fact_budget, arguments["settings"].fact_budget) == (400, 400)
    assert "a-fleet-wide-secret" not in repr(arguments["options"])  # kept out of repr
    assert (got.dashboard, arguments["options"].dashboard) == (True, True)
    assert arguments["options"].dashboard_token == "a-dashboard-token-4567"
    assert "a-dashboard-token" not in repr(arguments["options"])


def test_a_short_compaction_key_is_refused_without_echoing_it() -> None:
    with pytest.raises(CLIError, match=r"compaction.key") as caught:
        options(["--compaction-key", "short-secret"], {})
    assert "short-secret" not in str(caught.value)
    with pytest.raises(CLIError, match="native"):
        options(["--native-compaction", "sometimes"], {})


@pytest.mark.parametrize(
    ("argv", "env", "expected"),
    [
        ([], {}, None),
        (["--recall"], {}, True),
        ([], {"CONTEXTFOLD_RECALL": "off"}, False),
        ([], {"CONTEXTFOLD_RECALL": " TRUE "}, True),
        (["--recall"], {"CONTEXTFOLD_RECALL": "0"}, True),  # the command line wins
    ],
)
def test_switches_take_a_flag_or_a_boolean_word(
    argv: list[str], env: dict[str, str], expected: bool | None
) -> None:
    assert options(argv, env).recall is expected


def test_preparation_can_be_switched_off_from_any_source(tmp_path: Path) -> None:
    config = write(tmp_path / "proxy.toml", '[defaults]\nprepare_threshold = "off"\n')
    assert app_keywords(options(["--config", config]))["prepare_threshold"] is None
    assert app_keywords(options([], {"CONTEXTFOLD_PREPARE_THRESHOLD": "OFF"})) == {
        "prepare_threshold": None
    }
    assert app_keywords(options(["--prepare-threshold", "0.4"]))["prepare_threshold"] == 0.4
    assert "prepare_threshold" not in app_keywords(options([]))  # the default: 0.6
    with pytest.raises(CLIError, match="between 0 and 1 or 'off'"):
        options([], {"CONTEXTFOLD_PREPARE_THRESHOLD": "1"})


def test_a_switch_refuses_other_words() -> None:
    with pytest.raises(CLIError, match="CONTEXTFOLD_RECALL must be true or false"):
        options([], {"CONTEXTFOLD_RECALL": "maybe"})


def test_model_tables_come_from_the_file(tmp_path: Path) -> None:
    config = write(
        tmp_path / "proxy.toml",
        """
[models."qwen2.5-coder-32b"]
context_window = 32768
max_output_tokens = 4096
threshold = 0.6
keep_recent = 4
summary_model = "qwen2.5-coder-7b"
""",
    )
    got = options(["--config", config])
    assert got.models == {
        "qwen2.5-coder-32b": {
            "context_window": 32_768,
            "max_output_tokens": 4_096,
            "threshold": 0.6,
            "keep_recent": 4,
            "summary_model": "qwen2.5-coder-7b",
        }
    }


@pytest.mark.parametrize(
    ("argv", "env", "toml", "message"),
    [
        (["--threshold", "0"], {}, None, "--threshold must be a number in (0, 1], got '0'"),
        (["--threshold", "nan"], {}, None, "--threshold must be a number in (0, 1]"),
        ([], {"CONTEXTFOLD_THRESHOLD": "1.5"}, None, "CONTEXTFOLD_THRESHOLD must be a number"),
        ([], {"CONTEXTFOLD_PORT": "http"}, None, "CONTEXTFOLD_PORT must be a whole number"),
        (["--keep-recent", "0"], {}, None, "--keep-recent must be at least 1, got 0"),
        (["--context-window", "32k"], {}, None, "--context-window must be a whole number"),
        (["--log-level", "loud"], {}, None, "--log-level must be one of debug, info"),
        (["--upstream-openai", "ftp://x"], {}, None, "--upstream-openai must be an http(s) URL"),
        ([], {}, "[defaults]\nthreshold = 2\n", "[defaults] threshold must be a number"),
        ([], {}, "[defaults]\nport = true\n", "[defaults] port must be a whole number"),
        ([], {}, "[defaults]\nthreshhold = 0.5\n", "[defaults] unknown setting 'threshhold'"),
        ([], {}, "threshold = 0.5\n", "unknown key 'threshold'"),
        ([], {}, '[models."m"]\nwindow = 1\n', "[models.\"m\"] unknown setting 'window'"),
        ([], {}, "[defaults\n", "not valid TOML"),
        ([], {}, "defaults = 3\n", "'defaults' must be a table"),
    ],
)
def test_bad_values_name_their_source(
    tmp_path: Path, argv: list[str], env: dict[str, str], toml: str | None, message: str
) -> None:
    if toml is not None:
        argv = [*argv, "--config", write(tmp_path / "bad.toml", toml)]
    with pytest.raises(CLIError) as caught:
        options(argv, env)
    assert message in str(caught.value)


# -- the console script ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (["--threshold", "1.01"], {}, "--threshold must be a number in (0, 1], got '1.01'"),
        ([], {"CONTEXTFOLD_KEEP_RECENT": "many"}, "CONTEXTFOLD_KEEP_RECENT must be a whole"),
        (["--config", "missing.toml"], {}, "missing.toml: cannot be read: No such file"),
        (["--config", "."], {}, ".: cannot be read"),
        (["--config", "binary.toml"], {}, "binary.toml: not valid TOML"),
        (["--config", "unknown.toml"], {}, "unknown.toml: [defaults] unknown setting 'tresh'"),
        (
            ["--config", "model.toml"],
            {},
            'model.toml: [models."m"] context_window must be an int >= 1024, got 100',
        ),
    ],
)
def test_bad_values_are_one_line_and_a_nonzero_exit(
    tmp_path: Path, args: list[str], env: dict[str, str], expected: str
) -> None:
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe\x00garbage")
    write(tmp_path / "unknown.toml", "[defaults]\ntresh = 0.5\n")
    write(tmp_path / "model.toml", '[models."m"]\ncontext_window = 100\n')
    assert CLI
    full_env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    result = subprocess.run(
        [CLI, "serve", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**full_env, **env},
        timeout=60,
    )
    assert result.returncode == 1
    assert assert_one_line_error(result).startswith(f"contextfold: error: {expected}")
    assert result.stdout == ""


def test_help_lists_every_option_and_its_variable() -> None:
    result = run("serve", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    for option in OPTIONS:
        assert option.flag in text
        assert f"[{option.env}]" in text
    assert "--config FILE" in text
    assert "CONTEXTFOLD_CONFIG" in text
    assert "/healthz" in text
    assert "/metrics" in text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _wait_listening(process: asyncio.subprocess.Process, port: int) -> None:
    for _ in range(600):
        assert process.returncode is None, "the proxy exited before listening"
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        writer.close()
        return
    raise AssertionError(f"nothing listens on port {port}")


async def test_an_operator_configures_a_local_32k_model(tmp_path: Path) -> None:
    """The report's case, run as an operator would: a config file names the local
    model's window, the environment the port and upstream, the command line the log
    level; the proxy compacts before the model's window, logs it on stderr without
    the credentials, and answers /healthz and /metrics itself."""
    upstream = Upstream(reply_text=None)
    config = write(
        tmp_path / "proxy.toml",
        """
[defaults]
threshold = 0.5
secret_headers = ["x-tenant-token"]

[models."local-coder"]
context_window = 32768
keep_recent = 4
""",
    )
    port = _free_port()
    assert CLI
    async with Served(upstream.app()) as up:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env |= {
            "CONTEXTFOLD_PORT": str(port),
            "CONTEXTFOLD_UPSTREAM_OPENAI": f"{up.url}/v1",
            "CONTEXTFOLD_CONFIG": config,
            "CONTEXTFOLD_THRESHOLD": "0.6",  # beats the file's 0.5
        }
        process = await asyncio.create_subprocess_exec(
            *(CLI, "serve", "--log-level", "info", "--db", str(tmp_path / "cache.db")),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=tmp_path,
        )
        try:
            await _wait_listening(process, port)
            headers = {"authorization": f"Bearer {KEY}", "x-tenant-token": "TENANT-7f7f7f7f7f"}
            # (a timeout for a loaded machine: httpx2's default of 5 s is not what is tested)
            async with httpx2.AsyncClient(
                base_url=f"http://127.0.0.1:{port}", timeout=60
            ) as client:
                history = openai_history(50, chars=800)  # ~24k tokens: over 0.6 x 32k
                reply = await client.post(
                    "/v1/chat/completions",
                    json={"model": "local-coder", "messages": history},
                    headers=headers,
                )
                health = (await client.get("/healthz")).json()
                metrics = (await client.get("/metrics")).text
        finally:
            process.terminate()
            _, stderr_bytes = await asyncio.wait_for(process.communicate(), 60)
    stderr = stderr_bytes.decode()
    assert reply.status_code == 200, reply.text
    assert reply.headers["x-contextfold-compacted"] == "true"
    assert int(reply.headers["x-contextfold-tokens-after"]) < 0.6 * 32_768
    assert int(reply.headers["x-contextfold-tokens-before"]) > 0.6 * 32_768
    assert upstream.summaries  # the engine may summarize a long history in parts
    forwarded = upstream.chats[-1].json["messages"]
    assert len(forwarded) <= 3 + 6  # system, summary, acknowledgement, ~keep_recent=4
    assert health["status"] == "ok"
    assert 'contextfold_proxy_compactions_total{outcome="created"} 1' in metrics
    compacted = [line for line in stderr.splitlines() if "compacted a local-coder request" in line]
    assert len(compacted) == 1
    assert compacted[0].startswith("INFO:")
    assert "(limit 19660)" in compacted[0]  # int(0.6 x 32,768): the environment's threshold
    for secret in (KEY, "TENANT-7f7f7f7f7f"):
        assert secret not in stderr
    assert "Traceback" not in stderr
    assert json.loads(json.dumps(health))["version"]


def test_the_documented_config_example_is_accepted(tmp_path: Path) -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "proxy-operations.md"
    section = page.read_text(encoding="utf-8")
    [example] = re.findall(r"```toml\n(.*?)```", section, re.S)
    got = options(["--config", write(tmp_path / "proxy.toml", example)])
    assert (got.upstream_openai, got.threshold, got.db) == (
        "http://127.0.0.1:8000/v1",
        0.7,
        "proxy.db",
    )
    settings = ModelSettings.from_mapping(got.models["qwen2.5-coder-32b"])
    assert (settings.context_window, settings.keep_recent) == (32_768, 4)
    # and every option the table lists is a real one, with its variable and TOML key
    rows = [line for line in section.splitlines() if line.startswith("| `--")]
    for option in OPTIONS:
        assert any(option.flag in row and f"`{option.env}`" in row for row in rows), option.flag
        assert any(f"`{option.name}`" in row for row in rows), option.name


def test_keyword_options_reach_create_app_under_their_names(tmp_path: Path) -> None:
    # every option create_app takes is one of its keywords, a field of its settings or
    # one of its options, under the option's own name
    parameters = set(inspect.signature(create_app).parameters)
    fields = {f.name for f in dataclasses.fields(CompactionSettings)}
    own = {f.name for f in dataclasses.fields(ProxyOptions)}
    for option in OPTIONS:
        known = option.name in parameters | fields | own
        assert known == option.keyword or option.name == "db", option.name
    got = options(["--threshold", "0.5", "--secret-header", "x-a", "--keep-recent", "3"])
    assert app_keywords(got) == {"threshold": 0.5, "secret_headers": ["x-a"], "keep_recent": 3}
    arguments = app_arguments(got, ProxyOptions)
    assert set(arguments) == {"settings", "options"}
    assert (arguments["settings"].threshold, arguments["settings"].keep_recent) == (0.5, 3)
    assert arguments["options"].secret_headers == ("x-a",)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the one configuration path: nothing deprecated
        create_app(**arguments)


def test_summary_timeout_is_an_option_of_serve_and_reaches_the_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Today's main had no --summary-timeout, and the proxy ignored the setting.
    assert options(["--summary-timeout", "2.5"], {}).summary_timeout == 2.5
    assert options([], {"CONTEXTFOLD_SUMMARY_TIMEOUT": "off"}).summary_timeout is OFF
    with pytest.raises(CLIError, match="summary-timeout"):
        options(["--summary-timeout", "-1"], {})
    app = create_app(settings=CompactionSettings(summary_timeout=2.5))
    assert app.state.forwarder.planner.scheduler.summary_timeout == 2.5
    assert (
        create_app(
            settings=CompactionSettings(summary_timeout=None)
        ).state.forwarder.planner.scheduler.summary_timeout
        is None
    )
