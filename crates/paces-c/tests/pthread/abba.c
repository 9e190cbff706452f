// Two threads take two mutexes in opposite orders: each may hold one and wait for the other.
#include <pthread.h>

pthread_mutex_t first, second;
int hits = 0;

void *left(void *arg) {
  pthread_mutex_lock(&first);
  pthread_mutex_lock(&second);
  hits = hits + 1;
  pthread_mutex_unlock(&second);
  pthread_mutex_unlock(&first);
  return 0;
}

void *right(void *arg) {
  pthread_mutex_lock(&second);
  pthread_mutex_lock(&first);
  hits = hits + 1;
  pthread_mutex_unlock(&first);
  pthread_mutex_unlock(&second);
  return 0;
}

int main() {
  pthread_t l, r;
  pthread_create(&l, 0, left, 0);
  pthread_create(&r, 0, right, 0);
  pthread_join(l, 0);
  pthread_join(r, 0);
  return 0;
}
