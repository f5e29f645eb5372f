import copy

import pytest

from engines import ScriptedRandom, ScriptExhausted, ScriptMismatch


def test_it_plays_back_outcomes_in_order_and_fails_loudly_when_it_runs_out():
    rng = ScriptedRandom([3, "b", [2, 1], 0.5])
    assert rng.randint(1, 6) == 3
    assert rng.choice(["a", "b"]) == "b"
    items = [1, 2, 3]
    rng.shuffle(items)
    assert items == [2, 1, 3]
    assert rng.random() == 0.5
    assert rng.remaining == 0
    with pytest.raises(ScriptExhausted, match="randint"):
        rng.randint(1, 6)


def test_it_rejects_outcomes_the_call_cannot_produce():
    with pytest.raises(ScriptMismatch):
        ScriptedRandom([7]).randint(1, 6)
    with pytest.raises(ScriptMismatch):
        ScriptedRandom(["z"]).choice(["a", "b"])
    with pytest.raises(ScriptMismatch):
        ScriptedRandom([[4]]).shuffle([1, 2, 3])


def test_a_fallback_seed_continues_with_seeded_chance():
    rng = ScriptedRandom([2], fallback=5)
    assert rng.randint(1, 6) == 2
    assert 1 <= rng.randint(1, 6) <= 6


def test_a_deep_copy_continues_independently_from_the_same_point():
    rng = ScriptedRandom([1, 2, 3])
    rng.randint(1, 6)
    twin = copy.deepcopy(rng)
    assert twin.randint(1, 6) == 2
    assert rng.randint(1, 6) == 2
