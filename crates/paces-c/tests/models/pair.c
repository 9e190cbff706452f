/* pair: a writer may set a pair of flags, one after the other; a reader that sees one
 * set but not the other fails. Exercises: nondet conditions (`nondet` and `*`),
 * nondet_int(), a nondet loop, `|` and `&` in conditions.
 */
int p, q;
int rounds;

writer() {
    int coin;
    if (nondet) {
        p = 1;
        q = 1;
    }
    coin = nondet_int();
    while (*) {
        rounds = coin;
    }
}

reader() {
    assert(p == 0 & q == 0 | p == 1 & q == 1);
}

void main() {
    writer();
    reader();
}
