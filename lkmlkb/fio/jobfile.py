"""fio job files pasted into mail -> FioJob records.

Real mail shows job files as a ``[global]`` section and one or more job
sections (corpus/000: ``[global]`` then two ``[job]`` sections, inside ``> ``
quotes), with ``;``/``#`` comments, bare flags (``group_reporting``),
``${VAR}`` values, ``include`` lines, indentation, and values wrapped by
mailers.  A block counts as a job file only when its lines are mostly options
fio knows, so ``[1]`` footnotes, ``[PATCH]`` and INI files of other programs
(systemd units, git config) are not taken for jobs.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from lkmlkb.fio import catalog
from lkmlkb.fio.common import MAX_LINE, clean_line, make_job, split_lines
from lkmlkb.model import FioJob

log = logging.getLogger(__name__)

SECTION_RE = re.compile(
    r"""
    ^(?P<echo>.{0,200}?\becho\s{1,4}['"])?   # LKP's attachment: "2024-01-30 16:11:43 echo '[global]"
    \s{0,16}\[
    (?P<name>[^\[\]\s][^\[\]]{0,120})     # "[global]", "[job]", "[rand-read 4k]"
    \]\s{0,40}
    (?:[;#].{0,400})?$                     # "[job1]   ; first disk"
    """,
    re.VERBOSE,
)
#: the end of every line SECTION_RE matches, as the text spells it: "]", its whitespace (one more for
#: the CR split_lines drops), then a comment's ";"/"#" or the line break.  (clean_line's cut to MAX_LINE
#: never ends a header: SECTION_RE matches under 800 characters, quote marks cut under 250.)
SECTION_END_CUE_RE = re.compile(r"\][^\S\n]{0,41}(?:[;#]|$)", re.MULTILINE)
OPTION_RE = re.compile(
    r"""
    ^\s{0,24}
    (?P<key>[A-Za-z_][A-Za-z0-9_.-]{0,63})  # "ioengine", "hugepage-size"
    (?:\s{0,8}=\s{0,8}(?P<value>.{0,3000}?))?  # "=libaio"; no "=" for flags: "group_reporting"
    \s{0,200}$
    """,
    re.VERBOSE,
)
COMMENT_RE = re.compile(r"^\s{0,24}[;#]")  # "; -- start job file --", "# sequential writes"
INCLUDE_RE = re.compile(
    r"""
    ^\s{0,24}include\s{1,8}(?P<file>\S{1,300})\s{0,8}$   # "include glob-include.fio" (HOWTO)
    """,
    re.VERBOSE,
)
TRAILING_COMMENT_RE = re.compile(r"\s{1,40}[;#].{0,3000}$")  # "bs=4k   # the block size"
ECHO_END_RE = re.compile(
    r"""
    ^(?P<value>[^'"]{0,3000})['"]\s{0,8}(?:\|.{0,300})?$   # "numjobs=64' | fio --output-format=json -"
    """,
    re.VERBOSE,
)
ENV_VAR_RE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]{0,63}(?::-[^}]{0,100})?\}")  # "${DEV}", "${BS:-4k}"
WRAP_TAIL = (":", ",", "-", "/")  # "filename=/dev/nvme0n1:" wrapped before the next device


@dataclass
class _Line:
    """One classified line of a candidate block."""

    kind: str  # section | option | comment | include | blank | other
    key: str = ""
    value: str | None = None
    index: int = 0
    #: a section header opened by ``echo '`` (the job file is a shell string)
    echo: bool = False


@dataclass
class _Block:
    """A run of job-file-like lines."""

    lines: list[_Line] = field(default_factory=list)

    @property
    def start(self) -> int:
        return self.lines[0].index

    @property
    def end(self) -> int:
        return max(ln.index for ln in self.lines if ln.kind != "blank")


def classify(line: str, index: int) -> _Line:
    """What a (dequoted) line is in job-file terms."""
    stripped = line.strip()
    if not stripped:
        return _Line("blank", index=index)
    if len(line) > MAX_LINE:
        return _Line("other", index=index)
    m = SECTION_RE.match(line)
    if m:
        return _Line("section", key=m.group("name").strip(), index=index, echo=bool(m.group("echo")))
    if COMMENT_RE.match(line):
        return _Line("comment", index=index)
    m = INCLUDE_RE.match(line)
    if m:
        return _Line("include", value=m.group("file"), index=index)
    m = OPTION_RE.match(TRAILING_COMMENT_RE.sub("", line) if "=" in line else line)
    if m:
        value = m.group("value")
        return _Line(
            "option", key=m.group("key"), value=value.strip() if value is not None else None, index=index
        )
    return _Line("other", index=index)


def _is_strong(ln: _Line) -> bool:
    """A line that can carry a block on after a blank line."""
    return ln.kind in ("section", "comment", "include") or (ln.kind == "option" and catalog.is_known(ln.key))


def find_blocks(lines: list[str]) -> list[_Block]:
    """Runs of lines starting at a section header and continuing while they look like a job file.

    A blank line ends the block unless the next non-blank line is a section,
    a comment, an include or an option fio knows.  A bare word that fio does
    not know (``Thanks``) ends it, as does any prose.
    """
    blocks: list[_Block] = []
    cur: _Block | None = None
    pending_blank: list[int] = []  # numbers of the blank lines after the block's last line
    for i, raw in enumerate(lines):
        if cur is None and "[" not in raw:
            continue  # only a section header opens a block, and it spells "["
        if cur is None:
            line = clean_line(raw)
            if SECTION_RE.match(line):  # what classify tests first: only a section opens a block
                cur, pending_blank = _Block([classify(line, i)]), []
            continue
        if not raw:
            pending_blank.append(i)  # classify("") is blank; a dmesg paste can end in thousands of these
            continue
        ln = classify(clean_line(raw), i)
        if ln.kind == "blank":
            pending_blank.append(i)
            continue
        if ln.kind == "other" and _continues_wrapped_value(cur, pending_blank, raw):
            prev = cur.lines[-1]
            prev.value = (prev.value or "") + clean_line(raw).strip()
            prev.index = i
            continue
        bare_unknown = ln.kind == "option" and ln.value is None and not catalog.is_known(ln.key)
        ok = ln.kind != "other" and not bare_unknown and (not pending_blank or _is_strong(ln))
        if ok:
            cur.lines.extend(_Line("blank", index=j) for j in pending_blank)
            cur.lines.append(ln)
            pending_blank = []
            if cur.lines[0].echo and _ends_echo_string(ln):
                blocks.append(cur)
                cur = None
            continue
        blocks.append(cur)
        cur, pending_blank = (_Block([ln]) if ln.kind == "section" else None), []
    if cur is not None:
        blocks.append(cur)
    return blocks


def _ends_echo_string(ln: _Line) -> bool:
    """The closing quote of ``echo '[global] ... numjobs=64' | fio -``: cut the value there."""
    if ln.kind != "option" or not ln.value:
        return False
    m = ECHO_END_RE.match(ln.value)
    if not m:
        return False
    ln.value = m.group("value").strip()
    return True


def _continues_wrapped_value(block: _Block, pending_blank: list[int], raw: str) -> bool:
    """A mailer-wrapped value: the previous option ends in ':' ',' '-' '/', this line is one token."""
    prev = block.lines[-1]
    value = prev.value or ""
    token = clean_line(raw).strip()
    return (
        not pending_blank
        and prev.kind == "option"
        and value != ""
        and value.endswith(WRAP_TAIL)
        and " " not in token
        and "=" not in token
        and len(token) < 300
    )


def looks_like_jobfile(block: _Block) -> bool:
    """Sections that carry fio options: known options outnumber unknown ones, at least two known
    (one is enough when every option is known and there is a [global] section)."""
    opts = [ln for ln in block.lines if ln.kind == "option"]
    known = sum(1 for ln in opts if catalog.is_known(ln.key))
    unknown = len(opts) - known
    has_global = any(ln.kind == "section" and ln.key.lower() == "global" for ln in block.lines)
    if known >= 2 and known > unknown:
        return True
    return known >= 1 and unknown == 0 and has_global


def jobs_from_block(block: _Block, text_lines: list[str]) -> list[FioJob]:
    """Merge each [global] into the job sections after it, the way fio does.

    Global options accumulate; a job sees the globals defined before its
    section header, so a later ``[global]`` applies only to the jobs after it.
    """
    end = block.end
    evidence_text = "\n".join(text_lines[block.start : end + 1])
    globals_: dict[str, str] = {}
    notes: list[str] = []
    sections: list[tuple[str, dict[str, str], dict[str, str]]] = []  # name, globals then, own
    current: dict[str, str] | None = None
    for ln in block.lines:
        if ln.kind == "section":
            if ln.key.lower() == "global":
                current = globals_
            else:
                current = {}
                sections.append((ln.key, dict(globals_), current))
        elif ln.kind == "include":
            notes.append("include %s (file not shown)" % ln.value)
        elif ln.kind == "option" and current is not None:
            current[ln.key] = ln.value if ln.value is not None else ""
    span = (block.start, end)
    jobs = [_finish(name, glob, own, notes, span, evidence_text) for name, glob, own in sections]
    if not sections and globals_:
        jobs.append(
            _finish(
                "global", {}, globals_, notes + ["only a [global] section was shown"], span, evidence_text
            )
        )
    return jobs


def _finish(
    name: str,
    glob: dict[str, str],
    own: dict[str, str],
    notes: list[str],
    span: tuple[int, int],
    evidence_text: str,
) -> FioJob:
    """Build one FioJob: global first, job options override."""
    merged = {**glob, **own}
    job_notes = list(notes)
    for key, value in merged.items():
        for var in ENV_VAR_RE.findall(value):
            job_notes.append("%s=%s uses environment variable %s" % (key, value, var))
    return make_job(name, "jobfile", merged, glob, job_notes, span[0], span[1], evidence_text)


def find_jobfiles(text: str) -> list[FioJob]:
    """Every fio job file in ``text`` (quote markers removed by the caller; leftover ``> `` tolerated)."""
    if not isinstance(text, str) or "[" not in text:
        return []
    if not SECTION_END_CUE_RE.search(text.replace("\0", "")):
        return []  # no line is a section header (split_lines drops NULs): no block
    lines = split_lines(text)
    jobs: list[FioJob] = []
    for block in find_blocks(lines):
        if looks_like_jobfile(block):
            jobs.extend(jobs_from_block(block, lines))
        else:
            log.debug("lines %d-%d: sections without fio options, not a job file", block.start, block.end)
    return jobs
