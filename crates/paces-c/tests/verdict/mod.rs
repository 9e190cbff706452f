//! The unreach-call verdict of a pthread C reading: shared by the tests of the pthread reader.

use paces_c::pthread::Reading;
use paces_explore::{check, Config, FailureKinds, Verdict};

/// Whether an assertion of the model can fail (`true`: the error is reachable).
pub fn fails(reading: &Reading) -> bool {
    let config = Config::new().find(FailureKinds::BAD);
    match check(&reading.program, &config).expect("check").verdict {
        Verdict::Bad(_) => true,
        Verdict::Correct => false,
        other => panic!("unexpected verdict {}", other.name()),
    }
}
