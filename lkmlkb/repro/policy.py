"""The allow-list of fio options a generated job may keep, reviewed option by option.

Every option of fio's catalog (``lkmlkb/data/fio_options.json``, generated from
``fio --cmdhelp=all``) is listed here exactly once, with what the safety pass
does with it:

* ``keep``: the option cannot name a file, run a program or change the system;
  its value is kept when it passes the option's value check (numbers with
  their units for numeric types, one of fio's own choices for choice options,
  a narrow pattern for the few free-text options) and is dropped otherwise;
* ``target``: ``filename``, rewritten to ``${LKMLKB_TARGET}`` (or the user's
  checked target);
* ``log``: a log fio writes; kept only as a bare file name, which fio opens in
  the run directory;
* ``engine``: ``ioengine``; only the engines in :data:`ENGINES` are kept;
* ``memory``: ``mem``/``iomem``; the buffer type is kept, a ``:file`` after it
  (``mmap:/path`` maps, resizes and truncates that file) is removed;
* ``job``: ``wait_for`` names another job section: kept as a section name;
* ``section``: ``name``, which the section header carries;
* ``drop``: the option names or holds a path, runs a program, talks to the
  network, deletes data or changes the system; it is removed with its reason.

An option this table does not list (one a newer fio adds, a misspelling) is
dropped: what a job keeps is only what was reviewed.  ``tests/repro/
test_policy.py`` checks that the table covers the catalog exactly and that no
generated job can write outside its target.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: engines a generated job may use: they do I/O on the job's target (a file or a device the
#: user names) and nothing else; everything else is replaced by psync
ENGINES = frozenset(
    {
        "sync",
        "psync",
        "vsync",
        "pvsync",
        "pvsync2",
        "libaio",
        "io_uring",
        "io_uring_cmd",
        "posixaio",
        "mmap",
        "splice",
        "null",
        "sg",
        "falloc",
        "ftruncate",
        "filecreate",
        "filestat",
        "dircreate",
        "dirstat",
        "cpuio",
    }
)
#: why an engine fio knows is not in ENGINES
ENGINE_REFUSALS = {
    "exec": "runs a program",
    "external": "loads a shared object",
    "e4defrag": "moves blocks through a donor file it creates or truncates",
    "net": "opens network connections",
    "netsplice": "opens network connections",
    "rdma": "opens network connections",
    "rbd": "talks to a Ceph cluster",
    "rados": "talks to a Ceph cluster",
    "gfapi": "talks to a GlusterFS server",
    "gfapi_async": "talks to a GlusterFS server",
    "http": "talks to an HTTP/S3 server",
    "nfs": "talks to an NFS server",
    "nbd": "talks to an NBD server",
    "filedelete": "deletes files",
    "dirdelete": "deletes directories",
    "pmemblk": "needs a persistent-memory pool file of the reporter's machine",
    "libpmem": "needs persistent memory of the reporter's machine",
    "dev-dax": "needs a DAX device of the reporter's machine",
    "mtd": "erases flash devices",
}

# ------------------------------------------------------------------ value checks

_NUMBER = r"(?:0x[0-9a-f]{1,16}|\d{1,20}(?:\.\d{1,12})?|\.\d{1,12})"
_FIO_VAR = r"\$(?:ncpus|pagesize|mb_memory)"  # fio's own keywords (HOWTO "Job file parameters")
_SIZE_ITEM = rf"(?:{_NUMBER}(?:[kmgtpe]i?b?|b|%)?|{_FIO_VAR}|)"
_TIME_ITEM = rf"(?:{_NUMBER}(?:ns|nsec|us|usec|ms|msec|s|sec|m|min|h|d)?|{_FIO_VAR}|)"
_INT_ITEM = rf"(?:-?{_NUMBER}(?:[kmgtpe]i?b?|%)?|{_FIO_VAR}|)"
#: fio reads these numbers through its own expression parser: "(4k*2)", "$mb_memory/4", "(1M + 4k)";
#: a term is a number (with a unit) or one of fio's keywords, so no letter follows a "/" but a
#: unit's or a keyword's ("0/A" is no expression: a path's shape)
_TERM = rf"(?:{_NUMBER}(?:[kmgtpe]i?b?)?|{_FIO_VAR})"
_EXPRESSION = (
    rf"(?:\([ ]{{0,3}}{_TERM}(?:[ ]{{0,3}}[+\-*/%^][ ]{{0,3}}{_TERM}){{0,8}}[ ]{{0,3}}\)"
    rf"|{_TERM}(?:[*/+^]{_TERM}){{1,4}})"
)


def _list_of(item: str, separators: str = ",:") -> re.Pattern[str]:
    """Items separated by fio's per-direction (``bs=4k,8k``) or list (``1:2``) separators."""
    one = rf"(?:{item}|{_EXPRESSION})"
    return re.compile(rf"^{one}(?:[{separators}]{one}){{0,16}}$", re.I)


BOOL_RE = re.compile(r"^[01]?$")  # fio takes 0/1 ("direct=true" is an error)
INT_RE = _list_of(_INT_ITEM)  # "iodepth=32", "rate_iops=500,200", "nice=-5"
SIZE_RE = _list_of(_SIZE_ITEM)  # "bs=4k,128k", "size=50%", "size=$mb_memory"
TIME_RE = _list_of(_TIME_ITEM)  # "runtime=60s", "latency_target=5ms"
RANGE_RE = _list_of(rf"{_SIZE_ITEM}-{_SIZE_ITEM}")  # "bsrange=4k-16k,8k-32k"
FLOAT_LIST_RE = _list_of(_NUMBER)  # "percentile_list=99.5:99.9"
#: "bssplit=4k/10:64k/50:32k/40", "cmdprio_bssplit=4k/50/1/7:64k/50": numbers and shares only
_SPLIT_PART = rf"{_SIZE_ITEM}(?:/(?:{_NUMBER})?){{0,3}}"  # size/share[/class/level]
SPLIT_RE = re.compile(rf"^{_SPLIT_PART}(?:[:,]{_SPLIT_PART}){{0,64}}$", re.I)
#: "cpus_allowed=0-3,8", "numa_cpu_nodes=0,1", "log_compression_cpus=1"
CPU_LIST_RE = re.compile(r"^(?:all|[0-9,\-:]{1,200})$", re.I)
#: "numa_mem_policy=bind:0-1", "prefer:1", "local"
NUMA_POLICY_RE = re.compile(r"^(?:default|prefer|bind|interleave|local)(?::[0-9,\-]{1,100})?$", re.I)
#: "ignore_error=EIO,ENOSPC:EILSEQ", error numbers or names
ERROR_LIST_RE = re.compile(
    r"^(?:E[A-Z0-9]{1,20}|[1-9]\d{0,4})(?:[,:](?:E[A-Z0-9]{1,20}|[1-9]\d{0,4})){0,40}$"
)
#: "steadystate=iops:5%", "bw_slope:0.1%"
STEADY_RE = re.compile(r"^(?:iops|iops_slope|bw|bw_slope)(?::[0-9.]{1,20}%?)?$", re.I)
#: buffer_pattern / verify_pattern: hex, decimal, a quoted string or %o; fio reads a file for a
#: pattern written in braces ("{/etc/shadow}"), so braces, slashes and backslashes never pass
_PATTERN_PART = r"""(?:0x[0-9a-f]{1,512}|-?\d{1,20}|'[^'{}/\\$`]{0,128}'|"[^"{}/\\$`]{0,128}"|%o)"""
#: parts separated by commas or blanks (one way only to read each: no part runs into the next)
PATTERN_RE = re.compile(r"^" + _PATTERN_PART + r"(?:[ ,]{1,8}" + _PATTERN_PART + r"){0,64}$", re.I)
#: a job's description: text on one line, nothing fio would expand or a shell would run
DESCRIPTION_RE = re.compile(r"^[^\x00-\x1f\x7f$`{}\\/]{0,200}$")
#: sync_file_range=wait_before,write:8
SYNC_RANGE_RE = re.compile(
    r"^(?:wait_before|write|wait_after)(?:,(?:wait_before|write|wait_after)){0,2}"
    r"(?::\d{1,10})?$",
    re.I,
)
#: a section name another job's wait_for may name ("write-bandwidth-1")
JOB_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,60}$")
#: a log name kept in the run directory ("job1", "randread_bw"); "1"/"0" switch a log on/off
LOG_NAME_RE = re.compile(r"^(?:[01]?|[A-Za-z0-9][A-Za-z0-9_.-]{0,80})$")

#: what may follow a choice after ":" for the options that take it; digits and separators only,
#: so no path can hide there ("rw=randread:8", "random_distribution=zoned:50/10:50/90")
CHOICE_SUFFIX = {
    "rw": r"\d{1,12}[kmgt]?",
    "rw_sequencer": r"\d{1,12}",
    "file_service_type": r"[0-9.]{1,12}",
    "random_distribution": r"[0-9.:,/%]{1,200}",
    "lockfile": r"\d{1,6}",
}

Check = Callable[[str], bool]


def _matches(pattern: re.Pattern[str]) -> Check:
    return lambda value: bool(pattern.match(value))


_TYPE_CHECKS: dict[str, Check] = {
    "bool": _matches(BOOL_RE),
    "flag": _matches(BOOL_RE),
    "int": _matches(INT_RE),
    "size": _matches(SIZE_RE),
    "time": _matches(TIME_RE),
    "range": _matches(RANGE_RE),
    "float_list": _matches(FLOAT_LIST_RE),
}


def within(check: Check, low: int | None, high: int | None) -> Check:
    """``check``, and each plain integer of the value within fio's range for the option
    (``ba=0`` and ``nice=40`` are errors that make fio drop the job)."""
    if low is None and high is None:
        return check

    def checked(value: str) -> bool:
        if not check(value):
            return False
        for part in re.split(r"[,:]", value):
            if re.fullmatch(r"-?\d{1,20}", part.strip()):
                n = int(part)
                if (low is not None and n < low) or (high is not None and n > high):
                    return False
        return True

    return checked


def choice_check(name: str, choices: list[str]) -> Check:
    """One of fio's own values for ``name``, with the numeric suffix the option takes, if any."""
    suffix = CHOICE_SUFFIX.get(name)
    alternatives = "|".join(re.escape(c) for c in sorted(choices, key=len, reverse=True))
    tail = rf"(?::{suffix})?" if suffix else ""
    pattern = re.compile(rf"^(?:{alternatives}){tail}$", re.I)
    return _matches(pattern)


# ------------------------------------------------------------------ the table


@dataclass(frozen=True)
class Rule:
    """What the safety pass does with one option (see the module docstring)."""

    action: str
    reason: str = ""
    check: Check | None = None


#: options removed, each with the reason a user reads in the job file's comments
DROP = {
    # programs and code
    "exec_prerun": "runs a shell command before the job",
    "exec_postrun": "runs a shell command after the job",
    "program": "names a program for the exec engine",
    "arguments": "passes arguments to the exec engine's program",
    "std_redirect": "redirects the exec engine's program output",
    "grace_time": "only meaningful for the exec engine",
    # paths of the reporter's machine
    "directory": "points at a directory on the reporter's machine (the target is set by filename)",
    "opendir": "adds every file under a directory on the reporter's machine",
    "filename_format": "names files at arbitrary paths (the target is set by filename)",
    "read_iolog": "replays an I/O log from a path on the reporter's machine",
    "read_iolog_chunked": "only meaningful with read_iolog",
    "replay_redirect": "redirects a replayed trace onto a device",
    "replay_align": "only meaningful with read_iolog",
    "replay_scale": "only meaningful with read_iolog",
    "replay_no_stall": "only meaningful with read_iolog",
    "replay_time_scale": "only meaningful with read_iolog",
    "replay_skip": "only meaningful with read_iolog",
    "merge_blktrace_file": "writes a merged trace to an arbitrary path",
    "merge_blktrace_iters": "only meaningful with merge_blktrace_file",
    "merge_blktrace_scalars": "only meaningful with merge_blktrace_file",
    "verify_state_load": "loads a verify state file from the reporter's machine",
    "donorname": "names a donor file the e4defrag engine creates or truncates",
    "inplace": "only meaningful for the e4defrag engine",
    "profile": "runs a built-in workload with targets of its own",
    # the system
    "ioscheduler": "switches the device's I/O scheduler (see setup.sh instead)",
    "cgroup": "creates and joins a cgroup",
    "cgroup_weight": "changes a cgroup's weight",
    "cgroup_nodelete": "leaves cgroups behind",
    "uid": "switches user",
    "gid": "switches group",
    # data
    "unlink": "would delete the target file after the run",
    "unlink_each_loop": "would delete the target file after each loop",
    "fill_device": "fills the whole file system holding the target",
    "allow_mounted_write": "disables fio's refusal to write to mounted devices",
    # the network and other machines
    "hostname": "names a host for a network engine",
    "port": "opens a port for a network engine",
    "interface": "names a network interface",
    "listen": "listens for network connections",
    "protocol": "chooses a network protocol",
    "mss": "only meaningful for a network engine",
    "nodelay": "only meaningful for a network engine",
    "pingpong": "only meaningful for a network engine",
    "ttl": "only meaningful for a network engine",
    "window_size": "only meaningful for a network engine",
    "unique_filename": "only meaningful for network clients",
    "bindname": "only meaningful for the rdma engine",
    "verb": "only meaningful for the rdma engine",
    "clientname": "names a Ceph client",
    "clustername": "names a Ceph cluster",
    "conf": "reads a Ceph configuration file from the reporter's machine",
    "pool": "names a Ceph pool",
    "rbdname": "names a Ceph block device",
    "busy_poll": "only meaningful for a Ceph engine",
    "touch_objects": "creates Ceph objects",
    "brick": "names a GlusterFS brick",
    "volume": "names a GlusterFS volume",
    "single-instance": "only meaningful for a GlusterFS engine",
    "uri": "names an NBD server",
}

#: options reviewed as harmless: numbers, switches and fio's own choices that shape the I/O on the
#: target, its timing and its reporting; none names a file, a program or another machine
_KEEP_NAMES = """
    allow_file_create create_fsync create_on_open create_only create_serialize file_service_type
    ignore_zone_limits job_max_open_zones lockfile max_open_zones nrfiles openfiles pre_read
    read_beyond_wp zone_reset_frequency zone_reset_threshold zonecapacity zonemode zonerange zonesize
    zoneskip
    allrandrepeat atomic buffered direct end_fsync fadvise_hint fallocate fdatasync fsync fsync_on_close
    norandommap offset offset_align offset_increment overwrite percentage_random random_distribution
    random_generator randrepeat rw rw_sequencer rwmixread rwmixwrite unified_rw_reporting write_barrier
    write_hint
    ba bs bs_unaligned bsrange
    block_error_percentiles bwavgtime clat_percentiles disable_bw_measurement disable_clat disable_lat
    disable_slat disk_util group_reporting iopsavgtime lat_percentiles log_alternate_epoch
    log_alternate_epoch_clock_id log_avg_msec log_compression log_entries log_hist_coarseness log_hist_msec
    log_max_value log_offset log_store_compressed log_unix_epoch new_group per_job_logs percentile_list
    significant_figures slat_percentiles stats log_prio
    buffer_compress_chunk buffer_compress_percentage dedupe_global dedupe_mode dedupe_percentage
    dedupe_working_set_percentage hugepage-size invalidate lockmem refill_buffers scramble_buffers sync
    zero_buffers
    clocksource gtod_cpu gtod_reduce ramp_time runtime startdelay time_based
    cmd_type cmdprio cmdprio_class cmdprio_percentage cpuchunks cpuload cpumode exit_on_io_done fixedbufs
    force_async hipri hipri_percentage nonvectored nowait readfua registerfiles sg_write_mode skip_bad
    sqthread_poll sqthread_poll_cpu stat_type stream_id userspace_reap writefua thp uncached
    continue_on_error error_dump exitall_on_error
    cpumask cpus_allowed_policy exit_what exitall flow flow_id flow_sleep nice prio prioclass stonewall
    thread
    do_verify experimental_verify trim_backlog_batch trim_percentage trim_verify_zero verify verify_async
    verify_backlog_batch verify_dump verify_fatal verify_interval verify_offset verify_only
    verify_state_save
    file_append filesize io_size size
    io_submit_mode iodepth iodepth_batch_complete_max iodepth_batch_complete_min iodepth_batch_submit
    iodepth_low serialize_overlap
    kb_base unit_base
    latency_percentile latency_run latency_target latency_window max_latency rate_cycle
    loops numjobs
    rate rate_ignore_thinktime rate_iops rate_iops_min rate_min rate_process thinktime thinktime_blocks
    thinktime_blocks_type thinktime_iotime thinktime_spin
    steadystate_duration steadystate_ramp_time
"""
KEEP = frozenset(_KEEP_NAMES.split())

#: free-text options kept only when their value has the one shape fio gives it
SPECIAL_CHECKS: dict[str, Check] = {
    "bssplit": _matches(SPLIT_RE),
    "cmdprio_bssplit": _matches(SPLIT_RE),
    "buffer_pattern": _matches(PATTERN_RE),
    "verify_pattern": _matches(PATTERN_RE),
    "cpus_allowed": _matches(CPU_LIST_RE),
    "numa_cpu_nodes": _matches(CPU_LIST_RE),
    "log_compression_cpus": _matches(CPU_LIST_RE),
    "numa_mem_policy": _matches(NUMA_POLICY_RE),
    "ignore_error": _matches(ERROR_LIST_RE),
    "steadystate": _matches(STEADY_RE),
    "description": _matches(DESCRIPTION_RE),
    "sync_file_range": _matches(SYNC_RANGE_RE),
    "randseed": _matches(INT_RE),
    "number_ios": _matches(INT_RE),
    "trim_backlog": _matches(INT_RE),
    "verify_backlog": _matches(INT_RE),
}

#: the logs fio writes (a bare name is a file in the run directory)
LOGS = frozenset({"write_iolog", "write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log"})
SPECIAL_ACTIONS = {
    "filename": Rule("target"),
    "name": Rule("section"),
    "ioengine": Rule("engine"),
    "mem": Rule("memory"),
    "wait_for": Rule("job", check=_matches(JOB_NAME_RE)),
    **{name: Rule("log", check=_matches(LOG_NAME_RE)) for name in LOGS},
}


def build_table(catalog_options: dict[str, dict]) -> dict[str, Rule]:
    """The rule of every option of ``catalog_options`` (fio's catalog, canonical names).

    A catalog option listed nowhere above gets no rule, and so is dropped as unreviewed; a kept
    option's value is checked by its own pattern, else as one of fio's choices, else by its type.
    """
    table: dict[str, Rule] = {}
    for name, row in catalog_options.items():
        if name in DROP:
            table[name] = Rule("drop", DROP[name])
        elif name in SPECIAL_ACTIONS:
            table[name] = SPECIAL_ACTIONS[name]
        elif name in SPECIAL_CHECKS:
            table[name] = Rule("keep", check=SPECIAL_CHECKS[name])
        elif name not in KEEP:
            continue
        elif row.get("valid_values"):
            table[name] = Rule("keep", check=choice_check(name, [str(v) for v in row["valid_values"]]))
        elif row.get("type") in _TYPE_CHECKS:
            check = within(_TYPE_CHECKS[row["type"]], row.get("minimum"), row.get("maximum"))
            table[name] = Rule("keep", check=check)
    return table
