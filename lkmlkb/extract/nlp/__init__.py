"""The cue phrases extractors look for ("bisection points to", "fixed by", "no regression"),
read with spaCy.

- :mod:`~lkmlkb.extract.nlp.cue_files`: the cue patterns, as data files, loaded and checked;
- :mod:`~lkmlkb.extract.nlp.matcher`: the shared spaCy pipeline and the matcher of the patterns;
- :mod:`~lkmlkb.extract.nlp.reading`: a text read paragraph by paragraph where an extractor
  asks, and what it finds there (cues, sentences, the tokens before a cue).
"""
