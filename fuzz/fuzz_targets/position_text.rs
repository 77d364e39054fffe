//! The position text of every variant: see `chessgold_fuzz::props::position_text`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chessgold_fuzz::props::position_text(data));
