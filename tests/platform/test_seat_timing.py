"""A seat's timing is stored as typed columns and comes back exactly as the runner reported it;
timings the columns cannot give back are kept as documents."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import pytest

from arena.ladders.services import ladder_create, ladder_enter
from arena.matches.models import MatchSeat
from arena.matches.seating import seat_spec
from arena.matches.services import match_create
from arena.matches.timing import KEYS, TIMING_FIELDS, timing_columns, timing_from_columns
from arena.runs.recording import match_record_outcome
from arena.runs.smoke import bot_builtin_ensure
from tests.factories import clean_outcome

# What the runner reports for a sandboxed bot charged CPU time (workers/match/clock.py, timing_row).
SANDBOXED = {"seat": 1, "decisions": 18, "mean_ms": 17.879, "p50_ms": 16.091, "p95_ms": 39.334, "max_ms": 62.577,
             "bank_used_ms": 160.3, "start_ms": 26.2, "clock": "cpu", "cpu_mean_ms": 14.303, "cpu_p95_ms": 31.467,
             "cpu_max_ms": 50.061, "cpu_total_ms": 257.454, "sandbox_cpu_ms": 287.454}
# A built-in bot: no sandbox, no CPU clock.
BUILTIN = {"seat": 0, "decisions": 40, "mean_ms": 0.021, "p50_ms": 0.019, "p95_ms": 0.04, "max_ms": 0.113,
           "bank_used_ms": 0.0, "start_ms": None, "clock": "wall", "cpu_mean_ms": None, "cpu_p95_ms": None,
           "cpu_max_ms": None, "cpu_total_ms": None, "sandbox_cpu_ms": None}


def _round_trip(timing, seat):
    columns = timing_columns(timing, seat=seat)
    return columns, timing_from_columns(columns, seat=seat)


@pytest.mark.parametrize("timing", [SANDBOXED, BUILTIN], ids=["sandboxed", "builtin"])
def test_the_runners_timing_fits_the_columns_and_comes_back_key_for_key(timing):
    columns, back = _round_trip(timing, timing["seat"])
    assert columns["timing_document"] is None
    assert back == timing and list(back) == list(timing)
    assert json.dumps(back) == json.dumps(timing)


def test_every_time_to_the_microsecond_comes_back_exactly():
    rng = random.Random(12)
    for _ in range(20_000):
        value = round(rng.uniform(0, 2_000_000), rng.choice([0, 1, 2, 3]))
        timing = {"seat": 2, "mean_ms": float(value), "cpu_total_ms": round(rng.uniform(0, 1e-3), 3)}
        columns, back = _round_trip(timing, 2)
        assert columns["timing_document"] is None and repr(back) == repr(timing)


def test_a_subset_of_the_keys_comes_back_without_the_others():
    timing = {"seat": 0, "decisions": 3, "mean_ms": 1.0, "p95_ms": 2.0, "max_ms": 2.0, "bank_used_ms": 0.0}
    columns, back = _round_trip(timing, 0)
    assert columns["timing_document"] is None and back == timing and list(back) == list(timing)


@pytest.mark.parametrize("timing", [
    {**SANDBOXED, "gpu_ms": 1.0},                 # a key the arena does not know
    {**SANDBOXED, "mean_ms": 17.8795},            # finer than a microsecond
    {**SANDBOXED, "mean_ms": 17},                 # an int where the runner writes a float
    {**SANDBOXED, "cpu_total_ms": 3_000_000.0},   # beyond int4 microseconds (50 minutes)
    {**SANDBOXED, "clock": "gpu"},
    {**SANDBOXED, "seat": 0},                     # not this seat's
    {**SANDBOXED, "decisions": 18.0},
    {**SANDBOXED, "max_ms": -0.0},
    {**SANDBOXED, "p50_ms": float("nan")},
], ids=["unknown-key", "sub-microsecond", "int", "too-big", "clock", "other-seat", "float-count", "minus-zero",
        "nan"])
def test_a_timing_the_columns_cannot_give_back_is_kept_as_it_came(timing):
    columns, back = _round_trip(timing, 1)
    assert columns["timing_document"] == timing
    assert all(columns[field] is None for field in TIMING_FIELDS[1:])
    assert back is timing


def test_no_timing_is_none():
    columns, back = _round_trip(None, 0)
    assert set(columns.values()) == {None} and back is None


def test_the_keys_stay_in_the_order_the_runner_writes_them():
    assert list(SANDBOXED) == list(KEYS)


@pytest.fixture
def duel(db, owner, staff, game_id, make_bot):
    ladder = ladder_create(slug="timing", name="Timing", game=game_id, seat_count=2)
    uploaded = make_bot("uploaded", game_id)
    builtin = bot_builtin_ensure(owner=staff, game=game_id, builtin="random")
    for bot in (uploaded, builtin):
        ladder_enter(ladder=ladder, bot=bot)
    return match_create(game=game_id, versions=[builtin.active_version, uploaded.active_version], ladder=ladder,
                        seed=3)


def test_a_played_match_gives_back_each_seats_timing_as_the_runner_reported_it(duel, client):
    from workers.runner import run_match

    seats = list(duel.seats.select_related("bot_version__bot").order_by("seat"))
    with tempfile.TemporaryDirectory() as folder:
        specs = [seat_spec(seat.bot_version, Path(folder)) for seat in seats]
        outcome = run_match(duel.game, specs, duel.seed).to_dict()
    assert match_record_outcome(match_id=duel.pk, outcome=outcome)
    stored = list(MatchSeat.objects.filter(match=duel).order_by("seat"))
    assert [s.timing for s in stored] == outcome["timing"]
    assert [list(s.timing) for s in stored] == [list(t) for t in outcome["timing"]]
    assert all(s.timing_document is None for s in stored)  # typed columns, no document
    assert stored[1].timing["clock"] in ("cpu", "wall") and stored[1].timing["decisions"] > 0
    api = client.get(f"/api/matches/{duel.pk}/").json()
    assert [seat["timing"] for seat in api["seats"]] == outcome["timing"]
    listed = client.get("/api/matches/").json()["results"][0]
    assert [seat["timing"] for seat in listed["seats"]] == outcome["timing"]


def test_a_timing_kept_as_a_document_is_served_as_it_came(duel, client):
    odd = {**SANDBOXED, "seat": 0, "mean_ms": 17.8795}
    outcome = clean_outcome(duel.game, 2)
    outcome["timing"] = [odd, SANDBOXED]
    match_record_outcome(match_id=duel.pk, outcome=outcome)
    first, second = MatchSeat.objects.filter(match=duel).order_by("seat")
    assert first.timing_document == odd and first.timing == odd
    assert second.timing_document is None and second.timing == SANDBOXED
    api = client.get(f"/api/matches/{duel.pk}/").json()
    assert [seat["timing"] for seat in api["seats"]] == [odd, SANDBOXED]
