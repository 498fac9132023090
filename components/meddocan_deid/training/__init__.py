"""Training: the tok2vec feature layers, the gold+silver corpus reader, the NER ensemble
vote and the learning curve's samples."""
