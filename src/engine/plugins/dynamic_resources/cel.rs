//! The DRA layer over CEL (k8s.io/dynamic-resource-allocation `cel/compile.go`): the `device`
//! variable of a device selector and how its expressions are compiled, evaluated and their
//! errors worded. The language itself and the Kubernetes libraries (quantity, semver, strings,
//! lists, sets, regex, urls, ip, format) come from the `cel` crate through `kube-cel`.
//!
//! `device` has `driver` (string), `attributes` and `capacity`: maps from a domain to a map
//! from an attribute (capacity) id to its value. An unqualified attribute name is in the
//! driver's domain; `dom/id` is split at the first `/`. As upstream:
//! - an unknown domain reads as an empty map (`device.attributes["other.com"]` is `{}`), so
//!   `has(device.attributes["other.com"].x)` is false and `device.attributes["other.com"].x`
//!   fails with `no such key: x`; the domains a selector indexes with a literal are filled in
//!   with empty maps to get this (`"dom" in device.attributes` still sees only real domains
//!   unless the same domain is also indexed);
//! - attribute values are typed: int, bool, string, and version as a `kubernetes.Semver`
//!   (parsed strictly; a version that does not parse fails every evaluation on the device);
//!   capacities are `kubernetes.Quantity` values;
//! - `device.allowMultipleAllocations` is declared only with DRAConsumableCapacity.
//!
//! Not reproduced: the runtime cost limit (1,000,000), compile-time type checking (an
//! expression of a non-bool type or naming an unknown field fails at evaluation instead, with
//! the crate's wording), and `cel.bind`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, LazyLock, Mutex};

use k8s_openapi::api::resource::v1 as dra;
use kube_cel::KubeCelExt;
use kube_cel::cel::{Context, ExecutionError, Program, Value};

/// The base environment: the standard library plus the Kubernetes libraries.
static BASE: LazyLock<Context<'static>> = LazyLock::new(|| Context::default().with_all());

/// `quantity(x)` and `semver(x)`, compiled once, to build typed values.
static QUANTITY: LazyLock<Option<Program>> = LazyLock::new(|| Program::compile("quantity(x)").ok());
static SEMVER: LazyLock<Option<Program>> = LazyLock::new(|| Program::compile("semver(x)").ok());

fn string(s: &str) -> Value {
    Value::String(Arc::new(s.to_string()))
}

fn call(p: &LazyLock<Option<Program>>, arg: &str) -> Result<Value, String> {
    let Some(p) = p.as_ref() else {
        return Err("the CEL library is unavailable".into());
    };
    let mut cx = BASE.new_inner_scope();
    cx.add_variable_from_value("x", string(arg));
    p.execute(&cx).map_err(|e| runtime_text(&e))
}

/// An execution error as upstream's cel-go words the common ones.
fn runtime_text(e: &ExecutionError) -> String {
    match e {
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        other => other.to_string(),
    }
}

/// Compiled selector expressions (upstream keeps an LRU cache of 10; compile errors are not
/// kept either way, and the result is the same).
#[derive(Default)]
pub(crate) struct Compiler {
    programs: Mutex<HashMap<String, Arc<Program>>>,
}

impl std::fmt::Debug for Compiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Compiler")
    }
}

impl Compiler {
    /// The program of `expr`, or the compile error as upstream words it
    /// (`CEL compile error: compilation failed: ...`).
    pub(crate) fn compile(&self, expr: &str) -> Result<Arc<Program>, String> {
        let mut m = self.programs.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(p) = m.get(expr) {
            return Ok(p.clone());
        }
        let p = Program::compile(expr).map_err(|e| format!("CEL compile error: compilation failed: {e}"))?;
        let p = Arc::new(p);
        m.insert(expr.to_string(), p.clone());
        Ok(p)
    }

    /// Evaluates `expr` against `device`: true or false, or the error (`CEL compile error:
    /// ...` / `CEL runtime error: ...`).
    pub(crate) fn matches(&self, expr: &str, device: &DeviceValue) -> Result<bool, String> {
        let p = self.compile(expr)?;
        let v = match &device.value {
            Ok(v) => v,
            Err(e) => return Err(format!("CEL runtime error: {e}")),
        };
        let mut cx = BASE.new_inner_scope();
        cx.add_variable_from_value("device", v.clone());
        match p.execute(&cx) {
            Ok(Value::Bool(b)) => Ok(b),
            Ok(other) => Err(format!(
                "CEL runtime error: CEL result of type {} could not be converted to bool",
                type_name(&other)
            )),
            Err(e) => Err(format!("CEL runtime error: {}", runtime_text(&e))),
        }
    }
}

/// `EnhanceRuntimeError` (dynamic-resource-allocation cel/errors.go, 1.37): a runtime error
/// about a missing key gets the hint to use optional chaining or has(); any other is kept.
pub(crate) fn enhance_runtime_error(e: &str) -> String {
    if e.contains("no such key:") {
        format!(
            "{e}. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields"
        )
    } else {
        e.to_string()
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::List(_) => "list",
        Value::Map(_) => "map",
        Value::Int(_) => "int",
        Value::UInt(_) => "uint",
        Value::Float(_) => "double",
        Value::String(_) => "string",
        Value::Bytes(_) => "bytes",
        Value::Bool(_) => "bool",
        Value::Null => "null_type",
        _ => "dyn",
    }
}

/// The domains a selector indexes with a string literal (`attributes["gpu.example.com"]`).
pub(crate) fn indexed_domains(expr: &str, out: &mut BTreeSet<String>) {
    let b = expr.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if j < b.len() && (b[j] == b'"' || b[j] == b'\'') {
                let q = b[j];
                let start = j + 1;
                let mut k = start;
                while k < b.len() && b[k] != q && b[k] != b'\\' {
                    k += 1;
                }
                if k < b.len() && b[k] == q {
                    let mut m = k + 1;
                    while m < b.len() && b[m].is_ascii_whitespace() {
                        m += 1;
                    }
                    if m < b.len() && b[m] == b']' {
                        out.insert(expr[start..k].to_string());
                    }
                }
                i = k;
            }
        }
        i += 1;
    }
}

/// The `device` variable of one device, built once per device and allocation.
#[derive(Clone, Debug)]
pub(crate) struct DeviceValue {
    value: Result<Value, String>,
}

/// (domain, id) of an attribute or capacity name: `dom/id`, or `id` in the driver's domain.
pub(crate) fn split_name<'a>(name: &'a str, driver: &'a str) -> (&'a str, &'a str) {
    match name.split_once('/') {
        Some((d, id)) => (d, id),
        None => (driver, name),
    }
}

fn attribute_value(name: &str, a: &dra::DeviceAttribute) -> Result<Value, String> {
    if let Some(i) = a.int {
        return Ok(Value::Int(i));
    }
    if let Some(b) = a.bool {
        return Ok(Value::Bool(b));
    }
    if let Some(s) = &a.string {
        return Ok(string(s));
    }
    if let Some(v) = &a.version {
        return call(&SEMVER, v).map_err(|e| format!("attribute {name}: parse semantic version: {e}"));
    }
    Err(format!("attribute {name}: unsupported attribute value"))
}

impl DeviceValue {
    /// The `device` of `device` in a slice of `driver`; `domains` are the domains selectors
    /// index (filled in with empty maps), `allow_multiple` declares
    /// `device.allowMultipleAllocations`.
    pub(crate) fn new(driver: &str, device: &dra::Device, domains: &BTreeSet<String>, allow_multiple: bool) -> Self {
        DeviceValue {
            value: Self::build(driver, device, domains, allow_multiple),
        }
    }

    fn build(
        driver: &str,
        device: &dra::Device,
        domains: &BTreeSet<String>,
        allow_multiple: bool,
    ) -> Result<Value, String> {
        let mut attrs: BTreeMap<String, HashMap<String, Value>> = BTreeMap::new();
        for (name, a) in device.attributes.iter().flatten() {
            let (dom, id) = split_name(name, driver);
            attrs
                .entry(dom.to_string())
                .or_default()
                .insert(id.to_string(), attribute_value(name, a)?);
        }
        let mut caps: BTreeMap<String, HashMap<String, Value>> = BTreeMap::new();
        // A capacity published both with and without the driver's domain: the fully-qualified
        // one wins (1.38, #142202; upstream took either before, by map iteration), so the
        // unqualified names go in first.
        let mut named: Vec<(&String, &dra::DeviceCapacity)> = device.capacity.iter().flatten().collect();
        named.sort_by_key(|(name, _)| name.contains('/'));
        for (name, c) in named {
            let (dom, id) = split_name(name, driver);
            caps.entry(dom.to_string())
                .or_default()
                .insert(id.to_string(), call(&QUANTITY, &c.value.0)?);
        }
        for d in domains {
            attrs.entry(d.clone()).or_default();
            caps.entry(d.clone()).or_default();
        }
        let to_map = |m: BTreeMap<String, HashMap<String, Value>>| -> Value {
            let outer: HashMap<String, Value> = m.into_iter().map(|(k, v)| (k, Value::from(v))).collect();
            Value::from(outer)
        };
        let mut dev: HashMap<String, Value> = HashMap::new();
        dev.insert("driver".into(), string(driver));
        dev.insert("attributes".into(), to_map(attrs));
        dev.insert("capacity".into(), to_map(caps));
        if allow_multiple {
            dev.insert(
                "allowMultipleAllocations".into(),
                Value::Bool(device.allow_multiple_allocations.unwrap_or(false)),
            );
        }
        Ok(Value::from(dev))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu() -> dra::Device {
        serde_json::from_value(serde_json::json!({
            "name": "gpu-0",
            "attributes": {
                "model": {"string": "a100-80gb"},
                "migCapable": {"bool": true},
                "index": {"int": 2},
                "driverVersion": {"version": "550.54.15"},
                "productName": {"string": "NVIDIA A100-SXM4-80GB"},
                "resource.kubernetes.io/pcieRoot": {"string": "pci0000:00"}
            },
            "capacity": {"memory": {"value": "80Gi"}}
        }))
        .unwrap()
    }

    fn eval(expr: &str) -> Result<bool, String> {
        let mut domains = BTreeSet::new();
        indexed_domains(expr, &mut domains);
        let d = DeviceValue::new("gpu.example.com", &gpu(), &domains, false);
        Compiler::default().matches(expr, &d)
    }

    #[test]
    fn the_corpus_expression_forms_evaluate_as_upstream() {
        // The forms of ../shared/conformance/dra, with their results on an A100 80GB device.
        let cases: &[(&str, bool)] = &[
            (r#"device.driver == "gpu.example.com""#, true),
            (r#"device.driver == "nic.example.com""#, false),
            (
                r#"device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model.startsWith("h100")"#,
                false,
            ),
            (
                r#"device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0"#,
                true,
            ),
            (
                r#"device.capacity["gpu.example.com"].memory.compareTo(quantity("192Gi")) >= 0"#,
                false,
            ),
            (
                r#"device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("600.0.0"))"#,
                false,
            ),
            (
                r#"device.attributes["gpu.example.com"].driverVersion.compareTo(semver("550.54.15")) >= 0"#,
                true,
            ),
            (r#"device.attributes["gpu.example.com"].model == "a100-80gb""#, true),
            (r#"device.attributes["gpu.example.com"].model.startsWith("a100")"#, true),
            (
                r#"device.attributes["gpu.example.com"].productName.startsWith("AMD")"#,
                false,
            ),
            (
                r#"device.attributes["gpu.example.com"].productName.matches("^NVIDIA A100")"#,
                true,
            ),
            (
                r#"device.attributes["gpu.example.com"].productName.matches("A100")"#,
                true,
            ),
            (r#"device.attributes["gpu.example.com"].migCapable"#, true),
            (r#"!device.attributes["gpu.example.com"].migCapable"#, false),
            (
                r#""migCapable" in device.attributes["gpu.example.com"] && device.attributes["gpu.example.com"].index < 4"#,
                true,
            ),
            (
                r#"device.attributes["resource.kubernetes.io"].pcieRoot == "pci0000:00""#,
                true,
            ),
            // An unknown domain is an empty map: has() is false, `in` is false.
            (r#"has(device.attributes["nic.example.com"].rdma)"#, false),
            (r#""rdma" in device.attributes["nic.example.com"]"#, false),
            (r#""nic.example.com" in device.attributes"#, false),
            // && and || absorb an error the other side decides.
            (r#"false && device.attributes["nic.example.com"].rdma"#, false),
            (r#"device.attributes["nic.example.com"].rdma && false"#, false),
            (r#"device.attributes["nic.example.com"].rdma || true"#, true),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(expr), Ok(*want), "{expr}");
        }
    }

    #[test]
    fn errors_are_worded_as_upstream() {
        assert_eq!(
            eval(r#"device.attributes["gpu.example.com"].nope"#),
            Err("CEL runtime error: no such key: nope".into())
        );
        // An unknown domain's missing key, not the domain, is what is missing.
        assert_eq!(
            eval(r#"device.attributes["nic.example.com"].rdma"#),
            Err("CEL runtime error: no such key: rdma".into())
        );
        let e = eval("1 +").unwrap_err();
        assert!(e.starts_with("CEL compile error: compilation failed: "), "{e}");
        assert!(
            eval(r#"device.driver"#)
                .unwrap_err()
                .contains("could not be converted to bool")
        );
        // A version attribute that does not parse fails every evaluation on the device.
        let mut d = gpu();
        d.attributes.as_mut().unwrap().insert(
            "driverVersion".into(),
            serde_json::from_value(serde_json::json!({"version": "1.02.3"})).unwrap(),
        );
        let v = DeviceValue::new("gpu.example.com", &d, &BTreeSet::new(), false);
        let e = Compiler::default().matches("true", &v).unwrap_err();
        assert!(
            e.starts_with("CEL runtime error: attribute driverVersion: parse semantic version: "),
            "{e}"
        );
    }

    #[test]
    fn allow_multiple_allocations_is_declared_only_with_consumable_capacity() {
        let c = Compiler::default();
        let on = DeviceValue::new("gpu.example.com", &gpu(), &BTreeSet::new(), true);
        assert_eq!(c.matches("!device.allowMultipleAllocations", &on), Ok(true));
        let off = DeviceValue::new("gpu.example.com", &gpu(), &BTreeSet::new(), false);
        assert!(c.matches("!device.allowMultipleAllocations", &off).is_err());
    }

    #[test]
    fn indexed_domains_are_the_literal_indexes() {
        let mut s = BTreeSet::new();
        indexed_domains(
            r#"device.attributes["a.com"].x && device.capacity[ 'b.com' ].y && "c.com" in device.attributes"#,
            &mut s,
        );
        assert_eq!(s.into_iter().collect::<Vec<_>>(), vec!["a.com", "b.com"]);
    }

    /// cel/errors_test.go TestEnhanceRuntimeError (1.37), the rows on texts (the nil error and
    /// the error-type idempotence have no counterpart in kschedtui's strings, which are
    /// enhanced once where they are worded).
    #[test]
    fn enhance_runtime_error_cases_from_upstream() {
        let hint = ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields";
        for (name, err, want) in [
            (
                "no such key error gets enhanced with usage hint",
                "no such key: sharingStrategy",
                format!("no such key: sharingStrategy{hint}"),
            ),
            (
                "other error is returned unchanged",
                "some other error",
                "some other error".to_string(),
            ),
            (
                "wrapped no such key error gets enhanced",
                "context: no such key: fieldY",
                format!("context: no such key: fieldY{hint}"),
            ),
            (
                "error with hint text but not enhancedError type still gets enhanced",
                "no such key: fieldZ. consider using CEL optional chaining",
                format!("no such key: fieldZ. consider using CEL optional chaining{hint}"),
            ),
        ] {
            assert_eq!(enhance_runtime_error(err), want, "{name}");
        }
    }
}
