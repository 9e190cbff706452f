/* region: a driver's start routine configures the device in a region that must stay in
 * order (noReorderBegin/End), then marks it ready; the interrupt handler runs as soon as the
 * configuration is complete and expects the ready mark. The developers' kind of fix moves the
 * mark above the region (iwl3945's A; B; H; {CDEFG}). Exercises: a noReorder region that a
 * repair moves as one item, written back into the C file.
 */
int ready;
int cfg;
int irq_on;
int stats;

start() {
    stats = 0;               /* A */
    irq_on = 1;              /* B */
    noReorderBegin();
    cfg = 1;                 /* C */
    cfg = cfg + 1;           /* D */
    noReorderEnd();
    ready = 1;               /* H */
}

handler() {
    assume(irq_on == 1);
    assume(cfg == 2);
    assert(ready == 1);
    stats = stats + 1;
}

void main() {
    start();
    handler();
}
