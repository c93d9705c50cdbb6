//! Params (S23..S25) and run JSON (S24).

use kmst_reference::{Delay, Models, Params, ParamsError, ResultModel, SimResult, simulate};
use serde_json::json;

fn param_of(v: serde_json::Value) -> &'static str {
    match Params::from_json_value(&v) {
        Err(ParamsError { param, .. }) => param,
        Ok(p) => panic!("accepted {v}: {p:?}"),
    }
}

#[test]
fn defaults() {
    assert_eq!(
        Params::from_json_value(&json!({})).unwrap(),
        Params::default()
    );
    assert_eq!(
        Params::default().to_json_value().unwrap(),
        json!({
            "delay": 0,
            "result": "zero",
            "deadline_passes": null,
            "default_deadline_passes": 1_000_000,
            "cancel_pass": null,
            "core_count": 119,
            "ticks_per_pass": 1000,
            "max_passes": 1_000_000,
            "region_size": 1_048_576,
            "turn_budget": 64,
        })
    );
    assert_eq!(Params::default().validate(), Ok(()));
}

#[test]
fn every_model_reads_and_writes() {
    let cases = [
        (json!({"delay": 5}), Delay::Fixed(5)),
        (json!({"delay": null}), Delay::Never),
        (json!({"delay": 4294967295u64}), Delay::Fixed(u32::MAX)),
        (
            json!({"delay": {"cycle": [2, 3]}}),
            Delay::Cycle { base: 2, modulo: 3 },
        ),
        (
            json!({"delay": {"table": [1, null, 3]}}),
            Delay::Table(vec![Some(1), None, Some(3)]),
        ),
    ];
    for (j, d) in cases {
        let p = Params::from_json_value(&j).unwrap();
        assert_eq!(p.delay, d);
        assert_eq!(p.to_json_value().unwrap()["delay"], j["delay"]);
    }
    let cases = [
        (json!({"result": "zero"}), ResultModel::Zero),
        (json!({"result": "sequence"}), ResultModel::Sequence),
        (json!({"result": {"arg": 9}}), ResultModel::Arg(9)),
        (
            json!({"result": {"table": [7, 4294967295u64]}}),
            ResultModel::Table(vec![7, u32::MAX]),
        ),
    ];
    for (j, r) in cases {
        let p = Params::from_json_value(&j).unwrap();
        assert_eq!(p.result, r);
        assert_eq!(p.to_json_value().unwrap()["result"], j["result"]);
    }
    let p = Params::from_json_value(&json!({
        "deadline_passes": 9, "cancel_pass": 0, "core_count": 65535, "ticks_per_pass": 0,
        "max_passes": 1, "region_size": 0, "turn_budget": 1, "default_deadline_passes": 1,
    }))
    .unwrap();
    assert_eq!(
        (p.deadline_passes, p.cancel_pass, p.core_count),
        (Some(9), Some(0), 65535)
    );
    assert_eq!(
        (p.ticks_per_pass, p.max_passes, p.region_size, p.turn_budget),
        (0, 1, 0, 1)
    );
    assert_eq!(
        Params::from_json_value(&p.to_json_value().unwrap()).unwrap(),
        p
    );
}

#[test]
fn every_error_names_its_parameter() {
    assert_eq!(param_of(json!({"colour": 1})), "params");
    assert_eq!(param_of(json!([1])), "params");
    assert_eq!(param_of(json!({"core_count": true})), "core_count");
    assert_eq!(param_of(json!({"core_count": 0})), "core_count");
    assert_eq!(param_of(json!({"core_count": 65536})), "core_count");
    assert_eq!(param_of(json!({"core_count": -1})), "core_count");
    assert_eq!(param_of(json!({"core_count": 1.5})), "core_count");
    assert_eq!(param_of(json!({"core_count": "9"})), "core_count");
    assert_eq!(param_of(json!({"delay": 4294967296u64})), "delay");
    assert_eq!(param_of(json!({"delay": true})), "delay");
    assert_eq!(param_of(json!({"delay": "never"})), "delay");
    assert_eq!(param_of(json!({"delay": {"cycle": [1, 0]}})), "delay");
    assert_eq!(param_of(json!({"delay": {"cycle": [1]}})), "delay");
    assert_eq!(param_of(json!({"delay": {"table": []}})), "delay");
    assert_eq!(param_of(json!({"delay": {"table": [false]}})), "delay");
    assert_eq!(param_of(json!({"delay": {"fixed": 1}})), "delay");
    assert_eq!(
        param_of(json!({"delay": {"cycle": [1, 2], "table": [1]}})),
        "delay"
    );
    assert_eq!(param_of(json!({"result": "one"})), "result");
    assert_eq!(param_of(json!({"result": {"arg": 10}})), "result");
    assert_eq!(param_of(json!({"result": {"arg": 300}})), "result");
    assert_eq!(param_of(json!({"result": {"table": []}})), "result");
    assert_eq!(param_of(json!({"result": {"table": [null]}})), "result");
    assert_eq!(param_of(json!({"result": 0})), "result");
    assert_eq!(param_of(json!({"deadline_passes": 0})), "deadline_passes");
    assert_eq!(
        param_of(json!({"deadline_passes": false})),
        "deadline_passes"
    );
    assert_eq!(
        param_of(json!({"default_deadline_passes": 0})),
        "default_deadline_passes"
    );
    assert_eq!(
        param_of(json!({"default_deadline_passes": null})),
        "default_deadline_passes"
    );
    assert_eq!(param_of(json!({"cancel_pass": -1})), "cancel_pass");
    assert_eq!(
        param_of(json!({"ticks_per_pass": 4294967296u64})),
        "ticks_per_pass"
    );
    assert_eq!(param_of(json!({"max_passes": 0})), "max_passes");
    assert_eq!(param_of(json!({"region_size": -5})), "region_size");
    assert_eq!(param_of(json!({"turn_budget": 0})), "turn_budget");
    // The message names the parameter too.
    let e = Params::from_json_value(&json!({"turn_budget": 0})).unwrap_err();
    assert!(e.to_string().contains("turn_budget"), "{e}");
}

#[test]
fn validated_constructors() {
    assert_eq!(Delay::cycle(1, 0).unwrap_err().param, "delay");
    assert_eq!(
        Delay::cycle(1, 1).unwrap(),
        Delay::Cycle { base: 1, modulo: 1 }
    );
    assert_eq!(Delay::table(vec![]).unwrap_err().param, "delay");
    assert_eq!(ResultModel::arg(10).unwrap_err().param, "result");
    assert_eq!(ResultModel::arg(0).unwrap(), ResultModel::Arg(0));
    assert_eq!(ResultModel::table(vec![]).unwrap_err().param, "result");
}

#[test]
fn delay_and_result_of_a_command() {
    let mut c = kmst_reference::SubmittedCommand {
        sequence: 7,
        slot: 0,
        handler: 3,
        first: 0,
        count: 1,
        flags: 4,
        args: [10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
        pass_index: 0,
        pc: 0,
        queued: false,
    };
    let p = |d: Delay, r: ResultModel| Params {
        delay: d,
        result: r,
        ..Params::default()
    };
    // cycle(2, 3): 2 + 7 % 3 = 3. table: entry 7 % 3 = 1.
    assert_eq!(
        p(Delay::Cycle { base: 2, modulo: 3 }, ResultModel::Zero).delay_of(&c),
        Some(3)
    );
    assert_eq!(
        p(
            Delay::Table(vec![Some(0), None, Some(2)]),
            ResultModel::Zero
        )
        .delay_of(&c),
        None
    );
    assert_eq!(p(Delay::Never, ResultModel::Sequence).result_of(&c), 7);
    assert_eq!(p(Delay::Never, ResultModel::Arg(4)).result_of(&c), 14);
    assert_eq!(
        p(Delay::Never, ResultModel::Table(vec![5, 6, 7])).result_of(&c),
        6
    );
    // P2: base + sequence % modulo never wraps: u32::MAX + (u32::MAX - 2).
    c.sequence = u64::from(u32::MAX) - 2;
    let d = Delay::Cycle {
        base: u32::MAX,
        modulo: u32::MAX,
    };
    assert_eq!(
        p(d, ResultModel::Zero).delay_of(&c),
        Some(2 * u64::from(u32::MAX) - 2)
    );
}

#[test]
fn custom_closures_cannot_be_saved() {
    let p = Params {
        delay: Delay::Custom(std::sync::Arc::new(|_| Some(1))),
        ..Params::default()
    };
    assert_eq!(p.to_json_value().unwrap_err().param, "delay");
    let p = Params {
        result: ResultModel::Custom(std::sync::Arc::new(|_| 1)),
        ..Params::default()
    };
    assert_eq!(p.to_json_value().unwrap_err().param, "result");
}

/// A small run with a command and events: SUBMIT (result flag, arg patch), EVENT, HALT.
fn sample() -> SimResult {
    let mut b = vec![0u8; 64];
    for (k, w) in [0x4B4D_5354u32, 1, 4, 1, 100, 0, 9, 1].iter().enumerate() {
        b[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
    }
    let ops: [[u8; 8]; 4] = [
        [1, 1, 0, 0, 0xEF, 0xBE, 0xAD, 0xDE], // SET r1, 0xDEADBEEF
        [32, 0, 0, 0, 0, 0, 0, 0],            // SUBMIT 0
        [48, 1, 0, 0, 0, 0, 0, 0],            // EVENT r1
        [20, 1, 0, 0, 0, 0, 0, 0],            // HALT r1 (after the command is acked)
    ];
    for o in ops {
        b.extend_from_slice(&o);
        b.extend_from_slice(&[0; 8]);
    }
    let mut t = [0u8; 128];
    t[0] = 3; // handler
    t[1] = 4; // result
    t[12] = 2; // first 2
    t[14] = 5; // count 5
    t[16 + 4] = 77; // args[1] = 77
    t[64] = 0; // patch arg 0 <- r1
    t[68] = 1;
    t[72] = 0xFF;
    t[73] = 0xFF;
    t[74] = 1;
    b.extend_from_slice(&t);
    simulate(
        &b,
        &Params {
            delay: Delay::Fixed(1),
            ..Params::default()
        },
    )
}

#[test]
fn run_json_shape() {
    let r = sample();
    let j = r.to_json_value().unwrap();
    // SUBMIT in pass 0 at pc 1 (slot 0, seq 0), EVENT aux 0xADBEEF in pass 0,
    // acked in pass 2 (0 + 1 + 1): HALT there, aux 0xADBEEF, halt 0xDEADBEEF.
    assert_eq!(
        j,
        json!({
            "params": Params { delay: Delay::Fixed(1), ..Params::default() }.to_json_value().unwrap(),
            "check": null,
            "commands": [{
                "sequence": 0, "slot": 0, "pass_index": 0, "pc": 1, "queued": false,
                "handler": 3, "first": 2, "count": 5, "flags": 4,
                "args": [0xDEADBEEFu32, 77, 0, 0, 0, 0, 0, 0, 0, 0],
            }],
            "events": [
                {"kind": 4, "req": 9, "auxiliary": 0xADBEEF, "pass_index": 0},
                {"kind": 5, "req": 9, "auxiliary": 0xADBEEF, "pass_index": 2},
            ],
            "status": "ended",
            "passes": 3,
            "error": null,
            "halt": 0xDEADBEEFu32,
            "stopped": false,
        })
    );
}

#[test]
fn run_json_round_trips_and_ignores_top_level_extras() {
    let r = sample();
    let mut j = r.to_json_value().unwrap();
    assert_eq!(SimResult::from_json_value(&j).unwrap(), r);
    j["notes"] = json!("delay 1; a saved answer's notes");
    assert_eq!(SimResult::from_json_value(&j).unwrap(), r);
    // An error result round-trips too, with reason as its number.
    let bad = simulate(&[0; 64], &Params::default());
    let bj = bad.to_json_value().unwrap();
    assert_eq!(bj["check"], json!({"reason": 1, "pc": 0}));
    assert_eq!(bj["error"], json!({"reason": 1, "pc": 0}));
    assert_eq!(bj["status"], json!("error"));
    assert_eq!(SimResult::from_json_value(&bj).unwrap(), bad);
    // Nested unknown keys, missing fields and bad values are errors.
    let mut n = j.clone();
    n["commands"][0]["colour"] = json!(1);
    assert!(SimResult::from_json_value(&n).is_err());
    let mut n = j.clone();
    n.as_object_mut().unwrap().remove("stopped");
    assert!(SimResult::from_json_value(&n).is_err());
    let mut n = j.clone();
    n["status"] = json!("done");
    assert!(SimResult::from_json_value(&n).is_err());
    let mut n = j.clone();
    n["error"] = json!({"reason": 12, "pc": 0});
    assert!(SimResult::from_json_value(&n).is_err());
    let mut n = j.clone();
    n["params"]["bogus"] = json!(1);
    assert!(SimResult::from_json_value(&n).is_err());
    let mut n = j;
    n["events"][0]["auxiliary"] = json!(0x100_0000);
    assert!(SimResult::from_json_value(&n).is_err());
}
