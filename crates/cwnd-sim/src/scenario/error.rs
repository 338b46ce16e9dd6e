//! The one error every check returns: where (a field path such as
//! `links[2].bandwidth`) and what is wrong with the value there, for people. It
//! names no topic, so every file of the scenario format can use it without
//! reaching into another's checks.

use std::fmt;

use super::shown::cut_long_values;

/// A scenario that cannot run, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Where: `links[2].bandwidth`, or empty for the whole file.
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    /// The error at `path`. Every value either echoes from the scenario is cut when
    /// long (`shown::cut_long_values`): field names and values a user wrote, and
    /// serde's, a unit's or a parameter's messages that quote them.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: cut_long_values(&path.into()),
            message: cut_long_values(&message.into()),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}
