"""Cue files: the cue phrases of each extractor, as data in ``lkmlkb/data/cues/<name>.jsonl``.

One pattern per line::

    {"id": "culprit-bisected-to", "label": "CULPRIT", "pattern": "bisected to"}
    {"id": "fix-fixed-by", "label": "FIX",
     "pattern": [{"LOWER": {"IN": ["fixed", "solved"]}}, {"LOWER": "by"}]}

A string pattern is matched on lower-cased tokens; a list is a spaCy
token pattern.  Every line is validated (JSON object, unique non-empty ``id``,
upper-case ``label``, pattern of the right type); a bad file raises
``CueFileError`` naming the file and line, because a broken rule file is a
programming error, not bad input.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from lkmlkb.errors import LkmlkbError

CUES_DIR = Path(__file__).resolve().parents[2] / "data" / "cues"


#: chars of the longest cue (its words and the spaces between) of a cue file read in windows
#: (kernels, claims; a test holds them to it): what such an extractor adds to its reach
CUE_WORDS_CHARS = 40

_LABEL_RE = re.compile(r"[A-Z][A-Z_]{0,40}")
_ID_RE = re.compile(r"[a-z0-9][a-z0-9_.\-]{0,80}")


class CueFileError(LkmlkbError):
    """A cue pattern file that is missing or malformed."""


def _validate_line(path: Path, lineno: int, obj, seen: set[str]) -> dict:
    """Check one JSONL pattern object; return it in EntityRuler form."""
    where = f"{path.name}:{lineno}"
    if not isinstance(obj, dict):
        raise CueFileError(where, "pattern line is not a JSON object")
    pid, label, pattern = obj.get("id"), obj.get("label"), obj.get("pattern")
    if not isinstance(pid, str) or not _ID_RE.fullmatch(pid):
        raise CueFileError(where, f"bad or missing id {pid!r}")
    if pid in seen:
        raise CueFileError(where, f"duplicate id {pid!r}")
    if not isinstance(label, str) or not _LABEL_RE.fullmatch(label):
        raise CueFileError(where, f"bad or missing label {label!r}")
    if isinstance(pattern, str):
        if not pattern.strip():
            raise CueFileError(where, "empty phrase pattern")
    elif isinstance(pattern, list):
        if not pattern or not all(isinstance(t, dict) and t for t in pattern):
            raise CueFileError(where, "token pattern must be a non-empty list of objects")
    else:
        raise CueFileError(where, "pattern must be a string or a list of token objects")
    unknown = set(obj) - {"id", "label", "pattern", "comment", "example"}
    if unknown:
        raise CueFileError(where, f"unknown keys {sorted(unknown)}")
    seen.add(pid)
    return {"id": pid, "label": label, "pattern": pattern.lower() if isinstance(pattern, str) else pattern}


@cache
def load_patterns(name: str) -> tuple[dict, ...]:
    """The validated patterns of ``data/cues/<name>.jsonl`` (blank and ``//`` lines skipped)."""
    path = CUES_DIR / f"{name}.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CueFileError(str(path), f"cannot read cue file: {exc}") from exc
    seen: set[str] = set()
    out = []
    for i, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CueFileError(f"{path.name}:{i}", f"invalid JSON: {exc.msg}") from exc
        out.append(_validate_line(path, i, obj, seen))
    if not out:
        raise CueFileError(str(path), "no patterns")
    return tuple(out)
