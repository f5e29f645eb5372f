"""A match being played, as spectators may follow it: the public view after its latest step.

The worker publishes it while it plays (``match_live_watcher``, given to the runner as its
``on_step``) in the cache, never the database: it is a passing picture, gone when the match is
recorded (the replay then tells everything) and a few minutes after a lost worker. At most one
view every ``LIVE_STEP_SECONDS`` is written, and the last step's always.

Only the engine's ``spectator_view()`` is published: no seat's observation, no action (a secret
placement shows in the views only once the engine reveals it), no seed. Whether a visitor may see
it is the page's decision (``arena.matches.selectors.match_chance_open``: a game sharing its chance
with games still to play is shown to staff only).
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

LIVE_STEP_SECONDS = 0.5


def _key(match_id: int) -> str:
    return f"match-live:{int(match_id)}"


def match_live_publish(*, match_id: int, attempt: int, step: int, view: dict, over: bool = False) -> None:
    """Store the public view after step ``step`` of attempt ``attempt`` of the match."""
    cache.set(_key(match_id), {"attempt": attempt, "step": step, "over": over, "view": view},
              timeout=settings.MATCH_HARD_TIME_LIMIT + 60)


def match_live_read(*, match_id: int, attempt: int) -> dict | None:
    """``{"step", "over", "view"}`` of attempt ``attempt``, or None: nothing
    published yet, or only by an earlier attempt (whose game was abandoned)."""
    found = cache.get(_key(match_id))
    if not isinstance(found, dict) or found.get("attempt") != attempt:
        return None
    return found


def match_live_step(*, match_id: int, attempt: int) -> int | None:
    """The latest published step of attempt ``attempt``, or None."""
    found = match_live_read(match_id=match_id, attempt=attempt)
    return None if found is None else found["step"]


def match_live_clear(*, match_id: int) -> None:
    """Forget the live view (the match was recorded, or given up)."""
    cache.delete(_key(match_id))


def match_live_watcher(*, match_id: int, attempt: int, every: float = LIVE_STEP_SECONDS):
    """The runner's ``on_step`` for this attempt: publishes the spectator view at most every
    ``every`` seconds, and always when the game is over."""
    last = [float("-inf")]

    def on_step(step: int, state) -> None:
        now = time.monotonic()
        over = state.is_terminal()
        if not over and now - last[0] < every:
            return
        last[0] = now
        match_live_publish(match_id=match_id, attempt=attempt, step=step, view=state.spectator_view(), over=over)

    return on_step
