"""The replay viewer in real Chromium, for every game: replays generated here from a seed with
the local CLI (seat 1 is a bot that faults), shown on the match page and as a local page.

What is drawn is checked against the replay's own views through the renderers' data-* attributes.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.browser.conftest import save_screenshot, sign_in
from tests.browser.viewer_checks import BOARD, CHECKS, HIDDEN
from arena.matches.models import Match, MatchGroup
from tests.replay_support import ROOT, load, record_match
from workers.replay import expand

GAMES = ["deep_sea_adventure", "divee", "dive_diver_die", "deep_dive", "dive"]
VIEWER = "#replay-viewer"


@pytest.fixture(scope="module")
def replays(game_replay):
    """One replay file per game (played once for the test process)."""
    return {game: game_replay(game) for game in GAMES}


@pytest.fixture
def recorded(owner, other_user, staff, ready_bot):
    return lambda replay: record_match(replay, [owner, other_user, staff], ready_bot)


def wait_ready(page):
    page.wait_for_selector(f"{VIEWER}[data-state=ready], {VIEWER}[data-state=error]")
    assert page.get_attribute(VIEWER, "data-state") == "ready", page.inner_text(VIEWER)


def state(page) -> dict:
    return {"step": int(page.get_attribute(VIEWER, "data-step")), "pov": page.get_attribute(VIEWER, "data-pov"),
            "playing": page.get_attribute(VIEWER, "data-playing") == "true"}


def snapshot(full: dict, step: int) -> dict:
    return full["initial"] if step == 0 else full["steps"][step - 1]


def view_of(full: dict, step: int, pov):
    snap = snapshot(full, step)
    if pov == "spectator":
        return snap["spectator"]
    if pov == "everything":
        return snap["full"]
    return snap["observations"][pov]


def frame_of(full: dict, step: int, side: str = "after") -> int:
    """The frame the board shows for step k: after it (frame k + 1) unless asked for before; the end is the end."""
    return step if side == "before" or step == len(full["steps"]) else step + 1


def check(page, game: str, full: dict, step: int, pov, side: str = "after") -> None:
    assert state(page)["step"] == step and state(page)["pov"] == str(pov)
    assert page.get_attribute(BOARD, "data-step") == str(step)
    frame = frame_of(full, step, side)
    assert page.get_attribute(BOARD, "data-frame") == str(frame)
    view = view_of(full, frame, pov)
    CHECKS[game](page, view, pov)
    if isinstance(pov, int):
        HIDDEN[game](page, view, pov)


def go(page, step: int, pov="spectator") -> None:
    page.evaluate("hash => { location.hash = hash; }", f"#step={step}&pov={pov}")
    page.wait_for_function("([s, p]) => { const v = document.querySelector('#replay-viewer');"
                           " return v.dataset.step === s && v.dataset.pov === p; }", arg=[str(step), str(pov)])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", GAMES)
def test_the_match_page_draws_the_replays_views_at_every_step_asked_for(game, page, site, replays, recorded):
    replay = load(replays[game])
    full = expand(replay)
    last = len(full["steps"])
    match = recorded(replay)
    middle = last // 2
    page.goto(f"{site}/matches/{match.pk}/#step={middle}")
    wait_ready(page)
    check(page, game, full, middle, "spectator")
    # Keys: one step, ten steps, back, the end (with the result), the start.
    page.keyboard.press("ArrowRight")
    check(page, game, full, middle + 1, "spectator")
    page.keyboard.press("Shift+ArrowRight")
    check(page, game, full, min(last, middle + 11), "spectator")
    page.keyboard.press("ArrowLeft")
    check(page, game, full, min(last, middle + 11) - 1, "spectator")
    page.keyboard.press("End")
    check(page, game, full, last, "spectator")
    result = page.eval_on_selector_all(f"{VIEWER} [data-role=result] tr[data-seat]",
                                       "rows => rows.map(r => [r.dataset.seat, r.dataset.score, r.dataset.rank])")
    assert sorted(result) == sorted([str(s), str(full["result"]["scores"][s]), str(full["result"]["ranks"][s])]
                                    for s in range(full["num_players"]))
    assert page.is_visible(f"{VIEWER} [data-role=result]")
    page.keyboard.press("Home")
    check(page, game, full, 0, "spectator")
    page.wait_for_function("() => location.hash === '#step=0'")   # the address follows
    # The point of view cycles with v: spectator, seat 0, seat 1, ..., everything.
    page.keyboard.press("v")
    page.keyboard.press("v")
    check(page, game, full, 0, 1)
    for step in sorted({1, middle, last - 1, full["faults"][0]["step"]}):
        go(page, step, 1)
        check(page, game, full, step, 1)   # seat 1 sees exactly its observation, nothing hidden from it
    go(page, middle, "everything")
    check(page, game, full, middle, "everything")
    # Fault marks on the timeline are the replay's faults.
    marks = page.eval_on_selector_all(f"{VIEWER} [data-kind=fault]",
                                      "els => els.map(e => [Number(e.dataset.seat), e.dataset.faultKind, Number(e.dataset.step)])")
    assert marks == [[f["seat"], f["kind"], f["step"]] for f in full["faults"]] and marks
    # The log: one line per step in words (and one for the end), a fallback badge wherever the
    # built-in played a faulted seat, grouped under the rounds (or dives).
    lines = page.eval_on_selector_all(f"{VIEWER} [data-role=log] li[data-step]",
                                      "els => els.map(e => [Number(e.dataset.step), e.innerText.trim().length])")
    assert [step for step, _ in lines] == list(range(last + 1)) and all(length > 10 for _, length in lines)
    badges = page.eval_on_selector_all(f"{VIEWER} [data-role=log] .rv-fallback", "els => els.length")
    assert badges == sum(step["by"].count("fallback") for step in full["steps"]) > 0
    assert page.eval_on_selector_all(f"{VIEWER} [data-role=log] [data-phase]", "els => els.length") >= 1
    # The page's fault link goes to the fault's step from that seat's point of view.
    fault = full["faults"][0]
    page.click(f"a[data-fault-step='{fault['step']}']")
    page.wait_for_function("s => document.querySelector('#replay-viewer').dataset.step === s", arg=str(fault["step"]))
    assert state(page)["pov"] == str(fault["seat"])
    assert page.is_visible(f"{VIEWER} [data-role=fault][data-seat='{fault['seat']}']")
    assert page.js_errors == []
    save_screenshot(page, f"viewer-{game}")


@pytest.mark.parametrize("game", GAMES)
def test_the_local_page_shows_the_replay_without_a_server_and_plays_and_pauses(game, page, phone_page, replays, tmp_path):
    out = tmp_path / f"{game}.html"
    done = subprocess.run([sys.executable, "-m", "workers.replay", "view", str(replays[game]), "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out.resolve())
    full = expand(load(replays[game]))
    step = len(full["steps"]) // 3
    page.goto(out.resolve().as_uri() + f"#step={step}&pov=everything")
    wait_ready(page)
    check(page, game, full, step, "everything")
    # Play at 8x advances; pause stops.
    page.select_option(f"{VIEWER} [data-role=speed]", "8")
    page.keyboard.press("Space")
    assert state(page)["playing"]
    page.wait_for_function("s => Number(document.querySelector('#replay-viewer').dataset.step) >= s", arg=step + 2)
    page.keyboard.press("Space")
    paused = state(page)
    assert not paused["playing"]
    page.wait_for_timeout(400)
    assert state(page)["step"] == paused["step"]
    # Clicking a log line jumps to its step.
    page.click(f"{VIEWER} [data-role=log] li[data-step='1']")
    assert state(page)["step"] == 1
    assert page.js_errors == []
    # 390 px wide: the compact board, and nothing scrolls sideways.
    phone_page.goto(out.resolve().as_uri() + f"#step={step}")
    wait_ready(phone_page)
    check(phone_page, game, full, step, "spectator")
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone_page.js_errors == []
    save_screenshot(phone_page, f"viewer-{game}-390px")


@pytest.mark.django_db(transaction=True)
def test_the_match_page_with_its_viewer_fits_a_390px_phone(phone_page, site, replayed_match):
    phone_page.goto(f"{site}/matches/{replayed_match.pk}/#step=5")
    wait_ready(phone_page)
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390
    width = phone_page.evaluate("document.querySelector('#replay-viewer [data-role=board] svg').getBoundingClientRect().width")
    assert 300 < width <= 390    # the board scales to the screen
    assert phone_page.evaluate("document.querySelector('#replay-viewer [data-role=board] svg').viewBox.baseVal.width") < 600
    assert phone_page.js_errors == []


@pytest.mark.django_db(transaction=True)
def test_a_game_whose_chance_is_still_to_be_played_shows_no_viewer_but_to_staff(page, site, replays, recorded, staff):
    """A done game of a set still being played (here: an unfinished group on its seed, as every
    table of a tournament round is): a visitor's page draws no viewer and fetches nothing of the
    replay; staff, investigating, get the whole viewer with a note that the public does not."""

    replay = load(replays["deep_sea_adventure"])
    match = recorded(replay)
    group = MatchGroup.objects.create(game=match.game, seed=match.seed, size=2)
    Match.objects.filter(pk=match.pk).update(group=group, group_index=0)
    page.goto(f"{site}/matches/{match.pk}/#step=3")
    page.wait_for_load_state("networkidle")
    assert page.query_selector(VIEWER) is None
    body = page.inner_text("body")
    assert "shown once every game sharing this chance has been played" in body
    assert "Seed\tshown once every game sharing its chance has been played" in body
    assert page.evaluate("url => fetch(url).then(r => r.status)", f"/matches/{match.pk}/replay.full.json") == 404
    assert page.evaluate("url => fetch(url).then(r => r.status)", f"/api/matches/{match.pk}/replay/") == 404
    sign_in(page, site, staff)
    page.reload()   # the same address: a goto would only change the hash
    wait_ready(page)
    check(page, "deep_sea_adventure", expand(replay), 3, "spectator")
    assert "You see them as staff." in page.inner_text("body") and f"Seed\t{match.seed}\n" in page.inner_text("body")
    assert page.js_errors == []
