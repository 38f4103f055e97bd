//! Pixel rendering. TODO
