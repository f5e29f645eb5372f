"""Matchmaking: fewest recent games first, opponents near in rating, never a bot against itself."""

from __future__ import annotations

import random

import pytest

from arena.ladders.services import ladder_create, ladder_enter, matchmaking_choose, matchmaking_fill
from arena.matches.models import Match


def test_it_never_puts_a_bot_against_itself():
    rng = random.Random(1)
    candidates = [(1, 1200.0, 0), (2, 1210.0, 5), (3, 900.0, 2), (4, 1500.0, 9)]
    for _ in range(200):
        chosen = matchmaking_choose(candidates=candidates, seats=3, rng=rng)
        assert len(chosen) == 3 and len(set(chosen)) == 3


def test_it_makes_no_match_with_fewer_bots_than_seats():
    assert matchmaking_choose(candidates=[(1, 1200.0, 0), (1, 1200.0, 0)], seats=2,
                              rng=random.Random(1)) is None


def test_the_bot_with_the_fewest_recent_games_always_plays():
    candidates = [(1, 1200.0, 7), (2, 1210.0, 1), (3, 900.0, 4), (4, 1500.0, 9)]
    for seed in range(50):
        assert 2 in matchmaking_choose(candidates=candidates, seats=2, rng=random.Random(seed))


def test_opponents_are_mostly_near_in_rating():
    candidates = [(1, 1200.0, 0), (2, 1220.0, 3), (3, 1800.0, 3), (4, 600.0, 3)]
    picks = [set(matchmaking_choose(candidates=candidates, seats=2, rng=random.Random(seed)))
             for seed in range(200)]
    near = sum(p == {1, 2} for p in picks)
    assert near > 150 and all(1 in p for p in picks)


def test_seat_order_is_shuffled():
    candidates = [(1, 1200.0, 0), (2, 1200.0, 5)]
    orders = {tuple(matchmaking_choose(candidates=candidates, seats=2, rng=random.Random(s)))
              for s in range(40)}
    assert orders == {(1, 2), (2, 1)}


@pytest.fixture
def ladder(db, game_id):
    """Lone matches (rotation off): one table is one match (groups are tested below)."""
    return ladder_create(slug="trio", name="Trio", game=game_id, seat_count=3, queue_size=4, rotation="off")


def test_filling_a_ladder_queues_matches_up_to_its_queue_size(ladder, make_bot, game_id):
    bots = [make_bot(f"mm{i}", game_id) for i in range(4)]
    for bot in bots:
        ladder_enter(ladder=ladder, bot=bot)
    created = matchmaking_fill(ladder=ladder, rng=random.Random(3))
    assert len(created) == 4
    assert matchmaking_fill(ladder=ladder, rng=random.Random(4)) == []
    counts = {b.pk: 0 for b in bots}
    for match in sorted(created, key=lambda m: m.pk):
        seat_bots = [s.bot_version.bot_id for s in match.seats.all()]
        assert len(seat_bots) == 3 == len(set(seat_bots))
        fewest = min(counts.values())
        assert any(counts[b] == fewest for b in seat_bots)  # a least-played bot is always in
        for b in seat_bots:
            counts[b] += 1
    assert min(counts.values()) >= 2


def test_filling_skips_inactive_bots_and_ladders_with_too_few_bots(ladder, make_bot, game_id):
    bots = [make_bot(f"few{i}", game_id) for i in range(3)]
    for bot in bots:
        ladder_enter(ladder=ladder, bot=bot)
    bots[0].is_active = False
    bots[0].save()
    assert matchmaking_fill(ladder=ladder, rng=random.Random(1)) == []
    assert not Match.objects.exists()


def test_a_finished_match_frees_a_queue_slot(ladder, make_bot, game_id):
    from arena.matches.services import match_claim
    from arena.runs.recording import match_record_outcome
    from tests.factories import clean_outcome

    ladder.queue_size = 1
    ladder.save()
    for i in range(3):
        ladder_enter(ladder=ladder, bot=make_bot(f"slot{i}", game_id))
    (first,) = matchmaking_fill(ladder=ladder, rng=random.Random(1))
    assert matchmaking_fill(ladder=ladder, rng=random.Random(1)) == []
    match_claim(match_id=first.pk, worker="w")
    match_record_outcome(match_id=first.pk, outcome=clean_outcome(game_id, 3))
    assert len(matchmaking_fill(ladder=ladder, rng=random.Random(1))) == 1


def test_a_ladder_that_cannot_be_played_does_not_stop_matchmaking_for_the_others(ladder, make_bot, game_id):
    from arena.ladders.services import matchmaking_tick

    broken = ladder_create(slug="broken", name="Broken", game=game_id, seat_count=2)
    # Options the engine does not take (e.g. left over from an older engine version).
    type(broken).objects.filter(pk=broken.pk).update(options={"no_such_option": 1})
    for i in range(3):
        bot = make_bot(f"tick{i}", game_id)
        ladder_enter(ladder=broken, bot=bot)
        ladder_enter(ladder=ladder, bot=bot)
    assert matchmaking_tick(rng=random.Random(2)) == ladder.queue_size
    assert not Match.objects.filter(ladder=broken).exists()
    assert Match.objects.filter(ladder=ladder).count() == ladder.queue_size


def test_a_bot_moved_to_another_game_in_the_admin_no_longer_blocks_its_old_ladder(ladder, make_bot, game_id):
    from arena.bots.models import Bot
    from engines import list_games

    other_game = next(g.id for g in list_games() if g.id != game_id)
    bots = [make_bot(f"moved{i}", game_id) for i in range(4)]
    for bot in bots:
        ladder_enter(ladder=ladder, bot=bot)
    Bot.objects.filter(pk=bots[0].pk).update(game=other_game)
    created = matchmaking_fill(ladder=ladder, rng=random.Random(5))
    assert len(created) == ladder.queue_size
    assert all(bots[0].pk not in [s.bot_version.bot_id for s in m.seats.all()] for m in created)


def test_a_match_whose_worker_is_lost_does_not_stop_its_ladder(ladder, make_bot, game_id):
    from datetime import timedelta

    from django.utils import timezone

    from arena.matches.services import match_claim

    for i in range(4):
        ladder_enter(ladder=ladder, bot=make_bot(f"lost{i}", game_id))
    created = matchmaking_fill(ladder=ladder, rng=random.Random(5))
    for match in created[:2]:  # two crashed workers: their matches' leases ran out
        match_claim(match_id=match.pk, worker="crashed")
        Match.objects.filter(pk=match.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert len(matchmaking_fill(ladder=ladder, rng=random.Random(6))) == 2


def test_random_tables_still_seat_a_bot_with_the_fewest_recent_games():
    candidates = [(1, 1000.0, 9), (2, 1800.0, 0), (3, 1010.0, 9), (4, 1500.0, 9), (5, 2200.0, 9)]
    picks = [matchmaking_choose(candidates=candidates, seats=3, rng=random.Random(seed), mode="random")
             for seed in range(60)]
    assert all(2 in p and len(set(p)) == 3 for p in picks)
    # Random tables: every other bot gets a seat now and then, however far its rating is.
    assert {b for p in picks for b in p} == {1, 2, 3, 4, 5}


def test_the_rating_window_seats_the_nearest_in_rating():
    candidates = [(1, 1200.0, 0), (2, 1210.0, 5), (3, 2400.0, 5), (4, 0.0, 5)]
    picks = [set(matchmaking_choose(candidates=candidates, seats=2, rng=random.Random(seed), mode="window",
                                    spread=1.0)) for seed in range(30)]
    assert all(p == {1, 2} for p in picks)


@pytest.mark.parametrize("rotation, games", [("cyclic", 3), ("all", 6)])
def test_filling_a_grouped_ladder_queues_rotation_groups(db, make_bot, game_id, rotation, games):
    from arena.matches.models import MatchGroup

    ladder = ladder_create(slug="groups", name="Groups", game=game_id, seat_count=3, queue_size=2,
                           rotation=rotation)
    for i in range(5):
        ladder_enter(ladder=ladder, bot=make_bot(f"grp{i}", game_id))
    created = matchmaking_fill(ladder=ladder, rng=random.Random(7))
    assert len(created) == 2 * games  # queue_size counts tables: two groups
    assert MatchGroup.objects.count() == 2
    for group in MatchGroup.objects.all():
        matches = list(group.matches.order_by("group_index"))
        assert group.size == games == len(matches)
        assert len({m.seed for m in matches}) == 1 and all(m.ladder_id == ladder.pk and m.rated for m in matches)
        tables = [tuple(s.bot_version.bot_id for s in m.seats.order_by("seat")) for m in matches]
        assert len({frozenset(t) for t in tables}) == 1  # one table, every seat order different
        assert len(set(tables)) == games
    assert matchmaking_fill(ladder=ladder, rng=random.Random(8)) == []


def test_a_group_holds_its_place_until_its_last_game_is_recorded(db, make_bot, game_id):
    from arena.matches.services import match_claim
    from arena.runs.recording import match_record_outcome
    from tests.factories import clean_outcome

    ladder = ladder_create(slug="hold", name="Hold", game=game_id, seat_count=2, queue_size=1)
    for i in range(3):
        ladder_enter(ladder=ladder, bot=make_bot(f"hold{i}", game_id))
    first, second = matchmaking_fill(ladder=ladder, rng=random.Random(1))
    match_claim(match_id=first.pk, worker="w")
    match_record_outcome(match_id=first.pk, outcome=clean_outcome(game_id, 2))
    assert matchmaking_fill(ladder=ladder, rng=random.Random(2)) == []  # its second game is still queued
    match_claim(match_id=second.pk, worker="w")
    match_record_outcome(match_id=second.pk, outcome=clean_outcome(game_id, 2))
    assert len(matchmaking_fill(ladder=ladder, rng=random.Random(3))) == 2


def test_all_seat_orders_are_refused_beyond_four_seats():
    from django.core.exceptions import ValidationError

    from arena.ladders.services import ladder_validate_rotation

    ladder_validate_rotation(rotation="all", seat_count=4)
    ladder_validate_rotation(rotation="cyclic", seat_count=5)
    with pytest.raises(ValidationError) as caught:
        ladder_validate_rotation(rotation="all", seat_count=5)
    assert caught.value.code == "rotation"
