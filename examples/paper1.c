// The paper's Figure 7 (examples/paper1.cw) as a C model in the dialect of the paper's tool:
// three threads started from main; assume(c) waits for c; labels are line numbers.
// Repair it with: paces repair examples/paper1.c
int x = 0;
int y = 0;
int z = 0;

void thread1() {
    x = 1;
    y = 1;
    z = 1;
}

void thread2() {
    assume(x == 1);
    assume(y == 1);
    assert(z == 1);
}

void thread3() {
    assume(z == 1);
    assert(y == 1);
}

void main() {
    thread1();
    thread2();
    thread3();
}
