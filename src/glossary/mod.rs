//! The words of the trade the page uses, each defined once: the table the page's inline
//! definitions (where a term first appears) and its glossary section both read. Pure: no
//! web API, so that its test runs natively and checks the page's headings against it.
//! Its views (a term defined in place, the glossary section) are in [`view`].

pub mod view;

/// A term and its definition.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Term {
    /// Stable name: the ids `term-KEY` (inline) and `glossary-KEY` (the glossary's entry).
    pub key: &'static str,
    /// The term as the glossary lists it.
    pub term: &'static str,
    /// The forms in which the page writes it (abbreviations, plurals, related words),
    /// lower case, so that a heading's jargon can be traced to its definition.
    pub forms: &'static [&'static str],
    /// One or two sentences, for someone who has not met the term before.
    pub definition: &'static str,
}

/// Every term, in the glossary's order: the metrics first, then the cluster, then the
/// policies and what they do.
pub const TERMS: &[Term] = &[
    Term {
        key: "jct",
        term: "JCT (job completion time)",
        forms: &["jct", "jcts", "job completion time", "job completion times"],
        definition: "How long a job takes from its arrival to its end: its wait in the queue plus its run time, and any time lost to preemption. Lower is better; the page compares policies by the mean over all jobs.",
    },
    Term {
        key: "slowdown",
        term: "slowdown",
        forms: &["slowdown", "slowdowns", "slower than ideal"],
        definition: "A job's time on its GPUs over its ideal run time (alone, on the tightest placement): 1.0 is ideal, 2.0 took twice as long because its GPUs were far apart or shared links with other jobs.",
    },
    Term {
        key: "makespan",
        term: "makespan",
        forms: &["makespan"],
        definition: "From the first job's arrival to the last job's end.",
    },
    Term {
        key: "rho",
        term: "ρ (finish-time fairness)",
        forms: &["ρ", "rho", "finish-time fairness"],
        definition: "A tenant's JCTs in the shared cluster over its JCTs alone on its share of the cluster: above 1, sharing cost the tenant time.",
    },
    Term {
        key: "jain",
        term: "Jain's fairness index",
        forms: &["jain", "jain's index", "jain's fairness index"],
        definition: "(Σ sᵢ)² / (n · Σ sᵢ²) over the n tenants' slowdowns sᵢ: 1 when every tenant was slowed alike, 1/n when one tenant bore all of it.",
    },
    Term {
        key: "tenant",
        term: "tenant",
        forms: &["tenant", "tenants"],
        definition: "A team or user the jobs belong to; the per-tenant table shows who pays for a policy's choices.",
    },
    Term {
        key: "offered-load",
        term: "offered load",
        forms: &["offered load", "load"],
        definition: "The GPU time the jobs ask for while they arrive, as a share of what the cluster has: 1.0 keeps the cluster full, above 1 a queue builds, 0.2 leaves it mostly idle.",
    },
    Term {
        key: "gpu",
        term: "GPU",
        forms: &["gpu", "gpus"],
        definition: "The accelerator a training job runs on. A job asks for a number of GPUs and keeps them until it ends or is preempted.",
    },
    Term {
        key: "nvlink",
        term: "NVLink",
        forms: &["nvlink"],
        definition: "The links between the GPUs inside one server: hundreds of GB/s, ten times or more what the network gives.",
    },
    Term {
        key: "nic",
        term: "NIC",
        forms: &["nic", "nics"],
        definition: "Network interface card: a server's link to the network, shared by its GPUs when they talk to other servers.",
    },
    Term {
        key: "rack",
        term: "rack and server",
        forms: &["rack", "racks", "server", "servers"],
        definition: "A server holds a few GPUs (4 or 8) joined by NVLink; a rack holds a few servers under one switch. Jobs whose GPUs span servers, or racks, talk over the slower network.",
    },
    Term {
        key: "uplink",
        term: "uplink",
        forms: &["uplink", "uplinks"],
        definition: "The link from a rack's switch to the switches above it. Every job spread over racks sends its traffic through it, shared with the others.",
    },
    Term {
        key: "oversubscription",
        term: "oversubscription",
        forms: &["oversubscription", "oversubscribed", "oversubscribe", "r:1"],
        definition: "An uplink oversubscribed r:1 is r times thinner than the links below it: at 4:1, the jobs crossing racks share a quarter of what their servers' NICs could send.",
    },
    Term {
        key: "llm",
        term: "LLM",
        forms: &["llm", "llms"],
        definition: "Large language model (GPT-style): big jobs whose gradient exchange makes them sensitive to where their GPUs are.",
    },
    Term {
        key: "placement",
        term: "placement",
        forms: &["placement", "placements", "place"],
        definition: "The GPUs a job is given. A tight placement keeps them in one server (or one rack); a scattered one spreads them over servers or racks, whose slower links make each iteration's gradient exchange take longer.",
    },
    Term {
        key: "fifo",
        term: "fifo",
        forms: &["fifo"],
        definition: "First in, first out: jobs start in arrival order, each on the first free GPUs wherever they are.",
    },
    Term {
        key: "consolidate",
        term: "consolidate",
        forms: &["consolidate", "consolidation", "consolidating"],
        definition: "The policy that gives each job the tightest placement free now (one server if it can, else one rack, else anywhere) and never waits for a better one.",
    },
    Term {
        key: "dally",
        term: "dally",
        forms: &["dally"],
        definition: "The network-aware scheduler of arXiv:2401.16492: like consolidate, but a network-sensitive job may wait a bounded time for a tighter placement (its delay timer), it preempts less sensitive jobs to make room, and an auto-tuner sets the timers as it runs.",
    },
    Term {
        key: "delay-timer",
        term: "delay timer",
        forms: &["delay timer", "timer", "timers", "wait", "waiting"],
        definition: "How long a job may decline the GPUs free now and wait for a tighter placement; when it runs out, the job takes what is free.",
    },
    Term {
        key: "auto-tuner",
        term: "auto-tuner",
        forms: &["auto-tuner", "tuner"],
        definition: "Dally's loop that lengthens or shortens the delay timers from how long jobs actually waited, so that waiting pays without leaving GPUs idle.",
    },
    Term {
        key: "preemption",
        term: "preemption",
        forms: &["preemption", "preemptions", "preempt", "preempts", "preempting", "preempted"],
        definition: "Stopping a running job (it saves a checkpoint and goes back to the queue) to free its GPUs for another; the stopped job loses its new wait and the time to restore its checkpoint.",
    },
    Term {
        key: "tiresias",
        term: "tiresias",
        forms: &["tiresias"],
        definition: "A scheduler that serves first the jobs that have used the least GPU time so far (NSDI 2019), consolidating the jobs it finds sensitive.",
    },
    Term {
        key: "kueue",
        term: "Kueue",
        forms: &["kueue", "kueue-tas"],
        definition: "Kubernetes' job queueing system; its topology-aware scheduling (TAS) places a job's pods in as few racks and blocks as it can.",
    },
];

/// The term of this key.
pub fn find(key: &str) -> Option<&'static Term> {
    TERMS.iter().find(|t| t.key == key)
}

/// The term one of whose forms is `word` (any case).
pub fn of_word(word: &str) -> Option<&'static Term> {
    let word = word.to_lowercase();
    TERMS.iter().find(|t| t.forms.contains(&word.as_str()))
}

/// The words of `text` that read as jargon: abbreviations (two capitals or more, as in
/// `JCT`, `LLMs`), Greek letters, and the names of `policies`. A reader meeting one of
/// these needs a definition; plain words explain themselves.
pub fn jargon_in<'a>(text: &'a str, policies: &[&str]) -> Vec<&'a str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .map(|w| w.trim_matches(|c| c == '-' || c == '\'').trim_end_matches("'s"))
        .filter(|w| !w.is_empty())
        .filter(|w| {
            let capitals = w.chars().filter(char::is_ascii_uppercase).count();
            let greek = w.chars().any(|c| ('\u{3b1}'..='\u{3c9}').contains(&c));
            capitals >= 2 || greek || policies.contains(&w.to_lowercase().as_str())
        })
        .collect()
}

/// The jargon of `text` (see [`jargon_in`]) that no term defines.
pub fn undefined_in<'a>(text: &'a str, policies: &[&str]) -> Vec<&'a str> {
    jargon_in(text, policies).into_iter().filter(|w| of_word(w).is_none()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The page's policies, by name, from the core's catalogue.
    fn policies() -> Vec<&'static str> {
        proxima_core::policy::POLICIES.iter().map(|p| p.name).collect()
    }

    /// The string literals on the lines of `src/` that open a heading (`<h1>` to `<h6>`):
    /// the headings' fixed text, as the page shows it.
    fn heading_literals(dir: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                heading_literals(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    if !(1..=6).any(|h| line.contains(&format!("<h{h}"))) {
                        continue;
                    }
                    for literal in line.split('"').skip(1).step_by(2) {
                        out.push((format!("{}:{}", path.display(), n + 1), without_placeholders(literal)));
                    }
                }
            }
        }
    }

    /// A `format!` string without its `{…}` placeholders (names of code, not text shown).
    fn without_placeholders(literal: &str) -> String {
        let mut out = String::new();
        let mut depth = 0;
        for c in literal.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ if depth == 0 => out.push(c),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn every_term_of_the_page_headings_is_defined() {
        let mut headings = Vec::new();
        heading_literals(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut headings);
        assert!(headings.len() > 20, "too few headings found: {headings:?}");
        for lesson in crate::lessons::LESSONS {
            headings.push((format!("lesson {}", lesson.id), lesson.title.to_string()));
        }
        let policies = policies();
        let undefined: Vec<String> = headings
            .iter()
            .flat_map(|(place, text)| undefined_in(text, &policies).into_iter().map(move |w| format!("{place}: {w}")))
            .collect();
        assert!(undefined.is_empty(), "jargon in headings without a glossary entry: {undefined:?}");
    }

    #[test]
    fn jargon_is_found_and_traced() {
        let policies = ["fifo", "dally"];
        assert_eq!(jargon_in("Mean JCT of dally, LLMs and ρ; the queue", &policies), vec!["JCT", "dally", "LLMs", "ρ"]);
        assert_eq!(undefined_in("NCCL rings beat fifo", &policies), vec!["NCCL"]);
        assert_eq!(of_word("Consolidation").map(|t| t.key), Some("consolidate"));
        assert_eq!(find("jct").map(|t| t.term), Some("JCT (job completion time)"));
    }

    #[test]
    fn keys_and_forms_are_unique() {
        let mut keys: Vec<_> = TERMS.iter().map(|t| t.key).collect();
        let mut forms: Vec<_> = TERMS.iter().flat_map(|t| t.forms.iter().copied()).collect();
        let (k, f) = (keys.len(), forms.len());
        keys.sort_unstable();
        keys.dedup();
        forms.sort_unstable();
        forms.dedup();
        assert_eq!((keys.len(), forms.len()), (k, f), "a key or a form is listed twice");
        assert!(TERMS.iter().all(|t| t.forms.iter().all(|f| *f == f.to_lowercase())), "forms are lower case");
    }

    #[test]
    fn the_terms_the_page_is_asked_about_are_defined() {
        for word in ["JCT", "consolidate", "oversubscription", "ρ", "offered load", "dally", "preemption"] {
            assert!(of_word(word).is_some(), "{word} has no definition");
        }
    }
}
