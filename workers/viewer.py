"""The replay viewer's server half: what it needs besides the replay, and self-contained pages.

The viewer itself is plain JavaScript under ``static/arena/viewer/`` (one shell and one renderer
per game) and draws only what it is given: the replay in full form (``workers.replay.expand``) and
the game's *legend*, the public component data a renderer needs to draw what the views name by id
(Dive's ocean cards by card id, Divee!'s base points). The legend comes from the game itself
(``GameFacts.legend``), so no game data is copied into JavaScript.

``standalone_page`` writes one HTML file holding the viewer and the replay, for
``python -m workers.replay view`` (no server needed).
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from pathlib import Path

from engines import get_game, list_games

STATIC_ROOT = Path(__file__).resolve().parents[1] / "static"
# Paths under the static root, in load order: the core, one renderer per game, the shell's modules
# (reading the replay, changes, controls, timeline, log, the player that mounts them), the boot.
VIEWER_STYLES = ("arena/viewer/viewer.css", "arena/viewer/luck.css")
VIEWER_SCRIPTS = (
    "arena/viewer/core.js",
    # One renderer per game, named by the game itself (engines: GameFacts.viewer_script).
    *(game.facts.viewer_script for game in list_games()),
    "arena/viewer/replay.js",
    "arena/viewer/changes.js",
    "arena/viewer/controls.js",
    "arena/viewer/timeline.js",
    "arena/viewer/log.js",
    "arena/viewer/player.js",
    "arena/viewer/luck.js",
    "arena/viewer/boot.js",
)
# The standalone page has no site stylesheet: just enough for a readable page.
_PAGE_STYLE = ("body{font-family:system-ui,sans-serif;margin:0;color:#1b1f24;background:#fafbfc}"
               "main{max-width:80rem;margin:0 auto;padding:0.6rem 1rem}"
               "h1{font-size:1.2rem;margin:0.4rem 0}")


def game_legend(game_id: str) -> dict:
    """Public component data of ``game_id`` that its renderer draws from (empty when none is needed):
    the game's own ``facts.legend()``. KeyError for an unknown game, like everywhere else."""
    return get_game(game_id).facts.legend()


def script_json(value) -> str:
    """``value`` as JSON that is safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    # As Django's json_script: no "</script>" or "<!--" can end or change the element early.
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def standalone_page(replay: dict, legend: dict | None = None, *, packed: bool = True) -> str:
    """One self-contained HTML page that draws ``replay`` (full form) with no server.

    ``packed`` embeds the replay gzip-compressed and base64-encoded, which the page unpacks with
    the browser's own ``DecompressionStream`` (every current browser has it): the full form is
    several MB of repetitive JSON, and a page 10-20 times smaller opens faster (the HTML parser
    no longer scans megabytes) and is easier to pass around. ``packed=False`` embeds plain JSON.
    """
    if legend is None:
        try:
            legend = game_legend(str(replay.get("game")))
        except KeyError:
            legend = {}  # the viewer says the game is unknown
    styles = "\n".join((STATIC_ROOT / path).read_text(encoding="utf-8") for path in VIEWER_STYLES)
    scripts = "\n".join(f"<script>\n{_inline_script(path)}\n</script>" for path in VIEWER_SCRIPTS)
    title = f"Replay: {replay.get('game')}, seed {replay.get('seed')}" if isinstance(replay, dict) else "Replay"
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)} · Dive Arena</title>\n"
        f"<style>\n{_PAGE_STYLE}\n{styles}\n</style>\n</head>\n<body>\n<main>\n"
        f"<h1>{html.escape(title)}</h1>\n"
        "<div id=\"replay-viewer\" data-source=\"inline\">"
        "<noscript>The replay viewer needs JavaScript.</noscript></div>\n"
        f"{_replay_element(replay, packed)}\n"
        f"<script type=\"application/json\" id=\"replay-legend\">{script_json(legend)}</script>\n"
        f"{scripts}\n</main>\n</body>\n</html>\n"
    )


def _replay_element(replay, packed: bool) -> str:
    if not packed:
        return f'<script type="application/json" id="replay-data">{script_json(replay)}</script>'
    text = json.dumps(replay, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    data = base64.b64encode(gzip.compress(text, compresslevel=9, mtime=0)).decode("ascii")
    return f'<script type="application/octet-stream" id="replay-data" data-encoding="gzip+base64">{data}</script>'


def unpack_page_replay(page: str):
    """The replay embedded in a page written by :func:`standalone_page` (for tests and tools)."""
    start = page.index('id="replay-data"')
    element = page[start:page.index("</script>", start)]
    body = element.split(">", 1)[1]
    if 'data-encoding="gzip+base64"' in element:
        return json.loads(gzip.decompress(base64.b64decode(body)).decode("utf-8"))
    return json.loads(body)


def _inline_script(path: str) -> str:
    text = (STATIC_ROOT / path).read_text(encoding="utf-8")
    # A script element ends at the first "</script", wherever it is: our sources never hold one.
    if "</script" in text.lower():
        raise ValueError(f"{path} contains '</script' and cannot be inlined")
    return text
