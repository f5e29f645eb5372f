"""No module of arena/ or competition/ is over 600 lines (tests/ and bench/ are not counted)."""

from __future__ import annotations

from tests.layering.imports import module_files

MAX_LINES = 600


def test_no_arena_or_competition_module_is_over_600_lines():
    long = {}
    for package in ("arena", "competition"):
        for module, path in module_files(package).items():
            lines = len(path.read_text().splitlines())
            if lines > MAX_LINES:
                long[module] = lines
    assert long == {}
