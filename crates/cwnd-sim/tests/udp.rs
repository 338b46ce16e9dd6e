//! UDP end to end: a CBR source delivers rate × time to the datagram with the
//! one-way delay of its path; on/off sources are reproducible from the seed; and
//! datagram losses are counted by cause on a DropTail or RED bottleneck shared with
//! a TCP flow, adding up with the link's own counters.

mod common;

use common::run;
use cwnd_sim::results::UdpSummary;

/// One link a — b, 10 Mb/s, 5 ms; `flow` is the UDP flow's table body.
fn one_link(duration_s: u32, flow: &str) -> String {
    format!(
        r#"
duration = "{duration_s}s"
[[links]]
between = ["a", "b"]
bandwidth = "10Mbps"
delay = "5ms"
[[flows]]
name = "u"
from = "a"
to = "b"
transport = "udp"
{flow}
"#
    )
}

#[test]
fn cbr_delivers_rate_times_time_with_the_path_delay() {
    // 2 Mb/s in 500 B datagrams: one every 4000 bits / 2e6 b/s = 2 ms, from 1 s to
    // 6 s (stop excluded): 5 s / 2 ms = 2500 datagrams, 1 250 000 B = 2 Mb/s × 5 s.
    // The link is idle for each (10 Mb/s > 2 Mb/s): delay = 4000 bits / 10 Mb/s +
    // 5 ms = 0.4 + 5 = 5.4 ms.
    let toml = one_link(
        10,
        "start = \"1s\"\nstop = \"6s\"\nsource = { kind = \"cbr\", rate = \"2Mbps\", packet_size = \"500B\" }",
    );
    let r = run(&toml, 1);
    let u = &r.udp_flow("u").unwrap().summary;
    assert_eq!(u.cc, "cbr");
    assert_eq!(u.sender.packets_sent, 2500);
    assert_eq!(u.sink.packets_delivered, 2500);
    assert_eq!(u.sink.bytes_delivered, 1_250_000);
    assert_eq!(u.goodput_bps(), 2_000_000.0);
    assert!(
        (u.mean_delay() - 0.0054).abs() < 1e-12,
        "{}",
        u.mean_delay()
    );
    assert_eq!(
        (u.drops_queue, u.drops_impairment, u.packets_in_flight),
        (0, 0, 0)
    );
    // Sent per 100 ms bin: 50 datagrams = 25 000 B in bins 10 ..= 59. Delivered:
    // datagram k arrives at 1.0054 + 0.002k s; bin 10 (1.0–1.1 s) holds k ≤ 47
    // (48 datagrams), bin 60 (6.0–6.1 s) k = 2498, 2499 (6.0014 s, 6.0034 s).
    let res = r.udp_flow("u").unwrap();
    let sent = res.sent_bins.padded(100);
    assert!(sent[..10].iter().all(|&b| b == 0));
    assert!(sent[10..60].iter().all(|&b| b == 25_000));
    let delivered = res.delivered_bins.padded(100);
    assert_eq!(delivered[10], 24_000);
    assert!(delivered[11..60].iter().all(|&b| b == 25_000));
    assert_eq!(delivered[60], 1000);
}

#[test]
fn on_off_sources_are_reproducible_from_the_seed() {
    let source = "source = { kind = \"pareto\", burst_time = \"200ms\", idle_time = \"300ms\", rate = \"4Mbps\", packet_size = \"1000B\", shape = 1.5 }";
    let toml = one_link(20, source);
    let sent = |seed| run(&toml, seed).udp_flow("u").unwrap().summary.sender;
    assert_eq!(sent(3), sent(3));
    assert_ne!(sent(3), sent(4));
    // A burst sends at most 4 Mb/s: 20 s · 4e6 / 8000 = 10 000 datagrams at most.
    assert!(sent(3).packets_sent < 10_000);
}

/// h — r — d: 100 Mb/s 1 ms access, 10 Mb/s 10 ms bottleneck (queue 50 packets,
/// `queue_extra` beside it); a Reno bulk flow "t" and a 6 Mb/s CBR "u" of 1000 B
/// datagrams share it for 20 s; the bottleneck drops the CBR's 100th, 200th and
/// 300th datagrams it transmits.
fn shared(queue_extra: &str) -> String {
    format!(
        r#"
duration = "20s"
[[links]]
between = ["h", "r"]
bandwidth = "100Mbps"
delay = "1ms"
[[links]]
between = ["r", "d"]
bandwidth = "10Mbps"
delay = "10ms"
queue = {{ packets = 50 {queue_extra} }}
impairments = [{{ kind = "drop_list", flow = "u", packets = [100, 200, 300], direction = "forward" }}]
[[flows]]
name = "t"
from = "h"
to = "d"
cc = "reno"
[[flows]]
name = "u"
from = "h"
to = "d"
transport = "udp"
source = {{ kind = "cbr", rate = "6Mbps", packet_size = "1000B" }}
"#
    )
}

#[test]
fn udp_losses_are_counted_by_cause_on_a_shared_bottleneck() {
    for queue in ["", ", red = { min_th = 5, max_th = 15 }"] {
        let r = run(&shared(queue), 1);
        let u: &UdpSummary = &r.udp_flow("u").unwrap().summary;
        let t = &r.flow("t").unwrap().summary;
        // 6e6 · 20 / 8000 = 15 000 datagrams, every one accounted for.
        assert_eq!(u.sender.packets_sent, 15_000, "{queue}");
        let accounted =
            u.sink.packets_delivered + u.drops_queue + u.drops_impairment + u.packets_in_flight;
        assert_eq!(accounted, u.sender.packets_sent, "{queue}");
        assert_eq!(u.drops_impairment, 3, "{queue}");
        assert!(u.drops_queue > 0, "{queue}: TCP fills the queue");
        // At the end at most the queue (50) and the bottleneck's wire (10 ms at 10
        // Mb/s = 12.5 datagrams of 1000 B) and one on the access link hold some.
        assert!(
            u.packets_in_flight <= 64,
            "{queue}: {}",
            u.packets_in_flight
        );
        // The link counted the same drops, flow by flow.
        let bottleneck = r
            .links
            .iter()
            .find(|l| l.from == "r" && l.to == "d")
            .unwrap();
        assert_eq!(
            bottleneck.stats.drops_queue,
            t.drops_queue + u.drops_queue,
            "{queue}"
        );
        assert_eq!(bottleneck.stats.drops_impairment, 3, "{queue}");
        if !queue.is_empty() {
            assert!(bottleneck.stats.drops_early > 0, "RED drops early");
        }
        // Together they cannot deliver more than the bottleneck carries: 10 Mb/s ·
        // 20 s = 25 MB (TCP's bytes counted as payload, UDP's as datagrams).
        let total = t.receiver.bytes_delivered + u.sink.bytes_delivered;
        assert!(total <= 25_000_000, "{queue}: {total}");
    }
}
