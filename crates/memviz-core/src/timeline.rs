//! Active Memory Timeline and Active Cached Segment Timeline.
//! TODO(views helper): implement.
