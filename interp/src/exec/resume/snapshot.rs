//! The snapshot's bytes (docs/pause.md, "The snapshot format"): a
//! header, the parameters, the upload or scenario (or its checksum), the
//! machine's parts and a checksum of all of it. Every field is written
//! by one function here and read back by its pair beside it.

use super::bytes::{Reader, Writer, checksum};
use super::error::SnapshotError;
use crate::exec::kernel::{self, Job, Life, Slot, Stream, StreamEnd, StreamMeta, Waiting};
use crate::exec::machine::Parts;
use crate::types::{
    Delay, Event, HostCommand, HostOutcome, Outcome, Params, Reason, ResultModel, Scenario,
    StreamError, SubmittedCommand,
};

/// The first eight bytes of every snapshot.
pub(super) const MAGIC: &[u8; 8] = b"KMSTSNAP";
/// The format this build writes and reads.
pub const VERSION: u32 = 1;
/// Magic, version, and the checksum at the end.
const FRAME: usize = 8 + 4 + 8;

/// What a run is of: one upload, or a kernel scenario.
#[derive(Clone, Debug)]
pub(super) enum Input {
    Stream(Vec<u8>),
    Scenario(Scenario),
}

/// A snapshot read back, before it is put into a machine.
pub(super) struct Read {
    pub params: Params,
    /// True for a scenario's snapshot.
    pub scenario: bool,
    /// The upload or scenario, when the snapshot carries it.
    pub input: Option<Input>,
    /// The checksum of the input's bytes.
    pub digest: u64,
    pub parts: Parts,
}

/// The bytes of a snapshot of `parts`, a run of `input` with `params`.
pub(super) fn write(
    params: &Params,
    input: &Input,
    parts: &Parts,
    carry: bool,
) -> Result<Vec<u8>, SnapshotError> {
    let mut w = Writer::default();
    w.out.extend_from_slice(MAGIC);
    w.u32(VERSION);
    w.bool(matches!(input, Input::Scenario(_)));
    write_params(&mut w, params)?;
    let input_bytes = input_bytes(input);
    w.bool(carry);
    if carry {
        w.bytes(&input_bytes);
    } else {
        w.u64(checksum(&input_bytes));
    }
    write_parts(&mut w, parts);
    let sum = checksum(&w.out);
    w.u64(sum);
    Ok(w.out)
}

/// Reads a snapshot's frame, then its fields.
pub(super) fn read(bytes: &[u8]) -> Result<Read, SnapshotError> {
    let magic_len = bytes.len().min(MAGIC.len());
    if bytes[..magic_len] != MAGIC[..magic_len] {
        return Err(SnapshotError::NotASnapshot);
    }
    if bytes.len() < FRAME {
        return Err(SnapshotError::Truncated);
    }
    let mut r = Reader { rest: &bytes[8..] };
    let found = r.u32()?;
    if found != VERSION {
        return Err(SnapshotError::Version {
            found,
            reads: VERSION,
        });
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if checksum(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return Err(SnapshotError::Checksum);
    }
    let mut r = Reader { rest: &body[12..] };
    let scenario = r.bool("the kind")?;
    let params = read_params(&mut r)?;
    let (input, digest) = if r.bool("carries its input")? {
        let input_bytes = r.bytes()?;
        let input = read_input(&mut Reader { rest: input_bytes }, scenario, &params)?;
        (Some(input), checksum(input_bytes))
    } else {
        (None, r.u64()?)
    };
    let parts = read_parts(&mut r)?;
    if !r.rest.is_empty() {
        return Err(SnapshotError::invalid(format!(
            "{} bytes after the last field",
            r.rest.len()
        )));
    }
    Ok(Read {
        params,
        scenario,
        input,
        digest,
        parts,
    })
}

/// The bytes of an upload or a scenario (without its parameters), as a
/// snapshot carries it and as its checksum is taken.
pub(super) fn input_bytes(input: &Input) -> Vec<u8> {
    let mut w = Writer::default();
    match input {
        Input::Stream(upload) => w.out.extend_from_slice(upload),
        Input::Scenario(s) => {
            w.len(s.uploads().len());
            for u in s.uploads() {
                w.u64(u.offset);
                w.bytes(&u.bytes);
            }
            w.len(s.host().len());
            for h in s.host() {
                w.u64(h.pass);
                write_command(&mut w, &h.command);
            }
        }
    }
    w.out
}

fn read_input(r: &mut Reader, scenario: bool, params: &Params) -> Result<Input, SnapshotError> {
    if !scenario {
        return Ok(Input::Stream(r.rest.to_vec()));
    }
    let bad = |e: crate::types::ScenarioError| SnapshotError::invalid(format!("the scenario: {e}"));
    let mut s = Scenario::new(params.clone()).map_err(bad)?;
    for _ in 0..r.len(12)? {
        let offset = r.u64()?;
        let bytes = r.bytes()?.to_vec();
        s.place(offset, bytes).map_err(bad)?;
    }
    for _ in 0..r.len(13)? {
        let pass = r.u64()?;
        let command = read_command(r)?;
        s.push(pass, command).map_err(bad)?;
    }
    if !r.rest.is_empty() {
        return Err(SnapshotError::invalid("bytes after the scenario"));
    }
    Ok(Input::Scenario(s))
}

fn write_command(w: &mut Writer, c: &HostCommand) {
    let args = |w: &mut Writer, args: &[u32; 10]| args.iter().for_each(|&a| w.u32(a));
    match *c {
        HostCommand::Run { offset, length } => {
            w.u8(0);
            w.u32(offset);
            w.u32(length);
        }
        HostCommand::Cancel { req } => {
            w.u8(1);
            w.u32(req);
        }
        HostCommand::Deadline { us } => {
            w.u8(2);
            w.u32(us);
        }
        HostCommand::Submit {
            handler,
            first,
            count,
            args: a,
            exclusive,
            result,
        } => {
            w.u8(3);
            w.u32(handler);
            w.u32(first);
            w.u32(count);
            args(w, &a);
            w.bool(exclusive);
            w.bool(result);
        }
        HostCommand::Enqueue {
            handler,
            count,
            args: a,
            exclusive,
            result,
        } => {
            w.u8(4);
            w.u32(handler);
            w.u32(count);
            args(w, &a);
            w.bool(exclusive);
            w.bool(result);
        }
    }
}

fn read_args(r: &mut Reader) -> Result<[u32; 10], SnapshotError> {
    let mut a = [0; 10];
    for v in &mut a {
        *v = r.u32()?;
    }
    Ok(a)
}

fn read_command(r: &mut Reader) -> Result<HostCommand, SnapshotError> {
    Ok(match r.u8()? {
        0 => HostCommand::Run {
            offset: r.u32()?,
            length: r.u32()?,
        },
        1 => HostCommand::Cancel { req: r.u32()? },
        2 => HostCommand::Deadline { us: r.u32()? },
        3 => HostCommand::Submit {
            handler: r.u32()?,
            first: r.u32()?,
            count: r.u32()?,
            args: read_args(r)?,
            exclusive: r.bool("exclusive")?,
            result: r.bool("result")?,
        },
        4 => HostCommand::Enqueue {
            handler: r.u32()?,
            count: r.u32()?,
            args: read_args(r)?,
            exclusive: r.bool("exclusive")?,
            result: r.bool("result")?,
        },
        t => return Err(SnapshotError::invalid(format!("host command kind {t}"))),
    })
}

fn write_params(w: &mut Writer, p: &Params) -> Result<(), SnapshotError> {
    match &p.delay {
        Delay::Fixed(d) => {
            w.u8(0);
            w.u32(*d);
        }
        Delay::Never => w.u8(1),
        Delay::Cycle { base, modulo } => {
            w.u8(2);
            w.u32(*base);
            w.u32(*modulo);
        }
        Delay::Table(t) => {
            w.u8(3);
            w.len(t.len());
            t.iter().for_each(|&e| w.opt_u32(e));
        }
        Delay::Custom(_) => return Err(SnapshotError::Custom { model: "delay" }),
    }
    match &p.result {
        ResultModel::Zero => w.u8(0),
        ResultModel::Sequence => w.u8(1),
        ResultModel::Arg(k) => {
            w.u8(2);
            w.u8(*k);
        }
        ResultModel::Table(t) => {
            w.u8(3);
            w.len(t.len());
            t.iter().for_each(|&e| w.u32(e));
        }
        ResultModel::Custom(_) => return Err(SnapshotError::Custom { model: "result" }),
    }
    w.opt_u64(p.deadline_passes);
    w.u64(p.default_deadline_passes);
    w.opt_u64(p.cancel_pass);
    w.u32(p.core_count);
    w.u32(p.ticks_per_pass);
    w.u64(p.max_passes);
    w.u64(p.region_size);
    w.u32(p.turn_budget);
    Ok(())
}

fn read_params(r: &mut Reader) -> Result<Params, SnapshotError> {
    let delay = match r.u8()? {
        0 => Delay::Fixed(r.u32()?),
        1 => Delay::Never,
        2 => Delay::Cycle {
            base: r.u32()?,
            modulo: r.u32()?,
        },
        3 => {
            let n = r.len(5)?;
            Delay::Table(
                (0..n)
                    .map(|_| r.opt_u32("a delay"))
                    .collect::<Result<_, _>>()?,
            )
        }
        t => return Err(SnapshotError::invalid(format!("delay model {t}"))),
    };
    let result = match r.u8()? {
        0 => ResultModel::Zero,
        1 => ResultModel::Sequence,
        2 => ResultModel::Arg(r.u8()?),
        3 => {
            let n = r.len(4)?;
            ResultModel::Table((0..n).map(|_| r.u32()).collect::<Result<_, _>>()?)
        }
        t => return Err(SnapshotError::invalid(format!("result model {t}"))),
    };
    Ok(Params {
        delay,
        result,
        deadline_passes: r.opt_u64("deadline_passes")?,
        default_deadline_passes: r.u64()?,
        cancel_pass: r.opt_u64("cancel_pass")?,
        core_count: r.u32()?,
        ticks_per_pass: r.u32()?,
        max_passes: r.u64()?,
        region_size: r.u64()?,
        turn_budget: r.u32()?,
    })
}

fn write_record(w: &mut Writer, c: &SubmittedCommand) {
    w.u64(c.sequence);
    w.u8(c.slot);
    w.u8(c.handler);
    w.u32(c.first);
    w.u32(c.count);
    w.u8(c.flags);
    c.args.iter().for_each(|&a| w.u32(a));
    w.u64(c.pass_index);
    w.u32(c.pc);
    w.bool(c.queued);
}

/// The bytes of one record.
const RECORD: usize = 72;

fn read_record(r: &mut Reader) -> Result<SubmittedCommand, SnapshotError> {
    Ok(SubmittedCommand {
        sequence: r.u64()?,
        slot: r.u8()?,
        handler: r.u8()?,
        first: r.u32()?,
        count: r.u32()?,
        flags: r.u8()?,
        args: read_args(r)?,
        pass_index: r.u64()?,
        pc: r.u32()?,
        queued: r.bool("queued")?,
    })
}

fn write_error(w: &mut Writer, e: Option<StreamError>) {
    w.bool(e.is_some());
    w.u8(e.map_or(0, |e| e.reason.number()));
    w.u32(e.map_or(0, |e| e.pc));
}

fn read_error(r: &mut Reader) -> Result<Option<StreamError>, SnapshotError> {
    let some = r.bool("an error")?;
    let (n, pc) = (r.u8()?, r.u32()?);
    if !some {
        return Ok(None);
    }
    let reason =
        Reason::from_u8(n).ok_or_else(|| SnapshotError::invalid(format!("error reason {n}")))?;
    Ok(Some(StreamError { reason, pc }))
}

fn write_parts(w: &mut Writer, p: &Parts) {
    w.opt_u64(p.resume_at);
    w.u64(p.pass);
    let k = &p.kernel;
    w.u64(k.job_ids);
    w.u64(k.default_deadline);
    w.bool(k.stopped);
    w.u64(k.delay_at);
    w.len(k.slots.len());
    for &(i, s) in &k.slots {
        w.u8(i);
        w.u64(s.ack);
        w.u64(s.deadline);
        w.u32(s.first);
        w.u32(s.count);
        w.u32(s.result);
        w.u16(s.owner);
        w.u64(s.seq);
    }
    w.len(k.jobs.len());
    for (j, overtaken) in &k.jobs {
        write_record(w, &j.cmd);
        w.u64(j.id);
        w.opt_u64(j.deadline);
        w.u16(j.owner);
        w.u64(*overtaken);
    }
    w.len(p.streams.len());
    for s in &p.streams {
        let (m, e) = (&s.meta, &s.end);
        w.u16(m.program);
        w.u32(e.offset);
        w.u32(e.length);
        w.u64(e.pass);
        w.u8(match m.life {
            Life::Active => 0,
            Life::Ended => 1,
            Life::Failed => 2,
        });
        w.u32(m.pc);
        w.u32(m.steps);
        w.u32(m.latest_result);
        w.opt_u64(m.exclusive_mark);
        s.regs.iter().for_each(|&v| w.u32(v));
        write_error(w, e.error);
        w.opt_u32(e.halt);
    }
    w.u32(p.host_next as u32);
    w.opt_u64(p.host_mark);
    w.len(p.outcomes.len());
    for o in &p.outcomes {
        w.opt_u64(o.pass);
        match o.outcome {
            Outcome::Taken => w.u16(0),
            Outcome::Rejected(reason) => w.u16(0x100 | u16::from(reason.number())),
            Outcome::Waiting => w.u16(2),
        }
        w.opt_u64(o.stream.map(|s| s as u64));
    }
    w.len(p.commands.len());
    p.commands.iter().for_each(|c| write_record(w, c));
    w.len(p.owners.len());
    p.owners.iter().for_each(|&o| w.u16(o));
    w.len(p.events.len());
    for e in &p.events {
        w.u8(e.kind);
        w.u32(e.req);
        w.u32(e.auxiliary);
        w.u64(e.pass_index);
    }
}

fn read_parts(r: &mut Reader) -> Result<Parts, SnapshotError> {
    let resume_at = r.opt_u64("the pass it goes on from")?;
    let pass = r.u64()?;
    let job_ids = r.u64()?;
    let default_deadline = r.u64()?;
    let stopped = r.bool("stopped")?;
    let delay_at = r.u64()?;
    let slots = (0..r.len(39)?)
        .map(|_| {
            let i = r.u8()?;
            let slot = Slot {
                ack: r.u64()?,
                deadline: r.u64()?,
                first: r.u32()?,
                count: r.u32()?,
                result: r.u32()?,
                owner: r.u16()?,
                seq: r.u64()?,
            };
            Ok((i, slot))
        })
        .collect::<Result<_, SnapshotError>>()?;
    let jobs = (0..r.len(RECORD + 27)?)
        .map(|_| {
            let cmd = read_record(r)?;
            let job = Job {
                cmd,
                id: r.u64()?,
                deadline: r.opt_u64("a job's deadline")?,
                owner: r.u16()?,
            };
            Ok((job, r.u64()?))
        })
        .collect::<Result<_, SnapshotError>>()?;
    let streams = (0..r.len(110)?)
        .map(|_| read_stream(r))
        .collect::<Result<_, _>>()?;
    let host_next = r.u32()? as usize;
    let host_mark = r.opt_u64("the host's mark")?;
    let outcomes = (0..r.len(12)?)
        .map(|_| {
            let pass = r.opt_u64("a host command's pass")?;
            let outcome = match r.u16()? {
                0 => Outcome::Taken,
                2 => Outcome::Waiting,
                n if n >> 8 == 1 => Outcome::Rejected(
                    Reason::from_u8(n as u8)
                        .ok_or_else(|| SnapshotError::invalid(format!("reason {}", n as u8)))?,
                ),
                n => return Err(SnapshotError::invalid(format!("host outcome {n}"))),
            };
            let stream = r.opt_u64("a host command's stream")?;
            let stream = stream.map(|s| usize::try_from(s).unwrap_or(usize::MAX));
            Ok(HostOutcome {
                pass,
                outcome,
                stream,
            })
        })
        .collect::<Result<_, SnapshotError>>()?;
    let commands = (0..r.len(RECORD)?)
        .map(|_| read_record(r))
        .collect::<Result<_, _>>()?;
    let owners = (0..r.len(2)?).map(|_| r.u16()).collect::<Result<_, _>>()?;
    let events = (0..r.len(17)?)
        .map(|_| {
            Ok(Event {
                kind: r.u8()?,
                req: r.u32()?,
                auxiliary: r.u32()?,
                pass_index: r.u64()?,
            })
        })
        .collect::<Result<_, SnapshotError>>()?;
    Ok(Parts {
        resume_at,
        pass,
        kernel: kernel::Restore {
            slots,
            jobs,
            delay_at,
            job_ids,
            default_deadline,
            stopped,
        },
        streams,
        host_next,
        host_mark,
        outcomes,
        commands,
        owners,
        events,
    })
}

fn read_stream(r: &mut Reader) -> Result<Stream, SnapshotError> {
    let program = r.u16()?;
    let (offset, length, pass) = (r.u32()?, r.u32()?, r.u64()?);
    let life = match r.u8()? {
        0 => Life::Active,
        1 => Life::Ended,
        2 => Life::Failed,
        n => return Err(SnapshotError::invalid(format!("a stream's standing {n}"))),
    };
    let (pc, steps, latest_result) = (r.u32()?, r.u32()?, r.u32()?);
    let exclusive_mark = r.opt_u64("an exclusive mark")?;
    let mut regs = [0; 16];
    for v in &mut regs {
        *v = r.u32()?;
    }
    let error = read_error(r)?;
    let halt = r.opt_u32("a halt value")?;
    Ok(Stream {
        meta: StreamMeta {
            pc,
            steps,
            max_steps: 0,
            pending: 0,
            latest_result,
            req: 0,
            deadline: None,
            life,
            index: 0,
            program,
            exclusive_mark,
            waiting: Waiting::No,
        },
        regs,
        end: StreamEnd {
            offset,
            length,
            pass,
            error,
            halt,
        },
    })
}
