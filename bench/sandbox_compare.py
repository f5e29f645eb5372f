"""Two checkouts' sandboxes, interleaved under the same load: start-up and whole matches.

    .venv/bin/python bench/sandbox_compare.py OLD_TREE NEW_TREE [--rounds 3] [--starts 20] [--seconds 6]

For each round, each tree in turn (a child process with that tree first on ``sys.path``): the p50
and p95 of the spawn of a sandboxed SDK bot to its ``ready``, with the CPU it took (the sandbox's
cgroup clock, and the runner's own) and the runner's CPU from the ready to the slot given back
(the bot's close, and a spare root's fill in trees that refill one after each sandbox), then
4-seat Deep Sea Adventure matches with ``random`` SDK bots for ``--seconds`` (ms per match,
matches per CPU second), after the runtime's image is loaded where the tree has one. CPU figures
compare under any load; wall times only when the load is the same. Made for
issue 26 (the tree before it, e.g. ``git worktree add /tmp/old 9b6abfd``, against this one); on a
loaded machine only interleaved figures compare.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

CHILD = r"""
import os, resource, statistics, sys, tempfile, time
from pathlib import Path
tree, starts, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
sys.path[:0] = [tree, tree + "/bench"]
import sandbox as b
from workers import protocol
from workers.sandbox import SandboxedProcess, SandboxLimits
try:
    from workers.sandbox.image import image_for
    from workers.sandbox.runtimes import PYTHON
    image_for(PYTHON)
except ImportError:
    pass
try:
    from workers.sandbox.slots import wait_for_refills     # trees that refill a spare root after close
except ImportError:
    def wait_for_refills():
        pass
folder = Path(tempfile.mkdtemp())
bot = folder / "random.py"
bot.write_text(b.RANDOM_BOT)
start = protocol.start_message("deep_sea_adventure", 0, 2, {}, b.LIMITS.for_bot(), 1)

def cpu_ms():
    own = resource.getrusage(resource.RUSAGE_SELF)
    return (own.ru_utime + own.ru_stime) * 1000

walls, sandbox_cpu, runner_cpu, after_cpu = [], [], [], []
for i in range(starts + 2):
    wait_for_refills()
    mine, began = cpu_ms(), time.perf_counter()
    process = SandboxedProcess(bot, SandboxLimits())
    process.write(start)
    b.read_line(process, protocol.LineBuffer())
    wall, ready_cpu = (time.perf_counter() - began) * 1000, cpu_ms()
    used = (process.cpu_ns() or 0) / 1e6
    process.close()
    wait_for_refills()        # the spare's fill (in a thread of this process) is counted in after_cpu
    if i >= 2:                # the first ones fill the slot's root
        walls.append(wall)
        sandbox_cpu.append(used)
        runner_cpu.append(ready_cpu - mine)
        after_cpu.append(cpu_ms() - ready_cpu)
match = b.bench_matches("deep_sea_adventure", 4, bot, seconds, sandboxed=True)
m = statistics.median
print(f"{tree}: start p50 {b.pct(walls, 50):.1f} ms p95 {b.pct(walls, 95):.1f} ms; CPU p50 to ready: the sandbox's "
      f"{m(sandbox_cpu):.1f} ms, the runner's {m(runner_cpu):.1f} ms; the runner's CPU from ready to the slot "
      f"given back {m(after_cpu):.1f} ms; 4-seat match {match['ms_per_match']:.0f} ms, {match['per_cpu_s']:.2f} per CPU s")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    for tree in (args.old, args.new):
        if not os.path.isfile(os.path.join(tree, "bench", "sandbox.py")):
            parser.error(f"{tree} is not a checkout with bench/sandbox.py")
    print(f"load before: {os.getloadavg()[0]:.2f}")
    for round_ in range(args.rounds):
        for tree in (args.old, args.new):
            subprocess.run([sys.executable, "-c", CHILD, tree, str(args.starts), str(args.seconds)], check=True)
        print(f"round {round_ + 1} done, load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
