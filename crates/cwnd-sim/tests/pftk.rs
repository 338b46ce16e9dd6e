//! Reno under random loss against the PFTK model (Padhye et al. 1998).
//!
//! Setting: one bulk flow, no delayed ACKs (b = 1), no SACK, Bernoulli loss of
//! data packets with probability p on a 100 Mb/s path with a 100 ms RTT, so that
//! the rate is set by loss, never by capacity (the queue never fills). Each run
//! lasts long enough for at least 200 loss events. The model is evaluated with
//! the run's own mean RTT and mean RTO (T0), as the PFTK paper does with its
//! traces. Tolerance ±30 % (the paper's own validation shows errors of that size).

mod common;

use common::models::pftk_full;
use common::{run, single_path};

fn lossy_path(cc: &str, p: f64, seconds: u32) -> String {
    single_path(
        "100Mbps",
        50.0,
        10_000,
        seconds,
        &format!("cc = \"{cc}\""),
        &format!(
            "impairments = [{{ kind = \"bernoulli\", p = {p}, direction = \"forward\", applies_to = \"data\" }}]"
        ),
    )
}

/// (measured send rate, model rate) in packets/s, and the number of loss events.
fn measure(cc: &str, p: f64, seconds: u32, seed: u64) -> (f64, f64, u64) {
    let r = run(&lossy_path(cc, p, seconds), seed);
    let s = &r.flows[0].summary;
    let duration = (s.end - s.start).as_secs_f64();
    let measured = s.sender.segments_sent as f64 / duration;
    let model = pftk_full(p, s.mean_rtt(), s.mean_rto(), 1.0, 1e9);
    let loss_events = s.sender.fast_retransmits + s.sender.timeouts;
    (measured, model, loss_events)
}

#[test]
fn reno_matches_pftk_within_30_percent() {
    for (p, seconds) in [(0.005, 600), (0.01, 400), (0.02, 300)] {
        let (measured, model, events) = measure("reno", p, seconds, 11);
        let (nr_measured, nr_model, _) = measure("newreno", p, seconds, 11);
        println!(
            "p={p}: reno {measured:.1} pkt/s, PFTK {model:.1} pkt/s, ratio {:.3}; newreno ratio {:.3}; {events} loss events",
            measured / model,
            nr_measured / nr_model
        );
        assert!(events >= 200, "p={p}: only {events} loss events");
        let ratio = measured / model;
        assert!(
            (0.7..=1.3).contains(&ratio),
            "p={p}: Reno {measured:.1} pkt/s vs PFTK {model:.1} pkt/s (ratio {ratio:.3})"
        );
    }
}
