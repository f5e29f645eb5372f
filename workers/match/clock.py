"""Time in a match: the limits, the wall-clock backstop and allowance of a seat charged CPU time,
the words of a timeout, and the timing a match reports per seat.

Timing is CodinGame/Kaggle style: each decision may take ``move_ms``; time beyond that comes out of
the seat's ``bank_ms``; the bank exhausted is a timeout. A sandboxed bot is charged the CPU time of
its whole sandbox (every process and thread of it) from the moment the request is written to the
moment the whole reply line is read, so a loaded machine or a greedy opponent cannot make it time
out; a wall-clock backstop (``wall_backstop_ms``) ends a bot that waits instead of thinking, and a
wall-clock allowance per match (``wall_allowance_ms``) one that waits a little at every decision.
Where the machine has no CPU clock or freezer for the sandbox (no cgroups), wall time is charged
instead. Start-up is wall time.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from engines import list_games
from workers import protocol
from workers.sandbox import SandboxLimits

_SANDBOX_DEFAULTS = SandboxLimits()


@dataclass(frozen=True)
class Limits:
    """Time and resource limits of a match (the same for every seat)."""

    move_ms: int = 100
    bank_ms: int = 2000
    init_ms: int = 3000
    # The sandbox's own defaults: one place says how much a bot gets.
    memory_mb: int = _SANDBOX_DEFAULTS.memory_mb
    processes: int = _SANDBOX_DEFAULTS.processes
    cpu_s: int = _SANDBOX_DEFAULTS.cpu_s
    file_size_mb: int = _SANDBOX_DEFAULTS.file_size_mb
    open_files: int = _SANDBOX_DEFAULTS.open_files
    tmp_mb: int = _SANDBOX_DEFAULTS.tmp_mb
    cpus: float = _SANDBOX_DEFAULTS.cpus
    max_line_bytes: int = protocol.MAX_LINE_BYTES
    log_bytes: int = 64 * 1024
    end_grace_ms: int = 100

    def sandbox(self) -> SandboxLimits:
        """The part of the limits the sandbox enforces."""
        return SandboxLimits(memory_mb=self.memory_mb, processes=self.processes, cpu_s=self.cpu_s,
                             file_size_mb=self.file_size_mb, open_files=self.open_files,
                             tmp_mb=self.tmp_mb, cpus=self.cpus)

    def for_bot(self) -> dict:
        """The limits a bot is told about in ``start``."""
        return {"move_ms": self.move_ms, "bank_ms": self.bank_ms, "init_ms": self.init_ms,
                "memory_mb": self.memory_mb}

    def text(self) -> str:
        """The time limits in words, for a timeout's message."""
        return f"move limit of {self.move_ms} ms plus time bank of {self.bank_ms} ms"


# Per-game defaults: each game names the limits that differ from the generic ones above
# (engines: GameFacts.default_limits); this table is theirs, by game id.
DEFAULT_LIMITS: dict[str, dict] = {game.id: dict(game.facts.default_limits) for game in list_games()}


def default_limits(game_id: str) -> Limits:
    """The default limits of ``game_id`` (the generic defaults for a game not in the table)."""
    return Limits(**DEFAULT_LIMITS.get(game_id, {}))


# A bot charged CPU time could otherwise wait (sleep, block) for ever at no cost.
# Generous, so that a machine loaded several times over (other matches, other workers) does not
# turn a thinking bot's CPU time into a wall-clock timeout.
WALL_BACKSTOP_FACTOR = 3
WALL_BACKSTOP_MIN_EXTRA_MS = 2000


def wall_backstop_ms(time_left_ms: float) -> float:
    """The wall-clock time a decision may take at most when CPU time is what is charged."""
    return max(WALL_BACKSTOP_FACTOR * time_left_ms, time_left_ms + WALL_BACKSTOP_MIN_EXTRA_MS)


def wall_allowance_ms(bank_ms: float) -> float:
    """The wall-clock time a seat charged CPU time may be waited for, over a whole match, beyond
    ``WALL_BACKSTOP_FACTOR`` x ``move_ms`` at each decision.

    Waiting costs no CPU time, and each decision's backstop alone would let a bot that waits at
    every decision stretch a match without end (a Deep Dive seat may be asked 180 times, each with
    a 6.3 s backstop at the default limits): past the task's time limit, the match would fail and
    go unrated. A thinking bot on a machine loaded up to the backstop's factor uses its CPU bank up
    first: its wall time beyond the factor times the move limit is at most the factor times the
    CPU time it draws from its bank.
    """
    return WALL_BACKSTOP_FACTOR * bank_ms + WALL_BACKSTOP_MIN_EXTRA_MS


# --- a timeout in words -----------------------------------------------------------------------

def over_cpu_text(limits: Limits, used_ms: float) -> str:
    """A decision that used more CPU time than it had."""
    return f"used {used_ms:.0f} ms of CPU time, over the {limits.text()}"


def waited_too_long_text(limits: Limits, waited_ms: float, cpu_ms: float) -> str:
    """A seat that used up its wall-clock allowance for the match."""
    return (f"no reply after {waited_ms:.0f} ms of wall-clock time (it used "
            f"{cpu_ms:.0f} ms of CPU time): its wall-clock allowance for the match "
            f"({WALL_BACKSTOP_FACTOR} x the move limit of {limits.move_ms} ms a decision, and "
            f"{wall_allowance_ms(limits.bank_ms):.0f} ms beyond that in all) is used up: it waited "
            "instead of answering")


def late_text(limits: Limits, *, startup: bool, charges_cpu: bool, budget_ms: float, cpu_ms: float) -> str:
    """A seat whose deadline passed without a reply."""
    if startup:
        return f"no reply within the start-up limit of {limits.init_ms} ms"
    if charges_cpu:
        backstop = wall_backstop_ms(budget_ms)
        return (f"no reply within the wall-clock backstop of {backstop:.0f} ms (it used "
                f"{cpu_ms:.0f} ms of CPU time of the {limits.text()}: "
                "it waited instead of answering)")
    return f"no reply within the {limits.text()}"


# --- what a match reports -----------------------------------------------------------------------

def percentile(ordered: list[float], pct: float) -> float:
    """The nearest-rank percentile of sorted values (0.0 for none)."""
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, math.ceil(pct / 100 * len(ordered)) - 1))
    return ordered[index]


def timing_row(seat) -> dict:
    """A seat's timing row in the outcome: its decisions' wall times, bank used, start-up, and the
    sandbox's CPU time per decision (what is charged where ``clock`` is ``cpu``)."""
    times = sorted(seat.times_ms)
    row = {"seat": seat.seat, "decisions": len(times),
           "mean_ms": round(statistics.fmean(times), 3) if times else 0.0,
           "p50_ms": round(percentile(times, 50), 3),
           "p95_ms": round(percentile(times, 95), 3),
           "max_ms": round(times[-1], 3) if times else 0.0,
           "bank_used_ms": round(seat.bank_used_ms, 3),
           "start_ms": None if seat.start_ms is None else round(seat.start_ms, 3)}
    cpu = sorted(seat.cpu_times_ms)
    row.update({"clock": "cpu" if seat.charges_cpu else "wall",
                "cpu_mean_ms": round(statistics.fmean(cpu), 3) if cpu else None,
                "cpu_p95_ms": round(percentile(cpu, 95), 3) if cpu else None,
                "cpu_max_ms": round(cpu[-1], 3) if cpu else None,
                "cpu_total_ms": round(sum(cpu), 3) if cpu else None,
                "sandbox_cpu_ms": seat.sandbox_cpu_ms})
    return row
