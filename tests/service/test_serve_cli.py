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
