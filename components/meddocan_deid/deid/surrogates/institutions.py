"""Hospitals, institutions and health centres (HOSPITAL, INSTITUCION, CENTRO_SALUD, and an
employer given as OTROS_SUJETO_ASISTENCIA): a name of the same kind.

A region's body (`Servicio Andaluz de Salud`, `SERGAS`, `Xunta de Galicia`, `Ertzaintza`:
`data/regional.tsv`) becomes the body of the same kind of the community the report's places
map to (see `places`); a work-accident mutual or a health insurer another one (`words.tsv`).
Otherwise the kind is read from the original's head words (`Hospital Universitario`,
`Centro de Salud`, `CAP`, `Colegio`, `IES`, `Asociación`, `Fundación`, `Residencia`,
`Ayuntamiento de`, `Juzgado de Primera Instancia nº 3 de`, `Colegio Oficial de Médicos de`...)
or from what ends it (`S.L.`, `S.A.`, `S.L.U.`, `Abogados`, Basque `ikastola`); the kinds,
their heads and the templates of the rest are `data/institutions.tsv`. The head (or the
ending) is kept as written, digits re-drawn; the rest is a template filled with surnames,
given names, saints, Marian titles, place words, trade words, and a town or the province
of the report's surrogate province (the same town as the report's TERRITORIO surrogate when
the original's rest is that town). Keyed like every surrogate: the same value gets the same
surrogate under one key and scope. A HOSPITAL or CENTRO_SALUD value without a head gets a
rest alone (`12 de Octubre` -> `San Rafael`); an acronym, a value that is all head (`Cruz
Roja`, `Audiencia Nacional`) or an INSTITUCION of no kind read gets no surrogate (None: the
tag).
"""

import random
import re
from functools import lru_cache
from re import Pattern
from typing import NamedTuple

from ...country_data import SPAIN, institution_countries, place_countries
from ...country_data import institutions as americas_institutions
from ...lexicon import lookup_key
from . import country_places
from .common import Context, case_like, choose, scramble_digits
from .names import name_lists
from .places import geo, province_for, report_places, report_towns, town_for
from .tables import rows, words

BOUNDARY = r"(?=$|[\s,.;:()/'\-])"
# a connector before a town in the rest: `Hospital de Getafe`, `Universitat d'Alacant`
_TOWN_REST = re.compile(r"^(?:de|del|de la|d')\s*", re.IGNORECASE)
_ACRONYM = re.compile(r"^[A-ZÁÉÍÓÚÑÇ0-9.\-]{2,8}$")


class Kind(NamedTuple):
    name: str
    position: str  # start, end or bare
    labels: str  # * or a label
    head: Pattern | None
    templates: tuple[str, ...]


@lru_cache(maxsize=1)
def kinds() -> tuple[Kind, ...]:
    out = []
    for name, position, labels, regex, templates in rows("institutions.tsv"):
        if position == "start":
            head = re.compile(r"^(?:" + regex + ")" + BOUNDARY)
        elif position == "end":
            head = re.compile(
                r"(?<=[\s,.])(?:" + regex + r")[.,;]*$"
            )  # `S.L..` (a span with the full stop)
        else:
            head = None
        out.append(Kind(name, position, labels, head, tuple(t for t in templates.split("|") if t)))
    return tuple(out)


def _slot(rng, ctx: Context, slot: str, town, province=None) -> str | None:
    if slot in ("surname", "given", "person"):
        male, female, *_rest = name_lists(ctx.gaz, ctx.country)
        surname = choose(rng, _rest[3])
        given = choose(rng, male if rng.random() < 0.5 else female)
        return {"surname": surname, "given": given, "person": f"{given} {surname}"}[slot]
    if slot == "town":
        if town is not None:
            return town()
        if ctx.country != SPAIN:
            return choose(rng, country_places.big_cities(ctx.country))
        return _report_town(rng, ctx)
    if slot == "province" and ctx.country != SPAIN and province is None:
        return choose(rng, country_places.division_names(ctx.country))
    if slot == "province":
        return (
            province()
            if province is not None
            else geo().names[report_places(ctx).surrogate(ctx, None)]
        )
    return choose(rng, words(slot))


def _report_town(rng, ctx: Context) -> str | None:
    return choose(rng, report_towns(ctx))


def fill(
    rng,
    ctx: Context,
    kind: str,
    label: str | None = None,
    town=None,
    templates: tuple[str, ...] | None = None,
    province=None,
) -> str | None:
    """One of the templates of `kind` (of its bare row for `label` when given) with its
    slots filled; `town`, `province`: functions giving the {town} and {province} slots
    (None: a town or the province of the report's surrogate province). None when a slot
    has no value."""
    if templates is None:
        templates = next(
            (
                k.templates
                for k in kinds()
                if k.name == kind and (label is None or k.labels == label)
            ),
            (),
        )
    template = choose(rng, templates)
    if template is None:
        return None
    missing = []

    def value(m):
        v = _slot(rng, ctx, m.group(1), town, province)
        if v is None:
            missing.append(m.group(1))
            return ""
        return v

    out = re.sub(r"\{(\w+)\}", value, template)
    return None if missing else out


class Parsed(NamedTuple):
    kind: str
    head: str  # kept as written (digits re-drawn)
    sep: str  # between the head and the rest
    rest: str  # replaced
    suffix: str  # a company's legal form, kept
    templates: tuple[str, ...]


def parse(value: str, label: str) -> Parsed | None:
    """The kind, head, rest and legal form of an organisation's name; None when no kind fits."""
    f = lookup_key(value)
    aligned = len(f) == len(value)  # the patterns read the folded text, positions must agree
    body, suffix, suffix_kind = value, "", None
    if aligned:
        for kind in kinds():
            if kind.position == "end" and kind.head is not None:
                m = kind.head.search(f)
                if m and value[: m.start()].strip(" ,"):
                    body = value[: m.start()].rstrip(" ,")
                    # with the space or comma before it
                    suffix, suffix_kind = value[len(body) :], kind
                    break
    fb = f[: len(body)] if aligned else ""
    # before a legal form, a company's trade word is a head too (`Construcciones X S.L.`)
    if aligned and (suffix_kind is None or suffix_kind.name == "company_suffix"):
        for kind in kinds():
            if (
                kind.position != "start"
                or kind.head is None
                or (suffix_kind is not None and kind.name != "company")
            ):
                continue
            m = kind.head.match(fb)
            if m:
                after = body[m.end() :]
                rest = after.strip()
                if not rest:
                    if suffix_kind is not None:
                        break  # `Construcciones S.L.`: the legal form's templates
                    if any(c.isdigit() for c in body):  # `UMF No. 12`: a unit by its number
                        return Parsed(kind.name, body, "", "", suffix, kind.templates)
                    return None  # all head (`Hospital`, `Audiencia Nacional`): the tag
                sep = after[: len(after) - len(after.lstrip())] or (
                    "" if body[m.end() - 1 : m.end()] == "'" else " "
                )
                return Parsed(kind.name, body[: m.end()], sep, rest, suffix, kind.templates)
    if suffix_kind is not None:
        return Parsed(suffix_kind.name, "", "", body, suffix, suffix_kind.templates)
    if _ACRONYM.match(value.replace(" ", "")) and not any(c.islower() for c in value):
        return None  # an acronym: no letter salad, the tag
    bare = next((k for k in kinds() if k.position == "bare" and k.labels == label), None)
    if bare is None:
        return None
    return Parsed(bare.name, "", "", value, "", bare.templates)


def _rest_town(ctx: Context, rest: str):
    """The {town} slot when the original's rest is a town (`de Getafe`): its TERRITORIO
    surrogate, so that a report's town and its town hall agree; else None."""
    core = _TOWN_REST.sub("", rest).strip()
    if ctx.country != SPAIN:  # a place of the report's country: its surrogate in the report
        # (`San Juan de Dios`, a town of Costa Rica, names a saint in a Guatemalan hospital)
        if ctx.country in place_countries().get(lookup_key(core), ()):
            return lambda: country_places.place(ctx, core)
        return None
    if (
        core
        and lookup_key(core) not in geo().by_name
        and (lookup_key(core) in geo().town_codes or ctx.gaz.contains("towns", core))
    ):
        return lambda: town_for(ctx, core)
    return None


@lru_cache(maxsize=1)
def regional_bodies():
    """(folded name or acronym -> (community, kind, is an acronym),
    (community, kind) -> (name, acronym))."""
    found, written = {}, {}
    for community, kind, name, others in rows("regional.tsv"):
        names = [n for n in others.split("|") if n]
        acronym = next((n for n in names if n.replace("-", "").isupper()), "")
        written[(community, kind)] = (name, acronym)
        for n in [name] + names:
            found.setdefault(
                lookup_key(n), (community, kind, n == acronym or (n.isupper() and " " not in n))
            )
    return found, written


def _regional(ctx: Context, value: str) -> str | None:
    """A region's body as the body of the same kind of the report's surrogate community."""
    found, written = regional_bodies()
    hit = found.get(lookup_key(value))
    if hit is None:
        return None
    community, kind, acronym = hit
    g = geo()
    places = report_places(ctx)
    own = g.community_provinces[community]
    code = next(
        (c for c in places.found if c in own), own[0]
    )  # the report's province of that community
    name, short = written.get((g.community[places.surrogate(ctx, code)], kind), ("", ""))
    new = short if acronym and short else name
    if not new:
        return ""  # no body of that kind there: the tag
    return (
        new.upper()
        if value.isupper() and len(value) > 4
        else new.lower()
        if value.islower()
        else new
    )


def _listed(ctx: Context, value: str) -> str | None:
    """A work-accident mutual or a health insurer: another of the same list."""
    for name in ("mutual", "insurer"):
        pool = words(name)
        if lookup_key(value) in {lookup_key(v) for v in pool}:

            def pick(rng: random.Random, attempt: int, pool: tuple[str, ...] = pool) -> str | None:
                return choose(rng, pool)

            new = ctx.draw(name, value, pick, shape_fallback=False)
            if new is None:
                return ""
            return (
                new.upper()
                if value.isupper() and len(value) > 4
                else new.lower()
                if value.islower()
                else new
            )
    return None


def _americas(ctx: Context, value: str) -> str | None:
    """An institution of the Americas (`data/americas/institutions.tsv`): another of the same
    country and kind (of the same country when it has none of that kind), an acronym for an
    acronym (a full name when the country has no other acronym); "" (the tag) when the list
    has no other."""
    found = institution_countries().get(lookup_key(value))
    if not found:
        return None
    inst = next((i for i in found if i.country == ctx.country), found[0])
    acronym = value.replace("-", "").replace(" ", "").isupper() and len(value) <= 10

    def written(other, short: bool) -> str | None:
        if not short:
            return other.name
        return next((a for a in other.aliases if a.replace("-", "").isupper()), None)

    others = [i for i in americas_institutions() if i.country == inst.country and i != inst]
    # the same kind first; a country with no other of that kind: another of its bodies; an
    # acronym whose country has no other acronym: a full name (`ISSS` of El Salvador)
    same_kind = [i for i in others if i.kind == inst.kind]
    pool: tuple[str, ...] = ()
    for short in (acronym, False):
        for group in (same_kind, others):
            pool = tuple(w for other in group for w in (written(other, short),) if w)
            if pool:
                break
        if pool:
            break
    new = ctx.draw("institution", value, lambda rng, a: choose(rng, pool), shape_fallback=False)
    if new is None:
        return ""
    return new.upper() if value.isupper() and not acronym else new


def _rest_province(ctx: Context, rest: str):
    """The {province} slot when the original's rest is a province (`de Sevilla`): its
    TERRITORIO surrogate; else None."""
    core = _TOWN_REST.sub("", rest).strip()
    code = geo().by_name.get(lookup_key(core))
    return (lambda: province_for(ctx, core, code)) if code else None


def organisations(text: str, label: str, ctx: Context) -> str | None:
    """HOSPITAL, INSTITUCION, CENTRO_SALUD: see the module; None (the tag) when no kind fits."""
    value = text.strip()
    if not value:
        return None
    start = text.index(value)
    for known in (_americas, _regional, _listed):
        new = known(ctx, value)
        if new is not None:
            if not new or not ctx.acceptable(new, value):
                return None
            return text[:start] + new + text[start + len(value) :]
    parsed = parse(value, label)
    if parsed is None:
        return None
    if not parsed.rest:  # `UMF No. 12`: the same head, a new number
        new = ctx.draw(
            "organisation",
            value,
            lambda rng, a: scramble_digits(rng, parsed.head) + parsed.suffix,
            key_value=lookup_key(value),
            shape_fallback=False,
        )
        return None if new is None else text[:start] + new + text[start + len(value) :]
    town, province = _rest_town(ctx, parsed.rest), _rest_province(ctx, parsed.rest)
    upper = value.isupper()
    templates = parsed.templates
    if _TOWN_REST.match(parsed.rest):  # `Hospital de Fuenlabrada`: a rest of the same build
        templates = tuple(t for t in templates if _TOWN_REST.match(t)) or templates

    def make(rng, attempt):
        new_rest = fill(rng, ctx, parsed.kind, town=town, templates=templates, province=province)
        if new_rest is None:
            return None
        new_rest = new_rest.upper() if upper else case_like(parsed.rest, new_rest)
        head = scramble_digits(rng, parsed.head)  # `Juzgado nº 3 de`: a number of the same width
        return head + parsed.sep + new_rest + parsed.suffix

    def check(candidate: str, original: str) -> bool:
        # the head and the ending are the original's own words (`Hospital General` may be another
        # PHI span of the report): the rest alone must not reproduce a PHI string
        rest = candidate[len(parsed.head) + len(parsed.sep) : len(candidate) - len(parsed.suffix)]
        return (
            lookup_key(candidate) != lookup_key(original)
            and lookup_key(candidate) not in ctx.forbidden_exact
            and ctx.acceptable(rest, parsed.rest)
        )

    new = ctx.draw(
        "organisation", value, make, check=check, key_value=lookup_key(value), shape_fallback=False
    )
    if new is None or lookup_key(new) == lookup_key(value):
        return None
    return text[:start] + new + text[start + len(value) :]


def hospitals(text: str, label: str, ctx: Context) -> str | None:
    return organisations(text, label, ctx)


def institutions(text: str, label: str, ctx: Context) -> str | None:
    return organisations(text, label, ctx)


def health_centres(text: str, label: str, ctx: Context) -> str | None:
    return organisations(text, label, ctx)
