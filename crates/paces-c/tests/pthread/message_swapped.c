#include <pthread.h>
void reach_error() { }
#define READY 1

int payload = 0;
int ready = 0;

void *producer(void *unused) {
  ready = READY;
  payload = 42;
  return 0;
}

void *consumer(void *unused) {
  __VERIFIER_assume(ready == READY);
  if (payload != 42) reach_error();
  return 0;
}

int main() {
  pthread_t p, c;
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  return 0;
}
