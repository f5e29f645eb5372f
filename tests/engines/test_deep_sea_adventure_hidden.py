"""Deep Sea Adventure hidden information (rules section 5): chip values stay secret.

Two games that share every die roll and every action but whose chips were shuffled
differently differ only in chip values (and ids). A seat's observation may differ between
them only in the values of its own secured chips, and the spectator view never differs.
"""

from __future__ import annotations

import random

import pytest

from tests.engines.deep_sea_adventure_support import GAME, scripted

OBSERVATION_KEYS = {
    "me", "round", "air", "current_seat", "decision", "start_seat", "return_order", "last_roll",
    "path", "divers", "my_secured_values", "events",
}


def twin_states(num_players: int, seed: int, orders_a, orders_b):
    """Two games with the same dice (seeded) but the given level shuffles."""
    a = GAME.new_state(num_players, rng=scripted(level_orders=orders_a, fallback=seed))
    b = GAME.new_state(num_players, rng=scripted(level_orders=orders_b, fallback=seed))
    return a, b


def shuffled_levels(rng: random.Random):
    orders = []
    for level in range(4):
        chips = list(range(8 * level, 8 * level + 8))
        rng.shuffle(chips)
        orders.append(chips)
    return orders


def secured_values(state, seat):
    return [c["value"] for c in state.full_view()["divers"][seat]["secured_chips"]]


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_observations_differ_only_in_the_values_of_the_seats_own_secured_chips(num_players):
    differing_secrets = 0
    for seed in range(6):
        shuffler = random.Random(1000 + seed)
        a, b = twin_states(num_players, seed, shuffled_levels(shuffler), shuffled_levels(shuffler))
        chooser = random.Random(seed)
        while True:
            assert a.spectator_view() == b.spectator_view()
            for seat in range(num_players):
                obs_a, obs_b = a.observation(seat), b.observation(seat)
                values_a, values_b = obs_a.pop("my_secured_values"), obs_b.pop("my_secured_values")
                assert obs_a == obs_b
                assert values_a == secured_values(a, seat) and values_b == secured_values(b, seat)
                differing_secrets += values_a != values_b
            if a.is_terminal():
                break
            seat = a.to_act()[0]
            assert b.to_act() == [seat] and a.legal_actions(seat) == b.legal_actions(seat)
            action = chooser.choice(a.legal_actions(seat))
            a.apply({seat: action})
            b.apply({seat: action})
        assert a.full_view()["initial_path"] != b.full_view()["initial_path"]
    assert differing_secrets > 0  # the secrets really differed somewhere


def test_swapping_chips_of_equal_value_changes_no_observation_at_all():
    # Chips 2k and 2k+1 of a level have the same value: the games differ only in chip ids.
    orders_a = [list(range(8 * level, 8 * level + 8)) for level in range(4)]
    orders_b = [[chip ^ 1 for chip in order] for order in orders_a]
    for seed in range(4):
        a, b = twin_states(4, seed, orders_a, orders_b)
        chooser = random.Random(seed)
        while True:
            for seat in range(4):
                assert a.observation(seat) == b.observation(seat)
            if a.is_terminal():
                break
            seat = a.to_act()[0]
            action = chooser.choice(a.legal_actions(seat))
            a.apply({seat: action})
            b.apply({seat: action})
        assert a.result() == b.result()
        assert a.full_view() != b.full_view()  # ids differ, and only the full view shows them


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_the_first_observation_holds_no_secret_at_all(num_players):
    for seed in range(5):
        shuffler = random.Random(seed)
        a, b = twin_states(num_players, seed, shuffled_levels(shuffler), shuffled_levels(shuffler))
        for seat in range(num_players):
            first = a.observation(seat)
            assert set(first) == OBSERVATION_KEYS
            assert first["my_secured_values"] == []
            assert first == b.observation(seat)
        assert "seed" not in a.spectator_view() and "path_chips" not in a.spectator_view()


def test_a_seat_never_sees_the_values_of_what_it_carries():
    # Level 1 in reverse value order in one game: carried chips differ in value between the two.
    orders_a = [list(range(8)), [], [], []]
    orders_b = [list(reversed(range(8))), [], [], []]
    carried_values_differed = False
    for seed in range(5):
        a, b = twin_states(3, seed, orders_a, orders_b)
        chooser = random.Random(seed)
        # Until someone secures a chip, nobody holds any secret: every observation is identical.
        while not a.is_terminal() and not any(d["secured_levels"] for d in a.spectator_view()["divers"]):
            def carried(state):
                return [[[c["value"] for c in item] for item in d["carried_chips"]]
                        for d in state.full_view()["divers"]]

            carried_values_differed |= carried(a) != carried(b)
            for seat in range(3):
                assert a.observation(seat) == b.observation(seat)
            seat = a.to_act()[0]
            action = chooser.choice(a.legal_actions(seat))
            a.apply({seat: action})
            b.apply({seat: action})
    assert carried_values_differed


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_events_are_the_public_log_since_the_seats_previous_decision_and_name_no_chip_value(num_players):
    """A seat's ``events`` are the spectator log from its last decision (its own action first)
    on, or from the start before its first one: every roll, action, return and round end."""
    for seed in range(4):
        state = GAME.new_state(num_players, seed=seed)
        chooser = random.Random(seed)
        decided_at = [0] * num_players       # spectator log length before each seat's last decision
        while True:
            log = state.spectator_view()["log"]
            for seat in range(num_players):
                events = state.observation(seat)["events"]
                expected = [{"type" if key == "event" else key: value for key, value in entry.items()}
                            for entry in log[decided_at[seat]:]]
                assert events == expected, (seed, seat)
                keys = {key for event in events for key in event}
                assert {"value", "values", "id", "chips"}.isdisjoint(keys)
            if state.is_terminal():
                break
            seat = state.to_act()[0]
            decided_at[seat] = len(log)
            state.apply({seat: chooser.choice(state.legal_actions(seat))})
            assert state.observation(seat)["events"][0] == {
                "type": "action", "seat": seat, "action": state.spectator_view()["log"][len(log)]["action"],
                "forced": False}
