/*
 * Two workers add their own amount to a shared counter through one helper, `add`,
 * which reads the counter and writes it back in two steps. A third thread waits until
 * both workers are done and checks the sum. Each thread has its own copy of `add`'s
 * parameter and return value, so the amounts never mix; the lost update does.
 */
#define FIRST 1
#define SECOND 2

int count;
int done1, done2;

int add(int by) {
    int old;
    old = count;            /* read ...                            */
    count = old + by;       /* ... and write back: not one step    */
    return old;
}

void worker(int by) {
    int before;
    before = add(by);
    assert(before <= FIRST + SECOND - by);
    if (by == FIRST) {
        done1 = 1;
    } else {
        done2 = 1;
    }
}

void checker() {
    assume(done1 == 1 & done2 == 1);
    assert(count == FIRST + SECOND);
}

void main() {
    worker(FIRST);
    worker(SECOND);
    checker();
}
