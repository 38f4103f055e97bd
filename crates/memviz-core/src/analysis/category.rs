//! What kind of memory each allocation is: parameter, gradient, optimizer
//! state, activation, autograd saved tensor, temporary or other. Modelled on
//! torch.profiler's memory profiler categories, but inferred from what a
//! snapshot holds: the stack of each alloc and free event, and the order of
//! events.
//!
//! # Phases
//!
//! Each stack is given a *phase* by its innermost *marker* frame (frames are
//! scanned innermost first, all of them, C++ included; `\` counts as `/` in
//! file names):
//!
//! | phase | marker frame |
//! |---|---|
//! | optimizer | file under `torch/optim/` (torch's optimizers, and `Optimizer.step`'s wrapper around a user's own `step`) |
//! | backward | function `torch::autograd::Engine::…` or `torch::autograd::generated::…Backward…`; a Python function named `backward`; `grad` in `torch/autograd/__init__.py` |
//! | setup | `_apply`, `to`, `cuda`, `convert` in `torch/nn/modules/module.py`; any `load_state_dict` / `_load_from_state_dict`; a model made on the device: `__init__` in a file under `torch/nn/modules/`, any function of `torch/nn/init.py`, any `reset_parameters` / `_reset_parameters` / `to_empty` / `from_pretrained` / `from_config` / `_from_config` |
//! | forward | a function named `forward`; `_call_impl` / `_wrapped_call_impl` in `torch/nn/modules/module.py` |
//!
//! A frame whose function name contains `closure` stops the scan with no
//! phase: `optimizer.step(closure)` (Lightning) runs the whole training step
//! inside the optimizer, and what the closure allocates outside a forward or
//! backward is not optimizer state.
//!
//! An event with an empty stack inherits `backward` when the last event
//! before it with a non-empty stack was in backward: with Python-only stacks
//! (`stacks='python'`) the autograd engine's threads record no frames at all.
//!
//! A *run* is a stretch of events between two changes of the marked phase
//! (events with no phase stay in the current run): a forward pass, the
//! backward after it, the optimizer step, the next forward... The events
//! before the first one with a phase are a run of their own.
//!
//! # Rules
//!
//! First match wins (`Rule` names them; [`infer`] is the one place they live):
//!
//! 0. `user`: the user's own `REGEX=KIND` rules, in order, matched against
//!    the allocation's stack text (shown frames, `filename:line:name`, one a
//!    line, innermost first).
//! 1. `workspace`: a frame of `at::cuda::…Workspace…` (cuBLAS's workspace
//!    made with its handle, kept as long as the handle) → other: it is
//!    allocated in whatever pass first multiplies on a thread, backward's
//!    included, and is no gradient.
//! 1. Allocated before the trace (no alloc event):
//!    * `ghost_optimizer` / `ghost_backward`: still alive at the dump, its
//!      (dump) stack in the optimizer / backward → optimizer state / gradient;
//!    * `ghost`: otherwise still alive at the dump → parameter;
//!    * `before_trace_freed_in_backward`: freed in backward → activation (kept
//!      for backward by a forward pass before the trace began);
//!    * `before_trace_zero_grad`: freed in the optimizer phase or under a
//!      `zero_grad` frame → gradient;
//!    * `before_trace`: freed anywhere else → other.
//! 2. `same_run`: freed in the run it was allocated in → temporary; only
//!    in a run with a phase (run 0, before the first marked event, is no
//!    iteration: in a loop without forward/backward frames it would colour
//!    what a collection freed of a leak `temporary` and the rest `other`).
//! 3. `optimizer`: allocated in the optimizer and outlived that step →
//!    optimizer state.
//! 4. `backward`: allocated in backward and outlived it → gradient.
//! 5. `setup`: allocated while moving or loading the model → parameter.
//! 6. `forward_freed_in_backward`: allocated in forward, freed in backward →
//!    activation; `freed_in_backward`: allocated outside any phase (loss
//!    code, inputs), freed in backward → autograd saved tensor.
//! 7. `forward`: allocated in forward and outlived it (an output kept, or
//!    alive at the end) → activation.
//! 8. `before_forward`: allocated outside any phase before the trace's
//!    first forward event and never freed → parameter (weights a module's
//!    own `__init__` made on the device: `with torch.device("cuda")`).
//! 9. `other`: everything else.

use std::collections::HashMap;

use regex::Regex;
use serde::Serialize;

use crate::format::{format_frame, frame_filter};
use crate::model::{Snapshot, StackId};

/// The kind of memory an allocation holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Kind {
    Parameter = 0,
    Gradient,
    OptimizerState,
    Activation,
    AutogradSaved,
    Temporary,
    Other,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::Parameter,
        Kind::Gradient,
        Kind::OptimizerState,
        Kind::Activation,
        Kind::AutogradSaved,
        Kind::Temporary,
        Kind::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Parameter => "parameter",
            Kind::Gradient => "gradient",
            Kind::OptimizerState => "optimizer_state",
            Kind::Activation => "activation",
            Kind::AutogradSaved => "autograd_saved",
            Kind::Temporary => "temporary",
            Kind::Other => "other",
        }
    }

    /// Accepts the names above, also with `-` or a blank for `_`, and a few
    /// short forms (`param`, `grad`, `optimizer`, `saved`, `temp`).
    pub fn from_name(s: &str) -> Option<Kind> {
        let n = s.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        Some(match n.as_str() {
            "parameter" | "param" | "parameters" => Kind::Parameter,
            "gradient" | "grad" | "gradients" => Kind::Gradient,
            "optimizer_state" | "optimizer" | "optim" => Kind::OptimizerState,
            "activation" | "activations" => Kind::Activation,
            "autograd_saved" | "autograd_saved_tensor" | "saved" | "saved_tensor" => Kind::AutogradSaved,
            "temporary" | "temp" | "temporaries" => Kind::Temporary,
            "other" => Kind::Other,
            _ => return None,
        })
    }
}

/// The phase a stack's innermost marker frame puts it in (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Phase {
    #[default]
    None = 0,
    Setup,
    Forward,
    Backward,
    Optimizer,
}

/// Which rule of the module doc decided a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    User,
    Workspace,
    GhostOptimizer,
    GhostBackward,
    Ghost,
    BeforeTraceFreedInBackward,
    BeforeTraceZeroGrad,
    BeforeTrace,
    SameRun,
    Optimizer,
    Backward,
    Setup,
    ForwardFreedInBackward,
    FreedInBackward,
    Forward,
    BeforeForward,
    Other,
}

/// What [`infer`] needs to know about one allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Facts {
    /// The alloc event's (phase, run); `None`: allocated before the trace.
    pub alloc: Option<(Phase, u32)>,
    /// The free's (phase, run): the free_requested event's when there is
    /// one (where the program let go), else the free_completed's. `None`:
    /// not freed in the trace.
    pub free: Option<(Phase, u32)>,
    /// Phase of the allocation's own stack (for blocks from the dump, which
    /// have no event to give one).
    pub stack_phase: Phase,
    /// The free's stack has a `zero_grad` frame.
    pub freed_by_zero_grad: bool,
    /// Allocated before the trace's first forward event (false when the
    /// trace has none).
    pub before_first_forward: bool,
    /// The allocation's stack has an `at::cuda::…Workspace…` frame.
    pub workspace: bool,
}

/// The built-in rules 1-8 of the module doc (rule 0, the user's, is applied
/// by the caller first).
pub fn infer(f: &Facts) -> (Kind, Rule) {
    if f.workspace {
        return (Kind::Other, Rule::Workspace);
    }
    let freed_phase = f.free.map(|(p, _)| p);
    let Some((alloc_phase, alloc_run)) = f.alloc else {
        return match freed_phase {
            None => match f.stack_phase {
                Phase::Optimizer => (Kind::OptimizerState, Rule::GhostOptimizer),
                Phase::Backward => (Kind::Gradient, Rule::GhostBackward),
                _ => (Kind::Parameter, Rule::Ghost),
            },
            Some(Phase::Backward) => (Kind::Activation, Rule::BeforeTraceFreedInBackward),
            Some(p) if p == Phase::Optimizer || f.freed_by_zero_grad => (Kind::Gradient, Rule::BeforeTraceZeroGrad),
            Some(_) => (Kind::Other, Rule::BeforeTrace),
        };
    };
    if alloc_run > 0 && matches!(f.free, Some((_, run)) if run == alloc_run) {
        return (Kind::Temporary, Rule::SameRun);
    }
    match (alloc_phase, freed_phase) {
        (Phase::Optimizer, _) => (Kind::OptimizerState, Rule::Optimizer),
        (Phase::Backward, _) => (Kind::Gradient, Rule::Backward),
        (Phase::Setup, _) => (Kind::Parameter, Rule::Setup),
        (Phase::Forward, Some(Phase::Backward)) => (Kind::Activation, Rule::ForwardFreedInBackward),
        (_, Some(Phase::Backward)) => (Kind::AutogradSaved, Rule::FreedInBackward),
        (Phase::Forward, _) => (Kind::Activation, Rule::Forward),
        (Phase::None, None) if f.before_first_forward => (Kind::Parameter, Rule::BeforeForward),
        _ => (Kind::Other, Rule::Other),
    }
}

/// What one frame says about the phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Phase(Phase),
    /// Stop looking outwards: no phase.
    Barrier,
    Nothing,
}

/// Ends with `tail` (written with `/`), reading `\` in `file` as `/`.
fn file_ends_with(file: &str, tail: &str) -> bool {
    file.len() >= tail.len()
        && file.as_bytes()[file.len() - tail.len()..]
            .iter()
            .zip(tail.as_bytes())
            .all(|(&a, &b)| a == b || (a == b'\\' && b == b'/'))
}

/// Contains `part` (written with `/`), reading `\` in `file` as `/`.
fn file_contains(file: &str, part: &str) -> bool {
    let (f, p) = (file.as_bytes(), part.as_bytes());
    p.is_empty() || f.windows(p.len()).any(|w| w.iter().zip(p).all(|(&a, &b)| a == b || (a == b'\\' && b == b'/')))
}

fn frame_mark(name: &str, file: &str) -> Mark {
    if name.contains("closure") {
        return Mark::Barrier;
    }
    if file_contains(file, "torch/optim/") {
        return Mark::Phase(Phase::Optimizer);
    }
    if name.contains("torch::autograd::Engine::")
        || (name.contains("torch::autograd::generated::") && name.contains("Backward"))
        || name == "backward"
        || (name == "grad" && file_ends_with(file, "torch/autograd/__init__.py"))
    {
        return Mark::Phase(Phase::Backward);
    }
    let in_module = file_ends_with(file, "torch/nn/modules/module.py");
    if (in_module && matches!(name, "_apply" | "to" | "cuda" | "convert"))
        || matches!(
            name,
            "load_state_dict"
                | "_load_from_state_dict"
                | "reset_parameters"
                | "_reset_parameters"
                | "to_empty"
                | "from_pretrained"
                | "from_config"
                | "_from_config"
        )
        || (name == "__init__" && file_contains(file, "torch/nn/modules/"))
        || file_ends_with(file, "torch/nn/init.py")
    {
        return Mark::Phase(Phase::Setup);
    }
    if name == "forward" || (in_module && matches!(name, "_call_impl" | "_wrapped_call_impl")) {
        return Mark::Phase(Phase::Forward);
    }
    Mark::Nothing
}

/// Frames of `stack`, or none for an id the snapshot does not have.
fn frames_of(snap: &Snapshot, stack: StackId) -> &[u32] {
    if (stack as usize) < snap.stacks.len() {
        snap.stack(stack)
    } else {
        &[]
    }
}

/// The phase of a stack: its innermost marker frame's (`mark` gives each
/// frame id's [`Mark`]).
fn stack_phase_with(snap: &Snapshot, stack: StackId, mut mark: impl FnMut(u32) -> Mark) -> Phase {
    for &f in frames_of(snap, stack) {
        match mark(f) {
            Mark::Phase(p) => return p,
            Mark::Barrier => return Phase::None,
            Mark::Nothing => {}
        }
    }
    Phase::None
}

/// The mark of frame id `f` (none for an id the snapshot does not have).
fn mark_of(snap: &Snapshot, f: u32) -> Mark {
    snap.frames.get(f as usize).map_or(Mark::Nothing, |fr| frame_mark(snap.str(fr.name), snap.str(fr.filename)))
}

/// The phase of a stack: its innermost marker frame's.
pub fn stack_phase(snap: &Snapshot, stack: StackId) -> Phase {
    stack_phase_with(snap, stack, |f| mark_of(snap, f))
}

/// A frame of a CUDA library's workspace (`at::cuda::setWorkspaceForHandle`,
/// `at::cuda::getCUDABlasLtWorkspace`).
fn is_workspace(name: &str) -> bool {
    name.contains("at::cuda::") && name.contains("Workspace")
}

fn is_zero_grad(snap: &Snapshot, f: u32) -> bool {
    snap.frames.get(f as usize).is_some_and(|fr| snap.str(fr.name) == "zero_grad")
}

/// The shown frames of a stack as user rules see them: `filename:line:name`
/// (plus FX lines) one a line, innermost first; "" for an empty stack.
pub fn stack_text(snap: &Snapshot, stack: StackId) -> String {
    let mut out = String::new();
    for &f in frames_of(snap, stack) {
        let Some(fr) = snap.frames.get(f as usize) else { continue };
        if frame_filter(snap.str(fr.name), snap.str(fr.filename)) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format_frame(snap, fr));
        }
    }
    out
}

/// The user's `REGEX=KIND` rules, tried in order before inference.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    rules: Vec<(Regex, Kind)>,
}

impl Rules {
    /// Parses `REGEX=KIND` rules (split at the last `=`, so the regex may
    /// contain `=`). Errors name the rule and what is wrong with it.
    pub fn parse<S: AsRef<str>>(specs: &[S]) -> Result<Rules, String> {
        let mut rules = Vec::new();
        for spec in specs {
            let spec = spec.as_ref();
            let (re, kind) =
                spec.rsplit_once('=').ok_or_else(|| format!("category rule {spec:?}: expected REGEX=KIND"))?;
            let kind = Kind::from_name(kind).ok_or_else(|| {
                let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
                format!("category rule {spec:?}: unknown kind {kind:?} (one of {})", names.join(", "))
            })?;
            // A size limit keeps a hostile pattern from eating the memory.
            let re = regex::RegexBuilder::new(re)
                .size_limit(1 << 20)
                .build()
                // regex's message spans lines (pattern, caret, error): the
                // CLI prints one line, the error itself.
                .map_err(|e| {
                    format!("category rule {spec:?}: {}", e.to_string().lines().last().unwrap_or("bad regex").trim())
                })?;
            rules.push((re, kind));
        }
        Ok(Rules { rules })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The kind of the first rule whose regex matches `text`.
    pub fn classify(&self, text: &str) -> Option<Kind> {
        self.rules.iter().find(|(re, _)| re.is_match(text)).map(|&(_, k)| k)
    }
}

/// Per stack id, computed once: phase, `zero_grad`, the user rules' kind.
/// Stacks share most of their frames, so each frame's string tests run once
/// too (`frame_facts`), not once per stack it appears in.
#[derive(Default)]
pub(crate) struct StackFacts {
    phase: HashMap<StackId, (Phase, bool)>,
    user: HashMap<StackId, Option<Kind>>,
    workspace: HashMap<StackId, bool>,
    /// Per frame id, once looked at: its mark and whether it is `zero_grad`.
    frame_facts: Vec<Option<(Mark, bool)>>,
}

impl StackFacts {
    /// (phase, has a `zero_grad` frame).
    pub(crate) fn phase(&mut self, snap: &Snapshot, stack: StackId) -> (Phase, bool) {
        if let Some(&known) = self.phase.get(&stack) {
            return known;
        }
        if self.frame_facts.len() != snap.frames.len() {
            self.frame_facts = vec![None; snap.frames.len()];
        }
        let facts = &mut self.frame_facts;
        let mut frame = |f: u32| -> (Mark, bool) {
            match facts.get_mut(f as usize) {
                Some(slot) => *slot.get_or_insert_with(|| (mark_of(snap, f), is_zero_grad(snap, f))),
                None => (Mark::Nothing, false),
            }
        };
        let phase = stack_phase_with(snap, stack, |f| frame(f).0);
        let zero_grad = frames_of(snap, stack).iter().any(|&f| frame(f).1);
        self.phase.insert(stack, (phase, zero_grad));
        (phase, zero_grad)
    }
    /// The stack has a workspace frame ([`is_workspace`]).
    pub(crate) fn workspace(&mut self, snap: &Snapshot, stack: StackId) -> bool {
        *self.workspace.entry(stack).or_insert_with(|| {
            frames_of(snap, stack)
                .iter()
                .any(|&f| snap.frames.get(f as usize).is_some_and(|fr| is_workspace(snap.str(fr.name))))
        })
    }

    pub(crate) fn user_kind(&mut self, snap: &Snapshot, rules: &Rules, stack: StackId) -> Option<Kind> {
        if rules.is_empty() {
            return None;
        }
        *self.user.entry(stack).or_insert_with(|| rules.classify(&stack_text(snap, stack)))
    }
}

/// The phase and run of trace events, a range at a time (see the module
/// doc): `phases[i]`, `runs[i]` of event i once `next` is past it.
#[derive(Default)]
pub(crate) struct EventPhases {
    pub(crate) phases: Vec<Phase>,
    pub(crate) runs: Vec<u32>,
    last_stacked: Phase,
    last_marked: Phase,
    run: u32,
}

impl EventPhases {
    /// Events `phases.len()..` up to `budget` of them; true once all are.
    pub(crate) fn step(&mut self, snap: &Snapshot, device: u32, facts: &mut StackFacts, budget: usize) -> bool {
        let trace = snap.trace(device);
        let from = self.phases.len();
        let end = from.saturating_add(budget).min(trace.len());
        for &stack in &trace.stack[from..end] {
            let p = if frames_of(snap, stack).is_empty() {
                if self.last_stacked == Phase::Backward {
                    Phase::Backward
                } else {
                    Phase::None
                }
            } else {
                let p = facts.phase(snap, stack).0;
                self.last_stacked = p;
                p
            };
            // The stretch before the first marked event is a run of its own.
            if p != Phase::None && p != self.last_marked {
                self.run += 1;
                self.last_marked = p;
            }
            self.phases.push(p);
            self.runs.push(self.run);
        }
        end == trace.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(alloc: Option<(Phase, u32)>, free: Option<(Phase, u32)>) -> Facts {
        Facts { alloc, free, ..Default::default() }
    }

    #[test]
    fn rules_in_order() {
        use Phase as P;
        let k = |f: Facts| infer(&f).0;
        // Before the trace.
        assert_eq!(k(facts(None, None)), Kind::Parameter);
        assert_eq!(k(Facts { stack_phase: P::Optimizer, ..facts(None, None) }), Kind::OptimizerState);
        assert_eq!(k(Facts { stack_phase: P::Backward, ..facts(None, None) }), Kind::Gradient);
        assert_eq!(k(facts(None, Some((P::Backward, 3)))), Kind::Activation);
        assert_eq!(k(facts(None, Some((P::Optimizer, 3)))), Kind::Gradient);
        assert_eq!(k(Facts { freed_by_zero_grad: true, ..facts(None, Some((P::Forward, 0))) }), Kind::Gradient);
        assert_eq!(k(facts(None, Some((P::Forward, 0)))), Kind::Other);
        // Same run: temporary whatever the phase, but not in run 0 (no phase yet).
        for p in [P::None, P::Setup, P::Forward, P::Backward, P::Optimizer] {
            assert_eq!(infer(&facts(Some((p, 2)), Some((p, 2)))), (Kind::Temporary, Rule::SameRun));
        }
        assert_eq!(infer(&facts(Some((P::None, 0)), Some((P::None, 0)))), (Kind::Other, Rule::Other));
        // Weights made on the device before the first forward.
        let before = Facts { before_first_forward: true, ..facts(Some((P::None, 1)), None) };
        assert_eq!(infer(&before), (Kind::Parameter, Rule::BeforeForward));
        assert_eq!(
            k(Facts { before_first_forward: true, ..facts(Some((P::None, 1)), Some((P::None, 3))) }),
            Kind::Other
        );
        assert_eq!(k(facts(Some((P::Optimizer, 3)), None)), Kind::OptimizerState);
        assert_eq!(k(facts(Some((P::Optimizer, 3)), Some((P::Forward, 4)))), Kind::OptimizerState);
        assert_eq!(k(facts(Some((P::Backward, 1)), Some((P::Optimizer, 2)))), Kind::Gradient);
        assert_eq!(k(facts(Some((P::Setup, 0)), None)), Kind::Parameter);
        assert_eq!(k(facts(Some((P::Forward, 0)), Some((P::Backward, 1)))), Kind::Activation);
        assert_eq!(
            infer(&facts(Some((P::None, 0)), Some((P::Backward, 1)))),
            (Kind::AutogradSaved, Rule::FreedInBackward)
        );
        assert_eq!(k(facts(Some((P::Forward, 0)), None)), Kind::Activation);
        assert_eq!(k(facts(Some((P::Forward, 0)), Some((P::Optimizer, 2)))), Kind::Activation);
        assert_eq!(infer(&facts(Some((P::None, 0)), None)), (Kind::Other, Rule::Other));
        let ws = Facts { workspace: true, ..facts(Some((P::Backward, 1)), None) };
        assert_eq!(infer(&ws), (Kind::Other, Rule::Workspace));
        assert!(is_workspace("at::cuda::setWorkspaceForHandle(cublasContext*, c10::cuda::CUDAStream)"));
        assert!(!is_workspace("at::native::addmm_out_cuda_impl(x)"));
    }

    #[test]
    fn frame_marks() {
        let m = |name: &str, file: &str| frame_mark(name, file);
        assert_eq!(m("step", "/x/site-packages/torch/optim/adamw.py"), Mark::Phase(Phase::Optimizer));
        assert_eq!(
            m("wrapper", "D:\\venv\\Lib\\site-packages\\torch\\optim\\optimizer.py"),
            Mark::Phase(Phase::Optimizer)
        );
        assert_eq!(m("torch::autograd::Engine::thread_main(x)", "??"), Mark::Phase(Phase::Backward));
        assert_eq!(m("torch::autograd::generated::MulBackward0::apply(x)", ""), Mark::Phase(Phase::Backward));
        assert_eq!(m("backward", "/x/torch/_tensor.py"), Mark::Phase(Phase::Backward));
        assert_eq!(m("grad", "C:\\p\\torch\\autograd\\__init__.py"), Mark::Phase(Phase::Backward));
        assert_eq!(m("grad", "/x/mine.py"), Mark::Nothing);
        assert_eq!(m("convert", "/x/torch/nn/modules/module.py"), Mark::Phase(Phase::Setup));
        assert_eq!(m("to", "/x/mine.py"), Mark::Nothing);
        assert_eq!(m("__init__", "/x/torch/nn/modules/linear.py"), Mark::Phase(Phase::Setup));
        assert_eq!(m("__init__", "/x/mine.py"), Mark::Nothing);
        assert_eq!(m("normal_", "/x/torch/nn/init.py"), Mark::Phase(Phase::Setup));
        assert_eq!(m("reset_parameters", "/x/mine.py"), Mark::Phase(Phase::Setup));
        assert_eq!(m("from_config", "/x/transformers/models/auto/auto_factory.py"), Mark::Phase(Phase::Setup));
        assert_eq!(m("forward", "/x/mine.py"), Mark::Phase(Phase::Forward));
        assert_eq!(m("_call_impl", "/x/torch/nn/modules/module.py"), Mark::Phase(Phase::Forward));
        assert_eq!(m("closure", "/x/automatic.py"), Mark::Barrier);
        assert_eq!(m("einsum", "/x/torch/functional.py"), Mark::Nothing);
    }

    #[test]
    fn user_rules_parse_and_match() {
        let r = Rules::parse(&["adamw\\.py=optimizer_state", "a=b=grad", "(?i)EMBED=param"]).unwrap();
        assert_eq!(r.classify("x/adamw.py:10:step"), Some(Kind::OptimizerState));
        assert_eq!(r.classify("a=b"), Some(Kind::Gradient));
        assert_eq!(r.classify("embed.py:1:f"), Some(Kind::Parameter));
        assert_eq!(r.classify("nothing"), None);
        assert!(Rules::parse(&["noequals"]).unwrap_err().contains("REGEX=KIND"));
        assert!(Rules::parse(&["x=nokind"]).unwrap_err().contains("unknown kind"));
        assert!(Rules::parse(&["(=other"]).is_err());
        for k in Kind::ALL {
            assert_eq!(Kind::from_name(k.name()), Some(k));
        }
    }
}
