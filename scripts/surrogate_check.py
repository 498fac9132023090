"""Check that surrogates read like the originals: run a pipeline in surrogate mode over BRAT
sets and count, per label, what became what. Prints counts only, never document text.

    python scripts/surrogate_check.py es_meddocan_deid assets/formats assets/prose_heldout assets/heldout_types

Each report is de-identified with `meddocan_deid.deidentify(doc, mode="surrogate",
key=KEY, scope=<file name>)` under a fixed test key, on the pipeline's entities (or the
`.ann` gold ones with `--entities gold`). Counted per label:

- spans; tags (the span became `[LABEL]`: no surrogate of its kind fitted); kept (the
  surrogate equals the value: ages, sex and kinship words kept by the default options);
- words: the words (2+ letters) of the surrogates of word labels (names, relatives,
  professions, places, organisations, dates, OTROS), tags left out; identifiers, phones,
  e-mails, URLs, addresses and OTROS values that are codes (`AB-1234`,
  `surrogates.person.is_code`) are codes, whose letters are drawn at random by design;
- scrambled: those words that are in none of the lists the generators draw from
  (`surrogates.vocabulary.drawn_words`: the gazetteer, Faker es_ES's names and countries,
  the tables of `surrogates/data/`), not a word of the original value, and not a Spanish,
  Catalan or Galician word form (spaCy lookups' lemma tables): letters no list gave;
- dates (FECHAS): values read as a date (`surrogates.dates.read_date`), their surrogates
  read back as a date, and in the original's language (the original's language is one of
  the surrogate's possible languages; `num` for digits only);
- professions (PROFESION): values found in the professions table, surrogates in the same
  ISCO-08 major group, and of an agreeing gender (feminine to feminine or invariable,
  masculine to masculine or invariable, invariable to invariable);
- places: per report, the TERRITORIO values of one original province (a postal code, a
  province, a community, a town of one province), groups of two or more; a group agrees
  when one province fits every surrogate of the group (the postal code's two first
  digits, the province, its community, a town of it);
- identifiers and phones, per kind (`surrogates.id_validity.kind_check`: a CURP, a RUT, a
  CUIT, an SSN, a DNI, a NUSS..., a phone of a national plan): the values read as the kind,
  and the surrogates valid in their country (the kind's check; a phone valid in the same
  plan, of the same line type); and the CURPs of the patient that agree with the birth date
  and sex the de-identified report states (`surrogates.stated_person`).
"""

import gzip
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Annotated

import spacy
import typer
from stdnum.mx import curp as std_curp

import meddocan_deid
from meddocan_deid.brat import read_brat_dir
from meddocan_deid.deid import Deidentifier
from meddocan_deid.deid.gazetteer import resolve_gazetteer
from meddocan_deid.deid.surrogates.dates import read_date
from meddocan_deid.deid.surrogates.id_validity import kind_check
from meddocan_deid.deid.surrogates.person import is_code, read_profession
from meddocan_deid.deid.surrogates.places import POSTAL, geo, province_of
from meddocan_deid.deid.surrogates.stated_person import stated_person
from meddocan_deid.deid.surrogates.vocabulary import drawn_words, words_of
from meddocan_deid.lexicon import lookup_key

KEY = b"surrogate-check-fixed-test-key-01"  # a test key: the check is reproducible
WORD_LABELS = {
    "NOMBRE_SUJETO_ASISTENCIA",
    "NOMBRE_PERSONAL_SANITARIO",
    "FAMILIARES_SUJETO_ASISTENCIA",
    "EDAD_SUJETO_ASISTENCIA",
    "SEXO_SUJETO_ASISTENCIA",
    "PROFESION",
    "HOSPITAL",
    "INSTITUCION",
    "CENTRO_SALUD",
    "CALLE",
    "TERRITORIO",
    "PAIS",
    "FECHAS",
    "OTROS_SUJETO_ASISTENCIA",
}


def dictionary_words() -> frozenset:
    """Spanish, Catalan and Galician word forms: the keys and lemmas of spaCy lookups' tables."""
    import spacy_lookups_data

    folder = Path(spacy_lookups_data.__file__).parent / "data"
    words = set()
    for lang in ("es", "ca", "gl"):
        path = folder / f"{lang}_lemma_lookup.json.gz"
        if path.exists():
            table = json.loads(gzip.open(path, "rt", encoding="utf-8").read())
            words.update(lookup_key(k) for k in table)
            for lemma in table.values():  # a lemma, or a list of them
                words.update(lookup_key(v) for v in ([lemma] if isinstance(lemma, str) else lemma))
    return frozenset(words)


def _province_fits(new: str, code: str) -> bool:
    g = geo()
    f = lookup_key(new.strip())
    if POSTAL.fullmatch(f):
        return POSTAL.fullmatch(f).group("code")[:2] == code
    if f in g.by_name:
        return g.by_name[f] == code
    if f in g.communities:
        return g.communities[f] == g.community[code]
    return code in g.town_codes.get(f, ()) or any(lookup_key(t) == f for t in g.towns.get(code, ()))


def _original_province(value: str) -> str | None:
    g = geo()
    f = lookup_key(value.strip())
    if f in g.communities and f not in g.by_name:
        provinces = g.community_provinces[g.communities[f]]
        return provinces[0] if len(provinces) == 1 else None  # a community of one province only
    return province_of(value)


def main(
    model: Annotated[
        str, typer.Argument(help="Pipeline: an installed package name or a path")
    ] = "es_meddocan_deid",
    sets: Annotated[
        list[Path] | None,
        typer.Argument(help="BRAT folders (.txt, and .ann for --entities gold)"),
    ] = None,
    entities: Annotated[
        str, typer.Option(help="pipeline (what the pipeline finds) or gold (the .ann files)")
    ] = "pipeline",
) -> None:
    if entities not in ("pipeline", "gold"):
        typer.echo(f"--entities {entities!r}: expected pipeline or gold", err=True)
        raise typer.Exit(2)
    sets = sets or [
        Path("assets/formats"),
        Path("assets/prose_heldout"),
        Path("assets/heldout_types"),
    ]
    missing = [str(s) for s in sets if not s.is_dir()]
    if missing:
        typer.echo(f"not a folder: {', '.join(missing)}", err=True)
        raise typer.Exit(1)
    nlp = spacy.load(model)
    gaz = resolve_gazetteer(nlp.vocab)
    known = drawn_words(gaz) | dictionary_words()
    spans, tags, kept, words, scrambled = Counter(), Counter(), Counter(), Counter(), Counter()
    dates = Counter()
    jobs = Counter()
    places = Counter()
    ids: dict[str, Counter] = defaultdict(Counter)
    curps = Counter()
    n_docs = 0
    for folder in sets:
        docs = list(read_brat_dir(folder))
        texts = [d.text for d in docs]
        for bdoc, doc in zip(docs, nlp.pipe(texts, batch_size=8)):
            n_docs += 1
            scope = f"{folder.name}/{bdoc.doc_id}"
            if entities == "gold":
                # the look-alikes of a set (NO_PHI) are never PHI
                gold = [e for e in bdoc.entities if e[0] in meddocan_deid.LABELS]
                res = Deidentifier(nlp, "surrogate", key=KEY).deidentify(
                    bdoc.text, scope=scope, found=gold
                )
            else:
                res = meddocan_deid.deidentify(doc, mode="surrogate", key=KEY, scope=scope)
            groups = defaultdict(list)
            for r in res.replacements:
                value, new, label = (
                    bdoc.text[r.start : r.end],
                    res.text[r.new_start : r.new_end],
                    r.label,
                )
                spans[label] += 1
                if new == f"[{label}]":
                    tags[label] += 1
                elif new == value:
                    kept[label] += 1
                elif label in WORD_LABELS and not (
                    label == "OTROS_SUJETO_ASISTENCIA" and is_code(value)
                ):
                    ws = words_of(new)
                    words[label] += len(ws)
                    original = set(words_of(value))
                    scrambled[label] += sum(1 for w in ws if w not in known and w not in original)
                if label == "FECHAS":
                    old = read_date(value)
                    if old is not None:
                        dates["read"] += 1
                        if new != f"[{label}]":
                            got = read_date(new)
                            dates["surrogate read"] += got is not None
                            dates["same language"] += got is not None and old.lang in got.langs
                if label == "PROFESION":
                    found = read_profession(value)
                    if found is not None:
                        jobs["known"] += 1
                        got = read_profession(new)
                        if got is not None:
                            jobs["same group"] += got[0].group == found[0].group
                            agree = {"F": ("F", "N"), "M": ("M", "N"), "N": ("N",)}[found[1]]
                            jobs["gender agrees"] += got[1] in agree
                if label == "TERRITORIO" and new != f"[{label}]":
                    code = _original_province(value)
                    if code is not None:
                        groups[code].append(new)
            _count_identifiers(bdoc.text, res, ids, curps)
            for code, news in groups.items():
                if len(news) < 2:
                    continue
                places["groups"] += 1
                places["agree"] += any(all(_province_fits(n, c) for n in news) for c in geo().names)
    typer.echo(
        f"model: {model}; entities: {entities}; reports: {n_docs}; sets: {' '.join(str(s) for s in sets)}"
    )
    typer.echo(f"{'label':<32}{'spans':>7}{'tags':>6}{'kept':>6}{'words':>7}{'scrambled':>10}")
    for label in sorted(spans, key=lambda lab: -spans[lab]):
        w = (
            f"{words[label]:>7}{scrambled[label]:>10}"
            if label in WORD_LABELS
            else f"{'-':>7}{'-':>10}"
        )
        typer.echo(f"{label:<32}{spans[label]:>7}{tags[label]:>6}{kept[label]:>6}{w}")
    typer.echo(
        f"{'total':<32}{sum(spans.values()):>7}{sum(tags.values()):>6}{sum(kept.values()):>6}"
        f"{sum(words.values()):>7}{sum(scrambled.values()):>10}"
    )
    typer.echo(
        f"dates: {dates['read']} read as dates; surrogates read back {dates['surrogate read']}, "
        f"in the original's language {dates['same language']}"
    )
    typer.echo(
        f"professions: {jobs['known']} in the table; surrogates in the same ISCO group {jobs['same group']}, "
        f"gender agreeing {jobs['gender agrees']}"
    )
    typer.echo(
        f"places: {places['groups']} groups of 2+ places of one province in a report; agreeing {places['agree']}"
    )
    typer.echo(f"{'identifier kind':<24}{'values':>8}{'valid surrogates':>18}")
    for kind in sorted(ids):
        typer.echo(f"{kind:<24}{ids[kind]['n']:>8}{ids[kind]['valid']:>18}")
    typer.echo(
        f"CURPs of the patient in a report that states a birth date: {curps['n']}; agreeing with"
        f" the surrogate birth date {curps['date']}, and with the sex it states {curps['sex']}"
    )


def _count_identifiers(text: str, res, ids: dict[str, Counter], curps: Counter) -> None:
    """Per kind, the values and the surrogates valid in their country; the patient's CURPs
    that agree with the birth date and sex of the de-identified report."""
    stated = stated_person(res.text, [(r.label, r.new_start, r.new_end) for r in res.replacements])
    for r in res.replacements:
        value, new = text[r.start : r.end], res.text[r.new_start : r.new_end]
        check = kind_check(value, r.label)
        if check is None:
            continue
        ids[check.kind]["n"] += 1
        ids[check.kind]["valid"] += new != f"[{r.label}]" and check.valid(new)
        if check.kind == "curp" and r.label == "ID_SUJETO_ASISTENCIA" and stated.birth is not None:
            curps["n"] += 1
            valid = std_curp.is_valid(new)
            curps["date"] += valid and std_curp.get_birth_date(new) == stated.birth
            sex = {"H": "M", "M": "F"}.get(new[10:11]) if valid else None
            curps["sex"] += valid and stated.sex in (None, sex)


if __name__ == "__main__":
    typer.run(main)
