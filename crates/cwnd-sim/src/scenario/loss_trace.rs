//! A loss-probability trace file for the `bernoulli` stage (`p_file`): one step per
//! line, `time, p` — the time in seconds (or with a unit, "1000s", "250ms") and the
//! loss probability in force from then on; commas or spaces separate the two; blank
//! lines and lines starting with `#` are skipped. Times must not go back.

use std::path::Path;

use super::files::{read_text, MAX_FILE_BYTES};
use crate::units::{parse_duration, Duration};

/// The steps of the trace `name` (relative to `base` when given), or a message
/// naming the file and the line at fault. The file is read once, here, when the
/// scenario is loaded; the plan carries the steps.
pub fn read(name: &str, base: Option<&Path>) -> Result<Vec<(Duration, f64)>, String> {
    let text = read_text(name, base, MAX_FILE_BYTES)?;
    parse(&text).map_err(|m| format!("\"{name}\" {m}"))
}

fn parse(text: &str) -> Result<Vec<(Duration, f64)>, String> {
    let mut steps: Vec<(Duration, f64)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |m: String| format!("line {}: {m}", i + 1);
        let fields: Vec<&str> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty())
            .collect();
        let [time, p] = fields[..] else {
            return Err(at(format!("\"{line}\" is not `time, p`")));
        };
        let seconds = if time.ends_with(|c: char| c.is_ascii_digit()) {
            parse_duration(&format!("{time}s"))
        } else {
            parse_duration(time)
        };
        let t = seconds
            .ok_or_else(|| at(format!("\"{time}\" is not a time, e.g. 1000 or \"250ms\"")))?;
        let p: f64 = p
            .parse()
            .ok()
            .filter(|p| (0.0..=1.0).contains(p))
            .ok_or_else(|| at(format!("\"{p}\" is not a probability in [0, 1]")))?;
        if let Some(&(prev, _)) = steps.last() {
            if t < prev.0 {
                return Err(at(format!(
                    "{t} comes before the previous step ({})",
                    prev.0
                )));
            }
        }
        steps.push((Duration(t), p));
    }
    if steps.is_empty() {
        return Err("has no `time, p` line".into());
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    #[test]
    fn steps_comments_and_units() {
        let steps = parse("# time, p\n0, 0.01\n\n1000 0.02\n1500ms,0.5\n").unwrap_err();
        assert_eq!(
            steps,
            "line 5: 1.500000000s comes before the previous step (1000.000000000s)"
        );
        let steps = parse("# time, p\n0, 0.01\n\n1000 0.02\n2000s,0.5\n").unwrap();
        let want = [(0, 0.01), (1000, 0.02), (2000, 0.5)];
        for ((t, p), (ws, wp)) in steps.iter().zip(want) {
            assert_eq!((t.0, *p), (SimTime::from_secs(ws), wp));
        }
    }

    #[test]
    fn bad_lines_are_named() {
        assert_eq!(
            parse("0, 1.5").unwrap_err(),
            "line 1: \"1.5\" is not a probability in [0, 1]"
        );
        assert_eq!(
            parse("\nsoon, 0.1").unwrap_err(),
            "line 2: \"soon\" is not a time, e.g. 1000 or \"250ms\""
        );
        assert_eq!(
            parse("0 0.1 7").unwrap_err(),
            "line 1: \"0 0.1 7\" is not `time, p`"
        );
        assert_eq!(parse("# nothing\n").unwrap_err(), "has no `time, p` line");
    }
}
