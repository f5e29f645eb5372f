//! The Dive Arena bot SDK for Rust (standard library only): a small JSON reader and the protocol loop.
//!
//! ```ignore
//! mod arena_bot;
//! use arena_bot::{Json, Rng};
//! fn choose(observation: &Json, legal_actions: &Json, rng: &mut Rng) -> usize {
//!     rng.below(legal_actions.len())            // an index into legal_actions
//! }
//! fn main() { arena_bot::run(choose); }
//! ```
//!
//! The protocol (docs/writing-a-bot.md): one JSON object per line on stdin and stdout. `run`
//! answers "start" with "ready", each "act" with {"index": n}, and returns at "end". Write logs
//! with `eprintln!` (kept, capped, for you); never print anything else on stdout.
#![allow(dead_code)]

use std::io::{self, BufRead, Write};

/// One JSON value. Numbers are f64 (every number the arena sends fits one exactly).
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

static NULL: Json = Json::Null;

impl Json {
    /// Parses one JSON text (an error says where and why).
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut parser = Parser { bytes: text.as_bytes(), pos: 0 };
        let value = parser.value(0)?;
        parser.space();
        if parser.pos != parser.bytes.len() {
            return Err(parser.error("unexpected text after the value"));
        }
        Ok(value)
    }

    /// The member `key` of an object; Null when absent or when this is not an object.
    pub fn get(&self, key: &str) -> &Json {
        if let Json::Object(members) = self {
            for (name, value) in members {
                if name == key {
                    return value;
                }
            }
        }
        &NULL
    }

    /// Element `index` of an array; Null when out of range or when this is not an array.
    pub fn at(&self, index: usize) -> &Json {
        match self {
            Json::Array(items) => items.get(index).unwrap_or(&NULL),
            _ => &NULL,
        }
    }

    /// Elements of an array, members of an object, 0 for anything else.
    pub fn len(&self) -> usize {
        match self {
            Json::Array(items) => items.len(),
            Json::Object(members) => members.len(),
            _ => 0,
        }
    }

    pub fn items(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => &[],
        }
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => Some(*n),
            _ => None,
        }
    }
    pub fn as_i64(&self) -> Option<i64> {
        self.as_f64().map(|n| n as i64)
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }
}

const MAX_DEPTH: usize = 512;

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn error(&self, why: &str) -> String {
        format!("invalid JSON at offset {}: {}", self.pos, why)
    }
    fn peek(&self) -> u8 {
        *self.bytes.get(self.pos).unwrap_or(&0)
    }
    fn space(&mut self) {
        while matches!(self.peek(), b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }
    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error(&format!("expected {}", word)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.space();
        match self.peek() {
            b'{' => {
                self.pos += 1;
                let mut members = Vec::new();
                self.space();
                if self.peek() == b'}' {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                loop {
                    self.space();
                    if self.peek() != b'"' {
                        return Err(self.error("expected a member name"));
                    }
                    let key = self.string()?;
                    self.space();
                    if self.peek() != b':' {
                        return Err(self.error("expected ':'"));
                    }
                    self.pos += 1;
                    let value = self.value(depth + 1)?;
                    members.push((key, value));
                    self.space();
                    match self.peek() {
                        b',' => self.pos += 1,
                        b'}' => {
                            self.pos += 1;
                            return Ok(Json::Object(members));
                        }
                        _ => return Err(self.error("expected ',' or '}'")),
                    }
                }
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                self.space();
                if self.peek() == b']' {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.space();
                    match self.peek() {
                        b',' => self.pos += 1,
                        b']' => {
                            self.pos += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => return Err(self.error("expected ',' or ']'")),
                    }
                }
            }
            b'"' => Ok(Json::Str(self.string()?)),
            b't' => self.literal("true", Json::Bool(true)),
            b'f' => self.literal("false", Json::Bool(false)),
            b'n' => self.literal("null", Json::Null),
            b'-' | b'0'..=b'9' => self.number(),
            0 if self.pos >= self.bytes.len() => Err(self.error("unexpected end")),
            _ => Err(self.error("unexpected character")),
        }
    }

    fn digits(&mut self) -> Result<(), String> {
        let start = self.pos;
        while self.peek().is_ascii_digit() {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error("expected a digit"));
        }
        Ok(())
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.pos;
        if self.peek() == b'-' {
            self.pos += 1;
        }
        if self.peek() == b'0' {
            self.pos += 1;
        } else {
            self.digits()?;
        }
        if self.peek() == b'.' {
            self.pos += 1;
            self.digits()?;
        }
        if matches!(self.peek(), b'e' | b'E') {
            self.pos += 1;
            if matches!(self.peek(), b'+' | b'-') {
                self.pos += 1;
            }
            self.digits()?;
        }
        let text = std::str::from_utf8(&self.bytes[start..self.pos]).unwrap();
        text.parse::<f64>().map(Json::Number).map_err(|_| self.error("bad number"))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut code = 0u32;
        for _ in 0..4 {
            let digit = (self.peek() as char).to_digit(16).ok_or_else(|| self.error("bad \\u escape"))?;
            code = code * 16 + digit;
            self.pos += 1;
        }
        Ok(code)
    }

    fn string(&mut self) -> Result<String, String> {
        self.pos += 1; // the opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            if self.pos >= self.bytes.len() {
                return Err(self.error("unterminated string"));
            }
            let c = self.bytes[self.pos];
            self.pos += 1;
            match c {
                b'"' => return String::from_utf8(out).map_err(|_| self.error("invalid UTF-8")),
                0..=0x1f => return Err(self.error("control character in a string")),
                b'\\' => {
                    let e = self.peek();
                    self.pos += 1;
                    let simple = match e {
                        b'"' => Some(b'"'),
                        b'\\' => Some(b'\\'),
                        b'/' => Some(b'/'),
                        b'b' => Some(8),
                        b'f' => Some(12),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        _ => None,
                    };
                    if let Some(byte) = simple {
                        out.push(byte);
                        continue;
                    }
                    if e != b'u' {
                        self.pos -= 1;
                        return Err(self.error("bad escape"));
                    }
                    let mut code = self.hex4()?;
                    if (0xD800..0xDC00).contains(&code) {
                        if self.peek() != b'\\' || self.bytes.get(self.pos + 1) != Some(&b'u') {
                            return Err(self.error("lone surrogate"));
                        }
                        self.pos += 2;
                        let low = self.hex4()?;
                        if !(0xDC00..0xE000).contains(&low) {
                            return Err(self.error("bad surrogate pair"));
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    }
                    let ch = char::from_u32(code).ok_or_else(|| self.error("lone surrogate"))?;
                    let mut buffer = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buffer).as_bytes());
                }
                _ => out.push(c),
            }
        }
    }
}

/// A small, fast random source (splitmix64), seeded from the seat's seed: the same match plays the same.
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    /// A whole number in [0, n) (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// A number in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / 9007199254740992.0
    }
}

/// Plays one match over stdin/stdout: `choose(observation, legal_actions, rng)` returns an index
/// into legal_actions. Returns the final result (Null when the arena sent none).
pub fn run<F: FnMut(&Json, &Json, &mut Rng) -> usize>(mut choose: F) -> Json {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut rng = Rng::new(0);
    for line in stdin.lock().lines() {
        let line = line.expect("cannot read stdin");
        let message = Json::parse(&line).expect("the arena sent invalid JSON");
        match message.get("type").as_str() {
            Some("start") => {
                if let Some(seed) = message.get("seed").as_f64() {
                    rng = Rng::new(seed as u64);
                }
                writeln!(out, "{{\"type\":\"ready\"}}").unwrap();
                out.flush().unwrap();
            }
            Some("act") => {
                let index = choose(message.get("observation"), message.get("legal_actions"), &mut rng);
                writeln!(out, "{{\"index\":{}}}", index).unwrap();
                out.flush().unwrap();
            }
            Some("end") => return message.get("result").clone(),
            _ => {}
        }
    }
    Json::Null
}
