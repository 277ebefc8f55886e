"""A figure a message gives twice (a tool's output and the message's own words) is one
measurement: the copy naming no kernel takes the kernel of the copy that names one."""

from __future__ import annotations

import pytest

from lkmlkb.extract.messages import extract_messages
from lkmlkb.model import Message
from lkmlkb.reports.build import build_report


def _report(body: str):
    msg = Message("restated@example.org", subject="copy slow after kernel upgrade", body=body)
    ((tid, (msgs, findings)),) = extract_messages([msg]).items()
    return build_report(tid, msgs, findings)


# written for the pattern (a status a tool prints pasted below the prose that rounds it, as in
# btrfs scrub reports on linux-btrfs)
PROSE_THEN_TOOL = """\
My nightly scrub slowed from about 2.1 GB/s to about {said} MB/s after
I installed kernel 6.8.2, upgrading from 6.7.9.

Here is the status of the last scrub:

Status:           finished
Rate:             {printed}MiB/s
Error summary:    no errors found
"""


@pytest.mark.parametrize(
    "said,printed", [("612", "611.74"), ("612", "612.3"), ("612", "612"), ("1.4", "1.43")]
)
def test_a_tools_figure_the_prose_rounds_takes_the_prose_kernel(said, printed):
    r = _report(PROSE_THEN_TOOL.format(said=said, printed=printed))
    tool = [x for x in r.results if x.evidence.text.lstrip().startswith("Rate:")]
    assert [x.kernel for x in tool] == ["6.8.2"]
    assert r.regression_pct is not None  # sized from the prose's pair, as before


@pytest.mark.parametrize(
    "said,printed",
    [
        ("612", "640.12"),  # another figure
        ("612", "613.51"),  # not the prose's rounding
        ("6", "6.3"),  # one digit says too little
    ],
)
def test_a_figure_the_prose_does_not_round_to_stays_unnamed(said, printed):
    r = _report(PROSE_THEN_TOOL.format(said=said, printed=printed))
    tool = [x for x in r.results if x.evidence.text.lstrip().startswith("Rate:")]
    assert [x.kernel for x in tool] == [None]


def test_another_metric_is_not_a_restatement():
    body = PROSE_THEN_TOOL.format(said="612", printed="700").replace(
        "Error summary:", "Duration:         612 seconds\nError summary:"
    )
    r = _report(body)
    assert [x.kernel for x in r.results if x.metric == "elapsed"] == [None]
