"""fio parameters written in prose and kernel test robot (LKP) parameter records.

* Prose: "(4 hw queues, ioengine=sync, iodepth=64, numjobs=4, bs=4K)" - taken
  (form ``inline``) only when at least two options fio knows appear together,
  or one does in a line that mentions fio.  fio's own output header
  ("job: (g=0): rw=write, bs=(R) 128KiB-128KiB, ...") and command lines are
  left to the output parser and lkmlkb.fio.cmdline.
* LKP reports (``kernel test robot noticed a -72.9% regression of
  fio.write_iops``): the ``parameters:`` block of tab-indented ``key: value``
  lines and the slash-joined axis record (``bs/compiler/.../testcase:`` then
  ``4k/gcc-12/.../fio-basic``), form ``lkp-params``, keeping the keys that
  are fio options or LKP's plain equivalents (``nr_task``, ``test_size``,
  ``fs``, ``disk``).
"""

from __future__ import annotations

import functools
import logging
import re

from lkmlkb.fio import catalog
from lkmlkb.fio.common import MAX_LINE, clean_line, make_job, split_lines
from lkmlkb.model import FioJob

log = logging.getLogger(__name__)

#: LKP fio-basic parameters that are not fio option names but say what fio ran
#: (lkp-tests programs/fio-setup-basic maps them: nr_task -> numjobs, test_size -> size)
#: keys of an LKP record that say what fio ran, in LKP's words (the machine's disk and file system,
#: "disk: 1HDD", "fs: ext4", are the setup's, not the job's)
LKP_EQUIVALENTS = frozenset({"nr_task", "test_size", "nr_files", "file_size", "filesize", "nr_threads"})
#: keys in an LKP record that are fio option names but mean something else there
LKP_NOT_FIO = frozenset(
    {"cpufreq_governor", "kconfig", "compiler", "rootfs", "tbox_group", "testcase", "mode", "test", "ucode"}
)
#: options that only a storage benchmark sets; "size=", "uid=", "port=" or "blocksize=" alone are
#: just as likely null_blk module parameters, id(1) output or a tracepoint format
STRONG_OPTIONS = frozenset(
    {
        "ioengine",
        "iodepth",
        "rw",
        "numjobs",
        "direct",
        "buffered",
        "runtime",
        "time_based",
        "ramp_time",
        "group_reporting",
        "fsync",
        "fdatasync",
        "end_fsync",
        "iodepth_batch_submit",
        "iodepth_batch_complete_min",
        "iodepth_batch_complete_max",
        "iodepth_low",
        "norandommap",
        "randrepeat",
        "rwmixread",
        "rwmixwrite",
        "fixedbufs",
        "hipri",
        "sqthread_poll",
        "registerfiles",
        "thinktime",
        "rate_iops",
        "bssplit",
        "bsrange",
        "zonemode",
        "ioscheduler",
        "zero_buffers",
        "refill_buffers",
        "gtod_reduce",
        "unified_rw_reporting",
        "random_distribution",
        "file_service_type",
        "nrfiles",
    }
)
LKP_FIO_SPECIFIC = frozenset({"rw", "bs", "ioengine", "iodepth", "direct", "test_size"})

PARAMS_HEADER_RE = re.compile(r"^\s{0,8}parameters:\s{0,8}$")  # "parameters:" (LKP)
PARAM_LINE_RE = re.compile(
    r"""
    ^[ \t]{1,16}(?P<key>[A-Za-z_][A-Za-z0-9_.-]{0,63}):[ \t]{1,16}(?P<value>\S.{0,300}?)\s{0,40}$   # "\truntime: 300s"
    """,
    re.VERBOSE,
)
TESTCASE_RE = re.compile(r"^\s{0,8}testcase:\s{0,8}(?P<name>\S{1,100})\s{0,8}$")  # "testcase: fio-basic"
AXES_RE = re.compile(
    r"""
    ^\s{0,8}(?P<keys>[a-z][a-z0-9_]{0,40}(?:/[a-z][a-z0-9_]{0,40}){2,60}):\s{0,8}$  # "bs/compiler/.../testcase:"
    """,
    re.VERBOSE,
)
#: the end of every line AXES_RE matches, as the text (NULs removed) spells it: the last "/key:", then
#: its whitespace (one more for the CR that split_lines drops) and the line break
AXES_CUE_RE = re.compile(r"/[a-z][a-z0-9_]{0,40}:[^\S\n]{0,9}$", re.MULTILINE)
AXES_VALUES_RE = re.compile(r"^\s{0,16}(?P<values>\S{1,3000})\s{0,8}$")  # "  4k/gcc-12/performance/..."
PAIR_RE = re.compile(
    r"""
    (?<![\w./-])(?P<key>[A-Za-z_][A-Za-z0-9_]{0,40})      # "ioengine" in "(..., ioengine=sync, ...)"
    =(?P<value>[^\s,;()\[\]{}"'`]{1,200})                  # "sync", "4K", "64"
    """,
    re.VERBOSE,
)
FIO_OUTPUT_RE = re.compile(
    r"""
    \((?:g|groupid)=\d{1,4}[),]       # "job: (g=0): rw=write, bs=(R) ..." / "(groupid=0, jobs=48)"
    |\bbs=\(R\)                        # "bs=(R) 4096B-4096B"
    |^\s{0,8}(?:READ|WRITE|TRIM):\s    # "  WRITE: bw=2683MiB/s (2813MB/s), ..."
    |\d(?:B|KiB|MiB|GiB)-\d            # the wrapped rest of that header: "128KiB-128KiB, ioengine=libaio"
    """,
    re.VERBOSE,
)
CLI_RE = re.compile(r"(?:^|\s)-{1,2}[A-Za-z][\w-]{0,63}=")  # "--bs=4k": a command line, not prose
FIO_WORD_RE = re.compile(r"\bfio\b", re.IGNORECASE)


# --- prose ---------------------------------------------------------------------------------------


@functools.cache
def _strong_cue() -> re.Pattern:
    """``name=`` for every name or alias (lower case) of a STRONG_OPTIONS option.

    A line yields an inline job only when one of its ``key=value`` pairs has a
    key whose canonical name is a strong option; the key is ASCII and written
    right before its "=", so the lower-cased line holds its lower-cased name
    and "=": a line where this finds nothing is skipped before PAIR_RE and the
    catalog look-ups.  (fio output lines, "lat (usec): min=..., max=...", are
    most of a pasted run's lines with "=".)
    """
    return re.compile("(?:" + "|".join(re.escape(k) for k in _strong_names()) + ")=")


def _strong_names() -> list[str]:
    """Every lower-cased name or alias of a STRONG_OPTIONS option, longest first."""
    return sorted(
        (k for k, canon in catalog.name_index().items() if canon in STRONG_OPTIONS), key=len, reverse=True
    )


@functools.cache
def _strong_cue_reversed() -> re.Pattern:
    """``_strong_cue`` spelled backwards, for the reversed text: ``=`` then a name reversed.

    It matches the reversed text where ``_strong_cue`` matches the text (the
    pattern has no anchors nor lookarounds), but starting with a literal it is
    tried only at each "=": one search of a whole text costs what the forward
    alternation, tried at every character, costs on a few of its lines.
    """
    return re.compile("=(?:" + "|".join(re.escape(k[::-1]) for k in _strong_names()) + ")")


def find_inline_params(lines: list[str]) -> list[FioJob]:
    """``key=value`` pairs in prose lines, when they are fio's options."""
    jobs: list[FioJob] = []
    strong_cue = _strong_cue()
    for i, raw in enumerate(lines):
        if "=" not in raw or len(raw) > MAX_LINE or not strong_cue.search(raw.lower()):
            continue  # a line whose keys name no strong option yields no job (see _strong_cue)
        line = clean_line(raw)
        if (
            CLI_RE.search(line) or line.rstrip().endswith("\\") or FIO_OUTPUT_RE.search(line)
        ):  # cheap tests first
            continue
        pairs = [
            (m.group("key"), m.group("value").rstrip(".:"))
            for m in PAIR_RE.finditer(line)
            if "%" not in m.group("value") and not line.startswith("(", m.end())
        ]  # "uid=0(root)", "%u"
        known = {catalog.canonical_name(k) for k, _ in pairs} - {None}
        strong = known & STRONG_OPTIONS
        if not pairs or (len(pairs) == 1 and line.strip() == "%s=%s" % pairs[0]):
            continue  # a lone "bs=4k" line belongs to a job file
        n_known = sum(1 for k, _ in pairs if catalog.is_known(k))
        if n_known <= len(pairs) - n_known:
            continue  # another tool's vocabulary: t/io_uring's "polled=1, fixedbufs=1, register_files=1, QD=128"
        if (len(known) >= 2 and strong) or (strong and FIO_WORD_RE.search(line)):
            options = {k: v for k, v in pairs if catalog.is_known(k)}
            jobs.append(make_job("inline", "inline", options, {}, [], i, i, raw))
    return jobs


# --- LKP -----------------------------------------------------------------------------------------


def _lkp_keep(key: str) -> bool:
    """A key of an LKP record that says something about the fio job."""
    k = key.lower()
    return k not in LKP_NOT_FIO and (k in LKP_EQUIVALENTS or catalog.is_known(k))


def _is_fio_record(testcase: str | None, keys: set[str], text_mentions_fio: bool) -> bool:
    """An LKP record describes a fio run: testcase fio-*, or fio-only keys (rw, bs, ioengine ...)."""
    if testcase is not None:
        return testcase.lower().startswith("fio")
    return len(keys & LKP_FIO_SPECIFIC) >= 2 or (text_mentions_fio and len(keys & LKP_FIO_SPECIFIC) >= 1)


def find_lkp_parameters(lines: list[str], text_mentions_fio: bool) -> list[FioJob]:
    """LKP's ``parameters:`` block (``\\truntime: 300s`` ...) -> one lkp-params job each."""
    jobs: list[FioJob] = []
    if "parameters:" not in "\n".join(lines):
        return jobs  # no line can be the block's header
    testcase: str | None = None
    i = 0
    while i < len(lines):
        if ":" not in lines[i]:  # both patterns below spell "testcase:" / "parameters:"
            i += 1
            continue
        line = clean_line(lines[i])
        m = TESTCASE_RE.match(line)
        if m:
            testcase = m.group("name")
        if not PARAMS_HEADER_RE.match(line):
            i += 1
            continue
        start, record, j = i, {}, i + 1
        end = i
        while j < len(lines) and j - i < 80:
            cur = clean_line(lines[j])
            pm = PARAM_LINE_RE.match(cur)
            if pm:
                record[pm.group("key")] = pm.group("value")
                end = j
            elif cur.strip() or record:
                break
            j += 1
        i = j
        kept = {k: v for k, v in record.items() if _lkp_keep(k)}
        if kept and _is_fio_record(testcase, set(record), text_mentions_fio):
            text = "\n".join(lines[start : end + 1])
            notes = ["kernel test robot testcase %s" % testcase] if testcase else []
            jobs.append(make_job(testcase or "lkp", "lkp-params", kept, {}, notes, start, end, text))
    return jobs


def find_lkp_axes(lines: list[str], text_mentions_fio: bool) -> list[FioJob]:
    """``bs/compiler/.../testcase:`` followed by ``4k/gcc-12/.../fio-basic`` -> key/value record."""
    jobs: list[FioJob] = []
    for i in range(len(lines) - 1):
        if "/" not in lines[i] or len(lines[i]) > MAX_LINE:
            continue
        m = AXES_RE.match(clean_line(lines[i]))
        if not m:
            continue
        vm = AXES_VALUES_RE.match(clean_line(lines[i + 1]))
        if not vm:
            continue
        keys = m.group("keys").split("/")
        values = vm.group("values").split("/")
        if len(keys) != len(values):
            log.debug("line %d: LKP axes with %d keys but %d values", i, len(keys), len(values))
            continue
        record = dict(zip(keys, values, strict=True))
        testcase = record.get("testcase")
        kept = {k: v for k, v in record.items() if _lkp_keep(k)}
        if kept and _is_fio_record(testcase, set(record), text_mentions_fio):
            notes = ["kernel test robot testcase %s" % testcase] if testcase else []
            jobs.append(
                make_job(
                    testcase or "lkp", "lkp-params", kept, {}, notes, i, i + 1, "\n".join(lines[i : i + 2])
                )
            )
    return jobs


def merge_lkp(jobs: list[FioJob]) -> list[FioJob]:
    """A parameters block and an axes record that agree describe one run: keep one job."""
    out: list[FioJob] = []
    for job in jobs:
        twin = next((o for o in out if all(o.options.get(k, v) == v for k, v in job.options.items())), None)
        if twin is None:
            out.append(job)
            continue
        for k, v in job.options.items():
            twin.options.setdefault(k, v)
        twin.normalized.update({k: v for k, v in job.normalized.items() if k not in twin.normalized})
        twin.notes.append("also stated on lines %d-%d" % (job.evidence.line_start, job.evidence.line_end))
    return out


def find_inline(text: str) -> list[FioJob]:
    """Inline fio parameters in prose and LKP parameter records in ``text``.

    Each finder runs only when one search over the whole text (NULs removed,
    as split_lines does) finds what every line it takes spells: "parameters:",
    an axes record's "/key:" line end (AXES_CUE_RE), a strong option's "name=" in the
    lowercased text (``_strong_cue_reversed``; lowercasing line by line or all at once
    gives the same characters, a line break being no cased letter).  Most mail
    has neither, and the line-by-line finders are skipped.
    """
    if not isinstance(text, str) or ("=" not in text and ":" not in text):
        return []
    lines = split_lines(text)
    low = text.lower()
    mentions_fio = "fio" in low
    if "\0" in text:
        text = text.replace("\0", "")
        low = text.lower()
    params = find_lkp_parameters(lines, mentions_fio) if "parameters:" in text else []
    axes = find_lkp_axes(lines, mentions_fio) if AXES_CUE_RE.search(text) else []
    lkp = merge_lkp(params + axes)
    return lkp + (find_inline_params(lines) if _strong_cue_reversed().search(low[::-1]) else [])
