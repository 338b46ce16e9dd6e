//! A run stops when its interrupt flag is set (`world::interrupt`): the flag is looked
//! at every `POLL_EVERY` events, and an unset flag changes nothing.

mod common;

use std::sync::atomic::AtomicBool;

use cwnd_sim::scenario::{build, load, Plan};
use cwnd_sim::world::{Stopped, POLL_EVERY};

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
    assert_eq!(outcome.err(), Some(Stopped::Interrupted { events: 4096 }));
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

#[test]
fn a_run_that_outgrows_its_budget_stops_with_what_it_held() {
    // 30 s of a 100 Mb/s flow in change sampling: about 8 300 data packets a second,
    // each a 56-byte series row at its ACK and a handful of events, so at the first
    // sum (BUDGET_EVERY = 262 144 events, a few seconds in) the series holds far more
    // than 1 KiB and the run stops there. Without a budget it runs to its end.
    let long = load(&common::single_path("100Mbps", 10.0, 500, 30, "", ""), None).unwrap();
    let stop = AtomicBool::new(false);
    let outcome = build(&long, 1)
        .with_memory_budget(1024)
        .run_until_stopped(&stop);
    let Some(Stopped::OverBudget { held, budget, at }) = outcome.err() else {
        panic!("the run was not stopped by its budget");
    };
    assert_eq!(budget, 1024);
    assert!(held > 1024 && held < 64 << 20, "{held}");
    assert!(at.as_secs_f64() < 30.0, "stopped at {at}");
    let message = Stopped::OverBudget { held, budget, at }.to_string();
    assert!(
        message.starts_with("memory_budget: the run's traces held "),
        "{message}"
    );
    assert!(build(&long, 1).run_until_stopped(&stop).is_ok());
}
