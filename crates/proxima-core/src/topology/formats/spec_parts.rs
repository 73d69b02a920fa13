//! The parts the readers build a description from, alike in every format: a server as the
//! options describe it, and a link at the default latency.

use super::options::LinkOptions;
use crate::topology::spec::{default_link_latency_us, default_nvlink_latency_us, LinkSpec, ServerSpec};

/// A server named `id` with `gpus` GPUs and the NVLink and NICs the options give every
/// server (for formats whose files say nothing of a server's insides).
pub(super) fn server(id: &str, gpus: u32, links: &LinkOptions) -> ServerSpec {
    ServerSpec {
        id: id.to_string(),
        gpus,
        nvlink_gbps: links.nvlink_gbps,
        nvlink_latency_us: default_nvlink_latency_us(),
        nics: links.nics,
    }
}

/// A link between `a` and `b` at the default link latency.
pub(super) fn link(a: &str, b: &str, bandwidth_gbps: f64) -> LinkSpec {
    LinkSpec { a: a.to_string(), b: b.to_string(), bandwidth_gbps, latency_us: default_link_latency_us() }
}
