"""The match runner's public names, where the arena's tasks, the local CLI and the benchmarks
have always imported them: ``from workers.runner import SeatSpec, run_match``.

The runner itself is the package :mod:`workers.match` (seats, clock, loop, faults, outcome);
the replay format, hashes included, is :mod:`workers.replay`.
"""

from workers.match import (BUILTIN_PREFIX, CPU_LIMIT_EVIDENCE, DEFAULT_LIMITS, FAULT_KINDS, SEAT_SEED_ITERATIONS,
                           WALL_BACKSTOP_FACTOR, WALL_BACKSTOP_MIN_EXTRA_MS, Fault, Limits, MatchOutcome, SeatSpec,
                           default_limits, fallback_rng, ranks_with_faults, run_match, seat_seed,
                           wall_allowance_ms, wall_backstop_ms)
from workers.replay.codec import (REPLAY_FORMAT, REPLAY_VERSION, REPLAY_VERSIONS, STEP_HASH_CHARS, action_index,
                                  state_hash, step_hash)

__all__ = ["BUILTIN_PREFIX", "CPU_LIMIT_EVIDENCE", "DEFAULT_LIMITS", "FAULT_KINDS", "REPLAY_FORMAT", "REPLAY_VERSION",
           "REPLAY_VERSIONS", "SEAT_SEED_ITERATIONS", "STEP_HASH_CHARS", "WALL_BACKSTOP_FACTOR",
           "WALL_BACKSTOP_MIN_EXTRA_MS", "Fault", "Limits", "MatchOutcome", "SeatSpec", "action_index",
           "default_limits", "fallback_rng", "ranks_with_faults", "run_match", "seat_seed", "state_hash",
           "step_hash", "wall_allowance_ms", "wall_backstop_ms"]
