/* tokens: a consumer takes a token through a function that returns early when there is
 * none; a second thread takes the last token between the consumer's check and its
 * decrement, and the count goes negative. Exercises: early return, return values, a
 * compound condition.
 */
int tokens = 1;
int taken;

int take() {
    if (tokens == 0)
        return 0;          /* nothing left */
    tokens = tokens - 1;
    return 1;
}

consumer() {
    int got;
    got = take();
    taken = taken + got;
    assert(tokens >= 0);
}

thief() {
    if (tokens > 0) {
        tokens--;
    }
}

void main() {
    consumer();
    thief();
}
