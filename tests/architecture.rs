//! The layout's rules, checked: which crate may depend on what, and which
//! parts of the server may know of which others. ARCHITECTURE.md states
//! them; these tests keep the code and the document from drifting apart.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Each workspace crate's direct dependencies (normal ones, not those of
/// its tests or benches), from `cargo metadata`.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(repository())
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata writes JSON");
    let packages = metadata["packages"].as_array().expect("packages");
    packages
        .iter()
        .map(|package| {
            let name = package["name"].as_str().expect("a name").to_string();
            let dependencies = package["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|dependency| dependency["kind"].is_null())
                .map(|dependency| dependency["name"].as_str().expect("a name").to_string())
                .collect();
            (name, dependencies)
        })
        .collect()
}

/// The crates that depend directly on `dependency`.
fn dependents(all: &BTreeMap<String, BTreeSet<String>>, dependency: &str) -> BTreeSet<String> {
    all.iter()
        .filter(|(_, dependencies)| dependencies.contains(dependency))
        .map(|(name, _)| name.clone())
        .collect()
}

#[test]
fn each_outside_service_is_reached_from_one_crate() {
    let all = dependencies();
    let only = |dependency: &str, crates: &[&str]| {
        let expected: BTreeSet<String> = crates.iter().map(|name| name.to_string()).collect();
        assert_eq!(
            dependents(&all, dependency),
            expected,
            "the crates that depend on {dependency}"
        );
    };
    // SQL is the store's alone; NATS is the cluster's, and only the
    // server's assembly uses the cluster.
    only("sqlx", &["spades-store"]);
    only("rusqlite", &["spades-store"]);
    only("async-nats", &["spades-cluster"]);
    only("spades-cluster", &["spades-server"]);
    // HTTP is the server's alone; the binary and the clients speak
    // WebSocket through tokio-tungstenite.
    only("axum", &["spades-server"]);
    only("hyper", &["spades-server"]);
}

#[test]
fn the_engine_and_the_bots_depend_on_no_runtime_and_no_input_or_output() {
    let all = dependencies();
    let forbidden = ["tokio", "serde_json", "sqlx", "axum", "tracing", "time", "uuid"];
    for name in ["spades-engine", "spades-bots"] {
        let found: Vec<&String> = all[name]
            .iter()
            .filter(|dependency| forbidden.contains(&dependency.as_str()))
            .collect();
        assert!(found.is_empty(), "{name} depends on {found:?}");
    }
    // The protocol crate holds types and their reading and writing, and
    // nothing that runs.
    let protocol: Vec<&String> = all["spades-protocol"]
        .iter()
        .filter(|dependency| ["tokio", "sqlx", "axum", "async-nats"].contains(&dependency.as_str()))
        .collect();
    assert!(protocol.is_empty(), "spades-protocol depends on {protocol:?}");
}

/// The source files of the server's module `module` (a file or a folder),
/// with their text.
fn module_files(module: &str) -> Vec<(PathBuf, String)> {
    files_of("server", module)
}

/// The source folder of crate `krate` (its folder under `crates/`).
fn src_of(krate: &str) -> PathBuf {
    repository().join("crates").join(krate).join("src")
}

/// The source files of module `module` of crate `krate`, with their text.
fn files_of(krate: &str, module: &str) -> Vec<(PathBuf, String)> {
    let src = src_of(krate);
    let file = src.join(format!("{module}.rs"));
    let mut paths = Vec::new();
    if file.exists() {
        paths.push(file);
    }
    let folder = src.join(module);
    if folder.is_dir() {
        let mut stack = vec![folder];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).expect("a readable folder") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|ext| ext == "rs") {
                    paths.push(path);
                }
            }
        }
    }
    assert!(!paths.is_empty(), "no module {module} in crates/{krate}");
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a readable file");
            (path, text)
        })
        .collect()
}

/// The modules of crate `krate` that its module `module` names in its code
/// (`crate::name`, or `crate::{a, b}`), comments left out.
fn uses_in(krate: &str, module: &str) -> BTreeSet<String> {
    let src = src_of(krate);
    let mut used = BTreeSet::new();
    let mut note = |name: &str| {
        if is_module(&src, name) && name != module {
            used.insert(name.to_string());
        }
    };
    for (_, text) in files_of(krate, module) {
        for line in text.lines() {
            let mut rest = line.split("//").next().unwrap_or_default();
            while let Some(at) = rest.find("crate::") {
                rest = &rest[at + "crate::".len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    let group = group.split('}').next().unwrap_or_default();
                    for item in group.split(',') {
                        note(item.trim().split("::").next().unwrap_or_default());
                    }
                } else {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    note(&name);
                }
            }
        }
    }
    used
}

/// Whether `name` is one of a crate's top-level modules (rather than an
/// item of its root, such as the server's `AppState`).
fn is_module(src: &Path, name: &str) -> bool {
    !name.is_empty()
        && name != "lib"
        && name != "main"
        && (src.join(format!("{name}.rs")).exists() || src.join(name).is_dir())
}

/// The top-level modules of crate `krate`.
fn modules(krate: &str) -> Vec<String> {
    let src = src_of(krate);
    let mut names: Vec<String> = std::fs::read_dir(&src)
        .expect("a crate's sources")
        .map(|entry| {
            let path = entry.expect("an entry").path();
            path.file_stem().expect("a name").to_string_lossy().into_owned()
        })
        .filter(|name| is_module(&src, name))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// A circle of modules of crate `krate` that use each other, if any.
fn cycle_in(krate: &str) -> Option<Vec<String>> {
    let graph: BTreeMap<String, BTreeSet<String>> = modules(krate)
        .into_iter()
        .map(|module| {
            let used = uses_in(krate, &module);
            (module, used)
        })
        .collect();
    assert!(graph.len() > 1, "crates/{krate}: found only {:?}", graph.keys());
    // Depth-first search for a way back to a module on the path.
    fn back<'a>(
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        module: &'a str,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| *m == module) {
            let circle = path[at..].iter().chain([&module]);
            return Some(circle.map(|m| m.to_string()).collect());
        }
        if !done.insert(module) {
            return None;
        }
        path.push(module);
        for next in graph.get(module).into_iter().flatten() {
            if let Some(cycle) = back(graph, next, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|module| back(&graph, module, &mut Vec::new(), &mut done))
}

#[test]
fn modules_use_each_other_without_a_cycle() {
    // A crate's root (`lib.rs`, `main.rs`) assembles its modules and is
    // left out: the server's modules may name its `AppState` without
    // making a circle of it. The client crate has one module besides its
    // root, and so no circle to make.
    let crates = [
        "engine", "bots", "protocol", "store", "room", "lobby", "cluster", "server", "spades",
    ];
    for krate in crates {
        if let Some(cycle) = cycle_in(krate) {
            panic!("the modules of crates/{krate} use each other in a circle: {cycle:?}");
        }
    }
}

#[test]
fn only_the_cluster_and_the_assembly_know_there_is_a_cluster() {
    // Cargo keeps the room and the lobby crates from naming the cluster's;
    // within the server, only its root (`lib.rs`, which assembles it)
    // may, so that the edge asks `spades_lobby::Network` where things are.
    let modules = modules("server");
    assert!(modules.contains(&"connection".to_string()), "found {modules:?}");
    for module in modules {
        for (path, text) in module_files(&module) {
            let code: String = text
                .lines()
                .map(|line| line.split("//").next().unwrap_or_default())
                .collect::<Vec<_>>()
                .join("\n");
            assert!(
                !code.contains(".cluster()") && !code.contains("spades_cluster"),
                "{} asks for the cluster itself",
                path.display()
            );
        }
    }
}

#[test]
fn each_crate_depends_only_on_the_crates_below_it() {
    // The layers, from the bottom: the rules; the bots and the protocol
    // over them; the store; the room actor; the lobby, quick play and the
    // tournaments; the cluster, which routes to them across nodes; the
    // server, which assembles them behind the edge; and the binary. A crate may use only crates of the layers below its
    // own, so that Cargo refuses an import that runs the wrong way.
    let below: [(&str, &[&str]); 10] = [
        ("spades-engine", &[]),
        ("spades-bots", &["spades-engine"]),
        ("spades-protocol", &["spades-engine"]),
        ("spades-store", &["spades-engine"]),
        (
            "spades-client",
            &["spades-engine", "spades-bots", "spades-protocol"],
        ),
        (
            "spades-room",
            &["spades-engine", "spades-bots", "spades-protocol", "spades-store"],
        ),
        (
            "spades-lobby",
            &["spades-engine", "spades-protocol", "spades-store", "spades-room"],
        ),
        (
            "spades-cluster",
            &[
                "spades-engine",
                "spades-protocol",
                "spades-store",
                "spades-room",
                "spades-lobby",
            ],
        ),
        (
            "spades-server",
            &[
                "spades-engine",
                "spades-bots",
                "spades-protocol",
                "spades-store",
                "spades-room",
                "spades-lobby",
                "spades-cluster",
            ],
        ),
        (
            "spades",
            &[
                "spades-engine",
                "spades-bots",
                "spades-protocol",
                "spades-store",
                "spades-client",
                "spades-server",
            ],
        ),
    ];
    let all = dependencies();
    let ours = |name: &str| -> BTreeSet<String> {
        all[name]
            .iter()
            .filter(|d| d.starts_with("spades"))
            .cloned()
            .collect()
    };
    for (name, allowed) in below {
        let wrong: Vec<String> = ours(name)
            .into_iter()
            .filter(|dependency| !allowed.contains(&dependency.as_str()))
            .collect();
        assert!(
            wrong.is_empty(),
            "{name} depends on {wrong:?}, outside the layers below it"
        );
    }
    let listed: BTreeSet<String> = below.iter().map(|(name, _)| name.to_string()).collect();
    let found: BTreeSet<String> = all.keys().cloned().collect();
    assert_eq!(listed, found, "every crate of the workspace has its layer");
}

#[test]
fn the_room_and_the_lobby_speak_no_http_nats_or_sql() {
    // Who talks to a table, and over what, is the server's business: the
    // room and the lobby crates reach the network and the database only
    // through the traits and the journal the server hands them.
    let all = dependencies();
    let forbidden = [
        "axum",
        "hyper",
        "async-nats",
        "sqlx",
        "rusqlite",
        "tokio-tungstenite",
        "reqwest",
    ];
    for name in ["spades-room", "spades-lobby"] {
        let found: Vec<&String> = all[name]
            .iter()
            .filter(|dependency| forbidden.contains(&dependency.as_str()))
            .collect();
        assert!(found.is_empty(), "{name} depends on {found:?}");
    }
}

/// Every Rust file of the workspace's crates and tests, with its text.
fn rust_files() -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut stack = vec![repository().join("crates"), repository().join("tests")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                if !path.ends_with("node_modules") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let text = std::fs::read_to_string(&path).expect("a readable file");
                files.push((path, text));
            }
        }
    }
    files
}

#[test]
fn no_file_is_too_long_to_read_in_one_sitting() {
    let long: Vec<String> = rust_files()
        .into_iter()
        .filter(|(_, text)| text.lines().count() > 600)
        .map(|(path, text)| format!("{} ({} lines)", path.display(), text.lines().count()))
        .collect();
    assert!(long.is_empty(), "files over 600 lines: {long:?}");
}

/// The functions of a file's product code (before its tests) longer than
/// `most` lines, from `fn` to the brace that closes it at the same
/// indentation, as rustfmt lays them out.
fn long_functions(text: &str, most: usize) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let product = lines
        .iter()
        .position(|line| line.trim_start().starts_with("#[cfg(test)]"))
        .unwrap_or(lines.len());
    let mut long = Vec::new();
    let mut i = 0;
    while i < product {
        let line = lines[i];
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let is_fn = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "pub(super) fn ",
            "async fn ",
            "pub async fn ",
        ]
        .iter()
        .chain(&[
            "pub(crate) async fn ",
            "pub(super) async fn ",
            "const fn ",
            "pub const fn ",
        ])
        .any(|start| trimmed.starts_with(start));
        // A declaration without a body (in a trait) ends with `;` before
        // any `{`.
        let body = lines[i..product]
            .iter()
            .position(|l| l.trim_end().ends_with('{') || l.trim_end().ends_with(';'))
            .filter(|&at| lines[i + at].trim_end().ends_with('{'));
        if is_fn && let Some(open) = body {
            let closing = format!("{indent}}}");
            if let Some(end) = lines[i + open..product].iter().position(|l| *l == closing) {
                let length = open + end + 1;
                if length > most {
                    let name = trimmed.split('(').next().unwrap_or(trimmed).to_string();
                    long.push((i + 1, format!("{name}: {length} lines")));
                }
                i += open + end + 1;
                continue;
            }
        }
        i += 1;
    }
    long
}

#[test]
fn no_product_function_is_over_eighty_lines() {
    let mut long = Vec::new();
    for (path, text) in rust_files() {
        let is_test_code = path.components().any(|part| part.as_os_str() == "tests")
            || path.components().any(|part| part.as_os_str() == "benches")
            || path.file_name().is_some_and(|name| name == "tests.rs");
        if is_test_code {
            continue;
        }
        for (line, what) in long_functions(&text, 80) {
            long.push(format!("{}:{line} {what}", path.display()));
        }
    }
    assert!(long.is_empty(), "functions over 80 lines: {long:#?}");
}

#[test]
fn a_long_function_is_found() {
    let body = "    let x = 1;\n".repeat(81);
    let text = format!(
        "fn short() {{\n}}\n\npub fn long() {{\n{body}}}\n\ntrait T {{\n    fn declared(&self);\n}}\n"
    );
    assert_eq!(
        long_functions(&text, 80),
        [(4, "pub fn long: 83 lines".to_string())]
    );
}
