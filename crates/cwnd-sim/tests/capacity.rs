//! A link's capacity from a scenario (`capacity = { … }`): a mahimahi trace delivers
//! exactly the bytes its opportunities allow to a saturating source, and a schedule
//! of one step is the fixed rate.

mod common;

use std::path::Path;

use common::run;
use cwnd_sim::scenario::{build, load};

/// One link a — b, 5 ms, whose forward capacity is `capacity`, and a UDP source of
/// 1500 B datagrams at 20 Mb/s, for `duration`.
fn saturated(capacity: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[[links]]
between = ["a", "b"]
bandwidth = "100Mbps"
delay = "5ms"
capacity = {{ {capacity}, direction = "forward" }}
[[flows]]
name = "u"
from = "a"
to = "b"
transport = "udp"
source = {{ kind = "cbr", rate = "20Mbps", packet_size = "1500B" }}
"#
    )
}

#[test]
fn a_trace_delivers_exactly_what_its_opportunities_allow() {
    // scenarios/traces/constant_12mbps.mm: one opportunity per ms, at 1, 2, …, 1000
    // ms, looped (period 1000 ms). A 1500 B datagram plus mm-link's 4-byte header
    // fills one opportunity of 1504 B. The source sends one every 1500 × 8 / 20 Mb/s
    // = 0.6 ms from 0, so at every opportunity at least one datagram arrived before
    // it (⌈k / 0.6⌉ ≥ k for k ≥ 1): each opportunity at k ms sends one, which arrives
    // at k + 5 ms. By 1.0025 s the opportunities k = 1 … 997 have been delivered
    // (997 + 5 ≤ 1002.5 < 998 + 5): 997 datagrams, 1 495 500 B.
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/traces");
    let text = saturated(r#"trace = "constant_12mbps.mm""#, "1.0025s");
    let r = build(&load(&text, Some(&traces)).unwrap(), 1).run();
    let u = &r.udp_flow("u").unwrap().summary;
    assert_eq!(u.sink.packets_delivered, 997);
    assert_eq!(u.sink.bytes_delivered, 997 * 1500);
}

#[test]
fn a_schedule_of_one_step_is_the_fixed_rate() {
    // A schedule [(0, 12 Mb/s)] serializes a packet in ⌈bits × 10⁹ / rate⌉ ns, as
    // the fixed rate does, on the dequeue path (docs/links.md): a TCP flow over each
    // delivers the same bytes with the same delays.
    let link = |capacity: &str| {
        format!(
            r#"
duration = "5s"
[[links]]
between = ["a", "b"]
bandwidth = "12Mbps"
delay = "10ms"
{capacity}
[[flows]]
from = "a"
to = "b"
cc = "cubic"
"#
        )
    };
    let fixed = run(&link(""), 1);
    let scheduled = run(&link(r#"capacity = { schedule = [["0s", "12Mbps"]] }"#), 1);
    let (f, s) = (&fixed.flows[0].summary, &scheduled.flows[0].summary);
    assert!(
        f.receiver.bytes_delivered > 5_000_000,
        "{}",
        f.receiver.bytes_delivered
    );
    assert_eq!(f.receiver.bytes_delivered, s.receiver.bytes_delivered);
    // `packets_sent` is not compared: the fast path counts a packet sent when its
    // transmission is scheduled, at its arrival, the dequeue path when it starts.
    let (fl, sl) = (&fixed.links[0].stats, &scheduled.links[0].stats);
    assert_eq!(fl.packets_delivered, sl.packets_delivered);
    assert_eq!(fl.drops_queue, sl.drops_queue);
    assert_eq!(fixed.links[0].queue_delay, scheduled.links[0].queue_delay);
}
