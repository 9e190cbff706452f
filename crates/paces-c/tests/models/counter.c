/* counter: two copies of one worker add to a shared counter through a local copy
 * (read, add, write back): a lost update. The checker waits for both and needs 2.
 * Exercises: #define, typedef, K&R functions, a function started twice from main,
 * locals, ++ and +=.
 */
#define WORKERS 2
typedef int counter_t;

counter_t count;
int done;

worker() {
    int tmp;
    tmp = count;      // read
    tmp++;            // add
    count = tmp;      // write back
    done += 1;
}

checker() {
    assume(done == WORKERS);
    assert(count == WORKERS);
}

void main() {
    worker();
    worker();
    checker();
}
