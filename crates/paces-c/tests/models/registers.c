/* A device's interrupt status register in the style of a driver model: the
   device raises a bit with `|`, the interrupt handler acknowledges the bits it
   saw by writing them back, which clears them (`status & ~val`). */
#define RX 4
#define TX 1

int status;
int on;
int handled;

void write_status(int val) {
  assert(on != 0);
  status = status & (~val);
}

void irq_thread() {
  int pending;
  pending = status & (RX | TX);
  if (pending != 0) {
    write_status(pending);
    handled = handled ^ (pending >> 2);
    assert((status & RX) == 0 & handled == 1);
  }
}

void dev_thread() {
  status = status | RX;
  on = 1;
}

void main() {
  status = 0;
  on = 0;
  handled = 0;
  irq_thread();
  dev_thread();
}
