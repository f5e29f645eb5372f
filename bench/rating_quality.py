"""Rating quality: how many ladder matches per bot until the leaderboard has the true order.

Eight bots of known, graded strength (each game's built-in heuristic, playing a uniformly random
legal move instead with probability 0, 0.15, 0.30, 0.45, 0.60, 0.75, 0.90, 1.0) play simulated
ladders in-process through the engines, tables chosen by the project's own matchmaking
(``matchmaking_choose``), rated by the project's own live Elo (``standings_after_group``) and by
the platform's batch ratings (``competition.ratings.batch``: ``fit`` on ranks, *batch*, and
``fit_scores`` on score margins, *scores*). Printed: mean Kendall tau of each rating's order
against the true order after M matches per bot, P(best bot ranked first), optionally the standard
error of each mean (``--spread``), and each seat's share of wins. Ratings marked ``*`` are
experiments the platform does not have: ``huber*`` (a robust M-estimate of the score-margin
model), ``margin/sd*`` (each game weighted by 1 / its scores' variance) and ``hetero*`` (each
bot's own score variance, feasible weighted least squares).

Play configurations (each its own independent ladders):
- ``window K=..``: today's matchmaking (nearest live Elo, 100 points of noise) steered by live Elo
  at that K; rated by that Elo and by the batch fits.
- ``random``: newcomers first, the rest of the table at random (``matchmaking_choose`` in window
  mode with noise so wide that the rating no longer matters; the figures were first measured so,
  before its ``mode="random"`` reached main, which draws the same uniform tables with other
  draws); rated by Elo at every K and by the batch fits (matchmaking does not read the ratings, so
  one ladder serves them all).
- ``window fit/10`` (an experiment, not on the platform): the window steered by ``fit_scores``
  instead of live Elo, refitted every 10 tables (the beat task refits every few minutes; a bot
  not in the fit yet, and every bot before the first fit, counts as 1500, the fit's mean).
- ``info`` (an experiment, not on the platform): newcomers first, then the bots whose order
  against those seated is least certain under ``fit_scores`` refitted before every table.
- ``+groups``: each table plays one seed once per cyclic seat rotation (``seat_orders``); live
  Elo rates the group once on its mean pairwise result (``standings_after_group``, as the
  ladder does), the batch fits take it as one group.

Matches per bot are counted honestly: a group of k games counts k matches for each of its bots.
Built-in bots draw their own randomness from a per-(seed, seat) ``random.Random`` like the
runner's built-in seats (a cheap hash here instead of the runner's slow seat-seed derivation).
The ladders are seeded by (game, configuration, ladder number): a row is the same in every run
that has it, whatever else is run beside it.

    .venv/bin/python bench/rating_quality.py                      # every game, 20 ladders, M <= 100
    .venv/bin/python bench/rating_quality.py --games deep_dive --configs "window K=16 +groups" --methods scores
    .venv/bin/python bench/rating_quality.py --games deep_sea_adventure --max-matches 60 --ladders 60 --spread
    nice -n 10 .venv/bin/python bench/rating_quality.py --official --ladders 100   # issue 23's goal line
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import math
import os
import random
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import official_quality  # noqa: E402  (circular on purpose: it reads this module's bots and ladders)

from competition.ratings.batch import fit, probability_stronger  # noqa: E402
from competition.ratings.batch_scores import fit_scores  # noqa: E402
from competition.ratings.standing import SeatResult, Standing, standings_after_group  # noqa: E402
from competition.rotation import seat_orders  # noqa: E402
from engines import get_game  # noqa: E402
from engines.bots import random_bot  # noqa: E402

GAMES = {"deep_sea_adventure": 4, "dive_diver_die": 4, "deep_dive": 2}
RANDOM_MOVE = (0.0, 0.15, 0.30, 0.45, 0.60, 0.75, 0.90, 1.0)  # bot b's chance of a random move
CHECKPOINTS = (10, 20, 30, 50, 60, 100, 200)
K_VALUES = (32.0, 16.0, 8.0)
INITIAL = 1200.0  # the Ladder model's default initial rating
RANDOM_TABLES_SPREAD = 1e12  # matchmaking noise that drowns every rating difference
# name: (matchmaking, K steering the window or None / tables between refits for "window fit",
# rotation groups)
CONFIGS = {
    "window K=32": ("window", 32.0, False),
    "window K=16": ("window", 16.0, False),
    "window K=8": ("window", 8.0, False),
    "random": ("random", None, False),
    "window K=16 +groups": ("window", 16.0, True),
    "window K=8 +groups": ("window", 8.0, True),
    "random +groups": ("random", None, True),
    "window fit/10": ("window fit", 10, False),
    "window fit/10 +groups": ("window fit", 10, True),
    "info": ("info", None, False),
    "info +groups": ("info", None, True),
}
# name: rating of a ladder's history (groups of (seated, ranks, scores) games) -> ratings by bot
METHODS = {
    "batch": lambda history, count: _batch_ratings(history, count),
    "scores": lambda history, count: _scores_ratings(history, count),
    "margin/sd*": lambda history, count: _per_game_sd_ratings(_scored(history), count),
    "huber*": lambda history, count: _huber_ratings(_scored(history), count),
    "hetero*": lambda history, count: _hetero_ratings(_scored(history), count),
}


@functools.cache
def _django():
    """matchmaking_choose lives in a module that imports Django models: load the apps on a
    throwaway SQLite configuration (nothing is read or written)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    os.environ["ARENA_VAR_DIR"] = os.environ.get("RATING_QUALITY_VAR_DIR") or tempfile.mkdtemp(prefix="rating-quality-")
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from arena.ladders.services import matchmaking_choose

    return matchmaking_choose


def _graded_bot(heuristic, chance: float):
    def bot(observation, legal_actions, rng):
        if rng.random() < chance:
            return random_bot(observation, legal_actions, rng)
        return heuristic(observation, legal_actions, rng)
    return bot


def _seat_rng(seed: int, seat: int) -> random.Random:
    digest = hashlib.blake2b(f"{seed}:{seat}".encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _play(game, bots, seated: list[int], seed: int) -> tuple[list[int], list[float]]:
    """Ranks and scores by seat of one game of ``seated`` (bot indexes in seat order)."""
    state = game.new_state(num_players=len(seated), seed=seed)
    rngs = [_seat_rng(seed, seat) for seat in range(len(seated))]
    while not state.is_terminal():
        state.apply({seat: bots[seated[seat]](state.observation(seat), state.legal_actions(seat), rngs[seat])
                     for seat in state.to_act()})
    result = state.result()
    return list(result["ranks"]), [float(x) for x in result["scores"]]


def _solve_dense(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gauss-Jordan on a small positive definite system (the ridge keeps it so)."""
    matrix = [row[:] for row in matrix]
    rhs = list(rhs)
    count = len(rhs)
    for column in range(count):
        pivot = matrix[column][column]
        matrix[column] = [x / pivot for x in matrix[column]]
        rhs[column] /= pivot
        for r in range(count):
            if r != column and matrix[r][column]:
                factor = matrix[r][column]
                matrix[r] = [x - factor * y for x, y in zip(matrix[r], matrix[column])]
                rhs[r] -= factor * rhs[column]
    return rhs


def _margin_fit(games, count: int, weights=None) -> list[float]:
    """Weighted least squares on table-centred scores: each seat's score minus its table's mean
    is its bot's strength minus the table's mean strength (ridge 0.01 per bot)."""
    matrix = [[0.01 if a == b else 0.0 for b in range(count)] for a in range(count)]
    rhs = [0.0] * count
    for g, (seated, scores) in enumerate(games):
        n = len(seated)
        if n < 2:
            continue
        w = 1.0 if weights is None else weights[g]
        mean = sum(scores) / n
        for s, bot in enumerate(seated):
            row = {other: -1.0 / n for other in seated}
            row[bot] += 1.0
            y = scores[s] - mean
            for a, ra in row.items():
                rhs[a] += w * ra * y
                for b, rb in row.items():
                    matrix[a][b] += w * ra * rb
    return _solve_dense(matrix, rhs)


def _per_game_sd_ratings(games, count: int) -> list[float]:
    """Least squares with each game weighted by 1 / (its scores' variance): a wild game counts less."""
    weights = []
    for _, scores in games:
        n = len(scores)
        mean = sum(scores) / n
        var = sum((x - mean) ** 2 for x in scores) / n
        weights.append(1.0 / var if var > 0 else 0.0)
    return _margin_fit(games, count, weights)


def _hetero_ratings(games, count: int, rounds: int = 3) -> list[float]:
    """Feasible weighted least squares: score = strength + table effect + noise whose variance is
    the bot's own (a random mover that always scores 0 is more telling than a gambler); the table
    effect is the weighted mean, each bot's variance re-estimated from its residuals each round."""
    variance = [1.0] * count
    theta = [0.0] * count
    for _ in range(rounds + 1):
        matrix = [[0.01 if a == b else 0.0 for b in range(count)] for a in range(count)]
        rhs = [0.0] * count
        for seated, scores in games:
            w = [1.0 / variance[b] for b in seated]
            total = sum(w)
            mean = sum(wi * x for wi, x in zip(w, scores)) / total
            for s, a in enumerate(seated):
                rhs[a] += w[s] * (scores[s] - mean)
                matrix[a][a] += w[s]
                for t, b in enumerate(seated):
                    matrix[a][b] -= w[s] * w[t] / total
        theta = _solve_dense(matrix, rhs)
        squares, counts = [0.0] * count, [0.0] * count
        for seated, scores in games:
            w = [1.0 / variance[b] for b in seated]
            total = sum(w)
            mean = sum(wi * (x - theta[b]) for wi, x, b in zip(w, scores, seated)) / total
            for s, b in enumerate(seated):
                squares[b] += (scores[s] - theta[b] - mean) ** 2
                counts[b] += 1 - w[s] / total
        pooled = sum(squares) / max(sum(counts), 1e-9)
        # shrink each bot's variance towards the pooled one (a few games say little about a spread)
        variance = [max((squares[b] + 5 * pooled) / (counts[b] + 5), 1e-6 * (pooled or 1.0)) for b in range(count)]
    return theta


def _huber_ratings(games, count: int, rounds: int = 4) -> list[float]:
    """Huber M-estimate of the margin model by reweighted least squares (c = 1.345 robust sd)."""
    theta = _margin_fit(games, count)
    for _ in range(rounds):
        residuals = []
        for seated, scores in games:
            n = len(seated)
            mean, strength = sum(scores) / n, sum(theta[b] for b in seated) / n
            residuals.append([scores[s] - mean - theta[b] + strength for s, b in enumerate(seated)])
        flat = sorted(abs(r) for rs in residuals for r in rs)
        scale = 1.4826 * flat[len(flat) // 2] or 1.0
        c = 1.345 * scale
        weights = [min(1.0, c / max(max(abs(r) for r in rs), 1e-12)) for rs in residuals]
        theta = _margin_fit(games, count, weights)
    return theta


def _scored(history):
    return [(seated, scores) for group in history for seated, _, scores in group]


def _batch_ratings(history, count: int) -> list[float]:
    batch = fit([[list(zip(seated, ranks)) for seated, ranks, _ in group] for group in history], bootstrap=0)
    return [batch[b].rating if b in batch else 1500.0 for b in range(count)]


def _scores_ratings(history, count: int) -> list[float]:
    batch = fit_scores([[list(zip(seated, scores)) for seated, _, scores in group] for group in history], bootstrap=0)
    return [batch[b].rating if b in batch else 1500.0 for b in range(count)]


def _info_table(history, played: list[int], seats: int, rng: random.Random) -> list[int]:
    """Information-seeking table (an experiment, not on the platform): a bot with the fewest games
    first, then greedily the bot whose order against those seated is least certain under the
    platform's score fit (sum over the pairs of min(P(a > b), P(b > a)), ``probability_stronger``
    on the fitted ratings and intervals, refitted before every table)."""
    count = len(played)
    fewest = min(played)
    first = rng.choice([b for b in range(count) if played[b] == fewest])
    fitted = fit_scores([[list(zip(seated, scores)) for seated, _, scores in group] for group in history],
                        bootstrap=0)
    if len(fitted) < count:
        others = rng.sample([b for b in range(count) if b != first], seats - 1)
        table = [first] + others
        rng.shuffle(table)
        return table

    def doubt(a, b):
        q = probability_stronger(fitted[a], fitted[b])
        return min(q, 1.0 - q)

    table = [first]
    while len(table) < seats:
        best = max((b for b in range(count) if b not in table),
                   key=lambda b: sum(doubt(a, b) for a in table) + 1e-9 * rng.random())
        table.append(best)
    rng.shuffle(table)
    return table


def kendall_tau(ratings: list[float]) -> float:
    """Tau of the rating order against the true one (bot 0 strongest); a tie counts 0."""
    n, total = len(ratings), 0
    for a in range(n):
        for b in range(a + 1, n):
            total += (ratings[a] > ratings[b]) - (ratings[a] < ratings[b])
    return total / (n * (n - 1) / 2)


def _live_update(standings: list[Standing], tables: list[tuple[list[int], list[int]]], k: float) -> None:
    """Rate a group (or a lone game) once, as the ladder does (``standings_after_group``)."""
    entrants = tables[0][0]
    games = [[SeatResult(score=0.0, rank=ranks[seated.index(b)], faulted=False) for b in entrants]
             for seated, ranks in tables]
    after = standings_after_group([standings[b] for b in entrants], games, solo=False, k_factor=k)
    for b, s in zip(entrants, after):
        standings[b] = s


def run_ladder(task: tuple[str, str, int, int, tuple[str, ...]]) -> dict:
    """One independent ladder of one configuration, played up to ``max_matches`` per bot."""
    game_id, config, ladder, max_matches, methods = task
    matchmaking_choose = _django()
    mode, steer_k, groups = CONFIGS[config]
    seats = GAMES[game_id]
    game = get_game(game_id)
    heuristic = game.bots["heuristic"]
    bots = [_graded_bot(heuristic, chance) for chance in RANDOM_MOVE]
    count = len(bots)
    rng = random.Random(f"{game_id}|{config}|{ladder}")
    rated_ks = (steer_k,) if mode == "window" else K_VALUES
    fitted = {}
    live = {k: [Standing(elo=INITIAL) for _ in range(count)] for k in rated_ks}
    played = [0] * count
    history: list[list[tuple[list[int], list[int], list[float]]]] = []  # groups of (seated, ranks, scores)
    seat_wins = [0.0] * seats
    games_played = 0
    checkpoints = [m for m in CHECKPOINTS if m <= max_matches]
    out = {"tau": {}, "best_first": {}, "matches_at": {}}
    next_checkpoint = 0
    while next_checkpoint < len(checkpoints):
        if mode == "info":
            table = _info_table(history, played, seats, rng)
        elif mode == "window fit":  # the window steered by the score fit, refitted every steer_k tables
            if len(history) % steer_k == 0:
                fitted = fit_scores([[list(zip(seated, scores)) for seated, _, scores in group]
                                     for group in history], bootstrap=0)
            table = matchmaking_choose(
                candidates=[(b, fitted[b].rating if b in fitted else 1500.0, played[b]) for b in range(count)],
                seats=seats, rng=rng)
        else:
            steering = live[steer_k] if mode == "window" else live[K_VALUES[0]]
            table = matchmaking_choose(
                candidates=[(b, steering[b].elo, played[b]) for b in range(count)], seats=seats, rng=rng,
                **({"spread": RANDOM_TABLES_SPREAD} if mode == "random" else {}))
        seed = rng.randrange(2 ** 31)
        orders = seat_orders(seats) if groups else [tuple(range(seats))]
        results = []
        for order in orders:
            seated = [table[i] for i in order]
            ranks, scores = _play(game, bots, seated, seed)
            results.append((seated, ranks, scores))
            winners = [s for s, r in enumerate(ranks) if r == 1]
            for s in winners:
                seat_wins[s] += 1 / len(winners)
            games_played += 1
        for b in table:
            played[b] += len(orders)
        for k in rated_ks:
            _live_update(live[k], [(seated, ranks) for seated, ranks, _ in results], k)
        history.append(results)
        while next_checkpoint < len(checkpoints) and sum(played) >= checkpoints[next_checkpoint] * count:
            m = checkpoints[next_checkpoint]
            orders_now = {f"Elo K={k:g}": [s.elo for s in live[k]] for k in rated_ks}
            for method in methods:
                orders_now[method] = METHODS[method](history, count)
            for method, ratings in orders_now.items():
                out["tau"].setdefault(method, {})[m] = kendall_tau(ratings)
                out["best_first"].setdefault(method, {})[m] = float(ratings[0] > max(ratings[1:]))
            out["matches_at"][m] = sum(played) / count
            next_checkpoint += 1
    out["seat_wins"] = seat_wins
    out["games"] = games_played
    out.update(game=game_id, config=config, ladder=ladder)
    return out


def _report(game_id: str, results: list[dict], checkpoints: list[int], seats: int, spread: bool) -> None:
    print(f"\n## {game_id} {seats}p: mean Kendall tau (P best bot first) over ladders")
    header = f"{'configuration':22} {'rating':10} " + " ".join(f"{'M=' + str(m):>12}" for m in checkpoints)
    print(header + "  M to tau>=0.9")
    for config in CONFIGS:
        runs = [r for r in results if r["config"] == config]
        if not runs:
            continue
        for method in runs[0]["tau"]:
            taus = [sum(r["tau"][method][m] for r in runs) / len(runs) for m in checkpoints]
            best = [sum(r["best_first"][method][m] for r in runs) / len(runs) for m in checkpoints]
            reached = next((str(m) for m, t in zip(checkpoints, taus) if t >= 0.9), f">{checkpoints[-1]}")
            cells = " ".join(f"{t:6.3f} ({b:.2f})" for t, b in zip(taus, best))
            print(f"{config:22} {method:10} {cells}  {reached}  [{len(runs)} ladders]")
            if spread and len(runs) > 1:
                errors = []
                for m, mean in zip(checkpoints, taus):
                    values = [r["tau"][method][m] for r in runs]
                    errors.append(math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1) / len(values)))
                print(f"{'':22} {'  s.e.':10} " + " ".join(f"{'+-' + format(e, '.3f'):>12}" for e in errors))
    plain = [r for r in results if not CONFIGS[r["config"]][2]]
    wins = [sum(r["seat_wins"][s] for r in plain) for s in range(seats)]
    total = sum(wins)
    if total:
        shares = " / ".join(f"{100 * w / total:.1f}" for w in wins)
        print(f"win share by seat (ladder games without groups, {int(total)} games): {shares} %")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated game ids")
    parser.add_argument("--ladders", type=int, default=20, help="independent ladders per configuration")
    parser.add_argument("--max-matches", type=int, default=100,
                        help="matches per bot to play up to (200 doubles the run)")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated configurations")
    parser.add_argument("--methods", default=",".join(METHODS),
                        help="comma-separated ratings to compute besides live Elo")
    parser.add_argument("--spread", action="store_true",
                        help="print the standard error of each mean tau (over the ladders) under its row")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--official", action="store_true",
                        help="the official rating as the leaderboard ranks (luck-adjusted; bench/official_quality.py) "
                             "on each goal game's recommended ladder; --games and --ladders apply")
    parser.add_argument("--save", help="with --official: append each played ladder (games, scores, luck) to this "
                                       "JSON-lines file")
    parser.add_argument("--saved", help="with --official: rate the ladders saved in these files (comma-separated) "
                                        "instead of playing")
    parser.add_argument("--first-ladder", type=int, default=0,
                        help="with --official: play ladders from this number on (to share a run between invocations)")
    args = parser.parse_args()
    if args.official:
        chosen = [g for g in args.games.split(",") if g]
        for name in chosen:
            if name not in official_quality.OFFICIAL:
                parser.error(f"unknown game {name!r}; choose from {', '.join(official_quality.OFFICIAL)}")
        official_quality.main_official(chosen, args.ladders, args.processes, args.save, args.saved,
                                       args.first_ladder)
        return
    game_ids = [g for g in args.games.split(",") if g]
    configs = [c for c in args.configs.split(",") if c]
    methods = tuple(m for m in args.methods.split(",") if m)
    for name in methods:
        if name not in METHODS:
            parser.error(f"unknown rating {name!r}; choose from {', '.join(METHODS)}")
    for name in game_ids:
        if name not in GAMES:
            parser.error(f"unknown game {name!r}; choose from {', '.join(GAMES)}")
    for name in configs:
        if name not in CONFIGS:
            parser.error(f"unknown configuration {name!r}; choose from {', '.join(CONFIGS)}")
    checkpoints = [m for m in CHECKPOINTS if m <= args.max_matches]
    if not checkpoints:
        parser.error(f"--max-matches must be at least {CHECKPOINTS[0]}")
    print(f"rating_quality: {args.ladders} ladders x {len(configs)} configurations x {len(game_ids)} games, "
          f"up to {args.max_matches} matches per bot, {args.processes} processes; "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    started = time.perf_counter()
    with Pool(args.processes) as pool:
        for game_id in game_ids:
            tasks = [(game_id, config, ladder, args.max_matches, methods) for ladder in range(args.ladders) for config in configs]
            results = []
            for done, result in enumerate(pool.imap_unordered(run_ladder, tasks), 1):
                results.append(result)
                if done % max(1, len(tasks) // 10) == 0 or done == len(tasks):
                    print(f"  {game_id}: {done}/{len(tasks)} ladders, {time.perf_counter() - started:.0f} s",
                          flush=True)
            _report(game_id, results, checkpoints, GAMES[game_id], args.spread)
    print(f"\ntotal {time.perf_counter() - started:.0f} s; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
