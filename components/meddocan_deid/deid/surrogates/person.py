"""Ages, sex, professions and other personal details."""
import re

from ..gazetteer import fold
from .common import Context, case_like, choose, random_shape, seeded_faker

SPELLED_90_PLUS = re.compile(r"\b(noventa|cien|ciento)\b", re.IGNORECASE)
NUMBER = re.compile(r"\d+")
NOT_YEARS = re.compile(r"\b(mes|meses|semana|semanas|d[ií]a|d[ií]as|hora|horas)\b", re.IGNORECASE)


def is_old(text: str, threshold: int) -> bool:
    if NOT_YEARS.search(text):
        return False
    numbers = [int(n) for n in NUMBER.findall(text)]
    if numbers:
        return max(numbers) >= threshold
    return threshold <= 90 and bool(SPELLED_90_PLUS.search(text))


def ages(text: str, label: str, ctx: Context):
    """Kept below the threshold (90), else the aggregate ("90 años o más").
    Returns None when the operator must fall back to the tag (keep_age=False)."""
    opts = ctx.options
    if not opts.keep_age:
        return None
    if is_old(text, opts.age_threshold):
        agg = opts.age_aggregate
        return agg[:1].upper() + agg[1:] if text[:1].isupper() else agg
    return text


def sexes(text: str, label: str, ctx: Context):
    return text if ctx.options.keep_sex else None


def professions(text: str, label: str, ctx: Context) -> str:
    pool = ctx.gaz.get("professions")
    ending = fold(text.split()[0])[-1:] if text.split() else ""

    def make(rng, attempt):
        if pool:
            same = choose(rng, pool, lambda p: fold(p.split()[0])[-1:] == ending) if attempt < 12 else None
            return same or choose(rng, pool)
        return seeded_faker(rng.getrandbits(64)).job()

    value = ctx.draw("profession", text, make)
    return case_like(text, value)


def others(text: str, label: str, ctx: Context) -> str:
    """Free-form PHI (OTROS_SUJETO_ASISTENCIA, device or vehicle numbers...): same shape. A
    bank account (IBAN, CCC: OTROS_SUJETO_ASISTENCIA by guideline P28.1) gets a valid one."""
    from .identifiers import identifiers, kind_of

    if kind_of(text, label) in ("iban", "ccc"):
        return identifiers(text, label, ctx)
    return ctx.draw("other", text, lambda rng, attempt: random_shape(rng, text), key_value=text)
