"""iostat -x output (sysstat 10, 11 and 12 layouts): device rows, columns found by header name."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from itertools import chain, repeat
from operator import itemgetter
from typing import Any

from benchdeck.engine.record_columns import RecordColumns, columns_of
from benchdeck.engine.records import IostatSample, SkippedLine

# Linux 6.x (host)  date  arch  (n CPU)
_BANNER = re.compile(r"(?a)\S+\s+\S+\s+\(.*\)\s+\S+\s+.*\(\d+ CPU\)")
_TIMESTAMP = re.compile(
    r"(?a)(?:Time: )?(?:\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}[ T])?\d{1,2}:\d{2}:\d{2}"
    r"(?: ?[AP]M)?(?:Z|[+-]\d{2}:?\d{2})?"
)  # 11/21/26 19:52:23, 11/21/2026 07:52:23 PM, 2026-11-21T19:52:23+0000, Time: 07:52:23 PM
_NUMBER = re.compile(r"(?a)\d+(?:[.,]\d+)?")  # some locales print a decimal comma
_TIME_FIRST = frozenset("T0123456789")  # what a _TIMESTAMP line starts with
_NUMBERS = re.compile(r"(?a)\d+(?:[.,]\d+)?(?:\s+\d+(?:[.,]\d+)?)*")  # a line of _NUMBERs only
_PLAIN_ROW = re.compile(r"(?a)\S+(?:\s+\d+(?:[.,]\d+)?)+")  # a device row: its name, then _NUMBERs
# IostatSample field -> header names accepted for it, with a factor to kB/s where needed.
_COLUMNS: dict[str, tuple[tuple[str, float], ...]] = {
    "r_s": (("r/s", 1.0),),
    "w_s": (("w/s", 1.0),),
    "rkb_s": (("rkB/s", 1.0), ("rMB/s", 1024.0), ("rsec/s", 0.5)),
    "wkb_s": (("wkB/s", 1.0), ("wMB/s", 1024.0), ("wsec/s", 0.5)),
    "rrqm_s": (("rrqm/s", 1.0),),
    "wrqm_s": (("wrqm/s", 1.0),),
    "r_await": (("r_await", 1.0),),
    "w_await": (("w_await", 1.0),),
    "aqu_sz": (("aqu-sz", 1.0), ("avgqu-sz", 1.0)),
    "util": (("%util", 1.0),),
}
_REQUIRED = ("r_s", "w_s", "rkb_s", "wkb_s")
_KNOWN = {name for names in _COLUMNS.values() for name, _ in names} | {
    "tps", "kB_read/s", "kB_wrtn/s", "MB_read/s", "MB_wrtn/s", "Blk_read/s", "Blk_wrtn/s",
    "%rrqm", "%wrqm", "d/s", "f/s", "rareq-sz", "wareq-sz", "await", "svctm", "avgrq-sz",
}  # fmt: skip


IOSTAT_FIELDS = tuple(f.name for f in fields(IostatSample))


@dataclass(frozen=True, slots=True)
class IostatResult:
    """Everything read from one iostat output."""

    samples: tuple[IostatSample, ...]
    skipped: tuple[SkippedLine, ...]
    reports: int


class IostatParser:
    """Incremental iostat parser; ``feed`` one line at a time.

    A report starts at a ``Device`` header (``--pretty``: at its first group's header);
    ``seq`` numbers the kept reports from 0.
    ``device`` keeps only rows of exactly that device; ``drop_first_report`` drops the
    since-boot first report (output recorded without ``-y``).
    Every line ends up exactly once in a sample, as recognised (``recognised`` counts them,
    including rows of other devices) or in ``skipped`` with a reason.
    """

    def __init__(self, device: str | None = None, drop_first_report: bool = False) -> None:
        self.device = device
        self.drop_first_report = drop_first_report
        self.samples: list[IostatSample] = []
        self.skipped: list[SkippedLine] = []
        self.reports = 0  # kept reports
        self.dropped_reports = 0
        self.recognised = 0
        self._lineno = 0
        self._header: list[str] | None = None
        self._dev = 0  # index of the device name column
        self._fields: dict[str, tuple[int, float]] = {}  # sample field -> (column, factor)
        self._header_text = ""  # the header line as last seen (stripped): the same one starts a report
        self._cpu_text = ""  # the avg-cpu line as last seen, and its tokens
        self._cpu_tokens: list[str] = []
        # one-line layout, from the header: _COLUMNS' fields it has, in order, their tokens'
        # getter and factors (None: all 1), and the required columns it lacks
        self._present: list[str] = []
        self._pick: Callable[[list[str]], tuple[str, ...]] | None = None
        self._factors: list[float] | None = None
        self._missing = ""
        self._pretty = False
        self._has_report = False
        self._partial: dict[str, dict[str, float]] = {}  # --pretty: device -> values so far
        self._cpu_values_next = False
        self._timestamp: str | None = None
        self._report_timestamp: str | None = None
        self._dropping = False

    def feed(self, line: str) -> list[IostatSample]:
        """Consume one line (without its newline); return the samples it yields (0 or 1)."""
        self._lineno += 1
        line = line.rstrip("\r\n")
        s = line.strip()
        if s and s == self._header_text:  # the header of the last report again
            self._cpu_values_next = False
            self._start_header(self._header or [])
            self.recognised += 1
            return []
        if s and s == self._cpu_text and not self._other_device(self._cpu_tokens):  # avg-cpu again
            self._cpu_values_next, self._has_report = True, False
            self.recognised += 1
            return []
        if self._cpu_values_next and _NUMBERS.fullmatch(s):  # the avg-cpu values line
            self._cpu_values_next = False
            self.recognised += 1
            return []
        tokens = s.split()
        cpu_values_next, self._cpu_values_next = self._cpu_values_next, False
        if self._other_device(tokens):  # first: most lines of a many-device host are these
            pass  # another device's row: not parsed (a host lists 7 devices, 6 say nothing of the run)
        elif not s or (s.endswith("CPU)") and _BANNER.fullmatch(s)):
            self._cpu_values_next = cpu_values_next and not s
        elif s[0] in _TIME_FIRST and _TIMESTAMP.fullmatch(s):
            self._timestamp, self._has_report = s.removeprefix("Time: "), False
        elif tokens[0] == "avg-cpu:":
            self._cpu_values_next, self._has_report = True, False
            self._cpu_text, self._cpu_tokens = s, tokens
        elif cpu_values_next and all(_NUMBER.fullmatch(t) for t in tokens):
            pass  # the avg-cpu values line
        elif _is_header(tokens):
            self._start_header(tokens)
            self._header_text = s
        else:
            return self._device_row(line, tokens)
        self.recognised += 1
        return []

    def feed_at(self, lineno: int, line: str) -> list[IostatSample]:
        """:meth:`feed` for line ``lineno`` (1-based) when the caller passed over the lines
        since the last one fed (blank lines and other devices' rows: recognised, as ``feed``
        would have them)."""
        self.recognised += lineno - 1 - self._lineno
        self._lineno = lineno - 1
        return self.feed(line)

    def feed_many_at(self, numbered: Iterable[tuple[int, str]]) -> list[IostatSample]:
        """:meth:`feed_at` for each ``(lineno, line)``, the samples they yield: the same result,
        the lines every one-line report repeats in fewer steps (its header and avg-cpu line
        again, the avg-cpu values, the device's row of plain numbers); any other line is fed."""
        out: list[IostatSample] = []
        device = self.device
        row_start = device + " " if device is not None and _plain_name(device) else None
        for n, line in numbered:
            s = line.strip()
            if s and s == self._header_text:  # as feed: a report's header again
                self.recognised += n - self._lineno
                self._lineno = n
                self._cpu_values_next = False
                self._start_header(self._header or [])
            elif s and s == self._cpu_text and not self._other_device(self._cpu_tokens):
                self.recognised += n - self._lineno
                self._lineno = n
                self._cpu_values_next, self._has_report = True, False
            elif self._cpu_values_next and _NUMBERS.fullmatch(s):
                self.recognised += n - self._lineno
                self._lineno = n
                self._cpu_values_next = False
            elif (
                row_start is not None
                and s.startswith(row_start)
                and self._header is not None
                and not self._pretty
                and s.isascii()
                and "," not in s
                and len(tokens := s.split()) == len(self._header)
                and _plain_numbers(tokens)
            ):  # the device's row: what feed checks of it holds, so on to _plain_row as feed goes
                self.recognised += n - 1 - self._lineno
                self._lineno = n
                self._cpu_values_next = False
                out += self._plain_row(line.rstrip("\r\n"), tokens[0], tokens)
            else:
                out += self.feed_at(n, line)
        return out

    def _other_device(self, tokens: list[str]) -> bool:
        """A well-formed row of a device other than ``device`` (one-line layout): passed over
        unparsed, 6 of 7 rows on the author's hosts (~4x less CPU for an iostat file)."""
        header = self._header
        if self.device is None or header is None or self._pretty or len(tokens) != len(header):
            return False
        name = tokens[0]
        return name != self.device and name not in ("Device:", "Device") and not _NUMBER.fullmatch(name)

    def _start_header(self, tokens: list[str]) -> None:
        if tokens != self._header:  # the same header every report: its columns found once
            self._header = tokens
            self._pretty = tokens[-1] == "Device" and tokens[0] != "Device"
            self._dev = len(tokens) - 1 if self._pretty else 0
            self._fields = {}
            for field, names in _COLUMNS.items():
                found = [(tokens.index(n), f) for n, f in names if n in tokens]
                if found:
                    self._fields[field] = found[0]
            self._present = [f for f in _COLUMNS if f in self._fields]
            idx = [self._fields[f][0] for f in self._present]
            self._pick = itemgetter(*idx) if len(idx) > 1 else None
            factors = [self._fields[f][1] for f in self._present]
            self._factors = factors if any(k != 1.0 for k in factors) else None
            self._missing = ", ".join(_COLUMNS[f][0][0] for f in _REQUIRED if f not in self._fields)
        # --pretty splits a report into r/w/d/f groups, each with its own header
        if self._pretty and "r/s" not in tokens and self._has_report:
            return
        self._has_report, self._partial = True, {}
        self._dropping = self.drop_first_report and self.reports + self.dropped_reports == 0
        if self._dropping:
            self.dropped_reports += 1
        else:
            self.reports += 1
        self._report_timestamp, self._timestamp = self._timestamp, None

    def _device_row(self, line: str, tokens: list[str]) -> list[IostatSample]:
        header = self._header
        if header is None:
            return self._skip(line, "no header yet")
        if len(tokens) != len(header):
            return self._skip(line, f"{len(tokens)} fields, header has {len(header)}")
        name = tokens[self._dev]
        if self._dev == 0 and _PLAIN_ROW.fullmatch(line.strip()) and not _NUMBER.fullmatch(name):
            bad: list[str] = []  # a name and numbers: one regex for the row, not one a field
        else:
            bad = [t for i, t in enumerate(tokens) if i != self._dev and not _NUMBER.fullmatch(t)]
        if bad or _NUMBER.fullmatch(name):
            return self._skip(line, f"non-numeric value {bad[0]!r}" if bad else "no device name")
        if not self._pretty:
            return self._plain_row(line, name, tokens)
        v = {f: float(tokens[i].replace(",", ".")) * k for f, (i, k) in self._fields.items()}
        if self._pretty:
            v = self._partial.setdefault(name, {}) | v
            self._partial[name] = v
            if "%util" not in header:  # the last group of a --pretty report ends with %util
                self.recognised += 1
                return []
        missing = [_COLUMNS[f][0][0] for f in _REQUIRED if f not in v]
        if missing:
            return self._skip(line, f"header lacks {', '.join(missing)}")
        if self._dropping or (self.device is not None and name != self.device):
            self.recognised += 1
            return []
        sample = IostatSample(
            seq=self.reports - 1, device=name, r_s=v["r_s"], w_s=v["w_s"],
            rkb_s=v["rkb_s"], wkb_s=v["wkb_s"], rrqm_s=v.get("rrqm_s"), wrqm_s=v.get("wrqm_s"),
            r_await=v.get("r_await"), w_await=v.get("w_await"), aqu_sz=v.get("aqu_sz"),
            util=v.get("util"), timestamp=self._report_timestamp,
        )  # fmt: skip
        self.samples.append(sample)
        return [sample]

    def _plain_row(self, line: str, name: str, tokens: list[str]) -> list[IostatSample]:
        """A checked row of the one-line layout: its values in one pass (the columns were found
        once per header), the sample built by position when the header has all _COLUMNS."""
        if self._missing:
            return self._skip(line, f"header lacks {self._missing}")
        if self._dropping or (self.device is not None and name != self.device):
            self.recognised += 1
            return []
        assert self._pick is not None  # 4 columns at least: none missing
        texts = self._pick(tokens)
        nums = list(map(float, (t.replace(",", ".") for t in texts) if "," in line else texts))
        if self._factors is not None:
            nums = [x * k for x, k in zip(nums, self._factors, strict=True)]
        seq, stamp = self.reports - 1, self._report_timestamp
        if len(nums) == len(_COLUMNS):  # IostatSample's fields follow _COLUMNS' order
            sample = IostatSample(seq, name, *nums, timestamp=stamp)  # type: ignore[arg-type, misc]
        else:
            v = dict(zip(self._present, nums, strict=True))
            sample = IostatSample(
                seq=seq, device=name, r_s=v["r_s"], w_s=v["w_s"], rkb_s=v["rkb_s"], wkb_s=v["wkb_s"],
                rrqm_s=v.get("rrqm_s"), wrqm_s=v.get("wrqm_s"), r_await=v.get("r_await"),
                w_await=v.get("w_await"), aqu_sz=v.get("aqu_sz"), util=v.get("util"), timestamp=stamp,
            )  # fmt: skip
        self.samples.append(sample)
        return [sample]

    def _skip(self, line: str, reason: str) -> list[IostatSample]:
        self.skipped.append(SkippedLine(self._lineno, line, reason))
        return []


def repeated_reports(
    lines: list[str], device: str, others: frozenset[str]
) -> tuple[RecordColumns[IostatSample], list[SkippedLine]] | None:
    """What :meth:`IostatParser.feed_many_at` gives for ``lines`` (an ASCII text's, the blank
    ones and the ``others``' rows passed over), the device's samples and the skipped lines,
    when every report after the first is the first's lines again, but for the numbers: the
    same avg-cpu and header lines, an avg-cpu values line, the other devices' rows and one row
    of the device at the same places (blank lines at the end may be missing). Those reports
    are read by position, a few C calls for all of them; None when the text is not so."""
    starts = [i for i, line in enumerate(lines[:400]) if line.startswith("avg-cpu:")][:2]
    if len(starts) < 2 or not _plain_name(device):
        return None
    first, period = starts[0], starts[1] - starts[0]
    head = lines[: first + period]
    p = IostatParser(device)
    kept = (line and not line.isspace() and line.partition(" ")[0] not in others for line in head)
    samples = p.feed_many_at(
        (n, line) for n, (line, keep) in enumerate(zip(head, kept, strict=True), 1) if keep
    )
    kinds = _kinds(head[first:], p, device, others)
    if kinds is None or len(samples) != 1 or p._cpu_values_next:
        return None
    rest = lines[first + period :]
    reports = -(-len(rest) // period)
    rest += [""] * (reports * period - len(rest))  # a last report's missing blank lines
    rows: list[str] = []
    for j, kind in enumerate(kinds):
        at = rest[j::period]
        if kind == "" or kind == head[first + j]:  # a blank line, the avg-cpu line or the header again
            ok = at.count(kind) == reports
        elif kind == "values":
            ok = (
                _all_numbers(" ".join(at).split(), commas=True)
                and "" not in at
                and not any(map(str.isspace, at))
            )
        elif kind == "row":
            rows = at
            ok = sum(map(str.startswith, at, repeat(device + " "))) == reports
        else:  # another device's row
            ok = sum(map(str.startswith, at, repeat(kind + " "))) == reports
        if not ok:
            return None
    later = _rows(rows, p) if rows else None
    if later is None:
        return None
    columns = [a + b for a, b in zip(columns_of(samples, IOSTAT_FIELDS), later, strict=True)]
    return RecordColumns(IostatSample, IOSTAT_FIELDS, columns), list(p.skipped)


def _kinds(report: list[str], p: IostatParser, device: str, others: frozenset[str]) -> list[str] | None:
    """The first report's lines by what each is: "" (blank), another device's name (its row),
    the avg-cpu line itself, "values", the header itself, "row" (the device's), the last four
    once each and in that order; None when the report is not so, or the parser did not read
    it as such a report of the one-line layout with every column."""
    expect = ["cpu", "values", "header", "row"]
    kinds: list[str] = []
    for line in report:
        if line == "" or (name := line.partition(" ")[0]) in others:
            kinds.append("" if line == "" else name)  # passed over, as Checked.iostat does
        elif expect and expect[0] == "cpu" and line.strip() == p._cpu_text:
            kinds.append(line)
            expect.pop(0)
        elif expect and expect[0] == "values":
            kinds.append("values")
            expect.pop(0)
        elif expect and expect[0] == "header" and line.strip() == p._header_text:
            kinds.append(line)
            expect.pop(0)
        elif expect and expect[0] == "row" and line.startswith(device + " "):
            kinds.append("row")
            expect.pop(0)
        else:
            return None
    plain = not p._pretty and not p._missing and p._factors is None and len(p._present) == len(_COLUMNS)
    if expect or not plain or p._other_device(p._cpu_tokens) or not p._cpu_text.startswith("avg-cpu:"):
        return None
    return kinds


def _rows(rows: list[str], p: IostatParser) -> list[list[Any]] | None:
    """The device's rows of the reports after the first, as _plain_row makes them (a list per
    IostatSample field); None when one is not a plain row of the header's fields (then the
    reports are fed)."""
    assert p._header is not None
    assert p._pick is not None
    if not "".join(rows).isascii() or any("," in r for r in rows):
        return None
    tokens = list(map(str.split, rows))
    width = len(p._header)
    if set(map(len, tokens)) != {width}:
        return None
    flat = list(chain.from_iterable(tokens))
    del flat[::width]  # the device's names
    if not _all_numbers(flat, commas=False):
        return None
    values = list(map(float, chain.from_iterable(map(p._pick, tokens))))
    columns = [values[i :: len(_COLUMNS)] for i in range(len(_COLUMNS))]
    n = len(rows)
    return [list(range(p.reports, p.reports + n)), [tokens[0][0]] * n, *columns, [None] * n]


def _all_numbers(tokens: list[str], commas: bool) -> bool:
    """Whether every token is a _NUMBER (``commas``: a decimal comma too, else a point only):
    ASCII digits with at most one inner separator, in a few C passes over them all."""
    if not tokens:
        return False
    joined = " ".join(tokens)
    if commas:
        joined = joined.replace(",", ".")
    rest = joined.translate(_NO_DIGITS)  # what is not a digit: points and the spaces between
    return (
        joined.isascii()
        and not rest.replace(".", "").replace(" ", "")
        and ".." not in rest  # two points in a token (digits between them gone)
        and joined[0] != "."
        and joined[-1] != "."
        and " ." not in joined
        and ". " not in joined
    )


_NO_DIGITS = str.maketrans("", "", "0123456789")


def _plain_name(device: str) -> bool:
    """Whether a row that starts with ``device`` and a space is that device's row for
    :meth:`IostatParser.feed_many_at`: one token, not a number, a timestamp's start, or a
    word feed reads otherwise."""
    return (
        device.split() == [device]
        and device[0] not in _TIME_FIRST
        and not _NUMBER.fullmatch(device)
        and device not in ("Device:", "Device", "avg-cpu:")
        and "," not in device
    )


def _plain_numbers(tokens: list[str]) -> bool:
    """Whether every token after the first is a _NUMBER with a decimal point or none."""
    return _all_numbers(tokens[1:], commas=False)


def other_devices(lines: list[str], device: str, reports: int = 2) -> frozenset[str]:
    """The names of the devices other than ``device`` in the first ``reports`` one-line
    reports (the rows under a ``Device`` header): what :meth:`IostatParser.feed_at` lets a
    caller pass over unread."""
    names: set[str] = set()
    seen = 0
    in_rows = False
    for line in lines:
        tokens = line.split()
        if not tokens:
            in_rows = False
        elif tokens[0] in ("Device:", "Device"):
            seen += 1
            if seen > reports:
                break
            in_rows = True
        elif in_rows and len(tokens) > 1:
            names.add(tokens[0])
    names.discard(device)
    return frozenset(n for n in names if not _NUMBER.fullmatch(n))


def _is_header(tokens: list[str]) -> bool:
    """``Device`` first (``--pretty``: last) and at least one known column name."""
    device = tokens[0] in ("Device:", "Device") or tokens[-1] == "Device"
    return device and any(t in _KNOWN for t in tokens)


def parse_iostat(
    lines: Iterable[str], device: str | None = None, drop_first_report: bool = False
) -> IostatResult:
    """Parse a whole iostat output."""
    p = IostatParser(device, drop_first_report)
    for line in lines:
        p.feed(line)
    return IostatResult(tuple(p.samples), tuple(p.skipped), p.reports)
