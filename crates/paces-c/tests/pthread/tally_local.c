#include <pthread.h>
#include <stdbool.h>

int hits = 0;
bool started = false;
__thread int mine = 0;

void count(void) {
  mine = mine + 1;
}

void *visit(void *unused) {
  int seen;
  started = true;
  seen = hits;
  count();
  hits = seen + mine;
  return 0;
}

int main(int argc, char **argv) {
  pthread_t a, b;
  pthread_create(&a, 0, visit, 0);
  pthread_create(&b, 0, visit, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  if (hits != 2 || argc < 0) reach_error();
  return 0;
}
