"""Options of the de-identification operators."""
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from ..constants import LABELS, MODES
# what one label may get from a policy: a mode, or `keep` (annotated, left in clear)
LABEL_MODES = MODES + ("keep",)


@dataclass
class DeidOptions:
    """What the operators do beyond the mode.

    tag_names: label -> name used inside the brackets of `tag` (default: the label).
    tag_numbering: `[LABEL-1]`, `[LABEL-2]`... one number per distinct value of a label in a report.
    mask_char: the character that replaces each non-space character in `mask`.
    keep_age / age_threshold / age_aggregate: in `surrogate`, ages below the threshold are
        kept; ages at or above it become the aggregate (HIPAA-style).
    keep_sex: in `surrogate`, keep the sex (else it is replaced by its tag).
    keep_kinship: in every mode, keep kinship words of FAMILIARES_SUJETO_ASISTENCIA
        (`madre`, `hermano`: they identify no one, and the clinical reading needs family
        history; default): a span of kinship words alone stays as it is, and in `surrogate`
        the kinship words of a span with a name stay. False: `tag`, `mask` and `redact`
        replace them; `surrogate` draws another kinship word of the same gender.
    gazetteer: folder of the MEDDOCAN gazetteer (None: MEDDOCAN_GAZETTEER, then
        ../shared/meddocan/gazetteer, else Faker only).
    max_chars: texts longer than this fail (nothing written); None: 50,000,000. Texts longer
        than the pipeline takes at once go through it in pieces (see `meddocan_deid.deid.pieces`).
    label_modes: label -> operator for that label (a mode or `keep`); other labels get the run's mode.
    date_shift: (min, max) days of the date offset in `surrogate` (None: 32 to 730 days,
        reaching further when a shifted date would reproduce another date of the report).
    policy: the span rules of a policy file (labels off, allow and deny lists), applied to
        the detected spans before the operator (see `meddocan_deid.deid.policy`).
    extra_patterns: a folder of `*.jsonl` field-key files (a hospital's own keys, the form of
        configs/patterns/fields.jsonl) added to the pipeline's `fields` component for the run
        (`meddocan_deid.pipeline.fields.add_field_files`).
    """

    tag_names: Dict[str, str] = field(default_factory=dict)
    tag_numbering: bool = False
    mask_char: str = "*"
    keep_age: bool = True
    age_threshold: int = 90
    age_aggregate: str = "90 años o más"
    keep_sex: bool = True
    keep_kinship: bool = True
    gazetteer: Optional[Path] = None
    max_chars: Optional[int] = None
    label_modes: Dict[str, str] = field(default_factory=dict)
    date_shift: Optional[Tuple[int, int]] = None
    policy: Optional[Any] = None
    extra_patterns: Optional[Path] = None


def check_mode(mode: str) -> str:
    """`mode` when it is one of MODES, else ValueError: the one check every entry point uses."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (expected one of {', '.join(MODES)})")
    return mode


def label_operators(mode: str, options: Optional[DeidOptions]) -> Dict[str, str]:
    """label -> the operator it gets in a run in `mode` with `options` (a mode or `keep`):
    `options.label_modes` (the policy's operators), else `mode`. ValueError for an unknown operator."""
    modes = options.label_modes if options is not None else {}
    for label, label_mode in modes.items():
        if label_mode not in LABEL_MODES:
            raise ValueError(f"unknown operator {label_mode!r} for {label} (expected one of {', '.join(LABEL_MODES)})")
    return {**{label: mode for label in LABELS}, **modes}


def needs_key(mode: str, options: Optional[DeidOptions]) -> bool:
    """Whether a run in `mode` with `options` may use the surrogate operator (and so a key),
    for a caller with no `Deidentifier` yet (e.g. the key is read before the model loads)."""
    return "surrogate" in label_operators(mode, options).values()


def read_tag_table(path: Path) -> Dict[str, str]:
    """A TSV `LABEL<TAB>NAME` table for `tag` (blank lines and `#` comments ignored)."""
    path = Path(path)
    table: Dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: cannot read the tag table ({type(err).__name__})") from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not parts[1].strip():
            raise ValueError(f"{path}:{lineno}: expected 'LABEL<TAB>NAME'")
        label = parts[0].strip()
        if label not in LABELS:
            raise ValueError(f"{path}:{lineno}: unknown label {label!r}")
        table[label] = parts[1].strip()
    return table
