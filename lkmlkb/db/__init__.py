"""The knowledge base in SQLite; only this package writes it.

- :mod:`~lkmlkb.db.schema` (migrations) and :mod:`~lkmlkb.db.views`: its shape;
- :mod:`~lkmlkb.db.connection`: opening it, and the helpers every reader and writer shares;
- :mod:`~lkmlkb.db.store`: the message store;
- :mod:`~lkmlkb.db.findings` and :mod:`~lkmlkb.db.reports`: findings and reports written and read back;
- :mod:`~lkmlkb.db.queries`: read-only questions for the CLI and the web;
- :mod:`~lkmlkb.db.checkpoint`: the WAL checkpointed beside a long run of writes.
"""
