//! The relay end to end without root: each host's "TUN device" is one end of a
//! SOCK_SEQPACKET socket pair, which keeps packet boundaries as a TUN device does;
//! the test plays the kernel on the other end.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

use cwnd_live::clock::monotonic_ns;
use cwnd_live::relay::{self, Config, FlowPorts, Host};
use cwnd_sim::scenario::{build, load, Plan};

const H1: [u8; 4] = [10, 9, 9, 1];
const H2: [u8; 4] = [10, 9, 9, 2];

fn seqpacket_pair() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: a valid out-array of two descriptors.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    assert_eq!(r, 0);
    // SAFETY: both descriptors were just created and are owned here only.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

fn nonblocking(fd: &OwnedFd) {
    // SAFETY: fcntl on a valid descriptor.
    unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
}

/// A 1500-byte IPv4/TCP data segment from h1:40000 to h2:5001.
fn data_segment(tag: u8) -> Vec<u8> {
    let mut p = vec![tag; 1500];
    p[0] = 0x45;
    p[2..4].copy_from_slice(&1500u16.to_be_bytes());
    p[6..8].fill(0);
    p[9] = 6;
    p[12..16].copy_from_slice(&H1);
    p[16..20].copy_from_slice(&H2);
    p[20..22].copy_from_slice(&40000u16.to_be_bytes());
    p[22..24].copy_from_slice(&5001u16.to_be_bytes());
    p[32] = 5 << 4;
    p
}

/// h1 — 10 Mb/s, 20 ms — h2 with one flow, for `duration`.
fn one_link(name: &str, duration: &str) -> Plan {
    let text = format!(
        "name = \"{name}\"\nduration = \"{duration}\"\n\
         [[links]]\nbetween = [\"h1\", \"h2\"]\nbandwidth = \"10Mbps\"\ndelay = \"20ms\"\n\
         [[flows]]\nfrom = \"h1\"\nto = \"h2\"\n"
    );
    load(&text, None).unwrap()
}

#[test]
fn a_packet_crosses_the_modelled_link_on_time_and_intact() {
    let plan = one_link("relay", "300ms");
    let world = build(&plan, 1);
    let (h1_relay, h1_kernel) = seqpacket_pair();
    let (h2_relay, h2_kernel) = seqpacket_pair();
    let (stop_read, _stop_write) = seqpacket_pair();
    nonblocking(&h1_relay);
    nonblocking(&h2_relay);
    let epoch = monotonic_ns() + 20_000_000;
    let cfg = Config {
        hosts: vec![
            Host {
                node: 0,
                tun: h1_relay.as_raw_fd(),
                addr: H1,
            },
            Host {
                node: 1,
                tun: h2_relay.as_raw_fd(),
                addr: H2,
            },
        ],
        flows: vec![FlowPorts {
            flow: 0,
            sender: H1,
            receiver: H2,
            port: 5001,
        }],
        epoch_ns: epoch,
        stop: stop_read.as_raw_fd(),
        pin_cpu: None,
        pool_slots: 64,
        end: world.end,
    };
    let relay = std::thread::spawn(move || relay::run(world, &cfg));
    // Send at 50 ms model time: the flow's packet, one of no flow (another port:
    // relayed under its 5-tuple) and one to an address of no host (not relayed).
    while monotonic_ns() < epoch + 50_000_000 {
        std::thread::sleep(Duration::from_micros(200));
    }
    let sent_at = monotonic_ns();
    let mut other_port = data_segment(7);
    other_port[22..24].copy_from_slice(&9999u16.to_be_bytes());
    let mut nowhere = data_segment(8);
    nowhere[16..20].copy_from_slice(&[10, 9, 9, 3]);
    for p in [data_segment(1), other_port.clone(), nowhere] {
        // SAFETY: a valid buffer and descriptor.
        let n = unsafe { libc::write(h1_kernel.as_raw_fd(), p.as_ptr().cast(), p.len()) };
        assert_eq!(n, 1500);
    }
    let mut buf = vec![0u8; 2048];
    let mut read_one = || {
        // SAFETY: a valid buffer; blocking read of one packet.
        let n = unsafe { libc::read(h2_kernel.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        buf[..n as usize].to_vec()
    };
    assert_eq!(read_one(), data_segment(1));
    let took = monotonic_ns() - sent_at;
    // 1500 B at 10 Mb/s = 1.2 ms, + 20 ms: 21.2 ms after it was read, at the earliest.
    assert!(took >= 21_200_000, "arrived after {took} ns");
    assert_eq!(read_one(), other_port);
    let report = relay.join().unwrap();
    assert!(!report.stopped);
    assert_eq!(report.unmatched, 1);
    assert_eq!(report.flows[0].injected_packets, 1);
    assert_eq!(report.flows[0].delivered_bytes, 1500);
    assert_eq!(report.lateness.samples(), 2);
    assert_eq!(report.delivered_bytes, 3000);
    // Carried over the active span, from the first read to the last write: the
    // second packet leaves 22.4 ms of model time after the first was injected, at
    // the earliest; the upper bound is a hang detector, as below.
    let span = report.active_seconds;
    assert!((0.0224..0.0624).contains(&span), "active {span} s");
    assert_eq!(report.carried_bps(), 3000.0 * 8.0 / span);
    let t = &report.tuples[..];
    assert_eq!(t.len(), 1);
    assert_eq!(
        (t[0].dst.as_str(), t[0].dport, t[0].packets_delivered),
        ("10.9.9.2", 9999, 1)
    );
    // Queued behind the flow's packet, read at most a few µs after it: its
    // transmission 1.2 ms after the first's, + 1.2 + 20 ms, less that gap.
    assert!(
        (0.0212..=0.0224).contains(&t[0].delay_max),
        "{}",
        t[0].delay_max
    );
    // A hang detector only (2 shared cores); precision is measured in BENCHMARKS.md.
    assert!(report.lateness.max_ns() < 20_000_000);
    assert!((report.seconds - 0.3).abs() < 1e-9);
}

#[test]
fn a_readable_stop_descriptor_ends_the_run_early() {
    let plan = one_link("stop", "60s");
    let world = build(&plan, 1);
    let (stop_read, stop_write) = seqpacket_pair();
    let cfg = Config {
        hosts: vec![],
        flows: vec![],
        epoch_ns: monotonic_ns(),
        stop: stop_read.as_raw_fd(),
        pin_cpu: None,
        pool_slots: 1,
        end: world.end,
    };
    let relay = std::thread::spawn(move || relay::run(world, &cfg));
    std::thread::sleep(Duration::from_millis(50));
    // SAFETY: a valid one-byte buffer and descriptor.
    unsafe { libc::write(stop_write.as_raw_fd(), [1u8].as_ptr().cast(), 1) };
    let report = relay.join().unwrap();
    assert!(report.stopped);
    assert!(report.seconds < 10.0, "ran {} s", report.seconds);
}
