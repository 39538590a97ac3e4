"""The contract every wire format fulfils: :class:`Dialect`.

A dialect is one of the JSON formats clients and providers speak - Chat Completions
(:mod:`.chat`), the Responses API (:mod:`.responses`), Anthropic's Messages API
(:mod:`.messages`) - and the one object that knows everything about it: how a
request body holds its history, how that history reads as
:class:`~contextfold.messages.Message` s and is written back, where a history may
be cut into pieces that read on their own, what its answers report (usage, errors,
an overflow of the context window), where its requests go upstream, and how a tool
the proxy answers itself (recall) is offered, called, answered and streamed.

Code outside :mod:`contextfold.dialects` holds a :class:`Dialect` and calls it; it
never asks which one it holds. Each concrete dialect is a stateless singleton
(``CHAT``, ``RESPONSES``, ``MESSAGES`` in :mod:`contextfold.dialects`), compared by
identity.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from contextfold.messages import Message

__all__ = ["Dialect", "ItemRole", "Provider", "Rules", "Side"]

Provider = Literal["openai", "anthropic"]
"""Whose API serves a dialect: the upstream it is forwarded to, and the transport
that summarizes its requests."""

Rules = Literal["any", "anthropic", "openai"]
"""The rule set of :func:`contextfold.validation.history_problems` a rewritten
history of a dialect must pass (its ``dialect`` argument)."""

Side = Literal["turn", "results", "assistant", "other"]
"""Whose a history item is: a user's turn, tool results (or any answer to the
assistant), the assistant's, or anything else (system messages, unknown roles)."""


@dataclass(frozen=True, slots=True)
class ItemRole:
    """One wire item of a history as the proxy's layout rules read it.

    ``tools``: the item calls or answers a tool. ``texts``: the texts of a user turn
    (``None`` for other items, and for a turn whose content is neither a string nor
    a list of parts).
    """

    side: Side
    tools: bool = False
    texts: tuple[str, ...] | None = None


class Dialect(ABC):
    """One wire format: everything contextfold knows about its JSON.

    Histories
        :attr:`history_key` names the body field that holds the history (a list of
        wire *items*), :attr:`outside_key` the one that holds system text outside it
        (``None``: there is none). :meth:`read` parses items to messages and
        :meth:`write` writes messages as items; both keep content nobody models
        byte for byte (:class:`~contextfold.blocks.OpaqueBlock` s whose
        ``dialect`` is :attr:`name`). :meth:`fresh` says where a list of items may
        be cut into pieces that each read on their own.
    Answers
        :meth:`input_tokens` reads the prompt size an answer (or a stream event)
        reports; :meth:`error_body` is the error JSON the format's clients parse;
        :meth:`is_overflow` and :meth:`reported_sizes` read an upstream's
        context-overflow error, which :meth:`overflow_body` writes.
    Routing
        :attr:`path` is the chat route; :attr:`provider` the upstream that serves
        it; :meth:`upstream_url` where a request path goes there.
    Recall
        With :attr:`supports_recall`, the tool operations (:meth:`offer_tool`,
        :meth:`tool_uses`, :meth:`answer_tools`, :meth:`without_tool`,
        :meth:`replay`) work; without it they raise :class:`NotImplementedError`
        naming the dialect.
    """

    name: ClassVar[str]
    """The format's name: also the ``dialect`` of the opaque blocks its readers make."""
    path: ClassVar[str]
    """The chat route of the format (``/v1/chat/completions``...)."""
    provider: ClassVar[Provider]
    """Whose API serves the format: its upstream, and the transport that summarizes."""
    history_key: ClassVar[str]
    """The body field that holds the history (``messages``, ``input``)."""
    outside_key: ClassVar[str | None]
    """The body field that holds system text outside the history (``system``,
    ``instructions``; ``None``: system messages are items like any other)."""
    rules: ClassVar[Rules]
    """The validation rules a history rewritten in this format must pass."""
    history_marker: ClassVar[re.Pattern[bytes]]
    """How the history field opens in a body's raw JSON (``"messages"`` and a ``[``):
    the proxy's byte-level fast path looks for it."""
    server_state_markers: ClassVar[tuple[bytes, ...]] = ()
    """Raw JSON keys that make a body lean on history only the upstream holds."""
    supports_recall: ClassVar[bool] = False
    """Whether the proxy may offer (and answer) its recall tool in this format."""

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<dialect {self.name}>"

    # -- histories ----------------------------------------------------------------

    @abstractmethod
    def read(self, items: Sequence[Any], outside: Any = None) -> list[Message]:
        """Parse wire ``items`` (and the system text ``outside`` them, where the
        format has such a field) into messages.

        Content nobody models is carried as opaque blocks; malformed JSON of a
        modelled type raises :class:`ValueError` naming the item and the defect.
        """

    @abstractmethod
    def write(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        """``messages`` as wire items, system messages included among them (the
        caller places the body's own system field)."""

    @abstractmethod
    def write_split(self, messages: Sequence[Message]) -> tuple[str | None, list[dict[str, Any]]]:
        """``(outside, items)``: ``messages`` as a request writes them, the system
        messages that open them lifted into the field outside the history when the
        format has one (``outside`` is ``None`` otherwise)."""

    @abstractmethod
    def place_outside(self, body: dict[str, Any], messages: Sequence[Message]) -> bool:
        """Write ``messages`` (system messages that open a history) into ``body``'s
        field outside the history, in place; ``False`` (``body`` untouched) when the
        format has no such field and they belong among the items."""

    @abstractmethod
    def history(self, body: Mapping[str, Any]) -> tuple[str | list[Any], Any]:
        """``(items, outside)`` of a body that passed :meth:`check_body`.

        :class:`ValueError` when the field outside the history has the wrong type.
        """

    def check_body(self, body: Mapping[str, Any]) -> None:
        """:class:`ValueError` when ``body``'s history field is not what the format
        takes (the items themselves are not read)."""
        if not isinstance(body.get(self.history_key), list):
            raise ValueError(f"field {self.history_key!r} must be a list of messages")

    def outside(self, body: Mapping[str, Any]) -> Any:
        """What ``body`` holds outside its history (``None`` when nothing, or when
        the format has no such field)."""
        return None if self.outside_key is None else body.get(self.outside_key)

    def read_body(self, body: Mapping[str, Any]) -> list[Message]:
        """The history a request ``body`` carries, system text outside it included."""
        return self.read(body[self.history_key], self.outside(body))

    @abstractmethod
    def fresh(self, items: Sequence[Any], index: int) -> bool:
        """Whether ``items[index:]`` reads without the items before it: nothing
        before ``index`` is changed by what follows, and what follows reads the
        same alone (always true at 0). Never raises on malformed items."""

    @abstractmethod
    def classify(self, item: Any) -> ItemRole:
        """Whose ``item`` (a wire item of a history) is, and whether it calls or
        answers a tool. Never raises on malformed items."""

    def server_state(self, body: Mapping[str, Any]) -> str | None:
        """Why ``body`` cannot be compacted, when it leans on history only the
        upstream holds (``None``: it carries its whole history)."""
        return None

    # -- answers ------------------------------------------------------------------

    @abstractmethod
    def input_tokens(self, payload: Any) -> int | None:
        """The whole prompt size an answer (or a stream event's) ``payload`` reports,
        cached tokens included; ``None`` when it reports none."""

    @abstractmethod
    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """The error JSON this format's clients parse, for an error of ``status``."""

    @abstractmethod
    def is_overflow(self, status: int | None, error: Any, fallback: str = "") -> bool:
        """Whether an error answer says the prompt is longer than the model's window.

        ``error`` is the ``"error"`` member of the error body; ``fallback`` a message
        read when it has none. ``status`` ``None``: an error inside a stream.
        """

    @abstractmethod
    def reported_sizes(self, text: str) -> tuple[int, int] | None:
        """``(window, prompt)`` in the upstream's tokens, when the text of its
        overflow error states both."""

    @abstractmethod
    def overflow_body(self, prompt_tokens: int, window: int) -> dict[str, Any]:
        """The error body this format's API answers a prompt over its window with."""

    # -- routing ------------------------------------------------------------------

    def upstream_url(self, path: str, *, openai_base: str, anthropic_base: str) -> str:
        """Where the proxy's ``path`` goes upstream: under ``anthropic_base``, or
        under ``openai_base``, which includes its ``/v1`` (``/v1/x`` goes to
        ``{openai_base}/x``)."""
        return openai_base + (path[3:] if path == "/v1" or path.startswith("/v1/") else path)

    def claims(self, path: str, headers: Mapping[str, str]) -> bool:
        """Whether a request to ``path`` (another route than the chat routes) is this
        format's."""
        return path == self.path or path.startswith(self.path + "/")

    def window(self, headers: Iterable[tuple[str, str]]) -> int | None:
        """A wider context window the request's ``headers`` ask for than its model's."""
        return None

    # -- recall: a tool the proxy answers itself ------------------------------------

    def offer_tool(
        self, body: Mapping[str, Any], name: str, description: str, schema: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """``body`` with a function tool added (and streaming off), or ``None`` when
        the request leaves no room for it: tools turned off, several choices asked
        for, a tool definition it cannot read, or a tool of that name already."""
        if not self.supports_recall:
            raise self._no_recall()
        tools = body.get("tools", [])
        choice = body.get("tool_choice")
        if not isinstance(tools, list) or choice == "none":
            return None
        if isinstance(choice, dict) and choice.get("type") == "none":
            return None
        if body.get("n", 1) not in (1, None):  # several choices: one loop follows one
            return None
        for tool in tools:
            spec = self.tool_spec(tool)
            if spec is None or spec.get("name") == name:
                return None
        added = self.tool_definition(name, description, schema)
        out = {**body, "tools": [*tools, added], "stream": False}
        out.pop("stream_options", None)
        return out

    def tool_definition(
        self, name: str, description: str, schema: Mapping[str, Any]
    ) -> dict[str, Any]:
        """A function tool's definition in this format."""
        raise self._no_recall()

    def tool_spec(self, tool: Any) -> Mapping[str, Any] | None:
        """The object a tool definition keeps its ``name`` in (``None``: not one)."""
        raise self._no_recall()

    def tool_uses(self, payload: Any) -> Iterator[tuple[Any, str, Any]]:
        """``(name, call id, arguments)`` of each tool call in a reply ``payload``
        (``name`` ``None`` for a call of a kind without one)."""
        raise self._no_recall()

    def answer_tools(
        self,
        body: Mapping[str, Any],
        payload: Mapping[str, Any],
        answers: Sequence[tuple[str, str, bool]],
    ) -> dict[str, Any]:
        """``body`` continued by the reply ``payload`` and the ``answers`` to its tool
        calls, ``(call id, text, is_error)`` each."""
        raise self._no_recall()

    def without_tool(self, payload: Mapping[str, Any], name: str, note: str) -> dict[str, Any]:
        """``payload`` with its calls of tool ``name`` removed (``note`` as its text
        when nothing else is left), its stop reason mended."""
        raise self._no_recall()

    def opening_thinking(self, payload: Mapping[str, Any]) -> list[Any]:
        """The thinking a reply opens with (replayed by :meth:`with_opening`)."""
        if not self.supports_recall:
            raise self._no_recall()
        return []

    def with_opening(self, payload: dict[str, Any], opening: list[Any]) -> dict[str, Any]:
        """``payload`` (a reply after tool rounds the client never saw) opening with
        the turn's first ``opening`` thinking, where the format requires it."""
        if not self.supports_recall:
            raise self._no_recall()
        return payload

    def replay(self, payload: Mapping[str, Any], request: Mapping[str, Any]) -> Iterator[str]:
        """A complete reply ``payload`` as the server-sent events its API streams
        for ``request``."""
        raise self._no_recall()

    def _no_recall(self) -> NotImplementedError:
        return NotImplementedError(f"recall is not supported by the {self.name} dialect")
