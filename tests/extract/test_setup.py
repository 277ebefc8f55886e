"""Setup facts and tools (lkmlkb.extract.setup)."""

import time
from pathlib import Path

import pytest

from lkmlkb.extract.setup import find_setup, find_tools

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def _facts(text):
    return {(f.key, f.value) for f in find_setup(text)}


@pytest.mark.parametrize(
    "text,expected",
    [
        # corpus/002
        (
            "The machine is Intel 2 CPU with 2 GB RAM and plain SATA\ndrive.",
            {("cpu", "Intel 2 CPU"), ("memory", "2 GB"), ("device", "SATA")},
        ),
        ("no regression. With deadline scheduler, there's", {("scheduler", "deadline")}),
        (">> 2.6.29 2.6.32-rc6,low_latency=0", {("tunable", "low_latency=0")}),
        (
            "mounted ext3 with data=ordered,barrier=1",
            {("filesystem", "ext3"), ("mount_options", "data=ordered"), ("mount_options", "barrier=1")},
        ),
        # corpus/003
        (
            "1) PCIe3 SSD *4 with LVM\n2) gfs2 lock_nolock",
            {
                ("device", "PCIe3 SSD"),
                ("stack", "lvm"),
                ("filesystem", "gfs2"),
                ("mount_options", "lock_nolock"),
            },
        ),
        # corpus/001
        (
            "modprobe scsi_debug host_max_queue=128 submit_queues=$NRQS virtual_gb=256",
            {
                ("device", "scsi_debug host_max_queue=128 submit_queues=$NRQS virtual_gb=256"),
                ("device", "scsi_debug"),
            },
        ),
        ("echo 128 >/sys/block/`basename $DEV`/device/queue_depth", {("tunable", "queue_depth=128")}),
        ("1) randread test on ibm-x3850x6[*] with deadline", {("scheduler", "deadline")}),
        (
            "on two server hardwares(32cores, dual numa nodes)",
            {("cpu", "32cores"), ("cpu", "dual numa nodes")},
        ),
        # corpus/000
        ("6.8-rc7: 2 block devices with multi-path:", {("stack", "multipath")}),
        # archive <202401312320.a335db14-oliver.sang@intel.com>
        (
            "test machine: 64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz (Ice Lake) with 256G memory",
            {
                ("cpu", "64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz (Ice Lake)"),
                ("memory", "256G"),
            },
        ),
        (
            "echo mq-deadline > /sys/block/nvme0n1/queue/scheduler",
            {("scheduler", "mq-deadline"), ("device", "nvme0n1")},
        ),
    ],
)
def test_setup_examples(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "none of them helped",  # "none" is a scheduler only in context
        "the deadline for the merge window",
        "tiobench sequential write performance numbers with 16 threads:",  # corpus/002: not CPUs
    ],
)
def test_not_setup(text):
    assert find_setup(text) == []


@pytest.mark.parametrize(
    "name,tools",
    [
        ("000_a3585e8f2465c212.txt", ["fio"]),
        ("001_09f4ed74915a608d.txt", ["fio"]),
        ("003_f5869eda4829fcf2.txt", ["fio"]),
        ("004_9a4b42bbfbf4e570.txt", ["dd", "iostat"]),
    ],
)
def test_seed_tools(name, tools):
    assert find_tools((CORPUS / name).read_text()) == tools


def test_seed_002_tools_include_tiobench():
    # the thread also suggests "throw a fio job file over", so fio is named too
    assert find_tools((CORPUS / "002_05ded6ff64fd7ec3.txt").read_text()) == ["fio", "tiobench"]


@pytest.mark.parametrize(
    "text",
    ["", "\x00" * 5000, "echo " * 200000, "a=" * 500000],
    ids=["empty", "nuls", "echo-flood", "kv-flood"],
)
def test_pathological_input_is_fast_and_safe(text, caplog):
    t0 = time.thread_time()
    assert find_setup(text) == []
    assert find_tools(text) == []
    assert time.thread_time() - t0 < 10
    assert not [r for r in caplog.records if r.levelname == "WARNING"]  # both log a swallowed failure


def test_main_benchmark_is_the_one_named_most():
    from lkmlkb.extract.setup import main_benchmark

    text = (
        "dbench 16 clients on ext4: Throughput 812.4 MB/sec\n"
        "dbench 32 clients: Throughput 790.1 MB/sec\n"
        "throw a fio job file over the fence and I'll test it\n"
    )
    assert main_benchmark(text) == "dbench"
    assert main_benchmark("iostat -x 1 and perf record, no benchmark") is None
