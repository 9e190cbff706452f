var x = 0, m = 0;
proc wait_x { await(x == 1); }
thread t {
  A: atomic {
    x := 1;
    await(x == 1);
  }
  B: atomic {
    if (x == 0) {
      lock(m);
    }
  }
  C: atomic {
    skip;
    wait_x();
  }
}
