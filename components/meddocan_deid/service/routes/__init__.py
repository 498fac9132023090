"""The service's routes, one module a concern, each an `APIRouter` that `create_app` includes:
`deidentify` (POST /deidentify, /deidentify/table), `interchange` (POST /deidentify/fhir,
/deidentify/hl7v2), `scan` (POST /deidentify/scan), `analyze` (POST /analyze), `status`
(GET /health, /ready, /metrics), `docs` (/docs, /redoc, Swagger UI's OAuth redirect) and
`page` (the try-it page at /). The routers read the app's state (`common.state`)."""
