"""Text a bot controls, made safe to store anywhere (PostgreSQL text and jsonb included); pure.

PostgreSQL refuses NUL in ``text`` and ``\\u0000`` in ``jsonb``, and a lone surrogate (which
``json.loads`` happily produces from ``"\\ud800"``) cannot even be encoded as UTF-8. A bot's
stderr, its fault messages and anything else of its output that is kept pass through here, so
a bot's bytes end, at worst, as odd characters in its own log, never as a failed recording.
"""

from __future__ import annotations

from typing import Any

NUL_SHOWN = "\u2400"   # SYMBOL FOR NULL: keeps the log readable and shows where the NULs were


def storable_text(text: str) -> str:
    """``text`` with NUL shown as U+2400 and every lone surrogate replaced by U+FFFD."""
    if "\x00" in text:
        text = text.replace("\x00", NUL_SHOWN)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)
    return text


def storable(value):
    """A JSON-able value with every string in it (dict keys too) made storable; iterative."""
    if isinstance(value, str):
        return storable_text(value)
    if not isinstance(value, (dict, list, tuple)):
        return value
    root: list = [None]
    stack: list[tuple[object, Any, Any]] = [(value, root, 0)]
    while stack:
        item, parent, key = stack.pop()
        if isinstance(item, dict):
            mapping: dict = {}
            parent[key] = mapping
            for name, child in item.items():
                name = storable_text(name) if isinstance(name, str) else name
                mapping[name] = None
                stack.append((child, mapping, name))
        elif isinstance(item, (list, tuple)):
            copy = [None] * len(item)
            parent[key] = copy
            stack.extend((child, copy, index) for index, child in enumerate(item))
        elif isinstance(item, str):
            parent[key] = storable_text(item)
        else:
            parent[key] = item
    return root[0]
