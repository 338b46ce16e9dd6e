//! Traffic generators against long flows on one 10 Mb/s dumbbell (BENCHMARKS.md):
//! `web` — a Web generator (SURGE sizes) at offered load 0.9, newreno; `bounded` — the
//! same with object sizes bounded at 10 MB (`web.size_max`); `long` — 10 long-lived
//! NewReno flows; all on a 10 Mb/s × 20 ms bottleneck, 100-packet DropTail, interval
//! sampling. Prints wall time, connections and data packets per wall second, and the
//! load the generator offered.
//! Run: `cargo bench -p cwnd-sim --bench generators [-- web|bounded|long [SECONDS] [seed=N]]`.

#![allow(clippy::disallowed_methods)] // a benchmark measures wall time

use std::time::Instant;

use cwnd_sim::scenario::run_toml;

fn scenario(kind: &str, seconds: u64) -> String {
    let mut s = format!(
        "duration = \"{seconds}s\"\n[trace]\nsampling = \"interval\"\ninterval = \"100ms\"\n\
         [[links]]\nname = \"r1-r2\"\nbetween = [\"r1\", \"r2\"]\nbandwidth = \"10Mbps\"\n\
         delay = \"20ms\"\nqueue = {{ packets = 100 }}\n\
         [[links]]\nbetween = [\"s\", \"r1\"]\nbandwidth = \"100Mbps\"\ndelay = \"1ms\"\n\
         [[links]]\nbetween = [\"r2\", \"d\"]\nbandwidth = \"100Mbps\"\ndelay = \"1ms\"\n"
    );
    if kind != "long" {
        s.push_str(
            "[[generators]]\nkind = \"web\"\nfrom = \"s\"\nto = \"d\"\nlink = \"r1-r2\"\n\
             load = 0.9\ncc = \"newreno\"\n",
        );
        if kind == "bounded" {
            s.push_str("web = { size_max = \"10MB\" }\n");
        }
    } else {
        for i in 0..10 {
            s.push_str(&format!(
                "[[flows]]\nfrom = \"s\"\nto = \"d\"\ncc = \"newreno\"\nstart = \"{}ms\"\n",
                i * 10
            ));
        }
    }
    s
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(600);
    let seed: u64 = args
        .iter()
        .find_map(|a| a.strip_prefix("seed=")?.parse().ok())
        .unwrap_or(1);
    let all = ["web", "bounded", "long"];
    let kinds: Vec<&str> = all
        .into_iter()
        .filter(|k| !args.iter().any(|a| all.contains(&a.as_str())) || args.iter().any(|a| a == k))
        .collect();
    for kind in kinds {
        let start = Instant::now();
        let r = run_toml(&scenario(kind, seconds), seed).expect("benchmark scenario is valid");
        let wall = start.elapsed().as_secs_f64();
        let data: u64 = r
            .flows
            .iter()
            .map(|f| f.summary.sender.segments_sent)
            .sum::<u64>()
            + r.connections.iter().map(|c| c.segments_sent).sum::<u64>();
        let offered = r.generators.first().map_or(f64::NAN, |g| g.offered_load);
        let peak = r.generators.first().map_or(0, |g| g.peak_live);
        println!(
            "kind={kind:7} seed={seed} sim={seconds}s wall={wall:.3}s events={} ({:.2} M/s) connections={} ({:.0}/s) \
             data packets sent={data} ({:.3} M/s) offered load={offered:.3} peak live={peak}",
            r.events,
            r.events as f64 / wall / 1e6,
            r.connections.len(),
            r.connections.len() as f64 / wall,
            data as f64 / wall / 1e6,
        );
    }
}
