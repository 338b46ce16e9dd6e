//! The data sender driven by hand-built SACK sequences: each test states what RFC
//! 9260 (or RR-SCTP) says must happen and checks it with numbers worked out in the
//! comments. Windows are in bytes of DATA chunks: a full chunk is C = 1468 B at a
//! 1500-byte MTU (1452 user bytes).

use super::chunk::Sack;
use super::config::{RetransmitTo, RrConfig, SenderConfig};
use super::sender::{EventKind, Outgoing, SctpSender};
use super::store::PacketStore;
use crate::rng;
use crate::time::SimTime;

const C: u64 = 1468;

struct Script {
    s: SctpSender,
    store: PacketStore,
    out: Vec<Outgoing>,
}

fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

impl Script {
    fn new(paths: usize, tweak: impl FnOnce(&mut SenderConfig)) -> Self {
        let mut cfg = SenderConfig::rfc9260(1500);
        cfg.heartbeat_interval = None;
        cfg.max_burst = 0;
        tweak(&mut cfg);
        let addrs: Vec<(u32, u32)> = (0..paths as u32).map(|i| (i, 100 + i)).collect();
        let mut s = SctpSender::new(cfg, &addrs, 0, u64::MAX, rng::stream(1, "test"));
        s.set_peer_window(1 << 30);
        Script {
            s,
            store: PacketStore::default(),
            out: Vec::new(),
        }
    }

    /// Every chunk sent since the last call: (TSN, path, copy).
    fn sent(&mut self) -> Vec<(u64, u8, u8)> {
        let mut v = Vec::new();
        for o in self.out.drain(..) {
            for c in &self.store.get(o.body).data {
                v.push((c.tsn, o.path, c.copy));
            }
            self.store.release(o.body);
        }
        v
    }

    fn tsns(&mut self) -> Vec<u64> {
        self.sent().into_iter().map(|(t, _, _)| t).collect()
    }

    fn transmit(&mut self, now: SimTime) -> Vec<u64> {
        self.s.transmit(now, &mut self.store, &mut self.out);
        self.tsns()
    }

    fn sack(
        &mut self,
        now: SimTime,
        cum: u64,
        gaps: &[(u64, u64)],
        dups: &[u64],
    ) -> Vec<(u64, u8, u8)> {
        let sack = Sack {
            cumulative_tsn: cum,
            a_rwnd: 1 << 30,
        };
        self.s
            .on_sack(now, &sack, gaps, dups, &mut self.store, &mut self.out);
        self.sent()
    }

    fn t3(&mut self, now: SimTime, p: usize) -> Vec<(u64, u8, u8)> {
        self.s.on_t3_expiry(now, p, &mut self.store, &mut self.out);
        self.sent()
    }

    fn cwnd(&self, p: usize) -> u64 {
        self.s.paths[p].cwnd
    }

    /// Puts path `p` in congestion avoidance with `chunks` full chunks of window, so
    /// that a few SACKs do not move it (one chunk per window acknowledged).
    fn avoidance(&mut self, p: usize, chunks: u64) {
        self.s.paths[p].cwnd = chunks * C;
        self.s.paths[p].ssthresh = C;
    }
}

#[test]
fn slow_start_opens_three_chunks_then_one_more_per_sack() {
    // Initial window 4404 B = 3 chunks: TSNs 1-3. Each SACK of one chunk with the
    // window full adds min(1468, C) = C: after the SACK for 1, cwnd = 4 chunks with
    // 2 in flight, so 2 new chunks (4, 5) go out.
    let mut t = Script::new(1, |_| {});
    assert_eq!(t.transmit(ms(0)), vec![1, 2, 3]);
    assert_eq!(t.cwnd(0), 4404);
    let sent = t.sack(ms(100), 1, &[], &[]);
    assert_eq!(t.cwnd(0), 4404 + C);
    assert_eq!(sent.iter().map(|x| x.0).collect::<Vec<_>>(), vec![4, 5]);
    // The first SACK also timed TSN 1: SRTT 100 ms.
    assert_eq!(t.s.paths[0].rto.srtt(), Some(ms(100)));
}

#[test]
fn htna_counts_misses_only_below_the_highest_newly_acked_tsn() {
    // 10 chunks out, TSN 3 missing. SACKs acknowledge 4, 5, 6… by gap blocks: each
    // newly acknowledges a TSN above 3, one miss each; at the third (dupthresh 3) TSN
    // 3 is fast retransmitted. A SACK repeating old information gives no miss.
    let mut t = Script::new(1, |c| c.streams = 1);
    t.s.paths[0].cwnd = 10 * C;
    assert_eq!(t.transmit(ms(0)).len(), 10);
    t.sack(ms(100), 2, &[], &[]);
    t.sack(ms(101), 2, &[(4, 4)], &[]);
    t.sack(ms(101), 2, &[(4, 4)], &[]); // nothing new: no miss indication
    assert_eq!(t.s.queue.get(3).unwrap().misses, 1);
    t.sack(ms(102), 2, &[(4, 5)], &[]);
    assert!(t.s.stats.fast_retransmits == 0);
    let sent = t.sack(ms(103), 2, &[(4, 6)], &[]);
    assert_eq!(t.s.stats.fast_retransmits, 1);
    assert_eq!(sent[0], (3, 0, 1)); // TSN 3, path 0, first retransmission
}

#[test]
fn dupthresh_four_needs_a_fourth_miss() {
    let mut t = Script::new(1, |c| c.dupthresh = 4);
    t.s.paths[0].cwnd = 10 * C;
    t.transmit(ms(0));
    for (i, top) in (4..=6).enumerate() {
        t.sack(ms(100 + i as u64), 2, &[(4, top)], &[]);
    }
    assert_eq!(t.s.stats.fast_retransmits, 0);
    t.sack(ms(104), 2, &[(4, 7)], &[]);
    assert_eq!(t.s.stats.fast_retransmits, 1);
}

#[test]
fn fast_retransmit_halves_once_per_recovery_and_ignores_cwnd_for_one_packet() {
    // cwnd 20 chunks in congestion avoidance, all in flight; TSN 1 and TSN 10 lost.
    // Three SACKs with gaps above 1 (3 chunks acknowledged: pba 3C < cwnd, no growth)
    // trigger its fast retransmit: ssthresh = max(20C/2, 4C) = 10C, cwnd = 10C; the
    // retransmission goes although flight (17C) ≥ cwnd. The first two SACKs each
    // freed one chunk of a full window, so TSNs 21 and 22 went out: exit point 22.
    let mut t = Script::new(1, |_| {});
    t.avoidance(0, 20);
    t.transmit(ms(0));
    t.sack(ms(100), 0, &[(2, 2)], &[]);
    t.sack(ms(101), 0, &[(2, 3)], &[]);
    let sent = t.sack(ms(102), 0, &[(2, 4)], &[]);
    assert_eq!(sent, vec![(1, 0, 1)]);
    assert_eq!((t.cwnd(0), t.s.paths[0].ssthresh), (10 * C, 10 * C));
    assert!(t.s.in_fast_recovery());
    // TSN 10 reaches three misses in the same recovery (HTNA: each SACK newly
    // acknowledges a TSN above it): marked, no second halving, and it waits for cwnd
    // (flight ≥ 10 chunks).
    for top in 11..=13 {
        t.sack(ms(103), 0, &[(2, 9), (11, top)], &[]);
    }
    assert_eq!(t.cwnd(0), 10 * C);
    assert_eq!(t.s.stats.fast_retransmits, 1);
    assert_eq!(t.s.stats.chunks_fast_retransmitted, 2);
    // Both losses are one event (one Fast Recovery).
    assert_eq!(t.s.events.len(), 1);
    // Recovery ends when the cumulative ack reaches the exit point, 22.
    t.sack(ms(200), 21, &[], &[]);
    assert!(t.s.in_fast_recovery());
    t.sack(ms(201), 22, &[], &[]);
    assert!(!t.s.in_fast_recovery());
}

#[test]
fn t3_expiry_sets_one_chunk_doubles_the_rto_and_retransmits_the_earliest() {
    // 4 chunks out (cwnd 4C, ssthresh huge); no SACK. T3: ssthresh = max(2C, 4C) = 4C,
    // cwnd = C; RTO 1 s → 2 s → 4 s on successive expiries; one packet (TSN 1) out.
    let mut t = Script::new(1, |_| {});
    t.s.paths[0].cwnd = 4 * C;
    assert_eq!(t.transmit(ms(0)), vec![1, 2, 3, 4]);
    assert_eq!(t.s.paths[0].t3, ms(1000));
    let sent = t.t3(ms(1000), 0);
    assert_eq!(sent, vec![(1, 0, 1)]);
    assert_eq!((t.cwnd(0), t.s.paths[0].ssthresh), (C, 4 * C));
    assert_eq!(t.s.paths[0].rto.rto(), ms(2000));
    assert_eq!(t.s.paths[0].t3, ms(3000));
    let sent = t.t3(ms(3000), 0);
    assert_eq!(sent, vec![(1, 0, 2)]);
    assert_eq!(t.s.paths[0].rto.rto(), ms(4000));
    assert_eq!(t.s.paths[0].t3, ms(7000));
    // A SACK of 1 lets slow start resend 2 and 3 (cwnd C → 2C... the window was
    // full: +C) while 4 waits.
    let sent = t.sack(ms(7100), 1, &[], &[]);
    assert_eq!(sent, vec![(2, 0, 1), (3, 0, 1)]);
}

#[test]
fn gap_acknowledged_chunks_are_not_retransmitted_by_t3() {
    let mut t = Script::new(1, |_| {});
    // 4 chunks out, 2 and 3 gap-acknowledged; that SACK grew cwnd to 5C (the window
    // was full) and sent 5, 6, 7. The timeout retransmits 1 (cwnd one chunk); the
    // SACK for it (cum 3) grows cwnd to 2C: 4 and 5 go again. 2 and 3 never do.
    t.s.paths[0].cwnd = 4 * C;
    t.transmit(ms(0));
    assert_eq!(
        t.sack(ms(100), 0, &[(2, 3)], &[]),
        vec![(5, 0, 0), (6, 0, 0), (7, 0, 0)]
    );
    let first = t.t3(ms(1100), 0);
    let later = t.sack(ms(1200), 3, &[], &[]);
    assert_eq!(first, vec![(1, 0, 1)]);
    assert_eq!(later, vec![(4, 0, 1), (5, 0, 1)]);
}

#[test]
fn rr_detects_a_spurious_fast_retransmit_and_restores_ssthresh() {
    // TSN 1 delayed by 4 positions: 3 SACKs trigger its fast retransmit (cwnd 20C →
    // 10C), then the original arrives (cum 1), then the retransmission arrives as a
    // duplicate: the event is spurious and ssthresh becomes the saved 20C.
    let mut t = Script::new(1, |c| {
        c.rr = RrConfig {
            detection: true,
            recovery: true,
            ..RrConfig::OFF
        }
    });
    t.avoidance(0, 20);
    t.transmit(ms(0));
    for top in 2..=4 {
        t.sack(ms(100), 0, &[(2, top)], &[]);
    }
    assert_eq!(t.s.stats.fast_retransmits, 1);
    t.sack(ms(101), 5, &[], &[]);
    assert_eq!(t.s.stats.spurious_detected, 0);
    t.sack(ms(150), 6, &[], &[1]);
    assert_eq!(t.s.stats.spurious_detected, 1);
    assert_eq!(t.s.paths[0].ssthresh, 20 * C);
    assert_eq!(t.s.events[0].kind, EventKind::FastRetransmit);
    assert_eq!(t.s.events[0].detected, Some(ms(150)));
}

#[test]
fn rr_does_not_call_a_real_loss_spurious() {
    // Same, but TSN 1 was lost: the retransmission fills the hole and no duplicate
    // comes; a duplicate of another TSN (a late copy of 3) does not count.
    let mut t = Script::new(1, |c| {
        c.rr = RrConfig {
            detection: true,
            recovery: true,
            ..RrConfig::OFF
        }
    });
    t.avoidance(0, 20);
    t.transmit(ms(0));
    for top in 2..=4 {
        t.sack(ms(100), 0, &[(2, top)], &[]);
    }
    t.sack(ms(150), 8, &[], &[3]);
    assert_eq!(t.s.stats.spurious_detected, 0);
    assert_eq!(t.s.paths[0].ssthresh, 10 * C);
}

#[test]
fn rr_recovery_leaves_a_larger_window_alone() {
    // Detected spurious only after cwnd grew past the saved value: no change.
    let mut t = Script::new(1, |c| {
        c.rr = RrConfig {
            detection: true,
            recovery: true,
            ..RrConfig::OFF
        }
    });
    t.avoidance(0, 8);
    t.transmit(ms(0));
    for top in 2..=4 {
        t.sack(ms(100), 0, &[(2, top)], &[]);
    }
    let ssthresh = t.s.paths[0].ssthresh;
    t.s.paths[0].cwnd = 9 * C;
    t.sack(ms(150), 8, &[], &[1]);
    assert_eq!(t.s.stats.spurious_detected, 1);
    assert_eq!(t.s.stats.spurious_recovered, 0);
    assert_eq!(t.s.paths[0].ssthresh, ssthresh);
}

#[test]
fn retransmissions_go_to_the_alternate_path_when_asked() {
    // Two paths, retransmissions to the alternate: the fast retransmission of TSN 1
    // (sent on path 0) goes on path 1; new data stays on the primary.
    let mut t = Script::new(2, |c| c.retransmit_to = RetransmitTo::Alternate);
    t.avoidance(0, 10);
    t.transmit(ms(0));
    for top in 2..=3 {
        t.sack(ms(100), 0, &[(2, top)], &[]);
    }
    let sent = t.sack(ms(100), 0, &[(2, 4)], &[]);
    assert_eq!(sent[0], (1, 1, 1));
    assert!(sent[1..].iter().all(|&(_, p, c)| p == 0 && c == 0));
    // The reduction is on path 0, where the chunk was lost.
    assert_eq!(t.cwnd(0), 5 * C);
    assert_eq!(t.cwnd(1), 4404);
}

#[test]
fn the_primary_fails_after_path_max_retrans_and_data_moves_over() {
    // Path.Max.Retrans 5: the sixth consecutive T3 expiry on the primary exceeds it;
    // the path becomes inactive and new data goes to path 1.
    let mut t = Script::new(2, |_| {});
    t.transmit(ms(0));
    let mut now = ms(0);
    for k in 1..=6 {
        now = t.s.paths[0].t3;
        t.t3(now, 0);
        assert_eq!(t.s.paths[0].active, k < 6, "expiry {k}");
    }
    assert_eq!(t.s.data_path(), 1);
    // The retransmission after the sixth expiry went to path 1 (alternate on timeout).
    assert!(t.s.paths[1].flight > 0);
    // Association.Max.Retrans 10 is not exceeded yet.
    assert!(!t.s.failed);
    let _ = now;
}

#[test]
fn rr_does_not_call_a_mixed_window_spurious() {
    // One Fast Recovery retransmits TSN 1 (reordered: its original arrives) and TSN 3
    // (lost). Only 1 comes back as a duplicate: the event is not spurious.
    let mut t = Script::new(1, |c| {
        c.rr = RrConfig {
            detection: true,
            recovery: true,
            ..RrConfig::OFF
        }
    });
    t.avoidance(0, 20);
    t.transmit(ms(0));
    for top in 4..=6 {
        t.sack(ms(100), 0, &[(2, 2), (4, top)], &[]);
    }
    // Both 1 and 3 had three misses: one event, two chunks.
    assert_eq!(t.s.stats.chunks_fast_retransmitted, 2);
    assert_eq!(t.s.events.len(), 1);
    // The late original of 1 fills its hole, and 7-14 arrive: the flight (8 chunks)
    // drops below cwnd (10), so 3 is retransmitted.
    let sent = t.sack(ms(150), 2, &[(4, 14)], &[]);
    assert!(sent.contains(&(3, 0, 1)), "{sent:?}");
    // The retransmission of 1 is a duplicate; 3 is still to come back: not spurious.
    t.sack(ms(160), 2, &[(4, 14)], &[1]);
    assert_eq!(t.s.stats.spurious_detected, 0);
    // The retransmission of 3 fills its hole and is no duplicate.
    t.sack(ms(170), 14, &[], &[]);
    assert_eq!(t.s.stats.spurious_detected, 0);
    assert_eq!(t.s.paths[0].ssthresh, 10 * C);
}

#[test]
fn rr_lowers_the_percentile_after_a_timeout_a_base_dupthresh_would_have_avoided() {
    // Adaptation on, base dupthresh 3, the histogram raised to dupthresh 7 (samples of
    // crf 6). TSN 1 is lost: four SACKs give it four misses, enough for the base but
    // not for 7, so no fast retransmit; T3 fires. The timeout counts as avoidable and
    // pef drops by pef_step · r/(1 + r) (r from the path's RTO and window).
    let mut t = Script::new(1, |c| {
        c.rr = RrConfig {
            detection: true,
            adapt_dupthresh: true,
            pef: 0.5,
            pef_step: 0.1,
            ..RrConfig::OFF
        }
    });
    for _ in 0..10 {
        t.s.rr.adapter.record(6);
    }
    assert_eq!(t.s.dupthresh(), 7);
    t.avoidance(0, 10);
    t.transmit(ms(0));
    for top in 2..=5 {
        t.sack(ms(100), 0, &[(2, top)], &[]);
    }
    assert_eq!(t.s.stats.fast_retransmits, 0);
    let before = t.s.rr.adapter.pef();
    t.t3(ms(1100), 0);
    assert_eq!(t.s.stats.avoidable_timeouts, 1);
    let after = t.s.rr.adapter.pef();
    // No RTT sample yet (TSN 1 was timed and never acknowledged): SRTT is taken as the
    // RTO, 1 s; W = 10 chunks: r = (1 + 1·log2 10) / 1 = 4.3219; step 0.1 · r/(1 + r).
    let r = 1.0 + 10f64.log2();
    assert!(
        (before - after - 0.1 * r / (1.0 + r)).abs() < 1e-9,
        "{before} {after}"
    );
}
