#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kschedtui::fuzzing::engine(data));
