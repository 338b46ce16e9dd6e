//! Linux's quick-ACK mode: when a delayed-ACK receiver acknowledges every segment
//! at once (`tcp.quickack`, on in the "linux" profile; net/ipv4/tcp_input.c).
//!
//! * `icsk_ack.quick` counts the ACKs still to be sent at once; while it is
//!   positive `__tcp_ack_snd_check` sends an ACK for every segment
//!   (`tcp_in_quickack_mode`), and every ACK sent takes one off
//!   (`tcp_dec_quickack_mode`, tcp_output.c).
//! * `tcp_incr_quickack(max)` raises it to min(rcv_wnd / (2·rcv_mss), max), 2 when
//!   that quotient is 0, never lowering it. `tcp_event_data_recv` calls it with
//!   `TCP_MAX_QUICKACKS` = 16 at the connection's first data (`icsk_ack.ato` still
//!   0), and `tcp_data_queue` through `tcp_enter_quickack_mode` when a segment
//!   carries only data already received (a retransmission: "Force an immediate
//!   ack"); `__tcp_ecn_check_ce` with max 2 on the first CE of an episode and on a
//!   Not-ECT segment after ECT ones (`ecn_echo.rs`).
//! * `tcp_grow_window`, called for every in-order segment of at least 128 B, raises
//!   the receive window's slow-start threshold `rcv_ssthresh` by max(2·advmss,
//!   2·len) while it is below its limit, and each time sets `quick |= 1`: while
//!   the window opens, every segment is acknowledged at once. This is what keeps
//!   a Linux receiver acknowledging every segment through slow start (measured on
//!   this machine's kernel 6.18 over `cwnd live`: every segment for the first
//!   0.8 s, about 620 segments, of a 10 Mb/s × 50 ms CUBIC flow, then every second
//!   one; docs/validation.md).
//!
//! Simplified, and why:
//! * `rcv_ssthresh` starts at the initial window, `TCP_DEFAULT_INIT_RCVWND` = 10
//!   segments (`tcp_select_initial_window`), and grows to the smaller of the
//!   advertised window and `GROW_LIMIT`, the `window` of `__tcp_grow_window`'s
//!   first pass (tcp_win_from_space(`tcp_rmem[2]`) >> 1 with Linux's default
//!   `tcp_rmem[2]` = 32 MiB and its default scaling ratio 1/2: 8 MiB), assuming
//!   a full segment passes the truesize test there. Linux also stops it at the
//!   free receive buffer (`tcp_space`), which receive-buffer autotuning
//!   (`tcp_rcv_space_adjust`) enlarges once per receiver-measured RTT while the
//!   data per RTT grows. cwnd's ACKs carry no TSval of their own, so the receiver
//!   cannot measure that RTT (`tcp_rcv_rtt_measure_ts`) and autotuning is not
//!   modelled: the window-opening phase lasts until `GROW_LIMIT`
//!   (8 MiB / 2896 B ≈ 2 900 segments), longer than the kernel's.
//! * Only the ACK decision follows `rcv_ssthresh`: the window the receiver
//!   advertises stays its constant buffer (docs/tcp.md, "Receiver").
//! * The delayed-ACK timeout stays `TCP_ATO_MIN`; Linux adapts `ato` to the
//!   arrival gaps (up to 200 ms) and re-enters quick-ACK mode after a gap longer
//!   than its RTO; neither is modelled. One-way flows never enter Linux's "pingpong"
//!   (interactive) mode, which would turn quick ACKs off.

/// `TCP_MAX_QUICKACKS` (include/net/tcp.h).
pub const TCP_MAX_QUICKACKS: u64 = 16;
/// `TCP_DEFAULT_INIT_RCVWND` (include/net/tcp.h): the initial receive window, in
/// segments.
pub const TCP_DEFAULT_INIT_RCVWND: u64 = 10;
/// The largest `rcv_ssthresh` that `__tcp_grow_window` still raises, with Linux's
/// defaults: tcp_win_from_space(32 MiB) >> 1 = 32 MiB · 1/2 / 2.
pub const GROW_LIMIT: u64 = 8 << 20;
/// `tcp_event_data_recv` grows the window only for segments of at least 128 B.
const GROW_MIN_SEGMENT: u64 = 128;

/// The quick-ACK state of one receiver.
#[derive(Clone, Debug)]
pub struct QuickAck {
    /// `icsk_ack.quick`: ACKs still to send at once.
    quick: u64,
    /// Data has arrived (Linux: `icsk_ack.ato` is no longer 0).
    started: bool,
    /// `rcv_ssthresh`, bytes.
    rcv_ssthresh: u64,
    /// Where `rcv_ssthresh` stops growing, bytes.
    limit: u64,
    /// The advertised window, bytes.
    window: u64,
    /// `rcv_mss` and `advmss`: the flow's payload MSS.
    mss: u64,
}

impl QuickAck {
    /// A receiver advertising `window` bytes, receiving segments of `mss` bytes.
    pub fn new(window: u64, mss: u32) -> Self {
        let mss = u64::from(mss);
        let limit = window.min(GROW_LIMIT);
        QuickAck {
            quick: 0,
            started: false,
            rcv_ssthresh: (TCP_DEFAULT_INIT_RCVWND * mss).min(limit),
            limit,
            window,
            mss,
        }
    }

    /// Whether the next ACK goes at once (`tcp_in_quickack_mode`).
    pub fn active(&self) -> bool {
        self.quick > 0
    }

    /// In-order data of `len` bytes arrived (`tcp_event_data_recv`).
    pub fn on_data(&mut self, len: u64) {
        if !self.started {
            self.started = true;
            self.incr(TCP_MAX_QUICKACKS);
        }
        if len >= GROW_MIN_SEGMENT && self.rcv_ssthresh < self.limit {
            let incr = (2 * self.mss).max(2 * len);
            self.rcv_ssthresh += incr.min(self.limit - self.rcv_ssthresh);
            self.quick = self.quick.max(1);
        }
    }

    /// A segment carrying only data already received (`tcp_data_queue`'s
    /// retransmission case, `tcp_enter_quickack_mode(sk, TCP_MAX_QUICKACKS)`).
    pub fn on_old_data(&mut self) {
        self.incr(TCP_MAX_QUICKACKS);
    }

    /// ECN's signal (`__tcp_ecn_check_ce`): the first CE mark of an episode, or a
    /// Not-ECT segment after ECT ones, `tcp_enter_quickack_mode(sk, 2)`.
    pub fn on_ecn_signal(&mut self) {
        self.incr(2);
    }

    /// An ACK went out (`tcp_dec_quickack_mode`).
    pub fn on_ack_sent(&mut self) {
        self.quick = self.quick.saturating_sub(1);
    }

    /// `tcp_incr_quickack`: rcv_wnd is what Linux advertises, at most
    /// `rcv_ssthresh` (`__tcp_select_window`).
    fn incr(&mut self, max: u64) {
        let rcv_wnd = self.rcv_ssthresh.min(self.window);
        let quickacks = match rcv_wnd / (2 * self.mss) {
            0 => 2,
            q => q.min(max),
        };
        self.quick = self.quick.max(quickacks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether each of `n` in-order full segments is acknowledged at once, counting
    /// the ACK each quick one sends.
    fn quick_acks(q: &mut QuickAck, n: usize, len: u64) -> Vec<bool> {
        (0..n)
            .map(|_| {
                q.on_data(len);
                let now = q.active();
                if now {
                    q.on_ack_sent();
                }
                now
            })
            .collect()
    }

    #[test]
    fn first_data_gives_rcv_wnd_over_two_segments_quick_acks() {
        // A window that never grows (limit = the 14 480 B initial window, 10
        // segments of 1448 B): the first data raises quick to 14 480 / (2 · 1448) =
        // 5 (below TCP_MAX_QUICKACKS), so 5 ACKs go at once, then none.
        let mut q = QuickAck::new(14_480, 1448);
        let acks = quick_acks(&mut q, 8, 1448);
        assert_eq!(acks, [true, true, true, true, true, false, false, false]);
    }

    #[test]
    fn a_tiny_window_still_gives_two_and_a_large_one_at_most_sixteen() {
        // 1000 B window, MSS 1448: 1000 / 2896 = 0, so quick = 2 (the window
        // cannot grow: 1000 B is below the initial 14 480 B, which it caps).
        let mut q = QuickAck::new(1000, 1448);
        assert_eq!(quick_acks(&mut q, 3, 1448), [true, true, false]);
        // A retransmission later: min(1000 / 2896 → 2, 16) = 2 again.
        q.on_old_data();
        assert_eq!(q.quick, 2);
        // 64 MiB window: after 11 segments rcv_ssthresh = 14 480 + 11 · 2896 =
        // 46 336 B, and a retransmission gives min(46 336 / 2896, 16) = 16.
        let mut big = QuickAck::new(64 << 20, 1448);
        quick_acks(&mut big, 11, 1448);
        big.quick = 0;
        big.on_old_data();
        assert_eq!(big.quick, 16);
    }

    #[test]
    fn every_segment_is_acknowledged_while_the_window_opens() {
        // Window 30 000 B, MSS 1000: rcv_ssthresh starts at 10 · 1000 = 10 000 B
        // and grows by 2 · 1000 B per segment, reaching 30 000 B at segment
        // (30 000 − 10 000) / 2000 = 10. The first data sets quick =
        // min(10 000 / 2000, 16) = 5, which alone would cover segments 1–5; each
        // growth sets quick to at least 1, so segments 1–10 are all acknowledged at
        // once, and segment 11 (window fully open, quick 0) waits.
        let mut q = QuickAck::new(30_000, 1000);
        let acks = quick_acks(&mut q, 12, 1000);
        assert!(acks[..10].iter().all(|&a| a), "{acks:?}");
        assert_eq!(&acks[10..], [false, false]);
        assert_eq!(q.rcv_ssthresh, 30_000);
    }

    #[test]
    fn the_window_opening_phase_ends_at_the_grow_limit() {
        // 64 MiB advertised: rcv_ssthresh 14 480 B grows by 2896 B per 1448 B
        // segment up to 8 MiB = 8 388 608 B: ⌈(8 388 608 − 14 480) / 2896⌉ =
        // ⌈2891.6⌉ = 2892 segments acknowledged at once, then delayed ACKs.
        let mut q = QuickAck::new(64 << 20, 1448);
        let acks = quick_acks(&mut q, 2894, 1448);
        assert!(acks[..2892].iter().all(|&a| a));
        assert_eq!(&acks[2892..], [false, false]);
        assert_eq!(q.rcv_ssthresh, GROW_LIMIT);
    }

    #[test]
    fn an_ecn_signal_gives_at_most_two_quick_acks() {
        // 64 MiB advertised, rcv_ssthresh 14 480 B at the start: min(14 480 / 2896,
        // 2) = 2; a larger count already pending is kept.
        let mut q = QuickAck::new(64 << 20, 1448);
        q.on_ecn_signal();
        assert_eq!(q.quick, 2);
        q.quick = 7;
        q.on_ecn_signal();
        assert_eq!(q.quick, 7);
    }

    #[test]
    fn segments_below_128_bytes_do_not_open_the_window() {
        let mut q = QuickAck::new(64 << 20, 1448);
        q.on_data(100);
        assert_eq!(q.rcv_ssthresh, 14_480);
        // The first data still set quick = min(14 480 / 2896, 16) = 5.
        assert_eq!(q.quick, 5);
    }
}
