//! The `[[links.impairments]]` entries: a `kind`, the fields every stage shares
//! (`direction`, `applies_to`, and when it is active: `start`, `start_on`,
//! `duration`), and the kind's own parameters.
//!
//! Like `cc`, an entry is kept as a JSON object until the scenario is checked; then
//! the shared fields and the kind's parameters are each deserialized into their own
//! struct, so that unknown keys are errors naming the field.

use std::fmt;
use std::path::Path;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::delay::{in_delay, DelaySpec};
use super::FieldError;
use crate::params::parse_params;
use crate::scenario::shown::{json, quoted};
use crate::units::Duration;

#[derive(Clone, Debug, PartialEq)]
pub struct ImpairmentSpec {
    pub kind: String,
    pub fields: Map<String, Value>,
}

/// When a stage is active: from `start` (or from the trigger `start_on`), for
/// `duration` (or to the end of the run).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Common {
    #[serde(default)]
    pub direction: Direction,
    #[serde(default)]
    pub applies_to: AppliesToSpec,
    #[serde(default)]
    pub start: Option<Duration>,
    #[serde(default)]
    pub start_on: Option<TriggerSpec>,
    #[serde(default)]
    pub duration: Option<Duration>,
}

/// The link directions a stage applies to (`both` on the air, where there are none).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Forward,
    Reverse,
    #[default]
    Both,
}

/// The packets a stage applies to: data, ACKs or all.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AppliesToSpec {
    Data,
    Acks,
    #[default]
    All,
}

/// A flow event that switches a stage on: "when flow `flow` sends data segment
/// number `segment`" (counted from 1 in sequence order: its first transmission).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TriggerSpec {
    pub flow: String,
    pub segment: u64,
}

/// The kind-specific parameters; `F` names a flow: its name as written, then
/// (in a plan) its id.
#[derive(Clone, Debug, PartialEq)]
pub enum StageSpec<F = String> {
    /// `p`, or `schedule = [["0s", 0.01], ["1000s", 0.02]]`.
    Bernoulli {
        schedule: Vec<(Duration, f64)>,
    },
    DropList {
        packets: Vec<u64>,
        flow: Option<F>,
    },
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    /// `mode = "drop"` (default) or `"hold"` (packets wait in the sender's queue).
    Outage {
        hold: bool,
    },
    /// Random: `r` and `delay`; exact: `packet` and `positions`.
    Reorder(ReorderSpec),
    DelayStep {
        extra: Duration,
    },
    Arq(ArqStage),
}

impl<F> StageSpec<F> {
    /// The same stage with its flow reference resolved by `resolve`.
    pub fn resolve_flow<G, E>(
        self,
        resolve: impl Fn(&F) -> Result<G, E>,
    ) -> Result<StageSpec<G>, E> {
        Ok(match self {
            StageSpec::Bernoulli { schedule } => StageSpec::Bernoulli { schedule },
            StageSpec::DropList { packets, flow } => StageSpec::DropList {
                packets,
                flow: flow.as_ref().map(resolve).transpose()?,
            },
            StageSpec::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => StageSpec::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            },
            StageSpec::Outage { hold } => StageSpec::Outage { hold },
            StageSpec::Reorder(r) => StageSpec::Reorder(r),
            StageSpec::DelayStep { extra } => StageSpec::DelayStep { extra },
            StageSpec::Arq(a) => StageSpec::Arq(a),
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ReorderSpec {
    Random { r: f64, delay: DelaySpec },
    Exact { packet: u64, positions: u64 },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArqParams {
    /// Fraction of packets delayed, or a schedule of (time, fraction) steps.
    #[serde(default)]
    pv: Option<f64>,
    #[serde(default)]
    pv_schedule: Option<Vec<(Duration, f64)>>,
    /// A delay table (`DelaySpec::parse`).
    delay: Value,
    #[serde(default = "yes")]
    in_order: bool,
    #[serde(default)]
    residual_loss: f64,
}

/// The `arq` stage: a fraction of packets (`pv`, constant or stepped) is delayed by
/// link-layer retransmissions drawn from `delay`.
#[derive(Clone, Debug, PartialEq)]
pub struct ArqStage {
    pub pv: PvSpec,
    pub delay: DelaySpec,
    pub in_order: bool,
    pub residual_loss: f64,
}

/// The delayed fraction of an `arq` stage: `pv`, or `pv_schedule` (time, fraction) steps.
#[derive(Clone, Debug, PartialEq)]
pub enum PvSpec {
    Constant(f64),
    Schedule(Vec<(Duration, f64)>),
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BernoulliParams {
    #[serde(default)]
    p: Option<f64>,
    #[serde(default)]
    schedule: Option<Vec<(Duration, f64)>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DropListParams {
    packets: Vec<u64>,
    #[serde(default)]
    flow: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GilbertElliottParams {
    p_gb: f64,
    p_bg: f64,
    #[serde(default)]
    loss_good: f64,
    #[serde(default = "one")]
    loss_bad: f64,
}

fn one() -> f64 {
    1.0
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum OutageMode {
    #[default]
    Drop,
    Hold,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutageParams {
    #[serde(default)]
    mode: OutageMode,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReorderParams {
    #[serde(default)]
    r: Option<f64>,
    /// A delay table (`DelaySpec::parse`).
    #[serde(default)]
    delay: Option<Value>,
    #[serde(default)]
    packet: Option<u64>,
    #[serde(default)]
    positions: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DelayStepParams {
    extra: Duration,
}

pub const KINDS: &[&str] = &[
    "bernoulli",
    "drop_list",
    "gilbert_elliott",
    "outage",
    "reorder",
    "delay_step",
    "arq",
];

const BERNOULLI_NEEDS: &str = "exactly one of `p`, a non-empty `schedule` or a `p_file`";

const COMMON: &[&str] = &["direction", "applies_to", "start", "start_on", "duration"];

impl ImpairmentSpec {
    /// Reads the loss trace a `bernoulli` entry names (`p_file`, relative to `base`
    /// when given) and puts its steps in the entry as its `schedule`: the file is
    /// read once, when the scenario is loaded, and the plan carries its contents.
    pub fn inline_files(&mut self, base: Option<&Path>) -> Result<(), FieldError> {
        if self.kind != "bernoulli" {
            return Ok(());
        }
        let Some(file) = self.fields.remove("p_file") else {
            return Ok(());
        };
        let Value::String(name) = file else {
            return Err((
                "p_file".into(),
                format!(
                    "{} is not a file name; write it as a string, e.g. \"loss.csv\"",
                    json(&file)
                ),
            ));
        };
        if self.fields.contains_key("p") || self.fields.contains_key("schedule") {
            return Err((String::new(), format!("bernoulli needs {BERNOULLI_NEEDS}")));
        }
        let steps = super::loss_trace::read(&name, base).map_err(|m| ("p_file".into(), m))?;
        let steps = serde_json::to_value(steps).map_err(|e| ("p_file".into(), e.to_string()))?;
        self.fields.insert("schedule".into(), steps);
        Ok(())
    }

    /// Splits and checks the entry's fields.
    pub fn parse(&self) -> Result<(Common, StageSpec), FieldError> {
        let (common, own): (Map<String, Value>, Map<String, Value>) = self
            .fields
            .clone()
            .into_iter()
            .partition(|(k, _)| COMMON.contains(&k.as_str()));
        let common: Common = parse_params(&common)?;
        let stage = match self.kind.as_str() {
            "bernoulli" => self.bernoulli(&own)?,
            "drop_list" => {
                let p: DropListParams = parse_params(&own)?;
                StageSpec::DropList {
                    packets: p.packets,
                    flow: p.flow,
                }
            }
            "gilbert_elliott" => {
                let p: GilbertElliottParams = parse_params(&own)?;
                StageSpec::GilbertElliott {
                    p_gb: p.p_gb,
                    p_bg: p.p_bg,
                    loss_good: p.loss_good,
                    loss_bad: p.loss_bad,
                }
            }
            "outage" => StageSpec::Outage {
                hold: parse_params::<OutageParams>(&own)?.mode == OutageMode::Hold,
            },
            "reorder" => self.reorder(&own)?,
            "delay_step" => StageSpec::DelayStep {
                extra: parse_params::<DelayStepParams>(&own)?.extra,
            },
            "arq" => self.arq(&own)?,
            other => {
                return Err((
                    "kind".into(),
                    format!(
                        "{} is not an impairment; use one of {}",
                        quoted(other),
                        KINDS.join(", ")
                    ),
                ))
            }
        };
        Ok((common, stage))
    }

    /// The entry's kind needs `what`, which it lacks.
    fn missing(&self, what: &str) -> FieldError {
        (String::new(), format!("{} needs {what}", self.kind))
    }

    /// A `bernoulli` entry's own fields: `p` or a `schedule`.
    fn bernoulli(&self, own: &Map<String, Value>) -> Result<StageSpec, FieldError> {
        let p: BernoulliParams = parse_params(own)?;
        let schedule = match (p.p, p.schedule) {
            (Some(p), None) => vec![(Duration::default(), p)],
            (None, Some(s)) if !s.is_empty() => s,
            _ => return Err(self.missing(BERNOULLI_NEEDS)),
        };
        Ok(StageSpec::Bernoulli { schedule })
    }

    /// A `reorder` entry's own fields: random (`r`, `delay`) or exact (`packet`,
    /// `positions`).
    fn reorder(&self, own: &Map<String, Value>) -> Result<StageSpec, FieldError> {
        let p: ReorderParams = parse_params(own)?;
        Ok(match (p.r, p.delay, p.packet, p.positions) {
            (Some(r), Some(delay), None, None) => {
                let delay = DelaySpec::parse(&delay).map_err(in_delay)?;
                StageSpec::Reorder(ReorderSpec::Random { r, delay })
            }
            (None, None, Some(packet), Some(positions)) => {
                StageSpec::Reorder(ReorderSpec::Exact { packet, positions })
            }
            _ => return Err(self.missing("either `r` and `delay`, or `packet` and `positions`")),
        })
    }

    /// An `arq` entry's own fields: `pv` or `pv_schedule`, and its `delay` table.
    fn arq(&self, own: &Map<String, Value>) -> Result<StageSpec, FieldError> {
        let p: ArqParams = parse_params(own)?;
        let pv = match (p.pv, p.pv_schedule) {
            (Some(pv), None) => PvSpec::Constant(pv),
            (None, Some(s)) => PvSpec::Schedule(s),
            _ => return Err(self.missing("either `pv` or `pv_schedule`")),
        };
        Ok(StageSpec::Arq(ArqStage {
            pv,
            delay: DelaySpec::parse(&p.delay).map_err(in_delay)?,
            in_order: p.in_order,
            residual_loss: p.residual_loss,
        }))
    }

    /// The probabilities the entry contains, with their paths, for range checks.
    pub fn probabilities(stage: &StageSpec) -> Vec<(String, f64)> {
        match stage {
            StageSpec::Bernoulli { schedule } if schedule.len() == 1 => {
                vec![("p".into(), schedule[0].1)]
            }
            StageSpec::Bernoulli { schedule } => schedule
                .iter()
                .enumerate()
                .map(|(i, &(_, p))| (format!("schedule[{i}]"), p))
                .collect(),
            StageSpec::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => vec![
                ("p_gb".into(), *p_gb),
                ("p_bg".into(), *p_bg),
                ("loss_good".into(), *loss_good),
                ("loss_bad".into(), *loss_bad),
            ],
            StageSpec::Reorder(ReorderSpec::Random { r, .. }) => vec![("r".into(), *r)],
            StageSpec::Arq(a) => {
                let mut v = vec![("residual_loss".into(), a.residual_loss)];
                match &a.pv {
                    PvSpec::Constant(pv) => v.push(("pv".into(), *pv)),
                    PvSpec::Schedule(s) => v.extend(
                        s.iter()
                            .enumerate()
                            .map(|(i, &(_, pv))| (format!("pv_schedule[{i}]"), pv)),
                    ),
                }
                v
            }
            _ => Vec::new(),
        }
    }
}

struct ImpairmentVisitor;

impl<'de> Visitor<'de> for ImpairmentVisitor {
    type Value = ImpairmentSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "a table with a `kind`, e.g. {{ kind = \"bernoulli\", p = 0.01 }}"
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ImpairmentSpec, A::Error> {
        let mut fields = Map::new();
        let mut kind = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "kind" {
                kind = Some(map.next_value::<String>()?);
            } else {
                fields.insert(key, map.next_value::<Value>()?);
            }
        }
        let kind = kind.ok_or_else(|| de::Error::missing_field("kind"))?;
        Ok(ImpairmentSpec { kind, fields })
    }
}

impl<'de> Deserialize<'de> for ImpairmentSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ImpairmentVisitor)
    }
}

impl Serialize for ImpairmentSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = self.fields.clone();
        m.insert("kind".into(), Value::String(self.kind.clone()));
        m.serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<(Common, StageSpec), FieldError> {
        serde_json::from_str::<ImpairmentSpec>(json)
            .unwrap()
            .parse()
    }

    #[test]
    fn stages_parse_with_their_shared_fields() {
        let (c, s) = parse(
            r#"{"kind": "outage", "start_on": {"flow": "f", "segment": 1000}, "duration": "5s"}"#,
        )
        .unwrap();
        assert_eq!(s, StageSpec::Outage { hold: false });
        assert_eq!(c.start_on.unwrap().segment, 1000);
        let (_, s) = parse(r#"{"kind": "reorder", "r": 0.05, "delay": {"distribution": "normal", "mean": "30ms", "sd": "15ms"}}"#).unwrap();
        assert!(matches!(s, StageSpec::Reorder(ReorderSpec::Random { .. })));
    }

    #[test]
    fn unknown_and_missing_fields_are_named() {
        let e = parse(r#"{"kind": "outage", "p": 0.1}"#).unwrap_err();
        assert_eq!(e.0, "p");
        let e = parse(r#"{"kind": "reorder", "r": 0.05}"#).unwrap_err();
        assert!(e.1.contains("either `r` and `delay`"), "{e:?}");
        let e = parse(r#"{"kind": "warp"}"#).unwrap_err();
        assert!(e.1.contains("\"warp\" is not an impairment"), "{e:?}");
    }

    #[test]
    fn a_delay_tables_errors_name_the_field_inside_it() {
        let reorder = |delay: &str| {
            parse(&format!(
                r#"{{"kind": "reorder", "r": 0.1, "delay": {delay}}}"#
            ))
        };
        let e = reorder(
            r#"{"distribution": "empirical", "values": ["1ms", "2ms"], "weights": [1, "x"]}"#,
        )
        .unwrap_err();
        assert_eq!(e.0, "delay.weights[1]");
        assert!(e.1.contains("\"x\""), "{e:?}");
        let e = reorder(r#"{"distribution": "uniform", "min": "1ms", "maxi": "2ms"}"#).unwrap_err();
        assert_eq!(e.0, "delay.maxi");
        let e = reorder(r#"{"distribution": "gamma", "mean": "1ms"}"#).unwrap_err();
        assert_eq!(e.0, "delay.distribution");
        assert!(
            e.1.starts_with("\"gamma\" is not a distribution; use one of constant"),
            "{e:?}"
        );
        let e = reorder(r#"{"mean": "1ms"}"#).unwrap_err();
        assert_eq!(
            (e.0.as_str(), e.1.starts_with("missing;")),
            ("delay.distribution", true)
        );
        let e = reorder(r#""20ms""#).unwrap_err();
        assert_eq!(e.0, "delay");
        let arq = parse(
            r#"{"kind": "arq", "pv": 0.1, "delay": {"distribution": "constant", "value": 5}}"#,
        );
        assert_eq!(arq.unwrap_err().0, "delay.value");
    }
}
