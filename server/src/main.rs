//! The `switchyard` binary: `serve`, `keys`, `catalog check`.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand};
use switchyard_catalog::{CatalogError, loaders};
use switchyard_engine::{Database, Engine, EngineConfig, KeyStore};
use switchyard_server::{
    AppState, app,
    config::{Config, RawConfig},
};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
#[cfg(target_os = "linux")]
mod allocator;

/// Self-hosted token routing and DeFi shortcuts, speaking the Enso /api/v1 dialect.
#[derive(Debug, Parser)]
#[command(name = "switchyard", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HTTP server.
    Serve {
        /// Listen address (default 127.0.0.1:8080).
        #[arg(long)]
        bind: Option<String>,
        /// TOML configuration file.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Directory of the key and volume database (default .switchyard).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Market snapshot file (default: the embedded demo market).
        #[arg(long)]
        market: Option<PathBuf>,
    },
    /// Manage API keys (works while the server runs).
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Catalog and market files.
    Catalog {
        #[command(subcommand)]
        command: CatalogCommand,
    },
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Create a key; the key alone is the last line of stdout.
    Create {
        /// Requests per second (default from config, 10).
        #[arg(long)]
        rate: Option<f64>,
        /// Operator note.
        #[arg(long)]
        label: Option<String>,
        /// Data directory.
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// TOML configuration file.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// List keys (never their secrets).
    List {
        /// Data directory.
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// TOML configuration file.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Revoke a key by id, prefix or the key itself.
    Revoke {
        /// Id, prefix or key.
        key: String,
        /// Data directory.
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// TOML configuration file.
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum CatalogCommand {
    /// Validate catalog and/or market files and print what is wrong.
    Check {
        /// Files; catalog documents are checked together, market files
        /// against them (or against the embedded catalog).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

fn load_config(file: Option<&Path>) -> Result<Config> {
    RawConfig::load(file)?.validate().context("invalid configuration")
}

fn init_tracing(cfg: &Config) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&cfg.log_filter));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    if cfg.pretty_logs {
        builder.init();
    } else {
        builder.json().flatten_event(true).with_current_span(true).init();
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { () = ctrl_c => {}, () = term => {} }
    tracing::info!("shutdown signal received, draining connections");
}

fn serve(mut cfg: Config) -> Result<()> {
    init_tracing(&cfg);
    let (engine, shutdown) = Engine::start(EngineConfig {
        data_dir: cfg.data_dir.clone(),
        database_url: cfg.database_url.take(),
        catalog_files: std::mem::take(&mut cfg.catalog_files),
        market_file: cfg.market.take(),
        contract_overrides: std::mem::take(&mut cfg.contracts),
        node_modules: cfg.node_modules.take(),
        redis_url: cfg.redis_url.take(),
        on_redis_error: cfg.on_redis_error,
        block_interval: cfg.embedded_block,
        rpc_feeds: cfg.nodes.clone(),
        replay_blocks: Some(cfg.replay_blocks),
        operator_fee: cfg.operator_fee,
        backend_signer: cfg.backend_signer,
        bridge_nodes: std::mem::take(&mut cfg.bridge_nodes),
        cctp_attestation_url: cfg.cctp_attestation_url.take(),
    })
    .context("starting the engine")?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async {
        if let Some(k) = engine.ensure_documentation_key().await? {
            // Printed once, to stdout, so an operator can try the API at once.
            println!("created documentation key (1 request/s, account {}):", k.record.account_id);
            println!("{}", k.key);
        }
        let state = engine.state();
        tracing::info!(
            networks = state.catalog.networks().len(),
            tokens = state.catalog.tokens().len(),
            pools = state.snapshot.pools().len(),
            priced = state.prices.len(),
            "catalog and market loaded"
        );
        let listener = tokio::net::TcpListener::bind(cfg.bind)
            .await
            .with_context(|| format!("binding {}", cfg.bind))?;
        tracing::info!(addr = %listener.local_addr()?, "listening");
        let router = app(AppState::new(engine, cfg.settings.clone()));
        switchyard_server::listener::serve(listener, router, cfg.connections, shutdown_signal())
            .await;
        anyhow::Ok(())
    })?;
    shutdown.stop();
    Ok(())
}

fn keys(cmd: KeysCommand) -> Result<()> {
    let (data_dir, config) = match &cmd {
        KeysCommand::Create { data_dir, config, .. }
        | KeysCommand::List { data_dir, config }
        | KeysCommand::Revoke { data_dir, config, .. } => (data_dir.clone(), config.clone()),
    };
    let cfg = load_config(config.as_deref())?;
    let db = Database::from_config(&data_dir.unwrap_or(cfg.data_dir), cfg.database_url.as_deref());
    let store = KeyStore::connect(&db)?;
    match cmd {
        KeysCommand::Create { rate, label, .. } => {
            let rate = rate.unwrap_or(cfg.default_key_rate);
            anyhow::ensure!(rate.is_finite() && rate > 0.0, "--rate must be a positive number");
            let k = store.create(rate, label.as_deref())?;
            println!(
                "id {} account {} rate {}/s",
                k.record.id, k.record.account_id, k.record.rate_per_s
            );
            println!("{}", k.key);
        }
        KeysCommand::List { .. } => {
            println!(
                "{:>5}  {:<12} {:<36} {:>8}  {:<8} label",
                "id", "prefix", "account", "rate/s", "status"
            );
            for k in store.list()? {
                println!(
                    "{:>5}  {:<12} {:<36} {:>8}  {:<8} {}",
                    k.id,
                    k.prefix,
                    k.account_id,
                    k.rate_per_s,
                    if k.revoked { "revoked" } else { "active" },
                    k.label.unwrap_or_default()
                );
            }
        }
        KeysCommand::Revoke { key, .. } => {
            anyhow::ensure!(store.revoke(&key)?, "no key matches `{key}`");
            println!("revoked");
        }
    }
    Ok(())
}

fn catalog_check(files: &[PathBuf]) -> Result<ExitCode> {
    match loaders::check_files(files) {
        Ok(kinds) => {
            for (f, k) in files.iter().zip(kinds) {
                println!("{}: ok ({k:?})", f.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(CatalogError::Invalid { problems }) => {
            for p in &problems {
                println!("{p}");
            }
            println!("{} problem(s)", problems.len());
            Ok(ExitCode::FAILURE)
        }
        Err(e) => {
            println!("{e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

fn main() -> Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve { bind, config, data_dir, market } => {
            let mut cfg = load_config(config.as_deref())?;
            if let Some(b) = bind {
                cfg.bind = b.parse().with_context(|| format!("--bind `{b}` is not host:port"))?;
            }
            if let Some(d) = data_dir {
                cfg.data_dir = d;
            }
            if market.is_some() {
                cfg.market = market;
            }
            serve(cfg)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Keys { command } => keys(command).map(|()| ExitCode::SUCCESS),
        Command::Catalog { command: CatalogCommand::Check { files } } => catalog_check(&files),
    }
}
