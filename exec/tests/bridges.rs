//! The reference bridge contracts of `contracts/src` in the engine's EVM.
//!
//! Source side (`ReferenceTokenMessengerV2`, `ReferenceStargatePool`,
//! `ReferenceCcipRouter`, `ReferenceRelayDepository`): each is deployed at a
//! scratch address and relocated to its catalog address, as the world does;
//! the shortcuts executor, running a weiroll program of raw calls, approves
//! it and makes the bridge call with the public ABI. The tokens (or the
//! native value) must leave the executor for the bridge, and the bridge
//! must emit `BridgeRequest` with the destination chain id, the token, the
//! amount, the recipient and the destination payload. Refusals (wrong
//! value, unknown or local destination, bad recipient, …) are called
//! directly from an account, so their custom errors can be compared byte
//! for byte.
//!
//! Destination side (`ShortcutsReceiver`): a funded receiver hands the funds
//! and the program of its payload to a `ShortcutsExecutor`; a program that
//! reverts sends everything to `refundTo`; only the endpoint may deliver,
//! through `deliver`, `lzCompose` or `ccipReceive`.
//!
//! The id tables (CCTP domains, LayerZero eids, CCIP chain selectors) are
//! checked against the catalog's bridge chains and Stargate pools.

use alloy_primitives::{Address, B256, Bytes, U256, address, b256, hex};
use alloy_sol_types::{SolCall, SolConstructor, SolError, SolEvent, SolValue};
use switchyard_exec::{
    encode::weiroll::{CallKind, In, Out, Program, ProgramBuilder},
    evm::{
        Artifact, BlockEnv, CallOutcome, Evm, EvmError,
        abi::{ShortcutsExecutor, TestERC20},
    },
};

/// The contracts' interfaces, written from their sources.
#[allow(clippy::too_many_arguments, reason = "DepositForBurn's own ten fields")]
mod bindings {
    use alloy_sol_types::sol;

    sol! {
        /// The event every reference bridge emits, declared identically in each.
        #[sol(all_derives)]
        interface Bridge {
            event BridgeRequest(
                uint256 indexed destinationChainId,
                address indexed token,
                uint256 amount,
                address recipient,
                bytes payload
            );
        }

        #[sol(all_derives)]
        contract ReferenceTokenMessengerV2 {
            event DepositForBurn(
                address indexed burnToken,
                uint256 amount,
                address indexed depositor,
                bytes32 mintRecipient,
                uint32 destinationDomain,
                bytes32 destinationTokenMessenger,
                bytes32 destinationCaller,
                uint256 maxFee,
                uint32 indexed minFinalityThreshold,
                bytes hookData
            );

            error ZeroAmount();
            error MaxFeeTooHigh(uint256 maxFee, uint256 amount);
            error InvalidMintRecipient(bytes32 mintRecipient);
            error EmptyHookData();
            error UnknownDomain(uint32 domain);
            error TransferFailed(address token);

            function depositForBurn(
                uint256 amount,
                uint32 destinationDomain,
                bytes32 mintRecipient,
                address burnToken,
                bytes32 destinationCaller,
                uint256 maxFee,
                uint32 minFinalityThreshold
            ) external;
            function depositForBurnWithHook(
                uint256 amount,
                uint32 destinationDomain,
                bytes32 mintRecipient,
                address burnToken,
                bytes32 destinationCaller,
                uint256 maxFee,
                uint32 minFinalityThreshold,
                bytes hookData
            ) external;
            function domainChainId(uint32 domain) external pure returns (uint256);
        }

        #[sol(all_derives)]
        contract ReferenceStargatePool {
            struct SendParam {
                uint32 dstEid;
                bytes32 to;
                uint256 amountLD;
                uint256 minAmountLD;
                bytes extraOptions;
                bytes composeMsg;
                bytes oftCmd;
            }
            struct MessagingFee {
                uint256 nativeFee;
                uint256 lzTokenFee;
            }
            struct MessagingReceipt {
                bytes32 guid;
                uint64 nonce;
                MessagingFee fee;
            }
            struct OFTReceipt {
                uint256 amountSentLD;
                uint256 amountReceivedLD;
            }
            struct OFTLimit {
                uint256 minAmountLD;
                uint256 maxAmountLD;
            }
            struct OFTFeeDetail {
                int256 feeAmountLD;
                string description;
            }

            event OFTSent(
                bytes32 indexed guid,
                uint32 dstEid,
                address indexed fromAddress,
                uint256 amountSentLD,
                uint256 amountReceivedLD
            );

            error InvalidLocalDecimals();
            error InvalidAmount();
            error SlippageExceeded(uint256 amountLD, uint256 minAmountLD);
            error WrongMsgValue(uint256 value, uint256 expected);
            error LzTokenUnavailable();
            error UnknownEid(uint32 eid);
            error InvalidRecipient(bytes32 to);
            error TransferFailed(address token);
            error RefundFailed(address refundAddress, uint256 amount);

            constructor(address token, uint8 localDecimals);

            function token() external view returns (address);
            function sharedDecimals() external pure returns (uint8);
            function eidChainId(uint32 eid) external pure returns (uint256);
            function quoteSend(SendParam sendParam, bool payInLzToken) external view returns (MessagingFee fee);
            function quoteOFT(SendParam sendParam)
                external view returns (OFTLimit limit, OFTFeeDetail[] oftFeeDetails, OFTReceipt receipt);
            function send(SendParam sendParam, MessagingFee fee, address refundAddress)
                external payable returns (MessagingReceipt msgReceipt, OFTReceipt oftReceipt);
        }

        #[sol(all_derives)]
        contract ReferenceCcipRouter {
            struct EVMTokenAmount {
                address token;
                uint256 amount;
            }
            struct EVM2AnyMessage {
                bytes receiver;
                bytes data;
                EVMTokenAmount[] tokenAmounts;
                address feeToken;
                bytes extraArgs;
            }

            error UnsupportedDestinationChain(uint64 destChainSelector);
            error InvalidMsgValue();
            error InvalidEVMAddress(bytes encodedAddress);
            error UnsupportedTokenCount(uint256 count);
            error CannotSendZeroTokens();
            error TransferFailed(address token);

            function isChainSupported(uint64 chainSelector) external view returns (bool);
            function getFee(uint64 destinationChainSelector, EVM2AnyMessage message) external view returns (uint256);
            function ccipSend(uint64 destinationChainSelector, EVM2AnyMessage message)
                external payable returns (bytes32);
            function selectorChainId(uint64 chainSelector) external pure returns (uint256);
        }

        #[sol(all_derives)]
        contract ReferenceRelayDepository {
            event RelayNativeDeposit(address from, uint256 amount, bytes32 id);
            event RelayErc20Deposit(address from, address token, uint256 amount, bytes32 id);

            error Unannounced(address caller, bytes32 id);
            error InvalidDestination(uint256 destinationChainId);
            error InvalidRecipient();
            error TransferFailed(address token);

            function announce(bytes32 id, uint256 destinationChainId, address recipient) external;
            function depositNative(address depositor, bytes32 id) external payable;
            function depositErc20(address depositor, address token, uint256 amount, bytes32 id) external;
            function depositErc20(address depositor, address token, bytes32 id) external;
        }

        #[sol(all_derives)]
        contract ShortcutsReceiver {
            struct EVMTokenAmount {
                address token;
                uint256 amount;
            }
            struct Any2EVMMessage {
                bytes32 messageId;
                uint64 sourceChainSelector;
                bytes sender;
                bytes data;
                EVMTokenAmount[] destTokenAmounts;
            }

            event DeliveryExecuted(bytes32 requestId, address token, uint256 amount);
            event DeliveryRefunded(bytes32 requestId, address refundTo, address token, uint256 amount, bytes reason);

            error NotEndpoint(address caller);
            error OnlySelf();
            error InsufficientBalance(address token, uint256 amount, uint256 balance);
            error BadPayload();
            error BadComposeMessage(uint256 length);
            error UnsupportedTokenCount(uint256 count);
            error TransferFailed(address token, address to);
            error NativeTransferFailed(address to, uint256 amount);

            constructor(address executor, address endpoint);

            function executor() external view returns (address);
            function endpoint() external view returns (address);
            function deliver(address token, uint256 amount, bytes payload) external;
            function lzCompose(address from, bytes32 guid, bytes message, address lzExecutor, bytes extraData) external;
            function ccipReceive(Any2EVMMessage message) external;
            function supportsInterface(bytes4 interfaceId) external pure returns (bool);
            function run(address token, uint256 amount, bytes payload) external;
        }
    }
}

use bindings::{
    Bridge, ReferenceCcipRouter, ReferenceRelayDepository, ReferenceStargatePool,
    ReferenceTokenMessengerV2, ShortcutsReceiver,
};

const MESSENGER_JSON: &str =
    include_str!("../../contracts/artifacts/ReferenceTokenMessengerV2.json");
const STARGATE_JSON: &str = include_str!("../../contracts/artifacts/ReferenceStargatePool.json");
const CCIP_JSON: &str = include_str!("../../contracts/artifacts/ReferenceCcipRouter.json");
const RELAY_JSON: &str = include_str!("../../contracts/artifacts/ReferenceRelayDepository.json");
const RECEIVER_JSON: &str = include_str!("../../contracts/artifacts/ShortcutsReceiver.json");
const BRIDGES_JSON: &str = include_str!("../../catalog/data/bridges.json");
const LAYERZERO_JSON: &str = include_str!("../../catalog/data/layerzero.json");

const DEPLOYER: Address = Address::repeat_byte(0xde);
/// Calls the executor (a router would) and makes the direct refusal calls.
const CALLER: Address = Address::repeat_byte(0xca);
const RECIPIENT: Address = Address::repeat_byte(0x5e);
const REFUND: Address = Address::repeat_byte(0x4f);
/// The engine's relayer: the receiver's endpoint.
const RELAYER: Address = Address::repeat_byte(0x4e);
const NATIVE: Address = address!("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");

// The catalog addresses on Ethereum (`catalog/data/bridges.json`,
// `catalog/data/layerzero.json`).
const MESSENGER: Address = address!("28b5a0e9c621a5badaa536219b3a228c8168cf5d");
const STARGATE_USDC: Address = address!("c026395860db2d07ee33e05fe50ed7bd583189c7");
const STARGATE_ETH: Address = address!("77b2043768d28e9c9ab44e1abfc95944bce57931");
const CCIP_ROUTER: Address = address!("80226fc0ee2b096224eeac085bb9a8cba1146f7d");
const RELAY: Address = address!("a5f565650890fba1824ee0f21ebbbf660a179934");

const ACCOUNT_ID: B256 = b256!("0f8fad5bd9cb469fa16570867728950e00000000000000000000000000000000");
const REQUEST_ID: B256 = b256!("73776974636879617264000000000000000000000000000000000000000000aa");

/// CCTP domain → chain id (Circle, developers.circle.com/cctp/supported-domains;
/// EVM domains).
const CCTP_DOMAINS: [(u32, u64); 12] = [
    (0, 1),
    (1, 43114),
    (2, 10),
    (3, 42161),
    (6, 8453),
    (7, 137),
    (10, 130),
    (11, 59144),
    (12, 81224),
    (13, 146),
    (14, 480),
    (16, 1329),
];

/// LayerZero V2 endpoint id → chain id
/// (docs.layerzero.network/v2/deployments/deployed-contracts).
const LZ_EIDS: [(u32, u64); 12] = [
    (30101, 1),
    (30102, 56),
    (30106, 43114),
    (30109, 137),
    (30110, 42161),
    (30111, 10),
    (30145, 100),
    (30183, 59144),
    (30184, 8453),
    (30320, 130),
    (30332, 146),
    (30362, 80094),
];

/// CCIP chain selector → chain id (github.com/smartcontractkit/chain-selectors,
/// `selectors.yml`).
const CCIP_SELECTORS: [(u64, u64); 12] = [
    (5009297550715157269, 1),
    (3734403246176062136, 10),
    (11344663589394136015, 56),
    (465200170687744372, 100),
    (1923510103922296319, 130),
    (4051577828743386545, 137),
    (1673871237479749969, 146),
    (15971525489660198786, 8453),
    (4949039107694359620, 42161),
    (6433500567565415381, 43114),
    (4627098889531055414, 59144),
    (1294465214383781161, 80094),
];

const BASE_EID: u32 = 30184;
const BASE_SELECTOR: u64 = 15971525489660198786;
const ETHEREUM_SELECTOR: u64 = 5009297550715157269;

fn usdc(x: u64) -> U256 {
    U256::from(x) * U256::from(1_000_000u64)
}

fn ether(x: u64) -> U256 {
    U256::from(x) * U256::from(10u64).pow(U256::from(18u8))
}

/// `address` as a left-padded `bytes32`.
fn word(a: Address) -> B256 {
    a.into_word()
}

/// The initcode of a committed artifact: its `bytecode` field.
fn initcode(json: &str) -> Vec<u8> {
    let v: serde_json::Value = serde_json::from_str(json).expect("artifact parses");
    let hex = v["bytecode"].as_str().expect("artifact has a bytecode");
    hex.parse::<Bytes>().expect("bytecode is hex").to_vec()
}

fn deploy(evm: &mut Evm, json: &str, args: &[u8]) -> Address {
    let mut code = initcode(json);
    code.extend_from_slice(args);
    evm.deploy(DEPLOYER, code.into()).expect("deploys")
}

/// Deploys at a scratch address and moves the contract to `at`, as the
/// world does.
fn deploy_at(evm: &mut Evm, json: &str, args: &[u8], at: Address) -> Address {
    let scratch = deploy(evm, json, args);
    evm.relocate(scratch, at).expect("relocates");
    at
}

fn deploy_token(evm: &mut Evm, decimals: u8) -> Address {
    let args = TestERC20::constructorCall { name: "Token".into(), symbol: "TKN".into(), decimals }
        .abi_encode();
    evm.deploy_artifact(DEPLOYER, Artifact::TestErc20, &args).expect("token deploys")
}

fn mint(evm: &mut Evm, token: Address, to: Address, amount: U256) {
    evm.call_sol(DEPLOYER, token, &TestERC20::mintCall { to, amount }).expect("mints");
}

fn balance(evm: &mut Evm, token: Address, who: Address) -> U256 {
    if token == NATIVE {
        return evm.balance(who);
    }
    evm.view(token, &TestERC20::balanceOfCall { who }).expect("balanceOf")
}

fn approve_data(spender: Address, amount: U256) -> Vec<u8> {
    TestERC20::approveCall { spender, amount }.abi_encode()
}

/// A program of raw calls `(target, calldata, value)`, in order.
fn raw_program(calls: &[(Address, Vec<u8>, U256)]) -> Program {
    let mut b = ProgramBuilder::new();
    for (target, data, value) in calls {
        let data = b.raw(data).expect("slot");
        let kind = if value.is_zero() {
            CallKind::Call
        } else {
            let In::Fixed(v) = b.uint(*value).expect("slot") else {
                panic!("a uint is a fixed slot")
            };
            CallKind::Value(v)
        };
        b.raw_call(kind, *target, data, Out::Ignore).expect("command");
    }
    b.build()
}

fn execute_call(program: &Program) -> Vec<u8> {
    ShortcutsExecutor::executeShortcutCall {
        accountId: ACCOUNT_ID,
        requestId: REQUEST_ID,
        commands: program.commands.clone(),
        state: program.state.clone(),
    }
    .abi_encode()
}

/// Runs `calls` on the executor, sent by [`CALLER`] with `value`.
fn run(
    evm: &mut Evm,
    executor: Address,
    calls: &[(Address, Vec<u8>, U256)],
    value: U256,
) -> CallOutcome {
    let data = execute_call(&raw_program(calls));
    let funds = evm.balance(CALLER) + value;
    evm.set_balance(CALLER, funds);
    evm.call(CALLER, executor, data.into(), value).expect("the program runs")
}

/// The one `BridgeRequest` of `out`, with the address that emitted it.
fn bridge_request(out: &CallOutcome) -> (Address, Bridge::BridgeRequest) {
    let found: Vec<_> =
        out.logs.iter().filter_map(|l| Bridge::BridgeRequest::decode_log(l).ok()).collect();
    assert_eq!(found.len(), 1, "exactly one BridgeRequest");
    (found[0].address, found[0].data.clone())
}

fn event<E: SolEvent>(out: &CallOutcome) -> Option<(Address, E)> {
    out.logs.iter().find_map(|l| E::decode_log(l).ok().map(|d| (d.address, d.data)))
}

/// Asserts that `result` reverted with exactly `error`.
fn assert_reverts<E: SolError>(result: Result<CallOutcome, EvmError>, error: E) {
    match result {
        Ok(_) => panic!("expected a revert with {}", E::SIGNATURE),
        Err(e) => assert_eq!(
            e.revert_data().map(|d| d.to_vec()),
            Some(error.abi_encode()),
            "expected {}, got {e}",
            E::SIGNATURE
        ),
    }
}

/// A chain-1 world with a 6-decimal token and the shortcuts executor.
struct Source {
    evm: Evm,
    token: Address,
    executor: Address,
}

fn source() -> Source {
    let mut evm = Evm::new();
    let token = deploy_token(&mut evm, 6);
    // The executor takes shortcuts from its router only: here the caller.
    let args = ShortcutsExecutor::constructorCall { executor_: CALLER }.abi_encode();
    let executor =
        evm.deploy_artifact(DEPLOYER, Artifact::ShortcutsExecutor, &args).expect("executor");
    Source { evm, token, executor }
}

// ------------------------------------------------------------------ CCTP

fn deposit_for_burn(
    amount: U256,
    domain: u32,
    recipient: B256,
    token: Address,
    max_fee: U256,
) -> ReferenceTokenMessengerV2::depositForBurnCall {
    ReferenceTokenMessengerV2::depositForBurnCall {
        amount,
        destinationDomain: domain,
        mintRecipient: recipient,
        burnToken: token,
        destinationCaller: B256::ZERO,
        maxFee: max_fee,
        minFinalityThreshold: 2000,
    }
}

#[test]
fn cctp_deposit_for_burn_locks_the_tokens_and_reports_the_request() {
    let Source { mut evm, token, executor } = source();
    let messenger = deploy_at(&mut evm, MESSENGER_JSON, &[], MESSENGER);
    mint(&mut evm, token, executor, usdc(1000));
    let call = deposit_for_burn(usdc(250), 6, word(RECIPIENT), token, U256::from(7u8));
    let out = run(
        &mut evm,
        executor,
        &[
            (token, approve_data(messenger, usdc(250)), U256::ZERO),
            (messenger, call.abi_encode(), U256::ZERO),
        ],
        U256::ZERO,
    );
    assert_eq!(balance(&mut evm, token, executor), usdc(750));
    assert_eq!(balance(&mut evm, token, messenger), usdc(250));

    let (from, req) = bridge_request(&out);
    assert_eq!(from, MESSENGER);
    assert_eq!(req.destinationChainId, U256::from(8453u64));
    assert_eq!(req.token, token);
    assert_eq!(req.amount, usdc(250));
    assert_eq!(req.recipient, RECIPIENT);
    assert!(req.payload.is_empty());

    let (_, burn) =
        event::<ReferenceTokenMessengerV2::DepositForBurn>(&out).expect("DepositForBurn");
    assert_eq!(burn.burnToken, token);
    assert_eq!(burn.amount, usdc(250));
    assert_eq!(burn.depositor, executor);
    assert_eq!(burn.mintRecipient, word(RECIPIENT));
    assert_eq!(burn.destinationDomain, 6);
    assert_eq!(burn.destinationTokenMessenger, word(MESSENGER));
    assert_eq!(burn.maxFee, U256::from(7u8));
    assert_eq!(burn.minFinalityThreshold, 2000);
    assert!(burn.hookData.is_empty());
}

#[test]
fn cctp_deposit_with_hook_carries_the_hook_data() {
    let Source { mut evm, token, executor } = source();
    let messenger = deploy_at(&mut evm, MESSENGER_JSON, &[], MESSENGER);
    mint(&mut evm, token, executor, usdc(10));
    let hook = Bytes::from(vec![0xab; 100]);
    let call = ReferenceTokenMessengerV2::depositForBurnWithHookCall {
        amount: usdc(10),
        destinationDomain: 3,
        mintRecipient: word(RECIPIENT),
        burnToken: token,
        destinationCaller: word(RELAYER),
        maxFee: U256::ZERO,
        minFinalityThreshold: 1000,
        hookData: hook.clone(),
    };
    let out = run(
        &mut evm,
        executor,
        &[
            (token, approve_data(messenger, usdc(10)), U256::ZERO),
            (messenger, call.abi_encode(), U256::ZERO),
        ],
        U256::ZERO,
    );
    assert_eq!(balance(&mut evm, token, executor), U256::ZERO);
    let (_, req) = bridge_request(&out);
    assert_eq!(req.destinationChainId, U256::from(42161u64));
    assert_eq!(req.payload, hook);
    let (_, burn) =
        event::<ReferenceTokenMessengerV2::DepositForBurn>(&out).expect("DepositForBurn");
    assert_eq!(burn.hookData, hook);
    assert_eq!(burn.destinationCaller, word(RELAYER));
}

#[test]
fn cctp_refuses_unknown_and_local_domains_and_bad_arguments() {
    use ReferenceTokenMessengerV2 as M;
    let Source { mut evm, token, .. } = source();
    let messenger = deploy_at(&mut evm, MESSENGER_JSON, &[], MESSENGER);
    mint(&mut evm, token, CALLER, usdc(100));
    evm.call(CALLER, token, approve_data(messenger, usdc(100)).into(), U256::ZERO)
        .expect("approve");
    let mut send = |call: Vec<u8>| evm.call(CALLER, messenger, call.into(), U256::ZERO);

    // Noble (4) is not an EVM domain; Ethereum (0) is this chain.
    assert_reverts(
        send(deposit_for_burn(usdc(1), 4, word(RECIPIENT), token, U256::ZERO).abi_encode()),
        M::UnknownDomain { domain: 4 },
    );
    assert_reverts(
        send(deposit_for_burn(usdc(1), 0, word(RECIPIENT), token, U256::ZERO).abi_encode()),
        M::UnknownDomain { domain: 0 },
    );
    assert_reverts(
        send(deposit_for_burn(U256::ZERO, 6, word(RECIPIENT), token, U256::ZERO).abi_encode()),
        M::ZeroAmount {},
    );
    assert_reverts(
        send(deposit_for_burn(usdc(1), 6, word(RECIPIENT), token, usdc(1)).abi_encode()),
        M::MaxFeeTooHigh { maxFee: usdc(1), amount: usdc(1) },
    );
    let wide = B256::repeat_byte(0x11);
    assert_reverts(
        send(deposit_for_burn(usdc(1), 6, wide, token, U256::ZERO).abi_encode()),
        M::InvalidMintRecipient { mintRecipient: wide },
    );
    assert_reverts(
        send(deposit_for_burn(usdc(1), 6, B256::ZERO, token, U256::ZERO).abi_encode()),
        M::InvalidMintRecipient { mintRecipient: B256::ZERO },
    );
    let empty_hook = M::depositForBurnWithHookCall {
        amount: usdc(1),
        destinationDomain: 6,
        mintRecipient: word(RECIPIENT),
        burnToken: token,
        destinationCaller: B256::ZERO,
        maxFee: U256::ZERO,
        minFinalityThreshold: 2000,
        hookData: Bytes::new(),
    };
    assert_reverts(send(empty_hook.abi_encode()), M::EmptyHookData {});
    // More than approved.
    assert_reverts(
        send(deposit_for_burn(usdc(101), 6, word(RECIPIENT), token, U256::ZERO).abi_encode()),
        M::TransferFailed { token },
    );
}

// -------------------------------------------------------------- Stargate

fn send_param(
    eid: u32,
    to: B256,
    amount: U256,
    min: U256,
    compose: Bytes,
) -> ReferenceStargatePool::SendParam {
    ReferenceStargatePool::SendParam {
        dstEid: eid,
        to,
        amountLD: amount,
        minAmountLD: min,
        extraOptions: Bytes::new(),
        composeMsg: compose,
        oftCmd: Bytes::new(),
    }
}

fn stargate_send(
    param: ReferenceStargatePool::SendParam,
    native_fee: U256,
    refund: Address,
) -> ReferenceStargatePool::sendCall {
    ReferenceStargatePool::sendCall {
        sendParam: param,
        fee: ReferenceStargatePool::MessagingFee { nativeFee: native_fee, lzTokenFee: U256::ZERO },
        refundAddress: refund,
    }
}

fn deploy_pool(evm: &mut Evm, token: Address, decimals: u8, at: Address) -> Address {
    let args =
        ReferenceStargatePool::constructorCall { token, localDecimals: decimals }.abi_encode();
    deploy_at(evm, STARGATE_JSON, &args, at)
}

#[test]
fn stargate_erc20_pool_sends_with_the_compose_message() {
    let Source { mut evm, token, executor } = source();
    let pool = deploy_pool(&mut evm, token, 6, STARGATE_USDC);
    assert_eq!(evm.view(pool, &ReferenceStargatePool::tokenCall {}).expect("token"), token);
    mint(&mut evm, token, executor, usdc(500));
    let compose = Bytes::from(b"destination program".to_vec());
    let param = send_param(BASE_EID, word(RECIPIENT), usdc(500), usdc(499), compose.clone());

    let quote = evm.view(
        pool,
        &ReferenceStargatePool::quoteSendCall { sendParam: param.clone(), payInLzToken: false },
    );
    let quote = quote.expect("quoteSend");
    assert_eq!((quote.nativeFee, quote.lzTokenFee), (U256::ZERO, U256::ZERO));
    let oft = evm
        .view(pool, &ReferenceStargatePool::quoteOFTCall { sendParam: param.clone() })
        .expect("quoteOFT");
    assert_eq!(oft.receipt.amountSentLD, usdc(500));
    assert_eq!(oft.receipt.amountReceivedLD, usdc(500));
    assert!(oft.oftFeeDetails.is_empty());
    assert_eq!(oft.limit.minAmountLD, U256::from(1u8));

    let out = run(
        &mut evm,
        executor,
        &[
            (token, approve_data(pool, usdc(500)), U256::ZERO),
            (pool, stargate_send(param, U256::ZERO, executor).abi_encode(), U256::ZERO),
        ],
        U256::ZERO,
    );
    assert_eq!(balance(&mut evm, token, executor), U256::ZERO);
    assert_eq!(balance(&mut evm, token, pool), usdc(500));
    let (from, req) = bridge_request(&out);
    assert_eq!(from, STARGATE_USDC);
    assert_eq!(req.destinationChainId, U256::from(8453u64));
    assert_eq!((req.token, req.amount, req.recipient), (token, usdc(500), RECIPIENT));
    assert_eq!(req.payload, compose);
    let (_, sent) = event::<ReferenceStargatePool::OFTSent>(&out).expect("OFTSent");
    assert_eq!(sent.dstEid, BASE_EID);
    assert_eq!(sent.fromAddress, executor);
    assert_eq!((sent.amountSentLD, sent.amountReceivedLD), (usdc(500), usdc(500)));
}

#[test]
fn stargate_send_returns_the_receipts_and_removes_dust() {
    let Source { mut evm, executor: _, .. } = source();
    let token = deploy_token(&mut evm, 18);
    let pool = deploy_pool(&mut evm, token, 18, STARGATE_USDC);
    let amount = ether(2) + U256::from(123_456u64);
    mint(&mut evm, token, CALLER, amount);
    evm.call(CALLER, token, approve_data(pool, amount).into(), U256::ZERO).expect("approve");

    let call = stargate_send(
        send_param(30102, word(RECIPIENT), amount, ether(2), Bytes::new()),
        U256::ZERO,
        CALLER,
    );
    let out = evm.call(CALLER, pool, call.abi_encode().into(), U256::ZERO).expect("send");
    let ret = ReferenceStargatePool::sendCall::abi_decode_returns(&out.output).expect("returns");
    assert_eq!(ret.msgReceipt.nonce, 1);
    assert_eq!(ret.msgReceipt.fee.nativeFee, U256::ZERO);
    assert_eq!(ret.oftReceipt.amountSentLD, ether(2));
    assert_eq!(ret.oftReceipt.amountReceivedLD, ether(2));
    let (_, sent) = event::<ReferenceStargatePool::OFTSent>(&out).expect("OFTSent");
    assert_eq!(sent.guid, ret.msgReceipt.guid);
    // Only the dust-free amount is pulled.
    assert_eq!(balance(&mut evm, token, CALLER), U256::from(123_456u64));
    assert_eq!(balance(&mut evm, token, pool), ether(2));
    let (_, req) = bridge_request(&out);
    assert_eq!(req.destinationChainId, U256::from(56u64));
    assert_eq!(req.amount, ether(2));
}

#[test]
fn stargate_native_pool_takes_the_value_and_refunds_dust_and_fee() {
    let Source { mut evm, executor, .. } = source();
    // The catalog's native token names the native pool too.
    let pool = deploy_pool(&mut evm, NATIVE, 18, STARGATE_ETH);
    assert_eq!(evm.view(pool, &ReferenceStargatePool::tokenCall {}).expect("token"), Address::ZERO);
    let amount = ether(3) + U256::from(7u8);
    let fee = U256::from(5u8);
    let call = stargate_send(
        send_param(BASE_EID, word(RECIPIENT), amount, ether(3), Bytes::new()),
        fee,
        REFUND,
    );
    let out = run(&mut evm, executor, &[(pool, call.abi_encode(), amount + fee)], amount + fee);
    assert_eq!(evm.balance(executor), U256::ZERO);
    assert_eq!(evm.balance(pool), ether(3));
    assert_eq!(evm.balance(REFUND), U256::from(12u8));
    let (from, req) = bridge_request(&out);
    assert_eq!(from, STARGATE_ETH);
    assert_eq!((req.token, req.amount, req.recipient), (NATIVE, ether(3), RECIPIENT));
    assert_eq!(req.destinationChainId, U256::from(8453u64));
}

#[test]
fn stargate_refuses_wrong_value_unknown_eids_and_bad_parameters() {
    use ReferenceStargatePool as P;
    let Source { mut evm, token, .. } = source();
    let erc20 = deploy_pool(&mut evm, token, 6, STARGATE_USDC);
    let native = deploy_pool(&mut evm, Address::ZERO, 18, STARGATE_ETH);
    mint(&mut evm, token, CALLER, usdc(100));
    evm.call(CALLER, token, approve_data(erc20, usdc(100)).into(), U256::ZERO).expect("approve");
    evm.set_balance(CALLER, ether(100));
    let mut send = |pool: Address, call: P::sendCall, value: U256| {
        evm.call(CALLER, pool, call.abi_encode().into(), value)
    };
    let good =
        |amount: U256| send_param(BASE_EID, word(RECIPIENT), amount, U256::ZERO, Bytes::new());

    // Native: the value must be the amount plus the fee, exactly.
    assert_reverts(
        send(native, stargate_send(good(ether(1)), U256::ZERO, CALLER), ether(1) - U256::from(1u8)),
        P::WrongMsgValue { value: ether(1) - U256::from(1u8), expected: ether(1) },
    );
    assert_reverts(
        send(
            native,
            stargate_send(good(ether(1)), U256::from(3u8), CALLER),
            ether(1) + U256::from(4u8),
        ),
        P::WrongMsgValue {
            value: ether(1) + U256::from(4u8),
            expected: ether(1) + U256::from(3u8),
        },
    );
    // ERC-20: the value must be the fee.
    assert_reverts(
        send(erc20, stargate_send(good(usdc(1)), U256::ZERO, CALLER), U256::from(1u8)),
        P::WrongMsgValue { value: U256::from(1u8), expected: U256::ZERO },
    );
    // 30999 is nobody; 30101 is Ethereum, this chain.
    let mut p = good(usdc(1));
    p.dstEid = 30999;
    assert_reverts(
        send(erc20, stargate_send(p.clone(), U256::ZERO, CALLER), U256::ZERO),
        P::UnknownEid { eid: 30999 },
    );
    p.dstEid = 30101;
    assert_reverts(
        send(erc20, stargate_send(p, U256::ZERO, CALLER), U256::ZERO),
        P::UnknownEid { eid: 30101 },
    );
    let mut p = good(usdc(1));
    p.minAmountLD = usdc(1) + U256::from(1u8);
    assert_reverts(
        send(erc20, stargate_send(p, U256::ZERO, CALLER), U256::ZERO),
        P::SlippageExceeded { amountLD: usdc(1), minAmountLD: usdc(1) + U256::from(1u8) },
    );
    let mut p = good(usdc(1));
    p.to = B256::repeat_byte(0x22);
    assert_reverts(
        send(erc20, stargate_send(p, U256::ZERO, CALLER), U256::ZERO),
        P::InvalidRecipient { to: B256::repeat_byte(0x22) },
    );
    let mut lz = stargate_send(good(usdc(1)), U256::ZERO, CALLER);
    lz.fee.lzTokenFee = U256::from(1u8);
    assert_reverts(send(erc20, lz, U256::ZERO), P::LzTokenUnavailable {});
    // Below one shared unit (10^12 wei) nothing is left to send.
    let dust = U256::from(999_999_999_999u64);
    assert_reverts(
        send(native, stargate_send(good(dust), U256::ZERO, CALLER), dust),
        P::InvalidAmount {},
    );
    assert_reverts(
        send(erc20, stargate_send(good(usdc(101)), U256::ZERO, CALLER), U256::ZERO),
        P::TransferFailed { token },
    );

    let below = P::constructorCall { token, localDecimals: 5 }.abi_encode();
    let mut code = initcode(STARGATE_JSON);
    code.extend_from_slice(&below);
    assert!(evm.deploy(DEPLOYER, code.into()).is_err(), "fewer than 6 local decimals");
}

// ------------------------------------------------------------------ CCIP

fn ccip_message(
    receiver: Bytes,
    token: Address,
    amount: U256,
    data: Bytes,
) -> ReferenceCcipRouter::EVM2AnyMessage {
    ReferenceCcipRouter::EVM2AnyMessage {
        receiver,
        data,
        tokenAmounts: vec![ReferenceCcipRouter::EVMTokenAmount { token, amount }],
        feeToken: Address::ZERO,
        extraArgs: Bytes::new(),
    }
}

#[test]
fn ccip_send_locks_the_token_amount_and_reports_the_request() {
    let Source { mut evm, token, executor } = source();
    let router = deploy_at(&mut evm, CCIP_JSON, &[], CCIP_ROUTER);
    mint(&mut evm, token, executor, usdc(40));
    let data = Bytes::from(vec![0x42; 70]);
    let message = ccip_message(RECIPIENT.abi_encode().into(), token, usdc(40), data.clone());

    let fee = evm.view(
        router,
        &ReferenceCcipRouter::getFeeCall {
            destinationChainSelector: BASE_SELECTOR,
            message: message.clone(),
        },
    );
    assert_eq!(fee.expect("getFee"), U256::ZERO);
    let supported = |evm: &mut Evm, s: u64| {
        evm.view(router, &ReferenceCcipRouter::isChainSupportedCall { chainSelector: s })
            .expect("view")
    };
    assert!(supported(&mut evm, BASE_SELECTOR));
    assert!(!supported(&mut evm, ETHEREUM_SELECTOR), "this chain");
    assert!(!supported(&mut evm, 42));

    let call =
        ReferenceCcipRouter::ccipSendCall { destinationChainSelector: BASE_SELECTOR, message };
    let out = run(
        &mut evm,
        executor,
        &[
            (token, approve_data(router, usdc(40)), U256::ZERO),
            (router, call.abi_encode(), U256::ZERO),
        ],
        U256::ZERO,
    );
    assert_eq!(balance(&mut evm, token, executor), U256::ZERO);
    assert_eq!(balance(&mut evm, token, router), usdc(40));
    let (from, req) = bridge_request(&out);
    assert_eq!(from, CCIP_ROUTER);
    assert_eq!(req.destinationChainId, U256::from(8453u64));
    assert_eq!((req.token, req.amount, req.recipient), (token, usdc(40), RECIPIENT));
    assert_eq!(req.payload, data);
}

#[test]
fn ccip_refuses_value_unknown_selectors_and_bad_messages() {
    use ReferenceCcipRouter as R;
    let Source { mut evm, token, .. } = source();
    let router = deploy_at(&mut evm, CCIP_JSON, &[], CCIP_ROUTER);
    mint(&mut evm, token, CALLER, usdc(10));
    evm.call(CALLER, token, approve_data(router, usdc(10)).into(), U256::ZERO).expect("approve");
    evm.set_balance(CALLER, ether(1));
    let good = || ccip_message(RECIPIENT.abi_encode().into(), token, usdc(1), Bytes::new());
    let mut send = |selector: u64, message: R::EVM2AnyMessage, value: U256| {
        let call = R::ccipSendCall { destinationChainSelector: selector, message };
        evm.call(CALLER, router, call.abi_encode().into(), value)
    };

    assert_reverts(send(BASE_SELECTOR, good(), U256::from(1u8)), R::InvalidMsgValue {});
    assert_reverts(
        send(42, good(), U256::ZERO),
        R::UnsupportedDestinationChain { destChainSelector: 42 },
    );
    assert_reverts(
        send(ETHEREUM_SELECTOR, good(), U256::ZERO),
        R::UnsupportedDestinationChain { destChainSelector: ETHEREUM_SELECTOR },
    );
    let mut m = good();
    m.receiver = RECIPIENT.to_vec().into();
    assert_reverts(
        send(BASE_SELECTOR, m, U256::ZERO),
        R::InvalidEVMAddress { encodedAddress: RECIPIENT.to_vec().into() },
    );
    let mut m = good();
    m.receiver = B256::repeat_byte(0x33).to_vec().into();
    assert_reverts(
        send(BASE_SELECTOR, m, U256::ZERO),
        R::InvalidEVMAddress { encodedAddress: B256::repeat_byte(0x33).to_vec().into() },
    );
    let mut m = good();
    m.tokenAmounts.push(m.tokenAmounts[0].clone());
    assert_reverts(
        send(BASE_SELECTOR, m, U256::ZERO),
        R::UnsupportedTokenCount { count: U256::from(2u8) },
    );
    let mut m = good();
    m.tokenAmounts.clear();
    assert_reverts(
        send(BASE_SELECTOR, m, U256::ZERO),
        R::UnsupportedTokenCount { count: U256::ZERO },
    );
    let mut m = good();
    m.tokenAmounts[0].amount = U256::ZERO;
    assert_reverts(send(BASE_SELECTOR, m, U256::ZERO), R::CannotSendZeroTokens {});
    let mut m = good();
    m.tokenAmounts[0].amount = usdc(11);
    assert_reverts(send(BASE_SELECTOR, m, U256::ZERO), R::TransferFailed { token });
}

// ----------------------------------------------------------------- Relay

const ORDER: B256 = B256::repeat_byte(0x0d);

fn announce(chain: u64, recipient: Address) -> Vec<u8> {
    ReferenceRelayDepository::announceCall {
        id: ORDER,
        destinationChainId: U256::from(chain),
        recipient,
    }
    .abi_encode()
}

#[test]
fn relay_erc20_deposit_reports_the_announced_destination() {
    let Source { mut evm, token, executor } = source();
    let relay = deploy_at(&mut evm, RELAY_JSON, &[], RELAY);
    mint(&mut evm, token, executor, usdc(30));
    let deposit = ReferenceRelayDepository::depositErc20_0Call {
        depositor: Address::ZERO,
        token,
        amount: usdc(30),
        id: ORDER,
    };
    let out = run(
        &mut evm,
        executor,
        &[
            (relay, announce(10, RECIPIENT), U256::ZERO),
            (token, approve_data(relay, usdc(30)), U256::ZERO),
            (relay, deposit.abi_encode(), U256::ZERO),
        ],
        U256::ZERO,
    );
    assert_eq!(balance(&mut evm, token, executor), U256::ZERO);
    assert_eq!(balance(&mut evm, token, relay), usdc(30));
    let (from, req) = bridge_request(&out);
    assert_eq!(from, RELAY);
    assert_eq!(req.destinationChainId, U256::from(10u64));
    assert_eq!((req.token, req.amount, req.recipient), (token, usdc(30), RECIPIENT));
    assert!(req.payload.is_empty());
    let (_, dep) =
        event::<ReferenceRelayDepository::RelayErc20Deposit>(&out).expect("RelayErc20Deposit");
    assert_eq!((dep.from, dep.token, dep.amount, dep.id), (executor, token, usdc(30), ORDER));
}

#[test]
fn relay_allowance_and_native_deposits() {
    let Source { mut evm, token, executor } = source();
    let relay = deploy_at(&mut evm, RELAY_JSON, &[], RELAY);
    mint(&mut evm, token, executor, usdc(30));
    let by_allowance =
        ReferenceRelayDepository::depositErc20_1Call { depositor: REFUND, token, id: ORDER };
    let out = run(
        &mut evm,
        executor,
        &[
            (token, approve_data(relay, usdc(12)), U256::ZERO),
            (relay, announce(8453, RECIPIENT), U256::ZERO),
            (relay, by_allowance.abi_encode(), U256::ZERO),
        ],
        U256::ZERO,
    );
    assert_eq!(balance(&mut evm, token, relay), usdc(12));
    let (_, req) = bridge_request(&out);
    assert_eq!((req.destinationChainId, req.amount), (U256::from(8453u64), usdc(12)));
    let (_, dep) =
        event::<ReferenceRelayDepository::RelayErc20Deposit>(&out).expect("RelayErc20Deposit");
    assert_eq!(dep.from, REFUND, "the depositor named is credited");

    let native =
        ReferenceRelayDepository::depositNativeCall { depositor: Address::ZERO, id: ORDER };
    let out = run(
        &mut evm,
        executor,
        &[(relay, announce(42161, RECIPIENT), U256::ZERO), (relay, native.abi_encode(), ether(2))],
        ether(2),
    );
    assert_eq!(evm.balance(relay), ether(2));
    assert_eq!(evm.balance(executor), U256::ZERO);
    let (_, req) = bridge_request(&out);
    assert_eq!(req.destinationChainId, U256::from(42161u64));
    assert_eq!((req.token, req.amount, req.recipient), (NATIVE, ether(2), RECIPIENT));
    let (_, dep) =
        event::<ReferenceRelayDepository::RelayNativeDeposit>(&out).expect("RelayNativeDeposit");
    assert_eq!((dep.from, dep.amount, dep.id), (executor, ether(2), ORDER));
}

#[test]
fn relay_refuses_deposits_not_announced_in_the_same_transaction() {
    use ReferenceRelayDepository as D;
    let Source { mut evm, token, executor } = source();
    let relay = deploy_at(&mut evm, RELAY_JSON, &[], RELAY);
    mint(&mut evm, token, CALLER, usdc(10));
    evm.call(CALLER, token, approve_data(relay, usdc(10)).into(), U256::ZERO).expect("approve");
    let deposit =
        D::depositErc20_0Call { depositor: Address::ZERO, token, amount: usdc(1), id: ORDER };

    let r = evm.call(CALLER, relay, deposit.abi_encode().into(), U256::ZERO);
    assert_reverts(r, D::Unannounced { caller: CALLER, id: ORDER });
    // An announcement lasts one transaction.
    evm.call(CALLER, relay, announce(10, RECIPIENT).into(), U256::ZERO).expect("announce");
    let r = evm.call(CALLER, relay, deposit.abi_encode().into(), U256::ZERO);
    assert_reverts(r, D::Unannounced { caller: CALLER, id: ORDER });
    let r = evm.call(
        CALLER,
        relay,
        D::depositNativeCall { depositor: CALLER, id: ORDER }.abi_encode().into(),
        U256::ZERO,
    );
    assert_reverts(r, D::Unannounced { caller: CALLER, id: ORDER });

    // Announced for another id, or by another caller: refused; consumed once.
    mint(&mut evm, token, executor, usdc(10));
    let other = D::announceCall {
        id: B256::repeat_byte(1),
        destinationChainId: U256::from(10u8),
        recipient: RECIPIENT,
    };
    let data = execute_call(&raw_program(&[
        (relay, other.abi_encode(), U256::ZERO),
        (token, approve_data(relay, usdc(2)), U256::ZERO),
        (relay, deposit.abi_encode(), U256::ZERO),
    ]));
    assert!(evm.call(CALLER, executor, data.into(), U256::ZERO).is_err(), "another id");
    let data = execute_call(&raw_program(&[
        (relay, announce(10, RECIPIENT), U256::ZERO),
        (token, approve_data(relay, usdc(2)), U256::ZERO),
        (relay, deposit.abi_encode(), U256::ZERO),
        (relay, deposit.abi_encode(), U256::ZERO),
    ]));
    assert!(
        evm.call(CALLER, executor, data.into(), U256::ZERO).is_err(),
        "one announcement, one deposit"
    );

    let mut call = |data: Vec<u8>| evm.call(CALLER, relay, data.into(), U256::ZERO);
    assert_reverts(
        call(announce(1, RECIPIENT)),
        D::InvalidDestination { destinationChainId: U256::from(1u8) },
    );
    assert_reverts(
        call(announce(0, RECIPIENT)),
        D::InvalidDestination { destinationChainId: U256::ZERO },
    );
    assert_reverts(call(announce(10, Address::ZERO)), D::InvalidRecipient {});
}

// -------------------------------------------------------------- receiver

/// A destination chain: a token, the executor and the receiver, whose
/// endpoint is [`RELAYER`].
struct Destination {
    evm: Evm,
    token: Address,
    executor: Address,
    receiver: Address,
}

fn destination() -> Destination {
    let mut evm = Evm::at(BlockEnv { chain_id: 8453, ..BlockEnv::default() });
    let token = deploy_token(&mut evm, 6);
    let args = ShortcutsExecutor::constructorCall { executor_: DEPLOYER }.abi_encode();
    let executor =
        evm.deploy_artifact(DEPLOYER, Artifact::ShortcutsExecutor, &args).expect("executor");
    let args = ShortcutsReceiver::constructorCall { executor, endpoint: RELAYER }.abi_encode();
    let receiver = deploy(&mut evm, RECEIVER_JSON, &args);
    // The executor takes shortcuts from the receiver only (as Enso's from
    // its router).
    evm.patch_address(executor, DEPLOYER, receiver).expect("the executor's caller");
    Destination { evm, token, executor, receiver }
}

/// A program that pays `amount` of `token` to `to` (native by a value call).
fn pay_program(token: Address, to: Address, amount: U256) -> Program {
    let mut b = ProgramBuilder::new();
    if token == NATIVE {
        let In::Fixed(v) = b.uint(amount).expect("slot") else { panic!("a uint is a fixed slot") };
        let empty = b.raw(&[]).expect("slot");
        b.raw_call(CallKind::Value(v), to, empty, Out::Ignore).expect("command");
    } else {
        let to = b.address(to).expect("slot");
        let amount = b.uint(amount).expect("slot");
        b.call(
            CallKind::Call,
            token,
            TestERC20::transferCall::SELECTOR,
            &[to, amount],
            Out::Ignore,
        )
        .expect("command");
    }
    b.build()
}

/// `abi.encode(accountId, requestId, commands, state, refundTo)`.
fn payload(program: &Program, refund_to: Address) -> Bytes {
    (ACCOUNT_ID, REQUEST_ID, program.commands.clone(), program.state.clone(), refund_to)
        .abi_encode_params()
        .into()
}

fn deliver(
    evm: &mut Evm,
    from: Address,
    receiver: Address,
    token: Address,
    amount: U256,
    payload: Bytes,
) -> Result<CallOutcome, EvmError> {
    let call = ShortcutsReceiver::deliverCall { token, amount, payload };
    evm.call(from, receiver, call.abi_encode().into(), U256::ZERO)
}

fn assert_executed(
    out: &CallOutcome,
    executor: Address,
    receiver: Address,
    token: Address,
    amount: U256,
) {
    let (at, done) = event::<ShortcutsExecutor::ShortcutExecuted>(out).expect("ShortcutExecuted");
    assert_eq!((at, done.accountId, done.requestId), (executor, ACCOUNT_ID, REQUEST_ID));
    let (at, ok) = event::<ShortcutsReceiver::DeliveryExecuted>(out).expect("DeliveryExecuted");
    assert_eq!((at, ok.requestId, ok.token, ok.amount), (receiver, REQUEST_ID, token, amount));
    assert!(event::<ShortcutsReceiver::DeliveryRefunded>(out).is_none());
}

#[test]
fn receiver_runs_the_program_on_the_delivered_tokens() {
    let Destination { mut evm, token, executor, receiver } = destination();
    assert_eq!(
        evm.view(receiver, &ShortcutsReceiver::executorCall {}).expect("executor"),
        executor
    );
    assert_eq!(evm.view(receiver, &ShortcutsReceiver::endpointCall {}).expect("endpoint"), RELAYER);
    mint(&mut evm, token, receiver, usdc(77));
    let p = payload(&pay_program(token, RECIPIENT, usdc(77)), REFUND);
    let out = deliver(&mut evm, RELAYER, receiver, token, usdc(77), p).expect("delivers");
    assert_eq!(balance(&mut evm, token, RECIPIENT), usdc(77));
    assert_eq!(balance(&mut evm, token, receiver), U256::ZERO);
    assert_eq!(balance(&mut evm, token, executor), U256::ZERO);
    assert_executed(&out, executor, receiver, token, usdc(77));
}

#[test]
fn receiver_refunds_everything_when_the_program_reverts() {
    let Destination { mut evm, token, executor, receiver } = destination();
    mint(&mut evm, token, receiver, usdc(77));
    // Pays one unit more than it has: the transfer reverts.
    let p = payload(&pay_program(token, RECIPIENT, usdc(77) + U256::from(1u8)), REFUND);
    let out = deliver(&mut evm, RELAYER, receiver, token, usdc(77), p).expect("refunds");
    assert_eq!(balance(&mut evm, token, REFUND), usdc(77));
    assert_eq!(balance(&mut evm, token, RECIPIENT), U256::ZERO);
    assert_eq!(balance(&mut evm, token, receiver), U256::ZERO);
    assert_eq!(balance(&mut evm, token, executor), U256::ZERO);
    assert!(event::<ShortcutsExecutor::ShortcutExecuted>(&out).is_none());
    assert!(event::<ShortcutsReceiver::DeliveryExecuted>(&out).is_none());
    let (_, refunded) =
        event::<ShortcutsReceiver::DeliveryRefunded>(&out).expect("DeliveryRefunded");
    assert_eq!(
        (refunded.requestId, refunded.refundTo, refunded.token, refunded.amount),
        (REQUEST_ID, REFUND, token, usdc(77))
    );
    let failed =
        ShortcutsExecutor::ExecutionFailed::abi_decode(&refunded.reason).expect("the VM's error");
    assert_eq!((failed.command_index, failed.target), (U256::ZERO, token));

    // A payload whose program does not even decode is refunded too.
    mint(&mut evm, token, receiver, usdc(5));
    let mut bad = payload(&pay_program(token, RECIPIENT, usdc(5)), REFUND).to_vec();
    bad.truncate(200);
    let out = deliver(&mut evm, RELAYER, receiver, token, usdc(5), bad.into()).expect("refunds");
    assert!(event::<ShortcutsReceiver::DeliveryRefunded>(&out).is_some());
    assert_eq!(balance(&mut evm, token, REFUND), usdc(82));
}

#[test]
fn receiver_delivers_and_refunds_native_value() {
    let Destination { mut evm, executor, receiver, .. } = destination();
    evm.set_balance(receiver, ether(3));
    let p = payload(&pay_program(NATIVE, RECIPIENT, ether(2)), REFUND);
    let out = deliver(&mut evm, RELAYER, receiver, NATIVE, ether(2), p).expect("delivers");
    assert_eq!(evm.balance(RECIPIENT), ether(2));
    assert_eq!(evm.balance(receiver), ether(1));
    assert_eq!(evm.balance(executor), U256::ZERO);
    assert_executed(&out, executor, receiver, NATIVE, ether(2));

    let p = payload(&pay_program(NATIVE, RECIPIENT, ether(2)), REFUND);
    let out = deliver(&mut evm, RELAYER, receiver, NATIVE, ether(1), p).expect("refunds");
    assert_eq!(evm.balance(REFUND), ether(1));
    assert_eq!(evm.balance(receiver), U256::ZERO);
    assert!(event::<ShortcutsReceiver::DeliveryRefunded>(&out).is_some());
}

#[test]
fn receiver_refuses_strangers_missing_funds_and_payloads_without_refund_address() {
    use ShortcutsReceiver as S;
    let Destination { mut evm, token, receiver, .. } = destination();
    mint(&mut evm, token, receiver, usdc(10));
    let p = payload(&pay_program(token, RECIPIENT, usdc(10)), REFUND);
    assert_reverts(
        deliver(&mut evm, CALLER, receiver, token, usdc(10), p.clone()),
        S::NotEndpoint { caller: CALLER },
    );
    assert_reverts(
        deliver(&mut evm, RELAYER, receiver, token, usdc(11), p.clone()),
        S::InsufficientBalance { token, amount: usdc(11), balance: usdc(10) },
    );
    let no_refund = payload(&pay_program(token, RECIPIENT, usdc(10)), Address::ZERO);
    assert_reverts(
        deliver(&mut evm, RELAYER, receiver, token, usdc(10), no_refund),
        S::BadPayload {},
    );
    assert_reverts(
        deliver(&mut evm, RELAYER, receiver, token, usdc(10), Bytes::from(vec![1; 100])),
        S::BadPayload {},
    );
    let inner = S::runCall { token, amount: usdc(10), payload: p };
    assert_reverts(
        evm.call(RELAYER, receiver, inner.abi_encode().into(), U256::ZERO),
        S::OnlySelf {},
    );
    let compose = S::lzComposeCall {
        from: token,
        guid: B256::ZERO,
        message: Bytes::from(vec![0; 75]),
        lzExecutor: Address::ZERO,
        extraData: Bytes::new(),
    };
    assert_reverts(
        evm.call(CALLER, receiver, compose.abi_encode().into(), U256::ZERO),
        S::NotEndpoint { caller: CALLER },
    );
    assert_reverts(
        evm.call(RELAYER, receiver, compose.abi_encode().into(), U256::ZERO),
        S::BadComposeMessage { length: U256::from(75u8) },
    );
    // Nothing moved.
    assert_eq!(balance(&mut evm, token, receiver), usdc(10));
}

/// An OFT compose message: `nonce ‖ srcEid ‖ amountLD ‖ composeFrom ‖ payload`.
fn compose_message(amount: U256, payload: &[u8]) -> Bytes {
    let mut m = Vec::with_capacity(76 + payload.len());
    m.extend_from_slice(&7u64.to_be_bytes());
    m.extend_from_slice(&30101u32.to_be_bytes());
    m.extend_from_slice(&amount.to_be_bytes::<32>());
    m.extend_from_slice(word(CALLER).as_slice());
    m.extend_from_slice(payload);
    m.into()
}

#[test]
fn receiver_lz_compose_delivers_the_oft_amount() {
    let Destination { mut evm, token, executor, receiver } = destination();
    let pool = deploy_pool(&mut evm, token, 6, STARGATE_USDC);
    mint(&mut evm, token, receiver, usdc(9));
    let p = payload(&pay_program(token, RECIPIENT, usdc(9)), REFUND);
    let compose = ShortcutsReceiver::lzComposeCall {
        from: pool,
        guid: B256::repeat_byte(9),
        message: compose_message(usdc(9), &p),
        lzExecutor: Address::repeat_byte(0xe0),
        extraData: Bytes::new(),
    };
    let out =
        evm.call(RELAYER, receiver, compose.abi_encode().into(), U256::ZERO).expect("composes");
    assert_eq!(balance(&mut evm, token, RECIPIENT), usdc(9));
    assert_executed(&out, executor, receiver, token, usdc(9));

    // A native pool's compose delivers native value.
    let native_pool = deploy_pool(&mut evm, Address::ZERO, 18, STARGATE_ETH);
    evm.set_balance(receiver, ether(1));
    let p = payload(&pay_program(NATIVE, RECIPIENT, ether(1)), REFUND);
    let compose = ShortcutsReceiver::lzComposeCall {
        from: native_pool,
        guid: B256::repeat_byte(9),
        message: compose_message(ether(1), &p),
        lzExecutor: Address::ZERO,
        extraData: Bytes::new(),
    };
    let out =
        evm.call(RELAYER, receiver, compose.abi_encode().into(), U256::ZERO).expect("composes");
    assert_eq!(evm.balance(RECIPIENT), ether(1));
    assert_executed(&out, executor, receiver, NATIVE, ether(1));
}

#[test]
fn receiver_ccip_receive_delivers_the_token_amount() {
    let Destination { mut evm, token, executor, receiver } = destination();
    let iface = ShortcutsReceiver::supportsInterfaceCall { interfaceId: hex!("85572ffb").into() };
    assert!(evm.view(receiver, &iface).expect("erc165"));
    let iface = ShortcutsReceiver::supportsInterfaceCall { interfaceId: hex!("01ffc9a7").into() };
    assert!(evm.view(receiver, &iface).expect("erc165"));
    let iface = ShortcutsReceiver::supportsInterfaceCall { interfaceId: hex!("ffffffff").into() };
    assert!(!evm.view(receiver, &iface).expect("erc165"));

    mint(&mut evm, token, receiver, usdc(3));
    let message =
        |amounts: Vec<ShortcutsReceiver::EVMTokenAmount>| ShortcutsReceiver::ccipReceiveCall {
            message: ShortcutsReceiver::Any2EVMMessage {
                messageId: B256::repeat_byte(1),
                sourceChainSelector: ETHEREUM_SELECTOR,
                sender: CALLER.abi_encode().into(),
                data: payload(&pay_program(token, RECIPIENT, usdc(3)), REFUND),
                destTokenAmounts: amounts,
            },
        };
    let one = vec![ShortcutsReceiver::EVMTokenAmount { token, amount: usdc(3) }];
    let r = evm.call(RELAYER, receiver, message(vec![]).abi_encode().into(), U256::ZERO);
    assert_reverts(r, ShortcutsReceiver::UnsupportedTokenCount { count: U256::ZERO });
    let r = evm.call(CALLER, receiver, message(one.clone()).abi_encode().into(), U256::ZERO);
    assert_reverts(r, ShortcutsReceiver::NotEndpoint { caller: CALLER });
    let out = evm
        .call(RELAYER, receiver, message(one).abi_encode().into(), U256::ZERO)
        .expect("receives");
    assert_eq!(balance(&mut evm, token, RECIPIENT), usdc(3));
    assert_executed(&out, executor, receiver, token, usdc(3));
}

#[test]
fn a_stargate_request_delivered_to_the_receiver_runs_its_program() {
    // Source: the executor sends through Stargate with the destination
    // program as compose message, to the receiver on Base.
    let Source { evm: mut src, token: src_token, executor: src_executor } = source();
    let pool = deploy_pool(&mut src, src_token, 6, STARGATE_USDC);
    let Destination { evm: mut dst, token: dst_token, executor: dst_executor, receiver } =
        destination();
    mint(&mut src, src_token, src_executor, usdc(20));
    let program = pay_program(dst_token, RECIPIENT, usdc(20));
    let param = send_param(BASE_EID, word(receiver), usdc(20), usdc(20), payload(&program, REFUND));
    let out = run(
        &mut src,
        src_executor,
        &[
            (src_token, approve_data(pool, usdc(20)), U256::ZERO),
            (pool, stargate_send(param, U256::ZERO, src_executor).abi_encode(), U256::ZERO),
        ],
        U256::ZERO,
    );
    let (_, req) = bridge_request(&out);
    assert_eq!(req.destinationChainId, U256::from(dst.block().chain_id));

    // Destination: the relayer pays the receiver and delivers the payload.
    mint(&mut dst, dst_token, req.recipient, req.amount);
    let out = deliver(&mut dst, RELAYER, req.recipient, dst_token, req.amount, req.payload)
        .expect("delivers");
    assert_eq!(balance(&mut dst, dst_token, RECIPIENT), usdc(20));
    assert_executed(&out, dst_executor, receiver, dst_token, usdc(20));
}

// ------------------------------------------------------------- id tables

fn catalog_chains(bridge: &str) -> Vec<u64> {
    let v: serde_json::Value = serde_json::from_str(BRIDGES_JSON).expect("bridges.json");
    let b = v["bridges"]
        .as_array()
        .expect("bridges")
        .iter()
        .find(|b| b["name"] == bridge)
        .expect("bridge");
    b["contracts"]
        .as_object()
        .expect("contracts")
        .keys()
        .map(|k| k.parse().expect("chain id"))
        .collect()
}

#[test]
fn the_id_tables_match_the_contracts_and_cover_the_catalog() {
    let mut evm = Evm::new();
    let messenger = deploy(&mut evm, MESSENGER_JSON, &[]);
    let pool = deploy(
        &mut evm,
        STARGATE_JSON,
        &ReferenceStargatePool::constructorCall { token: Address::ZERO, localDecimals: 18 }
            .abi_encode(),
    );
    let router = deploy(&mut evm, CCIP_JSON, &[]);

    for domain in 0..64u32 {
        let got = evm
            .view(messenger, &ReferenceTokenMessengerV2::domainChainIdCall { domain })
            .expect("view");
        let want = CCTP_DOMAINS.iter().find(|(d, _)| *d == domain).map_or(0, |(_, c)| *c);
        assert_eq!(got, U256::from(want), "domain {domain}");
    }
    for (eid, chain) in LZ_EIDS {
        let got = evm.view(pool, &ReferenceStargatePool::eidChainIdCall { eid }).expect("view");
        assert_eq!(got, U256::from(chain), "eid {eid}");
    }
    assert_eq!(
        evm.view(pool, &ReferenceStargatePool::eidChainIdCall { eid: 30112 }).expect("view"),
        U256::ZERO
    );
    for (selector, chain) in CCIP_SELECTORS {
        let got =
            evm.view(router, &ReferenceCcipRouter::selectorChainIdCall { chainSelector: selector });
        assert_eq!(got.expect("view"), U256::from(chain), "selector {selector}");
    }

    for chain in catalog_chains("cctp") {
        assert!(CCTP_DOMAINS.iter().any(|(_, c)| *c == chain), "cctp chain {chain} has a domain");
    }
    for chain in catalog_chains("stargate") {
        assert!(LZ_EIDS.iter().any(|(_, c)| *c == chain), "stargate chain {chain} has an eid");
    }
    for chain in catalog_chains("ccip") {
        assert!(
            CCIP_SELECTORS.iter().any(|(_, c)| *c == chain),
            "ccip chain {chain} has a selector"
        );
    }
    let lz: serde_json::Value = serde_json::from_str(LAYERZERO_JSON).expect("layerzero.json");
    for p in lz["layerzeroPools"].as_array().expect("pools") {
        let eid = u32::try_from(p["eid"].as_u64().expect("eid")).expect("u32");
        let chain = p["chainId"].as_u64().expect("chain");
        assert!(LZ_EIDS.contains(&(eid, chain)), "pool eid {eid} is chain {chain}");
    }
}
