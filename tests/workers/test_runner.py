"""The match runner: seats, faults and fallback, ranks, timing and time bank, determinism."""

from __future__ import annotations

import json
import time

import pytest

from engines import list_games
from tests.workers.conftest import TEST_LIMITS, leftovers, write_bot
from workers.runner import (
    DEFAULT_LIMITS,
    FAULT_KINDS,
    Limits,
    SeatSpec,
    default_limits,
    ranks_with_faults,
    run_match,
    seat_seed,
)

GAME = "deep_sea_adventure"

SEED_REPORTER = """
import sys, arena_bot
def setup(start):
    print("START " + __import__("json").dumps(start), file=sys.stderr, flush=True)
def choose(observation, legal, rng):
    print("TIME_LEFT", arena_bot.bot.time_left_ms, file=sys.stderr, flush=True)
    return rng.choice(legal)
arena_bot.run(choose, setup)
"""


def played_steps(outcome) -> list[dict]:
    """The steps of the outcome's (compact) replay in full form: actions, who played, times."""
    from workers.replay import expand

    return expand(outcome.replay)["steps"]


def test_faulted_seats_rank_below_every_seat_that_did_not_fault():
    assert ranks_with_faults([1, 2, 3, 4], {0}) == [4, 1, 2, 3]
    assert ranks_with_faults([1, 1, 3], {1}) == [1, 3, 2]
    assert ranks_with_faults([2, 1, 3], {0, 1}) == [3, 2, 1]


def test_every_registered_game_has_its_default_limits_in_the_table():
    for game in list_games():
        assert game.id in DEFAULT_LIMITS
        limits = default_limits(game.id)
        assert limits.move_ms > 0 and limits.bank_ms >= 0 and limits.init_ms > 0 and limits.memory_mb > 0


def test_a_crashing_bot_is_played_to_the_end_by_the_fallback(tmp_path):
    bot = write_bot(tmp_path, "crasher", """
        import arena_bot
        moves = []
        def choose(observation, legal, rng):
            moves.append(1)
            if len(moves) == 2:
                raise RuntimeError("boom at my second move")
            return 0
        arena_bot.run(choose)
    """)
    outcome = run_match(GAME, [SeatSpec(bot), SeatSpec("builtin:random"), SeatSpec("builtin:heuristic")],
                        seed=21, limits=TEST_LIMITS)
    [fault] = outcome.faults
    assert fault.seat == 0 and fault.kind == "crash"
    assert "RuntimeError: boom at my second move" in fault.message   # last stderr lines
    assert outcome.ranks[0] == 3
    seat0 = [(step["step"], step["by"][step["to_act"].index(0)])
             for step in played_steps(outcome) if 0 in step["to_act"]]
    assert [by for _, by in seat0][:1] == ["bot"]
    assert all(by == "fallback" for number, by in seat0 if number >= fault.step)
    assert outcome.timing[0]["decisions"] == 1
    assert leftovers(outcome) == {}


def test_a_bot_that_fails_to_start_is_faulted_at_step_zero(tmp_path):
    bot = write_bot(tmp_path, "broken", "import no_such_module\n")
    outcome = run_match(GAME, [SeatSpec(bot), SeatSpec("builtin:random")], seed=1, limits=TEST_LIMITS)
    [fault] = outcome.faults
    assert (fault.kind, fault.step) == ("crash", 0)
    assert "No module named 'no_such_module'" in fault.message


def test_each_bot_gets_a_per_seat_seed_derived_from_the_match_seed_and_the_limits(tmp_path):
    bot = write_bot(tmp_path, "reporter", SEED_REPORTER)
    outcome = run_match(GAME, [SeatSpec(bot), SeatSpec(bot)], seed=77, limits=TEST_LIMITS)
    starts = [json.loads(next(l for l in log.splitlines() if l.startswith("START "))[6:])
              for log in outcome.logs]
    assert [start["seed"] for start in starts] == [seat_seed(77, 0), seat_seed(77, 1)]
    assert seat_seed(77, 0) != seat_seed(77, 1) != seat_seed(78, 1)
    assert starts[1]["seat"] == 1 and starts[1]["num_players"] == 2 and starts[1]["game"] == GAME
    assert starts[0]["limits"] == TEST_LIMITS.for_bot()


def test_the_same_seed_and_bots_replay_the_same_match(tmp_path):
    bot = write_bot(tmp_path, "reporter", SEED_REPORTER)
    seats = [SeatSpec(bot), SeatSpec("builtin:random"), SeatSpec(bot)]
    first = run_match(GAME, seats, seed=5, limits=TEST_LIMITS)
    second = run_match(GAME, seats, seed=5, limits=TEST_LIMITS)
    assert [s["actions"] for s in played_steps(first)] == [s["actions"] for s in played_steps(second)]
    assert first.scores == second.scores and first.ranks == second.ranks


BURN = """
import time
def burn(seconds):
    end = time.process_time() + seconds     # CPU time: what a decision is charged
    while time.process_time() < end:
        pass
"""


def test_cpu_time_beyond_the_move_limit_comes_out_of_the_bank_without_a_fault(tmp_path):
    over_ms = 150
    bot = write_bot(tmp_path, "slowpoke", BURN + f"""
import sys, arena_bot
moves = []
def choose(observation, legal, rng):
    moves.append(arena_bot.bot.time_left_ms)
    print("TIME_LEFT", arena_bot.bot.time_left_ms, file=sys.stderr, flush=True)
    if len(moves) == 1:
        burn({(TEST_LIMITS.move_ms + over_ms) / 1000})     # over the move limit
    return 0
arena_bot.run(choose)
""")
    outcome = run_match(GAME, [SeatSpec(bot), SeatSpec("builtin:random")], seed=3, limits=TEST_LIMITS)
    assert outcome.faults == []
    timing = outcome.timing[0]
    assert timing["clock"] == "cpu"
    assert over_ms <= timing["bank_used_ms"] < TEST_LIMITS.bank_ms
    assert timing["cpu_max_ms"] >= TEST_LIMITS.move_ms + over_ms
    assert timing["max_ms"] >= timing["cpu_max_ms"] * 0.95      # one thread: wall time is at least its CPU
    time_left = [float(l.split()[1]) for l in outcome.logs[0].splitlines() if l.startswith("TIME_LEFT")]
    assert time_left[0] == TEST_LIMITS.move_ms + TEST_LIMITS.bank_ms
    assert time_left[1] == pytest.approx(time_left[0] - timing["bank_used_ms"], abs=0.2)


def test_a_bot_that_exhausts_its_bank_times_out(tmp_path):
    # Each move takes 5/8 of the bank beyond the move limit: the bank lasts exactly one move.
    # Small limits: the CPU time burnt must fit the wall-clock backstop on a loaded machine too.
    limits = Limits(**{**TEST_LIMITS.__dict__, "move_ms": 100, "bank_ms": 240})
    per_move_ms = limits.move_ms + limits.bank_ms * 5 / 8
    bot = write_bot(tmp_path, "sloth", BURN + f"""
import arena_bot
def choose(observation, legal, rng):
    burn({per_move_ms / 1000})
    return 0
arena_bot.run(choose)
""")
    outcome = run_match(GAME, [SeatSpec(bot), SeatSpec("builtin:random")], seed=3, limits=limits)
    [fault] = outcome.faults
    assert fault.kind == "timeout" and outcome.timing[0]["decisions"] == 1, fault
    assert "ms of CPU time" in fault.message and f"time bank of {limits.bank_ms} ms" in fault.message


def test_a_bot_that_waits_instead_of_thinking_meets_the_wall_clock_backstop(tmp_path):
    from workers.runner import wall_backstop_ms

    limits = Limits(**{**TEST_LIMITS.__dict__, "move_ms": 100, "bank_ms": 200})
    time_left = limits.move_ms + limits.bank_ms
    bot = write_bot(tmp_path, "sleeper", f"""
        import time, arena_bot
        def choose(observation, legal, rng):
            time.sleep({wall_backstop_ms(time_left) / 1000 + 0.5})    # costs no CPU time at all
            return 0
        arena_bot.run(choose)
    """)
    began = time.monotonic()
    outcome = run_match(GAME, [SeatSpec(bot), SeatSpec("builtin:random")], seed=3, limits=limits)
    if outcome.timing[0]["clock"] != "cpu":
        pytest.skip("no CPU clock for the sandbox here (cgroups need root): wall time is charged")
    [fault] = outcome.faults
    assert fault.kind == "timeout" and "wall-clock backstop" in fault.message, fault.message
    assert time.monotonic() - began >= wall_backstop_ms(time_left) / 1000


def test_sleeping_within_the_wall_clock_backstop_costs_a_bot_nothing(tmp_path):
    limits = Limits(**{**TEST_LIMITS.__dict__, "move_ms": 100, "bank_ms": 200})
    bot = write_bot(tmp_path, "napper", f"""
        import time, arena_bot
        naps = []
        def choose(observation, legal, rng):
            if len(naps) < 2:
                naps.append(time.sleep({(limits.move_ms + limits.bank_ms) / 1000 * 1.2}))
            return 0
        arena_bot.run(choose)
    """)
    outcome = run_match(GAME, [SeatSpec(bot), SeatSpec("builtin:random")], seed=3, limits=limits)
    if outcome.timing[0]["clock"] != "cpu":
        pytest.skip("no CPU clock for the sandbox here (cgroups need root): wall time is charged")
    assert outcome.faults == []
    timing = outcome.timing[0]
    assert timing["max_ms"] > limits.move_ms + limits.bank_ms      # more wall time than it had
    assert timing["bank_used_ms"] < limits.bank_ms                 # charged for its CPU only


def test_a_bot_that_waits_within_the_backstop_at_every_decision_cannot_stretch_the_match_without_end(tmp_path):
    # Each wait is free (no CPU time) and well within its decision's backstop, but a bot asked a
    # hundred times could make a match outlast the task's time limit: the match would then fail, be
    # played again and fail for good, unrated (a Deep Dive seat can get 180 decisions, each with a
    # 6.3 s backstop at the default limits). Its waits come out of a wall-clock allowance per match.
    from workers.runner import WALL_BACKSTOP_FACTOR, WALL_BACKSTOP_MIN_EXTRA_MS, wall_backstop_ms

    limits = Limits(**{**TEST_LIMITS.__dict__, "move_ms": 20, "bank_ms": 100})
    nap_ms = 250
    assert nap_ms < wall_backstop_ms(limits.move_ms) / 4          # far within, even with no bank left
    bot = write_bot(tmp_path, "staller", f"""
        import time, arena_bot
        def choose(observation, legal, rng):
            time.sleep({nap_ms / 1000})
            return 0
        arena_bot.run(choose)
    """)
    outcome = run_match(GAME, [SeatSpec(bot), SeatSpec("builtin:random")], seed=3, limits=limits)
    if outcome.timing[0]["clock"] != "cpu":
        pytest.skip("no CPU clock for the sandbox here (cgroups need root): wall time is charged")
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (0, "timeout") and "wall-clock allowance" in fault.message, fault.message
    allowance_ms = WALL_BACKSTOP_FACTOR * limits.bank_ms + WALL_BACKSTOP_MIN_EXTRA_MS
    decisions = outcome.timing[0]["decisions"]
    # A few waits were let through; more than the allowance covers (each took at least its nap
    # beyond FACTOR x move_ms) were not.
    assert decisions >= 1
    assert decisions * (nap_ms - WALL_BACKSTOP_FACTOR * limits.move_ms) < allowance_ms, decisions
    assert outcome.clean and leftovers(outcome) == {}


def test_a_simultaneous_game_asks_every_seat_at_once_and_plays_to_the_end(random_bot_path):
    simultaneous = [g for g in list_games() if g.info.simultaneous]
    assert simultaneous, "no simultaneous game registered"
    game = simultaneous[0]
    seats = [SeatSpec(random_bot_path)] * max(2, game.min_players)
    outcome = run_match(game.id, seats, seed=8, limits=TEST_LIMITS)
    assert outcome.faults == []
    together = [step for step in played_steps(outcome) if len(step["to_act"]) > 1]
    assert together and all(by == "bot" for step in together for by in step["by"])
    assert all(len([ms for ms in step["ms"] if ms is not None]) == len(step["to_act"]) for step in together)


def test_the_log_keeps_only_the_last_part_of_a_chatty_bots_stderr(tmp_path):
    bot = write_bot(tmp_path, "chatty", """
        import sys, arena_bot
        for n in range(20000):
            print("chatter line", n, file=sys.stderr)
        print("LAST LINE", file=sys.stderr, flush=True)
        arena_bot.run(lambda observation, legal, rng: 0)
    """)
    limits = Limits(**{**TEST_LIMITS.__dict__, "log_bytes": 4096})
    outcome = run_match(GAME, [SeatSpec(bot), SeatSpec("builtin:random")], seed=3, limits=limits)
    assert outcome.faults == []
    log = outcome.logs[0]
    assert "LAST LINE" in log and "chatter line 0\n" not in log
    assert len(log.split("\n", 1)[1]) <= 4096 and "earlier bytes of log dropped" in log


def test_the_outcome_holds_the_documented_fields(tmp_path):
    bot = write_bot(tmp_path, "bad", 'import arena_bot\narena_bot.run(lambda o, l, r: {"nope": 1})\n')
    data = json.loads(json.dumps(run_match(GAME, [SeatSpec(bot), SeatSpec("builtin:heuristic")], seed=9,
                                           limits=TEST_LIMITS).to_dict()))
    assert {"game", "seed", "options", "scores", "ranks", "faults", "timing", "logs", "replay"} <= set(data)
    assert data["faults"][0].keys() == {"seat", "kind", "step", "message"}
    assert data["faults"][0]["kind"] in FAULT_KINDS
    assert {"seat", "decisions", "mean_ms", "p50_ms", "p95_ms", "max_ms", "bank_used_ms"} <= set(data["timing"][0])
    assert len(data["logs"]) == 2 and data["ranks"] == [2, 1]


def test_it_refuses_an_unknown_builtin_bot_or_a_missing_bot_file_before_playing(tmp_path):
    with pytest.raises(ValueError, match="no built-in bot 'genius'"):
        run_match(GAME, [SeatSpec("builtin:genius"), SeatSpec("builtin:random")], seed=1)
    with pytest.raises(ValueError, match="not found"):
        run_match(GAME, [SeatSpec(str(tmp_path / "missing.py")), SeatSpec("builtin:random")], seed=1)


def test_a_zip_bot_and_a_folder_bot_play_like_a_file(tmp_path):
    import zipfile
    folder = tmp_path / "folder_bot"
    folder.mkdir()
    (folder / "main.py").write_text("from strategy import choose\nimport arena_bot\narena_bot.run(choose)\n")
    (folder / "strategy.py").write_text("def choose(observation, legal, rng):\n    return rng.choice(legal)\n")
    archive = tmp_path / "zip_bot.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name in ("main.py", "strategy.py"):
            zf.write(folder / name, name)
    outcome = run_match(GAME, [SeatSpec(str(folder)), SeatSpec(str(archive)), SeatSpec("builtin:random")],
                        seed=4, limits=TEST_LIMITS)
    assert outcome.faults == []
    assert outcome.timing[0]["decisions"] > 0 and outcome.timing[1]["decisions"] > 0


def test_a_bot_whose_archive_cannot_run_is_faulted_and_the_match_still_completes(tmp_path):
    import zipfile
    archive = tmp_path / "no_main.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("bot.py", "print('hello')\n")
    outcome = run_match(GAME, [SeatSpec(str(archive)), SeatSpec("builtin:random")], seed=6, limits=TEST_LIMITS)
    [fault] = outcome.faults
    assert (fault.seat, fault.kind, fault.step) == (0, "crash", 0)
    assert "no main.py" in fault.message
    assert outcome.ranks == [2, 1]
    assert all(step["by"][step["to_act"].index(0)] == "fallback"
               for step in played_steps(outcome) if 0 in step["to_act"])


def test_the_runner_replays_and_cli_import_no_django():
    import subprocess
    import sys
    from pathlib import Path
    code = ("import sys, workers.sandbox, workers.protocol, workers.runner, workers.replay, workers.play; "
            "sys.exit(any(name == 'django' or name.startswith('django.') for name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0


def test_a_bot_over_its_cpu_time_limit_is_faulted_as_a_timeout(tmp_path):
    spinner = write_bot(tmp_path, "spinner", """
        import arena_bot
        def choose(observation, legal, rng):
            while True:
                pass
        arena_bot.run(choose)
    """)
    # A bank far beyond the CPU limit: only the CPU limit can stop this bot.
    limits = Limits(**{**TEST_LIMITS.__dict__, "cpu_s": 1, "bank_ms": 60_000})
    outcome = run_match(GAME, [SeatSpec(spinner), SeatSpec("builtin:random")], seed=3, limits=limits)
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (0, "timeout"), fault
    assert "CPU time limit of 1 s" in fault.message
    assert outcome.ranks == [2, 1] and leftovers(outcome) == {}


def test_the_fallback_of_a_faulted_seat_plays_random_seeded_from_the_match_seed(tmp_path):
    from engines import get_game
    from engines.bots import random_bot
    from workers.runner import fallback_rng

    bot = write_bot(tmp_path, "quitter", """
        import arena_bot
        moves = []
        def choose(observation, legal, rng):
            moves.append(1)
            if len(moves) == 2:
                raise SystemExit("done after one move")
            return 0
        arena_bot.run(choose)
    """)
    seats = [SeatSpec(bot), SeatSpec("builtin:heuristic"), SeatSpec("builtin:heuristic")]
    first = run_match(GAME, seats, seed=40, limits=TEST_LIMITS)
    second = run_match(GAME, seats, seed=40, limits=TEST_LIMITS)
    assert [(f.seat, f.kind) for f in first.faults] == [(0, "crash")]
    assert [s["actions"] for s in played_steps(first)] == [s["actions"] for s in played_steps(second)]
    # Re-played: every fallback move is the random bot's, drawing from the seat's match-seeded RNG.
    state = get_game(GAME).new_state(num_players=3, seed=40)
    rng = fallback_rng(40, 0)
    fallback_moves = 0
    for step in played_steps(first):
        if 0 in step["to_act"] and step["by"][step["to_act"].index(0)] == "fallback":
            expected = random_bot(state.observation(0), state.legal_actions(0), rng)
            assert step["actions"][step["to_act"].index(0)] == expected, step["step"]
            fallback_moves += 1
        state.apply(dict(zip(step["to_act"], step["actions"])))
    assert fallback_moves >= 2


def test_a_sandboxed_bots_clock_does_not_run_while_a_built_in_bot_thinks(monkeypatch, random_bot_path):
    import time as clock

    from engines import get_game
    from engines.bots import random_bot

    game = next(g for g in list_games() if g.info.simultaneous)
    thinking_s = 0.3

    def slow_bot(observation, legal, rng):
        clock.sleep(thinking_s)
        return random_bot(observation, legal, rng)

    monkeypatch.setitem(get_game(game.id).bots, "slow", slow_bot)
    seats = [SeatSpec(random_bot_path), SeatSpec("builtin:slow")] + [SeatSpec("builtin:random")] * (
        max(2, game.min_players) - 2)
    outcome = run_match(game.id, seats, seed=2, limits=TEST_LIMITS)
    assert outcome.faults == []
    together = [step for step in played_steps(outcome) if {0, 1} <= set(step["to_act"])]
    assert together
    for step in together:
        mine, builtin = step["ms"][step["to_act"].index(0)], step["ms"][step["to_act"].index(1)]
        assert builtin >= thinking_s * 1000 and mine < builtin, step["step"]


@pytest.mark.parametrize("trouble", ["name_clash", "name_too_long", "corrupt_member"])
def test_an_archive_that_cannot_be_unpacked_is_the_bots_fault_not_the_matchs(tmp_path, trouble):
    import zipfile
    archive = tmp_path / f"{trouble}.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("main.py", "import arena_bot\narena_bot.run(lambda o, l, r: 0)\n")
        if trouble == "name_clash":
            zf.writestr("helper", "a file")
            zf.writestr("helper/x.py", "and a file inside it")
        elif trouble == "name_too_long":
            zf.writestr("a" * 300 + ".py", "")
        else:
            zf.writestr("data.txt", "payload " * 1000)
    if trouble == "corrupt_member":
        data = bytearray(archive.read_bytes())
        start = data.index(b"data.txt") + len(b"data.txt") + 10    # inside the compressed payload
        data[start:start + 20] = b"\x00" * 20
        archive.write_bytes(bytes(data))
    outcome = run_match(GAME, [SeatSpec(str(archive)), SeatSpec("builtin:random")], seed=6, limits=TEST_LIMITS)
    [fault] = outcome.faults
    assert (fault.seat, fault.kind, fault.step) == (0, "crash", 0)
    assert "cannot unpack" in fault.message
    assert outcome.ranks == [2, 1]


def test_a_reply_already_waiting_when_the_runner_looks_late_is_not_a_timeout(monkeypatch, random_bot_path):
    from workers.match.loop import Match

    limits = Limits(**{**TEST_LIMITS.__dict__, "move_ms": 200, "bank_ms": 0})
    original = Match._ask_sandbox
    lagged = []

    def ask_then_lag(self, seat, observation, legal_actions, *serialized):
        asked = original(self, seat, observation, legal_actions, *serialized)
        if not lagged:
            # The runner is held up (a loaded machine) past the deadline, while the bot answers at once.
            lagged.append(True)
            time.sleep((limits.move_ms + 150) / 1000)
        return asked

    monkeypatch.setattr(Match, "_ask_sandbox", ask_then_lag)
    outcome = run_match(GAME, [SeatSpec(random_bot_path), SeatSpec("builtin:random")], seed=3, limits=limits)
    assert lagged and outcome.faults == []
    assert outcome.timing[0]["decisions"] > 1


def test_a_seat_seed_only_comes_from_the_match_seed_through_a_slow_key_derivation():
    # A bot knows its seat seed and may run native code: if a cheap hash of the match seed gave
    # it, the bot could search the (31-bit) match seeds, find the match's and simulate every
    # hidden chip, card and future die with the read-only engines.
    import hashlib

    from workers.runner import SEAT_SEED_ITERATIONS

    assert SEAT_SEED_ITERATIONS >= 10_000
    key = hashlib.pbkdf2_hmac("sha256", b"dive-arena:4242", b"dive-arena seat seeds", SEAT_SEED_ITERATIONS)
    for seat in range(6):
        expected = int.from_bytes(hashlib.sha256(key + f":{seat}".encode()).digest()[:6], "big")
        assert seat_seed(4242, seat) == expected
    cheap = {int.from_bytes(hashlib.sha256(f"dive-arena:{candidate}:0".encode()).digest()[:6], "big")
             for candidate in range(5000)}
    assert seat_seed(4242, 0) not in cheap


def test_a_bot_flooding_its_output_while_another_seat_thinks_cannot_fill_the_runners_memory(
        monkeypatch, tmp_path):
    from workers import protocol

    flooder = write_bot(tmp_path, "flooder", """
        import os, threading, time, arena_bot
        def flood():
            time.sleep(0.05)                    # after its answer has gone out
            while True:
                os.write(1, b"x" * 65536)
        def choose(observation, legal, rng):
            if threading.active_count() == 1:
                threading.Thread(target=flood, daemon=True).start()
            return 0
        arena_bot.run(choose)
    """)
    thinker = write_bot(tmp_path, "thinker", """
        import time, arena_bot
        moves = []
        def choose(observation, legal, rng):
            moves.append(1)
            if len(moves) <= 2:
                time.sleep(0.4)                 # the flooder's output piles up meanwhile
            return 0
        arena_bot.run(choose)
    """)
    largest = [0]
    original_feed = protocol.LineBuffer.feed

    def feed(self, block):
        original_feed(self, block)
        largest[0] = max(largest[0], len(self.data))

    monkeypatch.setattr(protocol.LineBuffer, "feed", feed)
    limits = Limits(**{**TEST_LIMITS.__dict__, "max_line_bytes": 64 * 1024, "bank_ms": 5000})
    outcome = run_match(GAME, [SeatSpec(flooder), SeatSpec(thinker)], seed=3, limits=limits)
    # Frozen while the thinker thinks, the flooder floods when it is next asked: a protocol fault.
    assert [(f.seat, f.kind) for f in outcome.faults] == [(0, "protocol")]
    assert largest[0] <= limits.max_line_bytes + 65536      # one block past the cap, not gigabytes
    assert 1 not in {f.seat for f in outcome.faults} and leftovers(outcome) == {}


# Bounded: each example is one real sandboxed match (~0.1 s).
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.workers.test_protocol import hostile_lines  # noqa: E402
from workers.storable import storable  # noqa: E402

REPLAYER = """
import sys, time, arena_bot
PAYLOAD = {payload!r}
def choose(observation, legal, rng):
    sys.stderr.buffer.write(PAYLOAD + b"\\n")
    sys.stderr.flush()
    sys.stdout.buffer.write(PAYLOAD + b"\\n")
    sys.stdout.flush()
    return 0
arena_bot.run(choose)
"""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(payload=st.one_of(hostile_lines, st.lists(hostile_lines, min_size=2, max_size=4).map(b"\n".join)))
def test_whatever_a_bot_writes_the_match_completes_and_everything_kept_is_storable(tmp_path, payload):
    bot = write_bot(tmp_path, "replayer", REPLAYER.format(payload=payload))
    outcome = run_match(GAME, [SeatSpec(bot), SeatSpec("builtin:random")], seed=8, limits=TEST_LIMITS)
    kinds = {fault.seat: fault.kind for fault in outcome.faults}
    assert set(kinds) <= {0} and kinds.get(0, "protocol") in {"protocol", "illegal"}, outcome.faults
    assert outcome.replay["result"]["ranks"] == outcome.ranks
    assert storable(outcome.to_dict()) == outcome.to_dict()
    assert outcome.clean and leftovers(outcome) == {}


def test_the_step_watcher_is_told_every_step_and_cannot_stop_the_match():
    seen = []

    def watcher(step, state):
        seen.append((step, state.is_terminal()))

    outcome = run_match(GAME, [SeatSpec("builtin:random"), SeatSpec("builtin:heuristic")], seed=5, on_step=watcher)
    steps = len(outcome.replay["steps"]["ms"]) if isinstance(outcome.replay["steps"], dict) else len(outcome.replay["steps"])
    assert [step for step, _ in seen] == list(range(1, steps + 1)) and seen[-1][1] is True

    def broken(step, state):
        raise RuntimeError("a watcher that fails")

    again = run_match(GAME, [SeatSpec("builtin:random"), SeatSpec("builtin:heuristic")], seed=5, on_step=broken)
    assert again.ranks == outcome.ranks and again.scores == outcome.scores and not again.faults
