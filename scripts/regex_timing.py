"""Time every regular expression of the de-identification on adversarial inputs and print the
slowest: the compiled patterns of the package's modules and of a pipeline's components and
tokenizer, and the token REGEX patterns of the pattern files
(meddocan_deid.evaluation.regex_bounds). Each pattern scans (finditer, to the end) inputs of
SIZE characters made to make it try hard at every position (the slowest of each pattern at
1,000 characters); the figures are CPU seconds; a pattern still running after LIMIT wall
seconds is stopped and shown as inf. Prints counts, times and where each pattern is.

    python scripts/regex_timing.py                       # the rule pipeline of configs/
    python scripts/regex_timing.py --model /tmp/evid_pipe --size 100000 --top 10
    python scripts/regex_timing.py --only tokenizer.url_match --limit 30   # just one
"""

from pathlib import Path
from typing import Annotated

import typer

from meddocan_deid.evaluation.regex_bounds import BASE_UNITS, SIZE, collect_patterns, time_all

ROOT = Path(__file__).parent.parent


def main(
    model: Annotated[
        str | None, typer.Option(help="A pipeline to load (default: the rule pipeline).")
    ] = None,
    size: Annotated[int, typer.Option(help="Characters of each adversarial input.")] = SIZE,
    limit: Annotated[
        float, typer.Option(help="Wall seconds before a pattern is stopped (shown as inf).")
    ] = 120.0,
    top: Annotated[int, typer.Option(help="How many of the slowest to print.")] = 5,
    verbose: Annotated[bool, typer.Option(help="Print each pattern's time as it goes.")] = False,
    only: Annotated[
        list[str] | None,
        typer.Option(help="Time just the patterns found at this place (repeatable)."),
    ] = None,
) -> None:
    if model is None:
        from meddocan_deid.pipeline.rules_only import build_rule_pipeline

        nlp = build_rule_pipeline(ROOT / "configs" / "pipeline.cfg", ROOT / "configs" / "patterns")
    else:
        from meddocan_deid.pipeline.loading import load_model

        nlp = load_model(model, None)
    folders = [ROOT / "configs" / "patterns", ROOT / "components" / "meddocan_deid" / "pipeline"]
    found = collect_patterns(nlp, folders)
    if only:
        missing = set(only) - {f.where for f in found}
        if missing:
            raise typer.BadParameter(f"no pattern found at: {', '.join(sorted(missing))}")
        found = [f for f in found if f.where in only]
    timed = time_all(
        found,
        size,
        wall_limit=limit,
        progress=lambda n, total, s, where: print(f"{n}/{total} {s:.3f} s {where}", flush=True)
        if verbose
        else None,
    )
    print(f"patterns: {len(found)}, inputs each: {len(BASE_UNITS) + 1} of {size} characters")
    for seconds, where, which in timed[:top]:
        if which < 0:
            print(f"{seconds:9.3f} s  {where}  (stopped after {limit:g} s of wall time)")
            continue
        unit = repr(BASE_UNITS[which]) if which < len(BASE_UNITS) else "its literals"
        print(f"{seconds:9.3f} s  {where}  (input: {unit} repeated)")
    bounded = [t for t in timed if t[0] != float("inf")]
    stopped = len(timed) - len(bounded)
    print(f"stopped (over {limit:g} s): {stopped}")
    if bounded:
        print(f"worst of the others: {bounded[0][0]:.3f} s CPU ({bounded[0][1]})")


if __name__ == "__main__":
    typer.run(main)
