// The Dive Arena bot SDK for C++20: a small JSON reader and the protocol loop (standard library only).
//
//     #include "arena_bot.hpp"
//     int choose(const arena::Json& observation, const arena::Json& legal_actions, arena::Rng& rng) {
//         return rng.below(legal_actions.size());      // an index into legal_actions
//     }
//     int main() { return arena::run(choose); }
//
// The protocol (docs/writing-a-bot.md): one JSON object per line on stdin and stdout. `run` answers
// "start" with "ready", each "act" with {"index": n}, and returns at "end". Write logs to std::cerr
// (kept, capped, for you); never print anything else on std::cout.
#pragma once

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace arena {

// One JSON value. Numbers are doubles (every number the arena sends fits one exactly).
class Json {
public:
    enum class Type { Null, Bool, Number, String, Array, Object };

    Type type() const { return type_; }
    bool is_null() const { return type_ == Type::Null; }
    bool is_bool() const { return type_ == Type::Bool; }
    bool is_number() const { return type_ == Type::Number; }
    bool is_string() const { return type_ == Type::String; }
    bool is_array() const { return type_ == Type::Array; }
    bool is_object() const { return type_ == Type::Object; }

    bool as_bool() const { expect(Type::Bool, "a boolean"); return boolean_; }
    double as_number() const { expect(Type::Number, "a number"); return number_; }
    long long as_int() const { return static_cast<long long>(as_number()); }
    const std::string& as_string() const { expect(Type::String, "a string"); return string_; }

    // Elements of an array, or the number of members of an object (0 for anything else).
    std::size_t size() const {
        if (type_ == Type::Array) return items_.size();
        if (type_ == Type::Object) return members_.size();
        return 0;
    }
    const Json& operator[](std::size_t index) const {
        expect(Type::Array, "an array");
        if (index >= items_.size()) throw std::out_of_range("JSON array index out of range");
        return items_[index];
    }
    const std::vector<Json>& items() const { expect(Type::Array, "an array"); return items_; }
    const std::vector<std::pair<std::string, Json>>& members() const {
        expect(Type::Object, "an object");
        return members_;
    }
    bool has(const std::string& key) const { return find(key) != nullptr; }
    // The member `key` of an object; a null value when it is absent (or this is not an object).
    const Json& operator[](const std::string& key) const {
        const Json* found = find(key);
        return found ? *found : null_value();
    }
    const Json& operator[](const char* key) const { return (*this)[std::string(key)]; }

    static Json parse(const std::string& text);
    std::string dump() const;

private:
    friend class Parser;
    Type type_ = Type::Null;
    bool boolean_ = false;
    double number_ = 0;
    std::string string_;
    std::vector<Json> items_;
    std::vector<std::pair<std::string, Json>> members_;

    static const Json& null_value() { static const Json value; return value; }
    const Json* find(const std::string& key) const {
        if (type_ != Type::Object) return nullptr;
        for (const auto& member : members_)
            if (member.first == key) return &member.second;
        return nullptr;
    }
    void expect(Type type, const char* what) const {
        if (type_ != type) throw std::runtime_error(std::string("JSON value is not ") + what);
    }
};

class Parser {
public:
    explicit Parser(const std::string& text) : text_(text) {}

    Json document() {
        Json value = parse_value(0);
        skip_space();
        if (pos_ != text_.size()) fail("unexpected text after the value");
        return value;
    }

private:
    static constexpr int kMaxDepth = 512;
    const std::string& text_;
    std::size_t pos_ = 0;

    [[noreturn]] void fail(const std::string& why) const {
        throw std::runtime_error("invalid JSON at offset " + std::to_string(pos_) + ": " + why);
    }
    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                       text_[pos_] == '\r'))
            ++pos_;
    }
    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
    void literal(const char* word) {
        for (const char* c = word; *c; ++c, ++pos_)
            if (pos_ >= text_.size() || text_[pos_] != *c) fail(std::string("expected ") + word);
    }

    Json parse_value(int depth) {
        if (depth > kMaxDepth) fail("nested too deeply");
        skip_space();
        Json value;
        char c = peek();
        if (c == '{') {
            value.type_ = Json::Type::Object;
            ++pos_;
            skip_space();
            if (peek() == '}') { ++pos_; return value; }
            while (true) {
                skip_space();
                if (peek() != '"') fail("expected a member name");
                std::string key = parse_string();
                skip_space();
                if (peek() != ':') fail("expected ':'");
                ++pos_;
                value.members_.emplace_back(std::move(key), parse_value(depth + 1));
                skip_space();
                if (peek() == ',') { ++pos_; continue; }
                if (peek() == '}') { ++pos_; return value; }
                fail("expected ',' or '}'");
            }
        }
        if (c == '[') {
            value.type_ = Json::Type::Array;
            ++pos_;
            skip_space();
            if (peek() == ']') { ++pos_; return value; }
            while (true) {
                value.items_.push_back(parse_value(depth + 1));
                skip_space();
                if (peek() == ',') { ++pos_; continue; }
                if (peek() == ']') { ++pos_; return value; }
                fail("expected ',' or ']'");
            }
        }
        if (c == '"') {
            value.type_ = Json::Type::String;
            value.string_ = parse_string();
            return value;
        }
        if (c == 't') { literal("true"); value.type_ = Json::Type::Bool; value.boolean_ = true; return value; }
        if (c == 'f') { literal("false"); value.type_ = Json::Type::Bool; return value; }
        if (c == 'n') { literal("null"); return value; }
        if (c == '-' || (c >= '0' && c <= '9')) {
            value.type_ = Json::Type::Number;
            value.number_ = parse_number();
            return value;
        }
        fail(pos_ >= text_.size() ? "unexpected end" : "unexpected character");
    }

    double parse_number() {
        std::size_t start = pos_;
        auto digits = [&] {
            std::size_t first = pos_;
            while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
            if (pos_ == first) fail("expected a digit");
        };
        if (peek() == '-') ++pos_;
        if (peek() == '0') ++pos_;
        else digits();
        if (peek() == '.') { ++pos_; digits(); }
        if (peek() == 'e' || peek() == 'E') {
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            digits();
        }
        return std::stod(text_.substr(start, pos_ - start));
    }

    unsigned hex4() {
        unsigned code = 0;
        for (int i = 0; i < 4; ++i, ++pos_) {
            char h = peek();
            code <<= 4;
            if (h >= '0' && h <= '9') code |= unsigned(h - '0');
            else if (h >= 'a' && h <= 'f') code |= unsigned(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') code |= unsigned(h - 'A' + 10);
            else fail("bad \\u escape");
        }
        return code;
    }

    static void append_utf8(std::string& out, unsigned code) {
        if (code < 0x80) {
            out += char(code);
        } else if (code < 0x800) {
            out += char(0xC0 | (code >> 6));
            out += char(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += char(0xE0 | (code >> 12));
            out += char(0x80 | ((code >> 6) & 0x3F));
            out += char(0x80 | (code & 0x3F));
        } else {
            out += char(0xF0 | (code >> 18));
            out += char(0x80 | ((code >> 12) & 0x3F));
            out += char(0x80 | ((code >> 6) & 0x3F));
            out += char(0x80 | (code & 0x3F));
        }
    }

    std::string parse_string() {
        ++pos_;  // the opening quote
        std::string out;
        while (true) {
            if (pos_ >= text_.size()) fail("unterminated string");
            char c = text_[pos_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
            if (c != '\\') { out += c; continue; }
            char e = peek();
            ++pos_;
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned code = hex4();
                    if (code >= 0xD800 && code < 0xDC00) {   // a high surrogate: its low half follows
                        if (peek() != '\\') fail("lone surrogate");
                        ++pos_;
                        if (peek() != 'u') fail("lone surrogate");
                        ++pos_;
                        unsigned low = hex4();
                        if (low < 0xDC00 || low >= 0xE000) fail("bad surrogate pair");
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    } else if (code >= 0xDC00 && code < 0xE000) {
                        fail("lone surrogate");
                    }
                    append_utf8(out, code);
                    break;
                }
                default: --pos_; fail("bad escape");
            }
        }
    }
};

inline Json Json::parse(const std::string& text) { return Parser(text).document(); }

inline void dump_string(std::string& out, const std::string& text) {
    out += '"';
    for (unsigned char c : text) {
        if (c == '"') out += "\\\"";
        else if (c == '\\') out += "\\\\";
        else if (c < 0x20) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
            out += buffer;
        } else out += char(c);
    }
    out += '"';
}

inline void dump_value(std::string& out, const Json& value) {
    switch (value.type()) {
        case Json::Type::Null: out += "null"; break;
        case Json::Type::Bool: out += value.as_bool() ? "true" : "false"; break;
        case Json::Type::Number: {
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, "%.17g", value.as_number());
            out += buffer;
            break;
        }
        case Json::Type::String: dump_string(out, value.as_string()); break;
        case Json::Type::Array: {
            out += '[';
            bool first = true;
            for (const Json& item : value.items()) {
                if (!first) out += ',';
                first = false;
                dump_value(out, item);
            }
            out += ']';
            break;
        }
        case Json::Type::Object: {
            out += '{';
            bool first = true;
            for (const auto& member : value.members()) {
                if (!first) out += ',';
                first = false;
                dump_string(out, member.first);
                out += ':';
                dump_value(out, member.second);
            }
            out += '}';
            break;
        }
    }
}

inline std::string Json::dump() const {
    std::string out;
    dump_value(out, *this);
    return out;
}

// A small, fast random source (splitmix64), seeded from the seat's seed: the same match plays the same.
class Rng {
public:
    explicit Rng(std::uint64_t seed = 0) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // A whole number in [0, n) (n > 0).
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
    // A number in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

private:
    std::uint64_t state_;
};

// The match as the bot sees it, filled in from the arena's messages while `run` plays.
struct Match {
    std::string game;
    int seat = 0;
    int num_players = 0;
    Json options;
    Json limits;
    int step = -1;
    double time_left_ms = 0;
    Json result;
};

inline Match& match() { static Match current; return current; }

// Plays one match over stdin/stdout: `choose(observation, legal_actions, rng)` returns an index into
// legal_actions. Returns 0 at the end of the match (main's exit status).
template <typename Choose>
int run(Choose choose) {
    std::ios::sync_with_stdio(false);
    Rng rng;
    std::string line;
    while (std::getline(std::cin, line)) {
        Json message = Json::parse(line);
        const std::string& kind = message["type"].as_string();
        Match& m = match();
        if (kind == "start") {
            m.game = message["game"].as_string();
            m.seat = static_cast<int>(message["seat"].as_int());
            m.num_players = static_cast<int>(message["num_players"].as_int());
            m.options = message["options"];
            m.limits = message["limits"];
            if (message["seed"].is_number()) rng = Rng(static_cast<std::uint64_t>(message["seed"].as_number()));
            std::cout << "{\"type\":\"ready\"}\n" << std::flush;
        } else if (kind == "act") {
            m.step = static_cast<int>(message["step"].as_int());
            m.time_left_ms = message["time_left_ms"].is_number() ? message["time_left_ms"].as_number() : 0;
            const Json& legal = message["legal_actions"];
            long long index = choose(message["observation"], legal, rng);
            std::cout << "{\"index\":" << index << "}\n" << std::flush;
        } else if (kind == "end") {
            m.result = message["result"];
            return 0;
        }
    }
    return 0;
}

}  // namespace arena
