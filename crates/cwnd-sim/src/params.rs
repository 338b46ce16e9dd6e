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
        (path, e.inner().to_string().replace('`', "\""))
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
