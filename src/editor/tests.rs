//! The editor driven action by action: every edit, its undo, the problems it flags and
//! the drawing it makes.

use super::layout::{layout_with_drag, BoxKind, Drawing, MAX_GPU_CELLS};
use super::*;
use proxima_core::topology::resolve_topology_arg;

fn editor(arg: &str) -> Editor {
    let t = resolve_topology_arg(arg).unwrap();
    Editor::new(TopologyChoice::Preset(arg.into()), Shared::new(t))
}

fn run(ed: Editor, actions: impl IntoIterator<Item = EditAction>) -> Editor {
    actions.into_iter().fold(ed, Editor::apply)
}

fn layout(ed: &Editor) -> Drawing {
    layout_with_drag(ed, None)
}

fn select(id: &str) -> EditAction {
    EditAction::Select(Some(Element::Node(id.into())))
}

#[test]
fn adding_a_rack_copies_the_selected_one_and_undo_takes_it_back() {
    let ed = editor("teaching");
    assert_eq!(ed.gpu_count(), 16);
    let ed = run(ed, [EditAction::AddRack]);
    assert_eq!(ed.gpu_count(), 24);
    assert!(ed.problems.is_empty(), "{:?}", ed.problems);
    let t = ed.topology.clone().unwrap();
    assert_eq!(t.gpu_count(), 24);
    assert_eq!(t.tier_names(), ["server", "rack", "cluster"]);
    assert_eq!(ed.selection, Some(Element::Node("tor2".into())));
    assert!(ed.doc.spec.servers.iter().any(|s| s.id == "r2s0") && ed.doc.spec.servers.iter().any(|s| s.id == "r2s1"));
    // The uplink copies the template's (2:1 oversubscribed).
    assert_eq!(ed.oversub("tor2"), Some(2.0));
    assert_eq!(ed.doc.spec.name, "teaching-edited");
    assert!(matches!(ed.doc.choice, TopologyChoice::Custom(_)));
    let ed = run(ed, [EditAction::Undo]);
    assert_eq!(ed.gpu_count(), 16);
    assert_eq!(ed.doc.choice, TopologyChoice::Preset("teaching".into()));
    assert!(ed.selection.is_none(), "the new rack is gone");
    let ed = run(ed, [EditAction::Redo]);
    assert_eq!(ed.gpu_count(), 24);
    assert!(!ed.can_redo() && ed.can_undo());
}

#[test]
fn a_second_rack_on_a_one_rack_cluster_gets_a_spine() {
    let ed = run(editor("n32g4"), [EditAction::AddRack]);
    assert!(ed.problems.is_empty(), "{:?}", ed.problems);
    let t = ed.topology.clone().unwrap();
    assert_eq!(t.gpu_count(), 256);
    assert_eq!(t.node(t.root()).name, "spine");
    assert_eq!(ed.oversub("tor0"), Some(1.0));
}

#[test]
fn servers_and_gpus_are_added_to_the_selection() {
    let ed = run(editor("teaching"), [select("r1s1"), EditAction::AddServer]);
    assert_eq!(ed.selection, Some(Element::Node("r1s2".into())));
    assert_eq!(ed.gpu_count(), 20);
    assert!(ed.problems.is_empty());
    let ed = run(ed, [EditAction::AddGpu]);
    assert_eq!(ed.doc.spec.servers.iter().find(|s| s.id == "r1s2").unwrap().gpus, 5);
    assert_eq!(ed.selection, Some(Element::Gpu("r1s2".into(), 4)));
    let ed = run(ed, [EditAction::Undo, EditAction::Undo]);
    assert_eq!(ed.gpu_count(), 16);
    // Without a server selected, adding a GPU says why it did nothing.
    let ed = run(ed, [EditAction::Select(None), EditAction::AddGpu]);
    assert!(ed.message.as_deref().unwrap().contains("Select a server"));
    assert!(!ed.can_redo() || ed.gpu_count() == 16);
}

#[test]
fn switches_and_links_are_added_and_a_loose_switch_is_flagged() {
    let ed = run(editor("teaching"), [EditAction::AddSwitch]);
    assert_eq!(ed.selection, Some(Element::Node("switch1".into())));
    assert_eq!(ed.problems.len(), 1);
    assert_eq!(ed.problems[0].element, Some(Element::Node("switch1".into())));
    assert_eq!(ed.problems[0].text, "switch switch1: switch 'switch1' has no path to the rest of the cluster");
    assert_eq!(ed.problems[0].problem.field, "links");
    assert!(ed.refusal().unwrap().contains("1 problem"));
    // Link it under the spine; it still has no servers below it.
    let ed = run(ed, [EditAction::StartLink, EditAction::LinkTo("spine".into())]);
    assert_eq!(ed.selection, Some(Element::Link(6)));
    assert_eq!(ed.problems[0].problem.field, "switches[3]");
    assert_eq!(ed.problems[0].problem.message, "switch 'switch1' has no servers below it");
    assert_eq!(ed.problems[0].element, Some(Element::Node("switch1".into())));
    // Move a server under it: delete its link to its rack, link it to the switch.
    let link = ed.doc.spec.links.iter().position(|l| l.a == "r1s1").unwrap();
    let ed = run(
        ed,
        [
            EditAction::Select(Some(Element::Link(link))),
            EditAction::Delete,
            select("r1s1"),
            EditAction::StartLink,
            EditAction::LinkTo("switch1".into()),
        ],
    );
    assert!(ed.problems.is_empty(), "{:?}", ed.problems);
    assert_eq!(ed.topology.as_ref().unwrap().gpu_count(), 16);
    let ed = run(ed, [EditAction::Undo, EditAction::Undo, EditAction::Undo, EditAction::Undo]);
    assert_eq!(ed.doc.spec, resolve_topology_arg("teaching").unwrap().spec().clone());
}

#[test]
fn invalid_edits_are_flagged_on_their_element_with_the_cores_message() {
    let ed = editor("teaching");
    let link = ed.doc.spec.links.iter().position(|l| l.a == "r0s1").unwrap();
    let ed = run(ed, [EditAction::Set { property: Property::LinkBandwidth(link), value: "0".into() }]);
    assert!(ed.topology.is_none());
    assert_eq!(ed.problems.len(), 1);
    assert_eq!(ed.problems[0].element, Some(Element::Link(link)));
    assert_eq!(ed.problems[0].text, "link r0s1 → tor0: bandwidth must be a positive number of Gbit/s, got 0");
    assert_eq!(ed.problems[0].problem.field, format!("links[{link}].bandwidth_gbps"));
    assert_eq!(ed.problems[0].problem.key.as_deref(), Some("bandwidth_gbps"));
    assert!(
        ed.refusal()
            .unwrap()
            .ends_with("first: link r0s1 → tor0: bandwidth must be a positive number of Gbit/s, got 0"),
        "{:?}",
        ed.refusal()
    );
    // Several problems at once, each on its element.
    let ed = run(
        ed,
        [
            EditAction::Set { property: Property::ServerGpus("r1s0".into()), value: "0".into() },
            select("spine"),
            EditAction::Delete,
        ],
    );
    let texts: Vec<&str> = ed.problems.iter().map(|p| p.text.as_str()).collect();
    assert!(texts.iter().any(|t| t.contains("server 'r1s0' has no GPUs")), "{texts:?}");
    assert!(texts.iter().any(|t| t.ends_with("has no path to the rest of the cluster")), "{texts:?}");
    // The spine's links are gone, so the zero-bandwidth link moved up in the list.
    let link = ed.doc.spec.links.iter().position(|l| l.a == "r0s1").unwrap();
    assert!(
        ed.problems
            .iter()
            .any(|p| p.element == Some(Element::Link(link))
                && p.problem.field == format!("links[{link}].bandwidth_gbps")),
        "{:?}",
        ed.problems
    );
    // Unreadable numbers change nothing and say so.
    let before = ed.doc.clone();
    let ed = run(ed, [EditAction::Set { property: Property::LinkLatency(0), value: "fast".into() }]);
    assert_eq!(ed.doc, before);
    assert_eq!(ed.message.as_deref(), Some("'fast' is not a number"));
    let ed = run(ed, [EditAction::Undo, EditAction::Undo, EditAction::Undo]);
    assert!(ed.problems.is_empty() && ed.topology.is_some());
}

#[test]
fn deleting_a_rack_takes_its_servers_and_deleting_a_gpu_shrinks_its_server() {
    let ed = run(editor("teaching"), [select("tor1"), EditAction::Delete]);
    assert_eq!(ed.gpu_count(), 8);
    // The spine now has one rack below it, which the core does not accept.
    assert_eq!(ed.problems.len(), 1, "{:?}", ed.problems);
    assert_eq!(ed.problems[0].element, Some(Element::Node("spine".into())));
    assert_eq!(ed.selection, Some(Element::Node("spine".into())));
    let ed = run(ed, [EditAction::Delete]);
    assert!(ed.problems.is_empty(), "{:?}", ed.problems);
    let ed = run(ed, [EditAction::Select(Some(Element::Gpu("r0s0".into(), 3))), EditAction::Delete]);
    assert_eq!(ed.gpu_count(), 7);
    assert_eq!(ed.selection, Some(Element::Node("r0s0".into())));
    let ed = run(ed, [select("r0s0"), EditAction::Delete]);
    assert_eq!(ed.gpu_count(), 4);
    let ed = run(ed, [EditAction::Select(Some(Element::Link(0))), EditAction::Delete]);
    assert!(!ed.problems.is_empty(), "removing the server's link cuts it off");
    let ed = run(ed, (0..5).map(|_| EditAction::Undo));
    assert_eq!(ed.gpu_count(), 16);
    assert!(ed.problems.is_empty());
}

#[test]
fn properties_edit_the_description() {
    let ed = run(
        editor("teaching"),
        [
            EditAction::Set { property: Property::Oversub("tor0".into()), value: "4".into() },
            EditAction::Set { property: Property::ServerNvlink("r0s0".into()), value: "600".into() },
            EditAction::Set { property: Property::ServerNvlinkLatency("r0s0".into()), value: "3".into() },
            EditAction::Set { property: Property::SwitchRole("tor0".into()), value: "leaf".into() },
            EditAction::Set { property: Property::LinkLatency(0), value: "5".into() },
            EditAction::Set { property: Property::Name, value: "lab".into() },
        ],
    );
    assert!(ed.problems.is_empty(), "{:?}", ed.problems);
    assert_eq!(ed.oversub("tor0"), Some(4.0));
    let s = &ed.doc.spec;
    assert_eq!(s.servers[0].nvlink_gbps, 600.0);
    assert_eq!(s.servers[0].nvlink_latency_us, 3.0);
    assert_eq!(s.switches.iter().find(|w| w.id == "tor0").unwrap().role.as_deref(), Some("leaf"));
    assert_eq!(s.links[0].latency_us, 5.0);
    assert_eq!(s.name, "lab");
    assert_eq!(ed.doc.choice, TopologyChoice::Custom(s.clone()));
    let ed = run(ed, (0..6).map(|_| EditAction::Undo));
    assert_eq!(ed.doc.choice, TopologyChoice::Preset("teaching".into()));
    // Oversubscription needs an uplink.
    let ed = run(ed, [EditAction::Set { property: Property::Oversub("spine".into()), value: "2".into() }]);
    assert!(ed.message.as_deref().unwrap().contains("no uplink"));
}

#[test]
fn dragging_moves_a_node_undoably_and_loading_replaces_the_document() {
    let ed = editor("teaching");
    let x0 = layout(&ed).nodes.iter().find(|b| b.id == "r0s0").unwrap().x;
    let ed = run(ed, [EditAction::Move { node: "r0s0".into(), dx: 30.0, dy: -5.0 }]);
    let d = layout(&ed);
    let b = d.nodes.iter().find(|b| b.id == "r0s0").unwrap();
    assert_eq!(b.x, x0 + 30.0);
    assert!(
        d.gpus.iter().filter(|g| g.server == "r0s0").all(|g| g.x > b.x && g.x < b.x + b.w),
        "its GPUs move with it"
    );
    assert_eq!(ed.doc.choice, TopologyChoice::Preset("teaching".into()), "moving is not editing the cluster");
    let ed = run(ed, [EditAction::Undo]);
    assert!(ed.doc.offsets.is_empty());
    let other = resolve_topology_arg("n32g4").unwrap();
    let mut ed = ed;
    ed.load_checked(TopologyChoice::Preset("n32g4".into()), Shared::new(other));
    assert_eq!(ed.gpu_count(), 128);
    let ed = run(ed, [EditAction::Undo]);
    assert_eq!(ed.gpu_count(), 16);
}

#[test]
fn the_keyboard_walks_the_tree() {
    let ed = run(editor("teaching"), [EditAction::SelectMove(Direction::Down)]);
    assert_eq!(ed.selection, Some(Element::Node("spine".into())));
    let ed = run(ed, [EditAction::SelectMove(Direction::Down)]);
    assert_eq!(ed.selection, Some(Element::Node("tor0".into())));
    let ed = run(
        ed,
        [
            EditAction::SelectMove(Direction::Right),
            EditAction::SelectMove(Direction::Down),
            EditAction::SelectMove(Direction::Down),
        ],
    );
    assert_eq!(ed.selection, Some(Element::Gpu("r1s0".into(), 0)));
    let ed = run(
        ed,
        [
            EditAction::SelectMove(Direction::Right),
            EditAction::SelectMove(Direction::Up),
            EditAction::SelectMove(Direction::Up),
        ],
    );
    assert_eq!(ed.selection, Some(Element::Node("tor1".into())));
    let ed = run(ed, [EditAction::SelectMove(Direction::Left)]);
    assert_eq!(ed.selection, Some(Element::Node("tor0".into())));
}

#[test]
fn big_clusters_start_collapsed_and_expand_on_demand() {
    let ed = editor("oversub-2048");
    assert_eq!(ed.collapsed.len(), 16);
    let d = layout(&ed);
    assert!(d.gpus.is_empty());
    assert_eq!(d.nodes.iter().filter(|b| b.kind == BoxKind::CollapsedSwitch).count(), 16);
    assert_eq!(d.links.len(), 16);
    let ed = run(ed, [EditAction::ToggleCollapse("tor3".into())]);
    let d = layout(&ed);
    assert_eq!(d.gpus.len(), 128);
    // GPU ids are the cluster's: rack 3 holds GPUs 384..512.
    assert_eq!(d.gpus.iter().map(|g| g.id).min(), Some(384));
    // Selecting a GPU inside a collapsed rack expands it; collapsing all folds it again.
    let ed = run(ed, [EditAction::Select(Some(Element::Gpu("r7s2".into(), 1))), EditAction::CollapseAll(true)]);
    assert_eq!(ed.selection, Some(Element::Node("tor7".into())));
    assert_eq!(layout(&ed).gpus.len(), 0);
    // Adding a rack to a big cluster stays quick to check and keeps the shape.
    let ed = run(ed, [EditAction::AddRack]);
    assert_eq!(ed.topology.as_ref().unwrap().gpu_count(), 2176);
    assert!(ed.collapsed.contains("tor16"));
    // A collapsed rack with a problem inside shows it.
    let link = ed.doc.spec.links.iter().position(|l| l.a == "r5s0").unwrap();
    let ed = run(
        ed,
        [
            EditAction::Set { property: Property::LinkBandwidth(link), value: "-1".into() },
            EditAction::CollapseAll(true),
        ],
    );
    let d = layout(&ed);
    assert!(d
        .nodes
        .iter()
        .find(|b| b.id == "tor5")
        .unwrap()
        .problem
        .as_deref()
        .unwrap()
        .contains("must be a positive number"));
}

#[test]
fn the_drawing_has_every_gpu_with_the_clusters_ids_and_labelled_links() {
    let ed = editor("teaching");
    let d = layout(&ed);
    let mut ids: Vec<u32> = d.gpus.iter().map(|g| g.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..16).collect::<Vec<_>>());
    assert_eq!(d.links.len(), 6);
    assert!(d.links.iter().all(|l| l.y2 < l.y1 && !l.off_tree));
    assert!(d.links.iter().any(|l| l.label == "200 Gb/s"));
    assert!(d.links.iter().any(|l| l.label == "200 Gb/s") && d.links.iter().any(|l| l.label == "200 Gb/s"));
    // Servers sit on the bottom row, switches above.
    let y = |id: &str| d.nodes.iter().find(|b| b.id == id).unwrap().y;
    assert!(y("spine") < y("tor0") && y("tor0") < y("r0s0"));
    // A cycle draws its extra link off the tree and flags it.
    let ed = run(ed, [select("tor0"), EditAction::StartLink, EditAction::LinkTo("tor1".into())]);
    let d = layout(&ed);
    assert_eq!(d.links.iter().filter(|l| l.off_tree).count(), 1, "one link is drawn off the tree");
    assert!(d.links.iter().any(|l| l.problem.as_deref().is_some_and(|p| p.contains("closes a cycle"))));
}

#[test]
fn huge_servers_and_clusters_never_flood_the_drawing() {
    let ed = run(
        editor("teaching"),
        [select("r0s0"), EditAction::Set { property: Property::ServerGpus("r0s0".into()), value: "1000000".into() }],
    );
    assert!(ed.problems.is_empty(), "{:?}", ed.problems);
    let d = layout(&ed);
    assert_eq!(d.gpus.len(), 12, "the big server is a box");
    assert_eq!(d.nodes.iter().find(|b| b.id == "r0s0").unwrap().kind, BoxKind::CollapsedServer);
    let big = Editor::new(
        TopologyChoice::from_argument("racks=40,servers=32,gpus=8").unwrap(),
        Shared::new(resolve_topology_arg("racks=40,servers=32,gpus=8").unwrap()),
    );
    let d = layout(&run(big, [EditAction::CollapseAll(false)]));
    assert_eq!(d.gpus.len() as u32, MAX_GPU_CELLS);
    assert!(d.caption.contains("drawn without GPUs"), "{}", d.caption);
}

#[test]
fn an_uplink_is_named_as_the_drawing_shows_it() {
    let ed = editor("teaching");
    let up = ed.doc.spec.links.iter().position(|l| l.a == "tor1").unwrap();
    let ed = run(ed, [EditAction::Set { property: Property::LinkBandwidth(up), value: "-1".into() }]);
    assert_eq!(ed.problems[0].text, "uplink tor1 → spine: bandwidth must be a positive number of Gbit/s, got -1");
    assert!(!ed.refusal().unwrap().contains("links["), "{:?}", ed.refusal());
}

#[test]
fn link_widths_follow_bandwidth_and_thin_uplinks_show_their_ratio() {
    let ed = editor("teaching");
    let d = layout(&ed);
    let spec = ed.doc.spec.clone();
    let line = |d: &Drawing, a: &str| d.links.iter().find(|l| spec.links[l.index].a == a).unwrap().clone();
    // teaching: every link 200 Gbit/s, the rack uplinks 2:1 below their servers' NICs.
    assert_eq!(line(&d, "tor0").oversub, Some(2.0));
    assert_eq!(line(&d, "tor0").label, "200 Gb/s · 2:1");
    assert_eq!(line(&d, "r0s0").oversub, None);
    assert_eq!(line(&d, "tor0").width_step, line(&d, "r0s0").width_step);
    let up = ed.doc.spec.links.iter().position(|l| l.a == "tor0").unwrap();
    let ed = run(ed, [EditAction::Set { property: Property::LinkBandwidth(up), value: "20".into() }]);
    let d = layout(&ed);
    assert_eq!((line(&d, "tor0").width_step, line(&d, "r0s0").width_step), (1, layout::WIDTH_STEPS));
    assert_eq!(line(&d, "tor0").oversub, Some(20.0));
    assert!(line(&d, "tor0").title.contains("20:1 oversubscribed"), "{}", line(&d, "tor0").title);
    // A full-bisection uplink is not flagged.
    let ed = run(ed, [EditAction::Set { property: Property::LinkBandwidth(up), value: "400".into() }]);
    assert_eq!(line(&layout(&ed), "tor0").oversub, None);
}

#[test]
fn several_servers_are_set_at_once_and_a_rack_takes_one_servers_settings() {
    let ed = editor("teaching");
    let ed =
        run(ed, [select("r0s0"), EditAction::ToggleSelect("r1s1".into()), EditAction::ToggleSelect("tor0".into())]);
    assert_eq!(ed.selected_servers(), ["r0s0", "r1s1"]);
    assert_eq!(ed.selected_nodes().len(), 3);
    let servers = ed.selected_servers();
    let ed =
        run(ed, [EditAction::SetServers { servers: servers.clone(), field: ServerField::Gpus, value: "2".into() }]);
    assert_eq!(ed.gpu_count(), 12);
    let ed = run(ed, [EditAction::SetServers { servers, field: ServerField::Nic, value: "100".into() }]);
    assert_eq!(ed.server_value("r1s1", ServerField::Nic), Some(100.0));
    assert_eq!(ed.server_value("r1s0", ServerField::Nic), Some(200.0));
    // Unreadable: nothing changes.
    let before = ed.doc.clone();
    let ed = run(
        ed,
        [EditAction::SetServers { servers: vec!["r0s0".into()], field: ServerField::Gpus, value: "1.5".into() }],
    );
    assert_eq!(ed.doc, before);
    // Shift-clicking the first selected node passes the selection on.
    let ed = run(ed, [EditAction::ToggleSelect("r0s0".into())]);
    assert_eq!(ed.selection, Some(Element::Node("r1s1".into())));
    // A rack takes r1s1's settings, in one step.
    let ed = run(ed, [EditAction::ApplyToRack("r1s1".into())]);
    assert_eq!(
        (ed.server_value("r1s0", ServerField::Gpus), ed.server_value("r1s0", ServerField::Nic)),
        (Some(2.0), Some(100.0))
    );
    assert_eq!(ed.gpu_count(), 10);
    let ed = run(ed, [EditAction::Undo]);
    assert_eq!(ed.gpu_count(), 12);
    // A box: exactly the nodes it names, an unknown one ignored.
    let ed = run(ed, [EditAction::SelectNodes(vec!["r0s0".into(), "gone".into(), "r0s1".into()])]);
    assert_eq!(ed.selected_servers(), ["r0s0", "r0s1"]);
    let ed = run(ed, [select("spine")]);
    assert!(ed.also.is_empty());
}

#[test]
fn a_lingjun_file_is_told_by_its_header_and_imported() {
    let csv = "ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh2,G1,P1,S1\nh3,G1,P2,S1\n";
    let ed = editor("teaching");
    let good =
        run(ed.clone(), [EditAction::Import { name: "topo.csv".into(), text: csv.into(), options: "gpus=8".into() }]);
    assert!(good.problems.is_empty());
    assert_eq!((good.doc.spec.switches.len(), good.doc.spec.servers.len(), good.gpu_count()), (5, 3, 24));
    let bad = run(
        ed.clone(),
        [EditAction::Import { name: "topo.csv".into(), text: csv.replace("h3", "h1"), options: "gpus=8".into() }],
    );
    assert_eq!(bad.doc, ed.doc);
    assert_eq!(bad.message.as_deref(), Some("topo.csv:4: ip: host 'h1' is already on line 2"));
}

#[test]
fn a_kueue_file_is_told_by_its_objects_and_imported_with_its_warnings() {
    let yaml = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nspec:\n  levels:\n  - nodeLabel: rack\n---\napiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata: {name: n1, labels: {rack: r1}}\n  status: {allocatable: {nvidia.com/gpu: 4}}\n- kind: Node\n  metadata: {name: n2, labels: {rack: r2}}\n  status: {allocatable: {nvidia.com/gpu: '2'}}\n- kind: Node\n  metadata: {name: cpu}\n";
    let ed = editor("teaching");
    // The GPUs come from the file, whatever the box says.
    let import = |text: String| EditAction::Import { name: "tas.yaml".into(), text, options: "gpus=8,nics=1".into() };
    let good = run(ed.clone(), [import(yaml.into())]);
    assert!(good.problems.is_empty());
    assert_eq!((good.doc.spec.switches.len(), good.doc.spec.servers.len(), good.gpu_count()), (3, 2, 6));
    assert_eq!(
        good.message.as_deref(),
        Some("Imported tas.yaml: 3 switches, 2 servers. Warning: tas.yaml:16: status.allocatable: 1 node left out (cpu): no nvidia.com/gpu in status.allocatable or status.capacity.")
    );
    let bad = run(ed.clone(), [import(yaml.replace("nodeLabel: rack", "nodeLabel: block"))]);
    assert_eq!(bad.doc, ed.doc);
    assert!(
        bad.message.as_deref().unwrap().starts_with("tas.yaml:10: kind: no node that TAS would use"),
        "{:?}",
        bad.message
    );
}

/// A Slurm `topology.yaml` has no Kubernetes objects, so the editor hands it to the Slurm
/// reader, which reads its cluster-default tree (issue 23: the same importers in the app).
#[test]
fn a_slurm_topology_yaml_is_imported_as_its_default_tree() {
    let yaml = "- topology: racks\n  cluster_default: true\n  tree:\n    switches:\n      - switch: spine\n        children: rack[1-2]\n      - switch: rack1\n        nodes: n[1-2]\n      - switch: rack2\n        nodes: n[3-4]\n";
    let ed = editor("teaching");
    let import = |text: String| EditAction::Import { name: "topology.yaml".into(), text, options: "gpus=8".into() };
    let good = run(ed.clone(), [import(yaml.into())]);
    assert!(good.problems.is_empty());
    assert_eq!((good.doc.spec.switches.len(), good.doc.spec.servers.len(), good.gpu_count()), (3, 4, 32));
    let bad = run(ed.clone(), [import(yaml.replace("children: rack[1-2]", "children: rack[1-3]"))]);
    assert_eq!(bad.doc, ed.doc);
    let message = bad.message.unwrap();
    assert!(message.starts_with("topology.yaml:6: children:"), "{message}");
}

#[test]
fn a_volcano_file_is_told_by_its_hypernodes_and_imported() {
    let yaml = "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: s0}\nspec:\n  tier: 1\n  members:\n  - {type: Node, selector: {exactMatch: {name: n1}}}\n  - {type: Node, selector: {exactMatch: {name: n2}}}\n";
    let ed = editor("teaching");
    let good =
        run(ed.clone(), [EditAction::Import { name: "hn.yaml".into(), text: yaml.into(), options: "gpus=4".into() }]);
    assert!(good.problems.is_empty());
    assert_eq!((good.doc.spec.switches.len(), good.doc.spec.servers.len(), good.gpu_count()), (1, 2, 8));
    let bad = run(
        ed.clone(),
        [EditAction::Import {
            name: "hn.yaml".into(),
            text: yaml.replace("tier: 1", "tier: top"),
            options: "gpus=4".into(),
        }],
    );
    assert_eq!(bad.doc, ed.doc);
    assert_eq!(bad.message.as_deref(), Some("hn.yaml:5: spec.tier: expected a whole number, 0 or more, got 'top'"));
}

#[test]
fn a_slurm_file_replaces_the_cluster_only_when_it_reads() {
    let conf = "SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[3-4]\nSwitchName=top Switches=s[0-1]\n";
    let ed = editor("teaching");
    let bad = run(
        ed.clone(),
        [EditAction::Import {
            name: "t.conf".into(),
            text: conf.replace("s[0-1]", "s[0-2]"),
            options: "gpus=4".into(),
        }],
    );
    assert_eq!(bad.doc, ed.doc);
    assert_eq!(bad.message.as_deref(), Some("t.conf:3: Switches: unknown switch 's2' (no line SwitchName=s2)"));
    let bad =
        run(ed.clone(), [EditAction::Import { name: "t.conf".into(), text: conf.into(), options: "gpus=x".into() }]);
    assert_eq!(bad.doc, ed.doc);
    assert!(bad.message.unwrap().starts_with("Slurm options: gpus:"));
    let good = run(
        ed.clone(),
        [EditAction::Import { name: "t.conf".into(), text: conf.into(), options: "gpus=2,nics=2,nic_gbps=100".into() }],
    );
    assert!(good.problems.is_empty());
    assert_eq!((good.doc.spec.switches.len(), good.doc.spec.servers.len(), good.gpu_count()), (3, 4, 8));
    assert_eq!(good.server_value("n1", ServerField::Nic), Some(200.0));
    assert!(matches!(good.doc.choice, TopologyChoice::Custom(_)));
    assert_eq!(good.message.as_deref(), Some("Imported t.conf: 3 switches, 4 servers."));
    // A block file reads through the same core function; what it does not use is a warning.
    let blocks = run(
        ed,
        [EditAction::Import {
            name: "b.conf".into(),
            text: "BlockName=b1 Nodes=n[1-2]\nBlockName=b2\n".into(),
            options: "gpus=4".into(),
        }],
    );
    assert_eq!(
        blocks.message.as_deref(),
        Some("Imported b.conf: 1 switches, 2 servers. Warning: b.conf:2: Nodes: block 'b2' has no nodes: Slurm accepts it, and it adds nothing to the cluster.")
    );
    let back = run(good, [EditAction::Undo]);
    assert_eq!(back.gpu_count(), 16);
}

#[test]
fn a_rail_optimised_fabric_is_drawn_as_rails() {
    // Eight NICs per server, one rail group per rack: each group shows its eight rails.
    let ed = editor("racks=2,servers=4,gpus=8,nics=8,rails=on");
    let d = layout(&ed);
    let groups: Vec<_> = d.nodes.iter().filter(|b| b.rails > 0).collect();
    assert_eq!(groups.len(), 2, "{:?}", d.nodes.iter().map(|b| (&b.id, b.rails)).collect::<Vec<_>>());
    assert!(groups.iter().all(|b| b.rails == 8 && b.kind == BoxKind::Switch));
    // Without rails, no box is a rail group.
    assert!(layout(&editor("racks=2,servers=4,gpus=8,nics=8")).nodes.iter().all(|b| b.rails == 0));
}
