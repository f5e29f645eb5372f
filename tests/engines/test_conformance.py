"""Generic conformance of every registered engine to the engine API of DESIGN.md."""

from __future__ import annotations

import copy
import json
import random

import pytest

from engines import IllegalAction, KeyedRandom, get_game, list_games
from tests.engines.conformance import as_json, player_counts, random_playout

GAME_AND_PLAYERS = [
    pytest.param(game.id, n, id=f"{game.id}-{n}p")
    for game in list_games() for n in player_counts(game)
]
SEEDS = range(12)


def test_at_least_the_foundation_games_are_registered():
    ids = {game.id for game in list_games()}
    assert {"deep_sea_adventure", "divee"} <= ids


@pytest.mark.parametrize("game_id", [game.id for game in list_games()])
def test_game_describes_itself(game_id):
    game = get_game(game_id)
    assert game.id == game_id
    assert game.title and 1 <= game.min_players <= game.max_players
    assert as_json(game.default_options) == game.default_options
    assert "random" in game.bots and len(game.bots) >= 2


def test_get_game_names_the_known_games_when_the_id_is_unknown():
    with pytest.raises(KeyError, match="deep_sea_adventure"):
        get_game("chess")


@pytest.mark.parametrize("game_id", [game.id for game in list_games()])
def test_new_state_rejects_a_bad_player_count_and_unknown_options(game_id):
    game = get_game(game_id)
    with pytest.raises(ValueError):
        game.new_state(num_players=game.max_players + 1, seed=1)
    with pytest.raises(ValueError):
        game.new_state(num_players=game.min_players - 1, seed=1)
    with pytest.raises(ValueError, match="unknown option"):
        game.new_state(num_players=game.min_players, seed=1, options={"no_such_option": True})


@pytest.mark.parametrize("game_id,num_players", GAME_AND_PLAYERS)
def test_random_play_always_terminates_with_a_valid_result(game_id, num_players):
    game = get_game(game_id)
    for seed in SEEDS:
        state = game.new_state(num_players=num_players, seed=seed)
        chooser = random.Random(seed)
        while True:
            seats = state.to_act()
            assert seats == sorted(set(seats))
            assert state.is_terminal() == (not seats)
            if not seats:
                break
            actions = {}
            for seat in range(num_players):
                legal = state.legal_actions(seat)
                if seat not in seats:
                    assert legal == []
                    continue
                assert legal, f"seat {seat} is to act with no legal action"
                assert as_json(legal) == legal
                actions[seat] = legal[chooser.randrange(len(legal))]
            state.apply(actions)
        result = state.result()
        assert len(result["scores"]) == num_players
        ranks = result["ranks"]
        assert len(ranks) == num_players
        # A solo game against an automaton may rank its seat 2: it lost (dive.md section 6).
        solo_loss = num_players == 1 and ranks == [2]
        assert min(ranks) == 1 or solo_loss
        for rank in ranks if not solo_loss else []:
            # Competition ranking: a rank is 1 + the number of seats strictly ahead.
            assert rank == 1 + sum(1 for other in ranks if other < rank), ranks
        assert as_json(result) == result
        assert state.to_act() == []


@pytest.mark.parametrize("game_id,num_players", GAME_AND_PLAYERS)
def test_views_are_json_and_observations_are_asked_at_every_step(game_id, num_players):
    game = get_game(game_id)
    state = game.new_state(num_players=num_players, seed=5)
    chooser = random.Random(5)
    while not state.is_terminal():
        assert as_json(state.spectator_view()) == state.spectator_view()
        assert as_json(state.full_view()) == state.full_view()
        for seat in state.to_act():
            assert as_json(state.observation(seat)) == state.observation(seat)
        state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
    assert as_json(state.full_view()) == state.full_view()
    assert as_json(state.spectator_view()) == state.spectator_view()


@pytest.mark.parametrize("game_id,num_players", GAME_AND_PLAYERS)
def test_an_illegal_action_raises_and_leaves_the_state_unchanged(game_id, num_players):
    game = get_game(game_id)
    state = game.new_state(num_players=num_players, seed=3)
    chooser = random.Random(3)
    steps = 0
    while not state.is_terminal():
        seats = state.to_act()
        before = copy.deepcopy(state.full_view())
        good = {seat: chooser.choice(state.legal_actions(seat)) for seat in seats}
        bad_attempts = [
            {seat: {"type": "no_such_action"} for seat in seats},
            {},
            "not a mapping",
            {**good, num_players: good[seats[0]]},
        ]
        if len(seats) > 1:
            bad_attempts.append({seats[0]: good[seats[0]]})
        if steps % 7 == 0:
            # A well-formed action with one field changed to a value no legal action has.
            mangled = {seat: {**action, "zz_unexpected": 1} for seat, action in good.items()}
            bad_attempts.append(mangled)
        for bad in bad_attempts:
            with pytest.raises(IllegalAction):
                state.apply(bad)
            assert state.full_view() == before
            assert state.to_act() == seats
        state.apply(good)
        steps += 1
    with pytest.raises(IllegalAction):
        state.apply({0: {"type": "anything"}})


@pytest.mark.parametrize("game_id,num_players", GAME_AND_PLAYERS)
def test_the_same_seed_and_actions_reproduce_the_game_exactly(game_id, num_players):
    game = get_game(game_id)
    for seed in (0, 17, 99):
        recorded = []
        first = random_playout(game.new_state(num_players=num_players, seed=seed), seed, recorded)
        replay = game.new_state(num_players=num_players, seed=seed)
        for actions in recorded:
            replay.apply(actions)
        assert replay.full_view() == first.full_view()
        assert replay.result() == first.result()
        # A different seed gives a different game somewhere (chance is really seeded).
    differing = {
        repr(game.new_state(num_players=num_players, seed=seed).full_view()) for seed in range(8)
    }
    if game.info.chance:
        assert len(differing) > 1


@pytest.mark.parametrize("game_id,num_players", GAME_AND_PLAYERS)
def test_a_clone_is_independent_of_its_source(game_id, num_players):
    game = get_game(game_id)
    state = game.new_state(num_players=num_players, seed=11)
    chooser = random.Random(11)
    for _ in range(5):
        if state.is_terminal():
            break
        state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
    if state.is_terminal():
        pytest.skip("game ended before the clone point")
    before = copy.deepcopy(state.full_view())
    twin = state.clone()
    assert twin.full_view() == before
    random_playout(twin, 1)
    assert state.full_view() == before
    # The clone carries the RNG too: both continue identically from here.
    a, b = state.clone(), state.clone()
    random_playout(a, 2)
    random_playout(b, 2)
    assert a.full_view() == b.full_view()


def _lookalikes(action):
    """Copies of ``action`` with one integer field turned into an equal float or bool."""
    variants = []
    for key, value in action.items():
        if type(value) is int:
            variants.append({**action, key: float(value)})
            if value in (0, 1):
                variants.append({**action, key: bool(value)})
        elif isinstance(value, list) and value and type(value[0]) is int:
            variants.append({**action, key: [float(value[0]), *value[1:]]})
    return variants


@pytest.mark.parametrize("game_id,num_players", GAME_AND_PLAYERS)
def test_a_seat_not_to_act_is_refused_and_lookalike_numbers_play_the_canonical_action(game_id, num_players):
    """{"item": true} or {"item": 1.0} equals a legal {"item": 1} in Python (and to the bot
    protocol's legality check): the state either refuses it unchanged or plays exactly the
    legal action, so no float or bool ever reaches its views."""
    game = get_game(game_id)
    state = game.new_state(num_players=num_players, seed=7)
    chooser = random.Random(7)
    while not state.is_terminal():
        seats = state.to_act()
        good = {seat: chooser.choice(state.legal_actions(seat)) for seat in seats}
        before = json.dumps(state.full_view(), sort_keys=True)
        idle = [seat for seat in range(num_players) if seat not in seats]
        if idle:
            wrong_seat = {**good}
            wrong_seat[idle[0]] = wrong_seat.pop(seats[0])
            with pytest.raises(IllegalAction):
                state.apply(wrong_seat)
            assert json.dumps(state.full_view(), sort_keys=True) == before
        expected = state.clone()
        expected.apply(good)
        for seat in seats:
            for variant in _lookalikes(good[seat]):
                twin = state.clone()
                try:
                    twin.apply({**good, seat: variant})
                except IllegalAction:
                    assert json.dumps(twin.full_view(), sort_keys=True) == before
                else:
                    assert json.dumps(twin.full_view(), sort_keys=True) == json.dumps(
                        expected.full_view(), sort_keys=True), variant
        state.apply(good)


@pytest.mark.parametrize("game_id,num_players", GAME_AND_PLAYERS)
def test_no_view_but_the_full_view_depends_on_the_random_generator_or_the_seed(game_id, num_players):
    """Two copies of a position that differ only in their future chance (another RNG state)
    and in the seed they were created with look the same to every seat and to spectators."""
    game = get_game(game_id)
    state = game.new_state(num_players=num_players, seed=13)
    chooser = random.Random(13)
    step = 0
    while True:
        if step % 3 == 0 or state.is_terminal():
            twin = state.clone()
            twin.rng = KeyedRandom(987_654_321 + step)
            twin.seed = 987_654_321
            for seat in range(num_players):
                assert twin.observation(seat) == state.observation(seat)
            assert twin.spectator_view() == state.spectator_view()
            assert "987654321" not in json.dumps([twin.observation(0), twin.spectator_view()])
        if state.is_terminal():
            break
        state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
        step += 1


@pytest.mark.parametrize("game_id,num_players", GAME_AND_PLAYERS)
def test_an_illegal_action_draws_no_chance_and_the_game_goes_on_as_if_it_never_came(game_id, num_players):
    """full_view() shows no RNG state: a refused action that drew a die before being refused
    would pass the unchanged-view check, yet change every roll to come."""
    game = get_game(game_id)
    state = game.new_state(num_players=num_players, seed=29)
    untouched = game.new_state(num_players=num_players, seed=29)
    chooser = random.Random(29)
    while not state.is_terminal():
        seats = state.to_act()
        good = {seat: chooser.choice(state.legal_actions(seat)) for seat in seats}
        for bad in ({seat: {"type": "no_such_action"} for seat in seats},
                    {seat: {**action, "zz_unexpected": 1} for seat, action in good.items()},
                    {seat: None for seat in seats}):
            with pytest.raises(IllegalAction):
                state.apply(bad)
        state.apply(good)
        untouched.apply(good)
    assert state.full_view() == untouched.full_view()
    assert state.result() == untouched.result()


@pytest.mark.parametrize("game_id", [game.id for game in list_games()])
def test_new_state_rejects_a_seed_or_options_of_the_wrong_type(game_id):
    game = get_game(game_id)
    for seed in (None, "7", 1.5, True):
        with pytest.raises(ValueError, match="seed"):
            game.new_state(num_players=game.min_players, seed=seed)
    for options in ([], "", 0, ["jewel"]):
        with pytest.raises(ValueError, match="options must be a JSON object"):
            game.new_state(num_players=game.min_players, seed=1, options=options)
    assert game.new_state(num_players=game.min_players, seed=1, options={}).to_act() is not None
    for name, default in game.default_options.items():
        wrong = "yes" if not isinstance(default, str) else 1
        with pytest.raises(ValueError, match=f"option '{name}' must be"):
            game.new_state(num_players=game.min_players, seed=1, options={name: wrong})


def _key_paths(value, prefix=()):
    """Every key path of a JSON value, list positions collapsed to ``[]`` (what a view is made of)."""
    paths = set()
    if isinstance(value, dict):
        for key, item in value.items():
            path = prefix + (str(key),)
            paths.add(path)
            paths |= _key_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            paths |= _key_paths(item, prefix + ("[]",))
    return paths


def _leaf_values(value):
    """Every scalar of a JSON value, as JSON text (so 1, 1.0 and true stay apart)."""
    if isinstance(value, dict):
        return set().union(*(_leaf_values(item) for item in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_leaf_values(item) for item in value)) if value else set()
    return {json.dumps(value)}


@pytest.mark.parametrize("game_id,num_players", GAME_AND_PLAYERS)
def test_the_spectator_view_after_the_end_shows_only_what_spectators_saw_plus_the_result(game_id, num_players):
    """DESIGN: spectator_view() is the public view at every point, the end included; only a
    replay's final full_view() shows everything. So the final spectator view has no key a
    spectator never saw during the game (or in the public result), and every value it holds
    was in a spectator view of the last step, in the final observations' shared part, or in
    the result."""
    game = get_game(game_id)
    for seed in (1, 8):
        state = game.new_state(num_players=num_players, seed=seed)
        chooser = random.Random(seed)
        seen_paths = set()
        before_last = state.spectator_view()
        while not state.is_terminal():
            before_last = state.spectator_view()
            seen_paths |= _key_paths(before_last)
            state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
        final = as_json(state.spectator_view())
        result = as_json(state.result())
        result_paths = _key_paths(result)
        allowed_paths = seen_paths | result_paths | {("result",)} | {("result",) + p for p in result_paths}
        assert _key_paths(final) <= allowed_paths, sorted(_key_paths(final) - allowed_paths)
        full_only = _key_paths(as_json(state.full_view())) - seen_paths
        assert not (_key_paths(final) & full_only), sorted(_key_paths(final) & full_only)
        # Values: what the last step showed, what happened in it (public to every seat alike:
        # the values common to all final observations), and the result.
        common = set.intersection(*(_leaf_values(as_json(state.observation(seat)))
                                    for seat in range(num_players)))
        allowed_values = _leaf_values(as_json(before_last)) | common | _leaf_values(result)
        assert _leaf_values(final) <= allowed_values, sorted(_leaf_values(final) - allowed_values)


def _bot_games_under(hash_seed: str) -> list:
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, "-m", "tests.engines.bot_games"], cwd=repo, env=env,
                          capture_output=True, text=True, check=True, timeout=600)
    return json.loads(done.stdout)


def test_every_built_in_bot_plays_the_same_games_whatever_the_hash_seed():
    """Workers and local runs are different processes: a bot that iterates over a set of
    strings (whose order follows PYTHONHASHSEED) would play another game from the same seed."""
    first, second = _bot_games_under("1"), _bot_games_under("2")
    assert {(g["game"], tuple(g["bots"])) for g in first} >= {
        (game.id, (name,) * min(max(game.min_players, 2), game.max_players))
        for game in list_games() for name in game.bots}
    for a, b in zip(first, second, strict=True):
        assert a == b, f"{a['game']} {a['bots']} seed {a['seed']} options {a['options']} differs"


@pytest.mark.parametrize("game_id,num_players", GAME_AND_PLAYERS)
def test_observations_carry_the_public_events_since_the_seats_previous_decision(game_id, num_players):
    """Every observation's ``events`` lists what the table saw from the seat's previous
    decision on. They are public facts: any two seats' lists end with the same events (the
    shorter is the end of the longer); between two decisions of a seat its list only grows;
    right after a decision it starts again with that decision."""
    game = get_game(game_id)
    for seed in (2, 9):
        state = game.new_state(num_players=num_players, seed=seed)
        chooser = random.Random(seed)
        earlier = [None] * num_players
        while True:
            events = [as_json(state.observation(seat))["events"] for seat in range(num_players)]
            for seat_events in events:
                assert isinstance(seat_events, list)
                assert all(isinstance(event, dict) and isinstance(event.get("type"), str)
                           for event in seat_events)
            for a in range(num_players):
                for b in range(num_players):
                    shorter, longer = sorted((events[a], events[b]), key=len)
                    assert longer[len(longer) - len(shorter):] == shorter, (a, b)
            for seat in range(num_players):
                if earlier[seat] is None:
                    continue
                assert events[seat][:len(earlier[seat])] == earlier[seat], seat
            if state.is_terminal():
                break
            seats = state.to_act()
            state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in seats})
            for seat in range(num_players):
                earlier[seat] = events[seat] if seat not in seats else None
            for seat in seats:
                assert as_json(state.observation(seat))["events"], f"seat {seat}'s decision left no event"
