"""E-mail addresses, URLs and IP addresses: realistic values from Faker es_ES."""
import ipaddress

from .common import Context, random_shape, seeded_faker

FREE_MAIL = ("gmail", "hotmail", "yahoo", "outlook", "live", "msn", "terra", "telefonica", "ono", "icloud")


def emails(text: str, label: str, ctx: Context) -> str:
    domain = text.rsplit("@", 1)[-1].lower() if "@" in text else ""
    free = any(domain.startswith(d + ".") for d in FREE_MAIL)

    def make(rng, attempt):
        fk = seeded_faker(rng.getrandbits(64))
        return f"{fk.user_name()}@{fk.free_email_domain() if free else fk.domain_name()}"

    return ctx.draw("email", text, make, key_value=text.lower())


def urls(text: str, label: str, ctx: Context) -> str:
    def make(rng, attempt):
        fk = seeded_faker(rng.getrandbits(64))
        if text.lower().startswith(("http://", "https://")):
            url = fk.url()
            if text.lower().startswith("https://"):
                url = url.replace("http://", "https://", 1)
            return url if text.endswith("/") else url.rstrip("/")
        return "www." + fk.domain_name()

    return ctx.draw("url", text, make, key_value=text.lower())


def ip_addresses(text: str, label: str, ctx: Context) -> str:
    try:
        version = ipaddress.ip_address(text.strip()).version
    except ValueError:
        version = None

    def make(rng, attempt):
        if version is None:
            return random_shape(rng, text)
        fk = seeded_faker(rng.getrandbits(64))
        return fk.ipv4_public() if version == 4 else fk.ipv6()

    return ctx.draw("ip", text, make, key_value=text)
