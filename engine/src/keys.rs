//! API keys: persisted hashed in SQLite (the embedded default) or in
//! PostgreSQL (replicas on several machines, [`crate::pg`]), cached in
//! memory for the hot path.
//!
//! A key is `sy_` followed by 48 hex digits (24 random bytes). Only its
//! SHA-256 is stored. Authentication hashes the presented key, finds the
//! record by hash and confirms it with a constant-time comparison.
//!
//! The `switchyard keys …` commands write the same database from another
//! process (or, with PostgreSQL, from another machine); the
//! [`KeyStoreActor`] notices through SQLite's `data_version` or the
//! `key_version` row and reloads the cache within a second, so changes take
//! effect without a restart.

use std::{
    collections::{BTreeMap, HashMap},
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use actix::prelude::*;
use arc_swap::ArcSwap;
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::{
    EngineError,
    supervise::{Backoff, guarded},
};

/// File name of the database inside the data directory.
pub const DB_FILE: &str = "switchyard.db";

/// Rate of the documentation key created on first start, requests per second.
pub const DOC_KEY_RATE: f64 = 1.0;

/// A stored key, without its secret.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyRecord {
    /// Row id.
    pub id: i64,
    /// First characters of the key, for operators.
    pub prefix: String,
    /// Account id the key acts for (returned by `/account/accountId`).
    pub account_id: String,
    /// Requests per second.
    pub rate_per_s: f64,
    /// Whether the key is revoked.
    pub revoked: bool,
    /// Creation time, unix seconds.
    pub created_at: u64,
    /// Operator note.
    pub label: Option<String>,
}

/// A newly created key: the secret is only ever shown here.
#[derive(Debug, Clone)]
pub struct NewKey {
    /// The secret key.
    pub key: String,
    /// Its record.
    pub record: KeyRecord,
}

/// Opens (and migrates) the database in `data_dir`.
pub fn open_db(data_dir: &Path) -> Result<Connection, EngineError> {
    std::fs::create_dir_all(data_dir)
        .map_err(|source| EngineError::DataDir { path: data_dir.display().to_string(), source })?;
    let conn = Connection::open(data_dir.join(DB_FILE))?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.execute_batch(
        "PRAGMA journal_mode = WAL;
         CREATE TABLE IF NOT EXISTS api_keys (
             id INTEGER PRIMARY KEY,
             key_hash BLOB NOT NULL UNIQUE,
             prefix TEXT NOT NULL,
             account_id TEXT NOT NULL,
             rate_per_s REAL NOT NULL,
             revoked INTEGER NOT NULL DEFAULT 0,
             created_at INTEGER NOT NULL,
             label TEXT
         );
         CREATE TABLE IF NOT EXISTS volume (
             chain_id INTEGER PRIMARY KEY,
             usd REAL NOT NULL,
             tx_count INTEGER NOT NULL
         );",
    )?;
    Ok(conn)
}

/// Where keys and routed volume are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Database {
    /// SQLite, in [`DB_FILE`] under this data directory (one machine).
    Sqlite(PathBuf),
    /// PostgreSQL at this URL (`postgres://…`), shared by replicas.
    Postgres(String),
}

impl Database {
    /// `database_url` when one is configured, else SQLite in `data_dir`.
    pub fn from_config(data_dir: &Path, database_url: Option<&str>) -> Self {
        match database_url.map(str::trim).filter(|u| !u.is_empty()) {
            Some(url) => Self::Postgres(url.to_owned()),
            None => Self::Sqlite(data_dir.to_owned()),
        }
    }
}

pub(crate) fn hash_key(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

fn random_bytes<const N: usize>() -> Result<[u8; N], EngineError> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|_| EngineError::Random)?;
    Ok(b)
}

pub(crate) fn now_unix() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn row_to_record(row: &rusqlite::Row<'_>) -> rusqlite::Result<(Vec<u8>, KeyRecord)> {
    Ok((
        row.get(0)?,
        KeyRecord {
            id: row.get(1)?,
            prefix: row.get(2)?,
            account_id: row.get(3)?,
            rate_per_s: row.get(4)?,
            revoked: row.get::<_, i64>(5)? != 0,
            created_at: u64::try_from(row.get::<_, i64>(6)?).unwrap_or(0),
            label: row.get(7)?,
        },
    ))
}

/// A new secret key and its record (id 0 until stored), with its own
/// fresh account id.
pub(crate) fn new_key(
    rate_per_s: f64,
    label: Option<&str>,
) -> Result<(String, KeyRecord), EngineError> {
    let secret = random_bytes::<24>()?;
    let key = format!("sy_{}", alloy_primitives::hex::encode(secret));
    let a = random_bytes::<16>()?;
    let hex = alloy_primitives::hex::encode(a);
    // A UUID-shaped account id (version 4, variant 1 bits set).
    let account_id = format!(
        "{}-{}-4{}-{:x}{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        (a[8] & 0x3) | 0x8,
        &hex[17..20],
        &hex[20..32]
    );
    let record = KeyRecord {
        id: 0,
        prefix: key[..10].to_owned(),
        account_id,
        rate_per_s,
        revoked: false,
        created_at: now_unix(),
        label: label.map(str::to_owned),
    };
    Ok((key, record))
}

const SELECT: &str =
    "SELECT key_hash, id, prefix, account_id, rate_per_s, revoked, created_at, label FROM api_keys";

/// Synchronous store of keys and routed volume: one SQLite connection, or
/// one PostgreSQL connection ([`crate::pg::PgStore`]).
#[derive(Debug)]
pub struct KeyStore {
    backend: Backend,
}

#[derive(Debug)]
enum Backend {
    Sqlite(Connection),
    /// Boxed: its configuration is four times a SQLite connection.
    Postgres(Box<crate::pg::PgStore>),
}

impl KeyStore {
    /// Opens the SQLite store in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Self, EngineError> {
        Ok(Self { backend: Backend::Sqlite(open_db(data_dir)?) })
    }

    /// Opens the configured store (PostgreSQL: connects and migrates).
    pub fn connect(db: &Database) -> Result<Self, EngineError> {
        match db {
            Database::Sqlite(dir) => Self::open(dir),
            Database::Postgres(url) => {
                Ok(Self { backend: Backend::Postgres(Box::new(crate::pg::PgStore::connect(url)?)) })
            }
        }
    }

    /// Creates a key with its own fresh account id.
    pub fn create(&self, rate_per_s: f64, label: Option<&str>) -> Result<NewKey, EngineError> {
        let conn = match &self.backend {
            Backend::Sqlite(c) => c,
            Backend::Postgres(pg) => return pg.create(rate_per_s, label),
        };
        let (key, record) = new_key(rate_per_s, label)?;
        conn.execute(
            "INSERT INTO api_keys (key_hash, prefix, account_id, rate_per_s, revoked, created_at, label)
             VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6)",
            params![
                hash_key(&key).as_slice(),
                record.prefix,
                record.account_id,
                record.rate_per_s,
                i64::try_from(record.created_at).unwrap_or(i64::MAX),
                record.label
            ],
        )?;
        let id = conn.last_insert_rowid();
        Ok(NewKey { key, record: KeyRecord { id, ..record } })
    }

    /// Every key, oldest first.
    pub fn list(&self) -> Result<Vec<KeyRecord>, EngineError> {
        let conn = match &self.backend {
            Backend::Sqlite(c) => c,
            Backend::Postgres(pg) => return pg.list(),
        };
        let mut stmt = conn.prepare(&format!("{SELECT} ORDER BY id"))?;
        let rows = stmt.query_map([], row_to_record)?;
        Ok(rows.map(|r| r.map(|(_, k)| k)).collect::<Result<_, _>>()?)
    }

    /// Revokes a key by id or prefix; returns whether one was found.
    pub fn revoke(&self, id_or_prefix: &str) -> Result<bool, EngineError> {
        let conn = match &self.backend {
            Backend::Sqlite(c) => c,
            Backend::Postgres(pg) => return pg.revoke(id_or_prefix),
        };
        let n = match id_or_prefix.parse::<i64>() {
            Ok(id) => conn.execute("UPDATE api_keys SET revoked = 1 WHERE id = ?1", [id])?,
            Err(_) => conn.execute(
                "UPDATE api_keys SET revoked = 1 WHERE prefix = ?1 OR key_hash = ?2",
                params![id_or_prefix, hash_key(id_or_prefix).as_slice()],
            )?,
        };
        Ok(n > 0)
    }

    /// Whether no key was ever created.
    pub fn is_empty(&self) -> Result<bool, EngineError> {
        let conn = match &self.backend {
            Backend::Sqlite(c) => c,
            Backend::Postgres(pg) => return pg.is_empty(),
        };
        let n: i64 = conn.query_row("SELECT COUNT(*) FROM api_keys", [], |r| r.get(0))?;
        Ok(n == 0)
    }

    /// A number that moves when another process (SQLite: another
    /// connection; PostgreSQL: anyone) changed the keys.
    fn data_version(&self) -> Result<i64, EngineError> {
        match &self.backend {
            Backend::Sqlite(c) => Ok(c.query_row("PRAGMA data_version", [], |r| r.get(0))?),
            Backend::Postgres(pg) => pg.version(),
        }
    }

    pub(crate) fn load_cache(&self) -> Result<KeyCache, EngineError> {
        let conn = match &self.backend {
            Backend::Sqlite(c) => c,
            Backend::Postgres(pg) => return pg.load_cache(),
        };
        let mut stmt = conn.prepare(SELECT)?;
        let mut by_hash = HashMap::new();
        for r in stmt.query_map([], row_to_record)? {
            let (hash, rec) = r?;
            if let Ok(h) = <[u8; 32]>::try_from(hash.as_slice()) {
                by_hash.insert(h, Arc::new(rec));
            }
        }
        Ok(KeyCache { by_hash })
    }

    /// Looks a key up directly in the database (used by tests and tools).
    pub fn find(&self, key: &str) -> Result<Option<KeyRecord>, EngineError> {
        let conn = match &self.backend {
            Backend::Sqlite(c) => c,
            Backend::Postgres(pg) => return pg.find(key),
        };
        Ok(conn
            .query_row(
                &format!("{SELECT} WHERE key_hash = ?1"),
                [hash_key(key).as_slice()],
                row_to_record,
            )
            .optional()?
            .map(|(_, k)| k))
    }

    /// Adds routed volume (per chain id: USD, transactions) in one
    /// transaction.
    pub(crate) fn add_volume(
        &self,
        pending: &BTreeMap<i64, (f64, i64)>,
    ) -> Result<(), EngineError> {
        let conn = match &self.backend {
            Backend::Sqlite(c) => c,
            Backend::Postgres(pg) => return pg.add_volume(pending),
        };
        let tx = conn.unchecked_transaction()?;
        for (chain, (usd, n)) in pending {
            tx.execute(
                "INSERT INTO volume (chain_id, usd, tx_count) VALUES (?1, ?2, ?3)
                 ON CONFLICT(chain_id) DO UPDATE SET usd = usd + ?2, tx_count = tx_count + ?3",
                params![chain, usd, n],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The routed volume of a chain id: (USD, transactions).
    pub(crate) fn volume(&self, chain: i64) -> Result<(f64, i64), EngineError> {
        let conn = match &self.backend {
            Backend::Sqlite(c) => c,
            Backend::Postgres(pg) => return pg.volume(chain),
        };
        let row = conn
            .query_row("SELECT usd, tx_count FROM volume WHERE chain_id = ?1", [chain], |r| {
                Ok((r.get::<_, f64>(0)?, r.get::<_, i64>(1)?))
            })
            .optional()?;
        Ok(row.unwrap_or((0.0, 0)))
    }
}

/// In-memory view of every key, by hash.
#[derive(Debug, Default)]
pub struct KeyCache {
    by_hash: HashMap<[u8; 32], Arc<KeyRecord>>,
}

impl KeyCache {
    pub(crate) const fn from_map(by_hash: HashMap<[u8; 32], Arc<KeyRecord>>) -> Self {
        Self { by_hash }
    }

    /// Authenticates a presented key.
    pub fn authenticate(&self, key: &str) -> Result<Arc<KeyRecord>, EngineError> {
        let h = hash_key(key);
        let (stored, rec) = self.by_hash.get_key_value(&h).ok_or(EngineError::Unauthenticated)?;
        if !bool::from(stored.ct_eq(&h)) {
            return Err(EngineError::Unauthenticated);
        }
        if rec.revoked {
            return Err(EngineError::Revoked);
        }
        Ok(Arc::clone(rec))
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }
}

/// Owns the key database for the running server and keeps the shared
/// [`KeyCache`] current.
pub(crate) struct KeyStoreActor {
    db: Database,
    store: Option<KeyStore>,
    cache: Arc<ArcSwap<KeyCache>>,
    seen_version: i64,
    /// The last refresh failed (logged once until it works again).
    failing: bool,
    backoff: Backoff,
    pause: Duration,
}

/// How often the key cache checks the store for changes.
const REFRESH_EVERY: Duration = Duration::from_millis(250);

impl KeyStoreActor {
    pub(crate) fn new(db: Database, cache: Arc<ArcSwap<KeyCache>>) -> Self {
        Self {
            db,
            store: None,
            cache,
            seen_version: -1,
            failing: false,
            backoff: Backoff::default(),
            pause: Duration::ZERO,
        }
    }

    fn store(&mut self) -> Result<&KeyStore, EngineError> {
        if self.store.is_none() {
            self.store = Some(KeyStore::connect(&self.db)?);
        }
        self.store.as_ref().ok_or(EngineError::Unavailable("key store"))
    }

    fn refresh(&mut self, force: bool) -> Result<(), EngineError> {
        let seen = self.seen_version;
        let store = self.store()?;
        let v = store.data_version()?;
        // data_version changes only on commits by *other* connections, so a
        // write through this actor forces the reload.
        if force || v != seen {
            let cache = store.load_cache()?;
            self.seen_version = v;
            self.cache.store(Arc::new(cache));
        }
        Ok(())
    }
}

impl Actor for KeyStoreActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        Backoff::hold(self.pause, self, ctx);
        if let Err(e) = self.refresh(true) {
            tracing::error!(error = %crate::error_chain(&e), "key store failed to load");
        }
        ctx.run_interval(REFRESH_EVERY, |act, _| match act.refresh(false) {
            Ok(()) if act.failing => {
                act.failing = false;
                tracing::info!("key store reachable again");
            }
            Ok(()) => {}
            Err(e) => {
                // Drop the connection; the next tick reopens it. Keys keep
                // authenticating from the cache meanwhile.
                act.store = None;
                if !act.failing {
                    act.failing = true;
                    tracing::warn!(error = %crate::error_chain(&e), "key store refresh failed; keys answer from the cache until it is back");
                }
            }
        });
    }
}

impl Supervised for KeyStoreActor {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.store = None;
        self.seen_version = -1;
        self.pause = self.backoff.restarted();
    }
}

#[cfg(feature = "fault-injection")]
impl Handler<crate::supervise::Crash> for KeyStoreActor {
    type Result = Result<(), EngineError>;

    fn handle(&mut self, _: crate::supervise::Crash, ctx: &mut Self::Context) -> Self::Result {
        guarded(ctx, "key store", || panic!("injected fault"))
    }
}

/// Creates a key.
#[derive(Message)]
#[rtype(result = "Result<NewKey, EngineError>")]
pub(crate) struct CreateKey {
    pub(crate) rate_per_s: f64,
    pub(crate) label: Option<String>,
}

impl Handler<CreateKey> for KeyStoreActor {
    type Result = Result<NewKey, EngineError>;

    fn handle(&mut self, msg: CreateKey, ctx: &mut Self::Context) -> Self::Result {
        guarded(ctx, "key store", || {
            let k = self.store()?.create(msg.rate_per_s, msg.label.as_deref())?;
            self.refresh(true)?;
            Ok(k)
        })
    }
}

/// Creates the documentation key if the store is empty.
#[derive(Message)]
#[rtype(result = "Result<Option<NewKey>, EngineError>")]
pub(crate) struct EnsureDocKey;

impl Handler<EnsureDocKey> for KeyStoreActor {
    type Result = Result<Option<NewKey>, EngineError>;

    fn handle(&mut self, _: EnsureDocKey, ctx: &mut Self::Context) -> Self::Result {
        guarded(ctx, "key store", || {
            let store = self.store()?;
            if !store.is_empty()? {
                return Ok(None);
            }
            let k =
                store.create(DOC_KEY_RATE, Some("documentation key (created on first start)"))?;
            self.refresh(true)?;
            Ok(Some(k))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("switchyard-keys-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn keys_are_stored_hashed_and_authenticate() -> Result<(), EngineError> {
        let dir = temp_dir("hashed");
        let store = KeyStore::open(&dir)?;
        assert!(store.is_empty()?);
        let k = store.create(5.0, Some("bot"))?;
        assert!(k.key.starts_with("sy_") && k.key.len() == 51);
        // The secret is nowhere in the database file.
        drop(store);
        let bytes = std::fs::read(dir.join(DB_FILE)).unwrap_or_default();
        let wal = std::fs::read(dir.join(format!("{DB_FILE}-wal"))).unwrap_or_default();
        let needle = k.key.as_bytes();
        for b in [&bytes, &wal] {
            assert!(!b.windows(needle.len()).any(|w| w == needle));
        }
        let store = KeyStore::open(&dir)?;
        let cache = store.load_cache()?;
        let rec = cache.authenticate(&k.key)?;
        assert_eq!(rec.account_id, k.record.account_id);
        assert_eq!(rec.rate_per_s, 5.0);
        assert!(matches!(cache.authenticate("sy_nope"), Err(EngineError::Unauthenticated)));
        assert!(store.revoke(&k.record.prefix)?);
        assert!(matches!(store.load_cache()?.authenticate(&k.key), Err(EngineError::Revoked)));
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }

    #[test]
    fn account_ids_are_uuid_shaped_and_distinct() -> Result<(), EngineError> {
        let dir = temp_dir("uuid");
        let store = KeyStore::open(&dir)?;
        let a = store.create(1.0, None)?.record.account_id;
        let b = store.create(1.0, None)?.record.account_id;
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(a.as_bytes()[14], b'4');
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }
}
