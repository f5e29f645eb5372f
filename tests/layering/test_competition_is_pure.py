"""competition/ is pure: no Django, nothing of the project above it, no I/O modules."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import competition

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("django", "celery", "rest_framework", "kombu", "arena", "workers", "engines")


def _modules() -> list[str]:
    return sorted(info.name for info in pkgutil.walk_packages(competition.__path__, "competition."))


def test_every_competition_module_imports_with_django_and_the_project_absent():
    # sys.modules[name] = None makes any import of that name fail, as if it were not installed.
    code = ("import sys\n"
            f"for name in {FORBIDDEN!r}:\n"
            "    sys.modules[name] = None\n"
            "import importlib\n"
            f"for module in {_modules()!r}:\n"
            "    importlib.import_module(module)\n"
            "print('ok')\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_no_competition_module_names_django_or_the_project_even_inside_a_function():
    offending = []
    for path in sorted((ROOT / "competition").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            offending += [f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in names
                          if name.split(".")[0] in FORBIDDEN]
    assert offending == []


def test_the_package_holds_rotation_ratings_and_formats():
    assert {"competition.rotation", "competition.ratings.elo", "competition.ratings.standing",
            "competition.ratings.batch", "competition.ratings.batch_scores", "competition.formats.round_robin",
            "competition.formats.swiss", "competition.formats.elimination", "competition.formats.standings",
            "competition.formats.tables"} <= set(_modules())
