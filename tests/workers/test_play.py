"""The local match CLI: python -m workers.play GAME BOT [BOT ...] [--seed N] [--options JSON] [--replay FILE] [--json]."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.workers.conftest import CLI_LIMITS, write_bot

ROOT = Path(__file__).resolve().parents[2]
FAST = CLI_LIMITS


def play(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workers.play", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_it_prints_one_json_object_with_the_documented_fields(random_bot_path):
    done = play("deep_sea_adventure", random_bot_path, "builtin:heuristic", "builtin:random", "--seed", "7",
                "--json", *FAST)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["game"] == "deep_sea_adventure" and data["seed"] == 7
    assert len(data["scores"]) == len(data["ranks"]) == len(data["timing"]) == 3
    assert data["faults"] == []
    assert {"seat", "decisions", "mean_ms", "p95_ms", "max_ms", "bank_used_ms"} <= set(data["timing"][0])


def test_it_exits_zero_and_reports_the_fault_when_a_bot_misbehaves(tmp_path):
    bot = write_bot(tmp_path, "liar", 'import arena_bot\narena_bot.run(lambda o, l, r: {"type": "cheat"})\n')
    done = play("deep_sea_adventure", bot, "builtin:random", *FAST)
    assert done.returncode == 0, done.stderr
    assert "FAULT seat 0 at step" in done.stdout and "illegal" in done.stdout
    assert "rank 1  seat 1" in done.stdout


def test_the_summary_ends_with_the_last_lines_each_bot_wrote_to_stderr(tmp_path):
    bot = write_bot(tmp_path, "chatty", """
        import sys, arena_bot
        seen = []
        def choose(observation, legal, rng):
            seen.append(len(legal))
            print(f"decision {len(seen)}", file=sys.stderr, flush=True)
            return 0
        arena_bot.run(choose)
    """)
    done = play("deep_sea_adventure", bot, "builtin:random", "--seed", "3", "--log-lines", "2", *FAST)
    assert done.returncode == 0, done.stderr
    decisions = int(done.stdout.split("seat 0")[1].split("decisions")[0].split()[-1])
    assert f"stderr of seat 0 ({bot}), the last 2 of {decisions} lines:" in done.stdout
    assert done.stdout.rstrip().endswith(f"    | decision {decisions - 1}\n    | decision {decisions}")
    assert "stderr of seat 1" not in done.stdout  # the built-in wrote nothing

    quiet = play("deep_sea_adventure", bot, "builtin:random", "--seed", "3", "--log-lines", "0", *FAST)
    assert quiet.returncode == 0 and "stderr of seat" not in quiet.stdout and "decision 1" not in quiet.stdout
    refused = play("deep_sea_adventure", bot, "builtin:random", "--log-lines", "-1")
    assert refused.returncode == 2 and "cannot be negative" in refused.stderr and not refused.stdout


def test_a_deeply_nested_reply_is_a_protocol_fault_and_the_cli_still_exits_zero(tmp_path):
    bot = write_bot(tmp_path, "nester", """
        import sys, time, arena_bot
        def choose(observation, legal, rng):
            sys.stdout.write('{"action": ' + "[" * 5000 + "]" * 5000 + "}\\n")
            sys.stdout.flush()
            time.sleep(60)
        arena_bot.run(choose)
    """)
    done = play("deep_sea_adventure", bot, "builtin:random", "--json", *FAST)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [(f["seat"], f["kind"]) for f in data["faults"]] == [(0, "protocol")]
    assert "nested deeper" in data["faults"][0]["message"]
    assert {"clock", "cpu_mean_ms", "cpu_p95_ms", "cpu_max_ms", "cpu_total_ms"} <= set(data["timing"][0])


def test_it_writes_a_replay_that_verifies(tmp_path, random_bot_path):
    replay = tmp_path / "match.replay.json.gz"
    done = play("dive", random_bot_path, random_bot_path, "--seed", "3", "--replay", str(replay),
                "--options", "{}", *FAST)
    assert done.returncode == 0, done.stderr
    verified = subprocess.run([sys.executable, "-m", "workers.replay", "verify", str(replay)], cwd=ROOT,
                              capture_output=True, text=True)
    assert verified.returncode == 0, verified.stdout
    # The summary counts the replay's decisions (a compact replay keeps its steps as columns).
    from workers.replay import load, step_count

    steps = step_count(load(replay))
    assert steps > 5 and f"seed 3, {steps} steps" in done.stdout, done.stdout


def test_it_rejects_an_unknown_game_bad_options_or_a_missing_bot_with_exit_code_2(tmp_path):
    assert play("chess", "builtin:random", "builtin:random").returncode == 2
    bad_options = play("deep_sea_adventure", "builtin:random", "builtin:random", "--options", '{"nope": 1}')
    assert bad_options.returncode == 2 and "unknown option" in bad_options.stderr
    missing = play("deep_sea_adventure", str(tmp_path / "missing.py"), "builtin:random")
    assert missing.returncode == 2 and "not found" in missing.stderr


def test_it_explains_bad_options_json_and_bad_time_limits_without_a_traceback():
    garbled = play("deep_sea_adventure", "builtin:random", "builtin:random", "--options", "{air: 10}")
    assert garbled.returncode == 2 and "--options is not valid JSON" in garbled.stderr
    not_an_object = play("deep_sea_adventure", "builtin:random", "builtin:random", "--options", "[1]")
    assert not_an_object.returncode == 2 and "--options must be a JSON object" in not_an_object.stderr
    for flag, value in (("--move-ms", "0"), ("--move-ms", "-5"), ("--init-ms", "soon"), ("--bank-ms", "-1")):
        done = play("deep_sea_adventure", "builtin:random", "builtin:random", flag, value)
        assert done.returncode == 2 and flag in done.stderr, (flag, value, done.stderr)
        assert "Traceback" not in garbled.stderr + not_an_object.stderr + done.stderr


def test_it_rejects_a_wrong_player_count_with_the_games_range():
    done = play("deep_sea_adventure", "builtin:random")
    assert done.returncode == 2 and "2-6 players" in done.stderr and "Traceback" not in done.stderr


def test_it_refuses_a_replay_path_it_cannot_write_before_playing(tmp_path):
    missing_dir = play("deep_sea_adventure", "builtin:random", "builtin:random",
                       "--replay", str(tmp_path / "no" / "such" / "dir" / "m.replay.json.gz"))
    assert missing_dir.returncode == 2 and "does not exist" in missing_dir.stderr
    assert missing_dir.stdout == "" and "Traceback" not in missing_dir.stderr
    a_directory = play("deep_sea_adventure", "builtin:random", "builtin:random", "--replay", str(tmp_path))
    assert a_directory.returncode == 2 and "is a directory" in a_directory.stderr


def test_a_reader_that_stops_early_is_no_error():
    for extra in (["--json"], []):
        # Like `| head -c 1`: the reader is gone before the match is even printed.
        process = subprocess.Popen([sys.executable, "-m", "workers.play", "dive_diver_die", "builtin:random",
                                    "builtin:random", "builtin:random", *extra], cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        process.stdout.close()
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0 and b"Traceback" not in err and b"BrokenPipe" not in err, err


def test_its_json_faults_and_timing_rows_carry_the_design_fields(tmp_path):
    bot = write_bot(tmp_path, "crasher", """
        import sys, arena_bot
        def choose(observation, legal, rng):
            print("about to fail", file=sys.stderr, flush=True)
            raise RuntimeError("no idea")
        arena_bot.run(choose)
    """)
    done = play("deep_sea_adventure", bot, "builtin:random", "--seed", "4", "--json", *FAST)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    [fault] = data["faults"]
    assert set(fault) == {"seat", "kind", "step", "message"}
    assert (fault["seat"], fault["kind"]) == (0, "crash") and isinstance(fault["step"], int)
    assert "about to fail" in fault["message"] and "RuntimeError: no idea" in fault["message"]
    assert data["ranks"] == [2, 1] and len(data["scores"]) == 2
    for row in data["timing"]:
        assert {"seat", "decisions", "mean_ms", "p95_ms", "max_ms", "bank_used_ms"} <= set(row)
    assert [row["seat"] for row in data["timing"]] == [0, 1]
