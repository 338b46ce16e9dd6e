//! The `cc` field of a flow: a congestion-control name, optionally with
//! parameters: `cc = "vegas"` or `cc = { name = "vegas", alpha = 1, beta = 3 }`.
//!
//! The parameters are kept as a JSON object here and deserialized into the
//! variant's own config struct (defined beside the variant in `cc/`) when the
//! scenario is checked, so that each variant owns its parameters and their
//! defaults, and unknown parameters are errors that name the field.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

pub use crate::params::parse_params;

#[derive(Clone, Debug, PartialEq)]
pub struct CcSpec {
    pub name: String,
    /// Parameters other than `name` (empty for the defaults).
    pub params: Map<String, Value>,
}

impl CcSpec {
    pub fn named(name: &str) -> Self {
        CcSpec {
            name: name.to_string(),
            params: Map::new(),
        }
    }
}

impl Default for CcSpec {
    fn default() -> Self {
        CcSpec::named("newreno")
    }
}

struct CcVisitor;

impl<'de> Visitor<'de> for CcVisitor {
    type Value = CcSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "a congestion-control name such as \"cubic\", or a table such as {{ name = \"vegas\", alpha = 1 }}"
        )
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<CcSpec, E> {
        Ok(CcSpec::named(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CcSpec, A::Error> {
        let mut params = Map::new();
        let mut name = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "name" {
                name = Some(map.next_value::<String>()?);
            } else {
                let value = map.next_value::<Value>()?;
                params.insert(key, value);
            }
        }
        let name = name.ok_or_else(|| de::Error::missing_field("name"))?;
        Ok(CcSpec { name, params })
    }
}

impl<'de> Deserialize<'de> for CcSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CcVisitor)
    }
}

impl Serialize for CcSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.params.is_empty() {
            return s.serialize_str(&self.name);
        }
        let mut m = self.params.clone();
        m.insert("name".to_string(), Value::String(self.name.clone()));
        m.serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Demo {
        #[serde(default)]
        alpha: u32,
    }

    #[test]
    fn a_name_or_a_table_with_parameters() {
        let s: CcSpec = serde_json::from_str("\"cubic\"").unwrap();
        assert_eq!(s, CcSpec::named("cubic"));
        let t: CcSpec = serde_json::from_str(r#"{"name": "vegas", "alpha": 1}"#).unwrap();
        assert_eq!(t.name, "vegas");
        assert_eq!(parse_params::<Demo>(&t.params), Ok(Demo { alpha: 1 }));
    }

    #[test]
    fn unknown_parameters_are_named() {
        let t: CcSpec = serde_json::from_str(r#"{"name": "vegas", "alhpa": 1}"#).unwrap();
        let (path, msg) = parse_params::<Demo>(&t.params).unwrap_err();
        assert_eq!(path, "alhpa");
        assert!(msg.contains("unknown field \"alhpa\""), "{msg}");
    }
}
