"""Compares a new BENCHMARKS.md with the committed one (issue 45 item 5): every figure of the main table whose
"ours" cell both runs measured, and fails when one regressed by more than the tolerance (20 % by default).

    python3 Benchmarks/bench_check.py COMMITTED.md NEW.md [--tolerance 0.2]

A figure's value is the first number of its "ours" cell, or the middle one of "min / median / max"; events/s and
MB/s are better higher, everything else (ms, µs, KiB, s) lower. Rows only one run has are listed, not judged.
Scripts/bench runs it after each run against the BENCHMARKS.md it replaced (BENCH_CHECK=0 skips the check).
"""
from __future__ import annotations

import re
import sys

NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*(?:\.\d+)?")
HIGHER_IS_BETTER = ("events/s", "MB/s", "req/s", "/s (")


def figures(text: str) -> dict[str, tuple[float, bool]]:
    """The figures of the report's tables (the soak's section excluded): "table: row" -> (value, higher is better).
    The value is the "ours" column, else the one measured through the bridge ("through ..."), else the second."""
    found: dict[str, tuple[float, bool]] = {}
    header: list[str] | None = None
    column = 1
    for line in text.split("\n## Soak")[0].splitlines():
        if not line.lstrip().startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            named = [i for i, h in enumerate(cells) if h == "ours" or h.startswith("through")]
            column = named[0] if named else 1
            continue
        if set("".join(cells)) <= set("-: ") or len(cells) <= column:
            continue
        value = value_of(cells[column])
        if value is not None:
            higher = any(unit in cells[column].split("(")[0] for unit in HIGHER_IS_BETTER)
            found[f"{header[0]}: {cells[0]}"] = (value, higher)
    return found


def value_of(cell: str) -> float | None:
    """The median of "a / b / c", else the first number; None when the cell holds none."""
    head = cell.split("(")[0]
    numbers = [float(n.replace(",", "")) for n in NUMBER.findall(head)]
    if not numbers:
        return None
    return numbers[1] if len(numbers) == 3 and head.count("/") == 2 else numbers[0]


def compare(old: dict, new: dict, tolerance: float) -> tuple[list[str], list[str]]:
    """Lines to print, and the regressions among them."""
    lines, regressions = [], []
    for name in sorted(set(old) | set(new)):
        if name not in old or name not in new:
            lines.append(f"  {'new' if name in new else 'gone'}: {name}")
            continue
        (before, higher), (after, _) = old[name], new[name]
        if before == 0:
            continue
        change = (after - before) / before
        worse = -change if higher else change
        line = f"  {'REGRESSED' if worse > tolerance else 'ok':9} {worse * 100:+6.1f} %  {before:g} -> {after:g}  {name}"
        lines.append(line)
        if worse > tolerance:
            regressions.append(line)
    return lines, regressions


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    tolerance = 0.2
    if "--tolerance" in argv:
        tolerance = float(argv[argv.index("--tolerance") + 1])
        args.remove(str(argv[argv.index("--tolerance") + 1]))
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        old = figures(f.read())
    with open(args[1], encoding="utf-8") as f:
        new = figures(f.read())
    lines, regressions = compare(old, new, tolerance)
    print(f"bench check: {len(new)} figures against the committed run, tolerance {tolerance * 100:.0f} %")
    print("\n".join(lines))
    if regressions:
        print(f"bench check: {len(regressions)} figure(s) regressed by more than {tolerance * 100:.0f} %:", file=sys.stderr)
        print("\n".join(regressions), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
