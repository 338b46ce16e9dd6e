"""The Python API: scenario forms, result frames, determinism."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cwnd
from cwnd.scenario import Scenario


def builder() -> Scenario:
    return (
        Scenario(duration="5s", name="small", segments=True, queues=True)
        .link("h1", "r", bandwidth="100Mbps", delay="1ms")
        .link(
            "r",
            "h2",
            bandwidth="10Mbps",
            delay="10ms",
            queue_packets=20,
            loss=0.02,
            loss_applies_to="data",
        )
        .flow("h1", "h2", cc="reno", name="f1")
    )


def test_path_dict_and_builder_give_the_same_run(
    small_toml: Path, small_dict: dict[str, Any]
) -> None:
    a = cwnd.run(small_toml, seed=3)
    b = cwnd.run(small_dict, seed=3)
    c = cwnd.run(builder(), seed=3)
    d = cwnd.run(small_toml.read_text(), seed=3)
    assert a.fingerprint == b.fingerprint == c.fingerprint == d.fingerprint
    assert a.events > 1000


def test_frames_have_the_documented_columns(small_dict: dict[str, Any]) -> None:
    r = cwnd.run(small_dict, seed=1)
    assert list(r.summary["name"]) == ["f1"]
    for col in (
        "goodput_bps",
        "throughput_bps",
        "timeouts",
        "fast_retransmits",
        "mean_rtt",
        "mean_rto",
        "drops_impairment",
        "completion_time",
    ):
        assert col in r.summary.columns
    assert list(r.series_wide.columns) == [
        "flow",
        "time",
        "cwnd",
        "ssthresh",
        "srtt",
        "rto",
        "snd_una",
        "snd_nxt",
        "delivered",
    ]
    assert set(r.series.columns) == {"flow", "time", "metric", "value"}
    assert len(r.series) == 7 * len(r.series_wide)
    assert list(r.throughput.columns) == ["flow", "time", "goodput_bps", "throughput_bps"]
    assert len(r.throughput) == 50  # 5 s in 100 ms bins
    assert r.segments["retransmission"].dtype == bool
    assert r.segments["retransmission"].sum() == r.summary["segments_retransmitted"][0]
    assert len(r.queues) > 0
    # Delivered bytes in the bins add up to the summary's total.
    assert r.throughput["goodput_bps"].sum() * 0.1 / 8 == pytest.approx(
        r.summary["bytes_delivered"][0]
    )


def test_loss_shows_up_where_it_should(small_dict: dict[str, Any]) -> None:
    s = cwnd.run(small_dict, seed=1).summary.iloc[0]
    assert s["drops_impairment"] > 0
    assert s["segments_retransmitted"] >= s["drops_impairment"] - s["timeouts"] * 0
    lossless = copy.deepcopy(small_dict)
    del lossless["links"][1]["impairments"]
    clean = cwnd.run(lossless, seed=1).summary.iloc[0]
    assert clean["drops_impairment"] == 0


def test_same_seed_identical_outputs_different_seed_different_draws(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    a, b = cwnd.run(small_dict, seed=5), cwnd.run(small_dict, seed=5)
    c = cwnd.run(small_dict, seed=6)
    assert a.fingerprint == b.fingerprint
    assert np.array_equal(a.series_wide["cwnd"], b.series_wide["cwnd"])
    a.write(tmp_path / "a", figures=False)
    b.write(tmp_path / "b", figures=False)
    for name in ("summary.csv", "links.csv", "series.parquet", "throughput.parquet"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert c.fingerprint != a.fingerprint
    assert not np.array_equal(a.segments["time"], c.segments["time"])


def test_bad_scenarios_raise_scenario_error_naming_the_field(
    small_dict: dict[str, Any],
) -> None:
    bad = copy.deepcopy(small_dict)
    bad["links"][1]["bandwidth"] = "10Mbs"
    with pytest.raises(cwnd.ScenarioError, match=r'links\[1\]\.bandwidth: "10Mbs" is not a rate'):
        cwnd.check(bad)
    assert issubclass(cwnd.ScenarioError, ValueError)


def test_import_does_not_load_plotting_or_pandas() -> None:
    import subprocess
    import sys

    code = "import sys, cwnd; print('matplotlib' in sys.modules, 'pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.split() == ["False", "False"]


def test_a_loss_trace_file_is_found_beside_its_scenario(
    small_toml: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "loss.csv").write_text("# time, p\n0, 0\n2, 0.05\n")
    text = small_toml.read_text().replace('p = 0.02, applies_to = "data"', 'p_file = "loss.csv"')
    (folder / "lossy.toml").write_text(text)
    monkeypatch.chdir(tmp_path)  # not the scenario's folder
    spec = cwnd.load_scenario(folder / "lossy.toml")
    # The plan holds the trace's steps (times in ns), not the file's name.
    stage = spec["links"][1]["impairments"][0]
    assert "p_file" not in stage
    assert stage["schedule"] == [["0ns", 0.0], ["2000000000ns", 0.05]]
    r = cwnd.run(spec, seed=1)
    assert r.summary["drops_impairment"][0] > 0
    with pytest.raises(cwnd.ScenarioError, match=r'p_file: cannot read "loss.csv"'):
        cwnd.check(text)


def test_a_scenario_file_is_loaded_by_the_simulator_once(
    small_toml: Path, load_calls: list[str]
) -> None:
    # One `load` gives the plan (checked, files read, warnings found) that `run` takes;
    # nothing loads it a second time to check it or to find its warnings.
    cwnd.run(small_toml, seed=1)
    assert len(load_calls) == 1
    cwnd.check(str(small_toml))
    assert len(load_calls) == 2
    assert load_calls[1] == small_toml.read_text()  # the TOML text, not a plan from it


def test_channel_counters_are_a_frame() -> None:
    spec = {
        "duration": "3s",
        "links": [{"between": ["s", "bs"], "bandwidth": "100Mbps", "delay": "1ms"}],
        "wimax": [{"base_station": "bs", "subscribers": ["ss"], "preset": "los_snr30"}],
        "wireless": [{"stations": ["ss", "laptop"], "rate": "11Mbps"}],
        "flows": [{"from": "s", "to": "laptop"}],
    }
    r = cwnd.run(spec, seed=1)
    channels = r.channels.set_index("name")
    assert list(channels["kind"]) == ["802.11b", "802.16"]
    assert channels.loc["wimax0", "packets_delivered"] > 1000
    assert channels.loc["wireless0", "frames_delivered"] > 1000


def test_impairment_helpers_write_what_a_scenario_file_says() -> None:
    import tomllib

    from cwnd import impairments as imp

    written = tomllib.loads(
        """
        [[stages]]
        kind = "bernoulli"
        p = 0.01
        applies_to = "data"
        [[stages]]
        kind = "bernoulli"
        schedule = [["0s", 0.0], ["5s", 0.02]]
        [[stages]]
        kind = "gilbert_elliott"
        p_gb = 0.01
        p_bg = 0.3
        loss_bad = 0.5
        [[stages]]
        kind = "drop_list"
        packets = [3, 5]
        flow = "f"
        [[stages]]
        kind = "outage"
        start_on = { flow = "f", segment = 1000 }
        duration = "5s"
        mode = "hold"
        [[stages]]
        kind = "reorder"
        r = 0.05
        delay = { distribution = "normal", mean = "30ms", sd = "15ms" }
        [[stages]]
        kind = "reorder"
        packet = 100
        positions = 4
        direction = "forward"
        [[stages]]
        kind = "delay_step"
        extra = "100ms"
        start = "10s"
        [[stages]]
        kind = "arq"
        pv = 0.3
        delay = { distribution = "empirical", values = ["10ms", "50ms"], weights = [3, 1] }
        in_order = true
        """
    )["stages"]
    built = [
        imp.bernoulli(0.01, applies_to="data"),
        imp.bernoulli(schedule=[("0s", 0.0), ("5s", 0.02)]),
        imp.gilbert_elliott(p_gb=0.01, p_bg=0.3, loss_bad=0.5),
        imp.drop_list([3, 5], flow="f"),
        imp.outage(start_on=imp.trigger("f", 1000), duration="5s", mode="hold"),
        imp.reorder(0.05, delay=imp.normal("30ms", "15ms")),
        imp.reorder(packet=100, positions=4, direction="forward"),
        imp.delay_step("100ms", start="10s"),
        imp.arq(0.3, delay=imp.empirical(["10ms", "50ms"], [3, 1]), in_order=True),
    ]
    assert built == written


def test_a_seed_outside_0_to_2_64_is_refused_by_name(small_dict: dict[str, Any]) -> None:
    for bad in (-1, 2**64, 1.5, True, "1"):
        with pytest.raises(ValueError, match=r"^seed: "):
            cwnd.run(small_dict, seed=bad)  # type: ignore[arg-type]
    assert cwnd.run(small_dict, seed=np.uint64(2**64 - 1)).seed == 2**64 - 1


def test_nan_in_a_scenario_dict_is_named_by_its_field() -> None:
    s = cwnd.Scenario(duration="1s").link("a", "b", bandwidth="1Mbps", delay="1ms", loss=np.nan)
    with pytest.raises(cwnd.ScenarioError) as e:
        cwnd.check(s.flow("a", "b"))
    assert str(e.value) == "links[0].impairments[0].p: nan is not a finite number; give a value"


def two_nodes() -> Scenario:
    return Scenario(duration="1s").link("a", "b", bandwidth="1Mbps", delay="1ms")


def with_stage(stage: Any) -> Scenario:
    """A scenario whose second link has impairment stage `stage`."""
    return two_nodes().link("b", "c", bandwidth="1Mbps", delay="1ms", impairments=[stage])


IS_NOT = (
    "is not a scenario; give a TOML file's path, TOML text, a dict, a cwnd.Scenario or a cwnd.Plan"
)
imp = cwnd.impairments

# Issue 27: each of these raised an exception docs/python.md does not list (TypeError,
# ValueError, AttributeError, FileNotFoundError, IsADirectoryError), was parsed as TOML
# text ("TOML syntax (line 1)"), or was accepted wrongly (a string of stations became a
# list of letters).
MISUSES = {
    "run(None)": (lambda: cwnd.run(None), f"scenario: None (NoneType) {IS_NOT}"),
    "check(42)": (lambda: cwnd.check(42), f"scenario: 42 (int) {IS_NOT}"),
    "check(list)": (lambda: cwnd.check([1]), f"scenario: [1] (list) {IS_NOT}"),
    "run(bytes)": (lambda: cwnd.run(b"x = 1"), f"scenario: b'x = 1' (bytes) {IS_NOT}"),
    "run(x.tml)": (lambda: cwnd.run("x.tml"), "x.tml: no such scenario file"),
    "check(empty)": (lambda: cwnd.check(" "), "scenario: the text is empty; give a TOML"),
    "run(x.toml)": (lambda: cwnd.run("x.toml"), "x.toml: no such scenario file"),
    "check(Path)": (lambda: cwnd.check(Path("/no/s.toml")), "/no/s.toml: no such scenario file"),
    "load(folder)": (lambda: cwnd.load_scenario(Path("/")), "/: is a folder; name a scenario"),
    "check(device)": (lambda: cwnd.check(Path("/dev/null")), "/dev/null: not a regular file"),
    "load(dict)": (lambda: cwnd.load_scenario({"duration": "1s"}), 'missing field "links"'),
    "load(None)": (lambda: cwnd.load_scenario(None), f"scenario: None (NoneType) {IS_NOT}"),
    "bytes value": (
        lambda: cwnd.check({"duration": b"1s"}),
        "duration: b'1s' (bytes) is not a scenario value; give a string, number, boolean",
    ),
    "set value": (lambda: cwnd.check({"duration": "1s", "links": {1}}), "links: {1} (set) is"),
    "object value": (
        lambda: cwnd.check(two_nodes().flow("a", "b", start=object())),
        "flows[0].start: <object object at",
    ),
    "tuple key": (
        lambda: cwnd.check({"duration": "1s", (1, 2): 3}),
        "scenario: key (1, 2) is not a string",
    ),
    "impairments=5 with loss": (
        lambda: two_nodes().link("b", "c", bandwidth="1Mbps", delay="1ms", impairments=5, loss=0.1),
        "links[1].impairments: 5 is not a list of stages",
    ),
    "impairments=5": (
        lambda: cwnd.check(
            two_nodes().link("b", "c", bandwidth="1Mbps", delay="1ms", impairments=5)
        ),
        'links[1].impairments: invalid type: integer "5", expected a list',
    ),
    "flow app=5": (
        lambda: cwnd.check(two_nodes().flow("a", "b", app=5)),
        'flows[0].app: invalid type: integer "5"',
    ),
    "sctp app=[1]": (
        lambda: cwnd.check(two_nodes().sctp("a", "b", app=[1])),
        'flows[0].app[0]: invalid type: integer "1"',
    ),
    "udp source=cbr": (
        lambda: cwnd.check(two_nodes().udp("a", "b", source="cbr")),
        'flows[0].source: invalid type: string "cbr"',
    ),
    "udp source=None": (
        lambda: cwnd.check(two_nodes().udp("a", "b", source=None)),
        "flows[0].source: a UDP flow needs a source",
    ),
    "wimax subscribers=5": (
        lambda: cwnd.check(two_nodes().wimax("b", 5).flow("a", "b")),
        'wimax[0].subscribers: invalid type: integer "5", expected a list',
    ),
    "wireless impairments=5": (
        lambda: cwnd.check(two_nodes().wireless(["b", "c"], rate="11Mbps", impairments=5)),
        'wireless[0].impairments: invalid type: integer "5", expected a list',
    ),
    "wireless stations=bc": (
        lambda: cwnd.check(two_nodes().wireless("bc", rate="11Mbps").flow("a", "c")),
        'wireless[0].stations: invalid type: string "bc", expected a list',
    ),
    "drop_list(5)": (
        lambda: cwnd.check(with_stage(imp.drop_list(5)).flow("a", "c")),
        'links[1].impairments[0].packets: invalid type: integer "5", expected a list',
    ),
    "empirical(5)": (
        lambda: cwnd.check(with_stage(imp.reorder(0.1, delay=imp.empirical(5))).flow("a", "c")),
        'links[1].impairments[0].delay.values: invalid type: integer "5", expected a list',
    ),
    "bernoulli(schedule=[5])": (
        lambda: cwnd.check(with_stage(imp.bernoulli(schedule=[5])).flow("a", "c")),
        'links[1].impairments[0].schedule[0]: invalid type: integer "5"',
    ),
    "arq(pv_schedule=5)": (
        lambda: cwnd.check(with_stage(imp.arq(pv_schedule=5, delay="1ms")).flow("a", "c")),
        'links[1].impairments[0].pv_schedule: invalid type: integer "5", expected a list',
    ),
    "seed='1'": (
        lambda: cwnd.run(two_nodes().flow("a", "b"), seed="1"),
        "seed: '1' is not an integer",
    ),
}


@pytest.mark.parametrize("misuse", MISUSES)
def test_api_misuse_raises_scenario_error_naming_what_is_wrong(misuse: str) -> None:
    call, message = MISUSES[misuse]
    with pytest.raises(cwnd.ScenarioError) as e:
        call()
    assert str(e.value).startswith(message), str(e.value)


def test_results_refuse_a_table_or_flow_they_do_not_have(small_dict: dict[str, Any]) -> None:
    # Issue 27: columns("nope") raised KeyError; flow_series("nope") gave an empty frame.
    r = cwnd.run(small_dict, seed=1)
    with pytest.raises(cwnd.ScenarioError, match=r"^table: 'nope' is not one of series, "):
        r.columns("nope")
    with pytest.raises(cwnd.ScenarioError, match=r"^flow: 'nope' is not one of f1$"):
        r.flow_series("nope")
    with pytest.raises(cwnd.ScenarioError, match=r"^flow: 'nope' is not one of f1$"):
        r.flow_cc_metrics("nope")


def test_numpy_numbers_in_a_scenario_dict_are_numbers() -> None:
    # A grid from np.linspace, a queue from np.arange: json.dumps refused them (TypeError).
    queue = np.int64(7)
    built = two_nodes().link("b", "c", bandwidth="1Mbps", delay="1ms", queue_packets=queue,
                             loss=np.float32(0.25)).flow("a", "c")  # fmt: skip
    plain = two_nodes().link("b", "c", bandwidth="1Mbps", delay="1ms", queue_packets=7,
                             loss=0.25).flow("a", "c")  # fmt: skip
    assert cwnd.run(built, seed=1).fingerprint == cwnd.run(plain, seed=1).fingerprint


def test_load_scenario_takes_every_form_run_takes(
    small_toml: Path, small_dict: dict[str, Any]
) -> None:
    from_file = cwnd.load_scenario(small_toml)
    assert cwnd.load_scenario(small_dict) == from_file
    assert cwnd.load_scenario(builder()) == from_file
    assert cwnd.load_scenario(small_toml.read_text()) == from_file
    assert cwnd.load_scenario(str(small_toml)) == from_file
