#include <pthread.h>
#define N 3
extern void __VERIFIER_error(void);
#define check(c) if (!(c)) __VERIFIER_error()

unsigned int total = 0;
int seen[N];

void __VERIFIER_atomic_add(int k) {
  total = total + k;
}

void *work(void *arg) {
  int me = (int)arg;
  __VERIFIER_atomic_add(me + 1);
  __VERIFIER_atomic_begin();
  seen[0] = seen[0] + 1;
  __VERIFIER_atomic_end();
  return 0;
}

int main() {
  pthread_t t[N];
  for (int i = 0; i < N; i++)
    pthread_create(&t[i], 0, work, (void *)i);
  for (int i = 0; i < N; i++)
    pthread_join(t[i], 0);
  check(total == 6);
  check(seen[0] == N);
  return 0;
}
