//! Prints a scenario's per-flow (and per-association) summary and a decimated
//! cwnd/sequence trace:
//! `cargo run --release -p cwnd-sim --example debug_run -- SCENARIO.toml [SEED]`.

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: debug_run SCENARIO.toml [SEED]");
    let seed = std::env::args()
        .nth(2)
        .map_or(1, |s| s.parse().expect("seed"));
    let text = std::fs::read_to_string(path).expect("readable scenario");
    let r = cwnd_sim::scenario::run_toml(&text, seed).unwrap_or_else(|e| panic!("{e}"));
    for f in &r.flows {
        let s = &f.summary;
        println!(
            "{} goodput {:.3} Mb/s sent {} retx {} fr {} to {} dup {} rtt {:.4} rto {:.3}",
            s.name,
            s.goodput_bps() / 1e6,
            s.sender.segments_sent,
            s.sender.segments_retransmitted,
            s.sender.fast_retransmits,
            s.sender.timeouts,
            s.sender.dup_acks,
            s.mean_rtt(),
            s.mean_rto()
        );
        let n = f.series.len();
        for i in (0..n).step_by((n / 60).max(1)) {
            println!(
                "  t={:.3} cwnd={} ssth={} una={} nxt={} rto={}",
                f.series.time[i].as_secs_f64(),
                f.series.cwnd[i],
                f.series.ssthresh[i],
                f.series.snd_una[i],
                f.series.snd_nxt[i],
                f.series.rto[i].as_secs_f64()
            );
        }
    }
    for a in &r.associations {
        let s = &a.summary;
        println!(
            "{} ({}) {} goodput {:.3} Mb/s chunks {} retx {} fr {} to {} spurious detected {} {:?}",
            s.name,
            s.variant(),
            s.state,
            s.goodput_bps() / 1e6,
            s.sender.chunks_sent,
            s.sender.chunks_retransmitted,
            s.sender.fast_retransmits,
            s.sender.timeouts,
            s.sender.spurious_detected,
            s.truth
        );
        for (i, p) in a.paths.iter().enumerate() {
            println!("  path {i} {} -> {} {:?}", p.from, p.to, p.stats);
        }
        let ps = &a.path_series;
        for i in (0..ps.len()).step_by((ps.len() / 60).max(1)) {
            println!(
                "  t={:.3} path={} cwnd={} ssth={} flight={} rto={}",
                ps.time[i].as_secs_f64(),
                ps.path[i],
                ps.cwnd[i],
                ps.ssthresh[i],
                ps.flight[i],
                ps.rto[i].as_secs_f64()
            );
        }
    }
    println!("events {} fp {:x}", r.events, r.fingerprint);
}
