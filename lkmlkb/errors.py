"""lkmlkb's own error types.  The CLI turns each into one line naming the input."""


class LkmlkbError(Exception):
    """Base of every error lkmlkb raises on purpose."""

    def __init__(self, source: str, reason: str):
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


class SourceError(LkmlkbError):
    """A path, URL or repository that cannot be read as an archive."""


class ParseError(LkmlkbError):
    """One message (or page) that cannot be parsed."""


class LimitExceeded(SourceError):
    """Input past a configured bound (gzip expansion, response size)."""


class FetchError(SourceError):
    """A network source that failed after retries, or a refused host."""


class GitError(LkmlkbError):
    """A git repository that is missing, broken, or answers unexpectedly."""


class DatabaseError(LkmlkbError):
    """A knowledge base that is missing or was built by another version."""


class ReproError(LkmlkbError):
    """A report that cannot become a reproduction bundle."""


class WorkerLost(LkmlkbError):
    """A worker process died mid-run (the OOM killer, a signal): its batch is lost, the run stops."""
