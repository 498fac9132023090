"""The names every part of the package shares: the default pipeline, the modes, the MEDDOCAN labels."""
# the pipeline the CLI, Spark, the service and the Python API load when none is named
DEFAULT_MODEL = "es_meddocan_deid"
# the de-identification modes (operators applied to every label a policy leaves to the run)
MODES = ("tag", "mask", "redact", "surrogate")

LABELS = (
    "NOMBRE_SUJETO_ASISTENCIA", "EDAD_SUJETO_ASISTENCIA", "SEXO_SUJETO_ASISTENCIA",
    "FAMILIARES_SUJETO_ASISTENCIA", "ID_SUJETO_ASISTENCIA", "ID_ASEGURAMIENTO",
    "ID_CONTACTO_ASISTENCIAL", "NUMERO_BENEF_PLAN_SALUD", "OTROS_SUJETO_ASISTENCIA",
    "NOMBRE_PERSONAL_SANITARIO", "ID_TITULACION_PERSONAL_SANITARIO",
    "ID_EMPLEO_PERSONAL_SANITARIO", "PROFESION", "HOSPITAL", "INSTITUCION",
    "CENTRO_SALUD", "CALLE", "TERRITORIO", "PAIS", "FECHAS", "NUMERO_TELEFONO",
    "NUMERO_FAX", "CORREO_ELECTRONICO", "URL_WEB", "DIREC_PROT_INTERNET",
    "IDENTIF_VEHICULOS_NRSERIE", "IDENTIF_DISPOSITIVOS_NRSERIE",
    "IDENTIF_BIOMETRICOS", "OTRO_NUMERO_IDENTIF",
)
