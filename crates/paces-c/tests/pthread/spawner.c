// Workers started by a loop with no bound, as a server accepts clients: each counts itself
// in twice, once with a read and a write apart (a lost update) and once under a mutex.
#include <pthread.h>

extern void abort(void);
void reach_error() {}

pthread_mutex_t m;
int served = 0, seen = 0;

void *client(void *arg) {
  int s = served;
  served = s + 1;
  pthread_mutex_lock(&m);
  seen = seen + 1;
  if (seen == 2 && served != 2) { reach_error(); abort(); }
  pthread_mutex_unlock(&m);
  return 0;
}

int main() {
  pthread_t t;
  while (1) {
    pthread_create(&t, 0, client, 0);
  }
  return 0;
}
