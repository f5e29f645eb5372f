"""The sandbox's properties, each observed from inside (a probe bot) or from the host."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from tests.workers.conftest import CLI_LIMITS, RANDOM_BOT, TEST_LIMITS, leftovers, write_bot
from workers import sandbox
from workers.runner import SeatSpec, run_match
from workers.sandbox import SandboxedProcess, SandboxError, acquire_slot, slot_processes, stage_bot

PROBE = """
import json, os, resource, socket, sys
facts = {
    "uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "groups": os.getgroups(),
    "cap_eff": [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0],
    "pid": os.getpid(), "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "interfaces": [name for _, name in socket.if_nameindex()],
    "root": sorted(os.listdir("/")), "env": dict(os.environ), "cwd": os.getcwd(),
    "bot_files": sorted(os.listdir("/bot")),
    "limits": {name: resource.getrlimit(getattr(resource, name))[0]
               for name in ("RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE")},
    "tmp_bytes": os.statvfs("/tmp").f_blocks * os.statvfs("/tmp").f_frsize,
    "hostname": socket.gethostname(),
}
for path in ("/", "/bot", "/arena/lib/engines", "/opt/python"):
    try:
        open(os.path.join(path, "probe-write"), "w")
        facts.setdefault("writable", []).append(path)
    except OSError:
        pass
with open("/tmp/probe-write", "w") as f:
    f.write("ok")
import engines, arena_bot
facts["engines_importable"] = bool(engines.list_games())
print("PROBE " + json.dumps(facts), file=sys.stderr, flush=True)
arena_bot.run(lambda observation, legal, rng: rng.randrange(len(legal)))
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    directory = tmp_path_factory.mktemp("probe")
    bot = write_bot(directory, "probe", PROBE)
    outcome = run_match("deep_sea_adventure", [SeatSpec(bot), SeatSpec("builtin:random")], seed=5,
                        limits=TEST_LIMITS)
    assert outcome.faults == [], outcome.logs[0]
    line = next(l for l in outcome.logs[0].splitlines() if l.startswith("PROBE "))
    return json.loads(line[len("PROBE "):]), outcome


def test_a_bot_has_no_network_but_an_empty_loopback(probe):
    facts, _ = probe
    assert facts["interfaces"] == ["lo"]


def test_a_bot_has_its_own_pid_namespace(probe):
    facts, _ = probe
    assert facts["pid"] < 10 and max(facts["pids"]) < 10   # only the sandbox's own processes


def test_a_bot_runs_as_the_unprivileged_uid_of_its_slot_with_no_capabilities(probe):
    facts, outcome = probe
    assert facts["uid"] == facts["euid"] == outcome.uids[0] > 0
    assert facts["gid"] == outcome.uids[0] and facts["groups"] == []
    assert int(facts["cap_eff"], 16) == 0


def test_a_bot_sees_a_minimal_read_only_filesystem(probe):
    facts, _ = probe
    assert set(facts["root"]) <= {"arena", "bot", "dev", "lib", "lib64", "opt", "proc", "tmp", "usr"}
    assert "writable" not in facts
    assert facts["bot_files"] == ["main.py"] and facts["cwd"] == "/bot"
    assert facts["engines_importable"]


def test_a_bot_gets_a_small_private_writable_tmp(probe):
    facts, _ = probe
    assert facts["tmp_bytes"] == TEST_LIMITS.tmp_mb * 1024 * 1024
    assert not Path("/tmp/probe-write").exists()


def test_a_bot_gets_a_scrubbed_environment(probe):
    facts, _ = probe
    assert set(facts["env"]) <= {"PATH", "HOME", "LANG", "LD_LIBRARY_PATH", "PYTHONDONTWRITEBYTECODE",
                                 "MALLOC_ARENA_MAX", "PWD"}
    assert not any("URL" in key or "SECRET" in key or "DJANGO" in key for key in facts["env"])


def test_a_bot_runs_under_rlimits(probe):
    facts, _ = probe
    limits = facts["limits"]
    assert limits["RLIMIT_CPU"] == TEST_LIMITS.cpu_s
    assert limits["RLIMIT_FSIZE"] == TEST_LIMITS.file_size_mb * 1024 * 1024
    assert limits["RLIMIT_NOFILE"] == TEST_LIMITS.open_files
    assert TEST_LIMITS.processes <= limits["RLIMIT_NPROC"] <= TEST_LIMITS.processes + 8
    assert TEST_LIMITS.memory_mb * 2**20 < limits["RLIMIT_AS"] < (TEST_LIMITS.memory_mb + 512) * 2**20


def test_a_bot_process_sits_in_its_slots_memory_and_pids_cgroups(tmp_path):
    bot = write_bot(tmp_path, "bot", RANDOM_BOT)
    process = SandboxedProcess(bot, TEST_LIMITS.sandbox())
    try:
        cgroups = process.slot.cgroups
        assert {"memory", "pids"} <= set(cgroups.dirs), cgroups.describe()
        deadline = time.monotonic() + 5
        while len(cgroups.pids()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert process.process.pid in cgroups.pids()
        memory = cgroups.dirs["memory"]
        limit_file = memory / ("memory.max" if cgroups.v2 else "memory.limit_in_bytes")
        assert int(limit_file.read_text()) == TEST_LIMITS.memory_mb * 1024 * 1024
        assert int((cgroups.dirs["pids"] / "pids.max").read_text()) == TEST_LIMITS.processes
    finally:
        assert process.close()
    assert cgroups.pids() == set()


def _kernel_at_least(major: int, minor: int) -> bool:
    release = os.uname().release.split("-")[0].split(".")
    return (int(release[0]), int(release[1])) >= (major, minor)


@pytest.mark.skipif(os.geteuid() != 0 or not _kernel_at_least(6, 3),
                    reason="favordynmods needs root and Linux >= 6.3")
def test_starting_a_sandbox_switches_cgroup_migrations_to_the_fast_mode(tmp_path):
    bot = write_bot(tmp_path, "bot", RANDOM_BOT)
    process = SandboxedProcess(bot, TEST_LIMITS.sandbox())
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
        ours = [line for line in mounts if sandbox.FAVOR_DYNMODS_HIERARCHY in line]
        assert len(ours) == 1 and "favordynmods" in ours[0].split()[3], ours
        assert sandbox.favor_cgroup_migrations()  # idempotent: no second mount
        assert sum(sandbox.FAVOR_DYNMODS_HIERARCHY in line
                   for line in Path("/proc/self/mounts").read_text().splitlines()) == 1
    finally:
        assert process.close()


def _sandbox_state(process) -> dict:
    """What a failed assertion about a sandbox shows: its processes, cgroups and stderr."""
    try:
        stderr = os.read(process.stderr_fd, 65536)
    except OSError as exc:
        stderr = repr(exc)
    cgroups = process.slot.cgroups
    return {"exit": process.poll(), "uid processes": slot_processes(process.slot.uid),
            "cgroup processes": sorted(cgroups.pids()), "cgroups": cgroups.describe(),
            "frozen": cgroups.frozen(), "stderr": stderr}


def test_killing_the_sandbox_kills_a_daemonised_grandchild_with_it(tmp_path):
    bot = write_bot(tmp_path, "daemon", """
        import os, sys, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    time.sleep(1)
            os._exit(0)
        while True:
            time.sleep(1)
    """)
    process = SandboxedProcess(bot, TEST_LIMITS.sandbox())
    uid = process.slot.uid
    try:
        deadline = time.monotonic() + 15     # a loaded machine starts Python slowly
        while len(slot_processes(uid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(slot_processes(uid)) >= 2, _sandbox_state(process)
        # Only the outer bwrap is killed: --die-with-parent and the PID namespace do the rest.
        os.kill(process.process.pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while slot_processes(uid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert slot_processes(uid) == []
    finally:
        process.close()


def test_running_a_bot_without_bubblewrap_fails_with_how_to_install_it(monkeypatch, random_bot_path):
    monkeypatch.setattr(sandbox.process, "bwrap_path", lambda: None)
    monkeypatch.delenv(sandbox.UNSAFE_ENV, raising=False)
    with pytest.raises(SandboxError, match="apt-get install bubblewrap"):
        run_match("deep_sea_adventure", [SeatSpec(random_bot_path), SeatSpec("builtin:random")], seed=1)


def test_the_development_switch_runs_without_a_sandbox_and_says_so_loudly(monkeypatch, capfd, random_bot_path):
    monkeypatch.setattr(sandbox.process, "bwrap_path", lambda: None)
    monkeypatch.setenv(sandbox.UNSAFE_ENV, "1")
    outcome = run_match("deep_sea_adventure", [SeatSpec(random_bot_path), SeatSpec("builtin:random")],
                        seed=1, limits=TEST_LIMITS)
    assert outcome.faults == []
    assert "WITHOUT ANY SANDBOX" in capfd.readouterr().err


def test_concurrent_slots_never_share_a_uid_or_a_cgroup():
    first, second = acquire_slot(), acquire_slot()
    try:
        assert first.index != second.index and first.uid != second.uid
        assert not set(first.cgroups.dirs.values()) & set(second.cgroups.dirs.values())
    finally:
        first.release()
        second.release()
    again = acquire_slot()
    again.release()
    assert again.index <= max(first.index, second.index)  # a released slot is free again


def test_two_matches_run_in_parallel_processes_without_interfering(tmp_path, random_bot_path):
    fork_bomb = write_bot(tmp_path, "bomb", """
        import os, arena_bot
        def choose(obs, legal, rng):
            while True:
                try:
                    os.fork()
                except OSError:
                    pass
        arena_bot.run(choose)
    """)
    command = [sys.executable, "-m", "workers.play", "deep_sea_adventure", "--json", *CLI_LIMITS]
    root = Path(__file__).resolve().parents[2]
    calm = subprocess.Popen(command + [random_bot_path, random_bot_path, "--seed", "4"], cwd=root,
                            stdout=subprocess.PIPE, text=True)
    bomb = subprocess.Popen(command + [fork_bomb, random_bot_path, "--seed", "4"], cwd=root,
                            stdout=subprocess.PIPE, text=True)
    calm_out, _ = calm.communicate(timeout=120)
    bomb_out, _ = bomb.communicate(timeout=120)
    assert calm.returncode == 0 and bomb.returncode == 0
    assert json.loads(calm_out)["faults"] == []
    assert [(f["seat"], f["kind"]) for f in json.loads(bomb_out)["faults"]] == [(0, "memory")]


def test_a_zip_bot_is_staged_with_its_files_and_an_unsafe_path_is_refused(tmp_path):
    good = tmp_path / "good.zip"
    with zipfile.ZipFile(good, "w") as archive:
        archive.writestr("main.py", "import helper\n")
        archive.writestr("helper/__init__.py", "")
    stage_bot(good, tmp_path / "staged")
    assert (tmp_path / "staged" / "main.py").read_text() == "import helper\n"
    assert (tmp_path / "staged" / "helper" / "__init__.py").exists()
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("main.py", "")
        archive.writestr("../escape.py", "")
    with pytest.raises(SandboxError, match="unsafe path"):
        stage_bot(evil, tmp_path / "staged2")
    assert not (tmp_path / "escape.py").exists()


@pytest.mark.parametrize("second", ["./main.py", "sub/../main.py", "main.py/"])
def test_staging_refuses_a_zip_whose_names_collide_once_normalised(tmp_path, second):
    archive = tmp_path / "twice.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("main.py", "print('checked')\n")
        zf.writestr(second, "print('run')\n")
    with pytest.raises(SandboxError, match="same file|unsafe path|file and also a folder") as caught:
        stage_bot(archive, tmp_path / "staged")
    assert str(tmp_path) not in str(caught.value)       # the archive's name, not this machine's folders


def test_a_folder_without_main_py_is_refused(tmp_path):
    (tmp_path / "bot").mkdir()
    with pytest.raises(SandboxError, match="no main.py"):
        stage_bot(tmp_path / "bot", tmp_path / "staged")


def test_a_bot_file_readable_only_by_root_still_runs(tmp_path):
    bot = Path(write_bot(tmp_path, "private", RANDOM_BOT))
    bot.chmod(0o600)
    outcome = run_match("deep_sea_adventure", [SeatSpec(str(bot)), SeatSpec("builtin:random")], seed=2,
                        limits=TEST_LIMITS)
    assert outcome.faults == [] and leftovers(outcome) == {}


def test_a_bot_that_never_reads_its_input_cannot_block_the_runner(tmp_path):
    bot = write_bot(tmp_path, "deaf", "import time\ntime.sleep(10_000)\n")
    process = SandboxedProcess(bot, TEST_LIMITS.sandbox())
    try:
        # Returns with an error instead of blocking for ever on the full pipe.
        with pytest.raises(TimeoutError, match="does not read its input"):
            process.write(b"x" * (4 * 1024 * 1024), timeout=0.2)
    finally:
        assert process.close()


def test_a_bot_dies_with_its_runner_when_the_runner_is_killed(tmp_path):
    bot = write_bot(tmp_path, "sleeper", """
        import os, time
        if os.fork() == 0:
            os.setsid()
            while True:
                time.sleep(1)
        while True:
            time.sleep(1)
    """)
    sandbox._become_subreaper()        # the dead runner's bwraps come to us, and we reap them below
    runner = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\n"
         "from workers.sandbox import SandboxedProcess, SandboxLimits\n"
         "process = SandboxedProcess(sys.argv[1], SandboxLimits())\n"
         "print(process.slot.uid, flush=True)\n"
         "time.sleep(600)\n", bot],
        cwd=Path(__file__).resolve().parents[2], stdout=subprocess.PIPE, text=True)
    uid = int(runner.stdout.readline())
    try:
        deadline = time.monotonic() + 10
        while len(slot_processes(uid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(slot_processes(uid)) >= 2          # the bot and its child run
        runner.kill()                                  # the runner dies without closing anything
        runner.wait(timeout=10)
        deadline = time.monotonic() + 5
        while slot_processes(uid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert slot_processes(uid) == []              # --die-with-parent took the sandbox down
    finally:
        for pid in slot_processes(uid):
            os.kill(pid, signal.SIGKILL)
        # Reap the dead runner's bwraps, or they would count in that slot's pids cgroup for its next user.
        sandbox._reap_orphaned_inits(timeout=2.0)


BURNER_FAMILY = """
import os, sys
for _ in range(2):
    if os.fork() == 0:
        break
print("burning", os.getpid(), file=sys.stderr, flush=True)
while True:
    pass
"""


def _wait_for(condition, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_a_frozen_sandbox_and_its_children_use_no_cpu_until_thawed(version, monkeypatch, tmp_path):
    from workers.sandbox.cgroups import FREEZER_ENV

    monkeypatch.setenv(FREEZER_ENV, version)
    bot = write_bot(tmp_path, "burners", BURNER_FAMILY)
    process = SandboxedProcess(bot, TEST_LIMITS.sandbox())
    cgroups = process.slot.cgroups
    try:
        if cgroups.freezer_version() != version or not cgroups.has_cpu_clock():
            pytest.skip(f"this machine gives a slot no {version} freezer with a CPU clock ({cgroups.describe()})")
        assert _wait_for(lambda: (process.cpu_ns() or 0) > 100e6)     # the family burns
        assert process.freeze() and _wait_for(cgroups.frozen)
        frozen_at = process.cpu_ns()
        time.sleep(0.3)
        assert process.cpu_ns() - frozen_at < 5e6                      # nothing of it ran
        assert process.thaw() and not cgroups.frozen()
        thawed_at = process.cpu_ns()
        assert _wait_for(lambda: process.cpu_ns() - thawed_at > 50e6)  # and it runs again
        process.freeze()
        assert _wait_for(cgroups.frozen)
    finally:
        assert process.close()                 # a frozen sandbox is killed, family and all
    assert cgroups.pids() == set() and not cgroups.frozen()


def test_a_slot_left_frozen_by_a_dead_runner_is_thawed_for_its_next_bot(tmp_path, random_bot_path):
    slot = acquire_slot()
    try:
        if slot.cgroups.freezer_version() is None:
            pytest.skip(f"no freezer here ({slot.cgroups.describe()})")
        slot.cgroups.freeze()
        process = SandboxedProcess(random_bot_path, TEST_LIMITS.sandbox(), slot=slot)
        process.write(b'{"type": "start", "game": "deep_sea_adventure", "seat": 0, "num_players": 2, '
                      b'"options": {}, "limits": {}, "seed": 1}\n')
        assert _wait_for(lambda: select.select([process.stdout_fd], [], [], 0)[0] != [])
        assert os.read(process.stdout_fd, 100).startswith(b'{"type"')
        assert process.close()
    finally:
        slot.release()


def test_each_slot_gets_a_cpu_quota_of_its_limit(tmp_path):
    bot = write_bot(tmp_path, "bot", RANDOM_BOT)
    process = SandboxedProcess(bot, TEST_LIMITS.sandbox())
    cgroups = process.slot.cgroups
    try:
        if "cpu" not in cgroups.dirs:
            pytest.skip(f"no cpu controller for the slot here ({cgroups.describe()})")
        cpu = cgroups.dirs["cpu"]
        if cgroups.v2:
            quota, period = (int(x) for x in (cpu / "cpu.max").read_text().split())
        else:
            quota, period = int((cpu / "cpu.cfs_quota_us").read_text()), int((cpu / "cpu.cfs_period_us").read_text())
        assert quota / period == pytest.approx(TEST_LIMITS.cpus)
        assert _wait_for(lambda: process.process.pid in {int(x) for x in (cpu / "cgroup.procs").read_text().split()})
    finally:
        assert process.close()


def test_the_system_call_filter_refuses_every_call_it_lists_that_this_libseccomp_knows():
    import tempfile as _tempfile

    import pyseccomp

    from workers.sandbox import syscalls

    with _tempfile.TemporaryFile() as out:
        syscalls.build_filter().export_pfc(out)
        out.seek(0)
        program = out.read().decode()
    known = []
    for name in syscalls.DENIED + ("clone3", "clone", "fcntl", "ioctl", "socket", "preadv2", "pwritev2"):
        try:
            pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name)
        except (RuntimeError, OSError, ValueError):
            continue
        known.append(name)
        assert f'syscall "{name}"' in program, name
    assert {"keyctl", "inotify_add_watch", "flock", "unshare", "ptrace", "bpf", "io_uring_setup"} <= set(known)
    assert "action KILL_PROCESS;" in program.split("invalid architecture action")[1]
    assert len(syscalls.filter_bpf()) % 8 == 0          # whole BPF instructions, as bwrap reads them


def test_without_libseccomp_a_match_refuses_to_start_and_says_how_to_install_it(monkeypatch, random_bot_path):
    import builtins

    from workers.sandbox import syscalls

    real_import = builtins.__import__

    def no_pyseccomp(name, *args, **kwargs):
        if name == "pyseccomp":
            raise ImportError("No module named 'pyseccomp'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyseccomp)
    syscalls.filter_bpf.cache_clear()
    try:
        with pytest.raises(SandboxError, match="libseccomp2"):
            run_match("deep_sea_adventure", [SeatSpec(random_bot_path), SeatSpec("builtin:random")], seed=1,
                      limits=TEST_LIMITS)
    finally:
        monkeypatch.undo()
        syscalls.filter_bpf.cache_clear()


def test_the_group_of_all_slots_weighs_as_much_as_the_processes_it_can_hold(tmp_path):
    from workers.sandbox import SLOT_COUNT

    slot = acquire_slot()
    try:
        cpu = slot.cgroups.dirs.get("cpu")
        if cpu is None:
            pytest.skip(f"no cpu controller for the slot here ({slot.cgroups.describe()})")
        if slot.cgroups.v2:
            assert int((cpu.parent / "cpu.weight").read_text()) == min(10_000, 100 * SLOT_COUNT)
        else:
            assert int((cpu.parent / "cpu.shares").read_text()) == 1024 * SLOT_COUNT
    finally:
        slot.release()
