//! A loss-probability trace file for the `bernoulli` stage (`p_file`): one step per
//! line, `time, p` — the time in seconds (or with a unit, "1000s", "250ms") and the
//! loss probability in force from then on; commas or spaces separate the two; blank
//! lines and lines starting with `#` are skipped. Times must not go back.
//!
//! Errors place the fault (line, column) and say what was expected; they never show
//! the file's text (`files.rs`).

use std::path::Path;

use crate::scenario::files::ScenarioFile;
use crate::units::{parse_duration, Duration};

/// The steps of the trace `name` (relative to `base` when given), or a message
/// naming the file and the line and column at fault. The file is read once, here,
/// when the scenario is loaded; the plan carries the steps.
pub fn read(name: &str, base: Option<&Path>) -> Result<Vec<(Duration, f64)>, String> {
    parse(&ScenarioFile::read(name, base)?)
}

fn parse(file: &ScenarioFile) -> Result<Vec<(Duration, f64)>, String> {
    let mut steps: Vec<(Duration, f64)> = Vec::new();
    for line in file.lines() {
        let text = line.text.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let at =
            |part: &str, expected: &str| file.error(line.number, line.column_of(part), expected);
        let fields: Vec<&str> = text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty())
            .collect();
        let [time, p] = fields[..] else {
            let past = fields.get(2).copied().unwrap_or(text);
            return Err(at(past, "two fields, `time, p`"));
        };
        let seconds = if time.ends_with(|c: char| c.is_ascii_digit()) {
            parse_duration(&format!("{time}s"))
        } else {
            parse_duration(time)
        };
        let t = seconds.ok_or_else(|| at(time, "a time, e.g. 1000 or 250ms"))?;
        let p: f64 = p
            .parse()
            .ok()
            .filter(|p| (0.0..=1.0).contains(p))
            .ok_or_else(|| at(p, "a probability in [0, 1]"))?;
        if steps.last().is_some_and(|&(prev, _)| t < prev.0) {
            return Err(at(time, "a time no earlier than the previous step's"));
        }
        steps.push((Duration(t), p));
    }
    if steps.is_empty() {
        return Err(file.error_in_whole("at least one `time, p` line"));
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn parse_text(text: &str) -> Result<Vec<(Duration, f64)>, String> {
        parse(&ScenarioFile::from_text("loss.csv", text))
    }

    #[test]
    fn steps_comments_and_units() {
        let steps = parse_text("# time, p\n0, 0.01\n\n1000 0.02\n2000s,0.5\n").unwrap();
        let want = [(0, 0.01), (1000, 0.02), (2000, 0.5)];
        for ((t, p), (ws, wp)) in steps.iter().zip(want) {
            assert_eq!((t.0, *p), (SimTime::from_secs(ws), wp));
        }
    }

    #[test]
    fn bad_lines_are_placed_and_never_shown() {
        // Line 5 "1500ms,0.5": 1.5 s comes before the 1000 s of line 4.
        assert_eq!(
            parse_text("# time, p\n0, 0.01\n\n1000 0.02\n1500ms,0.5\n").unwrap_err(),
            "\"loss.csv\" line 5, column 1: expected a time no earlier than the previous step's"
        );
        // "0, 1.5": the probability starts at column 4.
        assert_eq!(
            parse_text("0, 1.5").unwrap_err(),
            "\"loss.csv\" line 1, column 4: expected a probability in [0, 1]"
        );
        // Indented "soon": column 3 of line 2 (the trim keeps columns of the line).
        assert_eq!(
            parse_text("\n  soon, 0.1").unwrap_err(),
            "\"loss.csv\" line 2, column 3: expected a time, e.g. 1000 or 250ms"
        );
        // A third field at column 7.
        assert_eq!(
            parse_text("0 0.1 7").unwrap_err(),
            "\"loss.csv\" line 1, column 7: expected two fields, `time, p`"
        );
        // A line of one field (root's line of /etc/shadow): placed at its start.
        let e = parse_text("root:$6$secret:19000:0:99999:7:::\n").unwrap_err();
        assert_eq!(
            e,
            "\"loss.csv\" line 1, column 1: expected two fields, `time, p`"
        );
        assert!(!e.contains("root") && !e.contains("secret"), "{e}");
        assert_eq!(
            parse_text("# nothing\n").unwrap_err(),
            "\"loss.csv\": expected at least one `time, p` line"
        );
    }
}
