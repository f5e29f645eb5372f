"""Hostile bots: each one is contained, faulted with the right kind, and leaves nothing behind.

Every match pits the hostile bot (seat 0) against a well-behaved sandboxed bot (seat 1)
in a two-player Deep Sea Adventure. Escape attempts report what they tried on stderr
and then crash on purpose, so the log (kept in the outcome) proves each attempt failed.
"""

from __future__ import annotations

import hashlib
import json
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

