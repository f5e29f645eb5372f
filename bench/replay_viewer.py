"""The replay viewer's speed in headless Chromium: time to the first board and per step.

For each game, plays SEEDS matches at the game's most seats with built-in bots (in-process),
keeps the largest replay (and, on one more row, the replay of any game closest to 1 MB, the size
the goal is stated for), writes its self-contained page (``python -m workers.replay view``)
and opens it in Debian's Chromium. Times come from the page (``performance.now()``):

- first board: from navigation start to the end of the first draw (HTML parse, JSON.parse of the
  embedded full form, building the shell, the timeline marks, the event log and the board);
- serve: what the match page's endpoint does on a replay's first request (expand, JSON, gzip; cached after);
- step: one ``goTo`` dispatch (board, decision panel, log, slider, hash) plus a forced layout,
  stepping through every position, then jumping to random positions, then cycling the points of
  view.

    .venv/bin/python bench/replay_viewer.py [--seeds 6] [--repeat 3] [--games dive,divee]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import get_game, list_games  # noqa: E402
from workers.replay import expand, step_count  # noqa: E402
from workers.runner import SeatSpec, run_match  # noqa: E402
from workers.viewer import standalone_page  # noqa: E402

CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]

STEP_SCRIPT = """
(positions) => {
  const viewer = document.getElementById('replay-viewer').viewer;
  const times = [];
  for (const action of positions) {
    const t0 = performance.now();
    viewer.dispatch(action);
    document.body.offsetHeight;          // layout, as the browser must before it paints
    times.push(performance.now() - t0);
  }
  return times;
}
"""


def played_replays(game_id: str, seeds: int) -> list[dict]:
    """Replays of ``seeds`` matches at the game's most seats (one heuristic seat, the rest random)."""
    game = get_game(game_id)
    return [run_match(game_id, [SeatSpec("builtin:heuristic"), *[SeatSpec("builtin:random")] * (game.max_players - 1)],
                      seed=seed).replay for seed in range(seeds)]


def size_mb(value) -> float:
    return len(json.dumps(value, separators=(",", ":")).encode()) / 1e6


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def measure(browser, page_path: Path, last: int, povs: list, repeat: int) -> dict:
    first, steps, jumps, switches, parts = [], [], [], [], []
    rng = random.Random(1)
    for _ in range(repeat):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(page_path.as_uri())
        page.wait_for_selector("#replay-viewer[data-state=ready]")
        first.append(page.evaluate("DiveViewer.firstBoardAt"))
        parts.append(page.evaluate("({...DiveViewer.timings, html: performance.getEntriesByType('navigation')[0].domInteractive})"))
        steps += page.evaluate(STEP_SCRIPT, [{"type": "goTo", "step": k} for k in range(last + 1)])
        jumps += page.evaluate(STEP_SCRIPT, [{"type": "goTo", "step": rng.randrange(last + 1)} for _ in range(100)])
        switches += page.evaluate(STEP_SCRIPT, [{"type": "setPov", "pov": povs[i % len(povs)]} for i in range(3 * len(povs))])
        errors = page.evaluate("document.querySelectorAll('[data-role=board-error]').length")
        assert errors == 0, f"{page_path}: a position could not be drawn"
        context.close()
    return {"first": statistics.median(first), "first_max": max(first), "step_p50": pct(steps, 0.5),
            "step_p95": pct(steps, 0.95), "step_max": max(steps), "jump_p95": pct(jumps, 0.95),
            "pov_p95": pct(switches, 0.95),
            "parts": {key: statistics.median(p[key] for p in parts) for key in parts[0]}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=6, help="matches played per game; the largest replay is kept")
    parser.add_argument("--repeat", type=int, default=3, help="page loads per replay")
    parser.add_argument("--games", default=",".join(g.id for g in list_games()))
    parser.add_argument("--parts", action="store_true", help="also print where the first board's time goes")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min)")
    print(f"{'game':<24}{'seats':>6}{'steps':>7}{'replay MB':>11}{'full MB':>9}{'page MB':>9}"
          f"{'first ms':>10}{'(max)':>8}{'step p50':>10}{'p95':>7}{'max':>7}{'jump p95':>10}{'pov p95':>9}{'serve ms':>10}")
    with tempfile.TemporaryDirectory(prefix="arena-bench-viewer-") as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        played = {game_id: played_replays(game_id, args.seeds) for game_id in args.games.split(",")}
        rows = [(game_id, max(replays, key=size_mb)) for game_id, replays in played.items()]
        # The goal is stated for a 1 MB replay: the played replay closest to that size, too.
        near = min(((g, r) for g, replays in played.items() for r in replays), key=lambda gr: abs(size_mb(gr[1]) - 1.0))
        rows.append((near[0] + " ~1MB", near[1]))
        for game_id, replay in rows:
            # What the match page's endpoint does on the first request (then it is cached): expand, JSON, gzip.
            serve = []
            for _ in range(3):
                started = time.perf_counter()
                full = expand(replay)
                gzip.compress(json.dumps(full, separators=(",", ":"), ensure_ascii=False).encode(), compresslevel=5)
                serve.append((time.perf_counter() - started) * 1000)
            page_path = Path(folder) / f"{game_id.replace(' ', '-')}.html"
            page_path.write_text(standalone_page(full), encoding="utf-8")
            n = replay["num_players"]
            povs = ["spectator", *range(n), "everything"]
            figures = measure(browser, page_path, step_count(replay), povs, args.repeat)
            print(f"{game_id:<24}{n:>6}{step_count(replay):>7}{size_mb(replay):>11.2f}{size_mb(full):>9.2f}"
                  f"{page_path.stat().st_size / 1e6:>9.2f}{figures['first']:>10.0f}{figures['first_max']:>8.0f}"
                  f"{figures['step_p50']:>10.2f}{figures['step_p95']:>7.2f}{figures['step_max']:>7.1f}"
                  f"{figures['jump_p95']:>10.2f}{figures['pov_p95']:>9.2f}{statistics.median(serve):>10.0f}")
            if args.parts:
                print("    " + ", ".join(f"{key} {value:.0f} ms" for key, value in figures["parts"].items()))
        browser.close()
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
