//! Named parameters (a JSON object, as a scenario's `cc` or impairment table gives
//! them) deserialized into a component's own config struct, so that each component
//! owns its parameters and their defaults, and an unknown or mistyped parameter is
//! an error that names it.

use serde::Deserialize;
use serde_json::{Map, Value};

/// Deserializes `params` into `T`; an error is (parameter path relative to the
/// table, message), e.g. `("beta", "unknown field \"beta\", there are no fields")`.
pub fn parse_params<T: for<'de> Deserialize<'de>>(
    params: &Map<String, Value>,
) -> Result<T, (String, String)> {
    // TOML's nan and inf have no JSON form: the table arrives with null in their place
    // (and no scenario writes null), so a null is a number that is not finite.
    if let Some(path) = first_null(params) {
        return Err((
            path,
            "is not a finite number (nan or inf); give a value".into(),
        ));
    }
    let value = Value::Object(params.clone());
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        (
            path,
            in_scenario_words(&e.inner().to_string().replace('`', "\"")),
        )
    })
}

/// The path of the first null in `params` (`"p"`, `"schedule[1][1]"`), if any.
fn first_null(params: &Map<String, Value>) -> Option<String> {
    fn find(value: &Value, path: String) -> Option<String> {
        match value {
            Value::Null => Some(path),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, v)| find(v, format!("{path}[{i}]"))),
            Value::Object(map) => map.iter().find_map(|(k, v)| find(v, format!("{path}.{k}"))),
            _ => None,
        }
    }
    params.iter().find_map(|(k, v)| find(v, k.clone()))
}

/// serde names the Rust type it wanted (`expected struct LinkSpec`, `expected a
/// map`); a scenario's author knows tables and lists.
pub fn in_scenario_words(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("expected struct ") {
        out.push_str(&rest[..at]);
        out.push_str("expected a table");
        let tail = &rest[at + "expected struct ".len()..];
        let name_end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        rest = &tail[name_end..];
    }
    out.push_str(rest);
    let mut out = out
        .replace("expected a map", "expected a table")
        .replace("expected a sequence", "expected a list")
        .replace("expected f64", "expected a number");
    for int in ["u8", "u16", "u32", "u64", "usize", "i32", "i64"] {
        out = out.replace(&format!("expected {int}"), "expected a whole number");
    }
    out
}
