//! A run stops when its interrupt flag is set (`world::interrupt`): the flag is looked
//! at every `POLL_EVERY` events, and an unset flag changes nothing.

mod common;

use std::sync::atomic::AtomicBool;

use cwnd_sim::scenario::{build, load, Plan};
use cwnd_sim::world::{Interrupted, POLL_EVERY};

/// One 10 Mb/s flow for 5 s: far more than 4096 events (about 4 200 data packets a
/// second, each an arrival at two hops plus its ACK's).
fn busy() -> Plan {
    load(&common::single_path("10Mbps", 10.0, 50, 5, "", ""), None).unwrap()
}

#[test]
fn a_set_flag_stops_the_run_at_the_first_look() {
    let stop = AtomicBool::new(true);
    let outcome = build(&busy(), 1).run_until_stopped(&stop);
    // The flag is first looked at after event number POLL_EVERY = 4096.
    assert_eq!(outcome.err(), Some(Interrupted { events: 4096 }));
    assert_eq!(POLL_EVERY, 4096);
}

#[test]
fn an_unset_flag_changes_nothing() {
    let stop = AtomicBool::new(false);
    let watched = build(&busy(), 1).run_until_stopped(&stop).unwrap();
    let plain = build(&busy(), 1).run();
    assert!(plain.events > 2 * POLL_EVERY, "{} events", plain.events);
    assert_eq!(watched.fingerprint, plain.fingerprint);
    assert_eq!(watched.events, plain.events);
}
