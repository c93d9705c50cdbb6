//! The implementations of the kernel's answers.
//!
//! [`Implementation`] says which exist: the reference model (`kmst-reference`,
//! the oracle by definition) and each fast dispatch variant compiled into the
//! engine, which answers the check questions with the engine's optimized
//! checker. [`DifferentialOracle`] is the question set they answer (the check,
//! `check_run`, a whole simulation); tests implement it for deliberately
//! broken implementations to prove that a difference is noticed.

use std::fmt;
use std::str::FromStr;

use kmst::exec::Dispatch;
use kmst_reference::{Params, Scenario, ScenarioResult, SimResult, StreamError};

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

/// One implementation of the kernel's answers.
pub trait DifferentialOracle {
    /// A short name for reports (`reference`, `tail`, ...).
    fn name(&self) -> String;
    /// `check(data, region_size)` (docs/spec.md, "The check").
    fn check(&self, data: &[u8], region_size: u64) -> Result<(), StreamError>;
    /// `check_run(data, ...)` (S6).
    fn check_run(&self, data: &[u8], args: &RunArgs) -> RunAnswer;
    /// The check, then the stream.
    fn simulate(&self, upload: &[u8], params: &Params) -> SimResult;
    /// The whole kernel (S26..S35), or `None` when this implementation does
    /// not run scenarios (yet): its answers are then not compared.
    fn simulate_scenario(&self, scenario: &Scenario) -> Option<ScenarioResult> {
        let _ = scenario;
        None
    }
}

/// An implementation that exists in this build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Implementation {
    /// The reference model, with its own checker.
    Reference,
    /// A fast dispatch variant, with the engine's optimized checker.
    Fast(Dispatch),
}

impl Implementation {
    /// Its name: `reference` or the variant's ([`Dispatch::name`]).
    pub fn name(self) -> &'static str {
        match self {
            Implementation::Reference => "reference",
            Implementation::Fast(d) => d.name(),
        }
    }

    /// Every implementation of this build: the fast variants, then the reference.
    pub fn all() -> Vec<Implementation> {
        let mut all: Vec<Implementation> = Dispatch::ALL
            .iter()
            .map(|&d| Implementation::Fast(d))
            .collect();
        all.push(Implementation::Reference);
        all
    }

    /// The fast variant, if this is one.
    pub fn dispatch(self) -> Option<Dispatch> {
        match self {
            Implementation::Reference => None,
            Implementation::Fast(d) => Some(d),
        }
    }
}

impl From<Dispatch> for Implementation {
    fn from(d: Dispatch) -> Implementation {
        Implementation::Fast(d)
    }
}

impl fmt::Display for Implementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Implementation::name(*self))
    }
}

/// A name that is no implementation of this build (or, for `jit`, one that
/// cannot run on this host: the second field says why).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownImplementation(pub String, pub Option<String>);

impl fmt::Display for UnknownImplementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(why) = &self.1 {
            return write!(f, "dispatch `{}`: {why}", self.0);
        }
        let names: Vec<&str> = Implementation::all()
            .iter()
            .map(|i| Implementation::name(*i))
            .collect();
        write!(
            f,
            "unknown dispatch `{}` (this build has: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownImplementation {}

impl FromStr for Implementation {
    type Err = UnknownImplementation;

    fn from_str(s: &str) -> Result<Implementation, UnknownImplementation> {
        #[cfg(feature = "jit")]
        if s == Dispatch::Jit.name()
            && let Err(why) = kmst::exec::jit_available()
        {
            return Err(UnknownImplementation(s.to_owned(), Some(why)));
        }
        Implementation::all()
            .into_iter()
            .find(|i| i.name() == s)
            .ok_or_else(|| UnknownImplementation(s.to_owned(), None))
    }
}

impl DifferentialOracle for Implementation {
    fn name(&self) -> String {
        Implementation::name(*self).into()
    }

    fn check(&self, data: &[u8], region_size: u64) -> Result<(), StreamError> {
        match self {
            Implementation::Reference => kmst_reference::check(data, region_size),
            Implementation::Fast(_) => kmst::check::check(data, region_size),
        }
    }

    fn check_run(&self, data: &[u8], args: &RunArgs) -> RunAnswer {
        let f = match self {
            Implementation::Reference => kmst_reference::check_run,
            Implementation::Fast(_) => kmst::check::check_run,
        };
        f(
            data,
            args.offset,
            args.region_size,
            &args.active,
            &args.active_reqs,
        )
    }

    fn simulate(&self, upload: &[u8], params: &Params) -> SimResult {
        match self {
            Implementation::Reference => kmst_reference::simulate(upload, params),
            Implementation::Fast(d) => kmst::exec::simulate(upload, params, *d),
        }
    }

    fn simulate_scenario(&self, scenario: &Scenario) -> Option<ScenarioResult> {
        match self {
            Implementation::Reference => Some(kmst_reference::simulate_scenario(scenario)),
            Implementation::Fast(d) => Some(kmst::exec::simulate_scenario(scenario, *d)),
        }
    }
}

/// The reference first, then every compiled-in fast variant: the order in
/// which answers are compared (the first is the one the others must give).
pub fn implementations() -> Vec<Box<dyn DifferentialOracle>> {
    let mut all: Vec<Box<dyn DifferentialOracle>> = vec![Box::new(Implementation::Reference)];
    for &d in Dispatch::ALL {
        all.push(Box::new(Implementation::Fast(d)));
    }
    all
}

/// The implementations a checker comparison needs: the reference checker and
/// the optimized one (every fast variant shares the optimized checker).
pub fn checkers() -> Vec<Box<dyn DifferentialOracle>> {
    vec![
        Box::new(Implementation::Reference),
        Box::new(Implementation::Fast(Dispatch::Tail)),
    ]
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
