"""Count the places that write out MEDDOCAN label facts as Python literals (a repeatable count).

    python experiments/count_label_literals.py [PACKAGE_DIR]

Reads every `.py` file under PACKAGE_DIR (default: components/meddocan_deid) with `ast` and
lists the dict, tuple, list and set literals that name two or more of the 29 MEDDOCAN labels
(as keys or items): a label table, a label group or a per-label setting written in code. The
labels are those of the label table (data/labels.tsv). Prints per file the literals (line,
labels named) and the total; nothing else of the files.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "package", nargs="?", type=Path, default=ROOT / "components" / "meddocan_deid"
    )
    args = parser.parse_args()
    labels = table_labels()
    total = files = 0
    for path in sorted(args.package.rglob("*.py")):
        found = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            items = (
                node.keys
                if isinstance(node, ast.Dict)
                else node.elts
                if isinstance(node, (ast.Tuple, ast.Set, ast.List))
                else []
            )
            named = sum(1 for i in items if isinstance(i, ast.Constant) and i.value in labels)
            if named >= 2:
                found.append((node.lineno, named))
        if found:
            files += 1
            total += len(found)
            print(
                f"{path.relative_to(args.package)}: "
                + ", ".join(f"line {n} ({k} labels)" for n, k in sorted(found))
            )
    print(
        f"total: {total} literals naming 2+ labels in {files} files ({len(labels)} labels in the "
        "table)"
    )


if __name__ == "__main__":
    main()
