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
    building: Option<((u32, TimelineKind), Box<TimelineBuilder>)>,
}

impl OpenFile {
    pub fn new(name: String, snap: Snapshot) -> OpenFile {
        let versions = versions::compute(&snap);
        OpenFile::with_versions(name, snap, versions)
    }

    /// A file whose address versions were computed elsewhere (the page's worker).
    fn with_versions(name: String, snap: Snapshot, versions: Versions) -> OpenFile {
        OpenFile { name, snap, versions, timelines: Vec::new(), building: None }
    }

    /// The device the file shows when it becomes the current one.
    pub fn first_device(&self) -> u32 {
        self.snap.default_device().unwrap_or(0)
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
        let key = (device, kind);
        let b = match &mut self.building {
            Some((k, b)) if *k == key => b,
            other => {
                &mut other.insert((key, Box::new(TimelineBuilder::new(&self.snap, &self.versions, device, kind)))).1
            }
        };
        if !b.step(&self.snap, &self.versions, budget) {
            return false;
        }
        if let Some((k, b)) = self.building.take() {
            self.timelines.push((k, b.finish()));
        }
        true
    }
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
/// read from the wire form, then its address versions.
pub(crate) enum Adopting {
    /// The model's chunks being read, one call each.
    Reading(String, Box<WireReader>),
    Read(String, Snapshot),
    /// The address versions' chunks being read (`versions_chunk`).
    ReadingVersions(String, Snapshot, Box<VersionsReader>),
    Ready(OpenFile),
}

impl Adopting {
    /// Reads the model; the error names the file.
    pub(crate) fn read(name: &str, wire: &[u8]) -> Result<Adopting, String> {
        let snap = Snapshot::from_wire(wire).map_err(|e| format!("{name}: {e}"))?;
        Ok(Adopting::Read(name.to_string(), snap))
    }

    /// Reads the model from its chunks, pulled one at a time; the error
    /// names the file.
    pub(crate) fn read_chunks(name: &str, next: &mut dyn FnMut() -> Option<Vec<u8>>) -> Result<Adopting, String> {
        let snap = Snapshot::from_wire_chunks(next).map_err(|e| format!("{name}: {e}"))?;
        Ok(Adopting::Read(name.to_string(), snap))
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
                Ok(Adopting::Read(name, snap))
            }
            read => Ok(read),
        }
    }

    pub(crate) fn versions(self) -> Adopting {
        match self {
            Adopting::Read(name, snap) => Adopting::Ready(OpenFile::new(name, snap)),
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
        let (name, snap, mut r) = match self {
            Adopting::Read(name, snap) => (name, snap, Box::default()),
            Adopting::ReadingVersions(name, snap, r) => (name, snap, r),
            Adopting::Reading(name, _) => return Err(format!("{name}: the model's chunks are not all read")),
            Adopting::Ready(f) => return Err(format!("{}: versions after the versions", f.name)),
        };
        r.feed(bytes, &snap).map_err(|e| format!("{name}: {e}"))?;
        Ok(Adopting::ReadingVersions(name, snap, r))
    }

    /// After the versions' last chunk: an error (naming the file) if they are not whole.
    pub(crate) fn versions_end(self) -> Result<Adopting, String> {
        match self {
            Adopting::ReadingVersions(name, snap, r) => {
                let versions = r.finish().map_err(|e| format!("{name}: {e}"))?;
                Ok(Adopting::Ready(OpenFile::with_versions(name, snap, versions)))
            }
            Adopting::Reading(name, _) | Adopting::Read(name, _) => {
                Err(format!("{name}: the address versions are not all read"))
            }
            ready => Ok(ready),
        }
    }

    /// The file, once its versions are in (`versions` / `versions_from`).
    pub(crate) fn ready_mut(&mut self) -> Option<&mut OpenFile> {
        match self {
            Adopting::Ready(file) => Some(file),
            _ => None,
        }
    }

    pub(crate) fn open(self) -> Result<OpenFile, String> {
        match self {
            Adopting::Reading(name, _) => Err(format!("{name}: the model's chunks are not all read")),
            Adopting::ReadingVersions(name, ..) => Err(format!("{name}: the address versions are not all read")),
            Adopting::Read(name, snap) => Ok(OpenFile::new(name, snap)),
            Adopting::Ready(file) => Ok(file),
        }
    }
}
