//! Every rejection of docs/spec.md "The builder" and S7 is a typed error naming field and value.

use kmst::builder::{BuildError, Operand, Stream};

fn stream() -> Stream {
    Stream::new(0, 100, 1, 0).unwrap()
}

#[test]
fn header_fields_out_of_range() {
    let big = 1u64 << 32;
    assert_eq!(
        Stream::new(0, 0, 1, 0).unwrap_err(),
        BuildError::MaxSteps(0)
    );
    assert_eq!(
        Stream::new(0, big, 1, 0).unwrap_err(),
        BuildError::MaxSteps(big)
    );
    assert_eq!(Stream::new(0, 1, 0, 0).unwrap_err(), BuildError::Seed(0));
    assert_eq!(
        Stream::new(0, 1, big, 0).unwrap_err(),
        BuildError::Seed(big)
    );
    assert_eq!(Stream::new(0, 1, 1, big).unwrap_err(), BuildError::Req(big));
    assert_eq!(
        Stream::new(big, 1, 1, 0).unwrap_err(),
        BuildError::Deadline(big)
    );
    // The extremes of each u32 field are fine.
    let max = u64::from(u32::MAX);
    assert!(Stream::new(max, max, max, max).is_ok());
    assert!(Stream::new(0, 1, 1, 0).is_ok());
    assert_eq!(
        BuildError::MaxSteps(0).to_string(),
        "max_steps 0 is out of range 1..=4294967295"
    );
    assert_eq!(
        BuildError::Seed(0).to_string(),
        "seed 0 is out of range 1..=4294967295"
    );
    assert!(
        BuildError::Deadline(big)
            .to_string()
            .contains("deadline_microseconds 4294967296")
    );
    assert!(BuildError::Req(big).to_string().contains("req 4294967296"));
}

#[test]
fn wait_count() {
    let mut s = stream();
    assert_eq!(s.wait(-1), Err(BuildError::WaitCount(-1)));
    assert_eq!(s.wait(1 << 32), Err(BuildError::WaitCount(1 << 32)));
    assert_eq!(s.wait(u32::MAX.into()), Ok(()));
    assert!(
        BuildError::WaitCount(-1)
            .to_string()
            .contains("wait count -1")
    );
}

#[test]
fn too_many_registers_names_both_numbers() {
    let mut s = stream();
    assert_eq!(
        s.registers(16).unwrap_err(),
        BuildError::TooManyRegisters {
            asked: 16,
            free: 15
        }
    );
    s.registers(14).unwrap();
    let c = s.constant(5).unwrap(); // the 15th
    assert_eq!(c.number(), 14);
    assert_eq!(s.constant(5).unwrap(), c, "equal values share");
    assert_eq!(
        s.constant(6).unwrap_err(),
        BuildError::TooManyRegisters { asked: 1, free: 0 }
    );
    assert_eq!(
        BuildError::TooManyRegisters {
            asked: 16,
            free: 15
        }
        .to_string(),
        "asked for 16 registers but 15 are free"
    );
}

#[test]
fn constants_and_immediates_fit_32_bits() {
    let mut s = stream();
    let r = s.registers(1).unwrap()[0];
    assert_eq!(s.constant(1 << 32), Err(BuildError::Constant(1 << 32)));
    assert_eq!(
        s.constant(-(1 << 31) - 1),
        Err(BuildError::Constant(-(1 << 31) - 1))
    );
    // -1 and 0xFFFF_FFFF are the same 32-bit value and share a register.
    assert_eq!(s.constant(-1).unwrap(), s.constant(0xFFFF_FFFF).unwrap());
    assert_eq!(
        s.set(r, 1 << 32),
        Err(BuildError::Immediate {
            op: "set",
            value: 1 << 32
        })
    );
    assert_eq!(
        s.addi(r, r, -(1 << 40)),
        Err(BuildError::Immediate {
            op: "addi",
            value: -(1 << 40)
        })
    );
}

#[test]
fn handler_args_and_group() {
    let mut s = stream();
    let r = s.registers(5).unwrap();
    let g = (Operand::Int(0), Operand::Int(1));
    assert_eq!(
        s.submit(0, g, &[], false, false),
        Err(BuildError::Handler(0))
    );
    assert_eq!(
        s.submit(240, g, &[], false, false),
        Err(BuildError::Handler(240))
    );
    assert_eq!(
        s.enqueue(-3, 1.into(), &[], false, false),
        Err(BuildError::Handler(-3))
    );
    let eleven = [Operand::Int(0); 11];
    assert_eq!(
        s.submit(1, g, &eleven, false, false),
        Err(BuildError::TooManyArgs(11))
    );
    let five: Vec<Operand> = r.iter().map(|&r| r.into()).collect();
    assert_eq!(
        s.submit(1, g, &five, false, false),
        Err(BuildError::TooManyRegisterArgs(5))
    );
    assert_eq!(
        s.submit(1, g, &[0.into(), (1i64 << 32).into()], false, false),
        Err(BuildError::Argument {
            index: 1,
            value: 1 << 32
        })
    );
    assert_eq!(
        s.submit(1, (Operand::Int(65_536), 1.into()), &[], false, false),
        Err(BuildError::GroupField {
            field: "first",
            value: 65_536
        })
    );
    assert_eq!(
        s.submit(1, (0.into(), Operand::Int(-1)), &[], false, false),
        Err(BuildError::GroupField {
            field: "count",
            value: -1
        })
    );
    assert_eq!(
        s.enqueue(1, Operand::Int(1 << 33), &[], false, false),
        Err(BuildError::EnqueueCount(1 << 33))
    );
    assert!(
        BuildError::GroupField {
            field: "first",
            value: 65_536
        }
        .to_string()
        .contains("group first 65536")
    );
    assert!(BuildError::Handler(240).to_string().contains("handler 240"));
    // Ten args with four registers and limits at the edge are fine.
    let mut ten = [Operand::Int(u32::MAX.into()); 10];
    ten[..4].copy_from_slice(&five[..4]);
    ten[9] = Operand::Int(i32::MIN.into());
    assert_eq!(
        s.submit(239, (65_535.into(), 65_535.into()), &ten, false, false),
        Ok(())
    );
    assert_eq!(s.submit(1, g, &[], false, false), Ok(()));
}

#[test]
fn labels() {
    let mut s = stream();
    let l = s.forward();
    s.jmp(l);
    let zero = s.constant(0).unwrap();
    s.halt(zero);
    assert_eq!(s.encode(), Err(BuildError::UnboundLabel(0)));
    s.bind(l).unwrap();
    assert_eq!(s.bind(l), Err(BuildError::LabelRebound(0)));
    // `l` is at the end of the program: a jump there would be rejected (`Reason::BadJump`).
    assert!(matches!(
        s.encode(),
        Err(BuildError::JumpPastEnd {
            label: 0,
            target: 3
        })
    ));
    s.wait(0).unwrap();
    assert!(s.encode().is_ok());
    // An unused forward label is still an error at encode.
    let _unused = s.forward();
    assert_eq!(s.encode(), Err(BuildError::UnboundLabel(1)));
}

#[test]
fn empty_and_too_many_ops() {
    assert_eq!(stream().encode(), Err(BuildError::Empty));
    let mut s = stream();
    let r = s.registers(1).unwrap()[0];
    for _ in 0..65_534 {
        s.rand(r);
    }
    s.halt(r);
    assert_eq!(s.upload().unwrap().ops.len(), 65_535);
    assert!(kmst::check::check(&s.encode().unwrap(), 1 << 22).is_ok());
    // One constant makes it 65,536 with the prologue.
    s.constant(1).unwrap();
    assert_eq!(s.encode(), Err(BuildError::TooManyOps(65_536)));
}
