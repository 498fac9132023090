"""One base class for every error of the package; the old second bases and import paths stay."""
import errno
import inspect

import pytest

from meddocan_deid import errors
from meddocan_deid.errors import MeddocanDeidError

SECOND_BASES = {
    "InputError": ValueError, "OutputLockedError": ValueError, "OutputFullError": OSError,
    "FingerprintMismatch": ValueError, "DeidKeyError": ValueError, "PolicyError": ValueError,
    "KnownPhiError": ValueError, "StoredDataError": ValueError, "BratError": ValueError, "AnnError": ValueError,
    "AnnotationError": ValueError, "PatternFileError": ValueError, "GenericModelError": RuntimeError,
    "MarkupError": ValueError, "EvaluationError": ValueError, "AdaptError": ValueError, "AugmentError": ValueError,
    "CurveError": ValueError, "ServiceSettingsError": ValueError,
}
OLD_PATHS = {
    "meddocan_deid.deid.io": ["InputError", "OutputFullError", "OutputLockedError"],
    "meddocan_deid.deid.policy": ["PolicyError"], "meddocan_deid.deid.keys": ["DeidKeyError"],
    "meddocan_deid.deid.fingerprint": ["FingerprintMismatch"], "meddocan_deid.evaluation.brat": ["BratError"],
    "meddocan_deid.deid.ann": ["AnnError"], "meddocan_deid.cli": ["CliError"],
    "meddocan_deid.cli.spark": ["SparkCliError"], "meddocan_deid.cli.keygen": ["KeygenError"],
    "meddocan_deid.service.engine": ["ServiceError"], "meddocan_deid.pipeline.generic_ner": ["GenericModelError"],
}


def test_every_error_has_the_base_and_its_old_second_base():
    classes = {name: cls for name, cls in inspect.getmembers(errors, inspect.isclass)
               if issubclass(cls, BaseException) and cls is not MeddocanDeidError}
    assert len(set(classes.values())) >= 20
    for name, cls in classes.items():
        assert issubclass(cls, MeddocanDeidError), name
    for name, base in SECOND_BASES.items():
        assert issubclass(classes[name], base), name


@pytest.mark.parametrize("module,names", sorted(OLD_PATHS.items()))
def test_old_import_paths_give_the_same_classes(module, names):
    import importlib

    mod = importlib.import_module(module)
    for name in names:
        assert getattr(mod, name) is getattr(errors, name)


def test_output_full_error_is_still_an_os_error_with_its_message(tmp_path):
    err = errors.OutputFullError(tmp_path, 3, OSError(errno.ENOSPC, "full"))
    with pytest.raises(OSError) as caught:
        raise err
    assert caught.value.errno == errno.ENOSPC and str(tmp_path) in str(err) and "after 3 reports" in str(err)
    assert errors.CliError is errors.RunError
