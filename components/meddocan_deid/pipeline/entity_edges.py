"""Trim the edges of the NER's entities to what the annotation guidelines call PHI.

Reads `doc.ents` and the rule entities in `doc.spans[rules_key]`; writes `doc.ents` only:
NER entities lose leading titles (and Basque trailing ones: `jauna`), edge punctuation and a
trailing department, role, institution or contact key; towns, hospitals, institutions and
employers take in their `de <Name>` tail (on a line in capitals, up to a Spanish stop word),
names an initial before them, quoted names their closing quote, places an abbreviation's final
period; glued pieces of one label are joined. Rule entities, tokens and span groups are never
changed.
"""

import re
from collections.abc import Collection
from collections.abc import Set as AbstractSet

from spacy.lang.es.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.tokens import Doc, Span

from ..labels import labels_with
from ..lexicon import tagged_words, words
from .spans import EDGE_PUNCT, TITLES, capitals_line, rule_entity_keys

# conjunctions between two names (`Sonia y Marta`) and the words after a department word that
# end an institution's name before it (`Servicio de`), in every language (pipeline/data/<lang>/)
NAME_LINKS = frozenset(words("name_links"))
DEPARTMENT_LINKS = frozenset(words("department_links"))
# label choice: the entities that keep the point of an abbreviation they end with: a town's
# and a country's names (`EE. UU.`), where the point is part of the name, not the sentence's
ABBREVIATION_LABELS = ("TERRITORIO", "PAIS")


@Language.factory(
    "meddocan_entity_edges",
    default_config={
        "rules_key": "rule_entities",
        "title_labels": list(labels_with("name")),
        "place_labels": list(labels_with("organisation")),
        "town_labels": ["TERRITORIO"],
        # a department (followed by `de`) ends a place or a name: a department is not PHI
        "department_words": words("department_words"),
        # a role, an institution or a contact key after a name ends it
        "role_words": words("role_words"),
        "institution_words": words("institution_words"),
        "contact_words": words("contact_words"),
        "abbreviation_labels": list(ABBREVIATION_LABELS),
        # titles left out of a name (shared default with meddocan_rule_entities)
        "titles": TITLES,
        # titles after a name, left out of it too (Basque: `Koldo Zabala jauna`)
        "titles_after": tagged_words("titles", "name_after"),
        # a town goes on through these + a capitalised name: `Arganda del Rey`
        "town_connectors": words("town_connectors"),
        # lower case, an article after a town connector (`Puerto de la Cruz`); capitalised, an
        # article before a town that belongs to it (`30120 El Palmar`: in train and dev no gold
        # TERRITORIO leaves one out)
        "town_articles": words("town_articles"),
        # a hospital, institution or employer goes on through these + capitalised words no entity
        # holds (`Colegio San Juan de la Cruz`, `Agencia de Autonomía y Desarrollo`): in train, 126
        # gold places hold such a tail, 4 leave it out (to a TERRITORIO), none leaves it in clear
        "name_labels": list(labels_with("organisation", "employer")),
        "name_connectors": words("name_connectors"),
        "name_articles": words("name_articles"),
    },
    assigns=["doc.ents"],
)
class EntityEdges:
    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        rules_key: str,
        title_labels: list[str],
        place_labels: list[str],
        town_labels: list[str],
        department_words: list[str],
        role_words: list[str],
        institution_words: list[str],
        contact_words: list[str],
        abbreviation_labels: list[str],
        titles: list[str],
        town_connectors: list[str],
        town_articles: list[str],
        name_labels: list[str],
        name_connectors: list[str],
        name_articles: list[str],
        titles_after: Collection[str] = (),
    ):
        self.name = name
        self.rules_key = rules_key
        self.title_labels = set(title_labels)
        self.place_labels = set(place_labels)
        self.town_labels = set(town_labels)
        self.department_words = set(department_words)
        self.role_words = set(role_words)
        self.institution_words = set(institution_words)
        self.contact_words = set(contact_words)
        self.abbreviation_labels = set(abbreviation_labels)
        self.titles = set(titles)
        self.titles_after = set(titles_after)
        self.town_connectors = set(town_connectors)
        self.town_articles = set(town_articles)
        # the same articles capitalised, as they stand before a town: `El Palmar`
        self.town_head_articles = {word.capitalize() for word in town_articles}
        self.name_labels, self.name_connectors = set(name_labels), set(name_connectors)
        self.name_articles = set(name_articles)

    def __call__(self, doc: Doc) -> Doc:
        rules = rule_entity_keys(doc, self.rules_key)
        doc.ents = join_glued(doc, rules)
        taken = [False] * len(doc)
        for ent in doc.ents:
            for i in range(ent.start, ent.end):
                taken[i] = True
        ents: list[Span] = []
        for ent in doc.ents:
            if (ent.start, ent.end, ent.label) in rules:
                ents.append(ent)
                continue
            start, end = ent.start, ent.end
            # the guidelines leave titles (Dr., Doctora, Sra.) outside a name; the NER sometimes
            # takes them in, mostly in the footer where names, services and addresses follow
            # each other without a break
            if ent.label_ in self.title_labels:
                while start < end - 1 and doc[start].lower_ in self.titles:
                    start += 1
                while end > start + 1 and doc[end - 1].lower_ in self.titles_after:
                    end -= 1
                # an initial before the name is part of it (`I. Arana`, `H. Villar Cano`)
                if (
                    start >= 2
                    and start == ent.start
                    and doc[start - 1].text == "."
                    and not doc[start - 2].whitespace_
                    and len(doc[start - 2].text) == 1
                    and doc[start - 2].text.isupper()
                    and not taken[start - 2]
                    and not taken[start - 1]
                    and doc[start - 2].lower_ not in self.titles
                    and not (
                        start >= 3
                        and doc[start - 3].is_lower
                        and doc[start - 3].lower_ not in NAME_LINKS
                    )
                ):
                    start -= 2  # (not after a lower-case word: `vitamina B. Arana refiere`)
            # a name ends where a role, a department, an institution or a contact key starts:
            # no gold name in train or dev holds an institution word after its first word,
            # nor a contact key
            if ent.label_ in self.title_labels:
                for i in range(start + 1, end):
                    word = doc[i].lower_
                    if doc[i].is_title and (
                        word in self.role_words
                        or word in self.institution_words
                        or word in self.contact_words
                        or (
                            word in self.department_words
                            and i + 1 < end
                            and doc[i + 1].lower_ == "de"
                        )
                    ):
                        end = i
                        break
            # a hospital or institution ends where a department starts: a department is not PHI
            if ent.label_ in self.place_labels:
                for i in range(start + 1, end - 1):
                    if (
                        doc[i].lower_ in self.department_words
                        and doc[i].is_title
                        and doc[i + 1].lower_ in DEPARTMENT_LINKS
                    ):
                        end = i
                        break
            if ent.label_ in self.town_labels:
                if (
                    start > 0
                    and doc[start - 1].text in self.town_head_articles
                    and not taken[start - 1]
                ):
                    start -= 1
                    taken[start] = True
                # no gold TERRITORIO in train or dev is followed by a `de <Name>` tail that no
                # other entity holds, so the tail belongs to it
                tail = town_tail(doc, end, taken, self.town_connectors, self.town_articles)
                for i in range(end, tail):
                    taken[i] = True
                end = tail
            if (
                ent.label_ in self.name_labels
                and doc[end - 1].is_alpha
                and doc[end - 1].text[:1].isupper()
            ):
                tail = town_tail(
                    doc,
                    end,
                    taken,
                    self.name_connectors,
                    self.name_articles,
                    stops=self.department_words,
                )
                for i in range(end, tail):
                    taken[i] = True
                end = tail
            # every gold entity with a quote in train and dev holds both quotes
            end = close_quote(doc, start, end, taken)
            while start < end and doc[start].text in EDGE_PUNCT:
                start += 1
            while (
                end > start
                and doc[end - 1].text in EDGE_PUNCT
                and not closes_quote(doc, start, end)
                and not ends_abbreviation(doc, start, end - 1)
            ):
                end -= 1
            if (
                ent.label_ in self.abbreviation_labels
                and ends_abbreviation(doc, start, end)
                and not taken[end]
            ):
                end += 1
            if end > start:
                ents.append(
                    ent
                    if (start, end) == (ent.start, ent.end)
                    else Span(doc, start, end, label=ent.label)
                )
        doc.ents = ents
        return doc


def join_glued(doc: Doc, rules) -> list[Span]:
    """Two NER entities of one label with no character between them are one (`E-` + `23400`):
    no two gold entities touch in train or dev."""
    out: list[Span] = []
    for ent in doc.ents:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.end == ent.start
            and prev.label == ent.label
            and not doc[prev.end - 1].whitespace_
            and (prev.start, prev.end, prev.label) not in rules
            and (ent.start, ent.end, ent.label) not in rules
        ):
            out[-1] = Span(doc, prev.start, ent.end, label=ent.label)
        else:
            out.append(ent)
    return out


# a dotted place abbreviation (`D.F`, `EE.UU`) whose last period the tokenizer split off
DOTTED_ABBREVIATION = re.compile(r"^[A-Z]{1,2}(?:\.[A-Z]{1,2})+$")


def ends_abbreviation(doc: Doc, start: int, end: int) -> bool:
    """The span ends on a dotted abbreviation glued to the period after it (`México D.F` + `.`):
    every gold place in train and dev that ends in one holds its final period."""
    return (
        start < end < len(doc)
        and doc[end].text == "."
        and not doc[end - 1].whitespace_
        and DOTTED_ABBREVIATION.match(doc[end - 1].text) is not None
    )


QUOTES = {'"', "“", "”"}


def _quote_count(doc: Doc, start: int, end: int) -> int:
    return sum(1 for i in range(start, end) if doc[i].text in QUOTES)


def closes_quote(doc: Doc, start: int, end: int) -> bool:
    """The span ends on the quote that closes one opened inside it (`Hospital "Lozano Blesa"`)."""
    return doc[end - 1].text in QUOTES and _quote_count(doc, start, end) % 2 == 0


def close_quote(doc: Doc, start: int, end: int, taken: list[bool]) -> int:
    """A name quoted inside an entity ends with its closing quote, which the guidelines keep."""
    if (
        end < len(doc)
        and doc[end].text in QUOTES
        and not taken[end]
        and _quote_count(doc, start, end) % 2 == 1
    ):
        return end + 1
    return end


def town_tail(
    doc: Doc,
    end: int,
    taken: list[bool],
    connectors: AbstractSet[str],
    articles: AbstractSet[str],
    stops: AbstractSet[str] = frozenset(),
) -> int:
    """Where a place name ending at `end` really ends: it takes in each following
    connector (`de`/`del`) [article] + capitalised words that no entity holds (`del Rey`,
    `de San Juan`), up to a word of `stops` (`de Servicio...`)."""
    # on a line in capitals every word is capitalised: a Spanish stop word (`Y NO PUEDE`) ends it
    capitals = capitals_line(doc.text, doc[end - 1].idx, doc[end - 1].idx + 1) if end else False
    while end < len(doc) and doc[end].lower_ in connectors and not taken[end]:
        j = end + 1
        if j < len(doc) and doc[j].lower_ in articles and not taken[j]:
            j += 1
        k = j
        while (
            k < len(doc)
            and doc[k].is_alpha
            and doc[k].text[0].isupper()
            and not taken[k]
            and doc[k].lower_ not in stops
            and not (capitals and doc[k].lower_ in STOP_WORDS)
        ):
            k += 1
        if k == j:
            break
        end = k
    return end
