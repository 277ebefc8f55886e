"""Deterministic generator of synthetic LKML-like mail (mboxrd), for benchmarks.

Nothing here is copied mail: headers, patches, review replies and fio
reports are assembled from templates and short phrases, with one seeded
``random.Random`` so the same ``--seed`` and ``--count`` give the same bytes.

What it imitates (shares roughly those of linux-block / LKML traffic):

* threads of 1-40 messages with ``In-Reply-To`` and growing ``References``
  chains, ``Re:`` subjects, and quoted replies (``> `` lines, nested
  ``> > ``) with an attribution line;
* ``[PATCH vN n/m]`` mails with a diffstat and a unified diff;
* review replies (``Reviewed-by:`` trailers, inline comments);
* about 1% performance reports: fio command lines or job files, fio's
  "Run status group" output, kernel versions and a cited commit, and some
  test-robot-style comparison tables.

Usage::

    python benchmarks/synth.py --count 100000 --seed 1 --out /tmp/synth-100k.mbox
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import logging
import random
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

log = logging.getLogger(__name__)

FIRST = [
    "Jens",
    "Christoph",
    "Ming",
    "Damien",
    "Hannes",
    "Keith",
    "Jan",
    "Yu",
    "Bart",
    "Kanchan",
    "Pavel",
    "Johannes",
    "Sagi",
    "Chaitanya",
    "Martin",
    "Niklas",
    "Shin'ichiro",
    "Li",
    "Zhang",
    "Oliver",
    "Anna",
    "Maria",
    "Tomasz",
    "Priya",
    "Wei",
    "Olga",
    "Ravi",
    "Sofia",
    "Lukas",
    "Chen",
]
LAST = [
    "Axboe",
    "Hellwig",
    "Lei",
    "Le Moal",
    "Reinecke",
    "Busch",
    "Kara",
    "Kuai",
    "Van Assche",
    "Joshi",
    "Begunkov",
    "Thumshirn",
    "Grimberg",
    "Kulkarni",
    "Petersen",
    "Cassel",
    "Kawasaki",
    "Nan",
    "Yi",
    "Sang",
    "Novak",
    "Ivanova",
    "Kowalski",
    "Sharma",
    "Wang",
    "Petrova",
    "Rao",
    "Rossi",
    "Weber",
    "Liu",
]
DOMAINS = [
    "kernel.dk",
    "lst.de",
    "redhat.com",
    "kernel.org",
    "suse.de",
    "suse.cz",
    "huawei.com",
    "acm.org",
    "samsung.com",
    "gmail.com",
    "wdc.com",
    "oracle.com",
    "intel.com",
    "example.org",
]
SUBSYS = [
    "block",
    "blk-mq",
    "nvme",
    "mq-deadline",
    "bfq",
    "io_uring",
    "null_blk",
    "scsi",
    "loop",
    "dm",
    "md/raid1",
    "zram",
    "ublk",
    "blk-cgroup",
    "iomap",
    "xfs",
    "ext4",
    "brd",
    "virtio_blk",
    "sbitmap",
]
VERBS = [
    "fix",
    "remove",
    "add",
    "use",
    "convert",
    "simplify",
    "rework",
    "avoid",
    "cleanup",
    "move",
    "factor out",
    "introduce",
    "drop",
    "pass",
    "check",
    "limit",
    "cache",
    "export",
    "rename",
    "handle",
]
OBJECTS = [
    "the queue limits",
    "request allocation",
    "tag set sharing",
    "plug flushing",
    "the dispatch list",
    "bio splitting",
    "the elevator switch",
    "zone append",
    "the timeout handler",
    "poll queues",
    "writeback throttling",
    "the freeze counter",
    "integrity payloads",
    "discard merging",
    "hctx mapping",
    "the requeue path",
    "I/O priority",
    "the completion batch",
    "atomic writes",
    "max_sectors",
    "the rq_qos hooks",
    "disk stats accounting",
]
FUNCS = [
    "blk_mq_submit_bio",
    "blk_mq_dispatch_rq_list",
    "__blk_mq_alloc_request",
    "bio_split",
    "blk_queue_enter",
    "dd_dispatch_request",
    "bfq_insert_request",
    "nvme_queue_rq",
    "blk_mq_run_hw_queue",
    "blk_add_timer",
    "submit_bio_noacct",
    "blk_finish_plug",
    "blk_mq_get_tag",
    "bio_endio",
    "blk_rq_map_sg",
    "elv_iosched_store",
]
FILES = [
    "block/blk-mq.c",
    "block/blk-core.c",
    "block/mq-deadline.c",
    "block/bfq-iosched.c",
    "block/blk-merge.c",
    "drivers/nvme/host/core.c",
    "drivers/block/null_blk/main.c",
    "block/blk-settings.c",
    "include/linux/blkdev.h",
    "block/blk-mq-sched.c",
    "block/blk-iocost.c",
    "io_uring/rw.c",
]
PROSE = [
    "This makes the code easier to follow.",
    "No functional change intended.",
    "The check is redundant now that the caller holds the lock.",
    "Found by code inspection.",
    "Otherwise we may end up dispatching to a dead queue.",
    "This was only ever set to one value.",
    "The old helper had a single user left.",
    "Keep the fast path free of the extra branch.",
    "Tested with blktests and a few xfstests runs.",
    "It also shrinks struct request by 8 bytes.",
    "Split out from the larger series posted earlier.",
    "Suggested during review of v2.",
]
REVIEW = [
    "Looks good.",
    "Looks fine to me.",
    "Makes sense.",
    "Nice cleanup.",
    "Good catch.",
    "Can you add a comment here?",
    "Why not do this in the caller instead?",
    "This needs a Fixes tag.",
    "Please split this into two patches.",
    "Applied, thanks.",
    "I'm not sure this is safe against a concurrent freeze.",
    "Queued for the next merge window.",
]
SIGS = ["Thanks,", "Regards,", "Cheers,", "--", "Best regards,"]
ENGINES = ["libaio", "io_uring", "psync", "sync", "pvsync2"]
RWS = ["randread", "randwrite", "read", "write", "randrw"]
BSS = ["4k", "8k", "64k", "128k", "1M"]
DEVICES = ["/dev/nvme0n1", "/dev/nullb0", "/dev/sdb", "/dev/vdb", "/dev/ram0"]
SCHEDS = ["none", "mq-deadline", "bfq", "kyber"]


def _hex(rng: random.Random, n: int) -> str:
    return "%0*x" % (n, rng.getrandbits(4 * n))


def _person(rng: random.Random) -> tuple[str, str]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    addr = f"{first.lower()}.{last.lower().replace(' ', '').replace(chr(39), '')}@{rng.choice(DOMAINS)}"
    return f"{first} {last}", addr


def _kernel(rng: random.Random) -> str:
    major = rng.choice(["6.6", "6.7", "6.8", "6.9", "6.10"])
    return major + rng.choice(["", f"-rc{rng.randint(1, 7)}", f".{rng.randint(1, 30)}"])


def _patch_body(rng: random.Random, author: tuple[str, str]) -> str:
    lines = [rng.choice(PROSE) for _ in range(rng.randint(1, 4))]
    f = rng.choice(FILES)
    fn = rng.choice(FUNCS)
    adds = rng.randint(1, 12)
    dels = rng.randint(0, 8)
    out = [" ".join(lines), ""]
    if rng.random() < 0.3:
        out.append(
            f'Fixes: {_hex(rng, 12)} ("{rng.choice(SUBSYS)}: {rng.choice(VERBS)} {rng.choice(OBJECTS)}")'
        )
    out.append(f"Signed-off-by: {author[0]} <{author[1]}>")
    out += [
        "---",
        f" {f} | {adds + dels} {'+' * min(adds, 20)}{'-' * min(dels, 20)}",
        f" 1 file changed, {adds} insertions(+), {dels} deletions(-)",
        "",
        f"diff --git a/{f} b/{f}",
        f"index {_hex(rng, 12)}..{_hex(rng, 12)} 100644",
        f"--- a/{f}",
        f"+++ b/{f}",
        f"@@ -{rng.randint(10, 3000)},{dels + 6} +{rng.randint(10, 3000)},{adds + 6} @@ static int {fn}(struct request_queue *q)",
    ]
    for _ in range(3):
        out.append(f" \tstruct blk_mq_hw_ctx *hctx = {fn}_hctx(q, {rng.randint(0, 9)});")
    for _ in range(dels):
        out.append(f"-\tif (unlikely(q->flags & {rng.randint(1, 64)}))")
    for _ in range(adds):
        out.append(
            f"+\tif (blk_queue_{rng.choice(['dying', 'nomerges', 'poll', 'zoned'])}(q) && nr < {rng.randint(2, 256)})"
        )
    out += ["", " \treturn 0;", " }", "-- ", f"2.{rng.randint(30, 44)}.{rng.randint(0, 3)}", ""]
    return "\n".join(out)


def _fio_run(rng: random.Random, rw: str, bs: str) -> tuple[list[str], float]:
    iops = rng.uniform(20, 900)
    bw = iops * {"4k": 4, "8k": 8, "64k": 64, "128k": 128, "1M": 1024}[bs] / 1024
    lines = [
        f"job1: (g=0): rw={rw}, bs=(R) {bs}B-{bs}B, (W) {bs}B-{bs}B, ioengine={rng.choice(ENGINES)}, "
        f"iodepth={rng.choice([1, 4, 32, 128])}",
        f"  {'read' if 'read' in rw else 'write'}: IOPS={iops:.1f}k, BW={bw:.0f}MiB/s "
        f"({bw * 1.048576:.0f}MB/s)({rng.randint(1, 60)}GiB/{rng.randint(10, 60)}001msec)",
        f"    clat (usec): min={rng.randint(2, 40)}, max={rng.randint(900, 90000)}, "
        f"avg={rng.uniform(20, 400):.2f}, stdev={rng.uniform(5, 90):.2f}",
        "",
        "Run status group 0 (all jobs):",
        f"   {'READ' if 'read' in rw else 'WRITE'}: bw={bw:.0f}MiB/s ({bw * 1.048576:.0f}MB/s), "
        f"io={rng.randint(1, 60)}GiB, run={rng.randint(10, 60)}001-{rng.randint(10, 60)}001msec",
    ]
    return lines, iops


def _report_body(rng: random.Random, author: tuple[str, str]) -> str:
    """A performance-regression report from templates (fio command, results, kernels, commit)."""
    rw, bs = rng.choice(RWS), rng.choice(BSS)
    good, bad = _kernel(rng), _kernel(rng)
    sha = _hex(rng, 12)
    dev = rng.choice(DEVICES)
    out = [
        "Hi,",
        "",
        f"I see a {rng.randint(5, 60)}% {rng.choice(['drop', 'regression', 'slowdown'])} in {rw} "
        f"IOPS with {rng.choice(SCHEDS)} after updating from {good} to {bad}.",
        f'Bisected to commit {sha} ("{rng.choice(SUBSYS)}: {rng.choice(VERBS)} {rng.choice(OBJECTS)}").',
        "",
    ]
    if rng.random() < 0.5:
        out.append(
            f"fio --name=test --filename={dev} --direct=1 --rw={rw} --bs={bs} "
            f"--ioengine={rng.choice(ENGINES)} --iodepth={rng.choice([1, 16, 64])} "
            f"--numjobs={rng.choice([1, 4, 8])} --runtime=60 --time_based --group_reporting"
        )
    else:
        out += [
            "[global]",
            "direct=1",
            f"ioengine={rng.choice(ENGINES)}",
            f"bs={bs}",
            "runtime=30",
            "",
            "[job1]",
            f"filename={dev}",
            f"rw={rw}",
            f"iodepth={rng.choice([1, 16, 64])}",
        ]
    for k in (good, bad):
        lines, _ = _fio_run(rng, rw, bs)
        out += ["", f"{k}:", *lines]
    if rng.random() < 0.4:
        out += [
            "",
            f"{good:>20}  {bad:>20}",
            "---------------- ---------------------------",
            "         %stddev     %change         %stddev",
        ]
        for metric in ("fio.read_iops", "fio.write_bw_MBps", "fio.latency_99%_us"):
            a = rng.uniform(1e3, 9e5)
            ch = rng.uniform(-60, 20)
            out.append(f"{a:>16.0f}        {ch:+6.1f}%  {a * (1 + ch / 100):>12.0f}        {metric}")
    out += ["", rng.choice(SIGS), author[0].split()[0], ""]
    return "\n".join(out)


def _reply_body(rng: random.Random, parent_author: str, parent_body: str, author: tuple[str, str]) -> str:
    plines = [ln for ln in parent_body.split("\n")[:40]]
    out = [f"On {rng.choice(['Mon', 'Tue', 'Wed', 'Thu', 'Fri'])}, {parent_author} wrote:"]
    take = rng.randint(2, min(12, max(2, len(plines))))
    start = rng.randint(0, max(0, len(plines) - take))
    for ln in plines[start : start + take]:
        out.append((">" + ln) if ln.startswith(">") else ("> " + ln if ln else ">"))
    out += ["", rng.choice(REVIEW)]
    if rng.random() < 0.5:
        out += ["", f"Reviewed-by: {author[0]} <{author[1]}>"]
    out += ["", rng.choice(SIGS), author[0].split()[0], ""]
    return "\n".join(out)


def _transport_headers(rng: random.Random, t: datetime, addr: str) -> list[str]:
    """Received / DKIM / ARC-like headers: real list mail carries 2-4 KB of them."""
    stamp = t.strftime("%a, %d %b %Y %H:%M:%S +0000")
    out = []
    for hop in range(rng.randint(2, 4)):
        ip = ".".join(str(rng.randint(1, 254)) for _ in range(4))
        out.append(
            f"Received: from mx{hop}.{addr.split('@')[1]} (mx{hop}.example.net [{ip}])\n"
            f"\tby smtp.subspace.kernel.org (Postfix) with ESMTPS id {_hex(rng, 10).upper()}\n"
            f"\tfor <linux-block@vger.kernel.org>; {stamp}"
        )
    sig = base64.b64encode(rng.randbytes(258)).decode("ascii")
    out.append(
        f"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d={addr.split('@')[1]}; s=k1;\n"
        f"\tt={int(t.timestamp())}; bh={_hex(rng, 43)}=;\n\th=From:To:Cc:Subject:Date:Message-ID;\n"
        + "\n".join(f"\t b={sig[i : i + 70]}" for i in range(0, len(sig), 70))
    )
    return out


def _escape_mboxrd(body: str) -> str:
    if "From " not in body:
        return body
    return "\n".join((">" + ln) if ln.lstrip(">").startswith("From ") else ln for ln in body.split("\n"))


def generate(count: int, seed: int = 1, report_share: float = 0.01) -> Iterator[bytes]:
    """Yield ``count`` mboxrd entries (separator line included) deterministically."""
    rng = random.Random(seed)
    t = datetime(2020, 1, 1, tzinfo=UTC)
    open_threads: list[dict] = []
    n = 0
    while n < count:
        t += timedelta(seconds=rng.randint(5, 900))
        author = _person(rng)
        if open_threads and rng.random() < 0.7:
            th = rng.choice(open_threads)
            parent = rng.choice(th["msgs"][-5:])
            subject = th["subject"] if th["subject"].startswith("Re: ") else "Re: " + th["subject"]
            body = _reply_body(rng, parent["from"], parent["body"], author)
            refs = parent["refs"] + [parent["id"]]
            irt = parent["id"]
        else:
            irt, refs = None, []
            if rng.random() < report_share / 0.3:
                subject = (
                    f"[{rng.choice(['bug report', 'REGRESSION', 'performance'])}] {rng.choice(SUBSYS)}: "
                    f"{rng.choice(RWS)} IOPS down on {_kernel(rng)}"
                )
                body = _report_body(rng, author)
            else:
                k, m = rng.randint(1, 8), rng.randint(1, 8)
                subject = (
                    f"[PATCH v{rng.randint(1, 5)} {min(k, m)}/{m}] {rng.choice(SUBSYS)}: "
                    f"{rng.choice(VERBS)} {rng.choice(OBJECTS)}"
                )
                body = _patch_body(rng, author)
            th = {"subject": subject, "msgs": []}
            open_threads.append(th)
            if len(open_threads) > 200:
                open_threads.pop(rng.randrange(len(open_threads)))
        mid = f"{t.strftime('%Y%m%d%H%M%S')}.{n}-{_hex(rng, 6)}@{author[1].split('@')[1]}"
        msg = {"id": mid, "from": author[0], "body": body, "refs": refs[-30:]}
        th["msgs"].append(msg)
        if len(th["msgs"]) > 40:
            open_threads.remove(th)
        to = _person(rng)
        head = [
            "From mboxrd@z Thu Jan  1 00:00:00 1970",
            f"Return-Path: <linux-block+bounces-{n}@vger.kernel.org>",
            *_transport_headers(rng, t, author[1]),
            f"From: {author[0]} <{author[1]}>",
            f"To: {to[0]} <{to[1]}>",
            f"Cc: linux-block@vger.kernel.org, {_person(rng)[1]}",
            f"Subject: {subject}",
            f"Date: {t.strftime('%a, %d %b %Y %H:%M:%S +0000')}",
            f"Message-ID: <{mid}>",
        ]
        if irt:
            head.append(f"In-Reply-To: <{irt}>")
            head.append("References: " + "\n ".join(f"<{r}>" for r in msg["refs"]))
        head += [
            "List-Id: <linux-block.vger.kernel.org>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: 8bit",
            f"X-Mailer: git-send-email 2.{rng.randint(30, 44)}.0" if not irt else "User-Agent: Mutt/2.2",
        ]
        yield ("\n".join(head) + "\n\n" + _escape_mboxrd(body) + "\n\n").encode("utf-8")
        n += 1


def write_mbox(path: str, count: int, seed: int = 1) -> str:
    """Write ``count`` messages to ``path`` (gzip if it ends in .gz); returns its sha256."""
    h = hashlib.sha256()
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wb") as fh:
        for entry in generate(count, seed):
            h.update(entry)
            fh.write(entry)
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True, help="mbox path (.gz to compress)")
    a = ap.parse_args(argv)
    digest = write_mbox(a.out, a.count, a.seed)
    sys.stdout.write(f"{a.count} messages -> {a.out} sha256 {digest}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
