"""Hostile text against every extractor, the segmenter and extract_message.

Hypothesis draws text from alphabets biased to what the patterns care about
(digits, ``.``, ``-``, ``:``, ``=``, ``|``, ``>``, brackets, ``/``, ``x``,
hex, spaces, newlines), raw bytes decoded as mail would be, and lines of a
real report (corpus/000_a3585e8f2465c212.txt, the mq-deadline fio
regression thread) cut, repeated and spliced with that noise.  Then a table
of long runs built to make patterns or spaCy backtrack (each one was slow
or is next to one that was).  Every call must return a list (Findings for
extract_message), raise nothing, and finish within BOUND_S.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lkmlkb.extract.claims import find_claims
from lkmlkb.extract.commits import find_commits
from lkmlkb.extract.kernels import find_kernels
from lkmlkb.extract.messages import extract_message, warm_up
from lkmlkb.extract.results import find_results
from lkmlkb.extract.setup import find_setup
from lkmlkb.fio.find import find_fio_jobs
from lkmlkb.model import Findings, Message
from lkmlkb.threads.segments import segment_body

ROOT = Path(__file__).resolve().parents[2]
#: real lines of a real report: the seed thread about an mq-deadline fio regression
SEED_LINES = (ROOT / "corpus" / "000_a3585e8f2465c212.txt").read_text(encoding="utf-8").splitlines()

#: per call, wall clock; generous for a loaded CI machine, far below a backtracking blow-up
BOUND_S = 3.0
EXAMPLES = 120
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _message(text: str) -> tuple[Message, list]:
    """A message whose subject passes the prefilter, so every extractor runs."""
    return Message("fuzz@lkmlkb.invalid", subject="fio regression", body=text), segment_body(text)


def _extract_message(text: str) -> Findings:
    msg, segs = _message(text)
    findings, passed = extract_message(msg, segs)
    assert passed
    return findings


TARGETS = {
    "find_results": find_results,
    "find_kernels": find_kernels,
    "find_commits": find_commits,
    "find_setup": find_setup,
    "find_claims": find_claims,
    "find_fio_jobs": find_fio_jobs,
    "segment_body": segment_body,
    "extract_message": _extract_message,
}

PATTERN_CHARS = "0123456789abcdefx.-:=|>[]/ \n\t%+,()*#@<v"
TOKENS = [
    "fio",
    "iops",
    "IOPS=",
    "bw=",
    "MiB/s",
    "KB/s",
    "v6.8-rc7",
    "6.7.0",
    "commit ",
    "Fixes: ",
    "0123456789ab",
    "[global]",
    "[job1]",
    "rw=randread",
    "bs=4k",
    "iodepth=32",
    "--ioengine=io_uring",
    "%change",
    "%stddev",
    "±",
    "|",
    "  ",
    "> ",
    ">> ",
    "\n",
    "\n\n",
    "-- \n",
    "regression",
    "bisected to",
    "WRITE:",
    "READ:",
    "Run status group 0",
    "lat (usec):",
    "clat percentiles",
    "mq-deadline",
    "nvme0n1",
    "ext4",
    "+10.5%",
    "-72.9%",
    "=",
    "---",
    "diff --git",
    "@@ -1 +1 @@",
    "\x00",
    "\ud800",
    "\u200b",
]


def text_strategy() -> st.SearchStrategy[str]:
    """Biased alphabets, decoded bytes, report tokens, and real lines cut and spliced with noise."""
    biased = st.text(alphabet=st.sampled_from(PATTERN_CHARS), max_size=3000)
    anything = st.text(max_size=1500)
    decoded = st.binary(max_size=3000).map(lambda b: b.decode("utf-8", "surrogateescape"))
    latin = st.binary(max_size=3000).map(lambda b: b.decode("latin-1"))
    tokens = st.lists(
        st.sampled_from(TOKENS) | st.text(alphabet=PATTERN_CHARS, max_size=12), max_size=400
    ).map("".join)
    real = st.lists(
        st.tuples(
            st.sampled_from(SEED_LINES),
            st.integers(0, 120),
            st.integers(1, 6),
            st.text(alphabet=PATTERN_CHARS, max_size=40),
        ),
        max_size=60,
    ).map(lambda parts: "\n".join((line[:cut] + noise) * rep for line, cut, rep, noise in parts))
    return st.one_of(biased, anything, decoded, latin, tokens, real)


def run_bounded(fn, text: str):
    """Call one target, check its return type and its time."""
    t0 = time.thread_time()  # CPU time: a loaded machine must not fail the bound
    out = fn(text)
    elapsed = time.thread_time() - t0
    assert isinstance(out, (list, Findings))
    assert elapsed < BOUND_S, f"{elapsed:.2f}s on {text[:80]!r}... ({len(text)} chars)"
    return out


@pytest.fixture(scope="module", autouse=True)
def _warm():
    warm_up()  # spaCy pipelines built once, outside every bound


@pytest.mark.parametrize("name", sorted(TARGETS))
@FUZZ
@given(text=text_strategy())
def test_no_exception_and_bounded_time(name, text):
    run_bounded(TARGETS[name], text)


# Long runs of what the patterns' quantifiers (and spaCy's affix rules) accept,
# with a failing tail.  Comments name what each one caught when it was slow.
ADVERSARIAL = {
    "digits": "1" * 50_000 + "!",
    "letter-dot": "a." * 30_000,
    "spaces": " " * 100_000 + "x",
    "dashes": "-" * 50_000,
    "equals": "=" * 50_000,  # 5,000 of them took 21 s in find_claims (spaCy suffixes)
    "pipes": "|" * 50_000,
    "quotes": ">" * 20_000 + "x",  # spaCy affix stripping, like "="
    "hex-prefix": "0x" * 30_000,  # TUNABLE_RE retried every offset (repro setup)
    "brackets": "[" * 20_000,  # spaCy affix stripping
    "ruler-word": ("=" * 15 + "a") * 6_000,  # one 96,000-char word: spaCy suffix search
    "one-line-report": "fio regression 10% iops v6.8 bw=1MiB/s " * 2_500,
    "long-line-nul": ("WRITE: bw=1MiB/s \x00" * 60_000)[:1_000_000],
    "nested-quotes": ("> " * 200 + "fio bw=1MiB/s\n") * 200,
    "table-flood": ("| 1.0 | 2.0 | +100% |\n" * 4_000),
    # 3,000 SHAs and versions in one "sentence" (no full stop): commit merging and
    # sentence lookups were quadratic (6 s of CPU per message, over the 2 s budget)
    "sha-flood": "".join(
        f"bisected to {(i * 2654435761) % 16**12:012x} on v6.{i % 20}-rc{i % 8}, "
        f"regression of {i % 50}% in fio\n"
        for i in range(3_000)
    ),
    # a signature separator scanned to the end of the message for its length, at every "-- ":
    # 4,000 of them (32 KB) took 5.9 s in segment_body
    "signature-flood": "-- \nx\n" * 4_000,
    "separator-lines": "--\n" * 8_000,
    # the other mail structures the segmenter looks for, repeated
    "attribution-flood": "On Mon, Jan 1, 2024 at 10:00 AM A B <a@b.c> wrote:\n> fio bw=1MiB/s\n" * 3_000,
    "outlook-flood": "-----Original Message-----\nFrom: A\nSent: Monday\nSubject: fio\n> x\n" * 3_000,
    "patch-flood": "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n-- \n2.43.0\n\n" * 2_000,
    "footer-flood": "_______________________________________________\nlinux-block mailing list\nx\n" * 3_000,
    # what each extractor looks for, line after line: every line a finding (per-finding work, no
    # more); 3,000 Fixes: trailers with addresses took 2.2 s in find_commits (pairwise span tests)
    "trailer-flood": "".join(
        f'Fixes: {(i * 2654435761) % 16**12:012x} ("block: fix {i}")\n'
        "Reported-by: kernel test robot <lkp@intel.com>\n"
        for i in range(3_000)
    ),
    "jobfile-flood": "".join(
        f"[job{i}]\nrw=randread\nbs=4k\niodepth=32\nfilename=/dev/nvme0n1\n" for i in range(3_000)
    ),
    "fio-output-flood": "".join(
        f"job{i}: (groupid=0, jobs=1): err= 0: pid={i}\n  read: IOPS={i}k, BW={i}MiB/s "
        f"({i}MB/s)(1GiB/1s)\n    clat (usec): min=1, max=2, avg=1.5, stdev=0.1\n"
        for i in range(2_000)
    ),
    "cmdline-flood": "".join(
        f"fio --name=j{i} --rw=randwrite --bs=4k --iodepth=16 --filename=/dev/sd{chr(97 + i % 26)}"
        " --runtime=60\n"
        for i in range(3_000)
    ),
    "lkp-row-flood": "".join(
        f"     {i}.12 \u00b1  5%     -{i % 90}.0%      {i}.12 \u00b1  6%  fio.read_iops{i}\n"
        for i in range(5_000)
    ),
    "kernel-pair-flood": "".join(
        f"v6.{i % 20}: {i} MB/s\nv6.{i % 20}-rc{i % 8}: {i + 1} MB/s\n" for i in range(3_000)
    ),
}


@pytest.mark.parametrize("label", sorted(ADVERSARIAL))
def test_adversarial_runs(label):
    text = ADVERSARIAL[label]
    for fn in TARGETS.values():
        run_bounded(fn, text)


def test_hostile_input_still_yields_what_a_report_says():
    # bounded is not enough: a real report line in the middle of a flood is still found
    line = next(ln for ln in SEED_LINES if "WRITE: bw=" in ln or "write: IOPS=" in ln)
    text = "=" * 20_000 + "\n" + line + "\n" + ">" * 20_000 + "x\n"
    results = run_bounded(find_results, text)
    assert any(r.evidence.line_start == 1 for r in results), results
