//! The one way the native front ends read their inputs: the CLI, sweeps and the Python
//! package turn the arguments a person typed (a topology, a trace, a sweep spec, a
//! placements table, an earlier report) into the core's and the lab's typed values here,
//! with every problem a [`SourcedError`] that names the file, line and field, or the
//! argument as a flag (`--topology`, `--trace`, `--policy`).
//!
//! Building the scenario, and the wording of what is wrong inside a file, is the core's
//! (`proxima_core::inputs`), shared with the web app. What is left here is the edge:
//! reading files, telling a file from a preset or a spec, reusing a parsed trace across
//! the runs of a sweep (which parses the Philly trace once, not once a run), and saying,
//! as lines a front end shows, what reading accepted but the user should know.

use crate::error::{problem, SourcedError};
use crate::spec::Spec;
use proxima_core::inputs::{self, build_mix, build_topology, utf8_text, ArgumentNames, ScenarioInput};
pub use proxima_core::inputs::{TopologyInput, TraceInput};
use proxima_core::model::Catalog;
use proxima_core::scenario::Scenario;
use proxima_core::session::{parse_policies, PolicyChoice, PolicyNames, Problem, Session};
use proxima_core::topology::Topology;
use proxima_core::topology::TopologyChoice;
use proxima_core::trace::{parse_trace, Trace};
use proxima_core::workload::WorkloadOptions;
use proxima_lab::calibrate::{parse_placements, Sample};
use proxima_lab::experiment::robust::RobustReport;
use proxima_lab::experiment::Report;
use std::io::Read;
use std::path::{Path, PathBuf};

pub(crate) const NAMES: ArgumentNames = ArgumentNames::Flags;

/// Reads a whole text file; errors name the file (`cannot read`, or, in the core's words,
/// `encoding` with the line and byte where the text stops being UTF-8).
pub fn read_text(path: &str) -> Result<String, SourcedError> {
    let bytes = std::fs::read(path).map_err(|e| problem(path, None, "cannot read", e.to_string()))?;
    utf8_text(path, &bytes)?;
    Ok(String::from_utf8(bytes).expect("checked above"))
}

/// Whether a topology argument names a JSON file rather than a preset or parametric spec
/// (by its extension, or because such a file exists and the text is not a spec). The one
/// place this rule is written: the CLI, sweeps and the Python package all ask here.
pub fn names_a_file(arg: &str) -> bool {
    arg.ends_with(".json") || (!arg.contains('=') && Path::new(arg).is_file())
}

/// A topology argument as the CLI takes it, read at this edge into the core's input: a
/// preset or the parametric form becomes a typed [`TopologyChoice`]; a JSON file, a Slurm `topology.conf` given
/// as `slurm:PATH[,options]`, a Lingjun `topo.csv` given as `lingjun:PATH[,options]`, a
/// Kueue file given as `kueue:PATH[,options]` or a Volcano file given as
/// `volcano:PATH[,options]`, is read now.
pub fn topology_input(arg: &str) -> Result<TopologyInput, SourcedError> {
    if let Some(slurm) = inputs::slurm_argument(arg) {
        let (path, options) = slurm.map_err(|e| SourcedError::new(NAMES.name("topology"), e))?;
        return Ok(TopologyInput::Slurm { name: path.to_string(), text: read_text(path)?, options });
    }
    if let Some(lingjun) = inputs::lingjun_argument(arg) {
        let (path, options) = lingjun.map_err(|e| SourcedError::new(NAMES.name("topology"), e))?;
        return Ok(TopologyInput::Lingjun { name: path.to_string(), text: read_text(path)?, options });
    }
    if let Some(kueue) = inputs::kueue_argument(arg) {
        let (path, options) = kueue.map_err(|e| SourcedError::new(NAMES.name("topology"), e))?;
        return Ok(TopologyInput::Kueue { name: path.to_string(), text: read_text(path)?, options });
    }
    if let Some(volcano) = inputs::volcano_argument(arg) {
        let (path, options) = volcano.map_err(|e| SourcedError::new(NAMES.name("topology"), e))?;
        return Ok(TopologyInput::Volcano { name: path.to_string(), text: read_text(path)?, options });
    }
    if names_a_file(arg) {
        return Ok(TopologyInput::File { name: arg.to_string(), text: read_text(arg)? });
    }
    let choice = TopologyChoice::from_argument(arg).map_err(|e| SourcedError::new(NAMES.name("topology"), e))?;
    Ok(TopologyInput::Choice(choice))
}

/// Whether a trace argument is a `synthetic:...` spec rather than a file.
pub fn is_synthetic(arg: &str) -> bool {
    TraceInput::is_synthetic(arg)
}

/// A trace argument as the CLI takes it: a synthetic spec, else a file, read now.
pub fn trace_input(arg: &str) -> Result<TraceInput, SourcedError> {
    Ok(if is_synthetic(arg) {
        TraceInput::Synthetic(arg.to_string())
    } else {
        TraceInput::File { name: arg.to_string(), text: read_text(arg)? }
    })
}

/// Parses trace text once, for many runs; errors name `source`.
pub fn parse_trace_text(text: &str, source: &str) -> Result<Trace, SourcedError> {
    parse_trace(text).map_err(|e| SourcedError::new(source, e))
}

/// The cluster of a topology input, built (a sweep checks each file this way before
/// anything runs).
pub fn topology(input: &TopologyInput) -> Result<Topology, SourcedError> {
    build_topology(input, NAMES)
}

/// A trace file, read and parsed once, for many runs; errors name the file.
pub fn trace_file(path: &str) -> Result<Trace, SourcedError> {
    parse_trace_text(&read_text(path)?, path)
}

/// The folder of reference data (traces, measurements) that `data:` paths in sweep specs
/// and the experiment's Philly trace are under: `$PROXIMA_DATA`, else `../shared/data`.
pub fn data_dir() -> PathBuf {
    std::env::var_os("PROXIMA_DATA").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("../shared/data"))
}

/// The Philly trace the experiment runs on: `arg` (`--philly`), else `philly/philly.csv`
/// under the data folder ([`data_dir`]).
pub fn philly_trace(arg: Option<&str>) -> Result<Trace, SourcedError> {
    let path = match arg {
        Some(a) => a.to_string(),
        None => data_dir().join("philly/philly.csv").to_string_lossy().into_owned(),
    };
    if !Path::new(&path).is_file() {
        return Err(problem(
            &path,
            None,
            "--philly",
            "the Philly trace is not there; pass --philly PATH or set PROXIMA_DATA to the data folder",
        ));
    }
    trace_file(&path)
}

/// The Lingjun `topo.csv` the robustness experiment slices: `arg` (`--lingjun`), else
/// `lingjun/topo.csv` under the data folder ([`data_dir`]); its path and text.
pub fn lingjun_topology(arg: Option<&str>) -> Result<(String, String), SourcedError> {
    let path = match arg {
        Some(a) => a.to_string(),
        None => data_dir().join("lingjun/topo.csv").to_string_lossy().into_owned(),
    };
    if !Path::new(&path).is_file() {
        return Err(problem(
            &path,
            None,
            "--lingjun",
            "the Lingjun topo.csv is not there; pass --lingjun PATH or set PROXIMA_DATA to the data folder",
        ));
    }
    let text = read_text(&path)?;
    Ok((path, text))
}

/// A sweep spec file (TOML).
pub fn sweep_spec(path: &str) -> Result<Spec, SourcedError> {
    Spec::from_toml(&read_text(path)?, path)
}

/// A table of measured step times (`placement,local_bsz,step_time,sync_time`), for the
/// calibration.
pub fn placements(path: &str) -> Result<Vec<Sample>, SourcedError> {
    parse_placements(&read_text(path)?).map_err(|e| SourcedError::new(path, e))
}

/// The text of a report, `report.json` as an experiment wrote it or gzipped
/// (`report.json.gz`, recognised by gzip's magic bytes rather than the name): the paper
/// experiment's record is kept in git gzipped, a tenth of its size.
fn read_report_text(path: &str) -> Result<String, SourcedError> {
    let bytes = std::fs::read(path).map_err(|e| problem(path, None, "cannot read", e.to_string()))?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        utf8_text(path, &bytes)?;
        return Ok(String::from_utf8(bytes).expect("checked above"));
    }
    let mut unpacked = Vec::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .read_to_end(&mut unpacked)
        .map_err(|e| problem(path, None, "gzip", format!("cannot unpack: {e}")))?;
    utf8_text(path, &unpacked)?;
    Ok(String::from_utf8(unpacked).expect("checked above"))
}

/// The `report.json` an earlier experiment wrote (or its gzip), to redraw its report and
/// figures.
pub fn report(path: &str) -> Result<Report, SourcedError> {
    let text = read_report_text(path)?;
    Report::from_json(&text)
        .map_err(|e| problem(path, u32::try_from(e.line()).ok(), "report", format!("not a report: {e}")))
}

/// The `report.json` an earlier `proxima experiment robust` wrote (or its gzip), to redraw it.
pub fn robust_report(path: &str) -> Result<RobustReport, SourcedError> {
    let text = read_report_text(path)?;
    RobustReport::from_json(&text)
        .map_err(|e| problem(path, u32::try_from(e.line()).ok(), "report", format!("not a robustness report: {e}")))
}

/// A run's scenario arguments as typed: the topology and the trace, and the options that
/// shape the workload.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScenarioArgs {
    pub topology: String,
    pub trace: String,
    pub workload: WorkloadArgs,
}

/// The files a scenario's arguments name, each read once, as the core's input (for a run,
/// or for runs that build the scenario under several seeds), and the warnings reading the
/// topology found (`warning: FILE:LINE: field: what`), for the front end to show. A
/// topology file's description goes into the input as read, so that the runs built from it
/// do not read the file again.
pub fn scenario_input(args: &ScenarioArgs) -> Result<(ScenarioInput, Vec<String>), SourcedError> {
    let w = &args.workload;
    let (topology, notices) = read_topology_input(&args.topology)?;
    let input = ScenarioInput {
        topology,
        trace: trace_input(&args.trace)?,
        seed: w.seed,
        skip: w.skip,
        limit: w.limit,
        mix: w.mix.clone(),
        tenants: w.tenants.clone(),
        names: NAMES,
    };
    Ok((input, notices))
}

/// A topology argument read once ([`topology_input`], then the core's reader): the input
/// runs build (a file's description in hand, a preset or the parametric form as typed) and
/// what the reader accepted but did not use (a Slurm key, a Kueue node left out), one
/// `warning: FILE:LINE: field: what` line each: no error, but the cluster may not be what
/// the user meant.
pub fn read_topology_input(arg: &str) -> Result<(TopologyInput, Vec<String>), SourcedError> {
    let input = topology_input(arg)?;
    if let TopologyInput::Choice(_) = input {
        return Ok((input, Vec::new()));
    }
    let read = inputs::read_topology(&input, NAMES)?;
    let notices = read.warnings.iter().map(|w| format!("warning: {w}")).collect();
    Ok((TopologyInput::Choice(TopologyChoice::Custom(read.topology.spec().clone())), notices))
}

/// The trace rows a scenario left out (no error, but the trace shrank), one `note:` line
/// per reason, the estimated models, and a `warning:` per submit time far beyond the rest
/// (`workload::submit_outliers`), for the front end to show apart from the results.
pub fn trace_notices(scenario: &Scenario) -> Vec<String> {
    scenario
        .trace_skipped
        .iter()
        .map(|s| {
            format!(
                "note: {}: {} left out (the first on line {})",
                scenario.trace_label,
                s.reason.count(s.rows),
                s.first_line
            )
        })
        .chain(estimate_notices(scenario))
        .chain(
            proxima_core::workload::submit_outliers(&scenario.jobs).into_iter().map(|w| {
                format!("warning: {}", proxima_core::error::SourcedError::new(scenario.trace_label.as_str(), w))
            }),
        )
        .collect()
}

/// One `note:` line per model the scenario's jobs train whose compute time on the cluster's
/// GPU is an estimate scaled from another GPU (`model::estimate`), in name order.
pub fn estimate_notices(scenario: &Scenario) -> Vec<String> {
    let notes: std::collections::BTreeSet<String> = scenario
        .jobs
        .iter()
        .map(|j| scenario.catalog.get(j.model))
        .filter_map(|m| {
            m.estimate.as_ref().map(|e| format!("note: {} on {}: compute time {}", m.name, m.gpu, e.label()))
        })
        .collect();
    notes.into_iter().collect()
}

/// Where a run's jobs come from.
#[derive(Clone, Copy, Debug)]
pub enum Jobs<'a> {
    /// A trace input (synthetic, or a file's text): the core's path from end to end.
    Input(&'a TraceInput),
    /// A trace parsed once, with the name runs report it by.
    Parsed { trace: &'a Trace, label: &'a str },
}

/// The options that shape a scenario besides topology and trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkloadArgs {
    pub seed: u64,
    pub skip: u32,
    pub limit: Option<u32>,
    pub mix: Option<String>,
    /// The tenants' quotas, as the CLI's `--tenants` takes them (`None`: unset).
    pub tenants: Option<String>,
}

/// The scenario of a run.
pub fn scenario(topology: &TopologyInput, jobs: Jobs, args: &WorkloadArgs) -> Result<Scenario, SourcedError> {
    match jobs {
        Jobs::Input(trace) => inputs::build_scenario(&ScenarioInput {
            topology: topology.clone(),
            trace: trace.clone(),
            seed: args.seed,
            skip: args.skip,
            limit: args.limit,
            mix: args.mix.clone(),
            tenants: args.tenants.clone(),
            names: NAMES,
        }),
        // The core's steps, in its order, with the trace already parsed.
        Jobs::Parsed { trace, label } => {
            let topology = build_topology(topology, NAMES)?;
            let mix = build_mix(args.mix.as_deref(), &Catalog::built_in(), NAMES)?;
            let options = WorkloadOptions { seed: args.seed, skip: args.skip, limit: args.limit, mix };
            let mut scenario =
                Scenario::from_trace(topology, trace, &options, label).map_err(|e| SourcedError::new(label, e))?;
            inputs::apply_tenants(&mut scenario, args.tenants.as_deref(), trace, NAMES)?;
            Ok(scenario)
        }
    }
}

/// The policies of a run or a comparison, each parsed and built once
/// (`proxima_core::session`), a problem naming the argument as the CLI's flag.
pub fn policies<S: AsRef<str>>(texts: &[S]) -> Result<Vec<PolicyChoice>, SourcedError> {
    parse_policies(texts).map_err(sourced)
}

/// The session of a scenario and its policies: the scenario built once, every policy
/// checked against its cluster (a `kueue-tas` level the cluster lacks is an error here,
/// not a stop in the middle of the run).
pub fn session(
    topology: &TopologyInput,
    jobs: Jobs,
    args: &WorkloadArgs,
    policies: Vec<PolicyChoice>,
) -> Result<Session, SourcedError> {
    Session::new(scenario(topology, jobs, args)?, policies).map_err(sourced)
}

/// A session's problem as the native front ends show it, the policy named `--policy`.
pub fn sourced(problem: Problem) -> SourcedError {
    problem.sourced(PolicyNames::Argument(NAMES))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A topology argument that names a file: what the file holds, an option the kind
    /// takes and what the input then says (its file name and that option, as text), and an
    /// option the kind refuses.
    struct FileArgument {
        kind: &'static str,
        body: &'static str,
        option: &'static str,
        read: fn(TopologyInput) -> Option<(String, String)>,
        /// What `read` gives beside the file's name.
        holds: &'static str,
        refused: &'static str,
    }

    #[test]
    fn a_file_argument_reads_the_file_with_its_options_and_names_a_refused_one() {
        let cases = [
            FileArgument {
                kind: "slurm",
                body: "SwitchName=s0 Nodes=n[1-2]\n",
                option: "gpus=2",
                read: |t| match t {
                    TopologyInput::Slurm { name, text, options } => Some((name, format!("{} {text}", options.gpus))),
                    _ => None,
                },
                holds: "2 SwitchName=s0 Nodes=n[1-2]\n",
                refused: "gpus=0",
            },
            FileArgument {
                kind: "lingjun",
                body: "ip,DSW,PSW,ASW\nh1,G,P,S\n",
                option: "gpus=2",
                read: |t| match t {
                    TopologyInput::Lingjun { name, options, .. } => Some((name, options.gpus.to_string())),
                    _ => None,
                },
                holds: "2",
                refused: "oversub=2",
            },
            FileArgument {
                kind: "kueue",
                body: "kind: Topology\n",
                option: "nic_gbps=400",
                read: |t| match t {
                    TopologyInput::Kueue { name, options, .. } => Some((name, options.links.nic_gbps.to_string())),
                    _ => None,
                },
                holds: "400",
                refused: "gpus=8",
            },
        ];
        for case in &cases {
            let path = std::env::temp_dir().join(format!("proxima-host-{}-{}", case.kind, std::process::id()));
            std::fs::write(&path, case.body).unwrap();
            let input = topology_input(&format!("{}:{},{}", case.kind, path.display(), case.option)).unwrap();
            let name = path.display().to_string();
            assert_eq!((case.read)(input), Some((name, case.holds.to_string())), "{}", case.kind);
            std::fs::remove_file(&path).unwrap();
            let e = topology_input(&format!("{}:{},{}", case.kind, path.display(), case.refused)).unwrap_err();
            let field = case.refused.split('=').next().unwrap();
            assert_eq!((e.source.as_str(), e.field.as_str()), ("--topology", field), "{}", case.kind);
        }
    }

    #[test]
    fn the_lab_files_and_the_philly_trace_name_their_file_line_and_field() {
        let e = philly_trace(Some("/nonexistent/proxima-philly.csv")).unwrap_err();
        assert_eq!(
            (e.source.as_str(), e.line, e.field.as_str()),
            ("/nonexistent/proxima-philly.csv", None, "--philly")
        );
        let path = std::env::temp_dir().join(format!("proxima-host-files-{}.csv", std::process::id()));
        let name = path.display().to_string();
        std::fs::write(&path, "placement,local_bsz,step_time,sync_time\n1,32,0.5,0\n1,-1,0.5,0\n").unwrap();
        let e = placements(&name).unwrap_err();
        assert_eq!((e.source.as_str(), e.line, e.field.as_str()), (name.as_str(), Some(3), "local_bsz"));
        std::fs::write(&path, "{\n  \"plan\": 1\n}\n").unwrap();
        let e = report(&name).unwrap_err();
        assert_eq!((e.source.as_str(), e.field.as_str()), (name.as_str(), "report"));
        assert!(e.line.is_some() && e.message.starts_with("not a report: "), "{e}");
        // A gzip cut short names the file and what failed, not the JSON it never reached.
        std::fs::write(&path, [0x1f, 0x8b, 0x08, 0x00]).unwrap();
        let e = report(&name).unwrap_err();
        assert_eq!((e.source.as_str(), e.field.as_str()), (name.as_str(), "gzip"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_submit_time_far_beyond_the_rest_is_a_warning_naming_its_file_and_line() {
        let text = "id,submit_s,gpus,model,duration_s\na,0,2,resnet50,60\nb,5,4,vgg16,30\nc,1e9,1,resnet50,60\n";
        let trace = TraceInput::File { name: "jobs.csv".into(), text: text.into() };
        let scenario =
            inputs::build_scenario(&ScenarioInput::new(TopologyInput::Argument("teaching".into()), trace, 1)).unwrap();
        let warnings: Vec<String> =
            trace_notices(&scenario).into_iter().filter(|n| n.starts_with("warning:")).collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("warning: jobs.csv:4: submit: job c is submitted at 1000000000 s"),
            "{}",
            warnings[0]
        );
    }
}
