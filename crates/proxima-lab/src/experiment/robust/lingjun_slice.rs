//! A slice of the Lingjun production topology as large as a cell's cluster.
//!
//! The published `topo.csv` holds 847 hosts (6,776 GPUs) under three aggregation
//! switches; the grid's other clusters have 256-832 GPUs, and a workload sized to them
//! would leave the whole of Lingjun idle (a synthetic trace too small for its cluster
//! arrives all at once, `proxima_core::trace::synthetic`). So a cell runs on a slice of it
//! with as many hosts as the other networks have servers: whole top-of-rack switches,
//! taken in turn from each aggregation switch (pod) in the order the file first names
//! them, with their hosts in file order, until the slice has its hosts (the last ToR may
//! be cut short). The slice keeps what makes the topology a production one: ToRs of
//! different sizes (2-8 hosts), three pods under one core switch, full bisection.

use crate::experiment::robust::sizing::GPUS_PER_SERVER;
use proxima_core::csv::Table;
use proxima_core::error::{InputError, SourcedError};
use proxima_core::inputs::read_lingjun_file;
use proxima_core::topology::formats::{LingjunOptions, LINGJUN_HEADER};
use proxima_core::topology::Topology;
use std::collections::BTreeMap;

/// A top-of-rack switch's name and its hosts' rows (1-based line numbers).
type Tor = (String, Vec<u32>);

/// The rows of `text` (a Lingjun `topo.csv`) that make the slice of `hosts` hosts, under
/// the file's header, in file order. Fewer hosts in the file than asked is an error.
pub fn slice_text(text: &str, hosts: u32) -> Result<String, InputError> {
    let mut table = Table::new(text)?;
    let found = table.locate(&["ip", "dsw", "psw", "asw"], &[], true, LINGJUN_HEADER)?;
    let (psw, asw) = (found["psw"], found["asw"]);
    let lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    // Pods in first-named order, each with its ToRs in first-named order.
    let mut pods: Vec<(String, Vec<Tor>)> = Vec::new();
    while let Some(row) = table.next_row() {
        let row = row?;
        let (pod, tor) = (row.fields[psw].trim().to_string(), row.fields[asw].trim().to_string());
        let at = match pods.iter().position(|(p, _)| *p == pod) {
            Some(i) => i,
            None => {
                pods.push((pod, Vec::new()));
                pods.len() - 1
            }
        };
        let tors = &mut pods[at].1;
        match tors.iter_mut().find(|(t, _)| *t == tor) {
            Some((_, rows)) => rows.push(row.line),
            None => tors.push((tor, vec![row.line])),
        }
    }
    let mut chosen: Vec<u32> = Vec::new();
    let deepest = pods.iter().map(|(_, tors)| tors.len()).max().unwrap_or(0);
    'fill: for k in 0..deepest {
        for (_, tors) in &pods {
            let Some((_, rows)) = tors.get(k) else { continue };
            for &line in rows {
                if chosen.len() == hosts as usize {
                    break 'fill;
                }
                chosen.push(line);
            }
        }
    }
    if chosen.len() < hosts as usize {
        return Err(InputError::new(
            "hosts",
            format!("the slice needs {hosts} hosts and the file has {}", chosen.len()),
        ));
    }
    chosen.sort_unstable();
    let mut out = lines[table.header_line as usize - 1].to_string();
    for line in chosen {
        out.push('\n');
        out.push_str(lines[line as usize - 1]);
    }
    out.push('\n');
    Ok(out)
}

/// The cluster of the slice of `hosts` hosts of the file `name` (its text `text`), with
/// the `lingjun:` options (`fabric=roce`, ...); errors name the file.
pub fn slice_topology(name: &str, text: &str, hosts: u32, options: &str) -> Result<Topology, SourcedError> {
    let options = LingjunOptions::parse(options).map_err(|e| SourcedError::new("lingjun options", e))?;
    debug_assert_eq!(options.gpus, GPUS_PER_SERVER, "the grid's servers have 8 GPUs");
    let sliced = slice_text(text, hosts).map_err(|e| SourcedError::new(name, e))?;
    let spec = read_lingjun_file(name, &sliced, &options)?;
    Topology::from_spec(&spec).map_err(|e| SourcedError::new(name, e))
}

/// How many hosts each ToR of a slice holds, by ToR path, for tests and the report.
pub fn tor_sizes(sliced: &str) -> Result<BTreeMap<String, u32>, InputError> {
    let mut table = Table::new(sliced)?;
    let found = table.locate(&["ip", "dsw", "psw", "asw"], &[], true, LINGJUN_HEADER)?;
    let mut sizes = BTreeMap::new();
    while let Some(row) = table.next_row() {
        let row = row?;
        let path = format!("{}/{}", row.fields[found["psw"]].trim(), row.fields[found["asw"]].trim());
        *sizes.entry(path).or_insert(0) += 1;
    }
    Ok(sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "ip,DSW,PSW,ASW\n\
        h1,G,P1,S1\n\
        h2,G,P2,S1\n\
        h3,G,P1,S1\n\
        h4,G,P1,S2\n\
        h5,G,P2,S1\n\
        h6,G,P2,S9\n\
        h7,G,P1,S2\n";

    #[test]
    fn whole_tors_in_turn_from_each_pod() {
        // Pods P1 (ToRs S1: h1 h3; S2: h4 h7) and P2 (ToRs S1: h2 h5; S9: h6). In turn:
        // P1/S1, P2/S1, P1/S2, P2/S9. Five hosts: h1 h3 h2 h5 h4, in file order.
        let five = slice_text(FILE, 5).unwrap();
        assert_eq!(five, "ip,DSW,PSW,ASW\nh1,G,P1,S1\nh2,G,P2,S1\nh3,G,P1,S1\nh4,G,P1,S2\nh5,G,P2,S1\n");
        let sizes = tor_sizes(&five).unwrap();
        assert_eq!(sizes, BTreeMap::from([("P1/S1".into(), 2), ("P1/S2".into(), 1), ("P2/S1".into(), 2)]));
        assert_eq!(slice_text(FILE, 7).unwrap().lines().count(), 8);
        assert_eq!(slice_text(FILE, 8).unwrap_err().field, "hosts");
    }

    #[test]
    fn the_slice_is_a_cluster_of_eight_gpu_hosts() {
        let t = slice_topology("topo.csv", FILE, 5, "fabric=roce").unwrap();
        assert_eq!(t.gpu_count(), 40);
        let bad = slice_topology("topo.csv", "ip,DSW,PSW\nh1,G,P1\n", 1, "fabric=roce").unwrap_err();
        assert!(bad.to_string().contains("ASW"), "{bad}");
    }
}
