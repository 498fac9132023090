"""Label the maker and its address in a product's parenthesis.

Reads `doc.ents`, the place spans of `doc.spans[places_key]`, the province candidates
(`cue/province`) of `doc.spans[candidates_key]` and the rule entities (`rules_key`); writes
`doc.ents` only: in a parenthesis that ends with a known place, the maker INSTITUCION, its
towns TERRITORIO and its country PAIS fill the gaps between the NER's entities. Rule
entities, tokens and span groups are never changed.
"""

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..lexicon import words
from .spans import rule_entity_keys

Part = tuple[int, int]
PART_SEPARATORS = {",", ";", "."}  # `Medizintechnik GmbH. Lübeck, Alemania`
# label choice: the labels of a maker's parenthesis (its maker, towns and country): an entity
# with one of them on exactly a part takes the part's label
RELABEL = ("INSTITUCION", "TERRITORIO", "PAIS")


@Language.factory(
    "meddocan_maker_address",
    default_config={
        "places_key": "place_names",
        "candidates_key": "phi_rules",
        "province_id": "cue/province",
        "rules_key": "rule_entities",
        "maker_label": "INSTITUCION",
        "town_label": "TERRITORIO",
        "relabel": list(RELABEL),
        "max_tokens": 40,
        "max_part_tokens": 6,
        # a part that is only a company suffix belongs to the maker before it (`Co, Inc.`),
        # and a part with one is the maker
        "company_suffixes": words("maker_company_suffixes"),
        # a part with one of these words (or a company suffix) is the
        # maker: `Quelmar Medical Corporation`
        "company_words": words("company_words"),
        # lower-case words a maker's name may hold; any other lower-case word makes a product
        "maker_name_links": words("maker_name_links"),
        # a part with a dose unit (or a digit) is the product: `Fotrexil 40 mg`
        "dose_units": words("dose_units"),
    },
    assigns=["doc.ents"],
)
class MakerAddress:
    # Reports name the maker of a drug or device in parentheses, with its town and country;
    # the NER, trained on few such lines, misses most of them.
    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        places_key: str,
        candidates_key: str,
        province_id: str,
        rules_key: str,
        maker_label: str,
        town_label: str,
        relabel: list[str],
        max_tokens: int,
        max_part_tokens: int,
        company_suffixes: list[str],
        company_words: list[str],
        maker_name_links: list[str],
        dose_units: list[str],
    ):
        self.name = name
        self.places_key = places_key
        self.candidates_key = candidates_key
        self.province_id = province_id
        self.rules_key = rules_key
        self.maker_label = maker_label
        self.town_label = town_label
        self.relabel = set(relabel)
        self.max_tokens = max_tokens
        self.max_part_tokens = max_part_tokens
        self.company_suffixes = set(company_suffixes)
        self.company_words = self.company_suffixes | set(company_words)
        self.maker_name_links = set(maker_name_links)
        self.dose_units = set(dose_units)

    def __call__(self, doc: Doc) -> Doc:
        places = {(s.start, s.end): s.label_ for s in doc.spans.get(self.places_key, [])}
        for cand in doc.spans.get(self.candidates_key, []):
            if cand.id_ == self.province_id:
                places.setdefault((cand.start, cand.end), cand.label_)
        if not places:
            return doc
        ends = {e for _, e in places}
        for close in [t.i for t in doc if t.text == ")" and t.i in ends]:
            proposals = self._read(doc, close, places)
            if proposals:
                self._apply(doc, proposals)
        return doc

    @staticmethod
    def _drop_part_crossers(
        ents: list[Span], proposals: list[tuple[int, int, str]], rules: set[tuple[int, int, int]]
    ) -> list[Span]:
        """An NER entity that runs across a separator between two parts of this address
        (`Santa Bárbara, California` as one entity) contradicts it: it goes."""
        start, end = min(p[0] for p in proposals), max(p[1] for p in proposals)
        return [
            e
            for e in ents
            if (e.start, e.end, e.label) in rules
            or not (
                start <= e.start
                and e.end <= end
                and any(t.text in PART_SEPARATORS for t in e[1:-1])
            )
        ]

    def _read(self, doc: Doc, close: int, places: dict) -> list[tuple[int, int, str]]:
        """(start, end, label) of the parts of the parenthesis closed at `close`, when it ends
        with a known place (a `places_key` span or a province candidate). Its comma-separated
        parts are, from the end: the known places, the towns before them, the maker, and the
        product; the maker is the first part, or the second when the first reads as a product
        (a dose or a number in it, or it is set off by `;`)."""
        open_ = self._opening(doc, close)
        if open_ is None:
            return []
        parts, product_cut = self._parts(doc, open_ + 1, close)
        n_places = 0
        for part in reversed(parts):
            if part not in places:
                break
            n_places += 1
        run = parts[product_cut : len(parts) - n_places]
        if not n_places or not run or n_places > 3:
            # no known place at the end, or a list of places (town, region, country at most)
            return []
        roles = self._roles(doc, run)
        if roles is None:
            return []
        out = [
            (s, e, self.maker_label if role == "maker" else self.town_label)
            for (s, e), role in zip(run, roles)
            if role in {"maker", "town"}
        ]
        if not all(self._is_name(doc, (s, e)) for s, e, _ in out):
            return []
        out += [(s, e, places[(s, e)]) for s, e in parts[len(parts) - n_places :]]
        return out

    def _roles(self, doc: Doc, run: list[Part]) -> list[str] | None:
        """product / maker / town / "" (unknown) for each part before the known places."""
        if len(run) == 1:
            return ["maker"]
        if len(run) == 3:
            return ["product", "maker", "town"]
        if len(run) > 3:
            return None  # a list, not an address
        first, second = (self._company(doc, p) for p in run)
        if first != second:
            return ["maker", "town"] if first else ["product", "maker"]
        if self._is_product(doc, run[0]):
            return ["product", "maker"]
        if "®" in doc[run[0][0] : run[0][1]].text:
            return ["", ""]  # `(Brand®, X, ...)`: X may be the maker or its town
        return ["maker", "town"]

    def _company(self, doc: Doc, part: Part) -> bool:
        return any(t.lower_.strip(".") in self.company_words for t in doc[part[0] : part[1]])

    def _opening(self, doc: Doc, close: int) -> int | None:
        for i in range(close - 1, max(-1, close - self.max_tokens), -1):
            text = doc[i].text
            if text == "(":
                return i
            if text == ")" or "\n" in text:
                return None
        return None

    def _parts(self, doc: Doc, start: int, end: int) -> tuple[list[Part], int]:
        """The parts between separators (`,` `;` `.`), and how many of them form the product
        (those before a `;`). A company suffix (`Co, Inc.`) is not a part of its own."""
        parts: list[Part] = []
        product_cut = 0
        s = start
        for i in range(start, end + 1):
            if i == end or doc[i].text in PART_SEPARATORS:
                if i > s and not (
                    parts and doc[s:i].text.replace(".", "").lower() in self.company_suffixes
                ):
                    parts.append((s, i))
                if i < end and doc[i].text == ";":
                    product_cut = len(parts)
                s = i + 1
        return parts, product_cut

    def _is_product(self, doc: Doc, part: Part) -> bool:
        tokens = doc[part[0] : part[1]]
        return any(
            any(c.isdigit() for c in t.text) or t.lower_ in self.dose_units for t in tokens
        ) or any(t.is_lower and t.lower_ not in self.maker_name_links for t in tokens)

    def _is_name(self, doc: Doc, part: Part) -> bool:
        tokens = doc[part[0] : part[1]]
        return (
            len(tokens) <= self.max_part_tokens
            and tokens[0].text[:1].isupper()
            and not any(c.isdigit() for c in tokens.text)
        )

    def _apply(self, doc: Doc, proposals: list[tuple[int, int, str]]) -> None:
        """The parts only fill gaps: a part that overlaps an entity is left alone, except that
        an entity on exactly a part with another `relabel` label takes the part's label."""
        rules = rule_entity_keys(doc, self.rules_key)
        ents = list(doc.ents)
        kept = self._drop_part_crossers(ents, proposals, rules)
        changed = len(kept) != len(ents)
        ents = kept
        taken: set[int] = {i for e in ents for i in range(e.start, e.end)}
        by_span = {(e.start, e.end): k for k, e in enumerate(ents)}
        for s, e, label in proposals:
            k = by_span.get((s, e))
            if k is not None:
                ent = ents[k]
                if (
                    ent.label_ != label
                    and ent.label_ in self.relabel
                    and (s, e, ent.label) not in rules
                ):
                    ents[k] = Span(doc, s, e, label=label)
                    changed = True
            elif not any(i in taken for i in range(s, e)):
                ents.append(Span(doc, s, e, label=label))
                taken.update(range(s, e))
                changed = True
        if changed:
            doc.ents = sorted(ents, key=lambda x: x.start)
