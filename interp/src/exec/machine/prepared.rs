//! Compile once, run many: an upload checked, pre-decoded and readied for
//! a variant once ([`Prepared`]), then run as often as wanted with other
//! parameters, each run a [`Machine`] of its own sharing the program (and,
//! for the compiled tier, its code). A benchmark's repeated calls and
//! `kmst compare` measure the compile apart from the runs this way.

use super::Machine;
use crate::check::CheckedUpload;
use crate::exec::decode::Program;
use crate::exec::dispatch::{self, Dispatch};
use crate::exec::observer::{NoObserver, Observer};
use crate::types::{Params, SimResult, StreamError};

/// An upload checked and pre-decoded once (and compiled, for the `jit`
/// variant, once [`Prepared::prepare`] or a run asked for it).
pub struct Prepared {
    upload: Vec<u8>,
    program: Program,
}

impl Prepared {
    /// Checks and pre-decodes `upload`. The check's size test (S2) is made
    /// again by each run against its own `region_size`; `Err` is the
    /// check's answer in a region as large as the upload.
    pub fn new(upload: &[u8]) -> Result<Prepared, StreamError> {
        let checked = CheckedUpload::new(upload, upload.len() as u64)?;
        Ok(Prepared {
            upload: upload.to_vec(),
            program: Program::decode(&checked),
        })
    }

    /// Readies the program for `dispatch` and observer `O` now, as
    /// [`Machine::prepare`] does: the `jit` variant's compile happens here,
    /// once for every run after.
    pub fn prepare<O: Observer>(&mut self, dispatch: Dispatch) {
        dispatch::prepare::<O>(dispatch, &mut self.program);
    }

    /// A machine that runs the prepared upload with `params`: the same as
    /// [`Machine::new`] on the same bytes, without the check, the decode
    /// and (once prepared) the compile.
    pub fn machine(&self, params: &Params) -> Machine {
        if self.upload.len() as u64 > params.region_size {
            // The size test of S2, which this region fails: the same
            // machine as the check's (P1).
            return Machine::new(&self.upload, params);
        }
        Machine::with_program(self.program.clone(), self.upload.len() as u32, params)
    }

    /// One run with `params` on `dispatch`: [`crate::exec::simulate`]'s
    /// answer.
    pub fn simulate(&self, params: &Params, dispatch: Dispatch) -> SimResult {
        let mut m = self.machine(params);
        m.run(dispatch, &mut NoObserver);
        m.into_result()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::Stream;
    use crate::types::Status;

    /// `acc = 0; left = n; loop: acc += 3; left -= 1; jnz left loop; halt
    /// acc`: HALT is micro-op k = 2 + 3n, its value 3n.
    fn add_loop(n: i64) -> Vec<u8> {
        let mut s = Stream::new(0, 10_000_000, 1, 1).unwrap();
        let r = s.registers(2).unwrap();
        let (acc, left) = (r[0], r[1]);
        s.set(acc, 0).unwrap();
        s.set(left, n).unwrap();
        let top = s.label();
        s.addi(acc, acc, 3).unwrap();
        s.addi(left, left, -1).unwrap();
        s.jnz(left, top);
        s.halt(acc);
        s.encode().unwrap()
    }

    #[test]
    fn a_prepared_upload_answers_as_a_fresh_machine_does() {
        let upload = add_loop(1_000);
        let mut prepared = Prepared::new(&upload).expect("a valid upload");
        for &d in Dispatch::ALL {
            prepared.prepare::<NoObserver>(d);
            for budget in [1, 7, 64] {
                let params = Params {
                    turn_budget: budget,
                    ..Params::default()
                };
                let r = prepared.simulate(&params, d);
                assert_eq!(
                    r,
                    crate::exec::simulate(&upload, &params, d),
                    "{d} {budget}"
                );
                // HALT is micro-op 3,002, run in pass 3,002 / budget (S17).
                assert_eq!((r.status, r.halt), (Status::Ended, Some(3_000)));
                assert_eq!(r.passes, 3_002 / u64::from(budget) + 1, "{d} {budget}");
            }
        }
    }

    #[test]
    fn a_region_too_small_for_the_upload_is_the_checks_answer() {
        // 4 micro-ops and no template: 64 + 4 * 16 = 128 bytes (S2).
        let upload = add_loop(3);
        let prepared = Prepared::new(&upload).expect("a valid upload");
        let params = Params {
            region_size: 127,
            ..Params::default()
        };
        let r = prepared.simulate(&params, Dispatch::ALL[0]);
        assert_eq!(r, crate::exec::simulate(&upload, &params, Dispatch::ALL[0]));
        assert_eq!(r.error.map(|e| e.reason.number()), Some(1));
    }

    #[test]
    fn a_rejected_upload_is_the_checks_error() {
        let mut upload = add_loop(3);
        upload[0] ^= 1; // the magic (S2): `Reason::BadHeader` at pc 0
        let e = Prepared::new(&upload).err().expect("rejected");
        assert_eq!((e.reason.number(), e.pc), (1, 0));
    }

    #[cfg(feature = "jit")]
    #[test]
    fn the_compiled_tier_compiles_once_for_every_run() {
        let upload = add_loop(1_000);
        let mut prepared = Prepared::new(&upload).expect("a valid upload");
        prepared.prepare::<NoObserver>(Dispatch::Jit);
        let Some(code) = prepared.program.code.get() else {
            // Only where Cranelift has no backend does prepare compile nothing.
            assert!(crate::exec::jit_available().is_err(), "prepare compiles");
            return;
        };
        let m = prepared.machine(&Params::default());
        let shared = m.programs[0]
            .code
            .get()
            .expect("the run's program is compiled");
        assert!(std::rc::Rc::ptr_eq(code, shared), "one compile, shared");
    }
}
