//! Seed corpora for the fuzz targets.
//!
//! A fuzzer starts far deeper from inputs that already pass the check and
//! reach the kernel than from nothing. The raw targets get the saved streams
//! of `corpus/streams` (their `.bin` uploads) behind a prefix that repeats
//! the stream's own run: its `;@ check_run` cases and a plain check for
//! `check` ([`CheckPrefix`]), its saved parameters for `sim_raw`
//! ([`SimPrefix`]). The structured targets read [`Unstructured`] bytes that no
//! saved upload can be turned back into; their seeds are pseudo-random byte
//! strings chosen so that each one reaches a different outcome (status,
//! error reason, submits, queue, stop, cancel for `sim_structured`, and the
//! turn budget too for `sim_edges`; accepted
//! or the kind of refusal for `builder`), each cut to the bytes the generator
//! actually read.
//!
//! The top layer of `fuzzing`: seeds name the targets and read their inputs
//! through the targets' own decoders, and nothing below names the seeds.

use std::collections::BTreeSet;
use std::path::Path;

use arbitrary::Unstructured;
use serde_json::Value;

use crate::answers::RunArgs;
use crate::fuzzing::edges::edges_case;
use crate::fuzzing::generate;
use crate::fuzzing::input::{CheckPrefix, SimPrefix};
use crate::fuzzing::scenario::arbitrary_scenario;
use crate::fuzzing::script::Script;
use crate::fuzzing::targets::scenario::scenario_of;
use crate::fuzzing::targets::sizes::sizes_case;
use crate::fuzzing::targets::{Target, structured_case};
use kmst_reference::Params;

/// The seeds' byte strings come from the generators' seed expansion.
pub use crate::fuzzing::generate::random_bytes;

/// Saved uploads larger than this are left out of the seeds (libFuzzer's
/// inputs stay small; the corpus replay test covers the large ones).
pub const MAX_SEED_UPLOAD: usize = 1 << 16;

/// One seed: its target, a file name and the bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seed {
    pub target: Target,
    pub name: String,
    pub bytes: Vec<u8>,
}

/// A seed-corpus problem: an unreadable directory or file.
#[derive(Debug)]
pub struct SeedError(pub String);

impl std::fmt::Display for SeedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SeedError {}

/// The `;@ check_run` directives of a `.kms` source (offset, region_size,
/// active, active_reqs), read leniently: a line that does not parse is skipped.
fn check_run_cases(source: &str) -> Vec<RunArgs> {
    source
        .lines()
        .filter_map(|l| l.trim().strip_prefix(";@ check_run"))
        .filter_map(|json| serde_json::from_str::<Value>(json.trim()).ok())
        .map(|v| RunArgs {
            offset: v["offset"].as_u64().unwrap_or(0),
            region_size: v["region_size"].as_u64().unwrap_or(1 << 20),
            active: v["active"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|r| Some((r[0].as_u64()?, r[1].as_u64()?)))
                        .collect()
                })
                .unwrap_or_default(),
            active_reqs: v["active_reqs"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|r| r.as_u64().map(|x| x as u32))
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect()
}

/// Seeds of `check` and `sim_raw` from the saved streams in `dir`.
pub fn corpus_seeds(dir: &Path) -> Result<Vec<Seed>, SeedError> {
    let err = |p: &Path, e: std::io::Error| SeedError(format!("{}: {e}", p.display()));
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| err(dir, e))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "bin").then(|| p.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    names.sort();
    let mut seeds = Vec::new();
    for name in names {
        let bin = dir.join(format!("{name}.bin"));
        let upload = std::fs::read(&bin).map_err(|e| err(&bin, e))?;
        if upload.len() > MAX_SEED_UPLOAD {
            continue;
        }
        let json = dir.join(format!("{name}.json"));
        let params = std::fs::read_to_string(&json)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| Params::from_json_value(&v["params"]).ok())
            .unwrap_or_default();
        let source = std::fs::read_to_string(dir.join(format!("{name}.kms"))).unwrap_or_default();

        let mut check = CheckPrefix::plain().0.to_vec();
        check.extend_from_slice(&upload);
        seeds.push(Seed {
            target: Target::Check,
            name: format!("{name}.plain"),
            bytes: check,
        });
        for (k, args) in check_run_cases(&source).iter().enumerate() {
            let mut b = CheckPrefix::for_run(args).0.to_vec();
            b.extend_from_slice(&upload);
            seeds.push(Seed {
                target: Target::Check,
                name: format!("{name}.run{k}"),
                bytes: b,
            });
        }
        let mut sim = SimPrefix::encode(&params).0.to_vec();
        sim.extend_from_slice(&upload);
        seeds.push(Seed {
            target: Target::SimRaw,
            name: name.clone(),
            bytes: sim,
        });
    }
    Ok(seeds)
}

/// What distinguishes one structured run from another for seed selection
/// (`sim_structured`'s generator, or with `edges` the block-edge one's).
/// A `sizes` input's shape and order of magnitude; seeds up to 1,023
/// micro-ops only, so that replaying the seeds stays quick (the fuzzer
/// reaches the large sizes from them by one byte).
fn sizes_signature(bytes: &[u8]) -> Option<(usize, String)> {
    let mut u = Unstructured::new(bytes);
    let (shape, case) = sizes_case(&mut u).ok()?;
    let ops = (case.upload.len() - 64) / 16;
    let bits = usize::BITS - ops.leading_zeros();
    (bits <= 10).then(|| (bytes.len() - u.len(), format!("{shape} {bits}")))
}

fn sim_signature(bytes: &[u8], edges: bool) -> Option<(usize, String)> {
    let mut u = Unstructured::new(bytes);
    let case = if edges {
        edges_case(&mut u).ok()?
    } else {
        generate::case(&mut u).ok()?;
        structured_case(bytes)?
    };
    let used = bytes.len() - u.len();
    let r = kmst_reference::simulate(&case.upload, &case.params);
    let kinds: BTreeSet<u8> = r.events.iter().map(|e| e.kind).collect();
    let mut sig = format!(
        "{:?} {:?} cmds>0:{} queued:{} stopped:{} kinds:{kinds:?} cancel:{}",
        r.status,
        r.error.map(|e| e.reason.number()),
        !r.commands.is_empty(),
        r.commands.iter().any(|c| c.queued),
        r.stopped,
        case.params.cancel_pass.is_some()
    );
    if edges {
        sig += &format!(" budget:{}", case.params.turn_budget);
    }
    Some((used, sig))
}

fn scenario_signature(bytes: &[u8]) -> Option<(usize, String)> {
    let mut u = Unstructured::new(bytes);
    arbitrary_scenario(&mut u).ok()?;
    let used = bytes.len() - u.len();
    let scenario = scenario_of(bytes)?;
    let r = kmst_reference::simulate_scenario(&scenario);
    let kinds: BTreeSet<u8> = r.events.iter().map(|e| e.kind).collect();
    let outcomes: BTreeSet<String> = r.host.iter().map(|h| format!("{:?}", h.outcome)).collect();
    let sig = format!(
        "streams:{} owners:{} stopped:{} kinds:{kinds:?} outcomes:{outcomes:?}",
        r.streams.len().min(3),
        r.commands
            .iter()
            .filter_map(|c| c.stream)
            .collect::<BTreeSet<_>>()
            .len()
            .min(3),
        r.stopped
    );
    Some((used, sig))
}

/// A `resume` input's: one stream or a scenario, how many cuts, and the
/// inner input's own signature.
fn resume_signature(bytes: &[u8]) -> Option<(usize, String)> {
    use crate::fuzzing::targets::resume::PREFIX;
    let (prefix, rest) = (bytes.get(..PREFIX)?, bytes.get(PREFIX..)?);
    let (used, inner) = if prefix[0] & 1 == 0 {
        sim_signature(rest, false)?
    } else {
        scenario_signature(rest)?
    };
    let sig = format!("{}:{}:{inner}", prefix[0] & 1, prefix[0] >> 1 & 3);
    Some((PREFIX + used, sig))
}

fn builder_signature(bytes: &[u8]) -> Option<(usize, String)> {
    let mut u = Unstructured::new(bytes);
    let script = Script::arbitrary(&mut u).ok()?;
    let used = bytes.len() - u.len();
    let name = |e: &kmst::builder::BuildError| variant_name(&format!("{e:?}"));
    let sig = match script.run() {
        Err(e) => format!("new: {}", name(&e)),
        Ok(p) => {
            let refused: BTreeSet<String> = p.refused.iter().map(name).collect();
            match p.upload {
                Err(e) => format!("upload: {} refused {refused:?}", name(&e)),
                Ok(up) => format!(
                    "ok templates>0:{} refused {refused:?}",
                    !up.templates.is_empty()
                ),
            }
        }
    };
    Some((used, sig))
}

fn variant_name(debug: &str) -> String {
    debug
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("")
        .to_owned()
}

/// Up to `per_target` pseudo-random seeds for each structured target, one
/// per distinct outcome among the first `tries` byte strings.
pub fn structured_seeds(tries: u64, per_target: usize) -> Vec<Seed> {
    let mut seeds = Vec::new();
    for (target, len) in [
        (Target::SimStructured, 1024),
        (Target::Builder, 600),
        (Target::Scenario, 2048),
        (Target::SimEdges, 1024),
        (Target::Sizes, 64),
        (Target::Resume, 2048),
    ] {
        let mut seen = BTreeSet::new();
        for s in 0..tries {
            if seen.len() >= per_target {
                break;
            }
            let bytes = random_bytes(s ^ 0x5EED, len);
            let sig = match target {
                Target::SimStructured => sim_signature(&bytes, false),
                Target::SimEdges => sim_signature(&bytes, true),
                Target::Sizes => sizes_signature(&bytes),
                Target::Scenario => scenario_signature(&bytes),
                Target::Resume => resume_signature(&bytes),
                _ => builder_signature(&bytes),
            };
            if let Some((used, sig)) = sig
                && seen.insert(sig)
            {
                seeds.push(Seed {
                    target,
                    name: format!("random{s:05}"),
                    bytes: bytes[..used].to_vec(),
                });
            }
        }
    }
    seeds
}

/// Every seed: the corpus-derived ones and the structured ones.
pub fn all_seeds(corpus_dir: &Path) -> Result<Vec<Seed>, SeedError> {
    let mut seeds = corpus_seeds(corpus_dir)?;
    seeds.extend(structured_seeds(4000, 96));
    Ok(seeds)
}

/// Writes `seeds` into `out/TARGET/NAME` (making the directories).
pub fn write_seeds(out: &Path, seeds: &[Seed]) -> Result<usize, SeedError> {
    for s in seeds {
        let dir = out.join(s.target.name());
        std::fs::create_dir_all(&dir).map_err(|e| SeedError(format!("{}: {e}", dir.display())))?;
        let path = dir.join(&s.name);
        std::fs::write(&path, &s.bytes)
            .map_err(|e| SeedError(format!("{}: {e}", path.display())))?;
    }
    Ok(seeds.len())
}

/// The libFuzzer dictionary `fuzz/kmst.dict`: the header's magic and
/// version, every opcode (from [`kmst::for_each_op!`], as the first four
/// bytes of a micro-op reading r1, r2, r3), and the values the check and the
/// kernel compare with (S1..S6, S25), and the u64 edges of `check_run`'s
/// arguments.
pub fn dictionary() -> String {
    use kmst::format::{MAGIC, VERSION};
    use std::fmt::Write as _;
    let hex = |bytes: &[u8]| {
        bytes
            .iter()
            .map(|b| format!("\\x{b:02x}"))
            .collect::<String>()
    };
    let mut d = String::from(
        "# libFuzzer dictionary for the kmst fuzz targets (written by `kmst fuzz-seeds`).\n",
    );
    let mut head = MAGIC.to_le_bytes().to_vec();
    head.extend_from_slice(&VERSION.to_le_bytes());
    let _ = writeln!(d, "magic=\"{}\"", hex(&MAGIC.to_le_bytes()));
    let _ = writeln!(d, "magic_version=\"{}\"", hex(&head));
    for &op in kmst::ops::Opcode::ALL {
        let _ = writeln!(d, "op_{}=\"{}\"", op.mnemonic(), hex(&[op as u8, 1, 2, 3]));
    }
    let words: [(&str, u32); 14] = [
        ("u32_one", 1),
        ("u32_15", 15),
        ("u32_16", 16),
        ("u32_64", 64),
        ("u32_119_cores", 119),
        ("u32_1024_overtakes", 1024),
        ("u32_65535", 65_535),
        ("u32_65536", 65_536),
        ("u32_region_1mib", 1 << 20),
        ("u32_max", u32::MAX),
        ("u32_top_bit", 1 << 31),
        ("u32_deadline_default", 1_000_000),
        ("u32_200000_us", 200_000),
        ("u32_100000_steps", 100_000),
    ];
    for (name, w) in words {
        let _ = writeln!(d, "{name}=\"{}\"", hex(&w.to_le_bytes()));
    }
    let bytes: [(&str, &[u8]); 12] = [
        // S6's u64 arguments at 2^64: the largest value and the last multiple of 64.
        ("u64_max", &[0xFF; 8]),
        (
            "u64_last_line",
            &[0xC0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        ),
        ("no_register", &[0xFF]),
        ("group_registers_none", &[0xFF, 0xFF]),
        ("handler_239", &[239]),
        ("handler_240", &[240]),
        ("flags_exclusive", &[0x02]),
        ("flags_result", &[0x04]),
        ("flags_both", &[0x06]),
        ("flags_queue", &[0x01]),
        ("u16_119", &[119, 0]),
        ("u16_max", &[0xFF, 0xFF]),
    ];
    for (name, b) in bytes {
        let _ = writeln!(d, "{name}=\"{}\"", hex(b));
    }
    d
}
