"""No module of arena/, competition/, engines/ or workers/ is over 600 lines (tests/ and bench/ are
not counted): past that, a module holds a second concern to split out (issue 21)."""

from __future__ import annotations

from tests.layering.imports import module_files

MAX_LINES = 600
PACKAGES = ("arena", "competition", "engines", "workers")


def test_no_module_of_the_four_packages_is_over_600_lines():
    long = {}
    for package in PACKAGES:
        modules = module_files(package)
        assert modules, f"no module found under {package}/: the check would pass vacuously"
        for module, path in modules.items():
            lines = len(path.read_text().splitlines())
            if lines > MAX_LINES:
                long[module] = lines
    assert long == {}
