//! What the answer's classes write alike (`SimResult`, `ScenarioResult` and
//! the values they hold): the declaration of a frozen value class, a getter
//! of a field of the engine's record as it is, a Python list made the first
//! time it is read, the ten fields of a command, and a whole answer's
//! class.
//!
//! pyo3 sees no method a macro writes inside a `#[pymethods]` block, so
//! every method here is written in a `#[pymethods]` block of its own (the
//! crate has pyo3's `multiple-pymethods`). Each class gives its own docs.

use std::sync::OnceLock;

use pyo3::prelude::*;
use pyo3::types::PyList;

/// A frozen value class `$ty` of the module `kmst`, called `$name` in
/// Python, that holds an engine record: equality and hashing (`$derive`
/// lists `Hash` where the record's own hash will do; else the class writes
/// its own), never converted back from a Python object.
macro_rules! value_class {
    ($(#[$doc:meta])* $name:literal, $ty:ident($record:ty) $(, $derive:ident)?) => {
        $(#[$doc])*
        #[pyclass(name = $name, module = "kmst", frozen, eq, hash, skip_from_py_object)]
        #[derive(Clone, Copy, PartialEq, Eq $(, $derive)?)]
        pub struct $ty(pub $record);
    };
}
pub(crate) use value_class;

/// Getters of the engine record's fields as they are, on `$ty` whose record
/// is at `self.$path` (`[0]`, `[inner]`, `[0.command]`): `name: type` gives
/// the field `name`, `name = field: type` the field `field` under another
/// Python name (`pass_ = pass`, `pass` being a Python keyword).
macro_rules! field_getters {
    (
        impl $ty:ty;
        at $path:tt;
        $($(#[$doc:meta])* $name:ident $(= $field:ident)?: $t:ty),* $(,)?
    ) => {
        $($crate::classes::field_getters! { @one $ty, $path, [$(#[$doc])*] $name $(= $field)?: $t })*
    };
    (@one $ty:ty, $path:tt, [$($doc:tt)*] $name:ident: $t:ty) => {
        $crate::classes::field_getters! { @one $ty, $path, [$($doc)*] $name = $name: $t }
    };
    (@one $ty:ty, [$($path:tt)*], [$($doc:tt)*] $name:ident = $field:ident: $t:ty) => {
        #[pymethods]
        impl $ty {
            $($doc)*
            #[getter]
            fn $name(&self) -> $t {
                self.$($path)*.$field
            }
        }
    };
}
pub(crate) use field_getters;

/// The list in `cell`, made from `items` the first time.
pub fn list_once<T, P>(
    py: Python<'_>,
    cell: &OnceLock<Py<PyList>>,
    items: &[T],
    wrap: impl Fn(&T) -> P,
) -> PyResult<Py<PyList>>
where
    P: pyo3::PyClass + Into<pyo3::PyClassInitializer<P>>,
{
    if let Some(list) = cell.get() {
        return Ok(list.clone_ref(py));
    }
    let objects = items
        .iter()
        .map(|x| Py::new(py, wrap(x)))
        .collect::<PyResult<Vec<_>>>()?;
    let list = PyList::new(py, objects)?.unbind();
    Ok(cell.get_or_init(|| list).clone_ref(py))
}

/// Getters of the lists of a result `$ty`: `name: Class` is the list of
/// `self.inner.name` wrapped in `Class`, kept in the cell `self.name`.
macro_rules! list_getters {
    (impl $ty:ty; $($(#[$doc:meta])* $name:ident: $class:ident),* $(,)?) => {
        $(
            #[pymethods]
            impl $ty {
                $(#[$doc])*
                #[getter]
                fn $name(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
                    $crate::classes::list_once(py, &self.$name, &self.inner.$name, |x| $class(*x))
                }
            }
        )*
    };
}
pub(crate) use list_getters;

/// The getters of a `SubmittedCommand`'s ten fields, on `$ty` whose record
/// is at `self.$path` (`SubmittedCommand`, `ScenarioCommand`), with the
/// class's own docs of `args` and `pc` (`[]`: none).
macro_rules! command_getters {
    (
        impl $ty:ty;
        at $path:tt;
        args [$(#[$args_doc:meta])*];
        pc [$(#[$pc_doc:meta])*];
    ) => {
        $crate::classes::field_getters! {
            impl $ty;
            at $path;
            sequence: u64,
            slot: u8,
            handler: u8,
            first: u32,
            count: u32,
            flags: u8,
            pass_index: u64,
            $(#[$pc_doc])*
            pc: u32,
            queued: bool,
        }
        $crate::classes::command_getters! { @args $ty, $path, [$(#[$args_doc])*] }
    };
    (@args $ty:ty, [$($path:tt)*], [$($doc:tt)*]) => {
        #[pymethods]
        impl $ty {
            $($doc)*
            #[getter]
            fn args(&self) -> Vec<u32> {
                self.$($path)*.args.to_vec()
            }
        }
    };
}
pub(crate) use command_getters;

/// A whole answer class `$ty` (`$name` in Python: `SimResult`,
/// `ScenarioResult`) holding the engine's `$record`: the record, the run's
/// Python callables, a list made the first time it is read for each of
/// `lists`; `new`; `params` (the parameters' dict, with `$params` writing
/// their JSON, see [`params_dict`](crate::params::params_dict)), `to_json`
/// (`$json`) and `==`, which compares the `compared` fields: the answer
/// without its parameters.
macro_rules! answer_class {
    (
        $(#[$doc:meta])* $name:literal, $ty:ident($record:ty);
        lists [$($list:ident),*];
        compared [$($field:ident),*];
        $(#[$params_doc:meta])* params $params:path;
        $(#[$json_doc:meta])* to_json $json:path;
    ) => {
        $(#[$doc])*
        #[pyclass(name = $name, module = "kmst", frozen)]
        pub struct $ty {
            pub inner: $record,
            /// The Python callables of `delay` and `result`, when the run used them.
            pub callables: $crate::params::Callables,
            $($list: std::sync::OnceLock<Py<pyo3::types::PyList>>,)*
        }

        impl $ty {
            pub fn new(inner: $record, callables: $crate::params::Callables) -> Self {
                $ty { inner, callables, $($list: std::sync::OnceLock::new(),)* }
            }
        }

        #[pymethods]
        impl $ty {
            $(#[$params_doc])*
            #[getter]
            fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
                $crate::params::params_dict(py, &self.inner.params, &self.callables, $params)
            }

            $(#[$json_doc])*
            fn to_json(&self) -> PyResult<String> {
                $json(&self.inner).map_err($crate::errors::params_error)
            }

            fn __eq__(&self, other: PyRef<'_, Self>) -> bool {
                let (a, b) = (&self.inner, &other.inner);
                true $(&& a.$field == b.$field)*
            }
        }
    };
}
pub(crate) use answer_class;
