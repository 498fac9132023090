"""Street surrogates (CALLE): the head word kept, a new street name from the gazetteer (or an
invented one, as institutions make them), the numbers and the places after it re-drawn. Apart
from `places`, since a street name may be invented as an institution's is, and institutions
read places."""

import re

from ...lexicon import lookup_key
from .common import Context, case_like, choose
from .institutions import fill
from .places import _rest_places, _rest_surrogate, smart, split_street, street_names


def streets(text: str, label: str, ctx: Context) -> str | None:
    """CALLE: head word kept (then one space), a new street name, numbers re-drawn; None
    (the tag) when there is nothing to replace or no acceptable name."""
    head, name, suffix, rest = split_street(text)
    if not name.strip() and not re.search(r"\d", rest):
        return None
    rest_places = _rest_places(ctx, rest)
    if rest_places is None:
        return None
    rest = rest_places
    gazetteer_names = street_names(ctx.gaz)
    # between the head and what follows
    gap = text[len(head) : len(text) - len(text[len(head) :].lstrip())]

    def make(rng, attempt):
        new_name = ""
        if name.strip():
            new_name = (
                choose(rng, gazetteer_names)
                if gazetteer_names
                else fill(rng, ctx, "street", label="CALLE")
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
        return out + _rest_surrogate(rng, rest)

    new = ctx.draw("street", text, make, key_value=text, shape_fallback=False)
    return None if new is None or lookup_key(new) == lookup_key(text) else new
