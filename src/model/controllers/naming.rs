//! Names, uids and hashes as the controllers and apimachinery make them.

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use serde_json::Value;

/// `names.MaxGeneratedNameLength`: 63 minus the 5 random characters.
pub(super) const MAX_GENERATED_NAME_LENGTH: usize = 58;

/// The alphabet of apimachinery's `rand.String` and `SafeEncodeString`.
pub(super) const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// A uid derived from what it names (a real one is random).
pub fn derived_uid(kind: &str, namespace: &str, name: &str) -> String {
    let h1 = crate::model::fnv1a(0xcbf2_9ce4_8422_2325, format!("{kind}/{namespace}/{name}").as_bytes());
    let h2 = crate::model::fnv1a(h1 ^ 0x9e37_79b9_7f4a_7c15, name.as_bytes());
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        h1 >> 32,
        (h1 >> 16) & 0xffff,
        h1 & 0xfff,
        h2 >> 52,
        h2 & 0xffff_ffff_ffff
    )
}

/// FNV-32a (`hash/fnv.New32a`).
pub(super) fn fnv32a(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(*b)).wrapping_mul(0x0100_0193))
}

/// FNV-32 (`hash/fnv.New32`): multiply, then xor.
pub(super) fn fnv32(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(0x811c_9dc5u32, |h, b| h.wrapping_mul(0x0100_0193) ^ u32::from(*b))
}

/// `rand.SafeEncodeString`.
pub fn safe_encode(s: &str) -> String {
    s.chars()
        .map(|c| ALPHANUMS[(c as usize) % ALPHANUMS.len()] as char)
        .collect()
}

/// JSON as Go's `json.Marshal` writes a map: keys sorted, no spaces, `<`, `>`, `&`, U+2028
/// and U+2029 escaped.
pub fn go_json(v: &Value) -> String {
    fn string(s: &str, out: &mut String) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
    }
    fn walk(v: &Value, out: &mut String) {
        match v {
            Value::Object(m) => {
                out.push('{');
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    string(k, out);
                    out.push(':');
                    walk(&m[k], out);
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    walk(x, out);
                }
                out.push(']');
            }
            Value::String(s) => string(s, out),
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    walk(v, &mut out);
    out
}

/// `controller.ComputeHash`'s shape: FNV-32a of the template (here its JSON), the collision
/// count's 8 little-endian bytes, `SafeEncodeString` of the decimal sum.
pub fn template_hash(template: &core::PodTemplateSpec, collision: Option<i32>) -> String {
    let json = go_json(&serde_json::to_value(template).unwrap_or(Value::Null));
    let mut bytes = json.into_bytes();
    if let Some(c) = collision {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&u32::from_ne_bytes(c.to_ne_bytes()).to_le_bytes());
        bytes.extend_from_slice(&b);
    }
    safe_encode(&fnv32a(&bytes).to_string())
}

/// A StatefulSet's revision hash (`history.HashControllerRevision` of `getPatch`): FNV-32 of
/// `{"spec":{"template":{…,"$patch":"replace"}}}`, then the collision count in decimal.
pub fn statefulset_revision_hash(template: &core::PodTemplateSpec, collision: Option<i32>) -> String {
    let mut t = serde_json::to_value(template).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut t {
        m.insert("$patch".into(), Value::String("replace".into()));
    }
    let patch = serde_json::json!({"spec": {"template": t}});
    let mut bytes = go_json(&patch).into_bytes();
    if let Some(c) = collision {
        bytes.extend_from_slice(c.to_string().as_bytes());
    }
    safe_encode(&fnv32(&bytes).to_string())
}

/// The 5 characters `rand.String(5)` would draw, derived from `seed` instead.
pub fn derived_suffix(seed: &str) -> String {
    let mut h = crate::model::fnv1a(0xcbf2_9ce4_8422_2325, seed.as_bytes());
    let mut out = String::with_capacity(5);
    let mut left = 12;
    while out.len() < 5 {
        if left == 0 {
            h = crate::model::fnv1a(h, b"more");
            left = 12;
        }
        let idx = (h & 0x1f) as usize;
        if idx < ALPHANUMS.len() {
            out.push(ALPHANUMS[idx] as char);
        }
        h >>= 5;
        left -= 1;
    }
    out
}

/// `SimpleNameGenerator.GenerateName` with a derived suffix: the base cut to 58 characters.
pub(super) fn generated(base: &str, seed: &str) -> String {
    let base: String = base.chars().take(MAX_GENERATED_NAME_LENGTH).collect();
    format!("{base}{}", derived_suffix(seed))
}

pub(super) fn controller_ref(api: &str, kind: &str, name: &str, uid: &str) -> OwnerReference {
    OwnerReference {
        api_version: api.into(),
        kind: kind.into(),
        name: name.into(),
        uid: uid.into(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}
