//! Whole-network checks of the socket buffers a Linux application sets
//! (`transport/tcp/socket_options.rs`, `send_buffer.rs`), with bounds worked out
//! by hand.

mod common;

use common::{goodput_between, run, single_path};

/// Round-trip time of a 1500 B packet and its 40 B ACK on `single_path` with a
/// 10 Mb/s bottleneck and 50 ms one way: 100 ms of propagation, 1500 B at 1 Gb/s
/// (12 µs) and 10 Mb/s (1.2 ms), 40 B back at 10 Mb/s (32 µs) and 1 Gb/s
/// (0.32 µs): 101.24432 ms.
const RTT_S: f64 = 0.100 + 12e-6 + 1.2e-3 + 32e-6 + 0.32e-6;

fn goodput(tcp: &str) -> f64 {
    let flow = format!("tcp = {{ {tcp} }}");
    let r = run(&single_path("10Mbps", 50.0, 100, 20, &flow, ""), 1);
    goodput_between(&r, &r.flows[0], 5.0, 20.0)
}

#[test]
fn a_2kib_receive_buffer_allows_two_segments_per_round_trip() {
    // SO_RCVBUF 2048: sk_rcvbuf 4096, tcp_win_from_space 3072, one segment
    // reserved but at least two: a 2920 B window. Each ACK (no delayed ACKs)
    // lets one segment go, so 2920 B per round trip: 2920 × 8 / 0.10124432 s
    // = 230.73 kb/s. (Without the doubling the window would be 1536 B, no full
    // segment; with the RFC's whole buffer, 2048 B, one segment per RTT.)
    let expected = 2920.0 * 8.0 / RTT_S;
    let g = goodput("rcvbuf = \"2KiB\"");
    assert!(
        (g - expected).abs() <= 0.01 * expected,
        "goodput {g:.0} b/s, expected {expected:.0}"
    );
}

#[test]
fn a_4kib_send_buffer_holds_six_segments() {
    // SO_SNDBUF 4096: sk_sndbuf 8192. New segments start while the queue is
    // below 8192 B: at 0, 1460, …, 7300, so at most 6 segments (8760 B) are
    // unacknowledged + unsent. The writer sleeps until the queue is down to
    // two thirds (free ≥ queued / 2: queued ≤ 5461 B, i.e. 3 segments), then
    // refills: 3 segments go out after every third ACK. Upper bound: 8760 B per
    // round trip, 692.2 kb/s; the refill waits for the third ACK of a batch of
    // three back-to-back segments, 2 × 1.2 ms after the first, so at least
    // 8760 B per (RTT + 2.4 ms): 676.2 kb/s.
    let upper = 8760.0 * 8.0 / RTT_S;
    let lower = 8760.0 * 8.0 / (RTT_S + 2.4e-3);
    let g = goodput("sndbuf = \"4KiB\"");
    assert!(
        g <= upper && g >= 0.99 * lower,
        "goodput {g:.0} b/s, expected {lower:.0} ..= {upper:.0}"
    );
}

/// The wimax study's LOS SNR 30 preset for 10 s, Westwood+, with `tcp` over the
/// "rfc" profile (no timestamps: full segments of 1460 B, as the bounds take them).
fn wimax_goodput(tcp: &str) -> f64 {
    let preset = include_str!("../../../scenarios/wimax_los_snr30.toml")
        .replace("duration = \"60s\"", "duration = \"10s\"")
        .replace(
            "tcp = { rwnd = \"512KB\" }",
            &format!("tcp = {{ profile = \"rfc\", {tcp} }}"),
        );
    let r = run(&preset, 1);
    goodput_between(&r, &r.flows[0], 2.0, 10.0)
}

const WRITE_SIZES: [u32; 6] = [64, 256, 1024, 4096, 16384, 65536];

#[test]
fn with_512kib_buffers_the_write_size_does_not_matter() {
    // A writer that is never slow refills a 1 MiB (doubled) queue long before it
    // runs dry, so segments are full whatever the write size: the goodput is
    // that of all data at once (25.2 Mb/s here, the radio's limit).
    let all_at_once = wimax_goodput("rcvbuf = \"512KiB\"");
    for w in WRITE_SIZES {
        let g = wimax_goodput(&format!(
            "sndbuf = \"512KiB\", rcvbuf = \"512KiB\", write_size = \"{w}B\""
        ));
        assert!(
            (g - all_at_once).abs() <= 0.001 * all_at_once,
            "{w} B writes: {g:.0} b/s against {all_at_once:.0}"
        );
    }
}

#[test]
fn with_2kib_buffers_goodput_rises_with_the_write_size_to_the_window() {
    // SO_RCVBUF 2 KiB: a 2920 B window (see above). The preset's round trip is
    // at least two 5 ms frames (the data in one downlink subframe, its ACK in an
    // uplink burst granted a frame after its request), so over the 8 s measured
    // at most 800 + 1 windows: 2920 × 8 × 801 / 8 s = 2.339 Mb/s. More than
    // 2 KB per round trip (1.638 Mb/s) because Linux doubles SO_RCVBUF. Writes
    // below the MSS make short segments (one per writer wake-up, Nagle) and
    // cost some of it; 64 KiB writes reach the window.
    let bound = 2920.0 * 8.0 * 801.0 / 8.0;
    let mut previous = 0.0;
    for w in WRITE_SIZES {
        let g = wimax_goodput(&format!(
            "sndbuf = \"2KiB\", rcvbuf = \"2KiB\", write_size = \"{w}B\""
        ));
        assert!(g <= bound, "{w} B writes: {g:.0} b/s above {bound:.0}");
        assert!(
            g >= 0.995 * previous,
            "{w} B writes: {g:.0} b/s < {previous:.0}"
        );
        previous = g;
    }
    assert!(previous >= 0.98 * bound, "64 KiB writes: {previous:.0} b/s");
}
