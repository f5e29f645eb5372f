"""Runs one untrusted bot as its own process inside bubblewrap (no Django here).

Each bot gets a *slot*: a lock file under the runtime directory, an unprivileged uid of
its own (``RLIMIT_NPROC`` counts per uid, across every sandbox) and, where the machine
has them, memory and pids cgroups of its own. Slots make concurrent matches on one
machine safe: two bots never share a uid or a cgroup. Slots are coordinated through the
runtime directory (``ARENA_RUNTIME_DIR``, default /run/dive-arena): workers on one kernel
that do not share it (separate containers) need distinct ``ARENA_SANDBOX_UID_BASE`` values.

Inside the sandbox (bwrap as root, then ``launch.py`` drops to the slot uid):
  * own network (no interfaces but a loopback nobody listens on), PID, IPC and UTS namespaces,
    ``--die-with-parent``, ``--new-session``;
  * a read-only root: the Python runtime at /opt/python, the shared libraries, /arena
    (launcher, bot SDK and ``engines``, read-only), /bot (a staged read-only copy of the
    bot), /proc of its own PID namespace, a minimal /dev and a small private /tmp tmpfs;
  * an empty environment but for PATH, HOME, LANG and the loader path;
  * rlimits (address space, processes, CPU seconds, file size, open files) set before
    bwrap starts; cgroup memory (hard cap, OOM kill) and pids limits where available.
At the end every process of the slot is killed: the PID namespace dies with its init,
and the slot's cgroups are swept.

Measured facts this relies on (see issue 5): bwrap creates the parents of bind targets
with mode 0700 unless ``--perms`` is given; its root is writable unless ``--remount-ro /``;
``RLIMIT_AS`` only raises a catchable MemoryError, so the hard cap is the memory cgroup;
``RLIMIT_CPU`` does not stop a sleeping bot (the runner's wall clock does).
"""

from __future__ import annotations

import fcntl
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
ENGINES_DIR = PROJECT_ROOT / "engines"
SDK_FILE = Path(__file__).resolve().parent / "sdk" / "arena_bot.py"
LAUNCHER_FILE = Path(__file__).resolve().parent / "launch.py"

# Explicit development-only escape hatch: run bots as plain child processes.
UNSAFE_ENV = "ARENA_UNSAFE_NO_SANDBOX"
RUNTIME_DIR_ENV = "ARENA_RUNTIME_DIR"
UID_BASE_ENV = "ARENA_SANDBOX_UID_BASE"
DEFAULT_UID_BASE = 61000
SLOT_COUNT = 64
MEMORY_EXIT_CODE = 86  # launch.py exits with this on an uncaught MemoryError
CGROUP_ROOT = Path("/sys/fs/cgroup")
INSTALL_HINT = ("bubblewrap (bwrap) is not installed; bots run only inside it. Install it with "
                "`make install` (runs scripts/install-system-packages.sh) or "
                "`sudo apt-get install bubblewrap`.")

# Bot archives: refuse what would be absurd to stage for a single match.
MAX_BOT_BYTES = 64 * 1024 * 1024
MAX_BOT_FILES = 2000


class SandboxError(RuntimeError):
    """The sandbox cannot run a bot here (missing bubblewrap, no free slot, bad bot path)."""


class BotFilesError(SandboxError):
    """The bot's own files are unusable (no main.py, unsafe or oversized archive): the bot's fault."""


@dataclass(frozen=True)
class SandboxLimits:
    """The resource limits of one sandboxed bot process."""

    memory_mb: int = 256
    processes: int = 32
    cpu_s: int = 120
    file_size_mb: int = 16
    open_files: int = 64
    tmp_mb: int = 16


# --- environment detection -----------------------------------------------------------------

def bwrap_path() -> str | None:
    """The bwrap executable, or None when bubblewrap is not installed."""
    return shutil.which("bwrap") or next(
        (p for p in ("/usr/bin/bwrap", "/bin/bwrap") if os.access(p, os.X_OK)), None)


def unsafe_mode() -> bool:
    """True when the development-only switch asks to run bots without any sandbox."""
    return os.environ.get(UNSAFE_ENV, "") not in ("", "0")


def python_runtime() -> tuple[Path, str]:
    """(prefix of the real interpreter, its executable name), whatever venv or shim started us.

    The pyenv shim costs ~170 ms per start: we always exec the real interpreter.
    """
    prefix = Path(sys.base_prefix).resolve()
    name = f"python{sys.version_info.major}.{sys.version_info.minor}"
    if not (prefix / "bin" / name).exists():
        real = Path(os.path.realpath(sys.executable))
        prefix, name = real.parent.parent, real.name
    return prefix, name


def runtime_dir() -> Path:
    """Where slot locks and staged bots live (created on demand, private to the runner's user)."""
    configured = os.environ.get(RUNTIME_DIR_ENV)
    if configured:
        path = Path(configured)
    elif os.geteuid() == 0:
        path = Path("/run/dive-arena")
    else:
        path = Path(tempfile.gettempdir()) / f"dive-arena-{os.geteuid()}"
    # Private to the runner: staged bots are reached from inside a sandbox only through its
    # bind mount (whose own permissions count, not those of the host path to it).
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


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


# --- slots ------------------------------------------------------------------------------------

class Slot:
    """An exclusive sandbox slot: a held lock file, a uid and cgroups, a staging directory."""

    def __init__(self, index: int, lock_fd: int, base: Path):
        self.index = index
        self._lock_fd = lock_fd
        # A uid of its own only when we can switch to it (root); None otherwise.
        self.uid = int(os.environ.get(UID_BASE_ENV, DEFAULT_UID_BASE)) + index if os.geteuid() == 0 else None
        self.directory = base / f"slot-{index}"
        self.cgroups = SlotCgroups(index)

    def release(self) -> None:
        """Give the slot back (its processes must be gone already)."""
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1


def acquire_slot(timeout: float = 30.0) -> Slot:
    """Lock a free slot; several matches on one machine never share one."""
    base = runtime_dir()
    (base / "locks").mkdir(mode=0o700, exist_ok=True)
    deadline = time.monotonic() + timeout
    while True:
        for index in range(SLOT_COUNT):
            fd = os.open(base / "locks" / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            return Slot(index, fd, base)
        if time.monotonic() > deadline:
            raise SandboxError(f"no free sandbox slot among {SLOT_COUNT} after {timeout:.0f} s")
        time.sleep(0.05)


# --- staging the bot's files -------------------------------------------------------------

def _clear_dir(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(mode=0o755, parents=True)


def stage_bot(source: str | os.PathLike, target: Path) -> None:
    """Copy a bot (.py file, .zip with main.py at its root, or folder with main.py) to ``target``.

    The copy is world-readable and holds regular files and directories only, so the
    unprivileged sandbox uid can read it whatever the permissions of the upload were.
    """
    source = Path(source)
    _clear_dir(target)
    if source.is_dir():
        if not (source / "main.py").is_file():
            raise BotFilesError(f"bot folder {source} has no main.py")
        total = count = 0
        for root, dirs, files in os.walk(source, followlinks=False):
            rel = Path(root).relative_to(source)
            dirs[:] = [d for d in dirs if not (Path(root) / d).is_symlink() and d != "__pycache__"]
            for d in dirs:
                (target / rel / d).mkdir(mode=0o755)
            for name in files:
                src = Path(root) / name
                if src.is_symlink() or not src.is_file():
                    continue
                count += 1
                total += src.stat().st_size
                if count > MAX_BOT_FILES or total > MAX_BOT_BYTES:
                    raise BotFilesError(f"bot folder {source} is too big (max {MAX_BOT_FILES} files, "
                                       f"{MAX_BOT_BYTES // 2**20} MiB)")
                try:
                    shutil.copyfile(src, target / rel / name)
                except OSError as exc:
                    raise BotFilesError(f"bot folder {source}: cannot copy {src}: {exc.strerror or exc}") from None
    elif source.suffix == ".zip" and source.is_file():
        try:
            archive = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, OSError) as exc:
            raise BotFilesError(f"bot archive {source} is not a valid zip: {exc}") from None
        with archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            if "main.py" not in {m.filename for m in members}:
                raise BotFilesError(f"bot archive {source} has no main.py at its root")
            if len(members) > MAX_BOT_FILES or sum(m.file_size for m in members) > MAX_BOT_BYTES:
                raise BotFilesError(f"bot archive {source} is too big")
            for member in members:
                parts = Path(member.filename).parts
                if member.filename.startswith("/") or ".." in parts or not parts:
                    raise BotFilesError(f"bot archive {source} has an unsafe path {member.filename!r}")
                if stat.S_ISLNK(member.external_attr >> 16):
                    continue
                dest = target.joinpath(*parts)
                try:
                    dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                    with archive.open(member) as src, open(dest, "wb") as out:
                        shutil.copyfileobj(src, out)
                except (OSError, EOFError, zipfile.BadZipFile, zlib.error, RuntimeError,
                        NotImplementedError) as exc:
                    # A name clash (file "a" and "a/b"), a name too long, a corrupt, encrypted
                    # or oddly compressed member: the archive's fault, not the match's.
                    raise BotFilesError(f"bot archive {source}: cannot unpack {member.filename!r}: "
                                        f"{exc}") from None
    elif source.is_file() and source.suffix == ".py":
        shutil.copyfile(source, target / "main.py")
    else:
        raise BotFilesError(f"bot {source} is not a .py file, a .zip or a folder with main.py")
    for root, dirs, files in os.walk(target):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(Path(root) / name, 0o644)


# --- the process ---------------------------------------------------------------------------

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


# Joins the slot's cgroups, then becomes the sandbox: a shell costs ~1 ms, where a Python
# preexec_fn forces a full fork() of the (large) runner process and costs several.
_JOIN_CGROUPS = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 111; shift; n=$((n-1)); done; exec "$@"'


def _with_cgroups(argv: list[str], procs_files: list[str]) -> list[str]:
    if not procs_files:
        return argv
    return ["/bin/sh", "-c", _JOIN_CGROUPS, "sh", str(len(procs_files)), *procs_files, *argv]


class SandboxedProcess:
    """One bot process in its slot: pipes to talk to it, and a kill that leaves nothing behind."""

    def __init__(self, bot_path: str | os.PathLike, limits: SandboxLimits, slot: Slot | None = None):
        self.limits = limits
        self.unsafe = unsafe_mode()
        bwrap = None if self.unsafe else bwrap_path()
        if bwrap is None and not self.unsafe:
            raise SandboxError(INSTALL_HINT)
        self.slot = slot or acquire_slot()
        try:
            bot_dir = self.slot.directory / "bot"
            stage_bot(bot_path, bot_dir)
            if self.unsafe:
                sys.stderr.write(
                    f"WARNING: {UNSAFE_ENV} is set: running {bot_path} WITHOUT ANY SANDBOX. "
                    "Development only: never with code you do not trust.\n")
                argv = self._unsafe_argv(bot_dir)
            else:
                argv = self._bwrap_argv(bwrap, bot_dir)
            self.slot.cgroups.prepare(limits)
            _become_subreaper()
            self.started = time.perf_counter()
            self.process = subprocess.Popen(
                _with_cgroups(argv, self.slot.cgroups.procs_files()),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, close_fds=True, env={} if not self.unsafe else self._env("/tmp"),
                start_new_session=True)
        except BaseException:
            self.slot.release()
            raise
        _OUTER_PIDS.add(self.process.pid)
        self.stdin_fd = self.process.stdin.fileno()
        self.stdout_fd = self.process.stdout.fileno()
        self.stderr_fd = self.process.stderr.fileno()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)
        self.closed = False
        self.clean = True

    @staticmethod
    def _env(home: str, python_lib: str | None = None) -> dict[str, str]:
        # MALLOC_ARENA_MAX: glibc reserves 64 MiB of address space per thread arena, which
        # would exhaust RLIMIT_AS after a handful of threads.
        env = {"PATH": "/opt/python/bin:/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1", "MALLOC_ARENA_MAX": "2"}
        if python_lib:
            env["LD_LIBRARY_PATH"] = python_lib
        return env

    def _bwrap_argv(self, bwrap: str, bot_dir: Path) -> list[str]:
        prefix, name = python_runtime()
        root = os.geteuid() == 0
        # Not --as-pid-1: the launcher's setuid clears the parent-death signal, so only bwrap's
        # own init (root, never setuid) can carry --die-with-parent into the namespace.
        argv = [bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        if root:
            # bwrap runs as root without a user namespace; launch.py keeps only the right
            # to switch to the slot's uid and drops it at once.
            argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            argv += ["--unshare-user"]
        for directory in ("/opt", "/usr", "/arena", "/arena/lib"):
            argv += ["--perms", "0755", "--dir", directory]
        argv += ["--ro-bind", str(prefix), "/opt/python"]
        for lib in ("/usr/lib", "/usr/lib64", "/usr/lib32"):
            if os.path.isdir(lib):
                argv += ["--ro-bind", lib, lib]
        for link, target in (("/lib", "usr/lib"), ("/lib64", "usr/lib64")):
            argv += ["--symlink", target, link]
        argv += ["--ro-bind", str(LAUNCHER_FILE), "/arena/launch.py",
                 "--ro-bind", str(SDK_FILE), "/arena/lib/arena_bot.py",
                 "--ro-bind", str(ENGINES_DIR), "/arena/lib/engines",
                 "--ro-bind", str(bot_dir), "/bot",
                 "--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", "--size", str(self.limits.tmp_mb * 1024 * 1024), "--tmpfs", "/tmp",
                 "--remount-ro", "/", "--clearenv"]
        for key, value in self._env("/tmp", "/opt/python/lib").items():
            argv += ["--setenv", key, value]
        argv += ["--chdir", "/bot", "--", f"/opt/python/bin/{name}", "-I", "-S", "-X", "frozen_modules=on",
                 "/arena/launch.py", str(self.slot.uid if self.slot.uid is not None else -1), "/bot", "/arena/lib",
                 rlimit_spec(self.limits, "pids" in self.slot.cgroups.dirs)]
        return argv

    def _unsafe_argv(self, bot_dir: Path) -> list[str]:
        prefix, name = python_runtime()
        lib = self.slot.directory / "lib"
        _clear_dir(lib)
        os.symlink(SDK_FILE, lib / "arena_bot.py")
        os.symlink(ENGINES_DIR, lib / "engines")
        return [str(prefix / "bin" / name), "-I", "-S", str(LAUNCHER_FILE), "-1", str(bot_dir), str(lib),
                rlimit_spec(self.limits, "pids" in self.slot.cgroups.dirs)]

    # --- pipes -----------------------------------------------------------------------------
    def write(self, data: bytes, timeout: float | None = None) -> bool:
        """Write all of ``data`` to the bot's stdin; False when the bot closed it (it is gone).

        The pipe is non-blocking: a bot that stops reading its input cannot block the runner.
        TimeoutError when the pipe stays full for ``timeout`` seconds (None: wait as needed).
        """
        view = memoryview(data)
        deadline = None if timeout is None else time.monotonic() + timeout
        while view:
            try:
                written = os.write(self.stdin_fd, view)
            except BlockingIOError:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise TimeoutError("the bot does not read its input (its stdin pipe is full)")
                poller = select.poll()
                poller.register(self.stdin_fd, select.POLLOUT)
                poller.poll(None if remaining is None else max(1, int(remaining * 1000)))
                continue
            except OSError:
                return False
            view = view[written:]
        return True

    def poll(self) -> int | None:
        """The exit status of the sandbox (bwrap reports the bot's), or None while it runs."""
        return self.process.poll()

    def exit_description(self) -> str:
        """A readable account of how the process ended."""
        code = self.process.poll()
        if code is None:
            return "still running"
        if code == MEMORY_EXIT_CODE:
            return "exited on MemoryError (memory limit)"
        if code < 0 or code > 128:
            signo = -code if code < 0 else code - 128
            try:
                signame = signal.Signals(signo).name
            except ValueError:
                signame = f"signal {signo}"
            return f"killed by {signame}"
        return f"exited with code {code}"

    def limit_hits(self) -> dict[str, int]:
        """OOM kills and refused forks in the slot since the bot started."""
        return self.slot.cgroups.limit_hits()

    def close(self, grace: float = 0.0, drain=None) -> bool:
        """End the bot: close its stdin, wait ``grace`` seconds, then kill everything it started.

        ``drain`` is called while waiting and once after the end, so the caller can read
        the last of the bot's stderr before the pipes close. Returns True when no process
        of the slot is left. Safe to call twice.
        """
        if self.closed:
            return self.clean
        self.closed = True
        try:
            self.process.stdin.close()
        except OSError:
            pass
        end = time.monotonic() + grace
        while self.process.poll() is None and time.monotonic() < end:
            if drain:
                drain()
            time.sleep(0.001)
        if self.process.poll() is None and self.slot.cgroups.dirs:
            # From the inside out: every process of the slot but the outer bwrap, which then
            # sees its child (the namespace's init) die and exits by itself.
            self.slot.cgroups.kill_all(timeout=0.5, spare=self.process.pid)
            try:
                self.process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
        if self.process.poll() is None:
            try:
                # The outer bwrap leads its own session; its namespace init dies with it
                # (--die-with-parent), and with that init the whole PID namespace.
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.clean = self.slot.cgroups.kill_all()
        # The outer bwrap exits without reaping the namespace's init: as a child subreaper we
        # inherit that zombie and reap it here, so pids.current drops back to zero.
        _OUTER_PIDS.discard(self.process.pid)
        _reap_orphaned_inits()
        shutil.rmtree(self.slot.directory / "bot", ignore_errors=True)   # the bot's code goes too
        if self.unsafe:
            _kill_uid_leftovers(self.process.pid)
        if drain:
            drain()
        for stream in (self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except OSError:
                pass
        self.slot.release()
        return self.clean



_SUBREAPER = False
_OUTER_PIDS: set[int] = set()   # outer bwraps of live sandboxes: their status is their Popen's


def _become_subreaper() -> None:
    """Make this process the reaper of its orphaned descendants (Linux; best effort)."""
    global _SUBREAPER
    if _SUBREAPER or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        _SUBREAPER = libc.prctl(36, 1, 0, 0, 0) == 0   # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        _SUBREAPER = False
_OUTER_PIDS: set[int] = set()   # outer bwraps of live sandboxes: their status is their Popen's


def _children() -> list[int]:
    """Pids of this process's children (every thread's), from /proc."""
    found = []
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as f:
                found.extend(int(pid) for pid in f.read().split())
    except OSError:
        pass
    return found


def _reap_orphaned_inits(timeout: float = 0.5) -> None:
    """Reap the namespace inits our outer bwraps left behind (we are their subreaper).

    Only children that run ``bwrap`` and are not a live sandbox's outer bwrap (whose status
    belongs to its Popen) are touched.
    """
    if not _SUBREAPER:
        return
    deadline = time.monotonic() + timeout
    while True:
        waiting = False
        for pid in _children():
            if pid in _OUTER_PIDS:
                continue
            try:
                with open(f"/proc/{pid}/stat") as f:
                    stat_line = f.read()
            except OSError:
                continue
            comm = stat_line[stat_line.find("(") + 1:stat_line.rfind(")")]
            state = stat_line[stat_line.rfind(")") + 2:][:1]
            if comm != "bwrap":
                continue
            if state != "Z":
                waiting = True      # killed, not dead yet
                continue
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        if not waiting or time.monotonic() > deadline:
            return
        time.sleep(0.001)


def _kill_uid_leftovers(pid: int) -> None:
    """Unsafe mode only: kill what is left of the bot's process group."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def slot_processes(uid: int) -> list[int]:
    """Pids of live processes owned by ``uid`` (tests use it to prove nothing is left)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("Uid:"):
                if int(line.split()[1]) == uid:
                    state = next((l for l in status.splitlines() if l.startswith("State:")), "")
                    if "Z" not in state.split()[1:2]:
                        found.append(int(entry))
                break
    return found


def check_available() -> str:
    """A one-line description of the sandbox on this machine; SandboxError when it cannot run."""
    if unsafe_mode():
        return f"UNSAFE: {UNSAFE_ENV} is set, bots run without a sandbox"
    path = bwrap_path()
    if path is None:
        raise SandboxError(INSTALL_HINT)
    slot = acquire_slot()
    try:
        uids = f"slot uids from {slot.uid - slot.index}" if slot.uid is not None else "no uid switch (not root)"
        return f"bubblewrap {path}, {uids}, {slot.cgroups.describe()}"
    finally:
        slot.release()


__all__ = ["BotFilesError", "SandboxError", "SandboxLimits", "SandboxedProcess", "Slot", "acquire_slot",
           "bwrap_path", "check_available", "slot_processes", "stage_bot"]
