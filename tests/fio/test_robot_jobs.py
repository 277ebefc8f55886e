"""A kernel test robot report describes its fio run once: by its parameters block.

Trimmed from linux-btrfs, <202312022313.a9606b59-oliver.sang@intel.com> ("[linux-next:master]
[btrfs] 40b77b3e82: fio.write_iops -40.2% regression"): the report's parameters block, then the
job-script attachment that renders it as a fio task.
"""

from lkmlkb.fio.find import find_fio_jobs

ROBOT = """\
kernel test robot noticed a -40.2% regression of fio.write_iops on:

commit: 40b77b3e82f2b2a1d4a2d7e1c1e0a9b8c7d6e5f4 ("btrfs: ...")

testcase: fio-basic
test machine: 96 threads 2 sockets Intel(R) Xeon(R) Platinum 8260L CPU @ 2.40GHz (Cascade Lake) with 128G memory
parameters:

	runtime: 300s
	disk: 1HDD
	fs: btrfs
	nr_task: 1
	test_size: 128G
	rw: write
	bs: 4k
	ioengine: falloc
	cpufreq_governor: performance

mkdir -p /fs/sdb1
mount -t btrfs /dev/sdb1 /fs/sdb1

echo '[global]
bs=4k
ioengine=falloc
iodepth=32
size=137438953472
nr_files=1
filesize=137438953472
direct=0
runtime=300
group_reporting
pre_read=0

[task_0]
rw=write
directory=/fs/sdb1
numjobs=1' | fio --output-format=json -
"""


def test_the_parameters_block_is_the_job_and_its_rendering_is_not_a_second_one():
    (job,) = find_fio_jobs(ROBOT)
    assert job.form == "lkp-params"
    # the keys that say what fio ran (fio's names or LKP's words for them); the machine's disk and
    # file system are its setup, and the CPU governor no job option
    assert job.options == {
        "runtime": "300s",
        "nr_task": "1",
        "test_size": "128G",
        "rw": "write",
        "bs": "4k",
        "ioengine": "falloc",
    }


def test_a_job_file_beside_no_parameters_block_is_kept():
    script = ROBOT[ROBOT.index("mkdir -p") :]
    (job,) = find_fio_jobs(script)
    assert job.form == "jobfile" and job.options["ioengine"] == "falloc"
