"""Pages that draw a replay: ``python -m workers.replay view FILE [--out PAGE.html]`` writes one
self-contained HTML page (the replay viewer with the replay inside, no server needed).
"""

from __future__ import annotations

import os
import sys
import zlib

from workers.replay.codec import ReplayError, load, unreadable_reason
from workers.replay.expansion import expand
from workers.viewer import standalone_page


def default_page_path(path: str) -> str:
    """Where ``view`` writes the page of ``path`` without ``--out``: beside it, ending in .html."""
    name = os.path.basename(path)
    for suffix in (".json.gz", ".gz", ".json"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    return os.path.join(os.path.dirname(path), name + ".html")


def load_or_say_why(path: str) -> dict | None:
    """The replay in ``path``, or None after printing why it cannot be read."""
    try:
        return load(path)
    except (OSError, ValueError, EOFError, zlib.error) as exc:
        print(f"{path}: {unreadable_reason(exc)}", file=sys.stderr)
        return None


def write_page(path: str, out: str | None) -> int:
    """``view``: write the self-contained page of the replay in ``path``; the exit status."""
    replay = load_or_say_why(path)
    if replay is None:
        return 1
    try:
        full = expand(replay)
    except ReplayError as exc:
        print(f"{path}: cannot be shown: {exc}", file=sys.stderr)
        return 1
    out = out or default_page_path(path)
    if os.path.isdir(out):
        print(f"--out {out}: is a directory, give a file name", file=sys.stderr)
        return 2
    try:
        with open(out, "w", encoding="utf-8") as page:
            page.write(standalone_page(full))
    except OSError as exc:
        print(f"{out}: cannot write: {exc}", file=sys.stderr)
        return 1
    print(os.path.abspath(out))
    return 0
