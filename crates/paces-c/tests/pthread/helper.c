// main starts a helper and then does the same work itself: both bump a counter that is read
// and written in two steps.
#include <pthread.h>

extern void abort(void);
void reach_error() {}

int count = 0;

void bump() {
  int seen = count;
  count = seen + 1;
}

void *helper(void *arg) {
  bump();
  return 0;
}

int main() {
  pthread_t h;
  pthread_create(&h, 0, helper, 0);
  bump(); // main's own share
  pthread_join(h, 0);
  if (count != 2) { reach_error(); abort(); }
  return 0;
}
