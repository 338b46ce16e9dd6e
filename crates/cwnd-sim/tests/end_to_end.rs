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

/// Completion time (s) of a 400-segment transfer over a 10 Mb/s, 100 ms RTT path
/// with a 32-segment receive window, losing the listed data packets.
fn transfer_time(cc: &str, drops: &str) -> f64 {
    transfer_time_with(cc, drops, "")
}

/// The same, with extra TCP options (e.g. `"sack = true, "`).
fn transfer_time_with(cc: &str, drops: &str, tcp: &str) -> f64 {
    let flow = format!(
        "cc = \"{cc}\"\napp = {{ kind = \"transfer\", segments = 400 }}\ntcp = {{ {tcp}rwnd = \"{}B\" }}",
        32 * 1460
    );
    let impair = format!(
        "impairments = [{{ kind = \"drop_list\", packets = {drops}, direction = \"forward\", applies_to = \"data\" }}]"
    );
    let r = run(&single_path("10Mbps", 50.0, 200, 30, &flow, &impair), 1);
    let s = &r.flows[0].summary;
    s.completion_time.expect("transfer completes").as_secs_f64()
}

#[test]
fn one_loss_fast_recovery_beats_tahoe_slow_start() {
    let (tahoe, reno, newreno) = (
        transfer_time("tahoe", "[100]"),
        transfer_time("reno", "[100]"),
        transfer_time("newreno", "[100]"),
    );
    println!("one loss: tahoe {tahoe:.3} s, reno {reno:.3} s, newreno {newreno:.3} s");
    assert!(tahoe > reno, "tahoe {tahoe} vs reno {reno}");
    // With one loss NewReno and Reno are the same algorithm.
    assert_eq!(reno, newreno);
}

#[test]
fn several_losses_in_one_window_newreno_recovers_reno_times_out() {
    // Fall & Floyd (1996), "Simulation-based comparisons of Tahoe, Reno and SACK
    // TCP": with several drops in one window Reno must wait for the
    // retransmission timer, Tahoe slow-starts (go-back-N), NewReno retransmits
    // one hole per RTT without a timeout.
    let drops = "[100, 103, 106]";
    let (tahoe, reno, newreno) = (
        transfer_time("tahoe", drops),
        transfer_time("reno", drops),
        transfer_time("newreno", drops),
    );
    println!("three losses: tahoe {tahoe:.3} s, reno {reno:.3} s, newreno {newreno:.3} s");
    assert!(reno > newreno, "reno {reno} vs newreno {newreno}");
    assert!(reno > tahoe, "reno {reno} vs tahoe {tahoe}");
    // Reno's extra time is about one RTO (1 s) spent idle.
    assert!(reno - newreno > 0.8, "reno {reno} vs newreno {newreno}");
}

#[test]
fn same_seed_same_run_different_seed_different_draws() {
    let s = single_path(
        "10Mbps",
        25.0,
        50,
        20,
        "cc = \"newreno\"",
        "impairments = [{ kind = \"bernoulli\", p = 0.01 }]",
    );
    let (a, b, c) = (run(&s, 7), run(&s, 7), run(&s, 8));
    assert_eq!(a.fingerprint, b.fingerprint);
    assert_eq!(a.flows[0].series.cwnd, b.flows[0].series.cwnd);
    assert_eq!(a.flows[0].series.time, b.flows[0].series.time);
    assert_ne!(a.fingerprint, c.fingerprint);
    assert_ne!(
        a.flows[0].summary.drops_impairment,
        c.flows[0].summary.drops_impairment
    );
}

#[test]
fn sack_recovers_several_losses_faster_than_newreno() {
    // The three-drop window above: NewReno repairs one hole per RTT, SACK (RFC 6675)
    // all three in the first RTT of recovery.
    let drops = "[100, 103, 106]";
    let newreno = transfer_time("newreno", drops);
    let sack = transfer_time_with("newreno", drops, "sack = true, ");
    println!("three losses: newreno {newreno:.3} s, sack {sack:.3} s");
    assert!(sack < newreno, "sack {sack} vs newreno {newreno}");
}

#[test]
fn dsack_undo_changes_nothing_without_reordering() {
    // With loss but no reordering no retransmission is spurious, so turning D-SACK
    // undo on must leave the run identical (same event fingerprint).
    let flow = |undo: bool| {
        format!("cc = \"newreno\"\ntcp = {{ sack = true, dsack = true, dsack_undo = {undo} }}")
    };
    let impair = "impairments = [{ kind = \"bernoulli\", p = 0.01, direction = \"forward\", applies_to = \"data\" }]";
    let off = run(
        &single_path("10Mbps", 24.0, 50, 60, &flow(false), impair),
        3,
    );
    let on = run(&single_path("10Mbps", 24.0, 50, 60, &flow(true), impair), 3);
    assert!(off.flows[0].summary.sender.fast_retransmits > 10);
    assert_eq!(on.flows[0].summary.sender.spurious_undone, 0);
    assert_eq!(off.fingerprint, on.fingerprint);
}
