"""Build the installable pipeline `<lang>_<name>` with `spacy package`, the wheel of the
`meddocan-deid` library it requires, and install the pipeline into this environment.

The pipeline's factories, tokenizer and scorer come from the library through entry
points, so the package lists the library as a requirement instead of copying code
with `--code`: `pip install` both wheels and `spacy.load("es_meddocan_deid")` works.

The package's meta.json (shown by `spacy info es_meddocan_deid`) carries the dev scores
read from `--metrics` files (`metrics/dev.json` of `evaluate`, and spaCy's own
`spacy evaluate --output` file for `ents_*`), the data sources and their licences, and the
requirements.
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

import typer

import meddocan_deid

# scores copied into meta.json "performance" when a metrics file has them
PERFORMANCE_KEYS = (
    "meddocan_s1_p", "meddocan_s1_r", "meddocan_s1_f", "meddocan_s1_leak",
    "meddocan_s2_strict_p", "meddocan_s2_strict_r", "meddocan_s2_strict_f",
    "meddocan_s2_merged_p", "meddocan_s2_merged_r", "meddocan_s2_merged_f",
    "ents_p", "ents_r", "ents_f",
)
REQUIRED_KEYS = ("meddocan_s1_p", "meddocan_s1_r", "meddocan_s1_f")
SOURCES = [
    {
        "name": "MEDDOCAN corpus (Medical Document Anonymization, IberLEF 2019)",
        "url": "https://github.com/PlanTL-GOB-ES/SPACCC_MEDDOCAN",
        "license": "CC BY 4.0",
        "author": "Secretaría de Estado para el Avance Digital (SEAD), Plan TL",
    },
    {
        "name": "MEDDOCAN gazetteer (names, surnames, streets, towns, hospitals, professions), "
                "used as NER features by the optional ensemble and for surrogates at run time; not shipped",
        "url": "https://github.com/PlanTL-GOB-ES/SPACCC_MEDDOCAN",
        "license": "CC BY 4.0",
    },
]
DESCRIPTION = (
    "Finds the 29 PHI types of the MEDDOCAN annotation scheme (names, dates, ages, identifiers, "
    "addresses, hospitals, contacts ...) in Spanish clinical reports, so that they can be "
    "de-identified: sections, header/footer rules and a CNN NER trained on the 500 train reports "
    "of the MEDDOCAN corpus (synthetic clinical case reports annotated with PHI). Performance "
    "(meta.json): official-style MEDDOCAN scores on its 250 dev reports."
)


def read_performance(paths) -> dict:
    """The PERFORMANCE_KEYS found in the metrics files (later files win); a missing or
    unreadable file, or no subtask-1 scores at all, is an error naming the file."""
    performance = {}
    for path in paths:
        path = Path(path)
        try:
            scores = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"{path}: metrics file not found (run `spacy project run evaluate` first)")
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: not valid JSON ({err.msg}, line {err.lineno})")
        if not isinstance(scores, dict):
            raise ValueError(f"{path}: expected a JSON object of scores")
        for key in PERFORMANCE_KEYS:
            value = scores.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                performance[key] = value
    if paths:
        missing = [key for key in REQUIRED_KEYS if key not in performance]
        if missing:
            raise ValueError(f"{', '.join(str(p) for p in paths)}: no {', '.join(missing)} (not a metrics file of scripts/evaluate.py)")
    return performance


def build_meta(library_version: str, performance: dict) -> dict:
    """meta.json fields given to `spacy package`, which adds the pipeline's own and sets
    `spacy_version` to the minor range of the spaCy that built it."""
    major, minor, _ = library_version.split(".")
    description = DESCRIPTION
    # `spacy info` hides "performance", so the headline scores go in the description too
    summary = [f"{name} {performance[key]:.4f}" for name, key in (
        ("subtask-1 F1", "meddocan_s1_f"), ("leak", "meddocan_s1_leak"),
        ("subtask-2 merged F1", "meddocan_s2_merged_f"), ("spaCy ents_f", "ents_f")) if key in performance]
    if summary:
        description += " Dev: " + ", ".join(summary) + "."
    return {
        "description": description,
        "url": "https://example.org/es_meddocan_deid",  # project url placeholder
        "license": "MIT (code); trained on the MEDDOCAN corpus, CC BY 4.0",
        "sources": SOURCES,
        "requirements": [f"meddocan-deid>={library_version},<{major}.{int(minor) + 1}.0"],
        "performance": performance,
    }


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
    target: str = typer.Option("", help="Install the pipeline wheel into this folder (pip --target) instead of this environment"),
    metrics: List[Path] = typer.Option([], help="Metrics JSON for meta.json performance (repeatable; later files win)"),
    meta_out: Optional[Path] = typer.Option(None, help="Write meta.json here and stop (no build)"),
) -> None:
    try:
        performance = read_performance(metrics)
    except ValueError as err:
        typer.echo(str(err), err=True)
        raise typer.Exit(1)
    meta = build_meta(meddocan_deid.__version__, performance)
    if meta_out is not None:
        meta_out.write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
        return
    output_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        meta_path = Path(tmp) / "meta.json"
        meta_path.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
        run([sys.executable, "-m", "spacy", "package", model, output_dir, "--name", name, "--version", version,
             "--meta-path", meta_path, "--build", "wheel", "--force"])
    root = Path(__file__).resolve().parent.parent
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", output_dir, root])
    wheels = sorted((output_dir / f"es_{name}-{version}" / "dist").glob("*.whl"))
    if not wheels:
        typer.echo(f"no wheel found under {output_dir}/es_{name}-{version}/dist", err=True)
        raise typer.Exit(1)
    install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall"]
    run(install + (["--target", target] if target else []) + [wheels[-1]])
    typer.echo(f"pipeline wheel: {wheels[-1]}")
    typer.echo(f"library wheel:  {sorted(output_dir.glob('meddocan_deid-*.whl'))[-1]}")


if __name__ == "__main__":
    typer.run(main)
