//! `proxima placement-map`: the map of when placement matters
//! ([`proxima_lab::experiment::placement_map`]) as a table on stdout and, with `--out`, an
//! SVG heat map; `--json` writes the numbers.

use crate::figures::heat_map;
use crate::inputs::UsageError;
use clap::Args;
use proxima_lab::experiment::placement_map::{placement_map, MapSpec, PlacementMap};

#[derive(Args, Debug)]
pub struct MapArgs {
    /// The GPU of the cluster: A100 or H100.
    #[arg(long, default_value = "A100")]
    gpu: String,
    /// GPUs of the job whose best and worst placements are compared.
    #[arg(long, default_value_t = 16)]
    job_gpus: u32,
    /// Bandwidth of one NIC, Gbit/s.
    #[arg(long, default_value_t = 200.0)]
    nic_gbps: f64,
    /// Jobs of the LLM-era workload the policies run (a Philly-shaped synthetic trace with
    /// the `llm` model mix).
    #[arg(long, default_value_t = 300)]
    jobs: u32,
    /// Seeds of the workload runs (1..=N).
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// Write the heat map as SVG here.
    #[arg(long, value_name = "FILE.svg")]
    out: Option<String>,
    /// Write the numbers as JSON here.
    #[arg(long, value_name = "FILE.json")]
    json: Option<String>,
}

/// Computes the map, prints it, and writes the files asked for. Bad arguments are usage
/// errors; a file that cannot be written is an IO error.
pub fn run(args: &MapArgs) -> Result<Result<(), String>, UsageError> {
    if args.seeds == 0 {
        return Err(UsageError("--seeds: at least 1".into()));
    }
    let spec = MapSpec {
        gpu: args.gpu.clone(),
        job_gpus: args.job_gpus,
        nic_gbps: args.nic_gbps,
        jobs: args.jobs,
        seeds: (1..=args.seeds).collect(),
        ..MapSpec::default()
    };
    let map = placement_map(&spec).map_err(|e| UsageError(e.to_string()))?;
    print!("{}", table(&map));
    if let Some(path) = &args.out {
        let svg = heat_map::draw(&map).map_err(|e| format!("{path}: {e}"));
        if let Err(e) = svg.and_then(|svg| std::fs::write(path, svg).map_err(|e| format!("{path}: cannot write: {e}")))
        {
            return Ok(Err(e));
        }
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&map).expect("the map serialises") + "\n";
        if let Err(e) = std::fs::write(path, text) {
            return Ok(Err(format!("{path}: cannot write: {e}")));
        }
    }
    Ok(Ok(()))
}

/// The map as text: one row per model as trained, one column per network.
pub fn table(map: &PlacementMap) -> String {
    let mut out = format!(
        "Worst placement ÷ best for a {}-GPU job alone on an idle cluster ({}), per network:\n",
        map.spec.job_gpus,
        map.networks.first().map(|n| n.topology.as_str()).unwrap_or("")
    );
    out.push_str(&format!("{:<44}", "model, precision, parallelism"));
    for n in &map.networks {
        out.push_str(&format!(" {:>9}", format!("{}×{}:1", n.nics, n.oversub)));
    }
    out.push('\n');
    for m in &map.models {
        out.push_str(&format!("{:<44}", m.label()));
        for s in &m.slowdown {
            out.push_str(&format!(" {s:>9.2}"));
        }
        out.push('\n');
    }
    out.push_str(&format!("\nMean JCT (hours) on {} over {} seed(s):\n", map.workload, map.spec.seeds.len()));
    for p in &map.policies {
        out.push_str(&format!("{:<44}", p.policy));
        for s in &p.mean_jct_s {
            out.push_str(&format!(" {:>9.2}", s / 3600.0));
        }
        out.push('\n');
    }
    out.push_str("(columns: NICs per server × rack oversubscription)\n");
    out
}
