"""A seat's point of view in the replay viewer: the `events` its observation carried read as
sentences in words (seat names, dice, chips, cards), one line per event, for every game.

The engines send these events without a `text`; a line that is only the event's type
("cycle", "choices", "surface") must never come back.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import save_screenshot
from tests.replay_support import load
from workers.replay import expand
from workers.viewer import standalone_page

GAMES = ["deep_sea_adventure", "divee", "dive_diver_die", "deep_dive", "dive"]
VIEWER = "#replay-viewer"
TOLD = f"{VIEWER} [data-role=observation-events]"


@pytest.fixture(scope="module")
def pages(tmp_path_factory, game_replay):
    """One replay per game (played once for the test process) and its local page."""
    folder = tmp_path_factory.mktemp("viewer-events")
    out = {}
    for game in GAMES:
        full = expand(load(game_replay(game)))
        path = folder / f"{game}.html"
        path.write_text(standalone_page(full), encoding="utf-8")
        out[game] = (full, path)
    return out


def observation(full: dict, frame: int, seat: int) -> dict:
    snap = full["initial"] if frame == 0 else full["steps"][frame - 1]
    return snap["observations"][seat]


def frames_with_events(full: dict, seat: int, most: int) -> list[int]:
    """Up to ``most`` frames spread over the match where ``seat``'s observation carried events."""
    frames = [k for k in range(len(full["steps"])) if observation(full, k, seat).get("events")]
    if len(frames) <= most or most == 1:
        return frames[:most]
    return sorted({frames[round(i * (len(frames) - 1) / (most - 1))] for i in range(most)})


def open_at(page, path, frame: int, pov) -> None:
    if page.url.startswith("file:"):
        page.evaluate("hash => { location.hash = hash; }", f"#step={frame}&pov={pov}")
    else:
        page.goto(path.resolve().as_uri() + f"#step={frame}&pov={pov}")
        page.wait_for_selector(f"{VIEWER}[data-state=ready]")
    page.wait_for_function("([s, p]) => { const v = document.querySelector('#replay-viewer');"
                           " return v.dataset.step === s && v.dataset.pov === p; }", arg=[str(frame), str(pov)])


def told_lines(page) -> list[dict]:
    return page.eval_on_selector_all(f"{TOLD} li", "els => els.map(e => ({type: e.dataset.eventType,"
                                     " by: e.dataset.saidBy, text: e.textContent}))")


def assert_reads_as_words(event: dict, line: dict) -> None:
    text, kind = line["text"], event["type"]
    assert line["type"] == kind
    assert line["by"] == "renderer", line      # the game's own words, not the fields spelled out
    assert text.endswith("."), text
    assert text.rstrip(".").replace(" ", "_").lower() != kind, text
    assert len(text.split()) >= 3, text
    if isinstance(event.get("seat"), int):
        assert f"seat {event['seat']} (" in text, text     # the seat with its bot's name
    for value in event.get("dice") or []:
        assert str(value) in text, text
    if kind == "cycle":
        for colour in (event.get("colour_rolls") or {}).values():
            assert colour in text, text
        if event.get("shark_roll"):
            assert event["shark_roll"] in text, text
    if kind == "level":
        assert f"card {event['card']}" in text, text


@pytest.mark.parametrize("game", GAMES)
def test_a_seats_view_lists_the_events_it_was_sent_as_sentences(game, page, phone_page, pages):
    full, path = pages[game]
    seen = set()
    for seat in (0, 1):
        for frame in frames_with_events(full, seat, 6):
            open_at(page, path, frame, seat)
            events = observation(full, frame, seat)["events"]
            lines = told_lines(page)
            assert len(lines) == len(events)
            for event, line in zip(events, lines):
                assert_reads_as_words(event, line)
                seen.add(event["type"])
    assert seen
    # Every event type any observation of the match carried has the game's words.
    unworded = page.evaluate("""() => {
        const viewer = document.querySelector('#replay-viewer').viewer, m = viewer.model;
        const ctx = Object.assign({snapshots: m.snapshots}, m.ctx), missing = new Set();
        m.snapshots.forEach(snap => (snap.observations || []).forEach(obs => (obs.events || []).forEach(e => {
            const text = m.renderer.event ? m.renderer.event(e, ctx, null) : null;
            if (!text || typeof text !== 'string') { missing.add(e.type); }
        })));
        return Array.from(missing);
    }""")
    assert unworded == []
    open_at(page, path, frames_with_events(full, 1, 3)[-1], 1)
    save_screenshot(page, f"viewer-events-{game}-seat")
    # The spectator and "everything" views were sent no observation: no such panel.
    for pov in ("spectator", "everything"):
        open_at(page, path, frames_with_events(full, 1, 1)[0], pov)
        assert page.eval_on_selector_all(TOLD, "els => els.length") == 0
    assert page.js_errors == []
    # 390 px wide: the panel wraps, nothing scrolls sideways.
    frame = frames_with_events(full, 1, 3)[-1]
    open_at(phone_page, path, frame, 1)
    assert phone_page.eval_on_selector_all(f"{TOLD} li", "els => els.length") == len(observation(full, frame, 1)["events"])
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone_page.js_errors == []
    save_screenshot(phone_page, f"viewer-events-{game}-seat-390px")


def test_a_taken_chip_is_named_by_its_level_from_the_public_view_before_it(page, pages):
    full, path = pages["deep_sea_adventure"]
    for frame in range(len(full["steps"])):
        events = observation(full, frame, 0).get("events") or []
        takes = [i for i, e in enumerate(events) if e["type"] == "action" and e["action"]["type"] == "take"]
        if takes:
            break
    else:
        pytest.fail("no chip was taken in this replay")
    open_at(page, path, frame, 0)
    text = told_lines(page)[takes[0]]["text"]
    # The same words as the log line of the step where it happened (the events are the tail of
    # the public log at their frame).
    def spectator(k):
        return (full["initial"] if k == 0 else full["steps"][k - 1])["spectator"]

    at = len(spectator(frame)["log"]) - len(events) + takes[0]
    step = next(k for k in range(1, frame + 1) if len(spectator(k)["log"]) > at) - 1
    logged = page.inner_text(f"{VIEWER} [data-role=log] li[data-step='{step}'] .rv-log-text")
    words = text.split(") ", 1)[1].rstrip(".")
    assert words.startswith("took a level-") or words.startswith("took a stack of levels"), text
    assert words in logged, (text, logged)
