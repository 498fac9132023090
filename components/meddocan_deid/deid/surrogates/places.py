"""Streets, postal codes, towns, provinces, communities and countries.

Places of one report agree: each province the report names (by a postal code, a province, a
community or a town of one province) maps to one surrogate province of another autonomous
community, the same for the whole report (keyed by scope; `data/provinces.tsv`); a postal
code gets that province's two first digits, a town a town of that province
(`data/towns.tsv`, GeoNames, in the gazetteer's spelling when the gazetteer has the town), a
community that province's community. A place the tables do not know (a district, a
comarca) becomes a town of the report's first surrogate province.

A street keeps its head word as written (`Avda.`, `C/`, `carrer`, Basque `kalea` after the
name) followed by a space and a new name (the gazetteer's street names, else names, saints
and place words); numbers, floors and doors keep their shape with new digits (`s/n` kept).
Hospitals, institutions and health centres are in `institutions`.
"""

import re
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from ...lexicon import lookup_key
from ..gazetteer import Gazetteer
from .common import MAX_ATTEMPTS, Context, case_like, choose, smart_title
from .tables import rows, words

CEUTA_MELILLA = ("51", "52")
# the lookbehind: a scan of a long run of blanks and dots tries once, not at each character
POSTAL = re.compile(
    r"(?P<pre>(?<![\s:.-])(?:E|CP|C\.P\.)?[\s:.-]*)(?P<code>\d{5})(?P<post>[\s.-]*)",
    re.IGNORECASE,
)


class Geo(NamedTuple):
    names: dict[str, str]  # province code -> name written
    community: dict[str, str]  # province code -> community name written
    by_name: dict[str, str]  # folded province name or spelling -> code
    communities: dict[str, str]  # folded community name or spelling -> community name written
    community_provinces: dict[str, tuple[str, ...]]
    towns: dict[str, tuple[str, ...]]  # code -> towns (GeoNames spelling)
    town_codes: dict[str, tuple[str, ...]]  # folded town -> codes


@lru_cache(maxsize=1)
def geo() -> Geo:
    names, community, by_name = {}, {}, {}
    for code, name, comm, *rest in rows("provinces.tsv"):
        names[code], community[code] = name, comm
        for spelling in [name] + [v for v in (rest[0] if rest else "").split("|") if v]:
            by_name[lookup_key(spelling)] = code
    communities = {}
    for name, *rest in rows("communities.tsv"):
        for spelling in [name] + [v for v in (rest[0] if rest else "").split("|") if v]:
            communities[lookup_key(spelling)] = name
    community_provinces: dict[str, list[str]] = {}
    for code, comm in sorted(community.items()):
        community_provinces.setdefault(comm, []).append(code)
    towns: dict[str, list[str]] = {}
    town_codes: dict[str, list[str]] = {}
    for code, town in rows("towns.tsv"):
        towns.setdefault(code, []).append(town)
        town_codes.setdefault(lookup_key(town), []).append(code)
    return Geo(
        names,
        community,
        by_name,
        communities,
        {k: tuple(v) for k, v in community_provinces.items()},
        {k: tuple(sorted(set(v))) for k, v in towns.items()},
        {k: tuple(sorted(set(v))) for k, v in town_codes.items()},
    )


@lru_cache(maxsize=8)
def _gazetteer_spelling(gaz: Gazetteer) -> dict[str, str]:
    """Folded town -> the gazetteer's spelling (`Alcoy/Alcoi` gives both names)."""
    spelled: dict[str, str] = {}
    for entry in gaz.get("towns"):
        for part in entry.split("/"):
            if part.strip():
                spelled.setdefault(lookup_key(part.strip()), part.strip())
    return spelled


@lru_cache(maxsize=512)
def town_pool(code: str, gaz: Gazetteer) -> tuple[str, ...]:
    """The towns of province `code`: those the gazetteer also lists, in its spelling (with
    accents), else GeoNames' (no accents)."""
    g = geo()
    spelled = _gazetteer_spelling(gaz)
    pool = tuple(
        sorted({spelled[lookup_key(t)] for t in g.towns.get(code, ()) if lookup_key(t) in spelled})
    )
    return pool or g.towns.get(code, ())


def province_of(value: str) -> str | None:
    """The province code a place names: a postal code (its first two digits), a province
    (any spelling), or a town of a single province; None otherwise."""
    g = geo()
    f = lookup_key(value.strip())
    m = POSTAL.fullmatch(f)
    if m:
        code = m.group("code")[:2]
        return code if code in g.names else None
    if f in g.by_name:
        return g.by_name[f]
    codes = g.town_codes.get(f, ())
    return codes[0] if len(codes) == 1 else None


class ReportPlaces:
    """The provinces one report names and the surrogate province of each (per scope: the
    same key and scope give the same map whatever the order of the spans)."""

    def __init__(self, ctx: Context):
        named: set[str] = set()
        coded: set[str] = set()
        for s in ctx.forbidden_exact:  # the report's PHI strings, folded
            if POSTAL.fullmatch(s):
                code = province_of(s)
                if code:
                    coded.add(code)
            elif province := province_of(s):
                named.add(province)
        self.found = sorted(named | coded)
        # a province named in words first: a 5-digit number may be an identifier, not a postal code
        self.main = min(named) if named else (min(coded) if coded else None)
        self.map: dict[str | None, str] = {}
        for code in self.found:
            self.map[code] = self._draw(ctx, code)

    def _draw(self, ctx: Context, code: str | None) -> str:
        g = geo()
        taken = set(self.map.values())
        if code in CEUTA_MELILLA:  # the two autonomous cities map to each other
            return CEUTA_MELILLA[1 - CEUTA_MELILLA.index(code)]
        community = g.community.get(code) if code else None
        candidates = [
            c
            for c in sorted(g.names)
            if c not in CEUTA_MELILLA
            and c != code
            and c not in self.found
            and g.community[c] != community
        ]
        free = [c for c in candidates if c not in taken] or candidates
        original = g.names.get(code, "") if code else ""
        for attempt in range(MAX_ATTEMPTS):
            pick = ctx.keyed.rng("province", code or "", attempt).choice(free)
            if ctx.acceptable(g.names[pick], original) and ctx.acceptable(
                g.community[pick], original
            ):
                return pick
        return free[0]

    def surrogate(self, ctx: Context, code: str | None) -> str:
        """The surrogate province of `code` (None: of the report's first province)."""
        code = code if code is not None else self.main
        if code not in self.map:
            self.map[code] = self._draw(ctx, code)
        return self.map[code]


def report_places(ctx: Context) -> ReportPlaces:
    places = ctx.state.get("places")
    if not isinstance(places, ReportPlaces):
        places = ctx.state["places"] = ReportPlaces(ctx)
    return places


def _town_province(ctx: Context, town: str) -> str | None:
    codes = geo().town_codes.get(lookup_key(town.strip()), ())
    if not codes:
        return None
    found = report_places(ctx).found
    # a name of several provinces: the report's
    return next((c for c in codes if c in found), codes[0])


def report_towns(ctx: Context) -> tuple[str, ...]:
    """The towns of the report's first surrogate province (for a place the tables do not know)."""
    places = report_places(ctx)
    return town_pool(places.surrogate(ctx, None), ctx.gaz)


def town_for(ctx: Context, text: str) -> str | None:
    """A town of the surrogate of `text`'s province (the report's first one when `text` is
    not a town we know), keyed by `text`, in `text`'s case; None when none is acceptable."""
    places = report_places(ctx)
    pool = town_pool(places.surrogate(ctx, _town_province(ctx, text)), ctx.gaz)
    value = ctx.draw("town", text, lambda rng, attempt: choose(rng, pool), shape_fallback=False)
    return None if value is None else case_like(text, value)


def postal_code_for(ctx: Context, text: str) -> str | None:
    """A postal code of the surrogate province of `text`'s, prefix (`E-`, `CP`) kept."""
    m = POSTAL.fullmatch(text)
    if m is None:
        return None  # not a postal code: the caller writes the tag
    places = report_places(ctx)
    target = places.surrogate(ctx, province_of(m.group("code")))

    def make(rng, attempt):
        return m.group("pre") + target + f"{rng.randint(0, 999):03d}" + m.group("post")

    return ctx.draw("postcode", text, make, key_value=lookup_key(text), shape_fallback=False)


def province_for(ctx: Context, text: str, code: str) -> str | None:
    value = geo().names[report_places(ctx).surrogate(ctx, code)]
    return case_like(text, value) if ctx.acceptable(value, text) else None


def community_for(ctx: Context, text: str, community: str) -> str | None:
    g = geo()
    places = report_places(ctx)
    own = g.community_provinces[community]
    code = next(
        (c for c in places.found if c in own), own[0]
    )  # the report's province of that community
    value = g.community[places.surrogate(ctx, code)]
    return case_like(text, value) if ctx.acceptable(value, text) else None


# a separator starts where its blanks start (the lookbehind: the same splits, and a run of
# blanks is not scanned to its end from each of its characters)
_PARTS = re.compile(r"(?<!\s)(\s*[/()]\s*|\s*,\s*|\s+-\s+)")


def territories(text: str, label: str, ctx: Context) -> str | None:
    """TERRITORIO: a postal code, a province, a community, a town (see the module) or a
    continent; `Móstoles (Madrid)` and `Barcelona/Barcelona` part by part; None (the tag)
    for digits and words we cannot read as one of these."""
    g = geo()
    value = text.strip()
    if not value:
        return None
    if POSTAL.fullmatch(value):
        return around(text, postal_code_for(ctx, value))
    if any(c.isdigit() for c in value):
        return None  # digits beside words we do not read: no letter salad, the tag
    f = lookup_key(value)
    if f in g.by_name:
        return around(text, province_for(ctx, value, g.by_name[f]))
    if f in g.communities:
        return around(text, community_for(ctx, value, g.communities[f]))
    continents = words("continent")
    if f in {lookup_key(c) for c in continents}:
        new = ctx.draw(
            "continent", value, lambda rng, a: choose(rng, continents), shape_fallback=False
        )
        return around(text, None if new is None else case_like(value, new))
    if is_place_list(value):
        return each_place(text, value, label, ctx, territories)
    return around(text, town_for(ctx, value))


def is_place_list(value: str) -> bool:
    """Whether `value` lists places (`Lugo / Ourense`, `Soria, Burgos`, `Alcoy - Alicante`)."""
    return len(_PARTS.split(value)) > 1


def each_place(
    text: str,
    value: str,
    label: str,
    ctx: Context,
    replace: Callable[[str, str, Context], str | None],
) -> str | None:
    """`text` with each place of a list (`Lugo / Ourense`, `Soria, Burgos`) replaced by
    `replace(place, label, ctx)`, the separators kept; None when one place has no surrogate."""
    out = []
    for i, part in enumerate(_PARTS.split(value)):
        if i % 2 or not part:
            out.append(part)
            continue
        new = replace(part, label, ctx)
        if new is None:
            return None
        out.append(new)
    return around(text, "".join(out))


def around(text: str, new: str | None) -> str | None:
    """`new` with the spaces around `text` kept."""
    if new is None:
        return None
    stripped = text.strip()
    start = text.index(stripped)
    return text[:start] + new + text[start + len(stripped) :]


def countries(text: str, label: str, ctx: Context) -> str | None:
    from faker.providers.address.es_ES import Provider

    pool = tuple(sorted(set(Provider.countries)))
    value = ctx.draw("country", text, lambda rng, a: choose(rng, pool), shape_fallback=False)
    return None if value is None else case_like(text, value)


# -- streets --------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _street_heads():
    prefix, suffix = [], []
    for position, spellings in rows("street_heads.tsv"):
        (prefix if position == "prefix" else suffix).extend(s for s in spellings.split("|") if s)

    def pattern(forms, anchor_end=False):
        alts = []
        for form in sorted(set(forms), key=len, reverse=True):
            # a head ending in a letter must end a word (`calle` is not the start of `callejón`)
            alts.append(re.escape(form) + (r"(?=\s|$)" if form[-1].isalnum() else ""))
        body = "(?:" + "|".join(alts) + ")"
        return re.compile((r"(?<=\s)" + body + r"$") if anchor_end else ("^" + body), re.IGNORECASE)

    return pattern(prefix), pattern(suffix, anchor_end=True)


# the rest is tried where a blank run starts, not inside it (its heads start with no blank, so
# a rest found inside a run is found at its start): each run is read once
NAME_REST = re.compile(
    r"(?P<name>[^,\d]*?)"
    r"(?:(?<!\s)(?P<rest>\s*(?:,|#|\bn\.?\s?º|\bnº|\bnúm|\bnum\.|\bs/n|\bkm|\d).*))?$",
    re.IGNORECASE | re.DOTALL,
)


def split_street(text: str) -> tuple[str, str, str, str]:
    """(prefix head, name, suffix head, rest) of a street value; empty parts are ""."""
    prefix_re, suffix_re = _street_heads()
    m = prefix_re.match(text)
    head = m.group() if m else ""
    after = text[len(head) :]
    nm = NAME_REST.match(after.lstrip())
    name, rest = (nm.group("name"), nm.group("rest") or "") if nm else (after.lstrip(), "")
    suffix = ""
    if not head:
        sm = suffix_re.search(name.rstrip())
        if sm:
            suffix = sm.group()
            name = name.rstrip()[: sm.start()].rstrip()
    return head, name, suffix, rest


@lru_cache(maxsize=8)
def street_names(gaz: Gazetteer) -> tuple[str, ...]:
    """The gazetteer's street names without their head words, numbers or notes."""
    prefix_re, _suffix_re = _street_heads()
    out = set()
    for entry in gaz.get("streets"):
        name = entry.split(",")[0].strip()
        m = prefix_re.match(name)
        if m:
            name = name[m.end() :].strip()
        # a plain name: no number, note, abbreviation or second address (`CT X. CAMÍ Y`)
        if (
            len(name) >= 3
            and len(name.split()) <= 6
            and not any(c.isdigit() for c in name)
            and not re.search(r"[().,/]|\bkm\b", name, re.I)
            and not prefix_re.match(name)
        ):
            out.add(name)
    return tuple(sorted(out))


_NO_NUMBER = re.compile(r"(s/n|S/N|s/nº|S/Nº)")


def _rest_surrogate(rng, rest: str) -> str:
    """Numbers, floors and doors: digits random (the first not 0 when the original's was
    not), a door letter (`3B`, `2º B`) a random one of A-H in its case; words, `nº` and
    `s/n` kept."""
    out = []
    for chunk in _NO_NUMBER.split(rest):
        if _NO_NUMBER.fullmatch(chunk):
            out.append(chunk)
            continue
        tokens = re.split(r"(\s+|[,.;:/\-º°ª#])", chunk)
        for i, tok in enumerate(tokens):
            if re.fullmatch(r"\d+", tok):
                first = str(rng.randint(1, 9)) if tok[0] != "0" else "0"
                out.append(first + "".join(str(rng.randint(0, 9)) for _ in tok[1:]))
            elif re.fullmatch(r"\d+[A-Za-z]", tok):
                digits = str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in tok[1:-1])
                door = rng.choice("ABCDEFGH")
                out.append(digits + (door if tok[-1].isupper() else door.lower()))
            elif len(tok) == 1 and tok.isupper() and tok.isalpha():
                # a door letter after a number or a floor (`3 B`, `2º B`), not the `N` of `Nº`
                before = "".join(tokens[:i]).rstrip()
                after = "".join(tokens[i + 1 :])
                door = before[-1:].isdigit() or before[-1:] in ("º", "ª")
                out.append(
                    rng.choice("ABCDEFGH") if door and after[:1] not in ("º", ".", "/") else tok
                )
            else:
                out.append(tok)
    return "".join(out)


_CAPITALISED = re.compile(
    r"[A-ZÁÉÍÓÚÑÀÈÒÇ][^\W\d_]+"
    r"(?:[ '-](?:(?:de|del|la|las|los|el|d'|i|y) )?[A-ZÁÉÍÓÚÑÀÈÒÇ][^\W\d_]+)*"
)


def _rest_places(ctx: Context, rest: str) -> str | None:
    """A town or a province written after a street's number (`Calle X, 9, Toro (Zamora)`):
    the report's surrogate of it, as a TERRITORIO value gets; None when it has none."""
    g = geo()
    out, pos = [], 0
    for m in _CAPITALISED.finditer(rest):
        words = m.group()
        f = lookup_key(words)
        if f in g.by_name:
            new = province_for(ctx, words, g.by_name[f])
        elif f in g.town_codes or ctx.gaz.contains("towns", words):
            new = town_for(ctx, words)
        else:
            continue
        if new is None:
            return None
        out.append(rest[pos : m.start()] + new)
        pos = m.end()
    return "".join(out) + rest[pos:]


def smart(value: str) -> str:
    """A gazetteer name in capitals (`SANTA MARÍA DE LA ALHAMBRA`) in title case."""
    return smart_title(value.lower()) if value.isupper() else value
