//! TCP connection set-up (`tcp.handshake = true`) on one 10 Mb/s, 50 ms link, with
//! hand-computed times: a SYN or SYN-ACK of 40 B takes 40 · 8 / 10e6 = 32 µs to
//! send, so an answered SYN takes 2 · (50 + 0.032) = 100.064 ms; a lost SYN or
//! SYN-ACK costs the initial RTO (1 s) and data then starts with an RTO of 3 s
//! (RFC 6298 §2.1, §5.7).

mod common;

use common::run;
use cwnd_sim::results::RunResults;
use cwnd_sim::time::SimTime;

/// One flow a → b of one 1460 B segment, opening with a handshake; `stages` on
/// the link, `rto` its RTO table.
fn scenario(stages: &str, rto: &str) -> String {
    format!(
        r#"
duration = "10s"
tcp.profile = "rfc"
[[links]]
between = ["a", "b"]
bandwidth = "10Mbps"
delay = "50ms"
impairments = [{stages}]
[[flows]]
name = "f"
from = "a"
to = "b"
app = {{ kind = "transfer", segments = 1 }}
tcp = {{ handshake = true, rto = {{ {rto} }} }}
[trace]
segments = true
"#
    )
}

fn ns(r: &RunResults) -> (u64, u64) {
    let s = &r.flow("f").unwrap().summary;
    (s.setup_time.unwrap().as_nanos(), s.syn_retransmissions)
}

/// The RTO recorded with the first series row (when data starts).
fn rto_at_open(r: &RunResults) -> SimTime {
    r.flow("f").unwrap().series.rto[0]
}

#[test]
fn an_answered_syn_costs_one_rtt_and_gives_the_first_rtt_sample() {
    // RTT 100.064 ms: SRTT = 100.064, RTTVAR = 50.032, RTO = 100.064 + 4 · 50.032
    // = 300.192 ms (above a 200 ms minimum).
    let r = run(&scenario("", "min = \"200ms\""), 1);
    assert_eq!(ns(&r), (100_064_000, 0));
    assert_eq!(rto_at_open(&r), SimTime::from_micros(300_192));
    // The data segment leaves when the SYN-ACK arrives.
    let seg = r.flow("f").unwrap().segments.as_ref().unwrap();
    assert_eq!(seg.time[0], SimTime::from_micros(100_064));
}

#[test]
fn a_lost_syn_costs_the_initial_rto_and_data_starts_with_an_rto_of_3_s() {
    // The first SYN is dropped; the second leaves at 1 s: set-up 1.100064 s. Karn:
    // no sample; RTO 3 s.
    let drop_syn = "{ kind = \"drop_list\", packets = [1], direction = \"forward\" }";
    let r = run(&scenario(drop_syn, ""), 1);
    assert_eq!(ns(&r), (1_100_064_000, 1));
    assert_eq!(rto_at_open(&r), SimTime::from_secs(3));
    assert_eq!(r.flow("f").unwrap().summary.drops_impairment, 1);
}

#[test]
fn a_lost_syn_ack_costs_the_same() {
    // The SYN arrives; its SYN-ACK is dropped; the SYN sent again at 1 s is answered.
    let drop_syn_ack = "{ kind = \"drop_list\", packets = [1], direction = \"reverse\" }";
    let r = run(&scenario(drop_syn_ack, ""), 1);
    assert_eq!(ns(&r), (1_100_064_000, 1));
    assert_eq!(rto_at_open(&r), SimTime::from_secs(3));
}

#[test]
fn after_a_lost_syn_a_lost_data_segment_waits_3_s() {
    // Forward packets: 1 the SYN (dropped), 2 the SYN again, 3 the data (dropped).
    // Data at 1.100064 s; no duplicate ACK can come, so the RTO of 3 s expires at
    // 4.100064 s and the segment is sent again (1 s without the lost SYN).
    let drops = "{ kind = \"drop_list\", packets = [1, 3], direction = \"forward\" }";
    let r = run(&scenario(drops, ""), 1);
    let seg = r.flow("f").unwrap().segments.as_ref().unwrap();
    assert_eq!(
        seg.time,
        vec![
            SimTime::from_micros(1_100_064),
            SimTime::from_micros(4_100_064)
        ]
    );
    assert_eq!(seg.retransmission, vec![false, true]);
}

#[test]
fn without_the_option_no_syn_is_sent_and_no_set_up_time_is_reported() {
    let text = scenario("", "").replace("handshake = true, ", "");
    let r = run(&text, 1);
    let s = &r.flow("f").unwrap().summary;
    assert_eq!((s.setup_time, s.syn_retransmissions), (None, 0));
    let seg = r.flow("f").unwrap().segments.as_ref().unwrap();
    assert_eq!(seg.time[0], SimTime::ZERO);
}
