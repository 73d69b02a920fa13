use super::*;

#[test]
fn the_timer_is_added_only_to_a_hard_constraint_without_one_and_eviction_where_it_is_off() {
    assert_eq!(
        policies("kueue-tas:required=rack", 300.0),
        [
            "kueue-tas:required=rack",
            "kueue-tas:required=rack,required_for_s=300",
            "kueue-tas:required=rack,required_for_s=auto",
            "kueue-tas:required=rack,evict=on",
            "dally",
            "dally:order=las"
        ]
    );
    assert_eq!(
        policies("kueue-tas:preferred=rack", 300.0),
        ["kueue-tas:preferred=rack", "kueue-tas:preferred=rack,evict=on", "dally", "dally:order=las"]
    );
    assert_eq!(policies("kueue-tas", 300.0)[1], "kueue-tas:evict=on");
    assert_eq!(
        policies("volcano:hard=2", 60.0)[1..3],
        ["volcano:hard=2,hard_for_s=60", "volcano:hard=2,hard_for_s=auto"]
    );
    assert_eq!(policies("slurm", 60.0)[..3], ["slurm", "slurm:wait_s=auto", "slurm:evict=on"]);
    assert_eq!(policies("slurm:block=on", 60.0)[1..3], ["slurm:block=on,wait_s=60", "slurm:block=on,wait_s=auto"]);
    assert_eq!(policies("dally", 60.0), ["dally", "dally:order=las"]);
    let timed = "kueue-tas:required=rack,required_for_s=60,evict=on";
    assert_eq!(policies(timed, 300.0)[..2], [timed, "dally"]);
}
