"""E-mail addresses, URLs and IP/MAC addresses: realistic values of the same shape.

E-mail: a Faker es_ES user name at a free-mail domain when the original's was one (gmail,
hotmail...), else at an invented domain with the original's top-level domain (`.es`,
`.com`, `.cat`); upper case kept. URL: the scheme, `www.`, the top-level domain and the
presence of a path and a trailing slash of the original, around an invented domain.
IP and MAC addresses: see `identifiers` (same version, private stays private, same case)."""

import re

from .common import Context, random_shape, seeded_faker
from .identifiers import identifiers, kind_of

FREE_MAIL = (
    "gmail",
    "hotmail",
    "yahoo",
    "outlook",
    "live",
    "msn",
    "terra",
    "telefonica",
    "ono",
    "icloud",
)
URL = re.compile(
    r"^(?P<scheme>[a-z][a-z0-9+.-]*://)?(?P<www>www\d?\.)?(?P<host>[^/?#\s]+?)(?P<path>[/?#].*)?$",
    re.IGNORECASE,
)


def _tld(host: str, default: str = "es") -> str:
    tld = host.rsplit(".", 1)[-1] if "." in host else ""
    return tld.lower() if tld.isalpha() and 2 <= len(tld) <= 6 else default


def _case(template: str, value: str) -> str:
    letters = [c for c in template if c.isalpha()]
    return value.upper() if letters and all(c.isupper() for c in letters) else value


def emails(text: str, label: str, ctx: Context) -> str:
    domain = text.rsplit("@", 1)[-1].lower() if "@" in text else ""
    free = any(domain.startswith(d + ".") for d in FREE_MAIL)

    def make(rng, attempt):
        fk = seeded_faker(rng.getrandbits(64))
        host = fk.free_email_domain() if free else f"{fk.domain_word()}.{_tld(domain)}"
        return _case(text, f"{fk.user_name()}@{host}")

    return ctx.draw("email", text, make, key_value=text.lower())


def urls(text: str, label: str, ctx: Context) -> str:
    m = URL.match(text.strip())
    if not m:
        return ctx.draw("url", text, lambda rng, a: random_shape(rng, text), key_value=text.lower())

    def make(rng, attempt):
        fk = seeded_faker(rng.getrandbits(64))
        url = (
            (m.group("scheme") or "")
            + (m.group("www") or "")
            + f"{fk.domain_word()}.{_tld(m.group('host'))}"
        )
        path = m.group("path")
        if path:
            url += (
                "/" + fk.uri_path(deep=max(1, min(3, path.strip("/").count("/") + 1)))
                if path.strip("/")
                else ""
            )
            if path.endswith("/") or path == "/":
                url += "/"
        return _case(text, url)

    return ctx.draw("url", text, make, key_value=text.lower())


def ip_addresses(text: str, label: str, ctx: Context) -> str:
    if kind_of(text, label) is None:  # not an address: same shape
        return ctx.draw("ip", text, lambda rng, attempt: random_shape(rng, text), key_value=text)
    return identifiers(text, label, ctx)
