//! A seeded stream of generated programs; each can shrink to a smaller one that keeps a
//! property (a disagreement, say).

use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::gen::{prog_with, Features, Prog};

/// Programs generated from a seed: the same seed gives the same programs.
pub struct Programs {
    runner: TestRunner,
    /// The generator, made once: making it is most of the cost of a small program (it draws
    /// nothing from the random stream, so the stream is the same as with one made per program).
    strategy: BoxedStrategy<Prog>,
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
        Programs { runner: TestRunner::new_with_rng(Config::default(), rng), strategy: prog_with(features).boxed() }
    }

    /// The next program.
    pub fn next_case(&mut self) -> Case {
        let tree = self.strategy.new_tree(&mut self.runner).expect("the generator never rejects");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::Code;

    /// Made once or made for every program, the generator gives the same stream.
    #[test]
    fn the_stream_does_not_depend_on_making_the_generator_once() {
        let mut once = Programs::new(11, Features::ALL);
        let mut fresh = Programs::new(11, Features::ALL);
        for _ in 0..40 {
            let a = Code::new(&once.next_case().prog()).text();
            let tree = prog_with(Features::ALL).new_tree(&mut fresh.runner).expect("the generator never rejects");
            assert_eq!(a, Code::new(&tree.current()).text());
        }
    }
}
