"""Attack 25: one meaning per setting - what each face refuses, and how it says so."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from contextfold.cli import build_parser
from contextfold.cli._commands import CLIError
from contextfold.cli._serve import resolve
from contextfold.compaction import CompactionSettings, TriggerCheck
from contextfold.manager import CompactingContextManager
from contextfold.proxy import create_app

SECRET = "sk-ant-api03-ATTACK25SETTINGSx9y8z7w6v5u4t3s2r1"


def test_a_refused_agent_system_is_not_echoed_into_the_error() -> None:
    # Impact (low): the proxy refuses agent_system, and its error quotes the whole
    # prompt - credentials a prompt carries included - where every other path of
    # contextfold redacts key-like text from what it reports.
    prompt = f"You are the deploy agent. Use the key {SECRET} for the API.\n" + "x" * 5_000
    with pytest.raises(ValueError, match="agent_system") as raised:
        create_app(settings=CompactionSettings(agent_system=prompt))
    message = str(raised.value)
    assert SECRET not in message
    assert len(message) < 1_000


@pytest.mark.parametrize(
    ("field", "value"),
    [("proactive", False), ("cache_friendly", True), ("agent_system", "Be brief.")],
)
def test_the_proxy_refusal_names_the_field(field: str, value: Any) -> None:
    refused = re.escape(f"the proxy does not support CompactionSettings.{field}")
    with pytest.raises(ValueError, match=refused):
        create_app(settings=CompactionSettings(**{field: value}))


def test_the_manager_refuses_max_tokens_and_holds_a_hook() -> None:
    refused = re.escape("the manager does not support CompactionSettings.max_tokens")
    with pytest.raises(ValueError, match=refused):
        CompactingContextManager(settings=CompactionSettings(max_tokens=50_000))

    def hook(check: TriggerCheck) -> bool | None:
        return None

    manager = CompactingContextManager(settings=CompactionSettings(should_compact=hook))
    assert manager.settings.should_compact is hook


def test_settings_with_a_hook_compare_and_replace_as_values() -> None:
    def hook(check: TriggerCheck) -> bool | None:
        return None

    settings = CompactionSettings(should_compact=hook)
    assert settings == CompactionSettings(should_compact=hook)
    assert settings != CompactionSettings()
    assert settings.replace(keep_recent=3).should_compact is hook
    app = create_app(settings=settings)
    assert app.state.settings.should_compact is hook
    assert app.state.forwarder.planner.scheduler.should_compact is hook


def test_the_proxy_honours_max_tokens_for_models_without_their_own_threshold() -> None:
    app = create_app(
        settings=CompactionSettings(max_tokens=20_000),
        context_window=128_000,
        models={"own": {"threshold": 0.5}},
    )
    planner = app.state.forwarder.planner
    assert planner.limit("any-model", "") == 20_000
    assert planner.limit("own", "") == 64_000  # its own threshold wins
    # never above what the window takes with room for a reply
    small = create_app(settings=CompactionSettings(max_tokens=500_000), context_window=32_768)
    assert small.state.forwarder.planner.limit("m", "") <= 32_768


@pytest.mark.parametrize("key", ["should_compact", "max_tokens", "agent_system", "proactive"])
def test_a_serve_config_cannot_set_what_the_command_line_does_not_offer(
    tmp_path: Path, key: str
) -> None:
    config = tmp_path / "serve.toml"
    config.write_text(f'[defaults]\n{key} = "x"\n')
    args = build_parser().parse_args(["serve", "--config", str(config)])
    with pytest.raises(CLIError, match=f"unknown setting '{key}'"):
        resolve(args, {})
