"""Ingest: sources into the knowledge base, in batches, parsed and extracted by worker processes.

- :mod:`~lkmlkb.ingest.run`: the run (``lkmlkb ingest``);
- :mod:`~lkmlkb.ingest.prepare` and :mod:`~lkmlkb.ingest.known`: raw mail parsed and segmented,
  and mail whose bytes are stored skipped;
- :mod:`~lkmlkb.ingest.pool`: the worker processes;
- :mod:`~lkmlkb.ingest.extraction` and :mod:`~lkmlkb.ingest.attribution`: each batch's quotes
  attributed, its messages extracted, findings and reports written;
- :mod:`~lkmlkb.ingest.reprocess`: threads extracted again and their reports rebuilt
  (``lkmlkb reprocess``, failed messages tried again).
"""
