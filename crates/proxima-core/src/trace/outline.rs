//! Where things sit in a JSON trace: the lines of keys and jobs, and numbers as written, which
//! serde_json's `Value` does not keep. The native JSON reader uses it to name lines in errors.

/// Where things sit in a JSON text that serde_json has already accepted: the line of each
/// key of the root object and, for each job, the line it opens on and of each of its keys.
/// serde_json's `Value` keeps no positions, and a user fixing `gpus: 0` wants the line.
#[derive(Default)]
pub(super) struct Outline {
    pub(super) root_keys: Vec<(String, u32)>,
    pub(super) jobs: Vec<JobShape>,
}

#[derive(Default)]
pub(super) struct JobShape {
    pub(super) line: u32,
    keys: Vec<(String, u32)>,
    /// The text of each key's value when it is a number, as written.
    numbers: Vec<(String, String)>,
    /// The first key written twice (serde_json keeps the last value silently).
    pub(super) duplicate: Option<String>,
}

impl JobShape {
    pub(super) fn key_line(&self, key: &str) -> Option<u32> {
        self.keys.iter().find(|(k, _)| k == key).map(|(_, l)| *l)
    }

    pub(super) fn raw_number(&self, key: &str) -> Option<&str> {
        self.numbers.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

impl Outline {
    pub(super) fn root_key_line(&self, key: &str) -> u32 {
        self.root_keys.iter().find(|(k, _)| k == key).map_or(1, |(_, l)| *l)
    }

    /// Scans valid JSON. Jobs are the objects directly inside the root array, or inside
    /// the array under the root object's `jobs` key.
    pub(super) fn of(text: &str) -> Outline {
        let mut outline = Outline::default();
        // Open containers: (is an object, is the jobs array, is a job).
        let mut stack: Vec<(bool, bool, bool)> = Vec::new();
        let mut line: u32 = 1;
        let mut last_string: Option<(String, u32)> = None;
        let mut last_root_key = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\n' => line += 1,
                '"' => {
                    let start = line;
                    if stack.last().is_some_and(|s| s.1) {
                        // A string directly in the jobs array is a (malformed) job.
                        outline.jobs.push(JobShape { line, ..JobShape::default() });
                    }
                    let mut s = String::new();
                    while let Some(c) = chars.next() {
                        match c {
                            '\\' => {
                                // Keys with escapes are compared by their raw text; job keys
                                // never need escapes.
                                if let Some(e) = chars.next() {
                                    s.push('\\');
                                    s.push(e);
                                }
                            }
                            '"' => break,
                            '\n' => {
                                line += 1;
                                s.push(c)
                            }
                            _ => s.push(c),
                        }
                    }
                    last_string = Some((s, start));
                }
                ':' => {
                    if let Some((key, at)) = last_string.take() {
                        match stack.len() {
                            1 if stack[0].0 => {
                                last_root_key = key.clone();
                                outline.root_keys.push((key, at));
                            }
                            _ if stack.last().is_some_and(|s| s.2) => {
                                let job = outline.jobs.last_mut().expect("a job is open");
                                if job.duplicate.is_none() && job.keys.iter().any(|(k, _)| *k == key) {
                                    job.duplicate = Some(key.clone());
                                }
                                // Keep a number's text as written; the value follows the colon.
                                while let Some(&n) = chars.peek() {
                                    if !n.is_whitespace() {
                                        break;
                                    }
                                    if n == '\n' {
                                        line += 1;
                                    }
                                    chars.next();
                                }
                                if chars.peek().is_some_and(|n| *n == '-' || n.is_ascii_digit()) {
                                    let mut number = String::new();
                                    while let Some(&n) = chars.peek() {
                                        if !(n.is_ascii_digit() || matches!(n, '-' | '+' | '.' | 'e' | 'E')) {
                                            break;
                                        }
                                        number.push(n);
                                        chars.next();
                                    }
                                    job.numbers.push((key.clone(), number));
                                }
                                job.keys.push((key, at));
                            }
                            _ => {}
                        }
                    }
                }
                '{' | '[' => {
                    let parent_is_jobs = stack.last().is_some_and(|s| s.1);
                    let is_object = c == '{';
                    let is_jobs =
                        !is_object && (stack.is_empty() || (stack.len() == 1 && stack[0].0 && last_root_key == "jobs"));
                    let is_job = parent_is_jobs;
                    if is_job {
                        outline.jobs.push(JobShape { line, ..JobShape::default() });
                    }
                    stack.push((is_object, is_jobs, is_job && is_object));
                    last_string = None;
                }
                '}' | ']' => {
                    stack.pop();
                    last_string = None;
                }
                ',' => last_string = None,
                _ => {
                    // Inside the jobs array, a scalar is a (malformed) job too: count it so
                    // that jobs[i] keeps its index.
                    if !c.is_whitespace() && stack.last().is_some_and(|s| s.1) {
                        outline.jobs.push(JobShape { line, ..JobShape::default() });
                        // Skip the rest of the scalar.
                        while let Some(&n) = chars.peek() {
                            if n == ',' || n == ']' || n.is_whitespace() {
                                break;
                            }
                            chars.next();
                        }
                    }
                }
            }
        }
        outline
    }
}
