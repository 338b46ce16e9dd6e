//! A link direction's queue as a scenario writes it (`queue = { … }`): its limit in
//! packets or bytes, and either RED in front of DropTail or a queue discipline of
//! `net/qdisc/` (`discipline = "codel" | "fq_codel" | "pie" | "fq_pie"`) with its
//! parameters beside the limit, each defaulting to Linux's (the discipline's file
//! says where ns-3's differ). Both directions of a link get the same queue. The
//! plan's canonical JSON writes every parameter of the discipline chosen.

use serde::{Deserialize, Serialize};

use crate::net::qdisc::{CoDelConfig, FqCoDelConfig, FqPieConfig, PieConfig};
use crate::net::queue::QueueLimit;
use crate::net::red::RedParams;
use crate::scenario::error::ScenarioError;
use crate::units::{Duration, Size};

/// Output queue: its limit, `{ packets = 100 }` or `{ bytes = "64KB" }` (default 100
/// packets for DropTail, the discipline's own otherwise), and optionally RED in front
/// of DropTail (`red = { min_th = 5, ... }`) or a discipline and its parameters
/// (`discipline = "codel", target = "5ms"`). A parameter is refused unless the
/// discipline chosen has it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default)]
    pub packets: Option<u32>,
    #[serde(default)]
    pub bytes: Option<Size>,
    #[serde(default)]
    pub red: Option<RedSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discipline: Option<DisciplineName>,
    // Every discipline's parameters, each optional: what the discipline chosen does
    // not take must stay unset (`check`), what it takes and the scenario leaves out is
    // Linux's default. Meanings are the kernel configurations' (`net::qdisc`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_batch: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tupdate: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_burst: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytemode: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dq_rate_estimator: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derandomize: Option<bool>,
}

/// The queue disciplines a scenario can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DisciplineName {
    Codel,
    FqCodel,
    Pie,
    FqPie,
}

impl DisciplineName {
    fn as_str(self) -> &'static str {
        match self {
            DisciplineName::Codel => "codel",
            DisciplineName::FqCodel => "fq_codel",
            DisciplineName::Pie => "pie",
            DisciplineName::FqPie => "fq_pie",
        }
    }

    /// The parameters it takes, as `QueueSpec`'s fields name them.
    fn takes(self) -> Vec<&'static str> {
        match self {
            DisciplineName::Codel => CODEL_PARAMS.to_vec(),
            DisciplineName::FqCodel => [
                &CODEL_PARAMS[..],
                &FQ_PARAMS,
                &["memory_limit", "drop_batch"],
            ]
            .concat(),
            DisciplineName::Pie => PIE_PARAMS.to_vec(),
            DisciplineName::FqPie => [&PIE_PARAMS[..], &FQ_PARAMS].concat(),
        }
    }
}

/// CoDel's parameters (FQ-CoDel gives each queue the same).
const CODEL_PARAMS: [&str; 3] = ["target", "interval", "mtu"];
/// PIE's parameters (FQ-PIE gives each queue the same).
const PIE_PARAMS: [&str; 9] = [
    "target",
    "tupdate",
    "alpha",
    "beta",
    "max_burst",
    "mtu",
    "bytemode",
    "dq_rate_estimator",
    "derandomize",
];
/// The flow scheduler's parameters, FQ-CoDel's and FQ-PIE's.
const FQ_PARAMS: [&str; 2] = ["flows", "quantum"];

impl QueueSpec {
    /// The names of the discipline parameters given.
    fn given(&self) -> Vec<&'static str> {
        let set = [
            ("target", self.target.is_some()),
            ("interval", self.interval.is_some()),
            ("mtu", self.mtu.is_some()),
            ("flows", self.flows.is_some()),
            ("quantum", self.quantum.is_some()),
            ("memory_limit", self.memory_limit.is_some()),
            ("drop_batch", self.drop_batch.is_some()),
            ("tupdate", self.tupdate.is_some()),
            ("alpha", self.alpha.is_some()),
            ("beta", self.beta.is_some()),
            ("max_burst", self.max_burst.is_some()),
            ("bytemode", self.bytemode.is_some()),
            ("dq_rate_estimator", self.dq_rate_estimator.is_some()),
            ("derandomize", self.derandomize.is_some()),
        ];
        set.into_iter()
            .filter(|&(_, s)| s)
            .map(|(n, _)| n)
            .collect()
    }
}

/// A checked discipline, as the kernel takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DisciplinePlan {
    CoDel(CoDelConfig),
    FqCoDel(FqCoDelConfig),
    Pie(PieConfig),
    FqPie(FqPieConfig),
}

impl Default for QueueSpec {
    /// The queue a link has when its scenario gives none: DropTail of
    /// `DEFAULT_QUEUE_PACKETS`.
    fn default() -> Self {
        QueueSpec {
            packets: Some(DEFAULT_QUEUE_PACKETS),
            bytes: None,
            red: None,
            discipline: None,
            target: None,
            interval: None,
            mtu: None,
            flows: None,
            quantum: None,
            memory_limit: None,
            drop_batch: None,
            tupdate: None,
            alpha: None,
            beta: None,
            max_burst: None,
            bytemode: None,
            dq_rate_estimator: None,
            derandomize: None,
        }
    }
}

impl QueueSpec {
    /// Checks the queue at `path` (`links[0].queue`) into its discipline (`None`:
    /// DropTail, with RED if given): at most one limit (exactly one for DropTail),
    /// only the chosen discipline's parameters, each in range.
    pub fn check(&self, path: &str) -> Result<Option<DisciplinePlan>, ScenarioError> {
        let at =
            |field: &str, message: String| ScenarioError::new(format!("{path}.{field}"), message);
        match (self.packets, self.bytes) {
            (Some(0), None) => {
                return Err(ScenarioError::new(
                    format!("{path}.packets"),
                    "must be at least 1",
                ))
            }
            (None, Some(b)) if b.0 == 0 => {
                return Err(ScenarioError::new(
                    format!("{path}.bytes"),
                    "must be positive",
                ))
            }
            (Some(_), None) | (None, Some(_)) => {}
            (None, None) if self.discipline.is_some() => {}
            _ => {
                return Err(ScenarioError::new(
                    path,
                    "give exactly one of `packets` or `bytes`",
                ))
            }
        }
        let given = self.given();
        let Some(name) = self.discipline else {
            if let Some(field) = given.first() {
                return Err(at(
                    field,
                    "is a parameter of a queue discipline; choose one with `discipline = \"codel\"` (or fq_codel, pie, fq_pie)".into(),
                ));
            }
            if let Some(red) = &self.red {
                check_red(&format!("{path}.red"), red)?;
            }
            return Ok(None);
        };
        if self.red.is_some() {
            return Err(at(
                "red",
                format!("RED goes in front of DropTail; {} takes no `red` (leave out `discipline` for RED)", name.as_str()),
            ));
        }
        if let Some(field) = given.iter().find(|f| !name.takes().contains(f)) {
            return Err(at(
                field,
                format!(
                    "is not a parameter of {}; it takes {}",
                    name.as_str(),
                    name.takes().join(", ")
                ),
            ));
        }
        let plan = self.discipline_plan(name).map_err(|(field, bytes)| {
            at(
                field,
                format!("{bytes} B is too large; use at most {} B", u32::MAX),
            )
        })?;
        let checked = match &plan {
            DisciplinePlan::CoDel(c) => c.check(),
            DisciplinePlan::FqCoDel(c) => c.check(),
            DisciplinePlan::Pie(c) => c.check(),
            DisciplinePlan::FqPie(c) => c.check(),
        };
        checked.map_err(|(field, message)| {
            let field = match field.as_str() {
                "limit" if self.bytes.is_some() => "bytes",
                "limit" => "packets",
                f => f,
            };
            at(field, message)
        })?;
        Ok(Some(plan))
    }

    /// The limit: `bytes` when given, else `packets`, else the discipline's default
    /// (DropTail's: `DEFAULT_QUEUE_PACKETS`); the check lets at most one through.
    pub fn limit(&self) -> QueueLimit {
        match (self.bytes, self.packets) {
            (Some(bytes), _) => QueueLimit::Bytes(bytes.0),
            (None, Some(packets)) => QueueLimit::Packets(packets),
            (None, None) => match self.discipline {
                Some(DisciplineName::Codel) => CoDelConfig::default().limit,
                Some(DisciplineName::FqCodel) => FqCoDelConfig::default().limit,
                Some(DisciplineName::Pie) => PieConfig::default().limit,
                Some(DisciplineName::FqPie) => FqPieConfig::default().pie.limit,
                None => QueueLimit::Packets(DEFAULT_QUEUE_PACKETS),
            },
        }
    }

    /// Discipline `name`'s configuration: the parameters given, the rest Linux's
    /// defaults; `Err((field, bytes))` when a size does not fit the kernel's 32 bits.
    fn discipline_plan(&self, name: DisciplineName) -> Result<DisciplinePlan, (&'static str, u64)> {
        let p = self;
        let limit = self.limit();
        let time = |given: Option<Duration>, default| given.map_or(default, |d| d.0);
        let bytes32 = |given: Option<Size>, default: u32, field| match given {
            None => Ok(default),
            Some(s) => u32::try_from(s.0).map_err(|_| (field, s.0)),
        };
        let codel = CoDelConfig::default();
        let pie = |d: PieConfig| -> Result<PieConfig, (&'static str, u64)> {
            Ok(PieConfig {
                target: time(p.target, d.target),
                tupdate: time(p.tupdate, d.tupdate),
                alpha: p.alpha.unwrap_or(d.alpha),
                beta: p.beta.unwrap_or(d.beta),
                max_burst: time(p.max_burst, d.max_burst),
                limit,
                mtu: bytes32(p.mtu, d.mtu, "mtu")?,
                bytemode: p.bytemode.unwrap_or(d.bytemode),
                dq_rate_estimator: p.dq_rate_estimator.unwrap_or(d.dq_rate_estimator),
                derandomize: p.derandomize.unwrap_or(d.derandomize),
                ..d
            })
        };
        Ok(match name {
            DisciplineName::Codel => DisciplinePlan::CoDel(CoDelConfig {
                target: time(p.target, codel.target),
                interval: time(p.interval, codel.interval),
                mtu: bytes32(p.mtu, codel.mtu, "mtu")?,
                limit,
            }),
            DisciplineName::FqCodel => {
                let d = FqCoDelConfig::default();
                DisciplinePlan::FqCoDel(FqCoDelConfig {
                    target: time(p.target, d.target),
                    interval: time(p.interval, d.interval),
                    mtu: bytes32(p.mtu, d.mtu, "mtu")?,
                    limit,
                    flows: p.flows.unwrap_or(d.flows),
                    quantum: bytes32(p.quantum, d.quantum, "quantum")?,
                    memory_limit: p.memory_limit.map_or(d.memory_limit, |s| s.0),
                    drop_batch: p.drop_batch.unwrap_or(d.drop_batch),
                })
            }
            DisciplineName::Pie => DisciplinePlan::Pie(pie(PieConfig::default())?),
            DisciplineName::FqPie => {
                let d = FqPieConfig::default();
                DisciplinePlan::FqPie(FqPieConfig {
                    pie: pie(d.pie)?,
                    flows: p.flows.unwrap_or(d.flows),
                    quantum: bytes32(p.quantum, d.quantum, "quantum")?,
                })
            }
        })
    }

    /// This queue with every parameter of its discipline written out (`plan`, its
    /// checked configuration), for the canonical spec.
    pub fn write_defaults(&mut self, plan: &DisciplinePlan) {
        let limit = match plan {
            DisciplinePlan::CoDel(c) => c.limit,
            DisciplinePlan::FqCoDel(c) => c.limit,
            DisciplinePlan::Pie(c) => c.limit,
            DisciplinePlan::FqPie(c) => c.pie.limit,
        };
        (self.packets, self.bytes) = match limit {
            QueueLimit::Packets(n) => (Some(n), None),
            QueueLimit::Bytes(b) => (None, Some(Size(b))),
        };
        let p = self;
        let write_pie = |p: &mut QueueSpec, c: &PieConfig| {
            p.target = Some(Duration(c.target));
            p.tupdate = Some(Duration(c.tupdate));
            p.alpha = Some(c.alpha);
            p.beta = Some(c.beta);
            p.max_burst = Some(Duration(c.max_burst));
            p.mtu = Some(Size(c.mtu.into()));
            p.bytemode = Some(c.bytemode);
            p.dq_rate_estimator = Some(c.dq_rate_estimator);
            p.derandomize = Some(c.derandomize);
        };
        match plan {
            DisciplinePlan::CoDel(c) => {
                p.target = Some(Duration(c.target));
                p.interval = Some(Duration(c.interval));
                p.mtu = Some(Size(c.mtu.into()));
            }
            DisciplinePlan::FqCoDel(c) => {
                p.target = Some(Duration(c.target));
                p.interval = Some(Duration(c.interval));
                p.mtu = Some(Size(c.mtu.into()));
                p.flows = Some(c.flows);
                p.quantum = Some(Size(c.quantum.into()));
                p.memory_limit = Some(Size(c.memory_limit));
                p.drop_batch = Some(c.drop_batch);
            }
            DisciplinePlan::Pie(c) => write_pie(p, c),
            DisciplinePlan::FqPie(c) => {
                write_pie(p, &c.pie);
                p.flows = Some(c.flows);
                p.quantum = Some(Size(c.quantum.into()));
            }
        }
    }
}

/// Random Early Detection (see `net::red` for the equations); thresholds in packets.
/// Defaults are Floyd's recommendations.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedSpec {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    /// ns-2's `wait_`: no early drop until 1/p_b packets after the last one.
    pub wait: bool,
    pub mean_packet: Size,
    /// Mark ECT packets CE instead of dropping them early (RFC 3168 §5; default
    /// false).
    pub ecn: bool,
}

impl Default for RedSpec {
    fn default() -> Self {
        let d = RedParams::default();
        RedSpec {
            min_th: d.min_th,
            max_th: d.max_th,
            max_p: d.max_p,
            w_q: d.w_q,
            gentle: d.gentle,
            wait: d.wait,
            mean_packet: Size(d.mean_packet as u64),
            ecn: d.ecn,
        }
    }
}

impl RedSpec {
    /// The parameters as `net::red` takes them.
    pub fn params(&self) -> RedParams {
        RedParams {
            min_th: self.min_th,
            max_th: self.max_th,
            max_p: self.max_p,
            w_q: self.w_q,
            gentle: self.gentle,
            wait: self.wait,
            mean_packet: self.mean_packet.0 as u32,
            ecn: self.ecn,
        }
    }
}

/// A link direction's queue when the scenario gives none, in packets.
pub const DEFAULT_QUEUE_PACKETS: u32 = 100;

/// RED's parameters at `path` (`links[0].queue.red`) in range.
fn check_red(path: &str, red: &RedSpec) -> Result<(), ScenarioError> {
    let err =
        |field: &str, message: String| Err(ScenarioError::new(format!("{path}.{field}"), message));
    if !(red.min_th >= 0.0 && red.min_th.is_finite()) {
        return err(
            "min_th",
            format!("{} must be a number of packets ≥ 0", red.min_th),
        );
    }
    // Equal thresholds (Linux allows them) make a step: with `gentle` and max_p 1,
    // every arrival from max_th on is dropped early, or marked (DCTCP's K).
    if !(red.max_th >= red.min_th && red.max_th > 0.0 && red.max_th.is_finite()) {
        return err(
            "max_th",
            format!(
                "{} must be above 0 and at least min_th ({})",
                red.max_th, red.min_th
            ),
        );
    }
    if !(red.max_p > 0.0 && red.max_p <= 1.0) {
        return err(
            "max_p",
            format!("{} is not a probability in (0, 1]", red.max_p),
        );
    }
    if !(red.w_q > 0.0 && red.w_q <= 1.0) {
        return err(
            "w_q",
            format!("{} must be in (0, 1] (Floyd recommends 0.002)", red.w_q),
        );
    }
    if red.mean_packet.0 == 0 {
        return err("mean_packet", "must be positive, e.g. \"500B\"".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load::load;
    use crate::time::SimTime;

    /// One link a–b whose queue table is `queue = { table }`.
    fn scenario(table: &str) -> String {
        super::super::one_link(&format!("queue = {{ {table} }}"))
    }

    fn plan_of(queue: &str) -> Option<DisciplinePlan> {
        load(&scenario(queue), None).unwrap().links[0].discipline
    }

    fn error_of(queue: &str) -> String {
        load(&scenario(queue), None).unwrap_err().to_string()
    }

    #[test]
    fn a_discipline_named_alone_takes_linux_defaults() {
        // Linux's defaults (sch_codel.c, sch_fq_codel.c, sch_pie.c, sch_fq_pie.c):
        // CoDel and PIE hold 1000 packets, the FQ schedulers 10 240.
        let codel = CoDelConfig {
            target: SimTime::from_millis(5),
            interval: SimTime::from_millis(100),
            mtu: 1500,
            limit: QueueLimit::Packets(1000),
        };
        assert_eq!(
            plan_of(r#"discipline = "codel""#),
            Some(DisciplinePlan::CoDel(codel))
        );
        let Some(DisciplinePlan::FqCoDel(fq)) = plan_of(r#"discipline = "fq_codel""#) else {
            panic!("not fq_codel")
        };
        assert_eq!(
            (fq.limit, fq.flows, fq.quantum),
            (QueueLimit::Packets(10_240), 1024, 1500)
        );
        assert_eq!((fq.memory_limit, fq.drop_batch), (32 << 20, 64));
        let Some(DisciplinePlan::Pie(pie)) = plan_of(r#"discipline = "pie""#) else {
            panic!("not pie")
        };
        assert_eq!(
            (pie.target, pie.tupdate),
            (SimTime::from_millis(15), SimTime::from_millis(15))
        );
        assert_eq!(
            (pie.alpha, pie.beta, pie.limit),
            (0.125, 1.25, QueueLimit::Packets(1000))
        );
        let Some(DisciplinePlan::FqPie(fq_pie)) = plan_of(r#"discipline = "fq_pie""#) else {
            panic!("not fq_pie")
        };
        assert_eq!(fq_pie.pie.limit, QueueLimit::Packets(10_240));
        // No discipline: DropTail, as before.
        assert_eq!(plan_of("packets = 50"), None);
    }

    #[test]
    fn given_parameters_replace_the_defaults_and_the_limit_is_the_queues() {
        let q = r#"discipline = "fq_codel", bytes = "64KB", target = "2ms", quantum = "300B", flows = 16"#;
        let Some(DisciplinePlan::FqCoDel(fq)) = plan_of(q) else {
            panic!("not fq_codel")
        };
        assert_eq!(fq.limit, QueueLimit::Bytes(64_000));
        assert_eq!(
            (fq.target, fq.quantum, fq.flows),
            (SimTime::from_millis(2), 300, 16)
        );
        assert_eq!(fq.interval, SimTime::from_millis(100));
        let q = r#"discipline = "pie", packets = 200, alpha = 0.25, derandomize = false"#;
        let Some(DisciplinePlan::Pie(pie)) = plan_of(q) else {
            panic!("not pie")
        };
        assert_eq!(
            (pie.limit, pie.alpha, pie.derandomize),
            (QueueLimit::Packets(200), 0.25, false)
        );
    }

    #[test]
    fn the_canonical_spec_writes_every_parameter_and_loads_to_the_same_plan() {
        let plan = load(&scenario(r#"discipline = "codel", target = "10ms""#), None).unwrap();
        let json = plan.to_json().unwrap();
        let queue = &serde_json::from_str::<serde_json::Value>(&json).unwrap()["links"][0]["queue"];
        assert_eq!(queue["discipline"], "codel");
        assert_eq!(queue["target"], "10000000ns");
        assert_eq!(queue["interval"], "100000000ns");
        assert_eq!(queue["mtu"], "1500B");
        assert_eq!(queue["packets"], 1000);
        assert!(queue.get("quantum").is_none(), "{queue}");
        let again = load(&json, None).unwrap();
        assert_eq!(again.links[0].discipline, plan.links[0].discipline);
    }

    #[test]
    fn bad_parameters_are_refused_naming_the_field() {
        let cases = [
            (
                r#"discipline = "fq_codel", quantum = "0B""#,
                "links[0].queue.quantum: 0 B is not allowed; use 1 B to 1048576 B",
            ),
            (
                r#"discipline = "codel", target = "0ms""#,
                "links[0].queue.target: 0 s is not allowed; use more than 0 s",
            ),
            (
                r#"discipline = "fq_pie", flows = 70000"#,
                "links[0].queue.flows: 70000 is not allowed; use 1 to 65536",
            ),
            (
                r#"discipline = "pie", beta = -1.0"#,
                "links[0].queue.beta: -1 is not allowed; use 0 or more",
            ),
            (
                r#"discipline = "codel", packets = 0"#,
                "links[0].queue.packets: must be at least 1",
            ),
            (
                r#"discipline = "pie", interval = "100ms""#,
                "links[0].queue.interval: is not a parameter of pie; it takes target, tupdate, \
                 alpha, beta, max_burst, mtu, bytemode, dq_rate_estimator, derandomize",
            ),
            (
                r#"packets = 100, target = "5ms""#,
                "links[0].queue.target: is a parameter of a queue discipline; choose one with \
                 `discipline = \"codel\"` (or fq_codel, pie, fq_pie)",
            ),
            (
                r#"discipline = "codel", red = { max_p = 0.1 }"#,
                "links[0].queue.red: RED goes in front of DropTail; codel takes no `red` \
                 (leave out `discipline` for RED)",
            ),
            (
                r#"discipline = "fq_codel", quantum = "5GB""#,
                "links[0].queue.quantum: 5000000000 B is too large; use at most 4294967295 B",
            ),
        ];
        for (queue, message) in cases {
            assert_eq!(error_of(queue), message, "{queue}");
        }
        // A name that is not a discipline, and a negative time, fail in parsing with
        // the field's path.
        assert!(error_of(r#"discipline = "sfq""#).starts_with("links[0].queue.discipline: "));
        assert!(error_of(r#"discipline = "codel", target = "-5ms""#)
            .starts_with("links[0].queue.target: "));
    }
}
