"""Plays one match of any registered engine between bots; no Django here.

    from workers.match import SeatSpec, Limits, run_match, default_limits
    outcome = run_match("deep_sea_adventure", [SeatSpec("builtin:random"), SeatSpec("bots/mine.py")], seed=7)
    outcome.to_dict()

``builtin:NAME`` seats are the game's own bots, run in-process (trusted code); every other
seat is a path (.py, .zip or folder) run only in the sandbox (:mod:`workers.sandbox`),
spoken to over the JSON-lines protocol (:mod:`workers.protocol`). All seats in
``to_act()`` are asked together and none sees another's answer.

One concern a module:

- :mod:`workers.match.seats`: who plays a seat, its seeds, the seat objects (built-in, sandboxed);
- :mod:`workers.match.clock`: limits, CPU time charged, the wall-clock backstop and allowance, timing;
- :mod:`workers.match.loop`: start-up, the steps, collecting replies, the end;
- :mod:`workers.match.faults`: what the kernel saw behind a fault; ranks with faults;
- :mod:`workers.match.outcome`: ``run_match`` and what it returns (the replay: :mod:`workers.replay`).
"""

from workers.match.clock import (DEFAULT_LIMITS, WALL_BACKSTOP_FACTOR, WALL_BACKSTOP_MIN_EXTRA_MS, Limits,
                                 default_limits, wall_allowance_ms, wall_backstop_ms)
from workers.match.faults import CPU_LIMIT_EVIDENCE, FAULT_KINDS, ranks_with_faults
from workers.match.outcome import MatchOutcome, run_match
from workers.match.seats import (BUILTIN_PREFIX, SEAT_SEED_ITERATIONS, Fault, SeatSpec, fallback_rng,
                                 seat_seed)

__all__ = ["BUILTIN_PREFIX", "CPU_LIMIT_EVIDENCE", "DEFAULT_LIMITS", "FAULT_KINDS", "SEAT_SEED_ITERATIONS",
           "WALL_BACKSTOP_FACTOR", "WALL_BACKSTOP_MIN_EXTRA_MS", "Fault", "Limits", "MatchOutcome", "SeatSpec",
           "default_limits", "fallback_rng", "ranks_with_faults", "run_match", "seat_seed", "wall_allowance_ms",
           "wall_backstop_ms"]
