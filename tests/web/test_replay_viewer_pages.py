"""The match page's replay viewer, server side: the full form it reads, the legend beside it,
fault links into it, and clear errors for replays it cannot show. (Drawing is tested in
tests/browser/test_replay_viewer.py.)"""

from __future__ import annotations

import gzip
import json

import pytest
from django.test import Client

from arena.matches.models import Match
from arena.matches.replay_store import unpack
from arena.matches.selectors import match_full_replay
from workers.replay import ReplayError, expand
from workers.viewer import game_legend


def test_the_full_replay_is_the_stored_replay_expanded(replayed_match):
    response = Client().get(f"/matches/{replayed_match.pk}/replay.full.json")
    assert response.status_code == 200
    stored = unpack(Match.objects.get(pk=replayed_match.pk).replay)
    assert response.json() == json.loads(json.dumps(expand(stored)))
    assert response.json()["steps"][5]["full"]["path_chips"]   # hidden values: the match is over


def test_the_selector_expands_only_a_finished_matchs_replay(replayed_match, arena):
    assert match_full_replay(replayed_match)["steps"][0]["full"]
    assert match_full_replay(arena["queued"]) is None
    replayed_match.status = Match.Status.RUNNING   # e.g. re-queued: nothing hidden is served
    assert match_full_replay(replayed_match) is None


@pytest.mark.parametrize("stored,reason", [
    (gzip.compress(b"{not json", mtime=0), "not valid JSON"),
    (b"\x1f\x8b\x08\x00broken gzip", "cannot be decompressed"),
    (gzip.compress(json.dumps({"format": "dive-arena-replay", "version": 99}).encode(), mtime=0), "version 99"),
    (gzip.compress(json.dumps({"format": "dive-arena-replay", "version": 1, "game": "chess"}).encode(), mtime=0), "unknown game"),
    (gzip.compress(b"[1, 2]", mtime=0), "not a Dive Arena replay"),
])
def test_a_stored_replay_that_is_not_one_gets_a_clear_reason(replayed_match, stored, reason):
    Match.objects.filter(pk=replayed_match.pk).update(replay=stored)
    match = Match.objects.get(pk=replayed_match.pk)
    with pytest.raises(ReplayError, match=reason):
        match_full_replay(match)
    response = Client().get(f"/matches/{match.pk}/replay.full.json")
    assert response.status_code == 422 and reason in response.json()["detail"]


def test_the_match_page_starts_the_viewer_with_the_games_legend(replayed_match):
    page = Client().get(f"/matches/{replayed_match.pk}/").content.decode()
    assert f'data-url="/matches/{replayed_match.pk}/replay.full.json"' in page
    legend = page.split('<script id="replay-legend" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert json.loads(legend) == game_legend("deep_sea_adventure")
    assert "/static/arena/viewer/viewer.css" in page


def test_each_fault_on_the_match_page_links_to_its_step_from_the_seats_point_of_view(replayed_match):
    page = Client().get(f"/matches/{replayed_match.pk}/").content.decode()
    assert 'href="#step=3&amp;pov=1"' in page and ">at step 3</a>" in page


def test_the_legend_holds_what_the_renderers_draw_from_the_engines_tables(db):
    from engines.dive import cards

    dive = game_legend("dive")
    assert len(dive["cards"]) == cards.NUM_CARDS and dive["stone"] == 23
    assert dive["cards"][12]["creatures"][0] == [[4, "turtle"]]   # rules 2.1: "12: 4T h2"
    assert dive["cards"][12]["haze"] == 2
    assert game_legend("divee")["base_points"]["straight"] == 7
    assert game_legend("dive_diver_die")["gold_per_search"][6] == 10
    with pytest.raises(KeyError):
        game_legend("chess")
