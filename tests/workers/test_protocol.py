"""The JSON-lines protocol: line cutting, caps and reply parsing."""

from __future__ import annotations

import json

import pytest

from workers.protocol import (IllegalReply, LineBuffer, ProtocolError, act_message, parse_ready,
                              parse_reply, start_message)

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
