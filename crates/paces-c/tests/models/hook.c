/* hook: a driver's probe enables interrupts before it installs the interrupt handler; an
 * interrupt that arrives in between calls through an unset function pointer.
 * Exercises: a function pointer hook and a call through it, a handler used as a value.
 */
int enabled;
int handled;
void (*irq_handler)();

void handler() {
    handled = 1;
}

void probe() {
    enabled = 1;
    irq_handler = handler;
}

void irq() {
    assume(enabled == 1);
    (*irq_handler)();
}

void main() {
    probe();
    irq();
}
