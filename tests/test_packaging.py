"""What ``pyproject.toml`` declares matches what the code imports; licence, URLs, ``-m``;
what each wheel (the runtime package, ``harness/``'s contextfold-harness) carries.

The install itself (a fresh venv with the oldest allowed SDKs) is tested in
``tests/test_install.py``.
"""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from contextfold._extras import EXTRAS

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "contextfold"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
HARNESS_ROOT = ROOT / "harness"
HARNESS = tomllib.loads((HARNESS_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _names(requirements: list[str]) -> set[str]:
    return {Requirement(r).name.lower() for r in requirements}


CORE = _names(PROJECT["dependencies"])
EXTRA_DISTS = {
    extra: _names(reqs)
    for extra, reqs in PROJECT["optional-dependencies"].items()
    if extra not in ("all", "dev")
}


@functools.cache
def _installed() -> dict[str, list[str]]:
    """Which distributions provide each top-level module (read once: it walks every
    installed distribution's file list)."""
    return packages_distributions()


@functools.cache
def _third_party_imports(src: Path = SRC) -> dict[str, set[Path]]:
    """Top-level modules imported anywhere in ``src`` that are neither ours nor stdlib."""
    found: dict[str, set[Path]] = {}
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops = [alias.name.partition(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                tops = [node.module.partition(".")[0]]
            else:
                continue
            for top in tops:
                if top not in ("contextfold", "contextfold_harness") and (
                    top not in sys.stdlib_module_names
                ):
                    found.setdefault(top, set()).add(path)
    return found


def _distribution(module: str) -> str:
    [dist] = _installed()[module][:1]
    return dist.lower().replace("_", "-")


def test_every_imported_package_is_declared_where_it_is_needed() -> None:
    imports = _third_party_imports()
    assert {"anthropic", "openai", "httpx2", "aiosqlite"} <= set(imports)
    for module in imports:
        dist = _distribution(module)
        extras = [extra for extra, modules in EXTRAS.items() if module in modules]
        if extras:  # an optional package: declared in that extra, not in the core
            [extra] = extras
            # a namespace package (opentelemetry) spans several distributions
            dists = {d.lower().replace("_", "-") for d in _installed()[module]}
            dist = next(iter(sorted(dists & EXTRA_DISTS[extra])), dist)
            assert dist in EXTRA_DISTS[extra], f"{module} ({dist}) is not in the {extra} extra"
            assert dist not in CORE, f"{dist} is optional ({extra}) but a core dependency"
        else:
            assert dist in CORE, f"src imports {module} but {dist} is not a dependency"


def test_no_core_dependency_goes_unused() -> None:
    used = {_distribution(module) for module in _third_party_imports()}
    assert used >= CORE, f"declared but never imported: {sorted(CORE - used)}"
    assert "httpx" not in CORE  # the SDKs moved to httpx2; only respx (tests) needs httpx
    assert "httpx" in _names(PROJECT["optional-dependencies"]["dev"])


def test_every_extra_is_known_to_the_install_hints() -> None:
    assert set(EXTRA_DISTS) == set(EXTRAS)


def test_the_sdk_floors_are_the_first_releases_on_httpx2() -> None:
    floors = {Requirement(r).name: str(Requirement(r).specifier) for r in PROJECT["dependencies"]}
    assert floors["anthropic"] == ">=1.0"
    assert floors["openai"] == ">=3.0"
    assert floors["httpx2"] == ">=2.7"


def test_license_and_project_urls() -> None:
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License")
    assert "contextfold developers" in license_text
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]
    urls = PROJECT["urls"]
    assert set(urls) == {"Homepage", "Repository", "Issues", "Documentation"}
    assert all(u.startswith("https://github.com/contextfold/contextfold") for u in urls.values())


def _run_module(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contextfold", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
        timeout=120,
    )


def test_python_dash_m_contextfold_is_the_cli(tmp_path: Path) -> None:
    from contextfold import __version__

    version = _run_module("--version")
    assert (version.returncode, version.stdout.strip()) == (0, f"contextfold {__version__}")
    usage = _run_module("--help")
    assert usage.returncode == 0
    assert usage.stdout.startswith("usage: contextfold ")
    db = tmp_path / "sessions.db"
    demo = _run_module("demo", "--turns", "2", "--json", "--db", str(db))
    assert demo.returncode == 0, demo.stderr
    listed = _run_module("sessions", str(db))
    assert listed.returncode == 0
    assert "1 session(s)" in listed.stdout
    bad = _run_module("compact", str(tmp_path / "missing.json"))
    assert bad.returncode == 1
    assert bad.stderr.count("\n") == 1
    assert bad.stderr.startswith("contextfold: error: ")


# -- the wheels -------------------------------------------------------------------------

# What users never import: the harnesses and demo data, in harness/ (contextfold-harness).
HARNESS_MODULES = (
    "fidelity/__init__.py",
    "fidelity/_build.py",
    "fidelity/_sessions.py",
    "compactbench.py",
    "demo.py",
    "scenario.py",
    "fake_upstream.py",
    "_fake_responses.py",
)
MOVED_OUT = (
    "contextfold/fidelity/",
    "contextfold/compactbench.py",
    "contextfold/cli/_demo.py",
    "contextfold/cli/_scenario.py",
    "contextfold/proxy/fake_upstream.py",
    "contextfold/proxy/_fake_responses.py",
)


def _wheel(root: Path, into: Path) -> zipfile.ZipFile:
    builder = pytest.importorskip("hatchling.builders.wheel")
    [wheel] = list(
        builder.WheelBuilder(str(root)).build(directory=str(into), versions=["standard"])
    )
    return zipfile.ZipFile(wheel)


def _metadata(wheel: zipfile.ZipFile) -> dict[str, list[str]]:
    [name] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    message = Parser().parsestr(wheel.read(name).decode("utf-8"))
    return {key: message.get_all(key) or [] for key in set(message.keys())}


def test_the_runtime_wheel_carries_no_harness(tmp_path: Path) -> None:
    wheel = _wheel(ROOT, tmp_path)
    names = wheel.namelist()
    assert "contextfold/__init__.py" in names
    assert "contextfold/cli/_extractive.py" in names  # `contextfold compact` uses it
    assert "contextfold/cli/_fidelity.py" in names  # the command; it loads the harness
    for moved in MOVED_OUT:
        assert not [n for n in names if n.startswith(moved)], moved
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"contextfold"}
    assert not [r for r in _metadata(wheel)["Requires-Dist"] if "harness" in r]


def test_the_harness_wheel_carries_the_harness_and_pins_the_runtime(tmp_path: Path) -> None:
    wheel = _wheel(HARNESS_ROOT, tmp_path)
    names = wheel.namelist()
    for module in (*HARNESS_MODULES, "__init__.py", "py.typed"):
        assert f"contextfold_harness/{module}" in names, module
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"contextfold_harness"}
    assert [n for n in names if n.endswith("licenses/LICENSE")], names
    meta = _metadata(wheel)
    assert meta["Name"] == ["contextfold-harness"]
    assert meta["Version"] == [PROJECT["version"]]
    requires = [Requirement(r) for r in meta["Requires-Dist"]]
    [runtime] = [r for r in requires if r.name == "contextfold"]
    assert runtime.extras == {"proxy"}
    assert str(runtime.specifier) == f"=={PROJECT['version']}"  # it uses the internals


def test_the_harness_declares_what_it_imports() -> None:
    """The harness imports contextfold, Starlette and uvicorn (the fake upstream; the
    proxy extra it requires brings them) and CompactBench (its own extra), nothing else."""
    imports = set(_third_party_imports(HARNESS_ROOT / "src" / "contextfold_harness"))
    assert imports <= {"starlette", "uvicorn", "compactbench"}, imports
    assert {"starlette", "uvicorn"} <= _names(PROJECT["optional-dependencies"]["proxy"])
    assert HARNESS["optional-dependencies"] == {"compactbench": ["compactbench>=0.1"]}
    assert HARNESS["version"] == PROJECT["version"]
    assert (HARNESS_ROOT / "LICENSE").read_text(encoding="utf-8") == (ROOT / "LICENSE").read_text(
        encoding="utf-8"
    )
