//! A loaded scenario as a Python object (`cwnd._cwnd.Plan`): the checked
//! `cwnd_sim::scenario::Plan` itself, kept on the Rust side, so that `run` builds
//! its world from it without parsing anything again (issue 28: a run from Python
//! loaded its scenario twice, once to check it and once more from the plan's
//! JSON text on its way to the kernel).
//!
//! Opaque to Python: what it shows is derived on demand and cached — the canonical
//! JSON (`to_json`, docs/scenarios.md "Loading"), its SHA-256 (`fingerprint_key`),
//! the spec as a dict. It pickles as that JSON, loaded again on the other side: a
//! process pool's or a Dask worker's one load of the plan, with no file to read.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use cwnd_sim::scenario;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::scenario_error;

/// A scenario checked into its plan, ready to run with any seed.
#[pyclass(module = "cwnd._cwnd", name = "Plan", frozen)]
pub struct Plan {
    plan: scenario::Plan,
    /// The canonical JSON, written the first time something needs it.
    json: OnceLock<String>,
    /// Its SHA-256, in hex, computed the first time it is asked for.
    key: OnceLock<String>,
}

impl Plan {
    pub fn new(plan: scenario::Plan) -> Plan {
        Plan {
            plan,
            json: OnceLock::new(),
            key: OnceLock::new(),
        }
    }

    /// The kernel's plan, which `run` builds a world from.
    pub fn kernel(&self) -> &scenario::Plan {
        &self.plan
    }

    fn json(&self) -> PyResult<&str> {
        if let Some(text) = self.json.get() {
            return Ok(text);
        }
        let text = self.plan.to_json().map_err(scenario_error)?;
        Ok(self.json.get_or_init(|| text))
    }
}

#[pymethods]
impl Plan {
    /// The plan in canonical JSON: every default written out, the contents of the
    /// files it named in place of their names. `load` gives the same plan back.
    fn to_json(&self) -> PyResult<&str> {
        self.json()
    }

    /// The SHA-256 of the canonical JSON, in hex: equal keys, equal plans, and so
    /// equal fingerprints for equal seeds (a sweep's cache keys hash it).
    #[getter]
    fn fingerprint_key(&self, py: Python<'_>) -> PyResult<&str> {
        if let Some(key) = self.key.get() {
            return Ok(key);
        }
        let text = self.json()?;
        let digest = py
            .import("hashlib")?
            .call_method1("sha256", (text.as_bytes(),))?;
        let key: String = digest.call_method0("hexdigest")?.extract()?;
        Ok(self.key.get_or_init(|| key))
    }

    /// The canonical spec as a new dict (the scenario format's fields, which a
    /// sweep's field paths address); editing it leaves the plan as it is.
    #[getter]
    fn spec<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (self.json()?,))
    }

    /// What the scenario asks for that can never happen in its run
    /// (`Plan::warnings`), in scenario order.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.plan.warnings()
    }

    /// The bytes a run is estimated to hold at its peak: what `memory_budget`
    /// bounds (`cwnd_sim::scenario::budget`).
    #[getter]
    fn memory_estimate(&self) -> u64 {
        self.plan.memory_estimate()
    }

    /// What the plan holds, counted: its name (None when the scenario gives
    /// none), duration in seconds, links, 802.11 channels, 802.16 cells, flows
    /// per transport (by the scenario format's names), traffic generators, the TCP
    /// profiles its TCP flows and generators run (in order of first use) and the
    /// memory estimate.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let spec = self.plan.spec();
        let mut flows = BTreeMap::<String, usize>::new();
        let mut tcp_profiles = Vec::<String>::new();
        for flow in &spec.flows {
            let name = format_name(flow.transport);
            if name == "tcp" {
                tcp_profiles.push(format_name(
                    flow.tcp.profile.or(spec.tcp.profile).unwrap_or_default(),
                ));
            }
            *flows.entry(name).or_default() += 1;
        }
        for generator in &spec.generators {
            tcp_profiles.push(format_name(
                generator
                    .tcp
                    .profile
                    .or(spec.tcp.profile)
                    .unwrap_or_default(),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        tcp_profiles.retain(|name| seen.insert(name.clone()));
        let d = PyDict::new(py);
        d.set_item("name", spec.name.as_deref())?;
        d.set_item("duration", spec.duration.0.as_secs_f64())?;
        d.set_item("links", spec.links.len())?;
        d.set_item("wireless", spec.wireless.len())?;
        d.set_item("wimax", spec.wimax.len())?;
        d.set_item("flows", flows)?;
        d.set_item("generators", spec.generators.len())?;
        d.set_item("tcp_profiles", tcp_profiles)?;
        d.set_item("memory_estimate", self.plan.memory_estimate())?;
        Ok(d)
    }

    /// Pickles as `load(canonical JSON)`: the receiving process loads it once.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let load = py.import("cwnd._cwnd")?.getattr("load")?;
        (load, (self.json()?,)).into_pyobject(py)
    }
}

/// A spec value's own name in the scenario format ("tcp", "linux", …).
fn format_name(value: impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        other => format!("{other:?}"),
    }
}
