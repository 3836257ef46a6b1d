//! Every sample output in README.md is the binary's output: a fence without a language (an
//! output sample) must follow a `<!-- sample: ARGS -->` line, and its lines must be lines of
//! `kschedtui ARGS`'s output, in order and one after the other (trailing spaces aside). The
//! command must succeed, or exit with the status the line names: `<!-- sample (exit 3): ARGS -->`.

use std::process::Command;

/// A sample's marker: the arguments and the exit status (0 unless `(exit N)` says otherwise).
fn marker(line: &str) -> Option<(String, i32)> {
    let rest = line.strip_prefix("<!-- sample")?.strip_suffix(" -->")?;
    if let Some(args) = rest.strip_prefix(": ") {
        return Some((args.to_string(), 0));
    }
    let (code, args) = rest.strip_prefix(" (exit ")?.split_once("): ")?;
    Some((args.to_string(), code.parse().ok()?))
}

/// The samples: (the arguments, the exit status, the fence's lines).
fn samples(readme: &str) -> Vec<(String, i32, Vec<String>)> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] == "```" {
            let marker = i.checked_sub(1).map(|j| lines[j]).unwrap_or_default();
            let (args, code) = self::marker(marker).unwrap_or_else(|| {
                panic!(
                    "README.md:{}: an output sample without a <!-- sample: ARGS --> line",
                    i + 1
                )
            });
            let end = (i + 1..lines.len())
                .find(|&j| lines[j].starts_with("```"))
                .unwrap_or_else(|| panic!("README.md:{}: unclosed fence", i + 1));
            out.push((
                args,
                code,
                lines[i + 1..end].iter().map(|l| l.trim_end().to_string()).collect(),
            ));
            i = end + 1;
        } else if lines[i].starts_with("```") {
            // a fence with a language: commands or a configuration, not output
            i = (i + 1..lines.len())
                .find(|&j| lines[j].starts_with("```"))
                .map_or(lines.len(), |j| j + 1);
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn every_readme_sample_is_the_commands_output() {
    let readme = include_str!("../../README.md");
    let all = samples(readme);
    assert!(all.len() >= 3, "{} samples", all.len());
    for (args, code, want) in all {
        let o = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args.split_whitespace())
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(code),
            "{args}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let got: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect();
        assert!(
            got.windows(want.len()).any(|w| w == want.as_slice()),
            "README.md's sample of `kschedtui {args}` is not its output:\n{}\n--- output:\n{}",
            want.join("\n"),
            got.join("\n")
        );
    }
}

#[test]
fn a_sample_without_its_command_is_refused() {
    let r = std::panic::catch_unwind(|| samples("text\n```\nout\n```\n"));
    assert!(r.is_err());
    let ok = samples(
        "<!-- sample: explain --demo x -->\n```\na  \nb\n```\n```sh\nnot output\n```\n<!-- sample (exit 3): fit --demo -f f -->\n```\nc\n```\n",
    );
    assert_eq!(
        ok,
        vec![
            (
                "explain --demo x".to_string(),
                0,
                vec!["a".to_string(), "b".to_string()]
            ),
            ("fit --demo -f f".to_string(), 3, vec!["c".to_string()])
        ]
    );
}
