"""Bots in C++, Rust, Go, JavaScript and Java: built in the sandbox with the real toolchains, played
in the real sandbox, contained like Python bots; builds that fail, run forever, write too much or
read the host are refused with the reason.

Builds are slow on 2 cores: each starter kit is built once per session (``built_kits``) and shared.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.workers.conftest import TEST_LIMITS, leftovers
from workers import toolchains
from workers.build import BuildError, build_bot, build_cached, detect_language
from workers.runner import SeatSpec, run_match
from workers.sandbox import RUNTIMES

ROOT = Path(__file__).resolve().parents[2]
KITS = ROOT / "starter_kits"
PYTHON_KIT = str(KITS / "deep_sea_adventure" / "main.py")
COMPILED = ("cpp", "rust", "go", "java")
OTHER_LANGUAGES = ("cpp", "rust", "go", "javascript", "java")
# Start-up of a JVM or node on a loaded 2-core machine, with the runtime's first copy.
LIMITS = dataclasses.replace(TEST_LIMITS, memory_mb=256, processes=32, init_ms=20_000)


@pytest.fixture(scope="session")
def built_kits(tmp_path_factory) -> dict[str, Path]:
    """Each language's Deep Sea Adventure kit, ready to play: the built artifact (a zip) or the sources."""
    folder = tmp_path_factory.mktemp("kits")
    ready = {"javascript": KITS / "javascript" / "deep_sea_adventure"}
    for language in COMPILED:
        result = build_bot(KITS / language / "deep_sea_adventure")
        assert result.ok, result.message()
        path = folder / f"{language}.zip"
        path.write_bytes(result.artifact)
        ready[language] = path
    return ready


def _build(tmp_path: Path, name: str, source: str, spec=None):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return build_bot(path, spec=spec)


# --- languages and entry files ---------------------------------------------------------------------

def test_every_language_has_a_runtime_and_each_compiled_one_a_build():
    assert set(RUNTIMES) == set(toolchains.LANGUAGES)
    assert set(toolchains.BUILDS) == set(COMPILED)
    for language in OTHER_LANGUAGES:
        assert (KITS / language / "deep_sea_adventure" / toolchains.ENTRY_FILES[language]).is_file()


def test_the_entry_file_gives_the_language_and_two_entry_files_are_refused(tmp_path):
    assert detect_language(KITS / "cpp" / "deep_sea_adventure") == "cpp"
    assert detect_language(KITS / "java" / "deep_sea_adventure") == "java"
    single = tmp_path / "bot.rs"
    single.write_text("fn main() {}\n")
    assert detect_language(single) == "rust"
    both = tmp_path / "both"
    both.mkdir()
    (both / "main.py").write_text("")
    (both / "main.go").write_text("")
    with pytest.raises(BuildError, match="2 entry files"):
        detect_language(both)
    (both / "main.py").unlink()
    (both / "main.go").unlink()
    with pytest.raises(BuildError, match="no entry file"):
        detect_language(both)


# --- each language builds and plays ------------------------------------------------------------------

def test_a_build_reports_the_toolchain_and_the_artifacts_hash_and_size():
    result = build_bot(KITS / "cpp" / "deep_sea_adventure")
    assert result.ok, result.message()
    assert result.toolchain.startswith("g++")
    assert result.artifact_size == len(result.artifact) > 0
    import hashlib
    assert result.artifact_sha256 == hashlib.sha256(result.artifact).hexdigest()


def test_an_artifacts_programs_are_stored_uncompressed_and_its_other_files_deflated(built_kits):
    """Every sandbox of a version unpacks its artifact: a deflated Go binary cost 11 ms a start."""
    import zipfile

    for language in COMPILED:
        with zipfile.ZipFile(built_kits[language]) as archive:
            members = archive.infolist()
        assert members, language
        for info in members:
            executable = bool((info.external_attr >> 16) & 0o100)
            expected = zipfile.ZIP_STORED if executable else zipfile.ZIP_DEFLATED
            assert info.compress_type == expected, (language, info.filename, executable)
    with zipfile.ZipFile(built_kits["go"]) as archive:
        assert archive.getinfo("main").compress_type == zipfile.ZIP_STORED


@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_each_languages_starter_kit_plays_a_full_game_against_the_python_kit(language, built_kits):
    outcome = run_match("deep_sea_adventure",
                        [SeatSpec(str(built_kits[language]), name=language, language=language),
                         SeatSpec(PYTHON_KIT, name="python")], seed=11, limits=LIMITS)
    assert outcome.faults == [], outcome.faults
    assert outcome.timing[0]["decisions"] > 0
    assert outcome.replay["seats"][0]["language"] == language
    assert not leftovers(outcome)


def test_every_kit_plays_the_python_kits_strategy_move_for_move(built_kits):
    """The ports are faithful: the same seed, the same scores as two Python kits."""
    python = run_match("deep_sea_adventure", [SeatSpec(PYTHON_KIT), SeatSpec(PYTHON_KIT)], seed=5, limits=LIMITS)
    seats = [SeatSpec(str(built_kits[lang]), language=lang) for lang in ("cpp", "rust")]
    ported = run_match("deep_sea_adventure", seats, seed=5, limits=LIMITS)
    assert ported.faults == [] and python.faults == []
    assert ported.scores == python.scores


# --- refused builds -------------------------------------------------------------------------------

def test_a_compile_error_is_refused_with_the_compilers_message(tmp_path):
    result = _build(tmp_path, "main.cpp", """
        int main() { return undeclared_thing; }
    """)
    assert result.status == "failed"
    assert "undeclared_thing" in result.log and "error" in result.log
    assert result.artifact is None
    assert "the build failed" in result.message()


def test_a_rust_compile_error_is_refused_with_the_compilers_message(tmp_path):
    result = _build(tmp_path, "main.rs", """
        fn main() { let x: u32 = "text"; }
    """)
    assert result.status == "failed"
    assert "mismatched types" in result.log


def test_a_build_that_runs_forever_is_stopped_at_its_wall_limit(tmp_path):
    spec = dataclasses.replace(toolchains.BUILDS["cpp"], wall_s=4)
    # The preprocessor reads /dev/zero for ever (the sandbox's own /dev: no host device).
    result = _build(tmp_path, "main.cpp", '#include "/dev/zero"\nint main() {}\n', spec=spec)
    assert result.status in ("timeout", "too_much_output", "failed")
    assert result.status != "ok"
    if result.status == "timeout":
        assert "took too long (limit 4 s" in result.message()


def test_a_build_that_writes_gigabytes_is_stopped_as_too_much_output(tmp_path):
    # A 2 GiB initialised array: the object file alone is bigger than the output and /tmp caps.
    result = _build(tmp_path, "main.cpp", """
        char big[2000000000] = {1};
        int main() { return big[12345]; }
    """)
    assert result.status == "too_much_output", result.message()
    assert "wrote too much" in result.message()


@pytest.mark.parametrize("name,source", [
    ("main.cpp", '#include "/etc/passwd"\nint main() {}\n'),
    ("main.cpp", '#include "/etc/shadow"\nint main() {}\n'),
    ("main.cpp", '#include "/root/.bashrc"\nint main() {}\n'),
    ("main.rs", 'static HOST: &[u8] = include_bytes!("/etc/passwd");\nfn main() { println!("{}", HOST.len()); }\n'),
])
def test_a_source_that_reads_the_host_at_build_time_gets_nothing(tmp_path, name, source):
    result = _build(tmp_path, name, source)
    assert result.status == "failed"
    assert "No such file or directory" in result.log or "couldn't read" in result.log, result.log
    assert "root:" not in result.log


GO_EMBED = """
package main

import (
    _ "embed"
    "fmt"
)

//go:embed {pattern}
var host string

func main() {{ fmt.Println(host) }}
"""


@pytest.mark.parametrize("pattern", ["/etc/passwd", "host/passwd"])
def test_a_go_embed_of_a_path_outside_the_bot_gets_nothing(tmp_path, pattern):
    folder = tmp_path / "gobot"
    folder.mkdir()
    (folder / "main.go").write_text(GO_EMBED.format(pattern=pattern))
    (folder / "host").symlink_to("/etc")       # staging copies no symlink: the build never sees it
    result = build_bot(folder)
    assert result.status == "failed"
    assert "root:" not in result.log
    assert f"pattern {pattern}" in result.log


# --- the local CLI ----------------------------------------------------------------------------------

def test_the_cli_exits_2_with_the_compilers_messages_when_a_bot_does_not_build(tmp_path):
    bot = tmp_path / "main.cpp"
    bot.write_text("int main() { this is not cpp }\n")
    done = subprocess.run([sys.executable, "-m", "workers.play", "deep_sea_adventure", str(bot), "builtin:random"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "ARENA_BUILD_CACHE": str(tmp_path / "cache"),
                               "HOME": str(tmp_path)})
    assert done.returncode == 2, done.stderr
    assert "does not build" in done.stderr and "error" in done.stderr
    assert done.stdout == ""


def test_the_cli_builds_once_and_reuses_the_build_for_the_same_sources(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_BUILD_CACHE", str(tmp_path / "cache"))
    kit = KITS / "go" / "deep_sea_adventure"
    told = []
    language, artifact, first = build_cached(kit, progress=told.append)
    assert language == "go" and first.ok and not first.cached and len(told) == 1
    language, again, second = build_cached(kit, progress=told.append)
    assert second.cached and again == artifact and second.artifact_sha256 == first.artifact_sha256
    assert len(told) == 1
    changed = tmp_path / "changed"
    changed.mkdir()
    for path in kit.iterdir():
        (changed / path.name).write_bytes(path.read_bytes())
    (changed / "main.go").write_text((kit / "main.go").read_text().replace("margin = 2.0", "margin = 3.0"))
    _, other, third = build_cached(changed, progress=told.append)
    assert not third.cached and other != artifact


def test_the_cli_plays_a_javascript_bot_against_a_built_cpp_bot(tmp_path):
    done = subprocess.run([sys.executable, "-m", "workers.play", "deep_sea_adventure",
                           str(KITS / "javascript" / "deep_sea_adventure"), str(KITS / "cpp" / "deep_sea_adventure"),
                           "--json", "--init-ms", "20000"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env={"PATH": "/usr/bin:/bin", "ARENA_BUILD_CACHE": str(tmp_path / "cache"),
                               "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    import json
    outcome = json.loads(done.stdout)
    assert outcome["faults"] == []


# --- containment -------------------------------------------------------------------------------------

HOSTILE_CPP = r"""
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>

// Seat 0 forks for ever, seat 1 allocates past any cap, seat 2 spins threads; all after "ready".
int main() {
    std::string line;
    std::getline(std::cin, line);
    int seat = line[line.find("\"seat\":") + 7] - '0';
    std::cout << "{\"type\":\"ready\"}" << std::endl;
    std::getline(std::cin, line);
    if (seat == 0) {
        while (true) fork();
    } else if (seat == 1) {
        std::vector<char*> blocks;
        while (true) {
            char* block = static_cast<char*>(std::malloc(16 << 20));
            if (block) std::memset(block, 1, 16 << 20);
            blocks.push_back(block);
        }
    } else {
        std::vector<std::thread> threads;
        std::atomic<long> spins{0};
        for (int i = 0; i < 8; ++i) threads.emplace_back([&] { while (true) spins++; });
        for (auto& t : threads) t.join();
    }
}
"""


def test_a_cpp_bot_that_forks_allocates_or_spins_threads_is_contained_and_faulted(tmp_path):
    result = _build(tmp_path, "main.cpp", HOSTILE_CPP)
    assert result.ok, result.message()
    artifact = tmp_path / "hostile.zip"
    artifact.write_bytes(result.artifact)
    seats = [SeatSpec(str(artifact), name=f"hostile{seat}", language="cpp") for seat in range(3)]
    outcome = run_match("deep_sea_adventure", seats, seed=3, limits=LIMITS)
    kinds = {fault.seat: fault.kind for fault in outcome.faults}
    assert set(kinds) == {0, 1, 2}, outcome.faults
    assert kinds[1] == "memory"
    assert kinds[2] == "timeout"
    assert kinds[0] in ("timeout", "crash", "memory")   # a fork bomb runs into pids.max and the memory cap
    assert not leftovers(outcome)


HOSTILE_GO = """
package main

import (
    "bufio"
    "fmt"
    "os"
)

// Starts 64 goroutines that spin on every core after "ready": charged, frozen, then faulted.
func main() {
    in := bufio.NewReader(os.Stdin)
    in.ReadString('\\n')
    fmt.Println(`{"type":"ready"}`)
    in.ReadString('\\n')
    for i := 0; i < 64; i++ {
        go func() { n := 0; for { n++ } }()
    }
    select {}
}
"""


def test_a_go_bots_spinning_goroutines_are_charged_and_faulted_as_a_timeout(tmp_path):
    result = _build(tmp_path, "main.go", HOSTILE_GO)
    assert result.ok, result.message()
    artifact = tmp_path / "spin.zip"
    artifact.write_bytes(result.artifact)
    outcome = run_match("deep_sea_adventure", [SeatSpec(str(artifact), language="go"), SeatSpec(PYTHON_KIT)],
                        seed=2, limits=LIMITS)
    assert [fault.kind for fault in outcome.faults] == ["timeout"]
    assert outcome.faults[0].seat == 0
    assert not leftovers(outcome)


HOSTILE_JAVA = """
import java.io.BufferedReader;
import java.io.InputStreamReader;

// After "ready", 16 threads spin; then the main thread allocates without end.
public class Main {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        in.readLine();
        System.out.println("{\\"type\\":\\"ready\\"}");
        System.out.flush();
        in.readLine();
        for (int i = 0; i < 16; i++) {
            Thread t = new Thread(() -> { long n = 0; while (true) { n++; } });
            t.setDaemon(true);
            t.start();
        }
        java.util.List<long[]> blocks = new java.util.ArrayList<>();
        while (true) blocks.add(new long[1 << 20]);
    }
}
"""


def test_a_java_bots_spinning_threads_and_heap_growth_are_contained_and_faulted(tmp_path):
    result = _build(tmp_path, "Main.java", HOSTILE_JAVA)
    assert result.ok, result.message()
    artifact = tmp_path / "hostile-java.zip"
    artifact.write_bytes(result.artifact)
    outcome = run_match("deep_sea_adventure", [SeatSpec(str(artifact), language="java"), SeatSpec(PYTHON_KIT)],
                        seed=4, limits=LIMITS)
    assert [fault.seat for fault in outcome.faults] == [0]
    # The heap is capped at the bot's allowance: an OutOfMemoryError (a crash) or the cgroup's kill,
    # unless the spinning threads use up its time first.
    assert outcome.faults[0].kind in ("crash", "memory", "timeout")
    assert outcome.timing[1]["decisions"] > 0          # the other seat played on to the end
    assert not leftovers(outcome)


def test_a_batch_plays_a_compiled_bot_and_an_ab_test_refuses_one_that_does_not_build(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "ARENA_BUILD_CACHE": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "workers.play", "deep_sea_adventure",
                           str(KITS / "rust" / "deep_sea_adventure"), "builtin:random", "--games", "2", "--json",
                           "--init-ms", "20000"], capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    import json
    assert json.loads(done.stdout)["games"] == 2
    broken = tmp_path / "main.go"
    broken.write_text("package main\nfunc main() { undefinedThing() }\n")
    done = subprocess.run([sys.executable, "-m", "workers.abtest", "deep_sea_adventure", "builtin:random", str(broken),
                           "--max-games", "20"], capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    assert done.returncode == 2
    assert "does not build" in done.stderr and "undefinedThing" in done.stderr
