/* A sample model. */
#define IDLE 0
#define BUSY 1
typedef int bool;

int state;
bool ready = false;
int m;

int take(int n) {
    int old;
    old = state;
    if (n == 0) return old;
    state = state + n;
    return old;
}

thread1() {
    atomicBegin();
    assume(state == IDLE);
    state = BUSY;
    atomicEnd();
    assert(ready == 1);
}

void thread2() {
    int r;
    ready = 1;
    r = take(1);
    noReorderBegin();
    lock(m); unlock(m);
    noReorderEnd();
    r = nondet_int();
    if (*) { r++; } else r += 2;
}

void main() {
    state = IDLE;
    thread1();
    thread2();
}
