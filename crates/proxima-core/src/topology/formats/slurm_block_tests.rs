//! Tests of the `topology.conf` reader on the topology/block form: Slurm's example and a
//! site's file read into the expected clusters, the warnings for what Slurm accepts and
//! Proxima does not use, and every refusal with its line, key and words.

use super::*;
use crate::topology::*;

fn options(gpus: u32, nic_gbps: f64) -> SlurmOptions {
    SlurmOptions { gpus, links: LinkOptions { nic_gbps, ..LinkOptions::default() }, ..SlurmOptions::default() }
}

fn read(text: &str) -> SlurmTopology {
    read_slurm_topology(text, &options(4, 100.0)).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn bandwidth(spec: &TopologySpec, a: &str, b: &str) -> f64 {
    let link = spec.links.iter().find(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a));
    link.unwrap_or_else(|| panic!("no link {a} - {b}")).bandwidth_gbps
}

fn ids(spec: &TopologySpec) -> Vec<&str> {
    spec.switches.iter().map(|s| s.id.as_str()).collect()
}

#[test]
fn slurms_block_example_reads_as_blocks_under_one_switch() {
    // topology.conf(5), SchedMD/slurm doc/man/man5/topology.conf.5 lines 172-176.
    let read = read(
        "# topology/block plugin\nBlockName=block1 Nodes=node[1-32]\nBlockName=block2 Nodes=node[33-64]\n\
         BlockName=block3 Nodes=node[65-96]\nBlockName=block4 Nodes=node[97-128]\nBlockSizes=30,120\n",
    );
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    let spec = &read.spec;
    assert_eq!(ids(spec), ["block[1-4]", "block1", "block2", "block3", "block4"]);
    assert_eq!(spec.switches[0].role, None);
    assert!(spec.switches[1..].iter().all(|s| s.role.as_deref() == Some("leaf")));
    assert_eq!((spec.servers.len(), spec.servers[32].id.as_str()), (128, "node33"));
    // Nodes at the NIC's 100 Gbit/s; each block's uplink at full bisection, 32 × 100.
    assert_eq!(bandwidth(spec, "node33", "block2"), 100.0);
    assert_eq!(bandwidth(spec, "block4", "block[1-4]"), 3200.0);
    let topo = Topology::from_spec(spec).unwrap();
    assert_eq!((topo.gpu_count(), topo.tier_names()), (512, &["server", "rack", "cluster"].map(String::from)[..]));
}

#[test]
fn a_site_block_file_with_block_sizes_and_host_lists() {
    // Four NVLink-domain racks of 16 nodes (one of them with a spare numbered apart), keys
    // in other cases, a continued line; BlockSizes plans in 16, 32 and 64 nodes.
    let text = "\
# GB200 racks
BlockName=nvl1 Nodes=gpu[001-015,020]
blockname=nvl2 NODES=gpu[021-036]
BlockName=nvl3 \\
    Nodes=gpu[037-052]
BlockName=nvl4 Nodes=gpu[053-068]
BlockSizes=16,32,64
";
    let read = read_slurm_topology(text, &options(4, 400.0)).unwrap();
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    assert_eq!(ids(&read.spec), ["nvl[1-4]", "nvl1", "nvl2", "nvl3", "nvl4"]);
    assert_eq!(read.spec.servers[15].id, "gpu020");
    assert_eq!((bandwidth(&read.spec, "gpu020", "nvl1"), bandwidth(&read.spec, "nvl3", "nvl[1-4]")), (400.0, 6400.0));
    assert_eq!(Topology::from_spec(&read.spec).unwrap().gpu_count(), 256);
    // One block is the whole cluster: a single switch, as a tree file of one line.
    let one = self::read("BlockName=b1 Nodes=n[1-4]\n");
    assert_eq!((ids(&one.spec), one.spec.servers.len()), (vec!["b1"], 4));
}

#[test]
fn gb200_blocks_are_nvlink_domains_whose_link_up_is_their_nics() {
    // Two NVL72 racks of 18 trays, each tray 4 GB200 and 4 NICs of 400 Gbit/s.
    let text = "BlockName=nvl1 Nodes=gb[001-018]\nBlockName=nvl2 Nodes=gb[019-036]\nBlockSizes=18,36\n";
    let gb200 = SlurmOptions::parse("gpus=4,gpu=gb200,nics=4,nic_gbps=400").unwrap();
    let read = read_slurm_topology(text, &gb200).unwrap();
    let t = Topology::from_spec(&read.spec).unwrap();
    assert_eq!((t.gpu_count(), t.gpu()), (144, Some("GB200")));
    assert_eq!(t.tier_names(), &["server", "nvlink", "cluster"]);
    assert_eq!(bandwidth(&read.spec, "gb001", "nvl1"), 4.0 * GpuKind::GB200.default_link_gbps());
    assert_eq!(bandwidth(&read.spec, "nvl1", "nvl[1-2]"), 18.0 * 4.0 * 400.0, "the block's link up is its trays' NICs");
    assert_eq!(t.node(t.tier_nodes(Tier(1))[0]).nics, 72);
    // The example for operators says the same in a site's words.
    let example = include_str!("../../../../../examples/your-cluster/gb200-topology.conf");
    let t = Topology::from_spec(&read_slurm_topology(example, &gb200).unwrap().spec).unwrap();
    assert_eq!((t.gpu_count(), t.tier_nodes(Tier(1)).len(), t.tier_name(Tier(1))), (144, 2, "nvlink"));
    // Without block_nvlink the same blocks are leaf switches over the trays' NICs.
    let off = SlurmOptions { block_nvlink: Some(false), ..gb200 };
    let plain = read_slurm_topology(text, &off).unwrap();
    assert_eq!(bandwidth(&plain.spec, "gb001", "nvl1"), 1600.0);
    assert_eq!(Topology::from_spec(&plain.spec).unwrap().tier_names(), &["server", "rack", "cluster"]);
}

#[test]
fn what_slurm_accepts_and_proxima_does_not_use_is_a_warning() {
    let got = self::read(
        "BlockName=b1 Nodes=n[1-4]\nBlockName=b2\nBlockName=b3 Nodes=n[5-6]\nBlockSizes=2\nBlockSizes=4,8\n",
    );
    let warnings: Vec<(Option<u32>, &str, &str)> =
        got.warnings.iter().map(|w| (w.line, w.field.as_str(), w.message.as_str())).collect();
    assert_eq!(
        warnings,
        [
            (Some(5), "BlockSizes", "given again (earlier on line 4): Slurm uses the last value, and so does Proxima"),
            (Some(2), "Nodes", "block 'b2' has no nodes: Slurm accepts it, and it adds nothing to the cluster"),
            (
                Some(3),
                "Nodes",
                "block 'b3' has 2 nodes, fewer than the base block size of 4 (BlockSizes, line 5); Slurm plans in base blocks of that size, Proxima builds the block as written"
            ),
        ]
    );
    // The empty block is left out: the top switch is named after the blocks with nodes.
    assert_eq!(ids(&got.spec), ["b[1,3]", "b1", "b3"]);
    // Without BlockSizes the base is the first block's node count.
    let small = self::read("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-7]\n");
    assert_eq!(
        small.warnings[0].message.split(';').next().unwrap(),
        "block 'b2' has 3 nodes, fewer than the base block size of 4 (the first block's, line 1)"
    );
}

#[test]
fn every_block_refusal_names_the_line_and_the_key() {
    let two = "BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\n";
    let cases: Vec<(String, Option<u32>, &str, &str)> = vec![
        (format!("{two}SwitchName=top Switches=s[0-1]\n"), Some(3), "SwitchName", "a topology/tree key in a topology/block file (line 1 sets the form): slurmctld reads topology.conf with one plugin's keys and refuses the others', so a file has lines such as BlockName=b1 Nodes=node[01-16] or such as SwitchName=s0 Nodes=node[01-16], not both"),
        ("BlockSizes=4\nSwitchName=s0 Nodes=n1\n".into(), Some(2), "SwitchName", "a topology/tree key in a topology/block file (line 1 sets the form)"),
        ("BlockName=b1 Nodes=n[1-2] LinkSpeed=10\n".into(), Some(1), "LinkSpeed", "a topology/tree key on a topology/block line"),
        ("BlockName=b1 Nodes=n1 Colour=red\n".into(), Some(1), "Colour", "unknown key (a topology/block line has BlockName and Nodes; BlockSizes stands on a line of its own)"),
        ("BlockName=b1 Nodes=n1 BlockSizes=4\n".into(), Some(1), "BlockSizes", "BlockSizes stands on a line of its own, not on a BlockName line"),
        (format!("{two}BlockSizes=2 Nodes=n5\n"), Some(3), "Nodes", "BlockSizes stands on a line of its own (slurmctld refuses anything after it)"),
        (format!("{two}BlockSizes=0\n"), Some(3), "BlockSizes", "'0' is not a positive whole number of nodes: BlockSizes lists the base block size in nodes, then larger ones, as in BlockSizes=16,32,64"),
        (format!("{two}BlockSizes=2,x\n"), Some(3), "BlockSizes", "'x' is not a positive whole number of nodes"),
        (format!("{two}BlockSizes=16,24\n"), Some(3), "BlockSizes", "24 is not the base size 16 times a power of two (up to 2^15), as slurmctld requires"),
        (format!("{two}BlockSizes=16,48\n"), Some(3), "BlockSizes", "48 is not the base size 16 times a power of two"),
        (format!("{two}BlockSizes=1,65536\n"), Some(3), "BlockSizes", "65536 is not the base size 1 times a power of two (up to 2^15)"),
        (format!("{two}BlockName=b1 Nodes=n5\n"), Some(3), "BlockName", "block 'b1' is already defined on line 1"),
        ("BlockName=b[1-2] Nodes=n1\n".into(), Some(1), "BlockName", "'b[1-2]' is not one name: a line names one block"),
        ("BlockSizes=4\nNodes=n[1-4]\n".into(), Some(2), "BlockName", "missing: each line names a block, as in BlockName=b1 Nodes=node[01-16]"),
        ("BlockName=b1 Nodes=n[1-3]\nBlockName=b2 Nodes=n[3-4]\n".into(), Some(2), "Nodes", "node 'n3' is also under block 'b1' (line 1); Proxima models trees"),
        ("BlockName=b1 Nodes=n[4-1]\n".into(), Some(1), "Nodes", "reversed range '4-1' in 'n[4-1]'"),
        ("BlockName=b1 Nodes=b2\nBlockName=b2 Nodes=n1\n".into(), Some(1), "Nodes", "node 'b2' has the name of switch 'b2' (line 2)"),
        ("BlockSizes=4\n".into(), None, "BlockName", "no blocks with nodes: a topology/block file has lines such as BlockName=b1 Nodes=node[01-16]"),
        ("BlockName=b1\nBlockName=b2\n".into(), None, "BlockName", "no blocks with nodes"),
    ];
    for (text, line, field, message) in cases {
        let e = read_slurm_topology(&text, &options(4, 100.0)).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (line, field), "{text}: {}", e.message);
        assert!(e.message.contains(message), "{text}:\n  got  {}\n  want {message}", e.message);
    }
}
