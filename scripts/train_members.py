"""Train the five NERs of the packaged pipeline (configs/pipeline_ensemble.cfg) one after
the other, each as scripts/train_variant.py trains a variant, from the repository root.

    python scripts/train_members.py beam4,features_rules,features,features_rules_s1,features_s1 \
        --output-dir training/members --max-steps 4000

MEMBERS says what each member is: its config and the options of scripts/train_variant.py.
"""

import subprocess
import sys
from pathlib import Path

import typer

ROOT = Path(__file__).resolve().parent.parent
SPAN_RULES = ["--span-keys", "sections,phi_rules,rule_entities"]
# name: (config, train_variant.py options). The first NER of the vote is the beam NER; the
# four others read the rule, section (and gazetteer) spans as features, two seeds each
MEMBERS = {
    "beam4": ("configs/ner.cfg", ["--seed", "0", "--beam-width", "4"]),
    "features_rules": ("configs/ner_features.cfg", [*SPAN_RULES, "--seed", "0"]),
    "features": ("configs/ner_features.cfg", ["--seed", "0"]),
    "features_rules_s1": ("configs/ner_features.cfg", [*SPAN_RULES, "--seed", "1"]),
    "features_s1": ("configs/ner_features.cfg", ["--seed", "1"]),
}


def main(
    members: str = typer.Argument(
        ",".join(MEMBERS), help=f"Comma-separated member names (default: all): {', '.join(MEMBERS)}"
    ),
    output_dir: Path = typer.Option(Path("training/members"), help="Root-relative output folder"),
    train_path: Path = typer.Option(Path("corpus/train.spacy"), "--train"),
    dev_path: Path = typer.Option(Path("corpus/dev.spacy"), "--dev"),
    max_steps: int = typer.Option(4000),
    eval_frequency: int = typer.Option(400),
    gpu_id: int = typer.Option(-1),
) -> None:
    names = [name.strip() for name in members.split(",") if name.strip()]
    unknown = [name for name in names if name not in MEMBERS]
    if not names or unknown:
        typer.echo(
            f"members: {', '.join(unknown) or 'none given'}: not one of {', '.join(MEMBERS)}",
            err=True,
        )
        raise typer.Exit(2)
    for name in names:
        config, options = MEMBERS[name]
        cmd = [
            sys.executable,
            "scripts/train_variant.py",
            config,
            str(output_dir / name),
            "--train",
            str(train_path),
            "--dev",
            str(dev_path),
            "--max-steps",
            str(max_steps),
            "--eval-frequency",
            str(eval_frequency),
            "--gpu-id",
            str(gpu_id),
            *options,
        ]
        typer.echo(f"== {name}: " + " ".join(cmd[1:]))
        if subprocess.call(cmd, cwd=ROOT) != 0:
            typer.echo(f"member {name} failed", err=True)
            raise typer.Exit(1)


if __name__ == "__main__":
    typer.run(main)
