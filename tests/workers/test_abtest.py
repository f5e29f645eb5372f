"""python -m workers.abtest: paired seeds with swapped seats, rotation, parallel runs, the CLI contract."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from workers import abtest

ROOT = Path(__file__).resolve().parents[2]
# A sandbox's start-up takes seconds on a machine loaded many times over (each builds its root
# afresh): generous, so that only a bot's own doing faults it here.
LIMITS = ["--move-ms", "500", "--bank-ms", "1500", "--init-ms", "60000"]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workers.abtest", *args], check=False, cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_the_two_games_of_a_pair_share_a_seed_and_swap_a_and_b():
    config = abtest.Config(game="deep_sea_adventure", a="A", b="B", players=4, opponents=("X", "Y"))
    for pair in range(12):
        first, second = abtest.pair_games(config, pair)
        assert first.seed == second.seed
        assert first.bots[first.a_seat] == "A" and first.bots[first.b_seat] == "B"
        assert (second.a_seat, second.b_seat) == (first.b_seat, first.a_seat)
        assert second.bots[second.a_seat] == "A" and second.bots[second.b_seat] == "B"
        others = [seat for seat in range(4) if seat not in (first.a_seat, first.b_seat)]
        assert [first.bots[s] for s in others] == [second.bots[s] for s in others]
    seeds = {abtest.pair_games(config, pair)[0].seed for pair in range(50)}
    assert len(seeds) == 50


def test_seats_rotate_over_pairs_so_every_seat_position_and_opponent_seat_comes_up():
    config = abtest.Config(game="deep_sea_adventure", a="A", b="B", players=4, opponents=("X", "Y"))
    seat_pairs, opponent_seats = Counter(), Counter()
    for pair in range(12):
        first, _ = abtest.pair_games(config, pair)
        seat_pairs[(first.a_seat, first.b_seat)] += 1
        opponent_seats.update((bot, seat) for seat, bot in enumerate(first.bots) if bot in "XY")
    assert len(seat_pairs) == 6 and set(seat_pairs.values()) == {2}
    assert {bot for bot, _ in opponent_seats} == {"X", "Y"} and len(opponent_seats) == 8


def fake_play(config: abtest.Config, spec: abtest.GameSpec) -> dict:
    """B is better than A on about 60 % of the seeds (decided by a hash, the same in both games)."""
    h = int(hashlib.sha256(f"{spec.seed}:{spec.index}".encode()).hexdigest(), 16) % 100
    b_wins = h < 60
    ranks = [2] * len(spec.bots)
    ranks[spec.b_seat if b_wins else spec.a_seat] = 1
    scores = [3 - r for r in ranks]
    return {"scores": scores, "ranks": ranks, "faults": []}


def mirror_play(config: abtest.Config, spec: abtest.GameSpec) -> dict:
    """Two copies of one deterministic bot: seat 0 wins whoever sits there."""
    return {"scores": [1, 0], "ranks": [1, 2], "faults": []}


def test_a_stronger_b_is_h1_and_the_result_is_the_same_in_parallel():
    config = abtest.Config(game="deep_sea_adventure", a="A", b="B", elo0=0, elo1=20, seed=5)
    alone = abtest.run_test(config, play=fake_play, jobs=1)
    parallel = abtest.run_test(config, play=fake_play, jobs=2)
    assert alone["verdict"] == "H1" and alone["elo"] > 20
    assert alone["llr"] >= alone["bounds"][1]
    for key in ("games", "pairs", "elo", "elo_ci", "llr", "verdict", "pair_counts", "a_mean_score"):
        assert alone[key] == parallel[key]


def test_a_mirrored_a_a_test_is_h0_and_max_games_stops_an_undecided_one():
    config = abtest.Config(game="deep_sea_adventure", a="A", b="A", seed=1)
    data = abtest.run_test(config, play=mirror_play)
    assert data["verdict"] == "H0" and data["pair_counts"] == [0, 0, data["pairs"], 0, 0]
    capped = abtest.run_test(abtest.Config(game="deep_sea_adventure", a="A", b="B", elo0=0, elo1=2,
                                           max_games=40, seed=5), play=fake_play)
    assert capped["games"] == 40 and capped["verdict"] == "undecided"


def test_the_cli_decides_that_the_starter_kit_beats_random_in_the_sandbox():
    done = cli("deep_sea_adventure", "builtin:random", "starter_kits/deep_sea_adventure/main.py",
               "--seed", "1", "--jobs", "2", "--json", *LIMITS)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {"games", "pairs", "a_mean_score", "b_mean_score", "elo", "elo_ci", "llr", "bounds",
            "verdict"} <= set(data)
    assert data["verdict"] == "H1" and data["b_mean_score"] > data["a_mean_score"]
    assert data["games"] == 2 * data["pairs"] and data["elo_ci"][0] <= data["elo"] <= data["elo_ci"][1]
    assert "LLR" in done.stderr  # the progress line
    again = cli("deep_sea_adventure", "builtin:random", "starter_kits/deep_sea_adventure/main.py",
                "--seed", "1", "--jobs", "1", "--json", "--quiet", *LIMITS)
    assert {k: v for k, v in json.loads(again.stdout).items() if k != "seconds"} == \
        {k: v for k, v in data.items() if k != "seconds"}
    assert again.stderr == ""


def test_the_cli_plays_more_seats_with_opponents():
    done = cli("deep_sea_adventure", "builtin:random", "builtin:heuristic", "--players", "3",
               "--opponents", "builtin:random", "--seed", "2", "--max-games", "60", "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["players"] == 3 and data["opponents"] == ["builtin:random"] and data["verdict"] == "H1"


@pytest.mark.parametrize("args, message", [
    (["no_such_game", "builtin:random", "builtin:random"], "no_such_game"),
    (["deep_sea_adventure", "builtin:random", "builtin:nobody"], "no built-in bot 'nobody'"),
    (["deep_sea_adventure", "builtin:random", "missing/bot.py"], "no such file"),
    (["deep_sea_adventure", "builtin:random", "builtin:random", "--players", "7"], "played by 2 to 6"),
    (["deep_sea_adventure", "builtin:random", "builtin:random", "--elo0", "5", "--elo1", "5"], "must be above"),
    (["deep_sea_adventure", "builtin:random", "builtin:random", "--alpha", "0.7"], "between 0 and 0.5"),
    (["deep_sea_adventure", "builtin:random", "builtin:random", "--max-games", "4"], "at least 20"),
    (["deep_sea_adventure", "builtin:random", "builtin:random", "--opponents", "builtin:random"], "every seat"),
    (["deep_sea_adventure", "builtin:random", "builtin:random", "--options", "[1]"], "JSON object"),
])
def test_the_cli_refuses_bad_arguments_with_exit_2_and_plays_nothing(args, message):
    done = cli(*args)
    assert done.returncode == 2
    assert message in done.stderr and done.stdout == ""


def test_the_platforms_seat_orders_seat_the_table_as_the_local_command_does():
    config = abtest.Config(game="deep_sea_adventure", a="A", b="B", players=4, opponents=("X", "Y"))
    table = ("A", "B", "X", "Y")
    for pair in range(13):
        games = abtest.pair_games(config, pair)
        orders = abtest.pair_orders(pair, 4)
        assert [tuple(table[i] for i in order) for order in orders] == [game.bots for game in games]
    assert abtest.pair_orders(0, 2) == ((0, 1), (1, 0))


def lucky_a_play(config: abtest.Config, spec: abtest.GameSpec) -> dict:
    """A always ranks first, by 2 points, all of which its luck gave it; B's play is better by 1."""
    scores = [5.0] * len(spec.bots)
    scores[spec.a_seat], scores[spec.b_seat] = 7.0, 6.0
    ranks = [3] * len(spec.bots)
    ranks[spec.a_seat], ranks[spec.b_seat] = 1, 2
    luck = [0.0] * len(spec.bots)
    luck[spec.a_seat] = 2.0
    faults = [{"seat": spec.a_seat, "kind": "timeout"}] if spec.seed % 7 == 0 else []
    return {"scores": scores, "ranks": ranks, "faults": faults, "luck": luck}


def test_with_luck_score_minus_luck_decides_a_game_unless_a_or_b_faulted():
    by_rank = abtest.run_test(abtest.Config(game="deep_sea_adventure", a="A", b="B", seed=3), play=lucky_a_play)
    by_luck = abtest.run_test(abtest.Config(game="deep_sea_adventure", a="A", b="B", seed=3, luck=True),
                              play=lucky_a_play)
    assert by_rank["verdict"] == "H0" and by_rank["pair_counts"][1:] == [0, 0, 0, 0]
    assert by_luck["verdict"] == "H1" and by_luck["luck"] is True and by_rank["luck"] is False
    faulted = by_luck["faults"]["a"].get("timeout", 0)
    assert by_luck["pair_counts"][4] == by_luck["pairs"] - faulted // 2    # a faulted pair: A "wins" by rank


def test_the_cli_measures_luck_when_asked():
    done = cli("deep_dive", "builtin:random", "builtin:heuristic", "--luck", "--seed", "3", "--max-games", "40",
               "--jobs", "2", "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["luck"] is True and data["games"] >= 20 and data["verdict"] in ("H1", "undecided")
