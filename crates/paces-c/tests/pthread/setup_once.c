// Clients that set up a shared table once: the first one in initialises it and falls through
// to using it, later ones only use it. The state is read under a lock written as SV-COMP's
// tasks write one, a pair of atomic functions on a global.
#include <pthread.h>

extern void abort(void);
void reach_error() {}

int guard = 0, state = 0, setups = 0, users = 0;

void __VERIFIER_atomic_take(int *l) {
  __VERIFIER_assume(*l == 0);
  *l = 1;
}

void __VERIFIER_atomic_give(int *l) { *l = 0; }

void *client(void *arg) {
  __VERIFIER_atomic_take(&guard);
  switch (state) {
  case 0:
    setups = setups + 1;
    state = 1;
  case 1:
    __VERIFIER_atomic_give(&guard);
    users = users + 1, users = users - 1;
    break;
  default:
    reach_error();
    abort();
  }
  int ready;
  do {
    ready = state;
  } while (ready == 0);
  if (setups != 1) { reach_error(); abort(); }
  return 0;
}

int main() {
  pthread_t t;
  while (1) { pthread_create(&t, 0, client, 0); }
  return 0;
}
