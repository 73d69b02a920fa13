//! `proxima experiment NAME --write-sweeps DIR`: the experiment's runs as sweep specs
//! (`docs/SWEEPS.md`), one TOML file per Cartesian part of the plan
//! ([`proxima_lab::experiment::plan::GridPart`]), so that `proxima sweep` or a Ray cluster
//! can run them. Run every part into one output folder: runs are keyed by their inputs, so
//! a run two parts share runs once. `sweeps/paper/` is this command's output, and a test
//! checks that it still runs exactly what the experiment runs.

use proxima_lab::experiment::{Plan, TraceRef};
use std::fmt::Write;

/// A TOML basic string.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// File name and text of each part's spec.
pub fn sweep_specs(plan: &Plan) -> Vec<(String, String)> {
    let parts = plan.grid_parts();
    let count = parts.len();
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let mut t = String::new();
            let _ = writeln!(
                t,
                "# Part {} of {count} of `proxima experiment {}`: {}.\n\
                 # Written by `proxima experiment {} --write-sweeps DIR`; do not edit by hand.\n\
                 # Run every part into one folder (a run two parts share runs once):\n\
                 #   for part in sweeps/{}/*.toml; do proxima sweep \"$part\" --out out/{}; done\n\
                 # `proxima experiment {}` itself runs the same runs and writes the report.",
                i + 1,
                plan.name,
                part.description,
                plan.name,
                plan.name,
                plan.name,
                plan.name
            );
            // A scenario of several trace windows is one entry of the scenario axis per window.
            let entries: usize = part.scenarios.iter().map(|&s| plan.scenarios[s].window_count()).sum();
            let runs = entries * part.policies.len() * part.seeds.len();
            let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
            let _ = writeln!(
                t,
                "# {} x {} x {} = {runs} runs.\n",
                plural(entries, "scenario", "scenarios"),
                plural(part.policies.len(), "policy", "policies"),
                plural(part.seeds.len(), "seed", "seeds")
            );
            let _ = writeln!(t, "[sweep]\nname = {}", quoted(&format!("{}-{}", plan.name, part.name)));
            let _ = writeln!(t, "description = {}\n", quoted(&part.description));
            let _ = writeln!(t, "[grid]\npolicy = [");
            for p in &part.policies {
                let _ = writeln!(t, "    {},", quoted(p));
            }
            let seeds: Vec<String> = part.seeds.iter().map(u64::to_string).collect();
            let _ = writeln!(t, "]\nseed = [{}]", seeds.join(", "));
            for (d, (k, window)) in part
                .scenarios
                .iter()
                .map(|&s| &plan.scenarios[s])
                .flat_map(|d| d.windows().into_iter().enumerate().map(move |w| (d, w)))
            {
                let name = d.window_name(k);
                let _ =
                    writeln!(t, "\n[[grid.scenario]]\nname = {}\ntopology = {}", quoted(&name), quoted(&d.topology));
                match &window {
                    TraceRef::Philly { skip, limit } => {
                        let _ = writeln!(t, "trace = \"data:philly/philly.csv\"\nskip = {skip}\nlimit = {limit}");
                    }
                    TraceRef::Synthetic { .. } => {
                        let spec = window.synthetic_spec().expect("a synthetic window has a spec");
                        let _ = writeln!(t, "trace = {}", quoted(&spec));
                    }
                }
                if let Some(mix) = &d.mix {
                    let _ = writeln!(t, "mix = {}", quoted(mix));
                }
            }
            (format!("{}.toml", part.name), t)
        })
        .collect()
}

/// Writes the specs into `dir`; returns the paths.
pub fn write_sweep_specs(plan: &Plan, dir: &str) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: cannot create directory: {e}"))?;
    let mut written = Vec::new();
    for (name, text) in sweep_specs(plan) {
        let path = format!("{dir}/{name}");
        std::fs::write(&path, text).map_err(|e| format!("{path}: {e}"))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_strings_are_escaped() {
        assert_eq!(quoted("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000A\"");
    }
}
