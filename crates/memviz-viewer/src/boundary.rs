//! The page's typed surface (issue 42): what crosses between memviz-wasm
//! and the page's JavaScript. Commands come in as serde values, view models
//! go out as serde values, and a refusal is one [`PageError`] that keeps the
//! core's kind and byte offset. Every type that crosses derives [`TS`]; the
//! page's `www/types.d.ts` is generated from them by [`typescript`] (the test
//! `tests/typescript.rs` fails when the committed file is stale), and the
//! page's modules are type-checked against it (`scripts/check-types.sh`), so
//! a field renamed here breaks the type check, not the page at run time.
//!
//! Strings the user reads are formatted on this side (memviz_core::format);
//! JavaScript only places them.

use serde::Serialize;
use ts_rs::TS;

/// Why a command was refused: the viewer's own kinds, or the core's
/// (a file that does not decode), which cross as the core defines them.
#[derive(Serialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A command that needs an open file, with none open.
    NoFile,
    /// A command the page built wrong (unknown variant, missing field).
    BadCommand,
    /// A what-if setting that PyTorch would refuse.
    Setting,
    /// A capacity that is no size.
    Capacity,
    /// The recording lacks what the command needs (no trace, no OOM).
    Recording,
    /// The file's bytes: `memviz_core::ErrorKind` ("truncated", ...).
    #[serde(untagged)]
    Decode(memviz_core::ErrorKind),
}

/// One refusal, as the page receives it (thrown by the wasm exports).
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct PageError {
    pub kind: ErrorKind,
    /// The whole sentence the page shows, the file's name and offset included.
    pub message: String,
    /// Byte offset in the (decompressed) file where the problem applies.
    #[ts(type = "number | null")]
    pub offset: Option<u64>,
    /// The form field the refusal is about, where one is.
    pub field: Option<String>,
}

impl PageError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> PageError {
        PageError { kind, message: message.into(), offset: None, field: None }
    }

    /// A decode error of the named file: "name: message at byte offset N".
    pub fn decode(file: &str, e: &memviz_core::Error) -> PageError {
        PageError { kind: ErrorKind::Decode(e.kind), message: format!("{file}: {e}"), offset: e.offset, field: None }
    }

    pub fn no_file() -> PageError {
        PageError::new(ErrorKind::NoFile, "no snapshot is open")
    }

    pub fn bad_command(why: impl std::fmt::Display) -> PageError {
        PageError::new(ErrorKind::BadCommand, format!("the page sent a command memviz does not know: {why}"))
    }
}

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The declaration of every type above and of each panel's commands and
/// view models, as `www/types.d.ts` holds them. A type that crosses the
/// boundary is listed here once.
pub fn typescript() -> String {
    macro_rules! decls {
        ($($t:ty),* $(,)?) => {{
            let mut s = String::from(
                "// Generated from memviz-viewer's Rust types (boundary.rs's `typescript`); do not edit.\n\
                 // Regenerate: UPDATE_TYPES=1 cargo test -p memviz-viewer --test typescript\n",
            );
            $( s.push_str("\nexport "); s.push_str(&<$t as TS>::decl()); s.push('\n'); )*
            s
        }};
    }
    use crate::explain::*;
    use crate::files::*;
    use crate::page::*;
    use crate::phases::*;
    use crate::profiler::*;
    use crate::ranks::*;
    use crate::whatif::*;
    decls![
        memviz_core::ErrorKind,
        ErrorKind,
        PageError,
        OpenCommand,
        ReadState,
        OpenReply,
        FileKind,
        FileSniff,
        OpenPlan,
        OpenFailure,
        FailedLine,
        WhatIfFields,
        OomVerdict,
        WhatIfChart,
        WhatIfView,
        MomentArg,
        ColorMode,
        RowsBy,
        RowsSort,
        PanelCommand,
        crate::timings::WorkerTimings,
        crate::timings::OpenTimings,
        crate::timings::RedrawTimings,
        MarkerView,
        MarkerPlace,
        ListItem,
        KindColor,
        OverviewView,
        Piece,
        Fact,
        Row,
        AdviceLine,
        ExplainView,
        FindingView,
        FindingsRoom,
        FindingsView,
        GrowthRow,
        PendingRow,
        LeaksView,
        AtView,
        MomentPanelView,
        TreeView,
        RowsView,
        PanelView,
        PanelDraw,
        PanelDrawn,
        RanksCommand,
        PeakCell,
        RanksReply,
        RankRow,
        RankOverview,
        RankTableRow,
        MomentSpec,
        SideSpec,
        DiffBy,
        DiffPart,
        DiffCommand,
        DiffRow,
        DiffTreeNode,
        DiffView,
        ProfilerZoom,
        ProfilerCommand,
        LegendItem,
        ProfilerTick,
        ProfilerModel,
        AxisName,
        PhasesCommand,
        PhaseBox,
        PhaseLabel,
        AxisTick,
        AxisGap,
        PhasesView,
        crate::view::ViewKind,
        ViewId,
        SearchBy,
        crate::pointer::PointerOn,
        ViewCommand,
        Choice,
        ViewChoice,
        SummaryItem,
        Card,
        PointerView,
        Match,
        SearchView,
        StateRow,
        StateListView,
        StateSummary,
        crate::keys::KeyDid,
        crate::keys::KeyView,
        PageView,
        crate::work::Work,
        crate::work::Progress,
        crate::ranks::DiffForm,
        crate::ranks::ReadingRow,
    ]
}
