"""The JSON-lines protocol: line cutting, caps and reply parsing."""

from __future__ import annotations

import json

import pytest

from workers.protocol import (
    IllegalReply,
    LineBuffer,
    ProtocolError,
    act_message,
    parse_ready,
    parse_reply,
    start_message,
)

LEGAL = [{"move": "up"}, {"move": "down"}]


def test_it_cuts_lines_across_blocks():
    buffer = LineBuffer()
    buffer.feed(b'{"index"')
    assert buffer.pop_line() is None
    buffer.feed(b': 1}\n{"ind')
    assert buffer.pop_line() == b'{"index": 1}'
    assert buffer.pop_line() is None and bool(buffer)


def test_it_rejects_a_line_over_the_cap_even_before_its_newline_arrives():
    buffer = LineBuffer(max_line=100)
    buffer.feed(b"x" * 101)
    with pytest.raises(ProtocolError, match="longer than 100"):
        buffer.pop_line()
    buffer = LineBuffer(max_line=100)
    buffer.feed(b"x" * 150 + b"\n")
    with pytest.raises(ProtocolError):
        buffer.pop_line()


def test_it_accepts_an_action_or_an_index():
    assert parse_reply(b'{"action": {"move": "down"}}', LEGAL) == {"move": "down"}
    assert parse_reply(b'{"index": 0}', LEGAL) == {"move": "up"}


def test_an_action_that_only_compares_equal_is_replaced_by_the_legal_one():
    legal = [{"type": "take", "item": 1}, {"type": "skip"}]
    for line in (b'{"action": {"type": "take", "item": true}}', b'{"action": {"type": "take", "item": 1.0}}'):
        chosen = parse_reply(line, legal)
        assert chosen is legal[0]
        assert json.dumps(chosen) == '{"type": "take", "item": 1}'


@pytest.mark.parametrize("line", [b"not json", b"[1, 2]", b'{"index": "0"}', b'{"index": true}',
                                  b'{"action": "up"}', b'{"move": "up"}', b"\xff\xfe"])
def test_it_calls_malformed_replies_protocol_errors(line):
    with pytest.raises(ProtocolError):
        parse_reply(line, LEGAL)


@pytest.mark.parametrize("line", [b'{"action": {"move": "left"}}', b'{"index": 2}', b'{"index": -1}'])
def test_it_calls_actions_outside_the_legal_list_illegal(line):
    with pytest.raises(IllegalReply):
        parse_reply(line, LEGAL)


def test_it_requires_ready_after_start():
    parse_ready(b'{"type": "ready"}')
    with pytest.raises(ProtocolError):
        parse_ready(b'{"type": "steady"}')


def test_messages_are_single_json_lines_with_the_documented_fields():
    start = json.loads(start_message("dive", 1, 3, {}, {"move_ms": 100}, 42))
    assert start == {"type": "start", "game": "dive", "seat": 1, "num_players": 3, "options": {},
                     "limits": {"move_ms": 100}, "seed": 42}
    act = act_message(7, {"note": "line\nbreak"}, LEGAL, 123.456)
    assert act.count(b"\n") == 1 and act.endswith(b"\n")
    assert json.loads(act) == {"type": "act", "step": 7, "observation": {"note": "line\nbreak"},
                               "legal_actions": LEGAL, "time_left_ms": 123.5}


# --- whatever a bot writes: fuzzed with hypothesis on a bounded budget ----------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from workers.protocol import MAX_DEPTH  # noqa: E402
from workers.storable import storable_text  # noqa: E402

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30)


def nested(depth: int, kind: str) -> bytes:
    """A reply whose action nests ``depth`` levels deep (the bytes an attacker sends)."""
    if kind == "list":
        return b'{"action": {"a": ' + b"[" * depth + b"]" * depth + b"}}"
    return b'{"action": ' + b'{"a": ' * depth + b"1" + b"}" * depth + b"}"


hostile_lines = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda value: json.dumps({"action": value}).encode()),
    json_values.map(lambda value: json.dumps({"index": value}).encode()),
    st.builds(nested, st.integers(0, 20_000), st.sampled_from(["list", "dict"])),
    st.integers(1, 30_000).map(lambda digits: b'{"index": ' + b"9" * digits + b"}"),
    st.text().map(lambda text: json.dumps({"action": {"move": text}}).encode()),
    st.sampled_from([b'{"index": NaN}', b'{"index": 1e999}', b'{"action": {"x": -Infinity}}',
                     b'{"action": {"\\u0000": "\\ud800"}}', b'\xef\xbb\xbf{"index": 0}',
                     '{"index": 0}'.encode("utf-16"), b'{"index": 0}\x00', b"\x00" * 50]),
)


def _check_outcome_of(line: bytes) -> None:
    try:
        chosen = parse_reply(line, LEGAL)
    except (ProtocolError, IllegalReply) as exc:
        assert storable_text(str(exc)) == str(exc)      # a message that any database stores
        assert len(str(exc)) < 400
    else:
        assert any(chosen is action for action in LEGAL)  # the engine's own action, nothing else
    try:
        parse_ready(line)
    except ProtocolError as exc:
        assert storable_text(str(exc)) == str(exc)


@FUZZ
@given(hostile_lines)
def test_any_bytes_a_bot_replies_end_as_an_action_or_a_protocol_or_illegal_fault(line):
    _check_outcome_of(line)


@FUZZ
@given(st.lists(st.binary(max_size=200), max_size=20), st.integers(1, 400))
def test_any_blocks_a_bot_writes_are_cut_into_lines_or_refused_as_too_long(blocks, cap):
    buffer = LineBuffer(max_line=cap)
    for block in blocks:
        buffer.feed(block)
        while True:
            try:
                line = buffer.pop_line()
            except ProtocolError:
                return
            if line is None:
                break
            assert b"\n" not in line and len(line) <= cap
            _check_outcome_of(line)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 100_000])
@pytest.mark.parametrize("kind", ["list", "dict"])
def test_a_deeply_nested_reply_is_a_protocol_fault_not_a_recursion_error(depth, kind):
    with pytest.raises(ProtocolError, match="nested deeper"):
        parse_reply(nested(depth, kind), LEGAL)


def test_a_reply_just_within_the_nesting_limit_is_read_and_judged():
    with pytest.raises(IllegalReply):
        parse_reply(nested(MAX_DEPTH - 3, "list"), LEGAL)


def test_a_huge_number_is_refused_even_when_the_process_allows_huge_ints():
    import sys

    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)       # as some library in a worker might
    try:
        with pytest.raises(ProtocolError, match="number of 200000 characters"):
            parse_reply(b'{"index": ' + b"7" * 200_000 + b"}", LEGAL)
    finally:
        sys.set_int_max_str_digits(previous)


@pytest.mark.parametrize("line", [b'{"index": NaN}', b'{"action": {"x": Infinity}}', '{"index": 0}'.encode("utf-16"),
                                  b'{"action": {"move": "up"}}\x00'])
def test_what_is_not_strict_utf8_json_is_a_protocol_fault(line):
    with pytest.raises(ProtocolError):
        parse_reply(line, LEGAL)


def test_an_act_message_with_its_observation_serialized_beforehand_is_the_same_bytes():
    from workers.protocol import act_message, encode, observation_text

    observation = {"round": 2, "you": 1, "tiles": [[1, "ü"], None, 3.5], "nested": {"b": True, "a": "x\n"}}
    legal = [{"type": "roll"}, {"type": "stop", "n": 2}]
    whole = encode({"type": "act", "step": 12, "observation": observation, "legal_actions": legal,
                    "time_left_ms": round(2099.96, 1)})
    assert act_message(12, observation, legal, 2099.96) == whole
    assert act_message(12, observation, legal, 2099.96, observation_text(observation)) == whole
