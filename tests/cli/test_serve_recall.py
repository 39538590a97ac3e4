"""``contextfold serve --recall`` turns the proxy's recall loop on."""

from __future__ import annotations

from typing import Any

import pytest

import contextfold.proxy
from contextfold import cli


@pytest.mark.parametrize(("flags", "expected"), [(["--recall"], True), ([], False)])
def test_serve_passes_recall_to_the_proxy(
    monkeypatch: pytest.MonkeyPatch, flags: list[str], expected: bool | None
) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr(contextfold.proxy, "serve", lambda **kwargs: seen.update(kwargs))
    monkeypatch.setattr(cli, "_check_address", lambda host, port: None)
    assert cli.main(["serve", "--port", "8799", *flags]) == 0
    assert seen["options"].recall is expected
