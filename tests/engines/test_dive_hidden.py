"""Dive engine: hidden information (dive.md section 5). The ocean view is the only trace of the
level cards, identical for every seat; plans stay secret until the reveal; no observation
names a card that has not been explored."""

from __future__ import annotations

import random

import pytest

from engines.rng import ScriptedRandom
from tests.engines.dive_support import GAME, air, brute_force_view, deal, plan

OBSERVATION_KEYS = {
    "phase", "round", "seat", "num_players", "solo", "positions", "chief_position", "ocean_view",
    "carried_levels", "stack_size", "discard", "companions", "my_plan", "last_round", "events",
}


def random_games(count: int):
    """Yields (state, seat) at every decision of ``count`` seeded random games of every kind."""
    for seed in range(count):
        num_players = 1 + seed % 5
        options = {"companions": seed % 2 == 1}
        state = GAME.new_state(num_players=num_players, seed=seed, options=options)
        chooser = random.Random(seed)
        while not state.is_terminal():
            yield state
            state.apply({s: chooser.choice(state.legal_actions(s)) for s in state.to_act()})
        yield state


def test_the_ocean_view_matches_a_brute_force_recomputation_from_the_five_level_cards():
    checked = 0
    for state in random_games(60):
        if state.is_terminal():
            continue
        levels = [tuple(level) for level in state.full_view()["stack"][:5]]
        expected = brute_force_view(levels)
        for seat in state.to_act():
            assert state.observation(seat)["ocean_view"] == expected
        assert state.spectator_view()["ocean_view"] == expected
        checked += 1
    assert checked > 1000


def test_no_observation_names_a_card_that_has_not_been_explored():
    for state in random_games(40):
        full = state.full_view()
        explored = [tuple(entry) for entry in full["discard"]]
        last = full["last_round"]
        for seat in range(state.num_players):
            observation = state.observation(seat)
            assert set(observation) == OBSERVATION_KEYS
            # Card ids appear in exactly two places: the face-up discard pile and last round's log.
            assert [tuple(entry) for entry in observation["discard"]] == explored
            if last is not None:
                assert observation["last_round"]["levels"] == last["levels"]
            if observation["last_round"] is not None:
                assert set(observation["last_round"]) == {
                    "round", "plans", "chief", "levels", "succeeded", "wiped", "advance",
                    "positions", "chief_position"}
                for level in observation["last_round"]["levels"]:
                    assert set(level) == {"card", "orientation", "wrong", "forgiven", "helper"}


@pytest.mark.parametrize("seed", range(30))
def test_observations_do_not_depend_on_the_cards_below_the_explored_and_level_cards(seed):
    # Two stacks that agree on their first 15 cards and differ below: as long as no card below
    # has become a level, every observation of every seat is the same in both games.
    rng = random.Random(seed)
    order = list(range(36))
    rng.shuffle(order)
    other = order[:15] + rng.sample(order[15:], 21)
    assert other != order
    orientations = [rng.randrange(4) for _ in range(36)]
    num_players = 1 + seed % 5
    options = {"companions": seed % 3 == 0}
    extra = [["octopus", "dolphin", "pilot_fish", "sailfish", "seahorse"]] if options["companions"] else []
    games = [GAME.new_state(num_players=num_players, seed=0, options=options,
                            rng=ScriptedRandom([deck, *orientations, *extra], fallback=seed))
             for deck in (order, other)]
    chooser = random.Random(seed)
    compared = 0
    while not games[0].is_terminal() and games[0].observation(0)["stack_size"] >= 36 - 10:
        for seat in range(num_players):
            assert games[0].observation(seat) == games[1].observation(seat)
        assert games[0].spectator_view() == games[1].spectator_view()
        actions = {s: chooser.choice(games[0].legal_actions(s)) for s in games[0].to_act()}
        for game in games:
            game.apply(actions)
        compared += 1
    assert compared >= 2


def _two_deals(first_levels, second_levels, rest_a, rest_b, num_players=3):
    """Two games whose stacks differ in the level cards (same view) and in every card below."""
    def make(levels, rest):
        order = list(levels) + rest
        return GAME.new_state(num_players=num_players, seed=0,
                              rng=ScriptedRandom([order, *[0] * 36], fallback=1))
    return make(first_levels, rest_a), make(second_levels, rest_b)


def test_observations_are_identical_when_only_unrevealed_cards_differ():
    # Open-water cards 0, 2, 4 have haze 1 and 1, 3, 5 haze 2: both stacks give the same view.
    levels_a, levels_b = [0, 1, 6, 2, 3], [4, 5, 6, 0, 1]
    rest_a = [c for c in range(36) if c not in levels_a]
    rest_b = [c for c in range(35, -1, -1) if c not in levels_b]
    a, b = _two_deals(levels_a, levels_b, rest_a, rest_b)
    assert a.full_view()["stack"] != b.full_view()["stack"]
    for seat in range(3):
        assert a.observation(seat) == b.observation(seat)
    assert a.spectator_view() == b.spectator_view()
    plans = {0: plan(["air", "air"]), 1: plan(["shark"]), 2: plan(["air", "air", "shark"])}
    a.apply(plans)
    b.apply(plans)
    for seat in range(3):
        assert a.observation(seat) == b.observation(seat)


def test_a_seat_sees_its_own_plan_but_not_the_others_until_the_reveal():
    state = GAME.new_state(num_players=3, seed=8, options={"companions": True})
    other = state.clone()
    state.apply({0: plan(["air"], False), 1: plan(["shark", "air"], True), 2: plan(["air"] * 5, False)})
    other.apply({0: plan(["air"], False), 1: plan(["air"] * 4, False), 2: plan(["shark"], True)})
    assert state.observation(0) == other.observation(0)
    assert state.spectator_view() == other.spectator_view()
    assert state.observation(1)["my_plan"] == plan(["shark", "air"], True)
    assert other.observation(1)["my_plan"] == plan(["air"] * 4, False)
    # The reveal makes every plan public, companions included.
    state.apply({0: air([1] * 5), 1: air([1, 2, 1, 2, 1]), 2: state.legal_actions(2)[0]})
    log = state.observation(0)["last_round"]
    assert log["plans"][1]["calls"] == ["shark", "air"] and log["plans"][1]["token_levels"] == [1, 2, 1, 2, 1]
    assert log["plans"][1]["companion"] == state.observation(0)["companions"][1]["id"]


def test_the_first_observation_holds_no_secret_and_is_the_same_for_every_seat():
    state = GAME.new_state(num_players=4, seed=21)
    first = state.observation(0)
    assert first["my_plan"] is None and first["last_round"] is None and first["discard"] == []
    assert set(first) == OBSERVATION_KEYS
    for seat in range(1, 4):
        observation = state.observation(seat)
        assert observation["seat"] == seat
        assert {**observation, "seat": 0} == first
    public = state.spectator_view()
    assert "stack" not in public and "plans" not in public
    assert first["events"] == []  # nothing public happened before the first decision
    assert {k: v for k, v in first.items() if k not in ("seat", "my_plan", "events")} == public


def test_the_chief_s_plan_is_drawn_only_at_the_reveal():
    state = deal(1, [0, 1, 2, 3, 4], extra=[3, [2, 1, 3, 4, 5]], fallback=None)
    state.apply({0: plan(["air"])})
    assert state.rng.remaining == 2  # nothing of the chief exists yet during Decision B
    state.apply({0: air([1] * 5)})
    assert state.rng.remaining == 0
    assert state.observation(0)["last_round"]["chief"] == {"depth": 3, "bids": [2, 1, 12]}


def test_the_stack_stays_hidden_from_spectators_after_the_end_and_only_the_full_view_shows_it():
    state = GAME.new_state(num_players=2, seed=4)
    chooser = random.Random(4)
    while not state.is_terminal():
        assert "stack" not in state.spectator_view()
        state.apply({s: chooser.choice(state.legal_actions(s)) for s in state.to_act()})
    assert "stack" not in state.spectator_view() and "plans" not in state.spectator_view()
    assert state.spectator_view() != state.full_view()
    assert state.full_view()["stack"] and "stack" in state.full_view()
    assert state.observation(0)["phase"] == "over" and state.observation(0)["ocean_view"] is None


@pytest.mark.parametrize("num_players", [1, 2, 5])
def test_the_full_view_holds_the_stack_and_the_pending_plans(num_players):
    state = GAME.new_state(num_players=num_players, seed=2)
    assert len(state.full_view()["stack"]) == 36 and state.full_view()["plans"] is None
    state.apply({s: plan(["air", "shark"]) for s in range(num_players)})
    assert state.full_view()["plans"] == [plan(["air", "shark"])] * num_players


def test_an_observation_for_a_seat_not_in_the_game_is_refused_rather_than_another_seat_s_plan():
    state = GAME.new_state(num_players=3, seed=8)
    state.apply({0: plan(["air"]), 1: plan(["air"]), 2: plan(["shark", "shark"])})
    for seat in (-1, 3, True, 2.0, "0"):
        with pytest.raises(ValueError, match="no seat"):
            state.observation(seat)
