"""Chance for engines: keyed by where it sits in the game, plus a scripted source for tests.

The default source is :class:`KeyedRandom`. An engine never draws from one stream in play
order; it asks for the stream of a *key* that names where the chance sits (for example
``("dice", round, seat)`` or ``("shark", round)``) and draws from that stream. A stream is
a function of the seed and its key only, so the same seed gives the same seat slot the same
dice whatever the other seats chose or how many draws their choices consumed (DESIGN.md,
engine API). Within one stream every elementary draw (a die, a card position, a float)
takes exactly one 32-bit word, so the n-th draw of a stream sits at word n; an engine that
sometimes needs fewer draws than a slot holds calls :meth:`KeyedStream.skip` to keep the
later draws where they sit.

Streams offer the subset of ``random.Random`` that engines use: ``random``, ``randrange``,
``randint``, ``choice``, ``shuffle`` and ``sample`` (with ``counts``, for drawing from a
bag). A test fixes every outcome by passing a :class:`ScriptedRandom` to
``game.new_state(..., rng=...)``: it answers every key by playing back its script in order,
so a script lists the outcomes in the order the engine draws them.

How the words are made: a 32-byte key is derived from the seed with BLAKE2b; word block b
of a stream is BLAKE2b keyed with it over (key, b), sixteen 32-bit words a block. A hot path
may read a block's bytes straight from the source (``KeyedRandom.block`` with the names
``stream_key`` and ``block_id`` give, the same for every seed) and find outcomes from the
words itself, as ``KeyedStream.below_at`` documents; ``rejected_words(n)`` lists the words
for which that takes more than a multiply and a shift. Outcomes are exactly uniform
(multiply-shift with Lemire's rejection, as unbiased as ``random.Random``). A bot sees outcomes only, and cannot get the seed or any other stream
back from them short of trying every seed.
"""

from __future__ import annotations

import copy
import hashlib
import random
import struct
from collections import Counter
from collections.abc import Iterable
from typing import Any

_WORDS_PER_BLOCK = WORDS_PER_BLOCK = 16
MASK32 = 0xFFFFFFFF
_TWO_32 = 1 << 32
_FLOAT_UNIT = 2.0 ** -53
_unpack_block = struct.Struct("<16I").unpack
_PERSON = b"dive-arena-chnc"  # domain separation of the seed key (at most 16 bytes)


_PACKERS = tuple(struct.Struct(f"<{count}q").pack for count in range(9))
_pack_one = _PACKERS[1]


def _pack_numbers(numbers: tuple) -> bytes:
    if len(numbers) < len(_PACKERS):
        return _PACKERS[len(numbers)](*numbers)
    return struct.pack(f"<{len(numbers)}q", *numbers)


# A stream key starts with its label's bytes: encoded once per label for every game (a pure
# function of the label, the same for every seed; engines use a handful of fixed labels).
_LABEL_PREFIXES: dict[str, bytes] = {}


def _label_prefix(label: str) -> bytes:
    if type(label) is not str or "\0" in label or not label:
        raise TypeError(f"a stream label is a non-empty string without NUL, not {label!r}")
    prefix = _LABEL_PREFIXES[label] = label.encode() + b"\0"
    return prefix


def stream_key(label: str, *numbers: int) -> bytes:
    """The bytes that name the stream at key ``(label, *numbers)``, the same for every seed
    (for :func:`block_id`; an engine may compute the names it uses once)."""
    prefix = _LABEL_PREFIXES.get(label) or _label_prefix(label)
    try:
        return prefix + (_pack_one(*numbers) if len(numbers) == 1 else _pack_numbers(numbers))
    except struct.error:
        raise TypeError(f"stream key numbers must be 64-bit integers, got {numbers!r}") from None


def block_id(key: bytes, index: int) -> bytes:
    """What names word block ``index`` (words ``16 * index`` to ``16 * index + 15``) of the stream
    named ``key`` (:func:`stream_key`), for :meth:`KeyedRandom.block`; the same for every seed."""
    if not 0 <= index < 1 << 32:
        raise ValueError(f"a stream has 2**32 blocks, not block {index}")
    return key + index.to_bytes(4, "little")


class KeyedRandom:
    """The seeded chance of one game: ``stream(label, *numbers)`` depends on the seed and that key only.

    Immutable (it keeps no draw position), so copies and clones of a state share it.
    """

    __slots__ = ("seed", "_base", "_block_base")

    def __init__(self, seed: int):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"a seed is an integer, not {seed!r}")
        self.seed = seed
        size = max(8, (seed.bit_length() + 8) // 8)  # signed, so any integer has one encoding
        key = hashlib.blake2b(seed.to_bytes(size, "little", signed=True), digest_size=32,
                              person=_PERSON).digest()
        self._base = hashlib.blake2b(key=key, digest_size=64)
        # Every word block hashes b"B" + its stream key + its index: hashing the "B" once here
        # also compresses the padded key block, so each block then costs one compression, not two
        # (same bytes hashed, so the same words).
        self._block_base = self._base.copy()
        self._block_base.update(b"B")

    def stream(self, label: str, *numbers: int) -> KeyedStream:
        """A fresh stream at key ``(label, *numbers)``: the same key always yields the same draws."""
        prefix = _LABEL_PREFIXES.get(label) or _label_prefix(label)
        try:
            # One number is by far the usual key: packed without the general helper's call.
            key = prefix + (_pack_one(*numbers) if len(numbers) == 1 else _pack_numbers(numbers))
        except struct.error:
            raise TypeError(f"stream key numbers must be 64-bit integers, got {numbers!r}") from None
        return KeyedStream(self._base, key, self._block_base)

    def block(self, block: bytes) -> bytes:
        """The 64 bytes of the word block named ``block`` (:func:`block_id`): word ``16 * index + i``
        of its stream is bytes ``4 i`` to ``4 i + 3``, little-endian (``struct`` format ``"<I"``),
        exactly the word the stream's own reads use there.

        For engines' hot paths: no stream is made, and an engine unpacks only the words it
        needs; the rare outcome that needs :meth:`KeyedStream.below_at` asks the stream.
        """
        hasher = self._block_base.copy()
        hasher.update(block)
        return hasher.digest()

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (KeyedRandom, (self.seed,))

    def __repr__(self) -> str:
        return "<KeyedRandom>"  # never the seed: reprs end up in logs


class KeyedStream:
    """The draws at one key: a random.Random-like reader over that key's 32-bit words.

    Draw i of the stream is word i (``random()`` takes two words, a range wider than 2**32
    two): outcomes are found from the word by Lemire's multiply-shift, and the rare word that
    would bias an outcome (probability below n / 2**32) is replaced by a word derived from its
    own position, so a rejection never moves later draws.
    """

    __slots__ = ("_base", "_key", "_block_base", "_words", "_next", "_block")

    def __init__(self, base, key: bytes, block_base=None):
        self._base = base
        self._key = key
        if block_base is None:
            block_base = base.copy()
            block_base.update(b"B")
        self._block_base = block_base   # ``base`` that has hashed b"B" (see KeyedRandom)
        self._words = ()
        self._next = _WORDS_PER_BLOCK   # index into _words of the next word (none computed yet)
        self._block = 0                 # index of the next block to compute

    def _refill(self) -> None:
        hasher = self._block_base.copy()
        hasher.update(self._key + self._block.to_bytes(4, "little"))
        self._words = _unpack_block(hasher.digest())
        self._block += 1
        self._next = 0

    def _word(self) -> int:
        index = self._next
        if index >= _WORDS_PER_BLOCK:
            self._refill()
            index = 0
        self._next = index + 1
        return self._words[index]

    def _retry_word(self, position: int, attempt: int) -> int:
        hasher = self._base.copy()
        hasher.update(b"R" + self._key + position.to_bytes(8, "little") + attempt.to_bytes(4, "little"))
        return int.from_bytes(hasher.digest()[:4], "little")

    def below_at(self, position: int, word: int, n: int) -> int:
        """The uniform integer in [0, n) that ``word``, found at ``position``, stands for.

        For engines that read words in bulk with :meth:`take`: ``(word * n) >> 32`` is the
        answer unless ``(word * n) & MASK32 < n``; only then is this call needed.
        """
        product = word * n
        if (product & MASK32) < n:
            # Lemire: reject the few low products that would make some outcomes likelier.
            threshold = (_TWO_32 - n) % n
            attempt = 0
            while (product & MASK32) < threshold:
                product = self._retry_word(position, attempt) * n
                attempt += 1
        return product >> 32

    def _below(self, n: int) -> int:
        """A uniform integer in [0, n), 1 <= n (one word; two when n > 2**32)."""
        if n > _TWO_32:
            return self._below_wide(n)
        index = self._next
        if index >= _WORDS_PER_BLOCK:
            self._refill()
            index = 0
        self._next = index + 1
        product = self._words[index] * n
        if (product & MASK32) < n:
            return self.below_at(self.position - 1, self._words[index], n)
        return product >> 32

    def _below_wide(self, n: int) -> int:
        if n > 1 << 64:
            raise ValueError(f"a range of {n} outcomes is wider than a stream draws (2**64)")
        position = self.position
        product = ((self._word() << 32) | self._word()) * n
        attempt = 0
        threshold = ((1 << 64) - n) % n
        while (product & ((1 << 64) - 1)) < threshold:
            product = ((self._retry_word(position, attempt) << 32)
                       | self._retry_word(position + 1, attempt)) * n
            attempt += 1
        return product >> 64

    @property
    def position(self) -> int:
        """How many words this stream has used so far."""
        return (self._block - 1) * _WORDS_PER_BLOCK + self._next

    # --- the random.Random subset engines use -------------------------------------------
    def random(self) -> float:
        """A float in [0, 1) with 53 random bits (two words)."""
        index = self._next
        if index <= _WORDS_PER_BLOCK - 2:
            self._next = index + 2
            words = self._words
            return ((words[index] << 21) | (words[index + 1] >> 11)) * _FLOAT_UNIT
        return ((self._word() << 21) | (self._word() >> 11)) * _FLOAT_UNIT

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        """Like ``random.Random.randrange`` (integers only)."""
        if stop is None:
            start, stop = 0, start
        width = len(range(start, stop, step))
        if width <= 0:
            raise ValueError(f"empty range for randrange({start}, {stop}, {step})")
        return start + step * self._below(width)

    def randint(self, a: int, b: int) -> int:
        """A uniform integer in [a, b], both included."""
        if b < a:
            raise ValueError(f"empty range for randint({a}, {b})")
        return a + self._below(b - a + 1)

    def choice(self, seq):
        """A uniform element of a non-empty sequence."""
        n = len(seq)
        if not n:
            raise IndexError("cannot choose from an empty sequence")
        index = self._next
        if index >= _WORDS_PER_BLOCK or n > _TWO_32:
            return seq[self._below(n)]
        self._next = index + 1
        product = self._words[index] * n
        if (product & MASK32) < n:
            return seq[self.below_at(self.position - 1, self._words[index], n)]
        return seq[product >> 32]

    def shuffle(self, x: list) -> None:
        """Shuffles ``x`` in place (Fisher-Yates, ``len(x) - 1`` draws)."""
        below = self._below
        for i in range(len(x) - 1, 0, -1):
            j = below(i + 1)
            x[i], x[j] = x[j], x[i]

    def sample(self, population, k: int, *, counts=None) -> list:
        """``k`` distinct picks in pick order; with ``counts``, draws from a bag holding
        ``counts[i]`` copies of ``population[i]`` (one draw per pick, uniform over the tokens
        left; the token at a draw is found in population order, so a bag that differs by a few
        tokens mostly gives the same outcome for the same draw)."""
        below = self._below
        if counts is not None:
            left = list(counts)
            if len(left) != len(population) or min(left, default=0) < 0:
                raise ValueError("counts must give one non-negative count per population element")
            total = sum(left)
            if not 0 <= k <= total:
                raise ValueError(f"sample larger than the bag ({k} of {total})")
            picks = []
            for _ in range(k):
                r = below(total)
                i = 0
                while r >= left[i]:
                    r -= left[i]
                    i += 1
                left[i] -= 1
                total -= 1
                picks.append(population[i])
            return picks
        pool = list(population)
        n = len(pool)
        if not 0 <= k <= n:
            raise ValueError(f"sample larger than the population ({k} of {n})")
        picks = []
        for i in range(k):
            j = below(n - i)
            picks.append(pool[j])
            pool[j] = pool[n - i - 1]
        return picks

    def skip(self, count: int = 1) -> None:
        """Leaves ``count`` words unused, so that later draws of this stream keep their place."""
        if count < 0:
            raise ValueError("a stream cannot go back")
        index = self._next + count
        if index <= _WORDS_PER_BLOCK:
            self._next = index
            return
        # Jump straight to the block that holds the next word.
        target = self.position + count
        self._block = target // _WORDS_PER_BLOCK
        self._refill()
        self._next = target % _WORDS_PER_BLOCK

    def take(self, count: int) -> tuple:
        """The next ``count`` raw words (for hot paths that find outcomes with :meth:`below_at`).

        Fastest for a whole block taken at a block boundary: ``take(WORDS_PER_BLOCK)`` right
        after another one, or as the first read of a stream.
        """
        index = self._next
        if index == _WORDS_PER_BLOCK and count == _WORDS_PER_BLOCK:
            self._refill()
            self._next = _WORDS_PER_BLOCK
            return self._words
        end = index + count
        if end <= _WORDS_PER_BLOCK:
            self._next = end
            return self._words[index:end]
        words = self._words[index:] if index < _WORDS_PER_BLOCK else ()
        count -= len(words)
        while count > 0:
            self._refill()
            part = min(count, _WORDS_PER_BLOCK)
            words += self._words[:part]
            self._next = part
            count -= part
        return words

    def __copy__(self):
        twin = KeyedStream.__new__(KeyedStream)
        twin._base, twin._key, twin._words = self._base, self._key, self._words
        twin._block_base = self._block_base
        twin._next, twin._block = self._next, self._block
        return twin

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __repr__(self) -> str:
        return f"<KeyedStream at word {self.position}>"


def rejected_words(n: int) -> frozenset:
    """The 32-bit words for which a draw in [0, n) is not simply ``(word * n) >> 32``: those
    Lemire's check rejects (``(word * n) & MASK32 < 2**32 % n``), which
    :meth:`KeyedStream.below_at` replaces. Fewer than ``n`` words, so meant for small ``n``: an
    engine that reads words in bulk can check a whole block against them at once.
    """
    if not 1 <= n <= 1 << 16:
        raise ValueError(f"rejected_words is for 1 <= n <= 2**16, not {n}")
    threshold = (_TWO_32 - n) % n
    # word * n = t (mod 2**32) with n = odd * 2**a has 2**a solutions when 2**a divides t, else none.
    a = (n & -n).bit_length() - 1
    modulus = 1 << (32 - a)
    inverse = pow(n >> a, -1, modulus)
    return frozenset((t >> a) * inverse % modulus + m * modulus
                     for t in range(0, threshold, 1 << a) for m in range(1 << a))


class ScriptExhausted(AssertionError):
    """The engine asked for more chance than the test scripted."""


class ScriptMismatch(AssertionError):
    """A scripted outcome does not fit the call the engine made (out of range, not a permutation, ...)."""


class ScriptedRandom(random.Random):
    """Plays back scripted outcomes, in order, one per call; fails loudly when they run out.

    It answers every stream key with itself (``stream(...)`` returns the source, ``skip`` does
    nothing), so a script lists outcomes in the order the engine draws them, whatever their keys;
    the keys asked for are recorded in ``keys``.

    Entries, by the call that consumes them:
      * ``randint(a, b)`` / ``randrange(...)``: the integer to return (checked to be in range);
      * ``choice(seq)``: the element to return (must be in ``seq``);
      * ``shuffle(lst)``: the wanted order. A full permutation of ``lst`` sets the whole
        order; a shorter list sets the first elements and the rest keep their order;
      * ``sample(pop, k)`` / ``sample(pop, k, counts=...)``: the list of ``k`` picks to return
        (checked to be drawable from the population or the bag);
      * ``random()``: a float in [0, 1).
    A ``fallback`` seed may be given to continue with seeded chance after the script ends
    (for tests that only pin the start of a game); without it, running out raises.
    """

    def __init__(self, outcomes: Iterable[Any], fallback: int | None = None):
        super().__init__(0)
        self._outcomes = list(outcomes)
        self._position = 0
        self._fallback = random.Random(fallback) if fallback is not None else None
        self.calls: list[str] = []
        self.keys: list[tuple] = []

    def _fallback_rng(self) -> random.Random:
        assert self._fallback is not None  # _next answers _FALLBACK only when there is one
        return self._fallback

    @property
    def remaining(self) -> int:
        """How many scripted outcomes have not been used yet."""
        return len(self._outcomes) - self._position

    def stream(self, label: str, *numbers: int) -> ScriptedRandom:
        """Every key is answered by this one script, in play order."""
        self.keys.append((label, *numbers))
        return self

    def skip(self, count: int = 1) -> None:
        """Scripts list only the draws made: skipped draws take no entry."""

    def _next(self, call: str):
        self.calls.append(call)
        if self._position >= len(self._outcomes):
            if self._fallback is not None:
                return _FALLBACK
            raise ScriptExhausted(
                f"scripted random source ran out at call #{len(self.calls)}: {call}")
        outcome = self._outcomes[self._position]
        self._position += 1
        return outcome

    def randint(self, a: int, b: int) -> int:
        value = self._next(f"randint({a}, {b})")
        if value is _FALLBACK:
            return self._fallback_rng().randint(a, b)
        if not (isinstance(value, int) and a <= value <= b):
            raise ScriptMismatch(f"randint({a}, {b}) scripted with {value!r}")
        return value

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        value = self._next(f"randrange({start}, {stop}, {step})")
        if value is _FALLBACK:
            return self._fallback_rng().randrange(start, stop, step)
        if value not in range(start, stop, step):
            raise ScriptMismatch(f"randrange({start}, {stop}, {step}) scripted with {value!r}")
        return value

    def choice(self, seq):
        value = self._next(f"choice(<{len(seq)} items>)")
        if value is _FALLBACK:
            return self._fallback_rng().choice(seq)
        if value not in seq:
            raise ScriptMismatch(f"choice scripted with {value!r}, which is not among {list(seq)!r}")
        return value

    def shuffle(self, lst) -> None:
        wanted = self._next(f"shuffle(<{len(lst)} items>)")
        if wanted is _FALLBACK:
            self._fallback_rng().shuffle(lst)
            return
        pool = list(lst)
        try:
            for item in wanted:
                pool.remove(item)
        except (ValueError, TypeError):
            raise ScriptMismatch(f"shuffle scripted with {wanted!r}, not drawn from {list(lst)!r}") from None
        lst[:] = list(wanted) + pool

    def sample(self, population, k, *, counts=None):
        if counts is not None:
            population = [item for item, count in zip(population, counts) for _ in range(count)]
            wanted = self._next(f"sample(<bag of {len(population)}>, {k})")
        else:
            wanted = self._next(f"sample(<{len(population)} items>, {k})")
        if wanted is _FALLBACK:
            return self._fallback_rng().sample(list(population), k)
        if (not isinstance(wanted, (list, tuple)) or len(wanted) != k
                or +(Counter(map(repr, wanted)) - Counter(map(repr, population)))):
            raise ScriptMismatch(f"sample(k={k}) scripted with {wanted!r}, not drawn from {list(population)!r}")
        return list(wanted)

    def random(self) -> float:
        value = self._next("random()")
        if value is _FALLBACK:
            return self._fallback_rng().random()
        if not (isinstance(value, float) and 0.0 <= value < 1.0):
            raise ScriptMismatch(f"random() scripted with {value!r}")
        return value

    def __deepcopy__(self, memo):
        twin = ScriptedRandom(self._outcomes)
        twin._position = self._position
        twin.calls = list(self.calls)
        twin.keys = list(self.keys)
        if self._fallback is not None:
            twin._fallback = random.Random()
            twin._fallback.setstate(self._fallback.getstate())
        memo[id(self)] = twin
        return twin

    def getrandbits(self, k: int) -> int:
        raise ScriptMismatch("engines must not call getrandbits on a scripted source")


class PlayOrderRandom:
    """Adapts a plain ``random.Random``: every key is answered by that one stream, in play order.

    This is the old, unkeyed behaviour, kept so that a caller handing ``new_state`` a
    ``random.Random`` still gets a game; such a game has no keyed independence.
    """

    __slots__ = ("source",)

    def __init__(self, source: random.Random):
        self.source = source

    def stream(self, label: str, *numbers: int) -> PlayOrderRandom:
        """The one wrapped stream, whatever the key."""
        return self

    def skip(self, count: int = 1) -> None:
        """A play-order stream has no positions to keep."""

    def random(self) -> float:
        return self.source.random()

    def randrange(self, *args) -> int:
        return self.source.randrange(*args)

    def randint(self, a: int, b: int) -> int:
        return self.source.randint(a, b)

    def choice(self, seq):
        return self.source.choice(seq)

    def shuffle(self, x: list) -> None:
        self.source.shuffle(x)

    def sample(self, population, k: int, *, counts=None) -> list:
        return self.source.sample(population, k, counts=counts)

    def __deepcopy__(self, memo):
        twin = PlayOrderRandom(copy.deepcopy(self.source, memo))
        memo[id(self)] = twin
        return twin


def chance_source(rng):
    """``rng`` as a source with ``stream()``: KeyedRandom and ScriptedRandom as they are,
    a plain ``random.Random`` answering every key in play order; TypeError otherwise."""
    if hasattr(rng, "stream"):
        return rng
    if isinstance(rng, random.Random):
        return PlayOrderRandom(rng)
    raise TypeError(f"rng must be a chance source (engines.rng.KeyedRandom or ScriptedRandom), "
                    f"not {type(rng).__name__}")


def copy_chance(source, streams):
    """Copies of ``source`` and of the streams an engine keeps from it, still linked together.

    ``streams`` is a stream or a list, tuple or dict of them (nested as needed). A scripted
    source answers every key with itself, so its streams are copied along with it (one
    deepcopy); keyed streams are independent readers and copy on their own.
    """
    if type(source) is KeyedRandom:
        return source, _copy_streams(streams)
    return copy.deepcopy((source, streams))


def _copy_streams(value):
    kind = type(value)
    if kind is KeyedStream:
        return value.__copy__()
    if kind is dict:
        return {key: _copy_streams(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return kind(_copy_streams(item) for item in value)
    raise TypeError(f"not a stream or a container of streams: {value!r}")


_FALLBACK = object()
