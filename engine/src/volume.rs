//! Routed volume per chain, persisted in the engine database.

use std::path::PathBuf;

use actix::prelude::*;
use rusqlite::{Connection, OptionalExtension, params};
use switchyard_catalog::ChainId;

use crate::{EngineError, keys::open_db};

/// What this instance has routed on one chain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VolumeStats {
    /// Chain.
    pub chain: ChainId,
    /// Total USD value of routed inputs.
    pub total_usd: f64,
    /// Number of transactions built.
    pub transactions: u64,
}

/// Records and serves [`VolumeStats`].
pub(crate) struct VolumeRecorder {
    data_dir: PathBuf,
    conn: Option<Connection>,
}

impl VolumeRecorder {
    pub(crate) const fn new(data_dir: PathBuf) -> Self {
        Self { data_dir, conn: None }
    }

    fn conn(&mut self) -> Result<&Connection, EngineError> {
        if self.conn.is_none() {
            self.conn = Some(open_db(&self.data_dir)?);
        }
        self.conn.as_ref().ok_or(EngineError::Unavailable("volume recorder"))
    }
}

impl Actor for VolumeRecorder {
    type Context = Context<Self>;
}

impl Supervised for VolumeRecorder {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.conn = None;
    }
}

/// Adds one routed transaction.
#[derive(Message)]
#[rtype(result = "Result<(), EngineError>")]
pub(crate) struct RecordVolume {
    pub(crate) chain: ChainId,
    pub(crate) usd: f64,
}

impl Handler<RecordVolume> for VolumeRecorder {
    type Result = Result<(), EngineError>;

    fn handle(&mut self, msg: RecordVolume, _: &mut Self::Context) -> Self::Result {
        let chain = i64::try_from(msg.chain.0).unwrap_or(i64::MAX);
        let usd = if msg.usd.is_finite() && msg.usd > 0.0 { msg.usd } else { 0.0 };
        self.conn()?.execute(
            "INSERT INTO volume (chain_id, usd, tx_count) VALUES (?1, ?2, 1)
             ON CONFLICT(chain_id) DO UPDATE SET usd = usd + ?2, tx_count = tx_count + 1",
            params![chain, usd],
        )?;
        Ok(())
    }
}

/// Reads the stats of a chain.
#[derive(Message)]
#[rtype(result = "Result<VolumeStats, EngineError>")]
pub(crate) struct GetVolume(pub(crate) ChainId);

impl Handler<GetVolume> for VolumeRecorder {
    type Result = Result<VolumeStats, EngineError>;

    fn handle(&mut self, msg: GetVolume, _: &mut Self::Context) -> Self::Result {
        let chain = i64::try_from(msg.0.0).unwrap_or(i64::MAX);
        let row = self
            .conn()?
            .query_row("SELECT usd, tx_count FROM volume WHERE chain_id = ?1", [chain], |r| {
                Ok((r.get::<_, f64>(0)?, r.get::<_, i64>(1)?))
            })
            .optional()?;
        let (total_usd, n) = row.unwrap_or((0.0, 0));
        Ok(VolumeStats { chain: msg.0, total_usd, transactions: u64::try_from(n).unwrap_or(0) })
    }
}
