/* styled: a model written the way the paper's tool's corrected models are (prototypes before
 * the definitions, `#define`d thread ids, `main` setting every global, `nondet == 0` and
 * `nondet != 0` choices, `while (1)`, an `int` function without a `return`, sections inside
 * a branch, a `noReorderBegin/End` region, `assertd` with `|`). It is correct as written.
 */
#define PRODUCER 1
#define CONSUMER 2

int owner;
int slots;
int ready;

void main();
int take(int who);
int producer();
int consumer();

void main() {
  owner = 0;
  slots = 0;
  ready = 0;
  producer();
  consumer();
}

int take(int who) {
  int got;
  got = 0;
  atomicBegin();
    assume(owner == 0);
    owner = who;
  atomicEnd();
  if (slots > 0) {
    atomicBegin();
      slots = slots - 1;
      if (nondet == 0) {
        got = -1;
      } else {
        got = 1;
      }
    atomicEnd();
  } else {
    assert(owner == who);
  }
  owner = 0;
  return got;
}

int producer() {
  int i;
  i = 0;
  if (nondet != 0) {
    atomicBegin();
      slots = slots + 1;
    atomicEnd();
  }
  noReorderBegin();
    ready = 1;
    i = 1;
  noReorderEnd();
}

int consumer() {
  int r;
  while (1) {
    assume(ready);
    r = take(CONSUMER);
    assertd((slots >= 0) | (r == 0));
  }
}
