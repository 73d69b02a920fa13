//! Tests of building a scenario from its inputs, and of the errors that name the input.

use super::*;
use crate::topology::ParametricSpec;

const TRACE: &str = "id,submit_s,gpus,model,duration_s\na,0,2,resnet50,60\nb,5,4,vgg16,30\n";

fn input(topology: TopologyInput, trace: TraceInput) -> ScenarioInput {
    ScenarioInput::new(topology, trace, 1)
}

#[test]
fn errors_read_file_line_field_message() {
    let e = SourcedError::new("jobs.csv", InputError::at_line(3, "gpus", "expected a number"));
    assert_eq!(e.to_string(), "jobs.csv:3: gpus: expected a number");
    let e = SourcedError::new("--topology", InputError::new("racks", "missing"));
    assert_eq!(e.to_string(), "--topology: racks: missing");
}

#[test]
fn bytes_that_are_not_utf8_name_line_and_byte() {
    assert_eq!(utf8_text("a.csv", b"id\nx\n").unwrap(), "id\nx\n");
    let e = utf8_text("latin1.csv", b"id,name\n1,caf\xe9\n").unwrap_err();
    assert_eq!(e.to_string(), "latin1.csv:2: encoding: not valid UTF-8 (byte 13); save the file as UTF-8");
}

#[test]
fn an_unnamed_topology_file_takes_the_file_name() {
    let text = r#"{"servers":[{"id":"s","gpus":4,"nvlink_gbps":100}]}"#;
    let file = TopologyInput::File { name: "lab.json".into(), text: text.into() };
    assert_eq!(build_topology(&file, ArgumentNames::Flags).unwrap().name(), "lab.json");
    let named = text.replace("{\"servers\"", "{\"name\":\"mine\",\"servers\"");
    let file = TopologyInput::File { name: "lab.json".into(), text: named };
    assert_eq!(build_topology(&file, ArgumentNames::Flags).unwrap().name(), "mine");
    let bad = TopologyInput::File { name: "bad.json".into(), text: r#"{"servers":[]}"#.into() };
    assert_eq!(
        build_topology(&bad, ArgumentNames::Flags).unwrap_err().to_string(),
        "bad.json: servers: a topology needs at least one server with GPUs"
    );
}

#[test]
fn arguments_are_named_as_the_front_end_names_them() {
    let trace = TraceInput::Synthetic("synthetic:jobs=5".into());
    let mut bad = input(TopologyInput::Argument("cluster9".into()), trace.clone());
    assert!(build_scenario(&bad).unwrap_err().to_string().starts_with("topology: topology: 'cluster9'"));
    bad.names = ArgumentNames::Flags;
    assert!(build_scenario(&bad).unwrap_err().to_string().starts_with("--topology: topology: 'cluster9'"));
    let mut bad = input(TopologyInput::Argument("teaching".into()), TraceInput::Synthetic("synthetic:jobs=x".into()));
    bad.names = ArgumentNames::Flags;
    assert!(build_scenario(&bad).unwrap_err().to_string().starts_with("--trace: jobs: "));
    let mut bad = input(TopologyInput::Argument("teaching".into()), trace);
    bad.mix = Some("lenet".into());
    assert!(build_scenario(&bad).unwrap_err().to_string().starts_with("mix: mix: unknown model 'lenet'"));
}

#[test]
fn a_synthetic_trace_without_a_seed_takes_the_runs() {
    let topo = resolve_topology_arg("teaching").unwrap();
    let names = ArgumentNames::Words;
    let unseeded = TraceInput::Synthetic("synthetic:jobs=20".into());
    let seeded = TraceInput::Synthetic("synthetic:jobs=20,seed=7".into());
    let at = |input: &TraceInput, seed| build_trace(input, &topo, seed, names).unwrap();
    assert_eq!(at(&unseeded, 7), at(&seeded, 1));
    assert_ne!(at(&unseeded, 8), at(&seeded, 8));
    assert_eq!(at(&seeded, 8), at(&seeded, 9), "a spec's own seed wins");
}

#[test]
fn a_file_trace_is_labelled_and_errors_name_the_file() {
    let file = TraceInput::File { name: "jobs.csv".into(), text: TRACE.into() };
    let sc = build_scenario(&input(TopologyInput::Argument("teaching".into()), file.clone())).unwrap();
    assert_eq!((sc.jobs.len(), sc.trace_label.as_str(), sc.seed), (2, "jobs.csv", 1));
    let mut window = input(TopologyInput::Argument("teaching".into()), file);
    (window.skip, window.limit) = (1, Some(5));
    assert_eq!(build_scenario(&window).unwrap().jobs[0].name, "b");
    window.skip = 2;
    assert_eq!(build_scenario(&window).unwrap_err().to_string(), "jobs.csv: jobs: the trace has no jobs");
    let bad = TraceInput::File { name: "t.csv".into(), text: TRACE.replace("resnet50", "lenet9") };
    let e = build_scenario(&input(TopologyInput::Argument("teaching".into()), bad)).unwrap_err();
    assert_eq!((e.source.as_str(), e.line, e.field.as_str()), ("t.csv", Some(2), "model"));
}

#[test]
fn a_slurm_file_is_named_after_the_file_and_its_errors_name_the_line() {
    let text = "SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[3-4]\nSwitchName=top Switches=s[0-1]\n";
    let options = SlurmOptions { gpus: 4, ..SlurmOptions::default() };
    let input = TopologyInput::Slurm { name: "topology.conf".into(), text: text.into(), options: options.clone() };
    let topo = build_topology(&input, ArgumentNames::Flags).unwrap();
    assert_eq!((topo.name(), topo.gpu_count()), ("topology.conf", 16));
    let bad = TopologyInput::Slurm { name: "t.conf".into(), text: text.replace("s[0-1]", "s[0-2]"), options };
    assert_eq!(
        build_topology(&bad, ArgumentNames::Flags).unwrap_err().to_string(),
        "t.conf:3: Switches: unknown switch 's2' (no line SwitchName=s2)"
    );
}

#[test]
fn a_slurm_files_warnings_name_the_file_and_the_line() {
    let text = "SwitchName=s0 Nodes=n[1-2] LinkSpeed=10\nSwitchName=s1 Nodes=n[3-4]\nSwitchName=top Switches=s[0-1]\n";
    let input = TopologyInput::Slurm { name: "t.conf".into(), text: text.into(), options: SlurmOptions::default() };
    let warnings: Vec<String> =
        read_topology(&input, ArgumentNames::Flags).unwrap().warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].starts_with("t.conf:2: LinkSpeed: missing here but given on line 1"), "{warnings:?}");
    assert!(build_topology(&input, ArgumentNames::Flags).is_ok());
    assert!(read_topology(&TopologyInput::Argument("teaching".into()), ArgumentNames::Flags)
        .unwrap()
        .warnings
        .is_empty());
}

#[test]
fn slurm_arguments_split_into_path_and_options() {
    let parsed = |a: &str| slurm_argument(a).map(|r| r.map(|(p, o)| (p.to_string(), o)));
    assert_eq!(parsed("teaching"), None);
    assert_eq!(parsed("slurm:topology.conf"), Some(Ok(("topology.conf".into(), SlurmOptions::default()))));
    let four = SlurmOptions::parse("gpus=4,nic_gbps=100").unwrap();
    assert_eq!(
        parsed("slurm:/etc/slurm/topology.conf,gpus=4,nic_gbps=100"),
        Some(Ok(("/etc/slurm/topology.conf".into(), four.clone())))
    );
    assert_eq!(parsed("slurm:a,b.conf,gpus=4,nic_gbps=100"), Some(Ok(("a,b.conf".into(), four))));
    assert_eq!(parsed("slurm:t.conf,gpus=0").unwrap().unwrap_err().field, "gpus");
    assert_eq!(parsed("slurm:t.conf,colour=red").unwrap().unwrap_err().field, "colour");
    assert_eq!(parsed("slurm:,gpus=4").unwrap().unwrap_err().field, "slurm");
}

#[test]
fn a_kueue_file_is_named_after_the_file_with_its_warnings_and_errors() {
    let text = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nspec:\n  levels:\n  - nodeLabel: rack\n---\nkind: Node\nmetadata: {name: n1, labels: {rack: r1}}\nstatus: {allocatable: {nvidia.com/gpu: 4}}\n---\nkind: Node\nmetadata: {name: cpu}\n";
    let input = TopologyInput::Kueue { name: "tas.yaml".into(), text: text.into(), options: KueueOptions::default() };
    let topo = build_topology(&input, ArgumentNames::Flags).unwrap();
    assert_eq!((topo.name(), topo.gpu_count()), ("tas.yaml", 4));
    let warnings: Vec<String> =
        read_topology(&input, ArgumentNames::Flags).unwrap().warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].starts_with("tas.yaml:11: status.allocatable: 1 node left out (cpu)"), "{warnings:?}");
    let bad = TopologyInput::Kueue {
        name: "t.yaml".into(),
        text: text.replace("nodeLabel: rack", "nodeLabel: block"),
        options: KueueOptions::default(),
    };
    let e = build_topology(&bad, ArgumentNames::Flags).unwrap_err();
    assert_eq!((e.source.as_str(), e.line, e.field.as_str()), ("t.yaml", Some(7), "kind"));
}

#[test]
fn kueue_arguments_take_the_link_options_but_not_gpus() {
    let parsed = |a: &str| kueue_argument(a).map(|r| r.map(|(p, o)| (p.to_string(), o)));
    assert_eq!(parsed("slurm:t.conf"), None);
    let fast = KueueOptions::parse("nic_gbps=400,nics=8").unwrap();
    assert_eq!(parsed("kueue:tas.yaml,nic_gbps=400,nics=8"), Some(Ok(("tas.yaml".into(), fast))));
    let e = parsed("kueue:tas.yaml,gpus=4").unwrap().unwrap_err();
    assert!(e.field == "gpus" && e.message.starts_with("a Kueue file gives each node's GPUs"), "{e}");
    let e = parsed("kueue:,nics=2").unwrap().unwrap_err();
    assert_eq!(
        e.to_string(),
        "kueue: expected a file after kueue: (the form is kueue:PATH[,nic_gbps=B][,nvlink_gbps=B])"
    );
}

#[test]
fn a_volcano_file_is_named_after_the_file_with_its_options() {
    let text = "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: s0}\nspec:\n  tier: 1\n  members:\n  - {type: Node, selector: {exactMatch: {name: n1}}}\n  - {type: Node, selector: {labelMatch: {matchLabels: {rack: r9}}}}\n---\nkind: Node\nmetadata: {name: n2}\n";
    let (path, options) = volcano_argument("volcano:hn.yaml,gpus=4").unwrap().unwrap();
    let input = TopologyInput::Volcano { name: path.into(), text: text.into(), options };
    let topo = build_topology(&input, ArgumentNames::Flags).unwrap();
    assert_eq!((topo.name(), topo.gpu_count()), ("hn.yaml", 4));
    let warnings: Vec<String> =
        read_topology(&input, ArgumentNames::Flags).unwrap().warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings, ["hn.yaml:8: spec.members[1].selector: selects no Node of the file"]);
    let e = volcano_argument("volcano:hn.yaml,gpus=0").unwrap().unwrap_err();
    assert_eq!(e.field, "gpus");
}

#[test]
fn a_choice_and_a_spec_build_the_same_cluster() {
    let spec = resolve_topology_arg("teaching").unwrap().spec().clone();
    let from_choice = TopologyInput::from(&TopologyChoice::Preset("teaching".into()));
    let from_spec = TopologyInput::from(&TopologyChoice::Custom(spec));
    assert_eq!(
        build_topology(&from_choice, ArgumentNames::Words).unwrap(),
        build_topology(&from_spec, ArgumentNames::Words).unwrap()
    );
    // The parametric form's numbers build the cluster its text builds, and a typed spec
    // that arrives out of range (a message, not the parser) is refused naming the key.
    let text = "racks=3,servers=4,gpus=8,oversub=2.5,fabric=roce";
    let typed = ParametricSpec::parse(text).unwrap();
    let from_typed = TopologyInput::from(&TopologyChoice::Parametric(typed.clone()));
    assert_eq!(
        build_topology(&from_typed, ArgumentNames::Words).unwrap(),
        build_topology(&TopologyInput::Argument(text.into()), ArgumentNames::Words).unwrap()
    );
    let wrong = TopologyInput::from(&TopologyChoice::Parametric(ParametricSpec { oversub: 0.5, ..typed }));
    assert_eq!(
        build_topology(&wrong, ArgumentNames::Flags).unwrap_err().to_string(),
        "--topology: oversub: must be at least 1, got 0.5"
    );
}
