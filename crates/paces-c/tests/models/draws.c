// draws: the pseudo-variable nondet in the forms the paper's tool's models write it.
int level, spins;

thread1() {
  int extra;
  while(nondet==1) { spins = 1; }
  extra = nondet;
  level = 1;
  level = level + 1 + extra;
}

thread2() {
  int seen;
  if (nondet == 1) {
    spins = 2;
  }
  while (spins < nondet) { spins = spins + 1; }
  seen = level;
  assert(seen != 1);
}

void main() {
  level = 0;
  spins = 0;
  thread1();
  thread2();
}
