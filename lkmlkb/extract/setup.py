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

from lkmlkb.model import Evidence, SetupFact

log = logging.getLogger(__name__)

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
    (?P<nvme>\bnvme\d{1,3}n\d{1,3}(?:p\d{1,3})?\b|\bNVMe\b(?:[ \t]{1,2}SSDs?)?|\bPCIe\d?(?:\.\d)?[ \t]{1,2}(?:NVMe[ \t]{1,2})?SSDs?\b)
                                               # "nvme3n1", "NVMe SSD", "PCIe3 SSD"
    | (?P<sata>\bSATA\b(?:[ \t]{1,2}(?:drive|disk|SSD|HDD)s?)?)      # "plain SATA drive"
    | (?P<sas>\bSAS\b[ \t]{1,2}(?:drive|disk|SSD|HDD)s?)
    | (?P<hdd>\b\d{0,3}HDDs?\b|\bhard[ \t]disks?\b|\brotational[ \t]disks?\b)   # LKP "disk: 1HDD"
    | (?P<ssd>\b\d{0,3}SSDs?\b)
    | (?P<dm>\bdm-\d{1,3}\b)                    # "dm-1" (000)
    | (?P<scsi_debug>\bscsi_debug\b)
    | (?P<null_blk>\bnull_blk\b|\bnullb\d{1,3}\b)
    | (?P<ram>\bbrd\b|\bram\d{1,3}\b|\bzram\d{0,3}\b|\bpmem\d{1,3}\b)
    | (?P<sd>(?<![\w/])(?:/dev/)?sd[a-z]{1,2}\d{0,2}\b(?=:|[ \t]|$))    # "sdad:" (000)
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
    r"""\b(?P<mem>\d{1,6}(?:\.\d{1,2})?[ \t]?(?:[GMT]i?B|[GT]))[ \t]{1,2}(?:of[ \t])?(?:RAM|memory|DRAM|mem)\b"""
    # "2 GB RAM" (002), "256G memory" (LKP)
    , re.IGNORECASE,
)
_TOOLS = [
    # (tool, pattern) — each names the real text that needs it
    ("fio", r"\bfio\b(?![\-_.]\w)|\bfio-\d|\bfio\.\w"),      # "fio --name=", "fio-3.19", LKP "fio.write_iops"
    ("tiobench", r"\btiobench\b|\btiotest\b"),                # 002 "tiobench sequential write"
    ("dd", r"(?<![\w\-/])dd[ \t]{1,3}(?:if|of|bs|count)=|\bdd\b[ \t]{1,2}(?:command|test|run)"),  # 004 "dd if=/dev/$DISK"
    ("iostat", r"\biostat\b"),                                # 004 "iostat -yxm"
    ("fs_mark", r"\bfs_mark\b|\bfsmark\b"),
    ("dbench", r"\bdbench\b"),
    ("lkp", r"kernel[ \t]test[ \t]robot|\blkp-tests?\b|\blkp\b"),
    ("mmtests", r"\bmmtests\b"),
    ("sysbench", r"\bsysbench\b"),
    ("iozone", r"\biozone\b"),
    ("bonnie++", r"\bbonnie\+\+|\bbonnie\b"),
    ("blktests", r"\bblktests\b"),
    ("fstests", r"\bxfstests\b|\bfstests\b"),
    ("filebench", r"\bfilebench\b"),
    ("vdbench", r"\bvdbench\b"),
    ("pgbench", r"\bpgbench\b"),
    ("hdparm", r"\bhdparm[ \t]{1,3}-[tT]"),
    ("perf", r"\bperf[ \t]{1,3}(?:record|top|stat|report|trace|lock|sched)\b"),
    ("blktrace", r"\bblktrace\b|\bblkparse\b|\bbtt\b"),
    ("bpftrace", r"\bbpftrace\b|\bbiolatency\b|\bbiosnoop\b"),
    ("t/io_uring", r"\bt/io_uring\b"),
    ("stress-ng", r"\bstress-ng\b"),
]
_TOOL_RES = [(name, re.compile(p, re.IGNORECASE if name != "dd" else 0)) for name, p in _TOOLS]
#: tools that produce the numbers of a table (monitors like iostat and perf, and test harnesses, do not)
_BENCHMARKS = ("fio", "tiobench", "dd", "fs_mark", "dbench", "sysbench", "iozone", "bonnie++", "filebench",
               "vdbench", "pgbench", "stress-ng", "t/io_uring", "mmtests")


def main_benchmark(text: str) -> str | None:
    """The benchmark a text names most often, for tables that do not say which tool made them.

    Seed 002's tiobench tables sit in a thread that also mentions fio once
    ("throw a fio job file over the fence"): the count decides.
    """
    counts = {}
    for name, rx in _TOOL_RES:
        if name in _BENCHMARKS:
            n = sum(1 for _ in zip(rx.finditer(text[:1_000_000]), range(1000), strict=False))
            if n:
                counts[name] = n
    return max(counts, key=lambda k: (counts[k], -_BENCHMARKS.index(k))) if counts else None


def _lines(text: str):
    """(line number, trimmed line) for each line of ``text``."""
    for i, line in enumerate(text.split("\n")):
        yield i, line[:MAX_LINE]


def _add(out: dict, key: str, value: str, i: int, line: str) -> None:
    value = re.sub(r"\s{2,}", " ", value.strip())
    if value and (key, value.lower()) not in out:
        out[(key, value.lower())] = SetupFact(key, value, Evidence(line_start=i, line_end=i, text=line.strip()[:500]))


def _scan_line(out: dict, i: int, line: str) -> None:
    """All setup facts of one line."""
    for m in _SCHED_RE.finditer(line):
        v = next(g for g in m.groups() if g)
        _add(out, "scheduler", v.lower(), i, line)
    for m in _FS_RE.finditer(line):
        _add(out, "filesystem", m.group("fs").lower(), i, line)
    for m in _MOUNT_OPT_RE.finditer(line):
        _add(out, "mount_options", m.group("opt"), i, line)
    for m in _TUNABLE_RE.finditer(line):
        if m.group("v") and m.group("v").rstrip(".-"):
            _add(out, "tunable", m.group("k") + "=" + m.group("v").rstrip(".-"), i, line)
    for m in _ECHO_TUNABLE_RE.finditer(line):
        if m.group("k") != "scheduler":
            _add(out, "tunable", f"{m.group('k')}={m.group('v')}", i, line)
    for m in _MODULE_RE.finditer(line):
        _add(out, "device", (m.group("mod") + m.group("params")).strip(), i, line)
    for m in _DEVICE_RE.finditer(line):
        _add(out, "device", m.group(0), i, line)
    for m in _STACK_RE.finditer(line):
        _add(out, "stack", m.lastgroup, i, line)
    for m in _CPU_RE.finditer(line):
        if m.group("lkp"):
            _add(out, "cpu", m.group("lkpcpu"), i, line)
            if m.group("lkpmem"):
                _add(out, "memory", m.group("lkpmem"), i, line)
        else:
            _add(out, "cpu", m.group(0), i, line)
    for m in _MEM_RE.finditer(line):
        _add(out, "memory", m.group("mem"), i, line)


def find_setup(text: str) -> list[SetupFact]:
    """Setup facts of ``text``, one per (key, value) in order of first mention. Never raises."""
    if not isinstance(text, str) or not text:
        return []
    out: dict = {}
    try:
        for i, line in _lines(text):
            if line.strip():
                _scan_line(out, i, line)
    except Exception as exc:  # never let one message stop a run
        log.warning("find_setup failed: %s", exc)
    return list(out.values())


def find_tools(text: str) -> list[str]:
    """Benchmark/measurement tools named in ``text`` (fio, tiobench, dd, iostat, ...), sorted."""
    if not isinstance(text, str) or not text:
        return []
    found = set()
    try:
        for _, line in _lines(text):
            for name, rx in _TOOL_RES:
                if name not in found and rx.search(line):
                    found.add(name)
    except Exception as exc:
        log.warning("find_tools failed: %s", exc)
    return sorted(found)
