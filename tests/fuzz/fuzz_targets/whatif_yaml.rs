#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kschedtui::fuzzing::whatif_yaml(data));
