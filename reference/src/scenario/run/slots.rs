//! The whole kernel's side of [`crate::grid`]: the answer's commands, each
//! with its source, and S31's deadline; and the test of a group.

use super::Kernel;
use crate::grid::{Grid, Submitter};
use crate::ops::Running;
use crate::result::SubmittedCommand;
use crate::scenario::answer::ScenarioCommand;

impl<'p> Submitter<'p> for Kernel<'p> {
    fn grid(&mut self) -> &mut Grid<'p> {
        &mut self.grid
    }

    fn recorded(&self) -> usize {
        self.commands.len()
    }

    /// S31: deadline_passes; else the stream header's when not 0; else the
    /// default in force now.
    fn deadline(&self, owner: Option<usize>) -> u64 {
        let header = owner.map_or(0, |s| self.streams[s].program.deadline_microseconds);
        match self.params.deadline_passes {
            Some(d) => d,
            None if header != 0 => u64::from(header),
            None => self.default_deadline,
        }
    }

    fn record(&mut self, command: SubmittedCommand, owner: Option<usize>) {
        self.commands.push(ScenarioCommand {
            command,
            stream: owner,
        });
    }

    fn running(&mut self, s: usize) -> &mut Running {
        &mut self.streams[s].run
    }
}
