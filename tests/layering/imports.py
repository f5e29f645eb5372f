"""Reading the project's imports from its source (every import, at the top or inside a function)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("arena", "competition", "workers", "engines")


@dataclass(frozen=True)
class Import:
    """One import of a project module by another: where it is, and whether inside a function."""

    source: str
    target: str
    line: int
    in_function: bool


def module_files(package: str) -> dict[str, Path]:
    """Every module of ``package`` (migrations left out: Django writes them) by dotted name."""
    files = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        if "migrations" in path.parts:
            continue
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = path
    return files


def _resolve(name: str, known: set[str]) -> str | None:
    """The project module ``name`` means: itself, or the nearest package or module above it."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def project_imports(packages=PACKAGES) -> list[Import]:
    """Every import of one project module by another, ``from p import m`` counted as p.m when m is
    a module."""
    files = {name: path for package in packages for name, path in module_files(package).items()}
    known = set(files)
    found = []
    for source, path in files.items():
        is_package = path.name == "__init__.py"

        def visit(node, in_function: bool, source=source, is_package=is_package) -> None:
            for child in ast.iter_child_nodes(node):
                names = []
                if isinstance(child, ast.Import):
                    names = [alias.name for alias in child.names]
                elif isinstance(child, ast.ImportFrom):
                    base = child.module or ""
                    if child.level:
                        anchor = source.split(".")
                        anchor = anchor[:len(anchor) - child.level + (1 if is_package else 0)]
                        base = ".".join(anchor + ([base] if base else []))
                    names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                             for alias in child.names]
                for name in names:
                    target = _resolve(name, known)
                    if target and target != source:
                        found.append(Import(source, target, child.lineno, in_function))
                visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

        visit(ast.parse(path.read_text(), str(path)), False)
    return found


def cycles(imports: list[Import]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    graph: dict[str, set[str]] = {}
    for edge in imports:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return components
