//! The `[trace]` table checked into a plan: what the recorder samples, whether
//! link queues are traced, and which nodes are captured as pcap files (by id).

use std::collections::HashMap;

use super::checks::known_node;
use super::error::ScenarioError;
use super::spec::Scenario;
use crate::packet::NodeId;
use crate::time::SimTime;
use crate::trace::TraceConfig;

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

impl Scenario {
    /// Checks `[trace]` into its plan: periods positive, captured nodes known.
    pub(super) fn check_trace(
        &self,
        nodes: &HashMap<String, usize>,
    ) -> Result<TracePlan, ScenarioError> {
        let t = &self.trace;
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
