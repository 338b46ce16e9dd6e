//! The extra-delay distributions of the reordering and ARQ stages: a table
//! `{ distribution = "…", <its fields> }`, read (`DelaySpec::parse`), checked and
//! turned into the kernel's `DelayDistribution`.

use serde::Deserialize;
use serde_json::Value;

use super::FieldError;
use crate::net::impair::DelayDistribution;
use crate::params::parse_params;
use crate::scenario::error::ScenarioError;
use crate::scenario::shown::json;
use crate::units::Duration;

/// Extra-delay distribution of the reordering and ARQ stages, written as a table
/// `{ distribution = "…", <its fields> }` (read by `DelaySpec::parse`).
#[derive(Clone, Debug, PartialEq)]
pub enum DelaySpec {
    Constant(ConstantDelay),
    Uniform(UniformDelay),
    Normal(NormalDelay),
    Exponential(ExponentialDelay),
    /// A table of delays, drawn with the given weights (equal by default).
    Empirical(EmpiricalDelay),
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConstantDelay {
    pub value: Duration,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UniformDelay {
    pub min: Duration,
    pub max: Duration,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NormalDelay {
    pub mean: Duration,
    pub sd: Duration,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExponentialDelay {
    pub mean: Duration,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EmpiricalDelay {
    pub values: Vec<Duration>,
    #[serde(default)]
    pub weights: Option<Vec<f64>>,
}

const DISTRIBUTIONS: &str = "constant, uniform, normal, exponential, empirical";

impl DelaySpec {
    /// Reads a delay table. The tag picks the variant and the rest is read as that
    /// variant's fields, so that an error names the field inside the table
    /// (`weights[1]`), which serde loses inside an internally tagged enum.
    pub fn parse(value: &Value) -> Result<DelaySpec, FieldError> {
        let Value::Object(table) = value else {
            return Err((
                String::new(),
                format!(
                    "{} is not a delay distribution; use a table such as \
                     {{ distribution = \"exponential\", mean = \"20ms\" }}",
                    json(value)
                ),
            ));
        };
        let mut own = table.clone();
        let tag = own.remove("distribution");
        Ok(match tag.as_ref().and_then(Value::as_str) {
            Some("constant") => DelaySpec::Constant(parse_params(&own)?),
            Some("uniform") => DelaySpec::Uniform(parse_params(&own)?),
            Some("normal") => DelaySpec::Normal(parse_params(&own)?),
            Some("exponential") => DelaySpec::Exponential(parse_params(&own)?),
            Some("empirical") => DelaySpec::Empirical(parse_params(&own)?),
            _ => {
                let given = tag.map_or("missing".to_string(), |t| {
                    format!("{} is not a distribution", json(&t))
                });
                return Err((
                    "distribution".into(),
                    format!("{given}; use one of {DISTRIBUTIONS}"),
                ));
            }
        })
    }

    /// Checks the table at `path` (`links[0].impairments[1].delay`): bounds in order,
    /// an empirical table's values and weights.
    pub fn check(&self, path: &str) -> Result<(), ScenarioError> {
        match self {
            DelaySpec::Uniform(u) if u.min.0 > u.max.0 => Err(ScenarioError::new(
                format!("{path}.min"),
                format!("{} is larger than max ({})", u.min.0, u.max.0),
            )),
            DelaySpec::Empirical(EmpiricalDelay { values, .. }) if values.is_empty() => Err(
                ScenarioError::new(format!("{path}.values"), "needs at least one delay"),
            ),
            DelaySpec::Empirical(EmpiricalDelay {
                values,
                weights: Some(w),
            }) => {
                if w.len() != values.len() {
                    return Err(ScenarioError::new(
                        format!("{path}.weights"),
                        format!("has {} entries for {} values", w.len(), values.len()),
                    ));
                }
                if let Some(i) = w.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
                    return Err(ScenarioError::new(
                        format!("{path}.weights[{i}]"),
                        format!("{} is not a weight; use a value ≥ 0", w[i]),
                    ));
                }
                if w.iter().sum::<f64>() <= 0.0 {
                    return Err(ScenarioError::new(
                        format!("{path}.weights"),
                        "all weights are zero",
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The kernel's distribution of this table.
    pub fn distribution(&self) -> DelayDistribution {
        match self {
            DelaySpec::Constant(c) => DelayDistribution::Constant(c.value.0),
            DelaySpec::Uniform(u) => DelayDistribution::Uniform {
                min: u.min.0,
                max: u.max.0,
            },
            DelaySpec::Normal(n) => DelayDistribution::Normal {
                mean: n.mean.0,
                sd: n.sd.0,
            },
            DelaySpec::Exponential(e) => DelayDistribution::Exponential { mean: e.mean.0 },
            DelaySpec::Empirical(e) => DelayDistribution::empirical(
                e.values.iter().map(|v| v.0).collect(),
                e.weights.as_deref(),
            ),
        }
    }
}

/// A delay table's field error, with `delay` in front of its path.
pub(super) fn in_delay((field, message): FieldError) -> FieldError {
    let path = if field.is_empty() {
        "delay".to_string()
    } else {
        format!("delay.{field}")
    };
    (path, message)
}
