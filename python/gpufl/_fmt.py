"""Number formatting and table output for the analyzer: rich when it is installed, plain text otherwise."""
from __future__ import annotations

import os
import shutil
import sys
from typing import IO, List, Optional, Sequence, Tuple


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


Column = Tuple[str, ...]  # (header, "left" | "right"[, "nowrap"]): nowrap cells are cut with an ellipsis


class Output:
    """Prints titled tables and key/value blocks with rich, or as plain aligned text."""

    def __init__(self, use_rich: Optional[bool] = None, file: Optional[IO[str]] = None):
        self.use_rich = _rich_available() if use_rich is None else (use_rich and _rich_available())
        self._file = file
        self._console = None

    @property
    def file(self) -> IO[str]:
        return self._file if self._file is not None else sys.stdout

    def _rich_console(self):
        from rich.console import Console

        # Outside a terminal rich defaults to 80 columns, too narrow for the hotspot table.
        width = None
        if not self.file.isatty() and "COLUMNS" not in os.environ:
            width = max(shutil.get_terminal_size((180, 24)).columns, 180)
        return Console(file=self._file, width=width, highlight=False)

    def heading(self, title: str) -> None:
        if self.use_rich:
            from rich.rule import Rule

            self._rich_console().print(Rule(f"[bold]{title}[/bold]"))
        else:
            line = "=" * 79
            print(f"{line}\n  {title}\n{line}", file=self.file)

    def text(self, line: str = "") -> None:
        if self.use_rich:
            self._rich_console().print(line, markup=False)
        else:
            print(line, file=self.file)

    def kv(self, title: Optional[str], pairs: Sequence[Tuple[str, str]]) -> None:
        if self.use_rich:
            from rich.table import Table

            t = Table(title=title, show_header=False, box=None, pad_edge=False, title_justify="left")
            t.add_column(style="bold cyan")
            t.add_column()
            for k, v in pairs:
                t.add_row(k, v)
            self._rich_console().print(t)
            return
        if title:
            self.heading(title)
        width = max((len(k) for k, _ in pairs), default=0) + 2
        for k, v in pairs:
            print(f"  {(k + ':'):<{width}}{v}", file=self.file)
        print(file=self.file)

    def table(self, title: Optional[str], columns: Sequence[Column], rows: List[Sequence[str]],
              caption: Optional[str] = None) -> None:
        if self.use_rich:
            from rich.table import Table

            t = Table(title=title, caption=caption, title_justify="left", caption_justify="left")
            for header, justify, *opts in columns:
                if "nowrap" in opts:
                    t.add_column(header, justify=justify, no_wrap=True, overflow="ellipsis", min_width=16)
                else:
                    t.add_column(header, justify=justify, overflow="fold")
            for r in rows:
                t.add_row(*[str(c) for c in r])
            self._rich_console().print(t)
            return
        print(render_plain_table(title, columns, rows, caption), file=self.file)


def render_plain_table(title: Optional[str], columns: Sequence[Column], rows: List[Sequence[str]],
                       caption: Optional[str] = None) -> str:
    headers = [c[0] for c in columns]
    cells = [[str(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        parts = []
        for col, v, w in zip(columns, values, widths):
            parts.append(v.rjust(w) if col[1] == "right" else v.ljust(w))
        return "  " + "  ".join(parts).rstrip()

    out = []
    if title:
        out.append(f"  {title}")
    out.append(line(headers))
    out.append("  " + "-" * (sum(widths) + 2 * (len(widths) - 1)))
    out.extend(line(r) for r in cells)
    if not cells:
        out.append("  (none)")
    if caption:
        out.extend(f"  {c}" for c in caption.splitlines())
    return "\n".join(out) + "\n"
