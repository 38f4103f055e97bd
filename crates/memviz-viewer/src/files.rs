//! The open snapshots: reading one whole or in chunks, and what is computed
//! once per file (address versions, the timelines built so far).

use std::cell::OnceCell;

use memviz_core::timeline::{Timeline, TimelineBuilder, TimelineKind};
use memviz_core::versions::{self, Versions};
use memviz_core::{Loader, Snapshot, VersionsReader, WireReader};

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
    pub fn versions_chunk(&mut self, bytes: &[u8]) -> Result<(), String> {
        if self.has_versions() {
            self.incoming = None;
            return Ok(());
        }
        let Some(r) = self.incoming.as_mut() else {
            return Err(format!("{}: the address versions come after their end", self.name));
        };
        r.feed(bytes, &self.snap).map_err(|e| {
            self.incoming = None;
            format!("{}: {e}", self.name)
        })
    }

    /// After the last chunk of the versions: an error (naming the file) if
    /// they are not whole; they are then computed here when needed.
    pub fn versions_end(&mut self) -> Result<(), String> {
        let Some(r) = self.incoming.take() else { return Ok(()) };
        if self.has_versions() {
            return Ok(());
        }
        let v = r.finish().map_err(|e| format!("{}: {e}", self.name))?;
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
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<(), String> {
        self.loader.feed(chunk).map_err(|e| format!("{}: {e}", self.name))
    }

    pub(crate) fn finish(self) -> Result<OpenFile, String> {
        let snap = self.loader.finish().map_err(|e| format!("{}: {e}", self.name))?;
        Ok(OpenFile::new(self.name, snap))
    }
}

/// Reads a whole file; the error names it.
pub(crate) fn open(name: &str, bytes: &[u8]) -> Result<OpenFile, String> {
    let snap = memviz_core::load(bytes).map_err(|e| format!("{name}: {e}"))?;
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
    pub(crate) fn read(name: &str, wire: &[u8]) -> Result<Adopting, String> {
        let snap = Snapshot::from_wire(wire).map_err(|e| format!("{name}: {e}"))?;
        Ok(Adopting::read_model(name.to_string(), snap))
    }

    /// Reads the model from its chunks, pulled one at a time; the error
    /// names the file.
    pub(crate) fn read_chunks(name: &str, next: &mut dyn FnMut() -> Option<Vec<u8>>) -> Result<Adopting, String> {
        let snap = Snapshot::from_wire_chunks(next).map_err(|e| format!("{name}: {e}"))?;
        Ok(Adopting::read_model(name.to_string(), snap))
    }

    /// Reads the next chunk of the model; the error names the file.
    pub(crate) fn chunk(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self {
            Adopting::Reading(name, r) => r.feed(bytes).map_err(|e| format!("{name}: {e}")),
            _ => Err("adopt_chunk after the model".to_string()),
        }
    }

    /// After the last chunk: the model read (an error if it is not whole).
    pub(crate) fn read_end(self) -> Result<Adopting, String> {
        match self {
            Adopting::Reading(name, r) => {
                let snap = r.finish().map_err(|e| format!("{name}: {e}"))?;
                Ok(Adopting::read_model(name, snap))
            }
            read => Ok(read),
        }
    }

    /// Steps the replay of the timeline of `kind` the file will first show
    /// (see [`OpenFile::build_timeline_step`]). True once done.
    pub(crate) fn replay_step(&mut self, kind: TimelineKind, budget: usize) -> Result<bool, String> {
        match self {
            Adopting::Reading(name, _) => Err(format!("{name}: the model's chunks are not all read")),
            Adopting::Read(m) => {
                let key = (first_device(&m.snap), kind);
                Ok(replay_step(&mut m.building, &m.snap, key, budget))
            }
        }
    }

    /// The file, waiting for its address versions.
    pub(crate) fn open(self) -> Result<OpenFile, String> {
        match self {
            Adopting::Reading(name, _) => Err(format!("{name}: the model's chunks are not all read")),
            Adopting::Read(m) => {
                let Model { name, snap, building } = *m;
                Ok(OpenFile::adopted(name, snap, building))
            }
        }
    }
}
