#include <pthread.h>
#include <assert.h>

int hits = 0;

void *visit(void *unused) {
  hits = hits + 1;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, visit, 0);
  pthread_create(&b, 0, visit, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(hits == 2);
  return 0;
}
