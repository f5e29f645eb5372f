"""Tiny server-rendered charts: an SVG polyline of a rating history (no JavaScript needed)."""

from __future__ import annotations

WIDTH, HEIGHT, PAD = 480, 120, 6


def polyline_points(values: list[float], width: int = WIDTH, height: int = HEIGHT, pad: int = PAD) -> str:
    """SVG ``points`` for ``values`` spread evenly left to right, the highest value at the top."""
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (width - 2 * pad) / max(1, len(values) - 1)
    points = []
    for i, value in enumerate(values):
        x = pad + i * step
        y = pad + (high - value) / span * (height - 2 * pad)
        points.append(f"{x:.1f},{y:.1f}")
    return " ".join(points)


def rating_chart(changes) -> dict | None:
    """A chart of ratings over matches: the value before the first change, then each value after.

    None when there is nothing to draw. ``changes`` are RatingChange rows, oldest first.
    """
    changes = list(changes)
    if not changes:
        return None
    values = [changes[0].before if changes[0].before is not None else changes[0].after]
    values += [c.after for c in changes]
    return {"points": polyline_points(values), "low": min(values), "high": max(values),
            "last": values[-1], "count": len(changes), "width": WIDTH, "height": HEIGHT}
