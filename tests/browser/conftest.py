"""Real headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by playwright.

Fixtures: ``browser`` (one Chromium per test module), ``page`` (a fresh context per test, a
desktop viewport; ``phone_page`` is 390 px wide), ``site`` (the live server's base URL) and
``game_replay`` (each game's standard replay, played once per test process).
When a test fails, a screenshot of its page is saved under ``var/browser-artifacts/`` (git
ignores ``var/``); tests may save their own there with :func:`save_screenshot`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.replay_support import play_replay

CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "var" / "browser-artifacts"
# Without the background-networking flags Chromium keeps trying to reach Google's hosts, which
# this network refuses; --no-sandbox because the tests run as root.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module: the playwright loop never outlives the browser tests."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make install` installs Debian's chromium")
    # playwright's sync API keeps an event loop running in the test's thread, and Django then
    # refuses database calls from that thread (fixtures, factories) as if they came from async
    # code. Only while the browser runs: `check --deploy` rightly refuses the variable.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def save_screenshot(page, name: str) -> Path:
    """Save a full-page screenshot as ``var/browser-artifacts/<name>.png``; returns its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def sign_in(page, site: str, user) -> None:
    """Give the page's browser context the session of ``user`` (logged in by Django's test client)."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": site}])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        for fixture in ("page", "phone_page"):
            page = item.funcargs.get(fixture)
            if page is not None:
                try:
                    save_screenshot(page, f"FAILED-{item.name}-{fixture}")
                except Exception:  # the page may be closed: the failure itself is what matters
                    pass


def _page(browser, **context_args):
    context = browser.new_context(**context_args)
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # tests assert that a page raised no JavaScript error
    console: list[str] = []
    page.on("console", lambda message: message.type == "error" and console.append(message.text))
    page.console_errors = console  # and that nothing it loads fails (a missing script, style or icon)
    return context, page


@pytest.fixture
def page(browser):
    context, page = _page(browser, viewport={"width": 1280, "height": 900})
    yield page
    context.close()


@pytest.fixture
def phone_page(browser):
    context, page = _page(browser, viewport={"width": 390, "height": 844}, device_scale_factor=2,
                          is_mobile=True, has_touch=True)
    yield page
    context.close()


@pytest.fixture(scope="session")
def game_replay(tmp_path_factory):
    """``game_replay(game)``: the path of the replay of ``game``'s standard match (its seats and seed
    in tests/replay_support.py), played by the CLI on first use and shared by every test of this
    process that reads it (a played match is the same match whoever asks: only its files are reused)."""
    folder = tmp_path_factory.mktemp("game-replays")
    played: dict[str, Path] = {}

    def replay(game: str) -> Path:
        if game not in played:
            played[game] = play_replay(game, folder)
        return played[game]

    return replay


@pytest.fixture
def site(live_server) -> str:
    """The base URL of the live Django server (the test database behind it)."""
    return live_server.url
