//! The socket protocol's message decoding: see `chessgold_fuzz::protocol_message`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chessgold_fuzz::protocol_message(data));
