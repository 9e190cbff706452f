#include <pthread.h>
extern void __VERIFIER_atomic_begin();
extern void __VERIFIER_atomic_end();
extern void abort(void);
void reach_error() { }

int hi = 1, lo = 2;
#define CAP 7

void *grow_hi(void *unused) {
  for (int n = 0; n < 3; n++) {
    __VERIFIER_atomic_begin();
    hi = lo + 1;
    __VERIFIER_atomic_end();
  }
  return 0;
}

void *grow_lo(void *unused) {
  for (int n = 0; n < 3; n++) {
    __VERIFIER_atomic_begin();
    lo = hi + 1;
    __VERIFIER_atomic_end();
  }
  return 0;
}

int main(void) {
  pthread_t a, b;

  pthread_create(&a, 0, grow_hi, 0);
  pthread_create(&b, 0, grow_lo, 0);

  __VERIFIER_atomic_begin();
  int high = hi > CAP;
  __VERIFIER_atomic_end();

  __VERIFIER_atomic_begin();
  int low = lo > CAP;
  __VERIFIER_atomic_end();

  if (high || low) {
    FAIL: {reach_error();abort();}
  }
  return 0;
}
