"""Faults: what ended a seat's own play, as the kernel saw it.

A faulted seat (``init_timeout``, ``timeout``, ``crash``, ``protocol``, ``illegal``, ``memory``) is
killed with everything it started, played to the end by the ``random`` built-in seeded from the
match seed (``seats.fallback_rng``), and ranked below every seat that did not fault
(``ranks_with_faults``). The kind comes from what the kernel saw (the memory cgroup's OOM kills,
the pids cgroup's refusals, the CPU clock against the CPU-time rlimit), never from an exit status,
which a bot can choose.
"""

from __future__ import annotations

import signal

from workers.match.clock import Limits
from workers.match.seats import SandboxSeat
from workers.replay.codec import FAULT_KINDS, ranks_with_faults

# The share of the CPU-time rlimit the sandbox's clock must show for a SIGXCPU death to count.
CPU_LIMIT_EVIDENCE = 0.75


def classify(seat: SandboxSeat, kind: str, message: str, limits: Limits) -> tuple[str, str]:
    """The fault the kernel saw behind a crash, timeout or garbage: the memory cgroup's OOM
    kills, the pids cgroup's refused forks, or the CPU-time rlimit (by the sandbox's CPU clock).

    The exit status is not evidence: bwrap reports a bot killed by a signal as 128 + its
    number, which the bot could equally exit with.
    """
    if kind == "illegal":
        return kind, message
    process = seat.process
    if process.poll() is None and kind == "crash":
        try:
            process.process.wait(timeout=2.0)
        except Exception:
            pass
    hits = process.limit_hits()
    if hits.get("oom_kill"):
        return "memory", (f"memory limit of {limits.memory_mb} MiB reached: the kernel killed "
                          f"{hits['oom_kill']} process(es) of the bot")
    if hits.get("pids_max"):
        return "memory", (f"process limit of {limits.processes} reached "
                          f"({hits['pids_max']} forks refused); then: {message}")
    # RLIMIT_CPU ends a process with SIGXCPU (SIGKILL at the hard limit). The status alone
    # proves nothing, but with the CPU clock showing the time spent, it is the limit. The
    # rlimit counts scheduler ticks, which on a busy VM include stolen time: it can fire with
    # the clock (precise run time) a little short of the limit, hence the margin.
    used_ns = process.cpu_ns()
    if (process.poll() in (128 + signal.SIGXCPU, 128 + signal.SIGKILL) and used_ns is not None
            and used_ns >= CPU_LIMIT_EVIDENCE * limits.cpu_s * 1e9):
        return "timeout", (f"CPU time limit of {limits.cpu_s} s reached "
                           f"({used_ns / 1e9:.1f} s of CPU used; {process.exit_description()})")
    if kind == "crash":
        message = f"{message}: {process.exit_description()}"
    return kind, message


__all__ = ["CPU_LIMIT_EVIDENCE", "FAULT_KINDS", "classify", "ranks_with_faults"]
