"""Stored replays: compressed with the arena's preset dictionary, read back whatever stored them."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import zlib

import pytest
from django.test import Client

from arena.matches import replay_store
from arena.matches.models import Match
from arena.matches.replay_store import StoredReplayError, json_bytes, pack, unpack
from arena.matches.seating import compressed_public_replay
from workers import replay as replays
from workers.runner import SeatSpec, run_match


def _played(game: str, players: int, seed: int) -> dict:
    seats = [SeatSpec(f"builtin:{('heuristic', 'random')[s % 2]}") for s in range(players)]
    return run_match(game, seats, seed).to_dict()["replay"]


def test_the_dictionary_is_the_one_stored_replays_were_written_with():
    # Replays stored with it need exactly its bytes: the module refuses to load with another file.
    assert zlib.adler32(replay_store.DICTIONARY_V1) == replay_store.DICTIONARY_V1_ID == 0x7627F927


@pytest.mark.parametrize("game,players", [("deep_sea_adventure", 4), ("dive_diver_die", 3), ("divee", 2),
                                          ("dive", 3), ("deep_dive", 2)])
def test_a_replay_comes_back_unchanged_and_smaller_than_gzip(game, players):
    replay = _played(game, players, seed=31)
    stored = compressed_public_replay(replay)
    assert stored[:4] == replay_store.TAG_V1
    assert unpack(stored) == json.loads(json.dumps(replay))
    assert replays.verify(unpack(stored)) == []
    # What the dictionary is for: the text every replay shares costs next to nothing.
    assert len(stored) < len(replays.compress(replay)) - 150


@pytest.mark.parametrize("compress", [gzip.compress, lzma.compress, bz2.compress, zlib.compress, lambda b: b])
def test_replays_stored_before_by_other_compressors_still_read(compress):
    replay = _played("divee", 2, seed=5)
    text = json.dumps(replay, separators=(",", ":")).encode()
    assert json_bytes(compress(text)) == text
    assert unpack(compress(text)) == replay


@pytest.mark.parametrize("stored,reason", [
    (pack({"a": 1})[:-6], "cut short|cannot be decompressed"),
    (replay_store.TAG_V1 + b"garbage", "cannot be decompressed"),
    (b"\x1f\x8b\x08\x00broken", "cannot be decompressed"),
    (gzip.compress(b"{nope", mtime=0), "not valid JSON"),
])
def test_damaged_stored_bytes_give_a_clear_error(stored, reason):
    with pytest.raises(StoredReplayError, match=reason):
        unpack(stored)


def test_a_dictionary_stored_replay_downloads_as_gzip_or_plain_json(replayed_match):
    stored = bytes(Match.objects.get(pk=replayed_match.pk).replay)
    assert stored[:4] == replay_store.TAG_V1
    packed = Client().get(f"/api/matches/{replayed_match.pk}/replay/", HTTP_ACCEPT_ENCODING="gzip")
    assert packed["Content-Encoding"] == "gzip" and "Accept-Encoding" in packed["Vary"]
    plain = Client().get(f"/api/matches/{replayed_match.pk}/replay/")
    assert "Content-Encoding" not in plain
    assert json.loads(gzip.decompress(packed.content)) == json.loads(plain.content) == unpack(stored)
