//! The cases of upstream's `cel/compile_test.go` (`TestCEL`) that use the `device` variable,
//! evaluated with [`Compiler::matches`] on the device value the allocator builds.

use super::*;

const DRA: &str = "dra.example.com";

/// A device with `attributes` and `capacity` (JSON of the API's maps).
fn device(attributes: Value, capacity: Value) -> Value {
    let mut d = json!({});
    if !attributes.is_null() {
        d["attributes"] = attributes;
    }
    if !capacity.is_null() {
        d["capacity"] = capacity;
    }
    d
}

fn eval(expr: &str, driver: &str, attributes: Value, capacity: Value) -> Result<bool, String> {
    cel_eval(expr, driver, device(attributes, capacity), false)
}

/// `Ok(want)`, or the error.
#[track_caller]
fn matches(expr: &str, driver: &str, attributes: Value, capacity: Value, want: bool) {
    assert_eq!(eval(expr, driver, attributes, capacity), Ok(want), "{expr}");
}

/// An error containing `want`.
#[track_caller]
fn fails(expr: &str, driver: &str, attributes: Value, capacity: Value, want: &str) {
    match eval(expr, driver, attributes, capacity) {
        Err(e) => assert!(e.contains(want), "{expr}: {e:?} does not contain {want:?}"),
        Ok(b) => panic!("{expr}: matched {b}, want an error containing {want:?}"),
    }
}

/// compile_test "true"
#[test]
fn literal_true() {
    matches("true", "", Value::Null, Value::Null, true);
}

/// compile_test "false"
#[test]
fn literal_false() {
    matches("false", "", Value::Null, Value::Null, false);
}

/// compile_test "syntax-error"
#[test]
fn syntax_error() {
    let e = eval("?!", "", Value::Null, Value::Null).unwrap_err();
    assert!(
        e.starts_with("CEL compile error: compilation failed: ERROR: <input>:1:1: Syntax error: "),
        "{e}"
    );
}

/// compile_test "type-error" (a runtime error here, see the module's notes)
#[test]
fn type_error() {
    let e = eval("1", "", Value::Null, Value::Null).unwrap_err();
    assert_eq!(
        e,
        "CEL runtime error: CEL result of type int could not be converted to bool"
    );
}

/// compile_test "runtime-error-lookup-identifier"
#[test]
fn runtime_error_lookup_identifier() {
    fails(
        r#"device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))"#,
        "",
        Value::Null,
        Value::Null,
        "CEL runtime error: no such key: noSuchAttr",
    );
}

/// compile_test "runtime-error-lookup-map"
#[test]
fn runtime_error_lookup_map() {
    fails(
        r#"device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))"#,
        "",
        Value::Null,
        Value::Null,
        "CEL runtime error: no such key: noSuchAttr",
    );
}

/// compile_test "domain-check-negative"
#[test]
fn domain_check_negative() {
    matches(
        r#""no-such-domain" in device.attributes"#,
        "",
        Value::Null,
        Value::Null,
        false,
    );
}

/// compile_test "domain-check-positive"
#[test]
fn domain_check_positive() {
    matches(
        r#""dra.example.com" in device.attributes"#,
        "",
        json!({"dra.example.com/something": {"bool": true}}),
        Value::Null,
        true,
    );
}

/// compile_test "empty-driver-name"
#[test]
fn empty_driver_name() {
    matches(r#"device.driver == """#, "", Value::Null, Value::Null, true);
}

/// compile_test "real-driver-name"
#[test]
fn real_driver_name() {
    matches(
        r#"device.driver == "dra.example.com""#,
        DRA,
        Value::Null,
        Value::Null,
        true,
    );
}

/// compile_test "driver-name-qualifier"
#[test]
fn driver_name_qualifier() {
    matches(
        r#"device.attributes["dra.example.com"].name"#,
        DRA,
        json!({"name": {"bool": true}}),
        Value::Null,
        true,
    );
}

/// compile_test "driver-name-qualifier-map-lookup"
#[test]
fn driver_name_qualifier_map_lookup() {
    matches(
        r#"device.attributes["dra.example.com"]["name"]"#,
        DRA,
        json!({"name": {"bool": true}}),
        Value::Null,
        true,
    );
}

/// compile_test "bind" (`cel.bind` is not among the crate's macros: see cel.rs)
#[test]
fn bind_is_not_reproduced() {
    assert!(
        eval(
            r#"cel.bind(dra, device.attributes["dra.example.com"], dra.name)"#,
            DRA,
            json!({"name": {"bool": true}}),
            Value::Null,
        )
        .is_err()
    );
}

/// compile_test "qualified-attribute-name"
#[test]
fn qualified_attribute_name() {
    matches(
        r#"device.attributes["other.example.com"].name"#,
        DRA,
        json!({"other.example.com/name": {"bool": true}}),
        Value::Null,
        true,
    );
}

/// compile_test "bool"
#[test]
fn bool_attribute() {
    matches(
        r#"device.attributes["dra.example.com"].name"#,
        DRA,
        json!({"name": {"bool": true}}),
        Value::Null,
        true,
    );
}

/// compile_test "int"
#[test]
fn int_attribute() {
    matches(
        r#"device.attributes["dra.example.com"].name > 0"#,
        DRA,
        json!({"name": {"int": 1}}),
        Value::Null,
        true,
    );
}

/// compile_test "string"
#[test]
fn string_attribute() {
    matches(
        r#"device.attributes["dra.example.com"].name == "fish""#,
        DRA,
        json!({"name": {"string": "fish"}}),
        Value::Null,
        true,
    );
}

/// compile_test "attribute-access-causes-match-error" (a list value without
/// DRAListTypeAttributes)
#[test]
fn attribute_access_causes_match_error() {
    fails(
        r#"device.attributes["dra.example.com"].names"#,
        DRA,
        json!({"names": {"strings": ["fish", "bird"]}}),
        Value::Null,
        "attribute names: unsupported attribute value",
    );
}

/// compile_test "version"
#[test]
fn version_attribute() {
    matches(
        r#"device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))"#,
        DRA,
        json!({"name": {"version": "1.0.0"}}),
        Value::Null,
        true,
    );
}

/// compile_test "version_v"
#[test]
fn version_v() {
    matches(
        r#"device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)"#,
        DRA,
        json!({"name": {"version": "1.0.0"}}),
        Value::Null,
        true,
    );
}

/// compile_test "quantity"
#[test]
fn quantity_capacity() {
    matches(
        r#"device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))"#,
        DRA,
        Value::Null,
        json!({"name": {"value": "1Mi"}}),
        true,
    );
}

/// compile_test "check-positive"
#[test]
fn check_positive() {
    matches(
        r#""name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))"#,
        DRA,
        Value::Null,
        json!({"name": {"value": "1Mi"}}),
        true,
    );
}

/// compile_test "check-negative"
#[test]
fn check_negative() {
    matches(
        r#"!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))"#,
        "",
        Value::Null,
        Value::Null,
        true,
    );
}

/// compile_test "all"
#[test]
fn all_kinds() {
    let expr = r#"
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
"#;
    matches(
        expr,
        DRA,
        json!({
            "bool": {"bool": true},
            "int": {"int": 1},
            "string": {"string": "fish"},
            "version": {"version": "1.0.0"}
        }),
        json!({"quantity": {"value": "1Mi"}}),
        true,
    );
}

/// compile_test "many"
#[test]
fn many() {
    matches(
        r#"device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c"#,
        DRA,
        json!({"a": {"bool": true}, "b": {"bool": true}, "c": {"bool": true}}),
        Value::Null,
        true,
    );
}

/// compile_test "check_attribute_domains"
#[test]
fn check_attribute_domains() {
    matches(
        r#"device.attributes.exists_one(x, x == "dra.example.com")"#,
        DRA,
        json!({"services": {"string": "some_example_value"}}),
        Value::Null,
        true,
    );
}

/// compile_test "check_attribute_ids"
#[test]
fn check_attribute_ids() {
    matches(
        r#"device.attributes["dra.example.com"].exists_one(x, x == "services")"#,
        DRA,
        json!({"services": {"string": "some_example_value"}}),
        Value::Null,
        true,
    );
}

/// compile_test "split_attribute"
#[test]
fn split_attribute() {
    matches(
        r#"device.attributes["dra.example.com"].services.split("example").size() >= 2"#,
        DRA,
        json!({"services": {"string": "some_example_value"}}),
        Value::Null,
        true,
    );
}

/// compile_test "regexp_attribute"
#[test]
fn regexp_attribute() {
    matches(
        r#"device.attributes["dra.example.com"].services.matches("[^a]?sym")"#,
        DRA,
        json!({"services": {"string": "asymetric"}}),
        Value::Null,
        true,
    );
}

/// compile_test "check_capacity_domains"
#[test]
fn check_capacity_domains() {
    matches(
        r#"device.capacity.exists_one(x, x == "dra.example.com")"#,
        DRA,
        Value::Null,
        json!({"memory": {"value": "1Mi"}}),
        true,
    );
}

/// compile_test "check_capacity_ids"
#[test]
fn check_capacity_ids() {
    matches(
        r#"device.capacity["dra.example.com"].exists_one(x, x == "memory")"#,
        DRA,
        Value::Null,
        json!({"memory": {"value": "1Mi"}}),
        true,
    );
}

/// compile_test "allow_multiple_allocations"
#[test]
fn allow_multiple_allocations() {
    let d = json!({"allowMultipleAllocations": true});
    assert_eq!(
        cel_eval("device.allowMultipleAllocations == true", DRA, d, true),
        Ok(true)
    );
}

/// compile_test "allow_multiple_allocations_default"
#[test]
fn allow_multiple_allocations_default() {
    assert_eq!(
        cel_eval("device.allowMultipleAllocations == false", DRA, json!({}), true),
        Ok(true)
    );
}

/// compile_test "allow_multiple_allocations_false"
#[test]
fn allow_multiple_allocations_false() {
    let d = json!({"allowMultipleAllocations": false});
    assert_eq!(
        cel_eval("device.allowMultipleAllocations == false", DRA, d, true),
        Ok(true)
    );
}
