// The worker passes `level` through an odd value on its way up; main samples it once and
// checks the sample. Sampling before the worker starts passes the check without checking
// anything: that is no repair.
#include <pthread.h>

extern void abort(void);
void reach_error() {}

int level = 0;

void *raise_level(void *arg) {
  level = level + 1;
  level = level + 1;
  return 0;
}

int main(void) {
  pthread_t w;
  pthread_create(&w, 0, raise_level, 0);
  int sample = level;
  if (sample == 1) { reach_error(); abort(); }
  return 0;
}
