"""Test setup facts in mail: devices and storage stack, I/O scheduler,
filesystem and mount options, block-layer tunables, CPU and memory; and the
benchmark tools used.

Real text this reads:

* "The machine is Intel 2 CPU with 2 GB RAM and plain SATA drive." (002)
* "two server hardwares(32cores, dual numa nodes)" (001)
* "test machine: 64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz
  (Ice Lake) with 256G memory" (kernel test robot)
* "1) PCIe3 SSD *4 with LVM", "gfs2 lock_nolock" (003)
* "modprobe scsi_debug host_max_queue=128 submit_queues=$NRQS virtual_gb=256",
  "echo 128 >/sys/block/`basename $DEV`/device/queue_depth" (001)
* "2.6.32-rc6,low_latency=0", "With deadline scheduler" (002)
* "2 block devices with multi-path", "dm-0:" (000); LKP "fs: xfs", "disk: 1HDD"

Every pattern is a regular expression with bounded repetition; lines over
MAX_LINE characters are trimmed.  One fact per (key, value), first evidence.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

from lkmlkb.extract import CASE_TWINS as _CASE_TWINS
from lkmlkb.extract import has_case_twin as _has_case_twin
from lkmlkb.extract.lines import match_starts, trie_pattern, word_lines
from lkmlkb.model import Evidence, SetupFact

log = logging.getLogger(__name__)

#: lines are read for setup facts up to this many characters (a longer one is base64 or junk)
MAX_LINE = 4000

_SCHED_RE = re.compile(
    r"""
    (?P<v>\bmq-deadline\b|\bbfq\b|\bkyber\b|\bcfq\b|\bnoop\b|\banticipatory\b)   # names only schedulers have
    | \b(?P<ctx>deadline|none)\b(?=[ \t]{0,3}(?:i/?o[ \t]{0,2})?(?:scheduler|elevator|iosched))
                                             # "With deadline scheduler", "none scheduler"
    | (?:scheduler|elevator|iosched|sched)[ \t]{0,3}[=:]?[ \t]{0,3}\[?(?P<after>deadline|none|mq-deadline)\b
                                             # "scheduler=none", "sched: [none]", "elevator=deadline"
    | \bwith[ \t]{1,3}(?P<with>deadline|none)\b[ \t]{0,3}$
                                             # "randread test on ibm-x3850x6[*] with none" (001)
    | echo[ \t]{1,3}(?P<echo>mq-deadline|deadline|none|bfq|kyber|cfq|noop)[ \t]{0,3}>[^\n]{0,120}scheduler
                                             # "echo none > /sys/block/sda/queue/scheduler"
    """,
    re.VERBOSE | re.IGNORECASE | re.MULTILINE,
)
_FS_RE = re.compile(
    r"""
    (?<![\w/.\-])(?P<fs>ext[234]|xfs|btrfs|gfs2|f2fs|ocfs2|bcachefs|zfs|tmpfs|nfs[34]?|erofs|exfat|vfat|reiserfs|jfs)
    (?![\w\-./])                      # "gfs2 lock_nolock", "fs: xfs", not "xfs_io", "ext4/"
    """,
    re.VERBOSE | re.IGNORECASE,
)
_MOUNT_OPT_RE = re.compile(
    r"""
    (?<![\w\-])(?P<opt>data=(?:ordered|writeback|journal)|barrier=[01]|nobarrier|noatime|relatime
      |discard|nodiscard|dax(?:=\w{1,10})?|commit=\d{1,5}|logbsize=\w{1,8}|journal_async_commit
      |lock_nolock|lock_dlm|inode64|noquota)\b        # "data=ordered", "barrier=1", gfs2 "lock_nolock"
    """,
    re.VERBOSE,
)
_TUNABLE_RE = re.compile(
    r"""
    (?<![\w\-])(?P<k>low_latency|slice_idle|slice_sync|slice_async|quantum|group_idle|fifo_batch
      |writes_starved|read_expire|write_expire|back_seek_max|queue_depth|nr_requests|read_ahead_kb
      |max_sectors_kb|rq_affinity|nomerges|wbt_lat_usec|io_poll|io_poll_delay|add_random|rotational
      |iostats|strict_guarantees|async_depth|prio_aging_expire|nr_hw_queues|hctx|dirty_ratio
      |dirty_background_ratio|vm\.dirty_\w{1,30}|nr_open|iodepth_batch)
    (?:[ \t]{0,2}[=:][ \t]{0,2}(?P<v>[\w.\-]{1,20})          # "low_latency=0", "queue_depth: 64"
      |(?=[^\n]{0,0}))
    """,
    re.VERBOSE,
)
_ECHO_TUNABLE_RE = re.compile(
    r"""echo[ \t]{1,3}(?P<v>[\w.\-]{1,20})[ \t]{0,3}>{1,2}[ \t]{0,3}[^\n>]{0,200}/(?P<k>[a-z_]{2,40})[ \t]{0,3}$"""
    # "echo 128 >/sys/block/`basename $DEV`/device/queue_depth"
)
_MODULE_RE = re.compile(
    r"""(?:modprobe|insmod)[ \t]{1,3}(?P<mod>scsi_debug|null_blk|brd|nvme|nvme_core|nvmet|zram|ublk_drv|dm_\w{1,20})
        (?P<params>(?:[ \t]{1,3}[\w]{1,40}=[^\s]{1,40}){0,20})""",
    re.VERBOSE,
)
_DEVICE_RE = re.compile(
    r"""
    (?=[nNPSHhrdsbzp/0-9])   # what every alternative starts with: the engine skips other places fast
    (?:(?P<nvme>\bnvme\d{1,3}n\d{1,3}(?:p\d{1,3})?\b|\bNVMe\b(?:[ \t]{1,2}SSDs?)?|\bPCIe\d?(?:\.\d)?[ \t]{1,2}(?:NVMe[ \t]{1,2})?SSDs?\b)
                                               # "nvme3n1", "NVMe SSD", "PCIe3 SSD"
    | (?P<sata>\bSATA\b(?:[ \t]{1,2}(?:drive|disk|SSD|HDD)s?)?)      # "plain SATA drive"
    | (?P<sas>\bSAS\b[ \t]{1,2}(?:drive|disk|SSD|HDD)s?)
    | (?P<hdd>\b\d{0,3}HDDs?\b|\bhard[ \t]disks?\b|\brotational[ \t]disks?\b)   # LKP "disk: 1HDD"
    | (?P<ssd>\b\d{0,3}SSDs?\b)
    | (?P<dm>\bdm-\d{1,3}\b)                    # "dm-1" (000)
    | (?P<scsi_debug>\bscsi_debug\b)
    | (?P<null_blk>\bnull_blk\b|\bnullb\d{1,3}\b)
    | (?P<ram>\bbrd\b|\bram\d{1,3}\b|\bzram\d{0,3}\b|\bpmem\d{1,3}\b)
    | (?P<sd>(?<![\w/])(?:/dev/)?sd[a-z]{1,2}\d{0,2}\b(?=:|[ \t]|$)))   # "sdad:" (000)
    """,
    re.VERBOSE | re.MULTILINE,
)
_STACK_RE = re.compile(
    r"""
    (?P<multipath>\bmulti-?path(?:ing)?\b|\bdm-multipath\b|\bmpath\w{0,4}\b)   # "2 block devices with multi-path"
    | (?P<lvm>\bLVM2?\b|\blvcreate\b)           # "PCIe3 SSD *4 with LVM"
    | (?P<raid>\b(?:md-?)?raid[ \t]?(?:0|1|5|6|10)\b|\bmdadm\b|\bsoftware[ \t]RAID\b|\bRAID\b)
    | (?P<dmcrypt>\bdm-crypt\b|\bLUKS\b|\bcryptsetup\b)
    | (?P<bcache>\bbcache\b|\bdm-cache\b)
    | (?P<nvmeof>\bNVMe-?oF\b|\bnvme-tcp\b|\bnvme-rdma\b|\bnvmet\b)
    | (?P<iscsi>\biSCSI\b)
    | (?P<virtio>\bvirtio-blk\b|\bvirtio_blk\b)
    | (?P<loop>\bloop\d{0,3}\b(?=[ \t]{0,2}(?:device|dev\b)|$)|\blosetup\b)
    """,
    re.VERBOSE | re.IGNORECASE | re.MULTILINE,
)
_CPU_RE = re.compile(
    r"""
    (?P<lkp>test[ \t]machine:[ \t]{0,3}(?P<lkpcpu>[^\n]{5,200}?)(?:[ \t]with[ \t](?P<lkpmem>\d{1,6}[ \t]?[GMT]i?B?)[ \t]memory)?$)
                                               # LKP "test machine: 64 threads 2 sockets Intel(R) Xeon(R) ... with 256G memory"
    | (?P<model>(?:Intel|AMD)(?:\(R\))?[ \t](?:Xeon|Core|EPYC|Ryzen|Atom|Celeron|Pentium)(?:\(R\)|\(TM\))?
         [^\n,;()]{0,60}?(?:CPU[ \t]{0,2}@[ \t]{0,2}\d\.\d{1,2}[ \t]?GHz|\d{3,5}\w{0,3}))
                                               # "Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz", "AMD EPYC 7763"
    | (?P<count>\b(?:Intel|AMD|ARM|arm64)?[ \t]?\d{1,4}[ \t]?(?:CPUs?|cores?|vCPUs?|sockets?|hw[ \t]threads)\b)
                                               # "Intel 2 CPU", "32cores"
    | (?P<numa>\b(?:dual|single|two|four|\d{1,2})[ \t]numa[ \t]nodes?\b)   # "dual numa nodes" (001)
    """,
    re.VERBOSE | re.IGNORECASE | re.MULTILINE,
)
_MEM_RE = re.compile(
    r"""\b(?P<mem>\d{1,6}(?:\.\d{1,2})?[ \t]?(?:[GMT]i?B|[GT]))[ \t]{1,2}(?:of[ \t])?(?:RAM|memory|DRAM|mem)\b""",
    # "2 GB RAM" (002), "256G memory" (LKP)
    re.IGNORECASE,
)
_TOOLS = [
    # (tool, pattern, words) — each pattern names the real text that needs it; a line can match
    # only when its lowercased form holds one of ``words`` (the literal every alternative spells)
    (
        "fio",
        r"\bfio\b(?![\-_.]\w)|\bfio-\d|\bfio\.\w",
        ("fio",),
    ),  # "fio --name=", "fio-3.19", LKP "fio.write_iops"
    ("tiobench", r"\btiobench\b|\btiotest\b", ("tiobench", "tiotest")),  # 002 "tiobench sequential write"
    (
        "dd",
        r"(?<![\w\-/])dd[ \t]{1,3}(?:if|of|bs|count)=|\bdd\b[ \t]{1,2}(?:command|test|run)",
        ("dd ", "dd\t"),
    ),  # 004 "dd if=/dev/$DISK"
    ("iostat", r"\biostat\b", ("iostat",)),  # 004 "iostat -yxm"
    ("fs_mark", r"\bfs_mark\b|\bfsmark\b", ("fs_mark", "fsmark")),
    ("dbench", r"\bdbench\b", ("dbench",)),
    ("lkp", r"kernel[ \t]test[ \t]robot|\blkp-tests?\b|\blkp\b", ("robot", "lkp")),
    ("mmtests", r"\bmmtests\b", ("mmtests",)),
    ("sysbench", r"\bsysbench\b", ("sysbench",)),
    ("iozone", r"\biozone\b", ("iozone",)),
    ("bonnie++", r"\bbonnie\+\+|\bbonnie\b", ("bonnie",)),
    ("blktests", r"\bblktests\b", ("blktests",)),
    ("fstests", r"\bxfstests\b|\bfstests\b", ("fstests",)),
    ("filebench", r"\bfilebench\b", ("filebench",)),
    ("vdbench", r"\bvdbench\b", ("vdbench",)),
    ("pgbench", r"\bpgbench\b", ("pgbench",)),
    ("hdparm", r"\bhdparm[ \t]{1,3}-[tT]", ("hdparm",)),
    ("perf", r"\bperf[ \t]{1,3}(?:record|top|stat|report|trace|lock|sched)\b", ("perf",)),
    ("blktrace", r"\bblktrace\b|\bblkparse\b|\bbtt\b", ("blktrace", "blkparse", "btt")),
    ("bpftrace", r"\bbpftrace\b|\bbiolatency\b|\bbiosnoop\b", ("bpftrace", "biolatency", "biosnoop")),
    ("t/io_uring", r"\bt/io_uring\b", ("t/io_uring",)),
    ("stress-ng", r"\bstress-ng\b", ("stress-ng",)),
]
_TOOL_RES = [(name, re.compile(p, re.IGNORECASE if name != "dd" else 0)) for name, p, _ in _TOOLS]
_TOOL_WORDS = {name: words for name, _, words in _TOOLS}
#: tools that produce the numbers of a table (monitors like iostat and perf, and test harnesses, do not)
_BENCHMARKS = (
    "fio",
    "tiobench",
    "dd",
    "fs_mark",
    "dbench",
    "sysbench",
    "iozone",
    "bonnie++",
    "filebench",
    "vdbench",
    "pgbench",
    "stress-ng",
    "t/io_uring",
    "mmtests",
)


class _WordSet:
    """Words to find in one pass (``_WordLines.word_lines``): a pattern matching the longest of them
    that starts at a place, and each word's prefixes among them.

    The pattern is the words' trie (``a(?:dd_random|md|...)|b(?:...)``): at a
    place the text's characters pick one path through it, the deepest word end
    on that path is the match, and every word starting there lies on that path.
    One search through a whole text costs less than one ``str.find`` per
    word (for the setup rules' words, on real mail).
    """

    def __init__(self, words: list[str]) -> None:
        self.words = sorted(set(words))
        self.rx = re.compile(trie_pattern(self.words))
        self.prefixes = {w: tuple(u for u in self.words if w.startswith(u)) for w in self.words}


class _WordLines:
    """Which lines of a text can hold a word: the cheap test run before a line's regular expressions.

    Built once per text.  ``lines_of(word_lines(...), words)`` gives the numbers of the lines
    whose lowercased text holds one of ``words``; every pattern here spells one of
    its words in each alternative, so any other line cannot match it and its
    regular expressions need not run.  A line holding one of the four
    characters that case-insensitive matching takes for an ASCII letter
    (``_CASE_TWINS``: "\u017f" for "s", "\u212a" for "k", ...) is always given,
    since lowercasing does not turn them into the letter.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.low = text.lower()
        #: the lines holding a case twin: every word test gives them
        self.twin_lines: set[int] = set()
        if not text.isascii() and _has_case_twin(text):
            self.twin_lines = {i for i, line in enumerate(text.split("\n")) if _CASE_TWINS.search(line)}

    def any(self, words: tuple[str, ...]) -> bool:
        """Whether the text can hold one of ``words`` at all."""
        return bool(self.twin_lines) or any(w in self.low for w in words)

    def cased_starts(self, cue: re.Pattern) -> dict[int, int]:
        """The lines where ``cue`` matches the text as written, with where in each it first matches.

        For a rule whose pattern is case-sensitive: ``cue`` spells, case and all,
        a part of the text each alternative of the pattern needs (no case twin
        can stand in for a letter there).
        """
        text = self.text
        return {i: at - text.rfind("\n", 0, at) - 1 for i, at in match_starts(text, cue)}

    def word_lines(self, words: _WordSet) -> dict[str, set[int]]:
        """Numbers of the lines holding each word of ``words`` (lowercased; words absent are left out),
        from one search of the text: what ``_word_lines((word,))`` gives for each word.

        ``words.rx`` matches, at a place, the longest word starting there (see
        ``_WordSet``); the words starting there are that word's prefixes among
        ``words``.  Each search goes on from the next character, so every place
        where a word starts is seen once, in order: one pass over the text
        instead of one per word.
        """
        low = self.low
        search = words.rx.search
        prefixes = words.prefixes
        found: dict[str, set[int]] = {}
        line = seen = pos = 0
        while True:
            m = search(low, pos)
            if m is None:
                return found
            at = m.start()
            line += low.count("\n", seen, at)
            seen = at
            for w in prefixes[m.group()]:
                at_w = found.get(w)
                if at_w is None:
                    found[w] = {line}
                else:
                    at_w.add(line)
            pos = at + 1

    def lines_of(self, found: dict[str, set[int]], words: tuple[str, ...]) -> set[int]:
        """Numbers of the lines holding one of ``words`` (lowercased), plus the lines with a case twin,
        from the lines of each word (``word_lines``, over a set holding ``words``)."""
        out = set(self.twin_lines)
        for w in words:
            at = found.get(w)
            if at:
                out |= at
        return out

    def iter_lines(self, words: tuple[str, ...]) -> Iterator[int]:
        """The lines holding one of ``words`` (lowercased), those with a case twin first, then the
        others in order."""
        yield from sorted(self.twin_lines)
        yield from sorted(self._word_lines(words))

    def _word_lines(self, words: tuple[str, ...]) -> set[int]:
        """Numbers of the lines whose lowercased text holds one of ``words`` (``lines.word_lines``:
        a word the text does not hold costs one fast scan, where an alternation of every word would
        be tried at each place of the text)."""
        return set(word_lines(self.low, words))


def main_benchmark(text: str) -> str | None:
    """The benchmark a text names most often, for tables that do not say which tool made them.

    Seed 002's tiobench tables sit in a thread that also mentions fio once
    ("throw a fio job file over the fence"): the count decides.
    """
    head = text[:1_000_000]
    words = _WordLines(head)
    lines: list[str] | None = None
    counts = {}
    for name, rx in _TOOL_RES:
        if name in _BENCHMARKS and words.any(_TOOL_WORDS[name]):
            if lines is None:
                lines = head.split("\n")
            n = _count_in_lines(rx, lines, words.iter_lines(_TOOL_WORDS[name]), 1000)
            if n:
                counts[name] = n
    return max(counts, key=lambda k: (counts[k], -_BENCHMARKS.index(k))) if counts else None


def _count_in_lines(rx: re.Pattern, lines: list[str], numbers: Iterator[int], cap: int) -> int:
    """How many times ``rx`` matches the text of ``lines`` (at most ``cap``), reading only the
    lines ``numbers`` gives (each once, whatever its order and repeats).

    The same count as ``rx.finditer`` over the joined text when no match of
    ``rx`` can hold a line break and every line it matches is given: no tool
    pattern spells a line break or a class that takes one, and a line
    boundary reads as the end of the string does to their ``\\b``, lookbehinds
    and lookaheads (a newline is no word character, nor one of the ``-/_.``
    they look for).  ``lines`` are whole, not cut to MAX_LINE.
    """
    n = 0
    for i in sorted(set(numbers)):
        n += sum(1 for _ in zip(rx.finditer(lines[i]), range(cap - n), strict=False))
        if n >= cap:
            return cap
    return n


#: a run of whitespace in a fact's value, written as one space
_SPACES_RE = re.compile(r"\s{2,}")


def _add(out: dict, key: str, value: str, i: int, line: str) -> None:
    value = _SPACES_RE.sub(" ", value.strip())
    if value and (key, value.lower()) not in out:
        out[(key, value.lower())] = SetupFact(
            key, value, Evidence(line_start=i, line_end=i, text=line.strip()[:500])
        )


def _scheduler_facts(out: dict, i: int, line: str) -> None:
    for m in _SCHED_RE.finditer(line):
        v = next(g for g in m.groups() if g)
        _add(out, "scheduler", v.lower(), i, line)


def _filesystem_facts(out: dict, i: int, line: str) -> None:
    for m in _FS_RE.finditer(line):
        _add(out, "filesystem", m.group("fs").lower(), i, line)


def _mount_option_facts(out: dict, i: int, line: str) -> None:
    for m in _MOUNT_OPT_RE.finditer(line):
        _add(out, "mount_options", m.group("opt"), i, line)


def _tunable_facts(out: dict, i: int, line: str) -> None:
    for m in _TUNABLE_RE.finditer(line):
        if m.group("v") and m.group("v").rstrip(".-"):
            _add(out, "tunable", m.group("k") + "=" + m.group("v").rstrip(".-"), i, line)


def _echo_tunable_facts(out: dict, i: int, line: str) -> None:
    for m in _ECHO_TUNABLE_RE.finditer(line):
        if m.group("k") != "scheduler":
            _add(out, "tunable", f"{m.group('k')}={m.group('v')}", i, line)


def _module_facts(out: dict, i: int, line: str) -> None:
    for m in _MODULE_RE.finditer(line):
        _add(out, "device", (m.group("mod") + m.group("params")).strip(), i, line)


#: how far before its first _DEVICE_CUE hit a _DEVICE_RE match can start: "/dev/" of "/dev/sdb", "128" of
#: "128SSD"; every other alternative starts with what the cue spells
_DEVICE_LEAD = 5


def _device_facts(out: dict, i: int, line: str, cue_at: int = 0) -> None:
    """Device facts of a line whose first _DEVICE_CUE hit is at ``cue_at``.

    Every match holds a cue hit at most _DEVICE_LEAD characters after its
    start, so none starts before ``cue_at - _DEVICE_LEAD``: the search starts
    there (its \\b and lookbehind still read the characters before) and finds
    the matches a search of the whole line finds.  A "/dev/sdb" near the end of
    a 90-character fio command line is then one search of 20 characters.
    """
    for m in _DEVICE_RE.finditer(line, max(cue_at - _DEVICE_LEAD, 0)):
        _add(out, "device", m.group(0), i, line)


def _stack_facts(out: dict, i: int, line: str) -> None:
    for m in _STACK_RE.finditer(line):
        _add(out, "stack", m.lastgroup, i, line)


def _cpu_facts(out: dict, i: int, line: str) -> None:
    for m in _CPU_RE.finditer(line):
        if m.group("lkp"):
            _add(out, "cpu", m.group("lkpcpu"), i, line)
            if m.group("lkpmem"):
                _add(out, "memory", m.group("lkpmem"), i, line)
        else:
            _add(out, "cpu", m.group(0), i, line)


def _memory_facts(out: dict, i: int, line: str) -> None:
    for m in _MEM_RE.finditer(line):
        _add(out, "memory", m.group("mem"), i, line)


#: what each alternative of the case-sensitive _DEVICE_RE spells as written: "nvme3n1" (not the
#: "nvme nvme0:" that starts every line of an NVMe dmesg paste), "NVMe SSD", "PCIe3 SSD", "SATA", "SAS",
#: "1HDD", "hard disk", "rotational disk", "SSD", "dm-1", "scsi_debug", "null_blk"/"nullb0",
#: "brd"/"ram0"/"zram1"/"pmem0", "sdad:" (each as far as its alternative spells it: "ram" with its digit,
#: not the "ram" of "param"; "hard disk", not "hardware"); written as a trie ("S(?:A(?:TA|S[ \t])|SD)")
#: so that a place is tried against the alternatives sharing its first letter only
_DEVICE_CUE = re.compile(
    r"n(?:vme\d{1,3}n\d|ull(?:_blk|b\d))|NVMe|PCIe|S(?:A(?:TA|S[ \t])|SD)|HDD|hard[ \t]disk"
    r"|r(?:otational[ \t]disk|am\d)|zram|dm-\d|s(?:csi_debug|d[a-z])|brd|pmem\d"
)

#: per group of _STACK_RE (the value of its facts), the words every alternative of the group spells:
#: "nvme-of", "nvme-tcp", "nvme-rdma" hold "nvme-"; not the "nvme nvme0:" of every dmesg line
_STACK_WORDS = {
    "multipath": ("multipath", "multi-path", "mpath"),
    "lvm": ("lvm", "lvcreate"),
    "raid": ("raid", "mdadm"),
    "dmcrypt": ("dm-crypt", "luks", "cryptsetup"),
    "bcache": ("bcache", "dm-cache"),
    "nvmeof": ("nvme-", "nvmeof", "nvmet"),
    "iscsi": ("iscsi",),
    "virtio": ("virtio",),
    "loop": ("loop", "losetup"),
}

#: (rule, words), in the order a line's facts are recorded: a rule's pattern can
#: match only a line whose lowercased text holds one of its words (or, for a
#: compiled cue, a line where the cue matches the text as written)
_SETUP_RULES = [
    (_scheduler_facts, ("deadline", "none", "bfq", "kyber", "cfq", "noop", "anticipatory")),
    (
        _filesystem_facts,
        ("ext2", "ext3", "ext4", "fs", "fat"),
    ),  # ext4 (not "text"); xfs, btrfs, tmpfs...; vfat
    (
        _mount_option_facts,
        (
            "data=",
            "barrier",
            "noatime",
            "relatime",
            "discard",
            "dax",
            "commit=",
            "logbsize=",
            "journal_async_commit",
            "lock_nolock",
            "lock_dlm",
            "inode64",
            "noquota",
        ),
    ),
    (
        _tunable_facts,
        (
            "low_latency",
            "slice_idle",
            "slice_sync",
            "slice_async",
            "quantum",
            "group_idle",
            "fifo_batch",
            "writes_starved",
            "read_expire",
            "write_expire",
            "back_seek_max",
            "queue_depth",
            "nr_requests",
            "read_ahead_kb",
            "max_sectors_kb",
            "rq_affinity",
            "nomerges",
            "wbt_lat_usec",
            "io_poll",
            "add_random",
            "rotational",
            "iostats",
            "strict_guarantees",
            "async_depth",
            "prio_aging_expire",
            "nr_hw_queues",
            "hctx",
            "dirty_ratio",
            "dirty_background_ratio",
            "vm.dirty_",
            "nr_open",
            "iodepth_batch",
        ),
    ),
    (_echo_tunable_facts, ("echo",)),
    (_module_facts, ("modprobe", "insmod")),
    (_device_facts, _DEVICE_CUE),  # case-sensitive, like _DEVICE_RE
    (_stack_facts, tuple(w for words in _STACK_WORDS.values() for w in words)),
    # a model is "Intel Xeon", "AMD(R) EPYC": "intel" alone is in every "<lkp@intel.com>"
    (
        _cpu_facts,
        (
            "machine:",
            "intel ",
            "intel\t",
            "intel(r)",
            "amd ",
            "amd\t",
            "amd(r)",
            "cpu",
            "core",
            "socket",
            "threads",
            "numa",
        ),
    ),
    (_memory_facts, ("ram", "mem")),
]

#: every word of _SETUP_RULES (the stack groups' words among them), for one pass over a text
_SETUP_WORDS = _WordSet([w for _, words in _SETUP_RULES if isinstance(words, tuple) for w in words])

#: every word of _TOOLS, for one pass over a text, and the tools that each word names
_TOOL_WORD_SET = _WordSet([w for words in _TOOL_WORDS.values() for w in words])
_TOOLS_OF_WORD = {
    w: tuple(name for name, words in _TOOL_WORDS.items() if w in words) for w in _TOOL_WORD_SET.words
}


def find_setup(text: str) -> list[SetupFact]:
    """Setup facts of ``text``, one per (key, value) in order of first mention. Never raises.

    Lines over MAX_LINE characters are trimmed; a rule runs only on the lines
    holding one of its words (``_WordLines``, all words found in one pass), the
    same facts in the same order as running every rule on every line.
    """
    if not isinstance(text, str) or not text:
        return []
    out: dict = {}
    try:
        lines = text.split("\n")
        words = _WordLines(text)
        found = words.word_lines(_SETUP_WORDS)
        wanted = [
            (rule, words.lines_of(found, w) if isinstance(w, tuple) else words.cased_starts(w))
            for rule, w in _SETUP_RULES
        ]
        # a stack fact's value is its group's name: once a group has its fact, its words alone need
        # not send a line to _STACK_RE (a loop device test log names "loop" on every other line);
        # the lines of each group's words are found once a first stack fact is
        stack: list[tuple[tuple[str, str], set[int]]] | None = None
        for i in sorted(set().union(*(at for _, at in wanted))):
            line = lines[i][:MAX_LINE]
            if line.strip():
                for rule, at in wanted:
                    if i not in at:
                        continue
                    if rule is _device_facts:
                        rule(out, i, line, at[i])  # at: where in each line the device cue is first found
                    elif rule is not _stack_facts:
                        rule(out, i, line)
                    elif stack is None:
                        before = len(out)
                        rule(out, i, line)
                        if len(out) > before:
                            stack = [
                                (("stack", group), words.lines_of(found, w))
                                for group, w in _STACK_WORDS.items()
                            ]
                    elif any(i in at_g for key, at_g in stack if key not in out):
                        rule(out, i, line)
    except Exception as exc:  # never let one message stop a run
        log.warning("find_setup failed: %s", exc)
    return list(out.values())


def find_tools(text: str) -> list[str]:
    """Benchmark/measurement tools named in ``text`` (fio, tiobench, dd, iostat, ...), sorted.

    A tool counts when one line (trimmed to MAX_LINE) matches its pattern; only
    the lines holding one of its words (all words found in one pass) are tried.
    """
    if not isinstance(text, str) or not text:
        return []
    found = set()
    try:
        lines = text.split("\n")
        words = _WordLines(text)
        at = words.word_lines(_TOOL_WORD_SET)
        named = {
            name for w in at for name in _TOOLS_OF_WORD[w]
        }  # a tool none of whose words is here has no line
        for name, rx in _TOOL_RES:
            if (name in named or words.twin_lines) and any(
                rx.search(lines[i][:MAX_LINE]) for i in sorted(words.lines_of(at, _TOOL_WORDS[name]))
            ):
                found.add(name)
    except Exception as exc:
        log.warning("find_tools failed: %s", exc)
    return sorted(found)
