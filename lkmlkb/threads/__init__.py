"""Threads: JWZ threading over References/In-Reply-To (:mod:`~lkmlkb.threads.threader`), body
segmentation (:mod:`~lkmlkb.threads.segments`), quote attribution (:mod:`~lkmlkb.threads.quotes`).

Pure functions of :class:`lkmlkb.model.Message` records; the store threads
what it writes with them, ``lkmlkb extract`` threads in memory.
"""
