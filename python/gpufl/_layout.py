"""Fitting a table to a width: which columns to show, how wide, and names shortened so nothing wraps.

A cell is never wrapped or cut: a number split over two lines ("250.2 / 3 ms") is worse than a column left out.
So every column is as wide as its widest cell, the one name column (kernel, scope, metric) takes the room that is
left, its names shortened as a set so that names which differ stay different (gpufl._gpufl.short_names), and when
even that does not fit, the least important columns are hidden (and the caption says which).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence

# The name column keeps at least this many columns before any other column is hidden for it.
NAME_MIN = 24
# The narrowest a name column gets when every other column that may go has gone.
NAME_FLOOR = 12
# When the names do not fit beside the figures and their column would be narrower than this, each name goes on
# its own line above its figures ("stacked"), with the whole width for it.
STACK_BELOW = 48
# Stacked rows without a narrow first column ("#") indent their figures by this much under the name.
INDENT = 4


@dataclass(frozen=True)
class Col:
    """One column: header, alignment ("left"/"right"), `keep` (columns with the lowest keep are hidden first
    when the width is short; 10 and above are never hidden), and `name`: the one column whose cells are names,
    shortened to the room left (kernel names by the report's shortener, `kernel=False` text by cutting its
    middle)."""
    header: str
    justify: str = "right"
    keep: int = 5
    name: bool = False
    kernel: bool = True  # the names are kernel names (demangled, shortened as a set); else plain text (scopes)


@dataclass
class Layout:
    columns: List[Col]
    widths: List[int]
    headers: List[str]  # each header wrapped at spaces into its column ("SMem\ndyn+static")
    rows: List[List[str]]
    hidden: List[str] = field(default_factory=list)  # headers of the columns left out
    # Stacked: the name column's cell goes on a line of its own (after the first column when `lead`) above
    # the others.
    stacked: bool = False
    lead: bool = False

    def table_width(self, sep: int) -> int:
        if self.stacked:
            return max((len(line) for line in stacked_lines(self, sep)), default=0)
        return sum(self.widths) + sep * max(len(self.widths) - 1, 0)


Shortener = Callable[[List[str], int], List[str]]


def cell_width(text: str) -> int:
    """Terminal columns of one line of text (our cells are ASCII or one-column symbols such as the ellipsis)."""
    return max((len(line) for line in str(text).split("\n")), default=0)


def wrap_header(header: str, width: int) -> str:
    """The header broken at spaces to lines of at most `width` (a word longer than that stays whole)."""
    lines: List[str] = []
    for word in header.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


def _longest_word(header: str) -> int:
    return max((len(w) for w in header.split(" ")), default=0)


def fit(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int, sep: int,
        shorten: Optional[Shortener] = None, wide: bool = False) -> Layout:
    """Columns, widths and cells for a table no wider than `width` (when the never-hidden columns allow),
    with `sep` columns between two columns. `wide`: names are never shortened; those that do not fit beside
    the figures go on lines of their own, whole (those lines may be wider than `width`)."""
    rows = [[str(c) for c in r] for r in rows]
    name_idx = next((i for i, c in enumerate(cols) if c.name), None)
    if name_idx is not None:
        shorten = shorten if cols[name_idx].kernel and shorten is not None else _clip_all
        if cols[name_idx].kernel and rows:  # the readable forms (demangled) are what the width is for
            readable = shorten([r[name_idx] for r in rows], 1 << 20)
            rows = [list(r[:name_idx]) + [n] + list(r[name_idx + 1:]) for r, n in zip(rows, readable)]
    natural = []
    for i, c in enumerate(cols):
        cells = max((cell_width(r[i]) for r in rows), default=0)
        natural.append(max(cells, _longest_word(c.header)))
    shown = list(range(len(cols)))

    def fixed_width(idx: List[int]) -> int:
        return sum(natural[i] for i in idx if i != name_idx) + sep * max(len(idx) - 1, 0)

    name_want = 0 if name_idx is None else min(natural[name_idx], NAME_MIN)
    hidden: List[int] = []
    by_keep = sorted((i for i, c in enumerate(cols) if c.keep < 10 and i != name_idx), key=lambda i: cols[i].keep)
    for i in by_keep:
        if fixed_width(shown) + name_want <= width:
            break
        shown.remove(i)
        hidden.append(i)

    if name_idx is not None and natural[name_idx] > width - fixed_width(shown) \
            and (wide or width - fixed_width(shown) < STACK_BELOW) and len(cols) > 2:
        return _fit_stacked(cols, rows, width, sep, _keep_whole if wide else shorten, natural, name_idx)

    widths = {i: natural[i] for i in shown}
    out_rows = [[r[i] for i in shown] for r in rows]
    if name_idx is not None:
        room = max(width - fixed_width(shown), NAME_FLOOR)
        if natural[name_idx] > room:
            names = [r[name_idx] for r in rows]
            assert shorten is not None  # set above whenever there is a name column
            short = shorten(names, room)
            pos = shown.index(name_idx)
            for r, s in zip(out_rows, short):
                r[pos] = s
            widths[name_idx] = max([_longest_word(cols[name_idx].header)] + [cell_width(s) for s in short])
    return Layout(columns=[cols[i] for i in shown], widths=[widths[i] for i in shown],
                  headers=[wrap_header(cols[i].header, widths[i]) for i in shown], rows=out_rows,
                  hidden=[cols[i].header for i in sorted(hidden)])


def _fit_stacked(cols, rows, width, sep, shorten, natural, name_idx) -> Layout:
    """Names on their own line (after the first column when that is a narrow one such as "#", else indented
    by INDENT); below each, the other columns, hidden by `keep` as needed to fit in the width."""
    lead = 0 if name_idx != 0 and natural[0] <= 4 else None
    figures = [i for i in range(len(cols)) if i != name_idx and i != lead]
    indent = natural[lead] + sep if lead is not None else INDENT

    def figures_width(idx: List[int]) -> int:
        return indent + sum(natural[i] for i in idx) + sep * max(len(idx) - 1, 0)

    hidden: List[int] = []
    for i in sorted((i for i in figures if cols[i].keep < 10), key=lambda i: cols[i].keep):
        if figures_width(figures) <= width:
            break
        figures.remove(i)
        hidden.append(i)
    room = max(width - (natural[lead] + sep if lead is not None else 0), NAME_FLOOR)
    names = [r[name_idx] for r in rows]
    if max((cell_width(n) for n in names), default=0) > room:
        names = shorten(names, room)
    shown = ([lead] if lead is not None else []) + [name_idx] + figures
    out_rows = [[name if i == name_idx else r[i] for i in shown] for r, name in zip(rows, names)]
    widths = [natural[i] for i in shown]
    widths[shown.index(name_idx)] = max([len(cols[name_idx].header)] + [cell_width(n) for n in names])
    return Layout(columns=[cols[i] for i in shown], widths=widths,
                  headers=[wrap_header(cols[i].header, natural[i]) if i != name_idx else cols[i].header
                           for i in shown],
                  rows=out_rows, hidden=[cols[i].header for i in sorted(hidden)], stacked=True,
                  lead=lead is not None)


def stacked_lines(layout: Layout, sep: int, rule: str = "\u2500", max_width: int = 1 << 16) -> List[str]:
    """A stacked layout as lines: per row, the lead cell (if any) and the name, then the other cells below,
    right under the header they belong to."""
    gap = " " * sep
    n_lead = 1 if layout.lead else 0
    lead_w = layout.widths[0] if layout.lead else 0
    rest = list(range(n_lead + 1, len(layout.columns)))
    pad = " " * (lead_w + sep if layout.lead else INDENT)

    def cells(values: Sequence[str], idx: List[int]) -> str:
        parts = []
        for i, v in zip(idx, values):
            w = layout.widths[i]
            parts.append(v.rjust(w) if layout.columns[i].justify == "right" else v.ljust(w))
        return gap.join(parts)

    def first_line(values: Sequence[str]) -> str:
        if not layout.lead:
            return values[0]
        lead = values[0].rjust(lead_w) if layout.columns[0].justify == "right" else values[0].ljust(lead_w)
        return (lead + gap + values[1]).rstrip()

    headers = [layout.headers[i].split("\n") for i in rest]
    depth = max((len(h) for h in headers), default=1)
    lines = [first_line(layout.headers[: n_lead + 1])]
    for k in range(depth):  # wrapped headers sit on the rule, bottom-aligned
        row = [h[k - (depth - len(h))] if k >= depth - len(h) else "" for h in headers]
        lines.append((pad + cells(row, rest)).rstrip())
    figures_w = len(pad) + sum(layout.widths[i] for i in rest) + sep * max(len(rest) - 1, 0)
    name_w = (lead_w + sep if layout.lead else 0) + layout.widths[n_lead]
    lines.append(rule * max(figures_w, min(name_w, max_width)))
    for r in layout.rows:
        lines.append(first_line(r[: n_lead + 1]))
        lines.append((pad + cells([r[i] for i in rest], rest)).rstrip())
    return lines


def hidden_note(hidden: Sequence[str], width: int) -> Optional[str]:
    if not hidden:
        return None
    return (f"Not shown at {width} columns: {', '.join(hidden)} (a wider window shows them; the DataFrame "
            "method without inspect_ has every column).")


def _keep_whole(names: List[str], n: int) -> List[str]:
    return list(names)


def _clip_all(names: List[str], n: int) -> List[str]:
    """Text cut in the middle to `n` columns, keeping both ends ("train/…/attention"), suffixed to stay distinct."""
    out: List[str] = []
    seen = set()
    for text in names:
        short = text
        if len(text) > n:
            head = max((n - 1) // 3, 1)
            short = text[:head] + "\u2026" + text[len(text) - (n - 1 - head):]
        base, k = short, 2
        while short in seen and short != text:
            suffix = f"~{k}"
            short, k = base[: n - len(suffix)] + suffix, k + 1
        seen.add(short)
        out.append(short)
    return out
