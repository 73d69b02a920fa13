//! What Kubernetes nodes say of themselves beyond their GPU count: the NVLink domain they
//! are in (`nvidia.com/gpu.clique`, or Topograph's `network.topology.nvidia.com/accelerator`)
//! and their GPU (`nvidia.com/gpu.product`), and the levels a file of nodes alone (no Kueue
//! `Topology`) is read with.

use super::kube::HOSTNAME_LABEL;
use super::options::LinkOptions;
use super::yaml::{self, Node};
use crate::error::InputError;
use crate::topology::fabric::{collective, GpuKind};
use crate::topology::spec::{TopologySpec, ACCELERATOR_LABEL, CLIQUE_LABEL};

/// The label NVIDIA's GPU feature discovery gives a node's GPU model (`NVIDIA-GB200`,
/// `NVIDIA-H100-80GB-HBM3`, `NVIDIA-A100-SXM4-80GB`, `Tesla-T4`).
pub const PRODUCT_LABEL: &str = "nvidia.com/gpu.product";

/// The switch levels NVIDIA's Topograph labels nodes with, widest first: the core, spine
/// and leaf ("block") switches above a node.
const TOPOGRAPH_LEVELS: [&str; 3] =
    ["network.topology.nvidia.com/core", "network.topology.nvidia.com/spine", "network.topology.nvidia.com/block"];

/// The levels of a file of nodes without a Kueue `Topology`, widest first, and whether its
/// last switch level is an NVLink domain that a node may lack (an ordinary server among
/// GB200 trays hangs directly under the level above). Topograph's switch levels are taken
/// when every GPU node has them; then the clique (`nvidia.com/gpu.clique`, else Topograph's
/// accelerator label) when any node has it; then the hostname.
pub(super) fn implied_levels(nodes: &[&Node]) -> Result<(Vec<String>, bool), InputError> {
    let mut label_sets = Vec::new();
    for node in nodes {
        if super::kube::node_gpus(node)? == 0 {
            continue;
        }
        let metadata = yaml::get(node, "metadata").filter(|m| !yaml::is_null(m));
        label_sets.push(match metadata {
            Some(m) => super::kube::node_labels(m)?,
            None => Default::default(),
        });
    }
    let mut levels: Vec<String> = TOPOGRAPH_LEVELS
        .iter()
        .filter(|l| !label_sets.is_empty() && label_sets.iter().all(|s| s.contains_key(**l)))
        .map(|l| l.to_string())
        .collect();
    let clique = [CLIQUE_LABEL, ACCELERATOR_LABEL].into_iter().find(|l| label_sets.iter().any(|s| s.contains_key(*l)));
    if let Some(label) = clique {
        levels.push(label.to_string());
    }
    levels.push(HOSTNAME_LABEL.to_string());
    Ok((levels, clique.is_some()))
}

/// The GPU a product label names: `NVIDIA-` or `Tesla-` dropped, the model the first word
/// (`GB200`, `H100`, `A100`, `T4`); `None` for a model Proxima has no catalogue entry for.
pub(super) fn gpu_of_product(product: &str) -> Option<GpuKind> {
    let model = product.strip_prefix("NVIDIA-").or_else(|| product.strip_prefix("Tesla-")).unwrap_or(product);
    GpuKind::named(model.split(['-', ' ', '_']).next().unwrap_or(model))
}

/// The GPU the nodes' product labels (each with its line) name, when they all name one
/// known GPU, with its per-GPU NVLink bandwidth: the GPU's own unless the options gave
/// another than the fabric's default. Several GPUs, or one Proxima does not know, leave the
/// fabric's default GPU and give a warning on the line of the label at fault.
pub(super) fn named_gpu(
    products: &[(u32, String)],
    options: &LinkOptions,
    warnings: &mut Vec<InputError>,
) -> Option<(GpuKind, f64)> {
    let (line, first) = products.first()?;
    let field = format!("metadata.labels.{PRODUCT_LABEL}");
    if let Some((other_line, other)) = products.iter().find(|(_, p)| p != first) {
        warnings.push(InputError::at_line(
            *other_line,
            field,
            format!("the nodes name several GPUs ('{first}', '{other}'); Proxima simulates one, so the description keeps the fabric's default {}", options.fabric.gpu()),
        ));
        return None;
    }
    let Some(gpu) = gpu_of_product(first) else {
        warnings.push(InputError::at_line(
            *line,
            field,
            format!(
                "'{first}' is not a GPU Proxima has measurements for; the description keeps the fabric's default {}",
                options.fabric.gpu()
            ),
        ));
        return None;
    };
    let default_link = options.fabric.default_links().1;
    Some((gpu, if options.nvlink_gbps == default_link { gpu.default_link_gbps() } else { options.nvlink_gbps }))
}

/// Names a description's GPU: its catalogue and its ring efficiency on the options' fabric.
pub(super) fn set_gpu(spec: &mut TopologySpec, gpu: GpuKind, options: &LinkOptions) {
    spec.gpu = Some(gpu.name().to_string());
    spec.collective = Some(collective(options.fabric, gpu));
}
