"""arena/ points one way, and no two files import each other, even through others.

Apps that orchestrate import apps that own rows, never back: the job kit and the project's small
helpers at the bottom, then notifications, bots, matches, ladders, tournaments, abtests (each owns its rows), then runs (the
Celery tasks and what spans the apps), then the interfaces (the API, the pages, each app's admin),
then the URLs. Imports inside function bodies count like any other (tucked into a function, an
import hides a dependency; it does not remove it), and there are at most 25 of them in arena/.
"""

from __future__ import annotations

import ast

from tests.layering.imports import ROOT, Import, cycles, module_files, project_imports

# Lowest first. A module's layer is that of the longest name listed that prefixes it.
LAYERS = [
    ["arena", "arena.settings", "arena.env", "arena.celery", "arena.broker_connection", "arena.formfields",
     "arena.keyset", "arena.throttling", "arena.jobs"],
    ["arena.notifications"],  # owns its rows, imports no other app: runs decides who is told
    ["arena.bots"],
    ["arena.matches"],
    ["arena.ladders"],
    ["arena.tournaments"],
    ["arena.abtests"],  # owns its tests and pairs; orchestrates matches of versions
    ["arena.runs"],
    ["arena.api", "arena.web", "arena.bots.admin", "arena.matches.admin", "arena.ladders.admin",
     "arena.tournaments.admin", "arena.notifications.admin"],
    ["arena.urls", "arena.wsgi"],
]
MAX_IMPORTS_IN_FUNCTIONS = 25


def layer_of(module: str) -> int:
    """The index in LAYERS of ``module`` (arena modules only)."""
    best, layer = "", None
    for i, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > len(best):
                best, layer = name, i
    assert layer is not None, f"{module} is in no layer: add it to LAYERS"
    return layer


def _described(edge: Import) -> str:
    where = "inside a function" if edge.in_function else "at the top"
    return f"{edge.source}:{edge.line} imports {edge.target} ({where})"


def test_every_arena_module_has_a_layer():
    for module in module_files("arena"):
        layer_of(module)


def test_no_arena_module_imports_a_layer_above_its_own():
    upward = [_described(edge) for edge in project_imports()
              if edge.source.startswith("arena") and edge.target.startswith("arena")
              and layer_of(edge.target) > layer_of(edge.source)]
    assert upward == []


def test_no_two_project_modules_import_each_other_even_through_others():
    assert cycles(project_imports()) == []


def test_the_cycle_finder_finds_a_cycle_of_three_and_leaves_a_chain_alone():
    chain = [Import("a", "b", 1, False), Import("b", "c", 1, True)]
    assert cycles(chain) == []
    assert cycles([*chain, Import("c", "a", 1, True), Import("c", "d", 1, False)]) == [["a", "b", "c"]]


def test_arena_has_at_most_25_imports_inside_function_bodies():
    inside = []
    for module, path in module_files("arena").items():
        def visit(node, in_function: bool, module=module) -> None:
            for child in ast.iter_child_nodes(node):
                if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                    inside.append(f"{module}:{child.lineno}")
                visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

        visit(ast.parse(path.read_text(), str(path)), False)
    assert len(inside) <= MAX_IMPORTS_IN_FUNCTIONS, "\n".join(inside)


def test_the_import_reader_sees_imports_inside_functions():
    edges = project_imports(("arena",))
    assert ROOT.is_dir() and any(edge.in_function for edge in edges)
