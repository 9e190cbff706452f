#include <pthread.h>
extern int __VERIFIER_nondet_int();
void reach_error() { }

int left = 1, right = 1, total;

/* adds the two halves in either order */
#define add_both \
  if (__VERIFIER_nondet_int()) {    \
    total = left; total += right;   \
  } else {                          \
    total = right; total += left;   \
  }

void *mover(void *unused) {
  left--; right++;
  return 0;
}

int main(void) {
  pthread_t m;
  int first = 0, second = 0;
  pthread_create(&m, 0, mover, 0);
  add_both;
  first = total;
  add_both;
  second = total;
  if (first != second) reach_error();
  return 0;
}
