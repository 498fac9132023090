"""The pipeline components: tokenizer, section segmenter, pattern readers, the rule
components and the post-NER corrections. Each is registered by an entry point
(setup.cfg), so loading a pipeline needs no import of this package."""
