//! `proxima`: the command-line face of the simulation core. Glue only: it parses flags,
//! reads files, runs the core and writes what the core computed.

mod bench;
mod calibrate;
mod experiment;
mod experiment_robust;
mod experiment_sweeps;
mod fairness;
mod figures;
mod inputs;
mod listings;
mod output;
mod placement_map;
mod progress;
mod sweep;
mod what_if;

use clap::{Args, Parser, Subcommand};
use inputs::{load_scenario, UsageError};
use proxima_core::engine::Simulation;
use proxima_core::event::{EventHasher, Observer};
use proxima_core::metrics::Summary;
use proxima_core::run::{Finished, RhoFailed, RunOptions};
use proxima_core::session::{parse_policies, Session};
use proxima_host::inputs::{ScenarioArgs, WorkloadArgs};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "proxima",
    version,
    about = "Simulate network-sensitive scheduling of deep-learning jobs on GPU clusters",
    long_about = "Simulate network-sensitive scheduling of distributed deep-learning jobs on GPU clusters.\n\n\
A topology is a preset name (see `proxima topologies`), a parametric spec\n\
`racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=ib|roce|tcp]\n\
[,gpu=t4|a100|h100|b200|gb200][,rails=on]` (`rdma` means `ib`), a JSON file, or a Slurm topology.conf\n\
(tree form) as `slurm:PATH[,gpus=N][,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=ib|roce|tcp]` (GPUs per\n\
node, default 8; link defaults as in the parametric form), the Lingjun dataset's topo.csv\n\
(ip,DSW,PSW,ASW) as `lingjun:PATH[,...]` with the same options, or a Kueue Topology with its\n\
Node objects (YAML, as kubectl prints them) as `kueue:PATH[,nic_gbps=B][,nvlink_gbps=B][,nics=K]\n\
[,fabric=ib|roce|tcp]` (GPUs per node from the file), or Volcano HyperNodes (YAML) as\n\
`volcano:PATH[,...]` with the Slurm options.\n\
A trace is a CSV/JSON file (Philly, Tiresias, Pollux, Acme or Proxima format, detected from\n\
the header) or `synthetic:jobs=N[,load=L][,seed=S][,tenants=T]`. A policy is\n\
`NAME[:key=value,...]`; `quota=on` makes a policy respect the tenants' quotas."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one policy and write summary.json, jobs.csv and timeseries.csv.
    Run {
        #[command(flatten)]
        scenario: ScenarioFlags,
        /// The scheduling policy, e.g. `consolidate` or `fifo:backfill=off`.
        #[arg(long)]
        policy: String,
        /// Directory for the result files (created if missing).
        #[arg(long)]
        out: Option<String>,
        /// Also write every event as one JSON object per line to this file.
        #[arg(long)]
        events: Option<String>,
        /// Skip the isolated runs (each tenant's jobs alone on its share) that finish-time
        /// fairness ρ needs.
        #[arg(long)]
        no_rho: bool,
    },
    /// Run several policies on the same input and compare them.
    Compare {
        #[command(flatten)]
        scenario: ScenarioFlags,
        /// A policy; repeat the flag for each (options contain commas).
        #[arg(long = "policy", required = true)]
        policies: Vec<String>,
        /// Directory for compare.json and one sub-directory of result files per policy.
        #[arg(long)]
        out: Option<String>,
        /// Skip the isolated runs that finish-time fairness ρ needs.
        #[arg(long)]
        no_rho: bool,
    },
    /// An operator's what-if: your scheduler as configured, the same with a time limit on
    /// its required topology level (fixed and tuned) and with eviction, and Proxima's
    /// policies, on your cluster and trace over several seeds, on one screen, and with
    /// `--out` in a Markdown and a self-contained HTML report (docs/OPERATORS.md).
    WhatIf {
        #[command(flatten)]
        scenario: ScenarioFlags,
        /// Your scheduler as configured, e.g. `kueue-tas:required=cloud.provider.com/topology-rack`.
        #[arg(long)]
        scheduler: String,
        /// Seconds a required level holds before it becomes preferred, in the fixed timed variant.
        #[arg(long, default_value_t = 300.0)]
        timer: f64,
        /// Runs seeds 1 to this (each redraws the models, and a synthetic trace).
        #[arg(long, default_value_t = 5)]
        seeds: u64,
        /// Also write the report: DIR/what-if.md and DIR/what-if.html (self-contained, opens offline).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
    /// Run a documented set of scenarios and write report.md, report.json and SVG figures.
    Experiment {
        /// Which experiment: `paper` (every policy and baseline on development and held-out
        /// workloads, both networks, congested and uncongested, 10 seeds; sweeps of uplink
        /// oversubscription and restore cost; an oracle check of the tuner) or `robust` (the
        /// recommended policy's regret against the best fair baseline over workload
        /// families × networks × loads, one set at a time).
        name: String,
        /// Directory for report.md, report.json and the figures.
        #[arg(long, default_value = "out/experiment")]
        out: String,
        /// A smaller version (a few hundred jobs per workload, three seeds, short sweeps)
        /// with the same structure, for a quick look.
        #[arg(long)]
        quick: bool,
        /// The Philly trace (default: $PROXIMA_DATA/philly/philly.csv or ../shared/data/philly/philly.csv).
        #[arg(long)]
        philly: Option<String>,
        /// `robust` only: the Lingjun topo.csv (default: $PROXIMA_DATA/lingjun/topo.csv or
        /// ../shared/data/lingjun/topo.csv).
        #[arg(long)]
        lingjun: Option<String>,
        /// `robust` only: which cells, `development` (default) or `held-out` (runs only once
        /// the recommended policy's freeze is recorded in the code).
        #[arg(long)]
        set: Option<String>,
        /// Threads to run on (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Run only the first N seeds of every workload (the report lists the seeds it ran).
        #[arg(long)]
        seeds: Option<usize>,
        /// Print the plan's size (scenarios, runs) and exit without running.
        #[arg(long)]
        dry_run: bool,
        /// Do not run: read this report.json (of an earlier run) and write report.md,
        /// report.json and the figures from it into --out.
        #[arg(long)]
        from: Option<String>,
        /// Do not run: write the experiment's runs as sweep specs (one TOML file per
        /// Cartesian part) into this directory, for `proxima sweep` or a Ray cluster.
        #[arg(long)]
        write_sweeps: Option<String>,
    },
    /// Run every combination of a sweep spec's [grid] on every core; resumes an interrupted sweep.
    Sweep(sweep::SweepArgs),
    /// Time fixed scenarios (median of several runs): jobs/s and events/s.
    Bench {
        /// Suites to run: targets (the Philly trace on 2,048 and 512 GPUs), jobs (10k to 1M
        /// synthetic jobs), gpus (512 to 16,384 GPUs), or all.
        #[arg(default_value = "targets")]
        suites: Vec<String>,
        /// Runs per case; the median is reported.
        #[arg(long, default_value_t = 5)]
        repeats: u32,
        /// Also write the figures as CSV to this file.
        #[arg(long)]
        csv: Option<String>,
        /// Also hash every event inside the timed span, as `proxima run` and the web
        /// app's worker do (the event-log hash).
        #[arg(long)]
        hash: bool,
    },
    /// List the topology presets.
    Topologies {
        /// Print one preset (or a parametric spec, `slurm:PATH[,...]`, `lingjun:PATH[,...]`,
        /// `kueue:PATH[,...]` or `volcano:PATH[,...]`) as JSON in the
        /// topology file format.
        #[arg(long)]
        json: Option<String>,
    },
    /// List the scheduling policies and their options.
    Policies,
    /// List the model catalogue.
    Models {
        /// The catalogue of clusters of this GPU (e.g. A100, T4): only the models whose compute
        /// time was measured on it. Without it, the built-in catalogue.
        #[arg(long)]
        gpu: Option<String>,
    },
    /// The map of when placement matters: worst ÷ best placement per model and network, and
    /// consolidate, random and dally on an LLM-era workload per network.
    PlacementMap(placement_map::MapArgs),
    /// Fit the communication model to measured step times (placement,local_bsz,step_time,sync_time) and report its error.
    Calibrate(calibrate::CalibrateArgs),
}

#[derive(Args)]
struct ScenarioFlags {
    /// Preset name, parametric spec, JSON file, `slurm:PATH[,gpus=N][,nic_gbps=B][,nvlink_gbps=B]`
    /// for a Slurm topology.conf, `lingjun:PATH[,...]` (same options) for a Lingjun topo.csv, or
    /// `kueue:PATH[,nic_gbps=B][,...]` for a Kueue Topology with its nodes (YAML), or
    /// `volcano:PATH[,gpus=N][,...]` for Volcano HyperNodes (YAML).
    #[arg(long)]
    topology: String,
    /// Trace file or `synthetic:jobs=N[,load=L][,seed=S][,tenants=T]`.
    #[arg(long)]
    trace: String,
    /// Seed for everything random: model assignment, synthetic traces.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Skip the first N jobs by submission time (with --limit: a window of the trace).
    #[arg(long, default_value_t = 0)]
    skip: u32,
    /// Keep only the first N jobs by submission time (after --skip).
    #[arg(long)]
    limit: Option<u32>,
    /// Models for jobs whose trace names none: `name[:weight],...` (default: an even mix of
    /// eight models, see `proxima models`).
    #[arg(long)]
    mix: Option<String>,
    /// Tenants' GPU quotas: `equal` (default), `demand`, `weights:NAME=W,...` or
    /// `NAME=GPUS,...` (docs/FORMATS.md).
    #[arg(long)]
    tenants: Option<String>,
}

impl ScenarioFlags {
    fn as_args(&self) -> ScenarioArgs {
        ScenarioArgs {
            topology: self.topology.clone(),
            trace: self.trace.clone(),
            workload: WorkloadArgs {
                seed: self.seed,
                skip: self.skip,
                limit: self.limit,
                mix: self.mix.clone(),
                tenants: self.tenants.clone(),
            },
        }
    }
}

fn main() -> ExitCode {
    end_quietly_when_output_closes();
    let cli = Cli::parse();
    match execute(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Io(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// When the reader of the output goes away (`proxima topologies --json T | head -1`), the
/// process ends at its next write, silently, as Unix tools do: the shell reports status 141
/// (128 + SIGPIPE). Rust starts programs with SIGPIPE ignored, which turns such a write into
/// an error that `println!` reports as a panic ("failed printing to stdout: Broken pipe");
/// restoring the default action lets the kernel end the process instead, for every command
/// and every thread.
fn end_quietly_when_output_closes() {
    #[cfg(unix)]
    // SAFETY: `signal` with `SIG_DFL` only resets the disposition of SIGPIPE; it runs first
    // in `main`, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

enum Failure {
    /// Bad input: exit 2.
    Usage(UsageError),
    /// Could not write results: exit 1.
    Io(String),
}

impl From<UsageError> for Failure {
    fn from(e: UsageError) -> Failure {
        Failure::Usage(e)
    }
}

fn execute(command: Command) -> Result<(), Failure> {
    match command {
        Command::Run { scenario, policy, out, events, no_rho } => run_one(&scenario, &policy, out, events, no_rho),
        Command::Compare { scenario, policies, out, no_rho } => compare(&scenario, &policies, out, no_rho),
        Command::WhatIf { scenario, scheduler, timer, seeds, out } => {
            let w = what_if::WhatIf { scheduler: &scheduler, timer_s: timer, seeds, out: out.as_deref() };
            print!("{}", what_if::what_if(&scenario.as_args(), &w)?);
            Ok(())
        }
        Command::Experiment { name, out, quick, philly, lingjun, set, threads, seeds, dry_run, from, write_sweeps } => {
            let options = ExperimentOptions { quick, philly, threads, seeds, dry_run, from, write_sweeps };
            if name == "robust" {
                return experiment_robust::run_experiment(&out, options, set.as_deref(), lingjun.as_deref());
            }
            if set.is_some() || lingjun.is_some() {
                return Err(Failure::Usage(UsageError(format!(
                    "experiment {name}: --set and --lingjun are options of the robust experiment"
                ))));
            }
            run_experiment(&name, &out, options)
        }
        Command::Bench { suites, repeats, csv, hash } => {
            let mut file = match &csv {
                Some(path) => {
                    Some(std::fs::File::create(path).map_err(|e| Failure::Io(format!("{path}: cannot create: {e}")))?)
                }
                None => None,
            };
            bench::run(&suites, repeats, hash, file.as_mut().map(|f| f as &mut dyn std::io::Write))?;
            Ok(())
        }
        Command::Topologies { json } => Ok(listings::topologies(json.as_deref())?),
        Command::Policies => {
            listings::policies();
            Ok(())
        }
        Command::Calibrate(args) => Ok(calibrate::run(&args)?),
        Command::PlacementMap(args) => placement_map::run(&args)?.map_err(Failure::Io),
        Command::Sweep(args) => sweep::run(&args).map_err(|e| match e {
            sweep::SweepFailure::Usage(e) => Failure::Usage(e),
            sweep::SweepFailure::Io(e) => Failure::Io(e),
        }),
        Command::Models { gpu } => Ok(listings::models(gpu.as_deref())?),
    }
}

/// `proxima run`: one policy, its summary printed and its files written.
fn run_one(
    scenario: &ScenarioFlags,
    policy: &str,
    out: Option<String>,
    events: Option<String>,
    no_rho: bool,
) -> Result<(), Failure> {
    // The session is made (the policy checked against the cluster) before the event log is
    // created, so that a wrong policy leaves no file.
    let session = session(scenario, &[policy])?;
    // With --events, also hash the event stream as the web app does, so the two
    // can be compared (the determinism test does).
    let mut hasher = EventHasher::default();
    let mut log = match &events {
        Some(path) => Some(output::EventLog::new(
            std::fs::File::create(path).map_err(|e| Failure::Io(format!("{path}: cannot create: {e}")))?,
        )),
        None => None,
    };
    let observers: Vec<&mut dyn Observer> = match &mut log {
        Some(log) => vec![log, &mut hasher],
        None => Vec::new(),
    };
    let finished = run_simulation(|options| session.into_run(0, options), policy, no_rho, observers)?;
    drop(log);
    output::print_summary(finished.summary(), &finished.simulation);
    if events.is_some() {
        println!(
            "events      {} (event-log hash {:016x}, FNV-1a over \"TIME_US EVENT_JSON\" lines)",
            hasher.count(),
            hasher.hash()
        );
    }
    if let Some(dir) = out {
        output::write_run(&dir, &finished.into_record()).map_err(Failure::Io)?;
        eprintln!("wrote {dir}/summary.json, {dir}/jobs.csv, {dir}/timeseries.csv");
    }
    Ok(())
}

/// The session of the command line's scenario and policies: every policy parsed and built
/// before the scenario is read, so that a typo fails at once, then each checked against the
/// cluster (`proxima_core::session`).
fn session<S: AsRef<str>>(scenario: &ScenarioFlags, policies: &[S]) -> Result<Session, UsageError> {
    let policies = parse_policies(policies)?;
    Ok(Session::new(load_scenario(&scenario.as_args())?, policies)?)
}

/// One policy's run to its end by `run` (the session's), with the progress bar, and ρ
/// unless `no_rho`.
fn run_simulation(
    run: impl FnOnce(RunOptions<'_>) -> Result<Finished, RhoFailed>,
    label: &str,
    no_rho: bool,
    observers: Vec<&mut dyn Observer>,
) -> Result<Finished, UsageError> {
    let mut progress = progress::Progress::new(label);
    let mut on_step = |sim: &Simulation| progress.step(sim);
    let options = RunOptions {
        rho: (!no_rho).then_some(&fairness::Shown as _),
        record: true,
        // Each borrow is narrowed to this call's, which the progress bar's is.
        observers: observers.into_iter().map(|o| o as &mut dyn Observer).collect(),
        on_step: Some(&mut on_step),
        clock: None,
    };
    run(options).map_err(|failed| proxima_host::run::rho_problem(failed.problem).into())
}

/// `proxima compare`: several policies on one scenario, side by side.
fn compare(scenario: &ScenarioFlags, policies: &[String], out: Option<String>, no_rho: bool) -> Result<(), Failure> {
    let session = session(scenario, policies)?;
    let mut summaries: Vec<Summary> = Vec::new();
    for (index, p) in policies.iter().enumerate() {
        let record = run_simulation(|options| session.run(index, options), p, no_rho, Vec::new())?.into_record();
        if let Some(dir) = &out {
            let sub = format!("{dir}/{}", output::result_dir_name(p));
            output::write_run(&sub, &record).map_err(Failure::Io)?;
        }
        summaries.push(record.summary);
    }
    output::print_comparison(&summaries, policies, &session.scenario().topology);
    if let Some(dir) = out {
        output::write_compare(&dir, &summaries).map_err(Failure::Io)?;
        eprintln!("wrote {dir}/compare.json and one directory of result files per policy");
    }
    Ok(())
}

/// The options of `proxima experiment` besides its name and output folder.
struct ExperimentOptions {
    quick: bool,
    philly: Option<String>,
    threads: Option<usize>,
    seeds: Option<usize>,
    dry_run: bool,
    from: Option<String>,
    write_sweeps: Option<String>,
}

/// `proxima experiment NAME`: run a plan (or redraw a report, or write it as sweep specs).
fn run_experiment(name: &str, out: &str, o: ExperimentOptions) -> Result<(), Failure> {
    let ExperimentOptions { quick, philly, threads, seeds, dry_run, from, write_sweeps } = o;
    if let Some(path) = from {
        let report = proxima_host::inputs::report(&path).map_err(UsageError::from)?;
        let written = experiment::write_report(&report, out).map_err(Failure::Io)?;
        eprintln!("redrew {} files from {path} into {out}/", written.len());
        return Ok(());
    }
    let mut plan = experiment::plan_by_name(name, quick)?;
    if let Some(count) = seeds {
        if count == 0 {
            return Err(Failure::Usage(UsageError("experiment: --seeds must be at least 1".into())));
        }
        plan = plan.with_seed_count(count);
    }
    if let Some(dir) = write_sweeps {
        let written = experiment_sweeps::write_sweep_specs(&plan, &dir).map_err(Failure::Io)?;
        eprintln!("wrote {} sweep specs: {}", written.len(), written.join(", "));
        return Ok(());
    }
    let runs = plan.tasks().len();
    if dry_run {
        println!(
            "experiment {}: {} scenarios ({} in the main grid), {} policies, {} sweeps, {} oracle grids: {runs} runs",
            plan.name,
            plan.scenarios.len(),
            plan.main.len(),
            plan.policies.len(),
            plan.sweeps.len(),
            plan.oracles.len()
        );
        return Ok(());
    }
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let started = std::time::Instant::now();
    let report = experiment::run_plan(&plan, philly.as_deref(), threads)?;
    let elapsed = started.elapsed().as_secs_f64();
    let written = experiment::write_report(&report, out).map_err(Failure::Io)?;
    eprintln!(
        "{runs} runs on {threads} threads in {elapsed:.1} s; wrote {} files to {out}/ (report.md, report.json, {} figures)",
        written.len(),
        written.len() - 2
    );
    Ok(())
}
