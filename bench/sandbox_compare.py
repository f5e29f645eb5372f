"""Two checkouts' sandboxes, interleaved under the same load: start-up and whole matches.

    .venv/bin/python bench/sandbox_compare.py OLD_TREE NEW_TREE [--rounds 3] [--starts 20] [--seconds 6]

For each round, each tree in turn (a child process with that tree first on ``sys.path``): the p50
and p95 of ``bench.sandbox.bench_start`` (spawn of a sandboxed SDK bot to its ``ready``), then
4-seat Deep Sea Adventure matches with ``random`` SDK bots for ``--seconds`` (ms per match,
matches per CPU second), after the runtime's image is loaded where the tree has one. Made for
issue 26 (the tree before it, e.g. ``git worktree add /tmp/old 9b6abfd``, against this one); on a
loaded machine only interleaved figures compare.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

CHILD = r"""
import statistics, sys, tempfile
from pathlib import Path
tree, starts, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
sys.path[:0] = [tree, tree + "/bench"]
import sandbox as b
try:
    from workers.sandbox.image import image_for
    from workers.sandbox.runtimes import PYTHON
    image_for(PYTHON)
except ImportError:
    pass
folder = Path(tempfile.mkdtemp())
bot, bare = folder / "random.py", folder / "bare.py"
bot.write_text(b.RANDOM_BOT)
bare.write_text(b.BARE_BOT)
b.bench_start(bot, bare, 2)
ready, _ = b.bench_start(bot, bare, starts)
match = b.bench_matches("deep_sea_adventure", 4, bot, seconds, sandboxed=True)
print(f"{tree}: start p50 {b.pct(ready, 50):.1f} ms p95 {b.pct(ready, 95):.1f} ms; "
      f"4-seat match {match['ms_per_match']:.0f} ms, {match['per_cpu_s']:.2f} per CPU s")
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
