// The checks a task file includes from next to it, guarded against a second include.
#ifndef CHECKS_H
#define CHECKS_H
extern void abort(void);
void reach_error(void) {}
void __VERIFIER_assert(int ok) {
  if (!ok) {
    ERROR: reach_error();
    abort();
  }
}
#endif
