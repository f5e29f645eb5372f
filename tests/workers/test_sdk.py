"""The bot SDK (``arena_bot``): its JSON without the json package's imports, and its protocol loop."""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path

import pytest

SDK = Path(__file__).resolve().parents[2] / "workers" / "sdk" / "arena_bot.py"


@pytest.fixture
def arena_bot():
    spec = importlib.util.spec_from_file_location("arena_bot_under_test", SDK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_its_json_round_trips_what_the_arena_sends(arena_bot):
    message = {"type": "act", "step": 3, "observation": {"é": [1, -2.5e-3, None, True, "line\nbreak"], "n": {}},
               "legal_actions": [{"type": "take"}], "time_left_ms": 2100.0}
    assert arena_bot.loads(json.dumps(message)) == message
    assert json.loads(arena_bot.dumps(message)) == message
    assert "\n" not in arena_bot.dumps(message)


def test_its_json_rejects_garbage_with_the_usual_error(arena_bot):
    with pytest.raises(ValueError):
        arena_bot.loads("{not json")
    with pytest.raises(ValueError):
        arena_bot.loads('{"a": 1} trailing')


def test_run_answers_ready_then_each_act_and_returns_the_result(arena_bot, monkeypatch):
    lines = [
        {"type": "start", "game": "g", "seat": 1, "num_players": 2, "options": {}, "limits": {"move_ms": 5},
         "seed": 99},
        {"type": "act", "step": 0, "observation": {}, "legal_actions": [{"a": 0}, {"a": 1}], "time_left_ms": 5},
        {"type": "act", "step": 1, "observation": {}, "legal_actions": [{"a": 0}, {"a": 1}], "time_left_ms": 5},
        {"type": "end", "result": {"scores": [1, 2], "ranks": [2, 1]}},
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(json.dumps(line) + "\n" for line in lines)))
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    seen = []

    def choose(observation, legal, rng):
        seen.append((arena_bot.bot.step, arena_bot.bot.seat, rng.random()))
        return 1 if arena_bot.bot.step == 0 else legal[0]

    result = arena_bot.run(choose)
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replies == [{"type": "ready"}, {"index": 1}, {"action": {"a": 0}}]
    assert result == {"scores": [1, 2], "ranks": [2, 1]}
    import random
    expected = random.Random(99)
    assert [s[2] for s in seen] == [expected.random(), expected.random()]   # the seat's seeded RNG
    assert [s[:2] for s in seen] == [(0, 1), (1, 1)]
