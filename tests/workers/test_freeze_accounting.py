"""The freeze, measured from the runner's side (issue 26): a frozen sandbox's cgroup accrues no CPU.

Each hostile bot answers every request at once and leaves work behind: threads that spin, child
processes that spin, interval timers whose handlers burn CPU, and a fresh spinning thread started
just before each reply. The test drives it the way the runner does (thaw, line, reply, freeze
until every task has stopped, read the slot's CPU clock), waits as the other seats' turns would,
and reads the clock again just before the next thaw: whatever the sandbox accrued in between ran
on time nobody charged it for. The bound: ``BOUND_MS`` over all ``DECISIONS`` gaps together.
"""

from __future__ import annotations

import os
import select
import time

import pytest

from tests.workers.conftest import TEST_LIMITS, write_bot
from workers.sandbox import SandboxedProcess, bwrap_path

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")

DECISIONS = 20
GAP_S = 0.05            # the other seats' turn
BOUND_MS = 2.0          # CPU accrued while frozen, over all the gaps together

SPIN = """
import os, signal, sys, threading, time
def spin(seconds=None):
    end = None if seconds is None else time.monotonic() + seconds
    while end is None or time.monotonic() < end:
        pass
"""

HOSTILE = {
    "spinning_threads": SPIN + """
for _ in range(4):
    threading.Thread(target=spin, daemon=True).start()
""",
    "spinning_children": SPIN + """
for _ in range(3):
    if os.fork() == 0:
        spin()
""",
    "interval_timers": SPIN + """
def burn(*_):
    spin(0.0005)
signal.signal(signal.SIGALRM, burn)
signal.signal(signal.SIGPROF, burn)
signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
""",
    "thread_started_just_before_the_reply": SPIN + """
START_EACH_TIME = True
""",
}

LOOP = """
START_EACH_TIME = globals().get("START_EACH_TIME", False)
for line in sys.stdin:
    if START_EACH_TIME:
        threading.Thread(target=spin, args=(0.2,), daemon=True).start()
    sys.stdout.write("reply\\n")
    sys.stdout.flush()
"""


def _reply(process: SandboxedProcess, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    data = b""
    while b"\n" not in data:
        assert time.monotonic() < deadline, "no reply"
        ready, _, _ = select.select([process.stdout_fd], [], [], 0.1)
        if ready:
            data += os.read(process.stdout_fd, 4096)


@pytest.mark.parametrize("version", ["v2", "v1"])
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_frozen_sandbox_accrues_no_cpu_between_its_decisions(kind, version, tmp_path, monkeypatch):
    from workers.sandbox.cgroups import FREEZER_ENV

    monkeypatch.setenv(FREEZER_ENV, version)
    bot = write_bot(tmp_path, kind, HOSTILE[kind] + LOOP)
    process = SandboxedProcess(bot, TEST_LIMITS.sandbox())
    cgroups = process.slot.cgroups
    accrued_ns, unsettled = [], 0
    try:
        if cgroups.freezer_version() != version or not cgroups.has_cpu_clock():
            pytest.skip(f"no {version} freezer with a CPU clock for a slot here ({cgroups.describe()})")
        for _ in range(DECISIONS):
            process.thaw()
            process.write(b"request\n")
            _reply(process)
            # As the runner does: freeze, wait until every task has stopped (their CPU until then
            # is the decision's), read the clock.
            if not process.freeze_and_settle(timeout=0.5):
                unsettled += 1
            frozen_at = process.cpu_ns()
            time.sleep(GAP_S)
            accrued_ns.append(process.cpu_ns() - frozen_at)
    finally:
        assert process.close()
    total_ms = sum(accrued_ns) / 1e6
    print(f"{kind} ({version}): {total_ms:.3f} ms of CPU over {DECISIONS} frozen gaps of {GAP_S * 1000:.0f} ms, "
          f"max {max(accrued_ns) / 1e6:.3f} ms")
    assert unsettled == 0, f"{unsettled} freezes did not stop every task within 0.5 s"
    assert total_ms <= BOUND_MS, f"{total_ms:.3f} ms accrued while frozen: {[n // 1000 for n in accrued_ns]} µs"
