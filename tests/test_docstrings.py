"""``help()`` on the classes a newcomer builds first documents every parameter and attribute."""

from __future__ import annotations

import inspect
import re

import pytest

from contextfold import AutoCompactStore, CompactionSettings, MemoryContextStore
from contextfold.manager import CompactingContextManager
from contextfold.testing import StubTransport


def _mentions(doc: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}\b", doc) is not None


@pytest.mark.parametrize(
    "cls", [AutoCompactStore, CompactingContextManager, CompactionSettings], ids=str
)
def test_every_init_parameter_is_in_the_class_docstring(cls: type) -> None:
    doc = inspect.getdoc(cls) or ""
    parameters = [name for name in inspect.signature(cls).parameters if name != "self"]
    assert len(parameters) >= 10
    assert [name for name in parameters if not _mentions(doc, name)] == []


def test_every_public_attribute_of_autocompactstore_is_documented() -> None:
    store = AutoCompactStore(MemoryContextStore(), StubTransport([]))
    doc = inspect.getdoc(AutoCompactStore) or ""
    instance = {name for name in vars(store) if not name.startswith("_")}
    properties = {
        name
        for name, value in vars(AutoCompactStore).items()
        if isinstance(value, property) and not name.startswith("_")
    }
    assert {"compactions", "summarizer_usage", "last_event"} <= instance | properties
    undocumented = [
        name
        for name in sorted(instance | properties)
        if not _mentions(doc, name)
        and not (name in properties and inspect.getdoc(getattr(AutoCompactStore, name)))
    ]
    assert undocumented == []
