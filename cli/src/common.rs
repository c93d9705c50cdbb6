//! What every subcommand shares: its error type, knowing an input file by
//! its content, reading streams with their parameters, replacing output
//! files whole, and writing standard output. A file named `-` is standard
//! input where a command reads one and standard output where it writes one.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use kmst_harness::answers::{Source, SourceError};
use kmst_reference::Params;

/// A failure that ends a subcommand with a one-line message: exit 1 for a
/// verdict against the input ([`CliError::Verdict`]), 2 for the rest.
#[derive(Debug)]
pub enum CliError {
    /// A file could not be read (or a folder made, or a file replaced by the harness).
    Io { path: PathBuf, err: std::io::Error },
    /// An output file could not be written.
    Write { path: PathBuf, err: std::io::Error },
    /// The arguments do not make sense together, or a value is out of range.
    Usage(String),
    /// An input file is not what it should be (a `.kms` syntax error, bad JSON, ...).
    Input { path: PathBuf, message: String },
    /// An input file is of another kind than the command takes.
    WrongKind {
        path: PathBuf,
        kind: Kind,
        /// Which command takes it instead.
        hint: &'static str,
    },
    /// A verdict against the input: the check rejects the upload (exit 1).
    Verdict { path: PathBuf, message: String },
    /// Standard output could not be written (a full disk, a closed file).
    Stdout(std::io::Error),
}

impl CliError {
    /// 1 for a verdict against the input, 2 for a usage or I/O error.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Verdict { .. } => ExitCode::from(1),
            _ => ExitCode::from(2),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Io { path, err } => write!(f, "{}: {err}", shown(path)),
            CliError::Write { path, err } => {
                write!(f, "cannot write the output {}: {err}", path.display())
            }
            CliError::Usage(message) => write!(f, "{message}"),
            CliError::Input { path, message } | CliError::Verdict { path, message } => {
                write!(f, "{}: {message}", shown(path))
            }
            CliError::WrongKind { path, kind, hint } => {
                write!(f, "{} is {}: {hint}", shown(path), kind.describe())
            }
            CliError::Stdout(err) => write!(f, "writing standard output: {err}"),
        }
    }
}

/// `-`: standard input as an input file, standard output as an output.
/// The `--dispatch` help: what runs (`what`), then the names this build
/// takes, from `Dispatch::ALL` (and `reference` where the command takes the
/// reference model), so that the list is never out of date.
pub fn dispatch_help(what: &str, reference: bool) -> String {
    let mut names: Vec<&str> = kmst::exec::Dispatch::ALL.iter().map(|d| d.name()).collect();
    if reference {
        names.push("reference");
    }
    let every = if reference {
        "; every one gives the same answer"
    } else {
        ""
    };
    let hosts = if names.contains(&"stencil") {
        "; stencil has stencils for x86-64 Linux only, and elsewhere runs the interpreter"
    } else {
        ""
    };
    format!(
        "{what}: one of {} (this build's{every}{hosts})",
        names.join(", ")
    )
}

pub fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A file's name in a message: `standard input` for `-`.
pub fn shown(path: &Path) -> std::borrow::Cow<'_, str> {
    if is_std(path) {
        "standard input".into()
    } else {
        path.to_string_lossy()
    }
}

/// An output file's name in a message: `standard output` for `-`.
pub fn shown_output(path: &Path) -> std::borrow::Cow<'_, str> {
    if is_std(path) {
        "standard output".into()
    } else {
        path.to_string_lossy()
    }
}

/// A file's stem, the name of what it holds (a stream, a workload):
/// `stdin` for `-`.
pub fn stem(path: &Path) -> String {
    if is_std(path) {
        return "stdin".into();
    }
    path.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// The UTF-8 byte-order mark some editors put first in a text file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What an input file holds, known by its content (never by its name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Upload bytes: the format's magic first (docs/spec.md), or an upload
    /// cut inside it (1 to 3 bytes that begin the magic), or any data that
    /// is not text (an upload with a damaged header; the check says why).
    Upload,
    /// JSON: an object (a kernel scenario, S36, parameters, a saved
    /// answer) or an array.
    Json,
    /// `.kms` assembly text (docs/asm.md), with or without a UTF-8
    /// byte-order mark.
    Source,
}

impl Kind {
    /// Knows `bytes` by their content: the upload magic or a part of its
    /// beginning, then JSON (`{` or `[` first, after a byte-order mark and
    /// white space), then UTF-8 text without NUL bytes (assembly); anything
    /// else, the empty file too, is upload bytes (an empty or cut upload is
    /// the check's `Reason::BadHeader`).
    pub fn of(bytes: &[u8]) -> Kind {
        let magic = kmst::format::MAGIC.to_le_bytes();
        if bytes.starts_with(&magic) || (!bytes.is_empty() && magic.starts_with(bytes)) {
            return Kind::Upload;
        }
        let text = bytes.strip_prefix(BOM).unwrap_or(bytes);
        if let Some(b'{' | b'[') = text.iter().find(|b| !b.is_ascii_whitespace()) {
            return Kind::Json;
        }
        if !bytes.is_empty() && !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok() {
            return Kind::Source;
        }
        Kind::Upload
    }

    fn describe(self) -> &'static str {
        match self {
            Kind::Upload => "an upload (binary)",
            Kind::Json => "JSON (a kernel scenario, a saved answer or parameters)",
            Kind::Source => "`.kms` assembly text",
        }
    }
}

/// Where a command that takes an upload or a `.kms` source sends a JSON file.
pub const JSON_HINT: &str = "a kernel scenario runs with `kmst scenario` (or `kmst profile`, `kmst compare`); \
     parameters go to --params";

/// Standard input, once read: a command may look at its input twice (its
/// kind, then its contents), and standard input can be read only once.
static STDIN: Mutex<Option<Vec<u8>>> = Mutex::new(None);

/// Reads a file (`-`: standard input, to its end), naming it in the error.
pub fn read_file(path: &Path) -> Result<Vec<u8>, CliError> {
    let io = |err| CliError::Io {
        path: path.to_owned(),
        err,
    };
    if !is_std(path) {
        return std::fs::read(path).map_err(io);
    }
    let mut stdin = STDIN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(bytes) = &*stdin {
        return Ok(bytes.clone());
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes).map_err(io)?;
    *stdin = Some(bytes.clone());
    Ok(bytes)
}

/// Reads an input file and knows it by its content.
pub fn read_input(path: &Path) -> Result<(Vec<u8>, Kind), CliError> {
    let bytes = read_file(path)?;
    let kind = Kind::of(&bytes);
    Ok((bytes, kind))
}

/// Writes an output file, naming it in the error: `-` is standard output;
/// a regular file is replaced whole (a temporary file beside it, renamed
/// into place; through a symbolic link, the file it names), so that on any
/// error the old file is left as it was; a device or a FIFO is written
/// through (`kmst_harness::corpus::replace`).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    if is_std(path) {
        return write_out(bytes);
    }
    kmst_harness::corpus::replace::replace_file(path, bytes).map_err(|err| CliError::Write {
        path: path.to_owned(),
        err,
    })
}

/// True when an output path is a regular file (or will be one), which can
/// have a file beside it (`asm`'s `X.params.json`): not `-`, a device or a
/// FIFO.
pub fn is_plain_output(path: &Path) -> bool {
    !is_std(path) && !kmst_harness::corpus::replace::writes_through(path)
}

/// Refuses `-` for an output flag of a command whose report goes to
/// standard output: the two would be mixed.
pub fn refuse_std_output(flag: &str, path: Option<&PathBuf>) -> Result<(), CliError> {
    match path {
        Some(p) if is_std(p) => Err(CliError::Usage(format!(
            "{flag} -: standard output carries the command's report; name a file"
        ))),
        _ => Ok(()),
    }
}

/// Writes `text` to standard output and flushes it. A closed pipe
/// (`kmst ... | head`) is not an error; any other failure (`>/dev/full`) is.
pub fn print_out(text: &str) -> Result<(), CliError> {
    write_out(text.as_bytes())
}

/// [`print_out`] for bytes.
pub fn write_out(bytes: &[u8]) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::Stdout(e)),
        _ => Ok(()),
    }
}

/// A stream to run, from an upload or a `.kms` source.
pub struct Stream {
    pub upload: Vec<u8>,
    /// The parameters its source names (`;@ params`), or its upload's
    /// parameters file; the defaults for the rest.
    pub params: Params,
    /// The parameters file beside an upload that gave `params`.
    pub params_file: Option<PathBuf>,
    /// The `;@ notes` of a source.
    pub notes: String,
}

/// The parameters file `kmst asm -o X.bin` writes beside an upload and
/// `kmst run X.bin` reads: `X.params.json`.
pub fn params_file_of(upload: &Path) -> PathBuf {
    upload.with_extension("params.json")
}

/// A stream from a file: an upload (with the parameters of its
/// `X.params.json` when there is one), or a `.kms` source assembled, its
/// directives checked and its `;@ params` the base parameters (docs/asm.md).
/// Anything else is refused naming the command that takes it.
pub fn load_stream(path: &Path) -> Result<Stream, CliError> {
    let (bytes, kind) = read_input(path)?;
    match kind {
        Kind::Json => Err(CliError::WrongKind {
            path: path.to_owned(),
            kind,
            hint: JSON_HINT,
        }),
        // Standard input has no file beside it.
        Kind::Upload if is_std(path) => Ok(Stream {
            upload: bytes,
            params: Params::default(),
            params_file: None,
            notes: String::new(),
        }),
        Kind::Upload => {
            let file = params_file_of(path);
            let (params, params_file) = match std::fs::read(&file) {
                Ok(text) => (
                    read_params_file(&file, &text, Params::default())?,
                    Some(file),
                ),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Params::default(), None),
                Err(err) => return Err(CliError::Io { path: file, err }),
            };
            Ok(Stream {
                upload: bytes,
                params,
                params_file,
                notes: String::new(),
            })
        }
        Kind::Source => {
            let source = read_source(path, bytes)?;
            let params = source.params().map_err(|e| source_error(path, e))?;
            let upload = assemble(path, &source)?;
            Ok(Stream {
                upload,
                params,
                params_file: None,
                notes: source.directives.notes,
            })
        }
    }
}

/// A `.kms` source with its directives read and checked: the one reader of
/// `;@` lines every command uses (its `;@ params` valid by S24, S25). A
/// UTF-8 byte-order mark first is not part of the text.
pub fn read_source(path: &Path, mut bytes: Vec<u8>) -> Result<Source, CliError> {
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    let text = String::from_utf8(bytes).map_err(|_| CliError::Input {
        path: path.to_owned(),
        message: "not UTF-8 text".into(),
    })?;
    let source = Source::parse(&stem(path), &text).map_err(|e| source_error(path, e))?;
    source.params().map_err(|e| source_error(path, e))?;
    Ok(source)
}

/// Assembles a source.
pub fn assemble(path: &Path, source: &Source) -> Result<Vec<u8>, CliError> {
    source.assemble().map_err(|e| source_error(path, e))
}

/// An upload from a file: an upload as it is, or a `.kms` source assembled
/// (its directives checked); a JSON file is refused.
pub fn load_upload(path: &Path) -> Result<Vec<u8>, CliError> {
    let (bytes, kind) = read_input(path)?;
    match kind {
        Kind::Upload => Ok(bytes),
        Kind::Source => assemble(path, &read_source(path, bytes)?),
        Kind::Json => Err(CliError::WrongKind {
            path: path.to_owned(),
            kind,
            hint: JSON_HINT,
        }),
    }
}

fn source_error(path: &Path, e: SourceError) -> CliError {
    let input = |message: String| CliError::Input {
        path: path.to_owned(),
        message,
    };
    match e {
        SourceError::Params { message, .. } => input(format!(";@ params: {message}")),
        SourceError::Assemble { message, .. } => input(message),
        SourceError::Directive { line, message, .. } => input(format!("line {line}: {message}")),
    }
}

/// Parameters from a JSON file (`--params`, `X.params.json`): a params
/// object or a saved answer (its `params`), key by key over `base`.
pub fn read_params_file(path: &Path, text: &[u8], base: Params) -> Result<Params, CliError> {
    let input = |message: String| CliError::Input {
        path: path.to_owned(),
        message,
    };
    let text = std::str::from_utf8(text).map_err(|_| input("not UTF-8 text".into()))?;
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let value = kmst_harness::answers::strict_json(text).map_err(input)?;
    // A saved answer carries its params under `params`.
    let object = value.get("params").unwrap_or(&value);
    let keys = object
        .as_object()
        .ok_or_else(|| input("parameters must be a JSON object".into()))?;
    let mut merged = base.to_json_value().map_err(|e| input(e.to_string()))?;
    for (k, v) in keys {
        merged[k] = v.clone();
    }
    Params::from_json_value(&merged).map_err(|e| input(e.to_string()))
}

/// A kernel scenario from a JSON file (docs/scenario.md), read strictly (a
/// key given twice is an error); its uploads are loaded beside it.
pub fn read_scenario(path: &Path) -> Result<kmst_reference::Scenario, CliError> {
    let input = |message: String| CliError::Input {
        path: path.to_owned(),
        message,
    };
    let (bytes, kind) = read_input(path)?;
    if kind != Kind::Json {
        return Err(CliError::WrongKind {
            path: path.to_owned(),
            kind,
            hint: "`kmst run` runs one stream (a scenario is a JSON file, docs/scenario.md)",
        });
    }
    let text = String::from_utf8(bytes).map_err(|_| input("not UTF-8 text".into()))?;
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    // Its uploads as the library reads them, a `.kms` one without a
    // byte-order mark (as read_source); a scenario on standard input names
    // them from the working folder.
    let mut read = |p: &Path| {
        let mut bytes = std::fs::read(p).map_err(|e| format!("cannot be read: {e}"))?;
        if p.extension().is_some_and(|e| e == "kms") && bytes.starts_with(BOM) {
            bytes.drain(..BOM.len());
        }
        Ok(bytes)
    };
    let scenario =
        kmst::scenario::from_json_with(text, path, &mut read).map_err(|e| input(e.to_string()))?;
    // What the loader lets pass: a key given twice, an integer past 64 bits.
    kmst_harness::answers::strict_json(text).map_err(|e| input(format!("scenario: {e}")))?;
    Ok(scenario)
}

/// `--jobs N`, for commands that make many independent runs (the corpus
/// check, a budget sweep, several files): how many run at once.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct JobsArgs {
    /// How many runs at once (default: one per core; 1 runs them one after
    /// another). The output is the same, in the same order, whatever N.
    #[arg(long, short = 'j', allow_negative_numbers = true, value_parser = in_range::<1, 1024>)]
    pub jobs: Option<u64>,
}

impl JobsArgs {
    /// `f` of every item, on `--jobs` threads, the answers in the items' order.
    pub fn map<T: Sync, R: Send>(
        &self,
        items: &[T],
        f: impl Fn(&T) -> R + Sync + Send,
    ) -> Result<Vec<R>, CliError> {
        use rayon::prelude::*;
        if rayon::current_thread_index().is_some() {
            // Already one of the threads (a sweep of one of several files):
            // these runs share them.
            return Ok(items.par_iter().map(f).collect());
        }
        let mut pool = rayon::ThreadPoolBuilder::new();
        if let Some(n) = self.jobs {
            pool = pool.num_threads(n as usize); // in_range: 1..=1024
        }
        let pool = pool
            .build()
            .map_err(|e| CliError::Usage(format!("--jobs: cannot start the threads: {e}")))?;
        Ok(pool.install(|| items.par_iter().map(f).collect()))
    }
}

/// The largest u64 and u32, for [`in_range`].
pub const U64: u64 = u64::MAX;
pub const U32: u64 = u32::MAX as u64;

/// An integer flag in `LO..=HI` (its range by S25); the error states the range.
pub fn in_range<const LO: u64, const HI: u64>(text: &str) -> Result<u64, String> {
    // Negative numbers are read too (the flags allow values that begin
    // with `-`), to be refused with the range.
    match text.trim().parse::<i128>() {
        Ok(v) if (i128::from(LO)..=i128::from(HI)).contains(&v) => Ok(v as u64),
        Ok(_) => Err(format!("{text} is not in {LO}..={HI}")),
        Err(_) => Err(format!("expected an integer in {LO}..={HI}")),
    }
}

/// The implementation `--dispatch NAME` chooses.
pub fn dispatch(name: &str) -> Result<kmst_harness::answers::Implementation, CliError> {
    let chosen = name
        .parse::<kmst_harness::answers::Implementation>()
        .map_err(|e| CliError::Usage(format!("--dispatch: {e}")))?;
    // The copy-and-patch tier has stencils for x86-64 Linux only: elsewhere
    // its variant runs the interpreter, and says so once.
    if name == "stencil"
        && let Err(why) = kmst::exec::stencil_available()
    {
        eprintln!("kmst: {why}; `--dispatch stencil` runs the subroutine loop");
    }
    Ok(chosen)
}
