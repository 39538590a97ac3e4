"""The proxy's last word: every request is answered in JSON, and no connection is dropped.

Each fault a client can commit is answered where it is found, with a 4xx in the
dialect's error shape (:meth:`~contextfold.dialects.base.Dialect.error_body`): malformed
bodies in :mod:`~contextfold.proxy._dialects`, paths in :mod:`~contextfold.proxy._routing`,
sizes in :mod:`~contextfold.proxy._forward`. This module answers what is left:

* Routing errors Starlette raises (an unknown method: 405, a target that is no
  path: 404) are turned into the same JSON, instead of Starlette's plain text.
* :class:`SafetyNet`, the outermost middleware, catches any exception nothing else
  did, logs it at ERROR with its traceback (the request's credentials scrubbed from
  the whole text, chained exceptions included) and answers a JSON **500** in the
  dialect's shape: ``server_error`` (OpenAI) / ``api_error`` (Anthropic). When the
  response had already started (a relayed stream), the body is ended cleanly
  instead, so the connection stays usable; the client sees the stream end early.
  A long reply the upstream broke off while it was relayed (:class:`BrokeOff`) is
  left unended instead: the server closes the connection, and the client sees the
  body cut short rather than a shorter one that looks whole.

Why 500 and not 502 or 400: such an exception is a defect of the proxy, the one
thing that status says. A 502 would blame the upstream and a 400 the client, and
both would be believed: clients (and the SDKs' retry rules) act on the status. The
SDKs retry a 500 a bounded number of times, which is right for a transient fault
(the cache's disk full) and costs little for a defect. The suite's fuzz test
(``tests/test_proxy_fuzz.py``) fails if the net ever catches anything.
"""

from __future__ import annotations

import json
import logging
import traceback

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from contextfold._secrets import Secrets, header_secrets, log_text
from contextfold.dialects import Dialect
from contextfold.proxy._routing import answer_dialect

logger = logging.getLogger("contextfold.proxy")

TRACEBACK_LINES = 200
"""The most lines of a traceback :func:`log_unexpected` logs."""


class BrokeOff(Exception):
    """An upstream reply broke off while it was relayed, after its answer started.

    Raised (by :mod:`._relay`, which logged it) out of the response so that it is
    never ended as if whole: :class:`SafetyNet` lets it pass without a log or an
    ending, and the server closes the connection with the answer cut short."""


def json_error(dialect: Dialect, status: int, message: str) -> Response:
    """An error response of the proxy's own, in ``dialect``'s shape."""
    return Response(
        json.dumps(dialect.error_body(status, message)),
        status_code=status,
        media_type="application/json",
    )


def log_unexpected(exc: BaseException, what: str, secrets: Secrets) -> None:
    """Log ``exc`` at ERROR with its traceback, every secret scrubbed from the whole text.

    ``what`` is the record's first line; the traceback follows, each of its lines (at
    most :data:`TRACEBACK_LINES`) indented by ``"  | "`` and made :func:`log_text`, so
    that an exception's message (which may quote a client or an upstream) can neither
    forge a line of its own nor fill the log.
    """
    lines = secrets.text("".join(traceback.format_exception(exc))).splitlines()
    shown = ["  | " + log_text(line) for line in lines[:TRACEBACK_LINES]]
    if len(lines) > TRACEBACK_LINES:
        shown.append(f"  | ... [{len(lines) - TRACEBACK_LINES} more lines not logged]")
    logger.error("\n".join([log_text(secrets.text(what)), *shown]))


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's routing errors (404, 405) as JSON in the request's dialect."""
    assert isinstance(exc, HTTPException)
    response = json_error(answer_dialect(request.scope), exc.status_code, exc.detail)
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


class SafetyNet:
    """Outermost ASGI middleware: an escaped exception becomes a logged JSON 500.

    See the module doc for the status. ``BaseException`` s that are not
    ``Exception`` s (cancellation, interpreter exit) pass through untouched.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = {"started": False, "ended": False}

        async def watched(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.start":
                state["started"] = True
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                state["ended"] = True

        try:
            await self.app(scope, receive, watched)
        except BrokeOff:
            return  # the server closes the connection: the answer ends cut short
        except Exception as exc:
            secrets = Secrets(header_secrets(Headers(scope=scope).items()))
            where = f"{scope.get('method')} {scope.get('path', '')!r}"
            log_unexpected(exc, f"unexpected error answering {where}", secrets)
            try:
                if not state["started"]:
                    message = f"the proxy failed on this request ({type(exc).__name__})"
                    response = json_error(answer_dialect(scope), 500, message)
                    await response(scope, receive, send)
                elif not state["ended"]:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
            except Exception:  # the client is gone: nothing is left to answer it with
                return
