//! The controllers' internal numbers over time (`trace.cc_metrics`), in long form:
//! one row per sample and number, as `CongestionControl::info` names them. Sampled
//! with the flow's series rows (at each change, or every interval), so the two
//! tables share their times.

use crate::time::SimTime;
use crate::transport::tcp::cc::CongestionControl;
use crate::transport::tcp::tcb::Tcb;

#[derive(Clone, Debug, Default)]
pub struct CcMetricsTrace {
    pub time: Vec<SimTime>,
    pub name: Vec<&'static str>,
    pub value: Vec<f64>,
    /// Reused buffer `info` fills at each sample.
    scratch: Vec<(&'static str, f64)>,
}

impl CcMetricsTrace {
    /// Bytes of the columns' storage (time: 8; name: 16; value: 8).
    pub fn bytes_held(&self) -> u64 {
        self.time.capacity() as u64 * 32
    }

    /// Appends what the controller reports now.
    pub fn sample(&mut self, now: SimTime, cc: &dyn CongestionControl, tcb: &Tcb) {
        self.scratch.clear();
        cc.info(tcb, &mut self.scratch);
        for &(name, value) in &self.scratch {
            self.time.push(now);
            self.name.push(name);
            self.value.push(value);
        }
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}
