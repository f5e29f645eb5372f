"""One bot process in its slot, inside bubblewrap: its command line, its pipes, its end."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from workers.sandbox import reaping
from workers.sandbox.errors import SandboxError
from workers.sandbox.host import (ENGINES_DIR, INSTALL_HINT, LAUNCHER_FILE, SDK_FILE, UNSAFE_ENV, bwrap_path,
                                  python_runtime, unsafe_mode)
from workers.sandbox.limits import MEMORY_EXIT_CODE, SandboxLimits, rlimit_spec
from workers.sandbox.reaping import _become_subreaper, _kill_uid_leftovers, _reap_orphaned_inits
from workers.sandbox.slots import Slot, acquire_slot
from workers.sandbox.staging import _clear_dir, stage_bot

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
        reaping.OUTER_PIDS.add(self.process.pid)
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
        reaping.OUTER_PIDS.discard(self.process.pid)
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
