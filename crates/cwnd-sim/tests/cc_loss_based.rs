//! Loss-based variants on whole networks: filling a clean path, and random loss.

mod common;

use common::{goodput_between, run, single_path};

const CAPACITY: f64 = 10e6 * 1460.0 / 1500.0;

#[test]
fn every_variant_fills_a_clean_path() {
    // 10 Mb/s, 50 ms RTT, a 1-BDP queue; goodput over 10–60 s after headers.
    for cc in ["westwood", "westwood_plus", "veno", "vegas"] {
        let s = single_path("10Mbps", 24.0, 42, 60, &format!("cc = \"{cc}\""), "");
        let r = run(&s, 1);
        let g = goodput_between(&r, &r.flows[0], 10.0, 60.0);
        println!("{cc}: {:.3} Mb/s", g / 1e6);
        assert!(g >= 0.95 * CAPACITY, "{cc}: {:.3} Mb/s", g / 1e6);
    }
}

/// Mean and sample standard deviation of goodput (Mb/s) over `seeds` runs of one
/// flow over 10 Mb/s, 100 ms RTT with 1 % Bernoulli loss of data packets.
fn random_loss_goodput(cc: &str, seeds: u64) -> (f64, f64) {
    let impair = "impairments = [{ kind = \"bernoulli\", p = 0.01, direction = \"forward\", applies_to = \"data\" }]";
    let g: Vec<f64> = (1..=seeds)
        .map(|seed| {
            let r = run(
                &single_path("10Mbps", 49.0, 100, 120, &format!("cc = \"{cc}\""), impair),
                seed,
            );
            r.flows[0].summary.goodput_bps() / 1e6
        })
        .collect();
    let mean = g.iter().sum::<f64>() / g.len() as f64;
    let var = g.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (g.len() - 1) as f64;
    (mean, var.sqrt())
}

#[test]
fn westwood_plus_and_veno_beat_reno_under_random_loss() {
    // Grieco & Mascolo 2004 (Westwood+) and Fu & Liew 2003 (Veno): with random,
    // non-congestive loss their gentler reductions keep a larger window than Reno's
    // halving. 10 seeds of 120 s each.
    let (reno, reno_sd) = random_loss_goodput("reno", 10);
    let (ww, ww_sd) = random_loss_goodput("westwood_plus", 10);
    let (veno, veno_sd) = random_loss_goodput("veno", 10);
    println!(
        "1 % loss, 100 ms: reno {reno:.3} ± {reno_sd:.3}, westwood+ {ww:.3} ± {ww_sd:.3}, veno {veno:.3} ± {veno_sd:.3} Mb/s"
    );
    assert!(ww > reno, "westwood+ {ww} vs reno {reno}");
    assert!(veno > reno, "veno {veno} vs reno {reno}");
}
