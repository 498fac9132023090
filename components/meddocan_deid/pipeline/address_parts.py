"""Split NER entities that run across the parts of an address block.

Reads `doc.ents`, the `sections` spans and the `phi_rules` candidates (street heads
`footer/street`, postal codes `footer/match`, provinces `cue/province`); writes `doc.ents`
only; never changes the rule entities in `rules_key`. Footers chain institution, street,
postal code and town with no punctuation between them, and the guidelines make each part
its own entity. Cuts, each one tested by example in tests/pipeline/test_address_parts.py:

- a postal code inside a longer entity stands alone; what follows it is the town;
- a street head inside a place or name entity starts a CALLE when the piece has a house
  number or the NER found the rest of the street right after it, and the head does not
  follow a name link (`place_name_links`);
- a CALLE right after a street head that no entity holds takes the head in (in train and
  dev the gold street holds its head 1,084 times and leaves it out 5 times);
- a footer street head that no entity touches starts a CALLE up to its house number or
  `s/n` (a gap filler only: a rule street that overrides the NER scored lower on dev);
- a HOSPITAL / INSTITUCION that ends in a house number holds a street with no head
  (no gold place entity in train or dev ends in `, <number>` or `Nº <number>`);
- capitalised words after a street's house number are the town, unless they are a
  floor or door (`address_unit_words`) or a second street;
- a town followed by its province is two places, unless the province is part of the
  town's name.
"""

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from ..lexicon import words
from .spans import EDGE_PUNCT, rule_entity_keys, section_span, street_end, strip_edges

Piece = tuple[int, int, str]
# label choice: the entities of a footer line the NER runs on into a postal code (an
# institution, street and town are chained with no punctuation between them)
POSTAL_SPLIT_LABELS = ("CALLE", "TERRITORIO", "HOSPITAL", "INSTITUCION")
# label choice: the place and name entities a street head inside starts a CALLE in (the NER
# runs a footer's institution, town or staff name on into the street after it)
STREET_SPLIT_LABELS = ("HOSPITAL", "INSTITUCION", "TERRITORIO", "NOMBRE_PERSONAL_SANITARIO")
# label choice: the places that may end in a street with no head (`..., 44`): no gold place
# entity in train or dev ends in a house number
STREET_TAIL_LABELS = ("HOSPITAL", "INSTITUCION")


def _has_number(doc: Doc, start: int, end: int) -> bool:
    text = doc[start:end].text.lower()
    return any(c.isdigit() for c in text) or "s/n" in text.replace(" ", "")


@Language.factory(
    "meddocan_address_parts",
    default_config={
        "candidates_key": "phi_rules",
        "rules_key": "rule_entities",
        "sections_key": "sections",
        "street_head_id": "footer/street",
        "province_id": "cue/province",
        "postal_code_id": "footer/match",
        "postal_code_label": "TERRITORIO",
        "street_label": "CALLE",
        "postal_split_labels": list(POSTAL_SPLIT_LABELS),
        "street_split_labels": list(STREET_SPLIT_LABELS),
        "street_tail_labels": list(STREET_TAIL_LABELS),
        # a street head after these (exact case) is part of the street's name: `Gran Vía, 87`
        "name_heads": words("street_name_heads"),
        # a street head or a province after these is part of a name: `Villanueva de Córdoba`,
        # `Nuevo León`; also the small words a town after a house number may hold
        "place_name_links": words("place_name_links"),
        # what comes right before a house number: `Arrietabea, 44`, `Serrà Molins Nº 1`
        "house_number_keys": words("house_number_keys"),
        # articles between `de` and the name of a place before a headless street
        "articles": words("street_articles"),
        # words after a house number that are still the address: floors, doors, blocks, districts
        "address_unit_words": words("address_unit_words"),
    },
    assigns=["doc.ents"],
)
class AddressParts:
    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        candidates_key: str,
        rules_key: str,
        sections_key: str,
        street_head_id: str,
        province_id: str,
        postal_code_id: str,
        postal_code_label: str,
        street_label: str,
        postal_split_labels: list[str],
        street_split_labels: list[str],
        street_tail_labels: list[str],
        name_heads: list[str],
        place_name_links: list[str],
        house_number_keys: list[str],
        articles: list[str],
        address_unit_words: list[str],
    ):
        self.name = name
        self.candidates_key = candidates_key
        self.rules_key = rules_key
        self.sections_key = sections_key
        self.street_head_id = street_head_id
        self.province_id = province_id
        self.postal_code_id = postal_code_id
        self.postal_code_label = postal_code_label
        self.street_label = street_label
        self.postal_split_labels = set(postal_split_labels)
        self.street_split_labels = set(street_split_labels)
        self.street_tail_labels = set(street_tail_labels)
        self.name_heads = set(name_heads)
        self.place_name_links = set(place_name_links)
        self.house_number_keys = set(house_number_keys)
        self.articles = set(articles)
        self.address_unit_words = set(address_unit_words)

    def __call__(self, doc: Doc) -> Doc:
        cands = doc.spans.get(self.candidates_key, [])
        head_spans = [c for c in cands if c.id_ == self.street_head_id]
        heads = {c.start for c in head_spans}
        head_ends = {c.end: c.start for c in head_spans}
        codes = {
            c.start
            for c in cands
            if c.id_ == self.postal_code_id
            and c.label_ == self.postal_code_label
            and c.end == c.start + 1
        }
        provinces = {c.end: c.start for c in cands if c.id_ == self.province_id}
        rules = rule_entity_keys(doc, self.rules_key)
        ents = list(doc.ents)
        pieces: list[Piece] = []
        changed = False
        for k, ent in enumerate(ents):
            if (ent.start, ent.end, ent.label) in rules:
                pieces.append((ent.start, ent.end, ent.label_))
                continue
            if ent.label_ == self.street_label:
                head = self._head_before(doc, ent, head_ends, ents[k - 1] if k else None)
                if head is not None:
                    ent = Span(doc, head, ent.end, label=ent.label)
                    changed = True
            nxt: Span | None = ents[k + 1] if k + 1 < len(ents) else None
            split = self._split(doc, ent, heads, codes, nxt)
            if split == [(ent.start, ent.end, ent.label_)]:
                split = self._split_province(doc, ent, provinces)
            if split == [(ent.start, ent.end, ent.label_)]:
                split = self._split_street_tail(doc, ent)
            if split == [(ent.start, ent.end, ent.label_)]:
                split = self._split_town_after_number(doc, ent, heads)
            changed |= split != [(ent.start, ent.end, ent.label_)]
            pieces.extend(split)
        filled = self._fill_streets(doc, pieces, head_spans)
        if not changed and len(filled) == len(pieces):
            return doc
        pieces = self._join_street_heads(doc, filled, heads)
        doc.ents = filter_spans([Span(doc, s, e, label=lab) for s, e, lab in pieces])
        return doc

    def _split(
        self, doc: Doc, ent: Span, heads: set[int], codes: set[int], nxt: Span | None
    ) -> list[Piece]:
        label = ent.label_
        if label in self.postal_split_labels and len(ent) > 1:
            for i in range(ent.start, ent.end):
                # `E-47005` is one postal code and `Apartado de Correos 31207` a street:
                # cut only at a code that stands apart
                if i in codes and (
                    i == ent.start or doc[i - 1].whitespace_ and doc[i - 1].lower_ != "correos"
                ):
                    out = []
                    for s, e, lab in (
                        (ent.start, i, label),
                        (i, i + 1, self.postal_code_label),
                        (i + 1, ent.end, self.postal_code_label),
                    ):
                        s, e = strip_edges(doc, s, e)
                        if e > s:
                            out.append((s, e, lab))
                    return out
        if label in self.street_split_labels:
            for i in range(ent.start + 1, ent.end):
                if (
                    i not in heads or doc[i - 1].lower_ in self.place_name_links
                ):  # `Virgen del Camino` is a name
                    continue
                street_follows = (
                    nxt is not None
                    and nxt.label_ == self.street_label
                    and all(t.is_space or t.text in EDGE_PUNCT for t in doc[ent.end : nxt.start])
                )
                if _has_number(doc, i, ent.end) or street_follows:
                    s, e = strip_edges(doc, ent.start, i)
                    left = [(s, e, label)] if e > s else []
                    return left + [(i, ent.end, self.street_label)]
        return [(ent.start, ent.end, label)]

    def _fill_streets(self, doc: Doc, pieces: list[Piece], heads: list[Span]) -> list[Piece]:
        """Footer streets (head to house number) where no entity is: what the NER missed."""
        footer = section_span(doc, "footer", self.sections_key)
        if footer is None:
            return pieces
        taken = {i for s, e, _ in pieces for i in range(s, e)}
        out = list(pieces)
        for head in heads:
            if head.start < footer.start or head.end > footer.end:
                continue
            end = street_end(doc, head, footer.end)
            start = (
                head.start - 1
                if head.start > footer.start and doc[head.start - 1].text in self.name_heads
                else head.start
            )
            if end is None or any(i in taken for i in range(start, end)):
                continue
            out.append((start, end, self.street_label))
            taken.update(range(start, end))
        return out

    def _head_before(self, doc: Doc, ent: Span, head_ends: dict, prev: Span | None) -> int | None:
        """Start of a street head right before `ent` (`Ctra` + `.`) that no other entity holds."""
        start = head_ends.get(ent.start)
        if start is None and ent.start > 0 and doc[ent.start - 1].text == ".":
            start = head_ends.get(ent.start - 1)
        if start is None or (prev is not None and prev.end > start):
            return None
        return start

    def _split_street_tail(self, doc: Doc, ent: Span) -> list[Piece]:
        """`Instituto Oncológico de Guipúzcoa Arrietabea, 44`: the
        street starts after `de <Name>`."""
        whole = [(ent.start, ent.end, ent.label_)]
        if (
            ent.label_ not in self.street_tail_labels
            or len(ent) < 5
            or not doc[ent.end - 1].like_num
            or doc[ent.end - 2].lower_.rstrip(".") not in self.house_number_keys
        ):
            return whole
        number_key = ent.end - 2
        link = next(
            (i for i in range(ent.start + 1, number_key) if doc[i].lower_ in {"de", "del"}), None
        )
        if link is None:
            # no `de` part: a two-word street name, the most common length of a
            # headless street after a hospital in train ("Fuente Vieja, 12")
            street = number_key - 2
            ok = street >= ent.start + 2 and all(
                t.is_title and t.is_alpha for t in doc[street:number_key]
            )
        else:
            name = link + 1
            while name < number_key and doc[name].lower_ in self.articles:
                name += 1
            street = name + 1
            ok = (
                street < number_key
                and doc[name].is_title
                and doc[street].is_title
                and doc[street].is_alpha
            )
        return (
            [(ent.start, street, ent.label_), (street, ent.end, self.street_label)] if ok else whole
        )

    def _split_town_after_number(self, doc: Doc, ent: Span, heads: set[int]) -> list[Piece]:
        """`C/ La Encina 167 Villanueva`: capitalised words after a street's house number
        are the town (in train and dev, 10 gold towns follow a street that ends in a number,
        and the words after a number inside a gold street are floors or a second street, which
        the gold keeps in one entity: `C/ Cedro, 23 Camino de la Sierra, 4`)."""
        whole = [(ent.start, ent.end, ent.label_)]
        if ent.label_ != self.street_label:
            return whole
        for j in range(ent.start + 1, ent.end - 1):
            if (
                not _has_number(doc, j, j + 1)
                or not doc[j + 1].is_title
                or not doc[j + 1].is_alpha
                or len(doc[j + 1]) < 3
            ):
                continue
            rest = doc[j + 1 : ent.end]
            if (
                j + 1 in heads
                or doc[j + 1].lower_ in self.address_unit_words
                or len(rest) > 4
                or not all(
                    t.is_alpha and (t.is_title or t.lower_ in self.place_name_links) for t in rest
                )
            ):
                return whole
            return [(ent.start, j + 1, ent.label_), (j + 1, ent.end, self.postal_code_label)]
        return whole

    def _split_province(self, doc: Doc, ent: Span, provinces: dict) -> list[Piece]:
        start = provinces.get(ent.end)
        if (
            ent.label_ != self.postal_code_label
            or start is None
            or start <= ent.start
            or not doc[start - 1].whitespace_
            or doc[start - 1].lower_ in self.place_name_links
        ):
            return [(ent.start, ent.end, ent.label_)]
        s, e = strip_edges(doc, ent.start, start)
        return ([(s, e, ent.label_)] if e > s else []) + [(start, ent.end, ent.label_)]

    def _join_street_heads(self, doc: Doc, pieces: list[Piece], heads: set[int]) -> list[Piece]:
        """A CALLE piece that is only a street head ("Pso") joins the CALLE right after it."""
        out: list[Piece] = []
        for s, e, lab in sorted(pieces):
            if out:
                ps, pe, plab = out[-1]
                only_head = (
                    plab == self.street_label
                    and ps in heads
                    and pe - ps <= 2
                    and not _has_number(doc, ps, pe)
                )
                gap_is_punct = all(t.is_space or t.text in EDGE_PUNCT for t in doc[pe:s])
                if only_head and lab == self.street_label and gap_is_punct:
                    out[-1] = (ps, e, lab)
                    continue
            out.append((s, e, lab))
        return out
