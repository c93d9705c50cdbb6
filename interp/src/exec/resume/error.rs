//! Why a snapshot could not be taken or restored.

use core::fmt;

/// Why a snapshot could not be taken or restored (docs/pause.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotError {
    /// The bytes end before the snapshot does.
    Truncated,
    /// The bytes do not start as a snapshot does.
    NotASnapshot,
    /// A snapshot of another format version than the one this build reads.
    Version {
        /// The version the bytes say.
        found: u32,
        /// The version this build reads.
        reads: u32,
    },
    /// The checksum does not match: the bytes were changed after writing.
    Checksum,
    /// A field is out of range (named, with its value).
    Invalid(String),
    /// The upload or scenario given is not the one the snapshot was taken of.
    OtherInput,
    /// The snapshot does not carry its upload (or scenario) and none was given.
    NoInput,
    /// A one-stream snapshot given a scenario, or a scenario's given an upload.
    Kind {
        /// What the snapshot is of: "one stream" or "a scenario".
        snapshot: &'static str,
    },
    /// A parameter's completion model is a closure, which cannot be saved.
    Custom {
        /// `delay` or `result`.
        model: &'static str,
    },
}

impl SnapshotError {
    /// A field out of range, named.
    pub(super) fn invalid(what: impl Into<String>) -> SnapshotError {
        SnapshotError::Invalid(what.into())
    }
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::Truncated => write!(f, "the snapshot is truncated"),
            SnapshotError::NotASnapshot => {
                write!(f, "not a kmst snapshot (no KMSTSNAP at its start)")
            }
            SnapshotError::Version { found, reads } => write!(
                f,
                "a snapshot of format version {found}; this build reads version {reads}"
            ),
            SnapshotError::Checksum => {
                write!(
                    f,
                    "the snapshot's checksum does not match: it was changed or cut"
                )
            }
            SnapshotError::Invalid(what) => write!(f, "the snapshot is not valid: {what}"),
            SnapshotError::OtherInput => {
                write!(f, "the snapshot was taken of another upload or scenario")
            }
            SnapshotError::NoInput => write!(
                f,
                "the snapshot does not carry its upload or scenario: give it to restore"
            ),
            SnapshotError::Kind { snapshot } => write!(
                f,
                "the snapshot is of {snapshot}, not what was given to restore it"
            ),
            SnapshotError::Custom { model } => write!(
                f,
                "the {model} model is a closure, which a snapshot cannot save"
            ),
        }
    }
}

impl std::error::Error for SnapshotError {}
