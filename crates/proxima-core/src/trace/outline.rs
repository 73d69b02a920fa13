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
        let mut scan = Scanner {
            chars: text.chars().peekable(),
            line: 1,
            stack: Vec::new(),
            last_string: None,
            last_root_key: String::new(),
            outline: Outline::default(),
        };
        while let Some(c) = scan.chars.next() {
            match c {
                '\n' => scan.line += 1,
                '"' => scan.string(),
                ':' => scan.colon(),
                '{' | '[' => scan.open(c == '{'),
                '}' | ']' => {
                    scan.stack.pop();
                    scan.last_string = None;
                }
                ',' => scan.last_string = None,
                _ if !c.is_whitespace() => scan.scalar(),
                _ => {}
            }
        }
        scan.outline
    }
}

/// A container open where the scan is.
#[derive(Clone, Copy)]
struct Open {
    is_object: bool,
    /// The array that holds the jobs: the root array, or the one under the root's `jobs`.
    is_jobs: bool,
    /// An object directly inside the jobs array.
    is_job: bool,
}

/// The state of [`Outline::of`]'s single pass over the text.
struct Scanner<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: u32,
    stack: Vec<Open>,
    /// The last string read and the line it began on: a key if a colon follows.
    last_string: Option<(String, u32)>,
    last_root_key: String,
    outline: Outline,
}

impl Scanner<'_> {
    fn in_jobs_array(&self) -> bool {
        self.stack.last().is_some_and(|s| s.is_jobs)
    }

    /// Inside the jobs array, anything but an object is a (malformed) job too: count it so
    /// that jobs[i] keeps its index.
    fn push_job(&mut self) {
        self.outline.jobs.push(JobShape { line: self.line, ..JobShape::default() });
    }

    /// Reads a string whose opening quote has been read, up to its closing quote.
    fn string(&mut self) {
        let start = self.line;
        if self.in_jobs_array() {
            self.push_job();
        }
        let mut s = String::new();
        while let Some(c) = self.chars.next() {
            match c {
                '\\' => {
                    // Keys with escapes are compared by their raw text; job keys never need
                    // escapes.
                    if let Some(e) = self.chars.next() {
                        s.push('\\');
                        s.push(e);
                    }
                }
                '"' => break,
                '\n' => {
                    self.line += 1;
                    s.push(c)
                }
                _ => s.push(c),
            }
        }
        self.last_string = Some((s, start));
    }

    /// A colon makes the string before it a key: of the root object, or of a job.
    fn colon(&mut self) {
        let Some((key, at)) = self.last_string.take() else { return };
        if self.stack.len() == 1 && self.stack[0].is_object {
            self.last_root_key = key.clone();
            self.outline.root_keys.push((key, at));
        } else if self.stack.last().is_some_and(|s| s.is_job) {
            self.job_key(key, at);
        }
    }

    /// Records a key of the open job, its line, whether it repeats, and its value's text
    /// when that is a number (the value follows the colon).
    fn job_key(&mut self, key: String, at: u32) {
        self.skip_whitespace();
        let number = self.number();
        let job = self.outline.jobs.last_mut().expect("a job is open");
        if job.duplicate.is_none() && job.keys.iter().any(|(k, _)| *k == key) {
            job.duplicate = Some(key.clone());
        }
        if let Some(number) = number {
            job.numbers.push((key.clone(), number));
        }
        job.keys.push((key, at));
    }

    fn skip_whitespace(&mut self) {
        while let Some(&n) = self.chars.peek() {
            if !n.is_whitespace() {
                break;
            }
            if n == '\n' {
                self.line += 1;
            }
            self.chars.next();
        }
    }

    /// The number that starts here, as written, if one does.
    fn number(&mut self) -> Option<String> {
        if !self.chars.peek().is_some_and(|n| *n == '-' || n.is_ascii_digit()) {
            return None;
        }
        let mut number = String::new();
        while let Some(&n) = self.chars.peek() {
            if !(n.is_ascii_digit() || matches!(n, '-' | '+' | '.' | 'e' | 'E')) {
                break;
            }
            number.push(n);
            self.chars.next();
        }
        Some(number)
    }

    /// Opens an object or an array; which one holds the jobs is known from where it opens.
    fn open(&mut self, is_object: bool) {
        let is_job = self.in_jobs_array();
        let is_jobs = !is_object
            && (self.stack.is_empty()
                || (self.stack.len() == 1 && self.stack[0].is_object && self.last_root_key == "jobs"));
        if is_job {
            self.push_job();
        }
        self.stack.push(Open { is_object, is_jobs, is_job: is_job && is_object });
        self.last_string = None;
    }

    /// A scalar (number, `true`, `false`, `null`) whose first character has been read.
    fn scalar(&mut self) {
        if !self.in_jobs_array() {
            return;
        }
        self.push_job();
        // Skip the rest of the scalar.
        while let Some(&n) = self.chars.peek() {
            if n == ',' || n == ']' || n.is_whitespace() {
                break;
            }
            self.chars.next();
        }
    }
}
