//! Delivery-opportunity traces in mahimahi's mm-link format (R. Netravali et al.,
//! "Mahimahi: Accurate Record-and-Replay for HTTP", USENIX ATC 2015;
//! src/frontend/link_queue.cc of github.com/ravinet/mahimahi, read at ae477d4):
//!
//! * **The file.** One timestamp per line, in whole milliseconds from the link's start,
//!   never decreasing; each line is one delivery opportunity, and several equal lines
//!   are several opportunities in that millisecond. mm-link refuses an empty line, a
//!   line that is not a number, a timestamp smaller than the one before, a file with
//!   none, and a trace whose last timestamp is 0 ("must last for a nonzero amount of
//!   time"); so does `parse_mm_trace`, with the line and column and without echoing
//!   the file. It accepts the digits only (mm-link's `strtol` would also take a sign
//!   or leading blanks) and Windows line ends.
//! * **An opportunity** carries `PACKET_SIZE` = 1504 bytes of what mm-link reads from
//!   its TUN device — an IP packet behind a 4-byte packet-information header (the
//!   device is opened without `IFF_NO_PI`) — so a 1500-byte IP packet takes exactly
//!   one. Accounting is in bytes: a packet may finish in part of an opportunity and
//!   the next packet use the rest, and a packet may start in one opportunity and end
//!   in a later one (mm-link's `packet_in_transit_bytes_left_`). A packet leaves at
//!   the opportunity that sends its last byte; bytes of an opportunity with nothing
//!   queued are lost.
//! * **Timing.** mm-link "rationalizes" before enqueueing: every opportunity up to the
//!   present is used before an arriving packet joins the queue, so an opportunity at
//!   time T serves only packets that arrived before T. The queue is dequeued at the
//!   opportunity's time (mm-link's AQM queues read the wall clock then; here it is
//!   T exactly).
//! * **Looping.** After the last opportunity the trace starts again, shifted by its
//!   last timestamp (`base_timestamp_ += schedule_.back()`), for as long as the run.
//!
//! cwnd differs in one thing: mm-link refuses a packet larger than 1504 bytes with
//! its header, where here it simply spans more opportunities. The link's framing
//! `overhead` does not apply on a trace: the 4-byte header is the trace's own.

use std::fmt;

use crate::time::SimTime;

/// Bytes one delivery opportunity carries (mm-link's `PACKET_SIZE`).
pub const OPPORTUNITY_BYTES: u32 = 1504;
/// Bytes each packet costs beside its IP size: the TUN packet-information header.
pub const FRAME_HEADER: u32 = 4;
/// Largest timestamp accepted (about 31 years), so that times stay in range.
const MAX_MS: u64 = 1_000_000_000_000;

/// The opportunities of one period of a trace, and the period.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryTrace {
    /// Offsets from the start of a period, never decreasing.
    times: Vec<SimTime>,
    /// The last timestamp: the shift from one period to the next.
    period: SimTime,
}

/// An opportunity: the period it falls in and its index in the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    cycle: u64,
    index: usize,
}

impl DeliveryTrace {
    /// The time of opportunity `c`.
    pub fn time(&self, c: Cursor) -> SimTime {
        SimTime(
            self.period
                .as_nanos()
                .saturating_mul(c.cycle)
                .saturating_add(self.times[c.index].as_nanos()),
        )
    }

    /// The opportunity after `c`.
    pub fn next(&self, c: Cursor) -> Cursor {
        if c.index + 1 < self.times.len() {
            Cursor {
                cycle: c.cycle,
                index: c.index + 1,
            }
        } else {
            Cursor {
                cycle: c.cycle + 1,
                index: 0,
            }
        }
    }

    /// The first opportunity strictly after `t`.
    pub fn first_after(&self, t: SimTime) -> Cursor {
        let cycle = t.as_nanos() / self.period.as_nanos();
        let base = self.period.as_nanos() * cycle;
        let index = self
            .times
            .partition_point(|&x| base + x.as_nanos() <= t.as_nanos());
        if index < self.times.len() {
            Cursor { cycle, index }
        } else {
            // Cycle + 1 starts at (cycle + 1) × period > t.
            Cursor {
                cycle: cycle + 1,
                index: 0,
            }
        }
    }

    /// The first opportunity at or after `t`.
    pub fn first_from(&self, t: SimTime) -> Cursor {
        match t.as_nanos().checked_sub(1) {
            Some(before) => self.first_after(SimTime(before)),
            None => Cursor { cycle: 0, index: 0 },
        }
    }

    /// Bits per second the trace offers on average over a period.
    pub fn mean_rate_bps(&self) -> f64 {
        self.times.len() as f64 * OPPORTUNITY_BYTES as f64 * 8.0 / self.period.as_secs_f64()
    }
}

/// Why a trace's text was refused: where, and what is wrong (never the text itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based; 0 for the file as a whole.
    pub line: usize,
    /// 1-based; 0 for the line as a whole.
    pub column: usize,
    pub problem: &'static str,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}", self.problem),
            (l, 0) => write!(f, "line {l}: {}", self.problem),
            (l, c) => write!(f, "line {l}, column {c}: {}", self.problem),
        }
    }
}

/// A trace's text (mm-link's format, above) into its opportunities.
pub fn parse_mm_trace(text: &str) -> Result<DeliveryTrace, TraceError> {
    let at = |line, column, problem| TraceError {
        line,
        column,
        problem,
    };
    let mut times = Vec::new();
    let mut last = 0u64;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.is_empty() {
            return Err(at(
                n,
                0,
                "an empty line; each line must be a timestamp in ms",
            ));
        }
        if let Some(col) = line.find(|c: char| !c.is_ascii_digit()) {
            // Every byte before `col` is an ASCII digit: the byte offset is the column.
            return Err(at(
                n,
                col + 1,
                "not a digit; each line must be a whole number of milliseconds",
            ));
        }
        let ms = match line.parse::<u64>() {
            Ok(ms) if ms <= MAX_MS => ms,
            _ => {
                return Err(at(
                    n,
                    1,
                    "a timestamp over 10^12 ms; use smaller timestamps",
                ))
            }
        };
        if ms < last {
            return Err(at(
                n,
                1,
                "a timestamp smaller than the one before; timestamps must never decrease",
            ));
        }
        last = ms;
        times.push(SimTime::from_millis(ms));
    }
    if times.is_empty() {
        return Err(at(0, 0, "the trace has no timestamps; give at least one"));
    }
    if last == 0 {
        return Err(at(
            times.len(),
            0,
            "the last timestamp is 0 ms; a trace must last more than 0 ms",
        ));
    }
    Ok(DeliveryTrace {
        times,
        period: SimTime::from_millis(last),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> SimTime {
        SimTime::from_millis(t)
    }

    #[test]
    fn opportunities_loop_shifted_by_the_last_timestamp() {
        // "0 5 5 10": period 10 ms; cycle 1's opportunities at 10, 15, 15, 20 ms (its
        // first coincides with cycle 0's last, as in mm-link).
        let t = parse_mm_trace("0\n5\n5\n10\n").unwrap();
        let mut c = t.first_from(SimTime::ZERO);
        let times: Vec<SimTime> = (0..8)
            .map(|_| {
                let at = t.time(c);
                c = t.next(c);
                at
            })
            .collect();
        let expected = [0, 5, 5, 10, 10, 15, 15, 20].map(ms);
        assert_eq!(times, expected);
    }

    #[test]
    fn the_first_opportunity_after_a_time_skips_those_at_it() {
        let t = parse_mm_trace("0\n5\n5\n10").unwrap();
        // Strictly after 5 ms: the 10 ms one (index 3). At or after 5 ms: index 1.
        assert_eq!(t.time(t.first_after(ms(5))), ms(10));
        assert_eq!(t.first_from(ms(5)), Cursor { cycle: 0, index: 1 });
        // After 10 ms (the end of cycle 0): cycle 1's 15 ms.
        assert_eq!(t.time(t.first_after(ms(10))), ms(15));
        // After 1234.5 ms: cycle 123 (1230 ms) + 5 ms = 1235 ms.
        assert_eq!(
            t.time(t.first_after(SimTime::from_micros(1_234_500))),
            ms(1235)
        );
    }

    #[test]
    fn windows_line_ends_are_accepted() {
        let t = parse_mm_trace("1\r\n2\r\n").unwrap();
        assert_eq!(t.time(t.first_after(ms(1))), ms(2));
    }

    #[test]
    fn the_mean_rate_counts_1504_bytes_per_opportunity() {
        // One opportunity per ms: 1504·8 bits per ms = 12.032 Mb/s.
        let t = parse_mm_trace(&(1..=1000).map(|i| format!("{i}\n")).collect::<String>()).unwrap();
        assert!((t.mean_rate_bps() - 12_032_000.0).abs() < 1e-6);
    }

    #[test]
    fn bad_traces_are_refused_with_line_and_column() {
        let err = |text| parse_mm_trace(text).unwrap_err().to_string();
        assert_eq!(err(""), "the trace has no timestamps; give at least one");
        assert_eq!(
            err("1\n\n2"),
            "line 2: an empty line; each line must be a timestamp in ms"
        );
        assert_eq!(
            err("1\n2\n12x4"),
            "line 3, column 3: not a digit; each line must be a whole number of milliseconds"
        );
        assert_eq!(
            err(" 7"),
            "line 1, column 1: not a digit; each line must be a whole number of milliseconds"
        );
        assert_eq!(
            err("5\n7\n6"),
            "line 3, column 1: a timestamp smaller than the one before; timestamps must never decrease"
        );
        assert_eq!(
            err("0\n0"),
            "line 2: the last timestamp is 0 ms; a trace must last more than 0 ms"
        );
        assert_eq!(
            err("99999999999999999999"),
            "line 1, column 1: a timestamp over 10^12 ms; use smaller timestamps"
        );
    }

    #[test]
    fn the_shipped_traces_load_at_their_rates() {
        // tools/mm_traces.py's files. Constant: 1000 opportunities in 1000 ms: 1000 ×
        // 1504 × 8 bits / 1 s = 12.032 Mb/s. Square wave: 2000 + 500 in 2000 ms: 2500 ×
        // 12 032 / 2 = 15.04 Mb/s. The LTE-like one: 8011 in 10 000 ms: 9.638 Mb/s.
        let rate = |text| parse_mm_trace(text).unwrap().mean_rate_bps();
        assert_eq!(
            rate(include_str!(
                "../../../../../scenarios/traces/constant_12mbps.mm"
            )),
            12_032_000.0
        );
        assert_eq!(
            rate(include_str!(
                "../../../../../scenarios/traces/square_24_6mbps.mm"
            )),
            15_040_000.0
        );
        let lte = rate(include_str!(
            "../../../../../scenarios/traces/lte_synthetic.mm"
        ));
        assert!((lte - 8011.0 * 12_032.0 / 10.0).abs() < 1e-6, "{lte}");
    }

    #[test]
    fn an_error_never_echoes_the_file() {
        let secret = "1\n2\nsecret-token";
        assert!(!parse_mm_trace(secret)
            .unwrap_err()
            .to_string()
            .contains("secret"));
    }
}
