//! A link's capacity that moves, as a scenario writes it (`capacity = { … }`): a
//! mahimahi delivery-opportunity trace (`trace = "FILE.mm"`, read once when the
//! scenario is loaded into `trace_ms`, its canonical form) or a schedule of rates
//! (`schedule = [["0s", "10Mbps"], ["5s", "2Mbps"]]`), on one direction of the link
//! or both (`direction`, default both). The semantics are the kernel's
//! (`net/capacity/`, docs/links.md). A direction without one sends at `bandwidth`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::super::files::ScenarioFile;
use super::super::impairment::Direction;
use crate::net::capacity::{parse_mm_trace, Capacity, DeliveryTrace, RateSchedule, TraceError};
use crate::scenario::error::ScenarioError;
use crate::units::{Duration, Rate};

/// `capacity = { trace = … }` or `{ schedule = … }`, and the directions it applies to.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CapacitySpec {
    /// A trace file in mm-link's format, relative to the scenario's folder; replaced
    /// by `trace_ms` when the scenario is loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// The trace's timestamps (ms), one per delivery opportunity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_ms: Option<Vec<u64>>,
    /// Steps `[time, rate]`, the first at 0 s, in increasing time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Vec<(Duration, Rate)>>,
    #[serde(default)]
    pub direction: Direction,
}

impl CapacitySpec {
    /// Reads the trace file `trace` names (relative to `base` when given) into
    /// `trace_ms`; `Err((field, message))` for a file that cannot be read or is not a
    /// trace (its line and column, never its text).
    pub fn inline_trace(&mut self, base: Option<&Path>) -> Result<(), (String, String)> {
        let Some(name) = self.trace.take() else {
            return Ok(());
        };
        if self.trace_ms.is_some() {
            return Err((
                "trace".into(),
                "give `trace` or `trace_ms`, not both".into(),
            ));
        }
        let file = ScenarioFile::read(&name, base).map_err(|m| ("trace".to_string(), m))?;
        let lines: Vec<&str> = file.lines().map(|l| l.text).collect();
        let fault = |e: TraceError| match e.line {
            0 => format!("{}: {e}", file.shown_name()),
            _ => format!("{} {e}", file.shown_name()),
        };
        parse_mm_trace(&lines.join("\n")).map_err(|e| ("trace".to_string(), fault(e)))?;
        // Every line is a timestamp: the parser accepted them all.
        self.trace_ms = Some(lines.iter().filter_map(|l| l.parse().ok()).collect());
        Ok(())
    }

    /// The capacity of each direction, forward then reverse, checked: exactly one of
    /// a trace and a schedule. `path` is `links[i].capacity`.
    pub fn check(&self, path: &str) -> Result<[Capacity; 2], ScenarioError> {
        let at =
            |field: &str, message: String| ScenarioError::new(format!("{path}.{field}"), message);
        let capacity = match (&self.trace_ms, &self.schedule) {
            (Some(ms), None) => Capacity::Trace(trace_of(ms).map_err(|(field, m)| at(&field, m))?),
            (None, Some(steps)) => {
                let steps = steps.iter().map(|&(t, r)| (t.0, r.0)).collect();
                Capacity::Schedule(RateSchedule::new(steps).map_err(|(field, m)| at(&field, m))?)
            }
            _ => {
                return Err(ScenarioError::new(
                    path,
                    "give exactly one of `trace` (a file) or `schedule`",
                ))
            }
        };
        Ok(match self.direction {
            Direction::Both => [capacity.clone(), capacity],
            Direction::Forward => [capacity, Capacity::Fixed],
            Direction::Reverse => [Capacity::Fixed, capacity],
        })
    }
}

/// The trace of timestamps `ms`, under mm-link's rules (`net/capacity/mm_trace.rs`);
/// a fault is placed at its index, `trace_ms[k]`.
fn trace_of(ms: &[u64]) -> Result<DeliveryTrace, (String, String)> {
    let text: Vec<String> = ms.iter().map(u64::to_string).collect();
    parse_mm_trace(&text.join("\n")).map_err(|e| match e.line {
        0 => ("trace_ms".into(), e.problem.into()),
        line => (format!("trace_ms[{}]", line - 1), e.problem.into()),
    })
}

#[cfg(test)]
mod tests {
    use crate::scenario::{build, load};

    /// One link a–b whose capacity table is `capacity = { table }`.
    fn scenario(table: &str) -> String {
        super::super::one_link(&format!("capacity = {{ {table} }}"))
    }

    fn error_of(capacity: &str) -> String {
        load(&scenario(capacity), None).unwrap_err().to_string()
    }

    #[test]
    fn a_trace_file_is_read_once_into_the_canonical_spec() {
        let dir = std::env::temp_dir().join(format!("cwnd-capacity-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("up.mm"), "1\n1\n3\n").unwrap();
        std::fs::write(dir.join("down.mm"), "2\n1\n").unwrap();
        let plan = load(&scenario(r#"trace = "up.mm""#), Some(&dir)).unwrap();
        let bad = load(&scenario(r#"trace = "down.mm""#), Some(&dir)).unwrap_err();
        let missing = load(&scenario(r#"trace = "none.mm""#), Some(&dir)).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        let json = plan.to_json().unwrap();
        assert!(!json.contains("up.mm"), "{json}");
        assert!(
            json.contains(r#""capacity":{"trace_ms":[1,1,3],"direction":"both"}"#),
            "{json}"
        );
        let again = load(&json, None).unwrap();
        assert_eq!(
            build(&again, 1).run().fingerprint,
            build(&plan, 1).run().fingerprint
        );
        assert_eq!(
            bad.to_string(),
            "links[0].capacity.trace: \"down.mm\" line 2, column 1: a timestamp smaller than \
             the one before; timestamps must never decrease"
        );
        assert!(missing
            .to_string()
            .starts_with("links[0].capacity.trace: cannot read \"none.mm\""));
    }

    #[test]
    fn bad_capacities_are_refused_naming_the_field() {
        let cases = [
            (
                "trace_ms = []",
                "links[0].capacity.trace_ms: the trace has no timestamps; give at least one",
            ),
            (
                "trace_ms = [5, 3]",
                "links[0].capacity.trace_ms[1]: a timestamp smaller than the one before; \
                 timestamps must never decrease",
            ),
            (
                "trace_ms = [0, 0]",
                "links[0].capacity.trace_ms[1]: the last timestamp is 0 ms; a trace must last \
                 more than 0 ms",
            ),
            (
                r#"trace_ms = [1], schedule = [["0s", "1Mbps"]]"#,
                "links[0].capacity: give exactly one of `trace` (a file) or `schedule`",
            ),
            (
                "schedule = []",
                "links[0].capacity.schedule: is empty; give at least one step [time, rate], \
                 the first at 0 s",
            ),
        ];
        for (capacity, message) in cases {
            assert_eq!(error_of(capacity), message, "{capacity}");
        }
        assert!(error_of(r#"schedule = [["1s", "1Mbps"]]"#)
            .starts_with("links[0].capacity.schedule[0]: starts at "));
        assert!(error_of(r#"trace_ms = [1], direction = "up""#)
            .starts_with("links[0].capacity.direction: "));
    }
}
