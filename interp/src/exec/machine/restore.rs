//! A machine's state taken apart for a snapshot and put back
//! (docs/pause.md): what the passes read and write between two passes.
//! The programs, the host's list and each stream's header fields come
//! from the upload or the scenario again; the rest is checked field by
//! field as it goes back, so that no snapshot makes a run read out of
//! range.

use super::Machine;
use crate::exec::kernel::{self, HOST, Life, MAX_STREAMS, Stream};
use crate::types::{Event, HostOutcome, SubmittedCommand};

/// What [`Machine::restore`] puts back.
#[derive(Clone, Debug)]
pub(crate) struct Parts {
    /// The pass the run goes on from, `None` once it is over.
    pub resume_at: Option<u64>,
    /// The kernel's pass: `resume_at`, or where the run ended.
    pub pass: u64,
    pub kernel: kernel::Restore,
    /// The streams in start order. Read back: the program, the place, the
    /// start pass, how it stands, pc, steps, latest result, exclusive
    /// mark, registers and end; the rest comes from the header again.
    pub streams: Vec<Stream>,
    /// The first host command neither taken nor rejected (S26).
    pub host_next: usize,
    /// The job id of the waiting host submit's first try (S32).
    pub host_mark: Option<u64>,
    /// The outcomes of the host commands before `host_next`.
    pub outcomes: Vec<HostOutcome>,
    pub commands: Vec<SubmittedCommand>,
    /// Each command's owner (a scenario's; empty for one stream).
    pub owners: Vec<u16>,
    pub events: Vec<Event>,
}

impl Machine {
    /// What [`Machine::restore`] puts back.
    pub(crate) fn parts(&self) -> Parts {
        let k = &self.kernel;
        Parts {
            resume_at: self.resume_at(),
            pass: k.pass,
            kernel: k.parts(),
            streams: self.streams.clone(),
            host_next: self.host.next,
            host_mark: self.host.mark,
            outcomes: self.host.outcomes[..self.host.next].to_vec(),
            commands: k.commands.clone(),
            owners: k.owners.clone(),
            events: k.events.clone(),
        }
    }

    /// Puts `parts` back into a machine set up for the same upload or
    /// scenario and parameters ([`Machine::new`], [`Machine::new_scenario`])
    /// that has not run. An error names the first field out of range.
    pub(crate) fn restore(&mut self, parts: Parts) -> Result<(), String> {
        let scenario = self.is_scenario();
        let most = if scenario {
            self.host.run_count()
        } else {
            usize::from(self.runnable)
        };
        if parts.streams.len() > most || (!scenario && parts.streams.len() != most) {
            return Err(format!(
                "{} streams where the run has room for {most}",
                parts.streams.len()
            ));
        }
        match parts.resume_at {
            Some(p) if !self.runnable || p >= self.params.max_passes || p != parts.pass => {
                return Err(format!("a run that goes on from pass {p}"));
            }
            _ => {}
        }
        if scenario && parts.owners.len() != parts.commands.len() {
            return Err(format!(
                "{} owners for {} commands",
                parts.owners.len(),
                parts.commands.len()
            ));
        }
        let n = parts.streams.len();
        if let Some(o) = parts
            .owners
            .iter()
            .find(|&&o| o != HOST && usize::from(o) >= n)
        {
            return Err(format!("a command's owner {o} is no stream"));
        }
        if parts.host_next > self.host.entries.len() || parts.outcomes.len() != parts.host_next {
            return Err(format!(
                "{} host commands done of {}",
                parts.host_next,
                self.host.entries.len()
            ));
        }
        if let Some(s) = parts
            .outcomes
            .iter()
            .find_map(|o| o.stream.filter(|&s| s >= n))
        {
            return Err(format!(
                "a host command started stream {s}, which is not there"
            ));
        }
        self.streams.clear();
        self.n_active = 0;
        for (i, saved) in parts.streams.iter().enumerate() {
            let program = saved.meta.program;
            let Some(code) = self.programs.get(usize::from(program)) else {
                return Err(format!(
                    "stream {i} runs program {program}, which is not there"
                ));
            };
            let op_count = code.insts.len() - 1;
            let (end, meta) = (saved.end, saved.meta);
            // `start` counts it active; the active list is made below.
            self.n_active = 0;
            let at = self.start(program, end.offset, end.length, end.pass);
            let s = &mut self.streams[at];
            if meta.pc as usize > op_count {
                return Err(format!(
                    "stream {i}'s pc {} is past its {op_count} micro-ops",
                    meta.pc
                ));
            }
            if meta.steps > s.meta.max_steps {
                return Err(format!(
                    "stream {i} ran {} steps of {}",
                    meta.steps, s.meta.max_steps
                ));
            }
            s.regs = saved.regs;
            s.meta.pc = meta.pc;
            s.meta.steps = meta.steps;
            s.meta.life = meta.life;
            s.meta.latest_result = meta.latest_result;
            s.meta.exclusive_mark = meta.exclusive_mark;
            s.end.error = end.error;
            s.end.halt = end.halt;
        }
        self.n_active = 0;
        for i in 0..n {
            if self.streams[i].meta.life == Life::Active {
                if self.n_active == MAX_STREAMS {
                    return Err(format!("more than {MAX_STREAMS} streams active"));
                }
                self.active[self.n_active] = i as u16;
                self.n_active += 1;
            }
        }
        self.kernel.commands = parts.commands;
        self.kernel.owners = parts.owners;
        self.kernel.events = parts.events;
        let running = parts.resume_at.is_some();
        self.kernel
            .restore(&parts.kernel, parts.pass, running, &mut self.streams)?;
        self.host.next = parts.host_next;
        self.host.mark = parts.host_mark;
        self.host.outcomes[..parts.host_next].copy_from_slice(&parts.outcomes);
        self.over = parts.resume_at.is_none();
        Ok(())
    }
}
