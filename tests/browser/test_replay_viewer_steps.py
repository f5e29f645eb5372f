"""The viewer shows the position after step k by default (before it on request), marks what the step
changed, animates lightly unless reduced motion is asked for, and says which tie-break decided a tie."""

from __future__ import annotations

import copy

import pytest

from tests.browser.conftest import save_screenshot
from tests.browser.viewer_checks import BOARD, CHECKS
from workers.replay import expand
from workers.runner import SeatSpec, run_match
from workers.viewer import standalone_page

VIEWER = "#replay-viewer"


@pytest.fixture(scope="module")
def dsa_full():
    return expand(run_match("deep_sea_adventure", [SeatSpec("builtin:heuristic")] * 3, seed=5).replay)


def open_page(page, tmp_path, html: str, hash_: str = "", name: str = "page"):
    path = tmp_path / f"{name}.html"
    path.write_text(html, encoding="utf-8")
    page.goto(path.as_uri() + hash_)
    page.wait_for_selector(f"{VIEWER}[data-state=ready], {VIEWER}[data-state=error]")
    assert page.get_attribute(VIEWER, "data-state") == "ready"


def frames(full):
    return [full["initial"]] + full["steps"]


def a_move(full) -> tuple[int, int]:
    """A step after which some diver stands elsewhere: (step, seat)."""
    snaps = frames(full)
    for k in range(len(snaps) - 1):
        before, after = snaps[k]["spectator"]["divers"], snaps[k + 1]["spectator"]["divers"]
        for seat, (b, a) in enumerate(zip(before, after)):
            if b["position"] != a["position"] and a["position"] > 0:
                return k, seat
    raise AssertionError("no diver moved")


def test_step_k_shows_the_position_after_it_and_before_it_on_request(page, tmp_path, dsa_full):
    step, seat = a_move(dsa_full)
    snaps = frames(dsa_full)
    open_page(page, tmp_path, standalone_page(dsa_full), f"#step={step}")
    # After step k: the board is frame k + 1, which the decision panel's words describe.
    assert page.get_attribute(VIEWER, "data-side") == "after" and page.get_attribute(BOARD, "data-frame") == str(step + 1)
    CHECKS["deep_sea_adventure"](page, snaps[step + 1]["spectator"], "spectator")
    assert page.inner_text(f"{VIEWER} [data-role=status]").startswith(f"After step {step} of ")
    # The diver that moved is marked as changed, on both sides of the step.
    moved = f"{BOARD} [data-diver][data-seat='{seat}']"
    assert page.get_attribute(moved, "data-changed") == "true"
    assert int(page.get_attribute(BOARD, "data-changes")) >= 1
    save_screenshot(page, "viewer-after-step")
    page.keyboard.press("b")
    assert page.get_attribute(VIEWER, "data-side") == "before" and page.get_attribute(BOARD, "data-frame") == str(step)
    CHECKS["deep_sea_adventure"](page, snaps[step]["spectator"], "spectator")
    assert page.get_attribute(moved, "data-changed") == "true"
    assert page.inner_text(f"{VIEWER} [data-role=side]") == f"Before step {step}"
    page.wait_for_function("() => location.hash.includes('side=before')")   # a link keeps the side
    save_screenshot(page, "viewer-before-step")
    page.click(f"{VIEWER} [data-role=side]")
    assert page.get_attribute(VIEWER, "data-side") == "after"
    # Elements the step did not touch are not marked: the path's spaces away from the move.
    assert page.eval_on_selector_all(f"{BOARD} [data-changed]", "els => els.length") < 8
    assert page.js_errors == []


def test_the_step_animates_unless_reduced_motion_is_asked_for(browser, tmp_path, dsa_full):
    step, seat = a_move(dsa_full)
    path = tmp_path / "page.html"
    path.write_text(standalone_page(dsa_full), encoding="utf-8")
    names = {}
    for motion in ("no-preference", "reduce"):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion=motion)
        page = context.new_page()
        page.goto(path.as_uri() + f"#step={step - 1 if step else step}")
        page.wait_for_selector(f"{VIEWER}[data-state=ready]")
        page.keyboard.press("ArrowRight" if step else "Home")
        names[motion] = page.evaluate(
            "sel => { const e = document.querySelector(sel); return [getComputedStyle(e).animationName,"
            " getComputedStyle(document.querySelector('#replay-viewer [data-role=board] svg')).animationName]; }",
            f"{BOARD} [data-diver][data-seat='{seat}']")
        context.close()
    assert names["no-preference"][0] == "rv-pulse"
    assert names["reduce"] == ["none", "none"]


def test_the_end_says_which_tie_break_decided_a_tie(page, tmp_path, dsa_full):
    replay = copy.deepcopy(dsa_full)
    divers = replay["final"]["full_view"]["divers"]
    divers[0]["secured_levels"], divers[1]["secured_levels"] = [4, 1], [3, 3]
    replay["result"] = dict(replay["result"], scores=[12, 12, 3], ranks=[1, 2, 3])
    open_page(page, tmp_path, standalone_page(replay), "#step=0")
    page.keyboard.press("End")
    tie = page.inner_text(f"{VIEWER} [data-role=tie]")
    assert "tied on 12 points" in tie and "the most chips of the highest level" in tie and "level-4" in tie
    # Equal scores and equal ranks: a shared rank, said so.
    replay["result"] = dict(replay["result"], scores=[12, 12, 3], ranks=[1, 1, 3])
    open_page(page, tmp_path, standalone_page(replay), "#step=0", name="shared")
    page.keyboard.press("End")
    assert "share rank 1" in page.inner_text(f"{VIEWER} [data-role=tie]")
    assert page.js_errors == []


OVERFLOW = """() => {
  const svg = document.querySelector('#replay-viewer [data-role=board] svg'), box = svg.viewBox.baseVal;
  const header = svg.querySelector('rect').getBBox();      // the light sky band above the water
  return Array.from(svg.querySelectorAll('text')).map(t => {
    const b = t.getBBox();
    return {text: t.textContent, right: b.x + b.width, width: box.width,
            header: b.y + b.height <= header.height + 2, bottom: b.y + b.height, headerBottom: header.height};
  });
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_deep_sea_adventure_board_keeps_its_text_inside_at_1280_and_390_px(browser, tmp_path, dsa_full, width):
    replay = copy.deepcopy(dsa_full)
    for seat in replay["seats"]:
        seat["name"] = "a-bot-with-a-name-as-long-as-allowed-xyz"   # 40 characters, the longest a bot may have
    path = tmp_path / "long-names.html"
    path.write_text(standalone_page(replay), encoding="utf-8")
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    step, _ = a_move(dsa_full)
    page.goto(path.as_uri() + f"#step={step}")
    page.wait_for_selector(f"{VIEWER}[data-state=ready]")
    texts = page.evaluate(OVERFLOW)
    outside = [t for t in texts if t["right"] > t["width"] + 0.5]
    assert outside == []
    # The round and whose decision it is stay in the header band.
    header = [t for t in texts if t["text"].startswith("Round ") or " decides: " in t["text"]]
    assert header and all(t["header"] for t in header), header
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    save_screenshot(page, f"viewer-dsa-header-{width}px")
    context.close()


def test_dive_draws_its_stacked_cards_and_counts_the_rounds_the_game_lasted(page, tmp_path):
    full = expand(run_match("dive", [SeatSpec("builtin:heuristic")] * 2, seed=3).replay)
    played = full["steps"][-1]["spectator"]["round"]
    assert played < 30   # a game that ended before the safety limit
    middle = len(full["steps"]) // 2
    open_page(page, tmp_path, standalone_page(full), f"#step={middle}")
    view = full["steps"][middle]["spectator"]
    title = page.text_content(f"{BOARD} [data-role=round-title]")
    assert title.startswith(f"Round {view['round']} of {played} ·")
    # No "tint N" labels: the cards' edges stacked behind, one haze layer per step of tint over each creature.
    assert "tint" not in page.text_content(f"{BOARD} [data-role=ocean]")
    assert page.eval_on_selector_all(f"{BOARD} [data-card-edge]", "els => els.length") == 4
    for cell, entry in enumerate(view["ocean_view"]):
        layers = page.eval_on_selector_all(f"{BOARD} [data-role=ocean] [data-cell='{cell}'] [data-haze]", "els => els.length")
        assert layers == (entry["tint"] if entry else 0)
    save_screenshot(page, "viewer-dive-stacked-cards")
    assert page.js_errors == []
