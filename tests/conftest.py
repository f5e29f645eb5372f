"""Fixtures shared by every test folder: named users and a small arena to look at.

Users: ``owner`` (alice) owns the bots, ``other_user`` (bob) owns one other bot, ``staff``
(carol) is staff, ``anonymous`` is a visitor who is not logged in.
"""

from __future__ import annotations

import gzip
import json
import time

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile

from engines import list_games
from tests.factories import FIRST_ACTION_BOT, clean_outcome, py_upload, ready_bot_create, summary_outcome, upload_file

PASSWORD = "correct-horse-battery-staple"

def start_early_in_a_minute(margin_s: float) -> None:
    """Wait for the next minute of the clock unless ``margin_s`` seconds of this one are left.

    The throttles count in windows of the clock's minutes and hours (``arena.throttling``): a test
    that expects its N-th request to be refused must not have its requests straddle a window's end,
    where the count starts again (a suite run saw a test's five requests all allowed)."""
    if (left := 60 - time.time() % 60) < margin_s:
        time.sleep(left + 0.2)


@pytest.fixture
def one_throttle_window():
    """The test's requests fall in one window of the throttles' clock (``start_early_in_a_minute``)."""
    start_early_in_a_minute(2.0)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Throttle counters live in the cache: every test starts with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _no_lease_renewals_left_running():
    """A task run in this process starts a heartbeat thread with its own database connection:
    stop it after each test, so no connection outlives the test database."""
    yield
    from arena.jobs.leases import lease_renewer_stop

    lease_renewer_stop()


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Hashing passwords at full strength would dominate the run time of these tests."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def owner(db):
    return get_user_model().objects.create_user("alice", "alice@example.com", PASSWORD)


@pytest.fixture
def other_user(db):
    return get_user_model().objects.create_user("bob", "bob@example.com", PASSWORD)


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("carol", "carol@example.com", PASSWORD, is_staff=True)


@pytest.fixture
def anonymous():
    return AnonymousUser()


@pytest.fixture
def two_player_game() -> str:
    """The id of a registered game that takes two players."""
    for game in list_games():
        if game.min_players <= 2 <= game.max_players:
            return game.id
    pytest.skip("no registered game takes two players")


@pytest.fixture
def bot_upload():
    """Factory: an uploaded file (a valid ``.py`` bot unless told otherwise)."""

    def make(content: bytes = FIRST_ACTION_BOT, name: str = "bot.py") -> SimpleUploadedFile:
        return upload_file(content, name)

    return make


@pytest.fixture
def ready_bot(owner, two_player_game, bot_upload):
    """Factory: a bot (of ``owner`` unless told) whose first version passed its smoke test."""
    def make(name: str, user=None, game: str | None = None):
        game = game or two_player_game
        return ready_bot_create(owner=user or owner, name=name, game=game, upload=bot_upload(),
                                outcome=summary_outcome(game, 2))

    return make


@pytest.fixture
def make_bot(owner):
    """Factory: a bot of ``game`` whose first version passed its smoke test (ready and active)."""
    def make(name: str, game: str, user=None):
        return ready_bot_create(owner=user or owner, name=name, game=game, upload=py_upload(),
                                outcome=clean_outcome(game, 2))

    return make


@pytest.fixture
def ladder(two_player_game):
    """An active two-seat ladder of the two-player game."""
    from arena.ladders.services import ladder_create

    return ladder_create(slug="duel", name="Duel ladder", game=two_player_game, seat_count=2)


@pytest.fixture
def trio(db, owner, other_user, staff, ready_bot):
    """A 3-seat ladder of alpha (alice), bravo (bob) and charlie (carol)."""
    from arena.ladders.services import ladder_create
    from engines import list_games

    game = next(g.id for g in list_games() if g.min_players <= 3 <= g.max_players)
    ladder = ladder_create(slug="trio", name="Trio", game=game, seat_count=3)
    bots = {name: ready_bot(name, user=user, game=game)
            for name, user in (("alpha", owner), ("bravo", other_user), ("charlie", staff))}
    return {"ladder": ladder, **bots}


@pytest.fixture
def arena(owner, other_user, ladder, ready_bot):
    """alice's bot ``alpha`` (seat 0, faulted) against bob's ``bravo`` in one recorded ladder match
    with logs and a replay; plus a queued match. Returns a dict of the objects."""
    from arena.matches.services import match_create
    from arena.runs.recording import match_record_outcome

    alpha = ready_bot("alpha")
    bravo = ready_bot("bravo", user=other_user)
    alpha.refresh_from_db()
    bravo.refresh_from_db()
    played = match_create(game=ladder.game, versions=[alpha.active_version, bravo.active_version], ladder=ladder)
    outcome = summary_outcome(ladder.game, 2, faults=[
        {"seat": 0, "kind": "timeout", "step": 4, "message": "alpha secret stderr: Traceback"}])
    outcome["ranks"] = [2, 1]
    replay = gzip.compress(json.dumps({"format": "dive-arena-replay", "steps": [1, 2, 3]}).encode())
    match_record_outcome(match_id=played.pk, outcome=outcome, replay=replay, worker="test-worker")
    queued = match_create(game=ladder.game, versions=[bravo.active_version, alpha.active_version], ladder=ladder)
    played.refresh_from_db()
    return {"alpha": alpha, "bravo": bravo, "ladder": ladder, "played": played, "queued": queued}


@pytest.fixture
def replayed_match(owner, other_user, staff, ready_bot):
    """A finished 3-seat Deep Sea Adventure match of alice's, bob's and carol's bots with a real
    replay (played in-process by built-in bots); seat 1's fault message quotes its stderr."""
    from tests.replay_support import record_match
    from workers.runner import SeatSpec, run_match

    outcome = run_match("deep_sea_adventure", [SeatSpec("builtin:random")] * 3, seed=11)
    replay = outcome.replay
    fault = {"seat": 1, "kind": "crash", "step": 3, "message": "the bot exited\nbravo secret stderr: Traceback"}
    replay["faults"] = [fault]  # a compact replay lists each fault once, with its step
    return record_match(replay, [owner, other_user, staff], ready_bot)
