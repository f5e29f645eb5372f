"""CPU per request of every URL that bench/scale.py measures, in-process.

Latency on a shared machine measures the neighbours as much as the page; the CPU time the web
process spends on one request (``time.process_time``: Python, templates, serializers, the
database driver, not the database server's work) does not. This serves each URL with Django's
test client on a database kept by ``bench/scale.py --keep`` (DEBUG off, as gunicorn runs it)
and prints per URL the median CPU ms and wall ms over ``--repeat`` requests after a warm-up,
the database server's CPU ms per request (the mean, read from the PostgreSQL backend's
``/proc/<pid>/schedstat``: the server runs on this machine), the queries of one request and the
bytes. Web CPU plus database CPU is what one request costs whatever the neighbours do: on an idle
core, one request at a time, its latency is that plus the round trips. ``--profile URL`` prints that URL's cProfile instead.

    .venv/bin/python bench/page_cpu.py --database arena_scale_bench --repeat 10
    .venv/bin/python bench/page_cpu.py --database arena_scale_bench --profile /bots/1/
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="arena_scale_bench", help="a database kept by bench/scale.py --keep")
    parser.add_argument("--admin-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--only", default="", help="measure only URLs containing this text")
    parser.add_argument("--profile", default="", help="print the cProfile of this URL instead")
    parser.add_argument("--sort", default="cumulative", help="cProfile sort key")
    parser.add_argument("--lines", type=int, default=40)
    args = parser.parse_args()

    from bench.scale import database_url, django_setup, urls_to_measure

    info_path = Path(tempfile.gettempdir()) / f"{args.database}.info.json"
    if not info_path.exists():
        raise SystemExit(f"{info_path} is missing: load the database with bench/scale.py --keep first")
    info = json.loads(info_path.read_text())
    os.environ.update({"DEBUG": "0", "SECRET_KEY": "bench-only-" + "k" * 40, "ALLOWED_HOSTS": "testserver",
                       # one client asks everything: the per-address limits are lifted, as bench/scale.py does
                       "THROTTLE_ANON_READS": "100000000/minute", "THROTTLE_ANON_READS_BURST": "100000000/second",
                       "CLIENT_MAX_IN_FLIGHT": "0"})
    with tempfile.TemporaryDirectory(prefix="arena-bench-cpu-") as var_dir:
        Path(var_dir, "staticfiles").mkdir()
        django_setup(database_url(args.admin_url, args.database), var_dir)
        from django.db import connection
        from django.test import Client

        client = Client()
        urls = [args.profile] if args.profile else [u for u in urls_to_measure(info) if args.only in u]

        def get(url):
            response = client.get(url)
            if response.status_code != 200:
                raise SystemExit(f"{url}: HTTP {response.status_code}")
            return response

        if args.profile:
            for _ in range(2):
                get(args.profile)
            profiler = cProfile.Profile(time.process_time)  # CPU, not the waits for the database
            profiler.enable()
            for _ in range(args.repeat):
                get(args.profile)
            profiler.disable()
            stats = pstats.Stats(profiler)
            by_area: dict[str, float] = {}
            for (filename, _, _), (_, _, tottime, _, _) in stats.stats.items():
                parts = Path(filename).parts
                if "site-packages" in parts:
                    area = "/".join(parts[parts.index("site-packages") + 1:][:2])
                elif str(ROOT) in filename:
                    area = str(Path(filename).relative_to(ROOT).parent)
                else:
                    area = "python"
                by_area[area] = by_area.get(area, 0.0) + tottime
            total = sum(by_area.values())
            print("own time by package (profiled, so inflated):")
            for area, seconds in sorted(by_area.items(), key=lambda kv: -kv[1])[:15]:
                print(f"  {area:<40} {seconds / args.repeat * 1000:7.1f} ms  {seconds / total:5.1%}")
            stats.strip_dirs().sort_stats(args.sort).print_stats(args.lines)
            return

        print(f"bench/page_cpu.py on {args.database}, {args.repeat} requests per URL after 2; "
              f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
        print(f"{'url':<62} {'cpu ms':>7} {'db cpu':>7} {'wall ms':>8} {'queries':>8} {'bytes':>8}")
        for url in urls:
            for _ in range(2):
                get(url)
            queries = []
            with connection.execute_wrapper(lambda execute, sql, *a: queries.append(sql) or execute(sql, *a)):
                size = len(get(url).content)
            cpu, wall = [], []
            db0 = backend_cpu_ms(connection)
            for _ in range(args.repeat):
                c0, w0 = time.process_time(), time.perf_counter()
                get(url)
                cpu.append((time.process_time() - c0) * 1000)
                wall.append((time.perf_counter() - w0) * 1000)
            db = (backend_cpu_ms(connection) - db0) / args.repeat
            print(f"{url[:62]:<62} {statistics.median(cpu):7.1f} {db:7.1f} {statistics.median(wall):8.1f} "
                  f"{len(queries):>8} {size:>8}")
        print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


def backend_cpu_ms(connection) -> float:
    """CPU time so far of the PostgreSQL backend serving ``connection`` (same machine), in ms."""
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e6


if __name__ == "__main__":
    main()
