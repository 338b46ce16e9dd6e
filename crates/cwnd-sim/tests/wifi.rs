//! TCP over an 802.11b hop (the outage and arq studies' wireless links).

mod common;

use common::{goodput_between, run};

fn over_wifi(rate: &str, per: f64) -> String {
    format!(
        r#"
duration = "60s"
[[links]]
between = ["server", "bs"]
bandwidth = "10Mbps"
delay = "2ms"
[[wireless]]
name = "wlan"
stations = ["bs", "mobile"]
rate = "{rate}"
per = {per}
[[flows]]
name = "f"
from = "server"
to = "mobile"
cc = "newreno"
tcp = {{ delayed_ack = true }}
"#
    )
}

#[test]
fn one_tcp_flow_over_802_11b_gets_the_expected_goodput() {
    // Data frames (1500 B) and TCP ACKs (40 B, one per two segments: delayed ACKs, as
    // real receivers do) contend for the channel; MAC headers, long PLCP preambles,
    // SIFS/DIFS, MAC ACKs at 1 Mb/s and backoff take the rest. (Without delayed
    // ACKs, every segment's ACK costs a channel access: 4.33 Mb/s at 11 Mb/s.)
    for (rate, low, high) in [("2Mbps", 1.2e6, 1.7e6), ("11Mbps", 4.5e6, 6.5e6)] {
        let r = run(&over_wifi(rate, 0.0), 1);
        let g = goodput_between(&r, &r.flows[0], 10.0, 60.0);
        println!("802.11b at {rate}: {:.3} Mb/s", g / 1e6);
        assert!((low..=high).contains(&g), "{rate}: {g}");
    }
}

#[test]
fn frame_errors_are_retried_by_the_mac() {
    // 10 % of frames corrupted: the MAC retries them (up to 7 times), so TCP sees
    // almost no loss (0.1⁸ per frame) but less capacity.
    let clean = run(&over_wifi("2Mbps", 0.0), 1);
    let noisy = run(&over_wifi("2Mbps", 0.1), 1);
    let (gc, gn) = (
        goodput_between(&clean, &clean.flows[0], 10.0, 60.0),
        goodput_between(&noisy, &noisy.flows[0], 10.0, 60.0),
    );
    println!("clean {:.3} Mb/s, 10 % PER {:.3} Mb/s", gc / 1e6, gn / 1e6);
    assert!(gn < gc && gn > 0.7 * gc, "{gn} vs {gc}");
    assert_eq!(noisy.flows[0].summary.drops_impairment, 0);
}

#[test]
fn a_disconnection_of_the_wireless_hop_stops_delivery_for_its_duration() {
    // The outage study's pathology: the mobile host is out of reach for 5 s from
    // the transmission of segment 1000. Frames are retried by the MAC and dropped;
    // nothing is delivered while the outage lasts.
    let s = over_wifi("2Mbps", 0.0).replace(
        "per = 0\n",
        "per = 0\nimpairments = [{ kind = \"outage\", start_on = { flow = \"f\", segment = 1000 }, duration = \"5s\" }]\n",
    ).replace("[[flows]]", "[trace]\nsegments = true\n[[flows]]");
    let r = run(&s, 1);
    let f = &r.flows[0];
    let seg = f.segments.as_ref().unwrap();
    let t0 = seg.time[seg.seq.iter().position(|&x| x == 999 * 1460).unwrap()].as_secs_f64();
    let w = r.throughput_bin.as_secs_f64();
    let bins = f.delivered_bins.padded((60.0 / w) as usize);
    // From the first bin after the frames already on the air to the end of the outage.
    let (a, b) = (
        ((t0 + 0.2) / w).ceil() as usize,
        ((t0 + 5.0) / w).floor() as usize,
    );
    assert!(bins[a..b].iter().all(|&x| x == 0), "{:?}", &bins[a..b]);
    assert!(
        bins[b + 1..].iter().sum::<u64>() > 0,
        "recovers after the outage"
    );
    assert!(f.summary.drops_impairment > 0);
    assert!(f.summary.sender.timeouts >= 1);
}
