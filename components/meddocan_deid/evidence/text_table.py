"""The quasi-identifiers a run keeps in its text, as a table for `risk`: one row per report of
the output folder, with the first kept value of each kind.

A label is kept when the run's options say so (`label_modes` "keep", from the policy or
`--option`; in surrogate mode `keep_age` and `keep_sex`, on by default); its values are then in
the output as in the original. Columns: `age` (EDAD_SUJETO_ASISTENCIA, its number of years), `sex`
(SEXO_SUJETO_ASISTENCIA, H or M), `postal_code` and `town` (TERRITORIO: five digits, or a
place), `date` (FECHAS, the first day/month/year or ISO date). A value of another shape is left
missing. The row id is the report's id; no value leaves this module but through `risk`'s
generalised classes.
"""

import json
import re
from pathlib import Path

from ..brat import BratError, parse_ann, read_text
from ..errors import RunError
from ..lexicon import tagged_words

AGE = re.compile(r"\b(\d{1,3})\b")
DATE = re.compile(r"\b(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{4})\b")
POSTAL = re.compile(r"\b(\d{5})\b")
# a kept sex value, lower case without its final dot -> H or M (pipeline/data/es/sex_words.json)
SEX = {word: "H" for word in tagged_words("sex_words", "kept_male", "es")}
SEX.update({word: "M" for word in tagged_words("sex_words", "kept_female", "es")})
KINDS = {"age": "age", "sex": "category", "postal_code": "postal_code", "town": "town"}
KINDS["date"] = "date"


def kept_labels(run_report: dict) -> set[str]:
    """The labels whose values the run left in clear: "keep" in `label_modes`, and in
    surrogate mode ages (`keep_age`, below the age threshold) and sex (`keep_sex`)."""
    options = run_report.get("options") or {}
    modes = options.get("label_modes") or {}
    kept = {label for label, mode in modes.items() if mode == "keep"}
    for label, option in (
        ("EDAD_SUJETO_ASISTENCIA", "keep_age"),
        ("SEXO_SUJETO_ASISTENCIA", "keep_sex"),
    ):
        if options.get(option) and modes.get(label, run_report.get("mode")) == "surrogate":
            kept.add(label)
    return kept


def _cells(label: str, value: str) -> dict[str, str]:
    value = value.strip()
    if label == "EDAD_SUJETO_ASISTENCIA":
        m = AGE.search(value)
        return {"age": m.group(1)} if m else {}
    if label == "SEXO_SUJETO_ASISTENCIA":
        sex = SEX.get(value.lower().rstrip("."))
        return {"sex": sex} if sex else {}
    if label == "FECHAS":
        m = DATE.search(value)
        return {"date": m.group(1)} if m else {}
    if label == "TERRITORIO":
        m = POSTAL.fullmatch(value)
        return {"postal_code": m.group(1)} if m else {"town": value}
    return {}


def kept_table(run_dir: Path) -> tuple[dict[str, list[str]], list[str], set[str]]:
    """(column -> values, report ids, labels kept) of the reports of `run_dir`."""
    run_dir = Path(run_dir)
    try:
        report = json.loads((run_dir / "run_report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise RunError(f"{run_dir}: no readable run_report.json (not a finished run)") from None
    kept = kept_labels(report)
    if not kept:
        raise RunError(
            f"{run_dir}: the run kept no quasi-identifier in its text (no label in keep mode, "
            "no keep_age or keep_sex): nothing to measure"
        )
    columns: dict[str, list[str]] = {c: [] for c in KINDS}
    ids = []
    for txt in sorted(run_dir.rglob("*.txt")):
        ann = txt.with_suffix(".ann")
        if not ann.is_file():
            continue
        try:
            text = read_text(txt)
            entities = parse_ann(read_text(ann))
        except BratError as err:
            raise RunError(str(err)) from None
        row: dict[str, str] = {}
        for _, label, frags, _surface in entities:
            if label in kept:
                for column, cell in _cells(label, text[frags[0][0] : frags[-1][1]]).items():
                    row.setdefault(column, cell)
        ids.append(txt.relative_to(run_dir).with_suffix("").as_posix())
        for column in KINDS:
            columns[column].append(row.get(column, ""))
    if not ids:
        raise RunError(f"{run_dir}: no report (.txt with its .ann) in the output folder")
    return columns, ids, kept
