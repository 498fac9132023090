"""The package's module import graph, read with `ast`: no import cycle, and no module imports a
module of the package inside a function (an import that would hide a cycle)."""

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
    out = []
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module:
            out.append(name)
    return out


FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def import_graph() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """(module -> the package modules it imports at module level, the function-level imports
    of package modules as (module, imported, line))."""
    known = modules()
    graph: dict[str, set[str]] = {}
    in_functions: list[tuple[str, str, int]] = []
    for module, path in known.items():
        edges: set[str] = set()
        is_init = path.name == "__init__.py"
        # (node, whether it lies inside a function or lambda)
        stack = [(ast.parse(path.read_text(encoding="utf-8")), False)]
        while stack:
            node, in_function = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in targets(module, is_init, child, known):
                        if in_function:
                            in_functions.append((module, target, child.lineno))
                        else:
                            edges.add(target)
                stack.append((child, in_function or isinstance(child, FUNCTION_NODES)))
        graph[module] = edges
    return graph, in_functions


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as [a, b, ..., a], or [] when there is none (an
    iterative depth-first search)."""
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
