//! BBRv3's rules with numbers worked by hand. The path of every test: a bandwidth
//! of 1/1024 segment per µs (976.5625 segments/s) and a 102.4 ms min_rtt, so the
//! BDP is exactly 100 segments; 1460-byte segments in 1500-byte packets.

use super::loss_sample::LossSample;
use super::probe_bw::Phase;
use super::*;
use crate::rng;
use crate::transport::tcp::rate::Delivery;

const MSS: u32 = 1460;
const BW: u64 = (BW_UNIT >> 10) as u64;
const RTPROP: SimTime = SimTime(102_400_000);

fn bbr3() -> Bbr3 {
    Bbr3::new(Bbr3Config::default(), rng::stream(1, "flows[0].cc"))
}

fn tcb() -> Tcb {
    let mut t = Tcb::new(MSS, 10);
    t.header = 40;
    t
}

/// A flow past Startup with the model above, cwnd 100, in ProbeBW's Down at 0 s.
fn in_probe_bw(t: &mut Tcb) -> Bbr3 {
    let mut b = bbr3();
    b.init(t, SimTime::ZERO);
    b.min_rtt = RTPROP;
    b.probe_rtt_min = RTPROP;
    b.bw_hi = [BW, 0];
    b.full_bw_reached = true;
    b.pacing_rate = Some(Bbr3::rate_bytes_per_sec(t, BW, BBR_UNIT, 1));
    b.mode = Mode::ProbeBw;
    t.cwnd = 100;
    b.start_probe_down(t, SimTime::ZERO);
    b
}

/// An ACK's sample: `delivered` segments over a valid interval, 1 newly acked.
fn sample(delivered: u64, prior_in_flight: u32) -> RateSample {
    RateSample {
        delivery: Delivery {
            delivered,
            interval: Some(RTPROP),
            prior_delivered: 0,
            is_app_limited: false,
            acked_sacked: 1,
        },
        rtt: Some(RTPROP),
        losses: 0,
        prior_in_flight,
        in_flight: prior_in_flight,
    }
}

#[test]
fn bad_parameters_are_named() {
    let bad = |json: &str| {
        let params = serde_json::from_str(json).unwrap();
        let cfg: Bbr3Config = crate::params::parse_params(&params).unwrap();
        cfg.check().unwrap_err().0
    };
    assert_eq!(bad(r#"{"min_rtt_window": "0s"}"#), "min_rtt_window");
    assert_eq!(
        bad(r#"{"probe_rtt_interval": "11s"}"#),
        "probe_rtt_interval"
    );
    assert!(Bbr3Config::default().check().is_ok());
}

#[test]
fn gains_and_thresholds_are_the_drafts() {
    // Startup 4 ln 2 = 2.7726: 256 × 277 / 100 = 709 (truncated) + 1 = 710 = 2.773;
    // cwnd 2 = 512. Drain 256 × 1000 / 2885 = 88 (0.344; the draft's 0.35). ProbeBW:
    // Up 5/4 = 320 with cwnd gain 2.25 = 576, Down 0.90 × 256 = 230, Cruise and
    // Refill 256. Loss 2 % = 5/256, β = 0.3 × 256 = 76 (0.7 kept: 180/256), headroom
    // 15 % = 38/256, ProbeRTT half the BDP = 128.
    assert_eq!(
        (STARTUP_PACING_GAIN, STARTUP_CWND_GAIN, DRAIN_GAIN),
        (710, 512, 88)
    );
    assert!((f64::from(STARTUP_PACING_GAIN) / 256.0 - 4.0 * 2f64.ln()).abs() < 0.001);
    let gains = [Phase::Up, Phase::Down, Phase::Cruise, Phase::Refill].map(Phase::pacing_gain);
    assert_eq!(gains, [320, 230, 256, 256]);
    assert_eq!((CWND_GAIN, PROBE_UP_CWND_GAIN), (512, 576));
    assert_eq!(probe_bw::LOSS_THRESH, 5);
    assert_eq!(lower_bounds::BETA, 76);
    assert_eq!(PROBE_RTT_CWND_GAIN, 128);
    let cfg = Bbr3Config::default();
    assert_eq!(cfg.probe_rtt_interval.0, SimTime::from_secs(5));
    assert_eq!(cfg.probe_rtt_duration.0, SimTime::from_millis(200));
}

#[test]
fn pacing_rate_is_gain_times_bw_less_one_percent_in_ip_bytes() {
    // 976.5625 segments/s × 1500 B = 1 464 843.75 B/s; × 0.99 = 1 450 195.3 →
    // 1 450 195. In Linux's order: 2^14 × 1500 × 256 >> 8 = 24 576 000; × 990 000
    // = 2.433024e13; / 2^24 = 1 450 195.31 → 1 450 195. At 5/4: × 1.25 = 1 812 744.
    let t = tcb();
    assert_eq!(Bbr3::rate_bytes_per_sec(&t, BW, BBR_UNIT, 1), 1_450_195);
    assert_eq!(Bbr3::rate_bytes_per_sec(&t, BW, 320, 1), 1_812_744);
}

#[test]
fn window_targets_are_gain_times_bdp_with_the_quantization_budget() {
    // BDP 100. At 1.45 MB/s the quantum is 2 segments, 3 quanta = 6: v3 takes the
    // max with the BDP (v1 added them). Gain 2: 200; gain 1: 100; in Up 100 + 2;
    // ProbeRTT: max(4, 100 / 2) = 50. Before any RTT: the initial window, 10.
    let mut t = tcb();
    let mut b = in_probe_bw(&mut t);
    assert_eq!(b.inflight(&t, BW, CWND_GAIN), 200);
    assert_eq!(b.inflight(&t, BW, BBR_UNIT), 100);
    assert_eq!(b.probe_rtt_cwnd(), 50);
    b.phase = Phase::Up;
    assert_eq!(b.inflight(&t, BW, BBR_UNIT), 102);
    b.min_rtt = SimTime::MAX;
    assert_eq!(b.bdp(BW, CWND_GAIN), 10);
}

#[test]
fn probe_bw_goes_down_cruise_refill_up_and_down_again_on_a_clean_path() {
    let mut t = tcb();
    let mut b = in_probe_bw(&mut t);
    let none = LossSample::default();
    // Down draws its wait: 0 or 1 rounds already counted, 2 s + U[0, 1 s).
    assert_eq!(b.phase, Phase::Down);
    assert!(b.rounds_since_probe < 2);
    assert!(b.probe_wait >= SimTime::from_secs(2) && b.probe_wait < SimTime::from_secs(3));
    // Down → Cruise once in flight is at most the BDP (100; no inflight_hi yet).
    let now = SimTime::from_millis(100);
    b.update_cycle_phase(&t, now, &sample(1, 101), &none, BW);
    assert_eq!(b.phase, Phase::Down);
    b.update_cycle_phase(&t, now, &sample(1, 100), &none, BW);
    assert_eq!(b.phase, Phase::Cruise);
    // Cruise → Refill after the wait (strictly after), the short-term bounds gone.
    b.inflight_lo = 90;
    b.update_cycle_phase(&t, b.probe_wait, &sample(1, 100), &none, BW);
    assert_eq!(b.phase, Phase::Cruise);
    let after_wait = b.probe_wait + SimTime(1);
    b.update_cycle_phase(&t, after_wait, &sample(1, 100), &none, BW);
    assert_eq!((b.phase, b.inflight_lo), (Phase::Refill, UNBOUNDED));
    // Refill → Up at the next round start; its samples now count as probing.
    b.update_cycle_phase(&t, after_wait, &sample(1, 100), &none, BW);
    assert_eq!(b.phase, Phase::Refill);
    b.round_start = true;
    b.update_cycle_phase(&t, after_wait, &sample(1, 100), &none, BW);
    assert_eq!(b.phase, Phase::Up);
    assert!(b.bw_probe_samples);
    b.update_gains();
    assert_eq!((b.pacing_gain, b.cwnd_gain), (320, 576));
    // Up → Down when the bandwidth plateaus: 3 rounds without +25 % over the
    // reference taken at Up's start (BW).
    for round in 1..=3 {
        b.round_start = true;
        b.check_full_bw_reached(&sample(1, 100), BW);
        b.update_cycle_phase(&t, after_wait, &sample(1, 100), &none, BW);
        let expected = if round < 3 { Phase::Up } else { Phase::Down };
        assert_eq!(b.phase, expected, "round {round}");
    }
}

#[test]
fn probing_starts_after_as_many_rounds_as_a_reno_flow_would_wait() {
    // Reno coexistence: min(63, target in flight) rounds. cwnd 40 makes the target
    // min(100, 40) = 40 rounds, long before the 2–3 s wait.
    let mut t = tcb();
    let mut b = in_probe_bw(&mut t);
    b.phase = Phase::Cruise;
    t.cwnd = 40;
    b.rounds_since_probe = 39;
    let none = LossSample::default();
    b.update_cycle_phase(&t, SimTime::from_secs(1), &sample(1, 40), &none, BW);
    assert_eq!(b.phase, Phase::Cruise);
    b.rounds_since_probe = 40;
    b.update_cycle_phase(&t, SimTime::from_secs(1), &sample(1, 40), &none, BW);
    assert_eq!(b.phase, Phase::Refill);
}

#[test]
fn more_than_2_percent_loss_in_up_cuts_inflight_hi_by_beta_and_ends_the_probe() {
    // In Up with probing samples, cwnd 120: target in flight = min(100 + 2, 120)
    // = 102. 1 lost of 100 in flight: 100 × 5 >> 8 = 1, 1 > 1 is false (1 % is
    // fine). 3 lost of 53: 53 × 5 >> 8 = 1, 3 > 1: too high. inflight_hi =
    // max(53, 102 × 180 >> 8 = 71.7 → 71) = 71, and Up ends: Down.
    let mut t = tcb();
    let mut b = in_probe_bw(&mut t);
    t.cwnd = 120;
    b.phase = Phase::Up;
    b.ack_phase = AckPhase::ProbeFeedback;
    b.bw_probe_samples = true;
    let now = SimTime::from_secs(1);
    let fine = LossSample {
        lost: 1,
        tx_in_flight: 100,
    };
    b.update_cycle_phase(&t, now, &sample(99, 100), &fine, BW);
    assert_eq!((b.phase, b.inflight_hi), (Phase::Up, UNBOUNDED));
    let high = LossSample {
        lost: 3,
        tx_in_flight: 53,
    };
    b.update_cycle_phase(&t, now, &sample(50, 100), &high, BW);
    assert_eq!((b.phase, b.inflight_hi), (Phase::Down, 71));
    assert!(b.prev_probe_too_high && !b.bw_probe_samples);
    // Cruising then keeps 15 % headroom below it: 71 − (71 × 38 >> 8 = 10) = 61.
    assert_eq!(b.inflight_with_headroom(), 61);
    b.start_probe_cruise();
    b.bound_cwnd_for_inflight_model(&mut t);
    assert_eq!(t.cwnd, 61);
}

#[test]
fn a_lossy_round_outside_probing_cuts_the_short_term_bounds_to_70_percent() {
    // Cruise, cwnd 100, max_bw BW = 16 384; the round delivered at half the rate
    // (8 192) and 40 segments. bw_lo = max(8 192, 16 384 × 180 >> 8 = 11 520) =
    // 11 520; inflight_lo = max(40, 100 × 180 >> 8 = 70) = 70. A second lossy round:
    // bw_lo = max(8 192, 11 520 × 180 >> 8 = 8 100) = 8 192 (the floor: the
    // round's delivery); inflight_lo = max(40, 49) = 49.
    let mut t = tcb();
    let mut b = in_probe_bw(&mut t);
    b.start_probe_cruise();
    for (bw_lo, inflight_lo) in [(11_520, 70), (8_192, 49)] {
        b.bw_latest = BW / 2;
        b.inflight_latest = 40;
        b.loss_in_round = true;
        b.adapt_lower_bounds(&t);
        assert_eq!((b.bw_lo, b.inflight_lo), (bw_lo, inflight_lo));
    }
    assert_eq!(b.bw(), 8_192);
    // While probing (Up) a lossy round leaves them alone.
    b.phase = Phase::Up;
    b.adapt_lower_bounds(&t);
    assert_eq!(b.inflight_lo, 49);
}

#[test]
fn ecn_alpha_follows_the_marked_fraction_and_cuts_inflight_lo() {
    // α starts at 1 (256). 10 of 100 marked: CE ratio 10 × 256 / 100 = 25 (25.6);
    // α = 240 × 256 >> 8 = 240, + 16 × 25 >> 8 = 1 → 241. From α = 0, all marked:
    // 16 × 256 >> 8 = 16 (1/16). Nothing delivered: no update.
    assert_eq!(ecn_alpha_update(256, 100, 10), Some((241, 25)));
    assert_eq!(ecn_alpha_update(0, 100, 100), Some((16, 256)));
    assert_eq!(ecn_alpha_update(256, 0, 0), None);
    // In Cruise, cwnd 100, a marked round: the cut is 1 − α/3 = 256 − (241 × 85
    // >> 8 = 80) = 176; inflight_lo = 100 × 176 >> 8 = 68 (68.75).
    let mut t = tcb();
    let mut b = in_probe_bw(&mut t);
    b.start_probe_cruise();
    b.on_ecn_round(&t, 100, 10);
    assert_eq!(b.ecn_alpha, 241);
    b.adapt_lower_bounds(&t);
    assert_eq!(b.inflight_lo, 68);
}

#[test]
fn two_startup_rounds_half_marked_end_startup() {
    // CE ratio 50 / 100 = 128 = the threshold 1/2: two such rounds in a row fill
    // the pipe; inflight_hi = max(BDP 100, the last round's 80 delivered) = 100.
    let t = tcb();
    let mut b = bbr3();
    b.init(&t, SimTime::ZERO);
    b.min_rtt = RTPROP;
    b.bw_hi = [BW, 0];
    b.inflight_latest = 80;
    b.on_ecn_round(&t, 100, 50);
    assert!(!b.full_bw_reached);
    b.on_ecn_round(&t, 100, 50);
    assert!(b.full_bw_reached);
    assert_eq!(b.inflight_hi, 100);
}

#[test]
fn startup_ends_on_a_bandwidth_plateau_of_three_rounds() {
    // Samples (segments/s): 100 → reference; 200 ≥ 125 → reference 200; then 240,
    // 249, 240 at round starts (< 250): the third makes the pipe full. A sample at
    // no round start does not count.
    let mut b = bbr3();
    let rs = sample(1, 10);
    let bw = |per_s: u64| (per_s * BW_UNIT as u64) / 1_000_000;
    for (per_s, round_start) in [
        (100, true),
        (200, true),
        (240, true),
        (249, false),
        (249, true),
    ] {
        b.round_start = round_start;
        b.check_full_bw_reached(&rs, bw(per_s));
        assert!(!b.full_bw_reached, "{per_s}");
    }
    b.round_start = true;
    b.check_full_bw_reached(&rs, bw(240));
    assert!(b.full_bw_reached && b.full_bw_now);
    assert_eq!(b.full_bw_count, 3);
}

#[test]
fn startup_ends_on_six_loss_events_in_a_recovery_round_above_2_percent() {
    // In Recovery, at a loss round's start, with the 6th ACK reporting losses and
    // a sample of 5 lost of 100 (5 > 100 × 5 >> 8 = 1): full, inflight_hi = max(BDP
    // 100, 80 delivered in the last round) = 100. With 5 events, not yet.
    let mut t = tcb();
    t.ca_state = CaState::Recovery;
    let mut b = bbr3();
    b.init(&t, SimTime::ZERO);
    b.min_rtt = RTPROP;
    b.bw_hi = [BW, 0];
    b.inflight_latest = 80;
    let high = LossSample {
        lost: 5,
        tx_in_flight: 100,
    };
    let mut rs = sample(95, 100);
    rs.losses = 1;
    b.loss_events_in_round = 4;
    b.loss_round_start = true;
    b.check_loss_too_high_in_startup(&t, &rs, &high);
    assert!(!b.full_bw_reached);
    assert_eq!(
        b.loss_events_in_round, 0,
        "a new loss round starts the count over"
    );
    b.loss_events_in_round = 5;
    b.check_loss_too_high_in_startup(&t, &rs, &high);
    assert!(b.full_bw_reached);
    assert_eq!(b.inflight_hi, 100);
}

#[test]
fn probe_rtt_comes_after_5_s_holds_half_the_bdp_for_200_ms_and_a_round() {
    let mut t = tcb();
    let mut b = in_probe_bw(&mut t);
    b.start_probe_cruise();
    t.cwnd = 200;
    t.delivered = 1000;
    // 5 s + 1 ns without a lower RTT: the 5 s filter expires and takes the sample
    // (204.8 ms), the 10 s min_rtt keeps 102.4 ms; ProbeRTT saves cwnd 200 and the
    // window falls to max(4, 100 / 2) = 50.
    let t1 = SimTime::from_secs(5) + SimTime(1);
    let mut rs = sample(1, 200);
    rs.rtt = Some(RTPROP + RTPROP);
    b.update_min_rtt(&mut t, t1, &rs);
    assert_eq!(b.mode, Mode::ProbeRtt);
    assert_eq!((b.min_rtt, b.probe_rtt_min), (RTPROP, RTPROP + RTPROP));
    assert_eq!(b.prior_cwnd, 200);
    b.update_gains();
    b.set_cwnd(&mut t, &rs, b.bw());
    assert_eq!(t.cwnd, 50);
    // In flight down to 50: 200 ms start; after them and a round, back to ProbeBW's
    // Cruise with cwnd 200 and the 5 s filter renewed.
    rs.in_flight = 50;
    let t2 = t1 + SimTime::from_millis(100);
    b.update_min_rtt(&mut t, t2, &rs);
    assert_eq!(b.probe_rtt_done, Some(t2 + SimTime::from_millis(200)));
    let t3 = t2 + SimTime::from_millis(201);
    b.update_min_rtt(&mut t, t3, &rs);
    assert_eq!(b.mode, Mode::ProbeRtt, "no round yet");
    b.round_start = true;
    b.update_min_rtt(&mut t, t3, &rs);
    assert_eq!((b.mode, b.phase), (Mode::ProbeBw, Phase::Cruise));
    assert_eq!((t.cwnd, b.probe_rtt_min_stamp), (200, t3));
}

#[test]
fn undo_restores_the_bounds_a_spurious_loss_cut() {
    let mut t = tcb();
    let mut b = in_probe_bw(&mut t);
    b.inflight_hi = 150;
    b.inflight_lo = 120;
    assert_eq!(b.ssthresh(&t, SimTime::ZERO), INFINITE_SSTHRESH);
    assert_eq!(b.prior_cwnd, 100);
    b.inflight_hi = 90;
    b.inflight_lo = 70;
    assert_eq!(b.undo_cwnd(&t), 100);
    assert_eq!((b.inflight_hi, b.inflight_lo), (150, 120));
}

#[test]
fn info_reports_the_model_in_bit_per_second_segments_and_seconds() {
    // bw = max_bw = 976.5625 segments/s × 1460 × 8 = 11 406 250 bit/s; no bw_lo,
    // inflight_hi or inflight_lo yet (NaN); ProbeBW (2), Down (1) at 0.90 (230/256
    // = 0.8984375) and cwnd gain 2; α = 1.
    let mut t = tcb();
    let mut b = in_probe_bw(&mut t);
    b.update_gains();
    let mut out = Vec::new();
    b.info(&t, &mut out);
    let names: Vec<&str> = out.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "mode",
            "phase",
            "bw_bps",
            "max_bw_bps",
            "bw_lo_bps",
            "min_rtt",
            "inflight_hi",
            "inflight_lo",
            "pacing_gain",
            "cwnd_gain",
            "ecn_alpha"
        ]
    );
    let values: Vec<f64> = out.iter().map(|(_, v)| *v).collect();
    assert_eq!(values[..4], [2.0, 1.0, 11_406_250.0, 11_406_250.0]);
    assert!(values[4].is_nan() && values[6].is_nan() && values[7].is_nan());
    assert_eq!(values[5], 0.1024);
    assert_eq!(values[8..], [0.8984375, 2.0, 1.0]);
}
