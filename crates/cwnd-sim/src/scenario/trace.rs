//! The `[trace]` table, its spec and its check into a plan: what the recorder
//! samples, whether link queues are traced, and which nodes are captured as pcap
//! files (by id). The world takes the plan as it is.

use serde::{Deserialize, Serialize};

use super::checks::{known_node, NodeIds};
use super::error::ScenarioError;
use crate::packet::NodeId;
use crate::time::SimTime;
use crate::trace::{Sampling, TraceConfig};
use crate::units::Duration;

/// The `[trace]` table: what a run records beside its summaries.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TraceSpec {
    pub sampling: Sampling,
    /// Sampling period in `interval` mode.
    pub interval: Duration,
    /// Width of the throughput bins.
    pub throughput_bin: Duration,
    /// Record queue occupancy of every link direction.
    pub queues: bool,
    /// Record every data segment transmission (time, seq, retransmission).
    pub segments: bool,
    /// Record each TCP controller's internal numbers (`CongestionControl::info`)
    /// with every series row.
    pub cc_metrics: bool,
    /// Nodes to capture as pcap files: every packet each sends or receives
    /// (see `trace::pcap` for the header layout).
    pub pcap: Vec<String>,
}

impl TraceSpec {
    /// The settings as the recorder takes them.
    pub fn config(&self) -> TraceConfig {
        TraceConfig {
            sampling: self.sampling,
            interval: self.interval.0,
            throughput_bin: self.throughput_bin.0,
            segments: self.segments,
            cc_metrics: self.cc_metrics,
        }
    }
}

impl Default for TraceSpec {
    fn default() -> Self {
        TraceSpec {
            sampling: Sampling::Change,
            interval: Duration(SimTime::from_millis(10)),
            throughput_bin: Duration(SimTime::from_millis(100)),
            queues: false,
            segments: false,
            cc_metrics: false,
            pcap: Vec::new(),
        }
    }
}

/// What a run records.
#[derive(Clone, Debug)]
pub struct TracePlan {
    /// Sampling, interval, throughput bins, segments and controller metrics.
    pub recorder: TraceConfig,
    /// Record the occupancy of every link direction's queue.
    pub queues: bool,
    /// Nodes whose packets are captured as pcap files.
    pub pcap: Vec<NodeId>,
}

/// Checks `[trace]` into its plan: periods positive, captured nodes known.
pub fn check(t: &TraceSpec, nodes: &NodeIds) -> Result<TracePlan, ScenarioError> {
    if t.interval.0 == SimTime::ZERO {
        return Err(ScenarioError::new("trace.interval", "must be positive"));
    }
    if t.throughput_bin.0 == SimTime::ZERO {
        return Err(ScenarioError::new(
            "trace.throughput_bin",
            "must be positive",
        ));
    }
    let mut pcap = Vec::with_capacity(t.pcap.len());
    for (i, name) in t.pcap.iter().enumerate() {
        known_node(nodes, &format!("trace.pcap[{i}]"), name)?;
        pcap.push(nodes[name] as NodeId);
    }
    Ok(TracePlan {
        recorder: t.config(),
        queues: t.queues,
        pcap,
    })
}

#[cfg(test)]
mod tests {
    use super::super::load;
    use crate::time::SimTime;
    use crate::trace::Sampling;

    const TRACED: &str = r#"
        duration = "1s"
        [[links]]
        between = ["a", "b"]
        bandwidth = "10Mbps"
        delay = "5ms"
        [[flows]]
        from = "a"
        to = "b"
        [trace]
        sampling = "interval"
        interval = "50ms"
        queues = true
        pcap = ["b"]
    "#;

    #[test]
    fn the_trace_plan_names_captured_nodes_by_id() {
        let plan = load(TRACED, None).unwrap();
        let t = &plan.trace;
        // Nodes in order of appearance: a = 0, b = 1.
        assert_eq!(t.pcap, vec![1]);
        assert!(t.queues);
        assert_eq!(t.recorder.sampling, Sampling::Interval);
        assert_eq!(t.recorder.interval, SimTime::from_millis(50));
        // Not given: the default bin of 100 ms.
        assert_eq!(t.recorder.throughput_bin, SimTime::from_millis(100));
    }

    #[test]
    fn an_unknown_captured_node_is_refused() {
        let err = load(&TRACED.replace("[\"b\"]", "[\"c\"]"), None).unwrap_err();
        assert_eq!(err.path, "trace.pcap[0]");
    }
}
