// Three clerks sell the last two seats: each checks that a seat is left, then takes it.
#include <pthread.h>

extern void abort(void);
void reach_error() {}

int seats = 2;
int sold = 0;

void *clerk(void *arg) {
  if (seats > 0) {
    seats = seats - 1;
    sold = sold + 1;
  }
  return 0;
}

int main() {
  pthread_t a, b, c;
  pthread_create(&a, 0, clerk, 0);
  pthread_create(&b, 0, clerk, 0);
  pthread_create(&c, 0, clerk, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
  if (sold > 2) { reach_error(); abort(); }
  return 0;
}
