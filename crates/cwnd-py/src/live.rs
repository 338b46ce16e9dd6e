//! Live mode's Rust half for Python (`cwnd.live`): creating TUN devices and
//! running the relay (`cwnd_live::relay`) with the GIL released. The front end
//! makes the namespaces and the kernel connections; this module only moves packets.

use std::os::fd::IntoRawFd;

use cwnd_live::relay::{self, Config, FlowPorts, Host};
use cwnd_sim::scenario;
use cwnd_sim::time::SimTime;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{results_to_dict, rows, scenario_error};

/// Packet buffers of the relay: 65 536 × 2 KiB (see `cwnd_live::pool`).
const POOL_SLOTS: usize = 65_536;

/// Creates TUN device `name` in the caller's network namespace; returns its file
/// descriptor (the caller closes it; the device goes with it).
#[pyfunction]
pub fn open_tun(name: &str) -> PyResult<i32> {
    cwnd_live::tun::open(name)
        .map(|fd| fd.into_raw_fd())
        .map_err(|e| PyOSError::new_err(format!("cannot create TUN device {name}: {e}")))
}

/// Relays the scenario's network between TUN devices from `epoch_ns`
/// (CLOCK_MONOTONIC) until its end or until `stop_fd` is readable.
/// `hosts`: (node name, TUN fd, IPv4 address as an integer); `flows`: (flow
/// index, sender address, receiver address, receiver port). Returns the world's
/// results (links, channels, drops) with a `relay` dict of the relay's counts,
/// timing error and per-5-tuple summary (`tuples`: the packets of no flow).
/// `until_stopped`: run past the scenario's end until `stop_fd` (`cwnd shell`).
#[pyfunction]
#[pyo3(signature = (spec_json, seed, hosts, flows, epoch_ns, stop_fd, pin_cpu=None, until_stopped=false))]
#[allow(clippy::too_many_arguments)]
pub fn live_relay<'py>(
    py: Python<'py>,
    spec_json: &str,
    seed: u64,
    hosts: Vec<(String, i32, u32)>,
    flows: Vec<(u32, u32, u32, u16)>,
    epoch_ns: u64,
    stop_fd: i32,
    pin_cpu: Option<usize>,
    until_stopped: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let plan = scenario::load(spec_json, None).map_err(scenario_error)?;
    let world = scenario::build(&plan, seed);
    let mut relay_hosts = Vec::with_capacity(hosts.len());
    for (name, fd, addr) in hosts {
        let Some(node) = world.node_names.iter().position(|n| *n == name) else {
            return Err(scenario_error_text(format!("live: no node named {name:?}")));
        };
        relay_hosts.push(Host {
            node: node as u32,
            tun: fd,
            addr: addr.to_be_bytes(),
        });
    }
    let cfg = Config {
        hosts: relay_hosts,
        flows: flows
            .into_iter()
            .map(|(flow, sender, receiver, port)| FlowPorts {
                flow,
                sender: sender.to_be_bytes(),
                receiver: receiver.to_be_bytes(),
                port,
            })
            .collect(),
        epoch_ns,
        stop: stop_fd,
        pin_cpu,
        pool_slots: POOL_SLOTS,
        end: if until_stopped {
            SimTime::MAX
        } else {
            world.end
        },
    };
    let report = py.detach(move || relay::run(world, &cfg));
    let r = rows::row(py, &report.row())?;
    r.set_item("flows", rows::rows(py, &report.flows)?)?;
    r.set_item("tuples", rows::rows(py, &report.tuples)?)?;
    let d = results_to_dict(py, report.results)?;
    d.set_item("relay", r)?;
    Ok(d)
}

fn scenario_error_text(message: String) -> PyErr {
    crate::ScenarioError::new_err(message)
}
