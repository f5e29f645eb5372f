"""Pure pairing functions: table sizes, round robin balance, Swiss repeats, elimination brackets."""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from competition.formats import (
    advancers,
    elimination_plan,
    elimination_round,
    round_robin,
    swiss_round,
    table_sizes,
)


def pair_counts(rounds, entrants):
    counts = Counter({frozenset(p): 0 for p in itertools.combinations(entrants, 2)})
    for round_ in rounds:
        for table in round_:
            for pair in itertools.combinations(table, 2):
                counts[frozenset(pair)] += 1
    return counts


def assert_valid_round(round_, entrants, k, min_seats):
    seated = [e for table in round_ for e in table]
    assert len(seated) == len(set(seated)), "an entrant sits twice in one round"
    assert set(seated) <= set(entrants)
    assert all(min_seats <= len(table) <= k for table in round_)
    assert sorted(len(t) for t in round_) == sorted(table_sizes(len(entrants), k,
                                                                min_seats=min_seats))


def spread(values):
    values = list(values)
    return max(values) - min(values) if values else 0


# --- table sizes ----------------------------------------------------------------------------


@pytest.mark.parametrize("n, k, min_seats, expected", [
    (10, 4, 2, [4, 3, 3]),
    (12, 4, 2, [4, 4, 4]),
    (13, 4, 2, [4, 3, 3, 3]),
    (5, 4, 3, [4]),          # [3, 2] would go below 3 seats: one bye instead
    (7, 3, 3, [3, 3]),       # fixed-size tables: the rest sit out
    (3, 6, 2, [3]),
    (6, 1, 1, [1] * 6),      # solo games: every entrant alone
    (7, 2, 2, [2, 2, 2]),
    (7, 2, 1, [2, 2, 2, 1]),
])
def test_table_sizes_seat_the_most_entrants_at_the_fewest_even_tables(n, k, min_seats, expected):
    assert table_sizes(n, k, min_seats=min_seats) == expected


def test_table_sizes_never_go_below_the_minimum_and_leave_the_fewest_byes():
    for n in range(1, 60):
        for k in range(1, 8):
            for min_seats in range(1, k + 1):
                if n < min_seats:
                    continue
                sizes = table_sizes(n, k, min_seats=min_seats)
                assert all(min_seats <= s <= k for s in sizes)
                assert max(sizes) - min(sizes) <= 1
                best = max(s for s in range(n + 1)
                           if any(t * min_seats <= s <= t * k for t in range(1, s + 1)))
                assert sum(sizes) == best


@pytest.mark.parametrize("n, k, min_seats, message", [
    (1, 4, 2, "cannot fill one table"),
    (4, 0, 1, "at least one seat"),
    (4, 2, 3, "below the game's minimum"),
    (4, 2, 0, "minimum table size"),
])
def test_table_sizes_reject_impossible_input(n, k, min_seats, message):
    with pytest.raises(ValueError, match=message):
        table_sizes(n, k, min_seats=min_seats)


# --- round robin ----------------------------------------------------------------------------


@pytest.mark.parametrize("n, k, rounds", [(9, 3, 4), (16, 4, 5), (8, 2, 7), (7, 2, 7),
                                          (25, 5, 6), (27, 3, 13), (15, 3, 7), (4, 4, 3)])
def test_round_robin_builds_perfect_designs_where_every_pair_meets_exactly_once(n, k, rounds):
    entrants = list(range(100, 100 + n))
    schedule = round_robin(entrants, k, rounds, min_seats=2)
    assert len(schedule) == rounds
    for round_ in schedule:
        assert_valid_round(round_, entrants, k, 2)
    counts = pair_counts(schedule, entrants)
    lam = 1 if n > k else rounds
    assert set(counts.values()) == {lam}


def optimal_spread(n, sizes, rounds):
    """The smallest max-min of pair counts over every schedule (brute force, tiny fields)."""
    index = {frozenset(p): i for i, p in enumerate(itertools.combinations(range(n), 2))}
    options = [[index[frozenset(p)] for t in part for p in itertools.combinations(t, 2)]
               for part in partitions(list(range(n)), sizes)]
    counts = [0] * len(index)
    for i in options[0]:  # relabelling makes any first round as good as another
        counts[i] += 1
    best = max(counts) - min(counts)
    if rounds == 1:
        return best
    best = None

    def extend(played, start):
        nonlocal best
        if played == rounds:
            found = max(counts) - min(counts)
            best = found if best is None else min(best, found)
            return
        for j in range(start, len(options)):  # a multiset of rounds: order does not matter
            for i in options[j]:
                counts[i] += 1
            extend(played + 1, j)
            for i in options[j]:
                counts[i] -= 1

    extend(1, 0)
    return best


@pytest.mark.parametrize("n, k, rounds", [
    (4, 3, 2), (4, 3, 3), (5, 3, 2), (5, 3, 4), (5, 4, 4), (5, 3, 5), (6, 3, 2), (6, 3, 4),
    (6, 4, 5), (7, 3, 2), (7, 3, 3), (7, 4, 3), (8, 3, 2), (8, 4, 3), (8, 4, 4), (8, 5, 4),
    (9, 5, 3), (10, 5, 3),
])
def test_round_robin_is_as_even_as_any_schedule_of_a_small_field(n, k, rounds):
    # Perfect balance (max-min <= 1) is often impossible: for 6 entrants at two 3-seat tables
    # no number of rounds from 2 to 5 achieves it. The search must reach the true optimum.
    schedule = round_robin(list(range(n)), k, rounds, min_seats=2)
    reached = spread(pair_counts(schedule, range(n)).values())
    assert reached == optimal_spread(n, table_sizes(n, k, min_seats=2), rounds)


def test_round_robin_of_a_sparse_field_repeats_no_pair():
    # While each entrant meets at most half the field and a round has at least k tables (so
    # one table can take one entrant from each table of another round), nobody meets twice.
    checked = 0
    for n in range(12, 25):
        for k in (3, 4, 5, 6):
            tables = len(table_sizes(n, k, min_seats=2))
            for rounds in range(2, 12):
                if rounds * (k - 1) <= (n - 1) // 2 and k <= tables:
                    schedule = round_robin(list(range(n)), k, rounds, min_seats=2)
                    assert max(pair_counts(schedule, range(n)).values()) == 1, (n, k, rounds)
                    checked += 1
    assert checked > 50


def test_round_robin_of_a_two_seat_game_with_an_odd_field_seats_the_odd_one_alone_if_allowed():
    schedule = round_robin(list(range(7)), 2, 7, min_seats=1)
    for round_ in schedule:
        assert sorted(len(t) for t in round_) == [1, 2, 2, 2]
    assert set(pair_counts(schedule, range(7)).values()) == {1}
    alone = Counter(t[0] for round_ in schedule for t in round_ if len(t) == 1)
    assert sorted(alone.values()) == [1] * 7


def test_round_robin_repeats_a_perfect_design_evenly_over_more_rounds():
    schedule = round_robin(list(range(9)), 3, 10, min_seats=3)
    assert set(pair_counts(schedule, range(9)).values()) == {2, 3}


def test_round_robin_of_solo_games_seats_everyone_alone():
    schedule = round_robin([3, 1, 2], 1, 2, min_seats=1)
    assert schedule == [[(3,), (1,), (2,)]] * 2


def test_round_robin_rejects_bad_input():
    with pytest.raises(ValueError, match="at least one round"):
        round_robin([1, 2, 3], 2, 0, min_seats=2)
    with pytest.raises(ValueError, match="more than once"):
        round_robin([1, 2, 2], 2, 1, min_seats=2)
    with pytest.raises(ValueError, match="cannot fill one table"):
        round_robin([1], 2, 1, min_seats=2)


def test_round_robin_is_deterministic():
    entrants = [5, 9, 1, 7, 3, 8, 2, 6, 4, 10, 11]
    assert round_robin(entrants, 3, 6, min_seats=2) == round_robin(entrants, 3, 6, min_seats=2)


# --- Swiss ----------------------------------------------------------------------------------


def partitions(players, sizes):
    """Every split of ``players`` into tables with the multiset of ``sizes``."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in set(sizes):
        left = list(sizes)
        left.remove(size)
        for mates in itertools.combinations(rest, size - 1):
            others = [p for p in rest if p not in mates]
            for tail in partitions(others, left):
                yield [(first, *mates)] + tail


def repeats(tables, meetings):
    return sum(meetings.get(frozenset(p), 0) > 0
               for t in tables for p in itertools.combinations(t, 2))


@pytest.mark.parametrize("k", [2, 3])
def test_swiss_never_repeats_a_table_mate_when_a_repeat_free_round_exists(k):
    rng = random.Random(10)
    checked_free = checked_forced = 0
    for _trial in range(300):
        n = rng.randint(k + 1, 9)
        ranked = rng.sample(range(1, 40), n)
        density = rng.choice([0.2, 0.4, 0.6])
        meetings = {frozenset(p): rng.randint(1, 3)
                    for p in itertools.combinations(ranked, 2) if rng.random() < density}
        tables = swiss_round(ranked, meetings, k, min_seats=2)
        assert_valid_round(tables, ranked, k, 2)
        players = [e for e in ranked if any(e in t for t in tables)]
        best = min(repeats(p, meetings)
                   for p in partitions(players, table_sizes(n, k, min_seats=2)))
        if best == 0:
            checked_free += 1
            assert repeats(tables, meetings) == 0, (ranked, meetings, tables)
        else:
            checked_forced += 1
    assert checked_free > 50 and checked_forced > 10


@pytest.mark.parametrize("n, k", [(16, 4), (25, 5), (27, 3), (64, 4)])
def test_swiss_finds_the_only_repeat_free_round_left_in_a_design(n, k):
    # After all but one parallel class of an affine geometry, each entrant has exactly k-1
    # entrants left to meet, who are each other's: one repeat-free round exists, in no rank order.
    design = round_robin(list(range(n)), k, 1000, min_seats=2)
    classes = len({frozenset(round_) for round_ in design})
    played, last = design[:classes - 1], design[classes - 1]
    meetings = Counter(frozenset(p) for round_ in played for t in round_
                       for p in itertools.combinations(t, 2))
    ranked = random.Random(n).sample(range(n), n)
    tables = swiss_round(ranked, meetings, k, min_seats=2)
    assert {frozenset(t) for t in tables} == {frozenset(t) for t in last}


def test_swiss_and_elimination_of_solo_games_seat_everyone_alone():
    assert swiss_round([4, 2, 9], {}, 1, min_seats=1) == [(4,), (2,), (9,)]
    with pytest.raises(ValueError, match="nobody would be eliminated"):
        elimination_plan(3, 1, 1, min_seats=1)


def test_swiss_without_history_cuts_tables_by_rank():
    ranked = [8, 3, 5, 1, 9, 2, 7, 4, 6, 10]
    assert swiss_round(ranked, {}, 4, min_seats=2) == [(8, 3, 5, 1), (9, 2, 7), (4, 6, 10)]


def test_swiss_moves_a_repeat_to_the_nearest_table():
    ranked = list(range(1, 9))
    tables = swiss_round(ranked, {frozenset((1, 2)): 1}, 2, min_seats=2)
    assert tables == [(1, 3), (2, 4), (5, 6), (7, 8)]


def test_swiss_gives_the_bye_to_the_lowest_ranked_entrant_without_one():
    ranked = [1, 2, 3, 4, 5, 6, 7]
    tables = swiss_round(ranked, {}, 3, min_seats=3, byes_had={7})
    seated = {e for t in tables for e in t}
    assert set(ranked) - seated == {6}
    tables = swiss_round(ranked, {}, 3, min_seats=3, byes_had=set(ranked))
    assert set(ranked) - {e for t in tables for e in t} == {7}


def test_swiss_is_deterministic_and_rejects_bad_input():
    ranked = list(range(20))
    meetings = {frozenset((a, a + 1)): 1 for a in range(19)}
    assert swiss_round(ranked, meetings, 4, min_seats=2) == swiss_round(ranked, meetings, 4,
                                                                         min_seats=2)
    with pytest.raises(ValueError, match="more than once"):
        swiss_round([1, 1, 2], {}, 2, min_seats=2)
    with pytest.raises(ValueError, match="cannot fill one table"):
        swiss_round([1], {}, 3, min_seats=2)


# --- elimination ----------------------------------------------------------------------------


@pytest.mark.parametrize("n, k, m, expected", [
    (64, 4, 2, [64, 32, 16, 8, 4]),
    (64, 4, 1, [64, 16, 4]),
    (10, 4, 2, [10, 6, 4]),
    (4, 4, 1, [4]),
    (9, 3, 1, [9, 3]),
])
def test_elimination_plan_counts_the_entrants_of_each_round(n, k, m, expected):
    assert elimination_plan(n, k, m, min_seats=2) == expected


@pytest.mark.parametrize("k, m", [(2, 1), (3, 1), (3, 2), (4, 1), (4, 2), (4, 3), (5, 2),
                                  (6, 3), (6, 5)])
def test_elimination_bracket_seats_exactly_the_advancers_of_the_previous_round(k, m):
    rng = random.Random(k * 10 + m)
    for n in range(2, 70):
        for min_seats in range(2, k + 1):
            try:
                plan = elimination_plan(n, k, m, min_seats=min_seats)
            except ValueError:
                continue
            seeded = rng.sample(range(1000), n)
            seed_of = {e: i for i, e in enumerate(seeded)}
            for size in plan:
                assert len(seeded) == size
                tables = elimination_round(seeded, k, min_seats=min_seats, m=m)
                seated = [e for t in tables for e in t]
                assert len(seated) == len(set(seated)) and set(seated) <= set(seeded)
                assert all(min_seats <= len(t) <= k for t in tables)
                byes = [e for e in seeded if e not in seated]
                assert byes == seeded[:len(byes)], "byes go to the top seeds"
                survivors = list(byes)
                for table in tables:
                    survivors += advancers(rng.sample(table, len(table)), m)
                if size == plan[-1]:
                    assert len(tables) == 1 and not byes
                seeded = sorted(survivors, key=seed_of.__getitem__)
            assert len(seeded) == min(m, plan[-1])


def test_elimination_snake_seeds_the_top_seeds_into_different_tables():
    tables = elimination_round(list(range(1, 17)), 4, min_seats=2, m=2)
    assert tables == [(1, 8, 9, 16), (2, 7, 10, 15), (3, 6, 11, 14), (4, 5, 12, 13)]


@pytest.mark.parametrize("n, k, m, message", [
    (8, 4, 4, "nobody would be eliminated"),
    (8, 4, 0, "at least one entrant"),
    (1, 4, 1, "cannot fill one table"),
    (5, 4, 1, "choose a larger m"),
])
def test_elimination_plan_rejects_bad_input(n, k, m, message):
    with pytest.raises(ValueError, match=message):
        elimination_plan(n, k, m, min_seats=3)


def test_advancers_are_the_top_of_the_table_order():
    assert advancers((7, 3, 9, 1), 2) == [7, 3]
    with pytest.raises(ValueError):
        advancers((7, 3), 0)


def rounds_for_everyone_to_meet(n, k, min_seats):
    sizes = table_sizes(n, k, min_seats=min_seats)
    per_round = sum(s * (s - 1) // 2 for s in sizes)
    return max(1, -(-(n * (n - 1) // 2) // per_round))


@pytest.mark.parametrize("n", range(4, 25))
@pytest.mark.parametrize("k", range(2, 7))
def test_round_robin_rounds_are_valid_and_spread_byes_and_meetings(n, k):
    entrants = list(range(n))
    for min_seats in sorted({2, min(k, n)}):
        full = rounds_for_everyone_to_meet(n, k, min_seats)
        for rounds in sorted({1, 2, full}):
            schedule = round_robin(entrants, k, rounds, min_seats=min_seats)
            assert len(schedule) == rounds
            byes = Counter({e: 0 for e in entrants})
            for round_ in schedule:
                assert_valid_round(round_, entrants, k, min_seats)
                byes.update(set(entrants) - {e for t in round_ for e in t})
            assert spread(byes.values()) <= 1
            counts = pair_counts(schedule, entrants).values()
            if rounds == 1 or k == 2 or n <= k:
                assert spread(counts) <= 1
            else:
                assert spread(counts) <= 3


def test_pairings_do_not_depend_on_the_process_hash_seed():
    program = (
        "from competition.formats import round_robin, swiss_round\n"
        "print(round_robin(list(range(13)), 4, 5, min_seats=2))\n"
        "m = {frozenset((a, (a * 7) % 13)): 1 for a in range(13) if a != (a * 7) % 13}\n"
        "print(swiss_round(list(range(13)), m, 3, min_seats=2, byes_had={12}))\n"
    )
    root = Path(__file__).resolve().parents[2]
    outputs = {
        subprocess.run([sys.executable, "-c", program], cwd=root, check=True, text=True,
                       capture_output=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1 and next(iter(outputs)).count("[") > 5
