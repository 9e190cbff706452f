/* params: a worker started with an argument computes with helper functions that take
 * parameters and return values; it publishes the result and a reader checks it.
 * Correct as written. Exercises: parameters, return values, `int f()` and a procedure
 * calling a procedure, a thread's argument in main, -= and --.
 */
#define BASE 10

int result;
int published;

int add(int a, int b) {
    int sum;
    sum = a + b;
    return sum;
}

int twice(int v) {
    int r;
    r = add(v, v);
    return r;
}

void worker(int start) {
    int x;
    x = twice(start);
    x -= 1;
    x--;
    result = x;
    published = 1;
}

reader() {
    assume(published == 1);
    assert(result == 2 * BASE - 2);
}

void main() {
    worker(BASE);
    reader();
}
