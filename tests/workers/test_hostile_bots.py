"""Hostile bots: each one is contained, faulted with the right kind, and leaves nothing behind.

Every match pits the hostile bot (seat 0) against a well-behaved sandboxed bot (seat 1)
in a two-player Deep Sea Adventure. Escape attempts report what they tried on stderr
and then crash on purpose, so the log (kept in the outcome) proves each attempt failed.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from tests.workers.conftest import TEST_LIMITS, leftovers, write_bot
from workers.replay import verify
from workers.runner import SeatSpec, run_match
from workers.sandbox import ENGINES_DIR, PROJECT_ROOT
from workers.storable import storable

GAME = "deep_sea_adventure"
MARKER = "dive-arena-pwned"

# Each bot plays through the SDK; ``attack()`` runs at its first decision.
PRELUDE = """
import os, sys, time, signal, socket, json
import arena_bot
def report(*parts):
    print(*parts, file=sys.stderr, flush=True)
"""

HOSTILE = {
    "infinite_loop": ("timeout", """
        def choose(obs, legal, rng):
            while True:
                pass
        arena_bot.run(choose)
    """),
    "sleep_forever": ("timeout", """
        def choose(obs, legal, rng):
            time.sleep(10_000)
        arena_bot.run(choose)
    """),
    "memory_bomb": ("memory", """
        hoard = []
        def choose(obs, legal, rng):
            while True:
                hoard.append(b"\\x01" * (8 * 1024 * 1024))
        arena_bot.run(choose)
    """),
    "memory_bomb_catching_memoryerror": ("memory", """
        hoard = []
        def choose(obs, legal, rng):
            while True:
                try:
                    hoard.append(bytearray(b"\\x01") * (4 * 1024 * 1024))
                except MemoryError:
                    pass
        arena_bot.run(choose)
    """),
    "fork_bomb": ("memory", """
        def choose(obs, legal, rng):
            while True:
                try:
                    os.fork()
                except OSError:
                    pass
        arena_bot.run(choose)
    """),
    "thread_bomb": ("memory", """
        import threading
        def choose(obs, legal, rng):
            while True:
                try:
                    threading.Thread(target=time.sleep, args=(10_000,), daemon=True).start()
                except (RuntimeError, MemoryError):
                    pass
        arena_bot.run(choose)
    """),
    "fd_exhaustion": ("crash", """
        def choose(obs, legal, rng):
            files = []
            while True:
                files.append(open("/dev/null"))
        arena_bot.run(choose)
    """),
    "stdout_flood": ("protocol", """
        def choose(obs, legal, rng):
            while True:
                sys.stdout.write("flood " * 1000 + "\\n")
        arena_bot.run(choose)
    """),
    "line_without_newline": ("protocol", """
        def choose(obs, legal, rng):
            while True:
                sys.stdout.write("x" * 65536)
        arena_bot.run(choose)
    """),
    "invalid_json": ("protocol", """
        def choose(obs, legal, rng):
            sys.stdout.write("{this is not json\\n")
            sys.stdout.flush()
            time.sleep(10_000)
        arena_bot.run(choose)
    """),
    "illegal_action": ("illegal", """
        arena_bot.run(lambda obs, legal, rng: {"move": "teleport"})
    """),
    "index_out_of_range": ("illegal", """
        arena_bot.run(lambda obs, legal, rng: len(legal) + 5)
    """),
    "two_answers_at_once": ("protocol", """
        def choose(obs, legal, rng):
            sys.stdout.write(json.dumps({"index": 0}) + "\\n")
            return 0
        arena_bot.run(choose)
    """),
    "exit_mid_game": ("crash", """
        calls = []
        def choose(obs, legal, rng):
            calls.append(1)
            if len(calls) == 3:
                os._exit(0)
            return 0
        arena_bot.run(choose)
    """),
    "kills_its_parent": ("crash", """
        def choose(obs, legal, rng):
            for pid in (os.getppid(), 1, -1):
                try:
                    os.kill(pid, signal.SIGKILL)
                    report("signalled", pid)
                except OSError as exc:
                    report("blocked: kill", pid, exc)
            report("still here after the kills")
            raise SystemExit("giving up")
        arena_bot.run(choose)
    """),
    "ignores_sigterm": ("timeout", """
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        def choose(obs, legal, rng):
            while True:
                time.sleep(1)
        arena_bot.run(choose)
    """),
    "connects_to_redis_and_postgres": ("crash", """
        def choose(obs, legal, rng):
            for port in (6379, 5432):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2)
                    report("ESCAPED: connected to", port)
                except OSError as exc:
                    report("blocked: connect", port, exc)
            try:
                socket.create_connection(("1.1.1.1", 80), timeout=0.2)
                report("ESCAPED: reached the internet")
            except OSError as exc:
                report("blocked: internet", exc)
            raise SystemExit("giving up")
        arena_bot.run(choose)
    """),
    "reads_secrets": ("crash", """
        TARGETS = ["/etc/shadow", "/etc/passwd", "/root", "/home", "/work", "PROJECT/arena/settings.py",
                   "PROJECT/db.sqlite3", "PROJECT/.venv", "/proc/1/environ", "/run/dive-arena/locks"]
        def choose(obs, legal, rng):
            for target in TARGETS:
                try:
                    if os.path.isdir(target):
                        report("ESCAPED: listed", target, os.listdir(target))
                    else:
                        with open(target, "rb") as f:
                            report("ESCAPED: read", target, f.read(40))
                except OSError as exc:
                    report("blocked: read", target, exc)
            report("environment", json.dumps(dict(os.environ)))
            raise SystemExit("giving up")
        arena_bot.run(choose)
    """),
    "writes_outside_its_tmp": ("crash", """
        TARGETS = ["/MARKER", "/tmp/../MARKER", "/bot/MARKER", "/bot/main.py", "/arena/lib/engines/MARKER",
                   "/opt/python/MARKER", "/usr/lib/MARKER", "/root/MARKER", "/proc/MARKER", "/dev/MARKER",
                   "PROJECT/MARKER", "HOSTTMP/MARKER"]
        def choose(obs, legal, rng):
            for target in TARGETS:
                try:
                    with open(target, "ab") as f:
                        f.write(b"pwned")
                    report("ESCAPED: wrote", target)
                except OSError as exc:
                    report("blocked: write", target, exc)
            raise SystemExit("giving up")
        arena_bot.run(choose)
    """),
    "fills_its_tmp": ("crash", """
        def choose(obs, legal, rng):
            written = 0
            try:
                for n in range(10_000):
                    with open(f"/tmp/fill-{n}", "wb") as f:
                        for _ in range(64):
                            f.write(b"\\x01" * 65536)
                            written += 65536
            except OSError as exc:
                report("blocked: tmp full after", written, "bytes:", exc)
            raise SystemExit("giving up")
        arena_bot.run(choose)
    """),
    "daemonised_grandchild": (None, """
        daemons = []
        def choose(obs, legal, rng):
            if not daemons and daemons.append(1) is None and os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    signal.signal(signal.SIGTERM, signal.SIG_IGN)
                    for fd in (0, 1, 2):
                        os.close(fd)
                    while True:
                        time.sleep(1)
                os._exit(0)
            return rng.randrange(len(legal))
        arena_bot.run(choose)
    """),
    "lingers_after_the_end": (None, """
        arena_bot.run(lambda obs, legal, rng: rng.randrange(len(legal)))
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            time.sleep(1)
    """),
    "syntax_error": ("crash", """
        def choose(obs, legal, rng)
            return 0
    """),
    "slow_start": ("init_timeout", """
        time.sleep(10_000)
    """),
    # --- faults are what happened: an exit status proves nothing ------------------------------
    "exits_with_the_old_out_of_memory_code": ("crash", """
        def choose(obs, legal, rng):
            os._exit(86)
        arena_bot.run(choose)
    """),
    "exits_as_if_killed_by_the_cpu_limit": ("crash", """
        def choose(obs, legal, rng):
            os._exit(128 + signal.SIGXCPU)
        arena_bot.run(choose)
    """),
    "exits_as_if_killed_by_the_oom_killer": ("crash", """
        def choose(obs, legal, rng):
            report("MemoryError: the bot ran out of memory")
            os.kill(os.getpid(), signal.SIGKILL)
        arena_bot.run(choose)
    """),
    # --- no way into the kernel ----------------------------------------------------------------
    "becomes_root_in_a_user_namespace": ("crash", """
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        CLONE_NEWUSER, CLONE_NEWNS, SIGCHLD = 0x10000000, 0x00020000, 17
        def choose(obs, legal, rng):
            if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0:
                report("ESCAPED: unshared a user namespace")
                if libc.mount(b"none", b"/tmp", b"tmpfs", 0, b"size=1g") == 0:
                    report("ESCAPED: mounted a tmpfs past the cap")
            else:
                report("blocked: unshare", os.strerror(ctypes.get_errno()))
            pid = libc.syscall(56, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)   # clone(2) straight
            if pid == 0:
                os._exit(0)
            if pid > 0:
                report("ESCAPED: cloned into a user namespace")
                os.waitpid(pid, 0)
            else:
                report("blocked: clone", os.strerror(ctypes.get_errno()))
            raise SystemExit("giving up")
        arena_bot.run(choose)
    """),
    "kernel_attack_surface": ("crash", """
        import ctypes, fcntl, struct
        libc = ctypes.CDLL(None, use_errno=True)
        ATTEMPTS = {
            "ptrace(PTRACE_TRACEME)": (101, 0, 0, 0, 0),
            "perf_event_open": (298, ctypes.byref((ctypes.c_uint32 * 32)(1, 128)), 0, -1, -1, 0),
            "bpf(BPF_PROG_LOAD)": (321, 5, ctypes.byref((ctypes.c_uint64 * 16)()), 128),
            "userfaultfd": (323, 0),
            "io_uring_setup": (425, 4, ctypes.byref((ctypes.c_uint32 * 30)())),
            "keyctl(KEYCTL_JOIN_SESSION_KEYRING)": (250, 1, 0),
            "setns": (308, 0, 0),
            "unshare(CLONE_NEWNET)": (272, 0x40000000),
            "socket(AF_VSOCK)": (41, 40, 1, 0),
            "socket(AF_ALG)": (41, 38, 5, 0),
            "socket(AF_PACKET)": (41, 17, 3, 0),
            "init_module": (175, 0, 0, b""),
            "kexec_load": (246, 0, 0, 0, 0),
            "open_by_handle_at": (304, -100, ctypes.byref((ctypes.c_uint32 * 40)(8)), 0),
            "mount": (165, b"none", b"/tmp", b"tmpfs", 0, 0),
        }
        def choose(obs, legal, rng):
            for name, call in ATTEMPTS.items():
                if libc.syscall(*call) >= 0:
                    report("ESCAPED:", name)
                else:
                    report("blocked:", name, os.strerror(ctypes.get_errno()))
            with open("/tmp/lockable", "w") as f:
                lock = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 1, 0)
                buf = ctypes.create_string_buffer(lock)
                if libc.syscall(72, f.fileno(), (1 << 32) | fcntl.F_SETLK, buf) == 0:   # high bits set
                    report("ESCAPED: F_SETLK with its high bits set")
                else:
                    report("blocked: F_SETLK with high bits", os.strerror(ctypes.get_errno()))
            raise SystemExit("giving up")
        arena_bot.run(choose)
    """),
    "syscall_of_another_architecture": ("crash", """
        import ctypes, mmap
        libc = ctypes.CDLL(None, use_errno=True)
        def choose(obs, legal, rng):
            if libc.syscall(0x40000000 | 39) > 0:                      # x32 getpid
                report("ESCAPED: an x32 system call went through")
            memory = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
            memory.write(b"\\xb8\\x14\\x00\\x00\\x00\\xcd\\x80\\xc3")   # mov eax, 20 (getpid); int 0x80; ret
            address = ctypes.addressof(ctypes.c_char.from_buffer(memory))
            if ctypes.CFUNCTYPE(ctypes.c_int)(address)() > 0:
                report("ESCAPED: a 32-bit system call went through")
            raise SystemExit("giving up")
        arena_bot.run(choose)
    """),
    # --- a bot must never void a match: whatever bytes it writes ------------------------------
    "deeply_nested_reply": ("protocol", """
        def choose(obs, legal, rng):
            sys.stdout.write('{"action": {"a": ' + "[" * 200_000 + "]" * 200_000 + "}}\\n")
            sys.stdout.flush()
            time.sleep(10_000)
        arena_bot.run(choose)
    """),
    "huge_number_reply": ("protocol", """
        def choose(obs, legal, rng):
            sys.stdout.write('{"index": ' + "9" * 500_000 + "}\\n")
            sys.stdout.flush()
            time.sleep(10_000)
        arena_bot.run(choose)
    """),
    "nul_bytes_in_its_log_and_reply": ("illegal", """
        def choose(obs, legal, rng):
            sys.stderr.buffer.write(b"nul:\\x00 bad utf-8:\\xff\\xfe surrogate:\\xed\\xa0\\x80\\n" * 50)
            sys.stderr.flush()
            sys.stdout.write('{"action": {"\\\\u0000": "\\\\ud800\\\\u0000"}}\\n')
            sys.stdout.flush()
            time.sleep(10_000)
        arena_bot.run(choose)
    """),
    "invalid_utf8_reply": ("protocol", """
        def choose(obs, legal, rng):
            sys.stdout.buffer.write(b'{"index": 0, "x": "\\xff\\x00"}\\n')
            sys.stdout.flush()
            time.sleep(10_000)
        arena_bot.run(choose)
    """),
}


def _source(kind: str, host_tmp: Path) -> str:
    code = PRELUDE + HOSTILE[kind][1].replace("\n        ", "\n")
    return code.replace("PROJECT", str(PROJECT_ROOT)).replace("HOSTTMP", str(host_tmp)).replace("MARKER", MARKER)


def _host_marker_paths(host_tmp: Path, bot_dir: Path) -> list[Path]:
    return [Path("/") / MARKER, Path("/tmp") / MARKER, ENGINES_DIR / MARKER, Path("/root") / MARKER,
            PROJECT_ROOT / MARKER, host_tmp / MARKER, bot_dir / MARKER]


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_bot_is_contained_and_faulted_with_the_right_kind(kind, tmp_path, random_bot_path):
    host_tmp = tmp_path / "host"
    host_tmp.mkdir()
    bot = write_bot(tmp_path, kind, _source(kind, host_tmp))
    bot_hash = hashlib.sha256(Path(bot).read_bytes()).hexdigest()
    expected = HOSTILE[kind][0]

    outcome = run_match(GAME, [SeatSpec(bot, name=kind), SeatSpec(random_bot_path)], seed=11,
                        limits=TEST_LIMITS)

    kinds = {fault.seat: fault.kind for fault in outcome.faults}
    log = outcome.logs[0]
    assert kinds.get(0) == expected, (outcome.faults, log[-2000:])
    assert 1 not in kinds, outcome.faults                   # the other seat played unharmed
    assert outcome.timing[1]["decisions"] > 0
    assert outcome.replay["result"]["ranks"] == outcome.ranks
    assert verify(outcome.replay) == []
    if expected is not None:
        assert outcome.ranks[0] > outcome.ranks[1]          # a faulted seat ranks below
    assert "ESCAPED" not in log, log
    assert storable(outcome.to_dict()) == outcome.to_dict()   # every text of it stores anywhere
    assert outcome.clean and leftovers(outcome) == {}       # no process of the bot remains
    assert Path(bot).read_bytes() and hashlib.sha256(Path(bot).read_bytes()).hexdigest() == bot_hash
    for path in _host_marker_paths(host_tmp, Path(bot).parent):
        assert not path.exists(), f"{path} was written from inside the sandbox"


def test_escape_attempts_are_each_blocked_and_reported_in_the_log(tmp_path, random_bot_path):
    host_tmp = tmp_path / "host"
    host_tmp.mkdir()
    logs = {}
    for kind in ("connects_to_redis_and_postgres", "reads_secrets", "writes_outside_its_tmp",
                 "fills_its_tmp", "kills_its_parent"):
        bot = write_bot(tmp_path, kind, _source(kind, host_tmp))
        outcome = run_match(GAME, [SeatSpec(bot), SeatSpec(random_bot_path)], seed=3, limits=TEST_LIMITS)
        logs[kind] = outcome.logs[0]
        assert "ESCAPED" not in logs[kind]

    assert logs["connects_to_redis_and_postgres"].count("blocked: connect") == 2
    assert "blocked: internet" in logs["connects_to_redis_and_postgres"]
    assert logs["reads_secrets"].count("blocked: read") == 10
    environment = [line for line in logs["reads_secrets"].splitlines() if line.startswith("environment")][0]
    assert set(json.loads(environment.split(" ", 1)[1])) <= {
        "PATH", "HOME", "LANG", "LD_LIBRARY_PATH", "PYTHONDONTWRITEBYTECODE", "PWD", "MALLOC_ARENA_MAX"}
    assert logs["writes_outside_its_tmp"].count("blocked: write") == 12
    assert "No space left on device" in logs["fills_its_tmp"] or "File too large" in logs["fills_its_tmp"]
    assert "still here after the kills" in logs["kills_its_parent"]



# --- no channel between seats: two colluding bots, the receiver must learn nothing ------------
#
# The sender (seat 0) signals "1" at every decision it gets, by whatever means the channel
# offers; the receiver (seat 1) looks at every decision it gets and reports RECEIVED when it
# sees the signal, NOTHING when it does not and BLOCKED when the sandbox refused it the means.
# Seats alternate in Deep Sea Adventure, so each look comes after a signal.

COLLUDE = """
import ctypes, errno, fcntl, mmap, os, struct, sys, time
import arena_bot
libc = ctypes.CDLL(None, use_errno=True)
SHARED = "/arena/lib/engines/readonly.py"          # read-only and the same file in every sandbox
SHARED_DIR = "/arena/lib/engines"
def say(*parts):
    print(*parts, file=sys.stderr, flush=True)
def syscall(number, *args):
    result = libc.syscall(number, *args)
    if result == -1:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result
state = {}
ROLE
def choose(observation, legal, rng):
    try:
        if SEAT == 0:
            signal()
            say("SENT")
        else:
            say("RECEIVED" if listen() else "NOTHING")
    except OSError as exc:
        say("BLOCKED", exc)
    return rng.randrange(len(legal))
def setup(start):
    global SEAT
    SEAT = start["seat"]
    try:
        prepare() if SEAT == 1 else None
    except OSError as exc:
        say("BLOCKED in setup", exc)
arena_bot.run(choose, setup)
"""

CHANNELS = {
    "flock_on_a_shared_read_only_file": """
def signal():
    state.setdefault("fd", os.open(SHARED, os.O_RDONLY))
    fcntl.flock(state["fd"], fcntl.LOCK_EX | fcntl.LOCK_NB)
def prepare():
    pass
def listen():
    fd = os.open(SHARED, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
""",
    "posix_record_lock_seen_through_getlk": """
def signal():
    state.setdefault("fd", os.open(SHARED, os.O_RDONLY))
    fcntl.fcntl(state["fd"], fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 1, 0))
def prepare():
    pass
def listen():
    fd = os.open(SHARED, os.O_RDONLY)
    try:
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 1, 0))
    finally:
        os.close(fd)
    return struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK
""",
    "open_file_description_lock": """
F_OFD_GETLK, F_OFD_SETLK = 36, 37
def signal():
    state.setdefault("fd", os.open(SHARED, os.O_RDONLY))
    fcntl.fcntl(state["fd"], F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 1, 0))
def prepare():
    pass
def listen():
    fd = os.open(SHARED, os.O_RDONLY)
    try:
        answer = fcntl.fcntl(fd, F_OFD_GETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 1, 0))
    finally:
        os.close(fd)
    return struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK
""",
    "inotify_watch_on_a_shared_file": """
def signal():
    with open(SHARED, "rb") as f:
        f.read(1)
def prepare():
    fd = libc.inotify_init1(os.O_NONBLOCK)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1")
    if libc.inotify_add_watch(fd, SHARED.encode(), 0x1 | 0x20) < 0:   # IN_ACCESS | IN_OPEN
        raise OSError(ctypes.get_errno(), "inotify_add_watch")
    state["fd"] = fd
def listen():
    if "fd" not in state:
        raise OSError(errno.EPERM, "no watch")
    try:
        return bool(os.read(state["fd"], 4096))
    except BlockingIOError:
        return False
""",
    "directory_notification_and_fanotify": """
import signal as signals
def signal():
    with open(SHARED, "rb") as f:
        f.read(1)
def prepare():
    state["seen"] = []
    signals.signal(signals.SIGIO, lambda *_: state["seen"].append(1))
    fd = os.open(SHARED_DIR, os.O_RDONLY)
    try:
        fcntl.fcntl(fd, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)
        state["dnotify"] = fd
    except OSError as exc:
        say("BLOCKED dnotify", exc)
    fan = libc.fanotify_init(0x200 | 0x2, os.O_RDONLY)     # FAN_REPORT_FID | FAN_NONBLOCK... unprivileged
    if fan >= 0 and libc.fanotify_mark(fan, 1, ctypes.c_uint64(0x1 | 0x20), -100, SHARED.encode()) == 0:
        state["fanotify"] = fan
    else:
        say("BLOCKED fanotify", os.strerror(ctypes.get_errno()))
def listen():
    if "dnotify" not in state and "fanotify" not in state:
        raise OSError(errno.EPERM, "no notification")
    seen = bool(state["seen"])
    if "fanotify" in state:
        try:
            seen = seen or bool(os.read(state["fanotify"], 4096))
        except BlockingIOError:
            pass
    return seen
""",
    "kernel_keyring_seen_through_proc_keys": """
def signal():
    # add_key("user", "dive-arena-signal", "1", 1, KEY_SPEC_USER_KEYRING), readable by anyone
    key = syscall(248, b"user", b"dive-arena-signal", b"1", 1, ctypes.c_int(-4))
    syscall(250, 5, key, 0x3f3f3f3f)                                   # KEYCTL_SETPERM
def prepare():
    pass
def listen():
    with open("/proc/keys") as f:
        keys = f.read()
    with open("/proc/key-users") as f:
        users = f.read()
    return "dive-arena-signal" in keys or len(users.splitlines()) > 1
""",
    "global_counters_of_the_machine": """
def signal():
    if "files" not in state:
        state["files"] = [os.open("/dev/null", os.O_RDONLY) for _ in range(20)]
        state["memory"] = bytearray(b"\\x01") * (32 * 1024 * 1024)
    end = time.process_time() + 0.02
    while time.process_time() < end:
        pass
class sysinfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3), ("totalram", ctypes.c_ulong),
                ("freeram", ctypes.c_ulong), ("pad", ctypes.c_char * 128)]
def prepare():
    pass
def listen():
    seen = []
    for path in ("/proc/loadavg", "/proc/stat", "/proc/uptime", "/proc/meminfo", "/proc/vmstat",
                 "/proc/sys/fs/file-nr", "/proc/pressure/cpu", "/proc/interrupts", "/proc/schedstat",
                 "/proc/buddyinfo", "/proc/zoneinfo", "/proc/softirqs", "/proc/locks", "/proc/swaps"):
        try:
            with open(path) as f:
                if f.read().strip():
                    seen.append(path)
        except OSError:
            pass
    info = sysinfo()
    if libc.sysinfo(ctypes.byref(info)) == 0:
        seen.append("sysinfo()")
    if seen:
        say("readable:", seen)
    return bool(seen)
""",
    "page_cache_residency": """
TARGET = "/arena/lib/engines/dive/__init__.py"
def signal():
    with open(TARGET, "rb") as f:
        f.read()
def prepare():
    pass
def listen():
    seen = []
    libc.mmap.restype = ctypes.c_void_p
    with open(TARGET, "rb") as f:
        vector = (ctypes.c_ubyte * 1)()
        pointer = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, f.fileno(), 0)
        if libc.mincore(ctypes.c_void_p(pointer), 4096, vector) == 0:
            seen.append("mincore")
        buf = ctypes.create_string_buffer(1)
        iov = (ctypes.c_void_p * 2)(ctypes.cast(buf, ctypes.c_void_p), 1)
        if libc.syscall(327, f.fileno(), iov, 1, ctypes.c_long(0), ctypes.c_long(0), 0x8) >= 0:  # preadv2 RWF_NOWAIT
            seen.append("preadv2(RWF_NOWAIT)")
        if libc.syscall(451, f.fileno(), ctypes.byref((ctypes.c_uint64 * 2)(0, 4096)),
                        ctypes.byref((ctypes.c_uint64 * 5)()), 0) == 0:                   # cachestat
            seen.append("cachestat")
        if libc.madvise(ctypes.c_void_p(pointer), 4096, 25) == 0 or ctypes.get_errno() != 1:  # MADV_COLLAPSE
            seen.append(f"madvise(MADV_COLLAPSE) errno {ctypes.get_errno()}")
    if seen:
        say("residency readable through", seen)
    return bool(seen)
""",
    "ipc_sockets_and_queues_by_fixed_names": """
import socket
def signal():
    if "socket" not in state:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind("\\0dive-arena-signal")
        server.listen(1)
        state["socket"] = server
    libc.shmget(0x5eed, 4096, 0o1666)                 # IPC_CREAT | 0666
    libc.mq_open(b"/dive-arena-signal", os.O_CREAT | os.O_RDWR, 0o666, None)
def prepare():
    pass
def listen():
    seen = []
    try:
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect("\\0dive-arena-signal")
        seen.append("abstract socket")
    except OSError:
        pass
    if libc.shmget(0x5eed, 0, 0) >= 0:
        seen.append("SysV shm")
    if libc.mq_open(b"/dive-arena-signal", os.O_RDONLY) >= 0:
        seen.append("POSIX mqueue")
    for name in os.listdir("/tmp") + os.listdir("/dev/shm") if os.path.isdir("/dev/shm") else os.listdir("/tmp"):
        seen.append("file " + name)
    if seen:
        say("seen:", seen)
    return bool(seen)
""",
}


@pytest.mark.parametrize("channel", sorted(CHANNELS))
def test_two_colluding_bots_cannot_pass_a_bit_between_their_seats(channel, tmp_path):
    code = COLLUDE.replace("ROLE", CHANNELS[channel])
    sender = write_bot(tmp_path, "sender", code)
    receiver = write_bot(tmp_path, "receiver", code)

    outcome = run_match(GAME, [SeatSpec(sender), SeatSpec(receiver)], seed=11, limits=TEST_LIMITS)

    sent, heard = outcome.logs
    assert outcome.faults == [], (outcome.faults, sent[-1500:], heard[-1500:])
    assert "SENT" in sent or "BLOCKED" in sent, sent[-1500:]
    assert "RECEIVED" not in heard, heard[-1500:]
    assert "NOTHING" in heard or "BLOCKED" in heard, heard[-1500:]
    assert outcome.clean and leftovers(outcome) == {}


KEY_PLANTER = """
import ctypes, sys, arena_bot
libc = ctypes.CDLL(None, use_errno=True)
def choose(observation, legal, rng):
    for keyring, name in ((-4, "user"), (-5, "user session")):    # KEY_SPEC_USER_KEYRING, ..._SESSION_
        key = libc.syscall(248, b"user", b"dive-arena-left-behind", b"1", 1, ctypes.c_int(keyring))
        print("planted in", name if key >= 0 else f"nothing: {ctypes.get_errno()}", file=sys.stderr, flush=True)
    return rng.randrange(len(legal))
arena_bot.run(choose)
"""

KEY_FINDER = """
import ctypes, sys, arena_bot
libc = ctypes.CDLL(None, use_errno=True)
def choose(observation, legal, rng):
    for keyring in (-4, -5):
        # KEYCTL_SEARCH(keyring, "user", description, 0)
        if libc.syscall(250, 10, ctypes.c_int(keyring), b"user", b"dive-arena-left-behind", 0) >= 0:
            print("FOUND a key of an earlier match", file=sys.stderr, flush=True)
    try:
        if "dive-arena-left-behind" in open("/proc/keys").read():
            print("FOUND it in /proc/keys", file=sys.stderr, flush=True)
    except OSError:
        pass
    print("LOOKED", file=sys.stderr, flush=True)
    return rng.randrange(len(legal))
arena_bot.run(choose)
"""


def test_a_bot_finds_no_key_left_by_an_earlier_match_on_its_slot(tmp_path):
    planter = write_bot(tmp_path, "planter", KEY_PLANTER)
    finder = write_bot(tmp_path, "finder", KEY_FINDER)
    for _ in range(3):   # slots are shared by every test run on the machine: aim for the same one
        first = run_match(GAME, [SeatSpec(planter), SeatSpec("builtin:random")], seed=2, limits=TEST_LIMITS)
        second = run_match(GAME, [SeatSpec(finder), SeatSpec("builtin:random")], seed=2, limits=TEST_LIMITS)
        if first.uids[0] == second.uids[0]:
            break
    else:
        pytest.skip("could not get the same slot twice in a row (a busy machine)")
    assert first.faults == [] and second.faults == [], (first.faults, second.faults)
    assert "planted in nothing" in first.logs[0]
    assert "LOOKED" in second.logs[0] and "FOUND" not in second.logs[0], second.logs[0]


# --- a bot must not slow the other seats ------------------------------------------------------

INNOCENT = """
import time, arena_bot
def choose(observation, legal, rng):
    end = time.process_time() + 0.015          # the same 15 ms of thinking at every decision
    while time.process_time() < end:
        pass
    return rng.randrange(len(legal))
arena_bot.run(choose)
"""

CPU_BURNING_OPPONENT = """
import os, arena_bot
children = []
def choose(observation, legal, rng):
    while len(children) < 4:                   # then answers at once, every time
        pid = os.fork()
        if pid == 0:
            while True:
                pass
        children.append(pid)
    return rng.randrange(len(legal))
arena_bot.run(choose)
"""


def test_an_innocent_bots_decisions_take_as_long_against_a_cpu_burning_opponent_as_against_a_quiet_one(
        tmp_path, random_bot_path):
    innocent = write_bot(tmp_path, "innocent", INNOCENT)
    burner = write_bot(tmp_path, "burner", CPU_BURNING_OPPONENT)
    limits = type(TEST_LIMITS)(**{**TEST_LIMITS.__dict__, "bank_ms": 10_000})
    means = {"quiet": [], "burning": []}
    # Interleaved, so that the machine's own load (other test runs) weighs on both alike; the
    # least of each kind is the run the least disturbed by it.
    for opponent in ("quiet", "burning") * 2:
        began = time.monotonic()
        outcome = run_match(GAME, [SeatSpec(innocent), SeatSpec(burner if opponent == "burning" else random_bot_path)],
                            seed=7, limits=limits)
        wall_ms = (time.monotonic() - began) * 1000
        assert outcome.faults == [], outcome.faults
        assert outcome.clean and leftovers(outcome) == {}
        means[opponent].append(outcome.timing[0]["mean_ms"])
        burner_row = outcome.timing[1]
        if opponent == "burning" and burner_row["clock"] == "cpu":
            # Frozen between its decisions, the burner's children ran only on its own time (which
            # it was charged for): its sandbox's CPU time is its decisions' plus its start-up.
            assert burner_row["sandbox_cpu_ms"] < burner_row["cpu_total_ms"] + 500, (burner_row, wall_ms)
    assert min(means["burning"]) < 2.0 * min(means["quiet"]), means


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_a_cpu_burning_bots_children_run_only_on_its_own_charged_time(version, monkeypatch, tmp_path,
                                                                       random_bot_path):
    from workers.sandbox.cgroups import FREEZER_ENV

    monkeypatch.setenv(FREEZER_ENV, version)
    burner = write_bot(tmp_path, "burner", CPU_BURNING_OPPONENT)
    # An opponent that takes 100 ms (of sleep) per decision: unfrozen, the burner's children
    # would have well over a second of the machine to themselves.
    sleeper = write_bot(tmp_path, "sleeper", """
        import time, arena_bot
        def choose(observation, legal, rng):
            time.sleep(0.1)
            return rng.randrange(len(legal))
        arena_bot.run(choose)
    """)
    # The burner's children burn its own charged time while the runner reads its (instant) reply;
    # on a loaded machine the runner reads later and they burn more (a loaded suite run saw 1.7 s in one
    # decision). What is checked is where CPU time goes, not how much: a bank load cannot use up.
    limits = type(TEST_LIMITS)(**{**TEST_LIMITS.__dict__, "bank_ms": 60_000})
    began = time.monotonic()
    outcome = run_match(GAME, [SeatSpec(sleeper), SeatSpec(burner)], seed=5, limits=limits)
    wall_ms = (time.monotonic() - began) * 1000
    row = outcome.timing[1]
    if row["clock"] != "cpu":
        pytest.skip(f"no {version} freezer with a CPU clock for the sandbox here")
    assert outcome.faults == [] and outcome.clean and leftovers(outcome) == {}
    assert outcome.timing[0]["decisions"] * 100 > 1000         # the burner had the time to burn
    assert row["sandbox_cpu_ms"] < row["cpu_total_ms"] + 500, (row, wall_ms)
