//! The cases of upstream's `allocatortesting` table (`TestAllocator` and
//! `TestLexicographicalAllocator`), release by release.

use super::*;

fn ca() -> Value {
    class(CLASS_A, A)
}

fn cb() -> Value {
    class(CLASS_B, B)
}

/// node-1's slice-1 in pool-1 of driver-a with `devices`.
fn s1(devices: Vec<D>) -> S {
    node_slice(S1, NODE1, P1, A, devices)
}

/// The case most others start from: class-a and `slices`, one claim.
fn basic(claim: C, slices: Vec<S>) -> Case {
    Case {
        classes: vec![ca()],
        slices,
        claims: vec![claim],
        ..Case::default()
    }
}

/// A device with 1Gi or 2Gi of memory.
fn mem(name: &str, q: &str) -> D {
    dev(name).cap("memory", q)
}

/// Upstream's small-and-large claims: req-0 wants 1Gi, req-1 2Gi.
fn small_and_large() -> Vec<R> {
    vec![
        req(R0, CLASS_A, 1).sel(&memory_at_least("1Gi")),
        req(R1, CLASS_A, 1).sel(&memory_at_least("2Gi")),
    ]
}

cases! {
    /// allocatortesting "empty"
    empty: [V134, V135, V136] Case::default() => Want::Picks(vec![]);

    /// allocatortesting "simple"
    simple: [V134, V135, V136]
        basic(claim1(C0, R0, CLASS_A), vec![one_device(S1, At::Node(NODE1), P1, A)])
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "other-node"
    other_node: [V134, V135, V136]
        Case {
            node: Some((NODE2, REGION2)),
            ..basic(
                claim1(C0, R0, CLASS_A),
                vec![one_device(S1, At::Node(NODE1), P1, B), one_device(S2, At::Node(NODE2), P2, A)],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P2, D1)]]);

    /// allocatortesting "small-and-large"
    small_and_large_devices: [V134, V135, V136]
        basic(claim(C0, small_and_large()), vec![s1(vec![mem(D1, "1Gi"), mem(D2, "2Gi")])])
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R1, A, P1, D2)]]);

    /// allocatortesting "small-and-large-backtrack-requests"
    small_and_large_backtrack_requests: [V134, V135, V136]
        basic(claim(C0, small_and_large()), vec![s1(vec![mem(D2, "2Gi"), mem(D1, "1Gi")])])
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R1, A, P1, D2)]]);

    /// allocatortesting "small-and-large-backtrack-claims"
    small_and_large_backtrack_claims: [V134, V135, V136]
        {
            let [small, large]: [R; 2] = small_and_large().try_into().ok().expect("two");
            Case {
                claims: vec![claim(C0, vec![small]), claim(C1, vec![large])],
                ..basic(claim(C0, vec![]), vec![s1(vec![mem(D2, "2Gi"), mem(D1, "1Gi")])])
            }
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)], vec![p(R1, A, P1, D2)]]);

    /// allocatortesting "devices-split-across-different-slices"
    devices_split_across_different_slices: [V134, V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 2)]),
            vec![one_device(S1, At::Node(NODE1), P1, A), one_device(S2, At::Node(NODE1), P2, A)],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P2, D1)]]);

    /// allocatortesting "obsolete-slice" (1.35+ data: the newer generation's pool misses a
    /// slice, so it is incomplete and skipped)
    obsolete_slice: [V135, V136]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![
                node_slice("slice-1-obsolete", NODE1, P1, A, vec![dev(D1)]).count(2),
                node_slice("slice-1-obsolete", NODE1, P1, A, vec![dev(D2)]).count(2).generation(2),
            ],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "obsolete-slice" (1.34 data: the newer generation replaces the
    /// older one)
    obsolete_slice_1_34: [V134]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![
                one_device("slice-1-obsolete", At::Node(NODE1), P1, A),
                one_device(S1, At::Node(NODE1), P1, A).generation(2),
            ],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "duplicate-slice" (1.35+: the invalid pool is skipped and named)
    duplicate_slice: [V135, V136]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![
                one_device(S1, At::Node(NODE1), P1, A).count(2),
                one_device("slice-1-2", At::Node(NODE1), P1, A).count(2),
            ],
        )
        => Want::InvalidPools;

    /// allocatortesting "duplicate-slice" (1.34: reaching the invalid pool is an error)
    duplicate_slice_1_34: [V134]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![
                one_device(S1, At::Node(NODE1), P1, A).count(2),
                one_device("slice-1-2", At::Node(NODE1), P1, A).count(2),
            ],
        )
        => Want::Error("pool pool-1 is invalid: duplicate device name device-1");

    /// allocatortesting "no-slices"
    no_slices: [V134, V135, V136] basic(claim1(C0, R0, CLASS_A), vec![]) => Want::Unsatisfiable;

    /// allocatortesting "not-enough-suitable-devices"
    not_enough_suitable_devices: [V134, V135, V136]
        Case {
            claims: vec![claim1(C0, R0, CLASS_A), claim1(C0, R1, CLASS_A)],
            ..basic(claim(C0, vec![]), vec![one_device(S1, At::Node(NODE1), P1, A)])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "no-classes"
    no_classes: [V134, V135, V136]
        Case {
            classes: vec![],
            ..basic(claim1(C0, R0, CLASS_A), vec![one_device(S1, At::Node(NODE1), P1, A)])
        }
        => Want::Error("could not retrieve device class class-a");

    /// allocatortesting "unknown-class"
    unknown_class: [V134, V135, V136]
        basic(claim1(C0, R0, "unknown-class"), vec![one_device(S1, At::Node(NODE1), P1, A)])
        => Want::Error("could not retrieve device class unknown-class");

    /// allocatortesting "empty-class"
    empty_class: [V134, V135, V136]
        basic(claim1(C0, R0, ""), vec![one_device(S1, At::Node(NODE1), P1, A)])
        => Want::Error("claim claim-0, request req-0: missing device class name (unsupported request type?)");

    /// allocatortesting "no-claims-to-allocate"
    no_claims_to_allocate: [V134, V135, V136]
        Case { claims: vec![], ..basic(claim(C0, vec![]), vec![one_device(S1, At::Node(NODE1), P1, A)]) }
        => Want::Picks(vec![]);

    /// allocatortesting "all-devices-single"
    all_devices_single: [V134, V135, V136]
        basic(claim(C0, vec![all(R0, CLASS_A)]), vec![one_device(S1, At::Node(NODE1), P1, A)])
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "all-devices-with-consumed-counters"
    all_devices_with_consumed_counters: [V135, V136]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![all(R0, CLASS_A)]),
                vec![
                    s1(vec![dev(D1).consumes(SET1, &[("memory", "4Gi")])]).count(2),
                    slice(S2, At::Node(NODE1), P1, A).count(2).counter_set(SET1, &[("memory", "8Gi")]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "all-devices-many"
    all_devices_many: [V134, V135, V136]
        basic(
            claim(C0, vec![all(R0, CLASS_A)]),
            vec![one_device(S1, At::Node(NODE1), P1, A), one_device(S1, At::Node(NODE1), P2, A)],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P2, D1)]]);

    /// allocatortesting "all-devices-of-the-incomplete-pool" (1.38: the error fails the node
    /// only, kubernetes#141898)
    all_devices_of_the_incomplete_pool: [V134, V135, V136]
        basic(claim(C0, vec![all(R0, CLASS_A)]), vec![one_device(S1, At::Node(NODE1), P1, A).count(2)])
        => Want::ErrorOnNode(
            "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated",
        );

    /// kubernetes#141898's invalid-pool case (its name was not read): all devices of a pool with
    /// a duplicate device name (1.35+, which keep the invalid pool to name it)
    all_devices_of_an_invalid_pool: [V135, V136]
        basic(
            claim(C0, vec![all(R0, CLASS_A)]),
            vec![
                one_device(S1, At::Node(NODE1), P1, A).count(2),
                one_device("slice-1-2", At::Node(NODE1), P1, A).count(2),
            ],
        )
        => Want::ErrorOnNode(
            "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently invalid",
        );

    /// allocatortesting "all-devices-plus-another"
    all_devices_plus_another: [V134, V135, V136]
        Case {
            classes: vec![ca(), cb()],
            claims: vec![claim(C0, vec![all(R0, CLASS_A)]), claim(C1, vec![req(R0, CLASS_B, 1)])],
            ..basic(
                claim(C0, vec![]),
                vec![one_device(S1, At::Node(NODE1), P1, A), one_device(S1, At::Node(NODE1), P1, B)],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)], vec![p(R0, B, P1, D1)]]);

    /// allocatortesting "all-devices-plus-another-reversed"
    all_devices_plus_another_reversed: [V134, V135, V136]
        Case {
            classes: vec![ca(), cb()],
            claims: vec![claim(C1, vec![req(R0, CLASS_B, 1)]), claim(C0, vec![all(R0, CLASS_A)])],
            ..basic(
                claim(C0, vec![]),
                vec![one_device(S1, At::Node(NODE1), P1, A), one_device(S1, At::Node(NODE1), P1, B)],
            )
        }
        => Want::Picks(vec![vec![p(R0, B, P1, D1)], vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "all-devices-many-plus-another"
    all_devices_many_plus_another: [V134, V135, V136]
        Case {
            classes: vec![ca(), cb()],
            claims: vec![claim(C0, vec![all(R0, CLASS_A)]), claim(C1, vec![req(R0, CLASS_B, 1)])],
            ..basic(
                claim(C0, vec![]),
                vec![s1(vec![dev(D1), dev(D2)]), one_device(S1, At::Node(NODE1), P1, B)],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P1, D2)], vec![p(R0, B, P1, D1)]]);

    /// allocatortesting "all-devices-many-plus-another-reversed"
    all_devices_many_plus_another_reversed: [V134, V135, V136]
        Case {
            classes: vec![ca(), cb()],
            claims: vec![claim(C1, vec![req(R0, CLASS_B, 1)]), claim(C0, vec![all(R0, CLASS_A)])],
            ..basic(
                claim(C0, vec![]),
                vec![s1(vec![dev(D1), dev(D2)]), one_device(S1, At::Node(NODE1), P1, B)],
            )
        }
        => Want::Picks(vec![vec![p(R0, B, P1, D1)], vec![p(R0, A, P1, D1), p(R0, A, P1, D2)]]);

    /// allocatortesting "all-devices-no-solution"
    all_devices_no_solution: [V134, V135, V136]
        Case {
            claims: vec![claim(C1, vec![req(R0, CLASS_A, 1)]), claim(C0, vec![all(R0, CLASS_A)])],
            ..basic(claim(C0, vec![]), vec![one_device(S1, At::Node(NODE1), P1, A)])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "all-devices-no-solution-reversed"
    all_devices_no_solution_reversed: [V134, V135, V136]
        Case {
            claims: vec![claim(C0, vec![all(R0, CLASS_A)]), claim(C1, vec![req(R0, CLASS_A, 1)])],
            ..basic(claim(C0, vec![]), vec![one_device(S1, At::Node(NODE1), P1, A)])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "all-devices-slice-without-devices"
    all_devices_slice_without_devices: [V134, V135, V136]
        basic(claim(C0, vec![all(R0, CLASS_A)]), vec![slice(S1, At::Node(NODE1), P1, A)])
        => Want::Unsatisfiable;

    /// allocatortesting "all-devices-no-slices"
    all_devices_no_slices: [V134, V135, V136]
        basic(claim(C0, vec![all(R0, CLASS_A)]), vec![]) => Want::Unsatisfiable;

    /// allocatortesting "all-devices-some-allocated"
    all_devices_some_allocated: [V134, V135, V136]
        Case {
            allocated: vec![(A, P1, D1)],
            ..basic(claim(C0, vec![all(R0, CLASS_A)]), vec![s1(vec![dev(D1), dev(D2)])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "all-devices-some-allocated-admin-access"
    all_devices_some_allocated_admin_access: [V134, V135, V136]
        Case {
            features: features!(admin_access),
            allocated: vec![(A, P1, D1)],
            ..basic(claim(C0, vec![all(R0, CLASS_A).admin()]), vec![s1(vec![dev(D1), dev(D2)])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).admin(), p(R0, A, P1, D2).admin()]]);

    /// allocatortesting "all-devices-some-allocating-admin-access"
    all_devices_some_allocating_admin_access: [V134, V135, V136]
        Case {
            features: features!(admin_access),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).admin(), all(R1, CLASS_A).admin()]),
                vec![s1(vec![dev(D1), dev(D2)])],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "count-devices-some-allocated-admin-access"
    count_devices_some_allocated_admin_access: [V134, V135, V136]
        Case {
            features: features!(admin_access),
            allocated: vec![(A, P1, D1)],
            ..basic(claim(C0, vec![req(R0, CLASS_A, 2).admin()]), vec![s1(vec![dev(D1), dev(D2)])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).admin(), p(R0, A, P1, D2).admin()]]);

    /// allocatortesting "separate-claims-share-device-admin-access"
    separate_claims_share_device_admin_access: [V134, V135, V136]
        Case {
            features: features!(admin_access),
            claims: vec![claim(C0, vec![req(R0, CLASS_A, 1).admin()]), claim(C1, vec![req(R0, CLASS_A, 1).admin()])],
            ..basic(claim(C0, vec![]), vec![s1(vec![dev(D1), dev(D2)])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).admin()], vec![p(R0, A, P1, D1).admin()]]);

    /// allocatortesting "admin-access-claims-device-allocating-for-non-admin-access"
    admin_access_claims_device_allocating_for_non_admin_access: [V134, V135, V136]
        Case {
            features: features!(admin_access),
            claims: vec![claim1(C0, R0, CLASS_A), claim(C1, vec![req(R0, CLASS_A, 1).admin()])],
            ..basic(claim(C0, vec![]), vec![s1(vec![dev(D1), dev(D2)])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)], vec![p(R0, A, P1, D1).admin()]]);

    /// allocatortesting "all-devices-slice-without-devices-prioritized-list"
    all_devices_slice_without_devices_prioritized_list: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            classes: vec![ca(), cb()],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_A, 0).mode("All"), sub(SUB1, CLASS_B, 1)])]),
                vec![slice(S1, At::Node(NODE1), P1, A), one_device(S2, At::Node(NODE1), P2, B)],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", B, P2, D1)]]);

    /// allocatortesting "all-devices-no-slices-prioritized-list"
    all_devices_no_slices_prioritized_list: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            classes: vec![ca(), cb()],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_A, 0).mode("All"), sub(SUB1, CLASS_B, 1)])]),
                vec![one_device(S2, At::Node(NODE1), P2, B)],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", B, P2, D1)]]);

    /// allocatortesting "all-devices-some-allocated-prioritized-list"
    all_devices_some_allocated_prioritized_list: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            classes: vec![ca(), cb()],
            allocated: vec![(A, P1, D1)],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_A, 0).mode("All"), sub(SUB1, CLASS_B, 1)])]),
                vec![s1(vec![dev(D1), dev(D2)]), one_device(S2, At::Node(NODE1), P2, B)],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", B, P2, D1)]]);

    /// allocatortesting "network-attached-device"
    network_attached_device: [V134, V135, V136]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![one_device(S1, At::Selector(label_selector("region", &[REGION1])), P1, A)],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "unsuccessful-allocation-network-attached-device"
    unsuccessful_allocation_network_attached_device: [V134, V135, V136]
        Case {
            node: Some((NODE2, REGION2)),
            ..basic(
                claim1(C0, R0, CLASS_A),
                vec![one_device(S1, At::Selector(label_selector("region", &[REGION1])), P1, A)],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "many-network-attached-devices" (the union node selector is not
    /// compared)
    many_network_attached_devices: [V134, V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 4)]),
            vec![
                one_device(S1, At::Selector(label_selector("region", &[REGION1])), P1, A),
                one_device(S1, At::AllNodes, P2, A),
                one_device(S1, At::Selector(label_selector("planet", &["earth"])), P3, A),
                one_device(S1, At::Selector(field_selector(NODE1)), P4, A),
            ],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P2, D1), p(R0, A, P3, D1), p(R0, A, P4, D1)]]);

    /// allocatortesting "local-and-network-attached-devices"
    local_and_network_attached_devices: [V134, V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 2)]),
            vec![
                one_device(S1, At::Selector(label_selector("region", &[REGION1])), P1, A),
                one_device(S1, At::Node(NODE1), P2, A),
            ],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P2, D1)]]);

    /// allocatortesting "several-different-drivers"
    several_different_drivers: [V134, V135, V136]
        Case {
            classes: vec![ca(), cb()],
            claims: vec![claim1(C0, R0, CLASS_A), claim1(C0, R0, CLASS_B)],
            ..basic(
                claim(C0, vec![]),
                vec![s1(vec![dev(D1), dev(D2)]), one_device(S1, At::Node(NODE1), P1, B)],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)], vec![p(R0, B, P1, D1)]]);

    /// allocatortesting "already-allocated-devices"
    already_allocated_devices: [V134, V135, V136]
        Case {
            allocated: vec![(A, P1, D1), (A, P1, D2)],
            ..basic(claim1(C0, R0, CLASS_A), vec![one_device(S1, At::Node(NODE1), P1, A)])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "admin-access-disabled"
    admin_access_disabled: [V134, V135, V136]
        basic(claim(C0, vec![req(R0, CLASS_A, 1).admin()]), vec![one_device(S1, At::Node(NODE1), P1, A)])
        => Want::Error("claim claim-0, request req-0: admin access is requested, but the feature is disabled");

    /// allocatortesting "admin-access-enabled"
    admin_access_enabled: [V134, V135, V136]
        Case {
            features: features!(admin_access),
            allocated: vec![(A, P1, D1), (A, P1, D2)],
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).admin()]), vec![one_device(S1, At::Node(NODE1), P1, A)])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).admin()]]);

    /// allocatortesting "with-constraint"
    with_constraint: [V134, V135, V136]
        {
            let d = |n: &str| {
                dev(n)
                    .version("driverVersion", "1.0.0")
                    .int("numa", 1)
                    .string("stringAttribute", "stringAttributeValue")
                    .bool("boolAttribute", true)
            };
            basic(
                claim(C0, vec![req(R0, CLASS_A, 1), req(R1, CLASS_A, 1)])
                    .match_attr(INT_ATTR, &[])
                    .match_attr(VERSION_ATTR, &[])
                    .match_attr(STRING_ATTR, &[])
                    .match_attr(BOOL_ATTR, &[]),
                vec![s1(vec![d(D1), d(D2)])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R1, A, P1, D2)]]);

    /// allocatortesting "with-constraint-non-existent-attribute"
    with_constraint_non_existent_attribute: [V134, V135, V136]
        basic(
            claim1(C0, R0, CLASS_A).match_attr("driver-a/NonExistentAttribute", &[]),
            vec![one_device(S1, At::Node(NODE1), P1, A)],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "with-constraint-not-matching-int-attribute"
    with_constraint_not_matching_int_attribute: [V134, V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 2)]).match_attr(INT_ATTR, &[]),
            vec![s1(vec![dev(D1).int("numa", 1), dev(D2).int("numa", 2)])],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "with-constraint-not-matching-int-attribute-all-devices"
    with_constraint_not_matching_int_attribute_all_devices: [V134, V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 0).mode("All")]).match_attr(INT_ATTR, &[]),
            vec![s1(vec![dev(D1).int("numa", 1), dev(D2).int("numa", 2)])],
        )
        => Want::Error(
            "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied",
        );

    /// allocatortesting "with-constraint-not-matching-string-attribute"
    with_constraint_not_matching_string_attribute: [V134, V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 2)]).match_attr(STRING_ATTR, &[]),
            vec![s1(vec![
                dev(D1).string("stringAttribute", "stringAttributeValue"),
                dev(D2).string("stringAttribute", "stringAttributeValue2"),
            ])],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "with-constraint-not-matching-bool-attribute"
    with_constraint_not_matching_bool_attribute: [V134, V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 2)]).match_attr(BOOL_ATTR, &[]),
            vec![s1(vec![dev(D1).bool("boolAttribute", true), dev(D2).bool("boolAttribute", false)])],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "with-constraint-not-matching-version-attribute"
    with_constraint_not_matching_version_attribute: [V134, V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 2)]).match_attr(VERSION_ATTR, &[]),
            vec![s1(vec![dev(D1).version("driverVersion", "1.0.0"), dev(D2).version("driverVersion", "2.0.0")])],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "with-constraint-for-request"
    with_constraint_for_request: [V134, V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 1), req(R1, CLASS_A, 1)]).match_attr(VERSION_ATTR, &[R0]),
            vec![s1(vec![dev(D1).version("driverVersion", "1.0.0"), dev(D2).version("driverVersion", "2.0.0")])],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R1, A, P1, D2)]]);

    /// allocatortesting "with-constraint-for-request-retry"
    with_constraint_for_request_retry: [V134, V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 1), req(R1, CLASS_A, 1)])
                .match_attr(VERSION_ATTR, &[R0])
                .match_attr(STRING_ATTR, &[]),
            vec![s1(vec![
                dev(D1).version("driverVersion", "1.0.0").string("stringAttribute", "a"),
                dev(D2).version("driverVersion", "2.0.0").string("stringAttribute", "b"),
                dev(D3).version("driverVersion", "3.0.0").string("stringAttribute", "b"),
            ])],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D2), p(R1, A, P1, D3)]]);

    /// allocatortesting "with-class-device-config" (the configuration is not compared)
    with_class_device_config: [V134, V135, V136]
        Case {
            classes: vec![class_with_config(CLASS_A, A, "classAttribute")],
            ..basic(claim1(C0, R0, CLASS_A), vec![one_device(S1, At::Node(NODE1), P1, A)])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "with-class-device-config-with-multiple-request-and-configs" (the
    /// configuration is not compared)
    with_class_device_config_with_multiple_request_and_configs: [V134, V135, V136]
        Case {
            classes: vec![
                class_with_config(CLASS_A, A, "classAttribute-A"),
                class_with_config(CLASS_B, B, "classAttribute-B"),
            ],
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1), req(R1, CLASS_A, 1), req(R2, CLASS_B, 1)]),
                vec![n_devices(S1, P1, A, 2), one_device(S2, At::Node(NODE1), P1, B)],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D0), p(R1, A, P1, D1), p(R2, B, P1, D1)]]);

    /// allocatortesting "claim-with-device-config" (the configuration is not compared)
    claim_with_device_config: [V134, V135, V136]
        basic(
            claim1(C0, R0, CLASS_A).config(&[], A, "deviceAttribute"),
            vec![one_device(S1, At::Node(NODE1), P1, A)],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "unknown-selector"
    unknown_selector: [V134, V135, V136]
        basic(claim(C0, vec![req(R0, CLASS_A, 1).unknown_sel()]), vec![one_device(S1, At::Node(NODE1), P1, A)])
        => Want::Error("claim claim-0, request req-0, selector #0: CEL expression empty (unsupported selector type?)");

    /// allocatortesting "unknown-allocation-mode"
    unknown_allocation_mode: [V134, V135, V136]
        basic(claim(C0, vec![req(R0, CLASS_A, 1).mode("future-mode")]), vec![one_device(S1, At::Node(NODE1), P1, A)])
        => Want::Error("claim claim-0, request req-0: unsupported count mode future-mode");

    /// allocatortesting "unknown-constraint"
    unknown_constraint: [V134, V135, V136]
        basic(claim1(C0, R0, CLASS_A).constraint(json!({})), vec![one_device(S1, At::Node(NODE1), P1, A)])
        => Want::Error("claim claim-0, constraint #0: empty constraint (unsupported constraint type?)");

    /// allocatortesting "invalid-CEL-one-device" (upstream's compile error `undeclared
    /// reference to 'noSuchVar'` is a runtime error here, worded `Undeclared reference`)
    invalid_cel_one_device: [V134, V135, V136]
        basic(claim(C0, vec![req(R0, CLASS_A, 1).sel("noSuchVar")]), vec![one_device(S1, At::Node(NODE1), P1, A)])
        => Want::Error("eference to 'noSuchVar'");

    /// allocatortesting "invalid-CEL-one-device-class" (as above)
    invalid_cel_one_device_class: [V134, V135, V136]
        Case {
            classes: vec![class_expr(CLASS_A, "noSuchVar")],
            ..basic(claim1(C0, R0, CLASS_A), vec![one_device(S1, At::Node(NODE1), P1, A)])
        }
        => Want::Error("eference to 'noSuchVar'");

    /// allocatortesting "invalid-CEL-all-devices" (as above)
    invalid_cel_all_devices: [V134, V135, V136]
        basic(claim(C0, vec![all(R0, CLASS_A).sel("noSuchVar")]), vec![one_device(S1, At::Node(NODE1), P1, A)])
        => Want::Error("eference to 'noSuchVar'");

    /// allocatortesting "too-many-devices-single-request"
    too_many_devices_single_request: [V134, V135, V136]
        basic(claim(C0, vec![req(R0, CLASS_A, 500)]), vec![])
        => Want::Error("claim claim-0: number of requested devices 500 exceeds the claim limit of 32");

    /// allocatortesting "many-devices-okay"
    many_devices_okay: [V134, V135, V136]
        basic(claim(C0, vec![req(R0, CLASS_A, 32)]), vec![]) => Want::Unsatisfiable;

    /// allocatortesting "too-many-devices-total"
    too_many_devices_total: [V134, V135, V136]
        basic(claim(C0, vec![req(R0, CLASS_A, 32), req(R1, CLASS_A, 1)]), vec![n_devices(S1, P1, A, 33)])
        => Want::Error("claim claim-0: number of requested devices 33 exceeds the claim limit of 32");

    /// allocatortesting "all-devices-invalid-CEL" (despite its name, a claim over the limit)
    all_devices_invalid_cel: [V134, V135, V136]
        basic(claim(C0, vec![req(R0, CLASS_A, 500)]), vec![]) => Want::Error("exceeds the claim limit");

    /// allocatortesting "max-number-devices"
    max_number_devices: [V134, V135, V136]
        basic(claim(C0, vec![req(R0, CLASS_A, 32)]), vec![n_devices(S1, P1, A, 32)])
        => Want::Picks(vec![picks_n(R0, A, P1, 32, 0)]);
}

// firstAvailable.
cases! {
    /// allocatortesting "prioritized-list-first-unavailable"
    prioritized_list_first_unavailable: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            classes: vec![ca(), cb()],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_B, 1), sub(SUB1, CLASS_A, 1)])]),
                vec![one_device(S1, At::Node(NODE1), P1, A)],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D1)]]);

    /// allocatortesting "prioritized-list-non-available"
    prioritized_list_non_available: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            classes: vec![ca(), cb()],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_B, 2), sub(SUB1, CLASS_A, 2)])]),
                vec![one_device(S1, At::Node(NODE1), P1, A), one_device(S2, At::Node(NODE1), P2, B)],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "prioritized-list-device-config" (the configuration is not compared)
    prioritized_list_device_config: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            classes: vec![ca(), cb()],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_A, 1), sub(SUB1, CLASS_B, 2)])])
                    .config(&["req-0/subReq-0"], A, "foo")
                    .config(&["req-0/subReq-1"], B, "bar"),
                vec![node_slice(S1, NODE1, P1, B, vec![dev(D1), dev(D2)])],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", B, P1, D1), p("req-0/subReq-1", B, P1, D2)]]);

    /// allocatortesting "prioritized-list-class-config" (the configuration is not compared)
    prioritized_list_class_config: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            classes: vec![class_with_config(CLASS_A, A, "foo"), class_with_config(CLASS_B, B, "bar")],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_A, 2), sub(SUB1, CLASS_B, 2)])]),
                vec![
                    node_slice(S1, NODE1, P1, B, vec![dev(D1), dev(D2)]),
                    node_slice(S2, NODE1, P2, A, vec![dev(D3)]),
                ],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", B, P1, D1), p("req-0/subReq-1", B, P1, D2)]]);

    /// allocatortesting "prioritized-list-subrequests-with-expressions"
    prioritized_list_subrequests_with_expressions: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            ..basic(
                claim(C0, vec![
                    req(R0, CLASS_A, 1).sel(&memory_at_least("1Gi")),
                    first(R1, vec![
                        sub(SUB0, CLASS_A, 1).sel(&memory_at_least("4Gi")),
                        sub(SUB1, CLASS_A, 2).sel(&memory_at_least("2Gi")),
                    ]),
                ]),
                vec![s1(vec![mem(D1, "2Gi"), mem(D2, "2Gi"), mem(D3, "1Gi")])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D3), p("req-1/subReq-1", A, P1, D1), p("req-1/subReq-1", A, P1, D2)]]);

    /// allocatortesting "prioritized-list-subrequests-with-constraints-ref-parent-request"
    prioritized_list_subrequests_with_constraints_ref_parent_request: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            ..basic(
                claim(C0, vec![
                    req(R0, CLASS_A, 1).sel(&memory_at_least("8Gi")),
                    first(R1, vec![
                        sub(SUB0, CLASS_A, 1).sel(&memory_at_least("2Gi")),
                        sub(SUB1, CLASS_A, 1).sel(&memory_at_least("1Gi")),
                    ]),
                ])
                .match_attr(VERSION_ATTR, &[R0, R1]),
                vec![
                    s1(vec![mem(D1, "8Gi").version("driverVersion", "1.0.0")]),
                    node_slice(S2, NODE1, P2, A, vec![
                        mem(D2, "2Gi").version("driverVersion", "2.0.0"),
                        mem(D3, "1Gi").version("driverVersion", "1.0.0"),
                    ]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p("req-1/subReq-1", A, P2, D3)]]);

    /// allocatortesting "prioritized-list-subrequests-with-constraints-ref-sub-request"
    prioritized_list_subrequests_with_constraints_ref_sub_request: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            ..basic(
                claim(C0, vec![
                    req(R0, CLASS_A, 1).sel(&memory_at_least("8Gi")),
                    first(R1, vec![
                        sub(SUB0, CLASS_A, 1).sel(&memory_at_least("2Gi")),
                        sub(SUB1, CLASS_A, 1).sel(&memory_at_least("1Gi")),
                    ]),
                ])
                .match_attr(VERSION_ATTR, &[R0, "req-1/subReq-0"]),
                vec![
                    s1(vec![mem(D1, "8Gi").version("driverVersion", "1.0.0")]),
                    node_slice(S2, NODE1, P2, A, vec![mem(D2, "2Gi").version("driverVersion", "2.0.0")]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p("req-1/subReq-1", A, P2, D2)]]);

    /// allocatortesting "prioritized-list-subrequests-with-allocation-mode-all"
    prioritized_list_subrequests_with_allocation_mode_all: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            allocated: vec![(A, P1, D1)],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_A, 0).mode("All"), sub(SUB1, CLASS_A, 1)])]),
                vec![s1(vec![dev(D1), dev(D2)])],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D2)]]);

    /// allocatortesting "prioritized-list-allocation-mode-all-multiple-requests"
    prioritized_list_allocation_mode_all_multiple_requests: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            ..basic(
                claim(C0, vec![
                    req(R0, CLASS_A, 1),
                    first(R1, vec![sub(SUB0, CLASS_A, 0).mode("All"), sub(SUB1, CLASS_A, 1)]),
                ]),
                vec![s1(vec![dev(D1), dev(D2)])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p("req-1/subReq-1", A, P1, D2)]]);

    /// allocatortesting "prioritized-list-disabled"
    prioritized_list_disabled: [V134, V135, V136]
        basic(
            claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_A, 1)])]),
            vec![one_device(S1, At::Node(NODE1), P1, A)],
        )
        => Want::Error("claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled");

    /// allocatortesting "prioritized-list-multi-request"
    prioritized_list_multi_request: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            ..basic(
                claim(C0, vec![
                    req(R1, CLASS_A, 1).sel(&memory_at_least("8Gi")),
                    first(R0, vec![
                        sub(SUB0, CLASS_A, 1).sel(&memory_at_least("8Gi")),
                        sub(SUB1, CLASS_A, 1).sel(&memory_at_least("4Gi")),
                    ]),
                ]),
                vec![s1(vec![mem(D1, "8Gi")]), node_slice(S2, NODE1, P2, A, vec![mem(D2, "4Gi")])],
            )
        }
        => Want::Picks(vec![vec![p(R1, A, P1, D1), p("req-0/subReq-1", A, P2, D2)]]);

    /// allocatortesting "prioritized-list-with-backtracking"
    prioritized_list_with_backtracking: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            ..basic(
                claim(C0, vec![
                    first(R0, vec![
                        sub(SUB0, CLASS_A, 1).sel(&memory_at_least("8Gi")),
                        sub(SUB1, CLASS_A, 1).sel(&memory_at_least("4Gi")),
                    ]),
                    req(R1, CLASS_A, 1).sel(&memory_at_least("8Gi")),
                ]),
                vec![s1(vec![mem(D1, "8Gi")]), node_slice(S2, NODE1, P2, A, vec![mem(D2, "4Gi")])],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P2, D2), p(R1, A, P1, D1)]]);

    /// allocatortesting "prioritized-list-too-many-in-first-subrequest"
    prioritized_list_too_many_in_first_subrequest: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            classes: vec![ca(), cb()],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_B, 500), sub(SUB1, CLASS_A, 1)])]),
                vec![one_device(S1, At::Node(NODE1), P1, A)],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D1)]]);

    /// allocatortesting "prioritized-list-allocation-mode-all"
    prioritized_list_allocation_mode_all: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            allocated: vec![(A, P1, D2)],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_A, 0).mode("All"), sub(SUB1, CLASS_A, 1)])]),
                vec![s1(vec![dev(D1), dev(D2)])],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D1)]]);

    /// allocatortesting "prioritized-list-allocation-mode-all-with-selectors"
    prioritized_list_allocation_mode_all_with_selectors: [V136]
        Case {
            features: features!(prioritized_list),
            ..basic(
                claim(C0, vec![first(R0, vec![
                    sub(SUB0, CLASS_A, 0).sel(r#"device.attributes["driver-a"].generation == "v6""#).mode("All"),
                    sub(SUB1, CLASS_A, 0).sel(r#"device.attributes["driver-a"].generation == "v5""#).mode("All"),
                ])]),
                vec![s1(vec![dev(D1).string("generation", "v5")])],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D1)]]);

    /// allocatortesting "prioritized-list-allocation-mode-all-with-selectors-multiple-pools"
    prioritized_list_allocation_mode_all_with_selectors_multiple_pools: [V136]
        Case {
            features: features!(prioritized_list),
            ..basic(
                claim(C0, vec![first(R0, vec![
                    sub(SUB0, CLASS_A, 0).sel(r#"device.attributes["driver-a"].generation == "v6""#).mode("All"),
                    sub(SUB1, CLASS_A, 0).sel(r#"device.attributes["driver-a"].generation == "v5""#).mode("All"),
                ])]),
                vec![
                    s1(vec![dev(D1).string("generation", "v5")]),
                    node_slice(S2, NODE1, P2, A, vec![dev(D1).string("generation", "v5")]),
                ],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D1), p("req-0/subReq-1", A, P2, D1)]]);

    /// allocatortesting
    /// "prioritized-list-allocation-mode-all-with-selectors-multiple-pools-across-nodes"
    prioritized_list_allocation_mode_all_with_selectors_multiple_pools_across_nodes: [V136]
        Case {
            features: features!(prioritized_list),
            ..basic(
                claim(C0, vec![first(R0, vec![
                    sub(SUB0, CLASS_A, 0).sel(r#"device.attributes["driver-a"].generation == "v6""#).mode("All"),
                    sub(SUB1, CLASS_A, 0).sel(r#"device.attributes["driver-a"].generation == "v5""#).mode("All"),
                ])]),
                vec![
                    s1(vec![dev(D1).string("generation", "v5")]),
                    node_slice(S2, NODE2, P2, A, vec![
                        dev(D1).string("generation", "v5"),
                        dev(D2).string("generation", "v6"),
                    ]),
                ],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D1)]]);

    /// allocatortesting "prioritized-list-allocation-mode-all-with-selectors-deviceclass-subset"
    prioritized_list_allocation_mode_all_with_selectors_deviceclass_subset: [V136]
        Case {
            features: features!(prioritized_list),
            classes: vec![class_expr(CLASS_A, r#"device.driver == "driver-a" && device.attributes["driver-a"].selected"#)],
            ..basic(
                claim(C0, vec![first(R0, vec![
                    sub(SUB0, CLASS_A, 0).sel(r#"device.attributes["driver-a"].generation == "v6""#).mode("All"),
                    sub(SUB1, CLASS_A, 0).sel(r#"device.attributes["driver-a"].generation == "v5""#).mode("All"),
                ])]),
                vec![s1(vec![
                    dev(D1).string("generation", "v6").bool("selected", false),
                    dev(D2).string("generation", "v5").bool("selected", false),
                    dev(D3).string("generation", "v5").bool("selected", true),
                ])],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D3)]]);

    /// allocatortesting "prioritized-list-max-allocation-limit-request"
    prioritized_list_max_allocation_limit_request: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            ..basic(
                claim(C0, vec![
                    first(R0, vec![sub(SUB0, CLASS_A, 32), sub(SUB1, CLASS_A, 16)]),
                    first(R1, vec![sub(SUB0, CLASS_A, 32), sub(SUB1, CLASS_A, 16)]),
                ]),
                vec![n_devices(S1, P1, A, 64)],
            )
        }
        => Want::Picks(vec![[picks_n("req-0/subReq-1", A, P1, 16, 0), picks_n("req-1/subReq-1", A, P1, 16, 16)].concat()]);

    /// allocatortesting "prioritized-list-max-allocation-allocation-mode-all"
    prioritized_list_max_allocation_allocation_mode_all: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            classes: vec![ca(), cb()],
            ..basic(
                claim(C0, vec![
                    first(R0, vec![sub(SUB0, CLASS_A, 0).mode("All"), sub(SUB1, CLASS_A, 2)]),
                    req(R1, CLASS_B, 2),
                ]),
                vec![n_devices(S1, P1, A, 31), n_devices(S2, P2, B, 2)],
            )
        }
        => Want::Picks(vec![vec![
            p("req-0/subReq-1", A, P1, D0),
            p("req-0/subReq-1", A, P1, D1),
            p(R1, B, P2, D0),
            p(R1, B, P2, D1),
        ]]);

    /// allocatortesting "check-combinations-with-prioritized-list" (the step count is not
    /// compared)
    check_combinations_with_prioritized_list: [V136]
        Case {
            features: features!(prioritized_list),
            ..basic(
                claim(C0, vec![
                    first(R1, vec![
                        sub(SUB0, CLASS_A, 3).sel(r#"device.attributes["driver-a"].type == "Y""#),
                        sub(SUB1, CLASS_A, 2),
                    ]),
                    first(R2, vec![
                        sub(SUB0, CLASS_A, 2),
                        sub(SUB1, CLASS_A, 1).sel(r#"device.attributes["driver-a"].type == "X""#),
                    ]),
                ]),
                vec![s1(vec![dev(D1).string("type", "X"), dev(D2).string("type", "Y"), dev(D3).string("type", "Y")])],
            )
        }
        => Want::Picks(vec![vec![
            p("req-1/subReq-1", A, P1, D2),
            p("req-1/subReq-1", A, P1, D3),
            p("req-2/subReq-1", A, P1, D1),
        ]]);
}

// Search order and combinations.
cases! {
    /// allocatortesting "check-combinations-within-single-request-single-pool-single-slice"
    check_combinations_within_single_request_single_pool_single_slice: [V136]
        basic(claim(C0, vec![req(R0, CLASS_A, 5)]), vec![s1(vec![dev(D1), dev(D2), dev(D3), dev(D4)])])
        => Want::Unsatisfiable;

    /// allocatortesting "check-combinations-within-single-request-single-pool-multiple-slices"
    check_combinations_within_single_request_single_pool_multiple_slices: [V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 5)]),
            vec![s1(vec![dev(D1), dev(D2)]).count(2), node_slice(S2, NODE1, P1, A, vec![dev(D3), dev(D4)]).count(2)],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "check-combinations-within-single-request-multiple-pools-multiple-slices"
    check_combinations_within_single_request_multiple_pools_multiple_slices: [V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 5)]),
            vec![
                s1(vec![dev(D1)]).count(2),
                node_slice(S2, NODE1, P1, A, vec![dev(D2)]).count(2),
                node_slice(S3, NODE1, P2, A, vec![dev(D3), dev(D4)]),
            ],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "check-combinations-within-single-request-many-pools"
    check_combinations_within_single_request_many_pools: [V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 5)]),
            vec![
                s1(vec![dev(D1)]),
                node_slice(S2, NODE1, P2, A, vec![dev(D2)]),
                node_slice(S3, NODE1, P3, A, vec![dev(D3)]),
                node_slice(S4, NODE1, P4, A, vec![dev(D4)]),
            ],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "check-combinations-with-backtracking"
    check_combinations_with_backtracking: [V136]
        basic(
            claim(C0, vec![req(R1, CLASS_A, 2), req(R2, CLASS_A, 1).sel(r#"device.attributes["driver-a"].type == "X""#)]),
            vec![s1(vec![dev(D1).string("type", "X"), dev(D2).string("type", "Y"), dev(D3).string("type", "Y")])],
        )
        => Want::Picks(vec![vec![p(R1, A, P1, D2), p(R1, A, P1, D3), p(R2, A, P1, D1)]]);

    /// allocatortesting "check-combinations-with-backtracking-across-slices-and-pools"
    check_combinations_with_backtracking_across_slices_and_pools: [V136]
        Case {
            features: features!(binding_conditions, device_status),
            ..basic(
                claim(C0, vec![req(R1, CLASS_A, 2), req(R2, CLASS_A, 1).sel(r#"device.attributes["driver-a"].type == "X""#)]),
                vec![
                    s1(vec![dev(D1).string("type", "X")]).count(2),
                    node_slice(S2, NODE1, P1, A, vec![dev(D2).string("type", "Y")]).count(2),
                    node_slice(S3, NODE1, P2, A, vec![dev(D3).string("type", "Y").binding(&["IsPrepare"], &[])]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R1, A, P1, D2), p(R1, A, P2, D3), p(R2, A, P1, D1)]]);

    /// allocatortesting "lexicographical-sorting-pools" (TestLexicographicalAllocator)
    lexicographical_sorting_pools: [V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 2)]),
            vec![
                one_device(S1, At::Node(NODE1), P3, A),
                one_device(S2, At::Node(NODE1), P2, A),
                one_device(S3, At::Node(NODE1), P1, A),
            ],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P2, D1)]]);

    /// allocatortesting "lexicographical-sorting-pools-with-binding-conditions"
    lexicographical_sorting_pools_with_binding_conditions: [V136]
        Case {
            features: features!(binding_conditions, device_status),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 2)]),
                vec![
                    s1(vec![dev(D1).binding(&["IsPrepare"], &["BindingFailed"])]),
                    node_slice(S3, NODE1, P3, A, vec![dev(D3)]),
                    node_slice(S2, NODE1, P2, A, vec![dev(D2)]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P2, D2), p(R0, A, P3, D3)]]);

    /// allocatortesting "lexicographical-sorting-slices"
    lexicographical_sorting_slices: [V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 2)]),
            vec![
                node_slice(S3, NODE1, P1, A, vec![dev(D3)]).count(3),
                node_slice(S2, NODE1, P1, A, vec![dev(D2)]).count(3),
                node_slice(S1, NODE1, P1, A, vec![dev(D1)]).count(3),
            ],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P1, D2)]]);

    /// allocatortesting "lexicographical-sorting-slices-with-binding-conditions"
    lexicographical_sorting_slices_with_binding_conditions: [V136]
        Case {
            features: features!(binding_conditions, device_status),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 2)]),
                vec![
                    s1(vec![dev(D1).binding(&["IsPrepare"], &["BindingFailed"])]).count(3),
                    node_slice(S3, NODE1, P1, A, vec![dev(D3)]).count(3),
                    node_slice(S2, NODE1, P1, A, vec![dev(D2)]).count(3),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P1, D2)]]);
}

// Pools: generations, incomplete and invalid pools, several nodes.
cases! {
    /// allocatortesting "allocation-mode-all-with-multi-host-resource-pool"
    allocation_mode_all_with_multi_host_resource_pool: [V135, V136]
        basic(
            claim(C0, vec![all(R0, CLASS_A)]),
            vec![s1(vec![dev(D1)]).count(2), node_slice(S2, NODE2, P1, A, vec![dev(D2)]).count(2)],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "multi-host-resource-pool-with-stale-slice-for-current-node"
    multi_host_resource_pool_with_stale_slice_for_current_node: [V135, V136]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![s1(vec![dev(D1)]).count(2), node_slice(S2, NODE2, P1, A, vec![dev(D2)]).count(2).generation(2)],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "multi-host-resource-pool-complete-update-from-node-1-to-node-2"
    multi_host_resource_pool_complete_update_from_node_1_to_node_2: [V135, V136]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![
                s1(vec![dev(D1)]).count(2),
                s1(vec![dev(D2)]).count(2),
                node_slice(S2, NODE2, P1, A, vec![dev(D1)]).count(2).generation(2),
                node_slice(S2, NODE2, P1, A, vec![dev(D2)]).count(2).generation(2),
            ],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "multi-host-resource-pool-complete-update-from-node-2-to-node-1"
    multi_host_resource_pool_complete_update_from_node_2_to_node_1: [V135, V136]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![
                node_slice(S1, NODE2, P1, A, vec![dev(D1)]).count(2),
                node_slice(S1, NODE2, P1, A, vec![dev(D2)]).count(2),
                node_slice(S2, NODE1, P1, A, vec![dev(D1)]).count(2).generation(2),
                node_slice(S2, NODE1, P1, A, vec![dev(D2)]).count(2).generation(2),
            ],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "multi-host-resource-pool-incomplete-update-from-node-1-to-node-2"
    multi_host_resource_pool_incomplete_update_from_node_1_to_node_2: [V135, V136]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![
                s1(vec![dev(D1)]).count(2),
                s1(vec![dev(D2)]).count(2),
                node_slice(S2, NODE2, P1, A, vec![dev(D1)]).count(2).generation(2),
            ],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "multi-host-resource-pool-incomplete-update-from-node-2-to-node-1"
    multi_host_resource_pool_incomplete_update_from_node_2_to_node_1: [V135, V136]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![
                node_slice(S1, NODE2, P1, A, vec![dev(D1)]).count(2),
                node_slice(S1, NODE2, P1, A, vec![dev(D2)]).count(2),
                node_slice(S2, NODE1, P1, A, vec![dev(D1)]).count(2).generation(2),
            ],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "different-resourceslices-in-pool-can-target-different-nodes"
    different_resourceslices_in_pool_can_target_different_nodes: [V135, V136]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![node_slice(S1, NODE2, P1, A, vec![dev(D1)]).count(2), node_slice(S2, NODE1, P1, A, vec![dev(D2)]).count(2)],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D2)]]);

    /// allocatortesting "invalid-pool-is-ok-if-devices-can-be-allocated-from-other"
    invalid_pool_is_ok_if_devices_can_be_allocated_from_other: [V135, V136]
        basic(
            claim1(C0, R0, CLASS_A),
            vec![
                s1(vec![dev(D1)]).count(2),
                node_slice(S2, NODE1, P1, A, vec![dev(D1)]).count(2),
                node_slice(S3, NODE1, P2, A, vec![dev(D2)]),
            ],
        )
        => Want::Picks(vec![vec![p(R0, A, P2, D2)]]);

    /// allocatortesting "invalid-pool-is-error-if-no-other-device-can-be-allocated"
    invalid_pool_is_error_if_no_other_device_can_be_allocated: [V135, V136]
        Case {
            allocated: vec![(A, P2, D2)],
            ..basic(
                claim1(C0, R0, CLASS_A),
                vec![
                    s1(vec![dev(D1)]).count(2),
                    node_slice(S2, NODE1, P1, A, vec![dev(D1)]).count(2),
                    node_slice(S3, NODE1, P2, A, vec![dev(D2)]),
                ],
            )
        }
        => Want::InvalidPools;

    /// allocatortesting "no-allocation-from-incomplete-pools"
    no_allocation_from_incomplete_pools: [V135, V136]
        basic(claim1(C0, R0, CLASS_A), vec![s1(vec![dev(D1)]).count(2)]) => Want::Unsatisfiable;
}

// Partitionable devices (1.35+: counter sets in slices of their own).
fn counters_slice(name: &str, pool: &str, count: i64, sets: &[(&str, &[(&str, &str)])]) -> S {
    let mut s = slice(name, At::Node(NODE1), pool, A).count(count);
    for (n, c) in sets {
        s = s.counter_set(n, c);
    }
    s
}

/// Three devices consuming 4Gi, 6Gi and 4Gi of `counter-set-1`'s memory (capacities from the
/// counters).
fn four_six_four() -> Vec<D> {
    vec![
        dev(D1).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters(),
        dev(D2).consumes(SET1, &[("memory", "6Gi")]).capacity_from_counters(),
        dev(D3).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters(),
    ]
}

cases! {
    /// allocatortesting "partitionable-devices-single-device"
    partitionable_devices_single_device: [V135, V136]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![
                    s1(vec![dev(D1).consumes(SET1, &[("memory", "4Gi")])]).count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[("memory", "8Gi")])]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "partitionable-devices-single-device" (1.34 data: the counter set in
    /// the device's slice)
    partitionable_devices_single_device_1_34: [V134]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![s1(vec![dev(D1).consumes(SET1, &[("memory", "4Gi")])]).counter_set(SET1, &[("memory", "8Gi")])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "partitionable-devices-prioritized-list"
    partitionable_devices_prioritized_list: [V135, V136]
        Case {
            features: features!(prioritized_list, partitionable),
            ..basic(
                claim(C0, vec![
                    req(R0, CLASS_A, 1),
                    first(R1, vec![
                        sub(SUB0, CLASS_A, 1).sel(&memory_at_least("6Gi")),
                        sub(SUB1, CLASS_A, 1).sel(&memory_at_least("4Gi")),
                    ]),
                ]),
                vec![s1(four_six_four()).count(2), counters_slice(S2, P1, 2, &[(SET1, &[("memory", "8Gi")])])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p("req-1/subReq-1", A, P1, D3)]]);

    /// allocatortesting "partitionable-devices-multiple-devices"
    partitionable_devices_multiple_devices: [V135, V136]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1), req(R1, CLASS_A, 1)]),
                vec![s1(four_six_four()).count(2), counters_slice(S2, P1, 2, &[(SET1, &[("memory", "8Gi")])])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R1, A, P1, D3)]]);

    /// allocatortesting "partitionable-devices-multiple-devices" (1.34 data)
    partitionable_devices_multiple_devices_1_34: [V134]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1), req(R1, CLASS_A, 1)]),
                vec![s1(four_six_four()).counter_set(SET1, &[("memory", "8Gi")])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R1, A, P1, D3)]]);

    /// allocatortesting "partitionable-devices-multiple-capacity-pools"
    partitionable_devices_multiple_capacity_pools: [V135, V136]
        Case {
            features: features!(prioritized_list, partitionable),
            ..basic(
                claim(C0, vec![
                    req(R0, CLASS_A, 1),
                    first(R1, vec![
                        sub(SUB0, CLASS_A, 1).sel(&memory_at_least("6Gi")),
                        sub(SUB1, CLASS_A, 1).sel(&memory_at_least("4Gi")),
                    ]),
                ]),
                vec![
                    s1(vec![
                        dev(D1).consumes(SET1, &[("memory", "4Gi")]).consumes(SET2, &[("cpus", "4")]).capacity_from_counters(),
                        dev(D2).consumes(SET1, &[("memory", "6Gi")]).consumes(SET2, &[("cpus", "6")]).capacity_from_counters(),
                        dev(D3).consumes(SET1, &[("memory", "4Gi")]).consumes(SET2, &[("cpus", "4")]).capacity_from_counters(),
                    ])
                    .count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[("memory", "18Gi")]), (SET2, &[("cpus", "8")])]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p("req-1/subReq-1", A, P1, D3)]]);

    /// allocatortesting "partitionable-devices-multiple-counters"
    partitionable_devices_multiple_counters: [V135, V136]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1), req(R1, CLASS_A, 1)]),
                vec![
                    s1(vec![
                        dev(D1)
                            .consumes(SET1, &[("memory", "4Gi"), ("cpus", "6")])
                            .consumes(SET2, &[("cpus", "4"), ("memory", "2Gi")])
                            .capacity_from_counters(),
                        dev(D2)
                            .consumes(SET1, &[("memory", "6Gi"), ("cpus", "4")])
                            .consumes(SET2, &[("cpus", "6"), ("memory", "6Gi")])
                            .capacity_from_counters(),
                        dev(D3)
                            .consumes(SET1, &[("memory", "4Gi"), ("cpus", "4")])
                            .consumes(SET2, &[("cpus", "4"), ("memory", "4Gi")])
                            .capacity_from_counters(),
                    ])
                    .count(2),
                    counters_slice(
                        S2,
                        P1,
                        2,
                        &[(SET1, &[("cpus", "8"), ("memory", "18Gi")]), (SET2, &[("cpus", "12"), ("memory", "18Gi")])],
                    ),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D2), p(R1, A, P1, D3)]]);

    /// allocatortesting "partitionable-devices-multiple-pools"
    partitionable_devices_multiple_pools: [V135, V136]
        Case {
            features: features!(partitionable),
            allocated: vec![(A, P1, D2), (A, P1, D3), (A, P2, D1)],
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1), req(R1, CLASS_A, 1)]),
                vec![
                    s1(vec![
                        dev(D1).consumes(SET1, &[("cpus", "6"), ("memory", "4Gi")]).capacity_from_counters(),
                        dev(D2).consumes(SET1, &[("cpus", "4"), ("memory", "6Gi")]).capacity_from_counters(),
                        dev(D3).consumes(SET1, &[("cpus", "4"), ("memory", "4Gi")]).capacity_from_counters(),
                    ])
                    .count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[("cpus", "8"), ("memory", "18Gi")])]),
                    node_slice(S3, NODE1, P2, A, vec![
                        dev(D1).consumes(SET1, &[("cpus", "6"), ("memory", "4Gi")]).capacity_from_counters(),
                        dev(D2).consumes(SET1, &[("cpus", "1"), ("memory", "7Gi")]).capacity_from_counters(),
                        dev(D3).consumes(SET1, &[("cpus", "1"), ("memory", "7Gi")]).capacity_from_counters(),
                    ])
                    .count(2),
                    counters_slice(S4, P2, 2, &[(SET1, &[("cpus", "8"), ("memory", "18Gi")])]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P2, D2), p(R1, A, P2, D3)]]);

    /// allocatortesting "partitionable-devices-multiple-pools" (1.34 data)
    partitionable_devices_multiple_pools_1_34: [V134]
        Case {
            features: features!(partitionable),
            allocated: vec![(A, P1, D2), (A, P1, D3), (A, P2, D1)],
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1), req(R1, CLASS_A, 1)]),
                vec![
                    s1(vec![
                        dev(D1).consumes(SET1, &[("cpus", "6"), ("memory", "4Gi")]).capacity_from_counters(),
                        dev(D2).consumes(SET1, &[("cpus", "4"), ("memory", "6Gi")]).capacity_from_counters(),
                        dev(D3).consumes(SET1, &[("cpus", "4"), ("memory", "4Gi")]).capacity_from_counters(),
                    ])
                    .counter_set(SET1, &[("cpus", "8"), ("memory", "18Gi")]),
                    node_slice(S2, NODE1, P2, A, vec![
                        dev(D1).consumes(SET1, &[("cpus", "6"), ("memory", "4Gi")]).capacity_from_counters(),
                        dev(D2).consumes(SET1, &[("cpus", "1"), ("memory", "7Gi")]).capacity_from_counters(),
                        dev(D3).consumes(SET1, &[("cpus", "1"), ("memory", "7Gi")]).capacity_from_counters(),
                    ])
                    .counter_set(SET1, &[("cpus", "8"), ("memory", "18Gi")]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P2, D2), p(R1, A, P2, D3)]]);

    /// allocatortesting "partitionable-devices-unused-counters-in-counter-set"
    partitionable_devices_unused_counters_in_counter_set: [V135, V136]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 2)]),
                vec![
                    s1(vec![
                        dev(D1).consumes(SET1, &[("memory", "5Gi")]),
                        dev(D2).consumes(SET1, &[("memory", "4Gi")]),
                        dev(D3).consumes(SET1, &[("memory", "4Gi")]),
                    ])
                    .count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[("memory", "8Gi"), ("unused", "1Gi")])]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D2), p(R0, A, P1, D3)]]);

    /// allocatortesting "partitionable-devices-no-capacity-available"
    partitionable_devices_no_capacity_available: [V135, V136]
        Case {
            features: features!(partitionable),
            allocated: vec![(A, P1, D2)],
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![
                    s1(vec![
                        dev(D1).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters(),
                        dev(D2).consumes(SET1, &[("memory", "16Gi")]).capacity_from_counters(),
                    ]),
                    counters_slice(S2, P1, 1, &[(SET1, &[("memory", "18Gi")])]),
                ],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "partitionable-devices-no-capacity-available" (1.34 data)
    partitionable_devices_no_capacity_available_1_34: [V134]
        Case {
            features: features!(partitionable),
            allocated: vec![(A, P1, D2)],
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![s1(vec![
                    dev(D1).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters(),
                    dev(D2).consumes(SET1, &[("memory", "16Gi")]).capacity_from_counters(),
                ])
                .counter_set(SET1, &[("memory", "18Gi")])],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "partitionable-devices-overallocated-capacity-pool"
    partitionable_devices_overallocated_capacity_pool: [V135, V136]
        Case {
            features: features!(partitionable),
            allocated: vec![(A, P1, D2)],
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![
                    s1(vec![
                        dev(D1).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters(),
                        dev(D2).consumes(SET1, &[("memory", "20Gi")]).capacity_from_counters(),
                    ]),
                    counters_slice(S2, P1, 1, &[(SET1, &[("memory", "18Gi")])]),
                ],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "partitionable-devices-disabled-device-consumes-counters"
    partitionable_devices_disabled_device_consumes_counters: [V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 1)]),
            vec![
                s1(vec![dev(D1).consumes(SET1, &[("memory", "4Gi")])]),
                counters_slice(S2, P1, 1, &[(SET1, &[("memory", "18Gi")])]),
            ],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "partitionable-devices-disabled-other-device-do-not-consume-counters"
    partitionable_devices_disabled_other_device_do_not_consume_counters: [V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 1)]),
            vec![
                s1(vec![dev(D1).consumes(SET1, &[("memory", "4Gi")]), dev(D2)]).count(2),
                counters_slice(S2, P1, 2, &[(SET1, &[("memory", "18Gi")])]),
            ],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D2)]]);

    /// allocatortesting "partitionable-devices-disabled-other-device-do-not-consume-counters"
    /// (1.34 data)
    partitionable_devices_disabled_other_device_do_not_consume_counters_1_34: [V134]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 1)]),
            vec![s1(vec![dev(D1).consumes(SET1, &[("memory", "4Gi")]), dev(D2)]).counter_set(SET1, &[("memory", "18Gi")])],
        )
        => Want::Picks(vec![vec![p(R0, A, P1, D2)]]);

    /// allocatortesting "partitionable-devices-disabled-per-device-node-selection"
    partitionable_devices_disabled_per_device_node_selection: [V134, V135, V136]
        basic(
            claim(C0, vec![req(R0, CLASS_A, 1)]),
            vec![slice(S1, At::PerDevice, P1, A).devs(vec![dev(D2).on_node(NODE1)])],
        )
        => Want::Unsatisfiable;

    /// allocatortesting "partitionable-devices-per-device-node-selection-nodename"
    partitionable_devices_per_device_node_selection_nodename: [V135, V136]
        Case {
            features: features!(prioritized_list, partitionable),
            ..basic(
                claim(C0, vec![first(R0, vec![
                    sub(SUB0, CLASS_A, 1).sel(&memory_at_least("6Gi")),
                    sub(SUB1, CLASS_A, 1).sel(&memory_at_least("4Gi")),
                ])]),
                vec![
                    slice(S1, At::PerDevice, P1, A)
                        .count(2)
                        .devs(vec![
                            dev(D1).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters().on_node(NODE1),
                            dev(D2).consumes(SET1, &[("memory", "6Gi")]).capacity_from_counters().on_node(NODE2),
                        ]),
                    slice(S2, At::PerDevice, P1, A).count(2).counter_set(SET1, &[("memory", "18Gi")]),
                ],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D1)]]);

    /// allocatortesting "partitionable-devices-per-device-node-selection-nodename" (1.34 data)
    partitionable_devices_per_device_node_selection_nodename_1_34: [V134]
        Case {
            features: features!(prioritized_list, partitionable),
            ..basic(
                claim(C0, vec![first(R0, vec![
                    sub(SUB0, CLASS_A, 1).sel(&memory_at_least("6Gi")),
                    sub(SUB1, CLASS_A, 1).sel(&memory_at_least("4Gi")),
                ])]),
                vec![
                    slice(S1, At::PerDevice, P1, A)
                        .devs(vec![
                            dev(D1).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters().on_node(NODE1),
                            dev(D2).consumes(SET1, &[("memory", "6Gi")]).capacity_from_counters().on_node(NODE2),
                        ])
                        .counter_set(SET1, &[("memory", "18Gi")]),
                ],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D1)]]);

    /// allocatortesting "partitionable-devices-per-device-node-selection-node-selector" (the
    /// node selector is not compared)
    partitionable_devices_per_device_node_selection_node_selector: [V135, V136]
        Case {
            features: features!(prioritized_list, partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![
                    slice(S1, At::PerDevice, P1, A).count(2).devs(vec![
                        dev(D1)
                            .consumes(SET1, &[("memory", "4Gi")])
                            .capacity_from_counters()
                            .on_selector(label_selector("region", &[REGION1])),
                    ]),
                    slice(S2, At::PerDevice, P1, A).count(2).counter_set(SET1, &[("memory", "18Gi")]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting
    /// "partitionable-devices-per-device-node-selection-node-selector-multiple-devices"
    partitionable_devices_per_device_node_selection_node_selector_multiple_devices: [V135, V136]
        Case {
            features: features!(prioritized_list, partitionable),
            classes: vec![ca(), cb()],
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 3), req(R1, CLASS_B, 3)]),
                vec![
                    slice(S1, At::PerDevice, P1, A).count(2).devs(vec![
                        dev(D1)
                            .consumes(SET1, &[("memory", "4Gi")])
                            .capacity_from_counters()
                            .on_selector(label_selector("region", &[REGION1])),
                        dev(D2).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters().on_node(NODE1),
                        dev(D3).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters().on_all_nodes(),
                    ]),
                    slice(S2, At::PerDevice, P1, A).count(2).counter_set(SET1, &[("memory", "18Gi")]),
                    node_slice(S3, NODE1, P2, B, vec![
                        dev(D1).consumes(SET2, &[("memory", "4Gi")]).capacity_from_counters(),
                        dev(D2).consumes(SET2, &[("memory", "4Gi")]).capacity_from_counters(),
                        dev(D3).consumes(SET2, &[("memory", "4Gi")]).capacity_from_counters(),
                    ])
                    .count(2),
                    slice(S4, At::Node(NODE1), P2, B).count(2).counter_set(SET2, &[("memory", "12Gi")]),
                ],
            )
        }
        => Want::Picks(vec![vec![
            p(R0, A, P1, D1),
            p(R0, A, P1, D2),
            p(R0, A, P1, D3),
            p(R1, B, P2, D1),
            p(R1, B, P2, D2),
            p(R1, B, P2, D3),
        ]]);

    /// allocatortesting "partitionable-devices-with-attribute-selector"
    partitionable_devices_with_attribute_selector: [V135, V136]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 2), req(R1, CLASS_A, 1).sel(r#"device.attributes["driver-a"].special"#)]),
                vec![
                    s1(vec![
                        dev(D1).bool("special", true).consumes(SET1, &[("cpu1", "1")]).consumes(SET2, &[("mem", "10Gi")]),
                        dev(D2).bool("special", false).consumes(SET1, &[("cpu2", "1")]).consumes(SET2, &[("mem", "10Gi")]),
                        dev(D3).bool("special", false).consumes(SET1, &[("cpu3", "1")]).consumes(SET2, &[("mem", "10Gi")]),
                    ])
                    .count(2),
                    counters_slice(
                        S2,
                        P1,
                        2,
                        &[(SET1, &[("cpu1", "1"), ("cpu2", "1"), ("cpu3", "1")]), (SET2, &[("mem", "30Gi")])],
                    ),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D2), p(R0, A, P1, D3), p(R1, A, P1, D1)]]);

    /// allocatortesting "partitionable-devices-same-counter-set-name-in-different-resource-slices"
    partitionable_devices_same_counter_set_name_in_different_resource_slices: [V135, V136]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![
                    s1(vec![dev(D1)]).count(4),
                    counters_slice(S2, P1, 4, &[(SET1, &[])]),
                    node_slice(S3, NODE1, P1, A, vec![dev(D2)]).count(4),
                    counters_slice(S4, P1, 4, &[(SET1, &[])]),
                ],
            )
        }
        => Want::InvalidPools;

    /// allocatortesting
    /// "partitionable-devices-device-counter-consumption-references-unknown-counter-set"
    partitionable_devices_device_counter_consumption_references_unknown_counter_set: [V135, V136]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![s1(vec![dev(D1).consumes(SET2, &[])]).count(2), counters_slice(S2, P1, 2, &[(SET1, &[])])],
            )
        }
        => Want::InvalidPools;

    /// allocatortesting
    /// "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set"
    partitionable_devices_device_counter_consumption_references_unknown_counter_in_counter_set: [V135, V136]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![
                    s1(vec![dev(D1).consumes(SET1, &[("memory", "8Gi")])]).count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[("other-memory", "8Gi")])]),
                ],
            )
        }
        => Want::InvalidPools;

    /// allocatortesting
    /// "partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool"
    partitionable_devices_device_counter_consumption_references_counter_set_in_other_pool: [V135, V136]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![
                    s1(vec![dev(D1).consumes(SET1, &[("memory", "8Gi")])]),
                    counters_slice(S2, P2, 1, &[(SET1, &[("memory", "8Gi")])]),
                ],
            )
        }
        => Want::InvalidPools;

    /// allocatortesting "partitionable-devices-devices-on-different-nodes-consume-same-counter-set"
    partitionable_devices_devices_on_different_nodes_consume_same_counter_set: [V135, V136]
        Case {
            features: features!(partitionable, prioritized_list),
            allocated: vec![(A, P1, D3)],
            ..basic(
                claim(C0, vec![first(R0, vec![
                    sub(SUB0, CLASS_A, 1).sel(&memory_at_least("6Gi")),
                    sub(SUB1, CLASS_A, 1).sel(&memory_at_least("2Gi")),
                ])]),
                vec![
                    counters_slice(S1, P1, 3, &[(SET1, &[("memory", "8Gi")])]),
                    node_slice(S2, NODE1, P1, A, vec![
                        dev(D1).consumes(SET1, &[("memory", "6Gi")]).capacity_from_counters(),
                        dev(D2).consumes(SET1, &[("memory", "2Gi")]).capacity_from_counters(),
                    ])
                    .count(3),
                    node_slice(S3, NODE2, P1, A, vec![dev(D3).consumes(SET1, &[("memory", "6Gi")])]).count(3),
                ],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D2)]]);

    /// allocatortesting "partitionable-devices-validation-error-on-non-targeting-slice"
    partitionable_devices_validation_error_on_non_targeting_slice: [V135, V136]
        Case {
            features: features!(partitionable),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![
                    counters_slice(S1, P1, 3, &[(SET1, &[("memory", "8Gi")])]),
                    node_slice(S2, NODE1, P1, A, vec![dev(D1).consumes(SET1, &[("memory", "6Gi")]).capacity_from_counters()]).count(3),
                    node_slice(S3, NODE2, P1, A, vec![dev(D3).consumes(SET2, &[("memory", "6Gi")])]).count(3),
                ],
            )
        }
        => Want::InvalidPools;
}

// Device taints.
fn tainted(taints: Vec<Value>) -> D {
    taints.into_iter().fold(dev(D1), D::taint)
}

cases! {
    /// allocatortesting "tainted-two-devices"
    tainted_two_devices: [V134, V135, V136]
        Case {
            features: features!(device_taints),
            ..basic(
                claim1(C0, R0, CLASS_A),
                vec![s1(vec![dev(D1).taint(taint_no_schedule()), dev(D2).taint(taint_no_execute())])],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "tainted-one-device-two-taints"
    tainted_one_device_two_taints: [V134, V135, V136]
        Case {
            features: features!(device_taints),
            ..basic(claim1(C0, R0, CLASS_A), vec![s1(vec![tainted(vec![taint_no_schedule(), taint_no_execute()])])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "tainted-two-devices-tolerated"
    tainted_two_devices_tolerated: [V134, V135, V136]
        Case {
            features: features!(device_taints),
            ..basic(
                claim1(C0, R0, CLASS_A).tolerate(toleration_no_execute()),
                vec![s1(vec![dev(D1).taint(taint_no_schedule()), dev(D2).taint(taint_no_execute())])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D2)]]);

    /// allocatortesting "tainted-two-devices-prioritized-list-tolerated"
    tainted_two_devices_prioritized_list_tolerated: [V135, V136]
        Case {
            features: features!(device_taints, prioritized_list),
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_A, 1), sub(SUB1, CLASS_A, 1).tolerate(toleration_no_execute())])]),
                vec![s1(vec![dev(D1).taint(taint_no_schedule()), dev(D2).taint(taint_no_execute())])],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D2)]]);

    /// allocatortesting "tainted-no-effect" (1.35+: a taint with effect None does not count)
    tainted_no_effect: [V135, V136]
        Case {
            features: features!(device_taints),
            ..basic(claim1(C0, R0, CLASS_A), vec![s1(vec![tainted(vec![taint_none()])])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "tainted-one-device-two-taints-both-tolerated"
    tainted_one_device_two_taints_both_tolerated: [V134, V135, V136]
        Case {
            features: features!(device_taints),
            ..basic(
                claim1(C0, R0, CLASS_A).tolerate(toleration_no_schedule()).tolerate(toleration_no_execute()),
                vec![s1(vec![tainted(vec![taint_no_schedule(), taint_no_execute()])])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "tainted-disabled"
    tainted_disabled: [V134, V135, V136]
        basic(claim1(C0, R0, CLASS_A), vec![s1(vec![tainted(vec![taint_no_schedule(), taint_no_execute()])])])
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "tainted-prioritized-list"
    tainted_prioritized_list: [V134, V135, V136]
        Case {
            features: features!(device_taints, prioritized_list),
            classes: vec![ca(), cb()],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_B, 1), sub(SUB1, CLASS_A, 1)])]),
                vec![s1(vec![tainted(vec![taint_no_schedule()])])],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "tainted-prioritized-list-disabled"
    tainted_prioritized_list_disabled: [V134, V135, V136]
        Case {
            features: features!(prioritized_list),
            classes: vec![ca(), cb()],
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_B, 1), sub(SUB1, CLASS_A, 1)])]),
                vec![s1(vec![tainted(vec![taint_no_schedule()])])],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D1)]]);

    /// allocatortesting "tainted-admin-access"
    tainted_admin_access: [V134, V135, V136]
        Case {
            features: features!(device_taints, admin_access),
            allocated: vec![(A, P1, D1), (A, P1, D2)],
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).admin()]), vec![s1(vec![tainted(vec![taint_no_schedule()])])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "tainted-admin-access-disabled"
    tainted_admin_access_disabled: [V134, V135, V136]
        Case {
            features: features!(admin_access),
            allocated: vec![(A, P1, D1), (A, P1, D2)],
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).admin()]), vec![s1(vec![tainted(vec![taint_no_schedule()])])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).admin()]]);

    /// allocatortesting "tainted-all-devices-single"
    tainted_all_devices_single: [V134, V135, V136]
        Case {
            features: features!(device_taints),
            ..basic(claim(C0, vec![all(R0, CLASS_A)]), vec![s1(vec![tainted(vec![taint_no_schedule()])])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "tainted-all-devices-single-disabled"
    tainted_all_devices_single_disabled: [V134, V135, V136]
        basic(claim(C0, vec![all(R0, CLASS_A)]), vec![s1(vec![tainted(vec![taint_no_schedule()])])])
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);
}

// Binding conditions (1.34: DRADeviceBindingConditions and DRAResourceClaimDeviceStatus; 1.35+:
// both, one allocator feature).
cases! {
    /// allocatortesting "device-binding-conditions"
    device_binding_conditions: [V134, V136]
        Case {
            features: features!(binding_conditions, device_status),
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1)]), vec![s1(vec![dev(D1).binding(&["IsPrepare"], &["BindingFailed"])])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "binding-conditions-multiple-devices"
    binding_conditions_multiple_devices: [V134, V136]
        Case {
            features: features!(binding_conditions, device_status),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 2), req(R1, CLASS_A, 1)]),
                vec![s1(vec![
                    dev(D1).binding(&["IsPrepare"], &["BindingFailed"]),
                    dev(D2).binding(&["IsPrepare2"], &["BindingFailed2"]),
                    dev(D3).binding(&["IsPrepare3"], &["BindingFailed3"]),
                ])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P1, D2), p(R1, A, P1, D3)]]);

    /// allocatortesting "binding-conditions-with-and-without"
    binding_conditions_with_and_without: [V136]
        Case {
            features: features!(binding_conditions, device_status),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1), req(R1, CLASS_A, 1)]),
                vec![s1(vec![dev(D1), dev(D2).binding(&["IsPrepare"], &["BindingFailed"])])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R1, A, P1, D2)]]);

    /// allocatortesting "binding-conditions-without-feature-gate"
    binding_conditions_without_feature_gate: [V134, V135, V136]
        basic(claim(C0, vec![req(R0, CLASS_A, 1)]), vec![s1(vec![dev(D1).binding(&["IsPrepare"], &["BindingFailed"])])])
        => Want::Unsatisfiable;

    /// allocatortesting "device-binding-conditions-without-device-status-feature-gate" (1.34)
    device_binding_conditions_without_device_status_feature_gate: [V134]
        Case {
            features: features!(binding_conditions),
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1)]), vec![s1(vec![dev(D1).binding(&["IsPrepare"], &["BindingFailed"])])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "device-binding-conditions-without-binding-conditions-feature-gate"
    /// (1.34)
    device_binding_conditions_without_binding_conditions_feature_gate: [V134]
        Case {
            features: features!(device_status),
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1)]), vec![s1(vec![dev(D1).binding(&["IsPrepare"], &["BindingFailed"])])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "node-restriction"
    node_restriction: [V134, V136]
        Case {
            features: features!(binding_conditions, device_status),
            ..basic(
                claim1(C0, R0, CLASS_A),
                vec![slice(S1, At::Selector(label_selector("planet", &["earth"])), P1, A).devs(vec![dev(D1).binds_to_node()])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "partitionable-devices-with-binding-conditions"
    partitionable_devices_with_binding_conditions: [V136]
        Case {
            features: features!(partitionable, binding_conditions, device_status),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]),
                vec![
                    s1(vec![dev(D1).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters().binding(&["IsPrepare"], &["BindingFailed"])])
                        .count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[("memory", "8Gi")])]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting "partitionable-devices-with-binding-conditions-multiple"
    partitionable_devices_with_binding_conditions_multiple: [V136]
        Case {
            features: features!(partitionable, binding_conditions, device_status),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 2)]),
                vec![
                    s1(vec![
                        dev(D1).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters().binding(&["IsPrepare"], &["BindingFailed"]),
                        dev(D2).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters().binding(&["IsPrepare2"], &["BindingFailed2"]),
                    ])
                    .count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[("memory", "8Gi")])]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P1, D2)]]);

    /// allocatortesting "partitionable-devices-with-binding-conditions-some-devices-no-conditions"
    partitionable_devices_with_binding_conditions_some_devices_no_conditions: [V136]
        Case {
            features: features!(partitionable, binding_conditions, device_status),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 3)]),
                vec![
                    s1(vec![
                        dev(D1).consumes(SET1, &[("memory", "2Gi")]).capacity_from_counters().binding(&["IsPrepare"], &["BindingFailed"]),
                        dev(D2).consumes(SET1, &[("memory", "2Gi")]).capacity_from_counters(),
                        dev(D3).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters().binding(&["IsReady"], &["BindingTimeout"]),
                    ])
                    .count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[("memory", "8Gi")])]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P1, D2), p(R0, A, P1, D3)]]);

    /// allocatortesting "partitionable-devices-with-binding-conditions-multi-slices"
    partitionable_devices_with_binding_conditions_multi_slices: [V136]
        Case {
            features: features!(partitionable, binding_conditions, device_status),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 2)]),
                vec![
                    node_slice(S4, NODE1, P1, A, vec![
                        dev(D1).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters().binding(&["IsPrepare"], &["BindingFailed"]),
                    ])
                    .count(4),
                    counters_slice(S3, P1, 4, &[(SET1, &[("memory", "8Gi")])]),
                    node_slice(S2, NODE1, P1, A, vec![dev(D2).consumes(SET2, &[("memory", "4Gi")]).capacity_from_counters()]).count(4),
                    counters_slice(S1, P1, 4, &[(SET2, &[("memory", "8Gi")])]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D2), p(R0, A, P1, D1)]]);

    /// allocatortesting "partitionable-devices-with-binding-conditions-and-taints"
    partitionable_devices_with_binding_conditions_and_taints: [V136]
        Case {
            features: features!(partitionable, binding_conditions, device_status, device_taints),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 2)]),
                vec![
                    s1(vec![
                        dev(D1)
                            .consumes(SET1, &[("memory", "4Gi")])
                            .capacity_from_counters()
                            .binding(&["IsPrepare"], &["BindingFailed"])
                            .taint(json!({"key": "key1", "value": "value1", "effect": "NoSchedule"})),
                        dev(D2).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters(),
                    ]),
                    counters_slice(S2, P1, 1, &[(SET1, &[("memory", "8Gi")])]),
                ],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "partitionable-devices-with-binding-conditions-and-taints-tolerated"
    partitionable_devices_with_binding_conditions_and_taints_tolerated: [V136]
        Case {
            features: features!(partitionable, binding_conditions, device_status, device_taints),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 2)]).tolerate(toleration_no_schedule_key1()),
                vec![
                    s1(vec![
                        dev(D1)
                            .consumes(SET1, &[("memory", "4Gi")])
                            .capacity_from_counters()
                            .binding(&["IsPrepare"], &["BindingFailed"])
                            .taint(json!({"key": "key1", "value": "value1", "effect": "NoSchedule"})),
                        dev(D2).consumes(SET1, &[("memory", "4Gi")]).capacity_from_counters(),
                    ])
                    .count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[("memory", "8Gi")])]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1), p(R0, A, P1, D2)]]);
}

// distinctAttribute and consumable capacity (1.35: the experimental allocator).
fn multi_class() -> Vec<Value> {
    vec![class_multi(CLASS_A, A, true)]
}

cases! {
    /// allocatortesting "with-distinct-constraints"
    with_distinct_constraints: [V136]
        Case {
            features: features!(consumable_capacity),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1), req(R1, CLASS_A, 1), req(R2, CLASS_A, 1), req(R3, CLASS_A, 1)])
                    .distinct_attr(BOOL_ATTR, &[R0, R1])
                    .distinct_attr(VERSION_ATTR, &[R0, R1, R2])
                    .distinct_attr(INT_ATTR, &[R0, R1, R2, R3]),
                vec![s1(vec![
                    dev(D1).version("driverVersion", "1.0.0").int("numa", 0).bool("boolAttribute", true).multi(),
                    dev(D2).version("driverVersion", "1.0.1").int("numa", 1).bool("boolAttribute", false).multi(),
                    dev(D3).version("driverVersion", "1.0.2").int("numa", 2).bool("boolAttribute", true).multi(),
                    dev(D4).version("driverVersion", "1.0.0").int("numa", 3).bool("boolAttribute", true).multi(),
                ])],
            )
        }
        => Want::Picks(vec![vec![
            p(R0, A, P1, D1).shared(),
            p(R1, A, P1, D2).shared(),
            p(R2, A, P1, D3).shared(),
            p(R3, A, P1, D4).shared(),
        ]]);

    /// allocatortesting "with-distinct-constraints-attribute-not-set"
    with_distinct_constraints_attribute_not_set: [V136]
        Case {
            features: features!(consumable_capacity),
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1)]).distinct_attr(BOOL_ATTR, &[R0]), vec![s1(vec![dev(D1).multi()])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "with-distinct-constraints-unknown-type-attribute" (the class's CEL
    /// selector fails on the attribute without a value)
    with_distinct_constraints_unknown_type_attribute: [V136]
        Case {
            features: features!(consumable_capacity),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1)]).distinct_attr(BOOL_ATTR, &[R0]),
                vec![s1(vec![dev(D1).attr("boolAttribute", json!({})).multi()])],
            )
        }
        => Want::Error("unsupported attribute value");

    /// allocatortesting "with-distinct-constraints-with-subrequests"
    with_distinct_constraints_with_subrequests: [V136]
        Case {
            features: features!(consumable_capacity, prioritized_list),
            ..basic(
                claim(C0, vec![
                    first(R0, vec![sub(SUB0, CLASS_A, 1).sel(r#"device.attributes["driver-a"].boolAttribute"#), sub(SUB1, CLASS_A, 1)]),
                    first(R1, vec![sub(SUB0, CLASS_A, 1).sel(r#"device.attributes["driver-a"].boolAttribute"#), sub(SUB1, CLASS_A, 1)]),
                    first(R2, vec![sub(SUB0, CLASS_A, 1).sel(r#"device.attributes["driver-a"].boolAttribute"#), sub(SUB1, CLASS_A, 1)]),
                ])
                .distinct_attr(BOOL_ATTR, &[R0, R1]),
                vec![s1(vec![dev(D1).bool("boolAttribute", true).multi(), dev(D2).bool("boolAttribute", false).multi()])],
            )
        }
        => Want::Picks(vec![vec![
            p("req-0/subReq-0", A, P1, D1).shared(),
            p("req-1/subReq-1", A, P1, D2).shared(),
            p("req-2/subReq-0", A, P1, D1).shared(),
        ]]);

    /// allocatortesting "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint"
    distinct_constraint_one_multi_allocatable_device_with_distinct_constraint: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("1"), req(R1, CLASS_A, 1).capacity("1")])
                    .distinct_attr(STRING_ATTR, &[]),
                vec![s1(vec![dev(D1).string("stringAttribute", "stringAttributeValue").multi().range_policy(CAP0, "2")])],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint"
    distinct_constraint_two_multi_allocatable_devices_with_distinct_constraint: [V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("2"), req(R1, CLASS_A, 1).capacity("2")])
                    .distinct_attr(STRING_ATTR, &[]),
                vec![
                    s1(vec![dev(D1).string("stringAttribute", "stringAttributeValue1").multi().range_policy(CAP0, "4")]).count(2),
                    s1(vec![dev(D2).string("stringAttribute", "stringAttributeValue2").multi().range_policy(CAP0, "4")]).count(2),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared(), p(R1, A, P1, D2).shared()]]);

    /// allocatortesting "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint"
    /// (1.34 data: two slices named slice-1, each counting one slice in the pool)
    distinct_constraint_two_multi_allocatable_devices_with_distinct_constraint_1_34: [V134]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("2"), req(R1, CLASS_A, 1).capacity("2")])
                    .distinct_attr(STRING_ATTR, &[]),
                vec![
                    s1(vec![dev(D1).string("stringAttribute", "stringAttributeValue1").multi().range_policy(CAP0, "4")]),
                    s1(vec![dev(D2).string("stringAttribute", "stringAttributeValue2").multi().range_policy(CAP0, "4")]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared(), p(R1, A, P1, D2).shared()]]);

    /// Not an upstream case: "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint"
    /// with equal values. 1.34's distinctAttribute compares the values' pointers, so only a
    /// second share of the same device is a duplicate (1.34 data)…
    distinct_attribute_equal_values_of_two_devices_1_34: [V134]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("2"), req(R1, CLASS_A, 1).capacity("2")])
                    .distinct_attr(STRING_ATTR, &[]),
                vec![
                    s1(vec![dev(D1).string("stringAttribute", "same").multi().range_policy(CAP0, "4")]),
                    s1(vec![dev(D2).string("stringAttribute", "same").multi().range_policy(CAP0, "4")]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared(), p(R1, A, P1, D2).shared()]]);

    /// … while 1.35+ compare the values (1.35+ data).
    distinct_attribute_equal_values_of_two_devices: [V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("2"), req(R1, CLASS_A, 1).capacity("2")])
                    .distinct_attr(STRING_ATTR, &[]),
                vec![
                    s1(vec![dev(D1).string("stringAttribute", "same").multi().range_policy(CAP0, "4")]).count(2),
                    s1(vec![dev(D2).string("stringAttribute", "same").multi().range_policy(CAP0, "4")]).count(2),
                ],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "consumable-capacity-disabled-feature"
    consumable_capacity_disabled_feature: [V136]
        Case {
            features: features!(binding_conditions, device_status),
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]), vec![one_device(S1, At::Node(NODE1), P1, A)])
        }
        => Want::Error("claim claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled");

    /// allocatortesting "consumable-capacity-disabled-feature-with-prioritized-list"
    consumable_capacity_disabled_feature_with_prioritized_list: [V136]
        Case {
            features: features!(prioritized_list, binding_conditions, device_status),
            ..basic(
                claim(C0, vec![first(R0, vec![sub(SUB0, CLASS_A, 1).capacity("1"), sub(SUB1, CLASS_A, 1).capacity("1")])]),
                vec![one_device(S1, At::Node(NODE1), P1, A)],
            )
        }
        => Want::Error("claim claim-0, subrequest subReq-0: has capacity requests, but the DRAConsumableCapacity feature is disabled");

    /// allocatortesting "consumable-capacity-multi-allocatable-device-with-missing-capacity-request"
    consumable_capacity_multi_allocatable_device_with_missing_capacity_request: [V136]
        Case {
            features: features!(consumable_capacity),
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]), vec![s1(vec![dev(D1).cap(CAP1, "1").multi()])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request"
    consumable_capacity_multi_allocatable_device_allocation_mode_all_with_missing_capacity_request: [V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(claim(C0, vec![all(R0, CLASS_A).capacity("1")]), vec![s1(vec![dev(D1).cap(CAP1, "1").multi()])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request"
    consumable_capacity_multi_allocatable_device_without_capacity_without_capacity_request: [V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            claims: vec![claim(C0, vec![req(R0, CLASS_A, 1)]), claim(C1, vec![req(R0, CLASS_A, 1)])],
            ..basic(claim(C0, vec![]), vec![s1(vec![dev(D1).multi()])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()], vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request"
    consumable_capacity_multi_allocatable_device_without_policy_without_capacity_request: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            claims: vec![claim(C0, vec![req(R0, CLASS_A, 1)]), claim(C1, vec![req(R0, CLASS_A, 1)])],
            ..basic(claim(C0, vec![]), vec![s1(vec![dev(D1).cap(CAP0, "1").multi(), dev(D2).cap(CAP0, "1").multi()])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()], vec![p(R0, A, P1, D2).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block"
    consumable_capacity_multi_allocatable_device_without_policy_without_capacity_request_block: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            claims: vec![claim(C0, vec![req(R0, CLASS_A, 1)]), claim(C1, vec![req(R0, CLASS_A, 1)])],
            ..basic(claim(C0, vec![]), vec![s1(vec![dev(D1).cap(CAP0, "2").multi()])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request"
    consumable_capacity_multi_allocatable_device_without_policy_with_capacity_request: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            claims: vec![
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]),
                claim(C1, vec![req(R0, CLASS_A, 1).capacity("1")]),
            ],
            ..basic(claim(C0, vec![]), vec![s1(vec![dev(D1).cap(CAP0, "2").multi()])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()], vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request"
    consumable_capacity_multi_allocatable_device_with_policy_without_capacity_request: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            claims: vec![claim(C0, vec![req(R0, CLASS_A, 1)]), claim(C1, vec![req(R0, CLASS_A, 1)])],
            ..basic(claim(C0, vec![]), vec![s1(vec![dev(D1).multi().range_policy(CAP0, "4")])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()], vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting "consumable-capacity-multi-allocatable-device-with-zero-request-policy"
    consumable_capacity_multi_allocatable_device_with_zero_request_policy: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            claims: vec![claim(C0, vec![req(R0, CLASS_A, 1)]), claim(C1, vec![req(R0, CLASS_A, 1)])],
            ..basic(claim(C0, vec![]), vec![s1(vec![dev(D1).multi().valid_values(CAP0, "1", "0", &[])])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()], vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting "consumable-capacity-multi-allocatable-device-violates-zero-request-policy"
    consumable_capacity_multi_allocatable_device_violates_zero_request_policy: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]),
                vec![s1(vec![dev(D1).multi().valid_values(CAP0, "1", "0", &[])])],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request"
    consumable_capacity_multi_allocatable_device_with_range_policy_with_capacity_request: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            claims: vec![
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]),
                claim(C1, vec![req(R0, CLASS_A, 1).capacity("1")]),
            ],
            ..basic(claim(C0, vec![]), vec![s1(vec![dev(D1).multi().range_policy(CAP0, "4")])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()], vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting "consumable-capacity-multi-allocatable-device-with-range-policy-step"
    consumable_capacity_multi_allocatable_device_with_range_policy_step: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).capacity("3")]), vec![s1(vec![dev(D1).multi().range_policy(CAP0, "4")])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting "consumable-capacity-multi-allocatable-device-with-valid-values-policy"
    consumable_capacity_multi_allocatable_device_with_valid_values_policy: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("2")]),
                vec![s1(vec![dev(D1).multi().valid_values(CAP0, "4", "1", &["2"])])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up"
    consumable_capacity_multi_allocatable_device_with_valid_values_policy_round_up: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("2")]),
                vec![s1(vec![dev(D1).multi().valid_values(CAP0, "3", "1", &["3"])])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request"
    consumable_capacity_multi_allocatable_device_with_exceeded_consumable_capacity_request: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            claims: vec![
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]),
                claim(C1, vec![req(R0, CLASS_A, 1).capacity("2")]),
            ],
            ..basic(claim(C0, vec![]), vec![s1(vec![dev(D1).multi().range_policy(CAP0, "2")])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy"
    consumable_capacity_multi_allocatable_device_with_request_over_max_sharing_policy: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).capacity("6")]), vec![s1(vec![dev(D1).range_policy(CAP0, "2")])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining"
    consumable_capacity_multi_allocatable_device_with_allocated_capacity_use_remaining: [V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            consumed: vec![((A, P1, D1), &[(CAP0, "2")])],
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).capacity("2")]), vec![s1(vec![dev(D1).multi().range_policy(CAP0, "4")])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device"
    consumable_capacity_multi_allocatable_device_with_allocated_capacity_next_device: [V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            consumed: vec![((A, P1, D1), &[(CAP0, "2")])],
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("2")]),
                vec![s1(vec![dev(D1).multi().range_policy(CAP0, "2"), dev(D2).multi().range_policy(CAP0, "2")])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D2).shared()]]);

    /// allocatortesting "consumable-capacity-with-multi-allocatable-device-backtrack"
    consumable_capacity_with_multi_allocatable_device_backtrack: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            claims: vec![
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("2"), req(R1, CLASS_A, 1).capacity("2")])
                    .match_attr(STRING_ATTR, &[]),
                claim(C1, vec![req(R0, CLASS_A, 1).capacity("2")]),
            ],
            ..basic(
                claim(C0, vec![]),
                vec![s1(vec![
                    dev(D2).string("stringAttribute", "stringAttributeValue1").multi().range_policy(CAP0, "2"),
                    dev(D1).string("stringAttribute", "stringAttributeValue2").multi().range_policy(CAP0, "4"),
                ])],
            )
        }
        => Want::Picks(vec![
            vec![p(R0, A, P1, D1).shared(), p(R1, A, P1, D1).shared()],
            vec![p(R0, A, P1, D2).shared()],
        ]);

    /// allocatortesting "consumable-capacity-multi-allocatable-device-with-subrequest"
    consumable_capacity_multi_allocatable_device_with_subrequest: [V134, V136]
        Case {
            features: features!(consumable_capacity, prioritized_list),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![first(R0, vec![
                    sub(SUB0, CLASS_A, 1).capacity("4"),
                    sub(SUB1, CLASS_A, 1).capacity("2"),
                    sub(SUB1, CLASS_A, 1),
                ])]),
                vec![s1(vec![dev(D1).multi().range_policy(CAP0, "2")])],
            )
        }
        => Want::Picks(vec![vec![p("req-0/subReq-1", A, P1, D1).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity"
    consumable_capacity_multi_allocatable_device_with_no_available_consumable_capacity: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            consumed: vec![((A, P1, D1), &[(CAP0, "2")])],
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).capacity("2")]), vec![s1(vec![dev(D1).multi().range_policy(CAP0, "2")])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity"
    consumable_capacity_multi_allocatable_device_allocation_mode_all_filter_out_no_capacity: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(claim(C0, vec![all(R0, CLASS_A).capacity("2")]), vec![s1(vec![dev(D1).cap(CAP0, "2").multi(), dev(D2).multi()])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity"
    consumable_capacity_multi_allocatable_device_allocation_mode_all_filter_out_insufficient_capacity: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![all(R0, CLASS_A).capacity("2")]),
                vec![s1(vec![dev(D1).cap(CAP0, "2").multi(), dev(D2).cap(CAP0, "1").multi()])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient"
    consumable_capacity_multi_allocatable_device_allocation_mode_all_allocating_sufficient: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("1"), all(R1, CLASS_A).capacity("1")]),
                vec![s1(vec![dev(D1).cap(CAP0, "2").multi(), dev(D2).cap(CAP0, "1").multi()])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared(), p(R1, A, P1, D1).shared(), p(R1, A, P1, D2).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient"
    consumable_capacity_multi_allocatable_device_allocation_mode_all_in_use_sufficient: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            consumed: vec![((A, P1, D1), &[(CAP0, "1")])],
            ..basic(
                claim(C0, vec![all(R0, CLASS_A).capacity("1")]),
                vec![s1(vec![dev(D1).cap(CAP0, "2").multi(), dev(D2).cap(CAP0, "1").multi()])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared(), p(R0, A, P1, D2).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient"
    consumable_capacity_multi_allocatable_device_allocation_mode_all_allocating_insufficient: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("1"), all(R1, CLASS_A).capacity("1")]),
                vec![s1(vec![dev(D1).cap(CAP0, "1").multi(), dev(D2).cap(CAP0, "1").multi()])],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient"
    /// (1.35+: the device without capacity left is not one of "all")
    consumable_capacity_multi_allocatable_device_allocation_mode_all_in_use_insufficient: [V136]
        Case {
            features: features!(consumable_capacity),
            consumed: vec![((A, P1, D1), &[(CAP0, "1")])],
            ..basic(
                claim(C0, vec![all(R0, CLASS_A).capacity("1")]),
                vec![s1(vec![dev(D1).cap(CAP0, "1").multi(), dev(D2).cap(CAP0, "1").multi()])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D2).shared()]]);

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient"
    /// (1.34: the capacity check of allocating device-2, the request's first device, reads the
    /// slice's first device, device-1, which has no capacity left)
    consumable_capacity_multi_allocatable_device_allocation_mode_all_in_use_insufficient_1_34: [V134]
        Case {
            features: features!(consumable_capacity),
            consumed: vec![((A, P1, D1), &[(CAP0, "1")])],
            ..basic(
                claim(C0, vec![all(R0, CLASS_A).capacity("1")]),
                vec![s1(vec![dev(D1).cap(CAP0, "1").multi(), dev(D2).cap(CAP0, "1").multi()])],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting
    /// "consumable-capacity-multi-allocatable-device-with-some-remaining-consumable-capacity"
    /// (1.34)
    consumable_capacity_multi_allocatable_device_with_some_remaining_consumable_capacity: [V134]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            consumed: vec![((A, P1, D1), &[(CAP0, "2")])],
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).capacity("2")]), vec![s1(vec![dev(D1).multi().range_policy(CAP0, "4")])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting "allow-multiple-allocations-with-partitionable-device" (1.34 data: two
    /// shares of one device consume its counters twice)
    allow_multiple_allocations_with_partitionable_device_1_34: [V134]
        Case {
            features: features!(partitionable, consumable_capacity),
            claims: vec![claim(C0, vec![req(R0, CLASS_A, 1)]), claim(C1, vec![req(R0, CLASS_A, 1)])],
            ..basic(
                claim(C0, vec![]),
                vec![s1(vec![dev(D1).consumes(SET1, &[("memory", "4Gi")]).multi()]).counter_set(SET1, &[("memory", "8Gi")])],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared()], vec![p(R0, A, P1, D1).shared()]]);

    /// Not an upstream case: "allow-multiple-allocations-with-partitionable-device" (1.34 data)
    /// with a counter set for one share only; 1.34 counts the counters of every share, 1.35+
    /// those of the first.
    allow_multiple_allocations_counters_per_share_1_34: [V134]
        Case {
            features: features!(partitionable, consumable_capacity),
            claims: vec![claim(C0, vec![req(R0, CLASS_A, 1)]), claim(C1, vec![req(R0, CLASS_A, 1)])],
            ..basic(
                claim(C0, vec![]),
                vec![s1(vec![dev(D1).consumes(SET1, &[("memory", "4Gi")]).multi()]).counter_set(SET1, &[("memory", "6Gi")])],
            )
        }
        => Want::Unsatisfiable;

    /// allocatortesting "consumable-capacity-dedicated-device-with-consumable-capacity-request"
    consumable_capacity_dedicated_device_with_consumable_capacity_request: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: vec![class_multi(CLASS_A, A, false)],
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]), vec![s1(vec![dev(D1).cap(CAP0, "1")])])
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1)]]);

    /// allocatortesting
    /// "consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request"
    consumable_capacity_dedicated_device_with_multiple_consumable_capacity_request: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: vec![class_multi(CLASS_A, A, false)],
            claims: vec![
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]),
                claim(C1, vec![req(R0, CLASS_A, 1).capacity("1")]),
            ],
            ..basic(claim(C0, vec![]), vec![s1(vec![dev(D1).range_policy(CAP0, "2")])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector"
    allow_multiple_allocations_exclude_multi_allocatable_device_by_class_selector: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: vec![class_multi(CLASS_A, A, false)],
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]), vec![s1(vec![dev(D1).cap(CAP0, "1").multi()])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting
    /// "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated"
    allow_multiple_allocations_not_allocate_multi_allocatable_device_which_already_dedicated: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            allocated: vec![(A, P1, D1)],
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]), vec![s1(vec![dev(D1).multi().range_policy(CAP0, "2")])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting
    /// "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable"
    allow_multiple_allocations_not_allocate_dedicated_device_which_change_from_multi_allocatable: [V134, V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            consumed: vec![((A, P1, D1), &[(CAP0, "1")])],
            ..basic(claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]), vec![s1(vec![dev(D1).range_policy(CAP0, "2")])])
        }
        => Want::Unsatisfiable;

    /// allocatortesting "allow-multiple-allocations-with-partitionable-device"
    allow_multiple_allocations_with_partitionable_device: [V136]
        Case {
            features: features!(prioritized_list, partitionable, consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![
                    req(R0, CLASS_A, 1),
                    first(R1, vec![
                        sub(SUB0, CLASS_A, 1).sel(&memory_at_least("6Gi")),
                        sub(SUB1, CLASS_A, 1).sel(&memory_at_least("4Gi")),
                    ]),
                ]),
                vec![
                    s1(four_six_four().into_iter().map(D::multi).collect()).count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[("memory", "8Gi")])]),
                ],
            )
        }
        => Want::Picks(vec![vec![p(R0, A, P1, D1).shared(), p("req-1/subReq-1", A, P1, D3).shared()]]);

    /// allocatortesting "allow-multiple-allocations-with-shared-device-counter-cross-cycle"
    allow_multiple_allocations_with_shared_device_counter_cross_cycle: [V136]
        Case {
            features: features!(partitionable, consumable_capacity),
            classes: multi_class(),
            shared: vec![(A, P1, D1)],
            consumed: vec![((A, P1, D1), &[(CAP0, "1")])],
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("1").sel(r#"device.attributes["driver-a"].mode == "b""#)]),
                vec![
                    s1(vec![
                        dev(D1).string("mode", "a").consumes(SET1, &[(CAP0, "1")]).capacity_from_counters().multi(),
                        dev(D2).string("mode", "b").consumes(SET1, &[(CAP0, "1")]).capacity_from_counters().multi(),
                    ])
                    .count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[(CAP0, "1")])]),
                ],
            )
        }
        => Want::Unsatisfiable;

    /// kubernetes#140798's case (its name was not read): device-1 has a live share but its slice
    /// no longer allows multiple allocations; up to 1.37 a dedicated request still gets it,
    /// from 1.38 it is in use
    dedicated_allocation_over_a_live_share: [V136]
        Case {
            features: features!(consumable_capacity),
            shared: vec![(A, P1, D1)],
            consumed: vec![((A, P1, D1), &[(CAP0, "1")])],
            ..basic(claim1(C0, R0, CLASS_A), vec![one_device(S1, At::Node(NODE1), P1, A)])
        }
        => Want::PicksUntil138(vec![vec![p(R0, A, P1, D1)]]);

    /// kubernetes#142202 (its cases were not read): a request naming the capacity
    /// fully-qualified ("driver-a/capacity-0") of a device publishing it short ("capacity-0")
    /// got nothing up to 1.37
    consumable_capacity_requested_fully_qualified: [V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity_named("driver-a/capacity-0", "1")]),
                vec![s1(vec![dev(D1).cap(CAP0, "4").multi()])],
            )
        }
        => Want::PicksFrom138(vec![vec![p(R0, A, P1, D1).shared()]]);

    /// kubernetes#142202, the inverse: the device publishes "driver-a/capacity-0", the request
    /// says "capacity-0"
    consumable_capacity_published_fully_qualified: [V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("1")]),
                vec![s1(vec![dev(D1).cap("driver-a/capacity-0", "4").multi()])],
            )
        }
        => Want::PicksFrom138(vec![vec![p(R0, A, P1, D1).shared()]]);

    /// kubernetes#142202: published both ways, the fully-qualified capacity (1) is the one the
    /// request (2) is checked against, so nothing fits from 1.38; up to 1.37 the request named
    /// the short one (4) alone
    consumable_capacity_fully_qualified_wins: [V136]
        Case {
            features: features!(consumable_capacity),
            classes: multi_class(),
            ..basic(
                claim(C0, vec![req(R0, CLASS_A, 1).capacity("2")]),
                vec![s1(vec![dev(D1).cap(CAP0, "4").cap("driver-a/capacity-0", "1").multi()])],
            )
        }
        => Want::PicksUntil138(vec![vec![p(R0, A, P1, D1).shared()]]);

    /// allocatortesting "consumable-capacity-with-partitionable-device-multiple-capacity-pools"
    consumable_capacity_with_partitionable_device_multiple_capacity_pools: [V136]
        Case {
            features: features!(prioritized_list, partitionable, consumable_capacity),
            ..basic(
                claim(C0, vec![
                    req(R0, CLASS_A, 1).capacity("1"),
                    req(R2, CLASS_A, 1).capacity("2"),
                    first(R1, vec![
                        sub(SUB0, CLASS_A, 1).sel(r#"device.capacity["driver-a"]["capacity-0"].compareTo(quantity("4")) >= 0"#).capacity("1"),
                        sub(SUB1, CLASS_A, 1).sel(r#"device.capacity["driver-a"]["capacity-0"].compareTo(quantity("2")) >= 0"#).capacity("1"),
                    ]),
                ]),
                vec![
                    s1(vec![
                        dev(D1).consumes(SET1, &[(CAP0, "2")]).consumes(SET2, &[(CAP1, "4")]).capacity_from_counters().multi().range_policy(CAP1, "4"),
                        dev(D2).consumes(SET1, &[(CAP0, "4")]).consumes(SET2, &[(CAP1, "4")]).capacity_from_counters().multi().range_policy(CAP1, "4"),
                        dev(D3).consumes(SET1, &[(CAP0, "2")]).consumes(SET2, &[(CAP1, "4")]).capacity_from_counters().multi().range_policy(CAP1, "4"),
                    ])
                    .count(2),
                    counters_slice(S2, P1, 2, &[(SET1, &[(CAP0, "4")]), (SET2, &[(CAP1, "8")])]),
                ],
            )
        }
        => Want::Picks(vec![vec![
            p(R0, A, P1, D1).shared(),
            p(R2, A, P1, D3).shared(),
            p("req-1/subReq-1", A, P1, D1).shared(),
        ]]);
}
