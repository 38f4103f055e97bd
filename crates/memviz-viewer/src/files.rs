//! The open snapshots: reading one whole or in chunks, and what is computed
//! once per file (address versions, the timelines built so far).

use std::cell::OnceCell;

use memviz_core::timeline::{Timeline, TimelineBuilder, TimelineKind};
use memviz_core::versions::{self, Versions};
use memviz_core::{sniff, versions as versions_of, Loader, Snapshot, VersionsReader, WireReader};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::boundary::{ErrorKind, PageError};
use crate::timings::WorkerTimings;
pub use memviz_core::sniff::FileKind;

/// A call out of order (the page's bug, not the file's).
pub(crate) fn out_of_order(what: impl Into<String>) -> PageError {
    PageError::new(ErrorKind::BadCommand, what)
}

pub struct OpenFile {
    pub name: String,
    pub snap: Snapshot,
    /// Address versions, computed once per file, when first needed (only
    /// texts that name a block need them, not a plot): see
    /// [`OpenFile::versions`].
    versions: OnceCell<Versions>,
    /// While the versions are on their way from elsewhere (a file adopted
    /// from the page's worker opens before them): their chunks read so far.
    incoming: Option<Box<VersionsReader>>,
    /// Built timelines: (device, kind).
    timelines: Vec<((u32, TimelineKind), Timeline)>,
    /// The timeline being replayed in steps (`build_timeline_step`).
    building: Building,
    /// When it was last shown (`Context::shows` then): the most recently
    /// shown hidden files keep their timelines (`Viewer::trim_hidden_views`).
    pub(crate) shown: u64,
}

/// Which timeline: (device, kind).
type TimelineKey = (u32, TimelineKind);

/// A timeline being replayed in steps, and which it is.
type Building = Option<(TimelineKey, Box<TimelineBuilder>)>;

/// Steps the replay of `key` by about `budget` trace events (starting it,
/// or starting over if another one was under way); true once the replay is
/// done and the builder waits for `TimelineBuilder::finish`.
fn replay_step(building: &mut Building, snap: &Snapshot, key: TimelineKey, budget: usize) -> bool {
    let b = match building {
        Some((k, b)) if *k == key => b,
        other => &mut other.insert((key, Box::new(TimelineBuilder::new(snap, key.0, key.1)))).1,
    };
    b.step(snap, budget)
}

impl OpenFile {
    pub fn new(name: String, snap: Snapshot) -> OpenFile {
        OpenFile {
            name,
            snap,
            versions: OnceCell::new(),
            incoming: None,
            timelines: Vec::new(),
            building: None,
            shown: 0,
        }
    }

    /// A file decoded elsewhere (the page's worker), with the timeline
    /// replayed so far, if any; its address versions are on their way
    /// ([`OpenFile::versions_chunk`]).
    fn adopted(name: String, snap: Snapshot, building: Building) -> OpenFile {
        OpenFile { incoming: Some(Box::default()), building, ..OpenFile::new(name, snap) }
    }

    /// The address versions, computed here if they are not known yet (a
    /// search or the state history needs them now, even while they are on
    /// their way from elsewhere; a hover does not wait: `versions_now`).
    pub fn versions(&self) -> &Versions {
        self.versions.get_or_init(|| versions::compute(&self.snap))
    }

    /// The address versions, unless they are on their way from elsewhere
    /// and not here yet (then None: a hover names an address without its
    /// version rather than wait ~1 s for them on a 1 GB file).
    pub fn versions_now(&self) -> Option<&Versions> {
        if self.incoming.is_some() {
            self.versions.get()
        } else {
            Some(self.versions())
        }
    }

    /// Computes the address versions ahead of need (the page calls it when
    /// idle), unless they are on their way from elsewhere.
    pub fn prepare_versions(&self) {
        if self.incoming.is_none() {
            self.versions();
        }
    }

    /// Whether the address versions are known (given or computed).
    pub fn has_versions(&self) -> bool {
        self.versions.get().is_some()
    }

    /// The next chunk of the address versions computed elsewhere
    /// (`Versions::wire_chunks`). Ignored once they are known. After an
    /// error (it names the file) they are computed here when needed.
    pub fn versions_chunk(&mut self, bytes: &[u8]) -> Result<(), PageError> {
        if self.has_versions() {
            self.incoming = None;
            return Ok(());
        }
        let Some(r) = self.incoming.as_mut() else {
            return Err(out_of_order(format!("{}: the address versions come after their end", self.name)));
        };
        r.feed(bytes, &self.snap).map_err(|e| {
            self.incoming = None;
            PageError::decode(&self.name, &e)
        })
    }

    /// After the last chunk of the versions: an error (naming the file) if
    /// they are not whole; they are then computed here when needed.
    pub fn versions_end(&mut self) -> Result<(), PageError> {
        let Some(r) = self.incoming.take() else { return Ok(()) };
        if self.has_versions() {
            return Ok(());
        }
        let v = r.finish().map_err(|e| PageError::decode(&self.name, &e))?;
        let _ = self.versions.set(v);
        Ok(())
    }

    /// The versions will not come from elsewhere (their sender failed):
    /// they are computed here when needed.
    pub fn versions_lost(&mut self) {
        self.incoming = None;
    }

    /// The device the file shows when it becomes the current one.
    pub fn first_device(&self) -> u32 {
        first_device(&self.snap)
    }

    /// The timeline of `kind` on `device`, if built.
    pub fn timeline(&self, device: u32, kind: TimelineKind) -> Option<&Timeline> {
        self.timelines.iter().find(|(k, _)| *k == (device, kind)).map(|(_, t)| t)
    }

    /// Bytes its built timelines hold.
    pub fn timeline_bytes(&self) -> usize {
        self.timelines.iter().map(|(_, t)| t.heap_bytes()).sum()
    }

    /// Frees the timelines built so far (they are built again on use).
    pub fn drop_timelines(&mut self) {
        self.timelines = Vec::new();
        self.building = None;
    }

    /// Replays the trace for `kind` on `device` once; later calls find it.
    pub fn build_timeline(&mut self, device: u32, kind: TimelineKind) {
        while !self.build_timeline_step(device, kind, usize::MAX) {}
    }

    /// [`OpenFile::build_timeline`] in steps of about `budget` trace events
    /// (see [`TimelineBuilder::step`]), so that the page can yield between
    /// two; true once the timeline is built.
    pub fn build_timeline_step(&mut self, device: u32, kind: TimelineKind, budget: usize) -> bool {
        if self.timeline(device, kind).is_some() {
            return true;
        }
        if !replay_step(&mut self.building, &self.snap, (device, kind), budget) {
            return false;
        }
        if let Some((k, b)) = self.building.take() {
            self.timelines.push((k, b.finish()));
        }
        true
    }
}

fn first_device(snap: &Snapshot) -> u32 {
    snap.default_device().unwrap_or(0)
}

/// A file being read chunk by chunk: its name and the loader.
pub(crate) struct Loading {
    name: String,
    loader: Loader,
}

impl Loading {
    pub(crate) fn new(name: &str) -> Loading {
        Loading { name: name.to_string(), loader: Loader::new() }
    }

    /// Decodes the next chunk; the error names the file.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<(), PageError> {
        self.loader.feed(chunk).map_err(|e| PageError::decode(&self.name, &e))
    }

    pub(crate) fn finish(self) -> Result<OpenFile, PageError> {
        let snap = self.loader.finish().map_err(|e| PageError::decode(&self.name, &e))?;
        Ok(OpenFile::new(self.name, snap))
    }
}

/// Reads a whole file; the error names it.
pub(crate) fn open(name: &str, bytes: &[u8]) -> Result<OpenFile, PageError> {
    let snap = memviz_core::load(bytes).map_err(|e| PageError::decode(name, &e))?;
    Ok(OpenFile::new(name.to_string(), snap))
}

/// A file decoded elsewhere, opened in steps (`Viewer::adopt`): its model
/// read from the wire form, then (optionally) its first timeline's replay.
/// The address versions come after it opens ([`OpenFile::versions_chunk`]):
/// the page's worker computes them meanwhile.
pub(crate) enum Adopting {
    /// The model's chunks being read, one call each.
    Reading(String, Box<WireReader>),
    Read(Box<Model>),
}

/// A file whose model is read.
pub(crate) struct Model {
    name: String,
    snap: Snapshot,
    building: Building,
}

impl Adopting {
    fn read_model(name: String, snap: Snapshot) -> Adopting {
        Adopting::Read(Box::new(Model { name, snap, building: None }))
    }

    /// Reads the model; the error names the file.
    pub(crate) fn read(name: &str, wire: &[u8]) -> Result<Adopting, PageError> {
        let snap = Snapshot::from_wire(wire).map_err(|e| PageError::decode(name, &e))?;
        Ok(Adopting::read_model(name.to_string(), snap))
    }

    /// Reads the model from its chunks, pulled one at a time; the error
    /// names the file.
    pub(crate) fn read_chunks(name: &str, next: &mut dyn FnMut() -> Option<Vec<u8>>) -> Result<Adopting, PageError> {
        let snap = Snapshot::from_wire_chunks(next).map_err(|e| PageError::decode(name, &e))?;
        Ok(Adopting::read_model(name.to_string(), snap))
    }

    /// Reads the next chunk of the model; the error names the file.
    pub(crate) fn chunk(&mut self, bytes: &[u8]) -> Result<(), PageError> {
        match self {
            Adopting::Reading(name, r) => r.feed(bytes).map_err(|e| PageError::decode(name, &e)),
            _ => Err(out_of_order("adopt_chunk after the model")),
        }
    }

    /// After the last chunk: the model read (an error if it is not whole).
    pub(crate) fn read_end(self) -> Result<Adopting, PageError> {
        match self {
            Adopting::Reading(name, r) => {
                let snap = r.finish().map_err(|e| PageError::decode(&name, &e))?;
                Ok(Adopting::read_model(name, snap))
            }
            read => Ok(read),
        }
    }

    /// Steps the replay of the timeline of `kind` the file will first show
    /// (see [`OpenFile::build_timeline_step`]). True once done.
    pub(crate) fn replay_step(&mut self, kind: TimelineKind, budget: usize) -> Result<bool, PageError> {
        match self {
            Adopting::Reading(name, _) => Err(out_of_order(format!("{name}: the model's chunks are not all read"))),
            Adopting::Read(m) => {
                let key = (first_device(&m.snap), kind);
                Ok(replay_step(&mut m.building, &m.snap, key, budget))
            }
        }
    }

    /// The file, waiting for its address versions.
    pub(crate) fn open(self) -> Result<OpenFile, PageError> {
        match self {
            Adopting::Reading(name, _) => Err(out_of_order(format!("{name}: the model's chunks are not all read"))),
            Adopting::Read(m) => {
                let Model { name, snap, building } = *m;
                Ok(OpenFile::adopted(name, snap, building))
            }
        }
    }
}

// ---- the open path's typed commands (issue 42) -----------------------------

/// A file being read, as the page's progress line and the ranks table's
/// row say it: `read` bytes of `size` (none: not yet), or its model being
/// built.
#[derive(Serialize, Deserialize, TS, Debug, Clone, PartialEq)]
pub struct ReadState {
    pub name: String,
    #[ts(type = "number")]
    pub size: u64,
    #[ts(type = "number | null")]
    pub read: Option<u64>,
    #[serde(default)]
    pub building: bool,
}

/// One step of opening a file, as the page sends it (`Viewer.open(cmd, bytes?)`).
/// A file's or a model's chunks go by `feed`; `sniff` and `versions_chunk`
/// take theirs beside the command.
// Serialize too: memviz-worker's open path sends these to the page's Viewer.
#[derive(Serialize, Deserialize, TS, Debug, Clone, PartialEq)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum OpenCommand {
    /// A file decoded on the page: its chunks follow (`feed`), then `finish`.
    Begin {
        name: String,
    },
    Finish,
    /// A file the page's worker decoded (`read_ms`: its read and decode
    /// there): its model's chunks follow (`adopt_chunk`, the bytes given),
    /// then `adopt_end`, `adopt_replay` until done, `adopt_finish`. Their
    /// replies say where the time went (`worker`).
    AdoptBegin {
        name: String,
        #[serde(default)]
        read_ms: f64,
    },
    AdoptChunk,
    AdoptEnd,
    AdoptReplay {
        #[ts(type = "number")]
        budget: usize,
    },
    AdoptFinish,
    /// What the file starting with the bytes given is (`sniff` in the
    /// reply): its first `SNIFF_HEAD` bytes, or all of a smaller one.
    Sniff,
    /// The next chunk (the bytes given) of file `file`'s address versions
    /// a worker's decode sent, after `adopt_finish`; then `versions_end`.
    VersionsChunk {
        #[ts(type = "number")]
        file: usize,
    },
    /// A [`Decoder`] of this Viewer's (the browser benches time the wasm
    /// decoder by it; the decode worker has its own, crates/memviz-worker):
    /// chunks by `feed`, then `decode_finish`.
    Decode {
        name: String,
        #[ts(type = "number | null")]
        size: Option<f64>,
    },
    DecodeFinish,
    /// File `file`'s address versions are all fed (`versions_chunk`), or
    /// will not come (the worker failed: computed here when needed).
    VersionsEnd {
        #[ts(type = "number")]
        file: usize,
    },
    VersionsLost {
        #[ts(type = "number")]
        file: usize,
    },
    /// Whether file `file`'s address versions are known (`done`; for tests).
    HasVersions {
        #[ts(type = "number")]
        file: usize,
    },
    SelectFile {
        #[ts(type = "number")]
        file: usize,
    },
    /// The view named `name` (`view` in the reply; none if no view has
    /// it), for a file posted with a view (MemoryViz.js): memory_viz's
    /// names are taken too.
    ViewNamed {
        name: String,
    },
    /// The built-in example (memviz-wasm holds its bytes).
    Example,
    /// The idle warm-up of the open and draw paths (memviz-wasm).
    Warm,
    /// Memory taken and written ahead of need, a step a call (`done`: all
    /// written; `written`: bytes so far): memviz-wasm's `MemoryAhead`.
    Ahead {
        plan: AheadPlan,
        /// `model`: the size of the file the worker decodes.
        #[serde(default)]
        #[ts(type = "number")]
        file_bytes: u64,
    },
    /// Panics with `message`, as a bug would (the tests of the recovery;
    /// memviz-wasm's).
    DebugPanic {
        message: String,
    },
    /// How a file of `size` bytes is read (`plan` in the reply); `force`:
    /// "worker" or "page" whatever the size (the page's `?decode=`).
    Plan {
        #[ts(type = "number")]
        size: u64,
        #[serde(default)]
        force: Option<String>,
    },
    /// The progress line (`text` in the reply) while share.js fetches the
    /// `#file=` paths.
    Fetching {
        paths: Vec<String>,
    },
    /// The open's progress line (`text` in the reply): the file's read
    /// state; `waiting` files after it.
    Progress {
        #[serde(flatten)]
        #[ts(flatten)]
        file: ReadState,
        #[ts(type = "number")]
        waiting: u32,
    },
    /// The line the page shows for file `name`'s open that failed (`failed`
    /// in the reply); `detail`: the refusal's or the trap's message.
    Failed {
        name: String,
        failure: OpenFailure,
        #[serde(default)]
        detail: String,
    },
}

/// Why an open failed, as the page tells it (`OpenCommand::Failed`).
#[derive(Serialize, Deserialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OpenFailure {
    /// The user cancelled the read.
    Cancelled,
    /// The worker's wasm panicked (`detail`); this page's viewer is fine.
    WorkerTrap,
    /// The worker's wasm ran out of memory.
    WorkerOom,
    /// A `PageError` (it names the file and offset) or the browser's refusal to read.
    Refused,
    /// A torch.profiler export among snapshots: its chart reads it, alone (profiler.js).
    Profiler,
    /// A `#file=` path (share.js; `name` is the path) that is empty, ...
    HashEmpty,
    /// ... that is not relative to the page (a scheme, a leading / or a backslash), ...
    HashNotRelative,
    /// ... on a page opened from file:// (the browser lets it read nothing), ...
    HashFromFile,
    /// ... that resolves to another origin, ...
    HashOtherOrigin,
    /// ... that is not valid percent-encoding, ...
    HashEncoding,
    /// ... that the server answered with an error status (`detail`), ...
    HashStatus,
    /// ... or whose fetch failed (`detail`).
    HashFetch,
    /// The snapshot a `memviz html` page embeds (`name`): its base64 is damaged (`detail`).
    Embedded,
}

/// What the page shows for a failed open (see `OpenCommand::Failed`).
#[derive(Serialize, Deserialize, TS, Debug, Clone, PartialEq, Eq)]
pub struct FailedLine {
    pub text: String,
    /// A notice (the user's own doing), announced as `announce`; else an error.
    pub announce: Option<String>,
}

/// The line for file `name`'s failed open (see [`OpenFailure`]).
pub fn failed(name: &str, failure: OpenFailure, detail: &str) -> FailedLine {
    let text = match failure {
        OpenFailure::Cancelled => format!("Opening {name}: cancelled"),
        OpenFailure::WorkerTrap => format!("internal error in memviz: {detail}; the file could not be shown ({name})."),
        OpenFailure::WorkerOom => format!(
            "{name}: out of memory in the decoder (wasm is limited to 4 GB); the file could not be shown. \
             The file shown before stays."
        ),
        OpenFailure::Refused => format!("Could not open {detail}"),
        OpenFailure::Profiler => {
            format!("{name}: not a memory snapshot but a torch.profiler export: open it alone to see its chart")
        }
        OpenFailure::Embedded => format!("Could not open the embedded {name}: its base64 is damaged ({detail})"),
        hash => {
            let why = match hash {
                OpenFailure::HashEmpty => "the path is empty".to_string(),
                OpenFailure::HashNotRelative => {
                    "only a path relative to this page is allowed (no scheme, no leading /)".to_string()
                }
                OpenFailure::HashFromFile => "a page opened from file:// may not read other files; serve the folder \
                    (python3 -m http.server, or memviz open FILE) and open its index.html#file=…"
                    .to_string(),
                OpenFailure::HashOtherOrigin => "it is not on this page's server".to_string(),
                OpenFailure::HashEncoding => "the path is not valid percent-encoding".to_string(),
                OpenFailure::HashStatus => format!("the server answered {detail}"),
                _ => detail.to_string(),
            };
            format!("Could not open #file={name}: {why}")
        }
    };
    let announce = (failure == OpenFailure::Cancelled).then(|| format!("Opening {name} cancelled"));
    FailedLine { text, announce }
}

/// Bytes read between two progress steps (and, on the page, two task hops).
pub const CHUNK: u64 = 4 << 20;
/// Bytes a decoder call, as a file's stream is read: on the page
/// (www/decode-worker.js FEED) and in the decode worker (memviz-worker).
pub const FEED: usize = 1 << 20;
/// Files larger than this are decoded in the page's worker, smaller ones on
/// the page (a 3.2 MB file: 124-178 ms in the worker, 92-111 here; docs/open.md).
/// Read as a stream either way: one `arrayBuffer` and one feed was ~2 ms slower.
pub const WORKER_MIN: u64 = 4 << 20;

/// How the page reads a file (`OpenCommand::Plan`).
#[derive(Serialize, Deserialize, TS, Debug, Clone, PartialEq, Eq)]
pub struct OpenPlan {
    /// Decoded in the worker, its model adopted; else decoded on the page.
    pub worker: bool,
    /// The bytes of its start that `sniff` looks at.
    #[ts(type = "number")]
    pub sniff_head: usize,
    /// Bytes of buffers the page writes ahead for the worker to copy the
    /// model's chunks into (its wire form is 0.41-0.43x the file).
    #[ts(type = "number")]
    pub pool: u64,
}

/// How a file of `size` bytes is read (see [`OpenPlan`]).
pub fn plan(size: u64, force: Option<&str>) -> OpenPlan {
    let worker = force == Some("worker") || (force != Some("page") && size > WORKER_MIN);
    let pool = if worker && size > CHUNK { (size as f64 * 0.45) as u64 } else { 0 };
    OpenPlan { worker, sniff_head: SNIFF_HEAD, pool: pool.min(64 << 20) }
}

/// The open's progress line (see `OpenCommand::Progress`).
pub fn progress(file: &ReadState, waiting: u32) -> String {
    let ReadState { name, size, read, building } = file;
    let more = if waiting > 0 { format!(" ({waiting} more to open)") } else { String::new() };
    let size_of = |b| memviz_core::format::format_size(b, false);
    match read {
        _ if *building => format!("Building the timeline of {name}…"),
        None => format!("Reading {name}…{more}"),
        Some(read) => format!("Reading {name}: {} of {}{more}", size_of(*read), size_of(*size)),
    }
}

/// A step of adopting a worker's decode, as the timings line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdoptStep {
    Model,
    Replay,
    Views,
    Versions,
}

impl OpenCommand {
    /// The adopt step this command is, if any (memviz-wasm times it).
    pub fn adopt_step(&self) -> Option<AdoptStep> {
        Some(match self {
            OpenCommand::AdoptBegin { .. } | OpenCommand::AdoptChunk | OpenCommand::AdoptEnd => AdoptStep::Model,
            OpenCommand::AdoptReplay { .. } => AdoptStep::Replay,
            OpenCommand::AdoptFinish => AdoptStep::Views,
            OpenCommand::VersionsChunk { .. } | OpenCommand::VersionsEnd { .. } => AdoptStep::Versions,
            _ => return None,
        })
    }
}

/// What memory written ahead is for (the sizes: [`MemoryAhead::step`]).
#[derive(Serialize, Deserialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AheadPlan {
    /// This page's model of a file the worker decodes (`file_bytes`).
    Model,
    /// In the decode worker, while the user picks a file.
    Decode,
    /// On the page before a small file comes (written, then let go at once).
    Small,
    /// Lets go of what was written.
    Release,
}

/// What an open command did (read back by memviz-worker's open path).
#[derive(Serialize, Deserialize, TS, Debug, Clone, PartialEq, Default)]
#[serde(default)]
pub struct OpenReply {
    /// The file opened (it is the current file now), for `finish`,
    /// `adopt_finish`, `example`.
    #[ts(type = "number | null")]
    pub file: Option<usize>,
    /// `adopt_replay`: the replay is done; `has_versions`: they are known;
    /// `ahead`: nothing more to write.
    pub done: bool,
    /// The viewer's generation after the command.
    pub generation: u32,
    /// `ahead`: the bytes written so far.
    #[ts(type = "number | null")]
    pub written: Option<u64>,
    /// `sniff`: what the file is.
    pub sniff: Option<FileSniff>,
    /// `view_named`: the view's index.
    #[ts(type = "number | null")]
    pub view: Option<usize>,
    /// `plan`: how the file is read.
    pub plan: Option<OpenPlan>,
    /// `progress`: the line.
    pub text: Option<String>,
    /// `failed`: the line and how it is shown.
    pub failed: Option<FailedLine>,
    /// An adopt step's: the time so far (memviz-wasm's).
    pub worker: Option<WorkerTimings>,
}

/// memory_viz's view names (trace_plot's `--segments`) that are not this viewer's.
const VIEW_ALIASES: [(&str, &str); 1] = [("Active Cached Memory Timeline", "Active Cached Segment Timeline")];

#[derive(Serialize, Deserialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSniff {
    pub kind: FileKind,
    pub gzip: bool,
    /// The profiler's chart reads it (profiler.js), not the snapshot loader.
    pub profiler: bool,
}

/// Bytes of a file's start the page hands to [`sniff`].
pub const SNIFF_HEAD: usize = sniff::SNIFF_HEAD;

/// What the file starting with `head` is.
pub fn sniff(head: &[u8]) -> FileSniff {
    let (kind, gzip) = sniff::sniff(head);
    FileSniff { kind, gzip, profiler: kind.is_profiler() }
}

impl crate::Viewer {
    /// Runs one open command (see [`OpenCommand`]); `Example`, `Warm` and
    /// `Ahead` are memviz-wasm's (a bad command here).
    pub fn open_command(&mut self, cmd: OpenCommand) -> Result<OpenReply, PageError> {
        let mut reply = OpenReply::default();
        match cmd {
            OpenCommand::Begin { name } => self.begin(&name),
            OpenCommand::Finish => reply.file = Some(self.finish()?),
            OpenCommand::AdoptBegin { name, .. } => self.adopt_begin(&name),
            OpenCommand::AdoptEnd => self.adopt_end()?,
            OpenCommand::AdoptReplay { budget } => reply.done = self.adopt_replay(budget)?,
            OpenCommand::AdoptFinish => reply.file = Some(self.adopt_finish()?),
            OpenCommand::VersionsEnd { file } => self.versions_end(file)?,
            OpenCommand::VersionsLost { file } => self.versions_lost(file),
            OpenCommand::HasVersions { file } => reply.done = self.has_versions(file),
            OpenCommand::SelectFile { file } => self.select_file(file),
            OpenCommand::ViewNamed { name } => {
                let name = VIEW_ALIASES.iter().find(|a| a.0 == name).map_or(name.as_str(), |a| a.1);
                reply.view = self.view_names().iter().position(|n| n == name);
            }
            OpenCommand::Plan { size, force } => reply.plan = Some(plan(size, force.as_deref())),
            OpenCommand::Fetching { paths } => reply.text = Some(format!("Fetching {}…", paths.join(", "))),
            OpenCommand::Progress { file, waiting } => reply.text = Some(progress(&file, waiting)),
            OpenCommand::Failed { name, failure, detail } => reply.failed = Some(failed(&name, failure, &detail)),
            other => return Err(PageError::bad_command(format!("{other:?} is not the viewer's"))),
        }
        reply.generation = self.generation();
        Ok(reply)
    }

    /// The next chunk of what is being read: the file (after `begin`) or
    /// the model decoded elsewhere (after `adopt_begin`).
    pub fn feed_any(&mut self, bytes: &[u8]) -> Result<(), PageError> {
        if self.loading.is_some() {
            self.feed(bytes)
        } else {
            self.adopt_chunk(bytes)
        }
    }
}

/// One round of the page's idle warm-up (memviz-wasm, with its built-in
/// example): the file opened both ways
/// (decoded here; decoded for elsewhere and adopted), drawn, hovered and
/// its views built, in a Viewer of its own. V8 compiles wasm lazily and
/// optimises hot code in the background: the first file used to pay for
/// that (its open 2-4x slower than a second open of the same file).
pub fn warm_up(name: &str, bytes: &[u8]) -> Result<(), PageError> {
    let mut w = crate::Viewer::new();
    w.set_dpr(1.0);
    w.open(name, bytes)?;
    for _ in 0..2 {
        w.render_plot(400, 160);
        w.render_minimap(400, 40);
        w.hover(200.0, 80.0);
        w.render_selection();
        w.zoom_at(1.5, 0.4);
    }
    w.summary_json();
    // The panels an open shows right after its first paint (explain.js,
    // phases.js, ranks.js's diff): compiled now, not then.
    w.panel(crate::explain::PanelCommand::Overview)?;
    w.phases(&crate::phases::PhasesCommand::default());
    let d = w.device();
    let side = |kind: &str| serde_json::json!({"file": 0, "device": d, "at": {"kind": kind}});
    let diff = serde_json::json!({"a": side("peak"), "b": side("end"), "by": "stack", "limit": 200, "part": "table"});
    w.diff(&serde_json::from_value(diff).map_err(PageError::bad_command)?)?;
    let ranks = serde_json::json!({"do": "overview", "file": 0});
    w.ranks(&serde_json::from_value(ranks).map_err(PageError::bad_command)?)?;
    for v in 0..w.view_names().len() {
        while w.prepare_view_step(v, 1 << 12) < 1.0 {}
        w.set_view(v);
        w.render_plot(400, 160);
        w.hover(200.0, 80.0);
    }
    // The worker's way: the model's and the versions' wire forms, read back
    // into a Viewer of their own (one model alive at a time: wasm memory
    // never shrinks, so this round's peak is the page's for good).
    drop(w);
    let decode = |e: memviz_core::Error| PageError::decode(name, &e);
    let mut loader = Loader::new();
    loader.feed(bytes).map_err(decode)?;
    let snap = loader.finish().map_err(decode)?;
    let (mut model, mut vers) = (Vec::new(), Vec::new());
    snap.wire_chunks(&mut |c| model.push(c));
    versions_of::compute(&snap).wire_chunks(&mut |c| vers.push(c));
    drop(snap);
    let mut w = crate::Viewer::new();
    w.adopt_begin(name);
    model.iter().try_for_each(|c| w.adopt_chunk(c))?;
    w.adopt_end()?;
    while !w.adopt_replay(1 << 17)? {}
    let i = w.adopt_finish()?;
    vers.iter().try_for_each(|c| w.versions_chunk(i, c))?;
    w.versions_end(i)
}

// ---- memory taken and written ahead of need. The first write to a fresh page
// of wasm memory costs ~0.55-0.7 ms a MB (the kernel maps and zeroes it;
// 14x a second write, measured in Chromium and Node), and a decode or a
// model's reading pays it for every page it takes. Written here, by a
// thread that is idle anyway, then let go, the same pages are taken again
// by the allocator at a second write's cost.

const MIB: u64 = 1 << 20;

/// One file decoded for elsewhere: by the decode worker (crates/memviz-worker),
/// whose model the page's Viewer adopts, and by the browser benches' `decode`.
/// Chunks by `feed`, then `finish`; the model is then [`Decoder::snapshot`].
pub struct Decoder {
    name: String,
    loader: Option<Loader>,
    snap: Option<Snapshot>,
    /// For the tests of the recovery from a trap: "oom" aborts as running
    /// out of memory does, another text panics with it, after CHUNK bytes.
    debug: Option<String>,
    fed: u64,
}

impl Decoder {
    /// `size`: the file's bytes, so that the decoder's tables grow once.
    pub fn new(name: String, size: Option<u64>, debug: Option<String>) -> Decoder {
        let mut loader = Loader::new();
        if let Some(size) = size {
            loader.expect(size);
        }
        Decoder { name, loader: Some(loader), snap: None, debug, fed: 0 }
    }

    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), PageError> {
        let loader = self.loader.as_mut().ok_or_else(|| PageError::bad_command("feed after finish"))?;
        if let Err(e) = loader.feed(chunk) {
            self.loader = None;
            return Err(PageError::decode(&self.name, &e));
        }
        self.fed += chunk.len() as u64;
        match self.debug.as_deref() {
            Some("oom") if self.fed >= CHUNK => {
                std::alloc::handle_alloc_error(std::alloc::Layout::new::<[u8; 1 << 20]>())
            }
            Some(msg) if self.fed >= CHUNK => panic!("{msg}"),
            _ => Ok(()),
        }
    }

    pub fn finish(&mut self) -> Result<(), PageError> {
        let loader = self.loader.take().ok_or_else(|| PageError::bad_command("finish twice"))?;
        self.snap = Some(loader.finish().map_err(|e| PageError::decode(&self.name, &e))?);
        Ok(())
    }

    /// The model, once `finish` succeeded.
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.snap.as_ref()
    }
}

/// Holds the memory written ahead until it is let go.
#[derive(Default)]
pub struct MemoryAhead {
    buf: Vec<u8>,
}

impl MemoryAhead {
    /// Writes the next step of what `plan` takes; true once all is written.
    /// An error, with nothing more taken, when the memory cannot grow.
    pub fn step(&mut self, plan: AheadPlan, file_bytes: u64) -> Result<bool, PageError> {
        let (total, step) = match plan {
            // The model and its first timeline took 1.1-1.2x the file; at
            // most 128 MiB: this thread's first writes slow the worker's
            // decode about as much as they take (the 950 MB file's open 8.0 s
            // with all written, 5.8 with none, 4.7 with the cap). 2 MiB a
            // step: ~1.5 ms alone, 4-8 while the worker takes memory too.
            AheadPlan::Model => (file_bytes.min(128 * MIB), 2 * MIB),
            // What the decoder of a file the user is about to pick takes
            // (the 119 MB file's decode: ~194 MiB), a step a task.
            AheadPlan::Decode => (256 * MIB, 4 * MIB),
            // A file of up to 4 MiB decoded on the page (its tables: up to
            // ~4x): its first decode 8.8-9.7 -> 7.5-7.9 ms (3.2 MB file).
            AheadPlan::Small => (16 * MIB, 16 * MIB),
            AheadPlan::Release => (0, 0),
        };
        let done = self.touch(total as usize, step as usize)?;
        if plan == AheadPlan::Small {
            self.release();
        }
        Ok(done)
    }

    fn touch(&mut self, total: usize, step: usize) -> Result<bool, PageError> {
        if total == 0 {
            self.release();
            return Ok(true);
        }
        if self.buf.capacity() < total && self.buf.try_reserve_exact(total - self.buf.len()).is_err() {
            return Err(PageError::new(
                ErrorKind::Decode(memviz_core::ErrorKind::TooLarge),
                format!("no room for {total} bytes ahead"),
            ));
        }
        let end = total.min(self.buf.len() + step);
        self.buf.resize(end, 0);
        Ok(end >= total)
    }

    pub fn written(&self) -> u64 {
        self.buf.len() as u64
    }

    /// Lets go of it all (the allocator reuses it; wasm memory never shrinks).
    pub fn release(&mut self) {
        self.buf = Vec::new();
    }
}
