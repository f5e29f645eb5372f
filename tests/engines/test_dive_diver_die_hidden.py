"""Dive! Diver! Die!: hidden information exactly as rules §5 says.

Observations are a pure filter of the state for one seat: two games that differ only in
what a seat may not see give that seat identical observations.
"""

from __future__ import annotations

import pytest

from engines.rng import ScriptedRandom
from tests.engines.dive_diver_die_support import (
    EXAMPLE_CLUES,
    GAME,
    act,
    choose_depths,
    new_game,
    play,
    prepare,
    private,
    setup_script,
    start_dive,
)


def strings(value) -> set:
    """Every string value (not key) inside a JSON-like value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def twin_games():
    """Two 3-seat games equal for seat 0, different in the other seats' secrets."""
    a = setup_script(3, removed=[[1, 2], [5, 9], [3, 4]], events=["wall_d", "swordfish", "sabotage"],
                     oxygenator=[6, 2, 3])
    b = setup_script(3, removed=[[1, 2], [1, 10], [7, 8]], events=["wall_d", "perilous_dive", "bonus_happy",
                                                                    "swordfish", "sabotage"],
                     oxygenator=[6, 9, 1])
    return new_game(3, a + [[], 4, 4], fallback=1), new_game(3, b + [[], 4, 4], fallback=2)


def test_the_first_observation_shows_a_seat_its_own_secrets_and_nobody_elses():
    one, two = twin_games()
    assert one.observation(0) == two.observation(0)
    assert one.spectator_view() == two.spectator_view()
    assert one.observation(1) != two.observation(1)           # seat 1's own hand differs
    first = one.observation(0)
    assert first["you"] == {"hand": [3, 4, 5, 6, 7, 8, 9, 10], "events": ["wall_d"],
                            "max_card": None, "contributed": None}
    for entry in first["players"]:
        assert {"hand", "events", "removed"}.isdisjoint(entry)
    assert {"swordfish", "sabotage", "wall_d"}.isdisjoint(strings(one.spectator_view()))
    assert {"swordfish", "sabotage"}.isdisjoint(strings(first))


def test_other_seats_prepare_choices_and_the_deck_orders_never_reach_an_observation():
    one, two = twin_games()
    prepare(one, (3, 10), (3, 4), (5, 6))
    prepare(two, (3, 10), (9, 2), (10, 1))
    assert one.observation(0) == two.observation(0)
    assert one.spectator_view() == two.spectator_view()
    view = one.observation(0)
    assert view["common_deck_count"] == 3 and "common_deck" not in view
    assert view["players"][1]["max_card"] is None and view["players"][1]["max_card_face_down"] is True
    assert view["you"]["max_card"] == 10 and view["you"]["contributed"] == 3
    # The full view (replays) holds everything, the removed cards included.
    full = one.full_view()
    assert [p["removed"] for p in full["private"]] == [[1, 2], [5, 9], [3, 4]]
    assert full["private"][1]["max_card"] == 4 and full["common_deck"] == [3, 3, 5]


def test_the_own_face_down_card_is_seen_by_its_owner_only_and_revealed_on_arrival():
    state = start_dive(2, prepares=[(3, 8), (3, 4)], depths=(1, 3), events=["toughest_diver"] * 2,
                       rolls=[0], fallback=3)
    assert private(state, 1)["max_card"] == 4
    assert state.observation(0)["players"][1]["max_card"] is None
    assert state.observation(1)["players"][0]["max_card"] == 8          # s0 arrived: revealed


def test_sabotage_hand_shows_the_exchanged_cards_only_to_their_new_owners():
    # s1 swaps hands with s2's face-down card; s0 watches. The engine gives s1's card 6.
    script = setup_script(3, events=["toughest_diver", "sabotage", "toughest_diver"])
    state = new_game(3, script + [[], 5, 5, 0, 6], fallback=4)
    prepare(state, (3, 4), (3, 10), (3, 9))
    choose_depths(state, 3, 3, 3)
    before_s0 = state.observation(0)
    play(state, 1, "sabotage", mode="hand", target=2)
    assert private(state, 1)["hand"] == [4, 5, 7, 8, 9, 9]               # 6 given, 9 received
    assert private(state, 2)["max_card"] == 6
    after_s0 = state.observation(0)
    assert after_s0["you"]["hand"] == before_s0["you"]["hand"]
    assert after_s0["players"][2]["max_card"] is None
    assert after_s0["event_discard"] == [{"seat": 1, "dive": 1, "card": "sabotage", "mode": "hand",
                                          "target": 2}]
    assert after_s0["players"][1]["hand_size"] == 6


def test_two_sabotage_outcomes_look_the_same_to_a_seat_that_owns_neither_card():
    games = []
    for given in (5, 8):
        script = setup_script(3, events=["toughest_diver", "sabotage", "toughest_diver"])
        state = new_game(3, script + [[], 5, 5, 0, given], fallback=5)
        prepare(state, (3, 4), (3, 10), (3, 9))
        choose_depths(state, 3, 3, 3)
        play(state, 1, "sabotage", mode="hand", target=2)
        games.append(state)
    assert games[0].observation(0) == games[1].observation(0)
    assert games[0].observation(2) != games[1].observation(2)      # the target sees its new card


def test_a_seat_sees_its_own_event_cards_and_only_the_counts_of_others():
    state = new_game(2, setup_script(2, events=["long_robotic_arm", "swordfish"], clues=EXAMPLE_CLUES)
                     + [[], 5, 5], fallback=6)
    view = state.observation(1)
    assert view["you"]["events"] == ["swordfish"]
    assert view["players"][0]["event_hand_size"] == 1
    assert "long_robotic_arm" not in strings(view)


def test_the_seed_the_deck_tops_and_the_common_deck_order_never_reach_seat_0_or_spectators():
    # Two games equal for seat 0 up to the Oxygenator reveal: different seeds, rival hands,
    # event cards, Oxygenator top card, common oxygen deck order and fallback chance.
    def game(seed, removed, events, oxygenator, common_top, fallback):
        script = setup_script(3, removed=removed, events=events, oxygenator=oxygenator)
        rng = ScriptedRandom(script + [common_top, 4, 4], fallback=fallback)
        return GAME.new_state(num_players=3, seed=seed, options={"jewel": True}, rng=rng)

    one = game(0, [[1, 2], [5, 9], [3, 4]], ["wall_d", "swordfish", "sabotage", "perilous_dive"],
               [6, 2, 3], [5], 1)
    two = game(987654, [[1, 2], [1, 10], [7, 8]], ["wall_d", "toughest_diver", "bonus_happy", "sabotage"],
               [1, 9, 6], [9], 2)

    def same_for_seat_0():
        assert one.observation(0) == two.observation(0)
        assert one.spectator_view() == two.spectator_view()

    same_for_seat_0()
    prepare(one, (3, 10), (3, 4), (5, 6))
    prepare(two, (3, 10), (9, 2), (10, 1))
    assert one.full_view()["common_deck"][0] != two.full_view()["common_deck"][0]
    same_for_seat_0()
    for state in (one, two):
        act(state, 0, {"type": "choose_depth", "depth": 3})
        act(state, 1, {"type": "choose_depth", "depth": 2})
    same_for_seat_0()
    assert one.full_view()["oxygenator_deck"][0] != two.full_view()["oxygenator_deck"][0]


def test_an_observation_for_a_seat_not_in_the_game_is_refused_rather_than_another_seat_s():
    state = new_game(3, setup_script(3, events=["wall_d", "swordfish", "sabotage"]), fallback=7)
    for seat in (-1, 3, True, 1.0, "0"):
        with pytest.raises(ValueError, match="no seat"):
            state.observation(seat)


def test_events_show_that_seats_prepared_and_the_public_actions_but_no_card_value():
    one, two = twin_games()
    start = one.observation(0)["events"]
    assert start[0] == {"type": "dive_start", "dive": 1, "start_player": 0}
    prepare(one, (3, 10), (3, 4), (5, 6))
    prepare(two, (3, 10), (9, 2), (10, 1))
    for seat in range(3):
        assert one.observation(seat)["events"][0]["type"] == "prepared"
    assert one.observation(0)["events"] == two.observation(0)["events"]
    assert one.observation(0)["events"] == [{"type": "prepared", "dive_pile": one.spectator_view()["dive_pile"]}]
    choose_depths(one, 2, 1, 3)
    choose_depths(two, 2, 1, 3)
    assert one.observation(0)["events"] == two.observation(0)["events"]
    told = one.observation(0)["events"]
    assert [e["action"] for e in told if e["type"] == "decision"] == [
        {"type": "choose_depth", "depth": d} for d in (2, 1, 3)]
    assert told[-1]["type"] == "oxygenator"   # P6: the Oxygenator's card, revealed to all


def test_events_never_carry_a_prepare_choice_or_a_private_field_through_a_whole_game():
    import random
    for seed in range(3):
        state = GAME.new_state(num_players=4, seed=seed)
        chooser = random.Random(seed)
        while not state.is_terminal():
            for seat in range(4):
                for event in state.observation(seat)["events"]:
                    assert {"hand", "removed", "contributed", "oxygen_card"}.isdisjoint(event)
                    assert event.get("action", {}).get("type") != "prepare"
            state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
