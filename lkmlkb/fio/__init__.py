"""fio in mail: the option catalog, finders that turn jobs written in mail into FioJob records
(:mod:`lkmlkb.fio.find`), option values as fio reads them, and job files written back out."""
