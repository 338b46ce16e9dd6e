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
    let value = Value::Object(params.clone());
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        (path, e.inner().to_string().replace('`', "\""))
    })
}
