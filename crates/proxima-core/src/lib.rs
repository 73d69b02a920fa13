//! Proxima simulation core.
