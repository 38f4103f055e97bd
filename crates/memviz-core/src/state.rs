//! Allocator State History. TODO(state helper): implement.
