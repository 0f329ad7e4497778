//! The `BundleCompiler` actor: compiling a bundle is a message to it. It
//! keeps the compiled templates of the current catalog ([`Templates`]) and
//! hands each bundle to the rayon pool (under `catch_unwind`, with a
//! timeout), answering when it is done: the actor itself never runs a
//! compilation, so bundles compile concurrently and a slow one blocks
//! neither the actor nor the HTTP runtime.

use std::sync::Arc;

use actix::prelude::*;

use crate::{
    EngineError, MarketState,
    supervise::{Backoff, guarded},
};
use switchyard_exec::bundle::{BundleRequest, BundleTx, Templates, compile_and_prove};

/// The bundle compiler's actor.
pub(crate) struct BundleCompiler {
    templates: Option<Arc<Templates>>,
    backoff: Backoff,
    pause: std::time::Duration,
}

impl BundleCompiler {
    pub(crate) fn new() -> Self {
        Self { templates: None, backoff: Backoff::default(), pause: std::time::Duration::ZERO }
    }

    /// The templates of `state`'s catalog, compiled again when the catalog
    /// changed.
    fn templates(&mut self, state: &MarketState) -> Arc<Templates> {
        match &self.templates {
            Some(t) if t.is_for(&state.catalog) => Arc::clone(t),
            _ => {
                let t = Arc::new(Templates::new(Arc::clone(&state.catalog)));
                self.templates = Some(Arc::clone(&t));
                t
            }
        }
    }
}

impl Actor for BundleCompiler {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        Backoff::hold(self.pause, self, ctx);
    }
}

impl Supervised for BundleCompiler {
    fn restarting(&mut self, _: &mut Self::Context) {
        // What a crash may have left half-built is dropped.
        self.templates = None;
        self.pause = self.backoff.restarted();
    }
}

/// Compile, build and prove one bundle on `state`.
#[derive(Message)]
#[rtype(result = "Result<BundleTx, EngineError>")]
pub(crate) struct CompileBundle {
    pub(crate) state: Arc<MarketState>,
    pub(crate) req: BundleRequest,
}

impl Handler<CompileBundle> for BundleCompiler {
    type Result = ResponseFuture<Result<BundleTx, EngineError>>;

    fn handle(&mut self, msg: CompileBundle, ctx: &mut Self::Context) -> Self::Result {
        let templates = guarded(ctx, "bundle compiler", || Ok(self.templates(&msg.state)));
        Box::pin(async move {
            let templates = templates?;
            let CompileBundle { state, req } = msg;
            crate::jobs::on_pool("bundle compiler", move || {
                Ok(compile_and_prove(&state, &templates, &req)?)
            })
            .await
        })
    }
}

#[cfg(feature = "fault-injection")]
impl Handler<crate::supervise::Crash> for BundleCompiler {
    type Result = Result<(), EngineError>;

    fn handle(&mut self, _: crate::supervise::Crash, ctx: &mut Self::Context) -> Self::Result {
        guarded(ctx, "bundle compiler", || panic!("injected fault"))
    }
}
