//! Tidy checks: the structural rules of ARCHITECTURE.md that the compiler
//! does not enforce.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable dir").filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target" || n == "node_modules") {
                continue;
            }
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every module of the library crates opens with a `//!` doc comment.
#[test]
fn every_module_starts_with_a_doc_comment() {
    let mut files = Vec::new();
    for krate in ["catalog", "kernel", "exec", "engine", "server", "tests", "benches", "fuzz"] {
        rust_files(&root().join(krate), &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let missing: Vec<_> = files
        .iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            !text.trim_start().starts_with("//!")
        })
        .collect();
    assert!(missing.is_empty(), "modules without a leading //! doc: {missing:#?}");
}

/// `unsafe_code` is `deny` workspace-wide; the places allowed to lift it
/// are the benches' counting allocator and the binary's allocator setup
/// (one option set from a loader constructor, before mimalloc reserves its
/// first arena: no safe API reaches that early).
#[test]
fn unsafe_code_is_allowed_only_in_the_allocators() {
    let mut files = Vec::new();
    for krate in ["catalog", "kernel", "engine", "server", "tests", "benches"] {
        rust_files(&root().join(krate), &mut files);
    }
    let needle = ["allow(", "unsafe_code)"].concat();
    let allowed =
        [root().join("benches/benches/search.rs"), root().join("server/src/allocator.rs")];
    let offenders: Vec<_> = files
        .iter()
        .filter(|f| !allowed.contains(f))
        .filter(|f| std::fs::read_to_string(f).unwrap_or_default().contains(&needle))
        .collect();
    assert!(offenders.is_empty(), "unsafe_code allowed in: {offenders:#?}");
}

fn tree(package: &str) -> String {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "-p", package, "-e", "normal", "--prefix", "none", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether the engine's own manifest (through the workspace entry) asks
/// hyper for its server half.
fn engine_enables_hyper_server() -> bool {
    let ws = std::fs::read_to_string(root().join("Cargo.toml")).expect("workspace manifest");
    ws.lines().find(|l| l.starts_with("hyper =")).is_some_and(|l| l.contains("\"server\""))
}

fn crate_names(tree: &str) -> Vec<&str> {
    tree.lines().filter_map(|l| l.split_whitespace().next()).collect()
}

/// The kernel is pure compute: no async runtime, no actors, no HTTP, no JSON.
#[test]
fn kernel_depends_on_no_runtime_http_or_json() {
    let t = tree("switchyard-kernel");
    let names = crate_names(&t);
    for banned in
        ["tokio", "actix", "actix-rt", "axum", "hyper", "reqwest", "serde_json", "simd-json"]
    {
        assert!(!names.contains(&banned), "switchyard-kernel depends on {banned}:\n{t}");
    }
}

/// Dependencies run server → engine → exec → kernel → catalog. Only the
/// engine names actix; only the server knows HTTP; the transaction layer
/// is synchronous.
#[test]
fn dependencies_point_one_way() {
    let catalog = tree("switchyard-catalog");
    for banned in [
        "switchyard-kernel",
        "switchyard-exec",
        "switchyard-engine",
        "switchyard-server",
        "tokio",
        "actix",
        "axum",
    ] {
        assert!(!crate_names(&catalog).contains(&banned), "catalog depends on {banned}");
    }
    let kernel = tree("switchyard-kernel");
    for banned in ["switchyard-exec", "switchyard-engine", "switchyard-server", "revm"] {
        assert!(!crate_names(&kernel).contains(&banned), "kernel depends on {banned}");
    }
    let exec = tree("switchyard-exec");
    for banned in [
        "switchyard-engine",
        "switchyard-server",
        "tokio",
        "actix",
        "actix-rt",
        "axum",
        "hyper",
        "rusqlite",
        "redis",
    ] {
        assert!(!crate_names(&exec).contains(&banned), "exec depends on {banned}");
    }
    let mut exec_src = Vec::new();
    rust_files(&root().join("exec/src"), &mut exec_src);
    for f in exec_src {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        assert!(!text.contains("async fn"), "{} is async: exec is synchronous", f.display());
    }
    let engine = tree("switchyard-engine");
    for banned in ["switchyard-server", "axum", "tower-http", "reqwest"] {
        assert!(!crate_names(&engine).contains(&banned), "engine depends on {banned}");
    }
    // The engine is a JSON-RPC *client* of nodes (the RPC feed), on the
    // hyper the server already brings; it never serves HTTP.
    assert!(!engine_enables_hyper_server(), "the engine must not ask hyper for its server half");
    let mut engine_src = Vec::new();
    rust_files(&root().join("engine/src"), &mut engine_src);
    for f in engine_src {
        let text = std::fs::read_to_string(&f).expect("source");
        assert!(!text.contains("hyper::server"), "{} serves HTTP", f.display());
    }
    let server_toml =
        std::fs::read_to_string(root().join("server/Cargo.toml")).expect("server manifest");
    assert!(
        !server_toml.contains("actix"),
        "the server must reach actors only through EngineHandle"
    );
    let mut server_src = Vec::new();
    rust_files(&root().join("server/src"), &mut server_src);
    for f in server_src {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        assert!(!text.contains("actix::"), "{} names actix", f.display());
    }
}

/// The heavy crates CI must never build.
#[test]
fn no_heavy_dependencies() {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--workspace", "-e", "normal,build", "--prefix", "none", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo tree runs");
    let t = String::from_utf8_lossy(&out.stdout);
    let names = crate_names(&t);
    for banned in ["alloy", "actix-web", "aws-lc-sys", "c-kzg", "blst", "reqwest", "zstd-sys"] {
        assert!(!names.contains(&banned), "the workspace depends on {banned}");
    }
}

/// The one error table: every function that maps an error onto `ApiCode`
/// (and the server's mappings from it) names every variant; none has a
/// catch-all arm, so a new error variant cannot fall into a default code,
/// and the status comes from the code, never from a string.
#[test]
fn error_codes_map_exhaustively() {
    let mut files = Vec::new();
    for krate in ["catalog", "kernel", "exec", "engine", "server"] {
        rust_files(&root().join(krate).join("src"), &mut files);
    }
    let server_maps = [
        "fn status(",
        "fn wire_code(",
        "fn retry_hint(",
        "fn from(e: EngineError)",
        "fn exec_wire(",
    ];
    let mut mappings = Vec::new();
    let mut offenders = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let signature = line.trim_start();
            let returns_code = signature
                .split("->")
                .nth(1)
                .is_some_and(|r| r.trim().trim_end_matches('{').trim().ends_with("ApiCode"));
            let maps = signature.contains("fn ")
                && (returns_code
                    || (f.ends_with("server/src/error.rs")
                        && server_maps.iter().any(|m| signature.contains(m))));
            if !maps {
                continue;
            }
            let indent = &line[..line.len() - signature.len()];
            let close = format!("{indent}}}");
            let body: Vec<&str> =
                lines[i + 1..].iter().take_while(|l| **l != close).copied().collect();
            mappings.push(format!("{}:{}", f.display(), i + 1));
            if body.iter().any(|l| l.trim_start().starts_with("_ =>")) {
                offenders.push(format!("{}:{}: {signature}", f.display(), i + 1));
            }
        }
    }
    assert!(mappings.len() >= 8, "found only these mappings onto or from ApiCode: {mappings:#?}");
    assert!(offenders.is_empty(), "catch-all arms in error-code mappings: {offenders:#?}");
    let server = std::fs::read_to_string(root().join("server/src/error.rs")).unwrap_or_default();
    assert!(!server.contains("tracing::"), "the error conversion logs; the middleware should");
}
