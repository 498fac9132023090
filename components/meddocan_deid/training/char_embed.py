"""Word features plus character features for the tok2vec.

spaCy's MultiHashEmbed hashes whole strings (NORM, PREFIX, SUFFIX, SHAPE): a surname or
a town never seen in train falls on a random row of each table. spaCy's CharacterEmbed
embeds the first and last bytes one by one, so an unseen word still shares its endings
(-ez, -ón, -illa) with seen ones, but it drops SHAPE and the affix tables. This embedding
concatenates both and mixes them with a Maxout layer of the usual width. On dev it did
no better than the hashed attributes alone (README, model search); it stays for
`train-variant --vars.variant_embed hashchar`.
"""

from spacy.ml import _character_embed
from spacy.ml.models.tok2vec import MultiHashEmbed
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Maxout, Model, chain, concatenate, with_array
from thinc.types import Floats2d


@registry.architectures("meddocan_deid.HashCharEmbed.v1")
def hash_char_embed(
    width: int,
    attrs: list[str],
    rows: list[int],
    include_static_vectors: bool,
    nM: int = 16,
    nC: int = 8,
) -> Model[list[Doc], list[Floats2d]]:
    words = MultiHashEmbed(
        width=width, attrs=attrs, rows=rows, include_static_vectors=include_static_vectors
    )
    # the byte layer inside spaCy's CharacterEmbed.v2, without its own NORM table and Maxout
    chars = _character_embed.CharacterEmbed(nM=nM, nC=nC)
    mix = Maxout(width, width + nM * nC, nP=3, normalize=True, dropout=0.0)
    model: Model[list[Doc], list[Floats2d]] = chain(concatenate(words, chars), with_array(mix))
    model.set_dim("nO", width)
    return model
