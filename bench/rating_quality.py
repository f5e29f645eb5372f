"""Rating quality: how many ladder matches per bot until the leaderboard has the true order.

Eight bots of known, graded strength (each game's built-in heuristic, playing a uniformly random
legal move instead with probability 0, 0.15, 0.30, 0.45, 0.60, 0.75, 0.90, 1.0) play simulated
ladders in-process through the engines, tables chosen by the project's own matchmaking
(``matchmaking_choose``), rated by the project's own live Elo (``standings_after_group``) and by
the batch rating (``arena.ladders.batch_rating.fit``). Printed: mean Kendall tau of each rating's
order against the true order after M matches per bot, P(best bot ranked first), and each seat's
share of wins. ``margin*`` is an experiment the platform does not have: a least-squares rating on
score margins (``score_margin_ratings``), to show how much the ranks alone leave out.

Play configurations (each its own independent ladders):
- ``window K=..``: today's matchmaking (nearest live Elo, 100 points of noise) steered by live Elo
  at that K; rated by that Elo and by the batch fit.
- ``random``: newcomers first, the rest of the table at random (``matchmaking_choose`` in window
  mode with noise so wide that the rating no longer matters; the figures were measured so, before
  its ``mode="random"`` reached main, which draws the same uniform tables with other draws); rated by Elo at every K and by the batch fit
  (matchmaking does not read the ratings, so one ladder serves them all).
- ``+groups``: each table plays one seed once per cyclic seat rotation (``seat_orders``); live
  Elo rates the group once on its mean pairwise result (``standings_after_group``, as the
  ladder does), the batch fit takes it as one group. (The figures in docs/benchmarks.md were
  measured before ``standings_after_group`` reached main, with the same maths written here: every
  game's Elo change at K/k from the ratings before the group, summed.)

Matches per bot are counted honestly: a group of k games counts k matches for each of its bots.
Built-in bots draw their own randomness from a per-(seed, seat) ``random.Random`` like the
runner's built-in seats (a cheap hash here instead of the runner's slow seat-seed derivation).

    .venv/bin/python bench/rating_quality.py                      # every game, 20 ladders, M <= 100
    .venv/bin/python bench/rating_quality.py --max-matches 200    # the figures in docs/benchmarks.md
    .venv/bin/python bench/rating_quality.py --games deep_dive --ladders 40 --max-matches 100
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import random
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.ladders.batch_rating import fit  # noqa: E402
from arena.ladders.standing import SeatResult, Standing, standings_after_group  # noqa: E402
from arena.matches.rotation import seat_orders  # noqa: E402
from engines import get_game  # noqa: E402
from engines.bots import random_bot  # noqa: E402

GAMES = {"deep_sea_adventure": 4, "dive_diver_die": 4, "deep_dive": 2}
RANDOM_MOVE = (0.0, 0.15, 0.30, 0.45, 0.60, 0.75, 0.90, 1.0)  # bot b's chance of a random move
CHECKPOINTS = (10, 20, 30, 50, 100, 200)
K_VALUES = (32.0, 16.0, 8.0)
INITIAL = 1200.0  # the Ladder model's default initial rating
RANDOM_TABLES_SPREAD = 1e12  # matchmaking noise that drowns every rating difference
# name: (matchmaking, K steering the window or None, rotation groups)
CONFIGS = {
    "window K=32": ("window", 32.0, False),
    "window K=16": ("window", 16.0, False),
    "window K=8": ("window", 8.0, False),
    "random": ("random", None, False),
    "window K=16 +groups": ("window", 16.0, True),
    "window K=8 +groups": ("window", 8.0, True),
    "random +groups": ("random", None, True),
}


@functools.lru_cache(maxsize=None)
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


def score_margin_ratings(games: list[tuple[list[int], list[float]]], count: int) -> list[float]:
    """Experimental, not on the platform: least squares on score margins. Each seat's score minus
    its table's mean is modelled as its bot's strength minus the table's mean strength (ridge
    0.01 per bot); it reads how much a bot won by, which ranks throw away."""
    matrix = [[0.01 if a == b else 0.0 for b in range(count)] for a in range(count)]
    rhs = [0.0] * count
    for seated, scores in games:
        n = len(seated)
        mean = sum(scores) / n
        for s, bot in enumerate(seated):
            row = [0.0] * count
            for other in seated:
                row[other] -= 1.0 / n
            row[bot] += 1.0
            for a in seated:
                if row[a]:
                    rhs[a] += row[a] * (scores[s] - mean)
                    for b in seated:
                        matrix[a][b] += row[a] * row[b]
    for column in range(count):  # Gauss-Jordan; the ridge keeps it positive definite
        pivot = matrix[column][column]
        matrix[column] = [x / pivot for x in matrix[column]]
        rhs[column] /= pivot
        for r in range(count):
            if r != column and matrix[r][column]:
                factor = matrix[r][column]
                matrix[r] = [x - factor * y for x, y in zip(matrix[r], matrix[column])]
                rhs[r] -= factor * rhs[column]
    return rhs


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


def run_ladder(task: tuple[str, str, int, int]) -> dict:
    """One independent ladder of one configuration, played up to ``max_matches`` per bot."""
    game_id, config, ladder, max_matches = task
    matchmaking_choose = _django()
    mode, steer_k, groups = CONFIGS[config]
    seats = GAMES[game_id]
    game = get_game(game_id)
    heuristic = game.bots["heuristic"]
    bots = [_graded_bot(heuristic, chance) for chance in RANDOM_MOVE]
    count = len(bots)
    rng = random.Random(f"{game_id}|{config}|{ladder}")
    rated_ks = (steer_k,) if mode == "window" else K_VALUES
    live = {k: [Standing(elo=INITIAL) for _ in range(count)] for k in rated_ks}
    played = [0] * count
    history: list[list[tuple[int, int]]] = []  # batch-fit groups
    scored: list[tuple[list[int], list[float]]] = []  # (seated, scores) of every game
    seat_wins = [0.0] * seats
    games_played = 0
    checkpoints = [m for m in CHECKPOINTS if m <= max_matches]
    out = {"tau": {}, "best_first": {}, "matches_at": {}}
    next_checkpoint = 0
    while next_checkpoint < len(checkpoints):
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
            results.append((seated, ranks))
            scored.append((seated, scores))
            winners = [s for s, r in enumerate(ranks) if r == 1]
            for s in winners:
                seat_wins[s] += 1 / len(winners)
            games_played += 1
        for b in table:
            played[b] += len(orders)
        for k in rated_ks:
            _live_update(live[k], results, k)
        history.append([[(b, r) for b, r in zip(seated, ranks)] for seated, ranks in results])
        while next_checkpoint < len(checkpoints) and sum(played) >= checkpoints[next_checkpoint] * count:
            m = checkpoints[next_checkpoint]
            orders_now = {f"Elo K={k:g}": [s.elo for s in live[k]] for k in rated_ks}
            batch = fit(history, bootstrap=0)
            orders_now["batch"] = [batch[b].rating if b in batch else 1500.0 for b in range(count)]
            orders_now["margin*"] = score_margin_ratings(scored, count)
            for method, ratings in orders_now.items():
                out["tau"].setdefault(method, {})[m] = kendall_tau(ratings)
                out["best_first"].setdefault(method, {})[m] = float(ratings[0] > max(ratings[1:]))
            out["matches_at"][m] = sum(played) / count
            next_checkpoint += 1
    out["seat_wins"] = seat_wins
    out["games"] = games_played
    out.update(game=game_id, config=config, ladder=ladder)
    return out


def _report(game_id: str, results: list[dict], checkpoints: list[int], seats: int) -> None:
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
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    game_ids = [g for g in args.games.split(",") if g]
    configs = [c for c in args.configs.split(",") if c]
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
            tasks = [(game_id, config, ladder, args.max_matches) for ladder in range(args.ladders) for config in configs]
            results = []
            for done, result in enumerate(pool.imap_unordered(run_ladder, tasks), 1):
                results.append(result)
                if done % max(1, len(tasks) // 10) == 0 or done == len(tasks):
                    print(f"  {game_id}: {done}/{len(tasks)} ladders, {time.perf_counter() - started:.0f} s",
                          flush=True)
            _report(game_id, results, checkpoints, GAMES[game_id])
    print(f"\ntotal {time.perf_counter() - started:.0f} s; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
