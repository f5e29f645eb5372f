"""Replays (format: docs/replay-format.md), one package:

- :mod:`workers.replay.codec`: the format both ways (the runner's recorder and the readers'
  decoding of compact steps), the hashes, the bytes on disk;
- :mod:`workers.replay.expansion`: the full form viewers read, by re-simulation; ``to_full``;
- :mod:`workers.replay.verification`: re-simulation that checks every step and the result;
- :mod:`workers.replay.page`: self-contained pages that draw a replay;
- :mod:`workers.replay.cli`: ``python -m workers.replay verify|view|full|luck ...``.

The names below are the package's public ones: ``from workers.replay import expand, verify``.
"""

from workers.replay.codec import (COMPACT_VERSION, FAULT_KINDS, FULL_VERSION, REPLAY_FORMAT, REPLAY_VERSION,
                                  REPLAY_VERSIONS, STEP_HASH_CHARS, CompactRecorder, ReplayError, action_index,
                                  compact_steps, compress, decompress, encode, load, ranks_with_faults, save,
                                  state_hash, step_count, step_hash, step_hash_chars, unreadable_reason)
from workers.replay.expansion import (check_engine_version, check_readable, expand, expand_compact, joint_actions,
                                      to_full)
from workers.replay.verification import verify
from workers.replay.cli import main
from workers.replay.page import default_page_path

__all__ = ["COMPACT_VERSION", "FAULT_KINDS", "FULL_VERSION", "REPLAY_FORMAT", "REPLAY_VERSION", "REPLAY_VERSIONS",
           "STEP_HASH_CHARS", "CompactRecorder", "ReplayError", "action_index", "check_engine_version",
           "check_readable", "compact_steps", "compress", "decompress", "default_page_path", "encode", "expand",
           "expand_compact", "joint_actions", "load", "main", "ranks_with_faults", "save", "state_hash", "step_count", "step_hash",
           "step_hash_chars", "to_full", "unreadable_reason", "verify"]
