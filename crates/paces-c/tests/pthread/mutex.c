#include <pthread.h>
extern void reach_error(void);

int balance = 10;
pthread_mutex_t guard = PTHREAD_MUTEX_INITIALIZER;

void *withdraw(void *unused) {
  pthread_mutex_lock(&guard);
  if (balance >= 7)
    balance -= 7;
  pthread_mutex_unlock(&guard);
  return 0;
}

int main() {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, withdraw, NULL);
  pthread_create(&t2, NULL, withdraw, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  if (balance < 0) reach_error();
  return 0;
}
