"""Inputs of the regression tests: a knowledge base ingested from the real threads of
``tests/fixtures/regressions/`` (see tests/regressions/test_regressions.py for where each came
from), and a small kernel git tree that lands three of their fixes.

The tree holds the commit messages, as their patches were mailed, of the fix of "block:
significant performance regression in iSCSI rescan" ("block: fix revalidate performance
regression", applied from <20230529073237.1339862-1-dlemoal@kernel.org>) and of the revert of
seed 000's culprit ('Revert "block/mq-deadline: use correct way to throttling write requests"',
applied from <20240313214218.1736147-1-bvanassche@acm.org>), each with the ``Link:`` trailer the
maintainer's tools add, and release tags v6.8, v6.9-rc1 and v6.9 (annotated, all of one date, so
that only the history tells them apart):

    A -- M -- F -- "Linux 6.8" (v6.8) -- merge -- "Linux 6.9-rc1" (v6.9-rc1) -- merge -- "Linux 6.9" (v6.9) -- L
                              \\              /                                   /
                               R -- S1 -- S2                                      /
                                \\                                               /
                                 X -------------------------------------------

F (the iSCSI fix) is first released in v6.8.  R (the revert) is first released in v6.9-rc1,
through a merge two commits above it; v6.9 reaches it in one step through another branch, so
``git name-rev`` names it after v6.9, while ``git tag --contains`` lists v6.9-rc1 too.  L, above
v6.9 and in no release, is "loop: don't set QUEUE_FLAG_NOMERGES": the commit the report "read
regression for dm-snapshot with loopback" (``loop_nomerges_fixed.mbox``) says fixed it, cited
there as 667ea36378cf, a SHA of the real tree this one does not hold (its quoted subject names
the commit here).
"""

from __future__ import annotations

from pathlib import Path

from repo_helpers import run_git

from lkmlkb.ingest.run import ingest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "regressions"
SEED000_TEXT = next((ROOT / "corpus").glob("000_*.txt"))
SEED000_MBOX = next((ROOT / "corpus").glob("102_*.mbox"))
#: the revert comes in a second ingest, after its regression was grouped (grouping is incremental)
LATE = "mq_deadline_revert.mbox"

ISCSI_REPORT = "CAHZQxyKsym0E-GaV0cLQKH8GgO8X_4QR8WjiGghdjswhObLG0g@mail.gmail.com"
LOOP_REPORT = "CACzhbgTFesCa-tpyCqunUoTw-1P2EJ83zDzrcB4fbMi6nNNwng@mail.gmail.com"
ISCSI_V1 = "20230529023836.1209558-1-dlemoal@kernel.org"
ISCSI_V2 = "20230529073237.1339862-1-dlemoal@kernel.org"
SEED000 = "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com"
REVERT = "20240313214218.1736147-1-bvanassche@acm.org"


def build_regression_kb(path: Path) -> Path:
    """``lkmlkb ingest`` of every regression fixture and both copies of seed 000, the revert last."""
    first = [p for p in sorted(FIXTURES.glob("*.mbox")) if p.name != LATE]
    ingest([str(p) for p in first] + [str(SEED000_TEXT), str(SEED000_MBOX)], str(path), extract=True)
    ingest([str(FIXTURES / LATE)], str(path), extract=True)
    return path


STAMP = "1710000000 +0000"

ISCSI_CULPRIT = "block: introduce blk_queue_clear_zone_settings()"
MQ_DEADLINE = "block/mq-deadline: use correct way to throttling write requests"
ISCSI_FIX = "block: fix revalidate performance regression"
ISCSI_FIX_BODY = """\
The scsi driver function sd_read_block_characteristics() always calls
disk_set_zoned() to a disk zoned model correctly, in case the device
model changed. This is done even for regular disks to set the zoned
model to BLK_ZONED_NONE and free any zone related resources if the drive
previously was zoned.

This behavior significantly impact the time it takes to revalidate disks
on a large system as the call to disk_clear_zone_settings() done from
disk_set_zoned() for the BLK_ZONED_NONE case results in the device
request queued to be frozen, even if there are no zone resources to
free.

Avoid this overhead for non-zoned devices by not calling
disk_clear_zone_settings() in disk_set_zoned() if the device model
was already set to BLK_ZONED_NONE, which is always the case for regular
devices.

Reported by: Brian Bunker <brian@purestorage.com>
Fixes: {culprit} ("block: introduce blk_queue_clear_zone_settings()")
Cc: stable@vger.kernel.org
Signed-off-by: Damien Le Moal <dlemoal@kernel.org>
Reviewed-by: Ming Lei <ming.lei@redhat.com>
{link}Signed-off-by: Jens Axboe <axboe@kernel.dk>
"""
REVERT_BODY = """\
The code "max(1U, 3 * (1U << shift)  / 4)" comes from the Kyber I/O
scheduler. The Kyber I/O scheduler maintains one internal queue per hwq
and hence derives its async_depth from the number of hwq tags. Using
this approach for the mq-deadline scheduler is wrong since the
mq-deadline scheduler maintains one internal queue for all hwqs
combined. Hence this revert.

Cc: stable@vger.kernel.org
Cc: Damien Le Moal <dlemoal@kernel.org>
Cc: Harshit Mogalapalli <harshit.m.mogalapalli@oracle.com>
Cc: Zhiguo Niu <Zhiguo.Niu@unisoc.com>
Fixes: {short} ("block/mq-deadline: use correct way to throttling write requests")
Signed-off-by: Bart Van Assche <bvanassche@acm.org>
{link}Signed-off-by: Jens Axboe <axboe@kernel.dk>
"""
LOOP_FIX = """\
loop: don't set QUEUE_FLAG_NOMERGES

QUEUE_FLAG_NOMERGES isn't really a driver interface, but a user tunable.
There also isn't any good reason to set it in the loop driver.

The original commit adding it (5b5e20f421c0b6d "block: loop: set
QUEUE_FLAG_NOMERGES for request queue of loop") claims that "It doesn't
make sense to enable merge because the I/O submitted to backing file is
handled page by page."  which of course isn't true for multi-page bvec
now, and it never has been for direct I/O, for which commit 40326d8a33d
("block/loop: allow request merge for directio mode") alredy disabled
the nomerges flag.

Signed-off-by: Christoph Hellwig <hch@lst.de>
Link: https://lore.kernel.org/r/20240627124926.512662-2-hch@lst.de
Signed-off-by: Jens Axboe <axboe@kernel.dk>
"""


def git(repo: Path, *args: str, input: str | None = None) -> str:
    return run_git(repo, *args, who=("Jens Axboe", "axboe@kernel.dk"), stamp=STAMP, input=input)


def _commit(repo: Path, message: str) -> str:
    git(repo, "commit", "-q", "--allow-empty", "-F", "-", input=message)
    return git(repo, "rev-parse", "HEAD")


def _merge(repo: Path, branch: str, message: str) -> str:
    git(repo, "merge", "-q", "--no-ff", "-m", message, branch)
    return git(repo, "rev-parse", "HEAD")


def build_kernel_tree(repo: Path, trailers: bool = True) -> dict[str, str]:
    """The tree of the module docstring at ``repo`` (created); ``trailers=False`` leaves the
    ``Link:`` trailers out (a tree found only by the patches' subjects).  Returns the SHAs."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "master")
    culprit = _commit(repo, f"{ISCSI_CULPRIT}\n\nSigned-off-by: Damien Le Moal <damien.lemoal@wdc.com>\n")
    mqd = _commit(repo, f"{MQ_DEADLINE}\n\nSigned-off-by: Zhiguo Niu <zhiguo.niu@unisoc.com>\n")
    link = f"Link: https://lore.kernel.org/r/{ISCSI_V2}\n" if trailers else ""
    fix = _commit(repo, f"{ISCSI_FIX}\n\n" + ISCSI_FIX_BODY.format(culprit=culprit[:12], link=link))
    _commit(repo, "Linux 6.8\n")
    git(repo, "tag", "-a", "v6.8", "-m", "Linux 6.8")
    git(repo, "checkout", "-q", "-b", "for-6.9/block")
    link = f"Link: https://lore.kernel.org/r/{REVERT}\n" if trailers else ""
    revert = _commit(repo, f'Revert "{MQ_DEADLINE}"\n\n' + REVERT_BODY.format(short=mqd[:12], link=link))
    _commit(repo, "block: remove the unused blk_queue_flag_test_and_set()\n")
    _commit(repo, "block: move bio_list_merge_init to the bio list helpers\n")
    git(repo, "checkout", "-q", "master")
    _merge(repo, "for-6.9/block", "Merge tag 'for-6.9/block-20240310' of git://git.kernel.dk/linux")
    _commit(repo, "Linux 6.9-rc1\n")
    git(repo, "tag", "-a", "v6.9-rc1", "-m", "Linux 6.9-rc1")
    git(repo, "checkout", "-q", "-b", "block-6.9", revert)
    _commit(repo, "block: fix q->blkg_list corruption during disk rebind\n")
    git(repo, "checkout", "-q", "master")
    _merge(repo, "block-6.9", "Merge tag 'block-6.9-20240420' of git://git.kernel.dk/linux")
    _commit(repo, "Linux 6.9\n")
    git(repo, "tag", "-a", "v6.9", "-m", "Linux 6.9")
    loop = _commit(repo, LOOP_FIX)
    return {"culprit": culprit, "mqd": mqd, "fix": fix, "revert": revert, "loop": loop}
