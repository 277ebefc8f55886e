"""Reports: one per thread, built from the findings of its messages (:mod:`~lkmlkb.reports.build`,
with ``merge``, ``labels``, ``status`` and ``classify``); their JSON (``contract``) and text
(``text``) forms; ``from_mail``: reports of mail files without a database (``lkmlkb extract``)."""
