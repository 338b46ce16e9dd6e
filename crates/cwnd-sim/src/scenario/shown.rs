//! How a scenario's values are shown in error messages: whole when short, cut when
//! long. An error echoes what the user wrote so that they can find it, and 60
//! characters find it; a 5 000-character name or list echoed whole buries the
//! message (and fills a terminal).

/// The most characters of a value a message shows.
pub const SHOWN: usize = 60;

/// `value` quoted (with escapes, as Rust's `{:?}` writes a string), cut when long:
/// `"first 60 characters"… (5000 characters)`.
pub fn quoted(value: &str) -> String {
    let count = value.chars().count();
    if count <= SHOWN {
        return format!("{value:?}");
    }
    let head: String = value.chars().take(SHOWN).collect();
    format!("{head:?}… ({count} characters)")
}

/// `value` unquoted when short (names in a list), quoted and cut like `quoted` when
/// long.
pub fn bare(value: &str) -> String {
    if value.chars().count() <= SHOWN {
        value.to_string()
    } else {
        quoted(value)
    }
}

/// A JSON value (a table or list where a name was expected) as a message shows
/// it: compact, long values cut.
pub fn json(value: &serde_json::Value) -> String {
    cut_long_values(&value.to_string())
}

/// A message written by another layer (serde's, a unit's or a controller
/// parameter's), with every long value in it cut: a stretch in double quotes or
/// backquotes longer than `SHOWN` characters, and any other run of characters
/// without a space that long (a list written without spaces, such as `[1,2,3,…]`).
pub fn cut_long_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(8 * SHOWN));
    let mut rest = message;
    while !rest.is_empty() {
        let (stretch, quote) = next_stretch(rest);
        out.push_str(&cut(stretch, quote));
        rest = &rest[stretch.len()..];
    }
    out
}

/// The stretch `text` starts with: a quoted value with its quotes (`Some(quote)`),
/// one space, or a run of characters up to a space or a quote.
fn next_stretch(text: &str) -> (&str, Option<char>) {
    let first = text.chars().next().unwrap_or(' ');
    if first == '"' || first == '`' {
        let mut escaped = false;
        for (i, c) in text.char_indices().skip(1) {
            if c == first && !escaped {
                return (&text[..i + 1], Some(first));
            }
            escaped = c == '\\' && !escaped;
        }
    }
    if first.is_whitespace() {
        return (&text[..first.len_utf8()], None);
    }
    let end = text
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c.is_whitespace() || c == '"' || c == '`')
        .map_or(text.len(), |(i, _)| i);
    (&text[..end], None)
}

/// A stretch cut after `SHOWN` characters of its value, with the value's length.
fn cut(stretch: &str, quote: Option<char>) -> String {
    let value = match quote {
        Some(_) => &stretch[1..stretch.len() - 1],
        None => stretch,
    };
    let count = value.chars().count();
    if count <= SHOWN {
        return stretch.to_string();
    }
    let head: String = value.chars().take(SHOWN).collect();
    match quote {
        Some(q) => format!("{q}{head}{q}… ({count} characters)"),
        None => format!("{head}… ({count} characters)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_values_are_shown_whole() {
        assert_eq!(quoted("h1"), "\"h1\"");
        assert_eq!(bare("h1"), "h1");
        let sixty = "x".repeat(60);
        assert_eq!(quoted(&sixty), format!("\"{sixty}\""));
    }

    #[test]
    fn long_values_are_cut_at_sixty_characters() {
        // 61 characters: 60 shown, the count given.
        let long = "é".repeat(61);
        let want = format!("\"{}\"… (61 characters)", "é".repeat(60));
        assert_eq!(quoted(&long), want);
        assert_eq!(bare(&long), want);
    }

    #[test]
    fn long_values_inside_other_layers_messages_are_cut() {
        let long = "y".repeat(5000);
        let head = "y".repeat(60);
        // serde's "invalid value: string \"yyy…\"": the value cut inside its quotes.
        let message = format!("invalid value: string \"{long}\", expected a rate");
        assert_eq!(
            cut_long_values(&message),
            format!("invalid value: string \"{head}\"… (5000 characters), expected a rate")
        );
        // serde's unknown field in backquotes; an escaped quote stays inside.
        let message = format!("unknown field `{long}`, expected `name`");
        assert_eq!(
            cut_long_values(&message),
            format!("unknown field `{head}`… (5000 characters), expected `name`")
        );
        let message = format!("\"a\\\"{long}\" is not a node");
        assert_eq!(
            cut_long_values(&message),
            format!("\"a\\\"{}\"… (5003 characters) is not a node", &head[..57])
        );
        // A list written without spaces: 3000 ones, 2999 commas, two brackets.
        let list = format!("[{}]", vec!["1"; 3000].join(","));
        let message = format!("{list} is not a file name");
        assert_eq!(
            cut_long_values(&message),
            format!("{}… (6001 characters) is not a file name", &list[..60])
        );
        // Short values and the words around them are left alone.
        let message = "unknown variant \"warp\", expected one of \"bernoulli\", \"outage\"";
        assert_eq!(cut_long_values(message), message);
    }

    /// Every value of `value` (leaves and table keys) replaced, one at a time, by
    /// `long`: one variant per place.
    fn with_one_value_replaced(
        value: &serde_json::Value,
        long: &serde_json::Value,
    ) -> Vec<serde_json::Value> {
        use serde_json::Value;
        let mut variants = Vec::new();
        match value {
            Value::Object(table) => {
                for (key, inner) in table {
                    for v in with_one_value_replaced(inner, long) {
                        let mut t = table.clone();
                        t.insert(key.clone(), v);
                        variants.push(Value::Object(t));
                    }
                    let mut t = table.clone();
                    let inner = t.remove(key).unwrap_or_default();
                    t.insert(long.as_str().unwrap_or("k").to_string(), inner);
                    variants.push(Value::Object(t));
                }
            }
            Value::Array(items) => {
                for (i, inner) in items.iter().enumerate() {
                    for v in with_one_value_replaced(inner, long) {
                        let mut a = items.clone();
                        a[i] = v;
                        variants.push(Value::Array(a));
                    }
                }
            }
            _ => variants.push(long.clone()),
        }
        variants
    }

    #[test]
    fn no_error_echoes_a_long_value_whole() {
        // Every example scenario with any one value or key replaced by a string of
        // 5 000 characters, or any one value by a list of 2 500 numbers: an error,
        // when there is one, shows at most 60 characters of it, so that the whole
        // message stays under 600 characters (the longest the checks write, a list
        // of 20 node names, is under 400 with names of a few characters).
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
        let string = serde_json::Value::String("w".repeat(5000));
        let list = serde_json::Value::Array(vec![7.into(); 2500]);
        let mut errors = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let scenario: serde_json::Value = toml::from_str(&text).unwrap();
            for long in [&string, &list] {
                for variant in with_one_value_replaced(&scenario, long) {
                    let json = variant.to_string();
                    let Err(e) = super::super::load(&json, path.parent()) else {
                        continue;
                    };
                    let e = e.to_string();
                    assert!(e.chars().count() < 600, "{}: {e}", path.display());
                    errors += 1;
                }
            }
        }
        assert!(errors > 1000, "{errors} errors");
    }
}
