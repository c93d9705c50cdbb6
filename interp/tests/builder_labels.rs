//! A label belongs to the stream that made it (docs/spec.md "The builder";
//! `BuildError::UnknownLabel`, "a label not made by this stream"). Labels
//! are numbered from 0 in every stream, so a label of another stream often
//! has the number of one of this stream's own; it must still be refused, in
//! `bind` and in a jump, and never stand for this stream's label.

use kmst::builder::{BuildError, Reg, Stream};

fn stream() -> Stream {
    // deadline_us 0, max_steps 100, seed 1, req 0: all in P4's ranges.
    Stream::new(0, 100, 1, 0).unwrap()
}

#[test]
fn binding_another_streams_label_is_refused_when_the_number_is_ours_too() {
    let mut other = stream();
    let theirs = other.forward(); // label 0 of the other stream
    let mut s = stream();
    let ours = s.forward(); // label 0 of this stream: the same number
    assert_eq!(s.bind(theirs), Err(BuildError::UnknownLabel(0)));
    // The refusal bound nothing: our label 0 is still unbound, and binding it works.
    s.halt(Reg::new(0).unwrap());
    assert_eq!(s.upload().unwrap_err(), BuildError::UnboundLabel(0));
    assert_eq!(s.bind(ours), Ok(()));
}

#[test]
fn a_jump_to_another_streams_label_is_refused_at_upload() {
    let mut other = stream();
    let theirs = other.label(); // label 0 of the other stream, at its micro-op 0
    let mut s = stream();
    let _ours = s.label(); // label 0 here, at micro-op 0: a valid target
    s.jmp(theirs);
    s.halt(Reg::new(0).unwrap());
    // Two micro-ops; a jump to our label 0 would be `jmp 0` and accepted.
    assert_eq!(s.upload().unwrap_err(), BuildError::UnknownLabel(0));
    assert_eq!(s.encode().unwrap_err(), BuildError::UnknownLabel(0));
}

#[test]
fn a_clone_shares_its_streams_labels() {
    // A clone is the same program so far: the labels made before cloning are its own.
    let mut s = stream();
    let top = s.label();
    s.halt(Reg::new(0).unwrap());
    let mut c = s.clone();
    c.jmp(top);
    // micro-op 0 HALT, 1 JMP to label 0 = micro-op 0.
    let u = c.upload().unwrap();
    assert_eq!(u.ops[1].imm, 0);
}
