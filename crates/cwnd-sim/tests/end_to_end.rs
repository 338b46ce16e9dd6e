//! Whole-network checks of the TCP core.

mod common;

use common::{goodput_between, run, single_path};

#[test]
fn lossless_flow_fills_the_bottleneck_after_headers() {
    // 10 Mb/s, 50 ms RTT: BDP = 10e6 · 0.05 / 8 / 1500 ≈ 42 packets. A receive
    // window of 60 segments keeps the pipe full and never overflows the
    // 100-packet queue, so the path is truly lossless.
    for cc in ["tahoe", "reno", "newreno"] {
        let flow = format!("cc = \"{cc}\"\ntcp = {{ rwnd = \"{}B\" }}", 60 * 1460);
        let s = single_path("10Mbps", 25.0, 100, 20, &flow, "");
        let r = run(&s, 1);
        let f = &r.flows[0];
        assert_eq!(
            f.summary.drops_queue + f.summary.drops_impairment,
            0,
            "{cc}"
        );
        // Payload share of each 1500-byte packet: 1460 / 1500.
        let capacity = 10e6 * 1460.0 / 1500.0;
        let g = goodput_between(&r, f, 2.0, 20.0);
        assert!(
            g >= 0.95 * capacity && g <= capacity * 1.0001,
            "{cc}: goodput {:.4} Mb/s vs capacity {:.4} Mb/s",
            g / 1e6,
            capacity / 1e6
        );
    }
}
