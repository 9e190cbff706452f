// Two tellers update one balance; the checks come from a header of the task's own.
#include <pthread.h>
#include "checks.h"
#include "checks.h"

int balance = 10;

void *teller(void *arg) {
  int b = balance;
  balance = b - 5;
  return 0;
}

int main() {
  pthread_t a, b;
  pthread_create(&a, 0, teller, 0);
  pthread_create(&b, 0, teller, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  __VERIFIER_assert(balance == 0);
  return 0;
}
