"""Type stub of the native module (crates/cwnd-py): its functions' real signatures and
the exact shape of what they return. `tests/test_stubs.py` checks both against the
built extension: every key and every column's dtype."""

from collections.abc import Callable
from typing import Any, TypedDict, final

import numpy as np
from numpy.typing import NDArray

__version__: str

class ScenarioError(ValueError):
    """A scenario that cannot run; the message names the field, the value and what is
    allowed, e.g. `links[0].bandwidth: "10Mbs" is not a rate; use e.g. "10Mbps"`."""

#: A row of a record table (`flows`, `paths`, `links`, `channels`): one key per field
#: of the Rust record (`cwnd_sim::results`), listed in docs/results.md.
Row = dict[str, int | float | bool | str]

class SeriesColumns(TypedDict):
    flow: NDArray[np.uint32]
    time: NDArray[np.float64]
    cwnd: NDArray[np.float64]
    ssthresh: NDArray[np.float64]
    srtt: NDArray[np.float64]
    rto: NDArray[np.float64]
    snd_una: NDArray[np.uint64]
    snd_nxt: NDArray[np.uint64]
    delivered: NDArray[np.uint64]

class ThroughputColumns(TypedDict):
    flow: NDArray[np.uint32]
    time: NDArray[np.float64]
    goodput_bps: NDArray[np.float64]
    throughput_bps: NDArray[np.float64]

class SegmentColumns(TypedDict):
    flow: NDArray[np.uint32]
    time: NDArray[np.float64]
    seq: NDArray[np.uint64]
    len: NDArray[np.uint32]
    retransmission: NDArray[np.bool_]

class CcMetricColumns(TypedDict):
    flow: NDArray[np.uint32]
    time: NDArray[np.float64]
    metric: NDArray[np.uint32]
    value: NDArray[np.float64]
    metric_names: list[str]

class QueueColumns(TypedDict):
    link: NDArray[np.uint32]
    time: NDArray[np.float64]
    packets: NDArray[np.uint32]
    bytes: NDArray[np.uint64]

class QueueDelayColumns(TypedDict):
    link: NDArray[np.uint32]
    time: NDArray[np.float64]
    delay: NDArray[np.float64]

class AssociationSeriesColumns(TypedDict):
    association: NDArray[np.uint32]
    time: NDArray[np.float64]
    cumulative_tsn: NDArray[np.uint64]
    highest_tsn: NDArray[np.uint64]
    delivered: NDArray[np.uint64]
    dupthresh: NDArray[np.uint32]
    fast_recovery: NDArray[np.bool_]

class PathSeriesColumns(TypedDict):
    association: NDArray[np.uint32]
    time: NDArray[np.float64]
    path: NDArray[np.uint8]
    cwnd: NDArray[np.float64]
    ssthresh: NDArray[np.float64]
    flight: NDArray[np.float64]
    cwnd_bytes: NDArray[np.uint64]
    ssthresh_bytes: NDArray[np.uint64]
    flight_bytes: NDArray[np.uint64]
    srtt: NDArray[np.float64]
    rto: NDArray[np.float64]
    active: NDArray[np.bool_]

class ChunkColumns(TypedDict):
    association: NDArray[np.uint32]
    time: NDArray[np.float64]
    tsn: NDArray[np.uint64]
    path: NDArray[np.uint8]
    len: NDArray[np.uint32]
    copy: NDArray[np.uint8]
    retransmission: NDArray[np.bool_]
    spurious: NDArray[np.bool_]

class SctpEventColumns(TypedDict):
    association: NDArray[np.uint32]
    time: NDArray[np.float64]
    kind: list[str]
    path: NDArray[np.uint8]
    chunks: NDArray[np.uint64]
    spurious: NDArray[np.bool_]
    detected: NDArray[np.bool_]
    detected_time: NDArray[np.float64]

class RunResults(TypedDict):
    """What `run` returns: summaries as rows, time series as numpy columns (flows and
    associations by index: TCP flows first, then SCTP associations, then UDP flows)."""

    name: str
    seed: int
    fingerprint: int
    events: int
    duration: float
    throughput_bin: float
    flows: list[Row]
    paths: list[Row]
    association_series: AssociationSeriesColumns
    path_series: PathSeriesColumns
    chunks: ChunkColumns
    sctp_events: SctpEventColumns
    series: SeriesColumns
    throughput: ThroughputColumns
    segments: SegmentColumns
    cc_metrics: CcMetricColumns
    links: list[Row]
    channels: list[Row]
    connections: list[Row]
    generators: list[Row]
    queues: QueueColumns
    queue_delays: QueueDelayColumns
    pcaps: dict[str, bytes]

class RelayFlowCounts(TypedDict):
    injected_packets: int
    injected_bytes: int
    injected_data_packets: int
    delivered_packets: int
    delivered_bytes: int
    delivered_data_packets: int

class RelayTuple(TypedDict):
    protocol: str
    src: str
    sport: int
    dst: str
    dport: int
    packets_sent: int
    bytes_sent: int
    packets_delivered: int
    bytes_delivered: int
    drops_queue: int
    drops_medium: int
    delay_min: float
    delay_p50: float
    delay_p90: float
    delay_p99: float
    delay_max: float

class RelayReport(TypedDict):
    flows: list[RelayFlowCounts]
    tuples: list[RelayTuple]
    unmatched: int
    overruns: int
    uncaptured: int
    write_errors: int
    packets_timed: int
    late_p50: float
    late_p99: float
    late_max: float
    seconds: float
    cpu_seconds: float
    active_seconds: float
    carried_bps: float
    pinned: bool
    realtime: bool
    stopped: bool

class LiveResults(RunResults):
    """What `live_relay` returns: the world's results and the relay's report."""

    relay: RelayReport

class EngineBench(TypedDict):
    events: int
    seconds: float

class PlanSummary(TypedDict):
    """What `Plan.summary` counts."""

    name: str | None
    duration: float
    links: int
    wireless: int
    wimax: int
    flows: dict[str, int]
    generators: int
    tcp_profiles: list[str]
    memory_estimate: int

@final
class Plan:
    """A scenario checked into its plan (`load`), held by the simulator: `run` builds
    its world from it without parsing anything again. Pickles as its canonical JSON,
    loaded again where it is unpickled (a process pool's or a Dask worker's one load)."""

    @property
    def fingerprint_key(self) -> str:
        """The SHA-256 of the canonical JSON, in hex: equal keys, equal plans, equal
        fingerprints for equal seeds."""

    @property
    def spec(self) -> dict[str, Any]:
        """The canonical spec as a new dict (every default written out, the contents of
        the files it named in place of their names)."""

    @property
    def warnings(self) -> list[str]:
        """What the scenario asks for that can never happen in its run."""

    @property
    def memory_estimate(self) -> int:
        """The bytes a run is estimated to hold at its peak: what the scenario's
        `memory_budget` bounds."""

    def summary(self) -> PlanSummary:
        """Name (None when the scenario gives none), duration in seconds, counts of
        links, 802.11 channels, 802.16 cells, flows per transport, generators, the
        TCP profiles its TCP flows and generators run (in order of first use), and
        the memory estimate."""

    def to_json(self) -> str:
        """The canonical JSON text (docs/scenarios.md, "Loading"); `load` gives the
        same plan back, reading no file."""

    def __reduce__(self) -> tuple[Callable[[str], Plan], tuple[str]]: ...

def load(text: str, base_dir: str | None = None) -> Plan:
    """Loads a scenario, TOML or JSON text, into its `Plan`: checked once, the files it
    names (`p_file`) read once, relative to `base_dir` when given, and put in it.
    Raises ScenarioError; errors in TOML carry line numbers."""

def run(plan: Plan, seed: int) -> RunResults:
    """Runs a plan with `seed`, building its world from the plan itself; returns
    summaries and numpy columns.

    Raises ScenarioError; on the main thread, a signal handler's exception (Ctrl-C's
    KeyboardInterrupt) stops the run within about 50 ms and is raised."""

def controllers() -> list[str]:
    """The congestion controllers a flow's `cc` may name, in the order of the
    simulator's `controllers!` table."""

def bench_engine(events: int) -> EngineBench:
    """Times `events` pops and pushes of the event queue: {"events", "seconds"}."""

def open_tun(name: str) -> int:
    """Creates TUN device `name` (IFF_TUN, no packet info, non-blocking) in the caller's
    network namespace; returns its descriptor, which the caller closes."""

def live_relay(
    spec_json: str,
    seed: int,
    hosts: list[tuple[str, int, int]],
    flows: list[tuple[int, int, int, int]],
    epoch_ns: int,
    stop_fd: int,
    pin_cpu: int | None = None,
    until_stopped: bool = False,
) -> LiveResults:
    """Relays the scenario's network between TUN devices from `epoch_ns`
    (CLOCK_MONOTONIC) until its end (with `until_stopped`, past it) or until `stop_fd`
    is readable. hosts: (node, TUN fd, IPv4 address as an integer); flows: (flow
    index, sender address, receiver address, receiver port). Returns the world's
    results with a `relay` report: its counts, timing error, and `tuples`, a summary
    per 5-tuple of the packets of no flow."""
