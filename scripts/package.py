"""Build the installable pipeline `<lang>_<name>` with `spacy package`, the wheel of the
`meddocan-deid` library it requires, and install the pipeline into this environment.

The pipeline's factories, tokenizer and scorer come from the library through entry
points, so the package lists the library as a requirement instead of copying code
with `--code`: `pip install` both wheels and `spacy.load("es_meddocan_deid")` works.

The package's meta.json (shown by `spacy info es_meddocan_deid`) carries the dev scores
read from `--metrics` files (`metrics/dev.json` of `evaluate`, and spaCy's own
`spacy evaluate --output` file for `ents_*`), the data sources and their licences, and the
requirements. `--extra-meta FILE` merges a JSON object into it (the adapt step's `adaptation`
record and description); `--no-install` only builds.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import typer
from spacy.util import load_config

import meddocan_deid
from meddocan_deid.evaluation.package_meta import build_meta, read_performance


def run(cmd):
    typer.echo("$ " + " ".join(str(c) for c in cmd))
    result = subprocess.run([str(c) for c in cmd])
    if result.returncode != 0:
        typer.echo(f"command failed with exit code {result.returncode}", err=True)
        raise typer.Exit(result.returncode)


def main(
    model: Path = typer.Argument(..., help="Assembled pipeline folder"),
    output_dir: Path = typer.Argument(..., help="Where packages are built"),
    name: str = typer.Option("meddocan_deid"),
    version: str = typer.Option("0.1.0"),
    target: str = typer.Option(
        "",
        help="Install the pipeline wheel into this folder (pip --target) instead of this "
        "environment",
    ),
    metrics: list[Path] = typer.Option(
        [], help="Metrics JSON for meta.json performance (repeatable; later files win)"
    ),
    meta_out: Path | None = typer.Option(None, help="Write meta.json here and stop (no build)"),
    extra_meta: Path | None = typer.Option(
        None, help="JSON object merged into meta.json (its keys win)"
    ),
    install: bool = typer.Option(True, help="Install the pipeline wheel after building it"),
) -> None:
    try:
        performance = read_performance(metrics)
        extra = json.loads(extra_meta.read_text(encoding="utf-8")) if extra_meta is not None else {}
        if not isinstance(extra, dict):
            raise ValueError(f"{extra_meta}: expected a JSON object")
    except (OSError, json.JSONDecodeError) as err:
        typer.echo(f"{extra_meta}: cannot read the extra meta ({type(err).__name__})", err=True)
        raise typer.Exit(1) from None
    except ValueError as err:
        typer.echo(str(err), err=True)
        raise typer.Exit(1) from None
    pipe_names = (
        load_config(model / "config.cfg")["nlp"]["pipeline"]
        if (model / "config.cfg").is_file()
        else []
    )
    meta = build_meta(meddocan_deid.__version__, performance, pipe_names)
    meta.update(extra)
    if meta_out is not None:
        meta_out.write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
        return
    output_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        meta_path = Path(tmp) / "meta.json"
        meta_path.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
        run(
            [
                sys.executable,
                "-m",
                "spacy",
                "package",
                model,
                output_dir,
                "--name",
                name,
                "--version",
                version,
                "--meta-path",
                meta_path,
                "--build",
                "wheel",
                "--force",
            ]
        )
    root = Path(__file__).resolve().parent.parent
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", output_dir, root])
    wheels = sorted((output_dir / f"es_{name}-{version}" / "dist").glob("*.whl"))
    if not wheels:
        typer.echo(f"no wheel found under {output_dir}/es_{name}-{version}/dist", err=True)
        raise typer.Exit(1)
    if install:
        pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall"]
        run(pip + (["--target", target] if target else []) + [wheels[-1]])
    typer.echo(f"pipeline wheel: {wheels[-1]}")
    typer.echo(f"library wheel:  {sorted(output_dir.glob('meddocan_deid-*.whl'))[-1]}")


if __name__ == "__main__":
    typer.run(main)
