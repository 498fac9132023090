"""Identifiers, phone and fax numbers, NHC, NASS, NºCol, postal codes: random characters of
the same shape (digit for digit, letter for letter with its case, separators kept)."""
import string

from .common import Context, random_shape


def identifiers(text: str, label: str, ctx: Context) -> str:
    return ctx.draw("id", text, lambda rng, attempt: random_shape(rng, text), key_value=text)


def phones(text: str, label: str, ctx: Context) -> str:
    """Phones and faxes: the first digit stays in 6-9 when it was (a plausible Spanish number)."""
    first = next((c for c in text if c.isdigit()), "")
    first_digits = "6789" if first in "6789" and first else None
    return ctx.draw("phone", text, lambda rng, attempt: random_shape(rng, text, first_digits), key_value=text)


def postal_code(rng, text: str) -> str:
    """Five digits: a plausible Spanish postal code, 01000-52999."""
    province = rng.randint(1, 52)
    return f"{province:02d}{rng.randint(0, 999):03d}"


def is_postal_code(text: str) -> bool:
    return len(text) == 5 and text.isdigit()


def territory_code(text: str, label: str, ctx: Context) -> str:
    if is_postal_code(text):
        return ctx.draw("postcode", text, lambda rng, attempt: postal_code(rng, text), key_value=text)
    return identifiers(text, label, ctx)
