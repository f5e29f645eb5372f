"""``bench/rating_quality.py --official``: the official rating as the leaderboard ranks, on graded bots.

Each game of issue 23's goal plays ``--ladders`` independent simulated ladders the way a new ladder
of it is set up (``recommended_settings``: the rating window steered by live Elo at the game's K,
rotation groups on two seats): the eight graded bots of ``bench/rating_quality.py`` (the built-in
heuristic playing a random legal move with probability 0 .. 1), tables from the project's own
``matchmaking_choose``, live Elo by ``standings_after_group``. After every game its luck is measured
(``workers.luck.luck_of_game``, as the platform's sweep does), so every game is read on play.

At each checkpoint up to the goal's M the ladder is rated by (tau only, ``bootstrap=0``):

- ``scores``: the previous official rating, ``fit_scores`` on raw scores;
- ``play``: score - luck; ``play+seat``: with the seat effects taken out where they pay;
- ``log score-luck``: the signed log of the score less the luck at the log's slope at the game's
  typical score (``official.seat_value``'s ``log_score``);
- ``slog play`` / ``slog play+seat``: the signed log of play (``sign(x) log(1 + |x|)``);
- ``slog score``: the signed log of the raw score (the issue's "log(1 + score)" reference);
- ``official``: ``competition.ratings.official.official_fit`` for the game, as ``arena/ladders``
  calls it (its transform and seat rule), which is one of the rows above.

At the goal's M the official fit is also run with its leaderboard interval (``bootstrap=200``), and
the coverage of the 95 % intervals is measured: the "true" rating of each bot is the official fit of
the pooled games of the *other half* of the ladders (two-fold: ladders of even number against the
odd ones' pool and back; thousands of games, so its own error is a third or less of a ladder's).
Also the oracle of ``bench/rating_ceiling.py`` for each reading, from the pooled games of every
ladder of the game (thousands of games: a much less noisy comparison of the readings than the
ladders' taus). Printed: mean Kendall tau (P best bot first) per row and checkpoint, the share of ladders whose
seat effects paid, each row's gain over ``scores`` at the goal's M paired on the same ladders (mean
± standard error), the coverage (and the raw-score fit's beside it), and last, exactly, ``official: dsa4 tau@30=X ddd4 tau@60=Y dd2 tau@60=Z``
(the games run).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import time
from multiprocessing import Pool

import rating_quality as rq  # a module import: rating_quality imports this module too (either may load first)

from competition.ratings.batch_scores import fit_scores
from competition.ratings.official import official_fit, official_read
from competition.ratings.standing import Standing
from competition.rotation import seat_orders
from engines import get_game
from workers.luck import luck_of_game

# game: (seats, Elo K steering the window, rotation groups, the goal's M, short name)
OFFICIAL = {
    "deep_sea_adventure": (4, 8.0, False, 30, "dsa4"),
    "dive_diver_die": (4, 16.0, False, 60, "ddd4"),
    "deep_dive": (2, 16.0, True, 60, "dd2"),
}
CHECKPOINTS = (10, 20, 30, 60)
ROWS = {
    "scores": None,
    "play": ("identity", False),
    "play+seat": ("identity", True),
    "log score-luck": ("log_score", False),
    "slog play": ("signed_log", False),
    "slog play+seat": ("signed_log", True),
    "slog score": None,
    "official": "official",
}


def _units(history, with_luck: bool = True):
    return [[[(bot, seat, score, luck if with_luck else None, False)
              for seat, (bot, score, luck) in enumerate(zip(seated, scores, lucks))]
             for seated, scores, lucks in group] for group in history]


def _rate(row: str, game_id: str, history, count: int) -> tuple[list[float], bool]:
    """Ratings by bot under one row, and whether seat effects were taken out."""
    if row == "scores":
        fitted = fit_scores([[list(zip(seated, scores)) for seated, scores, _ in group] for group in history],
                            bootstrap=0)
        return [fitted[b].rating if b in fitted else 1500.0 for b in range(count)], False
    if row == "slog score":
        result = official_fit(_units(history, with_luck=False), game=game_id, transform="signed_log",
                              seat_effects=False, bootstrap=0)
    elif row == "official":
        result = official_fit(_units(history), game=game_id, bootstrap=0)
    else:
        transform, seats = ROWS[row]
        result = official_fit(_units(history), game=game_id, transform=transform, seat_effects=seats, bootstrap=0)
    return [result.ratings[b].rating if b in result.ratings else 1500.0 for b in range(count)], bool(result.read.seat_effects)


def run_official_ladder(task: tuple[str, int]) -> dict:
    """One ladder of ``game_id`` up to its goal's M, every game's luck measured."""
    game_id, ladder = task
    seats, k, groups, goal, _ = OFFICIAL[game_id]
    matchmaking_choose = rq._django()
    game = get_game(game_id)
    bots = [rq._graded_bot(game.bots["heuristic"], chance) for chance in rq.RANDOM_MOVE]
    count = len(bots)
    rng = random.Random(f"{game_id}|official|{ladder}")
    live = [Standing(elo=rq.INITIAL) for _ in range(count)]
    played = [0] * count
    history: list[list[tuple[list[int], list[float], list[float]]]] = []
    checkpoints = [m for m in CHECKPOINTS if m <= goal]
    groups_at: dict[int, int] = {}
    luck_cpu = 0.0
    games = 0
    next_checkpoint = 0
    while next_checkpoint < len(checkpoints):
        table = matchmaking_choose(candidates=[(b, live[b].elo, played[b]) for b in range(count)],
                                   seats=seats, rng=rng)
        seed = rng.randrange(2 ** 31)
        results = []
        for order in (seat_orders(seats) if groups else [tuple(range(seats))]):
            seated = [table[i] for i in order]
            state = game.new_state(num_players=seats, seed=seed)
            rngs = [rq._seat_rng(seed, seat) for seat in range(seats)]
            actions = []
            while not state.is_terminal():
                joint = {seat: bots[seated[seat]](state.observation(seat), state.legal_actions(seat), rngs[seat])
                         for seat in state.to_act()}
                actions.append(joint)
                state.apply(joint)
            result = state.result()
            started = time.process_time()
            luck = luck_of_game(game_id, num_players=seats, seed=seed, actions=actions)
            luck_cpu += time.process_time() - started
            games += 1
            results.append((seated, list(result["ranks"]), [float(x) for x in result["scores"]], luck))
        for b in table:
            played[b] += len(results)
        rq._live_update(live, [(seated, ranks) for seated, ranks, _, _ in results], k)
        history.append([(seated, scores, luck) for seated, _, scores, luck in results])
        while next_checkpoint < len(checkpoints) and sum(played) >= checkpoints[next_checkpoint] * count:
            groups_at[checkpoints[next_checkpoint]] = len(history)
            next_checkpoint += 1
    return rate_ladder({"game": game_id, "ladder": ladder, "history": history, "groups_at": groups_at,
                        "luck_cpu": luck_cpu, "games": games})


def rate_ladder(run: dict) -> dict:
    """A played ladder's ratings under every row at every checkpoint (its history cut there), and
    the official fit's intervals at the goal's M; ``run`` comes back with them."""
    game_id, history, count = run["game"], run["history"], len(rq.RANDOM_MOVE)
    out = {"tau": {}, "best_first": {}, "seat_paid": {}}
    for m, groups in run["groups_at"].items():
        for row in ROWS:
            ratings, paid = _rate(row, game_id, history[:groups], count)
            out["tau"].setdefault(row, {})[int(m)] = rq.kendall_tau(ratings)
            out["best_first"].setdefault(row, {})[int(m)] = float(ratings[0] > max(ratings[1:]))
            out["seat_paid"].setdefault(row, {})[int(m)] = paid
    fitted = official_fit(_units(history), game=game_id, bootstrap=200, seed=run["ladder"])
    out["interval"] = {b: [r.low, r.high] for b, r in fitted.ratings.items()}
    raw = fit_scores(_raw_groups(history), bootstrap=200, seed=run["ladder"])
    out["raw_interval"] = {b: [r.low, r.high] for b, r in raw.items()}
    return {**run, **out}


def _raw_groups(history):
    return [[list(zip(seated, scores)) for seated, scores, _ in group] for group in history]


def _coverage(game_id: str, runs: list[dict], key: str = "interval") -> tuple[float, int, float]:
    """Share of (ladder, bot) intervals holding the other half's pooled rating of the same kind
    (``interval``: the official fit; ``raw_interval``: ``fit_scores`` on raw scores); and the mean
    interval width."""
    inside = total = 0
    widths = []
    for parity in (0, 1):
        pool = [group for run in runs if run["ladder"] % 2 != parity for group in run["history"]]
        if not pool:
            continue
        truth = (official_fit(_units(pool), game=game_id, bootstrap=0).ratings if key == "interval"
                 else fit_scores(_raw_groups(pool), bootstrap=0))
        for run in runs:
            if run["ladder"] % 2 != parity:
                continue
            for b, (low, high) in run[key].items():  # (JSON keys are strings)
                inside += low <= truth[int(b)].rating <= high
                total += 1
                widths.append(high - low)
    return (inside / total if total else float("nan")), total, statistics.fmean(widths) if widths else 0.0


ORACLE_ROWS = {"scores": ("identity", False, False), "play": ("identity", False, True),
               "play+seat": ("identity", True, True), "log score-luck": ("log_score", False, True),
               "slog play": ("signed_log", False, True),
               "slog play+seat": ("signed_log", True, True), "slog score": ("signed_log", False, False)}
ORACLE_DRAWS = 4000


def _oracle(game_id: str, runs: list[dict], m: int) -> dict[str, tuple[float, float]]:
    """Per reading: the oracle tau at M matches per bot (``bench/rating_ceiling.py``'s method on the
    pooled games of every ladder: strengths and one seat's noise from their margin fit, then each bot
    seen through its own M games' noise) and the smallest neighbour gap in noise sds. A much less
    noisy comparison of readings than the ladders' own taus."""
    pool = [group for run in runs for group in run["history"]]
    seats = OFFICIAL[game_id][0]
    out = {}
    for row, (transform, seat, luck) in ORACLE_ROWS.items():
        read = official_read(_units(pool, with_luck=luck), game=game_id, transform=transform, seat_effects=seat)
        games = [([b for b, _ in game], [v for _, v in game]) for unit in read.groups for game in unit]
        strengths = rq._margin_fit(games, len(rq.RANDOM_MOVE))
        residuals = []
        for seated, values in games:
            table = sum(values) / seats - sum(strengths[b] for b in seated) / seats
            residuals += [v - strengths[b] - table for v, b in zip(values, seated)]
        noise = (sum(r * r for r in residuals) / (len(residuals) * (1 - 1 / seats))) ** 0.5
        rng = random.Random(f"oracle|{game_id}|{row}")
        tau = statistics.fmean(rq.kendall_tau([x + rng.gauss(0.0, noise / m ** 0.5) for x in strengths])
                               for _ in range(ORACLE_DRAWS))
        gap = min(strengths[i] - strengths[i + 1] for i in range(len(strengths) - 1)) / noise
        out[row] = (tau, gap)
    return out


def report(game_id: str, runs: list[dict]) -> float:
    """Print one game's table; returns the official tau at the goal's M."""
    seats, k, groups, goal, short = OFFICIAL[game_id]
    checkpoints = [m for m in CHECKPOINTS if m <= goal]
    print(f"\n## {game_id} {seats}p, window K={k:g}{' +groups' if groups else ''}: mean Kendall tau "
          f"(P best bot first) over {len(runs)} ladders")
    print(f"{'rating':16} " + " ".join(f"{'M=' + str(m):>13}" for m in checkpoints) + "  seat effects paid at M")
    for row in ROWS:
        cells = []
        for m in checkpoints:
            tau = statistics.fmean(r["tau"][row][m] for r in runs)
            best = statistics.fmean(r["best_first"][row][m] for r in runs)
            cells.append(f"{tau:6.3f} ({best:.2f})")
        spread = statistics.stdev(r["tau"][row][goal] for r in runs) / len(runs) ** 0.5 if len(runs) > 1 else 0.0
        # Paired on the same ladders: this row's tau less the raw scores' (much less noisy than either).
        gains = [r["tau"][row][goal] - r["tau"]["scores"][goal] for r in runs]
        gain_se = statistics.stdev(gains) / len(gains) ** 0.5 if len(gains) > 1 else 0.0
        paid = statistics.fmean(r["seat_paid"][row][goal] for r in runs)
        print(f"{row:16} " + " ".join(f"{c:>13}" for c in cells) + f"  {paid:.0%}   (s.e. at M={goal}: {spread:.3f}; "
              f"vs scores {statistics.fmean(gains):+.3f} ± {gain_se:.3f})")
    oracle = _oracle(game_id, runs, goal)
    print(f"oracle tau at M={goal} from the {sum(len(r['history']) for r in runs)} pooled tables (smallest neighbour "
          "gap in noise sd): " + "; ".join(f"{row} {tau:.3f} ({gap:.3f})" for row, (tau, gap) in oracle.items()))
    coverage, count, width = _coverage(game_id, runs)
    cpu = sum(r["luck_cpu"] for r in runs) / max(1, sum(r["games"] for r in runs))
    print(f"official 95 % intervals at M={goal}: coverage {coverage:.1%} of {count} (ladder, bot) pairs "
          f"(truth: the other half's pooled fit); mean width {width:.0f} points; luck {cpu:.3f} CPU s a game")
    coverage, count, width = _coverage(game_id, runs, "raw_interval")
    print(f"raw scores' 95 % intervals (fit_scores, the rating before) at M={goal}: coverage {coverage:.1%}; "
          f"mean width {width:.0f} points")
    return statistics.fmean(r["tau"]["official"][goal] for r in runs)


def main_official(games: list[str], ladders: int, processes: int, save: str | None,
                  saved: str | None = None, first: int = 0) -> None:
    """Run and report every game of ``games`` (each of ``OFFICIAL``); the last line is the goal's.
    ``save`` appends every played ladder (its games, scores and luck) to a JSON-lines file;
    ``saved`` reads such files (comma-separated) instead of playing and rates their ladders again
    (the current ``official_fit``: a change of policy is measured on the same games; a ladder saved
    twice counts once). ``first``: play ladders ``first`` .. ``ladders - 1`` only (to share a run
    between invocations)."""
    started = time.perf_counter()
    runs: dict[str, list[dict]] = {game_id: [] for game_id in games}
    if saved:
        unique: dict[tuple[str, int], dict] = {}
        for path in saved.split(","):
            with open(path) as handle:
                for line in handle:
                    if line.strip():
                        run = json.loads(line)
                        unique[(run["game"], run["ladder"])] = run
        played = [run for key, run in sorted(unique.items()) if run["game"] in runs and run["ladder"] < ladders]
        print(f"rating_quality --official --saved {saved}: {len(played)} ladders, {processes} processes; "
              f"load {os.getloadavg()[0]:.2f}", flush=True)
        with Pool(processes) as pool:
            for run in pool.imap_unordered(rate_ladder, played):
                runs[run["game"]].append(run)
    else:
        print(f"rating_quality --official: {ladders} ladders per game, {processes} processes; "
              f"load {os.getloadavg()[0]:.2f}", flush=True)
        tasks = [(game_id, ladder) for game_id in games for ladder in range(first, ladders)]
        with Pool(processes) as pool:
            for done, run in enumerate(pool.imap_unordered(run_official_ladder, tasks), 1):
                runs[run["game"]].append(run)
                if save:
                    with open(save, "a") as handle:
                        handle.write(json.dumps({key: run[key] for key in ("game", "ladder", "history", "groups_at",
                                                                          "luck_cpu", "games")}) + "\n")
                if done % max(1, len(tasks) // 20) == 0 or done == len(tasks):
                    print(f"  {done}/{len(tasks)} ladders, {time.perf_counter() - started:.0f} s, "
                          f"load {os.getloadavg()[0]:.2f}", flush=True)
    taus = {game_id: report(game_id, sorted(runs[game_id], key=lambda r: r["ladder"])) for game_id in games}
    print(f"\ntotal {time.perf_counter() - started:.0f} s; load {os.getloadavg()[0]:.2f}")
    print("official: " + " ".join(f"{OFFICIAL[g][4]} tau@{OFFICIAL[g][3]}={taus[g]:.3f}" for g in OFFICIAL if g in taus))
