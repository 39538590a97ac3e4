"""Running real agent clients through ``contextfold serve`` against the scripted model.

:func:`proxy` starts the proxy with the real command line (a subprocess) in front of
a :class:`~tests.clients.scripted.Scripted` model; each ``run_*`` function runs one
client installed by ``tests/clients/install.sh`` in a scratch home and working
folder, pointed at the proxy the way its own documentation says, and returns its
exit status and output. :func:`report` sums up what the scripted model received.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

from tests.clients.scripted import Request_, Scripted

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = Path(os.environ.get("CONTEXTFOLD_CLIENTS_DIR", ROOT / ".cache" / "clients"))
BIN = CLIENTS / "npm" / "node_modules" / ".bin"
AIDER = CLIENTS / "aider" / "bin" / "aider"
CLI = Path(sys.executable).with_name("contextfold")
TASK = "TASK-MARKER: run the numbered shell steps until they are all done"
KEY = "sk-test-clients-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Proxy:
    url: str
    process: subprocess.Popen[str]
    log: Path

    def metrics(self) -> str:
        return httpx2.get(f"{self.url}/metrics", timeout=10).text


@contextmanager
def proxy(upstream_port: int, folder: Path, *options: str) -> Iterator[Proxy]:
    """``contextfold serve`` in front of the scripted model on ``upstream_port``."""
    port = free_port()
    log = folder / "proxy.log"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    command = [
        str(CLI),
        "serve",
        "--port",
        str(port),
        "--upstream-openai",
        f"http://127.0.0.1:{upstream_port}/v1",
        "--upstream-anthropic",
        f"http://127.0.0.1:{upstream_port}",
        "--log-level",
        "info",
        *options,
    ]
    with log.open("w") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, text=True, env=env
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx2.get(f"{url}/healthz", timeout=2).status_code == 200:
                break
        except httpx2.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"the proxy did not start:\n{log.read_text()}")
        time.sleep(0.1)
    try:
        yield Proxy(url, process, log)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


@dataclass
class Run:
    returncode: int
    output: str


def _run(
    command: Sequence[str], cwd: Path, env: dict[str, str], timeout: float, stdin: str = ""
) -> Run:
    base = {
        "PATH": os.environ.get("PATH", ""),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        **env,
    }
    done = subprocess.run(
        list(command),
        cwd=cwd,
        env=base,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Run(done.returncode, done.stdout + done.stderr)


def _home(folder: Path, name: str) -> tuple[Path, Path]:
    home = folder / f"home-{name}"
    work = folder / f"work-{name}"
    home.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    return home, work


def run_claude(url: str, folder: Path, timeout: float = 600) -> Run:
    """Claude Code in print mode, its default model and tools, Bash allowed."""
    home, work = _home(folder, "claude")
    env = {
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": KEY,
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    command = [str(BIN / "claude"), "-p", TASK, "--allowedTools", "Bash"]
    return _run(command, work, env, timeout)


def run_codex(url: str, folder: Path, timeout: float = 600) -> Run:
    """Codex CLI ``exec`` with a model provider on the proxy (Responses API)."""
    home, work = _home(folder, "codex")
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex" / "config.toml").write_text(
        'model = "gpt-5.5-codex"\n'
        'model_provider = "proxy"\n'
        "[model_providers.proxy]\n"
        'name = "contextfold"\n'
        f'base_url = "{url}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "OPENAI_API_KEY"\n'
    )
    env = {"HOME": str(home), "OPENAI_API_KEY": KEY, "CODEX_HOME": str(home / ".codex")}
    command = [
        str(BIN / "codex"),
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        TASK,
    ]
    return _run(command, work, env, timeout)


def run_opencode(url: str, folder: Path, timeout: float = 600) -> Run:
    """opencode ``run`` with an OpenAI-compatible provider on the proxy."""
    home, work = _home(folder, "opencode")
    config = home / ".config" / "opencode"
    config.mkdir(parents=True, exist_ok=True)
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "contextfold",
        "options": {"baseURL": f"{url}/v1", "apiKey": KEY},
        "models": {"scripted": {"name": "scripted", "limit": {"context": 200000, "output": 4000}}},
    }
    (config / "opencode.json").write_text(
        json.dumps(
            {
                "$schema": "https://opencode.ai/config.json",
                "provider": {"proxy": provider},
                "model": "proxy/scripted",
                "autoupdate": False,
                "share": "disabled",
            }
        )
    )
    env = {"HOME": str(home), "OPENCODE_DISABLE_AUTOUPDATE": "1"}
    return _run([str(BIN / "opencode"), "run", TASK], work, env, timeout)


BIG_PY_LINES = 200


def big_py() -> str:
    lines = ['"""A big module for aider to edit."""', ""]
    for i in range(BIG_PY_LINES):
        lines.append(f"def function_{i}(x):\n    return x * {i} + {i * 7}  # probe-line-{i}\n")
    return "\n".join(lines)


AIDER_PROBE = (
    f"    return x * {BIG_PY_LINES - 1} + {(BIG_PY_LINES - 1) * 7}  # probe-line-{BIG_PY_LINES - 1}"
)


def run_aider(url: str, folder: Path, turns: int, timeout: float = 600) -> Run:
    """aider on ``big.py`` in a git repository, ``turns`` requests typed on its input."""
    home, work = _home(folder, "aider")
    (work / "big.py").write_text(big_py())
    git = {"HOME": str(home), "PATH": os.environ.get("PATH", "")}
    for args in (
        ["init", "-q"],
        ["add", "big.py"],
        ["-c", "user.email=a@b.c", "-c", "user.name=n", "commit", "-qm", "init"],
    ):
        subprocess.run(["git", *args], cwd=work, env=git, check=True)
    env = {
        "HOME": str(home),
        "OPENAI_API_BASE": f"{url}/v1",
        "OPENAI_API_KEY": KEY,
    }
    lines = [TASK] + [f"edit number {i}, please" for i in range(1, turns)]
    command = [
        str(AIDER),
        "--model",
        "openai/scripted",
        "--edit-format",
        "diff",
        "--yes-always",
        "--no-auto-commits",
        "--no-check-update",
        "--no-show-model-warnings",
        "--analytics-disable",
        "--no-fancy-input",
        "--no-pretty",
        "--no-stream",
        "--max-chat-history-tokens",  # aider's own summaries off: the proxy compacts
        "1000000",
        "big.py",
    ]
    return _run(command, work, env, timeout, stdin="\n".join(lines) + "\n")


@dataclass
class Report:
    """What the scripted model saw of one client's run."""

    requests: int
    summaries: int
    compacted: int  # requests that carry a summary
    largest: int  # bytes of the largest chat request
    last: int  # bytes of the last chat request
    problems: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def conversation(model: Scripted, *, tools: bool = True) -> list[Request_]:
    """The chat requests of the client's main conversation: the task in them, and the
    client's tools (a title or summary request of the client's own offers none)."""
    return [
        r for r in model.chats if runner_task(r) and (not tools or r.body.get("tools") is not None)
    ]


def runner_task(request: Request_) -> bool:
    return TASK in json.dumps(request.body)


def report(model: Scripted, requests: list[Request_]) -> Report:
    compacted = [r for r in requests if "SUMMARY-" in json.dumps(r.body)]
    return Report(
        requests=len(requests),
        summaries=len(model.summaries),
        compacted=len(compacted),
        largest=max((r.size for r in requests), default=0),
        last=requests[-1].size if requests else 0,
        problems=list(model.problems),
    )
