//! The validated, indexed, immutable catalog.
//!
//! A [`Catalog`] is built once at startup from catalog documents and shared
//! behind an `Arc`. Lookups are by hash map; list views are pre-sorted so that
//! pagination is stable.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::{
    error::{CatalogError, Problem},
    model::*,
    types::{Address, ChainId, NATIVE_TOKEN, RoutingStrategy},
};

/// A project: the union of its protocols.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// Project id (`aave`).
    pub id: String,
    /// Chains any of its protocols is on, ascending.
    pub chains: Vec<ChainId>,
    /// Its protocol slugs, ascending.
    pub protocols: Vec<String>,
}

/// The validated catalog.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    networks: Vec<Network>,
    tokens: Vec<Token>,
    token_index: HashMap<(ChainId, Address), usize>,
    protocols: Vec<Protocol>,
    protocol_index: HashMap<String, usize>,
    projects: Vec<Project>,
    standards: Vec<Standard>,
    actions: Vec<ActionSpec>,
    action_index: HashMap<String, usize>,
    aggregators: Vec<Aggregator>,
    bridges: Vec<Bridge>,
    layerzero_pools: Vec<LayerZeroPool>,
    positions: Vec<Position>,
    dex_factories: Vec<DexFactory>,
    contracts: HashMap<(ChainId, RoutingStrategy), ContractSet>,
    deployments: Vec<Deployment>,
}

impl Catalog {
    /// Merges documents and validates the result. Every problem is reported,
    /// not only the first.
    pub fn from_documents(
        docs: impl IntoIterator<Item = CatalogDocument>,
    ) -> Result<Self, CatalogError> {
        let mut all = CatalogDocument::default();
        for d in docs {
            all.append(d);
        }
        Self::from_document(all)
    }

    /// Validates one (merged) document.
    pub fn from_document(all: CatalogDocument) -> Result<Self, CatalogError> {
        let mut problems = Vec::new();
        let cat = Self::index(all, &mut problems);
        cat.validate(&mut problems);
        if problems.is_empty() { Ok(cat) } else { Err(CatalogError::Invalid { problems }) }
    }

    fn index(mut d: CatalogDocument, problems: &mut Vec<Problem>) -> Self {
        d.networks.sort_by_key(|n| n.id);
        for w in d.networks.windows(2) {
            if w[0].id == w[1].id {
                problems.push(Problem::new("networks", format!("chain {} listed twice", w[0].id)));
            }
        }
        d.tokens.sort_by_key(|t| (t.chain_id, t.address));
        let mut token_index = HashMap::with_capacity(d.tokens.len());
        for (i, t) in d.tokens.iter().enumerate() {
            if token_index.insert((t.chain_id, t.address), i).is_some() {
                problems.push(Problem::new(
                    "tokens",
                    format!("token {} on chain {} listed twice", t.address, t.chain_id),
                ));
            }
        }
        d.protocols.sort_by(|a, b| a.slug.cmp(&b.slug));
        let mut protocol_index = HashMap::new();
        for (i, p) in d.protocols.iter().enumerate() {
            if protocol_index.insert(p.slug.clone(), i).is_some() {
                problems.push(Problem::new("protocols", format!("slug `{}` listed twice", p.slug)));
            }
        }
        let mut by_project: BTreeMap<&str, (BTreeSet<ChainId>, BTreeSet<&str>)> = BTreeMap::new();
        for p in &d.protocols {
            let e = by_project.entry(&p.project).or_default();
            e.0.extend(p.chains.iter().copied());
            e.1.insert(&p.slug);
        }
        let projects = by_project
            .into_iter()
            .map(|(id, (chains, protocols))| Project {
                id: id.to_owned(),
                chains: chains.into_iter().collect(),
                protocols: protocols.into_iter().map(str::to_owned).collect(),
            })
            .collect();
        d.actions.sort_by(|a, b| a.action.cmp(&b.action));
        let mut action_index = HashMap::new();
        for (i, a) in d.actions.iter().enumerate() {
            if action_index.insert(a.action.clone(), i).is_some() {
                problems.push(Problem::new("actions", format!("`{}` listed twice", a.action)));
            }
        }
        d.layerzero_pools.sort_by_key(|p| (p.chain_id, p.token));
        d.positions.sort_by(|a, b| (a.chain_id, &a.position_id).cmp(&(b.chain_id, &b.position_id)));
        d.deployments.sort_by_key(|x| (x.chain_id, x.role, x.factory, x.address));
        for w in d.deployments.windows(2) {
            let several = w[0].role.several();
            if (w[0].chain_id, w[0].role, w[0].factory) == (w[1].chain_id, w[1].role, w[1].factory)
                && !(several && w[0].address != w[1].address)
            {
                problems.push(Problem::new(
                    "deployments",
                    format!("chain {} role {} listed twice", w[0].chain_id, w[0].role),
                ));
            }
        }
        let mut contracts = HashMap::new();
        for c in d.contracts {
            let key = (c.chain_id, c.strategy);
            if contracts.insert(key, c).is_some() {
                problems.push(Problem::new(
                    "contracts",
                    format!("chain {} strategy {} listed twice", key.0, key.1),
                ));
            }
        }
        Self {
            networks: d.networks,
            tokens: d.tokens,
            token_index,
            protocols: d.protocols,
            protocol_index,
            projects,
            standards: d.standards,
            actions: d.actions,
            action_index,
            aggregators: d.aggregators,
            bridges: d.bridges,
            layerzero_pools: d.layerzero_pools,
            positions: d.positions,
            dex_factories: d.dex_factories,
            contracts,
            deployments: d.deployments,
        }
    }

    fn validate(&self, problems: &mut Vec<Problem>) {
        let chain_ok = |c: ChainId| self.network(c).is_some();
        let check_chain = |loc: String, c: ChainId, problems: &mut Vec<Problem>| {
            if !chain_ok(c) {
                problems.push(Problem::new(loc, format!("unknown chain {c}")));
            }
        };
        for n in &self.networks {
            if self.token(n.id, n.wrapped_native).is_none() {
                problems.push(Problem::new(
                    format!("networks[{}]", n.id),
                    format!("wrapped native {} is not a token of the chain", n.wrapped_native),
                ));
            }
            if self.token(n.id, NATIVE_TOKEN).is_none() {
                problems.push(Problem::new(
                    format!("networks[{}]", n.id),
                    "the native coin 0xeeee…eeee is not listed as a token",
                ));
            }
        }
        for t in &self.tokens {
            let loc = format!("tokens[{}:{}]", t.chain_id, t.address);
            check_chain(loc.clone(), t.chain_id, problems);
            for u in &t.underlying_tokens {
                if self.token(t.chain_id, *u).is_none() {
                    problems.push(Problem::new(&loc, format!("underlying token {u} not listed")));
                }
            }
            if t.kind == TokenKind::Defi {
                match &t.protocol_slug {
                    None => problems.push(Problem::new(&loc, "defi token without protocolSlug")),
                    Some(s) if self.protocol(s).is_none() => {
                        problems.push(Problem::new(&loc, format!("unknown protocol `{s}`")))
                    }
                    Some(_) => {}
                }
                if t.underlying_tokens.is_empty() {
                    problems.push(Problem::new(&loc, "defi token without underlyingTokens"));
                }
                if t.primary_address.is_none() {
                    problems.push(Problem::new(&loc, "defi token without primaryAddress"));
                }
            }
        }
        for p in &self.protocols {
            for c in &p.chains {
                check_chain(format!("protocols[{}]", p.slug), *c, problems);
            }
        }
        for s in &self.standards {
            let loc = format!("standards[{}]", s.protocol);
            for slug in std::iter::once(&s.protocol).chain(&s.forks) {
                if self.protocol(slug).is_none() {
                    problems.push(Problem::new(&loc, format!("unknown protocol `{slug}`")));
                }
            }
            for a in &s.actions {
                if self.action(&a.action).is_none() {
                    problems.push(Problem::new(&loc, format!("unknown action `{}`", a.action)));
                }
                for c in &a.chains {
                    check_chain(loc.clone(), *c, problems);
                }
            }
        }
        for a in &self.aggregators {
            let loc = format!("aggregators[{}]", a.name);
            for c in &a.chains {
                check_chain(loc.clone(), *c, problems);
            }
            for slug in &a.protocols {
                if self.protocol(slug).is_none() {
                    problems.push(Problem::new(&loc, format!("unknown protocol `{slug}`")));
                }
            }
        }
        for b in &self.bridges {
            let loc = format!("bridges[{}]", b.name);
            for (chain, tokens) in &b.tokens {
                match chain.parse::<u64>().map(ChainId) {
                    Ok(c) if chain_ok(c) => {
                        for t in tokens {
                            if self.token(c, *t).is_none() {
                                problems.push(Problem::new(
                                    &loc,
                                    format!("token {t} on chain {c} not listed"),
                                ));
                            }
                        }
                    }
                    _ => problems.push(Problem::new(&loc, format!("unknown chain `{chain}`"))),
                }
            }
            for chain in b.contracts.keys() {
                if !chain.parse::<u64>().map(ChainId).is_ok_and(chain_ok) {
                    problems.push(Problem::new(&loc, format!("unknown chain `{chain}`")));
                }
            }
            for (chain, c) in &b.confirmations {
                if !b.contracts.contains_key(chain) {
                    problems.push(Problem::new(
                        &loc,
                        format!(
                            "confirmations on chain `{chain}`, where the bridge has no contract"
                        ),
                    ));
                }
                if c.counted_on.is_some_and(|on| !chain_ok(on)) {
                    problems.push(Problem::new(
                        &loc,
                        format!("confirmations of `{chain}` counted on an unknown chain"),
                    ));
                }
            }
            // Every chain CCTP runs on has a domain, and no two share one.
            if let Some(cctp) = &b.cctp {
                for chain in b.contracts.keys() {
                    if !cctp.domains.contains_key(chain) {
                        problems.push(Problem::new(
                            &loc,
                            format!("cctp.domains has no domain for chain `{chain}`"),
                        ));
                    }
                }
                let mut seen = std::collections::BTreeSet::new();
                for (chain, d) in &cctp.domains {
                    if !seen.insert(*d) {
                        problems.push(Problem::new(
                            &loc,
                            format!("cctp.domains gives chain `{chain}` domain {d}, already taken"),
                        ));
                    }
                }
            }
        }
        for p in &self.layerzero_pools {
            let loc = format!("layerzeroPools[{}:{}]", p.chain_id, p.pool);
            match self.token(p.chain_id, p.token) {
                None => problems.push(Problem::new(&loc, format!("token {} not listed", p.token))),
                Some(t) if t.decimals != p.decimals => problems.push(Problem::new(
                    &loc,
                    format!("decimals {} differ from the token's {}", p.decimals, t.decimals),
                )),
                Some(_) => {}
            }
        }
        for p in &self.positions {
            let loc = format!("positions[{}]", p.position_id);
            check_chain(loc.clone(), p.chain_id, problems);
            if self.protocol(&p.protocol).is_none() {
                problems.push(Problem::new(&loc, format!("unknown protocol `{}`", p.protocol)));
            }
            for u in &p.underlying_tokens {
                if self.token(p.chain_id, *u).is_none() {
                    problems.push(Problem::new(&loc, format!("underlying token {u} not listed")));
                }
            }
        }
        for f in &self.dex_factories {
            let loc = format!("dexFactories[{}:{}]", f.chain_id, f.protocol);
            check_chain(loc.clone(), f.chain_id, problems);
            if self.protocol(&f.protocol).is_none() {
                problems.push(Problem::new(&loc, format!("unknown protocol `{}`", f.protocol)));
            }
        }
        for c in self.contracts.values() {
            check_chain(format!("contracts[{}:{}]", c.chain_id, c.strategy), c.chain_id, problems);
        }
        for d in &self.deployments {
            let loc = format!("deployments[{}:{}]", d.chain_id, d.role);
            check_chain(loc.clone(), d.chain_id, problems);
            let routes_pools = matches!(
                d.role,
                DeploymentRole::UniswapV2Router
                    | DeploymentRole::UniswapV3SwapRouter
                    | DeploymentRole::UniswapV3SwapRouter02
                    | DeploymentRole::UniswapV3PositionManager
            );
            if routes_pools != d.factory.is_some() {
                problems.push(Problem::new(
                    loc.clone(),
                    "a periphery router names its factory, and only a router does".to_owned(),
                ));
            }
            let lends = d.role == DeploymentRole::FlashloanRouterAdapter;
            if lends == d.lenders.is_empty()
                || d.lenders.iter().any(|l| !(1..=5).contains(&l.protocol))
            {
                problems.push(Problem::new(
                    loc.clone(),
                    "a flash-loan adapter lists its lenders (protocols 1 to 5), and only it does"
                        .to_owned(),
                ));
            }
            let versioned = d.role == DeploymentRole::ShortcutsHelpers;
            if versioned != matches!(d.version, Some(2 | 3)) {
                problems.push(Problem::new(
                    loc.clone(),
                    "EnsoShortcutsHelpers names its version (2 or 3), and only it does".to_owned(),
                ));
            }
            if d.source.trim().is_empty() {
                problems.push(Problem::new(loc, "the source of the address is missing".to_owned()));
            }
        }
    }

    /// Networks, by ascending chain id.
    pub fn networks(&self) -> &[Network] {
        &self.networks
    }

    /// One network.
    pub fn network(&self, id: ChainId) -> Option<&Network> {
        self.networks.binary_search_by_key(&id, |n| n.id).ok().map(|i| &self.networks[i])
    }

    /// Tokens, by (chain, address).
    pub fn tokens(&self) -> &[Token] {
        &self.tokens
    }

    /// The tokens of one chain, by address.
    pub fn tokens_on(&self, chain: ChainId) -> &[Token] {
        let lo = self.tokens.partition_point(|t| t.chain_id < chain);
        let hi = self.tokens.partition_point(|t| t.chain_id <= chain);
        &self.tokens[lo..hi]
    }

    /// The catalog with `extra` tokens added (discovered on a followed
    /// chain); a token it already lists keeps its entry.
    pub fn with_tokens(&self, extra: impl IntoIterator<Item = Token>) -> Self {
        let mut next = self.clone();
        let mut added = false;
        for t in extra {
            if let std::collections::hash_map::Entry::Vacant(e) =
                next.token_index.entry((t.chain_id, t.address))
            {
                e.insert(usize::MAX);
                next.tokens.push(t);
                added = true;
            }
        }
        if added {
            next.tokens.sort_by_key(|t| (t.chain_id, t.address));
            next.token_index =
                next.tokens.iter().enumerate().map(|(i, t)| ((t.chain_id, t.address), i)).collect();
        }
        next
    }

    /// One token.
    pub fn token(&self, chain: ChainId, address: Address) -> Option<&Token> {
        self.token_index.get(&(chain, address)).map(|&i| &self.tokens[i])
    }

    /// Protocols, by slug.
    pub fn protocols(&self) -> &[Protocol] {
        &self.protocols
    }

    /// One protocol.
    pub fn protocol(&self, slug: &str) -> Option<&Protocol> {
        self.protocol_index.get(slug).map(|&i| &self.protocols[i])
    }

    /// Projects, by id.
    pub fn projects(&self) -> &[Project] {
        &self.projects
    }

    /// Standards, in file order.
    pub fn standards(&self) -> &[Standard] {
        &self.standards
    }

    /// The standard of a protocol slug, directly or as a fork.
    pub fn standard(&self, slug: &str) -> Option<&Standard> {
        self.standards
            .iter()
            .find(|s| s.protocol == slug)
            .or_else(|| self.standards.iter().find(|s| s.forks.iter().any(|f| f == slug)))
    }

    /// Actions, by name.
    pub fn actions(&self) -> &[ActionSpec] {
        &self.actions
    }

    /// One action.
    pub fn action(&self, name: &str) -> Option<&ActionSpec> {
        self.action_index.get(name).map(|&i| &self.actions[i])
    }

    /// Aggregators (liquidity sources), in file order.
    pub fn aggregators(&self) -> &[Aggregator] {
        &self.aggregators
    }

    /// Bridges, in file order.
    pub fn bridges(&self) -> &[Bridge] {
        &self.bridges
    }

    /// One bridge by name.
    pub fn bridge(&self, name: &str) -> Option<&Bridge> {
        self.bridges.iter().find(|b| b.name == name)
    }

    /// LayerZero pools, by (chain, token).
    pub fn layerzero_pools(&self) -> &[LayerZeroPool] {
        &self.layerzero_pools
    }

    /// Non-tokenized positions, by (chain, id).
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// DEX factories.
    pub fn dex_factories(&self) -> &[DexFactory] {
        &self.dex_factories
    }

    /// The factory of a protocol on a chain.
    pub fn dex_factory(&self, chain: ChainId, protocol: &str) -> Option<&DexFactory> {
        self.dex_factories.iter().find(|f| f.chain_id == chain && f.protocol == protocol)
    }

    /// Contracts of one strategy on one chain.
    pub fn contracts(&self, chain: ChainId, strategy: RoutingStrategy) -> Option<&ContractSet> {
        self.contracts.get(&(chain, strategy))
    }

    /// Every deployed contract programs may call on `chain` (besides tokens
    /// and pools).
    pub fn deployments_on(&self, chain: ChainId) -> impl Iterator<Item = &Deployment> {
        self.deployments.iter().filter(move |d| d.chain_id == chain)
    }

    /// The deployed contract of `role` on `chain` (bound to `factory`, for
    /// periphery routers).
    pub fn deployment(
        &self,
        chain: ChainId,
        role: DeploymentRole,
        factory: Option<Address>,
    ) -> Option<&Deployment> {
        self.deployments.iter().find(|d| {
            d.chain_id == chain && d.role == role && (factory.is_none() || d.factory == factory)
        })
    }

    /// Replaces or adds contract addresses (operator configuration).
    pub fn override_contracts(&mut self, set: ContractSet) {
        let e = self.contracts.entry((set.chain_id, set.strategy)).or_insert_with(|| ContractSet {
            chain_id: set.chain_id,
            strategy: set.strategy,
            router: None,
            executor: None,
            delegate: None,
            factory: None,
            implementation: None,
            account_factory: None,
            account_implementation: None,
            entry_point: None,
            source: None,
        });
        e.router = set.router.or(e.router);
        e.executor = set.executor.or(e.executor);
        e.delegate = set.delegate.or(e.delegate);
        e.factory = set.factory.or(e.factory);
        e.implementation = set.implementation.or(e.implementation);
        e.account_factory = set.account_factory.or(e.account_factory);
        e.account_implementation = set.account_implementation.or(e.account_implementation);
        e.entry_point = set.entry_point.or(e.entry_point);
        if set.source.is_some() {
            e.source = set.source;
        }
    }
}
