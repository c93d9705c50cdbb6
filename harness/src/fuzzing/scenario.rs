//! Generated kernel scenarios (S26..S36): several uploads placed in a small
//! region, 1..6 RUNs at passes of their own (some of them rejected: a fifth
//! stream, a misaligned or out-of-region range, a range over another upload,
//! raw bytes the check refuses), and the host's other commands (CANCEL of a
//! running or unknown req, DEADLINE, plain and queued commands, some of them
//! rejected). Valid uploads come from the stream generators of
//! [`super::generate`], so the streams submit, enqueue, wait and compete for
//! slots.

use arbitrary::{Result, Unstructured};

use kmst_reference::{Delay, HostCommand, Params, Scenario};

use super::generate::{arbitrary_job_loop, arbitrary_params, arbitrary_upload, seed_bytes};

/// The bytes of one placed upload: mostly valid streams, sometimes bytes the
/// check rejects.
fn placed_upload(u: &mut Unstructured, core_count: u32, req: u32) -> Result<Vec<u8>> {
    let mut upload = if u.ratio(1, 3)? {
        arbitrary_job_loop(u, core_count)?
    } else {
        arbitrary_upload(u, 16, core_count)?
    };
    // Distinct reqs mostly, so CANCEL and the active-req test both matter.
    upload.header.req = if u.ratio(1, 6)? { 1 } else { req };
    let mut bytes = upload.encode();
    if u.ratio(1, 10)? {
        let at = u.choose_index(bytes.len())?;
        bytes[at] = u.arbitrary()?;
    }
    Ok(bytes)
}

/// Ten arguments, the first few chosen.
fn host_args(u: &mut Unstructured) -> Result<[u32; 10]> {
    let mut args = [0u32; 10];
    for a in args.iter_mut().take(u.int_in_range(0..=3)?) {
        *a = u.int_in_range(0..=1000)?;
    }
    Ok(args)
}

/// One generated scenario.
pub fn arbitrary_scenario(u: &mut Unstructured) -> Result<Scenario> {
    let mut params: Params = arbitrary_params(u)?;
    params.cancel_pass = None;
    params.core_count = *u.choose(&[1u32, 4, 8, 16, 119])?;
    // One in eight: delays around the ack wheel's 64 passes, so that acks
    // land on both sides of it (S12; the kernel keeps acks 64 or more
    // passes ahead apart from the wheel).
    if u.ratio(1, 8)? {
        let base = u.int_in_range(58u32..=66)?;
        params.delay = Delay::Cycle {
            base,
            modulo: u.int_in_range(1u32..=6)?,
        };
    }
    params.region_size = 64 * u64::from(u.int_in_range(64u32..=512)?);
    let mut scenario =
        Scenario::new(params.clone()).map_err(|_| arbitrary::Error::IncorrectFormat)?;
    // Uploads one after the other, 64-aligned, with gaps; each RUN names one.
    let mut placed: Vec<(u64, u64, u32)> = Vec::new();
    let mut at = 0u64;
    for k in 0..u.int_in_range(1..=4)? {
        at += 64 * u64::from(u.int_in_range(0u32..=2)?);
        let bytes = placed_upload(u, params.core_count, 10 + k)?;
        let len = bytes.len() as u64;
        if at + len > params.region_size {
            break;
        }
        let req = if bytes.len() >= 28 {
            u32::from_le_bytes([bytes[24], bytes[25], bytes[26], bytes[27]])
        } else {
            0
        };
        if scenario.place(at, bytes).is_err() {
            break;
        }
        placed.push((at, len, req));
        at += len.div_ceil(64) * 64;
    }
    let mut pass = 0u64;
    let mut runs = 0;
    // Most scenarios start two or more streams at once, to compete.
    for &(offset, length, _) in placed.iter().take(u.int_in_range(0..=3)?) {
        let run = HostCommand::Run {
            offset: offset as u32,
            length: length as u32,
        };
        if scenario.push(0, run).is_ok() {
            runs += 1;
        }
    }
    for _ in 0..u.int_in_range(1..=10)? {
        if u.ratio(1, 3)? {
            pass += u64::from(u.int_in_range(0u32..=12)?);
        }
        let command = match u.int_in_range(0..=9)? {
            0..=3 if runs < 6 => {
                runs += 1;
                let &(offset, length, _) = u.choose(&placed).unwrap_or(&(0, 64, 0));
                match u.int_in_range(0..=9)? {
                    // A misaligned, an out-of-region or a shifted range.
                    0 => HostCommand::Run {
                        offset: (offset + 8) as u32,
                        length: length as u32,
                    },
                    1 => HostCommand::Run {
                        offset: params.region_size as u32,
                        length: 64,
                    },
                    2 => HostCommand::Run {
                        offset: offset as u32,
                        length: (length + 64) as u32,
                    },
                    _ => HostCommand::Run {
                        offset: offset as u32,
                        length: length as u32,
                    },
                }
            }
            4 => {
                let req = if u.ratio(3, 4)? {
                    u.choose(&placed).map_or(0, |p| p.2)
                } else {
                    u.int_in_range(0..=20)?
                };
                HostCommand::Cancel { req }
            }
            5 => HostCommand::Deadline {
                us: u.int_in_range(0..=40)?,
            },
            6 | 7 => HostCommand::Submit {
                handler: *u.choose(&[0u32, 1, 7, 239, 240])?,
                // One in eight starts at the grid's end or past it (S32:
                // `Reason::BadGroup`), up to u32::MAX.
                first: if u.ratio(1, 8)? {
                    let c = params.core_count;
                    *u.choose(&[c, c + 1, c + 7, u32::MAX])?
                } else {
                    u.int_in_range(0..=params.core_count)?
                },
                count: u.int_in_range(0..=params.core_count.min(8))?,
                args: host_args(u)?,
                exclusive: u.ratio(1, 3)?,
                result: u.ratio(1, 3)?,
            },
            _ => HostCommand::Enqueue {
                handler: *u.choose(&[0u32, 2, 9, 239, 240])?,
                count: u.int_in_range(0..=params.core_count + 1)?,
                args: host_args(u)?,
                exclusive: u.ratio(1, 4)?,
                result: u.ratio(1, 3)?,
            },
        };
        if scenario.push(pass, command).is_err() {
            break;
        }
    }
    Ok(scenario)
}

/// [`arbitrary_scenario`] for a seed (for seeded tests without a fuzzer).
pub fn scenario_from_seed(seed: u64) -> Scenario {
    let bytes = seed_bytes(seed);
    arbitrary_scenario(&mut Unstructured::new(&bytes)).unwrap_or_else(|_| {
        Scenario::new(Params::default()).expect("the default parameters make a scenario")
    })
}
