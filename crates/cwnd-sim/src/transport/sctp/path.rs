//! One destination transport address of the peer, as the data sender sees it
//! (RFC 9260 §6.3, §7.2, §8.2, §8.3): its congestion state (rules in `cc`), RTO and
//! T3-rtx timer, error counter and reachability, heartbeat state and counters.
//!
//! Addresses are nodes: path `i` leads from the local address (node) `src` to the
//! peer's address `dst`, chosen when the association is built.

use crate::packet::NodeId;
use crate::time::SimTime;
use crate::transport::tcp::rto::{RtoConfig, RtoEstimator};

/// Counters of one path (columns of the paths table, `results`).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct PathStats {
    /// DATA chunks sent on this path, retransmissions included.
    pub chunks_sent: u64,
    /// User bytes in them.
    pub bytes_sent: u64,
    /// Retransmitted DATA chunks sent on this path.
    pub chunks_retransmitted: u64,
    /// Fast retransmit reductions of this path's window.
    pub fast_retransmits: u64,
    /// T3-rtx expiries.
    pub timeouts: u64,
    pub heartbeats_sent: u64,
    pub heartbeat_acks: u64,
    /// Times the path was marked inactive.
    pub failures: u64,
    pub rtt_samples: u64,
    /// For the mean reported in the paths table, in nanoseconds.
    #[serde(skip)]
    pub rtt_sum_ns: u128,
}

#[derive(Clone, Debug)]
pub struct Path {
    pub src: NodeId,
    pub dst: NodeId,
    /// Congestion window, slow-start threshold, partial_bytes_acked and flight size,
    /// in bytes of DATA chunks (16-byte header and padding included).
    pub cwnd: u64,
    pub ssthresh: u64,
    pub partial_bytes_acked: u64,
    pub flight: u64,
    /// Largest DATA chunk: the unit of window increases (see `cc`).
    pub pmdcs: u64,
    pub rto: RtoEstimator,
    /// T3-rtx deadline; `SimTime::MAX` when stopped.
    pub t3: SimTime,
    /// Consecutive T3 expiries and unanswered heartbeats (§8.2).
    pub errors: u32,
    pub active: bool,
    /// When the next heartbeat is due if the path stays idle.
    pub heartbeat_due: SimTime,
    /// Send time of the unanswered heartbeat and when it counts as lost.
    pub heartbeat_pending: Option<(SimTime, SimTime)>,
    /// Last transmission of DATA on this path (for the idle-window rule).
    pub last_data: Option<SimTime>,
    /// Last first transmission of DATA (a chunk that can measure the RTT), and when
    /// the current heartbeat period began (§8.3 idleness).
    pub last_new_data: Option<SimTime>,
    pub heartbeat_period_start: SimTime,
    /// The chunk being timed (C5: one RTT measurement per round trip): TSN, send time.
    pub timed: Option<(u64, SimTime)>,
    pub stats: PathStats,
}

impl Path {
    pub fn new(src: NodeId, dst: NodeId, pmdcs: u64, rto: RtoConfig, ssthresh: u64) -> Self {
        Path {
            src,
            dst,
            cwnd: Path::initial_cwnd(pmdcs),
            ssthresh,
            partial_bytes_acked: 0,
            flight: 0,
            pmdcs,
            rto: RtoEstimator::new(rto),
            t3: SimTime::MAX,
            errors: 0,
            active: true,
            heartbeat_due: SimTime::MAX,
            heartbeat_pending: None,
            last_data: None,
            last_new_data: None,
            heartbeat_period_start: SimTime::ZERO,
            timed: None,
            stats: PathStats::default(),
        }
    }

    /// Takes an RTT measurement (C2/C3, which are RFC 6298's rules).
    pub fn rtt_sample(&mut self, rtt: SimTime) {
        self.rto.sample(rtt);
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum_ns += rtt.as_nanos() as u128;
    }

    /// R1: starts T3-rtx if it is not running.
    pub fn start_t3(&mut self, now: SimTime) {
        if self.t3 == SimTime::MAX {
            self.t3 = now + self.rto.rto();
        }
    }

    /// R3: restarts T3-rtx with the current RTO.
    pub fn restart_t3(&mut self, now: SimTime) {
        self.t3 = now + self.rto.rto();
    }
}
