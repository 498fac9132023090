"""The listing of an interchange file's values (formats/found.py): blocks under the same path
in both texts, each replacement on its value. All values are invented."""

from meddocan_deid.deid.operators import Replacement
from meddocan_deid.formats.found import Found, listing


def test_listing_offsets_point_at_the_values():
    values = [
        Found.whole("Patient.name[0].family", "Olabarrieta", "Gorostiza", "NOMBRE"),
        Found("Patient.photo", "", "", removed=True),
        Found(
            "Observation.valueString",
            "Vista por Olabarrieta hoy.",
            "Vista por Gorostiza hoy.",
            (Replacement("NOMBRE", 10, 21, 10, 19),),
        ),
    ]
    out = listing(values)
    assert out.original == (
        "Patient.name[0].family\nOlabarrieta\n\n"
        "Patient.photo (removed)\n\n\n"
        "Observation.valueString\nVista por Olabarrieta hoy.\n\n"
    )
    assert [out.original[r.start : r.end] for r in out.replacements] == ["Olabarrieta"] * 2
    assert [out.output[r.new_start : r.new_end] for r in out.replacements] == ["Gorostiza"] * 2
    # the text outside the values is the same in both
    assert out.original.replace("Olabarrieta", "X") == out.output.replace("Gorostiza", "X")


def test_nothing_found_is_an_empty_listing():
    out = listing([])
    assert (out.original, out.output, out.replacements) == ("", "", [])
