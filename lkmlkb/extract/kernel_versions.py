"""Linux kernel version strings: finding them in mail, normalizing, ordering.

Real mail writes kernel versions in many shapes: ``2.6.32-rc5``, ``v5.12-rc7``,
``6.8-rc7+ Revert``, ``5.15.y``, ``4.19.x``, ``5.4.190``, ``6.1.0-13-amd64``,
``next-20251219``, ``6.19.0-rc1-next-20251219``, ``6.8.0-rc3-00012-gabcdef``,
``5.14.0-362.el9``.  It also holds many numbers that look like versions and
are not kernels: ``3.10GHz``, ``2.6%``, ``2.0 GiB``, ``fio-3.19``,
``Python 3.11``, IP addresses, dates, table values such as ``38.606667``.

A token with unmistakable kernel shape (``-rcN``, ``.y``/``.x``, three parts
with a plausible series, a ``v``/``linux`` prefix, a ``next-`` date) is taken
on its own.  A bare ``6.6`` needs context: a word such as "kernel", "on",
"vs", "compared", "since" right before it, or a weaker word ("in", "to",
"for", ...) with a kernel-ish neighbourhood.

Normalized form: lower case, ``v``/``linux-`` prefix and the ``+``/``+ Revert``
qualifier removed, everything else kept as written (``4.19.x`` stays
``4.19.x``, ``6.1.0-13-amd64`` stays whole) so it can be found again in the
text.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

from lkmlkb.extract import has_case_twin as _has_case_twin
from lkmlkb.extract.lines import lines_holding

log = logging.getLogger(__name__)

#: lines longer than this are trimmed before scanning (binary junk, base64)
MAX_LINE = 4000

#: highest plausible minor number per major for a two-part version ("6.6")
_MAX_MINOR = {2: 6, 3: 19, 4: 20, 5: 19, 6: 40, 7: 40}
#: highest plausible third part: 2.6.39 for 2.x, stable point releases above
_MAX_THIRD = {2: 40, 3: 400, 4: 400, 5: 400, 6: 400, 7: 400}

#: sort position of a ``.y``/``.x`` stable series: after every point release
_SERIES_STABLE = 10**6

#: how the local part of a release opens: a build number ("6.1.0-13-amd64", "5.14.0-362.el9",
#: "6.8.0-rc3-00012-gabcdef"), a patch set's snapshot ("2.6.12-rc2-mm3", "2.6.11-bk7") or a
#: distribution's or a patch set's build ("6.6.7-arch1-1", "6.9.1-zen1-1-zen",
#: "6.7.5-x64v3-xanmod1", "6.1.0-rpi7-rpi-v8", "6.6.13-gentoo-dist")
_LOCAL_LEAD = (
    r"(?:\d|(?:mm|bk|git|rt|ck|mjb)\d|(?:arch|zen|hardened|rpi|x64v|lqx|xanmod)\d|gentoo\b|cachyos\b)"
)
_VERSION_RE = re.compile(
    r"""
    (?<![\w.\-/=+@$#%\\])          # not glued to a word, path, option value: fio-3.19, bw=2.5
    (?P<prefix>
        (?:linux|kernel)[-_]       # "linux-6.8", "kernel-5.14"
      | v(?=\d)                    # "v5.12-rc7", "V6.5-rc1."
    )?
    (?:
        (?P<nextonly>next-(?P<ndate>20\d{6}))          # "next-20251219" (linux-next tag)
      |
        (?P<major>\d)\.(?P<minor>\d{1,2})
        (?:\.(?P<third>\d{1,3}|[xy]))?                 # "5.4.190", "5.15.y", "4.19.x", "2.6.32"
        (?:\.(?P<fourth>\d{1,3}|[xy]))?                # "2.6.32.5", "2.6.32.y"
        (?:-rc(?P<rc>\d{1,2}))?                        # "2.6.32-rc5", "v6.8-rc7"
        (?:-next-(?P<date>20\d{6}))?                   # "6.19.0-rc1-next-20251219"
        (?P<local>                                     # "6.1.0-13-amd64", "5.14.0-362.el9",
            -LOCAL_LEAD                                #   "6.8.0-rc3-00012-gabcdef", "2.6.11-bk7",
            [A-Za-z0-9_.~]{0,60}                       #   "6.6.7-arch1-1" (see _LOCAL_LEAD)
            (?:-[A-Za-z0-9_~][A-Za-z0-9_.~]{0,60}){0,5}
        )?
    )
    (?P<qual>
        \ {0,2}\+\ {0,2}(?:[Rr]evert(?:ed)?|REVERT|[Pp]atch(?:ed|es)?|[Ff]ix(?:ed|es)?)\b
                                                       # "6.8-rc7+ Revert", "6.8-rc7 + revert"
      | \+(?![\w.])                                    # "6.8.0-rc3+" (locally modified tree)
    )?
    (?![\w]|\.\d|\.[A-Za-z]\w)      # not "3.10GHz", not an IP "10.1.2.3", not "1.2.foo"
    """.replace("LOCAL_LEAD", _LOCAL_LEAD),
    re.VERBOSE | re.IGNORECASE,
)

#: words that, written right before a bare number, say it is a kernel
_STRONG_BEFORE = frozenset(
    [
        "kernel",
        "kernels",
        "linux",
        "mainline",
        "upstream",
        "stable",
        "lts",
        "on",
        "vs",
        "vs.",
        "versus",
        "compared",
        "compare",
        "compareto",
        "since",
        "between",
        "release",
        "released",
        "tree",
        "v",
    ]
)
#: words that make a bare number a kernel only with a kernel-ish neighbourhood
_WEAK_BEFORE = frozenset(
    [
        "in",
        "to",
        "from",
        "and",
        "with",
        "than",
        "for",
        "against",
        "before",
        "after",
        "until",
        "till",
        "or",
        "at",
        "of",
        "into",
        "back",
    ]
)
#: "compared to", "relative to", "as opposed to" right before a bare number: a comparison, as "vs"
_COMPARED_TO_RE = re.compile(
    r"\b(?:compared|relative|opposed|comparison)[ \t]{1,3}(?:to|with)[ \t]{1,3}$", re.I
)
#: a verdict on the release a bare number is, right after it: "6.7 is fine", "6.8 is much slower",
#: "5.15 works", "6.1 regressed" (what mail says of a kernel tried, not of a ratio or a size)
_VERDICT_AFTER_RE = re.compile(
    r"[ \t]{1,3}(?:(?:is|was|seems|looks|works|worked|runs|ran)(?:[ \t]{1,3}(?:still|much|also|perfectly|just|really))?"
    r"[ \t]{1,3}(?:fine|good|ok|okay|bad|slow|slower|fast|faster|broken|affected|unaffected)\b"
    r"|works\b|worked\b|regressed\b|is[ \t]{1,3}not[ \t]{1,3}affected\b)",
    re.IGNORECASE,
)
#: words after which a bare number opens a clause of its own ("..., and 6.8 regressed")
_CLAUSE_OPENERS = frozenset(("and", "but", "while", "whereas", "on", "with", "in", "then", "now"))


def _opens_a_clause(line: str, start: int, before: str) -> bool:
    """Whether the number at ``start`` opens a clause: at the line's start, after punctuation, or
    after a word that opens one (not "the ratio 2.5 is fine", "a load of 3.5 is bad")."""
    prev = line[:start].rstrip()
    return not prev or prev[-1] in ",;:(-" or before in _CLAUSE_OPENERS


#: a release named as one before a comparison's other side ("on 6.5", "kernel 6.5", "v6.5")
_RELEASE_NAMED_RE = re.compile(r"\b(?:on|kernel|linux|v)[ \t]{0,2}v?[2-7]\.\d{1,2}\b", re.I)
#: software whose version numbers are not kernels: "fio 3.33", "Python 3.11", "gcc 4.8.5"
_OTHER_SOFTWARE = frozenset(
    [
        "fio",
        "gcc",
        "clang",
        "llvm",
        "python",
        "python3",
        "perl",
        "bash",
        "glibc",
        "qemu",
        "rust",
        "rustc",
        "go",
        "golang",
        "java",
        "openssl",
        "systemd",
        "mdadm",
        "lvm",
        "lvm2",
        "nvme-cli",
        "e2fsprogs",
        "xfsprogs",
        "btrfs-progs",
        "util-linux",
        "iproute2",
        "binutils",
        "gdb",
        "sata",
        "pcie",
        "pci",
        "usb",
        "nvme",
        "nfs",
        "nfsv",
        "smb",
        "cifs",
        "tls",
        "http",
        "ubuntu",
        "debian",
        "fedora",
        "centos",
        "rhel",
        "sles",
        "opensuse",
        "ssl",
        "ata",
        "sas",
        "scsi",
        "ddr",
        "ddr4",
        "ddr5",
        "version",
        "libaio",
        "liburing",
        "mysql",
        "postgres",
        "postgresql",
        "sysbench",
        "dbench",
        "iozone",
        "tiobench",
        "fs_mark",
        "ext",
        "docker",
        "podman",
        "kvm",
        "xen",
        "ceph",
        "spdk",
        "dpdk",
        "virtio",
        "firmware",
        "fw",
        "bios",
        "uefi",
        "zfs",
        "openzfs",
        "numpy",
        "spacy",
    ]
)
#: units that follow a measured number: "2.0 GiB", "1.5 Gbps", "3.0 GB/s"
_UNIT_AFTER_RE = re.compile(
    r"""
    \s{0,2}(?:
        %                                      # "2.6 %"
      | [KMGTP]i?B\b | [KMGTP]i?B/s            # "2.0 GiB", "3.1 GB/s"
      | [KMGT]?bps\b | [KMGT]?b/s              # "1.5 Gbps"
      | [KMG]?Hz\b                             # "3.10 GHz"
      | (?:m|u|n)?s(?:ec(?:s|onds?)?)?\b       # "2.5 s", "1.2 msec"
      | seconds?\b | minutes?\b | hours?\b | days?\b | times\b | percent\b
      | [xX]\b | IOPS\b | iops\b | W\b | V\b | C\b | ms\b | us\b | ns\b
    )
    """,
    re.VERBOSE,
)
_WORD_BEFORE_RE = re.compile(r"([A-Za-z][\w.\-]{0,30})[\s(\[:,]{0,3}$")
_KERNELISH_RE = re.compile(
    r"""
    \bkernels?\b | \blinux\b | \bregress | \bcommit\b | \bbisect
    | \b(?:up|down)grad\w{0,4}[ ]{1,3}from[ ]{1,3}(?:v?\d\.\d{1,2}\S{0,20}[ ]{1,3})?[ ]{0,3}to\b
                                                     # "upgrading from 6.6 to 6.7" (each read without itself)
    | \b(?:up|down)grad\w{0,4}[ ]{1,3}to[ ]{1,3}(?:v?\d\.\d{1,2}\S{0,20}[ ]{1,3})?[ ]{0,3}from\b
                                                     # the other way round: "upgraded to 6.6 from 6.1"
    | \d\.\d{1,2}-rc\d | \b[2-7]\.\d{1,2}\.[xy]\b     # "6.8-rc7", "5.15.y" nearby
    """,
    re.VERBOSE | re.IGNORECASE,
)
#: two versions written as a move from one to the other: "between 2.6.29 and 2.6.30", "from
#: 4.19.x to 5.4.x" (the head before the first, the gap between them)
_BETWEEN_HEAD_RE = re.compile(
    r"between\s{1,3}(?:(?:kernels?|versions?|releases?|linux|v)\s{1,3})?$", re.IGNORECASE
)
_BETWEEN_GAP_RE = re.compile(r"\s{1,3}(?:and|&)\s{1,3}(?:v|linux[- ])?$", re.IGNORECASE)
_FROM_HEAD_RE = re.compile(r"\bfrom\s{1,3}(?:(?:kernels?|linux|versions?)\s{1,3})?$", re.IGNORECASE)
TO_GAP_RE = re.compile(r"\s{1,3}(?:to|->|=>)\s{1,3}(?:(?:kernels?|linux)\s{1,3})?$", re.IGNORECASE)
#: the move written the other way round: "after upgrading to linux-5.9 from linux-5.8"
_MOVE_TO_HEAD_RE = re.compile(
    r"\b(?:upgrad\w{0,4}|updat\w{0,4}|mov\w{0,4}|switch\w{0,4}|migrat\w{0,4}|went|go\w{0,3}|jump\w{0,4})"
    r"\s{1,3}to\s{1,3}(?:(?:kernels?|linux|versions?)\s{1,3})?$",
    re.IGNORECASE,
)
_FROM_GAP_RE = re.compile(r"\s{1,3}from\s{1,3}(?:(?:kernels?|linux)\s{1,3})?$", re.IGNORECASE)


def kernel_move(head: str, gap: str) -> int:
    """Whether two versions, ``head`` the text before the first and ``gap`` the text between
    them, are written as a move: 1 from the first to the second ("from A to B", "between A and
    B"), -1 from the second to the first ("upgrading to B from A"), 0 not."""
    if (_BETWEEN_HEAD_RE.search(head) and _BETWEEN_GAP_RE.search(gap)) or (
        _FROM_HEAD_RE.search(head) and TO_GAP_RE.search(gap)
    ):
        return 1
    if _MOVE_TO_HEAD_RE.search(head) and _FROM_GAP_RE.search(gap):
        return -1
    return 0


#: what follows the running kernel's release where the kernel prints it: `uname -a` and
#: /proc/version ("Linux fedora 6.7.4-200.fc39.x86_64 #1 SMP PREEMPT_DYNAMIC ...") and the boot
#: banner ("Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org) (gcc-12 ...) #1 SMP"):
#: the word before it is a host name or "version", never software of its own
_RUNNING_TAIL_RE = re.compile(
    r"[ \t]{1,3}(?:\#\d{1,6}[ \t]{1,3}(?:SMP|PREEMPT)\b|\([\w.+-]{1,64}@[\w.-]{1,100}\)[ \t]{1,3}\()"
)
#: a distro release glued to its name, then the kernel: "RHEL9 5.14", "el8 4.18"
_DISTRO_RELEASE_RE = re.compile(r"(?:rhel|el|centos|ol|sles|uek)\d{1,2}")
_LINE_LABEL_AFTER_RE = re.compile(
    r"""\s{0,3}(?::|(?:result|results|kernel)\b)
      | -(?:base(?:line)?|revert(?:ed)?|patch(?:ed)?|fix(?:ed|up)?|vanilla|stock|orig(?:inal)?)  # "6.1-base:",
        (?:-[a-z]{2,12}){0,3}[ \t]{0,3}:                                                        # "6.1-base-fixup:"
    """,
    re.IGNORECASE | re.VERBOSE,
)
_QUAL_WORD_RE = re.compile(r"(revert|patch|fix)", re.IGNORECASE)
#: the end of a label line after its kernel: a colon and nothing after it on the line ("With 6.7:")
LABEL_LINE_END = re.compile(r"[ \t]{0,3}:[ \t]*$", re.M)


def _in_release_ranges(major: int, minor: int, third: str | None) -> bool:
    """Whether a release's numbers fall in the ranges real kernels used."""
    if major not in _MAX_MINOR or minor > _MAX_MINOR[major]:
        return False
    return not (third and third.isdigit() and int(third) > _MAX_THIRD[major])


def _plausible_numbers(m: re.Match) -> bool:
    """True when major/minor/third parts fall in ranges real kernels used."""
    major = int(m.group("major"))
    if not _in_release_ranges(major, int(m.group("minor")), m.group("third")):
        return False
    if m.group("fourth") and major != 2:
        return False  # only 2.6.x.y had four parts; "6.1.2.3" is an IP or a build id
    if len(m.group("minor")) == 2 and m.group("minor").startswith("0"):
        return False  # "2.05" is a decimal, not a kernel
    return True


def plausible_release(version: str) -> bool:
    """Whether a normalized version's numbers fall in the ranges real kernels used ("6.1",
    "5.10.24"; not "0.5", "9.1", "2.0" as a column of factors or other software writes them)."""
    m = re.match(r"(\d)\.(\d{1,2})(?:\.(\d{1,3}))?", version)
    if m is None:
        return version.startswith("next-")
    return _in_release_ranges(int(m[1]), int(m[2]), m[3])


#: the NFS protocol's own versions ("the v4.2 client", "NFS v4.2 on 6.1 and v4.1 on 5.15"): on a
#: line about NFS a "4.0", "4.1", "4.2" or "3.0" of two parts is the protocol's, not the 2015 kernels'
_NFS_PROTOCOL_VERSIONS = frozenset(("3.0", "4.0", "4.1", "4.2"))
_NFS_WORD_RE = re.compile(r"\bp?nfs(?:v\d|d)?\b|\bminorversion\b|\bvers=", re.IGNORECASE)


def _nfs_protocol(line: str, m: re.Match) -> bool:
    """Whether the version ``m`` matched is an NFS protocol version: two parts, one of
    :data:`_NFS_PROTOCOL_VERSIONS`, on a line that speaks of NFS."""
    if m.group("third") or m.group("rc") or m.group("local") or m.group("nextonly") or m.group("date"):
        return False
    if f"{m.group('major')}.{m.group('minor')}" not in _NFS_PROTOCOL_VERSIONS:
        return False
    return _NFS_WORD_RE.search(line, max(0, m.start() - 200), m.end() + 200) is not None


def _strong_shape(m: re.Match) -> bool:
    """Shapes only kernels have: -rcN, .y/.x, three parts, v/linux prefix, next-."""
    if m.group("nextonly") or m.group("rc") or m.group("date") or m.group("local"):
        return True
    if m.group("prefix"):
        return True
    third = m.group("third")
    if third in ("x", "y"):
        return True
    if third is not None:
        return True
    return False


def _word_before(line: str, start: int) -> str:
    """The word written just before ``start`` on the same line, lower case."""
    wm = _WORD_BEFORE_RE.search(line[max(0, start - 40) : start])
    return wm.group(1).lower().rstrip(".-") if wm else ""


#: a file command whose argument a "linux-5.10" after it on its line is: a kernel's source tree
#: unpacked, copied or removed as a benchmark's files ("$ time rm -rf linux-5.10", linux-ext4
#: 2020-12), or a diff's file header naming its tree; not a kernel that ran
_SOURCE_TREE_RE = re.compile(
    r"(?:^|[\s$#;&|(])(?:rm|cp|mv|cd|tar|du|ls|find|rsync|untar|unxz|xz|make[ \t]{1,3}-C)[ \t][^\n]{0,60}$"
    # a diff's file header: "--- linux-2.6.orig/drivers/md/dm-writecache.c"
    r"|^(?:---|\+\+\+|diff[ \t][^\n]{0,40})[ \t]{1,3}$"
)


def _accept(line: str, m: re.Match) -> bool:
    """Decide whether a version-shaped match in ``line`` is a kernel version.

    Tolerates any line; rejects other software's versions ("fio 3.33",
    "Python 3.11", "GCC 4.8.5"), measurements ("2.0 GiB", "1.5 Gbps") and bare
    decimals without kernel context.
    """
    if m.group("nextonly"):
        return True
    if not _plausible_numbers(m):
        return False
    before = _word_before(line, m.start())
    if _DISTRO_RELEASE_RE.fullmatch(before):
        return True
    if (m.group("third") or m.group("local") or m.group("rc")) and _RUNNING_TAIL_RE.match(line, _raw_end(m)):
        return True  # what `uname -a` and the boot banner print: whatever word comes before
    if before in _OTHER_SOFTWARE or before.rstrip("0123456789") in _OTHER_SOFTWARE:
        return False
    if not m.group("prefix") and _UNIT_AFTER_RE.match(line, m.end()):
        return False
    if m.group(0)[:6].lower() == "linux-" and _SOURCE_TREE_RE.search(line, 0, m.start()):
        return False
    if _nfs_protocol(line, m):
        return False
    if _strong_shape(m):
        return True
    # a bare two-part number ("6.6"): needs context
    if before in _STRONG_BEFORE:
        return True
    if (
        before in ("to", "with")
        and _COMPARED_TO_RE.search(line, max(0, m.start() - 40), m.start())
        and _RELEASE_NAMED_RE.search(line, max(0, m.start() - 200), m.start())
    ):
        return True  # "20% lower IOPS on 6.5 compared to 6.4": a release compared with a release
    if not line[: m.start()].strip() and _LINE_LABEL_AFTER_RE.match(line, m.end()):
        return True  # table label at line start: "6.6:" / "6.6 result"
    if (
        before in _WEAK_BEFORE
        and line[: m.start()].strip().lower() == before
        and LABEL_LINE_END.match(line, m.end())
    ):
        return True  # a label line of its own: "With 6.7:", "On 6.8:", "Before 6.3:"
    if _VERDICT_AFTER_RE.match(line, m.end()) and _opens_a_clause(line, m.start(), before):
        return True  # a release judged as a kernel is: "6.7 is fine", "6.8 regressed"
    if before in _WEAK_BEFORE:
        lo, hi = max(0, m.start() - 200), min(len(line), m.end() + 200)
        return bool(_KERNELISH_RE.search(line[lo : m.start()] + " " + line[m.end() : hi]))
    return False


#: what every match of _VERSION_RE spells: "6.8" (a digit, a dot, a digit: its major and minor; the
#: major is one digit after a prefix or a character its lookbehind allows, never after a digit) or
#: "next-" (any case) of a linux-next tag; lines without it are skipped, most of a fio output's lines
#: with figures among them ("issued rwts: total=0,1048576,0,0") and an LKP table's rows of
#: many-digit figures ("123.12 ±  5%"); \d as in _VERSION_RE.  It opens with the class of the
#: character it is sure to hold, the "." or the "-", so ``re`` skips every other character without
#: trying the pattern there (under re.I no such skip is made, nor after a leading lookbehind), and
#: reads the rest behind it (each case of "next-" spelled out).  It holds a match where
#: ``(?<!\d)\d\.\d|next-`` under re.I does, one or four characters in: the same lines, found
#: faster than by opening with the digit or the "n" (mail is full of both)
_VERSION_CUE_RE = re.compile(r"[.\-](?:(?<!\d\d\.)(?<=\d\.)\d|(?<=[nN][eE][xX][tT]-))")


def _raw_end(m: re.Match) -> int:
    """End of the match without trailing dots of a local version ("-362.el9.")."""
    end = m.end()
    if not m.group("qual") and m.group("local"):
        while end > m.start() and m.string[end - 1] == ".":
            end -= 1
    return end


def find_versions(text: str) -> list[tuple[int, int, str, str]]:
    """All kernel versions in ``text`` as (char start, char end, raw, normalized).

    ``raw`` is the text as written including a ``v``/``linux`` prefix and a
    ``+ Revert`` qualifier; ``normalized`` drops both.  Never raises; NULs,
    huge lines and non-text are tolerated (long lines are scanned only up to
    MAX_LINE characters).
    """
    if not isinstance(text, str) or not text:
        return []
    read, found = _LAST_VERSIONS[0]
    if read is text:  # the kernels and results extractors both read a message's view
        return list(found)
    found = _find_versions(text)
    _LAST_VERSIONS[0] = (text, found)
    return list(found)


#: [(the text last read, its versions)]: one pair, replaced whole, so that an extraction stopped
#: half way (the budget's hard stop) cannot leave a text with another's versions
_LAST_VERSIONS: list[tuple[str | None, list[tuple[int, int, str, str]]]] = [(None, [])]


def _find_versions(text: str) -> list[tuple[int, int, str, str]]:
    """:func:`find_versions` of a non-empty text, read afresh."""
    out: list[tuple[int, int, str, str]] = []
    # the lines holding the cue, found in the whole text (most lines hold none: the blank lines
    # of a focused dmesg view are not split off one by one), each tested as cut to MAX_LINE
    for offset, line in lines_holding(text, _VERSION_CUE_RE, MAX_LINE):
        for m in _VERSION_RE.finditer(line):
            try:
                if not _accept(line, m):
                    continue
            except (ValueError, TypeError):  # pragma: no cover - defensive
                continue
            end = _raw_end(m)
            raw = line[m.start() : end]
            norm = normalize_version(raw)
            if norm:
                out.append((offset + m.start(), offset + end, raw, norm))
    return out


#: what the text at a version match's start, lower-cased, begins with when it is not a digit: the
#: ``v``, ``next-``, ``linux``/``kernel`` of _VERSION_RE (the Kelvin sign lower-cases to "k";
#: the case twins of "i" do not, see ``opens_with_version``)
_VERSION_STARTS = ("v", "next-", "linux", "kernel")


def opens_with_version(text: str, leads: tuple[str, ...]) -> bool:
    """False when the first version ``find_versions(text)`` gives cannot have only one of
    ``leads`` (lower case; ``""`` for none) before it, as the callers read a lead:
    ``text[:start].strip().lower().rstrip(":")``.

    A cheap test run before ``find_versions`` by the callers that keep a version only
    under that condition (a heading "6.8-rc7: ...", "on 6.8-rc7 : 3571").  Such a lead
    begins ``text.lstrip().lower()``: ``lower`` maps character by character (but for a
    Greek capital sigma, which no ASCII lead holds), so the lower-cased text begins with
    the lower-cased lead.  With the empty lead the text is colons and spaces up to the
    version, which begins with a digit, or with "v", "next-", "linux" or "kernel" in any
    case.  A text holding a character ``re.IGNORECASE`` takes for an ASCII letter that
    ``lower()`` does not turn into it ("\u0131" for the "i" of "linux") is let through.
    """
    t = text.lstrip().lower()
    if not t:
        return False
    words, bare = _lead_words(leads)
    if t.startswith(words):
        return True
    return bare and (
        t[0] == ":"
        or t[0].isdecimal()
        or t.startswith(_VERSION_STARTS)
        or (not text.isascii() and _has_case_twin(text))
    )


@lru_cache(maxsize=16)
def _lead_words(leads: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """The non-empty ``leads``, and whether the empty one is among them."""
    return tuple(lead for lead in leads if lead), "" in leads


_NORM_RE = re.compile(
    r"""
    ^\s{0,4}
    (?:(?:linux|kernel)[-_ ]?|v(?=\d))?        # "Linux 6.8", "v5.12-rc7"
    (?P<body>
        next-20\d{6}                           # "next-20251219"
      | \d\.\d{1,2}(?:\.(?:\d{1,3}|[xy])){0,2}
        (?:-rc\d{1,2})?
        (?:-next-20\d{6})?
        (?:-LOCAL_LEAD[a-z0-9_.~]{0,60}(?:-[a-z0-9_~][a-z0-9_.~]{0,60}){0,5})?
    )
    (?P<qual>\s{0,2}\+.{0,20})?                # "+ Revert", "+"
    \s{0,4}$
    """.replace("LOCAL_LEAD", _LOCAL_LEAD),
    re.VERBOSE | re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def normalize_version(raw: str) -> str | None:
    """Normalized kernel version for ``raw`` or None when it is not one.

    ``"v5.12-rc7"`` -> ``"5.12-rc7"``, ``"6.8-rc7+ Revert"`` -> ``"6.8-rc7"``,
    ``"Linux 6.8"`` -> ``"6.8"``, ``"4.19.x"`` -> ``"4.19.x"`` (kept), ``"5.11.0-rc5+"`` ->
    ``"5.11.0-rc5+"`` (a locally modified build, as ``uname -r`` writes it),
    ``"LTS"`` -> None.  Trailing punctuation (``"6.1.36."``) is dropped.
    """
    if not isinstance(raw, str) or len(raw) > 200:
        return None
    s = raw.strip().rstrip(".,;:)")
    m = _NORM_RE.match(s)
    if not m:
        return None
    body = m.group("body").lower().rstrip(".")
    if (m.group("qual") or "").strip() == "+" and body[:1].isdigit():
        return body + "+"  # "5.11.0-rc5+": `uname -r` of a tree built with local changes, as written
    return body


def qualifier(raw: str) -> str | None:
    """The qualifier written after a version: ``"+revert"``, ``"+patch"``, ``"+"``.

    ``"6.8-rc7+ Revert"`` -> ``"+revert"``, ``"6.8-rc7 + revert"`` ->
    ``"+revert"``, ``"6.8.0-rc3+"`` -> ``"+"``, ``"6.8-rc7"`` -> None.
    """
    if not isinstance(raw, str) or len(raw) > 200:
        return None
    m = _NORM_RE.match(raw.strip().rstrip(".,;:)"))
    if not m or not m.group("qual"):
        return None
    word = _QUAL_WORD_RE.search(m.group("qual"))
    return "+" + word.group(1).lower() if word else "+"


_PARSE_RE = re.compile(
    r"""
    ^(?:
        next-(?P<ndate>20\d{6})
      | (?P<nums>\d{1,2}(?:\.\d{1,3}){0,3})(?:\.(?P<series>[xy]))?
        (?:-rc(?P<rc>\d{1,2}))?
        (?:-next-(?P<date>20\d{6}))?
        (?P<local>-.{0,200})?
    )$
    """,
    re.VERBOSE,
)


def _parse(version: str):
    """Match a normalized version (or raw: it is normalized first); a local build's "+" sorts
    with its release."""
    norm = normalize_version(version) if isinstance(version, str) else None
    if norm is None:
        return None, version if isinstance(version, str) else ""
    return _PARSE_RE.match(norm.rstrip("+")), norm


@lru_cache(maxsize=8192)
def sort_key(version: str) -> tuple:
    """A key that orders kernel versions as releases happened.

    2.6.32-rc5 < 2.6.32 < 2.6.32.5 < 2.6.33; 6.8-rc7 < 6.8 < 6.8.1-rc1 < 6.8.1 <
    6.8.y (a stable series sorts after every point release of it);
    6.19-rc1 < 6.19.0-rc1-next-20251219 < 6.19-rc2; bare ``next-YYYYMMDD``
    tags sort after all numbered versions, by date.  Anything that is not a
    version sorts last, by its text.  The key holds only ints and one final
    string, so any two keys compare.
    """
    m, norm = _parse(version)
    if m is None:
        return (9, 0, 0, 0, 0, 0, 0, 0, (), str(norm))
    if m.group("ndate"):
        return (1, int(m.group("ndate")), 0, 0, 0, 0, 0, 0, (), "")
    nums = [int(x) for x in m.group("nums").split(".")]
    major = nums[0]
    release_len = 3 if major == 2 else 2
    release = (nums + [0, 0, 0])[:3] if major == 2 else (nums[:2] + [0, 0])[:2] + [0]
    rest = nums[release_len:]
    if m.group("series"):
        stable = _SERIES_STABLE
    else:
        stable = rest[0] if rest else 0
    rc = m.group("rc")
    phase, rcnum = (0, int(rc)) if rc else (1, 0)
    date = int(m.group("date")) if m.group("date") else 0
    local = m.group("local") or ""
    local_nums = tuple(int(x) for x in re.findall(r"\d{1,9}", re.sub(r"-g[0-9a-f]{6,40}", "", local))[:8])
    # the stable point before the rc phase: 6.1-rc2 < 6.1 < 6.1.40-rc2 < 6.1.40
    return (0, release[0], release[1], release[2], stable, phase, rcnum, date, local_nums, local)


def compare(a: str, b: str) -> int:
    """-1, 0 or 1 as kernel ``a`` is older than, the same as, or newer than ``b``."""
    ka, kb = sort_key(a), sort_key(b)
    return (ka > kb) - (ka < kb)


def series(version: str) -> str:
    """The release series: ``"5.15"`` for 5.15.y / 5.15.35 / 5.15-rc3,
    ``"2.6.32"`` for 2.6.32.5, ``"next"`` for next-YYYYMMDD, ``""`` otherwise."""
    m, _ = _parse(version)
    if m is None:
        return ""
    if m.group("ndate"):
        return "next"
    nums = m.group("nums").split(".")
    return ".".join(nums[:3] if nums[0] == "2" else nums[:2])


def is_stable_series(version: str) -> bool:
    """True for ``5.15.y`` / ``4.19.x`` (a whole stable branch, not one release)."""
    m, _ = _parse(version)
    return bool(m and m.group("series"))
