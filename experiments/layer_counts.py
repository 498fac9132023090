"""Count the run layer: how many of the library's files a `meddocan-deid deidentify` call
passes through (followed by a profile hook: a file counts when one of its functions runs
between the command line's entry and the run's end), the longest functions of the layers
around the pipeline, and the parameters of each CLI command.

    python experiments/layer_counts.py INPUT MODEL [--mode tag] [--top 5] \
        [--command deidentify-spark]

INPUT is de-identified into a temporary folder with MODEL (a pipeline folder or package);
nothing of the reports is printed, only module paths and counts. The pipeline's own
components (pipeline/) are counted apart: they are the model, not the run layer. The code
counted is the `meddocan_deid` that Python imports (PYTHONPATH=OTHER/components counts
another checkout, e.g. the code before a change).
"""

import ast
import sys
import tempfile
from pathlib import Path

import typer

LAYERS = ("cli", "engine", "deid", "formats", "spark", "service")


def package_folder() -> Path:
    """The folder of the `meddocan_deid` that is imported (not necessarily this checkout's)."""
    import meddocan_deid

    return Path(meddocan_deid.__file__).resolve().parent


def traced_files(argv: list[str]) -> set[str]:
    """The meddocan_deid files with a function called while `meddocan-deid ARGV` runs."""
    import meddocan_deid
    from meddocan_deid.cli import main as cli_main

    root = str(Path(meddocan_deid.__file__).resolve().parent)
    seen: set[str] = set()

    def hook(frame, event, _arg):
        if event == "call":
            name = frame.f_code.co_filename
            if name.startswith(root):
                seen.add(Path(name).resolve().relative_to(root).as_posix())

    sys.setprofile(hook)
    try:
        cli_main(argv)
    except SystemExit:
        pass
    finally:
        sys.setprofile(None)
    return seen


def longest_functions(top: int):
    """(lines, module, qualified name) of the longest functions under LAYERS."""
    found = []
    package = package_folder()
    for layer in LAYERS:
        for path in sorted((package / layer).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            stack = [(node, "") for node in tree.body]
            while stack:
                node, prefix = stack.pop()
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{node.name}"
                    if not isinstance(node, ast.ClassDef):
                        found.append(
                            (
                                node.end_lineno - node.lineno + 1,
                                path.relative_to(package).as_posix(),
                                name,
                            )
                        )
                    stack.extend((child, name + ".") for child in node.body)
    return sorted(found, reverse=True)[:top]


def command_parameters() -> dict[str, int]:
    from meddocan_deid.cli.app import app

    group = typer.main.get_command(app)
    return {
        name: len([p for p in cmd.params if p.name != "help"])
        for name, cmd in sorted(group.commands.items())
    }


def main(
    input_path: Path,
    model: str,
    mode: str = "tag",
    top: int = 5,
    extra: list[str] | None = typer.Option(
        None, "--extra", help="Another argument for the call (repeatable)"
    ),
    command: str = typer.Option(
        "deidentify", help="The command traced: deidentify or deidentify-spark"
    ),
):
    typer.echo(f"package: {package_folder()}")
    with tempfile.TemporaryDirectory() as tmp:
        files = traced_files(
            [
                command,
                str(input_path),
                str(Path(tmp) / "out"),
                "--mode",
                mode,
                "--model",
                model,
                *(extra or []),
            ]
        )
    layer = sorted(f for f in files if not f.startswith("pipeline/"))
    typer.echo(
        f"files passed through: {len(files)} ({len(layer)} outside pipeline/, "
        f"{len(files) - len(layer)} pipeline components)"
    )
    for name in layer:
        typer.echo(f"  {name}")
    typer.echo(f"longest functions in {', '.join(LAYERS)}:")
    for lines, module, name in longest_functions(top):
        typer.echo(f"  {lines:4d} lines  {module}:{name}")
    params = command_parameters()
    typer.echo("CLI command parameters: " + ", ".join(f"{k} {v}" for k, v in params.items()))


if __name__ == "__main__":
    typer.run(main)
