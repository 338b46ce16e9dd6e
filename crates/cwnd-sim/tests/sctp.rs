//! SCTP end to end: set-up timing, window growth and the steady state of a lossless
//! path checked against hand-computed numbers, fast retransmit from one reordered
//! TSN, T3-rtx backoff, failover to the secondary path and return, heartbeats,
//! stream head-of-line blocking, shutdown, and RR-SCTP against the simulator's
//! ground truth.
//!
//! Topologies: single-homed `s — r — d` (100 Mb/s 1 ms access, 10 Mb/s 49 ms
//! bottleneck: RTT ≈ 100 ms plus queueing); multihomed `s1_0 — s2_0` (primary) and
//! `s1_1 — s2_1` (secondary), 10 Mb/s 50 ms each. A full DATA packet is 1500 B with
//! 1452 user bytes; a full chunk C = 1468 B counts in windows.

mod common;

use common::run;
use cwnd_sim::results::AssociationResult;
use cwnd_sim::time::SimTime;

const C: u64 = 1468;
const USER: u64 = 1452;

/// Single-homed association "a"; `sctp` goes in the flow's sctp table, `stages` on
/// the bottleneck.
fn single(duration_s: u32, sctp: &str, stages: &str, extra: &str) -> String {
    format!(
        r#"
duration = "{duration_s}s"
[[links]]
between = ["s", "r"]
bandwidth = "100Mbps"
delay = "1ms"
[[links]]
between = ["r", "d"]
bandwidth = "10Mbps"
delay = "49ms"
queue = {{ packets = 100 }}
impairments = [{stages}]
[[flows]]
name = "a"
from = "s"
to = "d"
transport = "sctp"
sctp = {{ {sctp} }}
{extra}
[trace]
segments = true
"#
    )
}

/// Multihomed association "a" over two disjoint 10 Mb/s, 50 ms paths; `stages` on
/// the primary link.
fn multihomed(duration_s: u32, sctp: &str, stages: &str) -> String {
    format!(
        r#"
duration = "{duration_s}s"
[[links]]
between = ["s1_0", "s2_0"]
bandwidth = "10Mbps"
delay = "50ms"
impairments = [{stages}]
[[links]]
between = ["s1_1", "s2_1"]
bandwidth = "10Mbps"
delay = "50ms"
[[flows]]
name = "a"
from = ["s1_0", "s1_1"]
to = ["s2_0", "s2_1"]
transport = "sctp"
sctp = {{ {sctp} }}
[trace]
segments = true
"#
    )
}

fn assoc(toml: &str) -> AssociationResult {
    let r = run(toml, 1);
    r.associations.into_iter().next().expect("one association")
}

/// Delivered user bytes in [from, to) seconds, from the bins.
fn goodput(a: &AssociationResult, from_s: f64, to_s: f64) -> f64 {
    let w = a.delivered_bins.width().as_secs_f64();
    let (i, j) = ((from_s / w).round() as usize, (to_s / w).round() as usize);
    let bytes: u64 = a.delivered_bins.padded(j)[i..j].iter().sum();
    bytes as f64 * 8.0 / (to_s - from_s)
}

#[test]
fn set_up_takes_two_round_trips_to_the_nanosecond() {
    // INIT 52 B (20 IP + 12 common + 20), INIT ACK 88 B (+ 4 + 32 cookie), COOKIE
    // ECHO 68 B, COOKIE ACK 36 B. Each crosses 1 ms + 49 ms of propagation and is
    // serialized at 100 Mb/s and at 10 Mb/s: 4 × 50 ms + 244 B × 8 × (1/1e8 + 1/1e7) s
    // = 200 ms + 214.72 µs.
    let a = assoc(&single(1, "", "", ""));
    assert_eq!(a.summary.established_at, Some(SimTime(200_214_720)));
}

#[test]
fn a_lossless_path_fills_the_bottleneck_less_the_headers() {
    // The receive window (100 full chunks) is above the path's BDP (10 Mb/s × 100 ms
    // = 83 packets) and below BDP + queue: no loss, the link stays busy. Each 1500 B
    // packet carries 1452 user bytes: goodput = 10 Mb/s × 1452/1500 = 9.68 Mb/s;
    // at least 95 % of it once slow start is over, and never more.
    let a = assoc(&single(20, "rwnd = \"145200B\"", "", ""));
    let g = goodput(&a, 5.0, 20.0);
    let capacity = 10e6 * 1452.0 / 1500.0;
    assert!(g >= 0.95 * capacity && g <= capacity * 1.0001, "{g}");
    assert_eq!(a.summary.sender.chunks_retransmitted, 0);
}

#[test]
fn slow_start_and_congestion_avoidance_reach_the_hand_computed_window() {
    // rwnd 145200 B = 100 chunks of user data, so ssthresh = 145200 B and at most
    // 100 chunks (146800 B) are in flight.
    // Slow start: every SACK acknowledges one chunk of a full window: +C each, so
    // cwnd = 4404 + n·1468; the first value above ssthresh is n = 96: 145332 B.
    // Congestion avoidance: +C after cwnd bytes acknowledged with the window full:
    // 145332 → 146800 (flight 146800 ≥ cwnd) → 148268; then the flight (146800) is
    // below cwnd, so partial_bytes_acked is capped at cwnd and cwnd stays 148268.
    let a = assoc(&single(10, "rwnd = \"145200B\"", "", ""));
    let cwnd = &a.path_series.cwnd;
    assert!(cwnd.contains(&145_332));
    assert!(!cwnd.contains(&(145_332 - C)) || cwnd.contains(&(4404 + 95 * C)));
    assert_eq!(*cwnd.last().unwrap(), 148_268);
    assert_eq!(cwnd.iter().max(), Some(&148_268));
    assert_eq!(*a.path_series.ssthresh.last().unwrap(), 145_200);
    // Every slow-start value is the initial window plus whole chunks.
    assert!(cwnd
        .iter()
        .filter(|&&w| w <= 145_332)
        .all(|&w| (w - 4404) % C == 0));
}

/// The association with TSN 100 delivered after `positions` later ones.
fn reordered(positions: u32, sctp: &str) -> AssociationResult {
    let stage = format!(
        "{{ kind = \"reorder\", packet = 100, positions = {positions}, direction = \"forward\", applies_to = \"data\" }}"
    );
    assoc(&single(
        10,
        &format!("rwnd = \"72600B\", {sctp}"),
        &stage,
        "",
    ))
}

#[test]
fn one_tsn_late_by_k_positions_is_fast_retransmitted_iff_k_reaches_dupthresh() {
    // The k chunks that overtake TSN 100 each bring a SACK that newly acknowledges a
    // TSN above it: k miss indications (HTNA). A fast retransmit happens when k ≥
    // dupthresh; it is spurious (the original arrives), and it is the only one.
    for (k, dupthresh, expected) in [(3, 3, 1), (3, 4, 0), (4, 4, 1), (4, 5, 0)] {
        let a = reordered(k, &format!("dupthresh = {dupthresh}"));
        let s = &a.summary;
        assert_eq!(
            s.sender.fast_retransmits, expected,
            "k {k} dupthresh {dupthresh}"
        );
        assert_eq!(s.sender.timeouts, 0);
        assert_eq!(s.truth.spurious_fast_retransmits, expected);
        assert_eq!(s.sender.chunks_retransmitted, expected);
        if expected == 1 {
            assert_eq!(a.events[0].path, 0);
            let first = a.chunks.as_ref().unwrap();
            let i = first.copy.iter().position(|&c| c == 1).unwrap();
            assert_eq!(first.tsn[i], 100);
            assert!(a.chunk_spurious[i]);
        }
    }
}

#[test]
fn rr_sctp_detects_the_spurious_fast_retransmit_and_slow_starts_back() {
    // TSN 100 four positions late with the paper's dupthresh 4: the fast retransmit
    // halves cwnd; the retransmission comes back as a duplicate TSN one round trip
    // later, detection calls the event spurious (the truth agrees), and Recovery sets
    // ssthresh to the cwnd before the reduction. Without RR-SCTP ssthresh stays at the
    // halved value, and in 10 s fewer TSNs are sent.
    let plain = reordered(4, "dupthresh = 4");
    let rr = reordered(
        4,
        "dupthresh = 4, rr = { detection = true, recovery = true }",
    );
    let s = &rr.summary;
    assert_eq!(s.sender.spurious_detected, 1);
    assert_eq!((s.truth.detected_correct, s.truth.detected_wrong), (1, 0));
    let event = rr.events[0];
    let detected = event.detected.expect("detected");
    assert!(detected > event.time);
    // cwnd just before the event, and ssthresh just after detection.
    let ps = &rr.path_series;
    let before = ps.time.partition_point(|&t| t < event.time) - 1;
    let after = ps.time.partition_point(|&t| t <= detected) - 1;
    assert_eq!(ps.ssthresh[after], ps.cwnd[before]);
    let plain_ssthresh = *plain.path_series.ssthresh.last().unwrap();
    assert!(plain_ssthresh < ps.ssthresh[after]);
    let sent = |a: &AssociationResult| *a.series.highest_tsn.last().unwrap();
    assert!(
        sent(&rr) > sent(&plain),
        "{} vs {}",
        sent(&rr),
        sent(&plain)
    );
}

#[test]
fn t3_backoff_doubles_the_timeout() {
    // The bottleneck goes dark at 5 s for the rest of the run: every expiry doubles
    // the RTO (1 s, the minimum, before: SRTT ≈ 0.1 s): the expiries are 2, 4, 8, 16,
    // 32 s apart, then capped by RTO.max = 60 s. (The receive window keeps the path
    // loss-free before; heartbeats are off, since unanswered ones on the idle path
    // would count against the association too, RFC 9260 §8.1.)
    let stage = "{ kind = \"outage\", start = \"5s\", duration = \"400s\" }";
    let a = assoc(&single(
        400,
        "rwnd = \"145200B\", heartbeat = false",
        stage,
        "",
    ));
    let times: Vec<u64> = a
        .events
        .iter()
        .filter(|e| e.kind == "timeout")
        .map(|e| e.time.as_nanos())
        .collect();
    let gaps: Vec<u64> = times
        .windows(2)
        .map(|w| (w[1] - w[0]) / 1_000_000_000)
        .collect();
    assert_eq!(gaps[..6], [2, 4, 8, 16, 32, 60]);
    assert!(times.windows(2).all(|w| (w[1] - w[0]) % 1_000_000_000 == 0));
    // Association.Max.Retrans 10: the eleventh consecutive expiry (at 5 s + 1 + 2 +
    // 4 + 8 + 16 + 32 + 5 × 60 s ≈ 368 s) aborts.
    assert_eq!(times.len(), 11);
    assert_eq!(a.summary.state, "aborted");
}

#[test]
fn the_primary_fails_after_path_max_retrans_and_data_returns_when_it_heals() {
    // The primary loses every data packet from 5 s to 60 s (its SACKs still get
    // through, so chunks delivered before are acknowledged on it and nothing clears
    // its error counter later). RTO.max 8 s so that the backoff is 1, 2, 4, 8, 8, 8
    // s: the sixth expiry (errors 6 > Path.Max.Retrans 5) marks the primary inactive
    // and new data moves to the secondary. Timed-out chunks are retransmitted on the
    // secondary meanwhile, so the association survives. The primary gets one new
    // chunk per expiry, at most 8 s apart, well within its heartbeat period (RTO 8 s
    // + HB.interval 30 s ± 4 s): no heartbeat, no other error. Once inactive it gets
    // no new data, so a heartbeat goes 34 to 42 s after its last new chunk (at the
    // fifth expiry): after the outage ends at 60 s, it is answered and data goes back
    // to the primary by 28.1 + 42 s + a round trip.
    let stage =
        "{ kind = \"outage\", start = \"5s\", duration = \"55s\", direction = \"forward\" }";
    let sctp = "rwnd = \"145200B\", rto = { max = \"8s\" }";
    let a = assoc(&multihomed(90, sctp, stage));
    assert_eq!(
        a.events
            .iter()
            .filter(|e| e.time.as_secs_f64() < 5.0)
            .count(),
        0
    );
    let timeouts: Vec<SimTime> = a
        .events
        .iter()
        .filter(|e| e.kind == "timeout" && e.path == 0)
        .map(|e| e.time)
        .collect();
    let gaps: Vec<u64> = timeouts
        .windows(2)
        .map(|w| (w[1] - w[0]).as_nanos() / 1_000_000_000)
        .collect();
    assert_eq!(gaps[..5], [2, 4, 8, 8, 8]);
    let failed_at = timeouts[5];
    let ps = &a.path_series;
    let down = (0..ps.len())
        .find(|&i| ps.path[i] == 0 && !ps.active[i])
        .unwrap();
    assert_eq!(ps.time[down], failed_at);
    assert_eq!(a.paths[0].stats.failures, 1);
    assert_eq!(a.summary.state, "established");
    // New data on the secondary after the failure, back on the primary after 60 s.
    let chunks = a.chunks.as_ref().unwrap();
    let new_on = |path: u8, from: f64, to: f64| {
        (0..chunks.len()).any(|i| {
            let t = chunks.time[i].as_secs_f64();
            chunks.path[i] == path && chunks.copy[i] == 0 && t > from && t < to
        })
    };
    let f = failed_at.as_secs_f64();
    assert!(new_on(1, f, 60.0));
    assert!(!new_on(0, f + 0.001, 60.0));
    assert!(new_on(0, 60.0, timeouts[4].as_secs_f64() + 42.2));
    assert_eq!(a.paths[0].stats.heartbeats_sent, 1);
    assert!(goodput(&a, 80.0, 90.0) > 9e6);
}

#[test]
fn an_idle_secondary_gets_a_heartbeat_every_rto_plus_interval() {
    // No loss: the secondary carries nothing. Its heartbeat period is RTO (1 s) +
    // HB.interval (30 s) ± RTO/2, counted from set-up at 0.2 s: heartbeats at about
    // 31, 62 and 93 s (within ±0.5 s each, ±1.5 s by the third) — three in 100 s,
    // each acknowledged with an RTT sample. The busy primary gets none.
    let a = assoc(&multihomed(100, "retransmit_to = \"same\"", ""));
    assert_eq!(a.paths[1].stats.heartbeats_sent, 3);
    assert_eq!(a.paths[1].stats.heartbeat_acks, 3);
    assert_eq!(a.paths[1].stats.rtt_samples, 3);
    assert_eq!(a.paths[0].stats.heartbeats_sent, 0);
}

/// Delivered bytes just before the first retransmission of TSN 50 (dropped) reaches
/// the receiver, with `sctp` options.
fn delivered_during_recovery(sctp: &str) -> u64 {
    let stage =
        "{ kind = \"drop_list\", packets = [50], direction = \"forward\", applies_to = \"data\" }";
    let a = assoc(&single(5, &format!("rwnd = \"72600B\", {sctp}"), stage, ""));
    let chunks = a.chunks.as_ref().unwrap();
    let i = (0..chunks.len())
        .find(|&i| chunks.tsn[i] == 50 && chunks.copy[i] == 1)
        .unwrap();
    // The retransmission needs at least 50 ms to arrive: look 40 ms after it is sent.
    let t = chunks.time[i] + SimTime::from_millis(40);
    let row = a.series.time.partition_point(|&x| x <= t) - 1;
    a.series.delivered[row]
}

#[test]
fn head_of_line_blocking_stays_within_a_stream() {
    // TSN 50 is lost. With one ordered stream nothing after it is delivered until its
    // retransmission arrives: exactly 49 chunks. With two streams (messages
    // alternate) the other stream's messages go on; unordered, everything received.
    let one = delivered_during_recovery("streams = 1");
    let two = delivered_during_recovery("streams = 2");
    let unordered = delivered_during_recovery("unordered = true");
    assert_eq!(one, 49 * USER);
    assert!(two > one, "{two}");
    assert!(unordered > two, "{unordered} vs {two}");
}

#[test]
fn a_transfer_completes_and_shuts_down() {
    // 1000 full chunks without loss (the receive window is below BDP + queue):
    // every byte delivered once, then SHUTDOWN, SHUTDOWN ACK, SHUTDOWN COMPLETE.
    let a = assoc(&single(
        10,
        "rwnd = \"145200B\"",
        "",
        "app = { kind = \"transfer\", segments = 1000 }",
    ));
    let s = &a.summary;
    assert_eq!(s.receiver.bytes_delivered, 1000 * USER);
    assert_eq!(s.sender.chunks_sent, 1000);
    assert_eq!(s.state, "shut_down");
    assert!(s.completion_time.is_some());
}

/// 60 s over the bottleneck with 5 % of packets delayed by N(30 ms, 15 ms), no loss.
fn reordering_path(rr: &str) -> AssociationResult {
    let stage = "{ kind = \"reorder\", r = 0.05, delay = { distribution = \"normal\", mean = \"30ms\", sd = \"15ms\" }, direction = \"forward\", applies_to = \"data\" }";
    assoc(&single(
        60,
        &format!("rwnd = \"72600B\", dupthresh = 4{rr}"),
        stage,
        "",
    ))
}

#[test]
fn rr_sctp_detection_matches_the_truth_on_a_reordering_path() {
    // No loss: every retransmission is spurious. The paper reports detection
    // effectiveness above 90 % below 10 % reordering; nothing is called spurious
    // that was not.
    let a = reordering_path(", rr = { detection = true, recovery = true }");
    let t = a.summary.truth;
    assert!(t.events >= 20, "{t:?}");
    assert_eq!(t.spurious_events, t.events);
    assert_eq!(t.detected_wrong, 0);
    let effectiveness = t.detected_correct as f64 / t.spurious_events as f64;
    assert!(effectiveness >= 0.9, "{effectiveness} {t:?}");
}

#[test]
fn rr_sctp_detects_a_spurious_timeout_and_slow_starts_back() {
    // When TSN 300 is sent, the reverse link holds every SACK for 1.5 s (in order,
    // for 10 ms of SACKs): all data arrives, but T3-rtx (RTO 1 s) expires. The
    // timeout retransmits one chunk the receiver already holds: the truth calls the
    // event spurious, its duplicate report lets detection agree, and Recovery sets
    // ssthresh to the cwnd before the timeout (the plain association keeps half).
    let stage = "{ kind = \"arq\", pv = 1.0, delay = { distribution = \"constant\", value = \"1.5s\" }, direction = \"reverse\", applies_to = \"acks\", start_on = { flow = \"a\", segment = 300 }, duration = \"10ms\" }";
    let run = |rr: &str| assoc(&single(10, &format!("rwnd = \"72600B\"{rr}"), stage, ""));
    let plain = run("");
    let rr = run(", rr = { detection = true, recovery = true }");
    for a in [&plain, &rr] {
        assert_eq!(a.summary.sender.timeouts, 1);
        assert_eq!(a.summary.truth.spurious_timeouts, 1);
    }
    let event = rr.events.iter().find(|e| e.kind == "timeout").unwrap();
    let detected = event.detected.expect("detected");
    let ps = &rr.path_series;
    let before = ps.time.partition_point(|&t| t < event.time) - 1;
    let after = ps.time.partition_point(|&t| t <= detected) - 1;
    assert_eq!(ps.ssthresh[after], ps.cwnd[before]);
    let pe = plain.events.iter().find(|e| e.kind == "timeout").unwrap();
    let pp = &plain.path_series;
    let before_plain = pp.time.partition_point(|&t| t < pe.time) - 1;
    let after_plain = pp.time.partition_point(|&t| t <= pe.time) - 1;
    // max(cwnd/2, 4 chunks) without RR-SCTP.
    assert_eq!(
        pp.ssthresh[after_plain],
        (pp.cwnd[before_plain] / 2).max(4 * C)
    );
}

#[test]
fn rr_sctp_raises_dupthresh_on_a_reordering_path() {
    // The histogram only takes crf ≥ 4 (the base), so its first sample already makes
    // dupthresh ≥ 5; with no loss there is no timeout to lower pef. Fewer reorderings
    // then reach dupthresh, so fewer fast retransmits than with detection alone.
    let detect = reordering_path(", rr = { detection = true, recovery = true }");
    let adapt =
        reordering_path(", rr = { detection = true, recovery = true, adapt_dupthresh = true }");
    assert!(*adapt.series.dupthresh.last().unwrap() >= 5);
    assert!(adapt.series.dupthresh.iter().all(|&d| d >= 4));
    let fr = |a: &AssociationResult| a.summary.sender.fast_retransmits;
    assert!(
        fr(&adapt) < fr(&detect),
        "{} vs {}",
        fr(&adapt),
        fr(&detect)
    );
    assert_eq!(adapt.summary.sender.avoidable_timeouts, 0);
}

#[test]
fn sctp_under_random_loss_follows_the_square_root_law() {
    // Bernoulli loss of DATA packets with probability p, a SACK per packet (b = 1),
    // the rate set by loss (10 Mb/s is never reached). SCTP repairs all the losses of
    // a window in one Fast Recovery, as SACK TCP does, and hardly ever times out, so
    // the model is Mathis et al. (1997) without timeouts, rate = √(3/(2·b·p_e)) / RTT,
    // with the run's mean RTT and p_e the rate of loss indications (fast retransmits
    // + timeouts per chunk sent), below the packet loss rate. (PFTK, which adds
    // Reno's timeouts, is 14-34 % below the measured rates here, as it is for
    // NewReno in tests/pftk.rs.) ±10 %: the square-root law is exact for periodic
    // losses; random ones move its constant by a few per cent.
    for (p, seconds) in [(0.005, 400), (0.01, 300), (0.02, 200)] {
        let stage = format!(
            "{{ kind = \"bernoulli\", p = {p}, direction = \"forward\", applies_to = \"data\" }}"
        );
        let a = assoc(&single(seconds, "", &stage, ""));
        let s = &a.summary;
        let duration = (s.end - s.start).as_secs_f64();
        let measured = s.sender.chunks_sent as f64 / duration;
        let events = s.sender.fast_retransmits + s.sender.timeouts;
        let p_e = events as f64 / s.sender.chunks_sent as f64;
        let model = (1.5 / p_e).sqrt() / s.mean_rtt();
        assert!(events >= 200, "p={p}: only {events} loss events");
        assert!(
            s.sender.timeouts * 20 < events,
            "p={p}: {} timeouts",
            s.sender.timeouts
        );
        let ratio = measured / model;
        assert!(
            (0.9..=1.1).contains(&ratio),
            "p={p}: {measured:.1} chunks/s vs {model:.1} (ratio {ratio:.3})"
        );
    }
}

#[test]
fn stop_ends_the_writes_and_the_association_shuts_down() {
    // The application stops at 2 s: nothing new is sent after it, everything sent is
    // delivered, and the association closes.
    let a = assoc(&single(5, "rwnd = \"145200B\"", "", "stop = \"2s\""));
    let chunks = a.chunks.as_ref().unwrap();
    let last_new = (0..chunks.len())
        .filter(|&i| chunks.copy[i] == 0)
        .map(|i| chunks.time[i])
        .max()
        .unwrap();
    assert!(last_new <= SimTime::from_secs(2));
    let s = &a.summary;
    assert_eq!(s.receiver.bytes_delivered, s.sender.bytes_sent);
    assert_eq!(s.state, "shut_down");
}

#[test]
fn interval_sampling_gives_a_row_per_interval() {
    // 2 s sampled every 100 ms from 0: 21 rows for the association, 21 per path.
    let text = multihomed(2, "", "").replace(
        "[trace]\nsegments = true",
        "[trace]\nsampling = \"interval\"\ninterval = \"100ms\"",
    );
    let a = assoc(&text);
    assert_eq!(a.series.len(), 21);
    assert_eq!(a.path_series.len(), 42);
    let same_seed = assoc(&text);
    assert_eq!(same_seed.series.delivered, a.series.delivered);
}
