"""The memory and pids cgroups of a slot (v1, or v2 where delegated), and cheap cgroup joins."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from workers.sandbox.host import runtime_dir
from workers.sandbox.limits import SandboxLimits

CGROUP_ROOT = Path("/sys/fs/cgroup")


def _own_cgroup_v1(controller: str) -> Path | None:
    """The directory of our own cgroup in a writable v1 hierarchy of ``controller``."""
    mount = CGROUP_ROOT / controller
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controller in controllers.split(","):
                own = mount / path.lstrip("/")
                if own.is_dir() and os.access(own, os.W_OK):
                    return own
    except OSError:
        return None
    return None


def _own_cgroup_v2() -> Path | None:
    """Our own cgroup in a unified hierarchy that delegates memory and pids, if writable."""
    for mount in (CGROUP_ROOT, CGROUP_ROOT / "unified"):
        controllers = mount / "cgroup.controllers"
        try:
            if not {"memory", "pids"} <= set(controllers.read_text().split()):
                continue
            for line in Path("/proc/self/cgroup").read_text().splitlines():
                if line.startswith("0::"):
                    own = mount / line[3:].lstrip("/")
                    if os.access(own, os.W_OK):
                        return own
        except OSError:
            continue
    return None


def _write(path: Path, value) -> bool:
    try:
        path.write_text(f"{value}\n")
        return True
    except OSError:
        return False


def _read_int_field(path: Path, field: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == field:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


FAVOR_DYNMODS_HIERARCHY = "dive-arena-favordynmods"


def favor_cgroup_migrations() -> bool:
    """Make joining a cgroup cheap: ~15 ms less per bot start on these machines.

    Moving a task into a cgroup takes the kernel's global threadgroup rwsem for writing, which
    waits for an RCU grace period unless some cgroup hierarchy is mounted with
    ``favordynmods`` (Linux >= 6.3; the switch is global while that hierarchy exists, and makes
    forks and exits a little dearer). The existing v1 hierarchies cannot be remounted with it,
    so we mount an empty named hierarchy of our own, once per machine. Best effort: False when
    the kernel or our privileges do not allow it, and starts then simply stay slower.
    """
    try:
        if FAVOR_DYNMODS_HIERARCHY in Path("/proc/self/mounts").read_text():
            return True
    except OSError:
        return False
    if os.geteuid() != 0:
        return False
    target = runtime_dir() / "cgroup-favordynmods"
    target.mkdir(exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "cgroup", "-o", f"none,name={FAVOR_DYNMODS_HIERARCHY},favordynmods",
         "cgroup", str(target)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return mounted.returncode == 0


class SlotCgroups:
    """The memory and pids cgroups of one slot (v1 here; v2 where it is delegated)."""

    def __init__(self, slot: int):
        self.dirs: dict[str, Path] = {}
        self.v2 = False
        name = f"dive-arena-slot-{slot}"
        if os.geteuid() != 0:
            return
        favor_cgroup_migrations()
        unified = _own_cgroup_v2()
        if unified is not None:
            # A v2 cgroup with processes in it cannot enable controllers for children
            # ("no internal processes"): put "dive-arena" next to ours (under the root when
            # we are in the root) and use it only if the controllers are delegated there.
            is_root = (unified / "cgroup.controllers").exists() and not (unified / "cgroup.events").exists()
            base = unified if is_root else unified.parent
            path = base / "dive-arena" / name
            try:
                path.parent.mkdir(exist_ok=True)
                _write(base / "cgroup.subtree_control", "+memory +pids")
                _write(path.parent / "cgroup.subtree_control", "+memory +pids")
                path.mkdir(exist_ok=True)
                if (path / "memory.max").exists():
                    self.dirs = {"memory": path, "pids": path}
                    self.v2 = True
                    return
            except OSError:
                pass
        for controller in ("memory", "pids"):
            own = _own_cgroup_v1(controller)
            if own is None:
                continue
            path = own / "dive-arena" / name
            try:
                path.mkdir(parents=True, exist_ok=True)
                self.dirs[controller] = path
            except OSError:
                continue

    def describe(self) -> str:
        """Which controllers this slot has, for messages and the benchmark."""
        if not self.dirs:
            return "no cgroups"
        return ("cgroup v2 " if self.v2 else "cgroup v1 ") + "+".join(sorted(self.dirs))

    def prepare(self, limits: SandboxLimits) -> None:
        """Empty the slot's cgroups of leftovers and set this bot's limits."""
        self.kill_all()
        self.settle(timeout=0.2)
        memory_bytes = limits.memory_mb * 1024 * 1024
        mem = self.dirs.get("memory")
        if mem is not None:
            if self.v2:
                _write(mem / "memory.max", memory_bytes)
                _write(mem / "memory.swap.max", 0)
            else:
                _write(mem / "memory.memsw.limit_in_bytes", -1)
                _write(mem / "memory.limit_in_bytes", memory_bytes)
                _write(mem / "memory.memsw.limit_in_bytes", memory_bytes)
                _write(mem / "memory.failcnt", 0)
        pids = self.dirs.get("pids")
        if pids is not None:
            # Dead tasks count until reaped (by us, or by the machine's PID 1 for a sandbox
            # whose runner died): leave them out of this bot's allowance.
            try:
                lingering = int((pids / "pids.current").read_text())
            except (OSError, ValueError):
                lingering = 0
            _write(pids / "pids.max", limits.processes + lingering)
        self._baseline = self.counters()

    def counters(self) -> dict[str, int]:
        """Cumulative counts of OOM kills and refused forks."""
        mem, pids = self.dirs.get("memory"), self.dirs.get("pids")
        if self.v2:
            return {"oom_kill": _read_int_field(mem / "memory.events", "oom_kill") if mem else 0,
                    "pids_max": _read_int_field(pids / "pids.events", "max") if pids else 0}
        return {"oom_kill": _read_int_field(mem / "memory.oom_control", "oom_kill") if mem else 0,
                "pids_max": _read_int_field(pids / "pids.events", "max") if pids else 0}

    def limit_hits(self) -> dict[str, int]:
        """How often this bot hit its memory cap (OOM kills) and its process cap since prepare()."""
        now = self.counters()
        base = getattr(self, "_baseline", {})
        return {key: now[key] - base.get(key, 0) for key in now}

    def procs_files(self) -> list[str]:
        """The cgroup.procs files a new process writes its pid into to join the slot."""
        return [str(path / "cgroup.procs") for path in {p: None for p in self.dirs.values()}]

    def settle(self, timeout: float = 2.0) -> bool:
        """Wait until the pids cgroup counts no task (killed ones count until they are reaped)."""
        pids = self.dirs.get("pids")
        if pids is None:
            return True
        deadline = time.monotonic() + timeout
        while True:
            try:
                if int((pids / "pids.current").read_text()) == 0:
                    return True
            except (OSError, ValueError):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)

    def pids(self) -> set[int]:
        """Every process currently in the slot's cgroups."""
        found: set[int] = set()
        for path in self.dirs.values():
            try:
                found.update(int(x) for x in (path / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                pass
        return found

    def kill_all(self, timeout: float = 2.0, spare: int | None = None) -> bool:
        """SIGKILL every process of the slot (but ``spare``) until none is left; False if some survived."""
        deadline = time.monotonic() + timeout
        while True:
            pids = self.pids() - {spare}
            if not pids:
                return True
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)
