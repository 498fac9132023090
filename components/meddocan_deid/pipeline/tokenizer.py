"""The MEDDOCAN tokenizer: spaCy's Spanish tokenizer plus rules that put token
boundaries where PHI starts and ends in clinical reports.

Reads the raw text; writes the tokens only (the boundaries spaCy's defaults miss, each
rule commented with its case below); never sets entities, spans or sections.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from spacy.lang.char_classes import ALPHA, ALPHA_LOWER, ALPHA_UPPER
from spacy.lang.es import Spanish
from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.util import compile_infix_regex, compile_prefix_regex, compile_suffix_regex, registry

_UP = ALPHA_UPPER
_LOW = ALPHA_LOWER

EXTRA_PREFIXES = [
    "\ufeff",  # a byte-order mark at the start of a report is not part of its first word
    r"\+(?=[0-9])",  # international phone prefix kept apart: `+34 945...`
    r"(?i:e-?mail|correo)[:.\-](?=\S)",  # `Email:x@y.es`: the key is not part of the address
]

EXTRA_SUFFIXES = [
    # `2A.`, `3 B.`, `1º.`: a period after a digit or capital is punctuation
    rf"(?<=[0-9{_UP}º])\.",
    r"(?<=[^.]\.)\.",  # `5 Der..`: two periods are an abbreviation and a full stop
    r"\.\.\.+",  # an ellipsis stays one token (replaces spaCy's `\.\.+`)
    rf"(?<=[{ALPHA}]{{2}})-",  # `Niño-.`
]

EXTRA_INFIXES = [
    # key:value and key.value glued together: `CP:28029`, `Ingreso:19/11/2016`, `Email:x@y`
    rf"(?<=[{ALPHA}º]{{2}})[:](?=[0-9{ALPHA}+])",
    # letters and digits joined by a hyphen: `E-28935`, `nhc-248135`, `Zaragoza-50009`
    rf"(?<=[{ALPHA}])-(?=[0-9])",
    rf"(?<=[0-9])-(?=[{ALPHA}])",
    # hyphen before a capitalised word: `Chiesi-España`, `Niño-.`
    rf"(?<=[{ALPHA}])-(?=[{_UP}])",
    # a period joining a word and a capitalised word: `2014.El`, `DR.Francisco`, `Tfno.+34`
    rf"(?<=[0-9{ALPHA}]{{2}})\.(?=[{_UP}][{_LOW}]|\+|(?i:e-?mail))",
    rf"(?<=[{ALPHA}]{{2}}\.)\+(?=[0-9])",  # `Tfno.+34`
    rf"(?<=[{ALPHA}])/(?=[0-9])",  # `nhc/583914`
    # an ISO date and its time: `2024-04-14T10:32` (the time is not part of the date, N6.1)
    r"(?<=[0-9]{4}-[0-9]{2}-[0-9]{2})T(?=[0-9]{2}:[0-9]{2})",
    # missing space: `MartínezNºCol`, `FerrándezCorreo` (zero width: no token for the gap)
    rf"(?<=[{_LOW}]{{2}})(?=[{_UP}][{_LOW}º])",
    # `DRAlberto`: a title in capitals glued to a name
    rf"(?<=\bDR)(?=[{_UP}][{_LOW}])|(?<=\bDRA)(?=[{_UP}][{_LOW}])",
]

# Single-letter abbreviations ("H.", "M.") are sex values and initials in these
# reports, so the period must be its own token. The rules below are the measured causes
# of misalignment with the default tokenizer (see the converter): these abbreviations
# (`Sexo: H.`), a period after a capital (`2A.`), keys glued to values (`CP:28029`,
# `nhc-248135`, `NºCol:49`) and missing spaces (`MartínezNºCol`, `DRAlberto`, `2014.El`).
_SINGLE_LETTER_ABBREV = re.compile(r"^[^\W\d_]\.$")


def customize_tokenizer(nlp: Language) -> Tokenizer:
    defaults = nlp.Defaults
    # spaCy's Spanish defaults have all three (its types allow None)
    prefixes = [*(defaults.prefixes or ()), *EXTRA_PREFIXES]
    suffixes = [*EXTRA_SUFFIXES, *(s for s in defaults.suffixes or () if s != r"\.\.+")]
    infixes = [*(defaults.infixes or ()), *EXTRA_INFIXES]
    rules = {
        text: tokens
        for text, tokens in defaults.tokenizer_exceptions.items()
        if not _SINGLE_LETTER_ABBREV.match(text)
    }
    return Tokenizer(
        nlp.vocab,
        rules=rules,
        prefix_search=compile_prefix_regex(prefixes).search,
        suffix_search=compile_suffix_regex(suffixes).search,
        infix_finditer=compile_infix_regex(infixes).finditer,
        token_match=defaults.token_match,
        url_match=defaults.url_match,
    )


@registry.tokenizers("meddocan_deid.tokenizer.v1")
def create_meddocan_tokenizer() -> Callable[[Language], Tokenizer]:
    return customize_tokenizer


def blank_pipeline() -> Language:
    """A blank Spanish pipeline with the MEDDOCAN tokenizer."""
    nlp = Spanish()
    nlp.tokenizer = customize_tokenizer(nlp)
    return nlp
