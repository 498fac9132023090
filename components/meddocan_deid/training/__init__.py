"""Training: the tok2vec feature layers, the gold+silver corpus reader, the format
augmentation of the train reports, the NER ensemble vote and the learning curve's samples."""
