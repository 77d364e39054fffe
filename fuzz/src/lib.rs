//! What the fuzz targets check. The engine's properties live in `props.rs`, which the engine's
//! own test suite also compiles (`crates/engine/tests/fuzz_corpora.rs`) to replay the committed
//! corpora; the socket protocol is the service's own `src/game/protocol.rs`, compiled here on its
//! own with its refusal codes (they depend on serde, serde_json and the engine only), so the service crate need not be built.

pub mod props;

#[path = "../../src/game/protocol.rs"]
pub mod protocol;

#[path = "../../src/game/refusal.rs"]
pub mod refusal;

use refusal::RefusalCode;

/// A socket text frame: decoding never panics; a decoded message encodes to a text that decodes
/// to the same message; a refusal has one of the protocol's codes and a reason.
pub fn protocol_message(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match protocol::parse(text) {
        Ok(message) => {
            let encoded = message.encode();
            assert_eq!(protocol::parse(&encoded), Ok(message), "{text} encodes as {encoded}");
        }
        Err(e) => {
            assert!(matches!(e.code, RefusalCode::Malformed | RefusalCode::UnknownType), "{text}: code {}", e.code);
            assert!(!e.message.is_empty(), "{text}: no reason");
        }
    }
}
