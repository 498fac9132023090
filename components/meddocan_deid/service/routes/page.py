"""The try-it page at / (no token: the page holds no data; the token is typed in it and sent
with its request): a text to POST /deidentify, and a scan (PDF or image) to POST
/deidentify/scan, whose answer shows the text and links to the redacted file (an image's is
shown too). In English or Spanish: `?lang=en|es`, else the browser's Accept-Language, else
English; the page links to the other language. Its texts are data (templates/page_text.json)."""

import json
import secrets
from pathlib import Path

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape

from ... import MODES, __version__
from .common import State, state

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
TEXTS = json.loads((TEMPLATES / "page_text.json").read_text(encoding="utf-8"))
LANGUAGES: tuple[str, ...] = tuple(TEXTS)  # the first is the default
MAX_LANGUAGE_RANGES = 20  # of an Accept-Language header: a header is not a place for work

router = APIRouter(include_in_schema=False)
_template = Environment(
    loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"])
).get_template("index.html")


def accepted_languages(header: str | None) -> list[str]:
    """The primary language tags of an Accept-Language header, best first (`q=0` left out)."""
    ranked = []
    for i, part in enumerate((header or "").split(",")[:MAX_LANGUAGE_RANGES]):
        tag, *params = [p.strip() for p in part.split(";")]
        q = 1.0
        for param in params:
            if param.startswith("q="):
                try:
                    q = float(param[2:])
                except ValueError:
                    q = 0.0
        if tag and q > 0:
            ranked.append((-q, i, tag.split("-")[0].lower()))
    return [tag for _q, _i, tag in sorted(ranked)]


def page_language(asked: str | None, header: str | None) -> str:
    if asked in LANGUAGES:
        return asked
    for tag in accepted_languages(header):
        if tag in LANGUAGES:
            return tag
        if tag == "*":
            break
    return LANGUAGES[0]


@router.get("/", response_class=HTMLResponse)
async def index(
    request: Request,
    lang: str | None = Query(None, description="en or es"),
    s: State = Depends(state),
):
    chosen = page_language(lang, request.headers.get("accept-language"))
    nonce = secrets.token_urlsafe(16)
    csp = (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
        "connect-src 'self'; "
        # blob: the preview of a redacted scan, made in the page from the answer (form-action
        # 'none': the scan form is sent by the script, with the token)
        "img-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    html = _template.render(
        nonce=nonce,
        version=__version__,
        mode=s.settings.mode,
        modes=MODES,
        lang=chosen,
        t=TEXTS[chosen],
        languages=[(code, TEXTS[code]["name"]) for code in LANGUAGES],
    )
    return HTMLResponse(
        html,
        headers={
            "Content-Security-Policy": csp,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-store",
            "Content-Language": chosen,
            "Vary": "Accept-Language",
        },
    )
