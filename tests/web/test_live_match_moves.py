"""A match being played shows its moves as they come: the public view after its latest step,
published by the worker (arena.matches.live), drawn on the match page, and in the match's live
token so that live.js fetches the page again when a step comes. Never a game whose chance is
shared with games still to play (match_chance_open), but to staff."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from arena.matches.live import match_live_publish, match_live_read, match_live_watcher
from arena.matches.services import challenge_create, match_claim, match_group_create
from engines import get_game


@pytest.fixture
def challenge(owner, other_user, ready_bot):
    mine, theirs = ready_bot("alpha"), ready_bot("bravo", user=other_user)
    match = challenge_create(by=owner, bot=mine, opponents=[theirs])
    return match_claim(match_id=match.pk, worker="w")


def _publish(match, steps: int) -> dict:
    """Play ``steps`` steps of the match's game with the first legal actions; publish the view."""
    state = get_game(match.game).new_state(num_players=2, seed=match.seed)
    for _ in range(steps):
        state.apply({seat: state.legal_actions(seat)[0] for seat in state.to_act()})
    view = state.spectator_view()
    match_live_publish(match_id=match.pk, attempt=match.attempts, step=steps, view=view)
    return view


def _live_view(page: str):
    found = re.search(r'<script id="live-view" type="application/json">(.*?)</script>', page, re.S)
    return None if found is None else json.loads(found.group(1))


def test_a_running_challenge_shows_the_public_view_after_its_latest_step(client, challenge):
    page = client.get(f"/matches/{challenge.pk}/").content.decode()
    assert 'data-role="live-waiting"' in page and _live_view(page) is None
    assert "arena/live_board.js" in page and "arena/viewer/core.js" in page
    view = _publish(challenge, 3)
    page = client.get(f"/matches/{challenge.pk}/").content.decode()
    assert _live_view(page) == view and 'data-step="3"' in page and "After step 3" in page


def test_the_token_moves_with_each_published_step(client, challenge):
    tokens = [client.get(f"/live/match/{challenge.pk}/").json()["token"]]
    for steps in (1, 2):
        _publish(challenge, steps)
        tokens.append(client.get(f"/live/match/{challenge.pk}/").json()["token"])
    assert len(set(tokens)) == 3
    page = client.get(f"/matches/{challenge.pk}/").content.decode()
    assert f'data-live-token-value="{tokens[-1]}"' in page


def test_a_view_of_an_earlier_attempt_is_not_shown(client, challenge):
    match_live_publish(match_id=challenge.pk, attempt=challenge.attempts - 1 if challenge.attempts > 1 else 99,
                       step=5, view={"x": 1})
    assert match_live_read(match_id=challenge.pk, attempt=challenge.attempts) is None
    assert _live_view(client.get(f"/matches/{challenge.pk}/").content.decode()) is None


def test_a_game_sharing_its_chance_shows_its_moves_to_staff_only(owner, other_user, staff, ready_bot):
    alpha, bravo = ready_bot("alpha"), ready_bot("bravo", user=other_user)
    first, _second = match_group_create(game=alpha.game, versions=[alpha.active_version, bravo.active_version],
                                        kind="challenge")
    first = match_claim(match_id=first.pk, worker="w")
    _publish(first, 2)
    for user in (None, owner, other_user):
        viewer = Client()
        if user is not None:
            viewer.force_login(user)
        page = viewer.get(f"/matches/{first.pk}/").content.decode()
        assert _live_view(page) is None and 'data-role="live-hidden"' in page and "live_board.js" not in page
        assert viewer.get(f"/live/match/{first.pk}/").json()["token"].endswith(":None")   # how far: not said
    viewer = Client()
    viewer.force_login(staff)
    page = viewer.get(f"/matches/{first.pk}/").content.decode()
    assert _live_view(page) is not None
    assert viewer.get(f"/live/match/{first.pk}/").json()["token"].endswith(":2")


def test_the_watcher_publishes_at_most_every_interval_and_always_the_end(challenge):
    game = get_game(challenge.game)
    state = game.new_state(num_players=2, seed=challenge.seed)
    watcher = match_live_watcher(match_id=challenge.pk, attempt=challenge.attempts, every=3600)
    watcher(1, state)
    assert match_live_read(match_id=challenge.pk, attempt=challenge.attempts)["step"] == 1
    steps = 1
    while not state.is_terminal():
        state.apply({seat: state.legal_actions(seat)[0] for seat in state.to_act()})
        steps += 1
        watcher(steps, state)
        published = match_live_read(match_id=challenge.pk, attempt=challenge.attempts)
        assert published["step"] == (steps if state.is_terminal() else 1)
    assert published["over"] is True and published["view"] == state.spectator_view()
