"""A tool's listing of a device's fields is neither a measurement nor a claim (lspci -vv, nvme id-ns).

Real lines: Qian Cai, "Re: [PATCH v8 17/18] scsi: megaraid_sas: Added support for shared host
tagset for cpuhotplug", linux-block, 2020-11-02,
<fe3dff7dae4494e5a88caffbb4d877bbf472dceb.camel@redhat.com> (lspci -vv of the HBA): a capability's
range read as a change from 65 ms to 210 ms listed a feature series as a 223 % regression; Nilay
Shroff, "[Bug Report] nvme-cli fails re-formatting NVMe namespace", linux-block, 2024-03-15,
<7a3b35dd-7365-4427-95a0-929b28c64e73@linux.ibm.com> (nvme id-ns): an LBA format's rating
"Degraded" read as a slowdown listed a failed format as a regression.

A PCI device's registers as lspci -vv prints them, indented or with the mail's tabs lost: Qian Cai's
listing above; Lennert Buytenhek, "Re: ASMedia ASM1062 (AHCI) hang after ...", linux-ide,
2024-01-23, <ZbAo_LqpbiGMfTtW@wantstofly.org>; Robin Peiremans, "sysfs: cannot create duplicate
filename", linux-rdma, 2022-02-13, <CAJt3DjCM1uKkutB0srAiofuLUunX8hJZ+h+xkkTKmN3p_r+OLg@mail.gmail.com>
(a driver that stopped showing its ports, bisected: the link's exit latencies, "<64ns", "<4us", were
read as measured times and listed the failure as a regression).
"""

from __future__ import annotations

import pytest

from lkmlkb.extract.claims import find_claims
from lkmlkb.extract.lines import field_listing
from lkmlkb.extract.results import find_results

LSPCI = """\
\t\tDevCap2: Completion Timeout: Range BC, TimeoutDis+, LTR-, OBFF Not Supported
\t\tDevCtl2: Completion Timeout: 65ms to 210ms, TimeoutDis-, LTR-, OBFF Disabled
"""
#: the registers of three listings: ASPM's exit latencies and a link's speed are capabilities
PCI_REGISTERS = """\
\t\tDevCap:\tMaxPayload 4096 bytes, PhantFunc 0, Latency L0s <64ns, L1 <1us
\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x8, ASPM L0s, Exit Latency L0s <2us
                LnkCap: Port #4, Speed 16GT/s, Width x1, ASPM L1, Exit Latency L1 <32us
                LnkSta: Speed 5GT/s, Width x1
DevCap: MaxPayload 512 bytes, PhantFunc 0, Latency L0s <64ns, L1 <1us
LnkCap: Port #0, Speed 5GT/s, Width x8, ASPM L0s, Exit Latency L0s <4us
LnkSta: Speed 5GT/s (ok), Width x4 (downgraded)
"""
NVME_ID_NS = """\
LBA Format  0 : Metadata Size: 0   bytes - Data Size: 4096 bytes - Relative Performance: 0 Best (in use)
LBA Format  3 : Metadata Size: 8   bytes - Data Size: 512 bytes - Relative Performance: 0x3 Degraded
LBA Format  4 : Metadata Size: 64  bytes - Data Size: 4096 bytes - Relative Performance: 0x3 Degraded
"""


@pytest.mark.parametrize("line", [*LSPCI.splitlines(), *PCI_REGISTERS.splitlines(), *NVME_ID_NS.splitlines()])
def test_the_lines_of_a_device_listing_are_field_listings(line):
    assert field_listing(line)


@pytest.mark.parametrize(
    "line",
    [
        "Before: 100 MB/s After: 50 MB/s Delta: -50%",
        "Result: read bandwidth dropped from 2 GB/s to 1 GB/s",
        "  WRITE: bw=745MiB/s (781MB/s), 745MiB/s-745MiB/s (781MB/s-781MB/s), io=43.6GiB (46.8GB)",
        "pre- and post-processing: 10ms to 20ms",
        "Latency: p99 went from 65ms to 210ms - regression: yes",
        # a person's words that open like a register: not lspci's
        "Devcap: the exit latency went from <4us to 64us after the upgrade",
        "LnkSta dropped: reads now 5 GB/s, not 8 GB/s",
    ],
)
def test_prose_and_measurements_are_no_field_listings(line):
    assert not field_listing(line)


def test_a_capabilitys_range_is_no_change_measured():
    assert find_results(LSPCI) == []
    # the same range said by a person is one
    assert [(r.value, r.config) for r in find_results("Completion latency went from 65ms to 210ms.\n")] == [
        (65.0, "before"),
        (210.0, "after"),
    ]


def test_a_format_rated_degraded_is_no_slowdown():
    assert find_claims(NVME_ID_NS) == []
    assert [c.kind for c in find_claims("Write performance degraded badly on 6.8.\n")] == ["regression"]


def test_a_links_exit_latencies_are_no_times_measured():
    assert find_results(PCI_REGISTERS) == []
    assert find_claims(PCI_REGISTERS) == []
    # a latency said in prose is one
    said = find_results("Exit latency is now 64us, it was 4us on 6.1.\n")
    assert [(r.value, r.unit, r.kernel) for r in said] == [(64.0, "us", None), (4.0, "us", "6.1")]


#: linux-pci, "Re: Kernel 5.9 IOMMU groups regression/change" (2020-10,
#: <63e89b35-ad83-98e9-c032-704381e5221e@bstnet.org>): an lspci -vv listing whose mailer indented
#: it with no-break spaces; its exit latencies, "<512ns", "<16us", were read as measured times
NBSP_LSPCI = (
    "Here is lspci -vvv of the root port:\n\n"
    + "\xa0 " * 15
    + "LnkCap: Port #5, Speed 5GT/s, Width x2, ASPM L0s L1, Exit Latency L0s <512ns, L1 <16us\n"
    + "\xa0 " * 15
    + "LnkSta: Speed 5GT/s (ok), Width x1 (downgraded)\n"
)


@pytest.mark.parametrize(
    ("body", "values"),
    [
        (NBSP_LSPCI, []),
        # a person's figures indented so are read as they are
        (
            "The regression, measured with dd:\n\n"
            + "\xa0 " * 4
            + "Throughput dropped from 512 MB/s to 16 MB/s after the upgrade.\n",
            [512.0, 16.0],
        ),
    ],
)
def test_a_listing_indented_with_no_break_spaces_is_a_listing(body, values):
    from lkmlkb.extract.messages import extract_messages
    from lkmlkb.model import Message

    msg = Message("a@b", subject="Kernel 5.9 IOMMU groups regression/change", body=body)
    ((_, (_, findings)),) = extract_messages([msg]).items()
    assert sorted(r.value for f in findings for r in f.results) == sorted(values)
