//! The operator's command line, `spades admin`, as the tests run it: on a
//! server's database, as someone with shell access to it would.

/// Runs `spades admin ARGS` on `database` and returns what it printed.
pub fn admin_cli(database: &str, args: &[&str]) -> String {
    admin_cli_with_input(database, args, "")
}

/// Runs `spades admin ARGS` on `database` with `input` on its standard
/// input, and returns what it printed.
pub fn admin_cli_with_input(database: &str, args: &[&str], input: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_spades"))
        .arg("admin")
        .arg("--database")
        .arg(database)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spades admin runs");
    child
        .stdin
        .take()
        .expect("its standard input")
        .write_all(input.as_bytes())
        .expect("the input is written");
    let output = child.wait_with_output().expect("spades admin ends");
    assert!(
        output.status.success(),
        "spades admin {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}
