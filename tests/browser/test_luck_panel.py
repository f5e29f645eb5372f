"""The replay viewer's luck panel in real Chromium (static/arena/viewer/luck.js): each seat's luck
so far and in the step shown, and at the end "seat N: S points; luck L; play P" (docs/luck.md)."""

from __future__ import annotations

from arena.matches.selectors import match_luck_steps

VIEWER = "#replay-viewer"


def _signed(value: float) -> str:
    rounded = round(value, 1)
    if rounded == 0:
        return "±0.0"
    return ("+" if rounded > 0 else "−") + f"{abs(rounded):.1f}"


def test_the_luck_panel_follows_the_step_shown_and_sums_up_at_the_end(page, site, replayed_match):
    report = match_luck_steps(replayed_match)
    step = 4                                      # the board shows frame 5: after step 4
    page.goto(f"{site}/matches/{replayed_match.pk}/#step={step}")
    page.wait_for_selector("[data-role=luck] [data-role=luck-so-far]")
    for seat in range(3):
        row = f"[data-role=luck] tr[data-seat='{seat}']"
        sofar = report["setup"][seat] + sum(report["steps"][k][seat] for k in range(step + 1))
        assert page.inner_text(f"{row} [data-role=luck-so-far]") == _signed(sofar)
        assert page.inner_text(f"{row} [data-role=luck-step]") == _signed(report["steps"][step][seat])
    assert page.query_selector("[data-role=luck-lines]") is None
    last = len(report["steps"])
    page.goto(f"{site}/matches/{replayed_match.pk}/#step={last}")
    page.wait_for_selector("[data-role=luck-lines]")
    lines = page.inner_text("[data-role=luck-lines]").splitlines()
    assert lines == [f"seat {s}: {report['scores'][s]} points; luck {_signed(report['luck'][s])}; "
                     f"play {report['play'][s]:.1f}" for s in range(3)]
