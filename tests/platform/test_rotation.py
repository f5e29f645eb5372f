"""Rotation groups: the seat orders (pure) and the service that creates a group's matches."""

from __future__ import annotations

from itertools import permutations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from arena.ladders.services import ladder_create
from arena.matches.models import Match, MatchGroup
from arena.matches.services import match_create, match_group_create
from competition.rotation import seat_orders, seats_of_entrant


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_a_cyclic_group_seats_every_entrant_once_at_every_seat(k):
    orders = seat_orders(k)
    assert len(orders) == k
    for entrant in range(k):
        assert sorted(seats_of_entrant(orders, entrant)) == list(range(k))
    for seat in range(k):
        assert sorted(order[seat] for order in orders) == list(range(k))


def test_the_first_game_of_a_group_keeps_the_table_order():
    assert seat_orders(4)[0] == (0, 1, 2, 3)
    assert seat_orders(4)[1] == (1, 2, 3, 0)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_all_orders_gives_every_permutation_once(k):
    orders = seat_orders(k, all_orders=True)
    assert sorted(orders) == sorted(permutations(range(k)))


def test_all_orders_is_refused_beyond_four_seats_and_empty_tables_always():
    with pytest.raises(ValueError, match="up to 4 seats"):
        seat_orders(5, all_orders=True)
    with pytest.raises(ValueError, match="at least one seat"):
        seat_orders(0)


@pytest.fixture
def table(make_bot, game_id, other_user):
    return [make_bot("ann", game_id), make_bot("ben", game_id, user=other_user), make_bot("cid", game_id)]


def test_a_group_is_one_match_per_seat_order_on_one_seed(db, table, game_id):
    ladder = ladder_create(slug="trio", name="Trio", game=game_id, seat_count=3)
    matches = match_group_create(game=game_id, versions=[b.active_version for b in table], ladder=ladder,
                                 seed=77)
    group = MatchGroup.objects.get()
    assert group.size == 3 and group.seed == 77 and group.rated_at is None
    assert [m.group_index for m in matches] == [0, 1, 2]
    assert {m.seed for m in matches} == {77} and all(m.status == "queued" and m.rated for m in matches)
    seated = [[s.bot_version.bot.name for s in m.seats.order_by("seat")] for m in matches]
    assert seated == [["ann", "ben", "cid"], ["ben", "cid", "ann"], ["cid", "ann", "ben"]]


def test_a_group_may_name_its_own_seat_orders_and_each_must_be_a_permutation(db, table, game_id):
    versions = [b.active_version for b in table]
    matches = match_group_create(game=game_id, versions=versions, kind=Match.Kind.CHALLENGE,
                                 orders=[(2, 0, 1), (2, 1, 0)])
    seated = [[s.bot_version.bot.name for s in m.seats.order_by("seat")] for m in matches]
    assert seated == [["cid", "ann", "ben"], ["cid", "ben", "ann"]] and MatchGroup.objects.get().size == 2
    for orders in ([(0, 1, 1)], [(0, 1)], []):
        with pytest.raises(ValidationError) as caught:
            match_group_create(game=game_id, versions=versions, kind=Match.Kind.CHALLENGE, orders=orders)
        assert caught.value.code == "seat_orders"
    assert MatchGroup.objects.count() == 1


def test_a_tournament_group_is_never_rated(db, table, game_id):
    matches = match_group_create(game=game_id, versions=[b.active_version for b in table[:2]],
                                 kind=Match.Kind.TOURNAMENT)
    assert [m.rated for m in matches] == [False, False]
    assert matches[0].seed == matches[1].seed


def test_a_group_that_cannot_be_created_stores_nothing(db, table, game_id):
    versions = [table[0].active_version, table[0].active_version]
    with pytest.raises(ValidationError) as caught:
        match_group_create(game=game_id, versions=versions, kind=Match.Kind.CHALLENGE)
    assert caught.value.code == "same_bot"
    with pytest.raises(ValidationError) as caught:
        match_group_create(game=game_id, versions=[b.active_version for b in table] * 2,
                           kind=Match.Kind.CHALLENGE, all_orders=True)
    assert caught.value.code == "seat_orders"
    assert not MatchGroup.objects.exists() and not Match.objects.exists()


def test_a_match_is_in_a_group_with_an_index_or_in_none(db, table, game_id):
    group = MatchGroup.objects.create(game=game_id, seed=1, size=2)
    versions = [b.active_version for b in table[:2]]
    match_create(game=game_id, versions=versions, kind=Match.Kind.CHALLENGE, group=group, group_index=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        match_create(game=game_id, versions=versions, kind=Match.Kind.CHALLENGE, group=group, group_index=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        match_create(game=game_id, versions=versions, kind=Match.Kind.CHALLENGE, group=group)
