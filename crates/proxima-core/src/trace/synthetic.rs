//! (generator being written)
