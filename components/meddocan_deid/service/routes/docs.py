"""/docs (Swagger UI, with an Authorize button for the bearer token), /redoc and Swagger UI's
OAuth redirect page: their scripts and styles served from /docs/assets (fastapi-offline's
files: no CDN, they work offline). No token: they hold no data."""

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)

from ..guard import DOCS_ASSETS

router = APIRouter(include_in_schema=False)


def docs_assets() -> Path:
    return Path(str(files("fastapi_offline") / "static"))


@router.get("/docs")
async def docs(request: Request):
    root = request.scope.get("root_path", "")
    app = request.app
    # no validator badge: Swagger UI would fetch it from its own site; the token given with
    # Authorize stays for the page's life only (not persisted in the browser's storage)
    return get_swagger_ui_html(
        openapi_url=f"{root}{app.openapi_url}",
        title=f"{app.title} - Swagger UI",
        swagger_js_url=f"{root}{DOCS_ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{root}{DOCS_ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png",
        oauth2_redirect_url=f"{root}/docs/oauth2-redirect",
        swagger_ui_parameters={"validatorUrl": None, "persistAuthorization": False},
    )


@router.get("/docs/oauth2-redirect")
async def docs_oauth2_redirect():
    return get_swagger_ui_oauth2_redirect_html()


@router.get("/redoc")
async def redoc(request: Request):
    root = request.scope.get("root_path", "")
    app = request.app
    return get_redoc_html(
        openapi_url=f"{root}{app.openapi_url}",
        title=f"{app.title} - ReDoc",
        redoc_js_url=f"{root}{DOCS_ASSETS}/redoc.standalone.js",
        redoc_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png",
        with_google_fonts=False,
    )
