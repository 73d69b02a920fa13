//! A sweep spec: a `[grid]` table whose keys are axes, each a list of values, and whose
//! Cartesian product is the set of runs.
//!
//! ```toml
//! [sweep]                      # optional
//! name = "small"
//!
//! [grid]
//! topology = ["teaching", "racks=2,servers=4,gpus=4,oversub=4"]
//! trace = ["synthetic:jobs=300,load=1.0"]
//! policy = ["consolidate", "dally"]
//! "policy.timers" = ["300/150", "0/0"]   # a policy option as its own axis
//! seed = [1, 2]
//!
//! [[grid.scenario]]            # a compound axis: each entry sets several keys at once
//! name = "philly-512"
//! topology = "racks=8,servers=16,gpus=4,oversub=16,nic_gbps=50"
//! trace = "data:philly/philly.csv"
//! skip = 50000
//! limit = 10000
//! ```
//!
//! Run keys: `topology`, `trace`, `policy` (required, from some axis), `seed` (default 1),
//! `skip` (default 0), `limit`, `mix`, `tenants` (the quotas, as the CLI's `--tenants`),
//! `rho` (`true` for finish-time fairness ρ; default `false`) and `policy.OPTION`. A single
//! value stands for a one-value axis.

use crate::error::{problem, SourcedError};
use crate::tree::{Node, Value};

/// A value in the runs table: what a grid key was set to.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl Cell {
    /// The text of the value as a policy option or in the run's canonical form.
    pub fn text(&self) -> String {
        match self {
            Cell::Str(s) => s.clone(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(x) => serde_json::to_string(x).expect("finite"),
            Cell::Bool(b) => if *b { "on" } else { "off" }.to_string(),
        }
    }
}

/// A key a run is made of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    Topology,
    Trace,
    Policy,
    Seed,
    Skip,
    Limit,
    Mix,
    /// The tenants' quotas, as the CLI's `--tenants` takes them.
    Tenants,
    /// Whether the run also makes its isolated runs, for finish-time fairness ρ.
    Rho,
    /// `policy.NAME`: one option of the policy.
    PolicyOption(String),
}

impl Key {
    pub fn parse(name: &str) -> Option<Key> {
        Some(match name {
            "topology" => Key::Topology,
            "trace" => Key::Trace,
            "policy" => Key::Policy,
            "seed" => Key::Seed,
            "skip" => Key::Skip,
            "limit" => Key::Limit,
            "mix" => Key::Mix,
            "tenants" => Key::Tenants,
            "rho" => Key::Rho,
            _ => {
                let option = name.strip_prefix("policy.")?;
                if option.is_empty() || !option.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return None;
                }
                Key::PolicyOption(option.to_string())
            }
        })
    }

    pub fn name(&self) -> String {
        match self {
            Key::Topology => "topology".into(),
            Key::Trace => "trace".into(),
            Key::Policy => "policy".into(),
            Key::Seed => "seed".into(),
            Key::Skip => "skip".into(),
            Key::Limit => "limit".into(),
            Key::Mix => "mix".into(),
            Key::Tenants => "tenants".into(),
            Key::Rho => "rho".into(),
            Key::PolicyOption(o) => format!("policy.{o}"),
        }
    }
}

const KEYS_HELP: &str = "topology, trace, policy, seed, skip, limit, mix, tenants, rho or policy.OPTION";

/// One value of an axis.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A plain axis: one key, one value.
    Plain(Cell),
    /// A compound axis: a named entry that sets several keys.
    Compound { name: String, sets: Vec<(Key, Cell)> },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The grid key as written.
    pub name: String,
    /// For a plain axis, the run key it sets.
    pub key: Option<Key>,
    pub entries: Vec<Entry>,
    /// Line of each entry, for messages.
    pub lines: Vec<Option<u32>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The file name the spec was read from (or `<spec>`), for messages.
    pub source: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub axes: Vec<Axis>,
}

struct Ctx<'a> {
    source: &'a str,
}

impl Ctx<'_> {
    fn err(&self, node: &Node, field: impl Into<String>, message: impl Into<String>) -> SourcedError {
        problem(self.source, node.line, field, message)
    }
}

impl Spec {
    /// A spec from TOML text.
    pub fn from_toml(text: &str, source: &str) -> Result<Spec, SourcedError> {
        Spec::from_tree(&crate::tree::from_toml(text, source)?, source)
    }

    /// A spec from JSON text (an object with the same tables).
    pub fn from_json(text: &str, source: &str) -> Result<Spec, SourcedError> {
        Spec::from_tree(&crate::tree::from_json(text, source)?, source)
    }

    pub fn from_tree(root: &Node, source: &str) -> Result<Spec, SourcedError> {
        let cx = Ctx { source };
        let Value::Table(top) = &root.value else {
            return Err(cx.err(root, "spec", "expected a table with a [grid]"));
        };
        let mut spec = Spec { source: source.to_string(), name: None, description: None, axes: Vec::new() };
        let mut grid = None;
        for (key, node) in top {
            match key.as_str() {
                "grid" => grid = Some(node),
                "sweep" => read_sweep_table(&cx, node, &mut spec)?,
                other => return Err(cx.err(node, other, "unknown table (a spec has [grid] and an optional [sweep])")),
            }
        }
        let Some(grid) = grid else {
            return Err(problem(source, None, "grid", "missing: a spec needs a [grid] table of axes"));
        };
        let Value::Table(axes) = &grid.value else {
            return Err(cx.err(grid, "grid", format!("expected a table of axes, got {}", grid.value.kind())));
        };
        if axes.is_empty() {
            return Err(cx.err(grid, "grid", "no axes: name at least topology, trace and policy"));
        }
        for (name, node) in axes {
            spec.axes.push(read_axis(&cx, name, node)?);
        }
        check_keys_set_once(&cx, &spec, grid)?;
        Ok(spec)
    }
}

fn read_sweep_table(cx: &Ctx, node: &Node, spec: &mut Spec) -> Result<(), SourcedError> {
    let Value::Table(entries) = &node.value else {
        return Err(cx.err(node, "sweep", format!("expected a table, got {}", node.value.kind())));
    };
    for (key, v) in entries {
        let field = format!("sweep.{key}");
        let Value::Str(s) = &v.value else {
            return Err(cx.err(v, field, format!("expected a string, got {}", v.value.kind())));
        };
        match key.as_str() {
            "name" => spec.name = Some(s.clone()),
            "description" => spec.description = Some(s.clone()),
            _ => return Err(cx.err(v, field, "unknown key (a [sweep] table has name and description)")),
        }
    }
    Ok(())
}

fn read_axis(cx: &Ctx, name: &str, node: &Node) -> Result<Axis, SourcedError> {
    let field = format!("grid.{name}");
    let items: Vec<&Node> = match &node.value {
        Value::Array(items) => items.iter().collect(),
        _ => vec![node],
    };
    if items.is_empty() {
        return Err(cx.err(node, field, "an axis needs at least one value"));
    }
    let compound = matches!(items[0].value, Value::Table(_));
    let key = if compound {
        None
    } else {
        Some(Key::parse(name).ok_or_else(|| {
            cx.err(node, &field, format!("unknown key (expected {KEYS_HELP}, or a list of tables with a name)"))
        })?)
    };
    let mut axis = Axis { name: name.to_string(), key: key.clone(), entries: Vec::new(), lines: Vec::new() };
    for (i, item) in items.iter().enumerate() {
        let item_field = format!("{field}[{i}]");
        let entry = match (&key, &item.value) {
            (None, Value::Table(t)) => read_compound(cx, &item_field, item, t)?,
            (Some(k), v) if !matches!(v, Value::Table(_)) => Entry::Plain(read_cell(cx, &item_field, item, k)?),
            _ => {
                return Err(cx.err(
                    item,
                    item_field,
                    "an axis holds either plain values or tables (each with a name), not both",
                ))
            }
        };
        if let Some(j) = axis.entries.iter().position(|e| same_entry(e, &entry)) {
            return Err(cx.err(item, item_field, format!("the same value as {field}[{j}]: every run would run twice")));
        }
        axis.entries.push(entry);
        axis.lines.push(item.line);
    }
    Ok(axis)
}

fn same_entry(a: &Entry, b: &Entry) -> bool {
    match (a, b) {
        (Entry::Compound { name: x, .. }, Entry::Compound { name: y, .. }) => x == y,
        _ => a == b,
    }
}

fn read_compound(cx: &Ctx, field: &str, node: &Node, table: &[(String, Node)]) -> Result<Entry, SourcedError> {
    let mut name = None;
    let mut sets = Vec::new();
    for (k, v) in table {
        let f = format!("{field}.{k}");
        if k == "name" {
            match &v.value {
                Value::Str(s) if !s.is_empty() => name = Some(s.clone()),
                _ => return Err(cx.err(v, f, "expected a non-empty string naming the entry")),
            }
            continue;
        }
        let key = Key::parse(k).ok_or_else(|| cx.err(v, &f, format!("unknown key (expected name, {KEYS_HELP})")))?;
        sets.push((key.clone(), read_cell(cx, &f, v, &key)?));
    }
    let name =
        name.ok_or_else(|| cx.err(node, format!("{field}.name"), "missing: each entry of a compound axis is named"))?;
    Ok(Entry::Compound { name, sets })
}

fn read_cell(cx: &Ctx, field: &str, node: &Node, key: &Key) -> Result<Cell, SourcedError> {
    let got = node.value.kind();
    match (key, &node.value) {
        (Key::Topology | Key::Trace | Key::Policy | Key::Mix | Key::Tenants, Value::Str(s)) => {
            if s.trim().is_empty() {
                Err(cx.err(node, field, "expected a non-empty string"))
            } else {
                Ok(Cell::Str(s.clone()))
            }
        }
        (Key::Topology | Key::Trace | Key::Policy | Key::Mix | Key::Tenants, _) => {
            Err(cx.err(node, field, format!("expected a string, got {got}")))
        }
        (Key::Seed | Key::Skip | Key::Limit, Value::Int(i)) => {
            let min = if *key == Key::Limit { 1 } else { 0 };
            let max = if *key == Key::Seed { i64::MAX } else { u32::MAX as i64 };
            if *i < min || *i > max {
                Err(cx.err(node, field, format!("expected a whole number from {min} to {max}, got {i}")))
            } else {
                Ok(Cell::Int(*i))
            }
        }
        (Key::Seed | Key::Skip | Key::Limit, _) => {
            Err(cx.err(node, field, format!("expected a whole number, got {got}")))
        }
        (Key::Rho, Value::Bool(b)) => Ok(Cell::Bool(*b)),
        (Key::Rho, _) => Err(cx.err(node, field, format!("expected true or false, got {got}"))),
        (Key::PolicyOption(_), Value::Str(s)) => {
            if s.is_empty() || s.contains([',', ':', '=']) {
                Err(cx.err(node, field, format!("'{s}' cannot be an option value (empty, or has , : or =)")))
            } else {
                Ok(Cell::Str(s.clone()))
            }
        }
        (Key::PolicyOption(_), Value::Int(i)) => Ok(Cell::Int(*i)),
        (Key::PolicyOption(_), Value::Float(x)) => Ok(Cell::Float(*x)),
        (Key::PolicyOption(_), Value::Bool(b)) => Ok(Cell::Bool(*b)),
        (Key::PolicyOption(_), _) => Err(cx.err(node, field, format!("expected an option value, got {got}"))),
    }
}

/// Every run key comes from at most one axis, and topology, trace and policy from one.
fn check_keys_set_once(cx: &Ctx, spec: &Spec, grid: &Node) -> Result<(), SourcedError> {
    let mut seen: Vec<(Key, &str)> = Vec::new();
    for axis in &spec.axes {
        let mut keys: Vec<Key> = axis.key.iter().cloned().collect();
        for e in &axis.entries {
            if let Entry::Compound { sets, .. } = e {
                for (k, _) in sets {
                    if !keys.contains(k) {
                        keys.push(k.clone());
                    }
                }
            }
        }
        for k in keys {
            if let Some((_, other)) = seen.iter().find(|(s, _)| *s == k) {
                let message = format!("set by both grid.{other} and grid.{}: give each key one axis", axis.name);
                return Err(cx.err(grid, format!("grid.{}", k.name()), message));
            }
            seen.push((k, &axis.name));
        }
    }
    for required in [Key::Topology, Key::Trace, Key::Policy] {
        if !seen.iter().any(|(k, _)| *k == required) {
            let message = "missing: every run needs a topology, a trace and a policy";
            return Err(cx.err(grid, format!("grid.{}", required.name()), message));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Spec::from_toml(text, "s.toml").unwrap_err().to_string()
    }

    #[test]
    fn reads_plain_and_compound_axes() {
        let s = Spec::from_toml(
            "[grid]\ntrace = 'synthetic:jobs=10'\npolicy = ['fifo', 'dally']\n\"policy.preempt\" = [true]\n\
             [[grid.cluster]]\nname = 'a'\ntopology = 'teaching'\n[[grid.cluster]]\nname = 'b'\ntopology = 'n32g4'\nseed = 4\n",
            "s.toml",
        )
        .unwrap();
        assert_eq!(s.axes.len(), 4);
        assert_eq!(s.axes[0].entries, [Entry::Plain(Cell::Str("synthetic:jobs=10".into()))]);
        assert_eq!(s.axes[2].key, Some(Key::PolicyOption("preempt".into())));
        assert_eq!(s.axes[3].key, None);
        assert_eq!(s.axes[3].lines, [Some(5), Some(8)]);
    }

    #[test]
    fn problems_name_line_and_field() {
        assert_eq!(
            err("[grid]\ntopology = ['teaching']\ntrace = ['synthetic']\npolicy = ['fifo']\nseed = [1, -2]\n"),
            "s.toml:5: grid.seed[1]: expected a whole number from 0 to 9223372036854775807, got -2"
        );
        assert_eq!(
            err("[grid]\ntopology = 'teaching'\ntrace = 'synthetic'\npolicy = ['fifo', 'fifo']\n"),
            "s.toml:4: grid.policy[1]: the same value as grid.policy[0]: every run would run twice"
        );
        assert_eq!(
            err("[grid]\ntopology = 'teaching'\ntrace = 'synthetic'\npolicies = ['fifo']\n"),
            "s.toml:4: grid.policies: unknown key (expected topology, trace, policy, seed, skip, limit, mix, tenants, rho or policy.OPTION, or a list of tables with a name)"
        );
        assert_eq!(
            err("[grid]\ntopology = 'teaching'\ntrace = 'synthetic'\n"),
            "s.toml:1: grid.policy: missing: every run needs a topology, a trace and a policy"
        );
        assert_eq!(err("[sweep]\nname = 'x'\n"), "s.toml: grid: missing: a spec needs a [grid] table of axes");
        assert!(err("[grid]\nseed = [\n").starts_with("s.toml:"));
        assert_eq!(
            err("[grid]\ntopology = 'teaching'\ntrace = 'synthetic'\npolicy = 'fifo'\n[[grid.x]]\nname = 'a'\npolicy = 'dally'\n"),
            "s.toml:1: grid.policy: set by both grid.policy and grid.x: give each key one axis"
        );
    }

    #[test]
    fn tenants_and_rho_are_keys_with_their_own_types() {
        let base = "[grid]\ntopology = 'teaching'\ntrace = 'synthetic:jobs=5'\npolicy = 'fifo'\n";
        let s = Spec::from_toml(
            &format!("{base}tenants = ['equal', 'a=2']\n[[grid.fair]]\nname = 'with'\nrho = true\n"),
            "s.toml",
        )
        .unwrap();
        assert_eq!(s.axes[3].key, Some(Key::Tenants));
        assert_eq!(s.axes[3].entries[1], Entry::Plain(Cell::Str("a=2".into())));
        assert_eq!(
            s.axes[4].entries,
            [Entry::Compound { name: "with".into(), sets: vec![(Key::Rho, Cell::Bool(true))] }]
        );
        assert_eq!(
            err(&format!("{base}tenants = [4]\n")),
            "s.toml:5: grid.tenants[0]: expected a string, got an integer"
        );
        assert_eq!(err(&format!("{base}tenants = ''\n")), "s.toml:5: grid.tenants[0]: expected a non-empty string");
        assert_eq!(err(&format!("{base}rho = 'yes'\n")), "s.toml:5: grid.rho[0]: expected true or false, got a string");
        assert_eq!(
            err(&format!("{base}rho = [true, true]\n")),
            "s.toml:5: grid.rho[1]: the same value as grid.rho[0]: every run would run twice"
        );
        assert_eq!(
            err(&format!("{base}rho = true\n[[grid.x]]\nname = 'a'\nrho = false\n")),
            "s.toml:1: grid.rho: set by both grid.rho and grid.x: give each key one axis"
        );
    }
}
