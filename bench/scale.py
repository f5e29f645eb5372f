"""The arena at scale: 10,000 bots and 1,000,000 matches on PostgreSQL, served by gunicorn.

    .venv/bin/python bench/scale.py [--bots 10000] [--matches 1000000] [--database arena_scale_bench]
                                    [--port 8140] [--requests 200] [--concurrency 2] [--seconds-per-url 20]
                                    [--keep | --reuse]

1. Creates an empty PostgreSQL database (``--database``; dropped first, and at the end unless
   ``--keep``), migrates it, and bulk-loads it with COPY: users, bots (two to three per user,
   1-3 versions each with a ~3 kB archive), one ladder per game with every bot of the game
   entered, and ``--matches`` matches shaped as the platform writes them — finished ladder
   matches with seats (score, rank, faults, timing in its columns, stderr logs), a real
   compressed replay (played by the built-in bots through the runner and compressed as the
   match task does) and the rating changes Elo gives, plus challenges, failed, queued and
   running matches. One "whale" bot plays ~1.15% of all matches (11.5k at 1M): the big history.
2. Prints the bytes per match (tables, their indexes and TOAST, divided by the matches).
3. Serves the database with gunicorn (``gunicorn.conf.py``, DEBUG off) and sends each URL
   ``--requests`` requests from ``--concurrency`` keep-alive clients on loopback (warmed up
   first), printing p50/p95/p99 latency and requests per second per URL.
4. Times recording ladder results (``match_record_outcome``) alone and while another process
   runs matchmaking on the same ladder (2,000 entrants at the defaults), and the time each
   matchmaking fill holds its ladder lock.

PostgreSQL comes from ``--admin-url`` (default postgres://postgres@127.0.0.1:5432/postgres).
Record ``uptime`` with the figures: the machine is shared.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import logging
import math
import multiprocessing
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# One ladder per game at these seat counts (2.8 seats per match on average, as measured live).
LADDER_SEATS = {"deep_sea_adventure": 4, "divee": 2, "dive_diver_die": 3, "deep_dive": 2, "dive": 3}
CHALLENGE_SHARE = 0.03
FAILED_SHARE = 0.001
FAULT_SHARE = 0.01
LOG_SHARE = 0.25
WHALE_MATCHES_SHARE = 0.0115   # of all matches: 11.5k of 1M
DAYS = 365
CHUNK = 20_000
FAULT_KINDS = ("timeout", "crash", "illegal", "protocol", "memory")


# --- database ------------------------------------------------------------------------------------

def database_url(admin_url: str, name: str) -> str:
    parts = urlsplit(admin_url)
    return parts._replace(path=f"/{name}").geturl()


def create_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def django_setup(url: str, var_dir: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ["ARENA_VAR_DIR"] = var_dir
    os.environ["DJANGO_SETTINGS_MODULE"] = "arena.settings"
    for sub in ("queue", "processed", "control"):  # the filesystem broker of match_create's task
        Path(var_dir, "broker", sub).mkdir(parents=True, exist_ok=True)
    import django

    django.setup()


class Copier:
    """COPY rows into one model's table (binary format), filling columns the loader does not
    name with the field's default, so new columns added by migrations load too."""

    def __init__(self, cursor, model, values: dict):
        from django.db import connection

        self.cursor = cursor
        self.table = model._meta.db_table
        self.columns = [f.column for f in model._meta.concrete_fields]
        self.named = [c for c in self.columns if c in values]
        missing = [c for c in values if c not in self.columns]
        if missing:
            raise SystemExit(f"{self.table} has no column {missing}: update bench/scale.py")
        self.defaults = {}
        for f in model._meta.concrete_fields:
            if f.column not in values:
                default = f.get_default()
                self.defaults[f.column] = (f.get_db_prep_save(default, connection) if default is not None else None)
        cursor.execute("SELECT column_name, udt_name FROM information_schema.columns WHERE table_name = %s",
                       [self.table])
        self.types = dict(cursor.fetchall())
        self.order = list(values)

    def copy(self, rows) -> int:
        from psycopg.types.json import Jsonb

        columns = self.order + list(self.defaults)
        types = [self.types[c] for c in columns]
        jsonb = [t == "jsonb" for t in types]
        tail = [self.defaults[c] for c in self.defaults]
        tail = [Jsonb(v) if j and v is not None else v for v, j in zip(tail, jsonb[len(self.order):])]
        cols = ", ".join(f'"{c}"' for c in columns)
        count = 0
        with self.cursor.copy(f'COPY "{self.table}" ({cols}) FROM STDIN (FORMAT BINARY)') as copy:
            copy.set_types(types)
            json_at = [i for i, j in enumerate(jsonb[:len(self.order)]) if j]
            for row in rows:
                row = list(row)
                for i in json_at:
                    if row[i] is not None:
                        row[i] = Jsonb(row[i])
                copy.write_row(row + tail)
                count += 1
        return count


# --- what the platform writes ---------------------------------------------------------------------

def replay_pool(ladders: list[dict], per_ladder: int, rng: random.Random) -> dict[str, list[bytes]]:
    """Real replays per ladder: built-in bots played through the runner, stored as the task stores them."""
    from arena.matches.seating import compressed_public_replay
    from workers.runner import SeatSpec, run_match

    pool = {}
    for ladder in ladders:
        replays = []
        for k in range(per_ladder):
            seats = [SeatSpec(f"builtin:{('heuristic', 'random')[(k + s) % 2]}", name=f"bot{s}", version="v1")
                     for s in range(ladder["seat_count"])]
            outcome = run_match(ladder["game"], seats, rng.randrange(2**53), options=None).to_dict()
            replays.append(compressed_public_replay(_as_sandboxed(outcome["replay"], rng)))
        pool[ladder["slug"]] = replays
    return pool


def _as_sandboxed(replay: dict, rng: random.Random) -> dict:
    """The built-in bots' replay as the platform's sandboxed bots leave it: seats named after their
    archives (``ID-VERSION-SHA.py``) and bots, and a sandboxed bot's decision times (0.3-40 ms)."""
    replay = dict(replay)
    replay["seats"] = [{"seat": s["seat"], "bot": f"{rng.randrange(10_000)}-1-{rng.getrandbits(48):012x}.py",
                        "name": f"bot-{rng.randrange(10_000):05d}", "version": "v1"} for s in replay["seats"]]

    def times(ms: list) -> list:
        return [None if value is None else round(rng.uniform(0.3, 40.0), 1) for value in ms]

    if isinstance(replay["steps"], dict):
        replay["steps"] = {**replay["steps"], "ms": [times(ms) for ms in replay["steps"]["ms"]]}
    else:
        replay["steps"] = [{**step, "ms": times(step["ms"])} for step in replay["steps"]]
    return replay


def _timing(seat: int, rng: random.Random) -> dict:
    """A seat's timing as the runner reports it for a sandboxed bot charged CPU time."""
    decisions = rng.randint(8, 60)
    mean = round(rng.uniform(0.5, 40.0), 3)
    cpu = round(mean * 0.8, 3)
    return {"seat": seat, "decisions": decisions, "mean_ms": mean, "p50_ms": round(mean * 0.9, 3),
            "p95_ms": round(mean * 2.2, 3), "max_ms": round(mean * 3.5, 3),
            "bank_used_ms": round(rng.uniform(0, 500), 1), "start_ms": round(rng.uniform(15, 40), 1),
            "clock": "cpu", "cpu_mean_ms": cpu, "cpu_p95_ms": round(cpu * 2.2, 3), "cpu_max_ms": round(cpu * 3.5, 3),
            "cpu_total_ms": round(cpu * decisions, 3), "sandbox_cpu_ms": round(cpu * decisions + 30, 3)}


def load(*, bots: int, matches: int, seed: int) -> dict:
    """Bulk-load the empty, migrated database; returns what the measurements need."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from arena.bots.models import Bot, BotVersion
    from arena.ladders.models import Ladder, Rating, RatingChange
    from arena.matches.models import Match, MatchSeat
    from arena.matches.timing import TIMING_FIELDS, timing_columns
    from competition.ratings.elo import elo_rate
    from engines import list_games

    rng = random.Random(seed)
    user_model = get_user_model()
    now = datetime.now(UTC).replace(microsecond=0)
    start = now - timedelta(days=DAYS)
    games = [g for g in list_games() if g.id in LADDER_SEATS] or list(list_games())
    ladders = []
    for i, game in enumerate(games):
        seats = LADDER_SEATS.get(game.id, max(2, game.min_players))
        ladders.append({"id": i + 1, "slug": f"{game.id.replace('_', '-')}-{seats}p", "game": game.id,
                        "seat_count": seats, "name": f"{game.title} ({seats} players)"})
    t0 = time.perf_counter()
    pool = replay_pool(ladders, per_ladder=8, rng=rng)
    print(f"replay pool: {sum(len(v) for v in pool.values())} real replays in {time.perf_counter() - t0:.1f} s, "
          f"{statistics.mean(len(r) for v in pool.values() for r in v):.0f} bytes each on average")

    n_users = max(1, bots // 3)
    password = "pbkdf2_sha256$1000000$" + "s" * 22 + "$" + "h" * 44  # the shape of a real hash
    bot_game = [i % len(ladders) for i in range(bots)]
    versions_of = []          # per bot: its version ids, oldest first
    version_rows, next_version = [], 1
    archive = (b"# a bot\nimport json, sys\n" + b"# padding line of a bot's source code\n" * 80)[:3200]
    for b in range(bots):
        count = 3 if b < len(ladders) else 1 + (b % 3 == 0) + (b % 7 == 0)  # the whales have 3
        ids = list(range(next_version, next_version + count))
        next_version += count
        versions_of.append(ids)
        created = start + timedelta(days=rng.uniform(0, 30))
        for number, vid in enumerate(ids, start=1):
            data = archive + f"# v{number} of bot {b}\n".encode()
            version_rows.append((vid, b + 1, number, "py", "main.py", data, hashlib.sha256(data).hexdigest(),
                                 len(data), "ready", "Smoke test passed: 1 match against builtin:random.",
                                 created, created))
    ladder_bots = [[b for b in range(bots) if bot_game[b] == li] for li in range(len(ladders))]
    whale = ladder_bots[0][0]

    t0 = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")  # consistent by construction: no FK triggers
        with transaction.atomic():
            Copier(cursor, user_model, {"id": 0, "password": 0, "username": 0, "email": 0, "is_staff": 0,
                                        "is_superuser": 0, "is_active": 0, "date_joined": 0,
                                        "first_name": 0, "last_name": 0}).copy(
                (u + 1, password, f"user{u:05d}", f"user{u:05d}@example.org", False, False, True, start, "", "")
                for u in range(n_users))
            Copier(cursor, Ladder, dict.fromkeys(["id", "slug", "name", "game", "seat_count", "options",
                                                  "k_factor", "initial_rating", "queue_size", "active",
                                                  "created_at"])).copy(
                (lad["id"], lad["slug"], lad["name"], lad["game"], lad["seat_count"], {}, 32.0, 1200.0, 2, True,
                 start) for lad in ladders)
            Copier(cursor, Bot, dict.fromkeys(["id", "owner_id", "name", "game", "description", "builtin",
                                               "active_version_id", "is_active", "created_at"])).copy(
                (b + 1, b % n_users + 1, f"bot-{b:05d}", ladders[bot_game[b]]["game"], "A bench bot.", "",
                 versions_of[b][-1], True, start) for b in range(bots))
            Copier(cursor, BotVersion, dict.fromkeys(["id", "bot_id", "number", "kind", "filename", "archive",
                                                      "sha256", "size", "status", "validation_log",
                                                      "created_at", "validated_at"])).copy(version_rows)
        del version_rows

        elo = [1200.0] * bots
        # games wins draws losses faults rank_sum first_places score_sum score_sq_sum last_played_at
        stats = [[0, 0, 0, 0, 0, 0, 0, 0.0, 0.0, None] for _ in range(bots)]
        match_copier = Copier(cursor, Match, dict.fromkeys([
            "id", "kind", "ladder_id", "game", "options", "seed", "rated", "requested_by_id", "status", "attempts",
            "worker", "error", "replay", "created_at", "queued_at", "sends", "started_at", "finished_at"]))
        seat_copier = Copier(cursor, MatchSeat, dict.fromkeys([
            "id", "match_id", "seat", "bot_version_id", "score", "rank", "fault_kind", "fault_step",
            "fault_message", "log", *TIMING_FIELDS]))
        change_copier = Copier(cursor, RatingChange, dict.fromkeys([
            "id", "ladder_id", "match_id", "bot_id", "before", "after", "sequence", "created_at"]))
        seat_id = change_id = 0
        whale_share = min(0.9, WHALE_MATCHES_SHARE * len(ladders))  # of the whale ladder's matches
        open_from = matches - 4 * len(ladders)  # the newest few are queued or running, as matchmaking keeps them
        span = (now - start).total_seconds()
        loaded = {"matches": 0, "seats": 0, "changes": 0}
        for first in range(1, matches + 1, CHUNK):
            match_rows, seat_rows, change_rows = [], [], []
            for mid in range(first, min(matches, first + CHUNK - 1) + 1):
                created = start + timedelta(seconds=span * mid / (matches + 1))
                challenge = rng.random() < CHALLENGE_SHARE
                li = rng.randrange(len(ladders))
                ladder = ladders[li]
                n = 2 if challenge else ladder["seat_count"]
                pool_bots = ladder_bots[li]
                chosen = []
                if li == 0 and not challenge and rng.random() < whale_share:
                    chosen.append(whale)
                while len(chosen) < n:
                    b = pool_bots[rng.randrange(len(pool_bots))]
                    if b not in chosen:
                        chosen.append(b)
                rng.shuffle(chosen)
                versions = [versions_of[b][min(len(versions_of[b]) - 1, int(len(versions_of[b]) * mid / (matches + 1)))]
                            for b in chosen]
                seed_value = rng.randrange(2**53)
                if mid > open_from:
                    status = "queued" if mid > open_from + 2 * len(ladders) else "running"
                elif rng.random() < FAILED_SHARE:
                    status = "failed"
                else:
                    status = "done"
                finished = created + timedelta(seconds=rng.uniform(2, 40))
                seat_values = []
                if status == "done":
                    scores = [float(rng.randint(0, 60)) for _ in range(n)]
                    faulted = [rng.random() < FAULT_SHARE for _ in range(n)]
                    order = sorted(range(n), key=lambda s: (faulted[s], -scores[s]))
                    ranks = [0] * n
                    for pos, s in enumerate(order):
                        prev = order[pos - 1] if pos else None
                        same = prev is not None and (faulted[prev], scores[prev]) == (faulted[s], scores[s])
                        ranks[s] = ranks[prev] if same else pos + 1
                    timing = [_timing(s, rng) for s in range(n)]
                    faults = [{"seat": s, "kind": rng.choice(FAULT_KINDS), "step": rng.randint(0, 30)}
                              for s in range(n) if faulted[s]]
                    fault_of = {f["seat"]: f for f in faults}
                    for s in range(n):
                        fault = fault_of.get(s)
                        log = "".join(f"[bot] step {k}: thinking\n" for k in range(rng.randint(2, 12))) \
                            if rng.random() < LOG_SHARE else ""
                        seat_values.append((scores[s], ranks[s], fault["kind"] if fault else "",
                                            fault["step"] if fault else None,
                                            f"{fault['kind']} at step {fault['step']}\nTraceback: ..." if fault else "",
                                            log, *timing_columns(timing[s], seat=s).values()))
                    replay = pool[ladder["slug"]][mid % len(pool[ladder["slug"]])]
                    if not challenge:
                        before = [elo[b] for b in chosen]
                        after = elo_rate(ratings=before, ranks=ranks, faulted=faulted, k_factor=32.0)
                        for s, b in enumerate(chosen):
                            st = stats[b]
                            effective = (faulted[s], ranks[s])
                            others = [(faulted[j], ranks[j]) for j in range(n) if j != s]
                            if any(o < effective for o in others):
                                st[3] += 1
                            elif any(o == effective for o in others):
                                st[2] += 1
                            else:
                                st[1] += 1
                            value = min(scores[s], 0.0) if faulted[s] else scores[s]
                            st[0] += 1
                            st[4] += int(faulted[s])
                            st[5] += ranks[s]
                            st[6] += int(ranks[s] == 1)
                            st[7] += value
                            st[8] += value * value
                            st[9] = finished
                            elo[b] = after[s]
                            change_id += 1
                            change_rows.append((change_id, ladder["id"], mid, b + 1, before[s], after[s], st[0],
                                                finished))
                else:
                    replay = None
                    seat_values = [(None, None, "", None, "", "", *timing_columns(None, seat=0).values())] * n
                error = "Traceback (most recent call last):\nRuntimeError: not every seat could be started" \
                    if status == "failed" else ""
                match_rows.append((
                    mid, "challenge" if challenge else "ladder", None if challenge else ladder["id"], ladder["game"],
                    {}, seed_value, not challenge, (chosen[0] % n_users + 1) if challenge else None, status,
                    1 if status != "queued" else 0, "celery@worker1:4242" if status != "queued" else "", error,
                    replay, created, created, 1,
                    created + timedelta(seconds=0.5) if status != "queued" else None,
                    finished if status in ("done", "failed") else None))
                for s, (_b, v) in enumerate(zip(chosen, versions)):
                    seat_id += 1
                    seat_rows.append((seat_id, mid, s, v, *seat_values[s]))
            with transaction.atomic():
                loaded["matches"] += match_copier.copy(match_rows)
                loaded["seats"] += seat_copier.copy(seat_rows)
                loaded["changes"] += change_copier.copy(change_rows)
            done = loaded["matches"]
            if done % (CHUNK * 10) == 0 or done == matches:
                rate = done / (time.perf_counter() - t0)
                print(f"  {done:>9,} matches, {loaded['seats']:,} seats, {loaded['changes']:,} rating changes "
                      f"({rate:,.0f} matches/s)", flush=True)

        with transaction.atomic():
            Copier(cursor, Rating, dict.fromkeys([
                "id", "ladder_id", "bot_id", "elo", "games", "wins", "draws", "losses", "faults", "rank_sum",
                "first_places", "score_sum", "score_sq_sum", "last_played_at", "created_at"])).copy(
                (b + 1, bot_game[b] + 1, b + 1, elo[b], *stats[b], start) for b in range(bots))
        cursor.execute("SET session_replication_role = origin")
        for model in (user_model, Ladder, Bot, BotVersion, Match, MatchSeat, RatingChange, Rating):
            table = model._meta.db_table
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                           f"(SELECT COALESCE(MAX(id), 1) FROM \"{table}\"))")
    print(f"loaded in {time.perf_counter() - t0:.0f} s")
    t0 = time.perf_counter()
    old_autocommit = connection.get_autocommit()
    connection.set_autocommit(True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE)")
    connection.set_autocommit(old_autocommit)
    print(f"VACUUM ANALYZE in {time.perf_counter() - t0:.0f} s")
    small = next(b for b in ladder_bots[0][1:] if stats[b][0] > 0)
    return {"ladders": ladders, "whale": whale + 1, "small_bot": small + 1, "pool": pool}


# --- measuring ------------------------------------------------------------------------------------

def bytes_per_match() -> None:
    from django.db import connection

    from arena.ladders.models import RatingChange
    from arena.matches.models import Match, MatchSeat

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM matches_match")
        count = cursor.fetchone()[0] or 1
        total = 0
        print(f"{'table':<24} {'rows':>10} {'heap+toast MB':>14} {'indexes MB':>11} {'bytes/match':>12}")
        for model in (Match, MatchSeat, RatingChange):
            table = model._meta.db_table
            cursor.execute(f"SELECT count(*), pg_table_size('{table}'), pg_indexes_size('{table}') FROM \"{table}\"")
            rows, heap, indexes = cursor.fetchone()
            total += heap + indexes
            print(f"{table:<24} {rows:>10,} {heap / 2**20:>14.1f} {indexes / 2**20:>11.1f} "
                  f"{(heap + indexes) / count:>12.0f}")
        cursor.execute("SELECT avg(octet_length(replay)) FROM matches_match WHERE replay IS NOT NULL")
        replay = cursor.fetchone()[0] or 0
    print(f"all included: {total / count:.0f} bytes per match (of which the replay bytes: {replay:.0f})")


def urls_to_measure(info: dict) -> list[str]:
    """Every page and API read, first pages and deep ones (a deep keyset page starts near the oldest row)."""
    from django.db import connection

    ladder = info["ladders"][0]["slug"]
    whale, small = info["whale"], info["small_bot"]
    with connection.cursor() as cursor:
        def value(sql, *args):
            cursor.execute(sql, args)
            row = cursor.fetchone()
            return row[0] if row else None

        done = value("SELECT max(id) FROM matches_match WHERE status = 'done'")
        deep = value("SELECT id FROM matches_match ORDER BY id OFFSET 30 LIMIT 1")
        deep_ladder = value("SELECT id FROM matches_match WHERE ladder_id = 1 ORDER BY id OFFSET 30 LIMIT 1")
        deep_whale = value("SELECT s.match_id FROM matches_matchseat s JOIN bots_botversion v ON v.id = s.bot_version_id "
                           "WHERE v.bot_id = %s ORDER BY s.match_id OFFSET 30 LIMIT 1", whale)
        deep_history = value("SELECT id FROM ladders_ratingchange WHERE bot_id = %s ORDER BY id DESC OFFSET 30 LIMIT 1",
                             whale)
        entries = value("SELECT count(*) FROM ladders_rating WHERE ladder_id = 1")
        bots = value("SELECT count(*) FROM bots_bot")
    web_last = max(1, math.ceil(entries / 50))
    api_last = max(1, math.ceil(entries / 25))
    return [
        "/", "/games/", "/ladders/",
        f"/ladders/{ladder}/", f"/ladders/{ladder}/?page={web_last}",
        f"/bots/{whale}/", f"/bots/{small}/",
        "/matches/", f"/matches/?before={deep}", "/matches/?status=done", f"/matches/?status=done&before={deep}",
        f"/matches/?ladder={ladder}", f"/matches/?ladder={ladder}&before={deep_ladder}", "/matches/?status=queued",
        f"/matches/{done}/", f"/matches/{done}/replay.json",
        "/api/games/", "/api/ladders/", f"/api/ladders/{ladder}/",
        f"/api/ladders/{ladder}/leaderboard/", f"/api/ladders/{ladder}/leaderboard/?page={api_last}",
        "/api/bots/", f"/api/bots/?page={max(1, math.ceil(bots / 25))}", f"/api/bots/?game={info['ladders'][0]['game']}",
        f"/api/bots/{whale}/", f"/api/bots/{whale}/versions/",
        f"/api/bots/{whale}/history/", f"/api/bots/{whale}/history/?after={deep_history}",
        f"/api/bots/{whale}/history/?ladder={ladder}",
        "/api/matches/", f"/api/matches/?before={deep}", "/api/matches/?status=done",
        f"/api/matches/?status=done&before={deep}", "/api/matches/?status=queued", "/api/matches/?kind=challenge",
        f"/api/matches/?ladder={ladder}", f"/api/matches/?ladder={ladder}&before={deep_ladder}",
        f"/api/matches/?bot={whale}", f"/api/matches/?bot={whale}&before={deep_whale}", f"/api/matches/?bot={small}",
        f"/api/matches/{done}/", f"/api/matches/{done}/replay/",
    ]


def start_server(url: str, port: int, workers: int, var_dir: str, limits: dict | None = None) -> subprocess.Popen:
    """gunicorn on ``port``. The bench's clients all come from loopback: the per-address limits
    (anonymous read rate, requests at once) are lifted unless ``limits`` (environment values) says."""
    import socket

    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            raise SystemExit(f"port {port} is taken: pass --port")
    env = {**os.environ, "DATABASE_URL": url, "ARENA_VAR_DIR": var_dir, "DEBUG": "0",
           "SECRET_KEY": "bench-only-" + "k" * 40, "ALLOWED_HOSTS": "127.0.0.1",
           "PORT": str(port), "HOST": "127.0.0.1", "GUNICORN_LOG_LEVEL": "warning",
           "THROTTLE_ANON_READS": "100000000/minute", "THROTTLE_ANON_READS_BURST": "100000000/second",
           "CLIENT_MAX_IN_FLIGHT": "0", **(limits or {})}
    if workers:
        env["WEB_CONCURRENCY"] = str(workers)
    server = subprocess.Popen([str(ROOT / ".venv/bin/gunicorn"), "arena.wsgi:application"], cwd=ROOT, env=env,
                              start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/api/games/")
            if conn.getresponse().status == 200:
                return server
        except OSError:
            pass
        if server.poll() is not None:
            raise SystemExit("gunicorn exited")
        time.sleep(0.3)
    server.kill()
    raise SystemExit("gunicorn did not answer within 60 s")


def measure(port: int, url: str, requests: int, concurrency: int, seconds: float = 20.0) -> dict:
    """``requests`` GETs of ``url`` from ``concurrency`` keep-alive clients (fewer when they take
    longer than ``seconds``, but at least 20); latencies in ms."""
    headers = {"Accept-Encoding": "gzip", "Accept": "text/html,application/json"}
    remaining = [requests]
    deadline = [float("inf")]
    lock = threading.Lock()
    samples, statuses, sizes = [], {}, []

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while True:
            with lock:
                if remaining[0] <= 0 or (time.perf_counter() > deadline[0] and len(samples) >= 20):
                    break
                remaining[0] -= 1
            began = time.perf_counter()
            try:
                conn.request("GET", url, headers=headers)
                response = conn.getresponse()
                body = response.read()
                status = response.status
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                status, body = "error", b""
            elapsed = (time.perf_counter() - began) * 1000
            with lock:
                samples.append(elapsed)
                statuses[status] = statuses.get(status, 0) + 1
                sizes.append(len(body))
        conn.close()

    def run(count: int) -> float:
        remaining[0] = count
        began = time.perf_counter()
        threads = [threading.Thread(target=client) for _ in range(concurrency)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - began

    run(max(10, requests // 10))  # warm up: caches, every server thread's database connection
    samples.clear(), statuses.clear(), sizes.clear()
    deadline[0] = time.perf_counter() + seconds
    wall = run(requests)
    samples.sort()

    def pct(p):
        return samples[min(len(samples) - 1, max(0, math.ceil(p / 100 * len(samples)) - 1))]

    return {"p50": pct(50), "p95": pct(95), "p99": pct(99), "rps": len(samples) / wall, "statuses": statuses,
            "n": len(samples),
            "bytes": statistics.median(sizes) if sizes else 0}


def serve_and_measure(url: str, info: dict, port: int, workers: int, requests: int, concurrency: int,
                      var_dir: str, seconds: float, only: list[str] = ()) -> None:
    urls = [u for u in urls_to_measure(info) if not only or any(part in u for part in only)]
    server = start_server(url, port, workers, var_dir)
    try:
        print(f"gunicorn on 127.0.0.1:{port} (gunicorn.conf.py, WEB_CONCURRENCY={workers or 'default'}); "
              f"{requests} requests per URL from {concurrency} clients; load {os.getloadavg()[0]:.2f}")
        print(f"{'url':<62} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'req/s':>7} {'bytes':>8} {'n':>4}  status")
        for path in urls:
            r = measure(port, path, requests, concurrency, seconds)
            status = ",".join(f"{k}:{v}" for k, v in sorted(r["statuses"].items(), key=str))
            flag = "  <-- p95 over 50 ms" if r["p95"] > 50 else ""
            print(f"{path[:62]:<62} {r['p50']:7.1f} {r['p95']:7.1f} {r['p99']:7.1f} {r['rps']:7.1f} "
                  f"{r['bytes']:8.0f} {r['n']:4d}  {status}{flag}", flush=True)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


# --- recording and matchmaking ----------------------------------------------------------------------

class _LockTimes(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.samples = []

    def emit(self, record):
        if "ladder lock held" in record.getMessage():
            self.samples.append(float(record.args[2]))


def _matchmaker(url: str, var_dir: str, slug: str, stop, results) -> None:
    """Another process filling the ladder over and over (two new matches each time) until told to stop."""
    django_setup(url, var_dir)
    from django.db import close_old_connections

    from arena.ladders.models import Ladder
    from arena.ladders.services import matchmaking_fill

    handler = _LockTimes()
    logger = logging.getLogger("arena.ladders.services")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    fills = []
    while not stop.is_set():
        ladder = Ladder.objects.get(slug=slug)
        ladder.queue_size = _open_tables_now(ladder) + 2  # in memory only: each fill adds two tables
        began = time.perf_counter()
        matchmaking_fill(ladder=ladder)
        fills.append((time.perf_counter() - began) * 1000)
        close_old_connections()
    results.put({"fills": fills, "locks": handler.samples})


def _open_tables_now(ladder) -> int:
    """The open tables as matchmaking counts them (lost matches left out, a group counted once), so
    a fill asked for two more makes two, whatever the loaded data left running."""
    from arena.ladders.services import _open_tables
    from arena.matches.models import Match
    from arena.matches.services import match_open_q

    return _open_tables(Match.objects.filter(match_open_q(), ladder=ladder))


def _record_all(matches: list[int], outcomes: dict, replay: bytes) -> list[float]:
    from arena.runs.recording import match_record_outcome

    times = []
    for match_id in matches:
        began = time.perf_counter()
        match_record_outcome(match_id=match_id, outcome=outcomes[match_id], replay=replay, worker="bench")
        times.append((time.perf_counter() - began) * 1000)
    return times


def _queued_matches(ladder, count: int, rng: random.Random) -> tuple[list[int], dict]:
    from arena.ladders.services import _entrants
    from arena.matches.services import match_create

    entrants = _entrants(ladder)
    ids, outcomes = [], {}
    for _ in range(count):
        picked = rng.sample(entrants, ladder.seat_count)
        match = match_create(game=ladder.game, versions=[e.bot.active_version for e in picked], ladder=ladder)
        n = ladder.seat_count
        ids.append(match.pk)
        outcomes[match.pk] = {
            "game": ladder.game, "seed": match.seed, "options": {}, "scores": [float(10 * (n - s)) for s in range(n)],
            "ranks": list(range(1, n + 1)), "faults": [], "timing": [_timing(s, rng) for s in range(n)],
            "logs": ["[bot] thinking\n" * 3] * n, "replay": None}
    return ids, outcomes


def recording_and_matchmaking(url: str, var_dir: str, info: dict, count: int) -> None:
    from arena.ladders.models import Ladder, Rating
    from arena.ladders.services import matchmaking_fill

    slug = info["ladders"][0]["slug"]
    ladder = Ladder.objects.get(slug=slug)
    entrants = Rating.objects.filter(ladder=ladder).count()
    replay = info["pool"][slug][0]
    rng = random.Random(7)

    def summary(values: list[float]) -> str:
        values = sorted(values)
        if not values:
            return "no samples"
        p95 = values[min(len(values) - 1, math.ceil(0.95 * len(values)) - 1)]
        return f"p50 {statistics.median(values):6.1f} ms, p95 {p95:6.1f} ms, max {values[-1]:6.1f} ms (n={len(values)})"

    handler = _LockTimes()
    logger = logging.getLogger("arena.ladders.services")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    fills = []
    for _ in range(20):
        ladder.queue_size = _open_tables_now(ladder) + 2
        began = time.perf_counter()
        matchmaking_fill(ladder=ladder)
        fills.append((time.perf_counter() - began) * 1000)
    logger.removeHandler(handler)
    print(f"matchmaking fill of {slug} ({entrants} entrants, 2 new matches each), alone:")
    print(f"  whole fill       {summary(fills)}")
    print(f"  ladder lock held {summary(handler.samples)}")

    ids, outcomes = _queued_matches(ladder, count, rng)
    alone = _record_all(ids, outcomes, replay)
    ids, outcomes = _queued_matches(ladder, count, rng)
    ctx = multiprocessing.get_context("spawn")
    stop, results = ctx.Event(), ctx.Queue()
    worker = ctx.Process(target=_matchmaker, args=(url, var_dir, slug, stop, results))
    worker.start()
    time.sleep(3)  # let it start filling
    together = _record_all(ids, outcomes, replay)
    stop.set()
    mm = results.get(timeout=120)
    worker.join(timeout=60)
    print(f"recording a {ladder.seat_count}-seat ladder result (match_record_outcome, replay {len(replay)} bytes):")
    print(f"  alone                          {summary(alone)}")
    print(f"  with matchmaking on the ladder {summary(together)}")
    print(f"  the concurrent matchmaker: {len(mm['fills'])} fills, whole fill {summary(mm['fills'])}")
    print(f"                             ladder lock held {summary(mm['locks'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--database", default="arena_scale_bench")
    parser.add_argument("--admin-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--port", type=int, default=8140)
    parser.add_argument("--workers", type=int, default=0, help="gunicorn processes (default: gunicorn.conf.py's)")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seconds-per-url", type=float, default=20.0,
                        help="stop sending a URL's requests after this long (once 20 are done)")
    parser.add_argument("--recordings", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure a database kept by an earlier --keep run")
    parser.add_argument("--skip-http", action="store_true")
    parser.add_argument("--skip-recording", action="store_true", help="skip the recording and matchmaking part")
    parser.add_argument("--only", action="append", default=[],
                        help="measure only the URLs containing this text (repeatable)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the server and clean up on kill too
    url = database_url(args.admin_url, args.database)
    print(f"bench/scale.py: {args.bots} bots, {args.matches} matches, database {args.database}; "
          f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    with tempfile.TemporaryDirectory(prefix="arena-bench-scale-") as var_dir:
        info_path = Path(tempfile.gettempdir()) / f"{args.database}.info.json"
        if not args.reuse:
            create_database(args.admin_url, args.database)
        django_setup(url, var_dir)
        try:
            if args.reuse:
                info = json.loads(info_path.read_text())
                info["pool"] = {k: [bytes.fromhex(r) for r in v] for k, v in info["pool"].items()}
            else:
                from django.core.management import call_command

                call_command("migrate", verbosity=0)
                info = load(bots=args.bots, matches=args.matches, seed=args.seed)
                info_path.write_text(json.dumps({**info, "pool": {k: [r.hex() for r in v]
                                                                  for k, v in info["pool"].items()}}))
            bytes_per_match()
            if not args.skip_http:
                from django.db import connection

                connection.close()
                serve_and_measure(url, info, args.port, args.workers, args.requests, args.concurrency, var_dir,
                                  args.seconds_per_url, only=args.only)
            if not args.skip_recording:
                recording_and_matchmaking(url, var_dir, info, args.recordings)
            print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
        finally:
            from django.db import connections

            connections.close_all()
            if not args.keep:
                drop_database(args.admin_url, args.database)
                info_path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
