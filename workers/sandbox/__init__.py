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
  * a read-only root that is the slot's own tmpfs (``rootfs``), holding the slot's copy of the
    bot's runtime (``runtimes`` declares each language's files, ``image`` holds them): for Python
    the interpreter at /opt/python, the shared libraries it loads at their host paths and /arena
    (launcher, bot SDK and ``engines``); /bot (the staged bot) on a fresh tmpfs of this sandbox;
    then /proc of its own PID namespace, a minimal /dev and a small private /tmp tmpfs. No
    dentry, inode or page a bot can reach is shared with a sandbox alive at the same time, and
    none moves with what a bot does (``docs/sandbox.md``);
  * an empty environment but for PATH, HOME, LANG and the loader path;
  * rlimits (address space, processes, CPU seconds, file size, open files) set before
    bwrap starts; cgroup memory (hard cap, OOM kill) and pids limits where available.
At the end every process of the slot is killed: the PID namespace dies with its init,
and the slot's cgroups are swept.

Measured facts this relies on (see issue 5): bwrap creates the parents of bind targets
with mode 0700 unless ``--perms`` is given; its root is writable unless ``--remount-ro /``;
``RLIMIT_AS`` only raises a catchable MemoryError, so the hard cap is the memory cgroup;
``RLIMIT_CPU`` does not stop a sleeping bot (the runner's wall clock does).

The package has one module per concern: ``host`` (what the machine offers), ``limits``,
``cgroups``, ``slots``, ``staging`` (the bot's files), ``runtimes`` (what each language needs:
the registry), ``pyruntime`` (the Python runtime's files), ``image`` (a runtime's files held by
the worker), ``rootfs`` (each slot's root and each sandbox's /bot), ``process`` (the bot's process) and
``reaping`` (what outer bwraps leave behind). Everything public is importable from here.
"""

from __future__ import annotations

from workers.sandbox.cgroups import CGROUP_ROOT, FAVOR_DYNMODS_HIERARCHY, SlotCgroups, favor_cgroup_migrations
from workers.sandbox.errors import BotFilesError, SandboxError
from workers.sandbox.host import (ENGINES_DIR, INSTALL_HINT, LAUNCHER_FILE, PROJECT_ROOT, RUNTIME_DIR_ENV,
                                  SDK_FILE, UNSAFE_ENV, bwrap_path, python_runtime, runtime_dir, unsafe_mode)
from workers.sandbox.limits import MEMORY_EXIT_CODE, SandboxLimits, rlimit_spec
from workers.sandbox.process import SandboxedProcess
from workers.sandbox.runtimes import (BUILDS, LANGUAGES, RUNTIMES, BuildSpec, Runtime, RuntimeFile, RuntimeFiles,
                                      get_runtime, register)
from workers.sandbox.reaping import _become_subreaper, _reap_orphaned_inits, slot_processes
from workers.sandbox.slots import (DEFAULT_UID_BASE, SLOT_COUNT, UID_BASE_ENV, Slot, acquire_slot, check_available,
                                  clear_idle_slots)
from workers.sandbox.staging import MAX_BOT_BYTES, MAX_BOT_FILES, stage_bot

# The five runtimes beside Python register themselves into RUNTIMES.
from workers.sandbox import languages  # noqa: E402  (after the registry it fills)

__all__ = ["BUILDS", "BuildSpec", "LANGUAGES", "RUNTIMES", "Runtime", "RuntimeFile", "RuntimeFiles", "get_runtime",
           "register", "BotFilesError", "CGROUP_ROOT", "DEFAULT_UID_BASE", "ENGINES_DIR", "FAVOR_DYNMODS_HIERARCHY",
           "INSTALL_HINT", "LAUNCHER_FILE", "MAX_BOT_BYTES", "MAX_BOT_FILES", "MEMORY_EXIT_CODE", "PROJECT_ROOT",
           "RUNTIME_DIR_ENV", "SDK_FILE", "SLOT_COUNT", "SandboxError", "SandboxLimits", "SandboxedProcess", "Slot",
           "SlotCgroups", "UID_BASE_ENV", "UNSAFE_ENV", "acquire_slot", "bwrap_path", "check_available",
           "clear_idle_slots",
           "favor_cgroup_migrations", "python_runtime", "rlimit_spec", "runtime_dir", "slot_processes",
           "stage_bot", "unsafe_mode"]
