"""The package's module import graph, read with `ast`: no import cycle, and no module imports a
module of the package inside a function (an import that would hide a cycle).

A package's `__init__.py` is a module of the graph: importing `meddocan_deid.deid.tables` runs
`meddocan_deid/deid/__init__.py` first, so a module that imports a submodule also imports the
packages above it (all but its own, which are being imported already when it runs)."""

import ast
from pathlib import Path

import meddocan_deid

PACKAGE = "meddocan_deid"
ROOT = Path(meddocan_deid.__file__).parent
# the only modules allowed a function-level import of a package module, each for its reason;
# listed by module so that a new one anywhere else fails
NOT_YET = frozenset(
    {
        # optional extras: the Spark and service modules import pyspark or uvicorn, which the CLI
        # without those extras must not need at start
        "meddocan_deid.cli.serve",
        "meddocan_deid.cli.spark",
    }
)


def modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def targets(module: str, is_package: bool, node, known: dict[str, Path]) -> list[str]:
    """The package modules an import statement reads (a name imported from a package is
    its submodule when there is one)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        names = [
            f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
            for alias in node.names
        ]
    own = {module, *_packages_above(module)}
    out = []
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module:
            out.append(name)
            out.extend(p for p in _packages_above(name) if p not in own and p in known)
    return out


def _packages_above(module: str) -> list[str]:
    """`a.b.c` -> [`a.b`, `a`]: the packages whose `__init__` runs before the module."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


def import_graph() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """(module -> the package modules it imports at module level, the function-level imports
    of package modules as (module, imported, line))."""
    known = modules()
    graph: dict[str, set[str]] = {}
    in_functions: list[tuple[str, str, int]] = []
    for module, path in known.items():
        graph[module] = set()
        is_package = path.name == "__init__.py"
        # (node, inside a function) pairs still to read, from the module's top
        todo = [(ast.parse(path.read_text(encoding="utf-8")), False)]
        while todo:
            node, in_function = todo.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in targets(module, is_package, child, known):
                        if in_function:
                            in_functions.append((module, target, child.lineno))
                        else:
                            graph[module].add(target)
                nested = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                todo.append((child, in_function or nested))
    return graph, in_functions


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as [a, b, ..., a], or [] when there is none (an iterative depth-first
    search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        path = [start]
        stack = [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph.get(nxt, ()))))
    return []


def test_find_cycle_names_the_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) == []


def test_a_package_init_is_a_module_of_the_graph():
    """A submodule's import reaches the `__init__` of the packages above it, not of its own."""
    known = {"p": Path("p/__init__.py"), "p.a": Path("p/a.py"), "p.q": Path("p/q/__init__.py")}
    known["p.q.b"] = Path("p/q/b.py")
    assert targets("p.a", False, ast.parse("from .q import b").body[0], known) == ["p.q.b", "p.q"]
    assert targets("p.q.b", False, ast.parse("from .. import a").body[0], known) == ["p.a"]
    # through the `__init__`: p.q imports p.a, which imports p.q.b, whose package is p.q
    graph = {"p.q": {"p.a"}, "p.a": {"p.q.b", "p.q"}, "p.q.b": set()}
    assert find_cycle(graph) == ["p.a", "p.q", "p.a"]


def test_no_import_cycle():
    graph, _ = import_graph()
    assert len(graph) > 50  # the package was read
    cycle = find_cycle(graph)
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_no_function_level_import_of_a_package_module():
    _, in_functions = import_graph()
    found = sorted(
        {
            f"{module}:{line} imports {target}"
            for module, target, line in in_functions
            if module not in NOT_YET
        }
    )
    assert not found, "imports inside functions:\n" + "\n".join(found)
