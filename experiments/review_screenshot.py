"""Make docs/review.png: the review page of an invented report (surrogate mode), rendered
by headless Chromium. No corpus text: the report and its PHI spans are invented here.

    .venv/bin/python experiments/review_screenshot.py [docs/review.png]
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from meddocan_deid.deid import apply_operator
from meddocan_deid.deid.review import ReviewReport, page_name, write_review_site

TEXT = (
    "Datos del paciente.\n"
    "Nombre: Eulalia Marcó Bentabol. NHC: 7730215.\n"
    "Domicilio: Avda. de los Almendros, 44. 30012 Murcia.\n"
    "Fecha de ingreso: 14/03/2019. Mujer de 38 años.\n"
    "Informe clínico: acude a Urgencias del Hospital Virgen del Ejemplo por dolor abdominal de 3 "
    "días.\n"
    "Remitido por: Dr. Baltasar Ojeda Riquelme. Correo: bojeda@ejemplo-salud.es\n"
)
PHI = [
    ("Eulalia Marcó Bentabol", "NOMBRE_SUJETO_ASISTENCIA"),
    ("7730215", "ID_SUJETO_ASISTENCIA"),
    ("Avda. de los Almendros, 44", "CALLE"),
    ("30012", "TERRITORIO"),
    ("Murcia", "TERRITORIO"),
    ("14/03/2019", "FECHAS"),
    ("Mujer", "SEXO_SUJETO_ASISTENCIA"),
    ("38 años", "EDAD_SUJETO_ASISTENCIA"),
    ("Hospital Virgen del Ejemplo", "HOSPITAL"),
    ("Baltasar Ojeda Riquelme", "NOMBRE_PERSONAL_SANITARIO"),
    ("bojeda@ejemplo-salud.es", "CORREO_ELECTRONICO"),
]


def main(out: Path) -> None:
    exe = shutil.which("chromium")
    if not exe:
        sys.exit("chromium not found on PATH (apt-get install chromium)")
    spans = [(label, TEXT.index(s), TEXT.index(s) + len(s)) for s, label in PHI]
    res = apply_operator(TEXT, spans, "surrogate", b"screenshot-key-0123456789")
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        write_review_site(
            site,
            [ReviewReport("informe-ejemplo", TEXT, res.text, res.replacements)],
            mode="surrogate",
        )
        subprocess.run(
            [
                exe,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={Path(tmp) / 'profile'}",
                "--hide-scrollbars",
                f"--screenshot={Path(out).resolve()}",
                "--window-size=1400,900",
                (site / page_name("informe-ejemplo")).as_uri(),
            ],
            check=True,
            capture_output=True,
        )
    print(f"wrote {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/review.png"))
