"""Streets, towns, provinces, countries, hospitals, institutions and health centres:
realistic values of the same kind, from the gazetteer when it is there, else Faker es_ES."""
import re

from ..gazetteer import fold
from .common import Context, case_like, choose, random_shape, seeded_faker, smart_title
from .identifiers import territory_code

STREET_HEAD = re.compile(
    r"^(?P<head>(?:c/|c\.|cl\.?|calle|avda\.?|avd\.?|av\.?|avenida|plaza|pza\.?|pl\.?|plza\.?|paseo|pº|p\.º|"
    r"ctra\.?|carretera|camino|cno\.?|ronda|rda\.?|travesía|travesia|trav\.?|urbanización|urbanizacion|urb\.?|"
    r"callejón|glorieta|rambla|vía|via|pasaje|plazuela|barrio|bº|polígono|poligono|pol\.?|partida|lugar|"
    r"carrer|rúa|rua|kalea|alameda|costanilla|cuesta|bajada|subida|prolongación|sector|residencial)\s*)?"
    r"(?P<name>[^,\d]*?)(?P<rest>\s*(?:,|\bnº|\bn\.º|\bnúm|\d).*)?$",
    re.IGNORECASE | re.DOTALL,
)


def _street_names(ctx: Context):
    names = ctx.gaz.get("streets")
    return tuple(sorted({n.split(",")[0].strip() for n in names if n.split(",")[0].strip()}))


def _rest_surrogate(rng, rest: str) -> str:
    """Numbers, floors and doors: digits random; single letters (door `B`) random; words kept."""
    out = []
    for tok in re.split(r"(\W+)", rest):
        if tok.isdigit() or (len(tok) == 1 and tok.isalpha()):
            out.append(random_shape(rng, tok))
        else:
            out.append(tok)
    return "".join(out)


def streets(text: str, label: str, ctx: Context) -> str:
    m = STREET_HEAD.match(text)
    head, name, rest = (m.group("head") or "", m.group("name") or "", m.group("rest") or "") if m else ("", text, "")
    names = _street_names(ctx)

    def make(rng, attempt):
        if names:
            new_name = choose(rng, names)
        else:
            fk = seeded_faker(rng.getrandbits(64))
            new_name = fk.street_name()
            mm = STREET_HEAD.match(new_name)
            if mm and mm.group("head") and mm.group("name"):
                new_name = mm.group("name")
        if name.strip():
            new_name = case_like(name, new_name) if not name.strip().isupper() else new_name.upper()
            trail = name[len(name.rstrip()):]
        else:
            trail = ""
        return head + (new_name + trail if name.strip() else "") + _rest_surrogate(rng, rest)

    return ctx.draw("street", text, make, key_value=text)


def _pick_place(ctx: Context, text: str, kind: str, pool, faker_method: str) -> str:
    def make(rng, attempt):
        if pool:
            return choose(rng, pool)
        return getattr(seeded_faker(rng.getrandbits(64)), faker_method)()

    value = ctx.draw(kind, text, make, check=lambda c, o: ctx.acceptable(c, o))
    return case_like(text, value)


def territories(text: str, label: str, ctx: Context) -> str:
    """TERRITORIO: postal codes (digits) keep their shape; provinces/communities become
    provinces/communities; anything else becomes a municipality."""
    if any(c.isdigit() for c in text) and not any(c.isalpha() for c in text.replace("-", "")[1:]):
        return territory_code(text, label, ctx)
    if any(c.isdigit() for c in text):
        return territory_code(text, label, ctx)
    if ctx.gaz.contains("territories", text):
        return _pick_place(ctx, text, "territory", ctx.gaz.get("territories"), "autonomous_community")
    return _pick_place(ctx, text, "town", ctx.gaz.get("towns"), "city")


def countries(text: str, label: str, ctx: Context) -> str:
    from faker.providers.address.es_ES import Provider

    pool = tuple(sorted(set(Provider.countries)))
    return _pick_place(ctx, text, "country", pool, "country")


def hospitals(text: str, label: str, ctx: Context) -> str:
    pool = ctx.gaz.get("hospitals")

    def make(rng, attempt):
        if pool:
            value = choose(rng, pool)
        else:
            value = "Hospital " + seeded_faker(rng.getrandbits(64)).city()
        return value

    value = ctx.draw("hospital", text, make)
    letters = [c for c in text if c.isalpha()]
    if letters and all(c.isupper() for c in letters):
        return value.upper()
    return smart_title(value.lower()) if value.isupper() else value


def institutions(text: str, label: str, ctx: Context) -> str:
    value = ctx.draw("institution", text, lambda rng, a: seeded_faker(rng.getrandbits(64)).company())
    return case_like(text, value) if text.isupper() else value


def health_centres(text: str, label: str, ctx: Context) -> str:
    towns = ctx.gaz.get("towns")

    def make(rng, attempt):
        town = choose(rng, towns) if towns else seeded_faker(rng.getrandbits(64)).city()
        return "Centro de Salud " + town

    value = ctx.draw("health_centre", text, make)
    return value.upper() if text.isupper() else value
