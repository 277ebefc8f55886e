"""Report threads grouped into regressions by their stored keys, each link with its reason; a
timeline per regression and the status it gives.

A wrong merge is worse than a missed one: links are made only on what the mail says (a shared
culprit, a `Fixes:` tag, a `Link:`/`Closes:` tag, a regzbot command, one patch series, a reply
that lost its References, one message read from two sources), never on a subject alone across
more than :data:`LOST_REFERENCES_DAYS` days; two reports of one culprit stay apart when one of
them says it is another regression and their workloads or metrics differ.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from difflib import SequenceMatcher

from lkmlkb.regressions import keys as K
from lkmlkb.regressions.keys import Key, sha_match

#: replies that lost their References join their thread's regression within this many days
LOST_REFERENCES_DAYS = 7
#: versions of one patch series are this many days apart at most
SERIES_DAYS = 180


@dataclass
class ThreadRow:
    """A report thread as grouping sees it (its ``reports`` row)."""

    thread_id: str
    title: str = ""
    is_regression_report: bool = False
    status: str | None = None
    first_date: str | None = None
    last_date: str | None = None
    lists: list[str] = field(default_factory=list)
    people: list[str] = field(default_factory=list)
    numbers: str | None = None  # the headline numbers, as the timeline shows them
    synthetic: bool = False  # its messages have no Message-ID of their own (a pasted copy)
    message_count: int = 0
    reported_in: str | None = None  # the message its classification read the regression in
    reported_by: str | None = None  # who wrote that message ("kernel test robot lkp@intel.com")


@dataclass
class Member:
    thread_id: str
    part: str
    reason: str


@dataclass
class Event:
    event: str  # reported, bisected, fix proposed, fixed, reverted, backported
    date: str | None
    thread_id: str
    message_id: str | None
    text: str


@dataclass
class Regression:
    regression_id: str
    title: str
    status: str
    first_date: str | None
    last_date: str | None
    members: list[Member]
    timeline: list[Event]


def _days(a: str | None, b: str | None) -> float | None:
    try:
        return abs((datetime.fromisoformat(a) - datetime.fromisoformat(b)).total_seconds()) / 86400  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


#: two subjects this alike (difflib's ratio) and this long are one subject typed twice
ALIKE_RATIO = 0.9
ALIKE_CHARS = 24


def _alike(a: str, b: str) -> bool:
    """One subject written twice, a typo apart ("introduce new queue attribute asyc_dpeth" and
    "... async_depth"), the patch tags and numbering left out."""
    sa, sb = K.strip_subject(a), K.strip_subject(b)
    if min(len(sa), len(sb)) < ALIKE_CHARS:
        return False
    return SequenceMatcher(None, sa, sb, autojunk=False).ratio() >= ALIKE_RATIO


class _Union:
    def __init__(self, items) -> None:
        self.parent = {x: x for x in items}
        self.apart: list[tuple[str, str, str]] = []  # threads kept apart, and why
        self.anchored: set[str] = set()  # roots of groups holding a regression report

    def find(self, x: str) -> str:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a: str, b: str, anchors: set[str] | None = None) -> bool:
        """Join the groups of ``a`` and ``b``, unless two threads kept apart would be in one, or
        (``anchors`` given) both groups already hold one of ``anchors``."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        for x, y, _ in self.apart:
            rx, ry = self.find(x), self.find(y)
            if {rx, ry} == {ra, rb}:
                return False
        if anchors is not None and ra in self.anchored and rb in self.anchored:
            return False
        self.parent[rb] = ra
        if rb in self.anchored:
            self.anchored.discard(rb)
            self.anchored.add(ra)
        return True


def _named(people: set[str]) -> str:
    """Who of ``people`` (one person's name and address keys) a reason names: a name before an
    address."""
    return min(people, key=lambda p: ("@" in p, p))


def _links(
    rows: dict[str, ThreadRow], keys: dict[str, list[Key]], locate: dict[str, str], resolved: dict[str, str]
):
    """(a, b, reason) of every link, strongest kind first; and the pairs kept apart."""
    by_kind: dict[str, dict[str, list[Key]]] = {t: defaultdict(list) for t in rows}
    for t, ks in keys.items():
        for k in ks:
            by_kind[t][k.kind].append(k)
    out: list[tuple[str, str, str]] = []
    pointing: set[frozenset[str]] = set()  # pairs of threads one of which names a message of the other

    def chain(found: list[tuple[str, Key]], why) -> None:
        """Link each thread holding one key value to the next holding it (``why(ka, kb)`` says why)."""
        for (a, ka), (b, kb) in zip(found, found[1:], strict=False):
            if a != b:
                out.append((a, b, why(ka, kb)))

    # a thread's part in the story: a patch of some kind (a fix, applied, a revert, a backport)
    patch_parts = (K.FIX_PROPOSED, K.APPLIED, K.REVERT, K.STABLE)

    def is_patch(t: str) -> bool:
        return any(k.value.startswith(patch_parts) for k in by_kind[t][K.PART])

    def reportlike(t: str) -> bool:
        """A regression report that is no patch (a patch's "culprit" is the commit its Fixes: names),
        or a patch's thread whose regression the robot reported in a reply: the robot's commit is
        the patch as merged ("[PATCH 0/4] xfs: fix random format verification issues", aim7 -5.6%
        on its first patch as dc04db2aa7c9, linux-xfs 2022-05), a culprit its fixes name."""
        return rows[t].is_regression_report and (not is_patch(t) or robot_reply(t))

    def robot_reply(t: str) -> bool:
        """Whether ``t``'s regression was reported by the robot in a reply."""
        row = rows[t]
        return row.reported_in not in (None, t) and K.is_robot(row.reported_by or "")

    def _titles(t: str) -> set[str]:
        """A thread's patch subjects, as its series keys write them, and its own."""
        return {k.value for k in by_kind[t][K.SERIES]} | {K.strip_subject(rows[t].title)}

    def is_stable(t: str) -> bool:
        return any(k.value.startswith(K.STABLE) for k in by_kind[t][K.PART])

    # the same message from two sources
    copies: dict[str, list[tuple[str, Key]]] = defaultdict(list)
    for t in rows:
        for k in by_kind[t][K.COPY]:
            copies[k.value].append((t, k))
    for found in copies.values():
        chain(
            found,
            lambda ka, kb: (
                f"duplicate copy: {ka.message_id} and {kb.message_id} have one author, date and first lines"
            ),
        )

    # Link:/Closes: tags and regzbot dup-of pointing at a message of another report thread; a
    # stable backport's Link: to one patch inside a series' thread says where that patch was
    # posted, not which report it fixes (one to a thread's first message, a report or a fix
    # posted alone, does)
    # (another author's patch a series carries, its Link: naming where it was posted, says where
    # the patch came from, not that the series fixes that thread's regression: Jens Axboe's
    # "[PATCHSET v2 0/5] Improve async iomap DIO performance" carries Andres Freund's "io_uring:
    # Use io_schedule* in cqring wait", io-uring 2023-07)
    def carries(t: str, k: Key) -> bool:
        """Whether ``t``'s Link: ``k`` is that of another author's patch ``t`` carries (not a
        stable backport's: a backport is the patch's story)."""
        there = locate.get(k.value)
        if k.kind != K.LINK or there not in rows or there == t or is_stable(t):
            return False
        if not any(k2.value == k.value and k2.detail in _titles(there) for k2 in by_kind[t][K.CARRIED]):
            return False
        return not {a.value for a in by_kind[t][K.AUTHOR]} & {a.value for a in by_kind[there][K.AUTHOR]}

    # a Closes: to a reply inside a patch's thread closes the bug that reply found: a review's
    # finding the patch answers ("Closes:" Jan Kara's review of the ext4 large folio series, in
    # Zhang Yi's "fix insufficient credits", linux-ext4 2025-05), not the regression a tester
    # reported in another reply of that thread; the reply that reported it, the patch itself and
    # the robot's mail are what a fix of it closes (a Link: to a reply is the discussion it
    # continues: a renamed series' next version, a second series for the same slowness)
    def review_reply(k: Key, there: str | None) -> bool:
        return (
            k.kind == K.LINK
            and (k.detail or "").lower().startswith("closes")
            and there in rows
            and k.value != there
            and K.patch_version(rows[there].title) is not None
            and k.value != rows[there].reported_in
            and not K.is_robot(k.value)
        )

    for t in rows:
        backport = any(k.value.startswith(K.STABLE) for k in by_kind[t][K.PART])
        for k in by_kind[t][K.LINK] + by_kind[t][K.DUP_OF]:
            there = locate.get(k.value)
            if backport and k.kind == K.LINK and there is not None and k.value != there:
                continue
            if carries(t, k) or review_reply(k, there):
                continue
            if there and there != t and there in rows:
                out.append((t, there, f"{k.detail} in {k.message_id} points at {k.value}"))
                pointing.add(frozenset((t, there)))

    # two threads whose Link:/Closes: tags name one report: a regression report's message, or the
    # kernel test robot's report wherever it is (on another list, or sent into a patch's thread);
    # a crash report two patches name may be one of the other bugs a series fixes
    pointed: dict[str, list[tuple[str, Key]]] = defaultdict(list)
    for t in rows:
        for k in by_kind[t][K.LINK]:
            there = locate.get(k.value)
            if (
                (K.is_robot(k.value) or (there in rows and rows[there].is_regression_report))
                and not carries(t, k)
                and not review_reply(k, there)
            ):
                pointed[k.value].append((t, k))
        # a fix's log linking the robot's report in its words ("reported a -88.8% regression in
        # <link>"), as a Link: tag does: two fix series of one robot report (linux-xfs, 2023-06)
        if rows[t].is_regression_report and is_patch(t) and not is_stable(t):
            tagged = {k.value for k in by_kind[t][K.LINK]}  # named already, by its tag
            for k in by_kind[t][K.REFERS]:
                if K.is_robot(k.value) and k.value not in tagged:
                    pointed[k.value].append((t, k))
    for found in pointed.values():
        chain(
            found,
            lambda ka, kb: (
                f"{ka.detail} in {ka.message_id} and {kb.detail} in {kb.message_id} name one message"
            ),
        )
    # Fixes: tags and reverts naming a culprit
    culprits: list[tuple[str, str, Key]] = []
    for t in rows:
        for k in by_kind[t][K.CULPRIT]:
            culprits.append((t, resolved.get(k.value, k.value), k))

    # culprits by their first 12 hex digits: SHAs of one commit share them (shorter ones never match)
    by_prefix: dict[str, list[tuple[str, str, Key]]] = defaultdict(list)
    for t, c, k in culprits:
        if len(c) >= 12:
            by_prefix[c[:12]].append((t, c, k))

    def blamed(sha: str):
        full = resolved.get(sha, sha)
        return [(t, k) for t, c, k in by_prefix.get(full[:12], ()) if sha_match(c, full)]

    # a patch without a regression report of its own fixes *a* bug of the commit; it is the fix of
    # this regression when it names the reporter in its trailers or calls itself a regression fix
    def fixes_this(t: str, report: str) -> str | None:
        """Why patch ``t`` (no regression report) fixes the regression of ``report``, or None.
        The robot reports build warnings and slowdowns of one commit alike: a patch whose
        `Closes:`/`Link:` names another report of the robot fixes that one, whatever its
        `Reported-by:` says."""
        other_robot_report = any(
            K.is_robot(k.value) and locate.get(k.value) != report for k in by_kind[t][K.LINK]
        )
        named = {k.value for k in by_kind[t][K.TRAILER]} & {
            a.value for a in by_kind[report][K.AUTHOR] if not (other_robot_report and K.is_robot(a.value))
        }
        if named:
            return f"its trailers name the reporter {_named(named)}"
        if (
            robot_reply(report)
            and not other_robot_report
            and any(K.is_robot(k.value) for k in by_kind[t][K.TRAILER])
        ):
            return "its trailers name the robot, who reported it"
        return "its subject says regression" if "regression" in rows[t].title.lower() else None

    def credits(a: str, b: str) -> str | None:
        """Whom patch ``a``'s trailers credit of patch ``b``'s authors ("Reported-by: Song Liu"
        in one fix, Song Liu the author of the other), or None."""
        named = {k.value for k in by_kind[a][K.CREDITED]} & {k.value for k in by_kind[b][K.AUTHOR]}
        return _named(named) if named else None

    for t in rows:
        for k in by_kind[t][K.FIXES] + by_kind[t][K.REVERTS]:
            for there, kc in blamed(k.value):
                # two fixes of one commit, one crediting the other's author, are two answers to
                # one report: Jens Axboe's "[PATCHSET 0/2] Fix raid rebuild performance
                # regression" (Reported-by: Song Liu) and Song Liu's own fix (linux-block, 2022-03)
                # within SERIES_DAYS: years later, a fix of another bug of that commit credits
                # the first fix's author as its reviewer (Baokun Li's 2025 "better scalability"
                # series, "Fixes: 196e402adf2e" of Jan Kara's 2022 mb_optimize_scan fix)
                if (
                    there != t
                    and is_patch(t)
                    and rows[there].is_regression_report
                    and is_patch(there)
                    and not is_stable(t)
                    and (d := _days(rows[t].first_date, rows[there].first_date)) is not None
                    and d <= SERIES_DAYS
                    and (who := credits(there, t) or credits(t, there))
                ):
                    out.append(
                        (
                            t,
                            there,
                            f"{k.detail!r} in {k.message_id} names {kc.value}, a fix that credits {who}",
                        )
                    )
                    continue
                if there == t or not reportlike(there):
                    continue
                why = f"{k.detail!r} in {k.message_id} names the culprit {kc.value}"
                if not reportlike(t):
                    if (also := fixes_this(t, there)) is None:
                        continue
                    why += f", and {also}"
                out.append((t, there, why))

    # a link to a message of another thread in a message's words ("This is continuation for the
    # discussion I raised in <link>"), both threads blaming one commit by SHAs that agree as far
    # as the shorter, 7 hex digits or more (244adf6426 there, 244adf6426ee31a8 here): one a report
    # that is no patch, the other a report too or a patch whose Fixes:/revert names that commit
    # (versions of one patch link each other, and a backport links every patch it carries)
    def blames(t: str) -> set[str]:
        return {resolved.get(k.value, k.value) for k in by_kind[t][K.CULPRIT]}

    def repairs(t: str) -> set[str]:
        return {resolved.get(k.value, k.value) for k in by_kind[t][K.FIXES] + by_kind[t][K.REVERTS]}

    def agree(xs: set[str], ys: set[str]) -> list[str]:
        return sorted(min(x, y, key=len) for x in xs for y in ys if x.startswith(y) or y.startswith(x))

    def other_authors_fix(a: str, b: str) -> bool:
        """Both patches fixing a regression (no backport), by authors known and none in common."""
        aa, ab = ({k.value for k in by_kind[x][K.AUTHOR]} for x in (a, b))
        return (
            all(rows[x].is_regression_report and is_patch(x) and not is_stable(x) for x in (a, b))
            and bool(aa and ab)
            and not aa & ab
        )

    for t in rows:
        for k in by_kind[t][K.REFERS]:
            there = locate.get(k.value)
            if not there or there == t or there not in rows:
                continue
            if reportlike(t) or reportlike(there):
                report, other = (t, there) if reportlike(t) else (there, t)
                if reportlike(other) or (is_patch(other) and not is_stable(other)):
                    common = agree(blames(report), blames(other) if reportlike(other) else repairs(other))
                else:
                    common = []
            elif other_authors_fix(t, there):
                # two authors' fixes of one commit's regression, one citing the other ("Dave
                # Chinner reported a problem ... (see <link>)": linux-mm via linux-xfs, 2019-08);
                # one author's versions are the series rules' to join
                common = agree(repairs(t), repairs(there))
            else:
                continue
            if common:
                out.append((t, there, f"{k.message_id} links {k.value} and both name {common[0]}"))
                pointing.add(frozenset((t, there)))
    # a patch linking a bug of bugzilla.kernel.org whose mail is a regression report's thread
    bugs: dict[str, list[str]] = defaultdict(list)
    for t in rows:
        for k in by_kind[t][K.BUG]:
            bugs[k.value].append(t)
    for t in rows:
        for k in by_kind[t][K.BUG_CITED] if is_patch(t) else ():
            for there in bugs.get(k.value, ()):
                if there != t and reportlike(there):
                    out.append((t, there, f"{k.message_id} links {k.detail}, whose mail is this thread"))
    # regzbot fix: naming a patch by subject
    series: dict[str, list[tuple[str, Key]]] = defaultdict(list)
    for t in rows:
        for k in by_kind[t][K.SERIES]:
            series[k.value].append((t, k))
    for t in rows:
        for k in by_kind[t][K.FIX_SUBJECT]:
            for there, _ in series.get(k.value, ()):
                if there != t:
                    out.append((t, there, f"{k.detail!r} in {k.message_id} names the patch {k.value!r}"))
    # versions of one patch series: one subject, one author, within SERIES_DAYS
    for found in series.values():
        for i, (a, ka) in enumerate(found):
            for b, kb in found[i + 1 :]:
                authors_a = {k.value for k in by_kind[a][K.AUTHOR]}
                if a == b or not authors_a & {k.value for k in by_kind[b][K.AUTHOR]}:
                    continue
                d = _days(ka.date, kb.date)
                if d is not None and d <= SERIES_DAYS:
                    out.append(
                        (a, b, f"one patch series: {ka.detail!r} and {kb.detail!r} by {_named(authors_a)}")
                    )
    # versions of one series under another cover: patches of one author posted in both, within
    # SERIES_DAYS, two of them at least (one when a thread posts a single patch) and half of the
    # larger posting's: a patch carried into a long series (a "patchbomb" of sixty) or into an
    # unrelated one is one of many there, and such a series would bridge every regression it touches
    posted: dict[str, list[tuple[str, Key]]] = defaultdict(list)
    counts: dict[str, int] = defaultdict(int)
    for t in rows:
        for k in dict((k.value, k) for k in by_kind[t][K.PATCH]).values():
            posted[k.value].append((t, k))
            counts[t] += 1
    alike_pairs: dict[tuple[str, str], list[tuple[Key, Key]]] = defaultdict(list)
    for found in posted.values():
        for i, (a, ka) in enumerate(found):
            for b, kb in found[i + 1 :]:
                if a != b:
                    alike_pairs[(a, b)].append((ka, kb))
    for (a, b), both in alike_pairs.items():
        authors = {k.value for k in by_kind[a][K.AUTHOR]} & {k.value for k in by_kind[b][K.AUTHOR]}
        d = _days(both[0][0].date, both[0][1].date)
        alike = len(both) >= min(2, counts[a], counts[b]) and 2 * len(both) >= max(counts[a], counts[b])
        if authors and alike and d is not None and d <= SERIES_DAYS:
            ka, kb = both[0]
            out.append(
                (
                    a,
                    b,
                    f"one series: {ka.detail!r} and {kb.detail!r} by {_named(authors)}"
                    f" ({len(both)} patch{'es' if len(both) > 1 else ''} alike)",
                )
            )
    # a patch posted inside a thread that is no patch's (a fix sent in reply to a report), posted
    # again by its author as a thread of its own, within SERIES_DAYS: the thread is its next version
    # (Mike Snitzer's chunk_sectors patches, sent into the thread of a dm slowdown, then in "[PATCH
    # v3 0/6] dm: fix then improve bio splitting", linux-block and dm-devel 2020-09); one patch, or
    # two at least and half of those its author posted there, and a quarter of the other thread's
    inside: dict[tuple[str, str], list[Key]] = defaultdict(list)
    for t in rows:
        for k in by_kind[t][K.POSTED_IN]:
            who, _, title = k.value.partition("\n")
            inside[(t, who)].append(Key(K.PATCH, title, k.message_id, k.date, k.detail))
    for (t, who), mine in inside.items():
        again: dict[str, list[tuple[Key, Key]]] = defaultdict(list)
        for k in mine:
            for o, ko in posted.get(k.value, ()):
                if o != t and any(a.value == who for a in by_kind[o][K.AUTHOR]):
                    again[o].append((k, ko))
        n = len({k.value for k in mine})
        for o, both in again.items():
            d = _days(both[0][0].date, both[0][1].date)
            if (
                len(both) >= min(2, n)
                and 2 * len(both) >= n
                and 4 * len(both) >= counts[o]
                and d is not None
                and d <= SERIES_DAYS
            ):
                ka, kb = both[0]
                out.append(
                    (
                        t,
                        o,
                        f"{who} posted {ka.detail!r} in {ka.message_id} and again as {kb.detail!r}"
                        f" ({len(both)} patch{'es' if len(both) > 1 else ''} alike)",
                    )
                )
    # patches of one posting (one run of git send-email or b4, by their Message-IDs): a patch that
    # lost its In-Reply-To is still part of its series' thread
    postings: dict[str, list[tuple[str, Key]]] = defaultdict(list)
    for t in rows:
        for k in by_kind[t][K.POSTING]:
            postings[k.value].append((t, k))
    for found in postings.values():
        chain(found, lambda ka, kb: f"one posting: {ka.message_id} and {kb.message_id} were sent together")
    # versions of one fix whose subject changed (or that lost their threading): patches that fix
    # a regression (each a regression report; one at least saying so in its subject, or the two
    # subjects alike but for a typo), naming one culprit in their Fixes: tags, by one author,
    # within SERIES_DAYS (an author's fixes of other bugs of one commit report no regression:
    # they stay apart)
    # (a revert names what it takes out, a patch thread reporting the regression what it blames:
    # "[RFC] performance regression with <commit>" and "[PATCH 0/3] Revert <commit>", one author)
    fixers: dict[str, list[tuple[str, Key]]] = defaultdict(list)
    for t in rows:
        if is_patch(t) and rows[t].is_regression_report:
            seen: set[str] = set()
            for k in by_kind[t][K.FIXES] + by_kind[t][K.REVERTS] + by_kind[t][K.CULPRIT]:
                full = resolved.get(k.value, k.value)
                if len(full) >= 12 and full[:12] not in seen:
                    seen.add(full[:12])
                    fixers[full[:12]].append((t, k))
    for found_fix in fixers.values():
        for i, (a, ka) in enumerate(found_fix):
            for b, kb in found_fix[i + 1 :]:
                if a == b:
                    continue
                authors = {k.value for k in by_kind[a][K.AUTHOR]} & {k.value for k in by_kind[b][K.AUTHOR]}
                named = (
                    "regression" in rows[a].title.lower()
                    or "regression" in rows[b].title.lower()
                    or _alike(rows[a].title, rows[b].title)
                )
                d = _days(ka.date, kb.date)
                if authors and named and d is not None and d <= SERIES_DAYS:
                    out.append(
                        (a, b, f"one fix: both fix {ka.value[:12]} ({ka.detail!r}), by {_named(authors)}")
                    )
    # the same culprit; two reports stay apart when one says it is another regression and their
    # workloads or metrics differ
    apart: list[tuple[str, str, str]] = []
    pairs = ((x, y) for same in by_prefix.values() for i, x in enumerate(same) for y in same[i + 1 :])
    for (a, ca, ka), (b, cb, kb) in pairs:
        if a == b or not sha_match(ca, cb):
            continue
        if not (reportlike(a) or reportlike(b)):
            continue  # two patches of one commit: versions join as a series, not by the commit
        if not (reportlike(a) and reportlike(b)):
            patch, report = (a, b) if reportlike(b) else (b, a)
            if not is_patch(patch):
                continue  # no report and no patch (a hang's thread blaming the commit): not this regression
            if (also := fixes_this(patch, report)) is None:
                continue
            out.append(
                (a, b, f"same culprit {ka.value} ({ka.detail}) and {kb.value} ({kb.detail}), and {also}")
            )
            continue
        # one naming the other's message says they are one regression, whatever else differs
        said = [] if frozenset((a, b)) in pointing else by_kind[a][K.DIFFERENT] + by_kind[b][K.DIFFERENT]
        differ = [
            kind
            for kind in (K.WORKLOAD, K.METRIC)
            if (wa := {k.value for k in by_kind[a][kind]})
            and (wb := {k.value for k in by_kind[b][kind]})
            and not wa & wb
        ]
        # one says which regression it is, and the other's is another or not known
        unknown = not any(by_kind[x][kind] for x in (a, b) for kind in (K.WORKLOAD, K.METRIC)) or any(
            not (by_kind[x][K.WORKLOAD] or by_kind[x][K.METRIC]) for x in (a, b)
        )
        if said and (differ or unknown):
            differ = differ or ["workload and metric (one unknown)"]
            apart.append(
                (a, b, f"{said[0].message_id} says {said[0].detail!r}; {' and '.join(differ)} differ")
            )
            continue
        out.append((a, b, f"same culprit {ka.value} ({ka.detail}) and {kb.value} ({kb.detail})"))
    # replies that lost their References: one subject, shared people, within days
    subjects: dict[str, list[tuple[str, Key]]] = defaultdict(list)
    for t in rows:
        for k in by_kind[t][K.SUBJECT]:
            subjects[k.value].append((t, k))
    for value, found in subjects.items():
        for i, (a, _) in enumerate(found):
            for b, _ in found[i + 1 :]:
                shared = {k.value for k in by_kind[a][K.PERSON]} & {k.value for k in by_kind[b][K.PERSON]}
                d = _days(rows[a].first_date, rows[b].first_date)
                if a != b and shared and d is not None and d <= LOST_REFERENCES_DAYS:
                    out.append(
                        (
                            a,
                            b,
                            f"lost References: subject {value!r}, people {sorted(shared)}, {d:.1f} days apart",
                        )
                    )
    return out, apart


def group(
    rows: list[ThreadRow],
    keys: dict[str, list[Key]],
    locate: dict[str, str] | None = None,
    resolved: dict[str, str] | None = None,
) -> list[Regression]:
    """The regressions of ``rows``: every regression report in exactly one; other report threads
    (patches, reverts, backports) in the one their mail links them to, or in none.

    ``keys``: each thread's stored keys; ``locate``: the thread of a Message-ID; ``resolved``:
    a SHA as written to the full SHA a kernel tree gave it."""
    by_id = {r.thread_id: r for r in rows}
    keys = {t: keys.get(t, []) for t in by_id}
    links, apart = _links(by_id, keys, locate or {}, resolved or {})
    u = _Union(by_id)
    u.apart = apart
    why: dict[str, list[str]] = defaultdict(list)
    anchors = {t for t, r in by_id.items() if r.is_regression_report}
    u.anchored = set(anchors)
    # regression reports first, among themselves; then the other threads (patches, reverts), each
    # into one regression at most: a thread without a report never bridges two regressions
    for a, b, reason in [x for x in links if x[0] in anchors and x[1] in anchors]:
        if u.join(a, b) or u.find(a) == u.find(b):
            why[a].append(reason)
            why[b].append(reason)
    for a, b, reason in [x for x in links if not (x[0] in anchors and x[1] in anchors)]:
        if u.join(a, b, anchors) or u.find(a) == u.find(b):
            why[a].append(reason)
            why[b].append(reason)
    for a, b, reason in apart:
        if u.find(a) != u.find(b):
            why[a].append(f"kept apart from {b}: {reason}")
            why[b].append(f"kept apart from {a}: {reason}")
    comps: dict[str, list[str]] = defaultdict(list)
    for t in sorted(by_id):
        comps[u.find(t)].append(t)
    out = []
    for members in comps.values():
        if not any(by_id[t].is_regression_report for t in members):
            continue
        out.append(_regression([by_id[t] for t in members], keys, why))
    out.sort(key=lambda r: (r.first_date or "", r.regression_id), reverse=True)
    return out


def _part(keys: list[Key]) -> str:
    return next((k.value for k in keys if k.kind == K.PART), K.REPORT)


def _regression(rows: list[ThreadRow], keys: dict[str, list[Key]], why: dict[str, list[str]]) -> Regression:
    parts = {r.thread_id: _part(keys[r.thread_id]) for r in rows}
    # among copies of one thread, the one read with its own Message-IDs is the thread; the others duplicates
    copy_of: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        for k in keys[r.thread_id]:
            if k.kind == K.COPY:
                copy_of[k.value].append(r.thread_id)
    rank = {x.thread_id: (x.synthetic, -x.message_count, x.thread_id) for x in rows}
    for found in copy_of.values():
        ts = sorted(set(found), key=rank.__getitem__)
        for t in ts[1:]:
            parts[t] = K.DUPLICATE
    story = [r for r in rows if parts[r.thread_id] != K.DUPLICATE]
    reports = [r for r in story if parts[r.thread_id] in (K.REPORT, K.ROBOT, K.BISECTION)] or story
    anchor = min(reports, key=lambda r: (r.first_date or "9999", r.thread_id))
    for r in story:
        if (
            r is not anchor
            and parts[r.thread_id] == K.REPORT
            and any(k.kind == K.CULPRIT for k in keys[r.thread_id])
        ):
            if r.first_date and anchor.first_date and r.first_date > anchor.first_date:
                parts[r.thread_id] = K.BISECTION
    members = [
        Member(
            r.thread_id,
            parts[r.thread_id],
            "; ".join(dict.fromkeys((["first report"] if r is anchor else []) + why.get(r.thread_id, [])))
            or "first report",
        )
        for r in sorted(rows, key=lambda r: (r.first_date or "9999", r.thread_id))
    ]
    timeline = _timeline(anchor, story, parts, keys)
    dates = [d for r in rows for d in (r.first_date, r.last_date) if d]
    return Regression(
        regression_id="reg-" + hashlib.sha1(anchor.thread_id.encode()).hexdigest()[:12],
        title=anchor.title,
        status=status_of(timeline),
        first_date=min(dates) if dates else None,
        last_date=max([e.date for e in timeline if e.date] + dates, default=None),
        members=members,
        timeline=timeline,
    )


def _timeline(
    anchor: ThreadRow, story: list[ThreadRow], parts: dict[str, str], keys: dict[str, list[Key]]
) -> list[Event]:
    who = anchor.people[0] if anchor.people else "?"
    first_text = f"on {', '.join(anchor.lists) or '?'} by {who}" + (
        f": {anchor.numbers}" if anchor.numbers else ""
    )
    ev = [Event("reported", anchor.first_date, anchor.thread_id, None, first_text)]
    culprits = sorted(
        ((k.date or "", k, r) for r in story for k in keys[r.thread_id] if k.kind == K.CULPRIT),
        key=lambda x: x[0],
    )
    if culprits:
        _, k, r = culprits[0]
        ev.append(Event("bisected", k.date, r.thread_id, k.message_id, f"culprit {k.value} ({k.detail})"))
    for r in story:
        part = parts[r.thread_id]
        ks = keys[r.thread_id]
        first = next((k for k in ks if k.kind == K.PART), None)
        mid = first.message_id if first else None
        if part.startswith((K.FIX_PROPOSED, K.APPLIED)):
            ev.append(Event("fix proposed", r.first_date, r.thread_id, mid, f"{part.split()[-1]}: {r.title}"))
            for k in ks:
                if k.kind == K.APPLIED_SAID:
                    ev.append(Event("fixed", k.date, r.thread_id, k.message_id, f"{k.detail!r}: {r.title}"))
                    break
        elif part == K.REVERT:
            ev.append(Event("reverted", r.first_date, r.thread_id, mid, r.title))
        elif part == K.STABLE:
            ev.append(Event("backported", r.first_date, r.thread_id, mid, r.title))
        elif r.status in ("fixed", "reverted"):
            ev.append(Event(r.status, None, r.thread_id, None, f"the thread says so: {r.title}"))
    ev.sort(key=lambda e: (e.date or "9999", STATUSES.index(e.event)))
    return ev


#: statuses, the later a stage of the story the stronger
STATUSES = ("reported", "bisected", "fix proposed", "fixed", "reverted", "backported")


def status_of(timeline: list[Event]) -> str:
    """The latest stage the timeline reached."""
    seen = {e.event for e in timeline}
    return max((s for s in STATUSES if s in seen), key=STATUSES.index, default="reported")
