//! The implementations a differential fuzz target compares.
//!
//! Every fuzz target asks the same questions of several implementations and
//! demands the same answer: [`DifferentialOracle`] is that question set (the
//! check, `check_run`, and a whole simulation). [`Reference`] answers with the
//! reference model (`kmst-reference`), which is the oracle by definition;
//! [`Optimized`] answers with the optimized checker and one fast dispatch
//! variant. [`implementations`] lists the reference first, then one
//! [`Optimized`] per compiled-in fast variant, so a new variant is compared as
//! soon as it is built. Tests add deliberately broken implementations to prove
//! that a divergence is noticed.

use kmst::exec::Dispatch;
use kmst::reference::{Params, SimResult, StreamError};

/// The answer of `check_run`: the error, if any, and the req of its event (S3, S6).
pub type RunAnswer = (Option<StreamError>, u32);

/// The arguments of one `check_run` call besides the upload.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunArgs {
    pub offset: u64,
    pub region_size: u64,
    pub active: Vec<(u64, u64)>,
    pub active_reqs: Vec<u32>,
}

/// One implementation of the kernel's answers, as a differential target sees it.
pub trait DifferentialOracle {
    /// A short name for reports (`reference`, `tail`, ...).
    fn name(&self) -> String;
    /// `check(data, region_size)` (streams.md "The check").
    fn check(&self, data: &[u8], region_size: u64) -> Result<(), StreamError>;
    /// `check_run(data, ...)` (S6).
    fn check_run(&self, data: &[u8], args: &RunArgs) -> RunAnswer;
    /// The check, then the stream (streams.md "The simulator").
    fn simulate(&self, upload: &[u8], params: &Params) -> SimResult;
}

/// The reference model: the answer every other implementation must give.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reference;

impl DifferentialOracle for Reference {
    fn name(&self) -> String {
        "reference".into()
    }
    fn check(&self, data: &[u8], region_size: u64) -> Result<(), StreamError> {
        kmst::reference::check(data, region_size)
    }
    fn check_run(&self, data: &[u8], args: &RunArgs) -> RunAnswer {
        kmst::reference::check_run(
            data,
            args.offset,
            args.region_size,
            &args.active,
            &args.active_reqs,
        )
    }
    fn simulate(&self, upload: &[u8], params: &Params) -> SimResult {
        kmst::reference::simulate(upload, params)
    }
}

/// The optimized checker ([`kmst::check`]) and one fast dispatch variant.
#[derive(Clone, Copy, Debug)]
pub struct Optimized(pub Dispatch);

impl DifferentialOracle for Optimized {
    fn name(&self) -> String {
        self.0.name().into()
    }
    fn check(&self, data: &[u8], region_size: u64) -> Result<(), StreamError> {
        kmst::check::check(data, region_size)
    }
    fn check_run(&self, data: &[u8], args: &RunArgs) -> RunAnswer {
        kmst::check::check_run(
            data,
            args.offset,
            args.region_size,
            &args.active,
            &args.active_reqs,
        )
    }
    fn simulate(&self, upload: &[u8], params: &Params) -> SimResult {
        kmst::exec::simulate(upload, params, self.0)
    }
}

/// The reference first, then every compiled-in fast variant.
pub fn implementations() -> Vec<Box<dyn DifferentialOracle>> {
    let mut all: Vec<Box<dyn DifferentialOracle>> = vec![Box::new(Reference)];
    for &d in Dispatch::fast() {
        all.push(Box::new(Optimized(d)));
    }
    all
}

thread_local! {
    static IMPLEMENTATIONS: Vec<Box<dyn DifferentialOracle>> = implementations();
    static CHECKERS: Vec<Box<dyn DifferentialOracle>> = checkers();
}

/// Calls `f` with [`implementations`], made once per thread (a fuzz target
/// runs millions of inputs; under ASan every allocation counts).
pub fn with_implementations<R>(f: impl FnOnce(&[Box<dyn DifferentialOracle>]) -> R) -> R {
    IMPLEMENTATIONS.with(|i| f(i))
}

/// Calls `f` with [`checkers`], made once per thread.
pub fn with_checkers<R>(f: impl FnOnce(&[Box<dyn DifferentialOracle>]) -> R) -> R {
    CHECKERS.with(|c| f(c))
}

/// The implementations a checker comparison needs: the reference checker and
/// the optimized one (every fast variant shares the optimized checker).
pub fn checkers() -> Vec<Box<dyn DifferentialOracle>> {
    vec![Box::new(Reference), Box::new(Optimized(Dispatch::Tail))]
}
