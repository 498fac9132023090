"""Format augmentation: copies of gold train reports in other layouts.

The MEDDOCAN reports share one template (a `Key: value` header, the body, a `Remitido
por:` footer), so an NER trained on them learns the template's positions. A copy made
here keeps the body text and every gold entity, and changes the layout around them:

- the header's key -> value pairs rendered with other key words, in capitals, with
  tabs, as `Key | value | Key | value` rows or with the value under its key, in
  another order, some of them moved below the body;
- the footer as a signature block, an electronic signature or a letter's closing;
- sometimes a sentence that names the patient or a doctor with their gold values, and
  section title lines in the body;
- with a `ProseMaker` (`training.prose`), one to `prose_sentences` invented sentences that
  put PHI in prose with surrogate values (relatives, towns, professions, employers,
  centres, dates, identifiers, staff); their entities are counted apart ("invented").

A copy is a list of (text, label-or-None) segments, so the offsets of its entities are
known by construction; the label of a value is always its gold label (the key only
renders it) and its text is the gold text, upper-cased at most. The Doc is made with
the given tokenizer and `char_span(..., alignment_mode="strict")`; a span that does not
align is dropped from the copy and counted. Reads the gold docs (`doc.ents`) and the
word lists under `configs/augment/`; writes new Docs, never changes its input. The layout
choices of a copy are in `doc.user_data["augment"]`. Random choices are seeded by
(seed, report id, copy number), so the output does not depend on the order of the docs.
"""

from __future__ import annotations

import collections
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import srsly
from spacy.language import Language
from spacy.tokens import Doc, Span

from ..errors import AugmentError  # noqa: F401  (re-exported)
from ..evaluation.results import GOLD_KEY, ID_KEY
from ..labels import labels_with
from ..pipeline.sections import SectionSegmenter
from .prose import ProseMaker

AUGMENT_KEY = "augment"
HEADER_LAYOUTS = ("colon", "caps", "tab", "table", "stacked")
FOOTER_LAYOUTS = ("original", "signature", "signed_electronically", "regards")
NAME_MODES = ("separate", "combined", "reversed")
PHRASE_KINDS = (
    "role",
    "signature",
    "signed_electronically",
    "regards",
    "ncol",
    "phone",
    "fax",
    "email",
    "patient",
    "staff",
    "salutation",
    "title",
)
_PLACEHOLDER = re.compile(r"(\{\w+\})")
_STAFF = "NOMBRE_PERSONAL_SANITARIO"
_PATIENT = "NOMBRE_SUJETO_ASISTENCIA"
# label choice: the footer lines written with a prefix phrase of their own (`Tel.`, `Fax`,
# `Correo`): label -> its phrase kind (PHRASE_KINDS)
CONTACT_PHRASES: dict[str | None, str] = {
    "NUMERO_TELEFONO": "phone",
    "NUMERO_FAX": "fax",
    "CORREO_ELECTRONICO": "email",
}

Segment = tuple[str, str | None]
PLACES = labels_with("place")


@dataclass
class Field:
    """One header item: its key as written in the report, its canonical field id (None
    for a key the word list does not know), its value segments; a title has no value."""

    key: str
    value: list[Segment] = field(default_factory=list)
    key_id: str | None = None
    title: bool = False

    @property
    def entities(self) -> list[Segment]:
        return [s for s in self.value if s[1] is not None]


@dataclass
class Resources:
    """The word lists: header keys per field (with the regex that recognises the
    field's key in a report) and phrases per kind."""

    keys: dict[str, list[str]]
    matchers: list[tuple[str, re.Pattern]]
    phrases: dict[str, list[str]]
    section_patterns: list[dict]

    @classmethod
    def from_dir(cls, directory: Path, sections: Path) -> Resources:
        keys_path, phrases_path = (
            Path(directory) / "header_keys.jsonl",
            Path(directory) / "phrases.jsonl",
        )
        keys, matchers, phrases = {}, [], collections.defaultdict(list)
        for path in (keys_path, phrases_path, sections):
            if not Path(path).is_file():
                raise AugmentError(f"{path}: file not found")
        for i, row in enumerate(srsly.read_jsonl(keys_path), 1):
            if (
                not isinstance(row, dict)
                or not row.get("field")
                or not isinstance(row.get("keys"), list)
            ):
                raise AugmentError(f"{keys_path}:{i}: needs 'field' and a list 'keys'")
            keys[row["field"]] = [str(k) for k in row["keys"]]
            if row.get("match"):
                try:
                    matchers.append((row["field"], re.compile(row["match"], re.IGNORECASE)))
                except re.error as err:
                    raise AugmentError(f"{keys_path}:{i}: invalid regex: {err}") from None
        for name in ("patient", "patient_reversed"):
            if not keys.get(name):
                raise AugmentError(f"{keys_path}: needs a '{name}' field with keys")
        for i, row in enumerate(srsly.read_jsonl(phrases_path), 1):
            if (
                not isinstance(row, dict)
                or row.get("kind") not in PHRASE_KINDS
                or not isinstance(row.get("text"), str)
            ):
                raise AugmentError(
                    f"{phrases_path}:{i}: needs 'kind' (one of {', '.join(PHRASE_KINDS)}) and "
                    "'text'"
                )
            phrases[row["kind"]].append(row["text"])
        missing = [kind for kind in PHRASE_KINDS if not phrases.get(kind)]
        if missing:
            raise AugmentError(f"{phrases_path}: no phrase of kind {', '.join(missing)}")
        return cls(
            keys=keys,
            matchers=matchers,
            phrases=dict(phrases),
            section_patterns=list(srsly.read_jsonl(sections)),
        )

    def key_id(self, key: str) -> str | None:
        for name, pattern in self.matchers:
            if pattern.search(key.strip()):
                return name
        return None


# --- reading a gold doc -------------------------------------------------------------


def _segments(
    text: str, ents: Sequence[tuple[int, int, str]], start: int, end: int
) -> list[Segment]:
    out: list[Segment] = []
    pos = start
    for s, e, label in ents:
        if s < start or e > end:
            continue
        if s > pos:
            out.append((text[pos:s], None))
        out.append((text[s:e], label))
        pos = e
    if end > pos:
        out.append((text[pos:end], None))
    return out


def _key_of(glue: str) -> tuple[str, str]:
    """(key, value prefix) of the text before a value on its line: the key is what comes
    before the last colon; without a colon there is no key and the text is kept."""
    if ":" in glue:
        return glue.rsplit(":", 1)[0].strip("\ufeff \t\r.,;-"), ""
    return "", glue.strip("\ufeff \t\r")


def _standalone(line: str) -> Field | None:
    """A header line without entities: a title (`Datos del paciente.`) or a key with a
    value that is no PHI (`Servicio: Urgencias.`); None for a blank line or a bare key."""
    stripped = line.strip("\ufeff \t\r")
    if not stripped.strip(" ."):
        return None
    m = re.fullmatch(r"([^:]+?)\s*:\s*(.*?)[\s.]*", stripped)
    if m is None:
        return Field(key=stripped.rstrip(" ."), title=True)
    if not m.group(2):
        return None
    return Field(key=m.group(1), value=[(m.group(2), None)])


def parse_header(text: str, ents: Sequence[tuple[int, int, str]], header_end: int) -> list[Field]:
    """The header's items in order. Each entity belongs to the item whose key precedes it
    on its line; entities on one line joined by text without a colon (`Madrid, España`)
    make one value."""
    fields: list[Field] = []
    current: Field | None = None

    def trailing(piece: str) -> None:
        rest = piece.rstrip(" \t\r.,;")
        if current is not None and rest.strip() and ":" not in rest:
            current.value.append((rest, None))

    pos = 0
    for s, e, label in ents:
        if e > header_end:
            break
        lines = text[pos:s].split("\n")
        if len(lines) == 1 and current is not None and ":" not in lines[0]:
            current.value.append((lines[0], None))
        else:
            if len(lines) > 1:
                if current is None:  # the report's first line(s)
                    fields.extend(f for f in map(_standalone, lines[:-1]) if f is not None)
                else:
                    trailing(lines[0])
                    fields.extend(f for f in map(_standalone, lines[1:-1]) if f is not None)
            key, prefix = _key_of(lines[-1])
            current = Field(key=key)
            if prefix:
                current.value.append((prefix + " ", None))
            fields.append(current)
        current.value.append((text[s:e], label))
        pos = e
    lines = text[pos:header_end].split("\n")
    trailing(lines[0])
    fields.extend(f for f in map(_standalone, lines[1:]) if f is not None)
    return fields


@dataclass
class Parts:
    """A gold report cut into header items, body segments and footer segments."""

    fields: list[Field]
    body: list[Segment]
    footer: list[Segment]


def split_report(doc: Doc, segmenter: SectionSegmenter, resources: Resources) -> Parts:
    text = doc.text
    ents = [(e.start_char, e.end_char, e.label_) for e in doc.ents]
    header_end, footer_start = segmenter.boundaries(text)
    for s, e, _ in ents:  # an entity across a boundary stays whole, in the body
        if s < header_end < e:
            header_end = s
        if s < footer_start < e:
            footer_start = e
    fields = parse_header(text, ents, header_end)
    for item in fields:
        if item.key:
            item.key_id = resources.key_id(item.key)
    return Parts(
        fields=fields,
        body=_segments(text, ents, header_end, footer_start),
        footer=_segments(text, ents, footer_start, len(text)),
    )


# --- rendering ----------------------------------------------------------------------


def _upper(segments: Iterable[Segment]) -> list[Segment]:
    return [(t.upper(), label) for t, label in segments]


def _fill(template: str, values: dict[str, list[Segment]]) -> list[Segment]:
    out: list[Segment] = []
    for piece in _PLACEHOLDER.split(template):
        if _PLACEHOLDER.fullmatch(piece):
            out.extend(values[piece[1:-1]])
        elif piece:
            out.append((piece, None))
    return out


def _placeholders(template: str) -> set:
    return {p[1:-1] for p in _PLACEHOLDER.findall(template)}


def _join(parts: Sequence[list[Segment]], sep: str) -> list[Segment]:
    out: list[Segment] = []
    for i, part in enumerate(parts):
        if i:
            out.append((sep, None))
        out.extend(part)
    return out


@dataclass
class Item:
    key: str
    value: list[Segment]
    title: bool = False


def render_items(items: Sequence[Item], layout: str, rng: random.Random) -> list[Segment]:
    """Header items as text in a layout; every line ends with a newline."""
    out: list[Segment] = []
    caps = layout == "caps"
    stacked_colon = rng.choice((":", ""))
    row: list[Item] = []
    row_size = rng.choice((2, 3))

    def flush_row() -> None:
        if row:
            out.extend(
                _join(
                    [[(it.key + (" | " if it.key else ""), None)] + it.value for it in row], " | "
                )
            )
            out.append(("\n", None))
            row.clear()

    for it in items:
        key = it.key.upper() if caps else it.key
        value = _upper(it.value) if caps else list(it.value)
        if it.title:
            flush_row()
            if key:
                out.append((key + "\n", None))
            continue
        if layout == "table":
            row.append(Item(key, value))
            if len(row) == row_size:
                flush_row()
            continue
        if not key:
            out.extend(value + [("\n", None)])
        elif layout in ("colon", "caps"):
            out.extend([(key + ": ", None)] + value + [("\n", None)])
        elif layout == "tab":
            out.extend([(key + "\t", None)] + value + [("\n", None)])
        elif layout == "stacked":
            out.extend([(key + stacked_colon + "\n", None)] + value + [("\n", None)])
        else:
            raise ValueError(f"unknown header layout {layout!r}")
    flush_row()
    return out


def _line_starts(segments: list[Segment]) -> list[tuple[int, int]]:
    """(segment index, offset) of every line start inside the segments, except the end."""
    starts = [(0, 0)]
    total = sum(len(t) for t, _ in segments)
    pos = 0
    for i, (t, label) in enumerate(segments):
        if label is None:
            for m in re.finditer("\n", t):
                if pos + m.end() < total:
                    starts.append((i, m.end()))
        pos += len(t)
    return starts


def _line_ends(segments: list[Segment]) -> list[tuple[int, int]]:
    """(segment index, offset) of every line break that follows a full stop."""
    return [
        (i, m.start())
        for i, (t, label) in enumerate(segments)
        if label is None
        for m in re.finditer(r"(?<=\.)\n", t)
    ]


def _insert(
    segments: list[Segment], inserts: dict[tuple[int, int], list[Segment]]
) -> list[Segment]:
    """The segments with each insert placed at its (segment index, offset)."""
    out: list[Segment] = []
    for i, (t, label) in enumerate(segments):
        cuts = sorted(off for (j, off) in inserts if j == i)
        pos = 0
        for off in cuts:
            if off > pos:
                out.append((t[pos:off], label))
            out.extend(inserts[(i, off)])
            pos = off
        if pos < len(t) or not t:
            out.append((t[pos:], label))
    return out


def _entity_values(fields: Sequence[Field], key_id: str) -> list[Segment]:
    for f in fields:
        if f.key_id == key_id and f.entities:
            return f.entities
    return []


def _footer_groups(footer: list[Segment]) -> tuple[list[list[Segment]], list[str]]:
    """The footer's entities in groups that read as one value (`28018 Madrid`): entities
    of the same kind joined by text without letters, digits or line breaks; and for each
    group the text just before it (for the title of a name)."""

    def kind(label: str | None) -> str | None:
        if label in PLACES:
            return "place"
        return label

    groups: list[list[Segment]] = []
    before: list[str] = []
    glue = ""
    for t, label in footer:
        if label is None:
            glue += t
            continue
        joins = (
            groups
            and not re.search(r"[\w\n]", glue)
            and kind(groups[-1][-1][1]) == kind(label)
            and label != _STAFF
        )
        if joins:
            groups[-1].extend([(glue, None), (t, label)])
        else:
            groups.append([(t, label)])
            before.append(glue)
        glue = ""
    for group in groups:  # `(España` loses its `)` with the text after the group
        text = "".join(t for t, _ in group)
        if text.count("(") > text.count(")"):
            group.append((")", None))
    return groups, before


def _title_before(glue: str) -> str:
    m = re.search(r"\b(Dra|Dr)\b\.?\s*$", glue, re.IGNORECASE)
    return f"{m.group(1).capitalize()}. " if m else ""


class Augmenter:
    """Makes format-augmented copies of gold Docs (see the module docstring)."""

    def __init__(
        self,
        nlp: Language,
        resources: Resources,
        *,
        seed: int = 0,
        prose: ProseMaker | None = None,
        prose_sentences: int = 3,
    ):
        self.nlp = nlp
        self.resources = resources
        self.seed = seed
        # invented sentences with surrogate values (training.prose): up to this many per copy
        self.prose = prose
        self.prose_sentences = prose_sentences
        self.segmenter = SectionSegmenter(nlp, "augment_sections")
        self.segmenter.initialize(patterns=resources.section_patterns)

    def rng(self, doc: Doc, index: int, copy: int) -> random.Random:
        doc_id = doc.user_data.get(ID_KEY, f"#{index}")
        return random.Random(f"{self.seed}|{doc_id}|{copy}")

    def copies(self, doc: Doc, n: int, index: int = 0) -> Iterator[Doc]:
        for copy in range(1, n + 1):
            yield self.copy(doc, self.rng(doc, index, copy), copy)

    def copy(self, doc: Doc, rng: random.Random, copy: int = 1) -> Doc:
        res = self.resources
        parts = split_report(doc, self.segmenter, res)
        info: dict[str, object] = {"copy": copy}
        fields = [f for f in parts.fields]
        first = _entity_values(fields, "nombre")
        last = _entity_values(fields, "apellidos")
        staff_values = [s for f in fields for s in f.entities if s[1] == _STAFF]
        staff_values += [s for s in parts.footer if s[1] == _STAFF]

        # footer first: a signature can take the header's NºCol
        footer, moved_ncol = self._footer(parts.footer, fields, rng, info)
        if moved_ncol is not None:
            fields = [f for f in fields if f is not moved_ncol]

        # header items
        items = self._header_items(fields, rng, info)
        layout = rng.choice(HEADER_LAYOUTS)
        info["header"] = layout if items else "none"
        if rng.random() < 0.5 and len(items) > 1:
            items = [it for it in items if not it.title]
            rng.shuffle(items)
            info["order"] = "shuffled"
        else:
            info["order"] = "original"
        below: list[Item] = []
        value_items = [i for i, it in enumerate(items) if not it.title]
        if len(value_items) >= 3 and rng.random() < 0.3:
            chosen = set(rng.sample(value_items, rng.randint(1, min(3, len(value_items) - 1))))
            below = [it for i, it in enumerate(items) if i in chosen]
            items = [it for i, it in enumerate(items) if i not in chosen]
        info["moved_below"] = len(below)

        # body: prose sentences and title lines at line starts
        body = list(parts.body)
        added = 0
        starts = _line_starts(body) if body else []
        inserts: dict[tuple[int, int], list[Segment]] = {}
        prose: list[str] = []
        top: list[Segment] = []
        patient = _join([v for v in ([(t, lab)] for t, lab in first + last)], " ")
        values = {"patient": patient, "first": first, "last": last}
        if staff_values:
            values["staff"] = [rng.choice(staff_values)]
        for kind, p in (("salutation", 0.15), ("patient", 0.3), ("staff", 0.3)):
            templates = [
                t for t in res.phrases[kind] if all(values.get(v) for v in _placeholders(t))
            ]
            if not templates or rng.random() >= p:
                continue
            sentence = _fill(rng.choice(templates), values)
            added += sum(1 for _, label in sentence if label is not None)
            prose.append(kind)
            if kind == "salutation":
                top = sentence + [("\n\n", None)]
            elif starts:
                at = rng.choice(starts)
                inserts.setdefault(at, []).extend(sentence + [("\n", None)])
        info["prose"] = prose
        invented = 0
        if self.prose is not None and body and self.prose_sentences > 0:
            ends = _line_ends(body)
            for _ in range(rng.randint(1, self.prose_sentences)):
                kind = rng.choice(self.prose.kinds())
                sentence = self.prose.sentence(kind, rng)
                invented += sum(1 for _, label in sentence if label is not None)
                prose.append("invented_" + kind)
                if ends and rng.random() < 0.5:  # inside a paragraph, after its last sentence
                    inserts.setdefault(rng.choice(ends), []).extend([(" ", None)] + sentence)
                else:
                    inserts.setdefault(rng.choice(starts), []).extend(sentence + [("\n", None)])
        info["invented"] = invented
        n_titles = 0
        title_starts = starts[1:]  # not above the body's own first line
        if title_starts and rng.random() < 0.5:
            n_titles = rng.randint(1, min(3, len(title_starts), len(res.phrases["title"])))
            for at, title in zip(
                rng.sample(title_starts, n_titles), rng.sample(res.phrases["title"], n_titles)
            ):
                inserts.setdefault(at, []).insert(0, (title + "\n", None))
        info["titles"] = n_titles
        body = _insert(body, inserts) if inserts else body

        segments: list[Segment] = list(top)
        header_start = sum(len(t) for t, _ in segments)
        if items:
            segments += render_items(items, layout, rng)
        info["header_chars"] = [header_start, sum(len(t) for t, _ in segments)]
        if items:
            segments.append(("\n" if rng.random() < 0.5 else "", None))
        segments += body
        if below:
            if not "".join(t for t, _ in segments).endswith("\n"):
                segments.append(("\n", None))
            segments += [("\n", None)] + render_items(below, layout, rng)
        if footer:
            if not "".join(t for t, _ in segments).endswith("\n"):
                segments.append(("\n", None))
            segments += footer
        info["added"] = added
        new, dropped = make_doc(self.nlp, segments)
        info["dropped"] = dropped
        doc_id = doc.user_data.get(ID_KEY)
        if doc_id is not None:
            new.user_data[ID_KEY] = f"{doc_id}#aug{copy}"
        new.user_data[AUGMENT_KEY] = info
        return new

    def _header_items(
        self, fields: list[Field], rng: random.Random, info: dict[str, object]
    ) -> list[Item]:
        res = self.resources
        by_id = {f.key_id: f for f in fields if f.key_id and f.entities}
        names = "separate"
        if "nombre" in by_id and "apellidos" in by_id:
            names = rng.choices(NAME_MODES, weights=(0.4, 0.35, 0.25))[0]
        info["names"] = names
        items: list[Item] = []
        for f in fields:
            keys = res.keys.get(f.key_id) if f.key_id else None
            key = rng.choice(keys) if keys else f.key
            if names != "separate" and f.key_id == "apellidos" and f is by_id["apellidos"]:
                continue
            if names != "separate" and f is by_id.get("nombre"):
                first, last = f.value, by_id["apellidos"].value
                if names == "combined":
                    items.append(
                        Item(rng.choice(res.keys["patient"]), first + [(" ", None)] + last)
                    )
                else:
                    value = last + [(", ", None)] + first
                    items.append(
                        Item(
                            rng.choice(res.keys["patient_reversed"]),
                            _upper(value) if rng.random() < 0.5 else value,
                        )
                    )
                continue
            items.append(Item(key, list(f.value), title=f.title))
        return items

    def _footer(
        self,
        footer: list[Segment],
        fields: list[Field],
        rng: random.Random,
        info: dict[str, object],
    ) -> tuple[list[Segment], Field | None]:
        res = self.resources
        groups, before = _footer_groups(footer)
        signer = next((i for i, g in enumerate(groups) if g[0][1] == _STAFF), None)
        layout = rng.choice(FOOTER_LAYOUTS) if signer is not None else "original"
        info["footer"] = layout
        if layout == "original" or signer is None:
            return list(footer), None
        title = _title_before(before[signer]) or rng.choice(("", "Dr. ", "Dra. "))
        lines: list[list[Segment]] = []
        lines.append(
            _fill(
                rng.choice(res.phrases[layout]),
                {"title": [(title, None)] if title else [], "staff": groups[signer]},
            )
        )
        if layout == "signature" or rng.random() < 0.4:
            lines.append([(rng.choice(res.phrases["role"]), None)])
        moved = None
        rest = [g for i, g in enumerate(groups) if i != signer]
        ncol = [g for g in rest if g[0][1] == "ID_TITULACION_PERSONAL_SANITARIO"]
        if not ncol and layout == "signature" and rng.random() < 0.5:
            moved = next(
                (
                    f
                    for f in fields
                    if f.key_id == "ncol"
                    and f.entities
                    and all(lab == "ID_TITULACION_PERSONAL_SANITARIO" for _, lab in f.entities)
                ),
                None,
            )
            if moved is not None:
                ncol = [moved.entities]
        for g in ncol:
            lines.append(_fill(rng.choice(res.phrases["ncol"]), {"ncol": g}))
        for g in rest:
            if g[0][1] == "ID_TITULACION_PERSONAL_SANITARIO":
                continue
            kind = CONTACT_PHRASES.get(g[0][1])
            lines.append(([(rng.choice(res.phrases[kind]), None)] if kind else []) + g)
        info["footer_ncol_moved"] = moved is not None
        out: list[Segment] = [("\n", None)] if rng.random() < 0.5 else []
        out += _join(lines, "\n") + [("\n", None)]
        return out, moved


def make_doc(nlp: Language, segments: Sequence[Segment]) -> tuple[Doc, int]:
    """The Doc of the segments with their labelled pieces as entities (strict token
    alignment); the number of pieces that did not align and were left out. The doc's
    GOLD_KEY lists every labelled piece by character offsets, aligned or not."""
    text_parts, ents, pos = [], [], 0
    for text, label in segments:
        if label is not None:
            ents.append((pos, pos + len(text), label))
        text_parts.append(text)
        pos += len(text)
    doc = nlp.make_doc("".join(text_parts))
    spans: list[Span] = []
    dropped = 0
    for s, e, label in ents:
        span = doc.char_span(s, e, label=label, alignment_mode="strict")
        if span is None or (spans and span.start < spans[-1].end):
            dropped += 1
        else:
            spans.append(span)
    doc.ents = spans
    doc.user_data[GOLD_KEY] = [[label, s, e] for s, e, label in ents]
    return doc, dropped


def augment_docs(
    docs: Iterable[Doc], augmenter: Augmenter, copies: int
) -> Iterator[tuple[Doc, bool]]:
    """Every doc followed by its copies, as (doc, is_copy)."""
    if copies < 0:
        raise ValueError(f"copies must be 0 or more, got {copies}")
    for index, doc in enumerate(docs):
        yield doc, False
        for new in augmenter.copies(doc, copies, index):
            yield new, True


def layout_counts(docs: Iterable[Doc]) -> dict[str, collections.Counter]:
    """Counts of each layout choice over the copies (by user_data["augment"])."""
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for doc in docs:
        info = doc.user_data.get(AUGMENT_KEY)
        if not info:
            continue
        for name in ("header", "names", "order", "footer"):
            counts[name][info[name]] += 1
        counts["moved_below"][int(info["moved_below"]) > 0] += 1
        counts["titles"][info["titles"]] += 1
        counts["footer_ncol_moved"][bool(info.get("footer_ncol_moved"))] += 1
        for kind in info["prose"]:
            counts["prose"][kind] += 1
    return dict(counts)
