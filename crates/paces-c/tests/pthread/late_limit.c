// main sets the limit after starting the worker that reads it: the worker may read 0. The fix
// a maintainer takes sets it first; the thread structure stays as written.
#include <pthread.h>

extern void abort(void);
void reach_error() {}

int limit = 0;
int used = 0;

void *worker(void *arg) {
  int cap = limit;
  if (cap < 3) { reach_error(); abort(); }
  used = 1;
  return 0;
}

int main() {
  pthread_t w;
  pthread_create(&w, 0, worker, 0);
  limit = 5;
  pthread_join(w, 0);
  return 0;
}
