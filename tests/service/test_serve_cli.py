"""`meddocan-deid serve` refuses to start, with one line naming the file or the option,
when its token file, key file or options are bad (before uvicorn starts)."""

from typer.testing import CliRunner

from meddocan_deid.cli import app

runner = CliRunner()


def test_serve_refuses_a_bad_token_file(tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("corto\n")
    r = runner.invoke(app, ["serve", "--token-file", str(tokens)])
    assert r.exit_code == 2
    assert "tokens.txt:1: a token must be at least 16 characters" in r.output
    r = runner.invoke(app, ["serve", "--token-file", str(tmp_path / "missing.txt")])
    assert r.exit_code == 2 and "missing.txt: cannot read the token file" in r.output


def test_serve_refuses_a_bad_key_file_and_bad_options(tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("una-ficha-de-prueba-larga-0123\n")
    key = tmp_path / "deid.key"
    key.write_text("corta\n")
    r = runner.invoke(app, ["serve", "--token-file", str(tokens), "--key-file", str(key)])
    assert r.exit_code == 2 and "deid.key: the key is too short" in r.output
    assert "una-ficha" not in r.output
    r = runner.invoke(app, ["serve", "--token-file", str(tokens), "--mode", "borrar"])
    assert r.exit_code == 2 and "mode:" in r.output
    r = runner.invoke(app, ["serve", "--token-file", str(tokens), "--log-level", "verbose"])
    assert r.exit_code == 2 and "log_level:" in r.output


def test_a_worker_logs_at_the_level_serve_was_given(tmp_path, monkeypatch):
    """A `--workers N` process starts without logging handlers: it takes the level of the
    settings (else it wrote every request's line at INFO to a stderr nobody may read)."""
    import logging

    from meddocan_deid.service.app import app_from_env
    from meddocan_deid.service.settings import ENV_SETTINGS, ServiceSettings

    tokens = tmp_path / "tokens.txt"
    tokens.write_text("una-ficha-de-prueba-larga-0123\n")
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        for level, expected in (("warning", logging.WARNING), ("info", logging.INFO)):
            root.handlers[:] = []
            monkeypatch.setenv(
                ENV_SETTINGS,
                ServiceSettings(
                    model=str(tmp_path / "no-model"), token_file=tokens, log_level=level
                ).model_dump_json(),
            )
            app_from_env()
            assert root.level == expected and root.handlers
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
