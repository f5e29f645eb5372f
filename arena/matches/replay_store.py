"""A replay as the arena stores it: JSON compressed with a preset dictionary, read back whatever
compressor stored it.

Compact replays are small (0.6-1.2 kB gzipped), and at that size gzip spends most of its bytes on
text every replay shares: keys, limits, the seats' shape, the games' names. Stored replays are
therefore ``DAZ1`` followed by a zlib stream whose preset dictionary is
``replay_dictionary_v1.txt`` (public replays of built-in bots, written by
``scripts/replay_dictionary.py``): 300-340 bytes less a replay than gzip, and the stream carries
the dictionary's id and a checksum of the JSON. The dictionary's bytes are frozen: replays stored
with it need exactly them. A better dictionary would be a new file under a new tag, with this one
kept for the replays it stored.

Replays stored before (gzip; or xz, bz2, zlib, plain JSON from other tools) are read as they are;
replay files on disk (``workers.replay.save``) stay gzip, as every tool reads them.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import zlib
from pathlib import Path

TAG_V1 = b"DAZ1"
DICTIONARY_V1 = (Path(__file__).resolve().parent / "replay_dictionary_v1.txt").read_bytes()
# zlib's id of a preset dictionary (its Adler-32), which each stream names. Checked here: replays
# written with a changed file would be unreadable with the real one.
DICTIONARY_V1_ID = 0x7627F927
if zlib.adler32(DICTIONARY_V1) != DICTIONARY_V1_ID:
    raise RuntimeError("arena/matches/replay_dictionary_v1.txt is not the dictionary stored replays were written with")


class StoredReplayError(ValueError):
    """Stored bytes that do not decompress to a replay's JSON."""


def pack(replay: dict) -> bytes:
    """The replay as stored: its canonical JSON, compressed with the preset dictionary."""
    text = json.dumps(replay, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS, 9, zlib.Z_DEFAULT_STRATEGY, zdict=DICTIONARY_V1)
    return TAG_V1 + compressor.compress(text) + compressor.flush()


def json_bytes(stored: bytes | memoryview | None) -> bytes | None:
    """The stored replay's JSON text as UTF-8 bytes; None when there is none.

    The format is recognised by its first bytes (the dictionary tag, gzip, xz, bz2, zlib), so
    replays stored before a change of compressor still read; anything else is taken as plain JSON.
    Raises ``StoredReplayError`` for bytes of a known format that do not decompress.
    """
    if stored is None:
        return None
    data = bytes(stored)
    if not data:
        return None
    try:
        if data[:4] == TAG_V1:
            decompressor = zlib.decompressobj(zlib.MAX_WBITS, zdict=DICTIONARY_V1)
            text = decompressor.decompress(data[4:]) + decompressor.flush()
            if not decompressor.eof:
                raise StoredReplayError("the stored replay is cut short")
            return text
        if data[:2] == b"\x1f\x8b":
            return gzip.decompress(data)
        if data[:6] == b"\xfd7zXZ\x00":
            return lzma.decompress(data)
        if data[:3] == b"BZh":
            return bz2.decompress(data)
    except (OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
        # gzip raises OSError/EOFError on a damaged stream, bz2 OSError, lzma LZMAError.
        raise StoredReplayError(f"the stored replay cannot be decompressed ({type(exc).__name__})") from None
    if data[:1] == b"\x78":
        try:
            return zlib.decompress(data)
        except zlib.error:
            pass
    return data


def unpack(stored: bytes | memoryview):
    """The stored replay's JSON value (a dict for a replay: whether it is one is the reader's
    check); ``StoredReplayError`` when there is none or it is not JSON."""
    data = json_bytes(stored)
    if data is None:
        raise StoredReplayError("there is no stored replay")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise StoredReplayError("the stored replay is not valid JSON") from None
