//! Short human forms of quantities and times for tables: `250m`, `4`, `512Mi`, `3h`. A
//! table's CPU column is in one unit ([`CpuUnit`]): whole cores when every value is one,
//! else millicores, so `4100m` never stands beside `6` or `4.1`.

pub(crate) use crate::explain::format::{amount, bytes, cpu};
use crate::model::resources::Resource;

/// The one unit of a column of CPU amounts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CpuUnit {
    /// Every value is whole cores: `4`, `16`.
    Cores,
    /// Some value is not: every value in millicores, `250m`, `4000m`.
    #[default]
    Milli,
}

impl CpuUnit {
    /// The unit of a column holding these values (milli-cores).
    pub fn of(values: impl IntoIterator<Item = i64>) -> CpuUnit {
        if values.into_iter().all(|m| m % 1000 == 0) {
            CpuUnit::Cores
        } else {
            CpuUnit::Milli
        }
    }

    /// A value of the column: `4` in cores, `4000m` (`0` for nothing) in millicores.
    pub fn show(self, milli: i64) -> String {
        match self {
            CpuUnit::Cores => (milli / 1000).to_string(),
            CpuUnit::Milli if milli == 0 => "0".into(),
            CpuUnit::Milli => format!("{milli}m"),
        }
    }
}

/// The resource names worth showing for a node: the native ones, then every scalar the node
/// has or the pod asks for.
pub(crate) fn resource_names(alloc: &Resource, extra: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = ["cpu", "memory", "pods", "ephemeral-storage"]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
    if alloc.ephemeral_storage == 0 {
        v.retain(|n| n != "ephemeral-storage");
    }
    let mut scalars: Vec<String> = alloc.scalar.keys().cloned().collect();
    for e in extra {
        if !v.contains(&e) && !scalars.contains(&e) {
            scalars.push(e);
        }
    }
    scalars.sort();
    v.extend(scalars);
    v
}

/// Parses an RFC 3339 time to Unix seconds.
#[cfg(test)]
pub(crate) fn unix_seconds(rfc3339: &str) -> Option<i64> {
    rfc3339
        .parse::<k8s_openapi::jiff::Timestamp>()
        .ok()
        .map(|t| t.as_second())
}

/// Age as kubectl prints it: `45s`, `12m`, `5h`, `3d`.
pub(crate) fn age(created: Option<i64>, now: Option<i64>) -> String {
    let (Some(c), Some(now)) = (created, now) else {
        return "-".into();
    };
    let s = (now - c).max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

/// When [`age`] of `created` next reads differently (Unix seconds), seen at `now`.
pub(crate) fn age_changes_at(created: Option<i64>, now: Option<i64>) -> Option<i64> {
    let (c, now) = (created?, now?);
    let s = now - c;
    let unit = match s {
        ..60 => 1,
        60..3600 => 60,
        3600..86_400 => 3600,
        _ => 86_400,
    };
    // a creation in the future reads 0s until it is one second old
    Some(c + (s.max(0) / unit + 1) * unit)
}

/// A duration as kubectl describe prints ages (apimachinery's `duration.HumanDuration`):
/// `90s`, `5m3s`, `45m`, `7h12m`, `30h`, `3d4h`, `20d`, `2y31d`, `9y`.
pub(crate) fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    let s = seconds.max(0);
    if s < 120 {
        return format!("{s}s");
    }
    let (m, h) = (s / 60, s / 3600);
    let with = |big: i64, unit: &str, small: i64, sunit: &str| {
        if small == 0 {
            format!("{big}{unit}")
        } else {
            format!("{big}{unit}{small}{sunit}")
        }
    };
    match () {
        _ if m < 10 => with(m, "m", s % 60, "s"),
        _ if m < 180 => format!("{m}m"),
        _ if h < 8 => with(h, "h", m % 60, "m"),
        _ if h < 48 => format!("{h}h"),
        _ if h < 24 * 8 => with(h / 24, "d", h % 24, "h"),
        _ if h < 24 * 365 * 2 => format!("{}d", h / 24),
        _ if h < 24 * 365 * 8 => with(h / 24 / 365, "y", (h / 24) % 365, "d"),
        _ => format!("{}y", h / 24 / 365),
    }
}

/// When [`human_duration`] of the time since `t` next reads differently (Unix seconds).
pub(crate) fn human_duration_changes_at(t: i64, now: i64) -> i64 {
    let s = (now - t).max(0);
    let unit = match s {
        ..600 => 1,
        600..28_800 => 60,
        28_800..691_200 => 3600,
        _ => 86_400,
    };
    t + (s / unit + 1) * unit
}

/// The AGE column of `kubectl describe`'s events: the first occurrence's age, or for an
/// event seen more than once `LAST (xCOUNT over FIRST)`; `<unknown>` without a time.
pub(crate) fn event_interval(e: &crate::model::SchedulingEvent, now: Option<i64>) -> String {
    let since = |t: Option<k8s_openapi::jiff::Timestamp>| match (t, now) {
        (Some(t), Some(now)) => human_duration(now - t.as_second()),
        _ => "<unknown>".into(),
    };
    if e.count > 1 {
        format!("{} (x{} over {})", since(e.last), e.count, since(e.first))
    } else {
        since(e.first)
    }
}

/// Cuts a string to `width` characters, ending with `…` when cut.
pub(crate) fn ellipsize(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(width - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_duration_reads_as_kubectl_describe_ages() {
        for (s, want) in [
            (-5, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (303, "5m3s"),
            (599, "9m59s"),
            (600, "10m"),
            (10_799, "179m"),
            (10_800, "3h"),
            (25_920, "7h12m"),
            (28_800, "8h"),
            (172_799, "47h"),
            (172_800, "2d"),
            (273_600, "3d4h"),
            (691_200, "8d"),
            (63_071_999, "729d"),
            (63_072_000, "2y"),
            (65_750_400, "2y31d"),
            (252_288_000, "8y"),
            (283_824_000, "9y"),
        ] {
            assert_eq!(human_duration(s), want, "{s}s");
        }
    }

    #[test]
    fn human_duration_changes_when_its_text_does() {
        for s in [
            0, 1, 119, 120, 599, 600, 601, 10_799, 28_799, 28_800, 28_860, 691_199, 691_200, 700_000,
        ] {
            let t = 1_000_000;
            let now = t + s;
            let next = human_duration_changes_at(t, now);
            assert!(next > now, "{s}");
            assert_eq!(human_duration(next - 1 - t), human_duration(s), "{s}: same until then");
            assert_ne!(human_duration(next - t), human_duration(s), "{s}: different at {next}");
        }
    }

    #[test]
    fn cpu_forms() {
        assert_eq!(cpu(250), "250m");
        assert_eq!(cpu(1000), "1");
        assert_eq!(cpu(1500), "1500m");
        assert_eq!(cpu(1250), "1250m");
        assert_eq!(cpu(0), "0");
        assert_eq!(cpu(8000), "8");
    }

    #[test]
    fn a_cpu_column_has_one_unit() {
        let col = [250, 4100, 6000, 0];
        let unit = CpuUnit::of(col);
        assert_eq!(unit, CpuUnit::Milli);
        assert_eq!(col.map(|m| unit.show(m)), ["250m", "4100m", "6000m", "0"]);
        let whole = [4000, 16_000, 0];
        let unit = CpuUnit::of(whole);
        assert_eq!(unit, CpuUnit::Cores);
        assert_eq!(whole.map(|m| unit.show(m)), ["4", "16", "0"]);
        assert_eq!(CpuUnit::of([]), CpuUnit::Cores);
    }

    #[test]
    fn byte_forms_round_up() {
        assert_eq!(bytes(512 * 1024 * 1024), "512Mi");
        assert_eq!(bytes(3 * (1 << 30) / 2), "1.5Gi");
        assert_eq!(bytes((1 << 30) + 1), "1.1Gi");
        assert_eq!(bytes(1717986918), "1.6Gi");
        assert_eq!(bytes(100), "100");
        assert_eq!(bytes(-(1 << 20)), "-1Mi");
    }

    #[test]
    fn ages() {
        let now = unix_seconds("2024-05-01T10:00:00Z");
        assert_eq!(age(unix_seconds("2024-05-01T09:59:15Z"), now), "45s");
        assert_eq!(age(unix_seconds("2024-05-01T09:30:00Z"), now), "30m");
        assert_eq!(age(unix_seconds("2024-04-28T10:00:00Z"), now), "3d");
        assert_eq!(age(None, now), "-");
        assert_eq!(age(unix_seconds("2024-05-01T09:30:00Z"), None), "-");
    }

    #[test]
    fn an_age_changes_exactly_when_it_reads_differently() {
        let c = "2024-05-01T09:00:00Z";
        let c0 = unix_seconds(c).expect("time");
        for s in [-5_i64, 0, 1, 59, 60, 61, 119, 3599, 3600, 7199, 86_399, 86_400, 200_000] {
            let now = Some(c0 + s);
            let t = age_changes_at(Some(c0), now).expect("a change");
            assert!(t > c0 + s, "{s}: the next change is later");
            assert_eq!(age(Some(c0), Some(t - 1)), age(Some(c0), now), "{s}: same until then");
            assert_ne!(age(Some(c0), Some(t)), age(Some(c0), now), "{s}: different at {t}");
        }
        assert_eq!(age_changes_at(None, Some(c0)), None);
        assert_eq!(age_changes_at(Some(c0), None), None);
    }

    #[test]
    fn ellipsis() {
        assert_eq!(ellipsize("abcdef", 4), "abc…");
        assert_eq!(ellipsize("abc", 4), "abc");
    }
}
