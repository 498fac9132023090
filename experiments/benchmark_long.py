"""Peak memory and time of the batch CLI on one long report, by size: a report of N
characters made of background reports put end to end (nothing is written to the project),
de-identified by `meddocan-deid deidentify` in a fresh process measured by /usr/bin/time.
Memory should stay flat with the size (pieces of 20,000 characters) and time grow linearly.

    python experiments/benchmark_long.py es_meddocan_deid ../shared/meddocan/background \
        --sizes 50000,5000000,50000000
"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import typer

from meddocan_deid.brat import read_text


def long_text(folder: Path, size: int) -> str:
    texts = [read_text(p) for p in sorted(folder.glob("*.txt"))]
    if not texts:
        raise typer.BadParameter(f"{folder}: no .txt reports")
    parts, total, i = [], 0, 0
    while total < size:
        parts.append(texts[i % len(texts)])
        total += len(parts[-1]) + 2
        i += 1
    return "\n\n".join(parts)[:size]


def main(
    model: str = typer.Argument(..., help="Installed package name or pipeline path"),
    folder: Path = typer.Argument(..., help="Folder of .txt reports to put end to end"),
    sizes: str = typer.Option("50000,5000000", help="Report sizes in characters, comma-separated"),
) -> None:
    timer = shutil.which("time") or "/usr/bin/time"
    typer.echo(
        f"{'characters':>12}{'seconds':>10}{'load s':>8}{'peak MB':>10}{'s per MB':>10}  status"
    )
    for size in (int(s) for s in sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            inp = Path(tmp) / "in"
            inp.mkdir()
            (inp / "report.txt").write_text(long_text(folder, size), encoding="utf-8")
            stats = Path(tmp) / "time.txt"
            cmd = [
                timer,
                "-f",
                "%e %M",
                "-o",
                str(stats),
                sys.executable,
                "-m",
                "meddocan_deid",
                "deidentify",
                str(inp),
                str(Path(tmp) / "out"),
                "--mode",
                "tag",
                "--model",
                model,
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            seconds, kb = stats.read_text().split()[-2:]
            status = (
                "written"
                if (Path(tmp) / "out" / "report.txt").exists()
                else f"failed (exit {proc.returncode})"
            )
            report = Path(tmp) / "out" / "run_report.json"
            load = json.loads(report.read_text())["model_load_seconds"] if report.exists() else 0.0
            # seconds per MB of text, the pipeline's loading left out
            typer.echo(
                f"{size:>12}{float(seconds):>10.1f}{load:>8.1f}{int(kb) / 1024:>10.0f}"
                f"{(float(seconds) - load) / (size / 1e6):>10.1f}  {status}"
            )


if __name__ == "__main__":
    typer.run(main)
