"""fio command lines in mail -> FioJob records, resolving what a shell script decides.

Real forms (see the seeds):

* ``fio --bs=$BS --ioengine=libaio \\`` continued with backslashes inside a
  shell function, called twice with different arguments (corpus/001);
* ``fio --name=global --rw=write -bs=1024Ki ... -iodepth 1`` wrapped by the
  mailer onto a line starting ``-ioengine sync ...`` without a backslash, then
  several ``-name X -filename=Y`` jobs (corpus/003);
* ``for bs in 4k 8k; do fio --bs=$bs ...; done`` loops, ``QD=64``
  variables, prompts (``# fio ...``, ``$ sudo fio ...``), job files given as
  positional arguments (``fio randread.fio``).

The shell is interpreted only as far as it decides fio's arguments: variable
assignments, function definitions and calls (``$1``..``$9`` bound), ``for``
loops over literal words.  Anything else (command substitution, script
arguments) is unresolvable: the text stays as written and a note says so.
"""

from __future__ import annotations

import logging
import re
import shlex
from dataclasses import dataclass, field

from lkmlkb.fio import catalog
from lkmlkb.fio.common import MAX_LINE, clean_line, make_job, split_lines
from lkmlkb.model import FioJob

log = logging.getLogger(__name__)

MAX_JOBS = 500  # per text
MAX_LOOP_VALUES = 64  # per for loop
MAX_DEPTH = 6  # nested calls/loops
MAX_COMMANDS = 20000  # per text

FIO_CMD_RE = re.compile(
    r"""
    (?:^|(?<=[\s;&|(`'"]))          # start of line, after a separator or prompt: "# fio", "$ sudo fio"
    (?:[\w./-]{0,200}/)?            # "/usr/bin/fio", "./fio", "~/fio/fio"
    fio
    (?=[ \t]{1,40}(?:-|[\w./${}-]{1,300}\.(?:fio|job|ini|cfg|conf)\b|\S{1,300}/\S))  # then an option or a job file
    """,
    re.VERBOSE,
)
#: what the text of every fio command spells (see find_cmdlines): FIO_CMD_RE's "fio" and lookahead,
#: which stay inside one physical line, or a "fio" ending a line continued with a backslash ("fio \"
#: then "--bs=4k" below; whitespace between them is rstripped).  A command is a stretch of one line, or
#: lines joined at a backslash (or after a line FIO_CMD_RE matches); cutting it at ";", "&&", "||" or
#: after "do" and dropping "> " quote marks only puts it at a start or after a character FIO_CMD_RE's
#: lookbehind takes, so the cue leaves that lookbehind and the path before "fio" out.
FIO_CMD_CUE_RE = re.compile(
    r"""
    fio(?:[ \t]{1,40}(?:-|[\w./${}-]{1,300}\.(?:fio|job|ini|cfg|conf)\b|\S{1,300}/\S)   # FIO_CMD_RE's lookahead
       |\s{0,4000}\\)                                                                  # "fio \" ending a line
    """,
    re.VERBOSE,
)
WRAPPED_OPTION_LINE_RE = re.compile(
    r"""
    ^\s{0,40}-{1,2}(?P<name>[A-Za-z][A-Za-z0-9_-]{0,63})(?:[=\s]|$)   # "-ioengine sync -zero_buffers=1 ..." (corpus/003)
    """,
    re.VERBOSE,
)
ASSIGN_RE = re.compile(
    r"""
    ^(?:local\s{1,8}|export\s{1,8}|readonly\s{1,8}|declare\s{1,8}(?:-\w{1,4}\s{1,8})?)?   # "local QD=64", "export BS=4k"
    (?P<name>[A-Za-z_][A-Za-z0-9_]{0,63})=(?P<value>\S{0,2000}|"[^"]{0,2000}"|'[^']{0,2000}')\s{0,40}$   # "QD=64", 'DEV=`lsscsi ...`'
    """,
    re.VERBOSE,
)
FUNC_DEF_RE = re.compile(
    r"""
    ^(?:function\s{1,8}(?P<name1>[A-Za-z_][\w-]{0,63})(?:\s{0,8}\(\s{0,8}\))?   # "function run_fio {"
      |(?P<name2>[A-Za-z_][\w-]{0,63})\s{0,8}\(\s{0,8}\))                        # "run_fio() {" (corpus/001)
    \s{0,8}(?P<brace>\{)?\s{0,8}$
    """,
    re.VERBOSE,
)
FOR_RE = re.compile(
    r"""
    ^for\s{1,8}(?P<var>[A-Za-z_]\w{0,63})\s{1,8}in\s{1,8}(?P<words>.{0,2000}?)\s{0,8}$   # "for bs in 4k 8k 16k"
    """,
    re.VERBOSE,
)
BRACE_EXPANSION_RE = re.compile(r"^\{(?P<a>\d{1,6})\.\.(?P<b>\d{1,6})\}$")  # "for i in {1..4}"
VAR_RE = re.compile(
    r"""
    \$(?:\{(?P<braced>[A-Za-z_]\w{0,63}|\d{1,2})(?::?-(?P<default>[^}]{0,200}))?\}   # "${BS}", "${BS:-4k}"
       |(?P<plain>[A-Za-z_]\w{0,63}|\d))                                             # "$QD", "$1"
    """,
    re.VERBOSE,
)
PREFIX_WORDS = {"sudo", "time", "nohup", "exec", "command", "eval", "env", "then", "do", "else"}
PREFIX_WITH_ARG = {
    "taskset": 1,
    "numactl": None,
    "chrt": 1,
    "ionice": None,
    "nice": None,
    "stdbuf": None,
    "timeout": 1,
    "cgexec": None,
    "systemd-run": None,
}
JOBFILE_ARG_RE = re.compile(
    r"""
    ^(?:[\w.${}~/-]{1,300}\.(?:fio|job|ini|cfg|conf)   # "randread.fio", "/tmp/job.ini"
      |[\w.${}~-]{0,200}/[\w.${}/~-]{1,300}            # "jobs/seq-write" (a path)
      |-)$                                             # "-": the job file on stdin (LKP pipes into "fio -")
    """,
    re.VERBOSE,
)
UNRESOLVED = None
#: a word shlex splits out of text without quotes or backslashes: its whitespace is " \t\r\n" only
SHLEX_WORD_RE = re.compile(r"[^ \t\r\n]+")


@dataclass
class Command:
    """One simple shell command with the physical lines it came from."""

    text: str
    start: int
    end: int


@dataclass
class Env:
    """Shell variables; a value of None means 'set but unresolvable' (command substitution)."""

    vars: dict[str, str | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def child(self, **positional: str | None) -> Env:
        env = Env(dict(self.vars), list(self.notes))
        env.vars.update(positional)
        return env


# --- logical lines ---------------------------------------------------------------------------


def logical_lines(lines: list[str]) -> list[Command]:
    """Join ``\\`` continuations and mail-wrapped fio options into logical lines.

    A line that starts with ``-opt`` naming a fio option continues the fio
    command above it even without a backslash (corpus/003's quoted command).
    """
    out: list[Command] = []
    pending: Command | None = None
    pending_is_fio = False
    for i, raw in enumerate(lines):
        if not raw and pending is None:
            continue  # an empty line between commands (a dmesg paste is mostly these)
        line = "" if len(raw) > MAX_LINE else clean_line(raw).rstrip()
        if pending is not None:
            if pending.text.endswith("\\") or (pending_is_fio and _wrapped_fio_option(line)):
                body = pending.text[:-1] if pending.text.endswith("\\") else pending.text
                pending = Command(body.rstrip() + " " + line.strip(), pending.start, i)
                continue
            out.append(pending)
            pending = None
        if not line:  # rstripped: blank lines are empty
            continue
        pending = Command(line.lstrip(), i, i)
        pending_is_fio = "fio" in line and bool(FIO_CMD_RE.search(line))  # the pattern spells "fio"
    if pending is not None:
        out.append(pending)
    for cmd in out:
        if cmd.text.endswith("\\"):
            cmd.text = cmd.text[:-1].rstrip()
    return out


def _wrapped_fio_option(line: str) -> bool:
    """``-ioengine sync -zero_buffers=1 ...`` on a line of its own continues a fio command."""
    m = WRAPPED_OPTION_LINE_RE.match(line)
    if not m:
        return False
    name = m.group("name")
    return catalog.is_known(name) or catalog.cli_option(name) is not None


def split_commands(lines: list[Command]) -> list[Command]:
    """Split logical lines at unquoted ``;``, ``&&``, ``||`` and after ``do``/``then``."""
    out: list[Command] = []
    for cmd in lines:
        text = cmd.text
        part = text.strip()
        if (
            ";" not in text
            and "&&" not in text
            and "||" not in text
            and not part.startswith(("do", "then", "else"))
        ):
            if part:  # one part, nothing to cut: the loop below would copy the command
                out.append(cmd if part == text else Command(part, cmd.start, cmd.end))
            if len(out) > MAX_COMMANDS:
                return out
            continue
        for part in _split_unquoted(cmd.text):
            part = part.strip()
            while part.startswith(("do", "then", "else")):
                m = re.match(r"^(do|then|else)\s+(\S.*)$", part)
                if not m:
                    break
                out.append(Command(m.group(1), cmd.start, cmd.end))
                part = m.group(2).strip()
            if part:
                out.append(Command(part, cmd.start, cmd.end))
            if len(out) > MAX_COMMANDS:
                return out
    return out


def _split_unquoted(text: str) -> list[str]:
    """``a; b && c`` -> [a, b, c], leaving quoted ``;`` alone."""
    if ";" not in text and "&&" not in text and "||" not in text:
        return [text]
    parts: list[str] = []
    buf: list[str] = []
    quote = ""
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch == ";" or (ch in "&|" and text[i : i + 2] in ("&&", "||")):
            parts.append("".join(buf))
            buf = []
            i += 2 if ch in "&|" else 1
            continue
        buf.append(ch)
        i += 1
    parts.append("".join(buf))
    return parts


# --- variable expansion ------------------------------------------------------------------------


def expand(token: str, env: Env) -> str:
    """``$QD`` -> ``64``; unresolvable variables stay as written (``$DEVS``) with a note."""
    if "$" not in token:
        return token

    def repl(m: re.Match) -> str:
        name = m.group("braced") or m.group("plain")
        value = env.vars.get(name)
        if value is not None:  # set, and not UNRESOLVED
            return value
        if m.group("default") is not None and name not in env.vars:
            return m.group("default")
        env.notes.append(
            "%s left as written: shell variable %s is not resolvable from the text" % (m.group(0), name)
        )
        return m.group(0)

    return VAR_RE.sub(repl, token)


def assignment_value(raw: str, env: Env) -> str | None:
    """The value of ``NAME=raw``: quotes removed, variables expanded; None for command substitution."""
    if "`" in raw or "$(" in raw:
        return UNRESOLVED
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        raw = raw[1:-1]
    value = expand(raw, Env(env.vars, []))
    return UNRESOLVED if VAR_RE.search(value) else value


def words(text: str) -> list[str]:
    """Shell words; tolerant of unbalanced quotes in mail (falls back to whitespace split).

    Without a quote or a backslash, shlex's POSIX words (whitespace_split, no
    comments) are the runs of characters other than its whitespace, space, tab, CR and LF:
    found by one regular expression instead of shlex's character-by-character
    reader (a pasted fio run is thousands of such lines).
    """
    if "'" not in text and '"' not in text and "\\" not in text:
        return SHLEX_WORD_RE.findall(text)
    return shell_words(text)


def shell_words(text: str) -> list[str]:
    """shlex's POSIX words (whitespace_split, no comments); whitespace split where its quotes
    do not balance."""
    try:
        lex = shlex.shlex(text, posix=True, punctuation_chars=False)
        lex.whitespace_split = True
        lex.commenters = ""
        return list(lex)
    except ValueError:
        return text.split()


# --- fio argument parsing ----------------------------------------------------------------------


@dataclass
class _Parsed:
    global_options: dict[str, str] = field(default_factory=dict)
    jobs: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    jobfiles: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def parse_fio_args(args: list[str]) -> _Parsed:
    """fio's argv -> global options, jobs (each ``--name`` starts one), job file arguments.

    ``--opt=val``, ``-opt=val``, ``--opt val``, ``-opt val`` and flags are all
    accepted; a bare word after a flag-type option is not taken as its value.
    Parsing stops at shell redirection or pipes and at prose.
    """
    parsed = _Parsed()
    current: dict[str, str] = parsed.global_options
    i = 0
    while i < len(args):
        tok = args[i]
        i += 1
        if tok in ("|", ">", ">>", "2>&1", "&", "<") or tok.startswith((">", "2>", "|", "<")):
            break
        if tok.startswith("-") and len(tok) > 1 and tok != "--":
            name, eq, value = tok.lstrip("-").partition("=")
            takes = _takes_value(name)
            if (
                not eq
                and takes
                and i < len(args)
                and not args[i].startswith("-")
                and not args[i].startswith(("|", ">"))
            ):
                value, eq = args[i], "="
                i += 1
            if catalog.cli_option(name) is not None and not catalog.is_known(name):
                parsed.notes.append(
                    "fio command-line option %s" % tok
                    if not eq
                    else "fio command-line option --%s=%s" % (name, value)
                )
                continue
            if catalog.canonical_name(name) == "name":
                if value.lower() == "global":
                    current = parsed.global_options
                else:
                    current = {"name": value}
                    parsed.jobs.append((value, current))
                continue
            current[name] = value if eq else ""
        elif JOBFILE_ARG_RE.match(tok):
            parsed.jobfiles.append(tok)
        else:
            break  # prose after an inline command: "fio --bs=4k --rw=read on both kernels"
    return parsed


def _takes_value(name: str) -> bool:
    """Whether ``-name value`` consumes the next word: not for flags like ``group_reporting``."""
    cli = catalog.cli_option(name)
    if cli is not None and not catalog.is_known(name):
        return cli
    kind = catalog.option_type(name)
    return kind not in ("flag", "deprecated")


# --- the interpreter ---------------------------------------------------------------------------


@dataclass
class _Ctx:
    lines: list[str]
    functions: dict[str, list[Command]] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)
    jobs: list[FioJob] = field(default_factory=list)


def run_block(cmds: list[Command], env: Env, ctx: _Ctx, depth: int) -> None:
    """Walk commands: assignments, function definitions and calls, for loops, fio commands."""
    i = 0
    while i < len(cmds) and len(ctx.jobs) < MAX_JOBS:
        cmd = cmds[i]
        text = cmd.text
        # each pattern's first test is what it spells: "function" or "(", "for", "="
        m = FUNC_DEF_RE.match(text) if "(" in text or text.startswith("function") else None
        if m:
            body, i = _collect_braced(cmds, i + 1, has_open=bool(m.group("brace")))
            ctx.functions[m.group("name1") or m.group("name2")] = body
            continue
        m = FOR_RE.match(text) if text.startswith("for") else None
        if m:
            body, i = _collect_loop(cmds, i + 1)
            if depth < MAX_DEPTH:
                _run_loop(m.group("var"), m.group("words"), body, cmd, env, ctx, depth)
            continue
        i += 1
        m = ASSIGN_RE.match(text) if "=" in text else None
        if m:
            env.vars[m.group("name")] = assignment_value(m.group("value"), env)
            continue
        if ctx.functions and depth < MAX_DEPTH and not ctx.functions.keys().isdisjoint(text.split(None, 8)):
            head = _strip_prefixes(words(text))
        else:
            head = []
        if head and head[0] in ctx.functions:
            ctx.called.add(head[0])
            call_env = env.child(**{str(k): _call_arg(a, env) for k, a in enumerate(head[1:10], 1)})
            call_env.notes = [n for n in env.notes] + ["%s (line %d)" % (cmd.text[:200], cmd.start)]
            run_block(ctx.functions[head[0]], call_env, ctx, depth + 1)
            continue
        if "fio" in text and (fio := FIO_CMD_RE.search(text)):
            _emit_fio(cmd, fio, env, ctx)


def _call_arg(arg: str, env: Env) -> str | None:
    """A function argument as bound to ``$N``: expanded, or unresolvable (kept as written)."""
    value = expand(arg, Env(env.vars, []))
    return _Literal(arg) if VAR_RE.search(value) or "`" in arg or "$(" in arg else value


class _Literal(str):
    """An argument whose text is an unresolvable variable (``$DEV``): substituted as written."""


def _strip_prefixes(argv: list[str]) -> list[str]:
    """Drop ``sudo``, ``time``, ``taskset -c 0``, ``VAR=x`` prefixes and prompts before the command."""
    i = 0
    while i < len(argv):
        w = argv[i]
        if (
            w in ("#", "$", ">")
            or w.endswith(("#", "$"))
            and ("@" in w or len(w) == 1)
            or w in PREFIX_WORDS
            or re.match(r"^[A-Za-z_]\w{0,63}=", w)
        ):
            i += 1
        elif w in PREFIX_WITH_ARG:
            i += 1
            while i < len(argv) and argv[i].startswith("-"):
                i += 1 if "=" in argv[i] or PREFIX_WITH_ARG[w] is None else 2
            if PREFIX_WITH_ARG[w] == 1 and i < len(argv) and not argv[i].endswith("fio"):
                i += 1  # "taskset 0x3 fio", "timeout 60 fio"
        else:
            break
    return argv[i:]


def _collect_braced(cmds: list[Command], i: int, has_open: bool) -> tuple[list[Command], int]:
    """The body of ``name() {`` ... ``}``; tolerates ``{`` on its own line."""
    if not has_open and i < len(cmds) and cmds[i].text == "{":
        i += 1
    depth = 1
    body: list[Command] = []
    while i < len(cmds):
        t = cmds[i].text
        if t == "}" or t.startswith("} "):
            depth -= 1
            if depth == 0:
                return body, i + 1
        elif t.endswith("{") and FUNC_DEF_RE.match(t):
            depth += 1
        body.append(cmds[i])
        i += 1
    return body, i


def _collect_loop(cmds: list[Command], i: int) -> tuple[list[Command], int]:
    """The body between ``do`` and the matching ``done``."""
    if i < len(cmds) and cmds[i].text == "do":
        i += 1
    depth = 1
    body: list[Command] = []
    while i < len(cmds):
        t = cmds[i].text
        if re.match(r"^(for|while|until)\s", t):
            depth += 1
        elif t == "done" or t.startswith(("done ", "done>", "done|")):
            depth -= 1
            if depth == 0:
                return body, i + 1
        body.append(cmds[i])
        i += 1
    return body, i


def _run_loop(
    var: str, raw_words: str, body: list[Command], cmd: Command, env: Env, ctx: _Ctx, depth: int
) -> None:
    """``for bs in 4k 8k; do ...`` -> run the body once per value."""
    values: list[str | None] = []
    for w in words(raw_words):
        m = BRACE_EXPANSION_RE.match(w)
        if m:
            a, b = int(m.group("a")), int(m.group("b"))
            values.extend(str(x) for x in range(a, min(b, a + MAX_LOOP_VALUES) + 1))
            continue
        value = expand(w, Env(env.vars, []))
        values.append(UNRESOLVED if VAR_RE.search(value) or "`" in value or "$(" in value else value)
    if not values or any(v is UNRESOLVED for v in values):
        env.vars[var] = UNRESOLVED
        env.notes.append("loop values of $%s are not resolvable: %s" % (var, raw_words[:200]))
        run_block(body, env, ctx, depth + 1)
        return
    for each in values[:MAX_LOOP_VALUES]:
        loop_env = env.child(**{var: each})
        loop_env.notes.append("for %s in %s: %s=%s (line %d)" % (var, raw_words[:200], var, each, cmd.start))
        run_block(body, loop_env, ctx, depth + 1)


def _emit_fio(cmd: Command, m: re.Match, env: Env, ctx: _Ctx) -> None:
    """Expand one fio command's arguments (after ``m``, where FIO_CMD_RE found the command) and
    turn them into jobs."""
    tail = cmd.text[m.end() :]
    expanded: list[str] = []
    notes = list(env.notes)
    for w in words(tail):
        expanded.append(_expand_with_literals(w, Env(env.vars, notes)) if "$" in w else w)
    parsed = parse_fio_args(expanded)
    notes.extend(parsed.notes)
    parsed.jobfiles = [jf for jf in parsed.jobfiles if jf != "-"]  # "fio -": the job came on stdin
    for jf in parsed.jobfiles:
        notes.append("job file %s given on the command line (its contents are not in this command)" % jf)
    jobs = parsed.jobs
    has_options = any(opts for _, opts in jobs) or parsed.global_options
    if not has_options and not parsed.jobfiles:
        return
    evidence = "\n".join(ctx.lines[cmd.start : cmd.end + 1])
    if not jobs:
        name = parsed.jobfiles[0] if parsed.jobfiles else "job"
        if not parsed.jobfiles:
            notes.append("no --name given: fio treats these options as global")
        jobs = [(name, {})]
    for name, own in jobs:
        options = {**parsed.global_options, **own}
        ctx.jobs.append(
            make_job(name, "cmdline", options, parsed.global_options, notes, cmd.start, cmd.end, evidence)
        )


def _expand_with_literals(word: str, env: Env) -> str:
    """Expand a word; variables bound to an unresolvable argument become that argument's text."""
    if "$" not in word:
        return word

    def repl(m: re.Match) -> str:
        name = m.group("braced") or m.group("plain")
        value = env.vars.get(name)
        if isinstance(value, _Literal):
            env.notes.append(
                "%s left as written: it is %s, which the text does not resolve" % (m.group(0), value)
            )
            return m.group(0)
        if value is not UNRESOLVED:
            return value
        if m.group("default") is not None and name not in env.vars:
            return m.group("default")
        env.notes.append(
            "%s left as written: shell variable %s is not resolvable from the text" % (m.group(0), name)
        )
        return m.group(0)

    return VAR_RE.sub(repl, word)


def find_cmdlines(text: str) -> list[FioJob]:
    """Every fio job given on a command line in ``text``, with shell scripts resolved."""
    if not isinstance(text, str) or "fio" not in text:
        return []
    if not FIO_CMD_CUE_RE.search(text.replace("\0", "")):
        return []  # no fio command: the script around it emits nothing (split_lines drops NULs)
    lines = split_lines(text)
    cmds = split_commands(logical_lines(lines))
    ctx = _Ctx(lines)
    run_block(cmds, Env(), ctx, 0)
    for name, body in list(ctx.functions.items()):  # defined but never called: emit with $1.. as written
        if name not in ctx.called and len(ctx.jobs) < MAX_JOBS:
            env = Env(notes=["function %s is never called in the text; its parameters are unresolved" % name])
            run_block(body, env, ctx, 1)
    return ctx.jobs
