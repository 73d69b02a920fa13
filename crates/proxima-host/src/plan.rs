//! A spec expanded into runs: the Cartesian product of its axes, each run with the inputs
//! it needs, its cells in the table, and a stable id derived from its parameters.
//!
//! The id is FNV-1a (64 bits) over the run's canonical parameters, written with defaults
//! filled in (`topology=…\ntrace=…\npolicy=…\nseed=…\nskip=…\nlimit=…\nmix=…\n`), the
//! topology and trace as written in the spec. So the same run has the same id in any spec
//! that contains it, whatever the order of axes or the labels of compound entries: a sweep
//! extended by another axis value reuses the runs it already has. The keys that came later
//! are written only when they differ from their defaults (`tenants=…\n` in its canonical
//! form unless the quotas are `equal`, then `rho=on\n`), so a run that does not use them
//! keeps the id it had before they existed, and its recorded results stay reusable.

use crate::error::{problem, SourcedError};
use crate::inputs::{is_synthetic, names_a_file};
use crate::spec::{Cell, Entry, Key, Spec};
use proxima_core::model::Catalog;
use proxima_core::policy::resolve_policy;
use proxima_core::tenants::TenantSpec;
use proxima_core::topology::resolve_topology_arg;
use proxima_core::trace::{synthetic, synthetic_shape, tenant_mix};
use proxima_core::workload::ModelMix;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The inputs of one run, as the CLI's `run` takes them.
#[derive(Clone, Debug, PartialEq)]
pub struct RunInputs {
    /// As written in the spec.
    pub topology: String,
    /// The topology file, resolved, when the topology names one.
    pub topology_file: Option<PathBuf>,
    /// As written in the spec.
    pub trace: String,
    /// The trace file, resolved, unless the trace is synthetic.
    pub trace_file: Option<PathBuf>,
    /// The policy with its option axes folded in, e.g. `dally:preempt=off,timers=300/150`.
    pub policy: String,
    pub seed: u64,
    pub skip: u32,
    pub limit: Option<u32>,
    pub mix: Option<String>,
    /// The tenants' quotas in the canonical form of a `--tenants` value; `None` for the
    /// default, `equal`.
    pub tenants: Option<String>,
    /// Whether the run also makes its isolated runs, for finish-time fairness ρ.
    pub rho: bool,
}

impl RunInputs {
    /// The canonical text the run id is the hash of.
    pub fn canonical(&self) -> String {
        let mut text = format!(
            "topology={}\ntrace={}\npolicy={}\nseed={}\nskip={}\nlimit={}\nmix={}\n",
            self.topology,
            self.trace,
            self.policy,
            self.seed,
            self.skip,
            self.limit.map(|l| l.to_string()).unwrap_or_default(),
            self.mix.as_deref().unwrap_or("")
        );
        if let Some(tenants) = &self.tenants {
            text.push_str(&format!("tenants={tenants}\n"));
        }
        if self.rho {
            text.push_str("rho=on\n");
        }
        text
    }

    /// What the run's scenario depends on: the canonical text without the policy and ρ
    /// (which is measured after the shared run, on the same scenario). Runs with the same
    /// key simulate the same scenario, so a sweep builds it once for them.
    pub fn scenario_key(&self) -> String {
        RunInputs { policy: String::new(), rho: false, ..self.clone() }.canonical()
    }
}

/// FNV-1a, 64 bits, as 16 lowercase hex digits.
pub fn run_id(canonical: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in canonical.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlannedRun {
    pub id: String,
    /// One cell per column of [`Plan::columns`]; `None` where a compound entry leaves a
    /// key at its default.
    pub cells: Vec<Option<Cell>>,
    pub inputs: RunInputs,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub name: Option<String>,
    /// The grid's columns in the runs table: each axis in spec order; a compound axis is
    /// its name (the entry's name) followed by the keys its entries set.
    pub columns: Vec<String>,
    /// Sorted by id.
    pub runs: Vec<PlannedRun>,
}

/// Where relative paths in a spec point: files relative to the spec's folder, and
/// `data:PATH` under the reference-data folder.
#[derive(Clone, Debug)]
pub struct Paths {
    pub spec_dir: PathBuf,
    pub data_dir: PathBuf,
}

impl Paths {
    /// The data folder as the CLI finds it ([`crate::inputs::data_dir`]).
    pub fn data_dir_from_env() -> PathBuf {
        crate::inputs::data_dir()
    }

    pub fn resolve(&self, written: &str) -> PathBuf {
        if let Some(rest) = written.strip_prefix("data:") {
            return self.data_dir.join(rest);
        }
        let p = Path::new(written);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.spec_dir.join(p)
        }
    }
}

/// One choice per axis: which entry.
fn product(sizes: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for &n in sizes {
        out = out.into_iter().flat_map(|prefix| (0..n).map(move |i| [prefix.clone(), vec![i]].concat())).collect();
    }
    out
}

impl Plan {
    /// Expands a spec. Every policy, topology spec, synthetic trace spec and model mix is
    /// checked now, so a typo fails before any run starts.
    pub fn new(spec: &Spec, paths: &Paths) -> Result<Plan, SourcedError> {
        let mut columns: Vec<String> = Vec::new();
        // For each axis, the columns its cells go to: plain axes one, compound axes their
        // name and then every key their entries set.
        let mut axis_columns: Vec<Vec<String>> = Vec::new();
        for axis in &spec.axes {
            let mut cols = vec![axis.name.clone()];
            if axis.key.is_none() {
                for e in &axis.entries {
                    if let Entry::Compound { sets, .. } = e {
                        for (k, _) in sets {
                            if !cols.contains(&k.name()) {
                                cols.push(k.name());
                            }
                        }
                    }
                }
            }
            columns.extend(cols.iter().cloned());
            axis_columns.push(cols);
        }
        let sizes: Vec<usize> = spec.axes.iter().map(|a| a.entries.len()).collect();
        let mut runs = Vec::new();
        let mut by_id: BTreeMap<String, String> = BTreeMap::new();
        let mut checked = Checked::default();
        for choice in product(&sizes) {
            let mut cells: Vec<Option<Cell>> = Vec::with_capacity(columns.len());
            let mut set: Vec<(Key, Cell, usize, usize)> = Vec::new();
            for (a, &i) in choice.iter().enumerate() {
                let axis = &spec.axes[a];
                match &axis.entries[i] {
                    Entry::Plain(c) => {
                        cells.push(Some(c.clone()));
                        set.push((axis.key.clone().expect("plain axes have a key"), c.clone(), a, i));
                    }
                    Entry::Compound { name, sets } => {
                        cells.push(Some(Cell::Str(name.clone())));
                        for col in &axis_columns[a][1..] {
                            let v = sets.iter().find(|(k, _)| &k.name() == col).map(|(_, c)| c.clone());
                            cells.push(v);
                        }
                        set.extend(sets.iter().map(|(k, c)| (k.clone(), c.clone(), a, i)));
                    }
                }
            }
            let inputs = checked.inputs(spec, paths, &set)?;
            let canonical = inputs.canonical();
            let id = run_id(&canonical);
            if let Some(other) = by_id.insert(id.clone(), canonical.clone()) {
                let message = if other == canonical {
                    "two combinations of the grid give the same run (the same inputs under different labels)"
                        .to_string()
                } else {
                    format!("two different runs hash to the id {id}; change a label or report this")
                };
                return Err(problem(&spec.source, None, "grid", message));
            }
            runs.push(PlannedRun { id, cells, inputs });
        }
        runs.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Plan { name: spec.name.clone(), columns, runs })
    }
}

/// Validates each distinct value once (a sweep can have thousands of runs with a handful
/// of distinct policies).
#[derive(Default)]
struct Checked {
    ok: std::collections::BTreeSet<(String, String)>,
}

impl Checked {
    fn inputs(
        &mut self,
        spec: &Spec,
        paths: &Paths,
        set: &[(Key, Cell, usize, usize)],
    ) -> Result<RunInputs, SourcedError> {
        let find = |key: &Key| set.iter().find(|(k, ..)| k == key);
        let text = |key: Key| find(&key).map(|(_, c, ..)| c.text());
        let int = |key: Key| match find(&key) {
            Some((_, Cell::Int(i), ..)) => Some(*i),
            _ => None,
        };
        let mut policy = text(Key::Policy).expect("checked by the spec");
        let options: Vec<String> = set
            .iter()
            .filter_map(|(k, c, ..)| match k {
                Key::PolicyOption(o) => Some(format!("{o}={}", c.text())),
                _ => None,
            })
            .collect();
        if !options.is_empty() {
            policy.push(if policy.contains(':') { ',' } else { ':' });
            policy.push_str(&options.join(","));
        }
        let topology = text(Key::Topology).expect("checked by the spec");
        let trace = text(Key::Trace).expect("checked by the spec");
        let topology_file = {
            let resolved = paths.resolve(&topology);
            (topology.starts_with("data:") || names_a_file(&resolved.to_string_lossy())).then_some(resolved)
        };
        let trace_file = (!is_synthetic(&trace)).then(|| paths.resolve(&trace));
        let mut inputs = RunInputs {
            topology,
            topology_file,
            trace,
            trace_file,
            policy,
            seed: int(Key::Seed).unwrap_or(1) as u64,
            skip: int(Key::Skip).unwrap_or(0) as u32,
            limit: int(Key::Limit).map(|l| l as u32),
            mix: text(Key::Mix),
            tenants: None,
            rho: matches!(find(&Key::Rho), Some((_, Cell::Bool(true), ..))),
        };
        // Where to point a message: the entry that set the key.
        let at = |key: &Key, field: &str, e: &dyn std::fmt::Display| {
            let (line, name) = match find(key) {
                Some((_, _, a, i)) => (spec.axes[*a].lines[*i], format!("grid.{}[{i}]", spec.axes[*a].name)),
                None => (None, format!("grid.{field}")),
            };
            problem(&spec.source, line, name, e.to_string())
        };
        if self.ok.insert(("policy".into(), inputs.policy.clone())) {
            // The options come from their own axes: point at the policy when it is the
            // base that is wrong, else at the first option axis.
            resolve_policy(&inputs.policy).map_err(|e| {
                let key = set.iter().find(|(k, ..)| matches!(k, Key::PolicyOption(o) if o == &e.field));
                at(key.map(|(k, ..)| k).unwrap_or(&Key::Policy), "policy", &e)
            })?;
        }
        if inputs.topology_file.is_none() && self.ok.insert(("topology".into(), inputs.topology.clone())) {
            resolve_topology_arg(&inputs.topology).map_err(|e| at(&Key::Topology, "topology", &e))?;
        }
        if inputs.trace_file.is_none() && self.ok.insert(("trace".into(), inputs.trace.clone())) {
            // A synthetic trace may ask for tenants (`tenants=N`), which the core takes out
            // before the generator reads the rest.
            let (generator, _) = tenant_mix::split_spec(&inputs.trace).map_err(|e| at(&Key::Trace, "trace", &e))?;
            let (generator, _) = synthetic_shape::split_spec(&generator).map_err(|e| at(&Key::Trace, "trace", &e))?;
            synthetic::parse(&generator).map_err(|e| at(&Key::Trace, "trace", &e))?;
        }
        // The quotas' syntax is checked here; whether the tenants they name are in the
        // trace, and whether they fit the cluster, is known once the scenario is built.
        if let Some(written) = text(Key::Tenants) {
            let spec = TenantSpec::parse(&written).map_err(|e| at(&Key::Tenants, "tenants", &e))?;
            inputs.tenants = (spec != TenantSpec::Equal).then(|| spec.to_string());
        }
        if let Some(mix) = &inputs.mix {
            if self.ok.insert(("mix".into(), mix.clone())) {
                ModelMix::parse(mix, &Catalog::built_in()).map_err(|e| at(&Key::Mix, "mix", &e))?;
            }
        }
        Ok(inputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str) -> Result<Plan, SourcedError> {
        let paths = Paths { spec_dir: PathBuf::from("/specs"), data_dir: PathBuf::from("/data") };
        Plan::new(&Spec::from_toml(text, "s.toml")?, &paths)
    }

    #[test]
    fn expands_the_product_with_stable_ids() {
        let p = plan(
            "[grid]\ntopology = ['teaching', 'n32g4']\ntrace = 'synthetic:jobs=20'\npolicy = ['dally', 'dally:autotune=off']\n\
             \"policy.preempt\" = [false]\nseed = [1, 2, 3]\n",
        )
        .unwrap();
        assert_eq!(p.runs.len(), 2 * 2 * 3);
        assert_eq!(p.columns, ["topology", "trace", "policy", "policy.preempt", "seed"]);
        assert!(p.runs.windows(2).all(|w| w[0].id < w[1].id));
        let policies: Vec<&str> = p.runs.iter().map(|r| r.inputs.policy.as_str()).collect();
        assert!(policies.contains(&"dally:preempt=off") && policies.contains(&"dally:autotune=off,preempt=off"));
        // The order of axes does not change ids.
        let q = plan(
            "[grid]\nseed = [3, 2, 1]\npolicy = ['dally:autotune=off', 'dally']\ntrace = 'synthetic:jobs=20'\n\
             topology = ['n32g4', 'teaching']\n\"policy.preempt\" = [false]\n",
        )
        .unwrap();
        let ids = |p: &Plan| p.runs.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&p), ids(&q));
        // A policy without that option is refused, naming the option's axis.
        assert_eq!(
            plan("[grid]\ntopology = 'teaching'\ntrace = 'synthetic'\npolicy = 'fifo'\n\"policy.preempt\" = [false]\n")
                .unwrap_err()
                .to_string(),
            "s.toml:5: grid.policy.preempt[0]: preempt: unknown option of policy 'fifo'"
        );
    }

    #[test]
    fn ids_ignore_axis_order_and_labels() {
        let a =
            plan("[grid]\ntopology = 'teaching'\ntrace = 'synthetic:jobs=5'\npolicy = ['fifo', 'dally']\n").unwrap();
        let b = plan(
            "[grid]\npolicy = ['dally', 'fifo']\n[[grid.where]]\nname = 'small'\ntopology = 'teaching'\ntrace = 'synthetic:jobs=5'\nseed = 1\n",
        )
        .unwrap();
        let ids = |p: &Plan| p.runs.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&a), ids(&b));
        assert_eq!(b.columns, ["policy", "where", "topology", "trace", "seed"]);
        assert_eq!(b.runs[0].cells[1], Some(Cell::Str("small".into())));
    }

    #[test]
    fn resolves_files_and_checks_specs() {
        let p = plan("[grid]\ntopology = 'teaching'\ntrace = ['data:philly/philly.csv', 't.csv']\npolicy = 'fifo'\n")
            .unwrap();
        let files: Vec<_> = p.runs.iter().map(|r| r.inputs.trace_file.clone().unwrap()).collect();
        assert!(files.contains(&PathBuf::from("/data/philly/philly.csv")));
        assert!(files.contains(&PathBuf::from("/specs/t.csv")));
        assert_eq!(
            plan("[grid]\ntopology = 'teaching'\ntrace = 'synthetic:jobs=5'\npolicy = ['fifo', 'lottery']\n")
                .unwrap_err()
                .to_string(),
            "s.toml:4: grid.policy[1]: policy: unknown policy 'lottery' (known: fifo, consolidate, strict, slurm, tiresias, srtf, random, dally, kueue-tas, volcano)"
        );
        assert_eq!(
            plan("[grid]\ntopology = 'racks=2'\ntrace = 'synthetic:jobs=5'\npolicy = 'fifo'\n").unwrap_err().to_string(),
            "s.toml:2: grid.topology[0]: servers: missing (the form is racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=ib|roce|tcp][,gpu=t4|a100|h100|b200|gb200][,rails=on])"
        );
    }

    #[test]
    fn tenants_and_rho_extend_the_id_only_when_set() {
        let base = "[grid]\ntopology = 'teaching'\ntrace = 'synthetic:jobs=20,tenants=2'\npolicy = 'fifo'\n";
        let only = |text: &str| plan(text).unwrap().runs.remove(0);
        let plain = only(base);
        // The id of a run without the keys is the hash of the canonical text they predate.
        let before =
            "topology=teaching\ntrace=synthetic:jobs=20,tenants=2\npolicy=fifo\nseed=1\nskip=0\nlimit=\nmix=\n";
        assert_eq!(plain.inputs.canonical(), before);
        assert_eq!(plain.id, run_id(before));
        // Their defaults are the run without them.
        assert_eq!(only(&format!("{base}tenants = 'equal'\nrho = false\n")).id, plain.id);
        // Quotas in their canonical form, then ρ.
        let both = only(&format!("{base}tenants = ' weights:t1 = 2 '\nrho = true\n"));
        assert_eq!((both.inputs.tenants.as_deref(), both.inputs.rho), (Some("weights:t1=2"), true));
        assert_eq!(both.inputs.canonical(), format!("{before}tenants=weights:t1=2\nrho=on\n"));
        // ρ is measured on the same scenario: runs with and without it share it.
        let rho = only(&format!("{base}rho = true\n"));
        assert_ne!(rho.id, plain.id);
        assert_eq!(rho.inputs.scenario_key(), plain.inputs.scenario_key());
        assert_ne!(both.inputs.scenario_key(), plain.inputs.scenario_key());
        // A quota's syntax is checked before anything runs, pointing at its entry.
        assert_eq!(
            plan(&format!("{base}tenants = ['demand', 'fair']\n")).unwrap_err().to_string(),
            "s.toml:5: grid.tenants[1]: tenants: 'fair': expected equal, demand, weights:NAME=W,... or NAME=GPUS,..."
        );
        assert_eq!(
            plan(&format!("{base}[[grid.q]]\nname = 'x'\ntenants = 'a=1,a=2'\n")).unwrap_err().to_string(),
            "s.toml:5: grid.q[0]: a: named twice"
        );
        assert_eq!(
            plan("[grid]\ntopology = 'teaching'\ntrace = 'synthetic:jobs=20,tenants=0'\npolicy = 'fifo'\n")
                .unwrap_err()
                .to_string(),
            "s.toml:3: grid.trace[0]: tenants: expected a whole number of tenants from 1 to 15, got '0'"
        );
    }
}
