//! Text as memory_viz shows it: sizes, versioned addresses, stack traces.
//! TODO(views helper): implement.
