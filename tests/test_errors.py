"""The one error tree: the drawing in errors.py is the real hierarchy, and all of it is public."""

from __future__ import annotations

import builtins
import inspect
import re

import pytest

import contextfold
from contextfold import errors
from contextfold.errors import (
    RETRYABLE_ERRORS,
    AuthenticationError,
    BadRequestError,
    ContextfoldError,
    ContextOverflowError,
    CorruptRecordError,
    HistoryValidationError,
    MaxIterationsError,
    PromptError,
    ProviderUnavailableError,
    RateLimitError,
    SessionNotFoundError,
    StoreError,
    SummaryRejectedError,
    TransportConnectionError,
    TransportError,
    TransportTimeoutError,
)

_TREE_LINE = re.compile(r"^(?P<lead>[ │├└─]*?)(?P<name>[A-Z]\w+Error)\b(?P<note>.*)$")


def drawn_tree() -> dict[str, tuple[str | None, str]]:
    """``{class name: (parent name, note)}`` parsed from the module docstring's drawing."""
    doc = errors.__doc__ or ""
    drawing = doc.split("::", 1)[1]
    tree: dict[str, tuple[str | None, str]] = {}
    stack: list[str] = []
    for line in drawing.splitlines():
        match = _TREE_LINE.match(line)
        if not match:
            continue
        depth = (len(match["lead"]) - 4) // 4  # the root sits at the docstring's indent
        del stack[depth:]
        tree[match["name"]] = (stack[-1] if stack else None, match["note"])
        stack.append(match["name"])
    return tree


def error_classes() -> dict[str, type[BaseException]]:
    return {
        name: obj
        for name, obj in vars(errors).items()
        if inspect.isclass(obj)
        and issubclass(obj, BaseException)
        and obj.__module__ == errors.__name__
    }


def test_the_drawing_names_every_error_class_and_nothing_else() -> None:
    assert set(drawn_tree()) == set(error_classes())


def test_the_drawing_is_the_real_hierarchy() -> None:
    classes = error_classes()
    for name, (parent, _) in drawn_tree().items():
        cls = classes[name]
        ours = [base for base in cls.__bases__ if base.__module__ == errors.__name__]
        if parent is None:
            assert cls is ContextfoldError
            assert cls.__bases__ == (Exception,)
        else:
            assert ours == [classes[parent]], f"{name} derives from {ours}, drawn under {parent}"


def test_every_builtin_base_is_noted_in_the_drawing() -> None:
    classes = error_classes()
    for name, (_, note) in drawn_tree().items():
        foreign = {b.__name__ for b in classes[name].__bases__ if b.__module__ == "builtins"}
        foreign.discard("Exception")
        noted = set(re.findall(r"\(also (\w+)\)", note))
        assert noted == foreign, name
        for base in noted:
            assert issubclass(classes[name], getattr(builtins, base))


@pytest.mark.parametrize("name", sorted(error_classes()))
def test_every_error_is_exported_from_the_package_and_errors_module(name: str) -> None:
    cls = error_classes()[name]
    assert name in errors.__all__
    assert name in contextfold.__all__
    assert getattr(contextfold, name) is cls


def test_everything_derives_from_contextfold_error() -> None:
    for cls in error_classes().values():
        assert issubclass(cls, ContextfoldError)


def test_transport_error_carries_where_and_what() -> None:
    err = BadRequestError(
        "bad tool schema", provider="anthropic", model="claude-x", status=400, body={"e": 1}
    )
    assert (err.message, err.provider, err.model, err.status, err.body) == (
        "bad tool schema",
        "anthropic",
        "claude-x",
        400,
        {"e": 1},
    )
    assert str(err) == "bad tool schema"
    assert isinstance(err, TransportError)


def test_overflow_is_a_bad_request_so_generic_handlers_catch_it() -> None:
    with pytest.raises(BadRequestError):
        raise ContextOverflowError("prompt is too long", status=400)


def test_retry_hints_are_attributes() -> None:
    assert RateLimitError("slow down", retry_after=2.5, status=429).retry_after == 2.5
    assert ProviderUnavailableError("overloaded", status=529).retry_after is None


def test_only_transient_failures_are_retryable() -> None:
    assert set(RETRYABLE_ERRORS) == {
        RateLimitError,
        ProviderUnavailableError,
        TransportTimeoutError,
        TransportConnectionError,
    }
    assert not issubclass(AuthenticationError, RETRYABLE_ERRORS)
    assert not issubclass(ContextOverflowError, RETRYABLE_ERRORS)


def test_input_errors_are_also_value_errors() -> None:
    for cls in (HistoryValidationError, PromptError, CorruptRecordError):
        assert issubclass(cls, ValueError)


def test_history_validation_error_lists_every_problem() -> None:
    err = HistoryValidationError(["message 0 is empty", "message 3: two assistant messages"])
    assert err.problems == ["message 0 is empty", "message 3: two assistant messages"]
    assert str(err) == "message 0 is empty; message 3: two assistant messages"


def test_max_iterations_says_what_to_do() -> None:
    err = MaxIterationsError(7)
    assert err.iterations == 7
    assert "after 7 model calls" in str(err)
    assert "raise max_iterations" in str(err)


def test_summary_rejected_keeps_the_reason() -> None:
    err = SummaryRejectedError("the summary was empty", reason="empty")
    assert err.reason == "empty"
    assert isinstance(err, errors.CompactionError)


def test_session_not_found_is_a_key_error_with_a_plain_message() -> None:
    with pytest.raises(KeyError):
        raise SessionNotFoundError("no session 'abc' in chats.db")
    assert str(SessionNotFoundError("no session 'abc'")) == "no session 'abc'"
    assert str(SessionNotFoundError()) == "session not found"
    assert issubclass(SessionNotFoundError, StoreError)
