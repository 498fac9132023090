"""Section segmenter: header / body / footer spans in `doc.spans["sections"]`.

Reads `doc.text` and its section-title patterns (pattern data, read at `[initialize]` and
saved with the pipeline); writes the header, body and footer spans to `doc.spans[spans_key]`
only; never touches tokens, entities or other span groups.
"""

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable

from spacy.language import Language
from spacy.tokens import Doc, Span

from .serialize import SerializedState

SECTIONS_KEY = "sections"
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r|$)")


def _validate(patterns: list[dict]) -> list[dict]:
    """Section titles, as in medSpaCy's Sectionizer: each pattern has a `section`
    ("header" or "footer"), a `title` and a regular expression matched at the start of a
    line (after leading blanks)."""
    clean = []
    for i, p in enumerate(patterns):
        if p.get("section") not in ("header", "footer") or not p.get("pattern"):
            raise ValueError(f"section pattern {i}: needs 'section' (header|footer) and 'pattern'")
        try:
            re.compile(p["pattern"])
        except re.error as err:
            raise ValueError(
                f"section pattern {i} ({p.get('title', '')}): invalid regex: {err}"
            ) from None
        clean.append(
            {"section": p["section"], "title": p.get("title", ""), "pattern": p["pattern"]}
        )
    return clean


@Language.factory(
    "meddocan_sections",
    default_config={"spans_key": SECTIONS_KEY},
    assigns=["doc.spans"],
)
class SectionSegmenter(SerializedState):
    def __init__(self, nlp: Language, name: str, *, spans_key: str = SECTIONS_KEY):
        self.name = name
        self.spans_key = spans_key
        self.patterns: list[dict] = []
        self._compile()

    def initialize(
        self,
        get_examples: Callable | None = None,
        *,
        nlp: Language | None = None,
        patterns: Iterable[dict] | None = None,
    ) -> None:
        if patterns is not None:
            self.patterns = _validate(list(patterns))
            self._compile()

    def _compile(self) -> None:
        def alternation(section: str):
            parts = [f"(?:{p['pattern']})" for p in self.patterns if p["section"] == section]
            # matched at a line's start; the lookbehind keeps a scan of a long run of blanks
            # linear (each blank would otherwise start its own try to the run's end)
            pattern = r"(?<![ \t])[ \t]*(?:" + "|".join(parts) + ")"
            return re.compile(pattern, re.IGNORECASE) if parts else None

        self._header = alternation("header")
        self._footer = alternation("footer")

    def boundaries(self, text: str):
        """Character offsets (header_end, footer_start): header is [0, header_end),
        footer [footer_start, len). The header is the run of lines at the top of the report
        that start with a header title (blank lines allowed); the footer starts at the first
        later line that starts with a footer title and runs to the end; what is left is the
        body. A report without header or footer is all body."""
        header_end, footer_start = 0, len(text)
        lines = [
            (m.start(), m.end(), m.group()) for m in _LINE.finditer(text) if m.end() > m.start()
        ]
        i = 0
        if self._header is not None:
            while i < len(lines) and not lines[i][2].strip():
                i += 1  # leading blank lines
            seen_header = False
            while i < len(lines):
                line = lines[i][2]
                if not line.strip():
                    i += 1
                    continue
                if self._header.match(line.lstrip("\ufeff")):
                    seen_header = True
                    header_end = lines[i][1]
                    i += 1
                else:
                    break
            if not seen_header:
                header_end, i = 0, 0
        if self._footer is not None:
            for start, _end, line in lines[i:]:
                if self._footer.match(line):
                    footer_start = max(start, header_end)
                    break
        return header_end, footer_start

    def __call__(self, doc: Doc) -> Doc:
        header_end, footer_start = self.boundaries(doc.text)
        # A boundary is a line start, which can fall inside a whitespace token
        # ("\n\n"): snap each boundary to one token index so that the sections
        # partition the tokens (a straddling token stays in the earlier section).
        token_starts = [token.idx for token in doc]
        header_end, footer_start = (
            bisect_left(token_starts, c) for c in (header_end, footer_start)
        )
        spans = []
        for label, start, end in (
            ("header", 0, header_end),
            ("body", header_end, footer_start),
            ("footer", footer_start, len(doc)),
        ):
            if end > start and doc[start:end].text.strip():
                spans.append(Span(doc, start, end, label=label))
        doc.spans[self.spans_key] = spans
        return doc

    state_files = {"patterns": "patterns.jsonl"}

    def get_state(self) -> dict:
        return {"patterns": self.patterns}

    def set_state(self, state: dict) -> None:
        self.patterns = _validate(list(state.get("patterns", [])))
        self._compile()


def section_of(doc: Doc, start: int, end: int, spans_key: str = SECTIONS_KEY) -> str | None:
    """The label of the section holding tokens [start, end), or None."""
    for span in doc.spans.get(spans_key, []):
        if span.start <= start and end <= span.end:
            return span.label_
    return None
