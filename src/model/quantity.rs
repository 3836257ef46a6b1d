//! Kubernetes resource quantities, parsed exactly as apimachinery's `resource.ParseQuantity` does
//! (api/resource/quantity.go), and converted with its rounding rules: `Value()` and `MilliValue()`
//! round up to the next integer.
//!
//! A quantity is held as an exact count of nano-units (10^-9), which covers every suffix from `n`
//! to `Ei` without loss for the magnitudes a cluster uses; finer fractions round up to the next
//! nano-unit, as apimachinery rounds up when it scales.

use std::fmt;

/// An exact quantity in nano-units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Quantity {
    nanos: i128,
}

/// Why a string is not a quantity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{input}' is not a valid quantity: {why} (examples: 500m, 2, 1.5Gi, 100Mi, 1e3)")]
pub struct QuantityError {
    /// The text that was given.
    pub input: String,
    /// What is wrong with it.
    pub why: &'static str,
}

const NANO: i128 = 1_000_000_000;

impl Quantity {
    /// A quantity of `v` whole units.
    pub fn from_units(v: i64) -> Self {
        Quantity {
            nanos: i128::from(v) * NANO,
        }
    }

    /// A quantity of `v` milli-units.
    pub fn from_millis(v: i64) -> Self {
        Quantity {
            nanos: i128::from(v) * 1_000_000,
        }
    }

    /// A quantity of `v` nano-units.
    pub fn from_nanos(v: i128) -> Self {
        Quantity { nanos: v }
    }

    /// Parses a quantity string (`500m`, `1.5Gi`, `1e3`, `+2`, `.5`).
    pub fn parse(s: &str) -> Result<Self, QuantityError> {
        let err = |why| QuantityError {
            input: s.to_string(),
            why,
        };
        let t = s;
        if t.is_empty() {
            return Err(err("it is empty"));
        }
        let bytes = t.as_bytes();
        let mut i = 0;
        let mut negative = false;
        if bytes[0] == b'+' || bytes[0] == b'-' {
            negative = bytes[0] == b'-';
            i = 1;
        }
        let mut seen_dot = false;
        let mut digits: Vec<u8> = Vec::new();
        let mut frac_digits: i32 = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if c.is_ascii_digit() {
                digits.push(c - b'0');
                if seen_dot {
                    frac_digits += 1;
                }
            } else if c == b'.' {
                if seen_dot {
                    return Err(err("it has more than one decimal point"));
                }
                seen_dot = true;
            } else {
                break;
            }
            i += 1;
        }
        // apimachinery reads an absent numerator as 0 ("." and "-" parse as zero); whatever
        // follows must still be a valid suffix.
        let suffix = &t[i..];
        // (power of ten, power of two)
        let (exp10, exp2): (i32, u32) = match suffix {
            "" => (0, 0),
            "n" => (-9, 0),
            "u" => (-6, 0),
            "m" => (-3, 0),
            "k" => (3, 0),
            "M" => (6, 0),
            "G" => (9, 0),
            "T" => (12, 0),
            "P" => (15, 0),
            "E" => (18, 0),
            "Ki" => (0, 10),
            "Mi" => (0, 20),
            "Gi" => (0, 30),
            "Ti" => (0, 40),
            "Pi" => (0, 50),
            "Ei" => (0, 60),
            _ => {
                let rest = suffix
                    .strip_prefix('e')
                    .or_else(|| suffix.strip_prefix('E'))
                    .ok_or_else(|| {
                        err("its suffix is not one of n u m k M G T P E Ki Mi Gi Ti Pi Ei or an exponent")
                    })?;
                let (sign, digits_part) = match rest.as_bytes().first() {
                    Some(b'-') => (-1, &rest[1..]),
                    Some(b'+') => (1, &rest[1..]),
                    _ => (1, rest),
                };
                if digits_part.is_empty() || !digits_part.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(err("its exponent is not a whole number"));
                }
                let e: i32 = digits_part.parse().map_err(|_| err("its exponent is too large"))?;
                if e > 40 {
                    return Err(err("its exponent is too large"));
                }
                (sign * e, 0)
            }
        };
        // value = digits * 10^(exp10 - frac_digits) * 2^exp2, in nanos: * 10^9
        let mut mantissa: i128 = 0;
        for d in &digits {
            mantissa = mantissa
                .checked_mul(10)
                .and_then(|m| m.checked_add(i128::from(*d)))
                .ok_or_else(|| err("it is too large"))?;
        }
        let mut p10 = exp10 - frac_digits + 9;
        let mut value = mantissa
            .checked_mul(1i128 << exp2)
            .ok_or_else(|| err("it is too large"))?;
        while p10 > 0 {
            value = value.checked_mul(10).ok_or_else(|| err("it is too large"))?;
            p10 -= 1;
        }
        if p10 < 0 {
            let div = 10i128.checked_pow(p10.unsigned_abs()).unwrap_or(i128::MAX);
            // round up away from zero for positives, as apimachinery rounds up when scaling
            value = if value % div == 0 { value / div } else { value / div + 1 };
        }
        // A binary-suffixed amount is capped at 2^63-1 units (maxAllowed).
        if exp2 > 0 {
            value = value.min(i128::from(i64::MAX) * NANO);
        }
        if negative {
            value = -value;
        }
        Ok(Quantity { nanos: value })
    }

    /// `Value()`: whole units, rounded up.
    pub fn value(&self) -> i64 {
        clamp(ceil_div(self.nanos, NANO))
    }

    /// `MilliValue()`: milli-units, rounded up.
    pub fn milli_value(&self) -> i64 {
        clamp(ceil_div(self.nanos, 1_000_000))
    }

    /// The exact amount in nano-units.
    pub fn nanos(&self) -> i128 {
        self.nanos
    }

    /// True when the quantity is zero.
    pub fn is_zero(&self) -> bool {
        self.nanos == 0
    }
}

impl std::ops::Add for Quantity {
    type Output = Quantity;

    /// Sum of two quantities (saturating).
    fn add(self, o: Quantity) -> Quantity {
        Quantity {
            nanos: self.nanos.saturating_add(o.nanos),
        }
    }
}

fn ceil_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && a > 0 { q + 1 } else { q }
}

fn clamp(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v > 0 { i64::MAX } else { i64::MIN })
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.nanos % NANO == 0 {
            write!(f, "{}", self.nanos / NANO)
        } else if self.nanos % 1_000_000 == 0 {
            write!(f, "{}m", self.nanos / 1_000_000)
        } else {
            write!(f, "{}n", self.nanos)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).expect(s)
    }

    #[test]
    fn upstream_value_and_milli_value_cases() {
        // (input, Value(), MilliValue()) as apimachinery computes them
        let cases = [
            ("0", 0, 0),
            ("1", 1, 1000),
            ("100m", 1, 100),
            ("0.5", 1, 500),
            (".5", 1, 500),
            ("5.", 5, 5000),
            ("1.5Gi", 1_610_612_736, 1_610_612_736_000),
            ("512Mi", 536_870_912, 536_870_912_000),
            ("1e3", 1000, 1_000_000),
            ("1E3", 1000, 1_000_000),
            ("1e-3", 1, 1),
            ("2k", 2000, 2_000_000),
            ("1Ki", 1024, 1_024_000),
            ("16Gi", 17_179_869_184, 17_179_869_184_000),
            ("1717986918", 1_717_986_918, 1_717_986_918_000),
            ("+3", 3, 3000),
            ("-3", -3, -3000),
            ("1n", 1, 1),
            ("1u", 1, 1),
            ("1500u", 1, 2),
            ("2400m", 3, 2400),
            ("0.1", 1, 100),
            ("1.1m", 1, 2),
            ("12M", 12_000_000, 12_000_000_000),
        ];
        for (s, v, m) in cases {
            assert_eq!((q(s).value(), q(s).milli_value()), (v, m), "{s}");
        }
    }

    #[test]
    fn invalid_quantities_name_the_problem() {
        for s in ["", "1.5.3", "abc", "1Qi", "1e", "1ee3", "--1", "1 Gi"] {
            assert!(Quantity::parse(s).is_err(), "{s:?} should not parse");
        }
        let e = Quantity::parse("1.5.3").unwrap_err();
        assert_eq!(
            e.to_string(),
            "'1.5.3' is not a valid quantity: it has more than one decimal point (examples: 500m, 2, 1.5Gi, 100Mi, 1e3)"
        );
    }

    #[test]
    fn sums_are_exact() {
        assert_eq!((q("100m") + q("900m")).value(), 1);
        assert_eq!(q("0.5Gi") + q("512Mi"), q("1Gi"));
    }

    /// `decQuantity(i, exponent)` as nano-units: i × 10^(exponent + 9).
    fn dec(i: i128, exponent: i32) -> i128 {
        let e = exponent + 9;
        assert!(e >= 0);
        i * 10i128.pow(e.unsigned_abs())
    }

    /// apimachinery quantity_test.go TestQuantityParse: every input, also with a leading `-`
    /// (negated) and `+` (unchanged).
    #[test]
    fn parse_cases_from_upstream() {
        let max_allowed = dec(i128::from(i64::MAX), 0);
        let cases: &[(&str, i128)] = &[
            ("0", 0),
            ("0n", 0),
            ("0u", 0),
            ("0m", 0),
            ("0Ki", 0),
            ("0k", 0),
            ("0Mi", 0),
            ("0M", 0),
            ("0Gi", 0),
            ("0G", 0),
            ("0Ti", 0),
            ("0T", 0),
            // Quantity less numbers are allowed
            ("1", dec(1, 0)),
            // Binary suffixes
            ("1Ki", dec(1024, 0)),
            ("8Ki", dec(8 * 1024, 0)),
            ("7Mi", dec(7 * 1024 * 1024, 0)),
            ("6Gi", dec(6 * 1024 * 1024 * 1024, 0)),
            ("5Ti", dec(5 * 1024 * 1024 * 1024 * 1024, 0)),
            ("4Pi", dec(4 * 1024 * 1024 * 1024 * 1024 * 1024, 0)),
            ("3Ei", dec(3 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024, 0)),
            ("10Ti", dec(10 * 1024 * 1024 * 1024 * 1024, 0)),
            ("100Ti", dec(100 * 1024 * 1024 * 1024 * 1024, 0)),
            // Decimal suffixes
            ("5n", dec(5, -9)),
            ("4u", dec(4, -6)),
            ("3m", dec(3, -3)),
            ("9", dec(9, 0)),
            ("8k", dec(8, 3)),
            ("50k", dec(5, 4)),
            ("7M", dec(7, 6)),
            ("6G", dec(6, 9)),
            ("5T", dec(5, 12)),
            ("40T", dec(4, 13)),
            ("300T", dec(3, 14)),
            ("2P", dec(2, 15)),
            ("1E", dec(1, 18)),
            // Decimal exponents
            ("1E-3", dec(1, -3)),
            ("1e3", dec(1, 3)),
            ("1E6", dec(1, 6)),
            ("1e9", dec(1, 9)),
            ("1E12", dec(1, 12)),
            ("1e15", dec(1, 15)),
            ("1E18", dec(1, 18)),
            // Nonstandard but still parsable
            ("1e14", dec(1, 14)),
            ("1e13", dec(1, 13)),
            ("1e3", dec(1, 3)),
            ("100.035k", dec(100035, 0)),
            // Things that look like floating point
            ("0.001", dec(1, -3)),
            ("0.0005k", dec(5, -1)),
            ("0.005", dec(5, -3)),
            ("0.05", dec(5, -2)),
            ("0.5", dec(5, -1)),
            ("0.00050k", dec(5, -1)),
            ("0.00500", dec(5, -3)),
            ("0.05000", dec(5, -2)),
            ("0.50000", dec(5, -1)),
            ("0.5e0", dec(5, -1)),
            ("0.5e-1", dec(5, -2)),
            ("0.5e-2", dec(5, -3)),
            ("0.5e0", dec(5, -1)),
            ("10.035M", dec(10035, 3)),
            ("1.2e3", dec(12, 2)),
            ("1.3E+6", dec(13, 5)),
            ("1.40e9", dec(14, 8)),
            ("1.53E12", dec(153, 10)),
            ("1.6e15", dec(16, 14)),
            ("1.7E18", dec(17, 17)),
            ("9.01", dec(901, -2)),
            ("8.1k", dec(81, 2)),
            ("7.123456M", dec(7123456, 0)),
            ("6.987654321G", dec(6987654321, 0)),
            ("5.444T", dec(5444, 9)),
            ("40.1T", dec(401, 11)),
            ("300.2T", dec(3002, 11)),
            ("2.5P", dec(25, 14)),
            ("1.01E", dec(101, 16)),
            // Things that saturate/round
            ("3.001n", dec(4, -9)),
            ("1.1E-9", dec(2, -9)),
            ("0.0000000001", dec(1, -9)),
            ("0.0000000005", dec(1, -9)),
            ("0.00000000050", dec(1, -9)),
            ("0.5e-9", dec(1, -9)),
            ("0.9n", dec(1, -9)),
            ("0.00000012345", dec(124, -9)),
            ("0.00000012354", dec(124, -9)),
            ("9Ei", max_allowed),
            ("9223372036854775807Ki", max_allowed),
            ("12E", dec(12, 18)),
            // We'll accept fractional binary stuff, too.
            ("100.035Ki", dec(10243584, -2)),
            ("0.5Mi", dec(524288, 0)),
            ("0.05Gi", dec(536870912, -1)),
            ("0.025Ti", dec(274877906944, -1)),
            // Things written by trolls
            ("0.000000000001Ki", dec(2, -9)),
            (".001", dec(1, -3)),
            (".0001k", dec(100, -3)),
            ("1.", dec(1, 0)),
            ("1.G", dec(1, 9)),
        ];
        for (input, want) in cases {
            assert_eq!(q(input).nanos(), *want, "{input}");
            assert_eq!(q(&format!("-{input}")).nanos(), -*want, "-{input}");
            assert_eq!(q(&format!("+{input}")).nanos(), *want, "+{input}");
        }
    }

    /// TestQuantityParse's invalid inputs (those that 1.30 also rejects).
    #[test]
    fn invalid_cases_from_upstream() {
        for s in [
            "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 ",
        ] {
            assert!(Quantity::parse(s).is_err(), "{s:?} should not parse");
        }
        assert!(Quantity::parse("").is_err());
    }

    /// TestParseQuantityString: an absent numerator reads as 0, so "." and "-." are zero.
    #[test]
    fn missing_numerator_is_zero() {
        for s in [".", "-.", "+.", "-", "m", "Ki"] {
            assert_eq!(q(s), Quantity::default(), "{s:?}");
        }
    }

    /// TestQuantityParseEmit: the values behind the canonical forms.
    #[test]
    fn parse_emit_values_from_upstream() {
        for (s, nanos) in [
            ("1Ki", dec(1024, 0)),
            ("1Mi", dec(1 << 20, 0)),
            ("1Gi", dec(1 << 30, 0)),
            ("1024Mi", dec(1 << 30, 0)),
            ("1000M", dec(1, 9)),
            (".001Ki", dec(1024, -3)),
            (".000001Ki", dec(1024, -6)),
            (".000000001Ki", dec(1024, -9)),
            (".000000000001Ki", dec(2, -9)),
        ] {
            assert_eq!(q(s).nanos(), nanos, "{s}");
            assert_eq!(q(&format!("-{s}")).nanos(), -nanos, "-{s}");
        }
    }
}
