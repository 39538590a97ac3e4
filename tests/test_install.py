"""The package installs and runs with the oldest dependency versions it admits.

A fresh venv (no pip of its own: this venv's pip installs into it) receives the wheel
built from this checkout and, for every core dependency, exactly the floor that
``pyproject.toml`` declares (``anthropic>=1.0`` installs ``anthropic==1.0``...), from
wheels downloaded once into a cache under the system's temporary folder (keyed by
that set; later runs install offline from it). Then ``tests/_install_check.py``, run
by the venv's python, imports the package and its transports, compacts offline
through the stub transport and through each SDK's real HTTP path, and reports the
error each optional module raises without its extra; the console script and
``python -m contextfold`` run too, and ``demo`` says it needs ``contextfold-harness``
(the harnesses are not in the runtime wheel).

The first run needs the package registry (a skip naming it when unreachable, a
failure under ``CONTEXTFOLD_REQUIRE_SERVICES=1``); marked ``install`` so that
``pytest -m "not install"`` leaves it out.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.conftest import require_service

# one worker builds the module's venv (under ``make test``'s parallel workers)
pytestmark = [pytest.mark.install, pytest.mark.xdist_group("install")]

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def floors() -> list[str]:
    """``name==floor`` for every core dependency (each must declare a ``>=`` floor)."""
    pins = []
    for line in PROJECT["dependencies"]:
        requirement = Requirement(line)
        [lowest] = [s.version for s in requirement.specifier if s.operator == ">="]
        pins.append(f"{requirement.name}=={lowest}")
    return sorted(pins)


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _wheels(pins: list[str], python: Path) -> Path:
    """A folder holding wheels for ``pins`` and their dependencies (downloaded once)."""
    key = hashlib.sha256(f"{sys.version_info[:2]} {pins}".encode()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / "contextfold-install-test" / key
    if (cache / "complete").exists():
        return cache
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f"{key}-", dir=cache.parent))
    fetched = _pip("--python", str(python), "download", "-q", "-d", str(partial), *pins)
    if fetched.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        last = (fetched.stderr.strip().splitlines() or ["no output"])[-1]
        require_service(f"the package registry did not provide {pins}: {last}")
    (partial / "complete").touch()
    try:
        partial.rename(cache)  # atomic; another test session may have won the race
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
    return cache


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding this checkout's wheel and the dependency floors, nothing else."""
    base = tmp_path_factory.mktemp("install")
    created = subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(base / "venv")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert created.returncode == 0, created.stderr
    python = base / "venv" / "bin" / "python"
    built = _pip("wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(base), str(ROOT))
    assert built.returncode == 0, built.stderr
    pins = floors()
    wheels = _wheels(pins, python)
    installed = _pip(
        "--python",
        str(python),
        "install",
        "-q",
        "--no-index",
        "--find-links",
        str(wheels),
        "--find-links",
        str(base),
        *pins,
        "contextfold",
    )
    assert installed.returncode == 0, installed.stderr
    return python


def _run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [str(python), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


def test_the_floors_are_exact_pins_of_every_core_dependency() -> None:
    pins = floors()
    assert {p.split("==")[0] for p in pins} >= {"anthropic", "openai", "httpx2"}
    assert "anthropic==1.0" in pins
    assert "openai==3.0" in pins


def test_the_oldest_allowed_versions_import_compact_and_summarize(
    venv: Path, tmp_path: Path
) -> None:
    result = _run(venv, str(ROOT / "tests" / "_install_check.py"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert Path(report["contextfold"]).is_relative_to(venv.parent.parent)  # not ./src
    wanted = {p.split("==")[0]: p.split("==")[1] for p in floors()}
    for dist, installed in report["versions"].items():
        assert Requirement(f"{dist}=={wanted[dist]}").specifier.contains(installed), dist
    assert report["stub_compactions"] >= 1
    for provider, text in report["sdk_summaries"].items():
        assert f"The user listed twelve facts; all were acknowledged. ({provider})" in text
    assert report["sqlite_messages"] == 2
    for module, (kind, message) in report["without_extras"].items():
        extra = module.rsplit(".", 1)[1]
        assert kind == "ImportError", (module, kind)
        assert f"pip install 'contextfold[{extra}]'" in message
    assert report["license"] == "MIT"
    assert {u.split(",")[0] for u in report["urls"]} == set(PROJECT["urls"])


def test_the_console_script_and_dash_m_run_in_the_fresh_venv(venv: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "chat.json"
    chat = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " + "w" * 600}
        for i in range(40)
    ]
    transcript.write_text(json.dumps(chat), encoding="utf-8")
    script = venv.parent / "contextfold"
    compacted = subprocess.run(
        [str(script), "compact", str(transcript), "--keep-recent", "4", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert compacted.returncode == 0, compacted.stderr
    stats = json.loads(compacted.stdout)["stats"]
    assert (stats["messages_before"], stats["compacted"]) == (40, True)
    version = _run(venv, "-m", "contextfold", "--version", cwd=tmp_path)
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("contextfold ")
    serve = _run(venv, "-m", "contextfold", "serve", "--port", "1", cwd=tmp_path)
    assert (serve.returncode, serve.stderr) == (
        1,
        "contextfold: error: the proxy needs the 'proxy' extra: pip install 'contextfold[proxy]'\n",
    )
    # the demo session is the contextfold-harness package, which the wheel leaves out
    demo = _run(venv, "-m", "contextfold", "demo", "--turns", "1", cwd=tmp_path)
    assert (demo.returncode, demo.stderr) == (
        1,
        "contextfold: error: contextfold demo needs the 'contextfold-harness' package: "
        "pip install contextfold-harness (in a checkout of contextfold: "
        "pip install -e ./harness)\n",
    )
    assert list(tmp_path.iterdir()) == [transcript]  # and made no database
