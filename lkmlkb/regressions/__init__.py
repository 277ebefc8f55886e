"""Report threads grouped into regressions: one regression, many threads.

- :mod:`~lkmlkb.regressions.keys`: what a report thread's mail says that can tie it to another
  (culprit, `Fixes:`, `Link:`/`Closes:`, regzbot commands, patch series, subject and people,
  a message's copy fingerprint, workload fingerprint), and its part in the story;
- :mod:`~lkmlkb.regressions.group`: threads joined by their keys (each link with its reason),
  a timeline per regression and its status.

Pure functions over records: :mod:`lkmlkb.db.regressions` reads and writes them.
"""
