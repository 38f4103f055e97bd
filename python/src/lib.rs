//! memviz for Python (`memviz._memviz`): the CLI's questions ([`api`]) over
//! a snapshot read from bytes, the viewer page with a snapshot inside, and
//! the CLI itself for the wheel's `memviz` command. The Python side
//! (memviz/__init__.py) turns the JSON into dicts.

use memviz_cli::api;
use memviz_cli::Loaded;
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;

/// A snapshot read once, asked many questions.
#[pyclass(frozen, module = "memviz._memviz")]
struct Snapshot {
    loaded: Loaded,
    name: String,
}

/// Reads `data` (a pickle, JSON, or gzip of either); `name` names it in errors.
/// Returns the snapshot and the warnings (entries left out), as text.
#[pyfunction]
fn load(py: Python<'_>, data: &[u8], name: String) -> PyResult<(Snapshot, Vec<String>)> {
    let (loaded, warnings) =
        py.detach(|| api::read(data)).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
    Ok((Snapshot { loaded, name }, warnings))
}

#[pymethods]
impl Snapshot {
    /// The question `name` (api::QUESTIONS: summary, top, oom, leaks,
    /// diff, ...) with its options as a JSON object; `other` is B for diff.
    /// The answer is the JSON the CLI's --json prints.
    #[pyo3(signature = (name, options, other=None))]
    fn ask(&self, py: Python<'_>, name: &str, options: &str, other: Option<&Snapshot>) -> PyResult<String> {
        let q = api::question(name).ok_or_else(|| PyKeyError::new_err(format!("no question {name:?}")))?;
        let args: serde_json::Value =
            serde_json::from_str(options).map_err(|e| PyValueError::new_err(format!("{name}: options: {e}")))?;
        let empty = serde_json::Map::new();
        let opts = api::opts_from_json(q, args.as_object().unwrap_or(&empty), &[]).map_err(PyValueError::new_err)?;
        let mut files = vec![(&self.loaded, self.name.as_str())];
        match (q.files, other) {
            (2, Some(o)) => files.push((&o.loaded, o.name.as_str())),
            (2, None) => return Err(PyValueError::new_err(format!("{name}: needs another snapshot"))),
            _ => {}
        }
        let v = py.detach(|| (q.answer)(&files, &opts)).map_err(PyValueError::new_err)?;
        Ok(v.to_string())
    }

    #[getter]
    fn name(&self) -> &str {
        &self.name
    }
}

/// The names of the questions a snapshot answers (api::QUESTIONS).
#[pyfunction]
fn questions() -> Vec<&'static str> {
    api::QUESTIONS.iter().map(|q| q.name).collect()
}

/// The standalone viewer with `data` inside under `name` (what `memviz
/// html` writes): opens from anywhere and fetches nothing.
#[pyfunction]
fn page(py: Python<'_>, data: &[u8], name: &str) -> PyResult<String> {
    py.detach(|| {
        let (viewer, _) = memviz_cli::html::viewer(None)?;
        memviz_cli::html::page(&viewer, name, data)
    })
    .map_err(PyValueError::new_err)
}

/// The `memviz` command: runs the CLI with `args` (no program name) and
/// returns its exit status.
#[pyfunction]
fn cli(py: Python<'_>, args: Vec<String>) -> u8 {
    py.detach(|| memviz_cli::main(&args))
}

#[pymodule]
fn _memviz(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Snapshot>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(questions, m)?)?;
    m.add_function(wrap_pyfunction!(page, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    Ok(())
}
