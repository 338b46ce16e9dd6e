//! Loading a scenario: text (TOML, or JSON such as the Python API and a plan's
//! own `to_json` give) → spec → the files it names read, once → checked `Plan`.
//! The one way in: the CLI, the Python API, sweeps and the tests all load here.

use std::path::Path;

use super::error::ScenarioError;
use super::plan::Plan;
use super::spec::Scenario;
use crate::params::in_scenario_words;

/// Loads the scenario `text`, TOML or JSON (a text starting with `{`), reading the
/// files it names (`p_file`) relative to `base_dir` (the scenario file's folder)
/// when given, else to the working directory.
pub fn load(text: &str, base_dir: Option<&Path>) -> Result<Plan, ScenarioError> {
    let mut spec = if text.trim_start().starts_with('{') {
        parse_json(text)?
    } else {
        parse_toml(text)?
    };
    spec.inline_files(base_dir)?;
    Plan::new(spec)
}

/// Loads (files relative to the working directory), builds and runs a scenario
/// given as TOML or JSON.
pub fn run_toml(text: &str, seed: u64) -> Result<crate::results::RunResults, ScenarioError> {
    Ok(super::build(&load(text, None)?, seed).run())
}

impl Scenario {
    /// Parses and checks a scenario written in TOML (files relative to the working
    /// directory); the checked spec, with the files' contents in it.
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        Scenario::from_toml_in(text, None)
    }

    /// The same with the files relative to `base_dir` when given.
    pub fn from_toml_in(text: &str, base_dir: Option<&Path>) -> Result<Scenario, ScenarioError> {
        let mut spec = parse_toml(text)?;
        spec.inline_files(base_dir)?;
        let plan = Plan::new(spec)?;
        Ok(plan.spec().clone())
    }

    /// Parses and checks a scenario given as JSON.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        Ok(load(text, None)?.spec().clone())
    }

    /// Reads every file the scenario names into it (a capacity's `trace` → its
    /// `trace_ms`, a stage's `p_file` → its steps), so that the spec no longer
    /// depends on any file.
    fn inline_files(&mut self, base: Option<&Path>) -> Result<(), ScenarioError> {
        for (i, l) in self.links.iter_mut().enumerate() {
            if let Some(capacity) = &mut l.capacity {
                capacity.inline_trace(base).map_err(|(field, message)| {
                    ScenarioError::new(format!("links[{i}].capacity.{field}"), message)
                })?;
            }
        }
        let links = self.links.iter_mut().map(|l| &mut l.impairments);
        let air = self.wireless.iter_mut().map(|w| &mut w.impairments);
        let hops = links.enumerate().map(|(i, s)| (format!("links[{i}]"), s));
        let air = air.enumerate().map(|(i, s)| (format!("wireless[{i}]"), s));
        for (at, stages) in hops.chain(air) {
            for (j, imp) in stages.iter_mut().enumerate() {
                imp.inline_files(base).map_err(|(field, message)| {
                    let path = format!("{at}.impairments[{j}]");
                    match field.is_empty() {
                        true => ScenarioError::new(path, message),
                        false => ScenarioError::new(format!("{path}.{field}"), message),
                    }
                })?;
            }
        }
        Ok(())
    }
}

fn parse_toml(text: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::Deserializer::parse(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
        ScenarioError::new("", format!("TOML syntax (line {line}): {}", e.message()))
    })?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let line = e.inner().span().map(|s| line_of(text, s.start));
        let mut err = path_error(e.path(), e.inner().message());
        if let Some(line) = line {
            err.message.push_str(&format!(" (line {line})"));
        }
        err
    })
}

fn parse_json(text: &str) -> Result<Scenario, ScenarioError> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        // serde_json appends " at line L column C"; the path says more.
        let message = e.inner().to_string();
        let message = message.split(" at line ").next().unwrap_or_default();
        path_error(e.path(), message)
    })
}

fn path_error(path: &serde_path_to_error::Path, message: &str) -> ScenarioError {
    let path = path.to_string();
    let path = if path == "." { String::new() } else { path };
    // serde's messages for enums list variants in backquotes; keep them readable
    // and on one line.
    let message = message.replace('`', "\"");
    let message = message.lines().next().unwrap_or_default();
    ScenarioError::new(path, in_scenario_words(message))
}

/// 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_tables_and_lists_not_rust_types() {
        assert_eq!(
            in_scenario_words("invalid type: integer \"3\", expected struct LinkSpec"),
            "invalid type: integer \"3\", expected a table"
        );
        assert_eq!(
            in_scenario_words("invalid type: string \"x\", expected a sequence"),
            "invalid type: string \"x\", expected a list"
        );
        assert_eq!(
            in_scenario_words("invalid type: string \"x\", expected f64"),
            "invalid type: string \"x\", expected a number"
        );
        assert_eq!(
            in_scenario_words("invalid value: integer -1, expected u32"),
            "invalid value: integer -1, expected a whole number"
        );
        let e = load("duration = \"1s\"\nlinks = [3]\nflows = []\n", None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "links[0]: invalid type: integer \"3\", expected a table (line 2)"
        );
    }

    #[test]
    fn a_link_between_three_names_is_refused_from_toml_and_json() {
        // The TOML reader filled a two-element array from the first two and dropped
        // "-5ms"; JSON refused it. Both must name the field.
        let toml = "duration = \"1s\"\n[[links]]\nbetween = [\"a\", \"b\", \"-5ms\"]\n\
                    bandwidth = \"1Mbps\"\ndelay = \"1ms\"\n[[flows]]\nfrom = \"a\"\nto = \"b\"\n";
        let json = r#"{"duration": "1s", "links": [{"between": ["a", "b", "-5ms"],
            "bandwidth": "1Mbps", "delay": "1ms"}], "flows": [{"from": "a", "to": "b"}]}"#;
        let want = "links[0].between: invalid length 3, expected a list of two node names, \
                    e.g. [\"a\", \"b\"]";
        assert_eq!(
            load(toml, None).unwrap_err().to_string(),
            format!("{want} (line 3)")
        );
        assert_eq!(load(json, None).unwrap_err().to_string(), want);
        let one = json.replace(r#", "b", "-5ms""#, "");
        let e = load(&one, None).unwrap_err().to_string();
        assert!(e.starts_with("links[0].between: invalid length 1"), "{e}");
    }
}
