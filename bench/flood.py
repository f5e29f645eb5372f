"""One client floods the API; how long does everyone else wait? (issue 25.7)

    .venv/bin/python bench/flood.py --database arena_scale_bench [--port 8140] [--requests 200]
                                    [--path "/api/matches/?page_size=200"] [--cheap /api/games/]
                                    [--limits on|off] [--seconds S]

Serves a database kept by ``bench/scale.py --keep`` with gunicorn (``gunicorn.conf.py``), then:

1. times the cheap page alone, from a second client (source address 127.0.0.2), 30 requests;
2. sends ``--requests`` requests of ``--path`` at once from one client (127.0.0.1, one
   connection each, all started together, as a script firing them in parallel would) and, while
   they are being answered, the cheap page from the second client every 50 ms;
3. prints how long the flood held the server, its answers by status, and the cheap page's
   latency during the flood (p50, p95, max) against alone.

``--seconds S`` floods for S seconds instead: ``--requests`` threads of the one client each send the
next request as soon as the last was answered (a 429's ``Retry-After`` ignored, as a hostile
script would), so the flood lasts, whatever the server answers; the cheap page is timed throughout.

``--limits on`` serves with the arena's defaults (``CLIENT_MAX_IN_FLIGHT``, ``THROTTLE_ANON_READS``,
``THROTTLE_ANON_READS_BURST``); ``off`` lifts them, as the arena was before them. Record ``uptime`` with the figures.
"""

from __future__ import annotations

import argparse
import http.client
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.scale import database_url, start_server  # noqa: E402


def get(port: int, path: str, source: str) -> tuple[int, float]:
    """One GET on a new connection from ``source``: (status, ms)."""
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=(source, 0))
    try:
        conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
        response = conn.getresponse()
        response.read()
        return response.status, (time.perf_counter() - start) * 1000
    except OSError:
        return 0, (time.perf_counter() - start) * 1000
    finally:
        conn.close()


def quantiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return f"p50 {statistics.median(ordered):8.1f} ms, p95 {p95:8.1f} ms, max {ordered[-1]:8.1f} ms (n={len(ordered)})"


def flood(port: int, path: str, cheap: str, requests: int) -> None:
    alone = [get(port, cheap, "127.0.0.2")[1] for _ in range(30)]
    print(f"cheap page {cheap} alone (127.0.0.2):        {quantiles(alone)}")
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    go = threading.Event()

    def one():
        go.wait()
        status, _ = get(port, path, "127.0.0.1")
        with lock:
            statuses[status] = statuses.get(status, 0) + 1

    threads = [threading.Thread(target=one) for _ in range(requests)]
    for thread in threads:
        thread.start()
    start = time.perf_counter()
    go.set()
    during = []
    while any(t.is_alive() for t in threads):
        during.append(get(port, cheap, "127.0.0.2")[1])
        time.sleep(0.05)
    for thread in threads:
        thread.join()
    held = time.perf_counter() - start
    print(f"flood: {requests} x {path} from 127.0.0.1 answered in {held:.1f} s; statuses "
          + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    print(f"cheap page {cheap} during the flood (127.0.0.2): {quantiles(during) if during else 'none sent'}")


def sustained(port: int, path: str, cheap: str, clients: int, seconds: float) -> None:
    """``clients`` threads of 127.0.0.1 send ``path`` back to back for ``seconds``; the cheap page
    from 127.0.0.2 every 50 ms meanwhile."""
    alone = [get(port, cheap, "127.0.0.2")[1] for _ in range(30)]
    print(f"cheap page {cheap} alone (127.0.0.2):        {quantiles(alone)}")
    statuses: dict[int, int] = {}
    answered: dict[int, list[float]] = {}
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def flooder():
        while time.perf_counter() < stop:
            status, ms = get(port, path, "127.0.0.1")
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                answered.setdefault(status, []).append(ms)

    threads = [threading.Thread(target=flooder) for _ in range(clients)]
    for thread in threads:
        thread.start()
    during = []
    while time.perf_counter() < stop:
        during.append(get(port, cheap, "127.0.0.2")[1])
        time.sleep(0.05)
    for thread in threads:
        thread.join()
    sent = sum(statuses.values())
    print(f"flood: {clients} connections of 127.0.0.1 sending {path} back to back for {seconds:.0f} s: {sent} requests "
          f"({sent / seconds:.1f}/s); statuses " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    for status, times in sorted(answered.items()):
        print(f"  flood answers {status}: {quantiles(times)}")
    print(f"cheap page {cheap} during the flood (127.0.0.2): {quantiles(during) if during else 'none sent'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", default="arena_scale_bench")
    parser.add_argument("--admin-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--port", type=int, default=8140)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--path", default="/api/matches/?page_size=200")
    parser.add_argument("--cheap", default="/api/games/")
    parser.add_argument("--limits", choices=["on", "off"], default="on")
    parser.add_argument("--seconds", type=float, default=0, help="flood back to back for this long (0: one burst)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    limits = {} if args.limits == "off" else {
        "THROTTLE_ANON_READS": os.environ.get("THROTTLE_ANON_READS", "600/minute"),
        "THROTTLE_ANON_READS_BURST": os.environ.get("THROTTLE_ANON_READS_BURST", "16/second"),
        "CLIENT_MAX_IN_FLIGHT": os.environ.get("CLIENT_MAX_IN_FLIGHT", "4")}
    print(f"bench/flood.py: limits {args.limits} {limits}; "
          f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    with tempfile.TemporaryDirectory(prefix="arena-bench-flood-") as var_dir:
        server = start_server(database_url(args.admin_url, args.database), args.port, 0, var_dir, limits=limits)
        try:
            if args.seconds:
                sustained(args.port, args.path, args.cheap, args.requests, args.seconds)
            else:
                flood(args.port, args.path, args.cheap, args.requests)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=60)   # workers still busy with the flood finish their request first
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    main()
