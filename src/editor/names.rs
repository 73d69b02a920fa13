//! Ids for new elements: the next free name in the pattern of their neighbours
//! (`tor1` → `tor2`, `r0s3` → `r0s4`), never one already taken.

use proxima_core::topology::TopologySpec;

fn used(spec: &TopologySpec, id: &str) -> bool {
    spec.switches.iter().any(|s| s.id == id) || spec.servers.iter().any(|s| s.id == id)
}

/// `base` if no node has it, else `base-2`, `base-3`, ...
pub(super) fn unique_id(spec: &TopologySpec, base: &str) -> String {
    if !used(spec, base) {
        return base.to_string();
    }
    let (stem, n) = split_number(base);
    if let Some(n) = n {
        (n + 1..).map(|k| format!("{stem}{k}")).find(|c| !used(spec, c)).expect("an unused name")
    } else {
        (2..).map(|k| format!("{base}-{k}")).find(|c| !used(spec, c)).expect("an unused name")
    }
}

/// `tor1` → `tor2`, `r0s3` → `r0s4`, `spine` → `spine2`.
pub(super) fn next_name(id: &str) -> String {
    match split_number(id) {
        (stem, Some(n)) => format!("{stem}{}", n + 1),
        (stem, None) => format!("{stem}2"),
    }
}

fn split_number(id: &str) -> (&str, Option<u64>) {
    let digits = id.len() - id.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 18 {
        return (id, None);
    }
    let (stem, num) = id.split_at(id.len() - digits);
    (stem, num.parse().ok())
}

pub(super) fn trailing_number(id: &str) -> Option<u64> {
    split_number(id).1
}

/// A server id for a new rack, from a template server's: `r1s0` in the rack numbered 2
/// becomes `r2s0`; ids without a rack number get the rack's id as a prefix.
pub(super) fn renumber(server: &str, rack: Option<u64>, rack_id: &str) -> String {
    let numbers: Vec<(usize, usize)> = {
        let mut out = Vec::new();
        let b = server.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_digit() {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                out.push((start, i));
            } else {
                i += 1;
            }
        }
        out
    };
    match (rack, numbers.as_slice()) {
        (Some(r), [(s, e), _, ..]) => format!("{}{r}{}", &server[..*s], &server[*e..]),
        _ => format!("{rack_id}-{server}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::topology::resolve_topology_arg;

    #[test]
    fn names_are_unique_and_follow_the_pattern() {
        let spec = resolve_topology_arg("teaching").unwrap().spec().clone();
        assert_eq!(unique_id(&spec, "tor1"), "tor2");
        assert_eq!(unique_id(&spec, "spine"), "spine-2");
        assert_eq!(unique_id(&spec, "fresh"), "fresh");
        assert_eq!(next_name("r0s3"), "r0s4");
        assert_eq!(renumber("r1s0", Some(7), "tor7"), "r7s0");
        assert_eq!(renumber("node3", Some(7), "tor7"), "tor7-node3");
    }
}
