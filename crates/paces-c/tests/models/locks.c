/* locks: two threads update a pair of counters under a mutex and a semaphore, keeping
 * them equal; an observer checks them under the same mutex. Correct as written.
 * Exercises: lock/unlock, down/up, noReorderBegin/End, a busy wait, main's initial
 * values, assertd.
 */
#define FREE 0

int m;
int sem;
int a, b;
int started;

void bump() {
    lock(m);
    a++;
    b++;
    unlock(m);
}

left() {
    down(sem);
    noReorderBegin();
    bump();
    started = 1;
    noReorderEnd();
    up(sem);
}

right() {
    while (started == 0) {}
    bump();
}

observer() {
    lock(m);
    assertd(a == b);
    unlock(m);
}

void main() {
    m = FREE;
    sem = 1;
    left();
    right();
    observer();
}
