#include <pthread.h>
extern void abort(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
void reach_error() { }

/* The climber takes two steps, each atomic; the watcher must never see it halfway. */
int rung = 0;

void *climber(void *unused) {
  int step;
  for (step = 0; step < 2; step++) {
    __VERIFIER_atomic_begin();
    rung = rung + 1;
    __VERIFIER_atomic_end();
  }
  return 0;
}

void *watcher(void *unused) {
  int now = rung;
  if (now == 1) { reach_error(); abort(); }
  return 0;
}

int main(void) {
  pthread_t c, w;
  pthread_create(&c, 0, climber, 0);
  pthread_create(&w, 0, watcher, 0);
  return 0;
}
