"""Check that surrogates read like the originals: run a pipeline in surrogate mode over BRAT
sets and count, per label, what became what. Prints counts only, never document text.

    python experiments/surrogate_check.py es_meddocan_deid assets/formats assets/prose_heldout \
        assets/heldout_types
    python experiments/surrogate_check.py es_meddocan_deid tests/data/countries --entities gold
    python experiments/surrogate_check.py es_meddocan_deid tests/data/central_america \
        --entities gold

Each report is de-identified with `meddocan_deid.deidentify(doc, mode="surrogate",
key=KEY, scope=<file name>)` under a fixed test key, on the pipeline's entities (or the
`.ann` gold ones with `--entities gold`). Counted per label:

- spans; tags (the span became `[LABEL]`: no surrogate of its kind fitted); kept (the
  surrogate equals the value: ages, sex and kinship words kept by the default options);
- words: the words (2+ letters) of the surrogates of word labels (names, relatives,
  professions, places, organisations, dates, OTROS), tags left out; identifiers, phones,
  e-mails, URLs, addresses and OTROS and TERRITORIO values that are codes (`AB-1234`, a
  postal code `C1424CEN`: `surrogates.person.is_code`) are codes, whose letters are drawn
  at random by design;
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
  digits, the province, its community, a town of it).
- per country (the report's, as meddocan_deid.country detects it from the text and the
  entities, as the surrogates do): reports, words, scrambled words; surrogate surnames (the
  words of name surrogates in the country's surname list) and how many are among the 5,000
  most frequent Hispanic surnames of the US Census 2010 (the one licensed surname frequency
  list reachable: no Latin American registry nor Spain's INE publishes one that this project
  can ship or download), and for each list the share of its surnames among them (a
  surrogate surname is drawn uniformly from the list); streets whose surrogate keeps the
  original's form (head word, then numbers and separators: `Calle N # N-N`, `calle N e/ N y
  N`, `Mz. N Lt. N`) and the country's own forms (an address from a landmark stays one with
  legs of the same units; a numbered avenue or street and a Guatemalan zone keep their
  suffix and numbers of the country's: `surrogates.street_numbering`); TERRITORIO values
  that name a place of the Americas (a city, a division, a corregimiento of Panamá), and
  surrogates that are places of the same country;
  identifiers and phones of a kind with a check (read in the report's country), and their
  surrogates valid in that country.
- countries: with a `countries.tsv` (report id, country) in a set's folder, the reports whose
  detected country is the expected one (tests/data/countries: invented reports).
  digits, the province, its community, a town of it);
- identifiers and phones, per kind (`surrogates.id_validity.kind_check`: a CURP, a RUT, a
  CUIT, an SSN, a DNI, a NUSS..., a phone of a national plan): the values read as the kind,
  and the surrogates valid in their country (the kind's check; a phone valid in the same
  plan, of the same line type); and the CURPs of the patient that agree with the birth date
  and sex the de-identified report states (`surrogates.stated_person`), and per kind that
  holds a birth date (a CURP, a Nicaraguan cédula, a Salvadoran NIT, a Honduran card's year, a
  Cuban carné), the patient's surrogates that hold the stated birth date.
"""

import gzip
import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Annotated

import spacy
import typer
from stdnum.cu import ni as std_cu_ni
from stdnum.mx import curp as std_curp

import meddocan_deid
from meddocan_deid.brat import read_brat_dir
from meddocan_deid.country import country_of
from meddocan_deid.country_data import (
    SPAIN,
    corregimiento_countries,
    frequent_surnames,
    place_countries,
)
from meddocan_deid.deid import Deidentifier
from meddocan_deid.deid.gazetteer import resolve_gazetteer
from meddocan_deid.deid.surrogates import landmark_directions, street_numbering
from meddocan_deid.deid.surrogates.dates import read_date
from meddocan_deid.deid.surrogates.id_validity import kind_check
from meddocan_deid.deid.surrogates.names import country_lists, name_lists
from meddocan_deid.deid.surrogates.person import is_code, read_profession
from meddocan_deid.deid.surrogates.places import POSTAL, geo, province_of, split_street
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


NAME_LABELS = {
    "NOMBRE_SUJETO_ASISTENCIA",
    "NOMBRE_PERSONAL_SANITARIO",
    "FAMILIARES_SUJETO_ASISTENCIA",
}


def street_form(value: str) -> str:
    """A street's form: its head word (lower case), then its numbers and separators, the
    name's words left out (`Calle 10 # 5-51` -> `calle|N # N-N`)."""
    head, _name, suffix, rest = split_street(value)
    # a door: `3º B`, `5B` (its letter is drawn anew; an ordinal's `a` is kept)
    skeleton = re.sub(r"\b[A-Za-z]\b|(?<=N)[A-Z]\b", "L", re.sub(r"\d+", "N", rest))
    skeleton = re.sub(r"[^\W\d_]{3,}", "", skeleton)  # words of a place after the number
    return f"{lookup_key(head.strip())}|{lookup_key(suffix)}|{' '.join(skeleton.split())}"


def in_its_form(value: str, new: str, country: str) -> bool:
    """The country's own address forms kept: an address from a landmark stays one
    (`landmark_directions`), a numbered avenue or street and a zone keep numbers of the
    country's (`street_numbering`: `6a. avenida`, `zona 10`)."""
    old_landmark, new_landmark = landmark_directions.read(value), landmark_directions.read(new)
    if old_landmark is not None:  # its legs: the same count and units, new directions
        units = [m.group("unit") for m in landmark_directions.LEG.finditer(value)]
        return new_landmark is not None and units == [
            m.group("unit") for m in landmark_directions.LEG.finditer(new)
        ]
    table = street_numbering.numbering()
    for part, pattern in (("ordinal", street_numbering.ORDINAL), ("zone", street_numbering.ZONE)):
        pool = table.get((country, part))
        if not pool:
            continue
        olds, news = list(pattern.finditer(value)), list(pattern.finditer(new))
        if len(olds) != len(news) or any(int(m.group("number")) not in pool for m in news):
            return False
        if any(
            a.group("suffix") != b.group("suffix") for a, b in zip(olds, news) if part == "ordinal"
        ):
            return False
    return True


def _place_owners(value: str) -> frozenset[str]:
    """The countries of the Americas that have a city, a division or a corregimiento named
    `value`."""
    key = lookup_key(value.strip())
    return place_countries().get(key, frozenset()) | corregimiento_countries().get(key, frozenset())


def _expected_countries(folder: Path) -> dict[str, str]:
    path = folder / "countries.tsv"
    if not path.exists():
        return {}
    out = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise typer.BadParameter(f"{path}:{lineno}: expected a report id and a country")
        out[fields[0].strip()] = fields[1].strip()
    return out


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
    per_country: dict[str, Counter] = defaultdict(Counter)
    detected = Counter()
    top_surnames = frozenset(frequent_surnames())
    ids: dict[str, Counter] = defaultdict(Counter)
    curps = Counter()
    births: dict[str, Counter] = defaultdict(Counter)
    n_docs = 0
    for folder in sets:
        expected = _expected_countries(folder)
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
            found = (
                bdoc.entities
                if entities == "gold"
                else [(e.label_, e.start_char, e.end_char) for e in doc.ents]
            )
            country = country_of(bdoc.text, found)
            stats = per_country[country]
            stats["reports"] += 1
            if bdoc.doc_id in expected:
                detected["expected"] += 1
                detected["right"] += expected[bdoc.doc_id] == country
            surname_pool = {lookup_key(n) for n in country_lists(country)[2]}
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
                    label in ("OTROS_SUJETO_ASISTENCIA", "TERRITORIO") and is_code(value)
                ):
                    ws = words_of(new)
                    words[label] += len(ws)
                    original = set(words_of(value))
                    bad = sum(1 for w in ws if w not in known and w not in original)
                    scrambled[label] += bad
                    stats["words"] += len(ws)
                    stats["scrambled"] += bad
                    if label in NAME_LABELS:
                        drawn = [w for w in ws if w in surname_pool and w not in original]
                        stats["surnames"] += len(drawn)
                        stats["frequent"] += sum(1 for w in drawn if w in top_surnames)
                if label == "CALLE" and new != f"[{label}]" and new != value:
                    stats["streets"] += 1
                    stats["same form"] += in_its_form(value, new, country) and (
                        landmark_directions.read(value) is not None
                        or street_form(new) == street_form(value)
                    )
                if (
                    label == "TERRITORIO"
                    and country != SPAIN
                    and new != f"[{label}]"
                    and country in _place_owners(value)
                ):
                    stats["places"] += 1
                    stats["of the country"] += country in _place_owners(new)
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
            _count_identifiers(bdoc.text, res, ids, curps, country, stats, births)
            for news in groups.values():
                if len(news) < 2:
                    continue
                places["groups"] += 1
                places["agree"] += any(all(_province_fits(n, c) for n in news) for c in geo().names)
    names = " ".join(str(s) for s in sets)
    typer.echo(f"model: {model}; entities: {entities}; reports: {n_docs}; sets: {names}")
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
        f"professions: {jobs['known']} in the table; surrogates in the same ISCO group "
        f"{jobs['same group']}, gender agreeing {jobs['gender agrees']}"
    )
    typer.echo(
        f"places: {places['groups']} groups of 2+ places of one province in a report; "
        f"agreeing {places['agree']}"
    )
    if detected["expected"]:
        typer.echo(
            f"countries: {detected['expected']} reports with an expected country "
            f"(countries.tsv), detected right {detected['right']}"
        )
    columns = (
        "reports", "words", "scrambled", "surnames", "frequent", "streets", "same form",
        "places", "of the country", "ids", "valid ids", "phones", "valid phones",
    )  # fmt: skip
    typer.echo("country" + "".join(f"{c:>15}" for c in columns))
    for country in sorted(per_country, key=lambda c: (-per_country[c]["reports"], c)):
        typer.echo(country + " " * 5 + "".join(f"{per_country[country][c]:>15}" for c in columns))
    typer.echo(
        "same form: the street's head, numbers and separators kept, and the country's own forms"
        " (a landmark address, numbered avenues and zones within the country's numbers); ids,"
        " phones: values of a kind with a check, valid: surrogates valid in the country"
    )
    typer.echo(
        "frequent: surrogate surnames among the 5,000 most frequent Hispanic surnames of the US "
        "Census 2010 (no licensed list of each country is reachable)"
    )
    # the lists the surnames are drawn from (uniformly): the share a draw is frequent
    shares = []
    for country in ("ES", "MX", "CO", "CL", "AR", "PE"):
        pool = name_lists(gaz, country)[5]
        top = sum(1 for n in pool if lookup_key(n) in top_surnames)
        label = (
            country
            if country != "PE"
            else "pool (PE, VE, UY, CU, DO, EC, CR, GT, SV, HN, NI, PA, US)"
        )
        shares.append(f"{label} {top}/{len(pool)}")
    typer.echo("surname lists among the 5,000: " + ", ".join(shares))
    typer.echo(f"{'identifier kind':<24}{'values':>8}{'valid surrogates':>18}")
    for kind in sorted(ids):
        typer.echo(f"{kind:<24}{ids[kind]['n']:>8}{ids[kind]['valid']:>18}")
    typer.echo(
        f"CURPs of the patient in a report that states a birth date: {curps['n']}; agreeing with"
        f" the surrogate birth date {curps['date']}, and with the sex it states {curps['sex']}"
    )
    typer.echo(
        "identifiers of the patient that hold a birth date, valid, in a report that states one"
        " (kind: values, holding the stated date): "
        + (", ".join(f"{k}: {c['n']}, {c['agree']}" for k, c in sorted(births.items())) or "none")
    )


def _ddmmyy(value: str, start: int, date) -> bool:
    return value[start : start + 6] == date.strftime("%d%m%y")


# kind -> whether a valid compact surrogate of the kind holds `date` as its birth date (or year)
BIRTH_HOLDERS = {
    "curp": lambda v, d: std_curp.get_birth_date(v) == d,
    "cedula_ni": lambda v, d: _ddmmyy(v, 3, d),
    "nit_sv": lambda v, d: _ddmmyy(v, 4, d),
    "dni_hn": lambda v, d: v[4:8] == str(d.year),
    "ni_cu": lambda v, d: std_cu_ni.get_birth_date(v) == d,
}


def _count_identifiers(
    text: str,
    res,
    ids: dict[str, Counter],
    curps: Counter,
    country: str,
    stats: Counter,
    births: dict[str, Counter],
) -> None:
    """Per kind, the values and the surrogates valid in their country (the kind read in the
    report's country, as the surrogates read it); per country, its identifiers and phones and
    their valid surrogates; the patient's CURPs that agree with the birth date and sex of the
    de-identified report."""
    stated = stated_person(res.text, [(r.label, r.new_start, r.new_end) for r in res.replacements])
    for r in res.replacements:
        value, new = text[r.start : r.end], res.text[r.new_start : r.new_end]
        check = kind_check(value, r.label, country)
        if check is None:
            continue
        valid = new != f"[{r.label}]" and check.valid(new)
        ids[check.kind]["n"] += 1
        ids[check.kind]["valid"] += valid
        what = "phones" if check.kind.startswith("phone_") else "ids"
        stats[what] += 1
        stats[f"valid {what}"] += valid
        patients = r.label == "ID_SUJETO_ASISTENCIA" and stated.birth is not None
        if valid and patients and check.kind in BIRTH_HOLDERS:
            births[check.kind]["n"] += 1
            held = BIRTH_HOLDERS[check.kind](re.sub(r"[^0-9A-Z]", "", new.upper()), stated.birth)
            births[check.kind]["agree"] += held
        if check.kind == "curp" and patients:
            curps["n"] += 1
            valid = std_curp.is_valid(new)
            curps["date"] += valid and std_curp.get_birth_date(new) == stated.birth
            sex = {"H": "M", "M": "F"}.get(new[10:11]) if valid else None
            curps["sex"] += valid and stated.sex in (None, sex)


if __name__ == "__main__":
    typer.run(main)
