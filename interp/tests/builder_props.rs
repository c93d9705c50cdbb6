//! The builder never produces an upload the check rejects (docs/spec.md: "The
//! builder rejects what the check would reject").

use kmst::builder::{BuildError, Operand, Stream};
use kmst::check::check;
use kmst::format::Upload;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Step {
    Set(usize, i64),
    Add(usize, usize, usize),
    Const(i64),
    Label,
    Forward,
    Bind(usize),
    Jump(usize, usize),
    Wait(i64),
    Submit(
        i64,
        (i64, Option<usize>),
        Vec<(i64, Option<usize>)>,
        bool,
        bool,
    ),
    Enqueue(i64, (i64, Option<usize>), Vec<(i64, Option<usize>)>),
    Halt(usize),
}

fn operand() -> impl Strategy<Value = (i64, Option<usize>)> {
    (any::<i64>(), proptest::option::of(0..4usize))
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0..4usize, any::<i64>()).prop_map(|(r, v)| Step::Set(r, v >> 30)),
        (0..4usize, 0..4usize, 0..4usize).prop_map(|(a, b, c)| Step::Add(a, b, c)),
        (-3..3i64).prop_map(Step::Const),
        Just(Step::Label),
        Just(Step::Forward),
        (0..8usize).prop_map(Step::Bind),
        (0..4usize, 0..8usize).prop_map(|(r, l)| Step::Jump(r, l)),
        (-2..5i64).prop_map(Step::Wait),
        (
            0..245i64,
            operand(),
            proptest::collection::vec(operand(), 0..12),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(h, g, a, e, r)| Step::Submit(h, g, a, e, r)),
        (
            0..245i64,
            operand(),
            proptest::collection::vec(operand(), 0..12)
        )
            .prop_map(|(h, c, a)| Step::Enqueue(h, c, a)),
        (0..4usize).prop_map(Step::Halt),
    ]
}

proptest! {
    #[test]
    fn builder_output_passes_the_check(steps in proptest::collection::vec(step(), 0..40)) {
        let mut s = Stream::new(0, 1000, 1, 0).unwrap();
        let r = s.registers(4).unwrap();
        let mut labels = Vec::new();
        let op = |(v, reg): (i64, Option<usize>)| reg.map_or(Operand::Int(v >> 20), |i| Operand::Reg(r[i]));
        for step in steps {
            // Individual calls may be refused (that is their point); a refused
            // call adds nothing.
            let _ = match step {
                Step::Set(a, v) => s.set(r[a], v),
                Step::Add(a, b, c) => { s.add(r[a], r[b], r[c]); Ok(()) }
                Step::Const(v) => s.constant(v).map(|_| ()),
                Step::Label => { labels.push(s.label()); Ok(()) }
                Step::Forward => { labels.push(s.forward()); Ok(()) }
                Step::Bind(i) => labels.get(i).map_or(Ok(()), |&l| s.bind(l)),
                Step::Jump(a, i) => { if let Some(&l) = labels.get(i) { s.jnz(r[a], l) }; Ok(()) }
                Step::Wait(n) => s.wait(n),
                Step::Submit(h, g, a, e, res) => {
                    let args: Vec<Operand> = a.into_iter().map(op).collect();
                    s.submit(h, (op(g), Operand::Int(8)), &args, e, res)
                }
                Step::Enqueue(h, c, a) => {
                    let args: Vec<Operand> = a.into_iter().map(op).collect();
                    s.enqueue(h, op(c), &args, false, false)
                }
                Step::Halt(a) => { s.halt(r[a]); Ok(()) }
            };
        }
        // Bind what is still unbound, at a final HALT, so the stream must encode.
        for &l in &labels {
            match s.bind(l) {
                Ok(()) | Err(BuildError::LabelRebound(_)) => {}
                Err(e) => prop_assert!(false, "{e}"),
            }
        }
        s.halt(r[0]);
        let bytes = s.encode().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(check(&bytes, bytes.len() as u64), Ok(()));
        prop_assert_eq!(Upload::decode(&bytes).unwrap(), s.upload().unwrap());
    }
}
