"""Preparing raw mail for the store: parsed and segmented (and, with extraction, screened by
the prefilter) in the worker processes; a failure is returned, never raised."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from lkmlkb.db.store import content_hash
from lkmlkb.errors import ParseError
from lkmlkb.extract.views import may_hold_report
from lkmlkb.model import Message, Segment, pickled_as_fields
from lkmlkb.sources.base import RawMail
from lkmlkb.sources.mail import parse_message
from lkmlkb.threads.segments import new_text, segment_body

log = logging.getLogger(__name__)


@pickled_as_fields
@dataclass
class Prepared:
    message: Message
    segments: list[Segment]
    new_text: str
    cursor_key: str | None = None
    cursor: str | None = None
    #: screened by the workers: ``passed`` says whether it may hold a report
    screened: bool = False
    passed: bool = False
    #: the store's ``content_hash`` of the message, computed where it was parsed
    content_hash: str | None = None

    @property
    def may_pass(self) -> bool:
        """Whether it may hold a report (an unscreened message may)."""
        return self.passed or not self.screened

    @property
    def screened_pass(self) -> bool:
        """Whether the workers screened it and it passed (its extraction need not screen it again)."""
        return self.screened and self.passed


@pickled_as_fields
@dataclass
class Failure:
    source: str
    locator: str
    stage: str
    reason: str
    raw: bytes | None = None
    #: the source's cursor after the failed message: once the failure is recorded (raw, for
    #: ``lkmlkb reprocess``), a re-run need not read it again
    cursor_key: str | None = None
    cursor: str | None = None


def prepare_message(msg: Message) -> Prepared:
    segs = segment_body(msg.body)
    return Prepared(msg, segs, new_text(segs), content_hash=content_hash(msg))


def prepare_raw(item: RawMail) -> Prepared | Failure:
    """Parse and segment one raw message; a failure is returned, never raised."""
    try:
        msg = parse_message(item.raw, item.source, item.lists)
        p = prepare_message(msg)
    except ParseError as exc:
        reason = exc.reason
    except Exception as exc:
        reason = f"{exc.__class__.__name__}: {exc}"
    else:
        p.cursor_key, p.cursor = item.cursor_key, item.cursor
        return p
    return Failure(item.source, item.locator, "parse", reason, item.raw, item.cursor_key, item.cursor)


def prepare_batch(batch: list, screen: bool = False) -> list[Prepared | Failure]:
    out = []
    for item in batch:
        if isinstance(item, RawMail):
            p = prepare_raw(item)
        elif isinstance(item, Message):
            p = prepare_message(item)
        else:
            p = item
        if screen and isinstance(p, Prepared):
            _screen(p)
        out.append(p)
    return out


def prepare_and_screen(batch: list) -> list[Prepared | Failure]:
    return prepare_batch(batch, screen=True)


def _screen(p: Prepared) -> None:
    """Whether the message may hold a report (the prefilter), in the worker; a failure leaves
    it unscreened (it is then extracted, and what fails there is recorded)."""
    try:
        p.passed = may_hold_report(p.message, p.segments)
        p.screened = True
    except Exception:
        log.debug("screening %s failed", p.message.message_id, exc_info=True)
