//! What a run returns for each SCTP association: a summary with the sender's and
//! receiver's counters and the ground truth about spurious retransmissions, one
//! summary per path, the retransmission events, and the recorded series.
//!
//! Truth (`transport::sctp::truth`): a retransmission was spurious if an earlier copy
//! of its TSN reached the receiver; an event (a fast retransmit — all of one Fast
//! Recovery on one destination — or a timeout) was spurious if every retransmission
//! made for it was. Detection effectiveness = events detected spurious that were /
//! spurious events.

use crate::time::SimTime;
use crate::trace::sctp::{AssociationSeries, ChunkTrace, PathSeries};
use crate::trace::{sctp::AssociationTrace, Bins};
use crate::transport::sctp::config::RrConfig;
use crate::transport::sctp::path::PathStats;
use crate::transport::sctp::receiver::ReceiverStats;
use crate::transport::sctp::sender::SenderStats;
use crate::world::SctpFlow;

/// Counts of retransmission events and retransmissions by what really happened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpuriousTruth {
    pub events: u64,
    pub spurious_events: u64,
    pub spurious_fast_retransmits: u64,
    pub spurious_timeouts: u64,
    /// Events RR-SCTP detection called spurious that were, and that were not.
    pub detected_correct: u64,
    pub detected_wrong: u64,
    /// Retransmitted DATA chunks, and those that were not needed.
    pub retransmissions: u64,
    pub spurious_retransmissions: u64,
}

#[derive(Clone, Debug)]
pub struct AssociationSummary {
    pub name: String,
    pub from: Vec<String>,
    pub to: Vec<String>,
    /// Final state of the opening endpoint (`established`, `shut_down`, `aborted`…).
    pub state: &'static str,
    /// Largest DATA chunk (bytes, header included): the unit of the windows.
    pub pmdcs: u64,
    pub start: SimTime,
    /// Completion of a transfer (last byte acknowledged), else stop, else run end.
    pub end: SimTime,
    pub completion_time: Option<SimTime>,
    pub established_at: Option<SimTime>,
    pub rr: RrConfig,
    pub sender: SenderStats,
    pub receiver: ReceiverStats,
    pub drops_queue: u64,
    pub drops_impairment: u64,
    pub truth: SpuriousTruth,
    /// RTT samples of every path and their sum, for the mean.
    pub rtt_samples: u64,
    pub rtt_sum_ns: u128,
}

impl AssociationSummary {
    fn active_seconds(&self) -> f64 {
        (self.end - self.start).as_secs_f64()
    }

    pub fn goodput_bps(&self) -> f64 {
        super::rate(self.receiver.bytes_delivered, self.active_seconds())
    }

    pub fn throughput_bps(&self) -> f64 {
        super::rate(self.sender.bytes_sent, self.active_seconds())
    }

    pub fn mean_rtt(&self) -> f64 {
        super::mean_seconds(self.rtt_sum_ns, self.rtt_samples)
    }

    /// The variant's name: "sctp", or "rr-sctp" with any RR-SCTP algorithm on.
    pub fn variant(&self) -> &'static str {
        if self.rr.detection {
            "rr-sctp"
        } else {
            "sctp"
        }
    }
}

#[derive(Clone, Debug)]
pub struct PathResult {
    pub from: String,
    pub to: String,
    pub primary: bool,
    pub active: bool,
    pub stats: PathStats,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventResult {
    pub time: SimTime,
    pub kind: &'static str,
    pub path: u8,
    /// Retransmissions made for it.
    pub chunks: u64,
    pub spurious: bool,
    pub detected: Option<SimTime>,
}

pub struct AssociationResult {
    pub summary: AssociationSummary,
    pub paths: Vec<PathResult>,
    pub events: Vec<EventResult>,
    pub series: AssociationSeries,
    pub path_series: PathSeries,
    pub chunks: Option<ChunkTrace>,
    /// For each row of `chunks`: a retransmission that was not needed.
    pub chunk_spurious: Vec<bool>,
    pub delivered_bins: Bins,
    pub sent_bins: Bins,
}

impl AssociationResult {
    pub fn of(
        flow: &SctpFlow,
        trace: AssociationTrace,
        node_names: &[String],
        run_end: SimTime,
    ) -> Self {
        let a = &flow.association;
        let s = &a.sender;
        let finished = s.finished_at();
        let end = finished
            .or(flow.stop.map(|t| t.min(run_end)))
            .unwrap_or(run_end);

        let mut events: Vec<EventResult> = s
            .events
            .iter()
            .map(|e| EventResult {
                time: e.time,
                kind: e.kind.name(),
                path: e.path,
                chunks: 0,
                spurious: true,
                detected: e.detected,
            })
            .collect();
        let mut truth = SpuriousTruth::default();
        for &(e, tsn, copy) in &s.event_chunks {
            let spurious = a.truth.spurious(tsn, copy);
            let ev = &mut events[e as usize];
            ev.chunks += 1;
            ev.spurious &= spurious;
            truth.retransmissions += 1;
            truth.spurious_retransmissions += spurious as u64;
        }
        for ev in &mut events {
            ev.spurious &= ev.chunks > 0;
            truth.events += 1;
            if ev.spurious {
                truth.spurious_events += 1;
                if ev.kind == "timeout" {
                    truth.spurious_timeouts += 1;
                } else {
                    truth.spurious_fast_retransmits += 1;
                }
            }
            if ev.detected.is_some() {
                if ev.spurious {
                    truth.detected_correct += 1;
                } else {
                    truth.detected_wrong += 1;
                }
            }
        }
        let chunk_spurious = trace
            .chunks
            .as_ref()
            .map(|c| {
                c.tsn
                    .iter()
                    .zip(&c.copy)
                    .map(|(&tsn, &copy)| copy > 0 && a.truth.spurious(tsn, copy))
                    .collect()
            })
            .unwrap_or_default();
        let name = |n: u32| node_names[n as usize].clone();
        let paths = s
            .paths
            .iter()
            .enumerate()
            .map(|(i, p)| PathResult {
                from: name(p.src),
                to: name(p.dst),
                primary: i == s.primary,
                active: p.active,
                stats: p.stats,
            })
            .collect::<Vec<_>>();
        let summary = AssociationSummary {
            name: flow.name.clone(),
            from: flow.from.clone(),
            to: flow.to.clone(),
            state: a.state.name(),
            pmdcs: s.cfg.pmdcs(),
            start: flow.start,
            end,
            completion_time: finished.map(|t| t - flow.start),
            established_at: a.established_at,
            rr: s.rr.cfg,
            sender: s.stats,
            receiver: a.receiver.stats,
            drops_queue: flow.drops_queue,
            drops_impairment: flow.drops_impairment,
            truth,
            rtt_samples: s.paths.iter().map(|p| p.stats.rtt_samples).sum(),
            rtt_sum_ns: s.paths.iter().map(|p| p.stats.rtt_sum_ns).sum(),
        };
        AssociationResult {
            summary,
            paths,
            events,
            series: trace.series,
            path_series: trace.paths,
            chunks: trace.chunks,
            chunk_spurious,
            delivered_bins: trace.delivered,
            sent_bins: trace.sent,
        }
    }
}
