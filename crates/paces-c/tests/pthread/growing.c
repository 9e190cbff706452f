#include <pthread.h>
extern void reach_error(void);
extern void abort(void);
int a = 1, b = 1;
void *grow_a(void *arg) {
  for (int k = 0; k < 2; k++) {
    a = a + b;
  }
  return 0;
}
void *grow_b(void *arg) {
  for (int k = 0; k < 2; k++) {
    b = b + a;
  }
  return 0;
}
int main(void) {
  pthread_t ta, tb;
  pthread_create(&ta, 0, grow_a, 0);
  pthread_create(&tb, 0, grow_b, 0);
  if (a > 5) {
  ERROR: reach_error();
    abort();
  }
  return 0;
}
