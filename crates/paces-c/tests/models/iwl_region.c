/* iwl_region: examples/iwl3945.cw in the paper's C dialect, its sections written as bare
 * blocks `{ atomicBegin(); ... atomicEnd(); };`. alive_start takes lock1, then in a region
 * that must stay in order takes rtnl_lock; config_thread takes them the other way round (an
 * ABBA deadlock, which its assertion checks). The fix moves the release of lock1 (H) above
 * the region. Exercises: a moved noReorder region whose block holds bare blocks, written back
 * into the C file.
 */
#define CFG 1
#define START 2

int lock1;
int rtnl_lock;
int want_lock;
int want_rtnl_lock;
int restarted;
int notify;

config_thread () {
    noReorderBegin ();
    /* 1 */
    {
        atomicBegin();
        assume(rtnl_lock == 0);
        rtnl_lock = 1;
        atomicEnd ();
    };
    want_lock = CFG;
    assert((lock1 == 0) | (want_rtnl_lock != START));
    {
        atomicBegin ();
        assume (lock1 == 0);
        lock1 = 1;
        want_lock = 0;
        atomicEnd();
    };
    lock1 = 0;
    rtnl_lock = 0;
    noReorderEnd ();
}

alive_start () {
    /* A */
    {
        atomicBegin();
        assume(lock1==0);
        lock1 = 1;
        atomicEnd();
    };

    restarted = 1;

    noReorderBegin();
    want_rtnl_lock = START;
    {
        atomicBegin();
        assume(rtnl_lock == 0);
        rtnl_lock = 1;
        want_rtnl_lock = 0;
        atomicEnd();
    };
    notify = 1;
    rtnl_lock = 0;
    noReorderEnd();

    /* H */
    lock1 = 0;
}

reassoc () {
    assume (notify == 1);
    assert (restarted == 1);
}

void main () {
    lock1 = 0;
    notify = 0;
    config_thread();
    alive_start ();
    reassoc();
}
