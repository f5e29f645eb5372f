"""The resource limits of one sandboxed bot, and the rlimits launch.py sets from them."""

from __future__ import annotations

import os
from dataclasses import dataclass

MEMORY_EXIT_CODE = 86  # launch.py exits with this on an uncaught MemoryError (never evidence of one)


@dataclass(frozen=True)
class SandboxLimits:
    """The resource limits of one sandboxed bot process."""

    memory_mb: int = 256
    processes: int = 32
    cpu_s: int = 120
    file_size_mb: int = 16
    open_files: int = 64
    tmp_mb: int = 16
    cpus: float = 1.0       # CPU quota of the slot: at most this many cores' worth of time


def rlimit_spec(limits: SandboxLimits, pids_cgroup: bool) -> str:
    """The rlimits launch.py sets before it drops privileges, as ``NAME=VALUE,...``."""
    memory = limits.memory_mb * 1024 * 1024
    settings = {
        # The cgroup is the hard cap; the address-space limit turns the crudest bombs into a
        # MemoryError early, with room for the runtime's own mappings and thread stacks.
        "AS": memory + 256 * 1024 * 1024,
        "CPU": limits.cpu_s,
        "FSIZE": limits.file_size_mb * 1024 * 1024,
        "NOFILE": limits.open_files,
        "CORE": 0,
    }
    if os.geteuid() == 0:
        # RLIMIT_NPROC counts per uid: only the slot's own uid (root runs) makes it a per-bot
        # limit; for an ordinary user it would count all of that user's processes. With a pids
        # cgroup, pids.max bites first (and counts its refusals); NPROC stays as the backstop.
        settings["NPROC"] = limits.processes + (8 if pids_cgroup else 0)
    return ",".join(f"{name}={value}" for name, value in settings.items())
