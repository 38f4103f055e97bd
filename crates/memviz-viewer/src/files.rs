//! The open snapshots: reading one whole or in chunks, and what is computed
//! once per file (address versions, the timelines built so far).

use memviz_core::timeline::{Timeline, TimelineBuilder, TimelineKind};
use memviz_core::versions::{self, Versions};
use memviz_core::{Loader, Snapshot, VersionsReader, WireReader};

pub struct OpenFile {
    pub name: String,
    pub snap: Snapshot,
    /// Address versions, computed once per file (every timeline needs them).
    pub versions: Versions,
    /// Built timelines: (device, kind).
    timelines: Vec<((u32, TimelineKind), Timeline)>,
    /// The timeline being replayed in steps (`build_timeline_step`).
    building: Building,
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
        let versions = versions::compute(&snap);
        OpenFile::adopted(name, snap, versions, None)
    }

    /// A file whose address versions were computed elsewhere (the page's
    /// worker), and the timeline replayed while they came, if any.
    fn adopted(name: String, snap: Snapshot, versions: Versions, building: Building) -> OpenFile {
        OpenFile { name, snap, versions, timelines: Vec::new(), building }
    }

    /// The device the file shows when it becomes the current one.
    pub fn first_device(&self) -> u32 {
        first_device(&self.snap)
    }

    /// The timeline of `kind` on `device`, if built.
    pub fn timeline(&self, device: u32, kind: TimelineKind) -> Option<&Timeline> {
        self.timelines.iter().find(|(k, _)| *k == (device, kind)).map(|(_, t)| t)
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
            self.timelines.push((k, b.finish(&self.versions)));
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
/// read from the wire form, then its address versions. The first
/// timeline's replay needs only the model: it may run while the versions
/// come (the page's worker computes them meanwhile).
pub(crate) enum Adopting {
    /// The model's chunks being read, one call each.
    Reading(String, Box<WireReader>),
    Read(Box<Model>),
    Ready(Box<OpenFile>),
}

/// A file whose model is read, waiting for its address versions.
pub(crate) struct Model {
    name: String,
    snap: Snapshot,
    /// The versions' chunks read so far (`versions_chunk`), if any came.
    versions: Option<Box<VersionsReader>>,
    building: Building,
}

impl Adopting {
    fn read_model(name: String, snap: Snapshot) -> Adopting {
        Adopting::Read(Box::new(Model { name, snap, versions: None, building: None }))
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

    /// The address versions computed here.
    pub(crate) fn versions(self) -> Adopting {
        match self {
            Adopting::Read(m) if m.versions.is_none() => {
                let Model { name, snap, building, .. } = *m;
                let versions = versions::compute(&snap);
                Adopting::Ready(Box::new(OpenFile::adopted(name, snap, versions, building)))
            }
            other => other,
        }
    }

    /// The address versions computed elsewhere, in their wire form
    /// (`Versions::to_wire`), instead of computing them; the error names the
    /// file.
    pub(crate) fn versions_from(self, wire: &[u8]) -> Result<Adopting, String> {
        match self {
            ready @ Adopting::Ready(_) => Ok(ready),
            adopting => adopting.versions_chunk(wire)?.versions_end(),
        }
    }

    /// The next chunk of the address versions computed elsewhere
    /// (`Versions::wire_chunks`), after the model; the error names the
    /// file.
    pub(crate) fn versions_chunk(self, bytes: &[u8]) -> Result<Adopting, String> {
        let mut m = match self {
            Adopting::Read(m) => m,
            Adopting::Reading(name, _) => return Err(format!("{name}: the model's chunks are not all read")),
            Adopting::Ready(f) => return Err(format!("{}: versions after the versions", f.name)),
        };
        let Model { name, snap, versions, .. } = &mut *m;
        versions.get_or_insert_default().feed(bytes, snap).map_err(|e| format!("{name}: {e}"))?;
        Ok(Adopting::Read(m))
    }

    /// After the versions' last chunk: an error (naming the file) if they are not whole.
    pub(crate) fn versions_end(self) -> Result<Adopting, String> {
        match self {
            Adopting::Read(m) => {
                let Model { name, snap, versions, building } = *m;
                let Some(r) = versions else { return Err(format!("{name}: the address versions are not all read")) };
                let versions = r.finish().map_err(|e| format!("{name}: {e}"))?;
                Ok(Adopting::Ready(Box::new(OpenFile::adopted(name, snap, versions, building))))
            }
            Adopting::Reading(name, _) => Err(format!("{name}: the address versions are not all read")),
            ready => Ok(ready),
        }
    }

    /// Steps the replay of the timeline of `kind` the file will first show
    /// (see [`OpenFile::build_timeline_step`]); before its versions, only
    /// as far as the versions are not needed. True once that far.
    pub(crate) fn replay_step(&mut self, kind: TimelineKind, budget: usize) -> Result<bool, String> {
        match self {
            Adopting::Reading(name, _) => Err(format!("{name}: the model's chunks are not all read")),
            Adopting::Read(m) => {
                let key = (first_device(&m.snap), kind);
                Ok(replay_step(&mut m.building, &m.snap, key, budget))
            }
            Adopting::Ready(f) => Ok(f.build_timeline_step(f.first_device(), kind, budget)),
        }
    }

    pub(crate) fn open(self) -> Result<OpenFile, String> {
        match self {
            Adopting::Reading(name, _) => Err(format!("{name}: the model's chunks are not all read")),
            Adopting::Read(m) if m.versions.is_some() => {
                Err(format!("{}: the address versions are not all read", m.name))
            }
            read @ Adopting::Read(_) => read.versions().open(),
            Adopting::Ready(file) => Ok(*file),
        }
    }
}
