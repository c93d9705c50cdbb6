//! `kmst explain`: the machine code each dispatch variant runs for a unit
//! (a micro-op, an operand variant, a fused pair, `End`), read from the
//! running binary, with the dispatch marked; or the code the compiled tier
//! makes of one upload, region by region.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use kmst::Dispatch;
use kmst::exec::dispatch::explain::{self, Code, Kind, Unit};

use crate::binary::Binary;
use crate::common::{CliError, load_upload, print_out};
use crate::machine_code::{Line, code_and_data, decode, listing};

const ABOUT: &str = "\
Each handler's name is its unit's and its kind, and its Rust is written out
under that name in interp/src/exec/dispatch/handlers.rs: `counted`,
`charged` and `head` under tail and threaded, `sub` under subroutine,
`indirect` under indirect, `switch` and `loop_match` under those loops.
The arms (switch, loop_match, and indirect, whose handlers LLVM inlines
into its central dispatch) are found through the loop's jump table. The
listings are of the instances a plain run uses (no observer). jit compiles
each upload: `kmst explain FILE --dispatch jit` prints that code, and
`--dispatch stencil` the stencil code made for it, micro-op by micro-op.

Exit status: 0 printed; 1 the check rejects the upload; 2 an unknown unit
or variant, an upload that cannot be read or compiled, or a host whose
machine code this cannot disassemble (x86-64 only).";

#[derive(clap::Args)]
#[command(after_help = ABOUT)]
pub struct Args {
    /// What to explain: a micro-op's mnemonic (`add`, `result`), a unit's
    /// name (`add_b`, `addi_jlt_in_place`; a fused pair also as `addi+jlt`),
    /// `all` for every unit, or an upload FILE (`.bin` or `.kms`, `-`:
    /// standard input) with `--dispatch jit` or `--dispatch stencil`.
    what: String,
    /// The variant: one of this build's (`kmst run --help`), or `all` for
    /// every one, with a table of instructions per handler per variant
    /// before the listings.
    #[arg(long, short, default_value_t = Dispatch::default().name().to_owned())]
    dispatch: String,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let dispatches = variants(&args.dispatch)?;
    let path = PathBuf::from(&args.what);
    let is_file = args.what == "-" || path.is_file();
    let units = if is_file {
        Vec::new()
    } else {
        units(&args.what)?
    };
    if !cfg!(target_arch = "x86_64") {
        return Err(CliError::Usage(format!(
            "no disassembler for this host's machine code ({}): kmst explain reads x86-64 only",
            std::env::consts::ARCH
        )));
    }
    if is_file {
        return compiled(&path, &dispatches);
    }
    let bin = Binary::open().map_err(CliError::Usage)?;
    let mut out = String::new();
    let mut table: Vec<(String, Vec<Option<usize>>)> = Vec::new();
    let mut listings = String::new();
    if cfg!(debug_assertions) {
        listings.push_str(
            "# this kmst is a debug build: its handlers are unoptimized \
             (`cargo build --release` for the code that runs fast)\n\n",
        );
    }
    for (col, &d) in dispatches.iter().enumerate() {
        if let Some(note) = explain::note(d) {
            let _ = writeln!(listings, "# {d}: {note}\n");
        }
        for &u in &units {
            for code in explain::code(d, u) {
                let (head, lines) = show(&bin, d, u, &code);
                listings.push_str(&head);
                let row_name = format!("{u} {}", code.kind.name());
                let at = match table.iter().position(|(n, _)| *n == row_name) {
                    Some(at) => at,
                    None => {
                        table.push((row_name, vec![None; dispatches.len()]));
                        table.len() - 1
                    }
                };
                table[at].1[col] = lines.as_ref().map(Vec::len);
                if let Some(lines) = lines {
                    write_lines(&mut listings, &lines);
                }
                listings.push('\n');
            }
        }
    }
    if dispatches.len() > 1 || units.len() > 1 {
        write_table(&mut out, &dispatches, &table);
        out.push('\n');
    }
    out.push_str(&listings);
    print_out(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The variants `name` asks for.
fn variants(name: &str) -> Result<Vec<Dispatch>, CliError> {
    if name == "all" {
        return Ok(Dispatch::ALL.to_vec());
    }
    name.parse::<Dispatch>()
        .map(|d| vec![d])
        .map_err(|e| CliError::Usage(format!("{e}, or all")))
}

/// The units `name` asks for.
fn units(name: &str) -> Result<Vec<Unit>, CliError> {
    if name == "all" {
        return Ok(Unit::all());
    }
    Unit::find(&name.replace('+', "_"))
        .map(|u| vec![u])
        .ok_or_else(|| {
            let names: Vec<&str> = Unit::all().iter().map(|u| u.name).collect();
            CliError::Usage(format!(
                "unknown micro-op or unit `{name}` (the units: {}; or all, or an upload FILE)",
                names.join(", ")
            ))
        })
}

/// A handler's heading and its listing (`None` where its code was not
/// found: the heading says why).
fn show(bin: &Binary, d: Dispatch, u: Unit, code: &Code) -> (String, Option<Vec<Line>>) {
    let mut head = String::new();
    let _ = writeln!(head, "== {} under {d}: {}", code.name, u.doc);
    let _ = writeln!(head, "   source: {}", code.source);
    let f = match bin.function(code.addr, &code.name) {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(head, "   (its machine code was not found: {e})");
            return (head, None);
        }
    };
    let whole = (f.addr, f.addr + f.bytes.len() as u64);
    let instrs = if code.kind == Kind::Arm {
        match crate::machine_code::arm(bin, &f, u.index, Unit::all().len()) {
            Ok(path) => path,
            Err(e) => {
                let _ = writeln!(head, "   (its arm was not found: {e})");
                return (head, None);
            }
        }
    } else {
        decode(f.bytes, f.addr)
    };
    let lines = listing(Some(bin), &instrs, f.addr, whole);
    let _ = writeln!(head, "   symbol: {}", f.name);
    if code.kind != Kind::Arm && !f.name.contains(&format!("::{}::", code.name)) {
        let _ = writeln!(
            head,
            "   (no symbol of its own: LLVM merged it with this identical function)"
        );
    }
    if code.kind == Kind::Arm {
        let _ = writeln!(
            head,
            "   the arm's path to the next dispatch, offsets in the loop function: {} instructions",
            lines.len()
        );
    } else {
        let _ = writeln!(
            head,
            "   {} bytes, {} instructions",
            f.bytes.len(),
            lines.len()
        );
    }
    (head, Some(lines))
}

/// Writes a listing, the notes in a column.
fn write_lines(out: &mut String, lines: &[Line]) {
    let width = lines
        .iter()
        .map(|l| l.text.len())
        .max()
        .unwrap_or(0)
        .min(48);
    for l in lines {
        match &l.note {
            Some(note) => {
                let _ = writeln!(out, "   {:5}  {:width$}  ; {note}", l.offset, l.text);
            }
            None => {
                let _ = writeln!(out, "   {:5}  {}", l.offset, l.text);
            }
        }
    }
}

/// Writes the instructions per handler (rows) per variant (columns).
fn write_table(out: &mut String, dispatches: &[Dispatch], table: &[(String, Vec<Option<usize>>)]) {
    let first = table.iter().map(|(n, _)| n.len()).max().unwrap_or(0).max(7);
    let _ = write!(out, "{:first$}", "handler");
    for d in dispatches {
        let _ = write!(out, "  {:>10}", d.name());
    }
    out.push_str("   (instructions)\n");
    for (name, cells) in table {
        let _ = write!(out, "{name:first$}");
        for c in cells {
            match c {
                Some(n) => {
                    let _ = write!(out, "  {n:>10}");
                }
                None => {
                    let _ = write!(out, "  {:>10}", "-");
                }
            }
        }
        out.push('\n');
    }
}

/// `kmst explain FILE --dispatch jit|stencil`: the code a compiled tier
/// makes of the upload.
fn compiled(path: &std::path::Path, dispatches: &[Dispatch]) -> Result<ExitCode, CliError> {
    let tier = match dispatches {
        [d] if matches!(d.name(), "jit" | "stencil") => d.name(),
        _ => {
            return Err(CliError::Usage(format!(
                "an upload is explained with --dispatch jit or --dispatch stencil (the code \
                 made for it); the interpreters run the same handlers for every upload: \
                 `kmst explain add --dispatch {}`",
                dispatches.first().map_or("tail", |d| d.name())
            )));
        }
    };
    let data = load_upload(path)?;
    let refused = |e: explain::NotCompiled| match e {
        // A verdict against the input, as `kmst check`'s.
        explain::NotCompiled::Rejected(_) => CliError::Verdict {
            path: path.to_owned(),
            message: e.to_string(),
        },
        _ => CliError::Input {
            path: path.to_owned(),
            message: e.to_string(),
        },
    };
    if tier == "stencil" {
        let st = explain::stenciled(&data).map_err(refused)?;
        print_out(&stencil_listing(&data, &st))?;
        return Ok(ExitCode::SUCCESS);
    }
    let regions = explain::compiled(&data).map_err(refused)?;
    let mut out = String::new();
    for (k, r) in regions.iter().enumerate() {
        let (code, data) = code_and_data(&r.code, 0);
        let mut lines = listing(None, &code, 0, (0, r.code.len() as u64));
        for l in &mut lines {
            // The region's one indirect jump enters it at a pc's block.
            if l.note.as_deref() == Some("dispatch: jump to it") {
                l.note = Some("enter at the pc's block".to_owned());
            }
            if l.note.as_deref() == Some("dispatch: the next arm's offset from the jump table") {
                l.note = Some("the pc's entry in the jump table".to_owned());
            }
        }
        let count = lines.len();
        lines.extend(data);
        lines.sort_by_key(|l| l.offset);
        let _ = writeln!(
            out,
            "== region {k}: micro-ops {}..{}, {} bytes, {} instructions",
            r.pcs.start,
            r.pcs.end,
            r.code.len(),
            count
        );
        write_lines(&mut out, &lines);
        out.push('\n');
    }
    print_out(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The stencil code of upload `data`: the exits, then each pc's code under
/// its micro-op.
fn stencil_listing(data: &[u8], st: &explain::Stenciled) -> String {
    let instrs = decode(&st.code, 0);
    let mut lines = listing(None, &instrs, 0, (0, st.code.len() as u64));
    // Where each jump goes: an exit (the two exits start the code, the
    // second after the first's `ret`), or another pc's code.
    let short = instrs
        .iter()
        .position(|i| i.mnemonic() == iced_x86::Mnemonic::Ret)
        .and_then(|k| instrs.get(k + 1))
        .map_or(u64::MAX, |i| i.ip());
    for (l, i) in lines.iter_mut().zip(&instrs) {
        let to = i.near_branch_target();
        if i.ip() != l.offset
            || !matches!(
                i.flow_control(),
                iced_x86::FlowControl::UnconditionalBranch
                    | iced_x86::FlowControl::ConditionalBranch
            )
        {
            continue;
        }
        l.note = if to == 0 {
            Some("leave: the interpreter runs this micro-op".to_owned())
        } else if to == short {
            Some("leave: less fuel than the block".to_owned())
        } else {
            st.starts
                .iter()
                .position(|&at| at as u64 == to)
                .map(|pc| format!("to pc {pc}"))
        };
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# the stencil code as made before it is mapped: {} bytes, {} micro-ops",
        st.code.len(),
        st.starts.len() - 1
    );
    let mut next = 0;
    let mut group: Vec<Line> = Vec::new();
    let flush = |out: &mut String, group: &mut Vec<Line>| {
        write_lines(out, group);
        group.clear();
    };
    out.push_str("== the exits: back to the loop, to interpret a micro-op or short of fuel\n");
    for l in lines {
        while next < st.starts.len() && l.offset >= st.starts[next] as u64 {
            flush(&mut out, &mut group);
            let what = match kmst::format::micro_op_at(data, next as u32) {
                Some(op) => kmst::asm::format_op(&op),
                None => "End (the stream's end)".to_owned(),
            };
            let _ = writeln!(out, "== pc {next}: {what}");
            next += 1;
        }
        group.push(l);
    }
    flush(&mut out, &mut group);
    out
}
