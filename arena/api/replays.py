"""Turning a stored (compressed) replay back into its JSON bytes for download."""

from __future__ import annotations

import gzip

from django.http import Http404, HttpResponse, JsonResponse
from django.utils.cache import patch_vary_headers

from arena.matches.replay_store import json_bytes as replay_json_bytes
from arena.matches.selectors import match_full_replay_gzip
from workers.replay import ReplayError


def replay_response(request, *, match_id: int, stored: bytes | memoryview | None):
    """The replay as a JSON file download; None when there is none.

    To clients that accept gzip the replay goes out gzip-compressed (``Content-Encoding: gzip``;
    replays shrink about tenfold): as stored when it was stored as gzip, else compressed here;
    everyone else gets the plain JSON.
    """
    data = bytes(stored) if stored is not None else b""
    if not data:
        return None
    accepts_gzip = "gzip" in request.META.get("HTTP_ACCEPT_ENCODING", "").lower()
    if data[:2] == b"\x1f\x8b" and accepts_gzip:
        response = HttpResponse(data, content_type="application/json")
        response["Content-Encoding"] = "gzip"
    elif accepts_gzip:
        # Stored with the arena's preset dictionary, which no client has: gzip it for the way out.
        response = HttpResponse(gzip.compress(replay_json_bytes(data), compresslevel=6, mtime=0),
                                content_type="application/json")
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(replay_json_bytes(data), content_type="application/json")
    patch_vary_headers(response, ["Accept-Encoding"])
    response["Content-Disposition"] = f'attachment; filename="match-{match_id}-replay.json"'
    return response


def full_replay_response(request, *, match):
    """The finished match's replay in full form as JSON, for the viewer; 404 without one.

    A stored replay that is not one this arena reads (or a compact one the installed engine may not
    re-simulate) answers 422 with ``{"detail": why}``, which the viewer shows. The JSON is
    gzip-compressed for clients that accept it (it is many times the size of the stored replay:
    every snapshot carries its views); the expansion comes from the cache after the first request.
    """
    try:
        data = match_full_replay_gzip(match, user=getattr(request, "user", None))
    except ReplayError as exc:
        return JsonResponse({"detail": str(exc)}, status=422)
    if data is None:
        raise Http404("This match has no replay yet.")
    if "gzip" in request.META.get("HTTP_ACCEPT_ENCODING", "").lower():
        response = HttpResponse(data, content_type="application/json")
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(gzip.decompress(data), content_type="application/json")
    patch_vary_headers(response, ["Accept-Encoding"])
    return response
