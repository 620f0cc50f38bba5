"""Benchmarks/bench_check.py, the bench's regression gate (issue 45 item 5): a figure more than 20 % worse than the
committed run fails it, in the direction each unit is better; rows only one run has are listed, not judged."""
import pathlib
import subprocess
import sys

CHECK = pathlib.Path(__file__).resolve().parents[2] / "Benchmarks" / "bench_check.py"

TABLE = """# Benchmarks

| figure | ours | peer / limit | ratio | target | met? |
|---|---|---|---|---|---|
| P1 handshake p50 | {p1} ms | 0.5 ms | 1× | | |
| P2 relay | {p2} events/s (bridge CPU 9 µs/event) | 9 events/s | | | |
| P5 replay | 0.679 / {p5} / 0.825 ms | n/a | | | |
{extra}
## Soak

| minute | rss |
|---|---|
| 1 | {soak} KiB |
"""


def run(tmp_path, old, new):
    (tmp_path / "old.md").write_text(TABLE.format(**old))
    (tmp_path / "new.md").write_text(TABLE.format(**new))
    return subprocess.run([sys.executable, str(CHECK), str(tmp_path / "old.md"), str(tmp_path / "new.md")],
                          capture_output=True, text=True)


BASE = {"p1": "1.00", "p2": "100000", "p5": "0.700", "extra": "", "soak": "100"}


def test_within_the_tolerance_passes(tmp_path):
    result = run(tmp_path, BASE, {**BASE, "p1": "1.15", "p2": "85000", "p5": "0.800", "soak": "900"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 figures" in result.stdout  # the soak's table is not judged


def test_a_slower_handshake_fails(tmp_path):
    result = run(tmp_path, BASE, {**BASE, "p1": "1.25"})
    assert result.returncode == 1 and "P1 handshake p50" in result.stderr, result.stdout + result.stderr


def test_fewer_events_per_second_fails_and_more_passes(tmp_path):
    assert run(tmp_path, BASE, {**BASE, "p2": "70000"}).returncode == 1
    assert run(tmp_path, BASE, {**BASE, "p2": "300000"}).returncode == 0


def test_the_median_of_three_runs_is_the_figure(tmp_path):
    assert run(tmp_path, BASE, {**BASE, "p5": "0.900"}).returncode == 1  # 0.7 -> 0.9 is +29 %


def test_a_new_row_is_listed_not_judged(tmp_path):
    result = run(tmp_path, BASE, {**BASE, "extra": "| P7 voice | 900 ms | | | | |"})
    assert result.returncode == 0 and "new: figure: P7 voice" in result.stdout, result.stdout
