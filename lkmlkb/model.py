"""The records that flow through lkmlkb: messages, segments, findings, reports.

Every stage is a pure function from one kind of record to the next; these
dataclasses are the contract between the stages.  Findings are produced by
extractors that see plain text (quote markers removed) and report *line
offsets within that text*; :func:`lkmlkb.extract.messages.extract_view` maps
those offsets onto the message body and adds the message id, which is how
every fact keeps its provenance.
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


def pickled_as_fields(cls: type[T]) -> type[T]:
    """Pickle instances of the dataclass ``cls`` as its field values, unpickled by calling ``cls``.

    The ingest's worker processes send these records back and forth: the
    messages of an epoch, their segments, findings and reports.  Pickle's
    default for an object (a bare instance, then its ``__dict__`` filled key
    by key) unpickles them at about half the speed of a call with the field
    values, and dumps them slower too.  For
    classes whose instances hold nothing but their fields, and that no class
    extends (a subclass's own fields would be lost).
    """
    names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    values = operator.attrgetter(*names)
    if len(names) == 1:

        def __reduce__(self):
            return cls, (values(self),)
    else:

        def __reduce__(self):
            return cls, values(self)

    cls.__reduce__ = __reduce__  # type: ignore[method-assign]
    return cls


@pickled_as_fields
@dataclass
class Message:
    """One e-mail, decoded and normalized, from any source."""

    message_id: str
    subject: str = ""
    from_name: str = ""
    from_addr: str = ""
    #: the address is shown obfuscated by the archive (``ja...@suse.cz``,
    #: ``user@xxxxxx``, ``@...cle.com``, ``name at domain``)
    from_obfuscated: bool = False
    date_raw: str = ""
    #: ISO 8601 in UTC (``2024-03-12T10:17:44+00:00``) or None when unparseable
    date_utc: str | None = None
    in_reply_to: str | None = None
    references: list[str] = field(default_factory=list)
    to: str = ""
    cc: str = ""
    body: str = ""
    raw: bytes = b""
    lists: list[str] = field(default_factory=list)
    archive_url: str | None = None
    #: where it was read from (path, URL, ``repo.git@commit``)
    source: str = ""
    #: the id was made up from a content hash because the source had none
    synthetic_id: bool = False
    #: text dumps and HTML pages: the parent found by matching quoted text
    quoted_parent: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("raw")
        return d


@pickled_as_fields
@dataclass
class Segment:
    """A run of body lines of one kind.

    ``line_start``/``line_end`` are 0-based, inclusive, in ``Message.body``.
    ``text`` holds the lines with their quote markers (``> ``) removed, one per
    body line, so extractors can map offsets within ``text`` back to the body.
    """

    kind: str  # new | quoted | attribution | signature | patch | footer | quoted_header
    line_start: int
    line_end: int
    text: str
    depth: int = 0
    #: for quoted text: the message that first said it, where it could be found
    quotes_message_id: str | None = None


@pickled_as_fields
@dataclass
class Evidence:
    """Where a fact was found: message, body line span, the text as written."""

    message_id: str = ""
    line_start: int = 0
    line_end: int = 0
    text: str = ""
    quoted: bool = False
    depth: int = 0

    def shifted(self, offset: int, message_id: str, quoted: bool = False, depth: int = 0) -> Evidence:
        return Evidence(
            message_id, self.line_start + offset, self.line_end + offset, self.text, quoted, depth
        )


@pickled_as_fields
@dataclass
class FioJob:
    """One fio job with ``[global]`` merged in; option values as written."""

    name: str
    form: str  # jobfile | cmdline | inline | lkp-params
    options: dict[str, str] = field(default_factory=dict)
    #: the options that came from [global] / before the first --name
    global_options: dict[str, str] = field(default_factory=dict)
    #: canonical option name -> normalized value (sizes in bytes, times in s)
    normalized: dict[str, Any] = field(default_factory=dict)
    #: option names fio's catalog does not know
    unknown_options: list[str] = field(default_factory=list)
    #: what had to be assumed or resolved (shell variables, loop values)
    notes: list[str] = field(default_factory=list)
    evidence: Evidence = field(default_factory=Evidence)


@pickled_as_fields
@dataclass
class Result:
    """One measured number: a row of a table, a fio group line, a prose figure."""

    metric: str  # bw | iops | throughput | lat | clat | util | cpu | ...
    value: float
    unit: str  # as written: MiB/s, MB/s, IOPS, %, usec, KiB/s ...
    kernel: str | None = None
    #: baseline | regressed | fixed | None
    label: str | None = None
    #: a configuration label other than the kernel ("mq-deadline", "hosttags")
    config: str | None = None
    tool: str | None = None  # fio | tiobench | dd | iostat | lkp | ...
    direction: str | None = None  # read | write | randread | randwrite | trim | mixed
    stddev: float | None = None
    samples: list[float] = field(default_factory=list)
    normalized_value: float | None = None
    normalized_unit: str | None = None  # B/s | IOPS | us | % | s
    evidence: Evidence = field(default_factory=Evidence)


@pickled_as_fields
@dataclass
class KernelMention:
    raw: str  # as written: "v6.8-rc7", "6.8-rc7+ Revert", "5.15.y"
    version: str  # normalized: "6.8-rc7", "5.15.y", "next-20251219"
    sort_key: tuple = ()
    #: good | bad | None, where the text says so
    role: str | None = None
    evidence: Evidence = field(default_factory=Evidence)


#: the roles a commit citation can have, strongest first (a commit cited in two roles keeps the stronger)
ROLE_RANK = {"culprit": 0, "fix": 1, "revert": 2, "tested": 3, "base": 4, "mentioned": 5}


@pickled_as_fields
@dataclass
class CommitCitation:
    sha: str  # lowercase as written
    subject: str | None = None
    #: culprit | fix | revert | tested | base | mentioned
    role: str = "mentioned"
    #: the words that decided the role ("bisection points to", "Fixes:")
    cue: str = ""
    #: trailer kind or citation form: prose | fixes | range | regzbot | lkp | revert-subject | bisect-step | bisect-result | blame
    form: str = "prose"
    #: for ranges: the other end
    range_end: str | None = None
    evidence: Evidence = field(default_factory=Evidence)


@pickled_as_fields
@dataclass
class SetupFact:
    key: str  # device | scheduler | filesystem | mount_options | tunable | cpu | memory | stack | ...
    value: str
    evidence: Evidence = field(default_factory=Evidence)


@pickled_as_fields
@dataclass
class Claim:
    """What a message says about a performance change."""

    kind: str  # regression | improvement | no-regression | cannot-reproduce
    stated_pct: float | None = None
    metric: str | None = None
    cue: str = ""
    evidence: Evidence = field(default_factory=Evidence)
    #: the low end of a size stated as a range ("10-15% slower": 10, with stated_pct 15)
    stated_low: float | None = None


@pickled_as_fields
@dataclass
class Findings:
    """Everything the extractors found in one message."""

    message_id: str
    fio_jobs: list[FioJob] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    kernels: list[KernelMention] = field(default_factory=list)
    commits: list[CommitCitation] = field(default_factory=list)
    setup: list[SetupFact] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    fio_version: str | None = None
    #: extractor name -> error text, for failures recorded without stopping the run
    errors: dict[str, str] = field(default_factory=dict)


@pickled_as_fields
@dataclass
class Reason:
    """Why a report is what it is: the named rule that decided, what it decided, and where in
    the thread it read that (a message and a body line; line -1 for the subject)."""

    rule: str  # "robot-report", "measured-slowdown", "config-comparison", "status-fixed", ...
    verdict: str  # "regression" | "not a regression" | "improvement" | a status | "kernel change"
    message_id: str = ""
    line: int = 0
    text: str = ""


@pickled_as_fields
@dataclass
class Report:
    """One regression report per thread."""

    thread_id: str
    title: str
    is_regression_report: bool = False
    kind: str | None = None  # regression | improvement | None
    status: str = "no conclusion"
    kernel_versions: list[KernelMention] = field(default_factory=list)
    good_kernel: str | None = None
    bad_kernel: str | None = None
    commits: list[CommitCitation] = field(default_factory=list)
    fio_jobs: list[FioJob] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    setup: list[SetupFact] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    stated_pct: float | None = None
    computed_pct: float | None = None
    regression_pct: float | None = None
    pct_disagrees: bool = False
    fio_version: str | None = None
    people: list[str] = field(default_factory=list)
    first_date: str | None = None
    last_date: str | None = None
    message_ids: list[str] = field(default_factory=list)
    lists: list[str] = field(default_factory=list)
    #: the rules that decided whether this is a regression report, its kind and its status
    reasons: list[Reason] = field(default_factory=list)
