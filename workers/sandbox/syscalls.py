"""The seccomp filter bwrap loads for every bot (``--seccomp FD``): the kernel calls a bot may not make.

A bot may run native code (``ctypes`` is there), so the filter, not Python, is the boundary. It
allows everything an ordinary program does and refuses, with ``EPERM`` (``ENOSYS`` for
``clone3``, so that glibc falls back to ``clone``, whose flags the filter can read):

* channels between seats through shared kernel objects: the keyring (``add_key``, ``keyctl``,
  ``request_key``), file notification (``inotify_*``, ``fanotify_*``, ``fcntl(F_NOTIFY)``), file
  locks on the shared read-only files (``flock``, ``fcntl`` record and OFD locks, leases),
  page-cache residency (``mincore``, ``cachestat``, ``preadv2``/``pwritev2`` with
  ``RWF_NOWAIT``), the page cache's layout (``madvise(MADV_COLLAPSE)``) and the machine's global
  counters (``sysinfo``);
* namespaces and mounts: ``unshare``, ``setns``, ``clone`` with any ``CLONE_NEW*`` flag (so no user
  namespace, in which a bot would be root and could mount past its limits), ``mount`` and the
  new mount API, ``pivot_root``, ``chroot``;
* the kernel's larger attack surface: ``ptrace``, ``process_vm_*``, ``perf_event_open``, ``bpf``,
  ``userfaultfd``, ``io_uring_*`` (whose operations would bypass this filter), modules, kexec,
  ``open_by_handle_at``, terminal injection (``TIOCSTI``), socket families other than Unix, IPv4,
  IPv6 and netlink (``AF_VSOCK`` is not namespaced), and the obsolete calls nobody needs.

Calls of another architecture (32-bit ``int 0x80``, x32) kill the process: the filter is
written for the native one only. The filter is built once per process with libseccomp (through
the ``pyseccomp`` binding) and kept as BPF bytes; each sandbox reads it from a pipe.
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile

from workers.sandbox.errors import SandboxError

INSTALL_HINT = ("libseccomp is not available; bots run only under its system-call filter. Install it "
                "with `make install` (libseccomp2 from scripts/install-system-packages.sh and pyseccomp "
                "from requirements.txt) or `sudo apt-get install libseccomp2`.")

DENIED = (
    # channels between seats
    "add_key", "keyctl", "request_key",
    "inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch",
    "fanotify_init", "fanotify_mark",
    "flock", "mincore", "cachestat", "sysinfo",
    # namespaces and mounts
    "unshare", "setns", "mount", "umount", "umount2", "pivot_root", "chroot", "mount_setattr",
    "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
    # the kernel's attack surface
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp", "pidfd_getfd",
    "perf_event_open", "bpf", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "open_by_handle_at", "name_to_handle_at", "acct", "swapon", "swapoff", "reboot", "syslog",
    "quotactl", "quotactl_fd", "lookup_dcookie", "nfsservctl", "uselib", "ustat", "sysfs", "_sysctl",
    "vhangup", "iopl", "ioperm", "modify_ldt", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "mbind", "set_mempolicy", "set_mempolicy_home_node", "migrate_pages", "move_pages",
    "create_module", "get_kernel_syms", "query_module", "afs_syscall", "tuxcall", "security", "vserver",
)

CLONE_NAMESPACE_FLAGS = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000  # NEWNS CGROUP UTS IPC USER
                         | 0x20000000 | 0x40000000)                                         # NEWPID NEWNET
FCNTL_REFUSED = {
    1024: "F_SETLEASE", 1025: "F_GETLEASE", 1026: "F_NOTIFY",
    5: "F_GETLK", 6: "F_SETLK", 7: "F_SETLKW", 36: "F_OFD_GETLK", 37: "F_OFD_SETLK", 38: "F_OFD_SETLKW",
}
IOCTL_REFUSED = {0x5412: "TIOCSTI", 0x541C: "TIOCLINUX"}
RWF_NOWAIT = 0x00000008
MADV_COLLAPSE = 25      # would make a huge page of a slot root's pages: a trace the slot's next sandbox sees
SOCKET_FAMILIES_ALLOWED = {1, 2, 10, 16}   # AF_UNIX, AF_INET, AF_INET6, AF_NETLINK
SOCKET_FAMILY_MAX = 46                      # AF_MAX of current kernels; anything above is refused too


def _binding():
    try:
        import pyseccomp
    except (ImportError, OSError, AttributeError) as exc:   # missing package, or no libseccomp.so
        raise SandboxError(f"{INSTALL_HINT} ({exc})") from None
    return pyseccomp


def _add(seccomp, rules, action, name: str, *args) -> None:
    try:
        rules.add_rule(action, name, *args)
    except (RuntimeError, OSError, ValueError):
        # A call this libseccomp or architecture does not know: nothing to refuse. A name it
        # does know must be added, so only unknown names may end here (checked by the tests).
        try:
            seccomp.resolve_syscall(seccomp.Arch.NATIVE, name)
        except (RuntimeError, OSError, ValueError):
            return
        raise


def build_filter(seccomp=None):
    """The libseccomp filter object (not loaded: bwrap loads its BPF into the bot's process)."""
    seccomp = seccomp or _binding()
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    refuse = seccomp.ERRNO(errno.EPERM)
    for name in DENIED:
        _add(seccomp, rules, refuse, name)
    _add(seccomp, rules, seccomp.ERRNO(errno.ENOSYS), "clone3")
    for flag in _bits(CLONE_NAMESPACE_FLAGS):
        _add(seccomp, rules, refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    # The kernel reads these commands as 32-bit: compare only the low half, or a bot would pass
    # F_SETLK with a high bit set and slip by.
    for command in FCNTL_REFUSED:
        _add(seccomp, rules, refuse, "fcntl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, command))
    for request in IOCTL_REFUSED:
        _add(seccomp, rules, refuse, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    _add(seccomp, rules, refuse, "madvise", seccomp.Arg(2, seccomp.MASKED_EQ, 0xFFFFFFFF, MADV_COLLAPSE))
    for name in ("preadv2", "pwritev2"):
        _add(seccomp, rules, seccomp.ERRNO(errno.EOPNOTSUPP), name,
             seccomp.Arg(5, seccomp.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    for family in range(SOCKET_FAMILY_MAX):
        if family not in SOCKET_FAMILIES_ALLOWED:
            _add(seccomp, rules, seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.EQ, family))
    _add(seccomp, rules, seccomp.ERRNO(errno.EAFNOSUPPORT), "socket",
         seccomp.Arg(0, seccomp.GE, SOCKET_FAMILY_MAX))
    return rules


def _bits(mask: int) -> list[int]:
    return [1 << bit for bit in range(mask.bit_length()) if mask >> bit & 1]


@functools.lru_cache(maxsize=1)
def filter_bpf() -> bytes:
    """The compiled filter as the BPF program bwrap's ``--seccomp`` reads; SandboxError without libseccomp."""
    rules = build_filter()
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


def filter_fd() -> int:
    """A pipe's read end holding the filter (bwrap reads it to the end); the caller closes it."""
    program = filter_bpf()
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    try:
        os.write(write_end, program)   # a few KiB: fits the pipe's buffer, never blocks
    finally:
        os.close(write_end)
    return read_end
