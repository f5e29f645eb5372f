"""Tournament services: validation, start, rounds as barriers, pause/resume, cancel, re-run, extend,
elimination, solo, the beat's claim; games are recorded as a worker records them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from arena.ladders.models import Rating
from arena.ladders.services import ladder_create, ladder_enter
from arena.matches.models import Match
from arena.runs.recording import match_record_failure
from arena.tournaments.models import Entrant, Round, Tournament
from arena.tournaments.selectors import tournament_standings
from arena.tournaments.services import (
    tournament_advance,
    tournament_cancel,
    tournament_create,
    tournament_extend,
    tournament_pause,
    tournament_rerun_failed,
    tournament_resume,
    tournament_start,
    tournaments_claim_due,
    tournaments_tick,
)
from tests.tournaments.conftest import DSA, play_open_games

pytestmark = pytest.mark.django_db


def swiss(bots, rounds=3, **kwargs):
    return tournament_create(name=kwargs.pop("name", "Cup"), game=DSA, seat_count=3, format="swiss", rounds=rounds,
                             bots=bots, **kwargs)


def tournament_matches(t):
    return Match.objects.filter(group__tournament_table__round__tournament=t)


# --- validation ------------------------------------------------------------------------------------

def test_fewer_entrants_than_one_table_is_refused_and_nothing_is_stored(six_bots):
    with pytest.raises(ValidationError, match="2 entrants cannot fill one table of 3 seats"):
        swiss(six_bots[:2])
    assert not Tournament.objects.exists() and not Entrant.objects.exists()


def test_a_bot_of_another_game_is_refused(six_bots, make_bot):
    other = make_bot("other-game", "divee")
    with pytest.raises(ValidationError, match=r"another game than deep_sea_adventure: other-game \(divee\)"):
        swiss([*six_bots[:3], other])
    assert not Tournament.objects.exists()


def test_a_bot_without_a_ready_version_is_refused(six_bots):
    bot = six_bots[0]
    bot.active_version = None
    bot.save()
    with pytest.raises(ValidationError, match="no ready version: t0"):
        swiss(six_bots)
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("kwargs,message", [
    ({"seat_count": 7}, "takes 2-6 players, not 7"),
    ({"options": {"no_such_option": 1}}, "no_such_option"),
    ({"rounds": 0}, "at least one round, not 0"),
    ({"format": "elimination", "advance": 3}, r"m must be between 1 and 2 \(m < k\), not 3"),
    ({"format": "elimination", "advance": None}, r"m < k"),
    ({"format": "knockout"}, "Unknown format"),
    ({"orders": "all", "seat_count": 5}, "up to 4 seats"),
    ({"points": [2, 1]}, "need 3 numbers"),
    ({"points": [0, 1, 2]}, "must not grow"),
])
def test_each_invalid_setup_gets_its_own_message_and_stores_nothing(six_bots, kwargs, message):
    args = {"name": "Bad", "game": DSA, "seat_count": 3, "format": "swiss", "rounds": 2, "bots": six_bots} | kwargs
    with pytest.raises(ValidationError, match=message):
        tournament_create(**args)
    assert not Tournament.objects.exists()


def test_a_slug_is_taken_once(six_bots):
    swiss(six_bots, slug="cup")
    with pytest.raises(ValidationError, match="slug 'cup' exists"):
        swiss(six_bots, slug="cup")


# --- starting and advancing ---------------------------------------------------------------------------

def test_start_freezes_versions_seeds_by_rating_and_pairs_rotation_groups(six_bots):
    ladder = ladder_create(slug="dsa3", name="DSA 3", game=DSA, seat_count=3)
    for i, bot in enumerate(six_bots):
        ladder_enter(ladder=ladder, bot=bot)
        Rating.objects.filter(ladder=ladder, bot=bot).update(elo=1000 + 10 * i)
    t = swiss(six_bots)
    tournament_start(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == "running" and t.started_at
    entrants = list(t.entrants.order_by("seed"))
    assert [e.name for e in entrants] == ["t5", "t4", "t3", "t2", "t1", "t0"]
    assert all(e.version_id == e.bot.active_version_id for e in entrants)
    round1 = t.round_set.get()
    tables = list(round1.tables.select_related("group"))
    assert [len(tb.entrant_ids) for tb in tables] == [3, 3]
    matches = list(tournament_matches(t))
    assert len(matches) == 6  # two tables, a cyclic rotation of three games each
    assert all(m.kind == "tournament" and not m.rated and m.seed == round1.seed for m in matches)
    for table in tables:
        group = list(table.group.matches.order_by("group_index"))
        seat0 = [g.seats.get(seat=0).bot_version_id for g in group]
        assert sorted(seat0) == sorted(table.version_ids)  # each entrant plays seat 0 once


def test_a_round_is_a_barrier_and_advancing_twice_pairs_once(six_bots):
    t = swiss(six_bots)
    tournament_start(tournament_id=t.pk)
    first = list(tournament_matches(t).order_by("id"))
    from arena.runs.recording import match_record_outcome
    from tests.tournaments.conftest import clean_outcome

    for match in first[:-1]:
        match_record_outcome(match_id=match.pk, outcome=clean_outcome(DSA, 3))
    assert tournament_advance(tournament_id=t.pk) == "waiting"
    tournaments_tick()
    assert t.round_set.count() == 1
    match_record_outcome(match_id=first[-1].pk, outcome=clean_outcome(DSA, 3))
    tournaments_tick()
    tournaments_tick()
    assert tournament_advance(tournament_id=t.pk) == "waiting"
    assert list(t.round_set.values_list("number", flat=True)) == [1, 2]
    assert tournament_matches(t).count() == 12


def test_a_swiss_plays_its_rounds_and_stores_standings_equal_to_a_recomputation(six_bots):
    t = swiss(six_bots)
    tournament_start(tournament_id=t.pk)
    for _ in range(3):
        assert play_open_games() == 6
        tournaments_tick()
    t.refresh_from_db()
    assert t.status == "finished" and t.finished_at and t.round_set.count() == 3
    stored = [(r.entrant, r.position, r.points, r.buchholz) for r in tournament_standings(t)]
    live = [(r.entrant, r.position, round(r.points, 6), round(r.buchholz, 6))
            for r in tournament_standings(t, live=True)]
    assert stored == live
    rows = tournament_standings(t)
    # Nine games each (three rounds of three), points 2/1/0 by seat place: the totals are 18 per round.
    assert all(r.games == 9 for r in rows)
    assert sum(r.points for r in rows) == pytest.approx(3 * 2 * 3)
    assert tournaments_tick()["advanced"] == {}


def test_round_two_of_a_swiss_seats_the_leaders_together(six_bots):
    t = swiss(six_bots)
    tournament_start(tournament_id=t.pk)
    table_of = {}
    for table in t.round_set.get().tables.all():
        for e in table.entrant_ids:
            table_of[e] = table.pk

    # The bots t0, t1, t2 win everything they play: they rank above the others in seat order.
    def ranks(match):
        names = [s.bot_version.bot.name for s in match.seats.order_by("seat")]
        order = sorted(range(3), key=lambda s: (names[s] not in ("t0", "t1", "t2"), names[s]))
        result = [0] * 3
        for place, seat in enumerate(order):
            result[seat] = place + 1
        return result

    play_open_games(ranks)
    tournaments_tick()
    rows = tournament_standings(t)
    leaders = {r.entrant for r in rows[:2]}
    round2 = t.round_set.get(number=2)
    first_table = round2.tables.get(index=0)
    assert leaders <= set(first_table.entrant_ids)


# --- pause, resume, cancel ---------------------------------------------------------------------------------

def test_pause_withdraws_unclaimed_games_lets_running_ones_finish_and_resume_restores_them(six_bots):
    t = swiss(six_bots)
    tournament_start(tournament_id=t.pk)
    before = {(m.group_id, m.group_index): (m.seed, list(m.seats.values_list("bot_version_id", flat=True)))
              for m in tournament_matches(t)}
    running = tournament_matches(t).order_by("id").first()
    Match.objects.filter(pk=running.pk).update(status="running", attempts=1)
    tournament_pause(tournament_id=t.pk)
    assert list(tournament_matches(t).values_list("pk", flat=True)) == [running.pk]
    assert tournament_advance(tournament_id=t.pk) == "idle"
    with pytest.raises(ValidationError, match="is paused: it cannot be paused"):
        tournament_pause(tournament_id=t.pk)
    tournament_resume(tournament_id=t.pk)
    after = {(m.group_id, m.group_index): (m.seed, list(m.seats.values_list("bot_version_id", flat=True)))
             for m in tournament_matches(t)}
    assert after == before
    assert tournament_matches(t).filter(status="queued").count() == 5


def test_cancel_stops_a_tournament_and_nothing_can_resume_or_start_it(six_bots):
    t = swiss(six_bots)
    tournament_start(tournament_id=t.pk)
    tournament_cancel(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == "cancelled" and t.final_standings is not None
    assert not tournament_matches(t).filter(status="queued").exists()
    with pytest.raises(ValidationError, match="is cancelled: it cannot be resumed"):
        tournament_resume(tournament_id=t.pk)
    with pytest.raises(ValidationError, match="is cancelled: it cannot start"):
        tournament_start(tournament_id=t.pk)
    with pytest.raises(ValidationError, match="is cancelled: it cannot be cancelled"):
        tournament_cancel(tournament_id=t.pk)


def test_a_finished_tournament_cannot_start_again_and_only_a_swiss_extends(six_bots):
    t = swiss(six_bots, rounds=1)
    tournament_start(tournament_id=t.pk)
    play_open_games()
    tournaments_tick()
    t.refresh_from_db()
    assert t.status == "finished"
    with pytest.raises(ValidationError, match="is finished: it cannot start"):
        tournament_start(tournament_id=t.pk)
    rr = tournament_create(name="RR", game=DSA, seat_count=3, format="round_robin", rounds=2, bots=six_bots)
    with pytest.raises(ValidationError, match="Only a Swiss can be extended"):
        tournament_extend(tournament_id=rr.pk)
    tournament_extend(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == "running" and t.rounds == 2 and t.round_set.count() == 2 and t.final_standings is None


# --- failures ------------------------------------------------------------------------------------------

def test_a_failed_game_ends_its_round_and_is_rerun_with_the_same_seed_and_seats(six_bots, settings):
    t = swiss(six_bots, rounds=1)
    tournament_start(tournament_id=t.pk)
    failing = tournament_matches(t).order_by("id").first()
    seats = list(failing.seats.values_list("seat", "bot_version_id"))
    Match.objects.filter(pk=failing.pk).update(status="running", attempts=settings.MATCH_MAX_ATTEMPTS)
    assert match_record_failure(match_id=failing.pk, error="the sandbox is gone") == "failed"
    play_open_games()
    tournaments_tick()
    t.refresh_from_db()
    assert t.status == "finished"
    with pytest.raises(ValidationError, match="has no round 2"):
        tournament_rerun_failed(tournament_id=t.pk, round_number=2)
    assert tournament_rerun_failed(tournament_id=t.pk, round_number=1) == [failing.pk]
    failing.refresh_from_db()
    t.refresh_from_db()
    assert failing.status == "queued" and not failing.rated and failing.seed == t.round_set.get().seed
    assert list(failing.seats.values_list("seat", "bot_version_id")) == seats
    assert t.status == "running"
    assert tournaments_tick()["advanced"] == {}  # it waits for the re-run game
    t.refresh_from_db()
    assert t.status == "running"
    with pytest.raises(ValidationError, match="has no failed game"):
        tournament_rerun_failed(tournament_id=t.pk, round_number=1)
    assert play_open_games() == 1
    tournaments_tick()
    t.refresh_from_db()
    assert t.status == "finished" and t.round_set.count() == 1
    assert all(r.games == 3 for r in tournament_standings(t))


def test_a_deactivated_bot_plays_on_with_its_frozen_version(six_bots):
    from arena.bots.services import bot_update

    t = swiss(six_bots, rounds=2)
    tournament_start(tournament_id=t.pk)
    frozen = six_bots[0].active_version_id
    bot_update(bot=six_bots[0], by=six_bots[0].owner, is_active=False)
    play_open_games()
    tournaments_tick()
    round2 = t.round_set.get(number=2)
    assert not round2.forfeits
    assert any(frozen in table.version_ids for table in round2.tables.all())


def test_an_entrant_without_a_version_left_forfeits(six_bots):
    t = swiss(six_bots, rounds=1)
    gone = six_bots[0]
    gone.delete()  # before the start: the entrant stays, with no bot and no version
    tournament_start(tournament_id=t.pk)
    round1 = t.round_set.get()
    entrant = t.entrants.get(name="t0")
    assert entrant.bot is None and round1.forfeits == [entrant.pk]
    assert all(entrant.pk not in table.entrant_ids for table in round1.tables.all())


# --- formats ----------------------------------------------------------------------------------------

def test_a_round_robin_plays_its_planned_rounds_and_every_pair_meets_once(make_bot):
    from itertools import combinations

    bots = [make_bot(f"r{i}", DSA) for i in range(9)]  # n=9, k=3, 4 rounds: a perfect design exists
    t = tournament_create(name="RR", game=DSA, seat_count=3, format="round_robin", rounds=4, bots=bots)
    tournament_start(tournament_id=t.pk)
    t.refresh_from_db()
    for number in range(1, 5):
        round_ = t.round_set.get(number=number)
        assert [list(tb.entrant_ids) for tb in round_.tables.all()] == t.plan[number - 1]
        play_open_games()
        tournaments_tick()
    t.refresh_from_db()
    assert t.status == "finished"
    meetings = {}
    for round_ in t.round_set.prefetch_related("tables"):
        for table in round_.tables.all():
            for pair in combinations(sorted(table.entrant_ids), 2):
                meetings[pair] = meetings.get(pair, 0) + 1
    pairs = list(combinations(sorted(t.entrants.values_list("pk", flat=True)), 2))
    assert [meetings.get(pair, 0) for pair in pairs] == [1] * len(pairs)


def test_an_elimination_sends_the_top_of_each_table_on_until_a_final(make_bot):
    bots = [make_bot(f"e{i}", DSA) for i in range(9)]
    t = tournament_create(name="KO", game=DSA, seat_count=3, format="elimination", advance=1, bots=bots)
    tournament_start(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.rounds == 2 and t.round_set.get().tables.count() == 3
    play_open_games()  # seat order ranks: over a rotation everyone ties; the better seed advances
    tournaments_tick()
    t.refresh_from_db()
    final = t.round_set.get(number=2)
    assert final.tables.count() == 1
    alive = set(t.entrants.filter(eliminated_in__isnull=True).values_list("pk", flat=True))
    assert set(final.tables.get().entrant_ids) == alive and len(alive) == 3
    assert t.entrants.filter(eliminated_in=1).count() == 6
    play_open_games()
    tournaments_tick()
    t.refresh_from_db()
    assert t.status == "finished"
    rows = tournament_standings(t)
    assert {r.entrant for r in rows[:3]} == alive and [r.position for r in rows] == list(range(1, 10))


def test_an_elimination_refuses_a_bracket_that_cannot_be_played(make_bot):
    bots = [make_bot(f"e{i}", DSA) for i in range(3)]
    with pytest.raises(ValidationError, match="m < k"):
        tournament_create(name="KO", game=DSA, seat_count=3, format="elimination", advance=3, bots=bots)


def test_a_solo_tournament_plays_one_seed_per_round_for_everyone_and_ranks_by_score(make_bot):
    game = "divee"
    bots = [make_bot(f"s{i}", game) for i in range(3)]
    t = tournament_create(name="Solo", game=game, seat_count=1, format="swiss", rounds=2, bots=bots)
    tournament_start(tournament_id=t.pk)
    round1 = t.round_set.get()
    matches = list(tournament_matches(t))
    assert len(matches) == 3 and {m.seed for m in matches} == {round1.seed}
    from arena.runs.recording import match_record_outcome
    from tests.tournaments.conftest import clean_outcome

    for match in matches:
        outcome = clean_outcome(game, 1) | {"scores": [float(match.seats.get().bot_version.bot.name[1]) * 10]}
        match_record_outcome(match_id=match.pk, outcome=outcome)
    tournaments_tick()
    assert [r.name for r in tournament_standings(t)] == ["s2", "s1", "s0"]


# --- the beat ---------------------------------------------------------------------------------------

def test_the_beat_starts_a_due_tournament_once_and_leaves_later_ones(six_bots):
    now = timezone.now()
    due = swiss(six_bots, name="Due", start_at=now - timedelta(seconds=1))
    later = swiss(six_bots, name="Later", start_at=now + timedelta(hours=1))
    assert tournaments_claim_due(now=now) == [due.pk]
    assert tournaments_claim_due(now=now) == []
    tournaments_tick(now=now)
    assert Round.objects.filter(tournament=due).count() == 1
    later.refresh_from_db()
    assert later.status == "scheduled"


def test_a_ladder_tournament_takes_the_ladders_ready_bots_at_the_start(six_bots):
    ladder = ladder_create(slug="dsa", name="DSA", game=DSA, seat_count=3)  # enters every ready bot
    Rating.objects.filter(ladder=ladder, bot__in=six_bots[4:]).delete()
    t = tournament_create(name="Ladder cup", game=DSA, seat_count=3, format="swiss", rounds=1, entry="ladder",
                          ladder=ladder, start_at=timezone.now())
    assert not t.entrants.exists()
    tournaments_tick()
    assert set(t.entrants.values_list("name", flat=True)) == {"t0", "t1", "t2", "t3"}


def test_a_due_tournament_with_too_few_ready_bots_is_cancelled_with_the_reason(six_bots):
    ladder = ladder_create(slug="dsa", name="DSA", game=DSA, seat_count=3)
    t = tournament_create(name="Empty", game=DSA, seat_count=3, format="swiss", rounds=1, entry="ladder",
                          ladder=ladder, start_at=timezone.now())
    Rating.objects.filter(ladder=ladder).delete()
    tournaments_tick()
    t.refresh_from_db()
    assert t.status == "cancelled" and "cannot fill one table" in t.note


def test_a_tournament_whose_entrants_can_no_longer_fill_a_table_ends_with_what_was_played(six_bots):
    from arena.bots.models import BotVersion

    t = tournament_create(name="Dwindling", game=DSA, seat_count=3, format="swiss", rounds=3, bots=six_bots[:3])
    tournament_start(tournament_id=t.pk)
    play_open_games()
    # Two frozen versions stop being playable (say their bot was removed before it could play them).
    entrants = list(t.entrants.order_by("seed")[:2])
    t.entrants.filter(pk__in=[e.pk for e in entrants]).update(version=None)
    assert tournaments_tick()["advanced"] == {t.pk: "finished"}
    t.refresh_from_db()
    assert t.status == "finished" and "ended after round 1" in t.note and t.round_set.count() == 1
    assert BotVersion.objects.filter(status="ready").count() == 6
