//! The sender with an application writing into a send buffer (`send_buffer.rs`)
//! and Nagle's algorithm (`nagle.rs`), segment by segment, against traces
//! worked out by hand from Linux 2.6.20's `tcp_sendmsg` and `tcp_write_xmit`.

use super::cc::Reno;
use super::cc_sample::CcSample;
use super::ecn::EcnConfig;
use super::recovery::{Recovery, RepeatedTimeout};
use super::rto::RtoConfig;
use super::sender::{SenderConfig, TcpSender};
use crate::packet::{Ecn, SackBlocks, TcpAck, TcpData};
use crate::time::SimTime;

/// MSS 1000, initial window 10, `write_size`-byte writes into a `sk_sndbuf` of
/// 4000 B, forever.
fn sender(write_size: u64, nagle: bool) -> TcpSender {
    transfer(write_size, nagle, None)
}

/// The same, `app_bytes` in all (`None`: forever).
fn transfer(write_size: u64, nagle: bool, app_bytes: Option<u64>) -> TcpSender {
    let cfg = SenderConfig {
        mss: 1000,
        header: 40,
        initial_window: 10,
        dupthresh: 3,
        limited_transmit: false,
        prr: false,
        ecn: EcnConfig::default(),
        abc_limit: 1,
        recovery: Recovery::NewReno,
        repeated_timeout: RepeatedTimeout::Keep,
        timestamps: false,
        cc_sample: CcSample::Newest,
        sack: false,
        dsack_undo: false,
        eifel: false,
        frto: false,
        rto: RtoConfig::default(),
        app_bytes,
        adapt_dupthresh: None,
        rack: false,
        write_size: Some(write_size),
        sndbuf: Some(4000),
        nagle,
    };
    TcpSender::new(cfg, Box::new(Reno))
}

/// (seq, len) of each segment sent.
fn segments(out: &[TcpData]) -> Vec<(u64, u32)> {
    out.iter().map(|d| (d.seq, d.len)).collect()
}

fn start(s: &mut TcpSender) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    segments(&out)
}

fn ack(s: &mut TcpSender, ms: u64, ack: u64) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    let a = TcpAck {
        ack,
        window: 1 << 20,
        ts_ecr: None,
        sack: SackBlocks::default(),
        ecn: Ecn::NotEct,
        ece: false,
    };
    s.on_ack(SimTime::from_millis(ms), &a, &mut out);
    segments(&out)
}

#[test]
fn nagle_coalesces_small_writes_into_full_segments() {
    // 300 B writes. The first leaves alone (nothing outstanding). The second
    // starts a new 300 B segment, held: [0, 300) is small and unacknowledged.
    // Writes 3 to 5 fill it to 1000 B ([300, 1300)), which leaves; and so on.
    // New segments start while the queue is below 4000 B: at 300, 1300, 2300
    // and 3300; at 4300 the 15th write (100 B copied of it: 4300 − 14 × 300)
    // sleeps, pushing [3300, 4300).
    let mut s = sender(300, true);
    assert_eq!(
        start(&mut s),
        vec![
            (0, 300),
            (300, 1000),
            (1300, 1000),
            (2300, 1000),
            (3300, 1000)
        ]
    );
    assert_eq!(s.app_writes(), 14);
}

#[test]
fn without_nagle_every_write_is_a_segment_until_cwnd_is_full() {
    // TCP_NODELAY: each 300 B write leaves as it is, and cwnd counts segments,
    // not bytes: 10 of them, 3000 B. The next writes coalesce behind cwnd into
    // [3000, 4000), and the one after sleeps (queue 4000 B, the buffer).
    let mut s = sender(300, false);
    let sent = start(&mut s);
    assert_eq!(sent, (0..10).map(|k| (300 * k, 300)).collect::<Vec<_>>());
    assert_eq!(s.app_writes(), 13);
}

#[test]
fn a_small_write_leaves_once_the_earlier_small_segment_is_acknowledged() {
    // After `nagle_coalesces_small_writes_into_full_segments`: 4300 B queued
    // and sent, the writer asleep with 200 B of its write left. ACK 300
    // (queue 4000, free 0) and ACK 1300 (queue 3000, free 1000 < 1500) do not
    // wake it; ACK 2300 does (queue 2000, free 2000 ≥ 1000). Its 200 B start
    // a new segment, which leaves at once: the small segment [0, 300) is
    // acknowledged (Minshall). The next write's segment waits behind the
    // new small one and fills to [4500, 5500); [5500, 6500) is pushed when the
    // writer sleeps again (queue 6500 − 2300 = 4200 ≥ 4000).
    let mut s = sender(300, true);
    start(&mut s);
    assert_eq!(ack(&mut s, 100, 300), vec![]);
    assert_eq!(ack(&mut s, 101, 1300), vec![]);
    assert_eq!(
        ack(&mut s, 102, 2300),
        vec![(4300, 200), (4500, 1000), (5500, 1000)]
    );
}

#[test]
fn a_write_larger_than_the_buffer_is_copied_as_space_frees() {
    // One 10000 B write: segments start at 0 .. 3000 (queue < 4000), then it
    // sleeps having copied 4000 B, pushing them. ACK 2000 (queue 2000, free 2000
    // ≥ 1000) wakes it: [4000, 5000) and [5000, 6000) are copied and sent.
    let mut s = sender(10_000, true);
    assert_eq!(
        start(&mut s),
        vec![(0, 1000), (1000, 1000), (2000, 1000), (3000, 1000)]
    );
    assert_eq!(ack(&mut s, 100, 2000), vec![(4000, 1000), (5000, 1000)]);
    assert_eq!(s.app_writes(), 0);
}

#[test]
fn the_last_short_segment_of_a_transfer_is_not_held() {
    // 2500 B in 300 B writes: [0, 300) alone, then [300, 1300) and [1300, 2300)
    // filled from later writes, and the tail [2300, 2500): short, with the
    // small [0, 300) unacknowledged, but the application has written all (its
    // close sends the FIN, which Nagle lets through). Nine writes (8 × 300 + 100).
    let mut s = transfer(300, true, Some(2500));
    assert_eq!(
        start(&mut s),
        vec![(0, 300), (300, 1000), (1300, 1000), (2300, 200)]
    );
    assert_eq!(s.app_writes(), 9);
    ack(&mut s, 100, 2500);
    assert_eq!(s.finished_at(), Some(SimTime::from_millis(100)));
}
