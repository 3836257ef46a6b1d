//! Short human forms of amounts shared by the text report, the fix hints and the TUI's tables:
//! `250m`, `4`, `512Mi`, `1.5Gi` (the TUI's table helpers are in `app::format`).

/// CPU as Kubernetes writes a quantity: whole cores `4`, else millicores `250m`, `1500m`.
pub(crate) fn cpu(milli: i64) -> String {
    if milli % 1000 == 0 {
        (milli / 1000).to_string()
    } else {
        format!("{milli}m")
    }
}

/// Bytes with binary suffixes, rounded up to one decimal where needed: `512Mi`, `1.5Gi`.
pub(crate) fn bytes(b: i64) -> String {
    const UNITS: [(&str, i64); 5] = [
        ("Pi", 1 << 50),
        ("Ti", 1 << 40),
        ("Gi", 1 << 30),
        ("Mi", 1 << 20),
        ("Ki", 1 << 10),
    ];
    if b == 0 {
        return "0".into();
    }
    let neg = b < 0;
    let a = b.unsigned_abs();
    for (suffix, unit) in UNITS {
        let unit = unit.unsigned_abs();
        if a >= unit {
            let s = if a.is_multiple_of(unit) {
                format!("{}{suffix}", a / unit)
            } else {
                // one decimal, rounded up so "needs X more" never understates
                let tenths = (a * 10).div_ceil(unit);
                if tenths.is_multiple_of(10) {
                    format!("{}{suffix}", tenths / 10)
                } else {
                    format!("{}.{}{suffix}", tenths / 10, tenths % 10)
                }
            };
            return if neg { format!("-{s}") } else { s };
        }
    }
    if neg { format!("-{a}") } else { a.to_string() }
}

/// An amount of a named resource in its natural unit.
pub(crate) fn amount(resource: &str, v: i64) -> String {
    match resource {
        "cpu" => cpu(v),
        "memory" | "ephemeral-storage" => bytes(v),
        r if r.starts_with("hugepages-") => bytes(v),
        _ => v.to_string(),
    }
}
