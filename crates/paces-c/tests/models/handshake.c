/* handshake: a client posts a request inside an atomic section and waits for the reply;
 * the server answers, but it clears the request flag before writing the reply, so the
 * client may read an empty reply. Exercises: atomicBegin/End with a waiting assume
 * inside, if/else, a while loop with a condition, -=.
 */
#define EMPTY 0
#define ANSWER 7

int request;
int reply;
int budget = 2;

client() {
    atomicBegin();
    assume(request == 0);
    request = 1;
    atomicEnd();
    assume(request == 0);
    assert(reply == ANSWER);
}

server() {
    assume(request == 1);
    request = 0;
    if (budget > 0) {
        reply = ANSWER;
    } else {
        reply = EMPTY;
    }
    while (budget > 0) {
        budget -= 1;
    }
}

void main() {
    client();
    server();
}
