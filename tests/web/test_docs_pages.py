"""Docs on the site: rules as HTML (Markdown in safe mode, no design references), what a bot is
sent at each decision, downloadable starter kits, docs/writing-a-bot.md, linked from the upload form."""

from __future__ import annotations

import html
import io
import json
import re
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from django.test import Client

from arena.bots.uploads import upload_check
from arena.web.docs import PUBLISHED_DOCS, interface_examples, render_markdown, rules_for_site, site_link
from engines import get_game, list_games

GAMES = [g.id for g in list_games()]


@pytest.mark.parametrize("game", GAMES)
def test_each_game_page_renders_its_rules_as_html_without_the_design_references(db, game):
    page = Client().get(f"/games/{game}/").content.decode()
    rules = page[page.index('<article class="rules markdown">'):]
    assert "<h1>" in rules and "<h2>" in rules and f"<code>{game}</code>" in rules
    for internal in ("shared/seeds", "DESIGN", "Source:"):
        assert internal not in rules
    assert "<table>" in rules or "<ul>" in rules


@pytest.mark.parametrize("game", GAMES)
def test_each_game_page_shows_its_default_options_as_the_json_that_options_take(db, game):
    page = Client().get(f"/games/{game}/").content.decode()
    [shown] = re.findall(r"<th>Default options</th><td><code>(.*?)</code>", page)
    assert json.loads(html.unescape(shown)) == get_game(game).default_options   # what --options and the API take


def test_markdown_is_rendered_in_safe_mode():
    html = render_markdown('# Title\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) <b onclick="x">b</b>')
    assert "<h1>Title</h1>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html and "<b onclick" not in html


def test_rules_for_site_drops_the_source_paragraph_and_design_notes():
    text = "# Game\n\nSource: the rulebook in `shared/seeds/x.txt`. Gaps in section 7.\n\n## 1\n\nShown (DESIGN: secret).\n"
    assert rules_for_site(text) == "# Game\n\n## 1\n\nShown.\n"


def test_links_between_docs_point_at_the_sites_pages():
    assert site_link("replay-format.md") == "/docs/replay-format/"
    assert site_link("docs/api.md#uploading-a-bot") == "/docs/api/#uploading-a-bot"
    assert site_link("rules/dive.md") == "/games/dive/#rules"
    assert site_link("https://example.org/") == "https://example.org/"


@pytest.mark.parametrize("game", GAMES)
def test_each_game_page_shows_what_a_bot_is_sent_at_each_kind_of_decision(db, game):
    examples = interface_examples(game)
    assert examples
    page = Client().get(f"/games/{game}/").content.decode()
    assert "What your bot is sent" in page and '{"index": i}' in page
    for example in examples:
        observation = json.loads(example["observation"])
        assert isinstance(observation, dict) and observation
        actions = json.loads(example["legal_actions"])
        assert actions and all("type" in a for a in actions)
        assert example["kind"] in page


@pytest.mark.parametrize("game", GAMES)
def test_each_starter_kit_downloads_as_a_zip_that_the_upload_accepts(db, game):
    response = Client().get(f"/games/{game}/starter-kit.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert f'filename="{game}-starter-kit.zip"' in response["Content-Disposition"]
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert {"main.py", "README.txt"} <= set(archive.namelist())
    assert upload_check(filename=f"{game}-starter-kit.zip", data=response.content).kind == "zip"
    assert f"/games/{game}/starter-kit.zip" in Client().get(f"/games/{game}/").content.decode()


def test_the_starter_kits_readme_command_plays_the_downloaded_kit_as_written(db, tmp_path):
    """A bot author downloads the kit and runs the README's command from a checkout of the code."""
    game = "divee"
    kit = Client().get(f"/games/{game}/starter-kit.zip").content
    readme = zipfile.ZipFile(io.BytesIO(kit)).read("README.txt").decode()
    [line] = [line.strip() for line in readme.splitlines() if "workers.play" in line]
    words = shlex.split(line)
    assert words[0].endswith("python") and words[1:3] == ["-m", "workers.play"]
    downloaded = tmp_path / f"{game}-starter-kit.zip"
    downloaded.write_bytes(kit)
    # The README names the file as the browser saved it: the one placeholder is the folder.
    words = [str(downloaded) if word.endswith(f"/{game}-starter-kit.zip") else word for word in words]
    root = Path(__file__).resolve().parents[2]
    played = subprocess.run([sys.executable, *words[1:]], cwd=root, capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert "no faults" in played.stdout


def test_an_unknown_game_has_no_starter_kit(db):
    assert Client().get("/games/chess/starter-kit.zip").status_code == 404


def test_writing_a_bot_is_on_the_site(db):
    response = Client().get("/docs/writing-a-bot/")
    page = response.content.decode()
    assert response.status_code == 200 and "<h1>Writing a bot</h1>" in page and "<h2>" in page
    # What a bot can see of the machine is told in full on the sandbox's page, which it links.
    assert '<a href="/docs/sandbox/"><code>docs/sandbox.md</code></a>' in page
    assert Client().get("/docs/deploy/").status_code == 404  # operators' notes stay in the repo
    assert Client().get("/docs/nothing/").status_code == 404


def test_a_link_in_a_doc_is_rendered_pointing_at_the_sites_page():
    html = render_markdown("See [the API](api.md) and [Dive](rules/dive.md).")
    assert '<a href="/docs/api/">the API</a>' in html and '<a href="/games/dive/#rules">Dive</a>' in html


def test_a_doc_named_as_code_is_a_link_to_its_page_and_other_code_stays_code():
    html = render_markdown("Read `docs/ladders.md`, `docs/ratings.md#intervals`, `rules/dive.md`, "
                           "`docs/deploy.md` and `<b>x</b>`.")
    assert '<a href="/docs/ladders/"><code>docs/ladders.md</code></a>' in html
    assert '<a href="/docs/ratings/#intervals"><code>docs/ratings.md#intervals</code></a>' in html
    assert '<a href="/games/dive/#rules"><code>rules/dive.md</code></a>' in html
    # Not published on the site (an operator's note), and code that is not a doc's name: plain code.
    assert "<code>docs/deploy.md</code>" in html and 'href="docs/deploy.md"' not in html
    assert "<code>&lt;b&gt;x&lt;/b&gt;</code>" in html and "<b>" not in html


@pytest.mark.parametrize("name", sorted(PUBLISHED_DOCS))
def test_every_published_doc_is_a_page(db, name):
    response = Client().get(f"/docs/{name}/")
    assert response.status_code == 200 and "<h1>" in response.content.decode()


def test_how_ratings_work_is_on_the_site_and_every_ladder_page_links_it(db, ladder):
    response = Client().get("/docs/ratings/")
    assert response.status_code == 200 and "<h1>How ratings work</h1>" in response.content.decode()
    assert 'href="/docs/ratings/"' in Client().get(f"/ladders/{ladder.slug}/").content.decode()


def test_the_upload_form_links_the_docs_and_every_starter_kit(owner):
    client = Client()
    client.force_login(owner)
    page = client.get("/bots/new/").content.decode()
    assert 'href="/docs/writing-a-bot/"' in page
    for game in GAMES:
        assert f'href="/games/{game}/starter-kit.zip"' in page
    assert 'value="dive" selected' in client.get("/bots/new/?game=dive").content.decode()


def test_every_example_observation_is_the_engines_own(db):
    game = get_game(GAMES[0])
    example = interface_examples(game.id)[0]
    state = game.new_state(num_players=example["num_players"], seed=1)
    assert json.loads(example["observation"]) == json.loads(json.dumps(state.observation(example["seat"])))
