"""Count the places that write out MEDDOCAN label facts as Python literals (a repeatable count).

    python experiments/count_label_literals.py [PACKAGE_DIR]

Reads every `.py` file under PACKAGE_DIR (default: components/meddocan_deid) with `ast` and
lists the dict, tuple, list and set literals that name two or more of the 29 MEDDOCAN labels
(as keys or items): a label table, a label group or a per-label setting written in code. The
labels are those of the label table (data/labels.tsv). Prints per file the literals (line,
labels named) and the total; nothing else of the files.

A grouping that is a component's own choice, not a fact of the labels, is accepted apart when it
is a named constant (`NAME = literal`, annotated or not) whose comment block just above starts
with `# label choice:` and says why: it is listed and counted under `accepted`, not in the total.
"""

import argparse
import ast
import csv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "components" / "meddocan_deid" / "data" / "labels.tsv"


def table_labels() -> set:
    lines = [
        line
        for line in TABLE.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    return {row[0] for row in list(csv.reader(lines, delimiter="\t"))[1:]}


MARKER = "# label choice:"


def literal_nodes(tree: ast.AST, labels: set) -> list[tuple[ast.AST, int]]:
    """The dict, tuple, list and set literals under `tree` that name two or more labels, each
    with the number of labels it names."""
    found = []
    for node in ast.walk(tree):
        items = (
            node.keys
            if isinstance(node, ast.Dict)
            else node.elts
            if isinstance(node, (ast.Tuple, ast.Set, ast.List))
            else []
        )
        named = sum(1 for i in items if isinstance(i, ast.Constant) and i.value in labels)
        if named >= 2:
            found.append((node, named))
    return found


def chosen_constant(node: ast.stmt, lines: list[str]) -> bool:
    """Whether `node` assigns one named constant under a comment block that starts with
    MARKER."""
    targets = (
        node.targets
        if isinstance(node, ast.Assign)
        else [node.target]
        if isinstance(node, ast.AnnAssign)
        else []
    )
    if len(targets) != 1 or not isinstance(targets[0], ast.Name):
        return False
    if not targets[0].id.lstrip("_").isupper():
        return False
    i = node.lineno - 2  # the line above the statement, 0-based
    first = None
    while i >= 0 and lines[i].lstrip().startswith("#"):
        first = lines[i].strip()
        i -= 1
    return first is not None and first.startswith(MARKER)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "package", nargs="?", type=Path, default=ROOT / "components" / "meddocan_deid"
    )
    args = parser.parse_args()
    labels = table_labels()
    total = files = 0
    accepted: list[str] = []
    for path in sorted(args.package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
        lines = text.splitlines()
        chosen = {
            id(literal)
            for stmt in ast.walk(tree)
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and chosen_constant(stmt, lines)
            for literal, _named in literal_nodes(stmt, labels)
        }
        rel = path.relative_to(args.package)
        found = []
        for node, named in literal_nodes(tree, labels):
            line = getattr(node, "lineno", 0)
            if id(node) in chosen:
                accepted.append(f"{rel}: line {line} ({named} labels)")
            else:
                found.append((line, named))
        if found:
            files += 1
            total += len(found)
            print(f"{rel}: " + ", ".join(f"line {n} ({k} labels)" for n, k in sorted(found)))
    print(
        f"total: {total} literals naming 2+ labels in {files} files ({len(labels)} labels in the "
        "table)"
    )
    print(f"accepted: {len(accepted)} named constants commented `{MARKER}`")
    for line in accepted:
        print(f"  {line}")


if __name__ == "__main__":
    main()
