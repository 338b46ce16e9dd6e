//! Parameters of an association's data sender, with the defaults of RFC 9260 §16
//! (the scenario layer fills them in; docs/sctp.md lists each).

use super::chunk::{COMMON_HEADER, DATA_CHUNK_HEADER, IPV4_HEADER};
use crate::time::SimTime;
use crate::transport::tcp::rto::RtoConfig;

/// Where a retransmission goes when the peer is multihomed (RFC 9260 §6.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetransmitTo {
    /// The destination the chunk was last sent to.
    Same,
    /// Every retransmission to an active destination other than the last one (RFC
    /// 2960 §6.4, ns-2, and the RR-SCTP paper's setting).
    Alternate,
    /// Only chunks retransmitted after a T3-rtx expiry go elsewhere; fast
    /// retransmissions stay on their path (RFC 4960/9260 §6.4: "a chunk that timed
    /// out").
    AlternateOnTimeout,
}

/// Which RR-SCTP algorithms run (Barletta, Righetti, Veiga), each on its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RrConfig {
    /// 1. Detection of spurious fast retransmits and timeouts from duplicate TSNs.
    pub detection: bool,
    /// 2. Recovery: ssthresh back to the cwnd before a reduction found spurious.
    pub recovery: bool,
    /// 3. dupthresh from a percentile of the missing-report histogram.
    pub adapt_dupthresh: bool,
    /// Starting percentile (pef) for the adaptation, in [0, 1].
    pub pef: f64,
    /// Largest move of pef per event (split by the cost ratio, see `rr::dupthresh`).
    pub pef_step: f64,
}

impl RrConfig {
    pub const OFF: RrConfig = RrConfig {
        detection: false,
        recovery: false,
        adapt_dupthresh: false,
        pef: 0.9,
        pef_step: 0.1,
    };
}

#[derive(Clone, Debug)]
pub struct SenderConfig {
    /// Path MTU (IP datagram bytes), the same on every path.
    pub mtu: u32,
    /// User bytes per message the application writes.
    pub message_size: u32,
    /// Outbound streams; messages go to them in turn.
    pub streams: u16,
    /// Send every message unordered (U bit).
    pub unordered: bool,
    /// Miss indications that trigger a fast retransmit (RFC 4960/9260: 3; RFC 2960 and
    /// the RR-SCTP paper: 4).
    pub dupthresh: u32,
    /// Most packets of new data per transmission opportunity (0: no limit).
    pub max_burst: u32,
    /// Slow start adds at most `abc_limit` × PMDCS per SACK (RFC 9260 §7.2.1 "L").
    pub abc_limit: u32,
    pub rto: RtoConfig,
    pub path_max_retrans: u32,
    pub association_max_retrans: u32,
    pub max_init_retransmits: u32,
    /// HB.interval; `None` switches heartbeats off.
    pub heartbeat_interval: Option<SimTime>,
    pub retransmit_to: RetransmitTo,
    pub rr: RrConfig,
    /// User bytes the application sends in all (`None`: unlimited).
    pub app_bytes: Option<u64>,
}

impl SenderConfig {
    /// The largest DATA chunk that fits one packet (header included): MTU − 32 B
    /// (1468 B for a 1500-byte MTU). Windows count chunk bytes, so this is the "MTU"
    /// and "PMDCS" of RFC 9260's window rules (see `cc`).
    pub fn pmdcs(&self) -> u64 {
        (self.mtu - IPV4_HEADER - COMMON_HEADER) as u64
    }

    /// User bytes in a full DATA chunk (1452 B for a 1500-byte MTU).
    pub fn max_user_data(&self) -> u32 {
        self.mtu - IPV4_HEADER - COMMON_HEADER - DATA_CHUNK_HEADER
    }

    /// RFC 9260 §16 defaults with the given MTU.
    pub fn rfc9260(mtu: u32) -> Self {
        SenderConfig {
            mtu,
            message_size: mtu - IPV4_HEADER - COMMON_HEADER - DATA_CHUNK_HEADER,
            streams: 1,
            unordered: false,
            dupthresh: 3,
            max_burst: 4,
            abc_limit: 1,
            rto: RtoConfig::default(),
            path_max_retrans: 5,
            association_max_retrans: 10,
            max_init_retransmits: 8,
            heartbeat_interval: Some(SimTime::from_secs(30)),
            retransmit_to: RetransmitTo::AlternateOnTimeout,
            rr: RrConfig::OFF,
            app_bytes: None,
        }
    }
}
