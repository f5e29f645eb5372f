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


_WEIGHED: set[Path] = set()   # parents whose CPU weight this process has set already
FREEZER_ENV = "ARENA_SANDBOX_FREEZER"   # "v2" or "v1": which freezer (and CPU clock) to prefer


def _own_unified_cgroup() -> Path | None:
    """Our own cgroup in the unified (v2) hierarchy, controllers or not, if writable.

    Every v2 cgroup has ``cgroup.freeze``, ``cgroup.kill`` and the basic ``cpu.stat`` whether or
    not any controller is enabled, so even a hybrid machine (v1 controllers, an empty v2
    hierarchy at /sys/fs/cgroup/unified) can freeze and time a slot through v2.
    """
    for mount in (CGROUP_ROOT, CGROUP_ROOT / "unified"):
        if not (mount / "cgroup.controllers").exists():
            continue
        try:
            for line in Path("/proc/self/cgroup").read_text().splitlines():
                if line.startswith("0::"):
                    own = mount / line[3:].lstrip("/")
                    if os.access(own, os.W_OK):
                        return own
        except OSError:
            continue
    return None


def _next_to(own: Path) -> Path:
    """Where "dive-arena" goes in a v2 hierarchy: under the root when we are in the root, else
    beside our cgroup (a v2 cgroup with processes cannot enable controllers for children)."""
    is_root = (own / "cgroup.controllers").exists() and not (own / "cgroup.events").exists()
    return own if is_root else own.parent


class SlotCgroups:
    """The cgroups of one slot: memory and pids caps, a CPU quota, a freezer and a CPU clock.

    ``dirs`` maps each concern to its directory: ``memory`` and ``pids`` (v2 where delegated,
    else v1; ``v2`` says which), ``cpu`` (the quota: v2 ``cpu.max`` or v1 CFS), and either
    ``unified`` (a v2 cgroup: ``cgroup.freeze``, ``cpu.stat``, ``cgroup.kill``) or v1
    ``freezer`` and ``cpuacct``. A machine without some of them simply goes without.
    """

    def __init__(self, slot: int, siblings: int = 64):
        self.dirs: dict[str, Path] = {}
        self.v2 = False
        name = f"dive-arena-slot-{slot}"
        if os.geteuid() != 0:
            return
        favor_cgroup_migrations()
        unified = _own_cgroup_v2()
        if unified is not None:
            base = _next_to(unified)
            path = base / "dive-arena" / name
            try:
                path.parent.mkdir(exist_ok=True)
                # One write per controller: a write of several fails whole if one is not delegated.
                for controller in ("+memory", "+pids", "+cpu"):
                    _write(base / "cgroup.subtree_control", controller)
                    _write(path.parent / "cgroup.subtree_control", controller)
                path.mkdir(exist_ok=True)
                if (path / "memory.max").exists():
                    self.dirs = {"memory": path, "pids": path, "unified": path}
                    self.v2 = True
                    if (path / "cpu.max").exists():
                        self.dirs["cpu"] = path
                        self._weigh_parent(path.parent, siblings)
            except OSError:
                pass
        wanted = ["memory", "pids", "cpu"] if not self.v2 else []
        prefer_v1 = os.environ.get(FREEZER_ENV, "") == "v1"
        if not self.v2:
            core = None if prefer_v1 else _own_unified_cgroup()
            if core is not None:
                path = _next_to(core) / "dive-arena" / name
                try:
                    path.mkdir(parents=True, exist_ok=True)
                    if (path / "cgroup.freeze").exists():
                        self.dirs["unified"] = path
                except OSError:
                    pass
            if "unified" not in self.dirs:
                wanted += ["freezer", "cpuacct"]
        for controller in wanted:
            own = _own_cgroup_v1(controller)
            if own is None:
                continue
            path = own / "dive-arena" / name
            try:
                path.mkdir(parents=True, exist_ok=True)
                self.dirs[controller] = path
            except OSError:
                continue
        if "cpu" in self.dirs:
            self._weigh_parent(self.dirs["cpu"].parent, siblings)

    def _weigh_parent(self, parent: Path, siblings: int) -> None:
        """Give the group of all slots the CPU weight of as many ordinary processes as it holds slots.

        The scheduler shares the CPU between the machine's top-level groups and processes by
        weight: at the default weight of one, every bot of every slot together would get what one
        ordinary process of the machine gets, and a busy machine would slow each thinking bot
        several times over (a start-up measured 170 ms instead of 40 at a load of 12). Each slot
        stays capped by its own quota, so the bots cannot take more than their cores.
        """
        if parent in _WEIGHED:
            return
        _WEIGHED.add(parent)
        if self.v2:
            _write(parent / "cpu.weight", min(10_000, 100 * siblings))
        else:
            _write(parent / "cpu.shares", 1024 * siblings)

    def describe(self) -> str:
        """Which controllers this slot has, for messages and the benchmark."""
        if not self.dirs:
            return "no cgroups"
        caps = ("cgroup v2 " if self.v2 else "cgroup v1 ") + "+".join(
            sorted(c for c in ("memory", "pids") if c in self.dirs))
        quota = ("cpu quota v2" if self.v2 else "cpu quota v1") if "cpu" in self.dirs else "no cpu quota"
        freezer = {"v2": "freezer and cpu clock v2", "v1": "freezer v1"}.get(self.freezer_version() or "", "no freezer")
        if self.freezer_version() == "v1":
            freezer += ", cpu clock v1" if "cpuacct" in self.dirs else ", no cpu clock"
        return f"{caps}, {quota}, {freezer}"

    def freezer_version(self) -> str | None:
        """"v2" (cgroup.freeze), "v1" (freezer.state) or None when this slot cannot be frozen."""
        if "unified" in self.dirs:
            return "v2"
        return "v1" if "freezer" in self.dirs else None

    def prepare(self, limits: SandboxLimits, extra_bytes: int = 0) -> None:
        """Empty the slot's cgroups of leftovers, thaw them, and set this bot's limits (the memory
        cap raised by ``extra_bytes``: the sandbox's private copy of its runtime)."""
        self.kill_all()
        # Killed leftovers go within a moment; a zombie of another process (no task listed, still
        # counted) would not: no need to wait for it on every start.
        deadline = time.monotonic() + 0.2
        while not self.settle(timeout=0.005) and self.pids() and time.monotonic() < deadline:
            pass
        self.thaw()     # a runner that died mid-match may have left the slot frozen
        memory_bytes = limits.memory_mb * 1024 * 1024 + extra_bytes
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
        cpu = self.dirs.get("cpu")
        if cpu is not None:
            period = 100_000
            quota = max(1000, int(limits.cpus * period))
            if self.v2:
                _write(cpu / "cpu.max", f"{quota} {period}")
            else:
                _write(cpu / "cpu.cfs_period_us", period)
                _write(cpu / "cpu.cfs_quota_us", quota)
        self._baseline = self.counters()
        self._baseline_cpu_ns = self.cpu_ns() or 0

    # --- the freezer and the CPU clock -------------------------------------------------------
    # Called around every decision: through file descriptors kept open for the slot's lifetime,
    # a freeze costs ~1 µs and a clock reading ~6 µs, where opening the file each time costs ~80.
    def _control(self, path: Path, flags: int) -> int | None:
        fds = self.__dict__.setdefault("_fds", {})
        key = (path, flags)     # freezer.state is both written and read: one descriptor each way
        if key not in fds:
            try:
                fds[key] = os.open(path, flags | os.O_CLOEXEC)
            except OSError:
                return None
        return fds[key]

    def _set(self, path: Path, value: bytes) -> bool:
        fd = self._control(path, os.O_WRONLY)
        if fd is None:
            return False
        try:
            os.pwrite(fd, value, 0)
            return True
        except OSError:
            return False

    def _get(self, path: Path) -> bytes:
        fd = self._control(path, os.O_RDONLY)
        if fd is None:
            return b""
        try:
            return os.pread(fd, 4096, 0)
        except OSError:
            return b""

    def close(self) -> None:
        """Close the control files kept open (the slot is given back)."""
        for fd in self.__dict__.pop("_fds", {}).values():
            try:
                os.close(fd)
            except OSError:
                pass

    def freeze(self) -> bool:
        """Stop every process of the slot where it stands (asynchronous: takes effect in µs)."""
        if "unified" in self.dirs:
            return self._set(self.dirs["unified"] / "cgroup.freeze", b"1")
        if "freezer" in self.dirs:
            return self._set(self.dirs["freezer"] / "freezer.state", b"FROZEN")
        return False

    def thaw(self) -> bool:
        """Let every process of the slot run again."""
        if "unified" in self.dirs:
            return self._set(self.dirs["unified"] / "cgroup.freeze", b"0")
        if "freezer" in self.dirs:
            return self._set(self.dirs["freezer"] / "freezer.state", b"THAWED")
        return False

    def settle_frozen(self, timeout: float = 0.01) -> bool:
        """Wait (at most ``timeout`` s) until a freeze has stopped every process of the slot.

        A freeze takes effect when each task next enters the kernel: at once for a bot blocked
        reading its input, a tick or so for children burning the CPU. Until then they run, and
        that CPU time belongs to the decision just ended.
        """
        deadline = time.monotonic() + timeout
        while not self.frozen():
            if time.monotonic() > deadline:
                return False
        return True

    def frozen(self) -> bool:
        """True once every process of the slot has stopped (False while freezing, or thawed)."""
        if "unified" in self.dirs:
            return b"frozen 1" in self._get(self.dirs["unified"] / "cgroup.events")
        if "freezer" in self.dirs:
            return self._get(self.dirs["freezer"] / "freezer.state").strip() == b"FROZEN"
        return False

    def has_cpu_clock(self) -> bool:
        """True when the CPU time of the whole slot can be read (``cpu_ns``)."""
        return "unified" in self.dirs or "cpuacct" in self.dirs

    def cpu_used_ns(self) -> int | None:
        """CPU time used by the slot's processes since ``prepare`` (ns; None without a CPU clock)."""
        now = self.cpu_ns()
        return None if now is None else max(0, now - getattr(self, "_baseline_cpu_ns", 0))

    def cpu_ns(self) -> int | None:
        """CPU time used by every process the slot ever held, in ns (None without a CPU clock)."""
        try:
            if "unified" in self.dirs:
                for line in self._get(self.dirs["unified"] / "cpu.stat").splitlines():
                    if line.startswith(b"usage_usec "):
                        return int(line.split()[1]) * 1000
                return None
            if "cpuacct" in self.dirs:
                return int(self._get(self.dirs["cpuacct"] / "cpuacct.usage"))
        except ValueError:
            return None
        return None

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
        return [str(path / "cgroup.procs") for path in {p.resolve(): None for p in self.dirs.values()}]

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
            # A v1-frozen task takes its SIGKILL only once thawed; thawed after the kill, it dies
            # before it runs another instruction of its own.
            self.thaw()
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)
