"""The web face: lkmlkb's Datasette plugin (hooks, pages, feed, chart, downloads), its templates and
static files, and ``lkmlkb serve``."""
