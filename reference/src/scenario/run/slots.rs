//! The whole kernel's side of [`crate::grid`]: the answer's commands, each
//! with its source, and S31's deadline; and the test of a group.

use super::Kernel;
use crate::grid::{Grid, Submitter};
use crate::params::Params;
use crate::result::SubmittedCommand;
use crate::scenario::answer::ScenarioCommand;

impl Submitter for Kernel<'_> {
    fn grid(&mut self) -> &mut Grid {
        &mut self.grid
    }

    fn params(&self) -> &Params {
        self.params
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
}

/// A group is outside the grid when `count == 0 || first > core_count ||
/// count > core_count - first` (no sum is formed).
pub(super) fn outside_grid(first: u32, count: u32, core_count: u32) -> bool {
    count == 0 || first > core_count || count > core_count - first
}
