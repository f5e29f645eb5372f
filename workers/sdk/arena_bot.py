"""The Dive Arena bot SDK: write a function, call ``run`` with it, and you have a bot.

Available inside the sandbox (``import arena_bot``), next to the read-only ``engines``
package. The whole protocol (DESIGN.md, "Bot protocol") is handled here::

    import arena_bot

    def choose(observation, legal_actions, rng):
        return rng.choice(legal_actions)          # an action dict, or an index into legal_actions

    arena_bot.run(choose)

``rng`` is a ``random.Random`` seeded from the per-seat seed the arena sends in ``start``
(derived from the match seed), so a bot that draws its randomness from it plays the same
match the same way every time. ``setup(start_message)`` may be given to ``run`` to do
work once before the first move (it counts against the start-up limit, not a move's).
``bot.game``, ``bot.seat``, ``bot.num_players``, ``bot.options``, ``bot.limits``,
``bot.step`` and ``bot.time_left_ms`` describe the match while ``choose`` runs.
"""

from __future__ import annotations

# No `typing` or other needless imports: every import here is start-up time of every bot.

import random
import sys

try:
    # The C half of the json package, without json.decoder's import of re, enum & co
    # (about 10 ms of every bot's start-up). The arena only ever sends valid JSON.
    import _json

    def _not_serialisable(value):
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

    _encode = _json.make_encoder(None, _not_serialisable, _json.encode_basestring_ascii, None,
                                 ":", ",", False, False, True)

    class _Context:
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__
        memo: dict = {}

    # The C scanner reads only these attributes of its context (typeshed names a JSONDecoder).
    _scan = _json.make_scanner(_Context)  # type: ignore[arg-type]

    def dumps(value) -> str:
        """Compact JSON text of ``value``."""
        return "".join(_encode(value, 0))

    def loads(text: str):
        """The value of one JSON text."""
        try:
            value, end = _scan(text, 0)
            if not text[end:].strip():
                return value
        except Exception:
            pass
        import json
        return json.loads(text)        # the full decoder, for its error message
except (ImportError, AttributeError, TypeError):
    from json import dumps as _json_dumps
    from json import loads as _json_loads

    def loads(text: str):
        """The value of one JSON text."""
        return _json_loads(text)

    def dumps(value) -> str:
        """Compact JSON text of ``value``."""
        return _json_dumps(value, separators=(",", ":"))

__all__ = ["Bot", "dumps", "loads", "log", "run"]


def log(*parts) -> None:
    """Write a line to stderr: the bot's log, kept (capped) for its owner."""
    print(*parts, file=sys.stderr, flush=True)


class Bot:
    """The match as the bot sees it, filled in from the arena's messages."""

    def __init__(self):
        self.game = ""
        self.seat = 0
        self.num_players = 0
        self.options: dict = {}
        self.limits: dict = {}
        self.seed: int | None = None
        self.rng = random.Random()
        self.step = -1
        self.time_left_ms = 0.0
        self.result: dict | None = None


bot = Bot()


def _send(message: dict) -> None:
    sys.stdout.write(dumps(message) + "\n")
    sys.stdout.flush()


def run(choose, setup=None) -> dict | None:
    """Play one match over stdin/stdout with ``choose``; returns the final result (or None).

    ``choose(observation, legal_actions, rng)`` returns an action (one of ``legal_actions``)
    or its index. Exceptions in ``choose`` propagate: the arena reports them as a crash.
    """
    stdin = sys.stdin
    for line in stdin:
        message = loads(line)
        kind = message.get("type")
        if kind == "start":
            bot.game = message["game"]
            bot.seat = message["seat"]
            bot.num_players = message["num_players"]
            bot.options = message.get("options", {})
            bot.limits = message.get("limits", {})
            bot.seed = message.get("seed")
            bot.rng = random.Random(bot.seed)
            if setup is not None:
                setup(message)
            _send({"type": "ready"})
        elif kind == "act":
            bot.step = message["step"]
            bot.time_left_ms = message.get("time_left_ms", 0)
            legal = message["legal_actions"]
            choice = choose(message["observation"], legal, bot.rng)
            if isinstance(choice, int) and not isinstance(choice, bool):
                _send({"index": choice})
            else:
                _send({"action": choice})
        elif kind == "end":
            bot.result = message.get("result")
            return bot.result
    return bot.result
