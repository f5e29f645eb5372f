"""Documentation on the site: Markdown files rendered as HTML, examples of what a bot is sent, and
the starter kits as downloads.

Markdown is rendered by markdown-it-py in CommonMark mode with raw HTML off: any HTML in a file
is shown as text, never passed through, and links with script schemes are dropped by the parser.
"""

from __future__ import annotations

import functools
import io
import json
import random
import re
import zipfile
from pathlib import Path

from django.conf import settings
from django.utils.safestring import SafeString, mark_safe

from workers.toolchains import BUILDS, ENTRY_FILES, TITLES

# docs/<name>.md files published at /docs/<name>/ (the operators' deploy and benchmark notes stay in the repo).
PUBLISHED_DOCS = {
    "writing-a-bot": "Writing a bot",
    "replay-format": "Replay format",
    "api": "The REST API",
    "ladders": "Ladders: tables, rotation groups, ratings",
    "ratings": "How ratings work",
    "luck": "Luck: what chance gave each seat",
    "tournaments": "Tournaments",
    "abtests": "A/B tests of two versions",
    "sandbox": "The sandbox: what a bot can see of the machine",
    "retention": "Retention: what the arena keeps and for how long",
}
EXAMPLE_ACTIONS_SHOWN = 8


@functools.lru_cache(maxsize=1)
def _markdown():
    from markdown_it import MarkdownIt
    from markdown_it.common.utils import escapeHtml

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])

    # markdown-it-py binds a render rule to the renderer, so it is called with the renderer first.
    def link_open(renderer, tokens, idx, options, env):
        token = tokens[idx]
        token.attrSet("href", site_link(token.attrGet("href") or ""))
        return renderer.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)

    # The docs name each other as code (`docs/ladders.md`): on the site such a name is a link to
    # the page that shows that file; any other code stays code.
    def code_inline(renderer, tokens, idx, options, env):
        content = tokens[idx].content
        html = f"<code{renderer.renderAttrs(tokens[idx])}>{escapeHtml(content)}</code>"
        href = site_link(content)
        if href == content:
            return html
        return f'<a href="{escapeHtml(href)}">{html}</a>'

    md.add_render_rule("code_inline", code_inline)
    return md


_DOC_LINK = re.compile(r"^(?:\.{0,2}/)*(?:docs/)?(?P<path>(?:rules/)?[A-Za-z0-9_-]+)\.md(?P<anchor>#[^\s]*)?$")


def site_link(href: str) -> str:
    """A link of a docs file, pointed at the page that shows its target on the site: other
    published docs and the rules files get their pages; everything else is left as it is."""
    match = _DOC_LINK.match(href)
    if not match:
        return href
    path, anchor = match.group("path"), match.group("anchor") or ""
    if path.startswith("rules/"):
        return f"/games/{path.removeprefix('rules/')}/#rules"
    if path in PUBLISHED_DOCS:
        return f"/docs/{path}/{anchor}"
    return href


def render_markdown(text: str) -> SafeString:
    """Markdown as HTML, with any HTML in ``text`` escaped (safe to show whoever wrote it)."""
    return mark_safe(_markdown().render(text))  # noqa: S308 - markdown-it escapes raw HTML (html=False)


_SOURCE_PARAGRAPH = re.compile(r"^Source:.*?(?:\n\s*\n|\Z)", re.MULTILINE | re.DOTALL)
_DESIGN_NOTE = re.compile(r"\s*\((?:DESIGN|see DESIGN)[^()]*\)")


def rules_for_site(text: str) -> str:
    """A rules file as players read it: without the paragraph naming the source rulebook files
    of the design folder, nor the parenthesised notes pointing into the design document."""
    text = _SOURCE_PARAGRAPH.sub("", text, count=1)
    return _DESIGN_NOTE.sub("", text)


def doc_text(name: str) -> str | None:
    """The text of a published ``docs/<name>.md``; None for any other name."""
    if name not in PUBLISHED_DOCS:
        return None
    return (Path(settings.BASE_DIR) / "docs" / f"{name}.md").read_text(encoding="utf-8")


def _decision_kind(actions: list) -> str:
    kinds = sorted({str(a.get("type", "?")) if isinstance(a, dict) else "?" for a in actions})
    return " / ".join(kinds)


@functools.lru_cache(maxsize=16)
def interface_examples(game_id: str, seed: int = 1) -> tuple[dict, ...]:
    """What a bot is sent at each kind of decision of ``game_id`` (by the action types offered),
    taken from one seeded game of random moves played by the engine: the first observation and
    legal actions of each kind, as pretty JSON. Computed once per game and process."""
    from engines import get_game

    game = get_game(game_id)
    seats = max(2, game.min_players) if game.max_players >= 2 else game.min_players
    state = game.new_state(num_players=seats, seed=seed)
    rng = random.Random(seed)
    examples: dict[str, dict] = {}
    for step in range(5000):
        if state.is_terminal():
            break
        actions = {}
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            kind = _decision_kind(legal)
            if kind not in examples:
                shown = legal[:EXAMPLE_ACTIONS_SHOWN]
                examples[kind] = {
                    "kind": kind, "seat": seat, "step": step, "num_players": seats,
                    "observation": json.dumps(state.observation(seat), indent=2, sort_keys=True),
                    "legal_actions": json.dumps(shown, indent=2),
                    "more_actions": len(legal) - len(shown),
                }
            actions[seat] = rng.choice(legal)
        state.apply(actions)
    return tuple(examples.values())


STARTER_README = """Dive Arena starter kit: {game}

main.py is a complete bot for {game}: upload this zip (or main.py alone) as a new bot on the
site, or edit main.py first. It uses the arena_bot SDK and the read-only engines package, which
the arena's sandbox provides to every bot.

Play it locally against the built-in random bot: in a checkout of the Dive Arena code (after
`make install`), give the path of this zip, or of main.py once you have unpacked and edited it:

    .venv/bin/python -m workers.play {game} path/to/{game}-starter-kit.zip builtin:random

Writing a bot (the SDK, the protocol, limits and faults): /docs/writing-a-bot/ on the site.
The rules, and what your bot is sent at each decision: /games/{game}/ on the site.
"""


LANGUAGE_STARTER_README = """Dive Arena starter kit: {game} in {title}

{entry} is a complete bot for {game}; {sdk} beside it is the SDK (the protocol loop{reader}).
Upload this zip as a new bot on the site (its root holds {entry}: that gives the language), or
edit {entry} first. {build}

Play it locally against the built-in random bot: in a checkout of the Dive Arena code (after
`make install`), give the path of this zip, or of the folder you unpacked it into:

    .venv/bin/python -m workers.play {game} path/to/{game}-{language}-starter-kit.zip builtin:random

Writing a bot (languages, the SDK, the protocol, limits and faults): /docs/writing-a-bot/ on the site.
The rules, and what your bot is sent at each decision: /games/{game}/ on the site.
"""


def starter_kit_languages(game_id: str) -> list[tuple[str, str]]:
    """(language, title) of every other language than Python with a kit of this game."""
    kits = Path(settings.BASE_DIR) / "starter_kits"
    return [(language, TITLES[language]) for language, entry in ENTRY_FILES.items()
            if language != "python" and (kits / language / game_id / entry).is_file()]


def starter_kit_zip(game_id: str, language: str = "python") -> bytes | None:
    """The game's starter kit as a zip: ``starter_kits/<game>/`` (Python) or
    ``starter_kits/<language>/<game>/``, the folder's files at its root (the entry file first, ready
    to edit and upload) and a README.txt saying how; None when the game has no kit in it."""
    if language not in ENTRY_FILES or not re.fullmatch(r"[a-z0-9_]+", game_id):
        return None
    kits = Path(settings.BASE_DIR) / "starter_kits"
    folder = kits / game_id if language == "python" else kits / language / game_id
    entry = ENTRY_FILES[language]
    if not (folder / entry).is_file():
        return None
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        if language == "python":
            archive.writestr("README.txt", STARTER_README.format(game=game_id))
        else:
            sdk = next(p.name for p in sorted(folder.iterdir()) if p.is_file() and p.name != entry)
            archive.writestr("README.txt", LANGUAGE_STARTER_README.format(
                game=game_id, title=TITLES[language], entry=entry, sdk=sdk, language=language,
                reader=" and a small JSON reader" if language in ("cpp", "rust", "java") else "",
                build="The arena builds it once per version, in its sandbox, before its smoke test; "
                      "the build's messages are on your bot's page." if language in BUILDS else ""))
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and not path.name.endswith(".pyc"):
                archive.write(path, path.relative_to(folder).as_posix())
    return buffer.getvalue()
