//! The memviz viewer without a browser: the open snapshots, the chosen file,
//! device and view, the window, the detail, the selection and the moment,
//! the caches, search, the jumps between views, hit testing, and every
//! view drawn into a pixel buffer. Native code and tests drive it as the
//! page does; memviz-wasm only moves bytes in and pixels out to the canvas.
//!
//! Coordinates the page passes are CSS pixels of a canvas;
//! [`Viewer::set_dpr`] says how many device pixels one is.
//!
//! - [`boundary`]: the page's typed surface: [`boundary::PageError`] and
//!   the TypeScript declarations of everything that crosses;
//! - [`context`]: what every view sees (files, device, the band plot's
//!   window, detail, columns, hovered and pinned band);
//! - [`view`]: the [`View`] trait the selector's views implement;
//! - [`views`]: one type per view (timelines, pools, state history, settings);
//! - [`search`]: search by address or frame text in the current view;
//! - [`moment`]: the analysis of the current file and device (one cache)
//!   and the "Alive at" panel's data;
//! - [`explain`]: "Explain the memory": Color by, the stacked area, the
//!   highlight, peak / OOM markers, OOM and peak explained, leaks;
//! - [`phases`]: record_function phases, annotate markers, wall-clock time;
//! - [`xaxis`]: the plot's x axis in steps or in wall-clock time (one
//!   mapping for bands, hit testing, axes, minimap and markers);
//! - [`ranks`]: many files at once: overview rows, rank order, diffs;
//! - [`profiler`]: a torch.profiler memory export as its chart
//!   ([`ProfilerView`], apart from [`Viewer`]).

pub mod boundary;
pub mod context;
pub mod explain;
mod files;
pub mod keys;
pub mod moment;
pub mod page;
pub mod phases;
pub mod pointer;
pub mod profiler;
pub mod ranks;
pub mod search;
pub mod timings;
pub mod view;
pub mod views;
pub mod whatif;
pub mod work;
pub mod xaxis;

use boundary::PageError;
use memviz_core::model::BlockState;
use memviz_core::summary::TimelineSummary;
use memviz_core::timeline::{EventLinks, EventLinksBuilder, Hit, TimelineKind};
use memviz_render::segment_map::WASTE;
use memviz_render::{Image, Window, OUTLINE};

pub use context::{Context, PlotRect, DEFAULT_DETAIL_CAP, MARGIN};
pub use files::{
    failed, plan, sniff, warm_up, AheadPlan, Decoder, FailedLine, FileKind, FileSniff, MemoryAhead, OpenCommand,
    OpenFailure, OpenFile, OpenPlan, OpenReply, ReadState, CHUNK, FEED, SNIFF_HEAD,
};
pub use profiler::ProfilerView;
pub use timings::WorkerTimings;
pub use view::{Axes, AxesSpec, PlotFrame, Selection, TimeTicks, View, ViewKind};
pub use views::Views;
pub use xaxis::XMode;

/// The whole viewer state.
#[derive(Default)]
pub struct Viewer {
    pub cx: Context,
    pub views: Views,
    /// The selector's index.
    selected: usize,
    loading: Option<files::Loading>,
    /// A file decoded elsewhere, between `adopt` and `adopt_finish`.
    adopting: Option<files::Adopting>,
    pub(crate) search: search::Search,
    /// Links between trace events and Active Memory elements, of (file, device).
    links: Option<((usize, u32), EventLinks)>,
    /// Those links being built in steps (`prepare_view_step`).
    links_building: Option<((usize, u32), Box<EventLinksBuilder>)>,
    moment: moment::MomentCache,
    /// The analyses of the last diff sides, and one being built in steps
    /// (moment.rs).
    analyses: moment::Analyses,
    /// Color by, highlight, stacked area (explain.rs).
    explain: explain::ExplainState,
    /// The times of the current timeline's steps (phases.rs).
    step_times: Option<phases::StepTimes>,
    /// The current timeline's phases (phases.rs).
    phase_cache: phases::PhaseCache,
    /// The "What if" panel's replays (whatif.rs).
    whatif: whatif::WhatIfState,
    /// The Diff panel's two sides (ranks.rs).
    diff_sides: ranks::DiffSides,
    /// The rank overview's rows, in the order their files were read (ranks.rs).
    rank_rows: Vec<ranks::RankRow>,
    /// The hit of the last pointer command (page.rs: the card and outline
    /// change only when it does).
    last_hit: Option<i32>,
    /// The plot's keyboard cursor, CSS px (keys.rs).
    kb_cursor: Option<[f64; 2]>,
    /// A press on the plot or the minimap not yet released (pointer.rs).
    drag: Option<pointer::Drag>,
}

/// The selector index of a timeline.
fn timeline_index(kind: TimelineKind) -> usize {
    match kind {
        TimelineKind::ActiveMemory => 0,
        TimelineKind::CachedSegments => 1,
    }
}

impl Viewer {
    pub fn new() -> Viewer {
        Viewer::default()
    }

    /// Device pixels per CSS pixel, for the coordinates that follow.
    pub fn set_dpr(&mut self, dpr: f64) {
        self.cx.dpr = dpr;
    }

    // ---- files -------------------------------------------------------------

    /// Starts reading a file that arrives in chunks (`feed`, then `finish`).
    pub fn begin(&mut self, name: &str) {
        // One read at a time: one left unfinished (cancelled) goes.
        self.adopting = None;
        self.loading = Some(files::Loading::new(name));
    }

    /// Decodes the next chunk; the error names the file and the byte offset.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), PageError> {
        let Some(loading) = self.loading.as_mut() else {
            return Err(files::out_of_order("feed without begin"));
        };
        loading.feed(chunk).inspect_err(|_| self.loading = None)
    }

    /// Ends the file; returns its index (it becomes the current file).
    pub fn finish(&mut self) -> Result<usize, PageError> {
        self.cx.axes_key = None;
        let Some(loading) = self.loading.take() else {
            return Err(files::out_of_order("finish without begin"));
        };
        Ok(self.add(loading.finish()?))
    }

    /// Opens a whole file at once.
    pub fn open(&mut self, name: &str, bytes: &[u8]) -> Result<usize, PageError> {
        self.cx.axes_key = None;
        Ok(self.add(files::open(name, bytes)?))
    }

    /// Opens a file decoded elsewhere (the page's worker), from the model's
    /// wire form (`Snapshot::to_wire`), in calls that the page runs as
    /// separate tasks, so that none of them is long: `adopt` reads the model,
    /// `adopt_replay` replays its first timeline (optional), `adopt_finish`
    /// opens it and returns its index. Nothing is shown before
    /// `adopt_finish`. Its address versions come after it opens
    /// (`versions_chunk`, `versions_end`): only texts that name a block
    /// need them. Meanwhile a hover names an address without its version;
    /// a search or the state history computes them here.
    pub fn adopt(&mut self, name: &str, wire: &[u8]) -> Result<(), PageError> {
        self.adopting = Some(files::Adopting::read(name, wire)?);
        Ok(())
    }

    /// [`Viewer::adopt`] from the chunks of `Snapshot::wire_chunks`,
    /// pulled one at a time from `next` (None: no more), so that only one
    /// is held besides the model.
    pub fn adopt_chunks(&mut self, name: &str, next: &mut dyn FnMut() -> Option<Vec<u8>>) -> Result<(), PageError> {
        self.adopting = Some(files::Adopting::read_chunks(name, next)?);
        Ok(())
    }

    /// [`Viewer::adopt`] in as many calls as the model has chunks
    /// (`Snapshot::wire_chunks`), so that the page may yield between
    /// two: `adopt_begin`, `adopt_chunk` for each, in order, `adopt_end`.
    pub fn adopt_begin(&mut self, name: &str) {
        self.loading = None;
        self.adopting = Some(files::Adopting::Reading(name.to_string(), Box::default()));
    }

    /// The next chunk of the model (after `adopt_begin`); after an error
    /// the file is dropped (the error names it).
    pub fn adopt_chunk(&mut self, bytes: &[u8]) -> Result<(), PageError> {
        let adopting = self.adopting.as_mut().ok_or_else(|| files::out_of_order("adopt_chunk without adopt_begin"))?;
        let r = adopting.chunk(bytes);
        if r.is_err() {
            self.adopting = None;
        }
        r
    }

    /// After the last chunk: an error (naming the file) if the model is not whole.
    pub fn adopt_end(&mut self) -> Result<(), PageError> {
        let adopting = self.adopting.take().ok_or_else(|| files::out_of_order("adopt_end without adopt_begin"))?;
        self.adopting = Some(adopting.read_end()?);
        Ok(())
    }

    /// After the model and before `adopt_finish`: replays the timeline the
    /// file will first show (its default device, the current view's kind)
    /// in steps of about `budget` trace events, one call per step, so that
    /// the page can yield between them; true once it is replayed.
    /// Optional: `adopt_finish` replays whatever is left in one go.
    pub fn adopt_replay(&mut self, budget: usize) -> Result<bool, PageError> {
        let kind = self.cx.kind;
        self.adopting
            .as_mut()
            .ok_or_else(|| files::out_of_order("adopt_replay without adopt"))?
            .replay_step(kind, budget)
    }

    /// The last step of [`Viewer::adopt`]: the file becomes the current one.
    pub fn adopt_finish(&mut self) -> Result<usize, PageError> {
        let file = self.adopting.take().ok_or_else(|| files::out_of_order("adopt_finish without adopt"))?.open()?;
        self.cx.axes_key = None;
        Ok(self.add(file))
    }

    /// The next chunk of file `i`'s address versions computed elsewhere
    /// (`Versions::wire_chunks`, in order), after `adopt_finish`; ignored
    /// once they are known. After an error (it names the file) they are
    /// computed here when needed.
    pub fn versions_chunk(&mut self, i: usize, bytes: &[u8]) -> Result<(), PageError> {
        self.cx.files.get_mut(i).ok_or_else(|| files::out_of_order(format!("no file {i}")))?.versions_chunk(bytes)
    }

    /// After the last chunk of file `i`'s versions: an error (naming the
    /// file) if they are not whole; they are then computed here when needed.
    pub fn versions_end(&mut self, i: usize) -> Result<(), PageError> {
        self.cx.files.get_mut(i).ok_or_else(|| files::out_of_order(format!("no file {i}")))?.versions_end()
    }

    /// File `i`'s versions will not come from elsewhere (the worker
    /// failed): they are computed here when needed.
    pub fn versions_lost(&mut self, i: usize) {
        if let Some(f) = self.cx.files.get_mut(i) {
            f.versions_lost();
        }
    }

    /// Whether file `i`'s address versions are known (given or computed).
    pub fn has_versions(&self, i: usize) -> bool {
        self.cx.files.get(i).is_some_and(|f| f.has_versions())
    }

    fn add(&mut self, file: OpenFile) -> usize {
        self.cx.files.push(file);
        let i = self.cx.files.len() - 1;
        self.select_file(i);
        i
    }

    pub fn file_names(&self) -> Vec<String> {
        self.cx.files.iter().map(|f| f.name.clone()).collect()
    }

    /// How many files are open (the page asks on every redraw: no names copied).
    pub fn file_count(&self) -> usize {
        self.cx.files.len()
    }

    /// See [`Context::generation`].
    pub fn generation(&self) -> u32 {
        self.cx.generation
    }

    pub fn current_file(&self) -> usize {
        self.cx.current
    }

    pub fn select_file(&mut self, i: usize) {
        let Some(f) = self.cx.files.get(i) else { return };
        self.cx.device = f.first_device();
        self.cx.current = i;
        self.cx.shows += 1;
        self.cx.files[i].shown = self.cx.shows;
        self.cx.generation = self.cx.generation.wrapping_add(1);
        self.cx.rebuild();
    }

    /// Devices memory_viz offers for the current file.
    pub fn devices(&self) -> Vec<u32> {
        self.cx.file().map_or(Vec::new(), |f| f.snap.devices())
    }

    /// The selector's text for each of [`Viewer::devices`]: `cuda:0`, ...,
    /// `host` (pinned host memory).
    pub fn device_labels(&self) -> Vec<String> {
        self.cx.file().map_or(Vec::new(), |f| f.snap.devices().into_iter().map(|d| f.snap.device_label(d)).collect())
    }

    /// What reading the current file left out or read as a default, one line
    /// each; empty for a sound file.
    pub fn warnings(&self) -> Vec<String> {
        self.cx.file().map_or(Vec::new(), |f| f.snap.warnings.list.iter().map(|w| w.to_string()).collect())
    }

    pub fn device(&self) -> u32 {
        self.cx.device
    }

    pub fn set_device(&mut self, d: u32) {
        self.cx.device = d;
        self.cx.generation = self.cx.generation.wrapping_add(1);
        self.cx.rebuild();
    }

    // ---- views -------------------------------------------------------------

    pub fn view_names(&self) -> Vec<String> {
        (0..views::COUNT).map(|i| self.views.get(i).name().to_string()).collect()
    }

    /// Builds what showing view `i` needs ahead of `set_view`, about
    /// `budget` trace events a call, so that the page can do a long build
    /// a slice a frame: the share done, 1.0 once ready (at once for views
    /// that need nothing built). The state history walks the trace in
    /// steps; the pools view builds its pools, their detail and sweep, one
    /// a call.
    pub fn prepare_view_step(&mut self, i: usize, budget: usize) -> f64 {
        match self.views.get(i).kind() {
            ViewKind::State => {}
            ViewKind::Pools => return self.views.pools.prepare_step(&self.cx),
            _ => return 1.0,
        }
        let done = self.views.state.prepare_step(&self.cx, budget);
        if done < 1.0 {
            return done;
        }
        // Its first showing then asks for the links to the timeline (~25 ms
        // on the 2M-event file): in a call of their own.
        let k = self.cx.key();
        if self.cx.kind != TimelineKind::ActiveMemory || self.links.as_ref().map(|l| l.0) == Some(k) {
            return 1.0;
        }
        let (Some(f), Some(tl)) = (self.cx.file(), self.cx.timeline()) else { return 1.0 };
        let b = match &mut self.links_building {
            Some((bk, b)) if *bk == k => b,
            other => &mut other.insert((k, Box::new(EventLinksBuilder::new(&f.snap, tl)))).1,
        };
        if !b.step(&f.snap, tl, budget) {
            return 0.999;
        }
        self.links();
        0.999
    }

    /// The selector's index.
    pub fn view(&self) -> usize {
        self.selected
    }

    /// The view the selector shows.
    pub fn current_view(&self) -> &dyn View {
        self.views.get(self.selected)
    }

    /// Selects view `v`; the views that are not timelines run on the Active
    /// Memory timeline underneath (pools draw it, jumps link to it). An index
    /// past the last view shows the timeline underneath as it is.
    pub fn set_view(&mut self, v: usize) {
        if v < views::COUNT {
            self.selected = v;
            self.views.get_mut(v).enter(&mut self.cx);
        } else {
            self.selected = timeline_index(self.cx.kind);
        }
    }

    /// "timeline", "pools", "state" or "settings": what the page shows.
    pub fn view_kind(&self) -> ViewKind {
        self.current_view().kind()
    }

    /// Whether "Color by" changes what the current view draws: only the
    /// Active Memory Timeline's bands take its colours (explain.rs'
    /// `colors_apply`); elsewhere the page hides the control.
    pub fn color_by_acts(&self) -> bool {
        self.view_kind() == ViewKind::Timeline
            && self.cx.timeline().is_some_and(|t| t.kind == memviz_core::timeline::TimelineKind::ActiveMemory)
    }

    /// The current file's allocator_settings, readable.
    pub fn allocator_settings_text(&self) -> String {
        self.views.settings.text(&self.cx)
    }

    // ---- detail and window -------------------------------------------------

    /// Elements of the timeline (the detail slider's maximum).
    pub fn element_count(&self) -> u32 {
        self.cx.element_count()
    }

    pub fn detail(&self) -> u32 {
        self.cx.limit
    }

    /// Draws the `n` largest elements as bands, the rest summarized.
    pub fn set_detail(&mut self, n: u32) {
        self.cx.set_detail(n);
    }

    /// Elements drawn as their own band at the current detail.
    pub fn drawn_count(&self) -> u32 {
        self.cx.drawn_count()
    }

    pub fn n_steps(&self) -> u32 {
        self.cx.n_steps()
    }

    pub fn window(&self) -> Window {
        self.cx.window
    }

    /// Shows steps `[x0, x1)` (clamped to the trace).
    pub fn set_window(&mut self, x0: f64, x1: f64) {
        self.cx.set_window(Window { x0, x1 });
    }

    pub fn reset_window(&mut self) {
        self.cx.set_window(Window::full(self.cx.n_steps()));
    }

    /// Zooms by `factor` (< 1 zooms in) around CSS x of the plot canvas.
    pub fn zoom_at(&mut self, factor: f64, x: f64) {
        let at = self.cx.plot_frac(x);
        self.cx.zoom(factor, at);
    }

    /// Pans by `dx` CSS pixels of the plot canvas (drag right shows earlier
    /// steps).
    pub fn pan_by(&mut self, dx: f64) {
        if let Some(r) = self.cx.rect {
            self.cx.pan(-dx * self.cx.dpr / r.w as f64);
        }
    }

    /// Peak of the timeline: bytes and step.
    pub fn peak_bytes(&self) -> u64 {
        self.cx.timeline().map_or(0, |t| t.peak_bytes())
    }

    pub fn peak_step(&self) -> u32 {
        self.cx.timeline().map_or(0, |t| t.peak_step())
    }

    // ---- the band plot -----------------------------------------------------

    /// Draws the current view's band plot for a canvas of `w` x `h` device
    /// pixels into [`Viewer::plot_image`] (in the colors or as the stacked
    /// area explain.rs chose), search matches ticked. None: the
    /// view has none now (the canvas stays clear).
    pub fn render_plot(&mut self, w: u32, h: u32) -> Option<PlotFrame> {
        let timeline = self.view_kind() == ViewKind::Timeline;
        if timeline {
            self.explain_colors();
        }
        let frame = self.views.get_mut(self.selected).draw_plot(&mut self.cx, w, h)?;
        if let Axes::Draw(spec) = &frame.axes {
            self.cx.axes_band = spec.label_below;
        }
        if timeline {
            self.explain_area();
            self.tick_matches();
        }
        self.cx.veil_gaps();
        Some(frame)
    }

    /// The band plot as last drawn.
    pub fn plot_image(&self) -> &Image {
        &self.cx.plot
    }

    /// Draws the outline of the hovered or pinned band apart from the band
    /// plot as last drawn, where the current view keeps it apart (its
    /// pixels: `selection_image`). A hover then redraws the outline alone:
    /// O(columns), where the plot costs O(live bands) per column.
    pub fn render_selection(&mut self) -> Selection {
        if self.area_shown() {
            return Selection::Empty; // the area chart covers the bands
        }
        self.views.get_mut(self.selected).draw_selection(&mut self.cx)
    }

    /// Builds what the first hover of the plot needs and would otherwise
    /// build itself: the hit test's index of the drawn bands, and the
    /// steps' times where there are times. The page calls it when idle: a
    /// first hover on a 2M-event file with every band drawn waited 14-46 ms
    /// for the one and 21-30 ms for the other (issue 13). Cheap once built.
    pub fn prepare_hover(&mut self) {
        if let (Some(tl), Some(d)) = (self.cx.timeline(), self.cx.detail.as_ref()) {
            d.prepare(tl);
        }
        if let Some(f) = self.cx.file() {
            f.prepare_versions();
        }
        if self.view_kind() == ViewKind::Timeline && self.cx.has_time() {
            let _ = self.time_at_step(0.0);
        }
    }

    /// The outline drawn by `render_selection`.
    pub fn selection_image(&self) -> &Image {
        &self.cx.selection
    }

    /// Draws the minimap of the timeline for `w` x `h` device pixels.
    pub fn render_minimap(&mut self, w: u32, h: u32) -> &Image {
        self.cx.render_minimap(w, h);
        &self.cx.minimap
    }

    /// Pointer at CSS (x, y) of the plot canvas: the text of what is under
    /// it, or of the pinned band over empty space.
    pub fn hover(&mut self, x: f64, y: f64) -> String {
        self.views.get_mut(self.selected).hover(&mut self.cx, x, y)
    }

    /// Pointer left the plot: the pinned band stays selected.
    pub fn leave(&mut self) -> String {
        self.views.get_mut(self.selected).leave(&mut self.cx)
    }

    /// Click: pins what is under the pointer (or unpins on empty space).
    pub fn click(&mut self, x: f64, y: f64) -> String {
        self.views.get_mut(self.selected).click(&mut self.cx, x, y)
    }

    /// Element index under the pointer, -1 for none, -2 for the summarized
    /// band, -(10 + pool) for a private pool's envelope.
    pub fn hit_at(&mut self, x: f64, y: f64) -> i32 {
        self.views.get_mut(self.selected).hit_code(&mut self.cx, x, y)
    }

    /// CSS point of the plot canvas where `elem` can be hovered: `[x, y]`,
    /// empty when it is not drawn in the window.
    pub fn locate(&self, elem: u32) -> Vec<f64> {
        self.cx.locate(elem)
    }

    /// The text of element `elem` of the timeline.
    pub fn element_text(&self, elem: u32) -> String {
        self.cx.hit_text(Some(Hit::Element(elem)))
    }

    /// The hover card of element `elem` of the timeline (JSON,
    /// `memviz_core::format::hover_card`): the user's frames first, the rest
    /// folded.
    pub fn element_card(&self, elem: u32) -> String {
        match (self.cx.file(), self.cx.timeline()) {
            (Some(f), Some(tl)) => memviz_core::format::hover_card(&f.snap, f.versions_now(), tl, elem),
            _ => "{}".to_string(),
        }
    }

    /// The largest element (the first drawn band).
    pub fn largest_element(&self) -> Option<u32> {
        self.cx.timeline().and_then(|t| t.by_size.first().copied())
    }

    /// Step of the plot under CSS x (rounded; clamped to the timeline).
    pub fn step_at_x(&self, x: f64) -> u32 {
        let s = self.cx.step_at_frac(self.cx.plot_frac(x));
        (s.round().max(0.0) as u32).min(self.cx.n_steps().saturating_sub(1))
    }

    /// CSS x of step `s` on the plot as last drawn (NaN before a draw).
    pub fn x_of_step(&self, s: f64) -> f64 {
        let Some(r) = self.cx.rect else { return f64::NAN };
        (r.x as f64 + self.cx.frac_of_step(s) * r.w as f64) / self.cx.dpr
    }

    // ---- the x axis (xaxis.rs) ---------------------------------------------

    /// Asks for the x axis in steps or in wall-clock time; true when the
    /// plot now shows it (a timeline without time_us stays in steps: see
    /// [`Viewer::x_axis_reason`]). Kept across views, devices and files.
    pub fn set_x_axis(&mut self, mode: XMode) -> bool {
        self.cx.set_x_mode(mode)
    }

    /// The x axis the plot shows now.
    pub fn x_axis(&self) -> XMode {
        self.cx.x_shown()
    }

    /// The x axis asked for.
    pub fn x_axis_asked(&self) -> XMode {
        self.cx.x_mode
    }

    /// Why the time axis is not available for the current timeline; empty
    /// when it is.
    pub fn x_axis_reason(&self) -> String {
        self.cx.x_reason()
    }

    /// Step at fraction `f` of the minimap's width.
    pub fn minimap_step(&self, f: f64) -> f64 {
        self.cx.minimap_step(f)
    }

    /// Centers the window on step `s`, keeping its width on the axis.
    pub fn center_window(&mut self, s: f64) {
        self.cx.center_on(s);
    }

    /// Ticks at the top of the timeline plot above each search match's
    /// first step (the current match in black).
    fn tick_matches(&mut self) {
        if !self.search.is_for(&self.cx, self.selected) || self.search.matches.is_empty() {
            return;
        }
        let mut img = std::mem::take(&mut self.cx.plot);
        self.draw_ticks(&mut img);
        self.cx.plot = img;
    }

    fn draw_ticks(&self, img: &mut Image) {
        let Some(tl) = self.cx.timeline() else { return };
        let cols = &self.cx.cols.step;
        if cols.is_empty() || img.height == 0 {
            return;
        }
        // The column whose step range holds the match's first step.
        let win = self.cx.window;
        let tick = (img.height / 40).clamp(4, 12);
        for &e in &self.search.matches {
            let Some(el) = tl.elements.get(e as usize) else { continue };
            // Alive when the window starts: the first column.
            let c = (self.cx.frac_of_step(el.x0 as f64) * cols.len() as f64).floor().max(0.0);
            if c >= cols.len() as f64 || el.x1 as f64 <= win.x0 {
                continue;
            }
            let c = c as usize;
            let color = if self.search.current == Some(e) { OUTLINE } else { WASTE };
            for x in c.saturating_sub(1)..(c + 2).min(img.width as usize) {
                for y in 0..tick {
                    img.put(x as u32, y, color);
                }
            }
        }
    }

    // ---- numbers -----------------------------------------------------------

    /// Numbers of the page's summary line, as JSON: the current device's
    /// numbers as `memviz summary --json` names them, and the timeline's
    /// totals under `timeline`.
    pub fn summary_json(&self) -> String {
        let Some(f) = self.cx.file() else {
            return "{}".into();
        };
        let (snap, d) = (&f.snap, self.cx.device);
        let segs = || snap.device_segments(d);
        let active_blocks: usize = segs()
            .map(|s| snap.segment_blocks(s).iter().filter(|b| b.state == BlockState::ActiveAllocated).count())
            .sum();
        let tl = self.cx.timeline().map(TimelineSummary::of).unwrap_or_default();
        serde_json::json!({
            "file": f.name,
            "device": d,
            "device_name": snap.device_name(d),
            "view": self.views.get(timeline_index(self.cx.kind)).name(),
            "trace_events": snap.trace(d).len(),
            "segments": segs().count(),
            // Wrapping as `memviz summary` sums them (a hostile file's sizes
            // may add up past 2^64; `sum` would panic in a debug build).
            "reserved_bytes": segs().fold(0u64, |a, s| a.wrapping_add(s.total_size)),
            "allocated_bytes": segs().fold(0u64, |a, s| a.wrapping_add(s.allocated_size)),
            "active_blocks": active_blocks,
            "timeline": tl,
            "peak_step": self.peak_step(),
            "steps": self.cx.n_steps(),
        })
        .to_string()
    }

    // ---- jumps between the state history and the timeline ------------------

    /// The Active Memory links of the current file and device, built on
    /// first use; None when another timeline is underneath.
    fn links(&mut self) -> Option<&EventLinks> {
        let f = self.cx.file()?;
        let tl = self.cx.timeline()?;
        if self.cx.kind != TimelineKind::ActiveMemory {
            return None;
        }
        let k = self.cx.key();
        if self.links.as_ref().map(|l| l.0) != Some(k) {
            let links = match self.links_building.take() {
                Some((bk, b)) if bk == k => b.finish(&f.snap, tl),
                _ => EventLinks::new(&f.snap, tl),
            };
            self.links = Some((k, links));
        }
        self.links.as_ref().map(|l| &l.1)
    }

    /// The Active Memory element the selected event allocates or frees.
    pub fn state_linked_element(&mut self) -> Option<u32> {
        let sel = self.views.state.selected(&self.cx)?;
        self.links()?.element_of_event(sel)
    }

    /// From the state history to the Active Memory Timeline: pins the
    /// element of the selected event and shows the steps around it.
    pub fn show_in_timeline(&mut self) -> Option<u32> {
        let e = self.state_linked_element()?;
        self.set_view(0);
        self.show_element(e);
        Some(e)
    }

    /// Pins element `e` of the timeline and pans the window to it.
    pub fn show_element(&mut self, e: u32) {
        self.views.get_mut(self.selected).pin_element(&mut self.cx, e);
    }

    /// The pinned element of the timeline.
    pub fn pinned_element(&self) -> Option<u32> {
        self.current_view().pinned_element(&self.cx)
    }

    /// The trace event the state history selects for element `e` of the
    /// Active Memory timeline (its alloc, else its free).
    pub fn element_event(&mut self, e: u32) -> Option<u32> {
        self.links()?;
        let (l, tl) = (&self.links.as_ref()?.1, self.cx.timeline()?);
        l.event_for_element(tl, e)
    }

    /// From the timeline to the state history at the pinned element's alloc
    /// event (None for a block from before recording that was never freed:
    /// the final state shows it).
    pub fn show_in_state(&mut self) -> Option<u32> {
        let e = self.pinned_element()?;
        let ev = self.element_event(e)?;
        self.set_view(Views::STATE);
        self.views.state.select(&self.cx, ev as usize);
        Some(ev)
    }
}
