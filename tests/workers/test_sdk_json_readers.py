"""The JSON readers of the C++, Rust and Java SDKs (their standard libraries have none) against
Python's own parser: the same values for valid texts (escapes, surrogate pairs, numbers, nesting),
an error for invalid ones. Each reader is compiled once (host compilers: this is our code, not a bot's)
into a small program that prints each parsed line back as canonical JSON, or ERROR.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest

KITS = Path(__file__).resolve().parents[2] / "starter_kits"

VALID = [
    '{"type": "act", "step": 12, "observation": {"a": [1, 2, 3]}, "legal_actions": [{"type": "pass"}]}',
    '[]', '{}', '[[[[[]]]]]', 'null', 'true', 'false', '0', '-0.0', '12.5e-3', '1E+2', '-7.25',
    '281474976710655',
    '"plain"', '"tab\\tnew\\nline \\"quoted\\" back\\\\slash \\/ slash"',
    '"\\u00e9t\\u00e9 \\u2603 \\ud83d\\udc1f"', '"\u00e9t\u00e9 \u2603 \U0001f41f raw utf-8"',
    '  {"spaced" :  [ 1 , 2 ] , "nested" : {"k": null}}  ',
    '{"dup": 1, "order": 2, "of": 3, "keys": 4}',
]
INVALID = [
    '', '{', '[1, 2', '{"a" 1}', '{"a": 1,}', '[1,]', '01', '1.', '.5', '-', '"unterminated',
    '"bad \\x escape"', '"\\ud83d alone"', 'tru', 'nul', '{"a": 1} trailing', '[1] [2]', "'single'",
    '"control \x01 char"', '+1', '{1: 2}', '[' * 600 + ']' * 600,
]

CPP_MAIN = r"""
#include <iostream>
#include "arena_bot.hpp"
int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        try { std::cout << arena::Json::parse(line).dump() << "\n"; }
        catch (const std::exception&) { std::cout << "ERROR\n"; }
    }
}
"""

RUST_MAIN = r"""
mod arena_bot;
use arena_bot::Json;
use std::io::BufRead;

fn dump(value: &Json, out: &mut String) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(&format!("{:e}", n)),
        Json::Str(s) => { out.push('"'); for c in s.chars() { out.push_str(&format!("\\u{{{:x}}}", c as u32)); } out.push('"'); }
        Json::Array(items) => { out.push('['); for (i, v) in items.iter().enumerate() { if i > 0 { out.push(','); } dump(v, out); } out.push(']'); }
        Json::Object(members) => { out.push('{'); for (i, (k, v)) in members.iter().enumerate() { if i > 0 { out.push(','); } dump(&Json::Str(k.clone()), out); out.push(':'); dump(v, out); } out.push('}'); }
    }
}

fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        match Json::parse(&line) {
            Ok(value) => { let mut out = String::new(); dump(&value, &mut out); println!("{}", out); }
            Err(_) => println!("ERROR"),
        }
    }
}
"""

JAVA_MAIN = r"""
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public class Main {
    static void dump(Object value, StringBuilder out) {
        if (value == null) out.append("null");
        else if (value instanceof Boolean) out.append(value);
        else if (value instanceof Double) out.append(String.format("%.17e", (Double) value));
        else if (value instanceof String) {
            out.append('"');
            ((String) value).codePoints().forEach(c -> out.append("\\u{").append(Integer.toHexString(c)).append('}'));
            out.append('"');
        } else if (value instanceof List) {
            out.append('['); boolean first = true;
            for (Object item : (List<?>) value) { if (!first) out.append(','); first = false; dump(item, out); }
            out.append(']');
        } else {
            out.append('{'); boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                if (!first) out.append(','); first = false; dump(e.getKey(), out); out.append(':'); dump(e.getValue(), out);
            }
            out.append('}');
        }
    }
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            try { StringBuilder b = new StringBuilder(); dump(ArenaBot.parse(line), b); out.println(b); }
            catch (ArenaBot.JsonException e) { out.println("ERROR"); }
        }
    }
}
"""


def _escaped_chars(text: str) -> str:
    return '"' + "".join(f"\\u{{{ord(c):x}}}" for c in text) + '"'


def _canonical(value, numbers: str) -> str:
    """Python's view of a value, printed the way a reader's test program prints it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return numbers.format(float(value))
    if isinstance(value, str):
        return _escaped_chars(value)
    if isinstance(value, list):
        return "[" + ",".join(_canonical(v, numbers) for v in value) + "]"
    return "{" + ",".join(_escaped_chars(k) + ":" + _canonical(v, numbers) for k, v in value.items()) + "}"


@pytest.fixture(scope="module")
def readers(tmp_path_factory):
    """Each SDK's reader in a small program: language -> argv."""
    folder = tmp_path_factory.mktemp("readers")
    programs = {}
    cpp = folder / "cpp"
    cpp.mkdir()
    (cpp / "main.cpp").write_text(CPP_MAIN)
    subprocess.run(["g++", "-std=c++20", "-O1", "-I", str(KITS / "cpp" / "deep_sea_adventure"), "-o",
                    str(cpp / "reader"), str(cpp / "main.cpp")], check=True, timeout=300)
    programs["cpp"] = [str(cpp / "reader")]
    rust = folder / "rust"
    rust.mkdir()
    (rust / "main.rs").write_text(RUST_MAIN)
    (rust / "arena_bot.rs").write_text((KITS / "rust" / "deep_sea_adventure" / "arena_bot.rs").read_text())
    subprocess.run(["/usr/bin/rustc", "--edition", "2021", "-o", str(rust / "reader"), str(rust / "main.rs")],
                   check=True, timeout=300)
    programs["rust"] = [str(rust / "reader")]
    java = folder / "java"
    java.mkdir()
    (java / "Main.java").write_text(JAVA_MAIN)
    subprocess.run(["javac", "-d", str(java), str(java / "Main.java"),
                    str(KITS / "java" / "deep_sea_adventure" / "ArenaBot.java")], check=True, timeout=300)
    programs["java"] = ["java", "-Xshare:auto", "-cp", str(java), "Main"]
    return programs


def _read(argv, lines):
    done = subprocess.run(argv, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_cpp_reader_gives_pythons_values_and_refuses_invalid_json(readers):
    got = _read(readers["cpp"], VALID + INVALID)
    for text, line in zip(VALID, got):
        assert json.loads(line) == json.loads(text) or (
            isinstance(json.loads(text), float) and math.isclose(json.loads(line), json.loads(text)))
    assert got[len(VALID):] == ["ERROR"] * len(INVALID)


def test_the_rust_reader_gives_pythons_values_and_refuses_invalid_json(readers):
    got = _read(readers["rust"], VALID + INVALID)
    for text, line in zip(VALID, got):
        value = json.loads(text)
        expected = _canonical(value, "{}")
        # Numbers: Rust prints 1.25e1, compare them as floats; the rest character for character.
        assert _normalise_numbers(line) == _normalise_numbers(expected), (text, line)
    assert got[len(VALID):] == ["ERROR"] * len(INVALID)


def test_the_java_reader_gives_pythons_values_and_refuses_invalid_json(readers):
    got = _read(readers["java"], VALID + INVALID)
    for text, line in zip(VALID, got):
        expected = _canonical(json.loads(text), "{}")
        assert _normalise_numbers(line) == _normalise_numbers(expected), (text, line)
    assert got[len(VALID):] == ["ERROR"] * len(INVALID)


def _normalise_numbers(text: str) -> str:
    """Every number outside a string rewritten as Python's repr of its float."""
    import re
    out, i = [], 0
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*', text):
        out.append(text[i:match.start()])
        token = match.group(0)
        out.append(token if token.startswith('"') else repr(float(token)))
        i = match.end()
    out.append(text[i:])
    return "".join(out)
