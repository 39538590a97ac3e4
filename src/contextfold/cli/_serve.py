"""The options of ``contextfold serve``: from the command line, the environment, a TOML file.

Each option has one entry in :data:`OPTIONS`, which gives it its ``--flag``, its
``CONTEXTFOLD_*`` environment variable, its key in the TOML file and the check its
value must pass; a new option is one more entry. A value is taken from the first
of these that sets it:

1. the command line (``--threshold 0.6``);
2. the environment (``CONTEXTFOLD_THRESHOLD=0.6``; an empty variable counts as unset);
3. the ``[defaults]`` table of the ``--config`` file (``CONTEXTFOLD_CONFIG``);
4. the built-in default.

The file may also hold one ``[models."NAME"]`` table per model, with that model's
``context_window``, ``max_output_tokens``, ``threshold``, ``keep_recent`` and
``summary_model`` (see :class:`contextfold.proxy.ModelSettings`); a model's own
table wins over the proxy-wide values, wherever those come from.

Every bad value - not a number, out of range, an unknown key, a file that cannot
be read or is not TOML - is a :class:`~contextfold.cli._commands.CLIError` whose
message names where the value came from.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contextfold.cli._commands import CLIError
from contextfold.compaction import CompactionSettings

__all__ = [
    "ENV_PREFIX",
    "LOG_LEVELS",
    "OPTIONS",
    "Option",
    "add_serve_arguments",
    "app_keywords",
    "resolve",
]

ENV_PREFIX = "CONTEXTFOLD_"
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
_WHOLE = re.compile(r"[+-]?[0-9]{1,18}")
_MODEL_KEYS = (
    "context_window",
    "max_output_tokens",
    "threshold",
    "keep_recent",
    "summary_model",
    "native_compaction",
)

Check = Callable[[object, str], object]  # (value, where it came from) -> checked value


def _integer(minimum: int, maximum: int | None = None) -> Check:
    def check(value: object, where: str) -> int:
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
            number = int(value.strip())
        if number is None:
            raise CLIError(f"{where} must be a whole number, got {value!r}")
        if maximum is not None and not minimum <= number <= maximum:
            raise CLIError(f"{where} must be between {minimum} and {maximum}, got {number}")
        if number < minimum:
            raise CLIError(f"{where} must be at least {minimum}, got {number}")
        return number

    return check


def _switch(value: object, where: str) -> bool:
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise CLIError(f"{where} must be true or false (1/0, yes/no, on/off), got {value!r}")


class _Off:
    """The value of an option switched ``off``: ``None`` for its keyword."""

    def __repr__(self) -> str:
        return "off"


OFF = _Off()


def _share_or_off(value: object, where: str) -> float | _Off:
    """A share strictly between 0 and 1, or ``off``."""
    if isinstance(value, str) and value.strip().lower() == "off":
        return OFF
    share = _fraction(value, where)
    if share >= 1:
        raise CLIError(f"{where} must be a share between 0 and 1 or 'off', got {value!r}")
    return share


def _number(value: object) -> float | None:
    """``value`` as a float: a number (not a bool) or a string of one; else ``None``."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _fraction(value: object, where: str) -> float:
    number = _number(value)
    if number is None or not 0 < number <= 1:  # NaN fails too
        raise CLIError(f"{where} must be a number in (0, 1], got {value!r}")
    return number


def _seconds(value: object, where: str) -> float:
    """A positive, finite number of seconds."""
    number = _number(value)
    if number is None or not 0 < number < float("inf"):  # NaN fails too
        raise CLIError(f"{where} must be a positive number of seconds, got {value!r}")
    return number


def _seconds_or_off(value: object, where: str) -> float | _Off:
    """A positive number of seconds, or ``off``."""
    if isinstance(value, str) and value.strip().lower() == "off":
        return OFF
    return _seconds(value, where)


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CLIError(f"{where} must be a non-empty string, got {value!r}")
    return value.strip()


def _url(value: object, where: str) -> str:
    text = _text(value, where)
    if not text.startswith(("http://", "https://")):
        raise CLIError(f"{where} must be an http(s) URL, got {text!r}")
    return text


def _level(value: object, where: str) -> str:
    text = _text(value, where).lower()
    if text not in LOG_LEVELS:
        raise CLIError(f"{where} must be one of {', '.join(LOG_LEVELS)}, got {value!r}")
    return text


def _native(value: object, where: str) -> str:
    text = _text(value, where).lower()
    if text not in ("auto", "emulate", "pass"):
        raise CLIError(f"{where} must be one of auto, emulate, pass, got {value!r}")
    return text


def _secret(value: object, where: str) -> str:
    # the value is never echoed, whatever is wrong with it
    if not isinstance(value, str) or not value.strip():
        raise CLIError(f"{where} must be a string (it is a secret: not shown here)")
    if len(value.encode()) < 16:
        raise CLIError(f"{where} must be at least 16 bytes long")
    return value


def _names(value: object, where: str) -> list[str]:
    """Header names: a list (TOML, repeated flags) or comma-separated text (environment)."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise CLIError(f"{where} must be a list of header names, got {value!r}")
    names = [i.strip() for i in items if i.strip()]
    bad = [n for n in names if not n.isascii() or not all(c.isalnum() or c in "-_" for c in n)]
    if bad:
        raise CLIError(f"{where}: not a header name: {bad[0]!r}")
    return names


def _name(value: object, where: str) -> str:
    """One header name."""
    return _names([_text(value, where)], where)[0]


@dataclass(frozen=True, slots=True)
class Option:
    """One ``serve`` option: its name (the ``argparse`` dest and the TOML key), how it
    is checked, its default and its help text. ``keyword``: the option is passed to
    :func:`contextfold.proxy.create_app` under its name when it is set."""

    name: str
    check: Check
    default: object
    help: str
    metavar: str | None = None
    repeatable: bool = False  # a flag given several times (a list)
    flag_name: str | None = None  # the flag's own spelling, when not --{name}
    keyword: bool = True
    switch: bool = False  # a flag without a value (on when given)

    @property
    def flag(self) -> str:
        return self.flag_name or "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()


OPTIONS: tuple[Option, ...] = (
    Option(
        "host", _text, "127.0.0.1", "bind address (default 127.0.0.1)", "ADDRESS", keyword=False
    ),
    Option("port", _integer(1, 65_535), 8787, "port (default 8787)", "PORT", keyword=False),
    Option("upstream_openai", _url, None, "OpenAI-compatible upstream, with its /v1", "URL"),
    Option("upstream_anthropic", _url, None, "Anthropic upstream", "URL"),
    Option(
        "db",
        _text,
        None,
        "summary cache: an SQLite file, or a postgresql:// URL shared by replicas "
        "(default: in memory)",
        "PATH|URL",
        keyword=False,
    ),
    Option(
        "secret_headers",
        _names,
        [],
        "a request header holding a credential, scrubbed like Authorization (repeatable; "
        "comma-separated in the environment)",
        "NAME",
        repeatable=True,
        flag_name="--secret-header",
    ),
    Option(
        "tenant_header",
        _name,
        None,
        "a request header whose value is the tenant (a user id a gateway sets): what the "
        "proxy learns is shared by the requests carrying one value, whatever their key "
        "(default: the key's own; a request without the header falls back to its key)",
        "NAME",
    ),
    Option(
        "context_window",
        _integer(1024),
        None,
        "the context window of every model, instead of the registry's (a local server)",
        "TOKENS",
    ),
    Option(
        "threshold",
        _fraction,
        None,
        "share of the window above which a request is compacted, in (0, 1] (default 0.75)",
        "FRACTION",
    ),
    Option(
        "keep_recent",
        _integer(1),
        None,
        "messages kept verbatim after the summary (default 6)",
        "N",
    ),
    Option(
        "summary_model",
        _text,
        None,
        "the model that writes summaries (default: the request's own model)",
        "MODEL",
    ),
    Option(
        "prepare_threshold",
        _share_or_off,
        None,
        "share of the window (below --threshold) at which a conversation's summary is "
        "prepared in the background, or 'off' (default 0.6)",
        "SHARE",
    ),
    Option(
        "recall",
        _switch,
        None,
        "offer the model a recall tool on compacted requests and answer it in the proxy, "
        "so what a summary replaced can be read back (the client sees only the answer)",
        switch=True,
    ),
    Option(
        "user_message_budget",
        _integer(0),
        None,
        "tokens of the user's own messages kept word for word in a summary (default 2000)",
        "TOKENS",
    ),
    Option(
        "fact_budget",
        _integer(0),
        None,
        "tokens of facts a summary left out (files and their state, identifiers, the "
        "user's instructions and next steps) restored after it, or 0: no fact ledger "
        "(default 1000)",
        "TOKENS",
    ),
    Option(
        "instructions",
        _text,
        None,
        "compaction instructions for the summarizer (what to keep or stress)",
        "TEXT",
    ),
    Option(
        "summary_timeout",
        _seconds_or_off,
        None,
        "seconds one summarization may take, or 'off'; past it the request is forwarded "
        "unchanged (default 120)",
        "SECONDS",
    ),
    Option(
        "native_compaction",
        _native,
        None,
        "the providers' own compaction APIs (POST /v1/responses/compact): 'auto' passes "
        "them to api.openai.com / api.anthropic.com and emulates them for any other "
        "upstream, 'emulate' always, 'pass' never (default auto)",
        "MODE",
    ),
    Option(
        "compaction_key",
        _secret,
        None,
        "the secret the proxy signs its compaction items with (16+ bytes; give it in "
        "the environment or the config file rather than on the command line); replicas "
        "sharing it expand each other's items (default: a key made at start)",
        "SECRET",
    ),
    Option(
        "dashboard",
        _switch,
        None,
        "serve GET /dashboard: conversations, compactions and token timelines, on the "
        "proxy's own address (off: /dashboard is a 404, never forwarded)",
        switch=True,
    ),
    Option(
        "dashboard_token",
        _secret,
        None,
        "the token /dashboard asks for (Authorization: Bearer or ?token=; 16+ bytes); "
        "required when --host is not a loopback address",
        "TOKEN",
    ),
    Option(
        "header_timeout",
        _seconds,
        None,
        "seconds a request's line and headers may take to arrive, in all; a stalled "
        "head gets a 408 (default 20)",
        "SECONDS",
        keyword=False,
    ),
    Option(
        "body_timeout",
        _seconds,
        None,
        "seconds a request's body may go without a byte arriving; a stalled body "
        "gets a 408 (default 20)",
        "SECONDS",
        keyword=False,
    ),
    Option(
        "log_level",
        _level,
        "info",
        f"{', '.join(LOG_LEVELS)} (default info: compactions and cache hits on stderr)",
        "LEVEL",
        keyword=False,
    ),
)
"""Every option of ``contextfold serve`` but ``--config``; see the module doc."""


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``serve`` flags; every default is ``None`` ("not given"), for :func:`resolve`."""
    parser.add_argument(
        "--config",
        metavar="FILE",
        help=f'a TOML file: [defaults] and [models."NAME"] tables ({ENV_PREFIX}CONFIG)',
    )
    for option in OPTIONS:
        if option.switch:
            parser.add_argument(
                option.flag,
                dest=option.name,
                action="store_const",
                const=True,
                default=None,
                help=f"{option.help} [{option.env}]",
            )
            continue
        parser.add_argument(
            option.flag,
            dest=option.name,
            metavar=option.metavar,
            action="append" if option.repeatable else "store",
            default=None,
            help=f"{option.help} [{option.env}]",
        )


def resolve(args: argparse.Namespace, environ: Mapping[str, str]) -> argparse.Namespace:
    """Every option's value by precedence (command line, environment, file, default),
    checked; plus ``models``, the file's model tables (name -> raw table)."""
    path = args.config if args.config is not None else environ.get(ENV_PREFIX + "CONFIG", "")
    path = path.strip() or None  # like every variable: trimmed, and blank counts as unset
    defaults, models = _read_config(path) if path else ({}, {})
    values: dict[str, Any] = {}
    for option in OPTIONS:
        given = getattr(args, option.name, None)
        env = environ.get(option.env, "")
        if given is not None:
            value = option.check(given, option.flag)
        elif env.strip():
            value = option.check(env, option.env)
        elif option.name in defaults:
            value = option.check(defaults[option.name], f"{path}: [defaults] {option.name}")
        else:
            value = option.default
        values[option.name] = value
    return argparse.Namespace(**values, config=path, models=models)


def app_arguments(resolved: argparse.Namespace, options_type: type[Any]) -> dict[str, Any]:
    """:func:`~contextfold.proxy.create_app`'s arguments for the options set: those that
    are fields of :class:`~contextfold.compaction.CompactionSettings` as ``settings``,
    those of ``options_type`` (:class:`~contextfold.proxy.ProxyOptions`, passed in so
    that this module needs no proxy extra) as ``options``, the rest as keywords."""
    flat = app_keywords(resolved)
    own = {f.name for f in dataclasses.fields(options_type)}
    fields = {name: flat.pop(name) for name in list(flat) if name in _SETTINGS_FIELDS}
    options = {name: flat.pop(name) for name in list(flat) if name in own}
    return {
        "settings": CompactionSettings().replace(**fields),
        "options": options_type(**options),
        **flat,
    }


_SETTINGS_FIELDS = frozenset(f.name for f in dataclasses.fields(CompactionSettings))


def app_keywords(resolved: argparse.Namespace) -> dict[str, Any]:
    """The resolved options that are :func:`~contextfold.proxy.create_app` keywords and
    are set (not ``None``, not an empty list)."""
    values = {o.name: getattr(resolved, o.name) for o in OPTIONS if o.keyword}
    return {
        name: None if value is OFF else value
        for name, value in values.items()
        if value is not None and value != []
    }


def _read_config(path: str) -> tuple[dict[str, object], dict[str, dict[str, object]]]:
    """``([defaults], {model name: table})`` of the TOML file at ``path``."""
    try:
        with Path(path).open("rb") as file:
            data = tomllib.load(file)
    except tomllib.TOMLDecodeError as exc:
        raise CLIError(f"{path}: not valid TOML ({exc})") from None
    except UnicodeDecodeError:
        raise CLIError(f"{path}: not valid TOML (not UTF-8 text)") from None
    except OSError as exc:
        raise CLIError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    unknown = sorted(set(data) - {"defaults", "models"})
    if unknown:
        raise CLIError(
            f"{path}: unknown key {unknown[0]!r} (the file holds a [defaults] table and "
            '[models."NAME"] tables)'
        )
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise CLIError(f"{path}: 'defaults' must be a table")
    known = [option.name for option in OPTIONS]
    for key in defaults:
        if key not in known:
            raise CLIError(f"{path}: [defaults] unknown setting {key!r}; known: {', '.join(known)}")
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise CLIError(f"{path}: 'models' must hold [models.\"NAME\"] tables")
    for name, table in models.items():
        if not isinstance(table, dict):
            raise CLIError(f'{path}: models.{name} must be a table ([models."{name}"])')
        for key in table:
            if key not in _MODEL_KEYS:
                raise CLIError(
                    f'{path}: [models."{name}"] unknown setting {key!r}; '
                    f"known: {', '.join(_MODEL_KEYS)}"
                )
    return defaults, models
