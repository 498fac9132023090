"""One base class for every error of the package; the second bases stay."""

import errno
import inspect

import pytest

from meddocan_deid import errors
from meddocan_deid.errors import MeddocanDeidError

SECOND_BASES = {
    "InputError": ValueError,
    "OutputLockedError": ValueError,
    "OutputFullError": OSError,
    "FingerprintMismatch": ValueError,
    "DeidKeyError": ValueError,
    "PolicyError": ValueError,
    "KnownPhiError": ValueError,
    "StoredDataError": ValueError,
    "BratError": ValueError,
    "AnnError": ValueError,
    "AnnotationError": ValueError,
    "PatternFileError": ValueError,
    "GenericModelError": RuntimeError,
    "MarkupError": ValueError,
    "EvaluationError": ValueError,
    "AdaptError": ValueError,
    "AugmentError": ValueError,
    "CurveError": ValueError,
    "ServiceSettingsError": ValueError,
}


def test_every_error_has_the_base_and_its_old_second_base():
    classes = {
        name: cls
        for name, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, BaseException) and cls is not MeddocanDeidError
    }
    assert len(set(classes.values())) >= 20
    for name, cls in classes.items():
        assert issubclass(cls, MeddocanDeidError), name
    for name, base in SECOND_BASES.items():
        assert issubclass(classes[name], base), name


def test_output_full_error_is_still_an_os_error_with_its_message(tmp_path):
    err = errors.OutputFullError(tmp_path, 3, OSError(errno.ENOSPC, "full"))
    with pytest.raises(OSError) as caught:
        raise err
    assert (
        caught.value.errno == errno.ENOSPC
        and str(tmp_path) in str(err)
        and "after 3 reports" in str(err)
    )
