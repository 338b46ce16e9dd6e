"""The `cwnd` command: outputs, exit codes and one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SMALL

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: The IEND chunk's type and CRC: the last 8 bytes of a whole PNG file.
PNG_END = b"IEND\xaeB`\x82"


def cwnd(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it: stdout a pipe, block-buffered (without the
    PYTHONUNBUFFERED a test environment may set)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run(
        [sys.executable, "-m", "cwnd", *map(str, args)], capture_output=True, text=True, env=env
    )


def assert_bad_input(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_help_and_version() -> None:
    assert cwnd("--help").returncode == 0
    out = cwnd("--version")
    assert out.returncode == 0 and out.stdout.startswith("cwnd ")


def test_a_reader_that_goes_away_ends_the_command_quietly(small_toml: Path) -> None:
    # `cwnd check FILE | head -0`: the reader is gone before the command writes. The
    # command ends as one that SIGPIPE ends (128 + 13), with nothing on stderr; it said
    # "internal error: BrokenPipeError" before.
    proc = subprocess.Popen(
        [sys.executable, "-m", "cwnd", "check", str(small_toml)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert (proc.returncode, err) == (141, "")


def test_run_writes_tables_and_figures(small_toml: Path, tmp_path: Path) -> None:
    # The command leaves without the interpreter's teardown (`cli.main`): every file
    # must be whole by then, every table readable to its last row, every PNG closed
    # by its IEND chunk, and everything printed must have reached stdout.
    import pandas as pd

    out = tmp_path / "out"
    proc = cwnd("run", small_toml, "--seed", "2", "--out", out)
    assert proc.returncode == 0, proc.stderr
    # SMALL's one TCP flow pins no profile: the default's name is in the first line.
    assert proc.stdout.splitlines()[0].endswith(", TCP profile linux)"), proc.stdout
    assert "f1" in proc.stdout
    assert proc.stdout.rstrip().endswith(f"written to {out}/"), proc.stdout
    for name in ("summary.csv", "links.csv"):
        assert len(pd.read_csv(out / name)) > 0, name
    for name in ("series.parquet", "throughput.parquet", "segments.parquet", "queues.parquet"):
        assert len(pd.read_parquet(out / name)) > 0, name
    for name in ("cwnd.png", "sequence.png", "throughput.png", "queue.png"):
        png = (out / name).read_bytes()
        assert png[:8] == PNG_MAGIC and png[-8:] == PNG_END, name


def test_run_draws_only_the_figures_asked_for(small_toml: Path, tmp_path: Path) -> None:
    some, none = tmp_path / "some", tmp_path / "none"
    proc = cwnd("run", small_toml, "--out", some, "--figures", "queue,cwnd")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in some.glob("*.png")) == ["cwnd.png", "queue.png"]
    # Figures not asked for are not reported as skipped for want of data.
    assert "skipped" not in proc.stdout
    proc = cwnd("run", small_toml, "--out", none, "--figures", "none")
    assert proc.returncode == 0, proc.stderr
    assert not list(none.glob("*.png"))
    assert (none / "series.parquet").stat().st_size > 0


def test_check_accepts_every_example_scenario_without_warnings() -> None:
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        proc = cwnd("check", path)
        assert proc.returncode == 0, f"{path}: {proc.stderr}"
        assert "warning" not in proc.stderr, f"{path}: {proc.stderr}"


def test_check_warns_of_a_trigger_beyond_the_transfer(tmp_path: Path) -> None:
    text = (ROOT / "scenarios" / "outage.toml").read_text()
    beyond = tmp_path / "beyond.toml"
    beyond.write_text(text.replace("segment = 1000 }", "segment = 3001 }"))
    proc = cwnd("check", beyond)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == (
        "cwnd: warning: wireless[0].impairments[0].start_on.segment: 3001 is beyond "
        "flow 'reno''s transfer (3000 segments): the stage never starts"
    )


def test_bad_unit_names_field_value_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.replace('"10Mbps"', '"10Mbs"'))
    assert_bad_input(
        cwnd("check", bad),
        'links[1].bandwidth: "10Mbs" is not a rate; use e.g. "10Mbps"',
        "(line 12)",
    )


def test_unknown_key_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.replace('cc = "reno"', 'cc = "reno"\ncolour = "blue"'))
    assert_bad_input(cwnd("run", bad), "flows[0]", 'unknown field "colour"')


def test_unknown_node_and_unreachable_destination(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.replace('to = "h2"', 'to = "h9"'))
    assert_bad_input(cwnd("check", bad), 'flows[0].to: "h9" is not a node')
    island = tmp_path / "island.toml"
    island.write_text(
        SMALL + '\n[[links]]\nbetween = ["x", "y"]\nbandwidth = "1Mbps"\ndelay = "1ms"\n'
        '[[flows]]\nfrom = "h1"\nto = "x"\n'
    )
    assert_bad_input(cwnd("check", island), "flows[1]", "no route")


def test_missing_file_and_toml_syntax(tmp_path: Path) -> None:
    assert_bad_input(cwnd("run", tmp_path / "nope.toml"), "no such scenario file")
    broken = tmp_path / "broken.toml"
    broken.write_text("duration = \n")
    assert_bad_input(cwnd("check", broken), "TOML syntax")


def test_bad_arguments_exit_2() -> None:
    assert cwnd("run").returncode == 2
    assert cwnd("frobnicate").returncode == 2


def test_run_all_keeps_going_past_a_failing_scenario(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "a_good.toml").write_text(SMALL)
    (folder / "b_bad.toml").write_text(SMALL.replace('"5s"', '"0s"'))
    (folder / "c_good.toml").write_text(SMALL.replace('"small"', '"small2"'))
    proc = cwnd("run-all", folder, "--out", tmp_path / "out")
    assert proc.returncode == 2
    assert "b_bad" in proc.stderr and "duration" in proc.stderr
    assert (tmp_path / "out" / "a_good" / "summary.csv").exists()
    assert (tmp_path / "out" / "c_good" / "summary.csv").exists()
    index = (tmp_path / "out" / "index.md").read_text()
    assert "a_good" in index and "c_good" in index


def test_run_all_lists_a_scenario_of_generators_only(tmp_path: Path) -> None:
    # web_mix has no [[flows]]: its line gives each generator's load, not a crash.
    folder = tmp_path / "scenarios"
    folder.mkdir()
    text = (ROOT / "scenarios" / "web_mix.toml").read_text().replace('"60s"', '"20s"')
    (folder / "web_mix.toml").write_text(text)
    proc = cwnd("run-all", folder, "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    index = (tmp_path / "out" / "index.md").read_text()
    assert "web-reno: load " in index and " of 0.20" in index, index
    # No flow: no per-flow table or figure, empty, and the run says which it skipped.
    per_flow = ["summary.csv", "series.parquet", "throughput.parquet", "cwnd.png",
                "sequence.png", "throughput.png"]  # fmt: skip
    assert f"web_mix: skipped, nothing to show: {', '.join(per_flow)}" in proc.stdout
    written = {p.name for p in (tmp_path / "out" / "web_mix").iterdir()}
    assert written == {"links.csv", "generators.csv", "connections.parquet"}


def test_command_line_mistakes_are_one_line() -> None:
    assert_bad_input(cwnd("run"), "cwnd run", "SCENARIO.toml")
    assert_bad_input(cwnd("run", "x.toml", "--seed", "abc"), "--seed", "'abc'")
    assert_bad_input(
        cwnd("sweep", "s.toml", "--tables", "series,nope"),
        "--tables: 'nope' is not one of series, throughput, segments, association_series",
    )
    assert_bad_input(
        cwnd("run", "x.toml", "--figures", "cwnd,window"),
        "--figures: 'window' is not a figure; use all, none, or a comma-separated list of",
        "cwnd, sequence, throughput, queue, cc_metrics",
    )


def test_seeds_out_of_range_are_bad_input(small_toml: Path) -> None:
    assert_bad_input(cwnd("run", small_toml, "--seed", "-1"), "--seed", "-1 is not in 0 to 2^64")
    assert_bad_input(cwnd("run", small_toml, "--seed", str(2**64)), "--seed", "is not in 0")
    assert_bad_input(cwnd("sweep", small_toml, "--workers", "0"), "--workers", "at least 1")


LOSS = "links[1].impairments[0].p"


@pytest.mark.parametrize(
    ("sweep_file", "message"),
    [
        ("seeds = 1000000000", "seeds: 1000000000 is not a count from 1 to 100000"),
        ("seeds = 0", "seeds: 0 is not a count from 1 to 100000"),
        ("seeds = true", "seeds: True is not a count or a list of integers"),
        ('seeds = "3"', "seeds: '3' is not a count or a list of integers"),
        ("seeds = [1, 1]", "seeds: 1 appears twice"),
        ('seeds = [1, "a"]', "seeds: 'a' is not an integer"),
        ("grid = 3", "grid: 3 is not a table of field = [values]"),
        (f'[grid]\n"{LOSS}" = 0.1', f"grid.{LOSS}: 0.1 is not a list of values"),
        ('[grid]\n"flows[0].cc" = "reno"', "grid.flows[0].cc: 'reno' is a string"),
        ("points = 3", "points: 3 is not an array of tables"),
        (
            f'[grid]\n"{LOSS}" = [0.1]\n[[points]]\n"{LOSS}" = 0.1',
            "grid and points: give one of them, not both",
        ),
        ("out = 3", "out: 3 is not a file name"),
    ],
)
def test_sweep_file_mistakes_are_one_line(tmp_path: Path, sweep_file: str, message: str) -> None:
    (tmp_path / "s.toml").write_text(SMALL)
    scenario = "" if sweep_file.startswith("scenario") else 'scenario = "s.toml"\n'
    (tmp_path / "sweep.toml").write_text(scenario + sweep_file + "\n")
    cache = tmp_path / "cache"
    proc = cwnd("sweep", tmp_path / "sweep.toml", "--cache", cache, "--out", tmp_path / "t.pq")
    assert_bad_input(proc, f"{tmp_path / 'sweep.toml'}: {message}")
    assert not cache.exists()


def test_scenario_must_be_a_file_name(tmp_path: Path) -> None:
    (tmp_path / "sweep.toml").write_text("scenario = 5\n")
    assert_bad_input(cwnd("sweep", tmp_path / "sweep.toml"), "scenario: 5 is not a file name")
    (tmp_path / "sweep.toml").write_text('scenario = "."\n')
    assert_bad_input(cwnd("sweep", tmp_path / "sweep.toml"), "is a folder; name a scenario file")
    assert_bad_input(cwnd("sweep", tmp_path), f"{tmp_path}: no such sweep file")


def test_sweep_files_are_utf8_with_or_without_a_byte_order_mark(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(SMALL)
    (tmp_path / "latin1.toml").write_bytes('scenario = "s.toml" # é\n'.encode("latin-1"))
    assert_bad_input(
        cwnd("sweep", tmp_path / "latin1.toml"), "latin1.toml: not UTF-8 text (byte 22 is 0xe9)"
    )
    (tmp_path / "bom.toml").write_bytes(b'\xef\xbb\xbfscenario = "s.toml"\nseeds = [1]\n')
    proc = cwnd("sweep", tmp_path / "bom.toml", "--cache", tmp_path / "c", "--out", tmp_path / "t")
    assert proc.returncode == 0, proc.stderr


def test_unwritable_outputs_are_refused_before_computing(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(SMALL)
    (tmp_path / "sweep.toml").write_text('scenario = "s.toml"\nseeds = [1]\n')
    sweep_file, cache = tmp_path / "sweep.toml", tmp_path / "cache"
    # Root may write anywhere permissions allow nothing; /proc refuses new files to all.
    assert_bad_input(
        cwnd("sweep", sweep_file, "--cache", cache, "--out", "/proc/cwnd/t.parquet"),
        "--out: /proc/cwnd: cannot write in /proc",
    )
    assert not cache.exists()
    assert_bad_input(
        cwnd("sweep", sweep_file, "--cache", tmp_path / "s.toml" / "c"),
        f"--cache: {tmp_path / 's.toml' / 'c'}: {tmp_path / 's.toml'} is not a folder",
    )
    assert_bad_input(
        cwnd("sweep", sweep_file, "--cache", cache, "--out", tmp_path),
        f"--out: {tmp_path} is a folder",
    )
    assert not cache.exists()
    assert_bad_input(cwnd("run", tmp_path / "s.toml", "--out", "/proc/cwnd"), "--out: /proc/cwnd")


def test_reproduce_checks_its_outputs_before_computing(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("")
    assert_bad_input(
        cwnd("reproduce", "outage", "--quick", "--out", tmp_path / "o", "--cache", file),
        f"--cache: {file}: {file} is not a folder",
    )
    assert not (tmp_path / "o").exists()


def test_a_scenario_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'duration = "1s"\n# caf\xe9\nlinks = []\nflows = []\n')
    proc = subprocess.run(
        [sys.executable, "-m", "cwnd", "check", str(latin)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"cwnd: error: {latin}: not UTF-8 text (byte 0xe9 at offset 21); save the file as UTF-8"
    )
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + SMALL.encode())
    assert subprocess.run([sys.executable, "-m", "cwnd", "check", str(bom)]).returncode == 0


def test_reproduce_help_names_every_study() -> None:
    from cwnd.studies import STUDIES

    text = " ".join(cwnd("reproduce", "--help").stdout.split())
    for name in STUDIES:
        assert name in text, name


ONE_LINK = """
name = "mix"
duration = "2s"
[[links]]
name = "ab"
between = ["a", "b"]
bandwidth = "10Mbps"
delay = "10ms"
"""
UDP_FLOW = """
[[flows]]
name = "u"
from = "a"
to = "b"
transport = "udp"
source = { kind = "cbr", rate = "1Mbps", packet_size = "1000B" }
"""
SCTP_FLOW = '[[flows]]\nname = "s"\nfrom = "a"\nto = "b"\ntransport = "sctp"\n'
TCP_FLOW = '[[flows]]\nname = "t"\nfrom = "a"\nto = "b"\n'
GENERATOR = """
[[generators]]
name = "g"
kind = "ftp"
from = "a"
to = "b"
link = "ab"
load = 0.2
mean_size = "20KB"
"""


@pytest.mark.parametrize(
    ("parts", "names"),
    [
        ([UDP_FLOW], ["u"]),
        ([SCTP_FLOW], ["s"]),
        ([GENERATOR], ["g"]),
        ([TCP_FLOW, UDP_FLOW], ["t", "u"]),
        ([SCTP_FLOW, UDP_FLOW, GENERATOR], ["s", "u", "g"]),
    ],
    ids=["udp", "sctp", "generators", "tcp+udp", "sctp+udp+generators"],
)
def test_every_mix_of_transports_prints_its_summary(
    tmp_path: Path, parts: list[str], names: list[str]
) -> None:
    # Issue 27: flows of UDP only wrote their files, then the summary's missing
    # completion_time column ended the command with an internal error (exit 1).
    path = tmp_path / "mix.toml"
    path.write_text(ONE_LINK + "".join(parts))
    proc = cwnd("run", path, "--out", tmp_path / "out", "--figures", "none")
    assert (proc.returncode, proc.stderr) == (0, "")
    first_words = [line.split()[0] for line in proc.stdout.splitlines()]
    for name in names:
        assert name in first_words, proc.stdout
    assert f"written to {tmp_path / 'out'}/" in proc.stdout


def test_a_scenario_without_traffic_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "none.toml"
    path.write_text(ONE_LINK)
    assert_bad_input(
        cwnd("run", path, "--out", tmp_path / "out"),
        "flows: a scenario needs at least one flow or generator",
    )


def test_a_udp_flow_shows_a_dash_for_what_udp_does_not_have(tmp_path: Path) -> None:
    path = tmp_path / "udp.toml"
    path.write_text(ONE_LINK + UDP_FLOW)
    proc = cwnd("run", path, "--out", tmp_path / "out", "--figures", "none")
    assert proc.returncode == 0, proc.stderr
    # CBR at 1 Mb/s in 1000-byte packets: one every 8 ms, 250 in 2 s; the last (sent
    # at 1.992 s) needs 0.8 ms + 10 ms more and is still in flight at the end, so 249
    # arrive: 249 × 8000 bit / 2 s = 0.996 Mb/s. No retransmissions, timeouts or
    # completion: "-".
    assert proc.stdout.splitlines()[2].split() == ["u", "cbr", "0.996", "-", "-", "-"]


def test_the_exit_codes_are_those_docs_scenarios_md_gives(tmp_path: Path) -> None:
    # One table (docs/scenarios.md, "Exit codes"): 0 success, 1 a run that failed for
    # a reason of its own (a failed sweep point: before, 2 as a user mistake), 2 every
    # user mistake; 128 + N for signals (tests/test_signals.py).
    text = (ROOT / "docs" / "scenarios.md").read_text()
    table = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    codes = [row.split("|")[1].strip() for row in table.splitlines() if row.startswith("| ")]
    assert codes == ["code", "0", "1", "2", "128 + N"]
    (tmp_path / "s.toml").write_text(SMALL)
    assert cwnd("check", tmp_path / "s.toml").returncode == 0
    (tmp_path / "sweep.toml").write_text(
        f'scenario = "s.toml"\nseeds = [1]\n[grid]\n"{LOSS}" = [0.01, 2.0]\n'
    )
    failed = cwnd("sweep", tmp_path / "sweep.toml", "--cache", tmp_path / "c",
                  "--out", tmp_path / "t.parquet")  # fmt: skip
    assert failed.returncode == 1, failed.stderr
    assert_bad_input(cwnd("check", tmp_path / "nope.toml"), "no such scenario file")
