//! Quantities with units, as written in scenario files: `"2ms"`, `"10Mbps"`, `"1500B"`.
//!
//! Numbers are parsed as exact decimals (`"0.1s"` is exactly 100 000 000 ns, not the
//! nearest double), then rounded to the nearest integer of the base unit.
//! Decimal prefixes are decimal and binary prefixes are binary: `KB` = 1000 B,
//! `KiB` = 1024 B, `Mbps` = 10⁶ bit/s. Rates are always in bits per second.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

use crate::time::SimTime;

/// An exact non-negative decimal `mantissa × 10^-scale`, the numeric part of a quantity.
struct Decimal {
    mantissa: u128,
    scale: u32,
}

impl Decimal {
    fn parse(text: &str) -> Option<Decimal> {
        let (int_part, frac_part) = match text.split_once('.') {
            Some((i, f)) => (i, f),
            None => (text, ""),
        };
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let digits_ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if !digits_ok(int_part) || !digits_ok(frac_part) || frac_part.len() > 18 {
            return None;
        }
        let mut mantissa: u128 = 0;
        for b in int_part.bytes().chain(frac_part.bytes()) {
            mantissa = mantissa.checked_mul(10)?.checked_add((b - b'0') as u128)?;
        }
        Some(Decimal {
            mantissa,
            scale: frac_part.len() as u32,
        })
    }

    /// `self × factor`, rounded to the nearest integer; `None` on overflow of u64.
    fn times(&self, factor: u64) -> Option<u64> {
        let num = self.mantissa.checked_mul(factor as u128)?;
        let den = 10u128.pow(self.scale);
        let rounded = (num + den / 2) / den;
        u64::try_from(rounded).ok()
    }
}

/// Splits `"12.5ms"` into `("12.5", "ms")`, ignoring spaces between them.
fn split_number_unit(text: &str) -> (&str, &str) {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    (&text[..end], text[end..].trim())
}

fn parse_with_units(text: &str, units: &[(&str, u64)]) -> Option<u64> {
    let (number, unit) = split_number_unit(text);
    let factor = units.iter().find(|(name, _)| *name == unit)?.1;
    Decimal::parse(number)?.times(factor)
}

const TIME_UNITS: &[(&str, u64)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("min", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

const RATE_UNITS: &[(&str, u64)] = &[
    ("bps", 1),
    ("kbps", 1_000),
    ("Kbps", 1_000),
    ("Mbps", 1_000_000),
    ("Gbps", 1_000_000_000),
];

const SIZE_UNITS: &[(&str, u64)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];

/// Parses a duration such as `"2ms"`, `"0.5s"`, `"250us"`.
pub fn parse_duration(text: &str) -> Option<SimTime> {
    parse_with_units(text, TIME_UNITS).map(SimTime)
}

/// Parses a bit rate such as `"10Mbps"` into bits per second.
pub fn parse_rate(text: &str) -> Option<u64> {
    parse_with_units(text, RATE_UNITS)
}

/// Parses a size such as `"1500B"`, `"64KB"` (64 000) or `"64KiB"` (65 536) into bytes.
pub fn parse_size(text: &str) -> Option<u64> {
    parse_with_units(text, SIZE_UNITS)
}

/// A duration written with a unit in a scenario file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub SimTime);

/// A duration written with a unit, or `"off"` for none (e.g. a lifetime that never
/// ends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DurationOrOff(pub Option<SimTime>);

/// A bit rate written with a unit in a scenario file, in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Rate(pub u64);

/// A size written with a unit in a scenario file, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Size(pub u64);

/// Shared deserializer: a string with a unit, parsed by `parse`, with an error that
/// shows the offending text and an example of a valid value.
struct UnitVisitor<T> {
    what: &'static str,
    example: &'static str,
    parse: fn(&str) -> Option<T>,
}

impl<T> Visitor<'_> for UnitVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "a {} as a string with a unit, e.g. \"{}\"",
            self.what, self.example
        )
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.parse)(v).ok_or_else(|| {
            E::custom(format!(
                "\"{v}\" is not a {}; use e.g. \"{}\"",
                self.what, self.example
            ))
        })
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Err(E::custom(format!(
            "{v} has no unit; write a {} as a string, e.g. \"{}\"",
            self.what, self.example
        )))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_i64(v as i64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Err(E::custom(format!(
            "{v} has no unit; write a {} as a string, e.g. \"{}\"",
            self.what, self.example
        )))
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor {
            what: "duration",
            example: "2ms",
            parse: |s| parse_duration(s).map(Duration),
        })
    }
}

impl<'de> Deserialize<'de> for DurationOrOff {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor {
            what: "duration or \"off\"",
            example: "500ms",
            parse: |s| match s {
                "off" => Some(DurationOrOff(None)),
                _ => parse_duration(s).map(|t| DurationOrOff(Some(t))),
            },
        })
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor {
            what: "rate",
            example: "10Mbps",
            parse: |s| parse_rate(s).map(Rate),
        })
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor {
            what: "size",
            example: "1500B",
            parse: |s| parse_size(s).map(Size),
        })
    }
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}ns", self.0.as_nanos()))
    }
}

impl Serialize for DurationOrOff {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(t) => Duration(t).serialize(s),
            None => s.serialize_str("off"),
        }
    }
}

impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}bps", self.0))
    }
}

impl Serialize for Size {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}B", self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_exactly() {
        assert_eq!(parse_duration("2ms"), Some(SimTime(2_000_000)));
        assert_eq!(parse_duration("0.1s"), Some(SimTime(100_000_000)));
        assert_eq!(parse_duration("250us"), Some(SimTime(250_000)));
        assert_eq!(parse_duration("1.5 ms"), Some(SimTime(1_500_000)));
        assert_eq!(parse_duration("1h"), Some(SimTime(3_600_000_000_000)));
        assert_eq!(parse_duration(".5s"), Some(SimTime(500_000_000)));
    }

    #[test]
    fn rates_and_sizes_use_decimal_and_binary_prefixes() {
        assert_eq!(parse_rate("10Mbps"), Some(10_000_000));
        assert_eq!(parse_rate("1.5Gbps"), Some(1_500_000_000));
        assert_eq!(parse_size("64KB"), Some(64_000));
        assert_eq!(parse_size("64KiB"), Some(65_536));
        assert_eq!(parse_size("1500B"), Some(1500));
    }

    #[test]
    fn bad_quantities_are_rejected() {
        for bad in ["10Mbs", "ms", "", "1.2.3s", "-1s", "10", "1e3ms"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
            assert_eq!(parse_rate(bad), None, "{bad}");
        }
        assert_eq!(parse_size("64kib"), None);
    }

    #[test]
    fn error_names_the_value_and_an_example() {
        let err = serde_json::from_str::<Rate>("\"10Mbs\"").unwrap_err();
        assert!(
            err.to_string()
                .contains("\"10Mbs\" is not a rate; use e.g. \"10Mbps\""),
            "{err}"
        );
        let err = serde_json::from_str::<Duration>("5").unwrap_err();
        assert!(err.to_string().contains("5 has no unit"), "{err}");
    }
}
