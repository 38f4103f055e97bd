//! Errors that name what is wrong and the byte offset where it applies.

use std::fmt;

/// What went wrong while reading a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "DecodeErrorKind"))]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The bytes are not a pickle, gzip or JSON snapshot at all.
    NotASnapshot,
    /// The input ended inside an opcode or before STOP.
    Truncated,
    /// An opcode that would build arbitrary Python objects (GLOBAL, REDUCE...):
    /// refused, never executed.
    RefusedOpcode,
    /// A byte that is no pickle opcode, or one this reader does not support.
    UnknownOpcode,
    /// Structurally broken pickle: stack underflow, missing MARK, bad memo
    /// reference, wrong operand types.
    Malformed,
    /// A value this viewer will not hold (integer of 100 bytes, a length
    /// claiming more than the input has).
    TooLarge,
    /// Valid pickle/JSON, but not shaped like a memory snapshot.
    NotSnapshotShaped,
    /// gzip stream is corrupt.
    Gzip,
    /// JSON syntax error.
    Json,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    /// Byte offset in the (decompressed) input where the problem applies.
    pub offset: Option<u64>,
    pub message: String,
}

impl Error {
    pub fn new(kind: ErrorKind, offset: Option<u64>, message: impl Into<String>) -> Self {
        Error { kind, offset, message: message.into() }
    }
    pub fn at(kind: ErrorKind, offset: u64, message: impl Into<String>) -> Self {
        Error::new(kind, Some(offset), message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "{} at byte offset {}", self.message, o),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
