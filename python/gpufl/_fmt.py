"""Number formatting and table output for the analyzer: rich when it is installed, plain text otherwise."""
from __future__ import annotations

import os
import shutil
import sys
import textwrap
from typing import IO, List, Optional, Sequence, Tuple

from ._layout import Col, Layout, fit, hidden_note, stacked_lines


def _nan(x) -> bool:
    """True for None, NaN and pandas.NA."""
    if x is None:
        return True
    try:
        return bool(x != x)
    except (TypeError, ValueError):  # pandas.NA refuses bool()
        return True


def fmt_ns(ns) -> str:
    """A duration in nanoseconds as the report writes it: 850 ns, 12.30 us, 221.64 ms, 17.40 s."""
    if _nan(ns):
        return "-"
    ns = float(ns)
    a = abs(ns)
    if a >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if a >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if a >= 1e3:
        return f"{ns / 1e3:.2f} us"
    return f"{ns:.0f} ns"


def fmt_bytes(n) -> str:
    """Bytes in binary units, written like the report: 512 B, 2.0 KB, 64.0 MB, 1.50 GB."""
    if _nan(n):
        return "-"
    n = float(n)
    if abs(n) >= 1 << 30:
        return f"{n / (1 << 30):.2f} GB"
    if abs(n) >= 1 << 20:
        return f"{n / (1 << 20):.1f} MB"
    if abs(n) >= 1 << 10:
        return f"{n / (1 << 10):.1f} KB"
    return f"{n:.0f} B"


def fmt_pct(x, digits: int = 1) -> str:
    """A fraction 0..1 as a percentage."""
    if _nan(x):
        return "-"
    return f"{100.0 * float(x):.{digits}f}%"


def fmt_int(n) -> str:
    if _nan(n):
        return "-"
    return f"{int(n):,}"


def fmt_num(x, digits: int = 1) -> str:
    if _nan(x):
        return "-"
    return f"{float(x):,.{digits}f}"


def bar(fraction: float, width: int = 20) -> str:
    if _nan(fraction):
        return ""
    n = int(round(max(0.0, min(1.0, float(fraction))) * width))
    return "#" * max(n, 1 if fraction > 0 else 0)


def _rich_available() -> bool:
    if os.environ.get("GPUFL_NO_RICH"):
        return False
    import importlib.util

    return importlib.util.find_spec("rich") is not None


def short_names(names: List[str], width: int) -> List[str]:
    """Names shortened as a set to `width` columns, distinct where they differ (the C++ report's shortener)."""
    from . import _gpufl

    return list(_gpufl.short_names([str(n) for n in names], int(width)))


# Output that is neither a terminal nor a notebook (a file, a pipe) gets this width unless COLUMNS says otherwise.
FILE_WIDTH = 160
# Plain tables: two spaces of indent, two between columns.
_PLAIN_INDENT, _PLAIN_SEP = 2, 2
# Rich tables (SIMPLE_HEAD box, no outer edge): " │ "-like three columns between two columns.
_RICH_SEP = 3


class Output:
    """Prints titled tables and key/value blocks with rich, or as plain aligned text, fitted to the width of
    the terminal or notebook (or `width`, or `console`'s): columns are chosen by width and never wrapped."""

    def __init__(self, use_rich: Optional[bool] = None, file: Optional[IO[str]] = None,
                 width: Optional[int] = None, console=None, wide: bool = False):
        self.wide = wide  # names never shortened (on lines of their own when they do not fit)
        self.use_rich = console is not None or (_rich_available() if use_rich is None
                                                else (use_rich and _rich_available()))
        self._file = file
        self._width = width
        self._console = console

    @property
    def file(self) -> IO[str]:
        return self._file if self._file is not None else sys.stdout

    def _rich_console(self):
        if self._console is None:
            from rich.console import Console

            console = Console(file=self._file, width=self._width, highlight=False)
            if self._width is None and not console.is_terminal and not console.is_jupyter \
                    and "COLUMNS" not in os.environ:
                console.width = FILE_WIDTH
            self._console = console
        return self._console

    @property
    def width(self) -> int:
        if self.use_rich:
            return int(self._rich_console().width)
        if self._width is not None:
            return int(self._width)
        if self.file.isatty() or "COLUMNS" in os.environ:
            return shutil.get_terminal_size((FILE_WIDTH, 24)).columns
        return FILE_WIDTH

    def heading(self, title: str) -> None:
        if self.use_rich:
            from rich.rule import Rule

            self._rich_console().print(Rule(f"[bold]{title}[/bold]"))
        else:
            line = "=" * min(79, self.width)
            print(f"{line}\n  {title}\n{line}", file=self.file)

    def text(self, line: str = "") -> None:
        if self.use_rich:  # wrapped here, so that continuation lines hang under the text ("  * ...")
            from rich.text import Text

            self._rich_console().print(Text(wrap_plain(line, self.width)), no_wrap=True, crop=False)
        else:
            print(wrap_plain(line, self.width), file=self.file)

    def kv(self, title: Optional[str], pairs: Sequence[Tuple[str, str]]) -> None:
        if self.use_rich:
            from rich.table import Table

            t = Table(title=title, show_header=False, box=None, pad_edge=False, title_justify="left")
            t.add_column(style="bold cyan", no_wrap=True)
            t.add_column(overflow="fold")
            for k, v in pairs:
                t.add_row(k, v)
            self._rich_console().print(t)
            return
        if title:
            self.heading(title)
        width = max((len(k) for k, _ in pairs), default=0) + 2
        for k, v in pairs:
            lines = textwrap.wrap(str(v), max(self.width - 2 - width, 20), break_long_words=False,
                                  break_on_hyphens=False) or [""]
            print(f"  {(k + ':'):<{width}}{lines[0]}", file=self.file)
            for more in lines[1:]:
                print(" " * (2 + width) + more, file=self.file)
        print(file=self.file)

    def table(self, title: Optional[str], columns: Sequence[Col], rows: Sequence[Sequence[str]],
              caption: Optional[str] = None) -> None:
        """A table fitted to the output's width (gpufl._layout.fit): the name column (Col.name) shortened,
        low-`keep` columns hidden when the rest does not fit, and the caption saying which."""
        width = self.width
        if self.use_rich:
            from rich import box
            from rich.table import Table

            layout = fit(columns, rows, width, _RICH_SEP, short_names, self.wide)
            notes = [n for n in (caption, hidden_note(layout.hidden, width)) if n]
            if layout.stacked:
                self._print_stacked(title, layout, notes, width)
                return
            t = Table(title=_fit_title(title, width), caption="\n".join(notes) or None, title_justify="left",
                      caption_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
            for col, w, header in zip(layout.columns, layout.widths, layout.headers):
                t.add_column(header, justify=col.justify, no_wrap=True, width=w)
            for r in layout.rows:
                t.add_row(*r)
            self._rich_console().print(t)
            return
        layout = fit(columns, rows, width - _PLAIN_INDENT, _PLAIN_SEP, short_names, self.wide)
        notes = [n for n in (caption, hidden_note(layout.hidden, width)) if n]
        print(render_plain_layout(_fit_title(title, width - _PLAIN_INDENT), layout, "\n".join(notes) or None,
                                  width), file=self.file)

    def _print_stacked(self, title: Optional[str], layout: Layout, notes: List[str], width: int) -> None:
        from rich.text import Text

        from rich.console import Group

        # One print (one block in a notebook). A whole name (wide) may be longer than the width: soft wrap.
        parts = [Text(_fit_title(title, width), style="italic")] if title else []
        parts.append(Text("\n".join(stacked_lines(layout, _RICH_SEP, max_width=width)), no_wrap=not self.wide))
        parts += [Text(note, style="dim") for note in notes]
        self._rich_console().print(Group(*parts), crop=False, soft_wrap=self.wide)


def wrap_plain(text: str, width: int) -> str:
    """Lines of `text` wrapped at spaces to `width` (never inside a word or number), continuation lines
    indented like the line they continue (under the text of a "* " item)."""
    out = []
    for line in str(text).split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        hang = indent + (2 if line.lstrip(" ").startswith("* ") else 0)  # under the text of a "* " item
        out.extend(textwrap.wrap(line, width, subsequent_indent=" " * hang, break_long_words=False,
                                 break_on_hyphens=False) or [line])
    return "\n".join(out)


def _fit_title(title: Optional[str], width: int) -> Optional[str]:
    if title is None or len(title) <= width:
        return title
    return title[: max(width - 1, 0)] + "\u2026"


def render_plain_layout(title: Optional[str], layout: Layout, caption: Optional[str] = None,
                        width: int = FILE_WIDTH) -> str:
    if layout.stacked:
        out = ([f"  {title}"] if title else []) + ["  " + line for line in stacked_lines(layout, _PLAIN_SEP, "-",
                                                                                          width - _PLAIN_INDENT)]
        if caption:
            out.extend(wrap_plain(f"  {c}", width) for c in caption.splitlines())
        return "\n".join(out) + "\n"
    def line(values: Sequence[str]) -> str:
        parts = []
        for col, v, w in zip(layout.columns, values, layout.widths):
            parts.append(v.rjust(w) if col.justify == "right" else v.ljust(w))
        return " " * _PLAIN_INDENT + (" " * _PLAIN_SEP).join(parts).rstrip()

    out = []
    if title:
        out.append(f"  {title}")
    header_lines = [h.split("\n") for h in layout.headers]
    depth = max((len(h) for h in header_lines), default=1)
    for k in range(depth):  # a wrapped header's last line sits on the rule
        out.append(line([h[k - (depth - len(h))] if k >= depth - len(h) else "" for h in header_lines]))
    out.append(" " * _PLAIN_INDENT + "-" * layout.table_width(_PLAIN_SEP))
    out.extend(line(r) for r in layout.rows)
    if not layout.rows:
        out.append("  (none)")
    if caption:
        out.extend(wrap_plain(f"  {c}", width) for c in caption.splitlines())
    return "\n".join(out) + "\n"


def render_plain_table(title: Optional[str], columns: Sequence[Col], rows: List[Sequence[str]],
                       caption: Optional[str] = None, width: int = FILE_WIDTH) -> str:
    layout = fit(columns, rows, width - _PLAIN_INDENT, _PLAIN_SEP, short_names)
    notes = [n for n in (caption, hidden_note(layout.hidden, width)) if n]
    return render_plain_layout(title, layout, "\n".join(notes) or None, width)
