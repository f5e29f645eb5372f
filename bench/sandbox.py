"""Sandbox speed: bot start time, decision round trip, sandboxed matches vs in-process.

    .venv/bin/python bench/sandbox.py [--starts N] [--round-trips N] [--seconds S] [--game ID]

Prints:
  * start: spawn of a sandboxed SDK bot to its ``ready`` (ms, p50/p95; its slot's root filled
    by the slot's first sandbox and reused), the bare interpreter (``python -I -S`` inside bwrap,
    exits at once) for reference;
  * round trip: one ~300-byte ``act`` line to the sandboxed bot and its reply (µs, p50/p99),
    the same as the runner does it (CPU clock, thaw, line, reply, freeze until every task has
    stopped, CPU clock; p50 of each step), and the same with a plain unsandboxed child process;
  * matches: complete matches with the ``random`` bot in every seat, sandboxed (SDK bot
    in bubblewrap) and in-process (``builtin:random`` through the same runner, the baseline);
    per wall second and per CPU second (this process plus every child, i.e. per core),
    and the ratio sandboxed / (baseline + start-up).
  * innocent seat: the mean decision time of a bot doing 20 ms of work per decision against a
    quiet opponent and against one whose children burn every core (answering at once), with the
    freezer and CPU quota, and without them for comparison; the slowdown is the ratio.
  * the Python runtime: its size, its build (once per worker), the fill of a slot's root (on the
    slot's first use), taking it again for the slot's next sandbox (a fresh /bot tmpfs) and the
    memory a worker holds.
Goals (issues 5, 9 and 26): start <= 30 ms p50 with the seccomp filter and the freezer, round trip
<= 150 µs p50, innocent-seat slowdown <= 1.2x, and a sandboxed 4-player Deep Sea Adventure
match within 3x of the in-process baseline plus start-up; at most 256 MiB held for the Python runtime.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import get_game, list_games  # noqa: E402
from workers import protocol, sandbox  # noqa: E402
from workers.runner import Limits, SeatSpec, run_match  # noqa: E402
from workers.sandbox import SandboxedProcess, SandboxLimits, SlotCgroups, check_available  # noqa: E402
from workers.sandbox.image import RuntimeImage  # noqa: E402
from workers.sandbox.rootfs import SlotRoot, can_mount  # noqa: E402
from workers.sandbox.runtimes import PYTHON  # noqa: E402
from workers.sandbox.staging import MAX_BOT_BYTES  # noqa: E402

RANDOM_BOT = "import arena_bot\narena_bot.run(lambda o, l, r: r.randrange(len(l)))\n"
BARE_BOT = "pass\n"
ECHO_BOT = """
import sys
out = sys.stdout
for line in sys.stdin:
    out.write('{"index":0}\\n' if line.startswith('{"type":"act"') else '{"type":"ready"}\\n')
    out.flush()
"""
LIMITS = Limits(move_ms=2000, bank_ms=10000, init_ms=20000)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def read_line(process, buffer: protocol.LineBuffer) -> bytes:
    while True:
        line = buffer.pop_line()
        if line is not None:
            return line
        select.select([process.stdout_fd], [], [], 10)
        try:
            block = os.read(process.stdout_fd, 65536)
        except BlockingIOError:
            continue
        if not block:
            process.process.wait()
            try:
                log = os.read(process.stderr_fd, 65536).decode(errors="replace")
            except (BlockingIOError, AttributeError):
                log = ""
            raise RuntimeError(f"bot exited: {process.exit_description()}\n{log}")
        buffer.feed(block)


def bench_start(bot: Path, bare: Path, count: int, cgroups: bool = True) -> tuple[list[float], list[float]]:
    ready, exits = [], []
    start = protocol.start_message("deep_sea_adventure", 0, 2, {}, LIMITS.for_bot(), 1)
    original = SlotCgroups.__init__
    if not cgroups:
        def no_cgroups(self, slot, **options):
            original(self, slot, **options)
            self.dirs = {}
        SlotCgroups.__init__ = no_cgroups
    try:
        return _bench_start(bot, bare, count, start, ready, exits)
    finally:
        SlotCgroups.__init__ = original


def _bench_start(bot, bare, count, start, ready, exits):
    for _ in range(count):
        began = time.perf_counter()
        process = SandboxedProcess(bot, SandboxLimits())
        process.write(start)
        read_line(process, protocol.LineBuffer())
        ready.append((time.perf_counter() - began) * 1000)
        process.close()
        began = time.perf_counter()
        process = SandboxedProcess(bare, SandboxLimits())
        process.process.wait()
        exits.append((time.perf_counter() - began) * 1000)
        process.close()
    return ready, exits


def bench_start_costs(bot: Path, count: int) -> dict[str, float]:
    """Start-up p50 (ms) with every protection and without each one in turn, interleaved so that
    the machine's load weighs on all alike: what the seccomp filter, the /proc masks and the
    v2 freezer's cgroup each cost."""
    from workers.sandbox import process as sandbox_process

    full_argv, full_masks, full_init = (sandbox_process.SandboxedProcess._bwrap_argv, sandbox_process._proc_masks,
                                        SlotCgroups.__init__)

    def without_seccomp(self, *args):
        argv = full_argv(self, *args)
        at = argv.index("--seccomp")
        return argv[:at] + argv[at + 2:]

    def without_freezer(self, slot, **options):
        full_init(self, slot, **options)
        self.dirs.pop("unified", None)
        self.dirs.pop("freezer", None)

    start = protocol.start_message("deep_sea_adventure", 0, 2, {}, LIMITS.for_bot(), 1)
    variants = {"every protection": {}, "without the seccomp filter": {"argv": without_seccomp},
                "without the /proc masks": {"masks": lambda sources=None: []}, "without the freezer": {"init": without_freezer}}
    times: dict[str, list[float]] = {name: [] for name in variants}
    try:
        for _ in range(count):
            for name, change in variants.items():
                sandbox_process.SandboxedProcess._bwrap_argv = change.get("argv", full_argv)
                sandbox_process._proc_masks = change.get("masks", full_masks)
                SlotCgroups.__init__ = change.get("init", full_init)
                began = time.perf_counter()
                process = SandboxedProcess(bot, SandboxLimits())
                process.write(start)
                read_line(process, protocol.LineBuffer())
                times[name].append((time.perf_counter() - began) * 1000)
                process.close()
    finally:
        sandbox_process.SandboxedProcess._bwrap_argv = full_argv
        sandbox_process._proc_masks = full_masks
        SlotCgroups.__init__ = full_init
    return {name: pct(values, 50) for name, values in times.items()}


def bench_runtime(count: int) -> dict[str, float]:
    """The Python runtime each slot gets a copy of: its size, the time to build it once per worker,
    the time to fill a slot's root with it (the slot's first sandbox), to take the root again for
    the slot's next sandbox (a fresh /bot tmpfs) and give it back, and to unmount it."""
    began = time.perf_counter()
    files = PYTHON.collect()
    image = RuntimeImage(files)
    built_ms = (time.perf_counter() - began) * 1000
    fills, reuses, drops = [], [], []
    with tempfile.TemporaryDirectory(dir=sandbox.runtime_dir()) as folder:
        root = SlotRoot(Path(folder), image, MAX_BOT_BYTES)
        for _ in range(count):
            began = time.perf_counter()
            root.take()
            fills.append((time.perf_counter() - began) * 1000)
            root.release()
            began = time.perf_counter()
            root.take()
            root.release()
            reuses.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            root.drop()
            drops.append((time.perf_counter() - began) * 1000)
    image.close()
    return {"mib": image.size / 2**20, "files": len(files.files), "build_ms": built_ms,
            "fill_ms": pct(fills, 50), "reuse_ms": pct(reuses, 50), "drop_ms": pct(drops, 50)}


def _act_line() -> bytes:
    game = get_game("deep_sea_adventure")
    state = game.new_state(num_players=4, seed=3)
    seat = state.to_act()[0]
    observation = {"me": seat, "air": 25, "decision": "direction", "divers": [
        {"position": 3, "direction": "down", "carried": [1], "returned": False} for _ in range(4)]}
    return protocol.act_message(12, observation, state.legal_actions(seat), 2100.0)


STEPS: dict[str, list[float]] = {}   # the runner's round trip step by step (µs), from the last as_runner run


def bench_round_trip(echo: Path, count: int, sandboxed: bool, as_runner: bool = False) -> list[float]:
    """Round trips of one act line (µs); ``as_runner``: as the match loop makes them when it charges
    CPU (clock read while frozen, thaw, line, reply, freeze until every task stopped, clock), each
    step's time kept in ``STEPS``."""
    message = _act_line()
    if sandboxed:
        process = SandboxedProcess(echo, SandboxLimits())
    else:
        process = _PlainProcess(echo)
    buffer = protocol.LineBuffer()
    process.write(protocol.start_message("deep_sea_adventure", 0, 2, {}, LIMITS.for_bot(), 1))
    read_line(process, buffer)
    times = []
    poller = select.poll()
    poller.register(process.stdout_fd, select.POLLIN)
    steps: dict[str, list[float]] = {name: [] for name in ("clock", "thaw", "line out", "reply", "freeze, settled",
                                                          "clock again")}
    clock = time.perf_counter
    for _ in range(count):
        marks = [clock()]
        if as_runner:
            process.cpu_ns()
            marks.append(clock())
            process.thaw()
            marks.append(clock())
        process.write(message)
        marks.append(clock())
        while True:
            poller.poll(10_000)
            buffer.feed(os.read(process.stdout_fd, 65536))
            line = buffer.pop_line()
            if line is not None:
                break
        marks.append(clock())
        if as_runner:
            process.freeze_and_settle()
            marks.append(clock())
            process.cpu_ns()
            marks.append(clock())
            for name, start, end in zip(steps, marks, marks[1:]):
                steps[name].append((end - start) * 1e6)
        times.append((marks[-1] - marks[0]) * 1e6)
    if as_runner:
        STEPS.clear()
        STEPS.update(steps)
    process.close()
    return times


INNOCENT_BOT = """
import time, arena_bot
def choose(observation, legal, rng):
    end = time.process_time() + 0.02
    while time.process_time() < end:
        pass
    return rng.randrange(len(legal))
arena_bot.run(choose)
"""
BURNING_BOT = """
import os, arena_bot
children = []
def choose(observation, legal, rng):
    while len(children) < 2 * (os.cpu_count() or 2):
        pid = os.fork()
        if pid == 0:
            while True:
                pass
        children.append(pid)
    return rng.randrange(len(legal))
arena_bot.run(choose)
"""


def bench_innocent_seat(folder: Path, rounds: int, protected: bool) -> dict:
    """Mean decision ms of the innocent seat against a quiet and a CPU-burning opponent."""
    innocent, burner, quiet = folder / "innocent.py", folder / "burner.py", folder / "quiet.py"
    innocent.write_text(INNOCENT_BOT)
    burner.write_text(BURNING_BOT)
    quiet.write_text(RANDOM_BOT)
    saved = SlotCgroups.freeze, SlotCgroups.prepare
    if not protected:
        def no_quota(self, limits):
            self.dirs.pop("cpu", None)
            saved[1](self, limits)
        SlotCgroups.freeze, SlotCgroups.prepare = (lambda self: False), no_quota
    means = {"quiet": [], "burning": []}
    try:
        for _ in range(rounds):
            for kind, opponent in (("quiet", quiet), ("burning", burner)):
                outcome = run_match("deep_sea_adventure", [SeatSpec(str(innocent)), SeatSpec(str(opponent))],
                                    seed=7, limits=LIMITS)
                assert not outcome.faults, outcome.faults
                means[kind].append(outcome.timing[0]["mean_ms"])
    finally:
        SlotCgroups.freeze, SlotCgroups.prepare = saved
    quiet_ms, burning_ms = statistics.median(means["quiet"]), statistics.median(means["burning"])
    return {"quiet_ms": quiet_ms, "burning_ms": burning_ms, "slowdown": burning_ms / quiet_ms}


class _PlainProcess:
    """The same bot as a plain child process (no sandbox): the pipe round trip's floor."""

    def __init__(self, path: Path):
        prefix = Path(sys.base_prefix)
        exe = prefix / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
        self.process = subprocess.Popen([str(exe), "-I", "-S", str(path)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, bufsize=0)
        self.stdout_fd = self.process.stdout.fileno()
        os.set_blocking(self.stdout_fd, False)

    def write(self, data: bytes) -> None:
        self.process.stdin.write(data)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def bench_matches(game_id: str, players: int, bot: Path, seconds: float, sandboxed: bool) -> dict:
    spec = SeatSpec(str(bot)) if sandboxed else SeatSpec("builtin:random")
    count = decisions = 0
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    while time.perf_counter() - wall0 < seconds or count < 3:
        outcome = run_match(game_id, [spec] * players, seed=count, limits=LIMITS)
        assert not outcome.faults, outcome.faults
        decisions += sum(row["decisions"] for row in outcome.timing)
        count += 1
    wall, cpu = time.perf_counter() - wall0, cpu_seconds() - cpu0
    return {"matches": count, "per_s": count / wall, "per_cpu_s": count / cpu, "ms_per_match": wall / count * 1000,
            "decisions_per_match": decisions / count}


def bench_engine_only(game_id: str, players: int, seconds: float) -> float:
    """Matches per second of the bare engine loop (no runner, no replay): the floor of the floor."""
    import random as _random
    game = get_game(game_id)
    count, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds or count < 3:
        state, chooser = game.new_state(num_players=players, seed=count), _random.Random(count)
        while not state.is_terminal():
            state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
        count += 1
    return count / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=30)
    parser.add_argument("--round-trips", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=2.0, help="per game and mode")
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("--innocent-rounds", type=int, default=3, help="matches per opponent kind (0: skip)")
    args = parser.parse_args()
    print(f"sandbox: {check_available()}; {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        bot, bare, echo = Path(tmp) / "random.py", Path(tmp) / "bare.py", Path(tmp) / "echo.py"
        bot.write_text(RANDOM_BOT)
        bare.write_text(BARE_BOT)
        echo.write_text(ECHO_BOT)

        if can_mount():
            rt = bench_runtime(max(5, args.starts // 3))
            print(f"python runtime: {rt['mib']:.1f} MiB in {rt['files']} files (built without the runtime "
                  f"directory's cache in {rt['build_ms']:.0f} ms); a slot's root filled in p50 "
                  f"{rt['fill_ms']:.1f} ms (its first sandbox), taken again and given back in "
                  f"{rt['reuse_ms']:.2f} ms (each later sandbox), unmounted in {rt['drop_ms']:.1f} ms")
            print(f"  memory held for it: {rt['mib']:.1f} MiB per worker (one memfd) + {rt['mib']:.1f} MiB per slot "
                  f"used (its root): {2 * rt['mib']:.1f} MiB for one seat, "
                  f"{5 * rt['mib']:.1f} MiB for a 4-seat match")
        ready, exits = bench_start(bot, bare, args.starts)
        print(f"start to ready (SDK bot)      p50 {pct(ready, 50):6.1f} ms   p95 {pct(ready, 95):6.1f} ms   (n={len(ready)})")
        print(f"bare python -I -S in bwrap    p50 {pct(exits, 50):6.1f} ms   p95 {pct(exits, 95):6.1f} ms")
        plain_ready, plain_exits = bench_start(bot, bare, args.starts, cgroups=False)
        fast_joins = "on" if sandbox.favor_cgroup_migrations() else "off (joins wait for an RCU grace period)"
        print(f"  the same without cgroups:   p50 {pct(plain_ready, 50):6.1f} ms / {pct(plain_exits, 50):.1f} ms "
              f"(favordynmods: {fast_joins})")
        costs = bench_start_costs(bot, args.starts)
        print("  start p50, interleaved: " + ", ".join(f"{name} {ms:.1f} ms" for name, ms in costs.items()))
        print(f"  act line: {len(_act_line())} bytes")
        for label, sandboxed, as_runner in (("round trip, sandboxed", True, False),
                                            ("  + thaw, freeze, CPU clock", True, True),
                                            ("round trip, plain child", False, False)):
            trips = bench_round_trip(echo, args.round_trips, sandboxed, as_runner)
            print(f"{label:<29} p50 {pct(trips, 50):6.1f} µs   p99 {pct(trips, 99):6.1f} µs   (n={len(trips)})")
            if as_runner:
                print("    p50 by step: " + ", ".join(f"{name} {pct(values, 50):.1f}" for name, values in STEPS.items()))
        if args.innocent_rounds:
            for protected in (True, False):
                seat = bench_innocent_seat(Path(tmp), args.innocent_rounds, protected)
                label = "innocent seat, protected" if protected else "  unprotected (no freezer/quota)"
                print(f"{label:<33} quiet {seat['quiet_ms']:6.1f} ms   burning opponent {seat['burning_ms']:6.1f} ms"
                      f"   slowdown {seat['slowdown']:.2f}x   (median of {args.innocent_rounds} matches each)")

        start_p50 = pct(ready, 50)
        games = args.game or [game.id for game in list_games()]
        print(f"\n{'game':<20}{'seats':>6}{'decisions':>10}{'sandboxed/s':>13}{'per CPU s':>11}"
              f"{'in-process/s':>14}{'per CPU s':>11}{'ms sbx':>9}{'ms base':>9}{'ratio*':>8}{'engine/s':>10}")
        results = {}
        for game_id in games:
            game = get_game(game_id)
            players = 4 if game.min_players <= 4 <= game.max_players else max(2, game.min_players)
            sbx = bench_matches(game_id, players, bot, args.seconds, sandboxed=True)
            base = bench_matches(game_id, players, bot, args.seconds, sandboxed=False)
            engine = bench_engine_only(game_id, players, args.seconds / 2)
            ratio = sbx["ms_per_match"] / (base["ms_per_match"] + start_p50)
            results[game_id] = {"sandboxed": sbx, "in_process": base, "ratio": ratio, "engine_per_s": engine}
            print(f"{game_id:<20}{players:>6}{sbx['decisions_per_match']:>10.0f}{sbx['per_s']:>13.1f}"
                  f"{sbx['per_cpu_s']:>11.1f}{base['per_s']:>14.1f}{base['per_cpu_s']:>11.1f}"
                  f"{sbx['ms_per_match']:>9.1f}{base['ms_per_match']:>9.1f}{ratio:>8.2f}{engine:>10.1f}")
        print("* ratio = sandboxed ms per match / (in-process ms per match + start p50); in-process runs the")
        print("  same runner with builtin:random seats and records the same replay; engine/s is the bare")
        print("  engine loop (no runner, no replay)")
        if os.environ.get("BENCH_JSON"):
            print(json.dumps({"start_ms_p50": start_p50, "games": results}))


if __name__ == "__main__":
    main()
