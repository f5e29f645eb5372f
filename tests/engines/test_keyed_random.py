"""engines.rng: keyed streams depend on the seed and the key only, are exactly uniform, and copy."""

from __future__ import annotations

import copy
import pickle
import random
import struct
from collections import Counter

import pytest

from engines import KeyedRandom, ScriptedRandom, ScriptMismatch, get_game
from engines.rng import (
    MASK32,
    KeyedStream,
    PlayOrderRandom,
    block_id,
    chance_source,
    copy_chance,
    rejected_words,
    stream_key,
)

FACES = (1, 2, 3, 4, 5, 6)


def test_the_same_seed_and_key_give_the_same_draws_in_any_process_order():
    first = KeyedRandom(7).stream("dice", 2, 1)
    expected = [first.choice(FACES) for _ in range(40)]
    source = KeyedRandom(7)
    # Other streams of the same source drawn before and in between change nothing.
    noise = [source.stream("dice", 2, seat) for seat in (0, 2, 3)]
    for stream in noise:
        stream.shuffle(list(range(30)))
    again = source.stream("dice", 2, 1)
    drawn = []
    for index in range(40):
        drawn.append(again.choice(FACES))
        noise[index % 3].random()
    assert drawn == expected


def test_another_key_or_another_seed_gives_other_draws():
    def draws(seed, *key):
        stream = KeyedRandom(seed).stream(*key)
        return [stream.randrange(1000) for _ in range(20)]
    base = draws(7, "dice", 2, 1)
    assert draws(7, "dice", 2, 1) == base
    for other in (draws(8, "dice", 2, 1), draws(7, "dice", 1, 2), draws(7, "dice", 2),
                  draws(7, "dice", 2, 1, 0), draws(7, "roll", 2, 1), draws(-7, "dice", 2, 1)):
        assert other != base


def test_key_numbers_and_labels_are_checked():
    source = KeyedRandom(1)
    with pytest.raises(TypeError):
        source.stream("a\0b")
    with pytest.raises(TypeError):
        source.stream("")
    with pytest.raises(TypeError):
        source.stream("dice", "1")
    with pytest.raises(TypeError):
        source.stream("dice", 2 ** 70)
    with pytest.raises(TypeError):
        KeyedRandom("7")
    with pytest.raises(TypeError):
        KeyedRandom(True)


def test_a_draw_sits_at_its_position_whatever_was_skipped_or_taken_before_it():
    reference = KeyedRandom(3).stream("round", 4)
    words = reference.take(70)
    assert reference.position == 70
    for skipped in (0, 1, 15, 16, 17, 40, 63):
        stream = KeyedRandom(3).stream("round", 4)
        stream.skip(skipped)
        assert stream.position == skipped
        assert stream.choice(FACES) == FACES[(words[skipped] * 6) >> 32]
        assert stream.position == skipped + 1
    stream = KeyedRandom(3).stream("round", 4)
    stream.take(5)
    stream.skip(11)
    assert stream.take(WORDS := 16) == tuple(words[16:16 + WORDS])
    with pytest.raises(ValueError):
        stream.skip(-1)


def test_outcomes_are_uniform():
    stream = KeyedRandom(11).stream("uniformity")
    faces = Counter(stream.choice(FACES) for _ in range(60_000))
    assert all(9_600 < faces[face] < 10_400 for face in FACES), faces
    floats = [stream.random() for _ in range(20_000)]
    assert all(0.0 <= x < 1.0 for x in floats)
    assert 0.49 < sum(floats) / len(floats) < 0.51
    assert Counter(stream.randint(1, 3) for _ in range(30_000)).keys() == {1, 2, 3}
    wide = [stream.randrange(2 ** 40) for _ in range(2000)]
    assert all(0 <= x < 2 ** 40 for x in wide) and max(wide) > 2 ** 39


def test_a_word_that_would_bias_an_outcome_is_replaced_without_moving_later_draws():
    # With n just above 2**31 about half of all words fall in Lemire's rejection zone.
    n = 2 ** 31 + 1
    stream = KeyedRandom(5).stream("wide")
    words = KeyedRandom(5).stream("wide").take(64)
    rejected = 0
    for position in range(64):
        value = stream.randrange(n)
        assert 0 <= value < n and stream.position == position + 1
        if ((words[position] * n) & MASK32) < (2 ** 32 - n) % n:
            rejected += 1
            assert value == stream.below_at(position, words[position], n)
        else:
            assert value == (words[position] * n) >> 32
    assert rejected > 10
    # The replacement depends on the position only: the same in another stream object.
    again = KeyedRandom(5).stream("wide")
    assert [again.randrange(n) for _ in range(64)] == [
        KeyedRandom(5).stream("wide").below_at(p, w, n) for p, w in enumerate(words)]


def test_a_block_read_straight_from_the_source_holds_the_streams_words():
    source = KeyedRandom(11)
    for key in [("round", 3), ("shark", 1), ("cards", 2, 7)]:
        stream = source.stream(*key)
        words = stream.take(3 * 16)
        for index in range(3):
            raw = source.block(block_id(stream_key(*key), index))
            assert struct.unpack("<16I", raw) == words[16 * index:16 * index + 16]
    # Block names are the same for every seed; the words are not.
    name = block_id(stream_key("round", 3), 0)
    assert KeyedRandom(12).block(name) != source.block(name)
    with pytest.raises(TypeError):
        stream_key("bad\0label", 1)
    with pytest.raises(ValueError):
        block_id(stream_key("round", 1), -1)


@pytest.mark.parametrize("n", [1, 2, 3, 6, 12, 55, 60, 64, 96, 255])
def test_rejected_words_are_exactly_the_words_lemire_check_replaces(n):
    threshold = (2 ** 32 - n) % n
    # Every word with (word * n) mod 2**32 = t < threshold: word * n = j * 2**32 + t, j < n.
    expected = {(j * 2 ** 32 + t) // n for j in range(n) for t in range(threshold)
                if (j * 2 ** 32 + t) % n == 0}
    assert rejected_words(n) == expected
    assert all(0 <= word < 2 ** 32 and (word * n) & MASK32 < threshold for word in expected)
    assert len(expected) < n


def test_shuffle_sample_and_bag_draws_are_uniform_without_replacement():
    stream = KeyedRandom(2).stream("cards")
    orders = Counter()
    for _ in range(24_000):
        cards = [1, 2, 3, 4]
        stream.shuffle(cards)
        orders[tuple(cards)] += 1
    assert len(orders) == 24 and all(800 < count < 1200 for count in orders.values())
    picks = Counter(tuple(stream.sample("abcd", 2)) for _ in range(12_000))
    assert len(picks) == 12 and all(850 < count < 1150 for count in picks.values())
    bag = Counter(tuple(stream.sample(("w", "b", "e"), 2, counts=[3, 1, 1])) for _ in range(20_000))
    # P(w, w) = 3/5 * 2/4; P(w, b) = 3/5 * 1/4; P(b, e) = 1/5 * 1/4.
    assert 5_700 < bag[("w", "w")] < 6_300
    assert 2_800 < bag[("w", "b")] < 3_200
    assert 850 < bag[("b", "e")] < 1_150
    assert ("b", "b") not in bag
    with pytest.raises(ValueError):
        stream.sample(("w", "b"), 3, counts=[1, 1])


def test_a_copied_stream_continues_exactly_like_its_original():
    stream = KeyedRandom(9).stream("dice", 1, 0)
    stream.take(13)
    twin = copy.copy(stream)
    deep = copy.deepcopy(stream)
    expected = [stream.random() for _ in range(30)]
    assert [twin.random() for _ in range(30)] == expected
    assert [deep.random() for _ in range(30)] == expected


def test_the_source_is_immutable_shared_by_copies_and_pickles_without_showing_its_seed():
    source = KeyedRandom(1234567)
    assert copy.copy(source) is source and copy.deepcopy(source) is source
    again = pickle.loads(pickle.dumps(source))
    assert again.stream("x").take(16) == source.stream("x").take(16)
    assert "1234567" not in repr(source) and "1234567" not in repr(source.stream("x"))


def test_the_scripted_source_answers_every_key_with_its_script_in_play_order():
    rng = ScriptedRandom([3, "b", ["w", "w"]])
    first = rng.stream("dice", 1, 0)
    second = rng.stream("cards")
    assert first is rng and second is rng
    assert first.randint(1, 6) == 3
    second.skip(5)              # a scripted source has no positions: skipping takes no entry
    assert second.choice("abc") == "b"
    assert first.sample(("w", "b"), 2, counts=[2, 1]) == ["w", "w"]
    assert rng.keys == [("dice", 1, 0), ("cards",)]
    with pytest.raises(ScriptMismatch):
        ScriptedRandom([["b", "b"]]).sample(("w", "b"), 2, counts=[2, 1])


def test_a_plain_random_source_is_accepted_and_answers_every_key_in_play_order():
    wrapped = chance_source(random.Random(4))
    assert isinstance(wrapped, PlayOrderRandom)
    assert wrapped.stream("a") is wrapped.stream("b")
    reference = random.Random(4)
    assert [wrapped.stream("a").choice(FACES) for _ in range(5)] == [reference.choice(FACES) for _ in range(5)]
    with pytest.raises(TypeError, match="chance source"):
        chance_source(object())
    state = get_game("divee").new_state(num_players=2, seed=1, rng=random.Random(4))
    assert state.to_act() == [0]


def test_copy_chance_keeps_a_scripted_source_and_its_streams_linked():
    rng = ScriptedRandom([1, 2, 3])
    source, (streams, kept) = copy_chance(rng, ([rng, rng], {"x": rng}))
    assert source is not rng and streams[0] is source and kept["x"] is source
    assert source.randint(1, 6) == 1 and rng.randint(1, 6) == 1
    keyed = KeyedRandom(3)
    stream = keyed.stream("a")
    stream.take(3)
    same, (twin,) = copy_chance(keyed, [stream])
    assert same is keyed and isinstance(twin, KeyedStream) and twin is not stream
    assert twin.take(4) == stream.take(4)
