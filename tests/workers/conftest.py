"""Shared helpers of the worker tests: bot files, short limits, leftover-process checks."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from workers.runner import Limits
from workers.sandbox import UID_BASE_ENV, slot_processes

# Slots (locks, cgroups) are shared by every process on the machine, but each test session
# gets uids of its own, so "no process of this bot's uid is left" cannot be confused by
# another session reusing the slot right after this one released it.
os.environ.setdefault(UID_BASE_ENV, str(200_000 + (os.getpid() % 100_000) * 64))

RANDOM_BOT = """
import arena_bot
arena_bot.run(lambda observation, legal_actions, rng: rng.randrange(len(legal_actions)))
"""

# Short enough for a quick suite, long enough for a loaded 2-core machine (a well-behaved bot
# must never time out because other test runs share the cores).
TEST_LIMITS = Limits(move_ms=500, bank_ms=1500, init_ms=10_000, memory_mb=128, processes=16,
                     cpu_s=20, file_size_mb=4, open_files=32, tmp_mb=8, end_grace_ms=100)


# The same limits for the command line.
CLI_LIMITS = ["--move-ms", str(TEST_LIMITS.move_ms), "--bank-ms", str(TEST_LIMITS.bank_ms),
              "--init-ms", str(TEST_LIMITS.init_ms)]


def write_bot(directory: Path, name: str, code: str) -> str:
    """Write a bot's main file and return its path."""
    path = directory / f"{name}.py"
    path.write_text(textwrap.dedent(code))
    return str(path)


def leftovers(outcome) -> dict[int, list[int]]:
    """Live processes still owned by the slot uids the match used (empty when all are gone)."""
    return {uid: pids for uid in outcome.uids if uid is not None and (pids := slot_processes(uid))}


@pytest.fixture
def random_bot_path(tmp_path) -> str:
    return write_bot(tmp_path, "random_bot", RANDOM_BOT)


@pytest.fixture(autouse=True)
def every_replay_verifies(monkeypatch):
    """Every match a worker test plays must leave a replay that re-simulates exactly."""
    from workers import runner
    from workers.replay import verify

    outcomes = []
    original_init = runner.MatchOutcome.__init__

    def recording_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        outcomes.append(self)

    monkeypatch.setattr(runner.MatchOutcome, "__init__", recording_init)
    yield
    for outcome in outcomes:
        problems = verify(outcome.replay)
        assert problems == [], f"the replay of a {outcome.game} match does not verify: {problems[:3]}"
