"""Bots in six languages: start-to-ready per runtime, starter-kit builds, a local C++ vs Python match.

    .venv/bin/python bench/languages.py [--starts N] [--builds N] [--matches N] [--language L ...]

Prints:
  * start: spawn of a sandboxed Deep Sea Adventure starter kit to its ``ready`` (ms, p50/p95, and
    the sandbox's CPU until then, p50: its cgroup clock, which the machine's load hardly moves), per
    language, and the same for the sandbox's own start: a static C program that answers ``ready``
    at once, through the same launcher (the cost of bubblewrap, the slot, its root, the bot's tmpfs and the
    launcher, without any language's runtime). "beyond" is a language's p50 minus that one.
  * build: the starter kit of each compiled language built in the sandbox (s, each run from
    scratch: no cache), with the artifact's size;
  * match: ``python -m workers.play deep_sea_adventure A B --seed S`` as a whole command (wall s,
    median over seeds), C++ kit vs Python kit against Python kit vs Python kit (the C++ build
    cached, as a bot author's second run), and the ratio.
Goals (issue 22): beyond the sandbox's start, C++, Rust and Go <= 10 ms, JavaScript <= 60 ms,
Java <= 150 ms (p50); the C++ kit builds in <= 5 s; the C++ vs Python match <= 1.2x Python vs Python.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workers import protocol  # noqa: E402
from workers.build import build_bot  # noqa: E402
from workers.sandbox import RUNTIMES, SandboxedProcess, SandboxLimits  # noqa: E402
from workers.sandbox.image import image_for  # noqa: E402

KITS = ROOT / "starter_kits"
LANGUAGES = ("python", "cpp", "rust", "go", "javascript", "java")
READY_C = r"""
#include <stdio.h>
int main(void) { char line[4096]; if (fgets(line, sizeof line, stdin)) { puts("{\"type\":\"ready\"}"); fflush(stdout); }
                 while (fgets(line, sizeof line, stdin)) {} return 0; }
"""


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def start_message() -> bytes:
    return protocol.start_message("deep_sea_adventure", 0, 2, {}, {"move_ms": 100, "bank_ms": 2000,
                                                                   "init_ms": 3000, "memory_mb": 256}, 7)


CPU_TO_READY: dict[str, list[float]] = {}     # language -> the sandbox's CPU ms to its ready, per start


def time_to_ready(path: Path, language: str, count: int) -> list[float]:
    """Spawn to ``ready`` of the bot at ``path`` (ms), ``count`` times (after one warm-up); the
    sandbox's CPU to its ready (its cgroup clock) goes to ``CPU_TO_READY``."""
    runtime = RUNTIMES[language]
    image_for(runtime)
    times = []
    cpu = CPU_TO_READY.setdefault(language, [])
    for i in range(count + 1):
        started = time.perf_counter()
        process = SandboxedProcess(path, SandboxLimits(), runtime=runtime)
        try:
            process.write(start_message())
            buffer = b""
            deadline = time.monotonic() + 30
            while b"\n" not in buffer and time.monotonic() < deadline:
                import select
                ready, _, _ = select.select([process.stdout_fd], [], [], 1)
                if ready:
                    block = os.read(process.stdout_fd, 65536)
                    if not block:
                        break
                    buffer += block
            elapsed = (time.perf_counter() - started) * 1000
            used = (process.cpu_ns() or 0) / 1e6
            if b'"ready"' not in buffer:
                raise RuntimeError(f"{language}: no ready from {path}")
        finally:
            process.close()
        if i:                       # the first start may fill a slot's root: not counted
            times.append(elapsed)
            cpu.append(used)
    return times


def built(language: str, folder: Path) -> tuple[Path, float, int]:
    """The kit of ``language`` ready to run (built when compiled): (path, build seconds, artifact bytes)."""
    kit = KITS / language / "deep_sea_adventure" if language != "python" else KITS / "deep_sea_adventure"
    if language in ("python", "javascript"):
        return kit, 0.0, 0
    result = build_bot(kit)
    if not result.ok:
        raise SystemExit(result.message())
    path = folder / f"{language}.zip"
    path.write_bytes(result.artifact)
    return path, result.seconds, result.artifact_size


def baseline(folder: Path) -> Path:
    source = folder / "ready.c"
    source.write_text(READY_C)
    binary = folder / "ready" / "main"
    binary.parent.mkdir()
    subprocess.run(["gcc", "-O2", "-static", "-s", "-o", str(binary), str(source)], check=True)
    return binary.parent


def cli_match(bots: list[str], seed: int, cache: Path) -> float:
    env = {**os.environ, "ARENA_BUILD_CACHE": str(cache)}
    started = time.perf_counter()
    # A long start-up limit: on a loaded machine a start may take seconds, and a timed-out seat
    # (played by the fallback) would make the match cheaper, not the figure truer.
    done = subprocess.run([sys.executable, "-m", "workers.play", "deep_sea_adventure", *bots, "--seed", str(seed),
                           "--json", "--init-ms", "30000"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or json.loads(done.stdout)["faults"]:
        raise SystemExit(f"match {bots} seed {seed} failed: {done.stderr[-2000:]} {done.stdout[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--builds", type=int, default=1, help="builds of each compiled kit (0: skip)")
    parser.add_argument("--matches", type=int, default=5, help="seeds of each CLI match pairing (0: skip)")
    parser.add_argument("--language", action="append", choices=LANGUAGES, help="only these (repeatable)")
    args = parser.parse_args()
    languages = args.language or list(LANGUAGES)
    print(f"load average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-languages-") as tmp:
        folder = Path(tmp)
        if args.starts:
            own = time_to_ready(baseline(folder), "cpp", args.starts)
            own_cpu = pct(CPU_TO_READY["cpp"], 50)
            print(f"start  sandbox's own (static C, launcher)  p50 {pct(own, 50):7.1f} ms  p95 {pct(own, 95):7.1f} ms"
                  f"  CPU p50 {own_cpu:6.1f} ms")
            for language in languages:
                path, _, _ = built(language, folder)
                times = time_to_ready(path, language, args.starts)
                image = image_for(RUNTIMES[language]).size / 2**20
                cpu = pct(CPU_TO_READY[language], 50)
                print(f"start  {language:<10} kit, runtime {image:6.1f} MiB  p50 {pct(times, 50):7.1f} ms  "
                      f"p95 {pct(times, 95):7.1f} ms  beyond the sandbox's start {pct(times, 50) - pct(own, 50):7.1f} ms"
                      f"  CPU p50 {cpu:6.1f} ms (beyond {cpu - own_cpu:6.1f} ms)")
        for language in [lang for lang in languages if lang in ("cpp", "rust", "go", "java")]:
            for _ in range(args.builds):
                _, seconds, size = built(language, folder)
                print(f"build  {language:<10} kit  {seconds:6.2f} s  artifact {size / 1024:8.1f} KiB  "
                      f"(load {os.getloadavg()[0]:.2f})")
        if args.matches:
            cache = folder / "cache"
            python_kit = str(KITS / "deep_sea_adventure" / "main.py")
            cpp_kit = str(KITS / "cpp" / "deep_sea_adventure")
            cli_match([cpp_kit, python_kit], 0, cache)        # builds once: the cache then serves
            both_python, with_cpp = [], []
            for seed in range(1, args.matches + 1):
                both_python.append(cli_match([python_kit, python_kit], seed, cache))
                with_cpp.append(cli_match([cpp_kit, python_kit], seed, cache))
            a, b = statistics.median(both_python), statistics.median(with_cpp)
            print(f"match  python vs python {a:6.3f} s   cpp vs python {b:6.3f} s   ratio {b / a:5.2f}x  "
                  f"(median of {args.matches} seeds, load {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
