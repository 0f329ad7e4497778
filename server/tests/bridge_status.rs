//! CCTP bridge status and claims, followed on two real nodes: a Hardhat
//! node of chain 1 and one of chain 8453 (`tests/node`), each running the
//! CCTP V2 reference contracts at Circle's deployed addresses (as the
//! world places them) and USDC as FiatToken at the chain's USDC address.
//!
//! A real burn (`depositForBurn` on chain 1) is followed by the server
//! binary, which reads both nodes (`[[bridge_nodes]]`) and an attestation
//! service at `cctp_attestation_url`. Circle's service cannot be reached
//! from the test machines, so a local one answers in its documented V2
//! format (`GET /v2/messages/{sourceDomain}?transactionHash=…`), signing
//! with the world's attester key the nodes' transmitters trust:
//!
//! 1. not yet seen by the service: `pending`, no claim;
//! 2. seen, awaiting confirmations: `pending`;
//! 3. attested: `inflight`, and the claim is `receiveMessage` on chain
//!    8453, which the test sends there;
//! 4. received: `delivered` with the destination transaction, the claim
//!    refused ("Already claimed"), the recipient holding the amount.
#![cfg(unix)]
// Blocking test code driving child processes; no async runtime here.
#![allow(clippy::disallowed_methods)]

mod common;

use std::{
    io::{Read, Write},
    net::TcpListener,
    path::Path,
    sync::{Arc, Mutex},
};

use alloy_primitives::{Address, B256, Bytes, U256, address, keccak256};
use alloy_sol_types::{SolCall, SolConstructor, SolEvent, SolValue, sol};
use serde_json::{Value, json};
use switchyard_engine::evm::{
    abi::{
        CctpMessageTransmitterV2 as Transmitter, CctpTokenMessengerV2 as Messenger,
        CctpTokenMinterV2 as Minter, ReferenceFiatToken,
    },
    cctp,
};

use common::{
    Proc, free_port,
    node::{Node, http, load_worlds, ours, repo, serve_config},
};

const MESSENGER: Address = address!("28b5a0e9c621a5badaa536219b3a228c8168cf5d");
const TRANSMITTER: Address = address!("81d40f21f12a8f0e3252bccb954d722d4c464b64");
const MINTER: Address = address!("fd78ee919681417d192449715b2594ab58f5d002");
const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const USDC_BASE: Address = address!("833589fcd6edb6e08f4c7c32d4f71b54bda02913");
const RECIPIENT: Address = address!("00000000000000000000000000000000000b0b01");

sol! {
    interface Usdc {
        function approve(address spender, uint256 amount) external returns (bool);
        function balanceOf(address who) external view returns (uint256);
    }
}

/// The slot of `var` in one of our artifacts (its storage layout).
fn slot(artifact: &str, var: &str) -> U256 {
    let path = repo().join(format!("contracts/artifacts/{artifact}.json"));
    let v: Value = serde_json::from_slice(&std::fs::read(path).expect("artifact")).expect("json");
    U256::from(v["storage"][var].as_u64().unwrap_or_else(|| panic!("{artifact}.{var}")))
}

/// The slot of `mapping[key]` at `base` (`key` one ABI word).
fn entry(key: &[u8], base: U256) -> U256 {
    let mut pre = key.to_vec();
    pre.extend(base.to_be_bytes::<32>());
    U256::from_be_bytes(keccak256(pre).0)
}

/// CCTP on `node` as the world places it: the three contracts at their
/// deployed addresses for `domain`, linked to `remote` (its domain and
/// USDC), and `usdc` as FiatToken with the minter allowed.
fn place_cctp(node: &Node, me: Address, domain: u32, usdc: Address, remote: (u32, Address)) {
    let deploy = |name: &str, args: Vec<u8>| {
        let mut code = ours(name);
        code.extend(args);
        node.send(me, None, &code).expect("deployed")
    };
    let fiat = "ReferenceFiatToken";
    let args = ReferenceFiatToken::constructorCall {
        name_: "USD Coin".into(),
        symbol_: "USDC".into(),
        decimals_: 6,
        minter_: MINTER,
        allowance_: U256::MAX,
    };
    let scratch = deploy(fiat, args.abi_encode());
    let minter_word = MINTER.into_word();
    node.relocate(
        scratch,
        usdc,
        &[
            slot(fiat, "name"),
            slot(fiat, "symbol"),
            slot(fiat, "masterMinter"),
            entry(minter_word.as_slice(), slot(fiat, "minters")),
            entry(minter_word.as_slice(), slot(fiat, "minterAllowed")),
        ],
    );
    let mt = "ReferenceMessageTransmitterV2";
    let args = Transmitter::constructorCall {
        localDomain_: domain,
        version_: 1,
        attesters_: vec![cctp::attester()],
        signatureThreshold_: U256::ONE,
        maxMessageBodySize_: U256::from(cctp::MAX_MESSAGE_BODY_SIZE),
    };
    let scratch = deploy(mt, args.abi_encode());
    let list = slot(mt, "enabledAttesters");
    node.relocate(
        scratch,
        TRANSMITTER,
        &[
            slot(mt, "maxMessageBodySize"),
            slot(mt, "signatureThreshold"),
            list,
            U256::from_be_bytes(keccak256(list.to_be_bytes::<32>()).0),
            entry(cctp::attester().into_word().as_slice(), slot(mt, "attesterEnabled")),
            entry(B256::ZERO.as_slice(), slot(mt, "usedNonces")),
        ],
    );
    let tm = "ReferenceTokenMinterV2";
    let args = Minter::constructorCall {
        localTokenMessenger_: MESSENGER,
        localToken_: usdc,
        burnLimitPerMessage_: U256::from(10u64.pow(13)),
        remoteDomains_: vec![remote.0],
        remoteTokens_: vec![remote.1.into_word()],
    };
    let scratch = deploy(tm, args.abi_encode());
    let pair = keccak256((remote.0, remote.1.into_word()).abi_encode_packed());
    node.relocate(
        scratch,
        MINTER,
        &[
            slot(tm, "localTokenMessenger"),
            entry(usdc.into_word().as_slice(), slot(tm, "burnLimitsPerMessage")),
            entry(pair.as_slice(), slot(tm, "remoteTokensToLocalTokens")),
        ],
    );
    let ms = "ReferenceTokenMessengerV2";
    let args = Messenger::constructorCall {
        messageTransmitter_: TRANSMITTER,
        messageBodyVersion_: 1,
        tokenMinter_: MINTER,
        feeRecipient_: me,
        remoteDomains_: vec![remote.0],
        remoteTokenMessengers_: vec![MESSENGER.into_word()],
    };
    let scratch = deploy(ms, args.abi_encode());
    node.relocate(
        scratch,
        MESSENGER,
        &[
            slot(ms, "localMinter"),
            slot(ms, "feeRecipient"),
            entry(&U256::from(remote.0).to_be_bytes::<32>(), slot(ms, "remoteTokenMessengers")),
        ],
    );
}

/// `me` given the burn's amount of USDC on `node` (in storage) and burning
/// it as `burn` says: the transaction and the message it sent.
fn burn_on(node: &Node, me: Address, burn: &Messenger::depositForBurnCall) -> (String, Bytes) {
    let fiat = "ReferenceFiatToken";
    for at in [entry(me.into_word().as_slice(), slot(fiat, "balanceOf")), slot(fiat, "totalSupply")]
    {
        node.rpc(
            "hardhat_setStorageAt",
            json!([burn.burnToken, format!("{at:#x}"), format!("{:#066x}", burn.amount)]),
        );
    }
    let approve = Usdc::approveCall { spender: MESSENGER, amount: burn.amount };
    node.send(me, Some(burn.burnToken), &approve.abi_encode());
    let (tx, receipt) = node.transact(me, Some(MESSENGER), &burn.abi_encode());
    let sent = receipt["logs"]
        .as_array()
        .expect("logs")
        .iter()
        .find(|l| l["topics"][0] == json!(Transmitter::MessageSent::SIGNATURE_HASH))
        .expect("MessageSent");
    let data: Bytes = serde_json::from_value(sent["data"].clone()).expect("data");
    let (message,) = Transmitter::MessageSent::abi_decode_data(&data).expect("message");
    (tx, message)
}

/// What the local attestation service answers: `None` is a 404.
type Answer = Arc<Mutex<Option<Value>>>;

/// A local server answering `GET /v2/messages/…` as Circle's V2 service
/// does; returns its port.
fn attestation_service(answer: Answer) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]);
            let wanted = head.starts_with("GET /v2/messages/0?transactionHash=0x");
            let body = answer.lock().map(|a| a.clone()).unwrap_or(None).filter(|_| wanted);
            let (status, text) = match body {
                Some(v) => ("200 OK", v.to_string()),
                None => ("404 Not Found", json!({"error": "Message not found"}).to_string()),
            };
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    port
}

struct Server {
    addr: String,
    key: String,
    _proc: Proc,
}

impl Server {
    fn get(&self, path: &str) -> Value {
        let (status, body) = http(&self.addr, "GET", path, &self.key, "").expect("answer");
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).expect("json")
    }
}

fn serve(dir: &Path, nodes: [(u64, u16); 2], attestation: u16) -> Server {
    let mut config = format!("cctp_attestation_url = \"http://127.0.0.1:{attestation}\"\n");
    for (chain, port) in nodes {
        config.push_str(&format!(
            "\n[[bridge_nodes]]\nchain_id = {chain}\nurl = \"http://127.0.0.1:{port}\"\n"
        ));
    }
    let (addr, key, proc) = serve_config(dir, &config);
    Server { addr, key, _proc: proc }
}

#[test]
fn a_cctp_burn_is_followed_from_burn_to_delivery_on_two_nodes() {
    let dir = common::temp_dir("bridge-status");
    let (port_a, port_b) = (free_port(), free_port());
    let mut ethereum = Node::start(port_a);
    let mut base = Node::start_with(port_b, "hardhat.base.config.js");
    assert_eq!(base.rpc("eth_chainId", json!([])), json!("0x2105"));
    let me = ethereum.accounts()[0];
    let relayer = base.accounts()[0];
    place_cctp(&ethereum, me, 0, USDC, (6, USDC_BASE));
    place_cctp(&base, relayer, 6, USDC_BASE, (0, USDC));
    let amount = U256::from(5_000_000_000u64);
    let burn = Messenger::depositForBurnCall {
        amount,
        destinationDomain: 6,
        mintRecipient: RECIPIENT.into_word(),
        burnToken: USDC,
        destinationCaller: B256::ZERO,
        maxFee: U256::ZERO,
        minFinalityThreshold: cctp::FINALIZED,
    };
    let (tx, message) = burn_on(&ethereum, me, &burn);

    let answer: Answer = Arc::new(Mutex::new(None));
    let service = attestation_service(Arc::clone(&answer));
    let server = serve(&dir, [(1, port_a), (8453, port_b)], service);
    let check = format!("/api/v1/cctp/bridge/check?chainId=1&txHash={tx}");
    let claim = format!("/api/v1/cctp/bridge/claim?chainId=1&txHash={tx}");

    // 1. Burned; the service has not seen it.
    let s = server.get(&check);
    assert_eq!(s["status"], "pending", "{s}");
    assert_eq!(s["destinationChainId"], 8453, "{s}");
    let params = &s["depositForBurn"];
    assert_eq!(params["amount"], amount.to_string(), "{s}");
    assert_eq!(params["destinationDomain"], 6, "{s}");
    assert_eq!(params["mintRecipient"], format!("{:#x}", RECIPIENT.into_word()), "{s}");
    assert_eq!(params["minFinalityThreshold"], cctp::FINALIZED, "{s}");
    assert!(s.get("depositForBurnWithHook").is_none(), "{s}");
    let c = server.get(&claim);
    assert_eq!(c["claimable"], false, "{c}");
    assert_eq!(c["destinationChainId"], 8453, "{c}");

    // 2. Seen, awaiting confirmations.
    let burn_message = cctp::BurnMessage::decode(&message).expect("burn message");
    let nonce = keccak256(b"the service's nonce");
    let attested = burn_message.attested(nonce);
    let signature = cctp::attest(&attested).expect("signs");
    let entry_of = |attestation: String, status: &str| {
        json!({"messages": [{
            "message": format!("{attested}"), "eventNonce": format!("{nonce}"),
            "attestation": attestation, "decodedMessage": null, "cctpVersion": 2,
            "status": status, "delayReason": null,
        }]})
    };
    *answer.lock().expect("lock") = Some(entry_of("PENDING".into(), "pending_confirmations"));
    let s = server.get(&check);
    assert_eq!(s["status"], "pending", "{s}");
    assert!(s["error"].as_str().is_some_and(|e| e.contains("pending_confirmations")), "{s}");

    // 3. Attested: in flight, and claimable on Base.
    *answer.lock().expect("lock") = Some(entry_of(format!("{signature}"), "complete"));
    let s = server.get(&check);
    assert_eq!(s["status"], "inflight", "{s}");
    assert_eq!(s["transferType"], "standard", "{s}");
    let c = server.get(&claim);
    assert_eq!(c["claimable"], true, "{c}");
    let claim_tx = &c["tx"];
    assert_eq!(claim_tx["chainId"], 8453, "{c}");
    assert_eq!(claim_tx["to"], format!("{TRANSMITTER:#x}"), "{c}");
    let expected = Transmitter::receiveMessageCall { message: attested, attestation: signature };
    assert_eq!(claim_tx["data"], format!("{}", Bytes::from(expected.abi_encode())), "{c}");
    let data: Bytes = serde_json::from_value(claim_tx["data"].clone()).expect("hex");
    let (received, _) = base.transact(relayer, Some(TRANSMITTER), &data);
    let held = base.call(USDC_BASE, &Usdc::balanceOfCall { who: RECIPIENT }.abi_encode());
    assert_eq!(U256::from_be_slice(&held), amount);

    // 4. Delivered, once.
    let s = server.get(&check);
    assert_eq!(s["status"], "delivered", "{s}");
    assert_eq!(s["destinationTxHash"], received, "{s}");
    let c = server.get(&claim);
    assert_eq!(c["claimable"], false, "{c}");
    assert_eq!(c["reason"], "Already claimed", "{c}");

    // A burn only one caller may receive: attested, but no claim for
    // anyone else to send.
    let only = address!("00000000000000000000000000000000000c0de0");
    let burn = Messenger::depositForBurnCall {
        amount: U256::from(1_000_000u64),
        destinationCaller: only.into_word(),
        ..burn
    };
    let (tx2, message) = burn_on(&ethereum, me, &burn);
    let attested = cctp::BurnMessage::decode(&message).expect("burn").attested(keccak256(b"two"));
    let signature = cctp::attest(&attested).expect("signs");
    *answer.lock().expect("lock") = Some(json!({"messages": [{
        "message": format!("{attested}"), "attestation": format!("{signature}"),
        "status": "complete", "delayReason": null, "cctpVersion": 2,
    }]}));
    let s = server.get(&format!("/api/v1/cctp/bridge/check?chainId=1&txHash={tx2}"));
    assert_eq!(s["status"], "inflight", "{s}");
    assert_eq!(s["depositForBurn"]["destinationCaller"], format!("{:#x}", only.into_word()), "{s}");
    let c = server.get(&format!("/api/v1/cctp/bridge/claim?chainId=1&txHash={tx2}"));
    assert_eq!(c["claimable"], false, "{c}");
    assert!(
        c["reason"].as_str().is_some_and(|r| r.contains(&format!("{:#x}", only.into_word()))),
        "{c}"
    );

    // Nothing on the node for another hash.
    let other = format!("/api/v1/cctp/bridge/check?chainId=1&txHash={:#x}", B256::repeat_byte(3));
    let s = server.get(&other);
    assert_eq!(s["status"], "unknown", "{s}");
    assert!(s["error"].as_str().is_some_and(|e| e.contains("receipt not found")), "{s}");
    // A chain no node follows here.
    let s = server.get(&format!("/api/v1/cctp/bridge/check?chainId=42161&txHash={tx}"));
    assert_eq!(s["status"], "unknown", "{s}");
    // Both nodes gone before the next test starts its own.
    ethereum.stop();
    base.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sends `data` to `to` with `value` wei from `from`; the hash and receipt.
fn send_value(
    node: &Node,
    from: Address,
    to: Address,
    data: &[u8],
    value: U256,
) -> (String, Value) {
    let tx = json!({
        "from": from, "to": to, "data": Bytes::copy_from_slice(data),
        "gas": "0xf42400", "value": format!("{value:#x}"),
    });
    let hash = node.rpc("eth_sendTransaction", json!([tx]));
    let receipt = node.rpc("eth_getTransactionReceipt", json!([hash]));
    assert_eq!(receipt["status"], "0x1", "transaction failed: {receipt}");
    (hash.as_str().expect("hash").to_owned(), receipt)
}

/// The logs of `receipt` as alloy logs.
fn logs_of(receipt: &Value) -> Vec<alloy_primitives::Log> {
    receipt["logs"]
        .as_array()
        .expect("logs")
        .iter()
        .map(|l| {
            let address: Address = serde_json::from_value(l["address"].clone()).expect("address");
            let topics: Vec<B256> = serde_json::from_value(l["topics"].clone()).expect("topics");
            let data: Bytes = serde_json::from_value(l["data"].clone()).expect("data");
            alloy_primitives::Log::new_unchecked(address, topics, data)
        })
        .collect()
}

/// A Stargate taxi from Ethereum to Base that composes into Enso's
/// composer, followed by the server on two real nodes loaded with the
/// world's contracts (Stargate's and LayerZero's published bytecode): sent
/// (`pending`, LayerZero's `INFLIGHT`), verified on Base by the message
/// library (`inflight`, `CONFIRMING`), received by the endpoint (still
/// `inflight`: the shortcut on arrival waits for its `lzCompose`), then
/// composed: `delivered`, with the receiving transaction and the shortcut
/// Base's executor ran. A second taxi whose shortcut cannot run is
/// delivered with `success: false`, and its receiver holds what arrived.
#[test]
fn a_stargate_taxi_is_followed_from_send_to_its_shortcut_on_arrival() {
    use switchyard_engine::{
        encode::protocols::IShortcuts,
        evm::{
            abi::{LzEndpointV2 as Endpoint, LzSimpleMessageLib, StargatePool as Pool},
            layerzero::{self, Packet},
        },
    };
    const POOL: Address = address!("c026395860db2d07ee33e05fe50ed7bd583189c7");
    const BASE_POOL: Address = address!("27a16dc786820b16e5c9028b75b99f6f604b5d26");
    const ENDPOINT: Address = address!("1a44076050125825900e736c501f859c50fe728c");
    const COMPOSER: Address = address!("bf7773ad9d1abcc0a01981e3bff7e6408a775939");
    let dir = common::temp_dir("stargate-status");
    let (port_a, port_b) = (free_port(), free_port());
    let mut ethereum = Node::start(port_a);
    let mut base = Node::start_with(port_b, "hardhat.base.config.js");
    load_worlds(&[(&ethereum, 1), (&base, 8453)]);
    let me = ethereum.accounts()[0];
    let relayer = base.accounts()[0];
    let server = serve(&dir, [(1, port_a), (8453, port_b)], free_port());

    // Sends a taxi of `amount` USDC to the composer with `shortcut`, the
    // receiver `to` should it fail.
    let taxi = |amount: U256, to: Address, shortcut: Bytes| {
        let balance = entry(me.into_word().as_slice(), slot("ReferenceFiatToken", "balanceOf"));
        ethereum.rpc(
            "hardhat_setStorageAt",
            json!([USDC, format!("{balance:#x}"), format!("{amount:#066x}")]),
        );
        ethereum.transact(
            me,
            Some(USDC),
            &Usdc::approveCall { spender: POOL, amount }.abi_encode(),
        );
        let compose = (to, U256::ZERO, U256::from(100_000u64), shortcut).abi_encode_params();
        let param = Pool::SendParam {
            dstEid: 30184,
            to: COMPOSER.into_word(),
            amountLD: amount,
            minAmountLD: U256::ZERO,
            extraOptions: layerzero::lz_compose_options(0, 1_000_000, 0),
            composeMsg: compose.into(),
            oftCmd: Bytes::new(),
        };
        let quote = Pool::quoteSendCall { sendParam: param.clone(), payInLzToken: false };
        let fee = Pool::quoteSendCall::abi_decode_returns(&ethereum.call_from(
            me,
            POOL,
            &quote.abi_encode(),
        ))
        .expect("a fee");
        let send = Pool::sendCall { sendParam: param, fee: fee.clone(), refundAddress: me };
        let (hash, receipt) = send_value(&ethereum, me, POOL, &send.abi_encode(), fee.nativeFee);
        let packet = logs_of(&receipt)
            .iter()
            .find_map(|l| Endpoint::PacketSent::decode_log(l).ok())
            .and_then(|e| Packet::decode(&e.encodedPayload))
            .expect("a packet");
        (hash, packet)
    };
    let check =
        |hash: &str| server.get(&format!("/api/v1/stargate/bridge/check?chainId=1&txHash={hash}"));
    let relay = |packet: &Packet| {
        let verify = LzSimpleMessageLib::validatePacketCall { packetBytes: packet.raw.clone() };
        base.transact(relayer, Some(layerzero::MESSAGE_LIB), &verify.abi_encode());
    };
    let receive = |packet: &Packet| {
        let call = Endpoint::lzReceiveCall {
            origin: Endpoint::Origin {
                srcEid: packet.src_eid,
                sender: packet.sender,
                nonce: packet.nonce,
            },
            receiver: packet.receiver,
            guid: packet.guid,
            message: packet.message.clone(),
            extraData: Bytes::new(),
        };
        let (hash, receipt) = base.transact(relayer, Some(ENDPOINT), &call.abi_encode());
        let composed = logs_of(&receipt)
            .iter()
            .find_map(|l| Endpoint::ComposeSent::decode_log(l).ok())
            .expect("a compose message");
        (hash, composed)
    };

    // An empty shortcut: Base's executor runs it and emits ShortcutExecuted.
    let (account_id, request_id) = (B256::repeat_byte(0xa1), B256::repeat_byte(0x7e));
    let empty = IShortcuts::executeShortcutCall {
        accountId: account_id,
        requestId: request_id,
        commands: Vec::new(),
        state: Vec::new(),
    };
    let amount = U256::from(2_000_000_000u64);
    let (sent, packet) = taxi(amount, RECIPIENT, empty.abi_encode().into());
    let s = check(&sent);
    assert_eq!(s["status"], "pending", "{s}");
    assert_eq!(s["destinationChainId"], 8453, "{s}");
    let m = &s["layerZeroMessage"];
    assert_eq!((m["srcEid"].clone(), m["dstEid"].clone()), (json!(30101), json!(30184)), "{s}");
    assert_eq!(m["status"], "INFLIGHT", "{s}");
    assert_eq!(m["srcTxHash"], sent, "{s}");

    relay(&packet);
    let s = check(&sent);
    assert_eq!(
        (s["status"].clone(), s["layerZeroMessage"]["status"].clone()),
        (json!("inflight"), json!("CONFIRMING")),
        "{s}"
    );

    let (received, composed) = receive(&packet);
    assert_eq!((composed.from, composed.to), (BASE_POOL, COMPOSER));
    let s = check(&sent);
    assert_eq!(s["status"], "inflight", "{s}");
    assert!(s["error"].as_str().is_some_and(|e| e.contains("lzCompose")), "{s}");

    let compose = |composed: &Endpoint::ComposeSent| {
        let call = Endpoint::lzComposeCall {
            from: composed.from,
            to: composed.to,
            guid: composed.guid,
            index: composed.index,
            message: composed.message.clone(),
            extraData: Bytes::new(),
        };
        base.transact(relayer, Some(ENDPOINT), &call.abi_encode()).0
    };
    let ran = compose(&composed);
    let s = check(&sent);
    assert_eq!(s["status"], "delivered", "{s}");
    assert_eq!(s["destinationTxHash"], received, "{s}");
    assert_eq!(s["layerZeroMessage"]["status"], "DELIVERED", "{s}");
    assert_eq!(s["layerZeroMessage"]["dstTxHash"], received, "{s}");
    let e = &s["ensoDestinationEvent"];
    assert_eq!(
        (e["success"].clone(), e["transactionHash"].clone()),
        (json!(true), json!(ran)),
        "{s}"
    );
    assert_eq!(e["chainId"], 8453, "{s}");
    assert_eq!(e["requestId"], format!("{request_id:#x}"), "{s}");

    // A shortcut that cannot run: delivered, `success: false`, and the
    // receiver holds what arrived.
    let (sent, packet) = taxi(amount, RECIPIENT, Bytes::from_static(b"no shortcut"));
    relay(&packet);
    let (_, composed) = receive(&packet);
    compose(&composed);
    let s = check(&sent);
    assert_eq!(s["status"], "delivered", "{s}");
    assert_eq!(s["ensoDestinationEvent"]["success"], false, "{s}");
    assert!(s["error"].as_str().is_some_and(|e| e.contains("failed")), "{s}");
    let held = base.call(USDC_BASE, &Usdc::balanceOfCall { who: RECIPIENT }.abi_encode());
    let arrived = U256::from(1_998_799_999u64);
    assert_eq!(
        U256::from_be_slice(&held),
        arrived,
        "2,000 USDC less FeeLibV1's 6 bps and one unit"
    );
    ethereum.stop();
    base.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
