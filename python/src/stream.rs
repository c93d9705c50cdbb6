//! `Stream`: the builder API of docs/spec.md "The builder" (S7..S10).
//!
//! Every call goes to the engine's builder, which refuses what the check would
//! reject; its errors become `BuildError` naming the field and the value. The
//! plain micro-op methods are generated from the engine's one list of
//! micro-ops (`for_each_op!`), as the Rust builder's are: `and_` for AND (a
//! Python keyword); `wait`, `submit` and `enqueue` are written by hand.
//!
//! `Stream.decode(data)` gives a stream that holds the decoded upload: it
//! encodes back to the same bytes and simulates, but takes no more micro-ops
//! (an upload has no registers pool or labels to go on from).
//!
//! Every function that takes an upload reads it with [`upload_bytes`], here
//! because a `Stream` is one of the forms it takes.

use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyTuple};

use crate::engine::{BuildError, Builder, Label, Operand, Reg, Upload};
use crate::errors::{Written, build_error, type_name, wide_i64, wide_u64};
use crate::params::with_keywords;
use crate::results::PySimResult;
use crate::run::run;
use crate::stream_error::format_error;

/// A register of a stream (r0..r15).
#[pyclass(name = "Register", module = "kmst", frozen, eq, hash, from_py_object)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyRegister(pub Reg);

#[pymethods]
impl PyRegister {
    /// The register number, 0..=15.
    #[getter]
    fn number(&self) -> u8 {
        self.0.number()
    }

    fn __repr__(&self) -> String {
        format!("Register({})", self.0.number())
    }
}

/// A position in a stream's program, made by `label()` or `forward()`.
#[pyclass(name = "Label", module = "kmst", frozen)]
pub struct PyLabel {
    stream: u64,
    index: usize,
    label: Label,
}

#[pymethods]
impl PyLabel {
    fn __repr__(&self) -> String {
        format!("Label({})", self.index)
    }
}

/// Streams are told apart so that a label of one is refused by another.
static NEXT_STREAM: AtomicU64 = AtomicU64::new(0);

enum State {
    Building(Builder),
    Decoded(Upload),
}

/// A micro-op stream under construction (or decoded from an upload).
#[pyclass(name = "Stream", module = "kmst")]
pub struct PyStream {
    id: u64,
    labels: usize,
    state: State,
}

/// An operand of a command field: an int or a `Register`, with the int as written.
fn operand(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<(Operand, Option<Written>)> {
    if let Ok(r) = obj.cast::<PyRegister>() {
        return Ok((Operand::Reg(r.get().0), None));
    }
    if obj.is_instance_of::<PyLabel>() {
        return Err(PyTypeError::new_err(format!(
            "{what}: expected an integer or a Register, found a Label"
        )));
    }
    let w = wide_i64(obj, what).map_err(|_| {
        PyTypeError::new_err(format!(
            "{what}: expected an integer or a Register, found {}",
            type_name(obj)
        ))
    })?;
    Ok((Operand::Int(w.value), w.written))
}

/// Each argument's field name (`args[i]`) and its value as written, if clamped.
type ArgsWritten = Vec<(String, Option<Written>)>;

/// The up-to-ten `args` of a command.
fn arguments(args: Option<&Bound<'_, PyAny>>) -> PyResult<(Vec<Operand>, ArgsWritten)> {
    let mut operands = Vec::new();
    let mut written = Vec::new();
    if let Some(args) = args {
        for (index, arg) in args.try_iter()?.enumerate() {
            let field = format!("args[{index}]");
            let (op, w) = operand(&arg?, &field)?;
            operands.push(op);
            written.push((field, w));
        }
    }
    Ok((operands, written))
}

impl PyStream {
    /// The builder, or a TypeError for a decoded stream.
    fn builder(&mut self) -> PyResult<&mut Builder> {
        match &mut self.state {
            State::Building(b) => Ok(b),
            State::Decoded(_) => Err(PyTypeError::new_err(
                "a decoded stream takes no more micro-ops; build a new Stream",
            )),
        }
    }

    /// The engine's label of `label`, if it is this stream's.
    fn label_of(&self, py: Python<'_>, label: &PyLabel) -> PyResult<Label> {
        if label.stream == self.id {
            Ok(label.label)
        } else {
            Err(build_error(py, BuildError::UnknownLabel(label.index), &[]))
        }
    }

    fn new_label(&mut self, py: Python<'_>, label: Label) -> PyResult<Py<PyLabel>> {
        let index = self.labels;
        self.labels += 1;
        Py::new(
            py,
            PyLabel {
                stream: self.id,
                index,
                label,
            },
        )
    }

    /// The upload bytes (a `BuildError` if the stream cannot be encoded).
    pub fn encode_bytes(&self, py: Python<'_>) -> PyResult<Vec<u8>> {
        match &self.state {
            State::Building(b) => b.encode().map_err(|e| build_error(py, e, &[])),
            State::Decoded(u) => Ok(u.encode()),
        }
    }

    fn header(&self) -> crate::engine::Header {
        match &self.state {
            State::Building(b) => b.header(),
            State::Decoded(u) => u.header,
        }
    }
}

/// The bytes of `obj` when it is bytes, a bytearray or a memoryview.
pub fn bytes_like(obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u8>>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(b.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Some(b.to_vec()));
    }
    if obj.is_instance_of::<PyMemoryView>() {
        let b = obj.call_method0("tobytes")?;
        return Ok(Some(b.cast::<PyBytes>()?.as_bytes().to_vec()));
    }
    Ok(None)
}

/// The upload bytes of `obj`: bytes, bytearray, memoryview, or a `Stream` (encoded).
pub fn upload_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Some(bytes) = bytes_like(obj)? {
        return Ok(bytes);
    }
    if let Ok(s) = obj.cast::<PyStream>() {
        return s.borrow().encode_bytes(obj.py());
    }
    Err(PyTypeError::new_err(format!(
        "upload: expected bytes, bytearray, memoryview or a Stream, found {}",
        type_name(obj)
    )))
}

#[pymethods]
impl PyStream {
    /// `Stream(deadline_microseconds, max_steps, seed, req)`: the header of every
    /// command's deadline (0: the kernel's default), the step limit, the random
    /// generator's seed (not 0) and the request id of the stream's events.
    #[new]
    #[pyo3(signature = (deadline_microseconds, max_steps, seed, req))]
    fn new(
        py: Python<'_>,
        deadline_microseconds: &Bound<'_, PyAny>,
        max_steps: &Bound<'_, PyAny>,
        seed: &Bound<'_, PyAny>,
        req: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let deadline = wide_u64(deadline_microseconds, "deadline_microseconds")?;
        let max_steps = wide_u64(max_steps, "max_steps")?;
        let seed = wide_u64(seed, "seed")?;
        let req = wide_u64(req, "req")?;
        let builder = Builder::new(deadline.value, max_steps.value, seed.value, req.value)
            .map_err(|e| {
                build_error(
                    py,
                    e,
                    &[
                        ("deadline_microseconds", &deadline.written),
                        ("max_steps", &max_steps.written),
                        ("seed", &seed.written),
                        ("req", &req.written),
                    ],
                )
            })?;
        Ok(PyStream {
            id: NEXT_STREAM.fetch_add(1, Ordering::Relaxed),
            labels: 0,
            state: State::Building(builder),
        })
    }

    /// The header's deadline_microseconds.
    #[getter]
    fn deadline_microseconds(&self) -> u32 {
        self.header().deadline_us
    }
    #[getter]
    fn max_steps(&self) -> u32 {
        self.header().max_steps
    }
    #[getter]
    fn seed(&self) -> u32 {
        self.header().seed
    }
    #[getter]
    fn req(&self) -> u32 {
        self.header().req
    }

    /// `count` fresh registers from r0..r14, lowest free first (S7).
    fn registers(&mut self, py: Python<'_>, count: &Bound<'_, PyAny>) -> PyResult<Vec<PyRegister>> {
        let count = wide_u64(count, "registers")?;
        let asked = usize::try_from(count.value).unwrap_or(usize::MAX);
        let regs = self
            .builder()?
            .registers(asked)
            .map_err(|e| build_error(py, e, &[("registers", &count.written)]))?;
        Ok(regs.into_iter().map(PyRegister).collect())
    }

    /// A register holding `value` from before the first micro-op; equal values
    /// share one register (S7, S8).
    #[pyo3(name = "const")]
    fn constant(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<PyRegister> {
        let value = wide_i64(value, "const")?;
        let reg = self
            .builder()?
            .constant(value.value)
            .map_err(|e| build_error(py, e, &[("constant", &value.written)]))?;
        Ok(PyRegister(reg))
    }

    /// A label at the next micro-op.
    fn label(&mut self, py: Python<'_>) -> PyResult<Py<PyLabel>> {
        let label = self.builder()?.label();
        self.new_label(py, label)
    }

    /// A label for a later position; `bind` it before `encode`.
    fn forward(&mut self, py: Python<'_>) -> PyResult<Py<PyLabel>> {
        let label = self.builder()?.forward();
        self.new_label(py, label)
    }

    /// Binds a label made by `forward` to the next micro-op.
    fn bind(&mut self, py: Python<'_>, label: PyRef<'_, PyLabel>) -> PyResult<()> {
        let l = self.label_of(py, &label)?;
        self.builder()?.bind(l).map_err(|e| build_error(py, e, &[]))
    }

    /// `WAIT count`: go on when at most `count` of the stream's commands and jobs
    /// are pending (0: all done).
    fn wait(&mut self, py: Python<'_>, count: &Bound<'_, PyAny>) -> PyResult<()> {
        let count = wide_i64(count, "wait count")?;
        self.builder()?
            .wait(count.value)
            .map_err(|e| build_error(py, e, &[("wait count", &count.written)]))
    }

    /// `SUBMIT`: a command of `handler` on `group=(first, count)` (integers or
    /// registers) with up to ten `args`, of which up to four registers.
    #[pyo3(signature = (handler, group, args=None, exclusive=false, result=false))]
    fn submit(
        &mut self,
        py: Python<'_>,
        handler: &Bound<'_, PyAny>,
        group: &Bound<'_, PyAny>,
        args: Option<&Bound<'_, PyAny>>,
        exclusive: bool,
        result: bool,
    ) -> PyResult<()> {
        let handler = wide_i64(handler, "handler")?;
        let pair = group
            .cast::<PyTuple>()
            .ok()
            .filter(|t| t.len() == 2)
            .ok_or_else(|| PyTypeError::new_err("group: expected a (first, count) tuple"))?;
        let (first, first_w) = operand(&pair.get_item(0)?, "group first")?;
        let (count, count_w) = operand(&pair.get_item(1)?, "group count")?;
        let (args, args_w) = arguments(args)?;
        self.builder()?
            .submit(handler.value, (first, count), &args, exclusive, result)
            .map_err(|e| {
                let mut written = vec![
                    ("handler", &handler.written),
                    ("group first", &first_w),
                    ("group count", &count_w),
                ];
                written.extend(args_w.iter().map(|(f, w)| (f.as_str(), w)));
                build_error(py, e, &written)
            })
    }

    /// `ENQUEUE`: the same through the job queue, on `count` cores (an integer
    /// or a register); the allocator chooses `first`.
    #[pyo3(signature = (handler, count, args=None, exclusive=false, result=false))]
    fn enqueue(
        &mut self,
        py: Python<'_>,
        handler: &Bound<'_, PyAny>,
        count: &Bound<'_, PyAny>,
        args: Option<&Bound<'_, PyAny>>,
        exclusive: bool,
        result: bool,
    ) -> PyResult<()> {
        let handler = wide_i64(handler, "handler")?;
        let (count, count_w) = operand(count, "count")?;
        let (args, args_w) = arguments(args)?;
        self.builder()?
            .enqueue(handler.value, count, &args, exclusive, result)
            .map_err(|e| {
                let mut written = vec![("handler", &handler.written), ("count", &count_w)];
                written.extend(args_w.iter().map(|(f, w)| (f.as_str(), w)));
                build_error(py, e, &written)
            })
    }

    /// The upload bytes.
    fn encode<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.encode_bytes(py)?))
    }

    /// The inverse of `encode` (S10); `StreamFormatError` for an upload the check rejects.
    #[staticmethod]
    fn decode(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<PyStream> {
        let bytes = upload_bytes(data)?;
        let upload = Builder::decode(&bytes).map_err(|e| format_error(py, e))?;
        Ok(PyStream {
            id: NEXT_STREAM.fetch_add(1, Ordering::Relaxed),
            labels: 0,
            state: State::Decoded(upload),
        })
    }

    fn __eq__(&self, py: Python<'_>, other: PyRef<'_, PyStream>) -> bool {
        match (self.encode_bytes(py), other.encode_bytes(py)) {
            (Ok(a), Ok(b)) => a == b,
            _ => self.id == other.id,
        }
    }

    fn __repr__(&self) -> String {
        let h = self.header();
        format!(
            "Stream(deadline_microseconds={}, max_steps={}, seed={}, req={})",
            h.deadline_us, h.max_steps, h.seed, h.req
        )
    }
}

with_keywords! {
    impl PyStream;
    /// `simulate(encode(), ...)` with the keywords of the module's `simulate`.
    fn simulate<'py>[&self, py: Python<'py>,]
        signature []
        keywords kw, dispatch: &'py str = "tail"
        -> PyResult<PySimResult> {
        let data = self.encode_bytes(py)?;
        run(py, &data, kw, dispatch)
    }
}

macro_rules! py_op {
    (@emit $(#[$attr:meta])* $py_fn:ident => $fn:ident, $mn:ident, [$($reg:ident)*], none, $doc:literal) => {
        #[pymethods]
        impl PyStream {
            #[doc = $doc]
            $(#[$attr])*
            fn $py_fn(&mut self, $($reg: PyRegister),*) -> PyResult<()> {
                self.builder()?.$fn($($reg.0),*);
                Ok(())
            }
        }
    };
    (@emit $(#[$attr:meta])* $py_fn:ident => $fn:ident, $mn:ident, [$($reg:ident)*], value, $doc:literal) => {
        #[pymethods]
        impl PyStream {
            #[doc = $doc]
            $(#[$attr])*
            fn $py_fn(&mut self, py: Python<'_>, $($reg: PyRegister,)* imm: &Bound<'_, PyAny>) -> PyResult<()> {
                const FIELD: &str = concat!(stringify!($mn), " immediate");
                let imm = wide_i64(imm, FIELD)?;
                self.builder()?
                    .$fn($($reg.0,)* imm.value)
                    .map_err(|e| build_error(py, e, &[(FIELD, &imm.written)]))
            }
        }
    };
    (@emit $(#[$attr:meta])* $py_fn:ident => $fn:ident, $mn:ident, [$($reg:ident)*], target, $doc:literal) => {
        #[pymethods]
        impl PyStream {
            #[doc = $doc]
            $(#[$attr])*
            fn $py_fn(&mut self, py: Python<'_>, $($reg: PyRegister,)* target: PyRef<'_, PyLabel>) -> PyResult<()> {
                let target = self.label_of(py, &target)?;
                self.builder()?.$fn($($reg.0,)* target);
                Ok(())
            }
        }
    };
    // `mod` is a Rust keyword (the builder's method is `mod_`), `and` a Python one.
    ($name:ident, mod, $regs:tt, $imm:ident, $doc:literal) => {
        py_op!(@emit #[pyo3(name = "mod")] mod_ => mod_, mod, $regs, $imm, $doc);
    };
    ($name:ident, and, $regs:tt, $imm:ident, $doc:literal) => {
        py_op!(@emit and_ => and, and, $regs, $imm, $doc);
    };
    // Written by hand above: `wait` and the template micro-ops.
    ($name:ident, wait, $regs:tt, $imm:ident, $doc:literal) => {};
    ($name:ident, $mn:ident, $regs:tt, template, $doc:literal) => {};
    ($name:ident, $mn:ident, $regs:tt, $imm:ident, $doc:literal) => {
        py_op!(@emit $mn => $mn, $mn, $regs, $imm, $doc);
    };
}

macro_rules! py_ops {
    ($($name:ident = $code:literal, $mn:ident, [$($reg:ident)*], $imm:ident, $doc:literal;)*) => {
        $(py_op!($name, $mn, [$($reg)*], $imm, $doc);)*
    };
}

crate::engine::for_each_op!(py_ops);
