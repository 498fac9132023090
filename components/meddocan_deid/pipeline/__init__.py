"""The pipeline components: tokenizer, section segmenter, pattern readers, the rule
components and the post-NER corrections, each registered by an entry point (setup.cfg),
so loading a pipeline needs no import of this package. Each module's docstring is its
contract: what it reads, what it writes and what it never touches."""
