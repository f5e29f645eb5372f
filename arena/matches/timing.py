"""A seat's timing stored as typed columns, given back exactly as the runner reported it.

The runner reports each seat's timing as a dict of up to 14 keys (``workers/match/clock.py``,
``timing_row``): times in milliseconds rounded to the microsecond, a decision count, the clock
that was charged. As a jsonb document that was ~390 bytes a seat, the largest part of a finished
match's rows; as columns it is ~60: each time in whole microseconds (int4, up to 35 minutes), the
count, the clock as a boolean and, in ``timing_keys``, which of the keys the runner reported (a bit
each, in ``KEYS`` order), so that the dict comes back key for key and value for value, in the
runner's order. A timing that does not fit (a key the arena does not know, a time that is not a
whole number of microseconds, an int where the runner writes a float) is kept as it came, as a
document (``MatchSeat.timing_document``): nothing a bot's seat reported is lost or rounded.
"""

from __future__ import annotations

import math

# The runner's keys in the order it writes them; a key's bit in ``timing_keys`` is 1 << its index, so
# this list only grows at its end (stored rows and migration 0008 rely on the bits).
KEYS = ("seat", "decisions", "mean_ms", "p50_ms", "p95_ms", "max_ms", "bank_used_ms", "start_ms", "clock",
        "cpu_mean_ms", "cpu_p95_ms", "cpu_max_ms", "cpu_total_ms", "sandbox_cpu_ms")
# Each time in milliseconds and its column in whole microseconds.
MS_COLUMNS = {key: f"timing_{key[:-3]}_us" for key in KEYS if key.endswith("_ms")}
CLOCKS = {"cpu": True, "wall": False}
# Every column a seat's timing is read from (``.only(*TIMING_FIELDS)`` where seats are listed).
TIMING_FIELDS = ["timing_document", "timing_keys", "timing_decisions", "timing_cpu_clock", *MS_COLUMNS.values()]

_INT4_MAX = 2**31 - 1


def timing_columns(timing: dict | None, *, seat: int) -> dict:
    """The column values that store ``timing`` (the runner's dict for seat ``seat``, or None)."""
    columns = dict.fromkeys(TIMING_FIELDS)
    if timing is None:
        return columns
    packed = _packed(timing, seat=seat)
    if packed is None:
        columns["timing_document"] = timing
    else:
        columns.update(packed)
    return columns


def timing_from_columns(values, *, seat: int) -> dict | None:
    """The timing as the runner reported it, from an object or a dict holding ``TIMING_FIELDS``."""
    get = values.get if isinstance(values, dict) else lambda name: getattr(values, name)
    document = get("timing_document")
    if document is not None:
        return document
    keys = get("timing_keys")
    if keys is None:
        return None
    timing = {}
    for bit, key in enumerate(KEYS):
        if not keys & (1 << bit):
            continue
        if key == "seat":
            timing[key] = seat
        elif key == "decisions":
            timing[key] = get("timing_decisions")
        elif key == "clock":
            cpu = get("timing_cpu_clock")
            timing[key] = None if cpu is None else ("cpu" if cpu else "wall")
        else:
            micro = get(MS_COLUMNS[key])
            timing[key] = None if micro is None else micro / 1000
    return timing


def _packed(timing: dict, *, seat: int) -> dict | None:
    """The columns of ``timing``, or None when they could not give it back exactly."""
    if not isinstance(timing, dict) or not set(timing) <= set(KEYS):
        return None
    packed = {"timing_keys": sum(1 << bit for bit, key in enumerate(KEYS) if key in timing)}
    for key, value in timing.items():
        if key == "seat":
            if value != seat or type(value) is not int:
                return None
        elif key == "decisions":
            if value is not None and (type(value) is not int or not 0 <= value <= _INT4_MAX):
                return None
            packed["timing_decisions"] = value
        elif key == "clock":
            if value is not None and value not in CLOCKS:
                return None
            packed["timing_cpu_clock"] = None if value is None else CLOCKS[value]
        else:
            micro = _microseconds(value)
            if micro is False:
                return None
            packed[MS_COLUMNS[key]] = micro
    return packed


def _microseconds(value) -> int | None | bool:
    """``value`` (ms) in whole microseconds when dividing them by 1000 gives it back; else False."""
    if value is None:
        return None
    if type(value) is not float or not math.isfinite(value):
        return False
    if value == 0 and math.copysign(1.0, value) < 0:  # -0.0 would come back as 0.0
        return False
    micro = round(value * 1000)
    if abs(micro) > _INT4_MAX or micro / 1000 != value:
        return False
    return micro
