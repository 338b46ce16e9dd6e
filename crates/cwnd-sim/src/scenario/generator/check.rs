//! The generators checked into their plans: names, nodes, the link whose
//! bandwidth their load is a fraction of (at most `MAX_LINK_LOAD` on a link),
//! times, sizes, the number of connections a run can number, and their
//! connections' TCP (`tcp::check`, as a flow's).

use std::collections::HashMap;

use super::spec::{GeneratorKind, GeneratorModel, GeneratorPlan, GeneratorSpec};
use crate::packet::NodeId;
use crate::scenario::checks::{known_node, NodeIds};
use crate::scenario::error::ScenarioError;
use crate::scenario::spec::Scenario;
use crate::scenario::tcp;
use crate::time::SimTime;
use crate::units::Size;
use crate::world::{MAX_CONNECTIONS, MAX_GENERATORS};

/// Largest offered load a link may be given by its generators together: above the
/// capacity, connections arrive faster than the link can finish them and pile up
/// without bound (an unstable queue: no steady state, memory growing with the run).
pub const MAX_LINK_LOAD: f64 = 1.0;

impl Scenario {
    pub fn generator_name(&self, g: usize) -> String {
        let s = &self.generators[g];
        s.name.clone().unwrap_or_else(|| format!("generators[{g}]"))
    }

    /// Checks the generators (nodes, link, load, sizes, TCP options) into their
    /// plans.
    pub(in crate::scenario) fn check_generators(
        &self,
        nodes: &NodeIds,
    ) -> Result<Vec<GeneratorPlan>, ScenarioError> {
        if self.generators.len() > MAX_GENERATORS {
            return Err(ScenarioError::new(
                "generators",
                format!(
                    "{} generators; at most {MAX_GENERATORS}",
                    self.generators.len()
                ),
            ));
        }
        let mut names = HashMap::new();
        let mut link_loads: HashMap<String, f64> = HashMap::new();
        let mut out = Vec::with_capacity(self.generators.len());
        for g in 0..self.generators.len() {
            if let Some(prev) = names.insert(self.generator_name(g), g) {
                return Err(ScenarioError::new(
                    format!("generators[{g}].name"),
                    format!(
                        "\"{}\" is also the name of generators[{prev}]; generator names must be unique",
                        self.generator_name(g)
                    ),
                ));
            }
            out.push(self.check_generator(g, nodes, &mut link_loads)?);
        }
        Ok(out)
    }

    /// Generator `g` into its plan; `link_loads` sums the loads of the generators
    /// before it on each link.
    fn check_generator(
        &self,
        g: usize,
        nodes: &NodeIds,
        link_loads: &mut HashMap<String, f64>,
    ) -> Result<GeneratorPlan, ScenarioError> {
        let s = &self.generators[g];
        let at = |field: &str| format!("generators[{g}].{field}");
        known_node(nodes, &at("from"), &s.from)?;
        known_node(nodes, &at("to"), &s.to)?;
        if s.from == s.to {
            return Err(ScenarioError::new(
                at("to"),
                format!("\"{}\" is also `from`; a connection needs two nodes", s.to),
            ));
        }
        let link = self.generator_link(g)?;
        check_load(g, s, link_loads)?;
        self.check_generator_times(g)?;
        self.check_generator_sizes(g)?;
        let model = s.model();
        if s.tcp.handshake == Some(true) {
            return Err(ScenarioError::new(
                at("tcp.handshake"),
                "generators' connections open without a handshake (not supported yet); \
                 remove it",
            ));
        }
        let capacity = self.links[link].bandwidth.0 as f64;
        self.check_connection_count(g, capacity, &model)?;
        Ok(GeneratorPlan {
            name: self.generator_name(g),
            tcp: tcp::check(
                &format!("generators[{g}]"),
                &s.cc,
                s.recovery,
                &s.tcp,
                self.tcp.profile,
            )?,
            src: nodes[&s.from] as NodeId,
            dst: nodes[&s.to] as NodeId,
            link: s.link.clone(),
            capacity_bps: capacity,
            load: s.load,
            model,
            start: s.start.0,
            stop: s.stop.map_or(self.duration.0, |t| t.0),
        })
    }

    /// The index of the link generator `g` names.
    fn generator_link(&self, g: usize) -> Result<usize, ScenarioError> {
        let s = &self.generators[g];
        let link_names: Vec<String> = (0..self.links.len()).map(|i| self.link_name(i)).collect();
        link_names.iter().position(|n| *n == s.link).ok_or_else(|| {
            ScenarioError::new(
                format!("generators[{g}].link"),
                format!(
                    "\"{}\" is not a link; links are: {}",
                    s.link,
                    link_names.join(", ")
                ),
            )
        })
    }

    /// Generator `g` opens connections from before the end of the run, and stops
    /// after it starts.
    fn check_generator_times(&self, g: usize) -> Result<(), ScenarioError> {
        let s = &self.generators[g];
        let at = |field: &str| format!("generators[{g}].{field}");
        if s.start.0 >= self.duration.0 {
            return Err(ScenarioError::new(
                at("start"),
                format!(
                    "{} is not before the end of the run ({})",
                    s.start.0, self.duration.0
                ),
            ));
        }
        if let Some(stop) = s.stop {
            if stop.0 <= s.start.0 {
                return Err(ScenarioError::new(
                    at("stop"),
                    format!(
                        "{} is not after the generator's start ({})",
                        stop.0, s.start.0
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Serial numbers have 24 bits (`world::connections`): refuse a generator
    /// expected to open even half as many connections.
    fn check_connection_count(
        &self,
        g: usize,
        capacity: f64,
        model: &GeneratorModel,
    ) -> Result<(), ScenarioError> {
        let s = &self.generators[g];
        let rate = s.load * capacity / (8.0 * model.mean_connection_bytes());
        let active = self.duration.0.saturating_sub(s.start.0).as_secs_f64();
        let expected = rate * active;
        if expected > (MAX_CONNECTIONS / 2) as f64 {
            return Err(ScenarioError::new(
                format!("generators[{g}].load"),
                format!(
                    "{} would open about {expected:.3e} connections in the run; at most {} \
                     per generator: shorten the run or split the load between generators",
                    s.load,
                    MAX_CONNECTIONS / 2
                ),
            ));
        }
        Ok(())
    }

    /// The size parameters of generator `g`, for its kind.
    fn check_generator_sizes(&self, g: usize) -> Result<(), ScenarioError> {
        let s = &self.generators[g];
        let at = |field: &str| format!("generators[{g}].{field}");
        match s.kind {
            GeneratorKind::Ftp => {
                if s.web.is_some() {
                    return Err(ScenarioError::new(
                        at("web"),
                        "Web parameters on an \"ftp\" generator; set kind = \"web\" or remove them",
                    ));
                }
                match s.mean_size {
                    None => Err(ScenarioError::new(
                        at("mean_size"),
                        "an \"ftp\" generator needs the mean file size, e.g. mean_size = \"500KB\"",
                    )),
                    Some(Size(0)) => Err(ScenarioError::new(at("mean_size"), "must be positive")),
                    Some(_) => Ok(()),
                }
            }
            GeneratorKind::Web => {
                if s.mean_size.is_some() {
                    return Err(ScenarioError::new(
                        at("mean_size"),
                        "a \"web\" generator's sizes follow its `web` model; mean_size is for \"ftp\"",
                    ));
                }
                let w = s.web.clone().unwrap_or_default();
                let at = |field: &str| format!("generators[{g}].web.{field}");
                let checks: [(&str, f64, f64, &str); 6] = [
                    ("pages_per_session", w.pages_per_session, 1.0, "at least 1"),
                    (
                        "objects_alpha",
                        w.objects_alpha,
                        1.0,
                        "above 1 (a finite mean)",
                    ),
                    ("size_sigma", w.size_sigma, 0.0, "positive"),
                    ("size_alpha", w.size_alpha, 1.0, "above 1 (a finite mean)"),
                    ("think_alpha", w.think_alpha, 0.0, "positive"),
                    ("size_mu", w.size_mu, f64::NEG_INFINITY, "a finite number"),
                ];
                for (field, value, floor, allowed) in checks {
                    let inclusive = field == "pages_per_session";
                    let ok = value.is_finite()
                        && if inclusive {
                            value >= floor
                        } else {
                            value > floor
                        };
                    if !ok {
                        return Err(ScenarioError::new(
                            at(field),
                            format!("{value} is not allowed; must be {allowed}"),
                        ));
                    }
                }
                if w.size_cutoff.0 == 0 {
                    return Err(ScenarioError::new(at("size_cutoff"), "must be positive"));
                }
                if let Some(max) = w.size_max {
                    if max.0 <= w.size_cutoff.0 {
                        return Err(ScenarioError::new(
                            at("size_max"),
                            format!(
                                "{} B is not above size_cutoff ({} B): the tail lies between them",
                                max.0, w.size_cutoff.0
                            ),
                        ));
                    }
                }
                if w.think_scale.0 == SimTime::ZERO {
                    return Err(ScenarioError::new(at("think_scale"), "must be positive"));
                }
                Ok(())
            }
        }
    }
}

/// Generator `g`'s load is a fraction of its link's bandwidth, and the loads of
/// the generators on one link (summed in `link_loads`) are at most `MAX_LINK_LOAD`.
fn check_load(
    g: usize,
    s: &GeneratorSpec,
    link_loads: &mut HashMap<String, f64>,
) -> Result<(), ScenarioError> {
    let at = format!("generators[{g}].load");
    if !(s.load.is_finite() && s.load > 0.0 && s.load <= MAX_LINK_LOAD) {
        return Err(ScenarioError::new(
            at,
            format!(
                "{} is outside (0, {MAX_LINK_LOAD}]: a fraction of the link's bandwidth",
                s.load
            ),
        ));
    }
    let total = link_loads.entry(s.link.clone()).or_default();
    *total += s.load;
    if *total > MAX_LINK_LOAD + 1e-9 {
        return Err(ScenarioError::new(
            at,
            format!(
                "the generators on link \"{}\" offer {:.3} of its bandwidth together; at most \
                 {MAX_LINK_LOAD} (beyond it connections pile up without bound)",
                s.link, total
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::scenario::load;

    /// A dumbbell s → r1 → r2 → d and one generator with `fields`.
    fn scenario(fields: &str) -> String {
        format!(
            r#"
duration = "10s"
[[links]]
between = ["s", "r1"]
bandwidth = "100Mbps"
delay = "1ms"
[[links]]
between = ["r1", "r2"]
bandwidth = "10Mbps"
delay = "20ms"
[[links]]
between = ["r2", "d"]
bandwidth = "100Mbps"
delay = "1ms"
[[generators]]
from = "s"
to = "d"
{fields}
"#
        )
    }

    fn error_of(fields: &str) -> String {
        load(&scenario(fields), None).unwrap_err().to_string()
    }

    #[test]
    fn a_generator_without_flows_is_a_scenario() {
        let ok = r#"kind = "web"
link = "r1-r2"
load = 0.5"#;
        assert!(load(&scenario(ok), None).is_ok());
    }

    #[test]
    fn link_load_and_sizes_are_checked_with_their_field() {
        let e = error_of("kind = \"web\"\nlink = \"r9\"\nload = 0.5");
        assert!(
            e.starts_with("generators[0].link: \"r9\" is not a link; links are: s-r1, r1-r2, r2-d"),
            "{e}"
        );
        for bad in ["0", "-0.1", "1.5", "nan"] {
            let e = error_of(&format!("kind = \"web\"\nlink = \"r1-r2\"\nload = {bad}"));
            assert!(
                e.starts_with("generators[0].load: ") && e.contains("outside (0, 1]"),
                "{e}"
            );
        }
        let e = error_of("kind = \"ftp\"\nlink = \"r1-r2\"\nload = 0.5");
        assert!(
            e.starts_with("generators[0].mean_size: an \"ftp\" generator needs"),
            "{e}"
        );
        let e = error_of("kind = \"web\"\nlink = \"r1-r2\"\nload = 0.5\nmean_size = \"1KB\"");
        assert!(e.starts_with("generators[0].mean_size: "), "{e}");
        let e =
            error_of("kind = \"web\"\nlink = \"r1-r2\"\nload = 0.5\nweb = { size_alpha = 1.0 }");
        assert!(
            e.starts_with("generators[0].web.size_alpha: 1 is not allowed; must be above 1"),
            "{e}"
        );
        let e = error_of(
            "kind = \"web\"\nlink = \"r1-r2\"\nload = 0.5\nweb = { size_max = \"100KB\" }",
        );
        assert!(
            e.starts_with("generators[0].web.size_max: 100000 B is not above"),
            "{e}"
        );
        let e =
            error_of("kind = \"web\"\nlink = \"r1-r2\"\nload = 0.5\ntcp = { handshake = true }");
        assert!(e.starts_with("generators[0].tcp.handshake: "), "{e}");
        let e = error_of("kind = \"web\"\nlink = \"r1-r2\"\nload = 0.5\ncc = \"cubik\"");
        assert!(e.starts_with("generators[0].cc: "), "{e}");
        let e = error_of("kind = \"web\"\nlink = \"r1-r2\"\nload = 0.5\ntcp = { mss = \"0B\" }");
        assert!(e.starts_with("generators[0].tcp.mss: "), "{e}");
    }

    #[test]
    fn generators_on_one_link_may_not_offer_more_than_its_capacity() {
        let two = r#"kind = "web"
link = "r1-r2"
load = 0.6
[[generators]]
kind = "ftp"
from = "s"
to = "d"
link = "r1-r2"
load = 0.5
mean_size = "1MB""#;
        let e = load(&scenario(two), None).unwrap_err().to_string();
        assert!(
            e.starts_with("generators[1].load: the generators on link \"r1-r2\" offer 1.100"),
            "{e}"
        );
    }

    /// 1 kB files at load 1 of 10 Gb/s: λ = 10¹⁰/8 000 = 1.25·10⁶ connections/s, so
    /// 1.25·10⁷ records in 10 s: beyond the 2²³ serial numbers a generator may use.
    /// With 1 s: 1.25·10⁶ records of about 200 B, each with its row of the
    /// connections table (2 kB): some 2.8 GB, above a 100 MB budget and above what the
    /// live connections cost (1.25·10⁶/s × a 44 ms round trip = 55 000 of 4 KiB:
    /// 225 MB).
    #[test]
    fn connection_counts_and_memory_are_bounded() {
        let fast = |duration: &str, budget: &str| {
            scenario("kind = \"ftp\"\nlink = \"r1-r2\"\nload = 1\nmean_size = \"1KB\"")
                .replace("bandwidth = \"10Mbps\"", "bandwidth = \"10Gbps\"")
                .replace(
                    "duration = \"10s\"",
                    &format!("duration = \"{duration}\"\n{budget}"),
                )
        };
        let e = load(&fast("10s", ""), None).unwrap_err().to_string();
        assert!(
            e.starts_with("generators[0].load: 1 would open about 1.250e7 connections"),
            "{e}"
        );
        let e = load(&fast("1s", "memory_budget = \"100MB\""), None)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("generators[0].load: 1 would make the run hold about"),
            "{e}"
        );
        assert!(e.contains("connection records"), "{e}");
    }
}
