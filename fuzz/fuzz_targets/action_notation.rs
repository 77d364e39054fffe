//! The action notation of every variant: see `chessgold_fuzz::props::action_notation`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chessgold_fuzz::props::action_notation(data));
