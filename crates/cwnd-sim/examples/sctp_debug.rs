fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let r = cwnd_sim::scenario::run_toml(&text, 1).unwrap_or_else(|e| panic!("{e}"));
    for a in &r.associations {
        let s = &a.summary;
        println!("{} state {} est {:?} goodput {:.4} Mb/s sent {} retx {} fr {} to {} spur {} truth {:?}", s.name, s.state, s.established_at, s.goodput_bps()/1e6, s.sender.chunks_sent, s.sender.chunks_retransmitted, s.sender.fast_retransmits, s.sender.timeouts, s.sender.spurious_detected, s.truth);
        println!("  recv {:?}", s.receiver);
        for p in &a.paths { println!("  path {}->{} {:?}", p.from, p.to, p.stats); }
        for e in &a.events { println!("  event {:?}", e); }
        let ps = &a.path_series;
        let n = ps.len();
        for i in (0..n).step_by((n / 30).max(1)) {
            println!("  t={:.3} p={} cwnd={} ssth={} flight={} srtt={} rto={}", ps.time[i].as_secs_f64(), ps.path[i], ps.cwnd[i], ps.ssthresh[i], ps.flight[i], ps.srtt[i], ps.rto[i]);
        }
    }
}
