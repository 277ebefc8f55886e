"""Threads: JWZ threading over References/In-Reply-To, body segmentation, quote attribution.

Pure functions of :class:`lkmlkb.model.Message` records; the store threads
what it writes with them, ``lkmlkb extract`` threads in memory.
"""
