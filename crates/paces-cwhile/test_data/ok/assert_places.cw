// An `assert` is a fixed point of its block's order; an `assertd` is not: A and B may move
// across d (C writes what d reads), nothing moves across a; the `if` I, which holds an assert,
// moves like any item (across C).
var x = 0, y = 0, z = 0;

thread t {
  A: x := 1;
  d: assertd(z == 0);
  B: y := 1;
  a: assert(x == 1);
  C: z := 1;
  I: if (y == 1) {
    i: assert(y == 1);
  }
}
