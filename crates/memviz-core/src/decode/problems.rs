//! What the builder says about entries of a file it could not use as they
//! are: the words of each problem, and the grouping of identical problems
//! into one [`Warning`] (first place + count).
//!
//! A segment, block or trace entry that is not a dict, or whose required
//! field is missing or of the wrong type, is left out; a wrong optional field
//! is read as a default. Either way the user is told where.

use std::collections::HashMap;

use crate::model::Warning;

/// What was wrong with a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// A value of this Python type where another was expected.
    Type(&'static str),
    /// A negative number where an address, size or count was expected.
    Negative,
    /// The field is absent.
    Missing,
    /// A frames list holding values that are not frame dicts.
    NotFrames,
    /// A string that is none of the values the field takes.
    UnknownValue,
}

/// What was done about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The entry cannot be used without the field: it is left out.
    Skip,
    /// The entry is kept and the field read as this (`0`, `no frames`...).
    ReadAs(&'static str),
}

/// One field of one entry that could not be read as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Problem {
    pub field: &'static str,
    pub found: Found,
    /// What the field should be: `an int`, `a list`, `a str`...
    pub expected: &'static str,
    pub outcome: Outcome,
}

impl Problem {
    /// `'addr' is a str, not an int`, `no 'size'`, `'stream' is negative (read as 0)`.
    pub fn text(&self) -> String {
        let f = self.field;
        let mut s = match self.found {
            Found::Type(t) => format!("'{f}' is {}, not {}", a_value_of(t), self.expected),
            Found::Negative => format!("'{f}' is negative"),
            Found::Missing => format!("no '{f}'"),
            Found::NotFrames => format!("'{f}' holds values that are not frames"),
            Found::UnknownValue => format!("'{f}' is not {}", self.expected),
        };
        if let Outcome::ReadAs(r) = self.outcome {
            s.push_str(&format!(" (read as {r})"));
        }
        s
    }

    pub fn skips(&self) -> bool {
        self.outcome == Outcome::Skip
    }
}

/// What a bad `frames` value is read as: no frames, or (a list holding some
/// values that are not frames) the frames among them.
pub fn frames_read_as(found: Found) -> &'static str {
    if found == Found::NotFrames {
        "the frames among them"
    } else {
        "no frames"
    }
}

/// A value of a Python type, as a warning names it: `a str`, `an int`, `None`.
pub fn a_value_of(type_name: &str) -> String {
    match type_name {
        "None" => "None".to_string(),
        t if t.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {t}"),
        t => format!("a {t}"),
    }
}

/// `a list, not a dict` for an entry of type `type_name` that should be `expected`.
pub fn not_a(expected: &str, type_name: &str) -> String {
    format!("{}, not {expected}", a_value_of(type_name))
}

/// Collects warnings, grouping identical problems met in the same kind of
/// place (`device_traces[*][*]`, `segments[*]['blocks'][*]`...).
#[derive(Debug, Default)]
pub struct Collector {
    list: Vec<Warning>,
    index: HashMap<(String, String, bool), usize>,
    /// The last key added and its index: a run of identical problems (a
    /// hostile file can have millions) costs no allocation per entry.
    last: Option<((String, String, bool), usize)>,
    /// Problems past [`MAX_WARNINGS`] kinds: counted, not listed.
    more: u64,
    skipped_more: bool,
}

/// Kinds of problems listed one by one: a hostile file could make a new kind
/// with every entry, and a person reads the first ones anyway.
pub const MAX_WARNINGS: usize = 100;

impl Collector {
    /// Notes `problem` at `location` (the entry was left out when `skipped`).
    pub fn add(&mut self, location: &str, problem: String, skipped: bool) {
        if let Some(((p, q, k), i)) = &self.last {
            if *k == skipped && *q == problem && same_pattern(p, location) {
                self.list[*i].count += 1;
                return;
            }
        }
        let key = (pattern(location), problem, skipped);
        match self.index.get(&key) {
            Some(&i) => {
                self.list[i].count += 1;
                self.last = Some((key, i));
            }
            None if self.index.len() >= MAX_WARNINGS => {
                self.more += 1;
                self.skipped_more |= skipped;
            }
            None => {
                let i = self.list.len();
                self.index.insert(key.clone(), i);
                self.list.push(Warning { location: location.to_string(), problem: key.1.clone(), count: 1, skipped });
                self.last = Some((key, i));
            }
        }
    }

    pub fn add_problem(&mut self, location: &str, p: &Problem) {
        self.add(location, p.text(), p.skips());
    }

    /// A warning about the file as a whole.
    pub fn add_file(&mut self, problem: String) {
        self.list.push(Warning { location: String::new(), problem, count: 1, skipped: false });
    }

    pub fn skipped_any(&self) -> bool {
        self.skipped_more || self.list.iter().any(|w| w.skipped)
    }

    pub fn into_list(mut self) -> Vec<Warning> {
        if self.more > 0 {
            self.add_file(format!("{} more entries had problems of other kinds (not listed)", self.more));
        }
        self.list
    }
}

/// Whether `location` is of the kind `pat` (see [`pattern`]), without
/// building its pattern.
fn same_pattern(pat: &str, location: &str) -> bool {
    let mut p = pat.chars().peekable();
    let mut l = location.chars().peekable();
    let mut in_index = false;
    loop {
        match (p.next(), l.peek().copied()) {
            (None, None) => return true,
            (Some('*'), Some(c)) if in_index && c.is_ascii_digit() => {
                while l.peek().is_some_and(|c| c.is_ascii_digit()) {
                    l.next();
                }
            }
            (Some(a), Some(b)) if a == b => {
                in_index = a == '[';
                l.next();
            }
            _ => return false,
        }
    }
}

/// The kind of place a location is: its list indices replaced by `*`.
fn pattern(location: &str) -> String {
    let mut out = String::with_capacity(location.len());
    let mut in_index = false;
    for c in location.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push(c);
            }
            '0'..='9' if in_index => {
                if !out.ends_with('*') {
                    out.push('*');
                }
            }
            _ => {
                in_index = false;
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        let p = Problem { field: "addr", found: Found::Type("str"), expected: "an int", outcome: Outcome::Skip };
        assert_eq!(p.text(), "'addr' is a str, not an int");
        let p = Problem { field: "stream", found: Found::Negative, expected: "an int", outcome: Outcome::ReadAs("0") };
        assert_eq!(p.text(), "'stream' is negative (read as 0)");
        let p = Problem { field: "size", found: Found::Type("int"), expected: "a list", outcome: Outcome::Skip };
        assert_eq!(p.text(), "'size' is an int, not a list");
        assert_eq!(not_a("a dict", "list"), "a list, not a dict");
        assert_eq!(not_a("a dict", "None"), "None, not a dict");
        let p = Problem { field: "total_size", found: Found::Type("None"), expected: "an int", outcome: Outcome::Skip };
        assert_eq!(p.text(), "'total_size' is None, not an int");
    }

    #[test]
    fn patterns() {
        for (loc, pat) in [
            ("device_traces[0][17]", "device_traces[*][*]"),
            ("segments[12]['blocks'][3]", "segments[*]['blocks'][*]"),
            ("host_traces", "host_traces"),
            ("[4]", "[*]"),
        ] {
            assert_eq!(pattern(loc), pat);
            assert!(same_pattern(pat, loc), "{loc}");
        }
        assert!(!same_pattern("device_traces[*][*]", "device_traces[0]"));
        assert!(!same_pattern("device_traces[*]", "device_traces[0][1]"));
        assert!(!same_pattern("segments[*]", "host_segments[1]"));
        assert!(!same_pattern("[*]", "[x]"));
    }

    #[test]
    fn identical_problems_in_the_same_kind_of_place_are_one_warning() {
        let mut c = Collector::default();
        c.add("device_traces[0][17]", "not a dict".into(), true);
        c.add("segments[2]", "not a dict".into(), true);
        c.add("device_traces[0][20]", "not a dict".into(), true);
        c.add("device_traces[1][3]", "not a dict".into(), true);
        c.add("segments[4]['blocks'][0]", "no 'size'".into(), true);
        c.add("segments[5]['blocks'][12]", "no 'size'".into(), true);
        for i in 0..MAX_WARNINGS + 5 {
            c.add(&format!("segments[{i}]"), format!("a dict of {i} keys"), false);
        }
        let list = c.into_list();
        assert_eq!(list.len(), MAX_WARNINGS + 1);
        assert_eq!(list[MAX_WARNINGS].to_string(), "8 more entries had problems of other kinds (not listed)");
        let text: Vec<String> = list[..3].iter().map(|w| w.to_string()).collect();
        assert_eq!(
            text,
            [
                "device_traces[0][17]: not a dict; 3 entries like it skipped",
                "segments[2]: not a dict; skipped",
                "segments[4]['blocks'][0]: no 'size'; 2 entries like it skipped",
            ]
        );
    }
}
