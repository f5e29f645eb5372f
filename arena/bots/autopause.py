"""When a version faults too often to keep playing: a pure rule over its latest ladder matches.

A faulted seat is played to the end by a built-in fallback, so every opponent of a broken bot
plays against that fallback: after repeated faults the version is paused from the ladders
(``arena.runs.autopause.bot_version_pause_if_faulting``) until a new version passes its smoke test.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def _kinds(faults: Sequence[str]) -> str:
    counts = Counter(kind for kind in faults if kind)
    return ", ".join(f"{kind} ×{n}" for kind, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def pause_reason(faults: Sequence[str], *, streak: int, window: int, rate: float, min_matches: int) -> str | None:
    """Why to pause, in words, or None to keep playing.

    ``faults`` holds the fault kind of each of the version's latest ladder matches, newest first
    (``""`` for a match without a fault). Pause when the newest ``streak`` all faulted, or when
    more than ``rate`` of the newest ``window`` faulted and at least ``min_matches`` were played.
    A rule whose number is 0 is off.
    """
    if streak > 0 and len(faults) >= streak and all(faults[:streak]):
        return f"{streak} faulted ladder matches in a row ({_kinds(faults[:streak])})"
    recent = list(faults[:window]) if window > 0 else []
    if recent and len(recent) >= max(1, min_matches):
        faulted = sum(1 for kind in recent if kind)
        if faulted > rate * len(recent):
            return (f"{faulted} of its last {len(recent)} ladder matches faulted ({faulted / len(recent):.0%}, "
                    f"more than {rate:.0%}: {_kinds(recent)})")
    return None
