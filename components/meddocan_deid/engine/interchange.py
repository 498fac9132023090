"""The files of a run that are de-identified whole and written back in their own form (FHIR
JSON, HL7 v2 messages: formats/base.py `Interchange`), beside the run's reports and as they
are: read, resumed (OUTPUT/<name> exists and the digest of the input's bytes is the one
recorded), written through a temporary file, counted, and failed by name (a broken bundle or
message fails its file with the reason; the other files are written, and the exit code says
so).

Their side outputs, on request, list the file's values by their path in the resource or
message (formats/found.py: each structured value replaced by rule, each date shifted, each
element removed, each text put through the Deidentifier, before and after): with
`interchange_ann`, OUTPUT/<name>.values.txt (the de-identified values) and its BRAT `.ann`;
with `private_dir`, PRIVATE/<name>.values.txt (the originals) and its `.ann` (the same `T<n>`);
with `review_dir`, one review page per file. Written in a report's order (private copy, `.ann`,
listing, then the file, which marks it done); without these options the output is as before.

Each format has one rewriter for the run: every file is collected before any is rewritten
(FHIR: the patients' structured values, known PHI of every file's free text), so that free
text, references and per-patient date offsets agree across the files of a run.

Rules: a format's rule file given for the run (`RunConfig.interchange_rules`, the CLI's
`--fhir-rules`/`--hl7-rules`), else the policy's (`fhir_rules`/`hl7_rules`), else the shipped
ones. The run's policy digest covers the rule files given for the run (the policy's own digest
covers its rules)."""

from pathlib import Path
from typing import Any

from ..deid.fingerprint import digest_of
from ..deid.review import ReviewReport
from ..errors import InputError
from ..files import atomic_write
from ..formats import registry
from ..formats.base import Item
from ..formats.found import LISTING_SUFFIX, Listing, listing
from ..formats.sources import iter_items
from .config import RunConfig
from .output import is_disk_full, record_digest, write_private, write_report


def load_rules(config: RunConfig) -> dict[str, list | None]:
    """format name -> its rules for the run (None: the shipped ones); InputError naming a bad
    rule file or an unknown format."""
    policy = getattr(config.options, "policy", None)
    names = registry.interchange_names()
    unknown = sorted(set(config.interchange_rules) - set(names))
    if unknown:
        raise InputError(f"rules for an unknown format: {', '.join(unknown)}")
    out: dict[str, list | None] = {}
    for name in names:
        interchange = registry.get(name).interchange
        assert interchange is not None
        path = config.interchange_rules.get(name)
        from_policy = getattr(policy, interchange.policy_key, None) if policy else None
        if path is not None:
            out[name] = interchange.load_rules(path)
        elif from_policy is not None:
            out[name] = list(from_policy)
        else:
            out[name] = None
    return out


def policy_digest(config: RunConfig, rules: dict[str, list | None]) -> str | None:
    """The run's policy digest: the policy's, with the rule files given for the run."""
    given = {
        name: [rule.as_data() for rule in rules[name] or []]
        for name in sorted(config.interchange_rules)
    }
    base = config.run_policy_digest
    return base if not given else digest_of({"policy": base, "rules": given})


def first_item(input_path: Path, input_format: str, encoding: str) -> Item | None:
    """The input's first file of an interchange format, or None."""
    for item in iter_items(input_path, encoding, input_format):
        if item.interchange is not None:
            return item
    return None


class InterchangeFiles:
    """The interchange files of one `Run` (engine/runner.py): `take` each item as it is read,
    `write_all` after the reports. The run's counts, failures and progress are the Run's."""

    def __init__(self, run: Any, rules: dict[str, list | None]):
        self.run = run
        self.rules = rules
        self.rewriters: dict[str, Any] = {}
        self.queued: list[tuple[Item, str]] = []

    def rewriter(self, name: str):
        if name not in self.rewriters:
            interchange = registry.get(name).interchange
            assert interchange is not None
            rewriter = interchange.rewriter(
                self.run.settled(), key=self.run.config.key, rules=self.rules.get(name)
            )
            rewriter.recording = self.side_outputs
            self.rewriters[name] = rewriter
        return self.rewriters[name]

    @property
    def side_outputs(self) -> bool:
        """Whether the files' values are listed (for the `.ann`, private copy or review)."""
        c = self.run.config
        return c.interchange_ann or c.private_dir is not None or c.review_dir is not None

    def done(self, item: Item) -> bool:
        """Written by an earlier run from the same bytes."""
        digests = self.run._digests or {}
        return (self.run.output / item.stem).exists() and digests.get(item.stem) == item.digest

    def take(self, item: Item) -> None:
        """An item read by `load_item`: failed, empty, or collected, then skipped (written by an
        earlier run) or queued for `write_all`."""
        run = self.run
        name = item.interchange
        assert name is not None
        if item.error is not None or item.record is None:
            run.fail(item.id, item.error or "not read", item.where)
            run._tick()
            return
        text = item.record.text
        if not text.strip():
            run.counts["empty"] += 1
            run.empty.append({"id": item.id, "file": item.where})
            if run.site is not None:
                run.site.add(ReviewReport(item.id, None, None, [], status="empty text"))
            run._tick()
            return
        try:
            self.rewriter(name).collect_text(text, item.where)
        except Exception as err:  # noqa: BLE001 - a malformed file fails by name, the run goes on
            run.fail(item.id, failure(name, err), item.where)
            run._tick()
            return
        if item.digest is not None and not run.config.overwrite and self.done(item):
            run.counts["skipped"] += 1
            run._tick()
            return
        self.queued.append((item, text))

    def write_all(self) -> None:
        """Rewrite and write every queued file (a full disk stops the run: OSError)."""
        run = self.run
        queued, self.queued = self.queued, []
        for item, text in queued:
            name = item.interchange
            assert name is not None
            rewriter = self.rewriter(name)
            try:
                new, per_label = rewriter.rewrite(text, item.where)
            except Exception as err:  # noqa: BLE001 - one broken file, never the run
                run.fail(item.id, failure(name, err), item.where)
                run._tick()
                continue
            values = listing(rewriter.found) if rewriter.found is not None else None
            try:
                if values is not None:
                    self.write_side(item, values)
                atomic_write(run.output / item.stem, new)
                if item.digest is not None:
                    record_digest(run.output, item.stem, item.digest)
                if values is not None and run.site is not None:
                    run.site.add(
                        ReviewReport(item.id, values.original, values.output, values.replacements)
                    )
            except OSError as err:
                if is_disk_full(err):
                    raise
                reason = f"cannot write the output ({err.strerror or type(err).__name__})"
                run.fail(item.id, reason, item.where)
                run._tick()
                continue
            run.counts["written"] += 1
            codec = item.encoding or run.encoding
            run.encodings[codec] = run.encodings.get(codec, 0) + 1
            for label, n in per_label.items():
                run.per_label[label] = run.per_label.get(label, 0) + n
            run._tick()

    def write_side(self, item: Item, values: Listing) -> None:
        """A file's private listing and its shared listing with its `.ann`, as asked (before
        the file: a file written is done, its side outputs too)."""
        c = self.run.config
        stem = f"{item.stem}{LISTING_SUFFIX}"
        if c.private_dir is not None:
            write_private(c.private_dir, stem, values.original, values.replacements)
        if c.interchange_ann:
            write_report(self.run.output, stem, values.output, values.replacements)


def failure(name: str, err: Exception) -> str:
    """A failed file's reason: the format's own message (it names the file and the problem),
    else the kind of error, never a value."""
    if isinstance(err, InputError):
        return str(err)
    return f"error in the {name} de-identification ({type(err).__name__})"
