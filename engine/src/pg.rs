//! API keys and routed volume in PostgreSQL, for replicas on several
//! machines (`database_url = "postgres://…"`); SQLite stays the embedded
//! default.
//!
//! The driver is `tokio-postgres`. Its connections run on one small runtime
//! of their own (the `switchyard-db` thread), so the store's methods are
//! synchronous, like the SQLite store's: a caller blocks on a channel
//! (never on a runtime) for at most [`OP_TIMEOUT`], from any thread, async
//! or not. The engine's key and volume actors call them from an arbiter of
//! their own, so a slow database never holds up the market feeds.
//!
//! **Migrations.** Numbered, applied once each in one transaction under an
//! advisory lock (two replicas starting together do not race), and recorded
//! in `schema_migrations`.
//!
//! **Changes reach every replica.** Every write to `api_keys` bumps
//! `key_version` in the same transaction; each replica polls that one row
//! (every 250 ms) and reloads its key cache when it moved.
//!
//! **Outages.** A connection that fails is dropped and made again on the
//! next call; until then calls fail at once with
//! [`EngineError::Postgres`] (the API answers 503). Authentication keeps
//! answering from the cache the replica holds.
//!
//! The connection is not encrypted (`NoTls`): keep the database on a
//! private network, or reach it through a TLS tunnel.

use std::{
    collections::BTreeMap,
    future::Future,
    sync::{Arc, Mutex, OnceLock},
    time::Duration,
};

use tokio_postgres::{Client, NoTls};

use crate::{
    EngineError,
    keys::{KeyCache, KeyRecord, NewKey, hash_key, new_key},
};

/// The longest one operation (connecting included) may take.
pub const OP_TIMEOUT: Duration = Duration::from_secs(3);

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Advisory lock key of the migration transaction ("swyd" in ASCII).
const MIGRATION_LOCK: i64 = 0x7377_7964;

/// The schema, one step per entry; never edit a published step, add one.
const MIGRATIONS: &[(i32, &str)] = &[(
    1,
    "CREATE TABLE api_keys (
         id BIGSERIAL PRIMARY KEY,
         key_hash BYTEA NOT NULL UNIQUE,
         prefix TEXT NOT NULL,
         account_id TEXT NOT NULL,
         rate_per_s DOUBLE PRECISION NOT NULL,
         revoked BOOLEAN NOT NULL DEFAULT FALSE,
         created_at BIGINT NOT NULL,
         label TEXT
     );
     CREATE INDEX api_keys_prefix ON api_keys (prefix);
     CREATE TABLE key_version (
         id INTEGER PRIMARY KEY CHECK (id = 1),
         version BIGINT NOT NULL
     );
     INSERT INTO key_version (id, version) VALUES (1, 0);
     CREATE TABLE volume (
         chain_id BIGINT PRIMARY KEY,
         usd DOUBLE PRECISION NOT NULL,
         tx_count BIGINT NOT NULL
     );",
)];

/// The runtime every PostgreSQL connection runs on.
fn runtime() -> Result<&'static tokio::runtime::Runtime, EngineError> {
    static RT: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("switchyard-db")
            .enable_all()
            .build()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|e| EngineError::Config(format!("database runtime: {e}")))
}

/// Runs `fut` on the database runtime and waits for it, at most
/// [`OP_TIMEOUT`].
fn block<T: Send + 'static>(
    fut: impl Future<Output = Result<T, EngineError>> + Send + 'static,
) -> Result<T, EngineError> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    runtime()?.spawn(async move {
        let out = match tokio::time::timeout(OP_TIMEOUT, fut).await {
            Ok(r) => r,
            Err(_) => Err(EngineError::PostgresTimeout(OP_TIMEOUT)),
        };
        let _ = tx.send(out);
    });
    rx.recv().map_err(|_| EngineError::PostgresTimeout(OP_TIMEOUT))?
}

/// One store: a connection made on first use and again after a failure.
#[derive(Debug)]
pub struct PgStore {
    config: tokio_postgres::Config,
    client: Mutex<Option<Client>>,
}

impl PgStore {
    /// Connects to `url` and applies the migrations not applied yet.
    pub fn connect(url: &str) -> Result<Self, EngineError> {
        let mut config: tokio_postgres::Config =
            url.parse().map_err(|e: tokio_postgres::Error| {
                EngineError::Config(format!("database_url: {e}"))
            })?;
        config.connect_timeout(CONNECT_TIMEOUT);
        if config.get_application_name().is_none() {
            config.application_name("switchyard");
        }
        if config.get_options().is_none() {
            // The migration's `IF NOT EXISTS` notices are not news.
            config.options("-c client_min_messages=warning");
        }
        let store = Self { config, client: Mutex::new(None) };
        store.run(|mut c| async move {
            let r = migrate(&mut c).await;
            (c, r)
        })?;
        Ok(store)
    }

    /// Runs `op` on the connection (made first when there is none). The
    /// connection comes back with the answer; one that failed is dropped.
    fn run<T, F, Fut>(&self, op: F) -> Result<T, EngineError>
    where
        T: Send + 'static,
        F: FnOnce(Client) -> Fut + Send + 'static,
        Fut: Future<Output = (Client, Result<T, EngineError>)> + Send + 'static,
    {
        let held = self.client.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        let config = self.config.clone();
        let (client, out) = block(async move {
            let client = match held {
                Some(c) if !c.is_closed() => c,
                _ => {
                    let (client, conn) = config.connect(NoTls).await?;
                    tokio::spawn(async move {
                        if let Err(e) = conn.await {
                            tracing::warn!(error = %crate::error_chain(&e), "PostgreSQL connection ended");
                        }
                    });
                    client
                }
            };
            let (client, out) = op(client).await;
            Ok((client, out))
        })?;
        if !client.is_closed() {
            *self.client.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(client);
        }
        out
    }

    /// Creates a key with its own fresh account id.
    pub fn create(&self, rate_per_s: f64, label: Option<&str>) -> Result<NewKey, EngineError> {
        let (key, record) = new_key(rate_per_s, label)?;
        let hash = hash_key(&key).to_vec();
        let r = record.clone();
        let id = self.run(move |mut c| async move {
            let out = async {
                let tx = c.transaction().await?;
                let row = tx
                    .query_one(
                        "INSERT INTO api_keys
                             (key_hash, prefix, account_id, rate_per_s, revoked, created_at, label)
                         VALUES ($1, $2, $3, $4, FALSE, $5, $6) RETURNING id",
                        &[
                            &hash,
                            &r.prefix,
                            &r.account_id,
                            &r.rate_per_s,
                            &i64::try_from(r.created_at).unwrap_or(i64::MAX),
                            &r.label,
                        ],
                    )
                    .await?;
                tx.execute("UPDATE key_version SET version = version + 1 WHERE id = 1", &[])
                    .await?;
                tx.commit().await?;
                Ok::<i64, tokio_postgres::Error>(row.get(0))
            }
            .await;
            (c, out.map_err(EngineError::from))
        })?;
        Ok(NewKey { key, record: KeyRecord { id, ..record } })
    }

    /// Every key, oldest first.
    pub fn list(&self) -> Result<Vec<KeyRecord>, EngineError> {
        let rows = self.select(None)?;
        Ok(rows.into_iter().map(|(_, k)| k).collect())
    }

    /// Revokes a key by id or prefix (or the key itself); returns whether
    /// one was found.
    pub fn revoke(&self, id_or_prefix: &str) -> Result<bool, EngineError> {
        let id = id_or_prefix.parse::<i64>().ok();
        let text = id_or_prefix.to_owned();
        let hash = hash_key(id_or_prefix).to_vec();
        self.run(move |mut c| async move {
            let out = async {
                let tx = c.transaction().await?;
                let n = match id {
                    Some(id) => {
                        tx.execute("UPDATE api_keys SET revoked = TRUE WHERE id = $1", &[&id])
                            .await?
                    }
                    None => {
                        tx.execute(
                            "UPDATE api_keys SET revoked = TRUE WHERE prefix = $1 OR key_hash = $2",
                            &[&text, &hash],
                        )
                        .await?
                    }
                };
                if n > 0 {
                    tx.execute("UPDATE key_version SET version = version + 1 WHERE id = 1", &[])
                        .await?;
                }
                tx.commit().await?;
                Ok::<bool, tokio_postgres::Error>(n > 0)
            }
            .await;
            (c, out.map_err(EngineError::from))
        })
    }

    /// Whether no key was ever created.
    pub fn is_empty(&self) -> Result<bool, EngineError> {
        self.run(|c| async move {
            let out = c.query_one("SELECT COUNT(*) FROM api_keys", &[]).await;
            (c, out.map(|r| r.get::<_, i64>(0) == 0).map_err(EngineError::from))
        })
    }

    /// The version of the key table: it moves with every change.
    pub(crate) fn version(&self) -> Result<i64, EngineError> {
        self.run(|c| async move {
            let out = c.query_one("SELECT version FROM key_version WHERE id = 1", &[]).await;
            (c, out.map(|r| r.get(0)).map_err(EngineError::from))
        })
    }

    /// Every key, by hash.
    pub(crate) fn load_cache(&self) -> Result<KeyCache, EngineError> {
        let rows = self.select(None)?;
        let by_hash = rows
            .into_iter()
            .filter_map(|(h, k)| Some((<[u8; 32]>::try_from(h.as_slice()).ok()?, Arc::new(k))))
            .collect();
        Ok(KeyCache::from_map(by_hash))
    }

    /// Looks a key up directly in the database (tests and tools).
    pub fn find(&self, key: &str) -> Result<Option<KeyRecord>, EngineError> {
        Ok(self.select(Some(hash_key(key).to_vec()))?.into_iter().next().map(|(_, k)| k))
    }

    /// Every key (`by_hash`: the one with that hash), oldest first, with
    /// its hash.
    fn select(&self, by_hash: Option<Vec<u8>>) -> Result<Vec<(Vec<u8>, KeyRecord)>, EngineError> {
        self.run(move |c| async move {
            const COLUMNS: &str =
                "SELECT key_hash, id, prefix, account_id, rate_per_s, revoked, created_at, label
                 FROM api_keys";
            let rows = match &by_hash {
                Some(h) => c.query(&format!("{COLUMNS} WHERE key_hash = $1"), &[h]).await,
                None => c.query(&format!("{COLUMNS} ORDER BY id"), &[]).await,
            };
            let out = rows.map(|rows| {
                rows.iter()
                    .map(|row| {
                        let created: i64 = row.get(6);
                        (
                            row.get::<_, Vec<u8>>(0),
                            KeyRecord {
                                id: row.get(1),
                                prefix: row.get(2),
                                account_id: row.get(3),
                                rate_per_s: row.get(4),
                                revoked: row.get(5),
                                created_at: u64::try_from(created).unwrap_or(0),
                                label: row.get(7),
                            },
                        )
                    })
                    .collect()
            });
            (c, out.map_err(EngineError::from))
        })
    }

    /// Adds routed volume (per chain: USD, transactions) in one
    /// transaction.
    pub(crate) fn add_volume(
        &self,
        pending: &BTreeMap<i64, (f64, i64)>,
    ) -> Result<(), EngineError> {
        let pending = pending.clone();
        self.run(move |mut c| async move {
            let out = async {
                let tx = c.transaction().await?;
                for (chain, (usd, n)) in &pending {
                    tx.execute(
                        "INSERT INTO volume (chain_id, usd, tx_count) VALUES ($1, $2, $3)
                         ON CONFLICT (chain_id) DO UPDATE
                         SET usd = volume.usd + EXCLUDED.usd,
                             tx_count = volume.tx_count + EXCLUDED.tx_count",
                        &[chain, usd, n],
                    )
                    .await?;
                }
                tx.commit().await
            }
            .await;
            (c, out.map_err(EngineError::from))
        })
    }

    /// The routed volume of a chain: (USD, transactions).
    pub(crate) fn volume(&self, chain: i64) -> Result<(f64, i64), EngineError> {
        self.run(move |c| async move {
            let out = c
                .query_opt("SELECT usd, tx_count FROM volume WHERE chain_id = $1", &[&chain])
                .await
                .map(|r| r.map_or((0.0, 0), |r| (r.get(0), r.get(1))));
            (c, out.map_err(EngineError::from))
        })
    }
}

/// Applies every migration not applied yet, in one transaction under the
/// advisory lock.
async fn migrate(c: &mut Client) -> Result<(), EngineError> {
    let tx = c.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version INTEGER PRIMARY KEY,
             applied_at BIGINT NOT NULL
         )",
    )
    .await?;
    let done: Option<i32> =
        tx.query_one("SELECT MAX(version) FROM schema_migrations", &[]).await?.get(0);
    let now = i64::try_from(crate::keys::now_unix()).unwrap_or(i64::MAX);
    for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| Some(*v) > done) {
        tx.batch_execute(sql).await?;
        tx.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
            &[version, &now],
        )
        .await?;
        tracing::info!(version, "PostgreSQL schema migrated");
    }
    tx.commit().await?;
    Ok(())
}
