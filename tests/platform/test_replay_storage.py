"""Stored replays on the platform: compact ones are expanded once and served from the cache, full
(version 1) ones stay readable, and compact ones are converted to the full form before an engine
changes (``manage.py replays_to_full``), never re-simulated by another engine version."""

from __future__ import annotations

import dataclasses
import gzip
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from arena.matches.models import Match
from arena.matches.replay_store import unpack
from tests.replay_support import record_match, v1_replay
from workers import replay as replays
from workers.replay import expansion
from workers.runner import SeatSpec, run_match

FULL_URLS = ["/matches/{id}/replay.full.json", "/api/matches/{id}/replay/full/"]


def _match(users, ready_bot, *, game="divee", seats=2, seed=4):
    replay = run_match(game, [SeatSpec("builtin:heuristic")] + [SeatSpec("builtin:random")] * (seats - 1), seed=seed).replay
    return record_match(replay, users, ready_bot, name=f"{game[:8]}-{seed}-v2")


def _full_match(users, ready_bot, fixture: str):
    """A match whose stored replay is a full (version 1) one the runner recorded (tests/fixtures/replays_v1)."""
    return record_match(v1_replay(fixture), users, ready_bot, name=f"{fixture[:8]}-v1")


def _stored(match) -> dict:
    return unpack(Match.objects.get(pk=match.pk).replay)


@pytest.fixture
def users(owner, other_user, staff):
    return [owner, other_user, staff]


@pytest.fixture
def simulations(monkeypatch):
    """Counts the re-simulations of compact replays."""
    calls = []
    real = expansion._expand_compact

    def counted(replay):
        calls.append(replay.get("seed"))
        return real(replay)

    monkeypatch.setattr(expansion, "_expand_compact", counted)
    return calls


@pytest.mark.parametrize("url", FULL_URLS)
def test_a_compact_replay_is_served_expanded_and_re_simulated_only_once(users, ready_bot, simulations, url):
    match = _match(users, ready_bot)
    stored = _stored(match)
    assert stored["version"] == 2
    first = Client().get(url.format(id=match.pk))
    assert first.status_code == 200 and simulations == [stored["seed"]]
    assert first.json() == json.loads(json.dumps(replays.expand(stored)))
    assert first.json()["version"] == 1 and first.json()["steps"][0]["observations"]
    second = Client().get(url.format(id=match.pk), HTTP_ACCEPT_ENCODING="gzip")
    assert second.status_code == 200 and second["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(second.content)) == first.json()
    assert len(simulations) == 2  # the direct expand() above; the second request came from the cache
    third = Client().get(FULL_URLS[1 - FULL_URLS.index(url)].format(id=match.pk))
    assert third.json() == first.json() and len(simulations) == 2


@pytest.mark.parametrize("url", ["/matches/{id}/replay.json", "/api/matches/{id}/replay/"])
def test_the_replay_download_is_the_compact_replay_as_stored(users, ready_bot, simulations, url):
    match = _match(users, ready_bot)
    response = Client().get(url.format(id=match.pk))
    assert response.status_code == 200
    assert json.loads(response.content) == _stored(match) and _stored(match)["version"] == 2
    assert simulations == []


def test_a_stored_full_replay_is_still_served(users, ready_bot, simulations):
    match = _full_match(users, ready_bot, "deep_dive-builtins")
    stored = _stored(match)
    assert stored["version"] == 1
    response = Client().get(f"/api/matches/{match.pk}/replay/full/")
    assert response.status_code == 200 and simulations == []
    assert response.json() == json.loads(json.dumps(replays.expand(stored)))
    assert all("full" in step for step in response.json()["steps"])


def test_an_unfinished_match_serves_no_expansion(users, ready_bot, simulations):
    match = _match(users, ready_bot)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    for url in FULL_URLS + ["/api/matches/{id}/replay/"]:
        assert Client().get(url.format(id=match.pk)).status_code == 404
    assert simulations == []


def _engine_changed(monkeypatch, game_id: str) -> None:
    from engines import get_game

    game = get_game(game_id)
    monkeypatch.setattr(game, "info", dataclasses.replace(game.info, version=f"{game.version}-next"))


def test_a_compact_replay_is_not_re_simulated_after_its_engine_changed(users, ready_bot, simulations, monkeypatch):
    match = _match(users, ready_bot)
    _engine_changed(monkeypatch, "divee")
    response = Client().get(f"/api/matches/{match.pk}/replay/full/")
    assert response.status_code == 422 and "never re-simulated" in response.json()["detail"]
    assert simulations == []


def test_replays_to_full_converts_compact_replays_so_they_survive_an_engine_change(
        users, ready_bot, simulations, monkeypatch, capsys):
    divee = _match(users, ready_bot)
    dive = _match(users, ready_bot, game="dive", seats=3, seed=2)
    old = _full_match(users, ready_bot, "divee-faulty")
    before = {m.pk: json.loads(json.dumps(replays.expand(_stored(m)))) for m in (divee, dive)}
    stored_old = bytes(Match.objects.get(pk=old.pk).replay)

    call_command("replays_to_full", "--game", "divee", "--dry-run")
    assert "would convert 1 compact match replay(s)" in capsys.readouterr().out
    assert _stored(divee)["version"] == 2

    call_command("replays_to_full", "--game", "divee")
    assert "converted 1 compact match replay(s)" in capsys.readouterr().out
    assert _stored(divee)["version"] == 1 and replays.verify(_stored(divee)) == []
    assert _stored(dive)["version"] == 2                       # another game's: left compact
    assert bytes(Match.objects.get(pk=old.pk).replay) == stored_old   # already full: untouched
    converted = json.loads(json.dumps(replays.expand(_stored(divee))))
    assert converted == before[divee.pk]

    # The new engine is deployed: the converted replay is still served (its views as recorded).
    _engine_changed(monkeypatch, "divee")
    simulations.clear()
    response = Client().get(f"/api/matches/{divee.pk}/replay/full/")
    assert response.status_code == 200 and simulations == []
    shown = response.json()
    assert [s["observations"] for s in shown["steps"]] == [s["observations"] for s in before[divee.pk]["steps"]]
    assert shown["final"]["full_view"] == before[divee.pk]["final"]["full_view"]


def test_replays_to_full_reports_compact_replays_it_cannot_convert(users, ready_bot, monkeypatch, capsys):
    match = _match(users, ready_bot)
    stored = bytes(Match.objects.get(pk=match.pk).replay)
    _engine_changed(monkeypatch, "divee")
    with pytest.raises(CommandError, match="1 compact replay"):
        call_command("replays_to_full")
    assert f"match {match.pk}: compact replay of divee engine version" in capsys.readouterr().out
    assert bytes(Match.objects.get(pk=match.pk).replay) == stored
    with pytest.raises(CommandError, match="chess"):
        call_command("replays_to_full", "--game", "chess")


def test_replays_to_full_converts_smoke_test_replays_too(ready_bot):
    from arena.matches.seating import compressed_public_replay

    ready_bot("smoky", game="deep_dive")
    replay = run_match("deep_dive", [SeatSpec("builtin:random")] * 2, seed=5).replay
    test = Match.objects.create(kind="smoke", game="deep_dive", seed=5, rated=False, status="done",
                                replay=compressed_public_replay(replay))
    call_command("replays_to_full", "--game", "deep_dive")
    test.refresh_from_db()
    full = unpack(test.replay)
    assert full["version"] == 1 and replays.verify(full) == []
