"""The operators: tag, mask, redact and surrogate, applied to PHI spans of a text.

`apply_operator(text, spans, mode, ...)` returns the new text and one `Replacement` per
span: its label, its span in the original text and its span in the new text, so that a
caller can re-annotate the output. Spans are (label, start, end), end exclusive, sorted and
not overlapping (as `doc.ents`).
"""

import hashlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from string import Formatter
from typing import NamedTuple

from ..country import country_of
from ..labels import DIGIT_RULES
from ..lexicon import lookup_key
from ..passage_language import language_at, passages
from .gazetteer import Gazetteer, load_gazetteer
from .keys import Keyed, KeyLike
from .options import DeidOptions, check_mode, label_operators
from .surrogates import GENERATORS, POLICY_KEPT, Context, national_ids, offset_for, shift_date
from .surrogates.common import (
    MAX_ATTEMPTS,
    random_shape,
    scramble_digits,
    shares_digit_run,
)
from .surrogates.names import kinship_kept, name_field
from .surrogates.stated_person import stated_person

logger = logging.getLogger("meddocan_deid.deid")

Span = tuple[str, int, int]
DATE_OFFSET_ATTEMPTS = 24
# labels read with an exception of the digit-run rule (see surrogates.common.shares_digit_run)
DIGIT_RULE_KINDS = DIGIT_RULES  # the label table's digit_rule column


class Replacement(NamedTuple):
    label: str
    start: int  # in the original text
    end: int
    new_start: int  # in the de-identified text
    new_end: int

    @property
    def old_span(self) -> tuple[int, int]:
        return (self.start, self.end)

    @property
    def new_span(self) -> tuple[int, int]:
        return (self.new_start, self.new_end)


class DeidResult(NamedTuple):
    text: str
    replacements: list[Replacement]


def check_spans(text: str, spans: Iterable[Span]) -> list[Span]:
    ordered = sorted(
        ((str(label), int(s), int(e)) for label, s, e in spans), key=lambda x: (x[1], x[2])
    )
    last_end = 0
    for label, start, end in ordered:
        if not 0 <= start < end <= len(text):
            raise ValueError(f"span {start}-{end} ({label}) outside the text (length {len(text)})")
        if start < last_end:
            raise ValueError(f"span {start}-{end} ({label}) overlaps the previous span")
        last_end = end
    return ordered


def tag_text(
    label: str, value: str, options: DeidOptions, numbers: dict[str, dict[str, int]]
) -> str:
    """`options.tag_format` for the span: {label} its name, {n} its value's number in the report
    (numbering on; without {n} in the template, `-{n}` follows {label}: `[LABEL-1]`)."""
    name = options.tag_names.get(label, label)
    template = options.tag_format
    if not options.tag_numbering:
        return template.format(label=name, n="")
    seen = numbers.setdefault(label, {})
    n = seen.setdefault(lookup_key(value), len(seen) + 1)
    if not _names_number(template):
        template = template.replace("{label}", "{label}-{n}")
    return template.format(label=name, n=n)


@lru_cache(maxsize=64)
def _names_number(template: str) -> bool:
    return any(name == "n" for _, name, _, _ in Formatter().parse(template))


def mask_text(value: str, options: DeidOptions) -> str:
    return "".join(c if c.isspace() else options.mask_char for c in value)


def default_scope(text: str) -> str:
    """Scope of a report given without an id: a digest of its text (never the text)."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _choose_date_offset(ctx: Context, text: str, spans: Sequence[Span], fixed: bool) -> int:
    """The scope's date offset. Within a report scope, the first offset (of a keyed
    sequence) for which no shifted date reproduces a PHI string of the report; for a
    patient scope always the first one, so that intervals between reports are kept."""
    dates = [text[s:e] for label, s, e in spans if label == "FECHAS"]
    first = offset_for(ctx, 0)
    if fixed or not dates:
        return first
    for attempt in range(DATE_OFFSET_ATTEMPTS):
        offset = offset_for(ctx, attempt)
        ok = True
        for d in dates:
            shifted = shift_date(d, offset)
            if shifted is not None and not ctx.acceptable(shifted, d):
                ok = False
                break
        if ok:
            return offset
    return first


def make_context(
    text: str,
    spans: Sequence[Span],
    key: KeyLike,
    scope: str | None,
    options: DeidOptions,
    patient_scope: bool = False,
    gazetteer: Gazetteer | None = None,
) -> Context:
    keyed = Keyed(key, scope if scope is not None else default_scope(text))
    kept = []
    phi = []
    for label, s, e in spans:
        value = text[s:e]
        if (
            options.label_modes.get(label) == "keep"
        ):  # left in clear by the policy: a surrogate may equal it
            kept.append(value)
        elif (label == "EDAD_SUJETO_ASISTENCIA" and options.keep_age) or (
            label == "SEXO_SUJETO_ASISTENCIA" and options.keep_sex
        ):
            kept.append(value)
        else:
            phi.append(value)
    gaz = gazetteer if gazetteer is not None else load_gazetteer(options.gazetteer)
    country = options.country.upper() if options.country else country_of(text, spans)
    ctx = Context(keyed, gaz, options, phi, kept, country=country)
    ctx.date_offset = _choose_date_offset(ctx, text, spans, fixed=patient_scope)
    # the birth date and sex the report states: an identifier that holds them agrees
    ctx.state["stated_person"] = stated_person(text, spans)
    return ctx


def is_code(value: str) -> bool:
    """A value with a digit is a code (its shape may be redrawn); one without is words."""
    return any(ch.isdigit() for ch in value)


class SurrogateOperator:
    """The surrogate operator of one text: a realistic value of the label's kind (its
    generator, keyed by the context), and its own fallbacks, in this order: a label without a
    generator keeps a code's shape (new characters) and turns words into the tag; a generator
    that finds nothing gives the tag; one that could not change the value gets new characters
    of a code's shape, else the tag (never random letters for words); last, no surrogate
    shares a run of 3+ digits with its original (`keep_no_digit_run`)."""

    def __init__(self, ctx: Context, options: DeidOptions, numbers: dict[str, dict[str, int]]):
        self.ctx = ctx
        self.options = options
        self.numbers = numbers

    def tag(self, label: str, value: str) -> str:
        """The last fallback: the label's tag."""
        return tag_text(label, value, self.options, self.numbers)

    def new_shape(self, step: str, value: str) -> str:
        """A code's fallback: new characters of its shape (keyed)."""
        return self.ctx.draw(step, value, lambda rng, a: random_shape(rng, value), key_value=value)

    def __call__(self, label: str, value: str, field: str = "") -> str:
        ctx = self.ctx
        ctx.field = field  # `Nombre:` holds given names, `Apellidos:` surnames
        try:
            gen = GENERATORS.get(label)
            if (
                gen is None
            ):  # a label outside MEDDOCAN: a code keeps its shape, words become the tag
                new = self.new_shape("other", value) if is_code(value) else None
            else:
                new = gen(value, label, ctx)
            if new is None:
                return self.tag(label, value)
            kept = label in POLICY_KEPT or (
                label == "FAMILIARES_SUJETO_ASISTENCIA"
                and self.options.keep_kinship
                and kinship_kept(value)
            )
            if new == value and not kept:
                # a generator that could not change the value: a code gets new characters of its
                # shape; words never get random letters, they become the tag
                new = self.new_shape("fallback", value) if is_code(value) else value
                if new == value:
                    new = self.tag(label, value)
            if not (kept and new == value):
                new = self.keep_no_digit_run(label, value, new)
            return new
        finally:
            ctx.field = ""

    def keep_no_digit_run(self, label: str, value: str, new: str) -> str:
        """The one place that enforces the digit-run rule for every label: a surrogate that
        still shares a run of 3+ digits with its original (e.g. an ID swallowed into a name
        span, whose digits the name generator leaves alone) gets its digits redrawn (keyed,
        attempt after attempt); the tag when no draw clears it. Values kept by policy (ages
        below the threshold, the sex) are not surrogates and are left alone by the caller."""
        kind = DIGIT_RULE_KINDS.get(label, "")
        national = national_ids.kind_of(value, label, self.ctx.country) if not kind else None
        if national is not None:
            # its fixed places are no person's digits; a birth date is read as a date's digits
            kind = national_ids.draw_kind(national)
        if not shares_digit_run(new, value, kind):
            return new
        for attempt in range(MAX_ATTEMPTS):
            candidate = scramble_digits(self.ctx.keyed.rng("digit-run", value, attempt), new)
            if not shares_digit_run(candidate, value, kind):
                return candidate
        return self.tag(label, value)


def apply_operator(
    text: str,
    spans: Iterable[Span],
    mode: str,
    key: KeyLike | None = None,
    scope: str | None = None,
    options: DeidOptions | None = None,
    patient_scope: bool = False,
    gazetteer: Gazetteer | None = None,
    operators: Mapping[str, str] | None = None,
) -> DeidResult:
    """De-identify `text` given its PHI spans. `scope` is the report id (or the patient id
    with `patient_scope=True`); None: a digest of the text. `mode` applies to every label
    but those of `options.label_modes` (a mode, or `keep`: annotated, left in clear).
    `gazetteer`: the lists the surrogates draw from (e.g. `resolve_gazetteer(doc.vocab)`);
    None: `options.gazetteer`. `operators`: label -> its operator, as `label_operators(mode,
    options)` settles them once (the `Deidentifier` passes its own); None: settled here."""
    check_mode(mode)
    options = options or DeidOptions()
    if operators is None:
        operators = label_operators(mode, options)
    spans = check_spans(text, spans)
    numbers: dict[str, dict[str, int]] = {}
    surrogate: SurrogateOperator | None = None
    if any(operators.get(label, mode) == "surrogate" for label, _s, _e in spans):
        if key is None:
            raise ValueError("surrogate mode needs a key")
        surrogate = SurrogateOperator(
            make_context(text, spans, key, scope, options, patient_scope, gazetteer),
            options,
            numbers,
        )
    result = _SpanRewriter(text, mode, operators, options, numbers, surrogate).rewrite(spans)
    logger.debug("de-identified a text: mode=%s, %d spans", mode, len(result.replacements))
    return result


class _SpanRewriter:
    """The spans of one text replaced by their operators (`operators`, else `mode`): the
    numbering of tags, and the surrogate operator when a span uses it (None: none does)."""

    def __init__(
        self,
        text: str,
        mode: str,
        operators: Mapping[str, str],
        options: DeidOptions,
        numbers: dict[str, dict[str, int]],
        surrogate: SurrogateOperator | None,
    ):
        self.text, self.mode, self.operators, self.options = text, mode, operators, options
        self.numbers, self.surrogate = numbers, surrogate
        self.passages = passages(text) if surrogate is not None else []

    def rewrite(self, spans) -> DeidResult:
        """The text with each span (checked, in order) replaced, and where each replacement
        lies in the original and in the new text."""
        text = self.text
        out: list[str] = []
        replacements: list[Replacement] = []
        pos = 0
        new_pos = 0
        for label, start, end in spans:
            out.append(text[pos:start])
            new_pos += start - pos
            new = self.new_value(label, start, end)
            out.append(new)
            replacements.append(Replacement(label, start, end, new_pos, new_pos + len(new)))
            new_pos += len(new)
            pos = end
        out.append(text[pos:])
        return DeidResult("".join(out), replacements)

    def new_value(self, label: str, start: int, end: int) -> str:
        """What one span becomes under its label's operator; ValueError for an unknown one."""
        value = self.text[start:end]
        span_mode = self.operators.get(label, self.mode)
        options = self.options
        if span_mode == "keep" or (
            label == "FAMILIARES_SUJETO_ASISTENCIA" and options.keep_kinship and kinship_kept(value)
        ):
            # a kinship word alone identifies no one: kept in every mode (`Su madre falleció`)
            return value
        if span_mode == "tag":
            return tag_text(label, value, options, self.numbers)
        if span_mode == "mask":
            return mask_text(value, options)
        if span_mode == "redact":
            return ""
        surrogate = self.surrogate
        if surrogate is not None:  # made for every text with a span whose operator is surrogate
            surrogate.ctx.lang = language_at(self.passages, start)
            return surrogate(
                label, value, name_field(self.text, start) if label.startswith("NOMBRE_") else ""
            )
        raise ValueError(f"{label}: unknown operator {span_mode!r}")
