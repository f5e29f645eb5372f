"""A/B tests (issue 24): how fast a clear difference is decided, and how often an A/A test says H1.

    .venv/bin/python bench/abtest.py decide [--jobs 2] [--seed 1]
        heuristic (the Deep Sea Adventure starter kit, sandboxed) against builtin:random at 2
        seats, through ``python -m workers.abtest`` itself: seconds and games to a verdict.
    .venv/bin/python bench/abtest.py aa [--runs 200] [--first-seed 0] [--players 2] [--elo1 10] [--max-games 4000] [--jobs 2]
        A/A runs: the same bot on both sides, the test's own pairing and SPRT, the games played
        in-process (no sandbox: thousands of games per run). The bot is the built-in heuristic
        taking a uniformly random legal action 20 % of the time, its randomness drawn per game
        (seed, game of the pair, seat), so the two games of a pair differ: a deterministic copy
        would mirror itself exactly and every pair would be a draw. Prints the verdicts (false-H1
        rate with its 95 % interval) and the mean games per run.
    .venv/bin/python bench/abtest.py aa-pool [--pool-pairs 4000] [--runs 1000] [--players 2] [--elo1 10]
        The same A/A runs where playing every game of every run costs too much (an A/A run at
        elo1 = 10 takes about 6,000 games): plays ``--pool-pairs`` real A/A pairs as above once,
        then runs the SPRT ``--runs`` times on pairs drawn at random from them. Pairs of a test
        are independent draws (each has its own seed), so this is the test under the measured
        pair distribution.
    .venv/bin/python bench/abtest.py luck [--game deep_sea_adventure] [--players 2] [--a noisy:heuristic]
                                          [--b noisy:heuristic] [--pool-pairs 1000] [--runs 1000] [--elo1 40]
        luck-adjusted results against ranks: plays ``--pool-pairs`` real pairs in-process, measures
        each game's luck (workers.luck) and scores every pair both ways (B's head-to-head by rank,
        and by score - luck); for each way, the variance of the pair means and SPRT runs on pairs
        drawn from the pool (with A = B: the false-H1 rate; with a real difference: the games to
        a verdict). ``builtin:NAME`` plays clean, ``noisy:NAME`` 20 % random moves.
    .venv/bin/python bench/abtest.py platform --url http://127.0.0.1:8000 --user admin --password PW
        on a running platform (``make run``): starts an A/B test of the Deep Sea Adventure starter kit
        (B) against the built-in random bot (A) through ``POST /api/abtests/`` as the given user
        (staff: the demo's admin), polls ``GET /api/abtests/<id>/`` until it ends and prints the
        seconds to the verdict and how many ladder matches finished meanwhile.
    .venv/bin/python bench/abtest.py batch [--games 100] [--jobs 2]
        local batch throughput: ``python -m workers.play --games N --jobs J`` of 2-seat Deep Sea
        Adventure between two sandboxed copies of the starter kit: matches per second, per core.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines import get_game  # noqa: E402  (sys.path first)
from workers import abtest, sprt  # noqa: E402
from workers.luck import luck_of_game  # noqa: E402

NOISE = 0.2


def _rng(spec: abtest.GameSpec, seat: int) -> random.Random:
    digest = hashlib.sha256(f"{spec.seed}:{spec.index}:{seat}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def play_noisy(config: abtest.Config, spec: abtest.GameSpec) -> dict:
    """One in-process game of built-in bots; ``noisy:NAME`` plays NAME with 20 % random moves."""
    game = get_game(config.game)
    state = game.new_state(num_players=len(spec.bots), seed=spec.seed, options=config.options)
    rngs = [_rng(spec, seat) for seat in range(len(spec.bots))]
    bots = []
    for bot in spec.bots:
        name = bot.split(":", 1)[1]
        bots.append((game.bots[name], bot.startswith("noisy:")))
    actions = []
    while not state.is_terminal():
        chosen = {}
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            bot, noisy = bots[seat]
            if noisy and rngs[seat].random() < NOISE:
                chosen[seat] = legal[rngs[seat].randrange(len(legal))]
            else:
                chosen[seat] = bot(state.observation(seat), legal, rngs[seat])
        state.apply(chosen)
        actions.append(chosen)
    result = state.result()
    return {"scores": result["scores"], "ranks": result["ranks"], "faults": [], "actions": actions}


def _aa_run(args) -> dict:
    run, players, elo1, max_games, game = args
    config = abtest.Config(game=game, a="noisy:heuristic", b="noisy:heuristic", players=players,
                           opponents=("builtin:heuristic",) if players > 2 else (),
                           elo0=0.0, elo1=elo1, max_games=max_games, seed=run)
    return abtest.run_test(config, play=play_noisy, jobs=1)


def _binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    return min(1.0, sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                                 + i * log_p + (n - i) * log_q) for i in range(k + 1)))


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a proportion k / n: the p whose binomial tails at k
    are each (1 - level) / 2, found by bisection."""
    if n == 0:
        return 0.0, 1.0
    tail = (1 - level) / 2

    def solve(too_low) -> float:
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if too_low(mid) else (lo, mid)
        return (lo + hi) / 2

    lower = 0.0 if k == 0 else solve(lambda p: 1 - _binomial_cdf(k - 1, n, p) < tail)
    upper = 1.0 if k == n else solve(lambda p: _binomial_cdf(k, n, p) > tail)
    return lower, upper


def aa(args) -> None:
    started = time.monotonic()
    verdicts = {"H1": 0, "H0": 0, "undecided": 0}
    games = 0
    work = [(run, args.players, args.elo1, args.max_games, args.game)
            for run in range(args.first_seed, args.first_seed + args.runs)]
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for done, data in enumerate(pool.map(_aa_run, work), 1):
            verdicts[data["verdict"]] += 1
            games += data["games"]
            if done % 20 == 0 or done == args.runs:
                print(f"  {done}/{args.runs} runs: {verdicts}, {time.monotonic() - started:.0f} s",
                      file=sys.stderr, flush=True)
    lo, hi = clopper_pearson(verdicts["H1"], args.runs)
    print(f"A/A {args.game} {args.players} seats, elo0 0 elo1 {args.elo1:g}, alpha = beta = 0.05, "
          f"max {args.max_games} games: {args.runs} runs (seeds {args.first_seed}-{args.first_seed + args.runs - 1})")
    print(f"  verdicts {verdicts}; false-H1 {verdicts['H1'] / args.runs:.3f} (95 % Clopper-Pearson {lo:.3f}-{hi:.3f}); "
          f"mean games per run {games / args.runs:.0f}; {time.monotonic() - started:.0f} s "
          f"(load {os.getloadavg()[0]:.2f})")


def _pool_pairs(args) -> tuple[int, list[tuple[float, float]]]:
    """(seed, [(first, second) head-to-head results]) of one chunk of real A/A pairs."""
    start, count, players, game = args
    config = abtest.Config(game=game, a="noisy:heuristic", b="noisy:heuristic", players=players,
                           opponents=("builtin:heuristic",) if players > 2 else ())
    pairs = []
    for pair in range(start, start + count):
        results = []
        for spec in abtest.pair_games(config, pair):
            outcome = play_noisy(config, spec)
            results.append(sprt.head_to_head(spec.a_seat, spec.b_seat, outcome["ranks"]))
        pairs.append(tuple(results))
    return start, pairs


def aa_pool(args) -> None:
    started = time.monotonic()
    chunk = 100
    work = [(start, min(chunk, args.pool_pairs - start), args.players, args.game)
            for start in range(0, args.pool_pairs, chunk)]
    pool_pairs: list[tuple[float, float]] = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for _, pairs in sorted(pool.map(_pool_pairs, work)):
            pool_pairs.extend(pairs)
    played = time.monotonic() - started
    # A and B are the same bot: a pair and its mirror (the names swapped) are equally likely.
    # Adding every mirror makes the pool's mean exactly 1/2, the truth of an A/A test (a pool's
    # own mean is off by its sampling error: +-0.007 at 4,000 pairs, about 5 Elo, which would
    # move the SPRT towards one side).
    pool_pairs += [(1 - first, 1 - second) for first, second in pool_pairs]
    tally = sprt.Tally(elo0=0.0, elo1=args.elo1)
    for first, second in pool_pairs:
        tally.add_pair(first, second)
    mean, variance = tally.mean_and_variance()
    verdicts = {"H1": 0, "H0": 0, "undecided": 0}
    lengths = []
    for run in range(args.runs):
        rng = random.Random(run)
        tally = sprt.Tally(elo0=0.0, elo1=args.elo1)
        while tally.games < args.max_games:
            tally.add_pair(*pool_pairs[rng.randrange(len(pool_pairs))])
            if sprt.verdict(tally, 0.05, 0.05) != "undecided":
                break
        verdicts[sprt.verdict(tally, 0.05, 0.05)] += 1
        lengths.append(tally.games)
    lo, hi = clopper_pearson(verdicts["H1"], args.runs)
    lengths.sort()
    print(f"A/A {args.game} {args.players} seats: {len(pool_pairs) // 2} real pairs (and their mirrors) played in {played:.0f} s "
          f"(load {os.getloadavg()[0]:.2f}); pair classes {tally_counts(pool_pairs)}, "
          f"mean {mean:.4f}, variance of pair means {variance:.4f}")
    print(f"  {args.runs} SPRT runs (elo0 0, elo1 {args.elo1:g}, alpha = beta = 0.05, max {args.max_games} games) "
          f"on pairs drawn from them: verdicts {verdicts}; false-H1 {verdicts['H1'] / args.runs:.3f} "
          f"(95 % Clopper-Pearson {lo:.3f}-{hi:.3f}); games per run median {lengths[len(lengths) // 2]}, "
          f"mean {sum(lengths) / len(lengths):.0f}")


def _luck_pairs(args) -> tuple[int, list[tuple[float, ...]]]:
    """(start, [(first, second, first adjusted, second adjusted, pair adjusted, pair adjusted)]):
    real pairs of ``a`` against ``b``, B's head-to-head results by rank, by score - luck
    (workers.luck) in each game, and by score - luck summed over the pair's two games."""
    start, count, players, game, a, b = args
    config = abtest.Config(game=game, a=a, b=b, players=players,
                           opponents=("builtin:heuristic",) if players > 2 else (), seed=1)
    pairs = []
    for pair in range(start, start + count):
        raw, adjusted, margin = [], [], 0.0
        for spec in abtest.pair_games(config, pair):
            outcome = play_noisy(config, spec)
            luck = luck_of_game(game, num_players=players, seed=spec.seed, actions=outcome["actions"])
            values = [score - x for score, x in zip(outcome["scores"], luck)]
            raw.append(sprt.head_to_head(spec.a_seat, spec.b_seat, outcome["ranks"]))
            adjusted.append(sprt.head_to_head(spec.a_seat, spec.b_seat, outcome["ranks"], values=values))
            margin += values[spec.b_seat] - values[spec.a_seat]
        both = 1.0 if margin > 1e-9 else 0.0 if margin < -1e-9 else 0.5
        pairs.append((raw[0], raw[1], adjusted[0], adjusted[1], both, both))
    return start, pairs


def _sprt_runs(pool: list[tuple[float, float]], runs: int, elo1: float, max_games: int) -> tuple[dict, list[int]]:
    """The SPRT run ``runs`` times on pairs drawn from ``pool``: verdicts and games per run."""
    verdicts = {"H1": 0, "H0": 0, "undecided": 0}
    lengths = []
    for run in range(runs):
        rng = random.Random(run)
        tally = sprt.Tally(elo0=0.0, elo1=elo1)
        while tally.games < max_games and sprt.verdict(tally, 0.05, 0.05) == "undecided":
            tally.add_pair(*pool[rng.randrange(len(pool))])
        verdicts[sprt.verdict(tally, 0.05, 0.05)] += 1
        lengths.append(tally.games)
    return verdicts, sorted(lengths)


def luck(args) -> None:
    """With and without luck: the variance of pair means, the games to a verdict and the
    false-H1 rate, on one pool of real pairs scored both ways."""
    started = time.monotonic()
    chunk = 50
    work = [(start, min(chunk, args.pool_pairs - start), args.players, args.game, args.a, args.b)
            for start in range(0, args.pool_pairs, chunk)]
    rows: list[tuple[float, ...]] = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for _, pairs in sorted(pool.map(_luck_pairs, work)):
            rows.extend(pairs)
    played = time.monotonic() - started
    aa = args.a == args.b
    print(f"luck in the statistic: {args.game} {args.players} seats, A = {args.a}, B = {args.b}: {len(rows)} real pairs "
          f"played and their luck measured in {played:.0f} s (load {os.getloadavg()[0]:.2f})")
    for name, columns in (("ranks", (0, 1)), ("score - luck per game", (2, 3)),
                          ("score - luck summed over the pair", (4, 5))):
        pool_pairs = [(row[columns[0]], row[columns[1]]) for row in rows]
        if aa:        # the mirrors make the pool's mean exactly 1/2, the truth of an A/A test
            pool_pairs += [(1 - first, 1 - second) for first, second in pool_pairs]
        tally = sprt.Tally(elo0=0.0, elo1=args.elo1)
        for first, second in pool_pairs:
            tally.add_pair(first, second)
        mean, variance = tally.mean_and_variance()
        verdicts, lengths = _sprt_runs(pool_pairs, args.runs, args.elo1, args.max_games)
        lo, hi = clopper_pearson(verdicts["H1"], args.runs)
        print(f"  by {name}: pair classes {tally.counts}, mean {mean:.4f} (Elo {sprt.elo_of_score(mean):+.1f}), "
              f"variance of pair means {variance:.4f}, per unit of squared effect "
              f"{variance / max((mean - 0.5) ** 2, 1e-12):.1f}" if not aa else
              f"  by {name}: pair classes {tally.counts}, variance of pair means {variance:.4f}")
        print(f"    {args.runs} SPRT runs at 0/{args.elo1:g} Elo on pairs drawn from the pool: {verdicts}; H1 rate "
              f"{verdicts['H1'] / args.runs:.3f} (95 % Clopper-Pearson {lo:.3f}-{hi:.3f}); games per run median "
              f"{lengths[len(lengths) // 2]}, mean {sum(lengths) / len(lengths):.0f}")


def tally_counts(pairs: list[tuple[float, float]]) -> list[int]:
    """Pairs per class 0, 1/4, 1/2, 3/4, 1."""
    tally = sprt.Tally()
    for first, second in pairs:
        tally.add_pair(first, second)
    return tally.counts


def decide(args) -> None:
    command = [sys.executable, "-m", "workers.abtest", "deep_sea_adventure", "builtin:random",
               "starter_kits/deep_sea_adventure/main.py", "--jobs", str(args.jobs), "--seed", str(args.seed),
               "--json", "--quiet"]
    started = time.monotonic()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    seconds = time.monotonic() - started
    data = json.loads(result.stdout)
    print(f"decide: {' '.join(command[1:])}")
    print(f"  verdict {data['verdict']} after {data['games']} games, Elo {data['elo']:+.0f} "
          f"{data['elo_ci']}, {seconds:.1f} s wall (load {os.getloadavg()[0]:.2f})")


def batch(args) -> None:
    kit = "starter_kits/deep_sea_adventure/main.py"
    command = [sys.executable, "-m", "workers.play", "deep_sea_adventure", kit, kit, "--games", str(args.games),
               "--jobs", str(args.jobs), "--json"]
    load = os.getloadavg()[0]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    data = json.loads(result.stdout)
    cores = min(args.jobs, os.cpu_count() or 1)
    faults = sum(sum(row["faults"].values()) for row in data["bots"])
    print(f"batch: {' '.join(command[1:])}")
    print(f"  {data['games']} sandboxed matches in {data['seconds']:.1f} s: {data['games_per_second']:.2f} "
          f"matches/s, {data['games_per_second'] / cores:.2f} per core ({cores} cores), {faults} faults "
          f"(load {load:.2f} before, {os.getloadavg()[0]:.2f} after)")


def _api(base: str, path: str, token: str | None = None, body: dict | None = None):
    import urllib.request

    request = urllib.request.Request(base.rstrip("/") + path, method="POST" if body is not None else "GET",
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Token {token}"} if token else {})})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def _ladder_done(base: str) -> int:
    """Ladder matches done so far (counted over the keyset pages of the match list)."""
    count, path = 0, "/api/matches/?kind=ladder&status=done&page_size=200"
    while path:
        page = _api(base, path)
        count += len(page["results"])
        path = page.get("next")
        if path and path.startswith("http"):
            path = path[path.index("/api/"):]
    return count


def platform(args) -> None:
    token = _api(args.url, "/api/auth/token/", body={"username": args.user, "password": args.password})["token"]
    bots = _api(args.url, "/api/bots/?game=deep_sea_adventure&page_size=200")["results"]
    def version_of(words):
        bot = next(b for b in bots if all(w in b["name"].lower() for w in words))
        return bot["active_version"]["id"]
    a = args.a or version_of(["random"])
    b = args.b or version_of(["starter"])
    ladder_before = _ladder_done(args.url)
    started = time.monotonic()
    test = _api(args.url, "/api/abtests/", token, {"game": "deep_sea_adventure", "num_players": 2, "a": a, "b": b,
                                                    "elo0": 0, "elo1": 10, "max_games": 400})
    while test["status"] in ("queued", "running"):
        time.sleep(5)
        test = _api(args.url, f"/api/abtests/{test['id']}/", token)
        print(f"  {time.monotonic() - started:.0f} s: {test['status']}, {test['games']} games, LLR {test['llr']}",
              file=sys.stderr, flush=True)
    seconds = time.monotonic() - started
    print(f"platform: A/B test {test['id']} (A version {a}, B version {b}): {test['status']}, verdict "
          f"{test['verdict']} after {test['games']} games, Elo {test['elo']} {test['elo_ci']}, {seconds:.0f} s; "
          f"{_ladder_done(args.url) - ladder_before} ladder matches finished meanwhile (load {os.getloadavg()[0]:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    d = sub.add_parser("decide")
    d.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    d.add_argument("--seed", type=int, default=1)
    a = sub.add_parser("aa")
    a.add_argument("--runs", type=int, default=200)
    a.add_argument("--players", type=int, default=2)
    a.add_argument("--elo1", type=float, default=10.0)
    a.add_argument("--max-games", type=int, default=4000)
    a.add_argument("--game", default="deep_sea_adventure")
    a.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a.add_argument("--first-seed", type=int, default=0, help="runs use the seeds from this one on")
    p = sub.add_parser("aa-pool")
    p.add_argument("--pool-pairs", type=int, default=4000)
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--elo1", type=float, default=10.0)
    p.add_argument("--max-games", type=int, default=40_000)
    p.add_argument("--game", default="deep_sea_adventure")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    lk = sub.add_parser("luck")
    lk.add_argument("--game", default="deep_sea_adventure")
    lk.add_argument("--players", type=int, default=2)
    lk.add_argument("--a", default="noisy:heuristic")
    lk.add_argument("--b", default="noisy:heuristic")
    lk.add_argument("--pool-pairs", type=int, default=1000)
    lk.add_argument("--runs", type=int, default=1000)
    lk.add_argument("--elo1", type=float, default=40.0)
    lk.add_argument("--max-games", type=int, default=20_000)
    lk.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    pl = sub.add_parser("platform")
    pl.add_argument("--url", default="http://127.0.0.1:8000")
    pl.add_argument("--user", default="admin")
    pl.add_argument("--password", required=True)
    pl.add_argument("--a", type=int, help="version id of A (default: the built-in random bot's)")
    pl.add_argument("--b", type=int, help="version id of B (default: the starter kit's)")
    b = sub.add_parser("batch")
    b.add_argument("--games", type=int, default=100)
    b.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    {"decide": decide, "aa": aa, "aa-pool": aa_pool, "batch": batch, "platform": platform, "luck": luck}[args.what](args)


if __name__ == "__main__":
    main()
