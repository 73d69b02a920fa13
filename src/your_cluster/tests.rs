//! The model of "your cluster": files summarised as the core reads them, refusals that
//! name file, line and field, the scheduler guessed from the nodes file, and what keeps
//! the what-if from running.

use super::*;
use crate::protocol::ReportRow;
use crate::worker::describe_history;

/// Kueue's documented TAS cluster: 8 workers of 8 GPUs in 2 blocks and 4 racks.
const KUEUE: &str = include_str!("../../tests/fixtures/kueue/cluster.yaml");

/// An Acme history (Seren's columns): two GPU jobs of two users, a CPU-only job and a job
/// cancelled while queued.
const ACME: &str = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time
a1,alice,1,8,128,Other,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:10+08:00,2023-03-01 01:00:10+08:00,3600,10,28800.0
c1,alice,1,0,16,Other,COMPLETED,2023-03-01 00:30:00+08:00,2023-03-01 00:30:01+08:00,2023-03-01 00:31:01+08:00,60,1,0.0
b1,bob,2,16,256,Other,FAILED,2023-03-01 02:00:00+08:00,2023-03-01 02:00:30+08:00,2023-03-01 02:10:30+08:00,600,30,9600.0
q1,bob,1,4,64,Other,CANCELLED,2023-03-01 03:00:00+08:00,,,0,,0.0
";

fn bytes(text: &str) -> FileData {
    FileData::Bytes(text.as_bytes().to_vec().into())
}

/// The state once the section has read both files (the history by the worker's function).
fn loaded() -> YourCluster {
    let s =
        YourCluster::default().apply(Action::ClusterRead(Box::new(read_cluster("cluster.yaml", KUEUE.as_bytes(), ""))));
    let id = s.next_id();
    let s = s.apply(Action::HistoryChosen { id, name: "seren.csv".into(), data: bytes(ACME) });
    assert_eq!(s.blocked(), vec!["the job history seren.csv is being read".to_string()]);
    let result = describe_history("seren.csv", &bytes(ACME));
    s.apply(Action::HistoryDescribed { id, result })
}

#[test]
fn a_kueue_file_is_summarised_and_suggests_kueue() {
    let c = read_cluster("cluster.yaml", KUEUE.as_bytes(), "").unwrap();
    assert_eq!((c.format, c.gpus, c.servers), (ClusterFormat::Kueue, 64, 8));
    let groups: Vec<u32> = c.tiers.iter().map(|t| t.1).collect();
    assert_eq!(groups, vec![4, 2, 1], "racks, blocks, the cluster: {:?}", c.tiers);
    assert_eq!(Scheduler::guess(c.format), Scheduler::KueueTas);
    let s = YourCluster::default().apply(Action::ClusterRead(Box::new(Ok(c))));
    assert_eq!(s.scheduler(), Scheduler::KueueTas);
    let s = s.apply(Action::ChooseScheduler(Scheduler::Volcano)).apply(Action::SetOptions(" hard=1 ".into()));
    assert_eq!(s.scheduler_spec(), "volcano:hard=1", "a choice outranks the guess");
}

#[test]
fn a_bad_history_blocks_the_run_and_an_old_answer_is_ignored() {
    let bad = ACME.replace("a1,alice,1,8,", "a1,alice,1,eight,");
    let s = loaded();
    let id = s.next_id();
    let s = s.apply(Action::HistoryChosen { id, name: "bad.csv".into(), data: bytes(&bad) });
    let s = s.apply(Action::HistoryDescribed { id: id - 1, result: describe_history("seren.csv", &bytes(ACME)) });
    assert!(s.history_summary().is_none(), "the answer about the previous file is not this file's");
    let s = s.apply(Action::HistoryDescribed { id, result: describe_history("bad.csv", &bytes(&bad)) });
    assert!(
        matches!(&s.history.as_ref().unwrap().described, Described::Refused(Problem::Input(e)) if e.line == Some(2))
    );
    assert_eq!(s.blocked(), vec!["the job history bad.csv could not be read".to_string()]);
    assert!(s.request().is_none());
}

#[test]
fn a_bad_nodes_file_names_file_line_and_field() {
    let e = read_cluster("topology.conf", b"SwitchName=s1 Nodes=n[1-2]\nSwitchName=top Switches=s[1-2]\n", "gpus=8")
        .unwrap_err();
    assert_eq!((e.source.as_str(), e.line, e.field.as_str()), ("topology.conf", Some(2), "Switches"), "{e}");
    let c = read_cluster("topology.conf", b"SwitchName=s1 Nodes=n[1-2]\n", "gpus=4").unwrap();
    assert_eq!((c.format, c.gpus, c.servers), (ClusterFormat::Slurm, 8, 2));
    assert_eq!(Scheduler::guess(c.format), Scheduler::Slurm);
}

#[test]
fn the_run_waits_for_both_files_valid_seeds_and_jobs_that_fit() {
    let empty = YourCluster::default();
    assert_eq!(empty.blocked(), vec!["choose a nodes file".to_string(), "choose a job history".to_string()]);
    let s = loaded();
    assert!(s.blocked().is_empty(), "{:?}", s.blocked());
    let request = s.request().unwrap();
    assert_eq!(
        (request.scheduler.as_str(), request.seeds, request.history_name.as_str()),
        ("kueue-tas", 3, "seren.csv")
    );
    assert_eq!(request.topology_label(), "cluster.yaml");
    let s = s.apply(Action::SetSeeds("0".into()));
    assert_eq!(s.blocked(), vec![format!("seeds: expected a whole number from 1 to {MAX_SEEDS}, got '0'")]);
    let small = read_cluster("topology.conf", b"SwitchName=s1 Nodes=n[1-2]\n", "gpus=4").unwrap();
    let s = loaded().apply(Action::ClusterRead(Box::new(Ok(small))));
    assert_eq!(s.blocked(), vec!["the history has a job of 16 GPUs, more than the cluster's 8".to_string()]);
}

#[test]
fn answers_to_a_what_if_given_up_on_are_ignored() {
    let report = ClusterReport {
        topology: "cluster.yaml".into(),
        history: "seren.csv".into(),
        scheduler: "kueue-tas".into(),
        seeds: 1,
        rows: vec![ReportRow {
            policy: "kueue-tas".into(),
            mean_jct_s: 100.0,
            ratio: Some(1.0),
            ratio_low: 1.0,
            ratio_high: 1.0,
            mean_queue_s: 0.0,
            preemptions: 0.0,
            unplaced: 0.0,
        }],
        caution: None,
        markdown: String::new(),
        html: String::new(),
    };
    let s = loaded().apply(Action::Started(1));
    assert_eq!(s.request(), None, "one what-if at a time");
    let s = s.apply(Action::Progress { id: 1, done: 1, total: 3 });
    assert_eq!(s.what_if, WhatIfState::Running { id: 1, done: 1, total: 3 });
    let s = s.apply(Action::Finished { id: 0, result: Ok(report.clone()) });
    assert!(matches!(s.what_if, WhatIfState::Running { .. }), "an old answer changes nothing");
    let s = s.apply(Action::Finished { id: 1, result: Ok(report) });
    assert!(matches!(&s.what_if, WhatIfState::Done(r) if r.rows.len() == 1));
    assert_eq!(s.request().map(|r| r.id), Some(2));
    let s = s.apply(Action::SetSeeds("2".into()));
    assert_eq!(s.what_if, WhatIfState::NotRun, "a report on other inputs is dropped");
}

#[test]
fn kubectl_json_goes_to_the_kubernetes_readers_and_a_topology_json_stays_one() {
    use crate::editor::cluster_file::import_input;
    use proxima_core::inputs::TopologyInput;
    let nodes = r#"{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node"}]}"#;
    assert!(matches!(import_input("nodes.json", nodes, ""), Ok(TopologyInput::Kueue { .. })));
    let hypernodes =
        r#"{"apiVersion": "v1", "items": [{"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode"}]}"#;
    assert!(matches!(import_input("h.json", hypernodes, ""), Ok(TopologyInput::Volcano { .. })));
    let topology = r#"{"version": 1, "name": "mine", "servers": []}"#;
    assert!(matches!(import_input("mine.json", topology, ""), Ok(TopologyInput::File { .. })));
    // Each format reads its own options: the box's GPUs field does not apply to a Kueue
    // file (its nodes give their GPUs), and a Lingjun file refuses Slurm's block key.
    let boxed = "gpus=8,nics=2,fabric=roce";
    let Ok(TopologyInput::Kueue { options, .. }) = import_input("nodes.json", nodes, boxed) else {
        panic!("a Kueue file with the box's options imports")
    };
    assert_eq!((options.links.nics, options.links.fabric.name()), (2, "roce"));
    let lingjun = "ip,DSW,PSW,ASW\nh1,G,P,S\n";
    let e = import_input("topo.csv", lingjun, "gpus=8,block_nvlink=on").unwrap_err();
    assert!(e.starts_with("Lingjun options: block_nvlink: unknown key"), "{e}");
}

/// NVIDIA's GPU operator labels every tray of an NVL72 rack with the rack's clique: the
/// example's trays become NVLink domains (examples/your-cluster/gb200-nodes.json).
#[test]
fn gb200_cliques_are_counted_as_nvlink_domains() {
    let text = include_str!("../../examples/your-cluster/gb200-nodes.json");
    let c = read_cluster("gb200-nodes.json", text.as_bytes(), "").unwrap();
    // 8 trays of 4 GPUs in two cliques.
    assert_eq!((c.gpus, c.servers, c.nvlink_domains), (32, 8, Some((2, (16, 16)))), "{c:?}");
    assert_eq!(c.gpu_kind.as_deref(), Some("GB200"), "{c:?}");
    assert_eq!(c.format, ClusterFormat::Kueue, "kubectl's JSON goes to the Kubernetes readers");
    let k = read_cluster("cluster.yaml", KUEUE.as_bytes(), "").unwrap();
    assert_eq!(k.nvlink_domains, None);
}
