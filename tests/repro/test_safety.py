"""The safety pass: every dangerous option, under every spelling fio accepts, is neutralized."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lkmlkb.fio import catalog
from lkmlkb.model import FioJob
from lkmlkb.repro import safety
from lkmlkb.repro.safety import TARGET_PLACEHOLDER, make_safe

BASE = {"rw": "read", "bs": "4k", "size": "16M"}


def job(**extra: str) -> FioJob:
    return FioJob(name="job", form="jobfile", options={**BASE, **extra})


# (option as a report may spell it, value, canonical name that must not survive)
DROPPED = [
    ("exec_prerun", "rm -rf /tmp/x", "exec_prerun"),
    ("EXEC_PRERUN", "echo 3 > /proc/sys/vm/drop_caches", "exec_prerun"),
    ("--exec_postrun", "reboot", "exec_postrun"),
    ("read_iolog", "/root/trace.log", "read_iolog"),
    ("replay_redirect", "/dev/sda", "replay_redirect"),
    ("ioscheduler", "bfq", "ioscheduler"),
    ("cgroup", "fio-test", "cgroup"),
    ("directory", "/", "directory"),
    ("directory", "/etc", "directory"),
    ("opendir", "/usr", "opendir"),
    ("filename_format", "/etc/$jobname", "filename_format"),
    ("unlink", "1", "unlink"),
    ("fill_device", "1", "fill_device"),
    ("fill_fs", "1", "fill_device"),  # fio alias of fill_device
    ("allow_mounted_write", "1", "allow_mounted_write"),
    ("uid", "0", "uid"),
    ("merge_blktrace_file", "/etc/motd", "merge_blktrace_file"),
    ("program", "/bin/sh", "program"),  # the exec engine's options
    ("arguments", "-c reboot", "arguments"),
]


@pytest.mark.parametrize(("name", "value", "canon"), DROPPED)
def test_dangerous_option_is_dropped_with_a_note(name, value, canon):
    safe, notes = make_safe(job(**{name: value}))
    assert canon not in safe.options
    assert not any(catalog.canonical_name(k) == canon for k in safe.options)
    assert any(name.lstrip("-") in n and "dropped" in n for n in notes), notes


def test_include_is_dropped():
    safe, notes = make_safe(job(include="/home/reporter/common.fio"))
    assert "include" not in safe.options
    assert any("include" in n for n in notes)


@pytest.mark.parametrize(
    "name",
    ["write_iolog", "write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log", "WRITE_BW_LOG"],
)
def test_log_written_to_a_path_stays_in_the_run_directory(name):
    safe, notes = make_safe(job(**{name: "/etc/cron.d/evil"}))
    canon = catalog.canonical_name(name)
    assert safe.options[canon] == "evil"
    assert any("run directory" in n for n in notes)


def test_log_with_traversal_only_keeps_its_base_name():
    safe, _ = make_safe(job(write_lat_log="../../../root/x"))
    assert safe.options["write_lat_log"] == "x"


@pytest.mark.parametrize(
    ("engine", "why"),
    [
        ("exec", "runs a program"),
        ("EXEC", "runs a program"),
        ("external:/tmp/evil.so", "shared object"),
        ("/usr/local/lib/fio/libfio-foo.so", "shared object"),
        ("net", "network"),
        ("filedelete", "deletes files"),
    ],
)
def test_unsafe_engine_is_replaced_by_psync(engine, why):
    safe, notes = make_safe(job(ioengine=engine, program="/bin/sh"))
    assert safe.options["ioengine"] == "psync"
    assert "program" not in safe.options
    assert any(why in n for n in notes), notes


@pytest.mark.parametrize(
    "target", ["/dev/dm-0", "/dev/nvme0n1:/dev/nvme1n1", "/etc/passwd", "/", "/mnt/test/sub1/1.txt", "$DEVS"]
)
def test_filename_always_becomes_the_target_placeholder(target):
    safe, notes = make_safe(job(filename=target))
    assert safe.options["filename"] == TARGET_PLACEHOLDER
    assert any(target[:20] in n for n in notes)


def test_readwrite_alias_counts_for_device_write_refusal():
    # seed 000's job, spelled with aliases: a write to a raw device
    raw = FioJob(
        name="job",
        form="jobfile",
        options={"readwrite": "write", "blocksize": "128k", "filename": "/dev/dm-0"},
    )
    safe, notes = make_safe(raw, target="/dev/sdz", allow_device_writes=False)
    assert safe.options["rw"] == "write" and safe.options["bs"] == "128k"
    assert safe.options["filename"] == TARGET_PLACEHOLDER
    assert any("refused" in n and "/dev/sdz" in n for n in notes)


def test_device_target_allowed_for_writes_only_with_the_flag():
    raw = job(rw="randwrite", filename="/dev/dm-0")
    safe, _ = make_safe(raw, target="/dev/sdz", allow_device_writes=True)
    assert safe.options["filename"] == "/dev/sdz"


def test_trim_on_a_device_is_refused_without_the_flag():
    safe, notes = make_safe(job(rw="randtrim", filename="/dev/nvme0n1"), target="/dev/nvme1n1")
    assert safe.options["filename"] == TARGET_PLACEHOLDER
    assert any("trims" in n for n in notes)


def test_reading_a_device_target_is_allowed():
    safe, _ = make_safe(job(rw="randread", filename="/dev/dm-0"), target="/dev/sdz")
    assert safe.options["filename"] == "/dev/sdz"


@pytest.mark.parametrize("target", ["/", "/etc/fstab", "/usr/lib/x", "/proc/sys/vm/x", "/tmp/../etc/x"])
def test_system_path_target_is_refused(target):
    safe, notes = make_safe(job(rw="read"), target=target)
    assert safe.options["filename"] == TARGET_PLACEHOLDER
    assert any("refused" in n for n in notes)


def test_user_target_with_colon_is_escaped_for_fio():
    safe, _ = make_safe(job(), target="/scratch/a:b")
    assert safe.options["filename"] == "/scratch/a\\:b"


def test_exec_prerun_and_raw_device_write_from_mail_are_neutralized():
    # the shape of a job pasted with a cache-drop prerun and a raw device (seed 000 plus exec_prerun)
    raw = FioJob(
        name="job",
        form="jobfile",
        options={
            "ioengine": "libaio",
            "rw": "write",
            "bs": "128k",
            "iodepth": "64",
            "numjobs": "24",
            "direct": "1",
            "fsync": "1",
            "runtime": "600",
            "group_reporting": "",
            "filename": "/dev/dm-0",
            "exec_prerun": "echo 3 > /proc/sys/vm/drop_caches",
        },
        global_options={"ioengine": "libaio", "rw": "write"},
    )
    safe, notes = make_safe(raw)
    assert "exec_prerun" not in safe.options
    assert safe.options["filename"] == TARGET_PLACEHOLDER
    assert safe.options["size"] == safety.DEFAULT_SCRATCH_SIZE  # the device had no size
    assert safe.global_options == {"ioengine": "libaio", "rw": "write"}
    assert list(safe.options)[0] == "ioengine"
    assert raw.options["filename"] == "/dev/dm-0"  # the report's record is untouched
    assert len(notes) == 3


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("$ncpus", True),  # fio's own keyword
        ("${LKMLKB_TARGET}", False),  # a path is no number of jobs
        ("$JOBS", False),  # a shell variable from the reporter's script (seed 001)
        ("${HOME}", False),
        ("`nproc`", False),
        ("$(nproc)", False),
    ],
)
def test_variables_only_known_safe_ones_survive(value, kept):
    safe, notes = make_safe(job(numjobs=value))
    assert ("numjobs" in safe.options) is kept
    if not kept:
        assert any("numjobs" in n for n in notes)


def test_multiline_value_cannot_inject_options():
    safe, notes = make_safe(job(bs="4k\nexec_prerun=reboot"))
    assert "bs" not in safe.options
    assert all("\n" not in v for v in safe.options.values())


def test_unknown_option_is_dropped():
    safe, notes = make_safe(job(frobnicate="1"))
    assert "frobnicate" not in safe.options
    assert any("frobnicate" in n for n in notes)


def test_engine_option_for_another_engine_is_dropped():
    safe, notes = make_safe(job(ioengine="psync", hipri="1"))
    assert "hipri" not in safe.options


def test_job_named_global_is_renamed():
    safe, _ = make_safe(FioJob(name="global", form="cmdline", options=dict(BASE)))
    assert safe.name == "job"


# ------------------------------------------------------------------ property

DANGEROUS_NAMES = [
    "exec_prerun",
    "exec_postrun",
    "read_iolog",
    "replay_redirect",
    "ioscheduler",
    "cgroup",
    "directory",
    "opendir",
    "filename_format",
    "include",
    "unlink",
    "fill_device",
    "fill_fs",
    "uid",
    "gid",
    "program",
    "arguments",
    "allow_mounted_write",
    "merge_blktrace_file",
]
LOG_NAMES = ["write_iolog", "write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log"]
HARMLESS = [
    "rw",
    "readwrite",
    "bs",
    "blocksize",
    "iodepth",
    "numjobs",
    "size",
    "runtime",
    "timeout",
    "direct",
    "ioengine",
    "filename",
    "time_based",
    "group_reporting",
    "hipri",
    "nr_files",
]
NASTY_VALUES = [
    "/dev/sda",
    "/etc/passwd",
    "/",
    "exec",
    "external:/x.so",
    "/tmp/lib.so",
    "${HOME}",
    "${LKMLKB_TARGET}",
    "$BS",
    "1\nexec_prerun=reboot",
    "`id`",
    "../../x",
    "write",
    "trim",
    "4k",
    "1",
    "",
    "net",
    "rm -rf /",
    "a:b",
    "\x00",
]


def odd_case(name: str, data) -> str:
    flips = data.draw(st.lists(st.booleans(), min_size=len(name), max_size=len(name)))
    spelled = "".join(c.upper() if f else c for c, f in zip(name, flips, strict=True))
    return data.draw(st.sampled_from(["", "-", "--", " "])) + spelled


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_no_produced_job_contains_a_dangerous_option(data):
    names = data.draw(
        st.lists(
            st.sampled_from(DANGEROUS_NAMES + LOG_NAMES + HARMLESS) | st.text(min_size=0, max_size=12),
            max_size=12,
        )
    )
    options = {}
    for n in names:
        key = odd_case(n, data) if n else n
        options[key] = data.draw(st.sampled_from(NASTY_VALUES) | st.text(max_size=30))
    target = data.draw(st.none() | st.sampled_from(["/dev/sdb", "/scratch/f", "/etc/x", "/"]))
    allow = data.draw(st.booleans())
    safe, notes = make_safe(
        FioJob(name=data.draw(st.text(max_size=10)), form="jobfile", options=options), target, allow
    )
    dangerous = {catalog.canonical_name(n) or n for n in DANGEROUS_NAMES}
    for key, value in safe.options.items():
        canon = catalog.canonical_name(key)
        assert canon == key, key  # only canonical, known names
        assert canon not in dangerous, key
        assert not re.search(r"[\n\r\x00]", value)
        assert not re.search(r"`|\$\(", value)
        for var in re.findall(r"\$\{([^}]*)\}", value):
            assert var == "LKMLKB_TARGET"
        if canon in LOG_NAMES and value not in ("", "0", "1"):
            assert "/" not in value and not value.startswith(".")
    engine = safe.options.get("ioengine", "psync")
    assert engine not in ("exec", "net", "filedelete") and "/" not in engine and ":" not in engine
    fname = safe.options["filename"]
    assert fname == TARGET_PLACEHOLDER or fname in ("/dev/sdb", "/scratch/f")
    if fname == "/dev/sdb":
        assert allow or not safety.job_writes(safe.options)
    assert safe.name and "]" not in safe.name and safe.name.lower() != "global"


#: the system's own files, written out here rather than read from the code's sets, so that a tree
#: dropped from ``safety.SYSTEM_TREES`` or ``SYSTEM_PATHS`` fails this test
SYSTEM_TARGETS = [
    "/boot",
    "/boot/vmlinuz-6.8.0",
    "/boot/efi/EFI/BOOT/BOOTX64.EFI",
    "/etc",
    "/etc/passwd",
    "/usr/bin/fio",
    "/bin/sh",
    "/sbin/init",
    "/lib/modules/6.8.0/modules.dep",
    "/lib64/ld-linux-x86-64.so.2",
    "/proc/sys/vm/drop_caches",
    "/sys/block/sda/queue/scheduler",
    "/run/systemd/notify",
    "/var/lib/dpkg/status",
    "/var/log/syslog",
    "/root/.bashrc",
    "/",
    "/home",
    "/var",
    "/tmp",
    "/dev",
    "//boot//./vmlinuz",
    "/scratch/../boot/vmlinuz",
]


@pytest.mark.parametrize("target", SYSTEM_TARGETS)
@pytest.mark.parametrize("rw", ["read", "write", "trimwrite"])
def test_every_system_tree_is_refused_as_a_target(target, rw):
    safe, notes = make_safe(job(rw=rw), target=target)
    assert safe.options["filename"] == TARGET_PLACEHOLDER
    assert any("refused" in n for n in notes)


@pytest.mark.parametrize("target", ["/scratch/fio.dat", "/mnt/test/file", "/home/me/scratch", "/tmp/fio/x"])
def test_a_scratch_target_outside_the_system_trees_is_kept(target):
    safe, _ = make_safe(job(rw="write"), target=target)
    assert safe.options["filename"] == target
