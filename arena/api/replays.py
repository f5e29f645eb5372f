"""Turning a stored (compressed) replay back into its JSON bytes for download."""

from __future__ import annotations

import bz2
import gzip
import lzma
import zlib


def replay_json_bytes(stored: bytes | memoryview | None) -> bytes | None:
    """The replay's JSON text as UTF-8 bytes; None when there is no replay.

    The workers compress replays; the format is recognised by its magic bytes (gzip, zlib,
    xz, bz2), so replays written before a change of compressor still download.
    """
    if stored is None:
        return None
    data = bytes(stored)
    if not data:
        return None
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:6] == b"\xfd7zXZ\x00":
        return lzma.decompress(data)
    if data[:3] == b"BZh":
        return bz2.decompress(data)
    if data[:1] == b"\x78":
        try:
            return zlib.decompress(data)
        except zlib.error:
            pass
    return data
