"""Street surrogates (CALLE): the head word kept, a new street name from the gazetteer (or an
invented one, as institutions make them), the numbers and the places after it re-drawn (a
numbered avenue or street of Central America and a Guatemalan zone within the country's
numbers: `street_numbering`); an address given from a landmark, another landmark and new
distances (`landmark_directions`). Apart from `places`, since a street name may be invented
as an institution's is, and institutions read places."""

import re

from ...country_data import SPAIN
from ...lexicon import lookup_key
from . import landmark_directions, street_numbering
from .common import Context, case_like, choose
from .country_places import is_country_place, place
from .institutions import fill
from .places import _CAPITALISED, _rest_places, _rest_surrogate, smart, split_street, street_names


def _country_rest_places(ctx: Context, rest: str) -> str | None:
    """A city, a division or a corregimiento of the Americas written after a street's number
    (`Calle 5 # 2-10, Medellín`, `Calle 50, edificio 12, Betania`): the report's surrogate of
    it; None when it has none."""
    out, pos = [], 0
    for m in _CAPITALISED.finditer(rest):
        if not is_country_place(ctx, m.group()):
            continue
        new = place(ctx, m.group())
        if new is None:
            return None
        out.append(rest[pos : m.start()] + new)
        pos = m.end()
    return "".join(out) + rest[pos:]


def streets(text: str, label: str, ctx: Context) -> str | None:
    """CALLE: head word kept (then one space), a new street name, numbers re-drawn; None
    (the tag) when there is nothing to replace or no acceptable name."""
    if landmark_directions.read(text) is not None:
        # `de donde fue el cine 2 c. al sur`: another landmark, new distances and directions
        # (whatever the detected country: a report of Nicaragua read as Spain's too)
        value = text.strip()
        new = ctx.draw(
            "street",
            value,
            lambda rng, attempt: landmark_directions.surrogate(rng, value),
            key_value=text,
            shape_fallback=False,
        )
        return None if new is None else text.replace(value, new, 1)
    head, name, suffix, rest = split_street(text)
    if not name.strip() and not re.search(r"\d", rest):
        return None
    new_rest = _rest_places(ctx, rest) if ctx.country == SPAIN else _country_rest_places(ctx, rest)
    if new_rest is None:
        return None
    rest = new_rest
    # a report of the Americas: names made as its streets are named (its people, places, saints)
    gazetteer_names = street_names(ctx.gaz) if ctx.country == SPAIN else ()
    kind = "street" if ctx.country == SPAIN else "street_americas"
    # between the head and what follows
    gap = text[len(head) : len(text) - len(text[len(head) :].lstrip())]

    def make(rng, attempt):
        new_name = ""
        if name.strip():
            new_name = (
                choose(rng, gazetteer_names)
                if gazetteer_names
                else fill(rng, ctx, kind, label="CALLE")
            )
            if new_name is None:
                return None
            new_name = (
                new_name.upper()
                if name.strip().isupper()
                else case_like(name.strip(), smart(new_name))
            )
            if head:  # `Calle de la Isla`, not `Calle De la Isla`
                new_name = re.sub(
                    r"^(De|Del|Dels|Da|Do|Das|Dos)(?= )", lambda m: m.group().lower(), new_name
                )
            out = (
                (head.rstrip() + " " if head else "") + new_name + (" " + suffix if suffix else "")
            )
        else:
            out = head.rstrip() + (gap or " ") if head else ""
        if street_numbering.applies(ctx.country, rest):  # `6a. avenida 12-34 zona 10`
            return out + street_numbering.surrogate(
                rng, rest, ctx.country, lambda part: _rest_surrogate(rng, part)
            )
        return out + _rest_surrogate(rng, rest)

    new = ctx.draw("street", text, make, key_value=text, shape_fallback=False)
    return None if new is None or lookup_key(new) == lookup_key(text) else new
