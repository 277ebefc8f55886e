"""``lkmlkb link``: the commits cited in mail, judged by a kernel git tree."""
