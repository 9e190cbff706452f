// publish: the producer raises the ready flag before it writes the data, so the consumer
// can read stale data. Exercises: typedef bool, true/false, void functions, #define.
#define PAYLOAD 42
typedef int bool;

bool ready = false;
int data;

void producer() {
    ready = true;
    data = PAYLOAD;
}

void consumer() {
    assume(ready == true);
    assert(data == PAYLOAD);
}

void main() {
    producer();
    consumer();
}
