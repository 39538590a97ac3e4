"""How :class:`contextfold.stores.redis.RedisContextStore` talks to Redis.

:class:`Keyspace` names one session's keys and runs commands, pipelines and Lua
scripts on them, translating redis-py's errors into contextfold's; :class:`Row`
parses a stored message row; :func:`lease` holds the expiring compaction lock. Row
and key formats are described in :mod:`contextfold.stores.redis`.

Each script runs atomically on the server and touches only the keys it is given (one
session's, except ``FORK``). Scripts check what they can before writing, because
Redis does not roll a script back when a command in it fails.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from redis.asyncio import Redis
from redis.exceptions import NoScriptError, RedisError, ResponseError

from contextfold._cancel import finish
from contextfold.errors import CorruptRecordError, StoreError
from contextfold.messages import Message
from contextfold.stores._connection_state import state_of
from contextfold.stores._rows import storable_text
from contextfold.stores.base import preview_of

__all__ = [
    "APPEND",
    "FORK",
    "REWRITE",
    "TOKENS",
    "Keyspace",
    "Row",
    "Script",
    "int64",
    "iso",
    "lease",
    "preview",
]

logger = logging.getLogger("contextfold.redis")


@dataclass(frozen=True, slots=True)
class Script:
    """A Lua script and the SHA1 that ``EVALSHA`` names it by."""

    source: str

    @property
    def sha(self) -> str:
        return hashlib.sha1(self.source.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Row:
    """One stored message row, parsed but not yet decoded into a :class:`Message`."""

    seq: int
    synthetic: bool
    tokens: int
    role: str
    content: str

    @classmethod
    def parse(cls, text: str) -> Row:
        """Parse ``seq:synthetic:tokens:role:content``; :class:`ValueError` if malformed."""
        seq, synthetic, tokens, role, content = text.split(":", 4)
        if synthetic not in ("0", "1"):
            raise ValueError(f"synthetic flag is {synthetic!r}")
        return cls(int(seq), synthetic == "1", int(tokens), role, content)


def iso(timestamp: float) -> str:
    """A Unix time as ISO 8601 in UTC, the form of ``created_at``."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat()


def preview(messages: list[Message] | tuple[Message, ...]) -> str:
    """The session preview ``messages`` give, storable as UTF-8 ('' when none)."""
    return storable_text(preview_of(messages))


def int64(value: int, name: str) -> int:
    """``value`` as an int that Redis's 64-bit counters hold; :class:`ValueError` if not."""
    number = int(value)
    if not -(2**63) <= number < 2**63:
        raise ValueError(f"{name}={number} does not fit in a signed 64-bit token counter")
    return number


# KEYS: meta, log. ARGV: created_at, row without its seq, tokens, preview.
# Returns the new row's seq. The counters are incremented first: if one holds a
# non-number the script fails before the row is written.
APPEND: Final = Script("""
local seq = redis.call('HINCRBY', KEYS[1], 'last_seq', 1)
redis.call('HINCRBY', KEYS[1], 'live_tokens', ARGV[3])
redis.call('HSETNX', KEYS[1], 'created_at', ARGV[1])
redis.call('RPUSH', KEYS[2], string.format('%d:', seq) .. ARGV[2])
if ARGV[4] ~= '' then
  local current = redis.call('HGET', KEYS[1], 'preview')
  if not current or current == '' then redis.call('HSET', KEYS[1], 'preview', ARGV[4]) end
end
return seq
""")

# KEYS: meta, log, archive, compactions, journal.
# ARGV: 1 version read, 2 last_seq read ('' = appends since do not matter),
#       3 rows kept in front, 4 rows archived after them, 5 their tokens,
#       6 tokens of the inserted rows, 7 new last_seq ('' = unchanged), 8 now (ISO),
#       9 preview of the inserted rows, 10 journal note ('' = none),
#       11 '1' to write a record even when nothing is archived (the rewrite moves rows,
#       or is journaled), 12 the last record number the caller read ('' = any),
#       13.. inserted rows in order.
# Returns nil (nothing written) when the snapshot is stale, '!moved' (nothing written)
# when a record was written since the caller's, else the compaction record written
# ('' when none). A note is journaled as "<record number or -> <now> <note>".
REWRITE: Final = Script("""
local meta, log = KEYS[1], KEYS[2]
if (redis.call('HGET', meta, 'version') or '0') ~= ARGV[1] then return false end
if ARGV[2] ~= '' and (redis.call('HGET', meta, 'last_seq') or '0') ~= ARGV[2] then
  return false
end
if ARGV[12] ~= '' and (redis.call('HGET', meta, 'compactions') or '0') ~= ARGV[12] then
  return '!moved'
end
local front, archived = tonumber(ARGV[3]), tonumber(ARGV[4])
local stop, inserted = front + archived, #ARGV - 12
local count = redis.call('LLEN', log)
local tokens = tonumber(redis.call('HGET', meta, 'live_tokens') or '0')
local head = {}
if stop > 0 then head = redis.call('LRANGE', log, 0, stop - 1) end
redis.call('HSETNX', meta, 'created_at', ARGV[8])
local record = ''
if archived > 0 or ARGV[11] == '1' then
  local number = redis.call('HINCRBY', meta, 'compactions', 1)
  for i = front + 1, stop do
    redis.call('RPUSH', KEYS[3], string.format('%d:', number) .. head[i])
  end
  record = string.format('%d %s %d %d %d %d %d %d', number, ARGV[8], count,
    count - archived + inserted, tokens, tokens - tonumber(ARGV[5]) + tonumber(ARGV[6]),
    archived, front)
  redis.call('RPUSH', KEYS[4], record)
  if ARGV[10] ~= '' then
    redis.call('RPUSH', KEYS[5], string.format('%d %s ', number, ARGV[8]) .. ARGV[10])
  end
elseif ARGV[10] ~= '' then
  redis.call('RPUSH', KEYS[5], '- ' .. ARGV[8] .. ' ' .. ARGV[10])
end
if stop > 0 then redis.call('LTRIM', log, stop, -1) end
for i = #ARGV, 13, -1 do redis.call('LPUSH', log, ARGV[i]) end
for i = front, 1, -1 do redis.call('LPUSH', log, head[i]) end
redis.call('HINCRBY', meta, 'live_tokens', tonumber(ARGV[6]) - tonumber(ARGV[5]))
redis.call('HINCRBY', meta, 'version', 1)
if ARGV[7] ~= '' then redis.call('HSET', meta, 'last_seq', ARGV[7]) end
if ARGV[9] ~= '' then
  local current = redis.call('HGET', meta, 'preview')
  if not current or current == '' then redis.call('HSET', meta, 'preview', ARGV[9]) end
end
return record
""")

# KEYS: meta. ARGV: 'set' or 'add', input, output, -input, created_at.
# An 'add' that would overflow output_tokens undoes its input increment and fails.
TOKENS: Final = Script("""
redis.call('HSETNX', KEYS[1], 'created_at', ARGV[5])
if ARGV[1] == 'set' then
  redis.call('HSET', KEYS[1], 'input_tokens', ARGV[2], 'output_tokens', ARGV[3])
  return 1
end
redis.call('HINCRBY', KEYS[1], 'input_tokens', ARGV[2])
local ok = redis.pcall('HINCRBY', KEYS[1], 'output_tokens', ARGV[3])
if type(ok) == 'table' and ok.err then
  redis.call('HINCRBY', KEYS[1], 'input_tokens', ARGV[4])
  return ok
end
return 1
""")

# KEYS: the source session's meta, log, archive, compactions, journal; the same for
# the new session; the session index. ARGV: created_at (ISO), created_at (Unix), new id.
# Returns 1 when copied, 0 when the source session was never written.
FORK: Final = Script("""
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, 5 do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('COPY', KEYS[i], KEYS[i + 5], 'REPLACE') end
end
redis.call('HSET', KEYS[6], 'created_at', ARGV[1])
redis.call('ZADD', KEYS[11], 'NX', ARGV[2], ARGV[3])
return 1
""")

# KEYS: lock. ARGV: token, lease (ms). Extends the lease if the token still holds it.
_RENEW: Final = Script("""
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
""")

# KEYS: lock. ARGV: token. Deletes the lock only if the token still holds it.
_RELEASE: Final = Script("""
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
""")


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class Keyspace:
    """One session's keys under ``prefix`` on ``client``, and the calls that reach them.

    Every method raises :class:`~contextfold.errors.CorruptRecordError` for a value
    that has the wrong type or shape, and :class:`~contextfold.errors.StoreError` for
    any other failure Redis reports; redis-py's exceptions never escape.
    """

    def __init__(self, client: Redis, prefix: str, session_id: str) -> None:
        self.client, self.prefix, self.session_id = client, prefix, session_id
        self.index = f"{prefix}:sessions"
        self.meta, self.log, self.archive, self.compactions, self.journal = self.keys(session_id)
        self.lock = self.key("lock")
        # redis-py leaves execute_command unannotated; this is the signature relied on.
        self._execute: Callable[..., Awaitable[Any]] = client.execute_command

    def key(self, name: str, session_id: str | None = None) -> str:
        return f"{self.prefix}:{{{session_id or self.session_id}}}:{name}"

    def keys(self, session_id: str) -> list[str]:
        """The meta, log, archive, compactions and journal keys of ``session_id``."""
        names = ("meta", "log", "archive", "compactions", "journal")
        return [self.key(n, session_id) for n in names]

    async def call(self, *args: Any) -> Any:
        """One command."""
        with self.translated():
            return await self._execute(*args)

    async def run(self, script: Script, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run a Lua script by its SHA, loading it first if the server does not know it."""
        command = ("EVALSHA", script.sha, len(keys), *keys, *args)
        with self.translated():
            try:
                return await self._execute(*command)
            except NoScriptError:  # a new or restarted server: load the script, once
                await self._execute("SCRIPT", "LOAD", script.source)
                return await self._execute(*command)

    async def batch(self, *commands: Sequence[Any], atomic: bool) -> list[Any]:
        """Several commands in one round trip; ``atomic`` wraps them in ``MULTI``/``EXEC``."""
        with self.translated():
            async with self.client.pipeline(transaction=atomic) as pipe:
                for command in commands:
                    pipe.execute_command(*command)
                return list(await pipe.execute())

    @contextmanager
    def translated(self) -> Iterator[None]:
        """redis-py's errors, and replies a ``decode_responses`` client cannot decode, as ours.

        (redis-py drops the connection after a reply it failed to read, so the next
        command starts clean.)
        """
        try:
            yield
        except RedisError as exc:
            raise self.mapped(exc) from exc
        except UnicodeDecodeError as exc:
            raise self._corrupt("value", exc) from exc

    def mapped(self, exc: RedisError) -> StoreError:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if isinstance(exc, ResponseError) and ("WRONGTYPE" in detail or "not an integer" in detail):
            return CorruptRecordError(
                f"session {self.session_id!r}: a stored value under {self.prefix!r} has the "
                f"wrong type or is out of range ({detail}); it was written by something "
                "other than contextfold or was damaged"
            )
        return StoreError(f"Redis failed for session {self.session_id!r}: {detail}")

    def _corrupt(self, what: str, exc: Exception) -> CorruptRecordError:
        return CorruptRecordError(
            f"session {self.session_id!r}: a stored {what} cannot be parsed ({exc}); it was "
            "written by something other than contextfold or was damaged"
        )

    def text(self, value: Any) -> str:
        try:
            return _text(value)
        except UnicodeDecodeError as exc:
            raise self._corrupt("value", exc) from exc

    def row(self, raw: Any) -> Row:
        """Parse a ``log`` row."""
        try:
            return Row.parse(_text(raw))
        except (ValueError, UnicodeDecodeError) as exc:
            raise self._corrupt("message row", exc) from exc

    def archived_row(self, raw: Any) -> tuple[int, Row]:
        """Parse an ``archive`` row: ``(compaction number, row)``."""
        try:
            number, _, rest = _text(raw).partition(":")
            return int(number), Row.parse(rest)
        except (ValueError, UnicodeDecodeError) as exc:
            raise self._corrupt("archived row", exc) from exc

    def integer(self, value: Any, field: str) -> int:
        """A stored counter (0 when absent)."""
        if value is None:
            return 0
        try:
            return int(_text(value))
        except (ValueError, UnicodeDecodeError) as exc:
            raise self._corrupt(field, exc) from exc


@asynccontextmanager
async def lease(keyspace: Keyspace, lease_ms: int) -> AsyncIterator[bool]:
    """The session's compaction lock as an expiring lease (see ``compaction_lock``).

    A cancellation never leaves the lock held until it expires: ``SET NX`` is awaited to
    its end (:func:`~contextfold._cancel.finish`; the server sets the key even when the
    caller stops waiting for the reply), and a lock taken just as the caller was
    cancelled is deleted before the cancellation goes on; on exit, stopping the renewal
    and deleting the lock are one step no cancellation cuts short. Every write of the
    key carries an expiry, so a holder that dies frees it when its lease runs out.
    """
    local = state_of(keyspace.client).compaction_locks.setdefault(keyspace.lock, asyncio.Lock())
    if local.locked():
        yield False
        return
    async with local:
        token = uuid.uuid4().hex

        async def unclaim(taken: Any) -> None:
            if taken:
                await _release(keyspace, token)

        if not await finish(
            keyspace.call("SET", keyspace.lock, token, "NX", "PX", lease_ms), undo=unclaim
        ):
            yield False
            return
        renewal = asyncio.create_task(_renew(keyspace, token, lease_ms))
        try:
            yield True
        finally:
            await finish(_let_go(keyspace, token, renewal))


async def _release(keyspace: Keyspace, token: str) -> None:
    await keyspace.run(_RELEASE, [keyspace.lock], [token])


async def _let_go(keyspace: Keyspace, token: str, renewal: asyncio.Task[None]) -> None:
    """Stop renewing, then delete the lock if it still holds ``token``.

    (A renewal cut short may still reach the server after the delete: it only extends
    the key while it holds ``token``, so it finds nothing to extend.)
    """
    renewal.cancel()
    await asyncio.gather(renewal, return_exceptions=True)
    await _release(keyspace, token)


async def _renew(keyspace: Keyspace, token: str, lease_ms: int) -> None:
    """Push the lease forward every third of it while this holder still holds it."""
    while True:
        await asyncio.sleep(lease_ms / 3000)
        try:
            held = await keyspace.run(_RENEW, [keyspace.lock], [token, lease_ms])
        except StoreError as exc:
            logger.warning("could not renew the compaction lease %s: %s", keyspace.lock, exc)
            continue
        if not held:
            logger.warning("the compaction lease %s expired and was taken over", keyspace.lock)
            return
