"""The arena ↔ bot JSON-lines protocol (DESIGN.md, "Bot protocol"); no Django, no I/O policy.

    arena → bot  {"type": "start", "game", "seat", "num_players", "options", "limits", "seed"}
    bot → arena  {"type": "ready"}
    arena → bot  {"type": "act", "step", "observation", "legal_actions", "time_left_ms"}
    bot → arena  {"action": {...}}  or  {"index": n}
    arena → bot  {"type": "end", "result": {...}}

``seed`` in ``start`` is an extra field: a per-seat seed for the bot's own RNG, derived
from the match seed. Bot output is read in blocks (``readline`` on an unbuffered pipe
costs one syscall per byte) and cut into lines here, with a cap on the line length.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

MAX_LINE_BYTES = 1024 * 1024
_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


class ProtocolError(ValueError):
    """The bot's output is not a valid message (not JSON, too long, wrong shape)."""


class IllegalReply(ValueError):
    """The bot answered an action that is not in the legal list."""


def encode(message: dict) -> bytes:
    """One message as a JSON line."""
    return (_encoder.encode(message) + "\n").encode("utf-8")


def start_message(game: str, seat: int, num_players: int, options: dict, limits: dict,
                  seed: int) -> bytes:
    """The first message a bot receives."""
    return encode({"type": "start", "game": game, "seat": seat, "num_players": num_players,
                   "options": options, "limits": limits, "seed": seed})


def observation_text(observation: dict) -> str:
    """An observation as the ``act`` message carries it (JSON text): what a compact replay's step
    hash covers, so the runner serializes each observation once for both."""
    return _encoder.encode(observation)


def act_message(step: int, observation: dict, legal_actions: list, time_left_ms: float,
                observation_json: str | None = None) -> bytes:
    """A request for one decision (``observation_json``: the observation already serialized by
    :func:`observation_text`; the bytes are those of the message encoded whole)."""
    if observation_json is None:
        observation_json = observation_text(observation)
    return (f'{{"type":"act","step":{_encoder.encode(step)},"observation":{observation_json},'
            f'"legal_actions":{_encoder.encode(legal_actions)},'
            f'"time_left_ms":{_encoder.encode(round(time_left_ms, 1))}}}\n').encode()


def end_message(result: dict) -> bytes:
    """The last message: the match result."""
    return encode({"type": "end", "result": result})


class LineBuffer:
    """Accumulates a bot's stdout blocks and hands out complete lines."""

    __slots__ = ("data", "max_line")

    def __init__(self, max_line: int = MAX_LINE_BYTES):
        self.data = bytearray()
        self.max_line = max_line

    def feed(self, block: bytes) -> None:
        """Append a block read from the pipe."""
        self.data += block

    def pop_line(self) -> bytes | None:
        """The next complete line (without its newline), or None; ProtocolError when over the cap."""
        end = self.data.find(b"\n")
        if end < 0:
            if len(self.data) > self.max_line:
                raise ProtocolError(f"line longer than {self.max_line} bytes without a newline")
            return None
        if end > self.max_line:
            raise ProtocolError(f"line of {end} bytes, longer than the {self.max_line}-byte limit")
        line = bytes(self.data[:end])
        del self.data[:end + 1]
        return line

    def __bool__(self) -> bool:
        return bool(self.data)


# A reply is small: an action dict or an index. Anything deeper, or a number longer than any
# action holds, is refused before it can cost the runner recursion, quadratic int parsing
# (``sys.set_int_max_str_digits`` is process-wide and another library may lift it) or memory.
MAX_DEPTH = 32
MAX_NUMBER_CHARS = 64


def _parse_number(text: str, convert):
    if len(text) > MAX_NUMBER_CHARS:
        raise ProtocolError(f"a number of {len(text)} characters (at most {MAX_NUMBER_CHARS})")
    return convert(text)


def _parse_int(text: str) -> int:
    return _parse_number(text, int)


def _parse_float(text: str) -> float:
    return _parse_number(text, float)


def _refuse_constant(name: str):
    raise ProtocolError(f"{name} is not JSON")


_decoder = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float, parse_constant=_refuse_constant)


def _check_depth(value) -> None:
    """ProtocolError when ``value`` nests deeper than MAX_DEPTH (iterative: no recursion here)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Iterable = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            raise ProtocolError(f"nested deeper than {MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children)


def _decode(line: bytes) -> dict:
    """The JSON object on ``line``; ProtocolError for anything else, whatever the bytes are."""
    try:
        text = bytes(line).decode("utf-8")
        message = _decoder.decode(text)
    except ProtocolError:
        raise
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(f"not a JSON line: {_shown(line)}") from None
    except RecursionError:
        raise ProtocolError(f"nested deeper than {MAX_DEPTH} levels") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"expected a JSON object, got {type(message).__name__}")
    _check_depth(message)
    return message


def _shown(line: bytes) -> str:
    """The start of a line as readable, storable text (no NUL, no undecodable bytes)."""
    return repr(bytes(line[:80]).decode("utf-8", "replace"))


def parse_ready(line: bytes) -> None:
    """Accept ``{"type": "ready"}``; ProtocolError otherwise."""
    message = _decode(line)
    if message.get("type") != "ready":
        raise ProtocolError(f'expected {{"type": "ready"}}, got {_shown(line)}')


def parse_reply(line: bytes, legal_actions: list) -> dict:
    """The action a reply names: ProtocolError when malformed, IllegalReply when not legal."""
    message = _decode(line)
    if "index" in message:
        index = message["index"]
        if isinstance(index, bool) or not isinstance(index, int):
            raise ProtocolError(f"index must be an integer, got {_short(index)}")
        if not 0 <= index < len(legal_actions):
            raise IllegalReply(f"index {index} is outside the {len(legal_actions)} legal actions")
        return legal_actions[index]
    if "action" in message:
        action = message["action"]
        if not isinstance(action, dict):
            raise ProtocolError(f"action must be a JSON object, got {_short(action)}")
        try:
            # The engine's own action, not the bot's equal-comparing copy ({"item": true} or
            # {"item": 1.0} for {"item": 1}): replays and logs then hold exactly legal JSON.
            return legal_actions[legal_actions.index(action)]
        except ValueError:
            raise IllegalReply(f"{_short(action)} is not a legal action") from None
    raise ProtocolError(f'a reply needs "action" or "index", got {_short(message)}')


def _short(value) -> str:
    """A value as short, ASCII JSON for a message (NUL and lone surrogates come out escaped)."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (ValueError, TypeError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 120 else text[:117] + "..."
