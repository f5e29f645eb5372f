"""How soon `make run`'s embedded setup plays ladder matches, and how many per minute.

    .venv/bin/python bench/platform_run.py [--seconds 60] [--port 8199]

Starts scripts/run.sh (SQLite + filesystem broker) in a fresh temporary var dir, polls its
database, prints the time to the first finished match and the matches finished after
``--seconds``, then stops everything with SIGINT (as Ctrl-C does) and reports how long that took.
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def done_matches(db: Path) -> int:
    """Finished matches in the run's SQLite database (0 before it exists)."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("select count(*) from matches_match where status='done'").fetchone()[0]
    except sqlite3.Error:
        return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--port", type=int, default=8199)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as var:
        env = {**os.environ, "ARENA_VAR_DIR": var, "PORT": str(args.port)}
        env.pop("DATABASE_URL", None)
        env.pop("CELERY_BROKER_URL", None)
        start = time.monotonic()
        process = subprocess.Popen(["bash", "scripts/run.sh"], cwd=ROOT, env=env, start_new_session=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        db = Path(var) / "arena.sqlite3"
        first = None
        try:
            while time.monotonic() - start < args.seconds:
                if first is None and done_matches(db) > 0:
                    first = time.monotonic() - start
                time.sleep(0.5)
            total = done_matches(db)
        finally:
            stop = time.monotonic()
            os.killpg(process.pid, signal.SIGINT)
            process.wait(timeout=60)
            stopped = time.monotonic() - stop
    print(f"first finished ladder match: {first:.1f} s after start" if first is not None
          else f"no match finished within {args.seconds:.0f} s")
    print(f"matches finished within {args.seconds:.0f} s of start: {total}")
    print(f"Ctrl-C (SIGINT to the group) stopped web server, worker and beat in {stopped:.1f} s")


if __name__ == "__main__":
    main()
