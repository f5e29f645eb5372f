"""Luck accounting (workers.luck; DESIGN.md, "Luck"): replayed through the wrapping chance source
the game is the same game, every step's luck is V(what happened) minus V's exact expectation over
the outcomes, and bad input is refused."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engines import IllegalAction, get_game
from engines.rng import KeyedRandom
from engines.deep_sea_adventure.state import CHIP_LEVEL, CHIP_VALUE
from workers import luck as luck_module
from workers.luck import LuckModel, luck_by_step, luck_of_game
from workers.luck_values import (NETWORK_FEATURES, Network, dsa_path_values, dsa_reveals, load_networks)
from workers.replay import save
from workers.runner import SeatSpec, run_match

ROOT = Path(__file__).resolve().parents[2]
GAMES = {"deep_sea_adventure": 2, "dive_diver_die": 3, "deep_dive": 2, "divee": 2, "dive": 2}


def _played(game_id: str, seats: int, seed: int, options=None) -> tuple[list[dict], list]:
    game = get_game(game_id)
    state = game.new_state(seats, seed=seed, options=options)
    rng = random.Random(seed)
    bots = [game.bots["heuristic"], game.bots["random"]] * seats
    actions = []
    while not state.is_terminal():
        joint = {seat: bots[seat](state.observation(seat), state.legal_actions(seat), rng)
                 for seat in state.to_act()}
        actions.append(joint)
        state.apply(joint)
    return actions, state.result()["scores"]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_luck_replays_the_same_game_and_gives_a_figure_per_seat_and_step(game_id):
    seats = GAMES[game_id]
    actions, scores = _played(game_id, seats, seed=5)
    luck = luck_by_step(game_id, seats, 5, None, actions)
    assert luck["scores"] == scores                      # the wrapped chance changed nothing
    assert len(luck["steps"]) == len(actions)
    assert all(len(row) == seats for row in [luck["setup"], luck["total"], *luck["steps"]])
    total = [luck["setup"][s] + sum(step[s] for step in luck["steps"]) for s in range(seats)]
    assert luck["total"] == pytest.approx(total)
    assert luck_of_game(game_id, num_players=seats, seed=5, options=None, actions=actions) == luck["total"]
    # Deterministic: the same game always has the same luck.
    assert luck_by_step(game_id, seats, 5, None, actions)["total"] == luck["total"]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_outcome_weights_add_up_to_one_so_a_constant_v_sees_no_luck(game_id):
    seats = GAMES[game_id]
    actions, _ = _played(game_id, seats, seed=9)
    base = luck_module.MODELS[game_id]
    flat = LuckModel(lambda state: [7.0] * state.num_players, float_buckets=base.float_buckets,
                     reveals=base.reveals, decks=base.decks)
    luck = luck_by_step(game_id, seats, 9, None, actions, model=flat)
    assert luck["evaluations"] > 0
    assert all(value == pytest.approx(0.0, abs=1e-9) for row in [luck["setup"], *luck["steps"]] for value in row)


def test_a_deep_sea_adventure_roll_is_measured_against_its_exact_expectation():
    # For step t, V = the total of the first roll that step made (found in the log after the
    # entries it had before the step), for every seat: that step's luck is a + b - 4 (two dice
    # showing 1, 1, 2, 2, 3, 3 average 4), whatever else its branches rolled.
    actions, _ = _played("deep_sea_adventure", 2, seed=3)
    buckets = luck_module.MODELS["deep_sea_adventure"].float_buckets
    state = get_game("deep_sea_adventure").new_state(2, seed=3)
    checked = 0
    for number, joint in enumerate(actions):
        before = len(state.log)
        state.apply(joint)
        rolls = [entry for entry in state.log[before:] if entry[0] == "roll"]
        if not rolls or checked == 12:
            continue

        def first_roll(branch, before=before):
            roll = next((entry for entry in branch.log[before:] if entry[0] == "roll"), None)
            return [0.0, 0.0] if roll is None else [float(roll[2] + roll[3])] * 2

        model = LuckModel(first_roll, float_buckets=buckets, enumerate_limit=10 ** 6)
        luck = luck_by_step("deep_sea_adventure", 2, 3, None, actions[:number + 1], model=model)
        assert luck["steps"][number] == pytest.approx([rolls[0][2] + rolls[0][3] - 4.0] * 2)
        checked += 1
    assert checked == 12


def test_bad_input_is_refused_clearly():
    actions, _ = _played("deep_dive", 2, seed=1)
    with pytest.raises(KeyError):
        luck_of_game("no_such_game", num_players=2, seed=1, actions=actions)
    with pytest.raises(ValueError, match="mapping"):
        luck_of_game("deep_dive", num_players=2, seed=1, actions=[["stay"]])
    with pytest.raises(IllegalAction):
        luck_of_game("deep_dive", num_players=2, seed=1, actions=[{0: {"type": "nonsense"}, 1: {"type": "x"}}])
    # JSON turns seat keys into strings: they are accepted.
    as_json = json.loads(json.dumps(actions))
    assert luck_of_game("deep_dive", 2, 1, None, as_json) == luck_of_game("deep_dive", 2, 1, None, actions)


def test_the_replay_cli_prints_each_seats_luck_and_play(tmp_path):
    outcome = run_match("deep_sea_adventure", [SeatSpec("builtin:heuristic"), SeatSpec("builtin:random")], seed=4)
    path = tmp_path / "match.replay.json.gz"
    save(json.loads(json.dumps(outcome.replay)), path)
    result = subprocess.run([sys.executable, "-m", "workers.replay", "luck", str(path), "--json"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["scores"] == outcome.scores
    assert report["play"] == pytest.approx([s - lk for s, lk in zip(report["scores"], report["luck"])], abs=1e-6)
    assert len(report["steps"]) == len(outcome.replay["steps"]["to_act"])
    text = subprocess.run([sys.executable, "-m", "workers.replay", "luck", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert text.returncode == 0
    assert f"seat 0: {outcome.scores[0]} points; luck {report['luck'][0]:+.1f}; play" in text.stdout
    broken = tmp_path / "broken.replay.json.gz"
    broken.write_bytes(b"not a replay")
    failed = subprocess.run([sys.executable, "-m", "workers.replay", "luck", str(broken)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120, check=False)
    assert failed.returncode == 1 and str(broken) in failed.stderr


def test_a_deep_sea_adventure_chip_is_lucky_by_its_value_against_the_unseen_chips_of_its_level():
    # Chip values are shuffled at the setup and hidden: a chip taken for the first time is measured
    # against every chip of its level no one has taken yet. With V = the value each seat holds
    # (carried and secured), a take early in a round (no drowning in reach) has luck
    # value - mean(values of the candidates) for the taker and 0 for the others.
    def held(state):
        return [float(sum(CHIP_VALUE[c] for item in state.carried[s] for c in item)
                      + sum(CHIP_VALUE[c] for c in state.secured[s])) for s in range(state.num_players)]

    actions, _ = _played("deep_sea_adventure", 2, seed=12)
    model = LuckModel(held, float_buckets=luck_module.MODELS["deep_sea_adventure"].float_buckets,
                      reveals=dsa_reveals, enumerate_limit=10 ** 6)
    luck = luck_by_step("deep_sea_adventure", 2, 12, None, actions, model=model)
    state = get_game("deep_sea_adventure").new_state(2, seed=12)
    seen: set = set()
    checked = 0
    for joint, step in zip(actions, luck["steps"]):
        air = state.air
        untaken = [item[0] for item in state.path if item is not None and len(item) == 1 and item[0] not in seen]
        state.apply(joint)
        holding = {c for items in state.carried for item in items for c in item} | {
            c for chips in state.secured for c in chips}
        new = holding - seen
        seen |= holding
        if len(new) == 1 and air > 12 and not state.is_terminal():
            chip = new.pop()
            taker = next(s for s in range(2) if any(chip in item for item in state.carried[s]))
            candidates = [c for c in untaken if CHIP_LEVEL[c] == CHIP_LEVEL[chip] and c not in holding] + [chip]
            expected = CHIP_VALUE[chip] - sum(CHIP_VALUE[c] for c in candidates) / len(candidates)
            assert step[taker] == pytest.approx(expected)
            assert step[1 - taker] == pytest.approx(0.0)
            checked += 1
    assert checked >= 3


def test_a_dealt_card_is_lucky_by_its_value_against_the_cards_still_in_the_deck():
    # Dive! Diver! Die!'s Oxygenator is shuffled at the setup and dealt from the front. With V = the
    # total of the cards dealt so far (for every seat), only a step that deals has luck, and it is
    # what it dealt minus what a deal from the cards still in the deck gives on average (its
    # replays with the undealt cards in other orders; 400 of them, so within a few tenths).
    def dealt(state):
        return [float(sum(state.oxygenator_discard))] * state.num_players

    base = luck_module.MODELS["dive_diver_die"]
    assert "oxygenator" in base.decks
    checked = 0
    for seed in (3, 4):
        actions, _ = _played("dive_diver_die", 3, seed=seed)
        model = LuckModel(dealt, decks=("oxygenator",), samples=400)
        luck = luck_by_step("dive_diver_die", 3, seed, None, actions, model=model)
        assert luck["setup"] == [0.0, 0.0, 0.0]
        state = get_game("dive_diver_die").new_state(3, seed=seed)
        for joint, step in zip(actions, luck["steps"]):
            deck = list(state.oxygenator)
            state.apply(joint)
            count = len(deck) - len(state.oxygenator)
            if not count:
                assert step == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)
                continue
            expected = sum(deck[:count]) - count * sum(deck) / len(deck)
            assert step == pytest.approx([expected] * 3, abs=0.6)
            checked += 1
    assert checked >= 8


def test_an_unseen_chip_is_worth_the_mean_of_the_unseen_chips_of_its_level_and_a_stack_its_chips():
    state = get_game("deep_sea_adventure").new_state(2, seed=4)
    state.path[0] = (state.path[0][0], state.path[1][0])       # a stack (seen: dropped by a diver)
    state.path[1] = None
    state.path[2] = None
    values = dsa_path_values(state)
    assert values[0] == CHIP_VALUE[state.path[0][0]] + CHIP_VALUE[state.path[0][1]]
    assert values[1] == values[2] == 0.0
    for level in (1, 2, 3, 4):
        lone = [i for i, item in enumerate(state.path) if item is not None and len(item) == 1
                and CHIP_LEVEL[item[0]] == level]
        mean = sum(CHIP_VALUE[state.path[i][0]] for i in lone) / len(lone)
        assert all(values[i] == pytest.approx(mean) for i in lone)
    # Which lone chip of a level lies where does not change V's reading of the path.
    swapped = state.clone()
    a, b = [i for i, item in enumerate(swapped.path) if item is not None and len(item) == 1
            and CHIP_LEVEL[item[0]] == 4][:2]
    swapped.path[a], swapped.path[b] = swapped.path[b], swapped.path[a]
    assert dsa_path_values(swapped) == values


@pytest.mark.parametrize("game_id", sorted(NETWORK_FEATURES))
def test_every_stored_network_reads_its_games_features(game_id):
    networks = load_networks().get(game_id, {})
    for seats, spec in networks.items():
        state = get_game(game_id).new_state(int(seats), seed=1)
        rows = NETWORK_FEATURES[game_id](state)
        network = Network(spec)
        assert len(rows) == int(seats)
        assert all(len(row) == len(network.mean) for row in rows), f"{game_id} {seats}: refit bench/luck_fit.py"
        values = luck_module.MODELS[game_id].value(state)
        assert len(values) == int(seats) and all(abs(v) < 1000 for v in values)


def test_a_network_whose_weights_do_not_fit_together_is_refused():
    spec = {"mean": [0.0, 0.0], "scale": [1.0, 1.0], "hidden_weights": [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]],
            "hidden_bias": [0.0, 0.0, 0.0], "output_weights": [1.0, 1.0, 1.0], "output_bias": 2.0}
    assert Network(spec)([[1.0, 2.0], [0.0, -1.0]]) == [1.0 + 2.0 + 3.0 + 2.0, 0.0 + 0.0 + 0.0 + 2.0]
    with pytest.raises(ValueError, match="do not fit"):
        Network({**spec, "output_weights": [1.0, 1.0]})


def test_a_forced_draw_keeps_its_place_so_a_branchs_later_draws_never_repeat_what_happened():
    # A branch forces the step's recorded draws to another outcome; a draw beyond them (a lone
    # diver rolling again in the same step) must come from past the recorded ones, not repeat
    # the outcome that happened (which would tie the branch to it and bias the luck).
    stream = KeyedRandom(5).stream("dice", 1, 0)
    happened = stream.__copy__().random()
    force = luck_module._forcing([luck_module._Draw("random", (), {}, happened)], (0.0,))
    real = stream.__copy__()
    assert force(real, 0, "random", (), {}) == 0.0
    later = stream.__copy__()
    later.random()
    assert force(real, 1, "random", (), {}) == later.random() != happened
