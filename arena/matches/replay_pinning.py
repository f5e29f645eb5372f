"""Engine pinning of stored replays: compact replays are converted to the full form before an
engine changes (docs/replay-format.md, "Engine versions"; docs/deploy.md, "Changing an engine").

A compact (version 2) replay is only ever re-simulated by the engine version that recorded it. Before
a release changes an engine, ``manage.py replays_to_full --game GAME`` (run on the release still
installed) rewrites every stored compact replay of that game as a full (version 1) replay, which
needs no engine to be shown; replays recorded after the change are compact again.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field

from arena.matches.models import Match
from arena.matches.replay_store import StoredReplayError, pack, unpack
from arena.matches.replay_store import json_bytes as replay_json_bytes
from engines import get_game
from workers.replay import COMPACT_VERSION, ReplayError, to_full
from workers.runner import REPLAY_FORMAT

_BATCH = 200
_HEADER_BYTES = 600


@dataclass
class PinningReport:
    """What a conversion found: per kind of row, the ids converted (or to convert)."""

    converted: dict = field(default_factory=lambda: {"match": []})
    # Compact replays recorded by an engine version other than the installed one: this release
    # cannot convert them (the release that recorded them can), and nothing shows them meanwhile.
    stranded: list = field(default_factory=list)
    unreadable: list = field(default_factory=list)
    stored_bytes_before: int = 0
    stored_bytes_after: int = 0


def replay_header(stored: bytes) -> dict | None:
    """``format``, ``version``, ``game`` and ``engine_version`` of a stored replay (None when it is not
    a replay), read from its first bytes where the runner writes them, else from the whole of it."""
    header = _header_from_first_bytes(bytes(stored))
    if header is not None:
        return header
    try:
        replay = unpack(stored)
    except StoredReplayError:
        return None
    if not isinstance(replay, dict):
        return None
    return {key: replay.get(key) for key in ("format", "version", "game", "engine_version")}


def _header_from_first_bytes(data: bytes) -> dict | None:
    try:
        if data[:2] == b"\x1f\x8b":
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, _HEADER_BYTES)
        else:
            head = replay_json_bytes(data)[:_HEADER_BYTES]
    except (zlib.error, OSError, EOFError, ValueError):
        return None
    text = head.decode("utf-8", "replace")
    found = {}
    for key in ("format", "version", "game", "engine_version"):
        marker = f'"{key}":'
        at = text.find(marker)
        if at < 0:
            return None
        try:
            found[key], _ = json.JSONDecoder().raw_decode(text, at + len(marker))
        except ValueError:
            return None
    return found


def convert_compact_replays(*, game: str | None = None, dry_run: bool = False, write=None) -> PinningReport:
    """Rewrite every stored compact replay (of ``game``, or of every game) as a full replay.

    Matches of every kind (smoke tests are matches); each row is updated on its own (a conversion interrupted half way
    is resumed by running it again). ``dry_run`` converts nothing and reports what it would.
    """
    if game is not None:
        get_game(game)  # KeyError with the known games for a name that is none
    report = PinningReport()
    matches = Match.objects.filter(replay__isnull=False)
    sources = [("match", matches.filter(game=game) if game is not None else matches)]
    for kind, queryset in sources:
        last = 0
        while True:
            rows = list(queryset.filter(pk__gt=last).order_by("pk").values_list("pk", "replay")[:_BATCH])
            if not rows:
                break
            last = rows[-1][0]
            for pk, stored in rows:
                _convert_one(kind, queryset.model, pk, bytes(stored), dry_run, report, write)
    return report


def _convert_one(kind, model, pk, stored: bytes, dry_run: bool, report: PinningReport, write) -> None:
    header = replay_header(stored)
    if header is None or header["format"] != REPLAY_FORMAT:
        report.unreadable.append((kind, pk))
        return
    if header["version"] != COMPACT_VERSION:
        return
    try:
        installed = get_game(header["game"]).version
    except KeyError:
        report.unreadable.append((kind, pk))
        return
    if str(header["engine_version"]) != str(installed):
        report.stranded.append((kind, pk, header["game"], header["engine_version"]))
        return
    try:
        full = to_full(unpack(stored))
    except (ReplayError, ValueError) as exc:
        report.unreadable.append((kind, pk))
        if write:
            write(f"{kind} {pk}: cannot be converted: {exc}")
        return
    data = pack(full)
    report.converted[kind].append(pk)
    report.stored_bytes_before += len(stored)
    report.stored_bytes_after += len(data)
    if not dry_run:
        # Only if it is still the replay that was read: a retention run may have pruned it meanwhile.
        model.objects.filter(pk=pk, replay=stored).update(replay=data)
