//! How the world reports into the plain result records (`results`): each flow,
//! association, link and medium fills its own. The results module knows nothing of
//! the world; the world knows the records it produces.

use super::{Flow, SctpFlow, UdpFlow, World};
use crate::net::medium::{Medium, MediumReport};
use crate::results::{
    AssociationResult, AssociationSummary, ChannelResult, EventResult, FlowResult, FlowSummary,
    LinkResult, PathResult, QueueDelay, RunResults, SpuriousTruth, UdpResult, UdpSummary,
};
use crate::time::SimTime;
use crate::trace::sctp::AssociationTrace;

impl World {
    pub(super) fn into_results(mut self) -> RunResults {
        let end = self.end;
        let bin = self.recorder.flows.first().map(|t| t.delivered.width());
        let flows = self
            .flows
            .iter()
            .zip(self.recorder.flows.drain(..))
            .map(|(flow, trace)| FlowResult {
                summary: flow.summary(&self.node_names, end),
                series: trace.series,
                delivered_bins: trace.delivered,
                sent_bins: trace.sent,
                segments: trace.segments,
                cc_metrics: trace.cc_metrics,
            })
            .collect();
        let associations = self
            .associations
            .iter()
            .zip(self.recorder.associations.drain(..))
            .map(|(a, trace)| a.result(trace, &self.node_names, end))
            .collect();
        let udp = std::mem::take(&mut self.udp)
            .into_iter()
            .map(|u| u.result(&self.node_names))
            .collect();
        let (mut links, mut channels) = (Vec::new(), Vec::new());
        let mut link_info = self.link_info.iter();
        for medium in &mut self.media {
            match medium.report(end) {
                MediumReport::Link {
                    from,
                    to,
                    stats,
                    queue,
                    sojourn,
                } => {
                    let info = link_info.next().expect("a name for every link direction");
                    links.push(LinkResult {
                        name: info.name.clone(),
                        direction: info.direction,
                        from: self.node_names[from as usize].clone(),
                        to: self.node_names[to as usize].clone(),
                        stats,
                        queue_delay: QueueDelay::of(&sojourn),
                        queue,
                    });
                }
                MediumReport::Shared {
                    name,
                    kind,
                    counters,
                } => channels.push(ChannelResult {
                    name,
                    kind,
                    counters,
                }),
            }
        }
        let (connections, generators) =
            std::mem::take(&mut self.connections).finish(end, &self.node_names);
        let pcaps = std::mem::take(&mut self.captures)
            .into_files()
            .map(|f| (self.node_names[f.node as usize].clone(), f.bytes))
            .collect();
        RunResults {
            name: self.name,
            seed: self.seed,
            fingerprint: self.queue.fingerprint(),
            events: self.queue.processed(),
            duration: end,
            throughput_bin: bin.unwrap_or(SimTime::from_millis(100)),
            flows,
            associations,
            udp,
            links,
            channels,
            connections,
            generators,
            pcaps,
        }
    }
}

impl Flow {
    /// The flow's summary; its end is the transfer's completion, else its stop,
    /// else the end of the run.
    fn summary(&self, node_names: &[String], run_end: SimTime) -> FlowSummary {
        let finished = self.sender.finished_at();
        let end = finished
            .or(self.stop.map(|s| s.min(run_end)))
            .unwrap_or(run_end);
        let h = self.handshake.as_ref();
        FlowSummary {
            name: self.name.clone(),
            from: node_names[self.src as usize].clone(),
            to: node_names[self.dst as usize].clone(),
            cc: self.cc.clone(),
            recovery: self.sender.recovery().name(),
            start: self.start,
            end,
            completion_time: finished.map(|t| t - self.start),
            setup_time: h.and_then(|h| h.established_at).map(|t| t - self.start),
            syn_retransmissions: h.map_or(0, |h| h.syns_sent.saturating_sub(1) as u64),
            dupthresh: self.sender.dupthresh(),
            sender: self.sender.stats,
            receiver: self.receiver.stats,
            drops_queue: self.drops_queue,
            drops_impairment: self.drops_impairment,
        }
    }
}

impl UdpFlow {
    fn result(self, node_names: &[String]) -> UdpResult {
        let (sent, sink) = (self.sender.stats, self.sink.stats);
        let lost = self.drops_queue + self.drops_impairment;
        let summary = UdpSummary {
            name: self.name,
            from: node_names[self.src as usize].clone(),
            to: node_names[self.dst as usize].clone(),
            cc: self.source,
            start: self.start,
            end: self.stop,
            packet_size: self.sender.packet_size(),
            sender: sent,
            sink,
            drops_queue: self.drops_queue,
            drops_impairment: self.drops_impairment,
            packets_in_flight: sent.packets_sent - sink.packets_delivered - lost,
        };
        UdpResult {
            summary,
            delivered_bins: self.delivered_bins,
            sent_bins: self.sent_bins,
        }
    }
}

impl SctpFlow {
    /// The association's result: its summary with the truth about spurious
    /// retransmissions (each event and chunk judged against the receiver's record),
    /// its paths and its recorded trace.
    fn result(
        &self,
        trace: AssociationTrace,
        node_names: &[String],
        run_end: SimTime,
    ) -> AssociationResult {
        let a = &self.association;
        let s = &a.sender;
        let finished = s.finished_at();
        let end = finished
            .or(self.stop.map(|t| t.min(run_end)))
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
            name: self.name.clone(),
            from: self.from.clone(),
            to: self.to.clone(),
            state: a.state.name(),
            pmdcs: s.cfg.pmdcs(),
            start: self.start,
            end,
            completion_time: finished.map(|t| t - self.start),
            established_at: a.established_at,
            rr: s.rr.cfg,
            sender: s.stats,
            receiver: a.receiver.stats,
            drops_queue: self.drops_queue,
            drops_impairment: self.drops_impairment,
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
