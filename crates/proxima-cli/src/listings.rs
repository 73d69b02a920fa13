//! The listings: `proxima topologies`, `proxima policies` and `proxima models`.

use crate::inputs::{show, UsageError};
use proxima_core::model::Catalog;
use proxima_core::policy::POLICIES;
use proxima_core::topology::{all_presets, Topology};
use proxima_host::inputs as host;

/// The presets with their GPUs, tiers and efficiencies, and how else a topology is given;
/// with `json`, that one topology as JSON.
pub fn topologies(json: Option<&str>) -> Result<(), UsageError> {
    match json {
        Some(arg) => {
            let (input, notices) = host::read_topology_input(arg)?;
            show(notices);
            let topo: Topology = host::topology(&input)?;
            println!("{}", topo.spec().to_json());
        }
        None => {
            println!(
                "{:<16} {:>6}  {:<29} {:<5} {:>6} {:>6}  description",
                "preset", "GPUs", "tiers", "GPU", "intra", "inter"
            );
            for p in all_presets() {
                let t = Topology::from_spec(&p.spec()).expect("presets are valid");
                let c = t.comm_params();
                println!(
                    "{:<16} {:>6}  {:<29} {:<5} {:>6.3} {:>6.3}  {}",
                    p.name,
                    t.gpu_count(),
                    t.tier_names().join(" < "),
                    t.gpu().unwrap_or("-"),
                    c.intra_efficiency,
                    c.inter_efficiency,
                    p.description
                );
            }
            println!("\n(intra, inter: the fraction of a GPU link and of a network link one all-reduce ring reaches.)");
            preset_workloads();
            println!(
                "\nOr a parametric spec: racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B][,nics=K]"
            );
            println!("  [,fabric=ib|roce|tcp][,gpu=t4|a100|h100|b200|gb200][,rails=on]. Defaults: oversub=1, nics=1, rails off.");
            println!("  fabric=ib (default; rdma is the same): InfiniBand NICs (nic_gbps=200, HDR); roce: RoCE NICs,");
            println!("    the same efficiency on a lossless fabric; ring efficiencies from nccl-tests (docs/CALIBRATION.md).");
            println!("    Default GPU A100 on NVSwitch (nvlink_gbps=2400); gpu=h100: NVLink4 (3600 per direction).");
            println!("  fabric=tcp: NCCL over TCP sockets, 50 Gbit/s NICs, T4 GPUs on PCIe (nvlink_gbps=128);");
            println!("    efficiencies fitted on the Pollux testbed. nics=1|2|4|8 with nic_gbps=100|200|400 are");
            println!("    today's clusters (100 GbE, HDR 200, NDR 400); rails=on makes each rack a rail group.");
            println!("Or a JSON file, a Slurm topology.conf (slurm:PATH[,gpus=N,...]), a Lingjun topo.csv");
            println!("  (lingjun:PATH[,...]), a Kueue Topology with its nodes (kueue:PATH[,nic_gbps=B,...]) or");
            println!("  Volcano HyperNodes (volcano:PATH[,gpus=N,...]);");
            println!("  see docs/FORMATS.md.");
        }
    }
    Ok(())
}

/// The workloads the large presets run by default (the page's generator takes them when the
/// preset is chosen), as `proxima compare` arguments.
fn preset_workloads() {
    println!("\nDefault workloads (the page's for each preset; the others take the general default):");
    for p in all_presets() {
        if let Some(w) = p.workload() {
            println!("  {:<16} --trace {} --mix {}", p.name, w.trace(1), w.mix);
        }
    }
}

/// Each policy with what it does, its source and its options.
pub fn policies() {
    for p in POLICIES {
        println!(
            "{:<12} {}\n{:<12} source: {}\n{:<12} options: {}\n",
            p.name,
            p.summary,
            "",
            p.source,
            "",
            p.options_line()
        );
    }
}

/// The model catalogue (of one GPU, or the built-in one).
pub fn models(gpu: Option<&str>) -> Result<(), UsageError> {
    let catalog = Catalog::for_gpu_or_built_in(gpu).map_err(|e| UsageError(e.to_string()))?;
    println!(
        "{:<13} {:<22} {:>9} {:>10} {:>6} {:>5} {:>5} {:>5} {:<13} {:<9}  source",
        "name", "model", "params M", "compute s", "batch", "GPU", "ov", "prec", "parallelism", "compute"
    );
    for (_, m) in catalog.models() {
        println!(
            "{:<13} {:<22} {:>9.2} {:>10.3} {:>6} {:>5} {:>5.3} {:>5} {:<13} {:<9}  {}",
            m.name,
            m.display,
            m.params_millions,
            m.compute_s,
            m.local_batch,
            m.gpu,
            m.overlap,
            m.precision.label(),
            m.parallelism.label(),
            if m.estimate.is_some() { "estimated" } else { "" },
            m.source
        );
    }
    println!(
        "\ncompute s: one GPU at the local batch. T4 entries were fitted to measurements; A100 and H100 rows come"
    );
    println!("from published benchmarks (CNNs, BERT) or from 6 x params x tokens at a published MFU (LLMs); V100 ones");
    println!("are estimates. prec: what the job exchanges (fp32, bf16); FSDP exchanges 1.5 times data parallelism's");
    println!("volume. ov: seconds of exchange hidden per second of compute (docs/CALIBRATION.md). compute");
    println!("estimated: not measured on this GPU, scaled from the GPU the source names by a published throughput");
    println!("ratio (docs/CALIBRATION.md, \"Models on every GPU\").");
    Ok(())
}
