"""Ladders: creation rules, Elo leaderboards, solo leaderboards by mean score with a 95% interval."""

from __future__ import annotations

import math

import pytest
from django.core.exceptions import ValidationError

from arena.ladders.models import Rating
from arena.ladders.selectors import ladder_leaderboard, rating_history
from arena.ladders.services import ladder_create, ladder_enter
from arena.matches.services import match_claim, match_create
from arena.runs.recording import match_record_outcome
from tests.factories import clean_outcome


def play_solo(ladder, bot, score: float, faulted: bool = False):
    match = match_create(game=ladder.game, versions=[bot.active_version], ladder=ladder)
    match_claim(match_id=match.pk, worker="w")
    outcome = clean_outcome(ladder.game, 1, [1], [{"seat": 0, "kind": "crash", "step": 1}] if faulted else [])
    outcome["scores"] = [score]
    match_record_outcome(match_id=match.pk, outcome=outcome)
    return match


def test_it_refuses_a_ladder_with_a_seat_count_the_game_does_not_take(db, game_id):
    with pytest.raises(ValidationError) as caught:
        ladder_create(slug="huge", name="Huge", game=game_id, seat_count=99)
    assert caught.value.code == "seat_count"


def test_it_refuses_unknown_options(db, game_id):
    with pytest.raises(ValidationError) as caught:
        ladder_create(slug="odd", name="Odd", game=game_id, seat_count=2, options={"no_such_option": 1})
    assert caught.value.code == "options"


def test_a_bot_of_another_game_cannot_enter(db, make_bot, game_id, solo_game_id):
    from engines import list_games

    other = next((g.id for g in list_games() if g.id != game_id and g.min_players <= 2), None)
    if other is None:
        pytest.skip("needs two registered games")
    ladder = ladder_create(slug="x", name="X", game=game_id, seat_count=2)
    with pytest.raises(ValidationError):
        ladder_enter(ladder=ladder, bot=make_bot("stranger", other))


def test_the_elo_leaderboard_is_best_first_and_equal_ratings_share_a_position(db, make_bot, game_id):
    ladder = ladder_create(slug="board", name="Board", game=game_id, seat_count=2)
    bots = [make_bot(n, game_id) for n in ("aa", "bb", "cc")]
    for bot, elo in zip(bots, (1100, 1300, 1100)):
        Rating.objects.filter(ladder=ladder, bot=bot).update(elo=elo)  # entered when it became ready
    board = ladder_leaderboard(ladder=ladder)
    assert [(r.bot.name, r.position) for r in board] == [("bb", 1), ("aa", 2), ("cc", 2)]


def test_a_solo_ladder_ranks_by_mean_score_with_a_95_percent_interval(db, make_bot, solo_game_id):
    ladder = ladder_create(slug="solo", name="Solo", game=solo_game_id, seat_count=1)
    steady, idle = make_bot("steady", solo_game_id), make_bot("idle", solo_game_id)
    wild = make_bot("wild", solo_game_id)
    for bot in (steady, idle, wild):
        ladder_enter(ladder=ladder, bot=bot)
    for score in (10, 12, 14):
        play_solo(ladder, steady, score)
    for score in (30, 0):
        play_solo(ladder, wild, score)
    board = ladder_leaderboard(ladder=ladder)
    assert [r.bot.name for r in board] == ["wild", "steady", "idle"]
    wild_row, steady_row, idle_row = board
    assert wild_row.mean_score == 15 and steady_row.mean_score == 12
    # sample sd of 10, 12, 14 is 2: 1.96 * 2 / sqrt(3)
    assert steady_row.interval95 == pytest.approx(1.96 * 2 / math.sqrt(3))
    assert idle_row.mean_score is None and idle_row.interval95 is None
    history = list(rating_history(ladder=ladder, bot=steady))
    assert [(h.before, h.after) for h in history] == [(None, 10), (10, 11), (11, 12)]


def test_a_faulted_solo_game_earns_no_points(db, make_bot, solo_game_id):
    ladder = ladder_create(slug="solo-f", name="Solo F", game=solo_game_id, seat_count=1)
    bot = make_bot("faulty", solo_game_id)
    ladder_enter(ladder=ladder, bot=bot)
    play_solo(ladder, bot, 20)
    play_solo(ladder, bot, 25, faulted=True)
    rating = Rating.objects.get(ladder=ladder, bot=bot)
    assert rating.mean_score == 10 and rating.faults == 1 and rating.games == 2


def test_a_new_ladder_enters_every_ready_bot_of_its_game(db, make_bot, owner, game_id):
    from arena.bots.services import bot_create
    from tests.factories import py_upload

    ready = make_bot("early", game_id)
    pending = bot_create(owner=owner, name="pending", game=game_id, upload=py_upload())
    ladder = ladder_create(slug="late", name="Late", game=game_id, seat_count=2)
    assert list(Rating.objects.filter(ladder=ladder).values_list("bot__name", flat=True)) == [ready.name]
    assert not Rating.objects.filter(bot=pending).exists()


def test_a_new_ladder_takes_the_benchmarks_recommended_settings(db):
    from arena.ladders.models import Ladder

    duel = ladder_create(slug="dd2", name="Deep Dive 2p", game="deep_dive", seat_count=2)
    assert (duel.k_factor, duel.rotation, duel.matchmaking) == (16.0, "cyclic", "window")
    table = ladder_create(slug="dsa4", name="DSA 4p", game="deep_sea_adventure", seat_count=4)
    assert (table.k_factor, table.rotation, table.matchmaking) == (8.0, "off", "window")
    four = ladder_create(slug="ddd4", name="DDD 4p", game="dive_diver_die", seat_count=4)
    assert (four.k_factor, four.rotation, four.matchmaking) == (16.0, "off", "window")
    chosen = ladder_create(slug="mine", name="Mine", game="deep_dive", seat_count=4, k_factor=24, rotation="all",
                           matchmaking="random")
    assert (chosen.k_factor, chosen.rotation, chosen.matchmaking) == (24.0, "all", "random")
    bare = Ladder.objects.create(slug="bare", name="Bare", game="deep_dive", seat_count=2)  # the admin's defaults
    assert (bare.k_factor, bare.rotation, bare.matchmaking) == (16.0, "cyclic", "window")
