"""The viewer with replays that are unusual or not replays at all (local pages, no server)."""

from __future__ import annotations

import copy
import json

import pytest

from workers.replay import expand
from workers.runner import SeatSpec, run_match
from workers.viewer import standalone_page

VIEWER = "#replay-viewer"


@pytest.fixture(scope="module")
def divee_full():
    return expand(run_match("divee", [SeatSpec("builtin:random")] * 2, seed=9).replay)


def open_page(page, tmp_path, html: str, hash_: str = ""):
    path = tmp_path / "page.html"
    path.write_text(html, encoding="utf-8")
    page.goto(path.as_uri() + hash_)
    page.wait_for_selector(f"{VIEWER}[data-state=ready], {VIEWER}[data-state=error]")


@pytest.mark.parametrize("change,message", [
    (lambda r: {**r, "format": "chess-replay"}, "This is not a Dive Arena replay."),
    (lambda r: {**r, "version": 9}, "format version 9, newer than this viewer reads"),
    (lambda r: {**r, "version": 2}, "stored compact (format version 2)"),
    (lambda r: {**r, "game": "chess"}, 'a game this viewer does not know: "chess"'),
    (lambda r: {**r, "steps": [{k: v for k, v in s.items() if k != "observations"} for s in r["steps"]]},
     "not in full form"),
])
def test_a_replay_that_cannot_be_shown_says_why(page, tmp_path, divee_full, change, message):
    open_page(page, tmp_path, standalone_page(change(copy.deepcopy(divee_full)), legend={}))
    assert page.get_attribute(VIEWER, "data-state") == "error"
    assert message in page.inner_text(f"{VIEWER} [data-role=error]")
    assert page.js_errors == []


def test_a_page_whose_replay_is_not_json_says_so(page, tmp_path, divee_full):
    html = standalone_page(divee_full, packed=False).replace('id="replay-data">{', 'id="replay-data">{oops', 1)
    open_page(page, tmp_path, html)
    assert "it is not valid JSON" in page.inner_text(f"{VIEWER} [data-role=error]")


def test_a_page_whose_packed_replay_is_damaged_says_so(page, tmp_path, divee_full):
    html = standalone_page(divee_full).replace('data-encoding="gzip+base64">H4sI', 'data-encoding="gzip+base64">AAAA', 1)
    open_page(page, tmp_path, html)
    assert "the page's replay data is damaged" in page.inner_text(f"{VIEWER} [data-role=error]")


def test_a_plain_page_draws_the_same_replay(page, tmp_path, divee_full):
    open_page(page, tmp_path, standalone_page(divee_full, packed=False), "#step=4")
    assert page.get_attribute(VIEWER, "data-state") == "ready" and page.get_attribute(VIEWER, "data-step") == "4"


def test_the_log_shows_the_engines_event_texts_with_the_bots_names(page, tmp_path, divee_full):
    replay = copy.deepcopy(divee_full)
    replay["seats"][1]["name"] = "<b>bravo</b>"    # shown as text, never as HTML
    replay["steps"][2]["spectator"]["events"] = [
        {"type": "claim", "seat": 1, "text": "seat 1 scored Straight for 9", "card": "straight"},
        {"type": "roll", "seat": 0, "text": "seat 0 rolled 1 2 2 5 6", "dice": [1, 2, 2, 5, 6]}]
    open_page(page, tmp_path, standalone_page(replay), "#step=2")
    line = page.inner_text(f"{VIEWER} [data-role=log] li[data-step='2'] .rv-log-text")
    assert line == "seat 1 (<b>bravo</b>) scored Straight for 9; seat 0 (builtin:random) rolled 1 2 2 5 6."
    assert page.eval_on_selector_all(f"{VIEWER} b", "els => els.length") == 0
    assert page.get_attribute(f"{VIEWER} [data-role=log] li[data-step='2'] .rv-log-dice", "data-dice") == "1,2,2,5,6"
    assert "seat 1 (<b>bravo</b>) scored Straight for 9" in page.inner_text(f"{VIEWER} [data-role=decision]")
    # Without events the renderer describes the step from its actions.
    assert "claimed" in page.inner_text(f"{VIEWER} [data-role=log]") or "re-rolled" in page.inner_text(f"{VIEWER} [data-role=log]")


def test_a_replay_from_another_engine_version_shows_everything_only_at_the_end(page, tmp_path, divee_full):
    recorded = {**copy.deepcopy(divee_full), "engine_version": "0"}
    for snapshot in [recorded["initial"], *recorded["steps"]]:
        snapshot.pop("full", None)
    open_page(page, tmp_path, standalone_page(recorded), "#step=3&pov=everything")
    assert page.get_attribute(VIEWER, "data-pov") == "everything"
    assert "known only at the end" in page.inner_text(f"{VIEWER} [data-role=note]")
    page.keyboard.press("End")
    assert not page.is_visible(f"{VIEWER} [data-role=note]")
    assert page.is_visible(f"{VIEWER} [data-role=result]")


def test_the_controller_is_a_pure_reducer_mirrored_in_the_hash(page, tmp_path, divee_full):
    open_page(page, tmp_path, standalone_page(divee_full), "#step=99999&pov=7&speed=3")
    last = len(divee_full["steps"])
    # Out-of-range parts of a link are clamped or ignored, never an error.
    assert page.get_attribute(VIEWER, "data-step") == str(last)
    assert page.get_attribute(VIEWER, "data-pov") == "spectator" and page.get_attribute(VIEWER, "data-speed") == "1"
    reduced = page.evaluate("""() => {
      const info = {last: 10, povs: ["spectator", 0, 1, "everything"]};
      const s0 = {step: 9, playing: true, speed: 1, pov: "spectator"};
      return {
        tick: DiveViewer.reduce(s0, {type: "tick"}, info),
        next: DiveViewer.reduce(s0, {type: "stepBy", by: 10}, info),
        replay: DiveViewer.reduce({...s0, step: 10, playing: false}, {type: "play"}, info),
        cycle: DiveViewer.reduce({...s0, pov: "everything"}, {type: "cyclePov"}, info),
        badSpeed: DiveViewer.reduce(s0, {type: "setSpeed", speed: 3}, info),
        hash: DiveViewer.formatHash({step: 37, playing: false, speed: 1, pov: 2}),
        parsed: DiveViewer.parseHash("#step=37&pov=1", info),
      };
    }""")
    assert reduced["tick"] == {"step": 10, "playing": False, "speed": 1, "pov": "spectator"}   # stops at the end
    assert reduced["next"] == {"step": 10, "playing": False, "speed": 1, "pov": "spectator"}   # a move pauses
    assert reduced["replay"]["step"] == 0 and reduced["replay"]["playing"] is True            # play from the end restarts
    assert reduced["cycle"]["pov"] == "spectator" and reduced["badSpeed"]["speed"] == 1
    assert reduced["hash"] == "#step=37&pov=2" and reduced["parsed"] == {"step": 10, "pov": 1}
    assert json.loads(page.evaluate("JSON.stringify(DiveViewer.SPEEDS)")) == [0.5, 1, 2, 4, 8]


@pytest.mark.parametrize("game,note", [("divee", "Solo title: "), ("dive", "the village chief")])
def test_a_solo_game_is_drawn_with_its_own_ending(page, tmp_path, game, note):
    from tests.browser.viewer_checks import CHECKS

    full = expand(run_match(game, [SeatSpec("builtin:heuristic")], seed=2).replay)
    middle = len(full["steps"]) // 2
    open_page(page, tmp_path, standalone_page(full), f"#step={middle}")
    CHECKS[game](page, full["steps"][middle]["spectator"], "spectator")   # after step `middle`
    page.keyboard.press("End")
    notes = page.inner_text(f"{VIEWER} [data-role=result]")
    assert note in notes
    if game == "divee":
        assert full["final"]["result"]["title"] in notes
    assert page.js_errors == []


@pytest.mark.django_db(transaction=True)
def test_a_match_page_whose_stored_replay_is_not_one_says_why(page, site, arena):
    page.goto(f"{site}/matches/{arena['played'].pk}/")
    page.wait_for_selector(f"{VIEWER}[data-state=error]")
    message = page.inner_text(f"{VIEWER} [data-role=error]")
    assert message.startswith("This replay cannot be shown: replay format version None")
    assert page.is_visible("text=Download the replay (JSON)")
    assert page.js_errors == []


def test_a_seats_point_of_view_shows_the_events_its_observation_carried(page, tmp_path, divee_full):
    replay = copy.deepcopy(divee_full)
    replay["steps"][3]["observations"][1]["events"] = [{"type": "roll", "seat": 0, "text": "seat 0 rolled 6 6 6 1 2"}]
    open_page(page, tmp_path, standalone_page(replay), "#step=4&pov=1")
    told = page.inner_text(f"{VIEWER} [data-role=observation-events]")
    assert [line for line in told.split("\n") if line] == ["Sent to seat 1 (builtin:random) with this observation:",
                                                         "seat 0 (builtin:random) rolled 6 6 6 1 2."]
    page.keyboard.press("v")   # everything: not a seat's observation
    assert page.eval_on_selector_all(f"{VIEWER} [data-role=observation-events]", "els => els.length") == 0


def test_an_event_the_renderer_has_no_words_for_is_spelled_out_not_shown_by_its_type(page, tmp_path, divee_full):
    replay = copy.deepcopy(divee_full)
    replay["steps"][3]["observations"][1]["events"] = [
        {"type": "roll", "round": 2, "seat": 0, "dice": [1, 1, 2, 3, 6]},
        {"type": "storm_warning", "seat": 1, "waves": 3},
    ]
    open_page(page, tmp_path, standalone_page(replay), "#step=4&pov=1")
    lines = page.eval_on_selector_all(f"{VIEWER} [data-role=observation-events] li",
                                      "els => els.map(e => [e.dataset.saidBy, e.textContent])")
    assert lines == [["renderer", "round 2: seat 0 (builtin:random) rolled 1 1 2 3 6."],
                     ["fields", "storm warning: seat 1 (builtin:random), waves 3."]]
    assert page.js_errors == []
