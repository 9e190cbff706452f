//! A seeded stream of generated programs; each can shrink to a smaller one that keeps a
//! property (a disagreement, say).

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::gen::{prog_with, Features, Prog};

/// Programs generated from a seed: the same seed gives the same programs.
pub struct Programs {
    runner: TestRunner,
    features: Features,
}

/// One generated program, which can shrink.
pub struct Case {
    tree: Box<dyn ValueTree<Value = Prog>>,
}

impl Programs {
    /// The stream for `seed`, with the constructs of `features`.
    pub fn new(seed: u64, features: Features) -> Programs {
        let mut bytes = [0u8; 32];
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            chunk.copy_from_slice(&seed.wrapping_add(i as u64).to_le_bytes());
        }
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
        Programs { runner: TestRunner::new_with_rng(Config::default(), rng), features }
    }

    /// The next program.
    pub fn next_case(&mut self) -> Case {
        let tree = prog_with(self.features).new_tree(&mut self.runner).expect("the generator never rejects");
        Case { tree: Box::new(tree) }
    }
}

impl Case {
    /// The program.
    pub fn prog(&self) -> Prog {
        self.tree.current()
    }

    /// Shrinks while `keeps` holds for the smaller program, at most `steps` tries; returns
    /// the smallest program found that keeps it (the original when none does).
    pub fn shrink(&mut self, mut keeps: impl FnMut(&Prog) -> bool, steps: usize) -> Prog {
        let mut best = self.tree.current();
        for _ in 0..steps {
            if !self.tree.simplify() {
                break;
            }
            let candidate = self.tree.current();
            if keeps(&candidate) {
                best = candidate;
            } else if !self.tree.complicate() {
                break;
            }
        }
        best
    }
}
