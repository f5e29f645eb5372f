"""One bot process in its slot, inside bubblewrap: its command line, its pipes, its end."""

from __future__ import annotations

import functools
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

from workers.sandbox import reaping
from workers.sandbox.errors import SandboxError
from workers.sandbox.host import (
    ENGINES_DIR,
    INSTALL_HINT,
    LAUNCHER_FILE,
    SDK_FILE,
    UNSAFE_ENV,
    bwrap_path,
    bwrap_supports,
    empty_mask_sources,
    python_runtime,
    unsafe_mode,
)
from workers.sandbox.image import image_for
from workers.sandbox.limits import SandboxLimits, rlimit_spec
from workers.sandbox.reaping import (
    _become_subreaper,
    _kill_uid_leftovers,
    _reap_orphaned_inits,
)
from workers.sandbox.rootfs import MASK_FILE, MASK_FOLDER, SlotRoot, can_mount, holds, stamp_of
from workers.sandbox.runtimes import PYTHON, Runtime
from workers.sandbox.slots import Slot, acquire_slot
from workers.sandbox.staging import MAX_BOT_BYTES, _clear_dir, stage_bot
from workers.sandbox.syscalls import filter_fd

# Joins the slot's cgroups, then becomes the sandbox: a shell costs ~1 ms, where a Python
# preexec_fn forces a full fork() of the (large) runner process and costs several.
_JOIN_CGROUPS = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 111; shift; n=$((n-1)); done; exec "$@"'


# What the sandbox's own /proc would still show of the machine: every file here is shared by all
# seats and moves with what they do (a channel: load, CPU, memory, interrupt and disk counters,
# file locks, keys), and /proc/sys holds more of the same (fs/file-nr, ...). Each is covered by an
# empty read-only file or folder: those this kernel has and lets an unprivileged user read
# (root-only ones such as slabinfo need no cover), each bind costing ~0.1 ms of start-up.
PROC_MASKED_FILES = (
    "keys", "key-users", "loadavg", "stat", "uptime", "meminfo", "vmstat", "zoneinfo", "buddyinfo",
    "pagetypeinfo", "slabinfo", "schedstat", "sched_debug", "timer_list", "interrupts", "softirqs",
    "diskstats", "swaps", "locks", "cpuinfo", "cgroups", "latency_stats", "timer_stats", "lock_stat",
)
PROC_MASKED_FOLDERS = ("sys", "pressure", "fs", "irq", "bus", "driver", "acpi", "scsi", "asound")


@functools.lru_cache(maxsize=1)
def _proc_entries_to_mask() -> tuple[tuple[str, bool], ...]:
    found = []
    for names, folder in ((PROC_MASKED_FILES, False), (PROC_MASKED_FOLDERS, True)):
        for name in names:
            try:
                mode = os.stat(f"/proc/{name}").st_mode
            except OSError:
                continue
            if folder or mode & stat.S_IROTH:
                found.append((name, folder))
    return tuple(found)


def _proc_masks(sources: tuple[Path, Path] | None = None) -> list[str]:
    """The binds that cover them, from ``sources`` (an empty file and folder: the slot root's
    own, hidden under its /tmp, which the sandbox's /tmp tmpfs then covers) or the runtime
    directory's."""
    file, folder = sources or empty_mask_sources()
    argv = []
    for name, is_folder in _proc_entries_to_mask():
        argv += ["--ro-bind", str(folder if is_folder else file), f"/proc/{name}"]
    return argv


def _with_cgroups(argv: list[str], procs_files: list[str]) -> list[str]:
    if not procs_files:
        return argv
    return ["/bin/sh", "-c", _JOIN_CGROUPS, "sh", str(len(procs_files)), *procs_files, *argv]


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class SandboxedProcess:
    """One bot process in its slot: pipes to talk to it, and a kill that leaves nothing behind."""

    def __init__(self, bot_path: str | os.PathLike, limits: SandboxLimits, slot: Slot | None = None,
                 runtime: Runtime = PYTHON):
        self.limits = limits
        self.runtime = runtime
        self.unsafe = unsafe_mode()
        bwrap = None if self.unsafe else bwrap_path()
        if bwrap is None and not self.unsafe:
            raise SandboxError(INSTALL_HINT)
        if slot is None and bwrap is not None and not self.unsafe and can_mount():
            # A free slot whose root holds this runtime already, if there is one.
            stamp = stamp_of(image_for(runtime))
            slot = acquire_slot(prefer=lambda directory: holds(directory, stamp))
        self.slot = slot or acquire_slot()
        seccomp_fd = None
        file_fds: list[int] = []
        self.root: SlotRoot | None = None
        extra_bytes = 0
        masks = None
        try:
            if self.unsafe:
                if runtime.language != "python":
                    raise SandboxError(f"{UNSAFE_ENV} runs Python bots only; {runtime.language} bots run in the sandbox")
                bot_dir = self.slot.directory / "bot"
                stage_bot(bot_path, bot_dir, entry=runtime.entry_file)
                sys.stderr.write(
                    f"WARNING: {UNSAFE_ENV} is set: running {bot_path} WITHOUT ANY SANDBOX. "
                    "Development only: never with code you do not trust.\n")
                argv = self._unsafe_argv(bot_dir)
            else:
                assert bwrap is not None  # checked above: only unsafe mode runs without it
                image = image_for(runtime)
                if can_mount():
                    # The slot's root (a tmpfs of the slot alone holding its copy of the runtime),
                    # bound read-only as the sandbox's whole root, and the bot staged into a fresh
                    # tmpfs of this sandbox alone, bound read-only at /bot.
                    self.root = SlotRoot(self.slot.directory, image, MAX_BOT_BYTES)
                    root, bot_dir = self.root.take()
                    stage_bot(bot_path, bot_dir, entry=runtime.entry_file)
                    files = ["--ro-bind", str(root), "/", "--ro-bind", str(bot_dir), "/bot"]
                    masks = (root / MASK_FILE, root / MASK_FOLDER)
                else:
                    # No right to mount: bwrap writes the copy into its own root tmpfs. Those pages
                    # are charged to the sandbox's cgroup: on top of the bot's allowance.
                    bot_dir = self.slot.directory / "bot"
                    stage_bot(bot_path, bot_dir, entry=runtime.entry_file)
                    files, file_fds = image.bwrap_args()
                    files += ["--ro-bind", str(bot_dir), "/bot"]
                    extra_bytes = image.size
                seccomp_fd = filter_fd()
                argv = self._bwrap_argv(bwrap, seccomp_fd, files, masks)
            # A runtime's own needs (the JVM's metaspace and code cache) on top of the bot's allowance.
            self.slot.cgroups.prepare(limits, extra_bytes=extra_bytes + runtime.memory_extra_mb * 1024 * 1024)
            _become_subreaper()
            self.started = time.perf_counter()
            self.process = subprocess.Popen(
                _with_cgroups(argv, self.slot.cgroups.procs_files()),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, close_fds=True, env={} if not self.unsafe else self._env("/tmp"),
                start_new_session=True, pass_fds=() if seccomp_fd is None else (seccomp_fd, *file_fds))
        except BaseException:
            if self.root is not None:
                self._release_root(clean=True)     # no process of the sandbox was started
            self.slot.release()
            raise
        finally:
            for fd in file_fds if seccomp_fd is None else (seccomp_fd, *file_fds):
                os.close(fd)
        reaping.OUTER_PIDS.add(self.process.pid)
        assert self.process.stdin and self.process.stdout and self.process.stderr  # all three are PIPEs
        self.stdin_fd = self.process.stdin.fileno()
        self.stdout_fd = self.process.stdout.fileno()
        self.stderr_fd = self.process.stderr.fileno()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)
        self.closed = False
        self.final_cpu_ns: int | None = None
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

    def _bwrap_argv(self, bwrap: str, seccomp_fd: int, files: list[str],
                    masks: tuple[Path, Path] | None = None) -> list[str]:
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
            if bwrap_supports(bwrap, "--disable-userns"):
                argv += ["--disable-userns"]
        # No user namespace inside either way: the filter refuses clone/unshare with CLONE_NEWUSER.
        argv += ["--seccomp", str(seccomp_fd)]
        # The root is a tmpfs of this sandbox alone holding its copy of the runtime and of the bot
        # (workers.sandbox.rootfs); nothing of the host's file systems is mounted but /proc of
        # its PID namespace and the few device nodes of --dev.
        argv += files
        argv += ["--proc", "/proc", *_proc_masks(masks), "--dev", "/dev",
                 "--perms", "1777", "--size", str(self.limits.tmp_mb * 1024 * 1024), "--tmpfs", "/tmp",
                 "--remount-ro", "/", "--clearenv"]
        for key, value in self.runtime.env:
            argv += ["--setenv", key, value]
        uid = self.slot.uid if self.slot.uid is not None else -1
        argv += ["--chdir", "/bot", "--",
                 *self.runtime.command(uid, rlimit_spec(self.limits, "pids" in self.slot.cgroups.dirs),
                                       memory_mb=self.limits.memory_mb)]
        return argv

    def _unsafe_argv(self, bot_dir: Path) -> list[str]:
        prefix, name = python_runtime()
        lib = self.slot.directory / "lib"
        _clear_dir(lib)
        os.symlink(SDK_FILE, lib / "arena_bot.py")
        os.symlink(ENGINES_DIR, lib / "engines")
        return [str(prefix / "bin" / name), "-I", "-S", str(LAUNCHER_FILE), "-1", str(bot_dir), str(lib),
                rlimit_spec(self.limits, "pids" in self.slot.cgroups.dirs)]

    def _release_root(self, clean: bool) -> None:
        """Unmount the sandbox's /bot tmpfs (the bot's copy of its code goes with it); the slot's
        root stays for the slot's next sandbox unless a process of this one may have survived."""
        try:
            assert self.root is not None  # only called for a sandbox that took the slot's root
            self.root.release(clean=clean)
        except (OSError, SandboxError):
            self._drop_root()     # the slot's next sandbox fills its root afresh

    def _drop_root(self) -> None:
        if self.root is not None:
            try:
                self.root.drop()
            except (OSError, SandboxError):
                pass

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
                    raise TimeoutError("the bot does not read its input (its stdin pipe is full)") from None
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
        if code < 0:   # the outer bwrap itself (the runner killed it)
            return f"killed by {_signal_name(-code)}"
        if code > 128:
            # bwrap reports a death by signal N as status 128 + N, which a bot may also exit with.
            return f"exit status {code} (128 + {_signal_name(code - 128)})"
        return f"exited with code {code}"

    def limit_hits(self) -> dict[str, int]:
        """OOM kills and refused forks in the slot since the bot started."""
        return self.slot.cgroups.limit_hits()

    # --- the freezer and the CPU clock -------------------------------------------------------
    def freeze(self) -> bool:
        """Stop the bot and everything it started until ``thaw`` (False where the slot has no freezer)."""
        return self.slot.cgroups.freeze()

    def thaw(self) -> bool:
        """Let the bot and its processes run again."""
        return self.slot.cgroups.thaw()

    def freeze_and_settle(self, timeout: float = 0.01) -> bool:
        """Freeze, and wait (at most ``timeout`` s) until every process of the sandbox has stopped."""
        return self.freeze() and self.slot.cgroups.settle_frozen(timeout)

    @property
    def has_cpu_clock(self) -> bool:
        """True when ``cpu_ns`` counts the CPU time of the whole sandbox."""
        return self.slot.cgroups.has_cpu_clock()

    def cpu_ns(self) -> int | None:
        """CPU time of every process of the sandbox so far (ns), or None without a CPU clock;
        after ``close``, the sandbox's total (read before the slot was given back)."""
        if self.closed:
            return self.final_cpu_ns
        return self.slot.cgroups.cpu_used_ns()

    @property
    def cores(self) -> float:
        """How many cores' worth of CPU time the sandbox can use per second (its quota)."""
        if "cpu" in self.slot.cgroups.dirs:
            return self.limits.cpus
        return float(os.cpu_count() or 1)

    def close(self, grace: float = 0.0, drain=None) -> bool:
        """End the bot: close its stdin, wait ``grace`` seconds, then kill everything it started.

        ``drain`` is called while waiting and once after the end, so the caller can read
        the last of the bot's stderr before the pipes close. Returns True when no process
        of the slot is left. Safe to call twice.
        """
        if self.closed:
            return self.clean
        self.closed = True
        if grace > 0:
            self.thaw()     # a frozen bot could not use its grace to finish
        try:
            if self.process.stdin is not None:
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
        reaping.OUTER_PIDS.discard(self.process.pid)
        _reap_orphaned_inits()
        shutil.rmtree(self.slot.directory / "bot", ignore_errors=True)   # the bot's code goes too
        if self.unsafe:
            _kill_uid_leftovers(self.process.pid)
        if drain:
            drain()
        self.final_cpu_ns = self.slot.cgroups.cpu_used_ns()
        for stream in (self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self.root is not None:
            self._release_root(clean=self.clean)
            self._settle_slot()
        self.slot.release()
        return self.clean

    def _settle_slot(self, timeout: float = 2.0) -> None:
        """Killed tasks count in pids.current until they are reaped: let them go (reaping the
        namespace's init, ours as its subreaper, as soon as it has exited) before the slot's next
        bot has its pids cap set. Stop waiting once no task of the slot is listed any more and
        some still count: zombies of another process, which nothing here can reap (prepare then
        counts them against nobody)."""
        deadline = time.monotonic() + timeout
        while not self.slot.cgroups.settle(timeout=0.02):
            _reap_orphaned_inits(timeout=0.0)
            if self.slot.cgroups.settle(timeout=0.0) or time.monotonic() > deadline:
                return
            if not self.slot.cgroups.pids():
                return
