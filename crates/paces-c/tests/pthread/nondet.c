#include <pthread.h>
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int limit;

void *spin(void *unused) {
  int k = 0;
  while (1) {
    k++;
    if (k < limit)
      continue;
    break;
  }
  if (k > 5) reach_error();
  return 0;
}

int main() {
  pthread_t t;
  limit = __VERIFIER_nondet_int();
  pthread_create(&t, 0, spin, 0);
  pthread_join(t, 0);
  return 0;
}
