"""A static review site for a data-protection officer: what was found and what it became.

Pure functions (data in, HTML out) and a small writer, independent of the CLI:

    site = ReviewSite("review/")               # a private folder: the pages show PHI
    site.add(ReviewReport(id, original, result.text, result.replacements))
    site.add(ReviewReport(id2, None, None, [], status="failed: empty text"))
    site.close()                               # writes index.html

`index.html` has one row per report (PHI counts per label, flags for what needs a look);
`reports/<id>.html` shows the original with each PHI highlighted by label (spaCy's displaCy
`ent` style) beside the de-identified text, each replacement linked to its original and
back. The pages are self-contained: no script, no network (a Content-Security-Policy
forbids both), they open from file://. The pages are Jinja templates (deid/templates/review_*.html,
review.css) rendered with autoescape: displaCy escapes the report text, the environment every
other value (labels, ids, flags, notes). The site reads in English or Spanish (`language`: "en"
or "es"); its words are data (deid/templates/review_text.json). A failure's reason is quoted as
the run recorded it.
"""

import html
import json
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from spacy import displacy

from ..brat import AnnError, parse_ann, read_text, validate_ann
from ..constants import LABELS
from ..errors import StoredDataError
from ..files import atomic_write
from ..formats.base import safe_stem
from ..labels import COLOURS
from .operators import Replacement

if TYPE_CHECKING:
    from jinja2 import Environment

MAX_ENTITY_CHARS = 60
MAX_ENTITY_TOKENS = 8
MIN_REPORTS_FOR_USUAL = 10  # below this, "far from usual" means nothing

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

# displaCy's ent template with an id and a link; {text} is escaped by displaCy, the other
# fields are escaped or generated here
ENT_TEMPLATE = (
    '<mark class="entity" id="{id}" data-label="{label}" style="background: {bg}; padding: 0.2em '
    '0.4em; margin: 0 0.15em; line-height: 1.9; border-radius: 0.35em;"><a href="{href}" '
    'title="{title}" style="color: inherit; text-decoration: none">{text}<span '
    'class="label">{label}</span></a></mark>'
)

TEMPLATES = Path(__file__).parent / "templates"  # review_*.html and review.css (package data)
# the site's words in each language it reads in, English first (the default)
TEXTS: dict[str, dict[str, str]] = json.loads(
    (TEMPLATES / "review_text.json").read_text(encoding="utf-8")
)
LANGUAGES = tuple(TEXTS)
PHI_WARNING = TEXTS["en"]["warning"]


def texts(language: str) -> dict[str, str]:
    """The site's words in `language` (ValueError naming an unknown one)."""
    if language not in TEXTS:
        raise ValueError(
            f"review site: unknown language {language!r} (one of {', '.join(LANGUAGES)})"
        )
    return TEXTS[language]


def label_colors(labels: Sequence[str] = LABELS) -> dict[str, str]:
    """A light colour per label for displaCy: the label table's (`meddocan_deid.labels`:
    hand-picked for the frequent labels, golden-angle hues for the others), golden-angle hues
    by position (neighbours differ) for a label the table lacks."""
    colors = {}
    for i, label in enumerate(labels):
        colors[label.upper()] = COLOURS.get(
            label.upper(), f"hsl({(i * 137.508) % 360:.0f}, 55%, 85%)"
        )
    return colors


@dataclass
class ReviewReport:
    """One report: the original, the de-identified text and the replacements between them
    (as `DeidResult.replacements`), or a failed report (`status` "failed: <reason>", no texts)."""

    id: str
    original: str | None
    output: str | None
    replacements: list[Replacement] = field(default_factory=list)
    status: str = "ok"

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass
class ReviewRow:
    """A row of the index: no text of the report, only counts and flags."""

    id: str
    href: str | None
    status: str
    counts: dict[str, int]
    flags: list[str]


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def report_flags(
    report: ReviewReport,
    *,
    max_chars: int = MAX_ENTITY_CHARS,
    max_tokens: int = MAX_ENTITY_TOKENS,
    language: str = "en",
) -> list[str]:
    """What needs a look in one report: failed, no PHI found, very long entities."""
    t = texts(language)
    if not report.ok or report.original is None:
        return [t["flag_failed"]]
    flags = []
    if not report.replacements:
        flags.append(t["flag_no_phi"])
    for r in report.replacements:
        value = report.original[r.start : r.end]
        n_tokens = len(value.split())
        if len(value) > max_chars or n_tokens > max_tokens:
            flags.append(
                t["flag_long_entity"].format(label=r.label, chars=len(value), tokens=n_tokens)
            )
    return flags


def status_text(status: str, language: str = "en") -> str:
    """A report's status in `language`: ok, empty text, or failed with the reason recorded."""
    t = texts(language)
    if status == "ok":
        return t["status_ok"]
    if status == "empty text":
        return t["status_empty"]
    if status.startswith("failed: "):
        return t["status_failed"].format(reason=status[len("failed: ") :])
    return status


def usual_count_flags(
    rows: list[ReviewRow], *, min_reports: int = MIN_REPORTS_FOR_USUAL, language: str = "en"
) -> None:
    """Add a flag to rows whose count of a label (or total) is far above the run's usual:
    above mean + 3 standard deviations and at least mean + 3. Needs `min_reports` ok rows."""
    t = texts(language)
    ok = [r for r in rows if r.status == "ok"]
    if len(ok) < min_reports:
        return
    labels = sorted({label for r in ok for label in r.counts})
    for key in labels + ["total"]:
        values = [sum(r.counts.values()) if key == "total" else r.counts.get(key, 0) for r in ok]
        mean = statistics.fmean(values)
        limit = max(mean + 3 * statistics.pstdev(values), mean + 3)
        for row, v in zip(ok, values):
            if v > limit:
                what = t["total"] if key == "total" else key
                row.flags.append(t["flag_many"].format(what=what, count=v, usual=f"{mean:.1f}"))


def _displacy(text: str, spans: list[dict], colors: dict[str, str]) -> str:
    return displacy.render(
        {"text": text, "ents": spans, "title": None},
        style="ent",
        manual=True,
        page=False,
        jupyter=False,
        options={"colors": colors, "template": ENT_TEMPLATE},
    )


def _spans(report: ReviewReport, side: str, t: dict[str, str]) -> list[dict]:
    other = "out" if side == "orig" else "orig"
    spans = []
    title = t["to_replacement"] if side == "orig" else t["to_original"]
    for i, r in enumerate(report.replacements, start=1):
        start, end = (r.start, r.end) if side == "orig" else (r.new_start, r.new_end)
        spans.append(
            {
                "start": start,
                "end": end,
                "label": _e(r.label),
                "params": {"id": f"{side}-{i}", "href": f"#{other}-{i}", "title": title},
            }
        )
    return spans


_ENV: list["Environment"] = []  # made on first use (jinja2 is imported then)


def _templates():
    """The Jinja environment of the review pages (autoescape: every value is escaped)."""
    if not _ENV:
        from jinja2 import Environment, FileSystemLoader, StrictUndefined

        _ENV.append(
            Environment(
                loader=FileSystemLoader(str(TEMPLATES)),
                autoescape=True,
                keep_trailing_newline=True,
                undefined=StrictUndefined,
            )
        )
    return _ENV[0]


def _render(name: str, language: str, **values) -> str:
    from markupsafe import Markup

    t = texts(language)
    return (
        _templates()
        .get_template(name)
        .render(csp=Markup(CSP), lang=language, t=t, warning=t["warning"], **values)
    )


def legend(
    labels: Iterable[str], colors: dict[str, str], counts: dict[str, int] | None = None
) -> str:
    return str(
        _templates().get_template("review_macros.html").module.legend(list(labels), colors, counts)
    )


def render_report_page(
    report: ReviewReport,
    *,
    mode: str | None = None,
    colors: dict[str, str] | None = None,
    index_href: str | None = "../index.html",
    language: str = "en",
) -> str:
    """The page of one report: the original (PHI highlighted by label, displaCy) beside the
    de-identified text (each replacement highlighted); `#orig-<n>` and `#out-<n>` link the
    n-th PHI to its replacement and back."""
    if not report.ok or report.original is None or report.output is None:
        raise ValueError(f"report {report.id!r}: no page for a failed report ({report.status})")
    from markupsafe import Markup

    colors = colors or label_colors()
    counts = Counter(r.label for r in report.replacements)
    t = texts(language)
    return _render(
        "review_page.html",
        language,
        title=t["page_title"].format(id=report.id),
        id=report.id,
        index_href=index_href,
        flags=report_flags(report, language=language),
        legend=Markup(legend(sorted(counts), colors, counts)),
        mode=mode,
        original=Markup(_displacy(report.original, _spans(report, "orig", t), colors)),
        output=Markup(_displacy(report.output, _spans(report, "out", t), colors)),
    )


def page_name(report_id: str) -> str:
    """The page file of a report, relative to the site: one flat name per id."""
    return f"reports/{safe_stem(report_id)}.html"


def summarize(report: ReviewReport, href: str | None = None, language: str = "en") -> ReviewRow:
    return ReviewRow(
        report.id,
        href,
        report.status,
        dict(Counter(r.label for r in report.replacements)),
        report_flags(report, language=language),
    )


def render_index(
    rows: Sequence[ReviewRow],
    *,
    mode: str | None = None,
    colors: dict[str, str] | None = None,
    notes: Sequence[str] = (),
    language: str = "en",
) -> str:
    """The index: one row per report (counts per label, flags),
    reports with flags counted on top."""
    return _render(
        "review_index.html",
        language,
        title=texts(language)["site_title"],
        rows=list(rows),
        status_text=lambda status: status_text(status, language),
        mode=mode,
        colors=colors or label_colors(),
        flagged=sum(1 for r in rows if r.flags),
        notes=list(notes),
        max_chars=MAX_ENTITY_CHARS,
        max_tokens=MAX_ENTITY_TOKENS,
    )


class ReviewSite:
    """Writes a review site report by report (pages at once, texts not kept) and the index
    on `close()`."""

    def __init__(
        self,
        folder: Path,
        *,
        mode: str | None = None,
        colors: dict[str, str] | None = None,
        language: str = "en",
    ):
        texts(language)  # an unknown language fails before any page is written
        self.folder = Path(folder)
        self.mode = mode
        self.language = language
        self.colors = colors or label_colors()
        self.rows: list[ReviewRow] = []
        self.notes: list[str] = []

    def add(self, report: ReviewReport) -> ReviewRow:
        href = None
        if report.ok:
            href = page_name(report.id)
            page = render_report_page(
                report, mode=self.mode, colors=self.colors, language=self.language
            )
            atomic_write(self.folder / href, page)
        row = summarize(report, href, self.language)
        self.rows.append(row)
        return row

    def add_note(self, name: str, **values) -> None:
        """A note on top of the index: the site's text `name` (review_text.json) in its language,
        filled with `values`."""
        self.notes.append(texts(self.language)[name].format(**values))

    def close(self) -> Path:
        usual_count_flags(self.rows, language=self.language)
        index = self.folder / "index.html"
        page = render_index(
            self.rows, mode=self.mode, colors=self.colors, notes=self.notes, language=self.language
        )
        atomic_write(index, page)
        return index


def write_review_site(
    folder: Path, reports: Iterable[ReviewReport], *, mode: str | None = None, language: str = "en"
) -> Path:
    """Write the whole site for `reports` into `folder` in `language` (en, es); returns the path
    of index.html."""
    site = ReviewSite(folder, mode=mode, language=language)
    for report in reports:
        site.add(report)
    return site.close()


def _entities(ann: str) -> dict[int, tuple]:
    return {
        int(tid[1:]): (label, frags[0][0], frags[-1][1]) for tid, label, frags, _ in parse_ann(ann)
    }


def report_from_files(
    report_id: str, original: str, private_ann: str, output: str, output_ann: str
) -> ReviewReport:
    """Rebuild a report from the files a run wrote: the original and its private `.ann`
    (`--private-dir`), the de-identified text and its shared `.ann` (`T<n>` pair them; a
    PHI missing from the shared `.ann` was redacted to nothing). Raises StoredDataError when
    the text outside the PHI differs between the two, or an `.ann` does not line up."""
    try:
        validate_ann(original, private_ann)
    except AnnError as err:
        raise StoredDataError(f"{report_id}: private .ann: {err}") from None
    try:
        validate_ann(output, output_ann)
    except AnnError as err:
        raise StoredDataError(f"{report_id}: output .ann: {err}") from None
    orig, new = _entities(private_ann), _entities(output_ann)
    if set(new) - set(orig):
        raise StoredDataError(f"{report_id}: the output .ann has entities the private .ann lacks")
    replacements: list[Replacement] = []
    delta = 0  # output offset minus original offset, after the previous PHI
    prev_end = prev_new_end = 0
    for n in sorted(orig):
        label, start, end = orig[n]
        if n in new:
            new_start, new_end = new[n][1], new[n][2]
        else:
            new_start = new_end = start + delta
        if original[prev_end:start] != output[prev_new_end:new_start]:
            raise StoredDataError(
                f"{report_id}: the text before T{n} differs between the original and the output "
                "(not the same run?)"
            )
        replacements.append(Replacement(label, start, end, new_start, new_end))
        delta = new_end - end
        prev_end, prev_new_end = end, new_end
    if original[prev_end:] != output[prev_new_end:]:
        raise StoredDataError(
            f"{report_id}: the text after the last PHI differs between the original and the output"
        )
    return ReviewReport(report_id, original, output, replacements)


def reports_from_folders(output: Path, private_dir: Path):
    """ReviewReports of every original in `private_dir` whose output is in `output`, then a
    failed row for each failure listed in `output/run_report.json` (when there is one)."""
    import json

    output, private_dir = Path(output), Path(private_dir)
    for txt in sorted(private_dir.rglob("*.txt")):
        stem = txt.relative_to(private_dir).with_suffix("").as_posix()
        out_txt, out_ann, priv_ann = (
            output / f"{stem}.txt",
            output / f"{stem}.ann",
            txt.with_suffix(".ann"),
        )
        missing = [p for p in (out_txt, out_ann, priv_ann) if not p.is_file()]
        if missing:
            yield ReviewReport(stem, None, None, [], f"failed: {missing[0]} is missing")
            continue
        yield report_from_files(
            stem, read_text(txt), read_text(priv_ann), read_text(out_txt), read_text(out_ann)
        )
    run_report = output / "run_report.json"
    if run_report.is_file():
        recorded = json.loads(run_report.read_text(encoding="utf-8"))
        for f in recorded.get("failed", []):
            yield ReviewReport(str(f.get("id")), None, None, [], f"failed: {f.get('reason')}")
        for e in recorded.get("empty", []):
            yield ReviewReport(str(e.get("id")), None, None, [], "empty text")


def run_mode(output: Path) -> str | None:
    """The mode recorded in `output/run_report.json`, if any."""
    import json

    path = Path(output) / "run_report.json"
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("mode")
    except (OSError, ValueError, AttributeError):
        return None
